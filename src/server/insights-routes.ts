/**
 * The Contributor Insights API of the inspection router: the top contributors of each rule, per
 * minute retained (src/metrics/insights.ts).
 *
 *   GET /dynatwin/tables/<table>/contributor-insights
 *   GET /dynatwin/tables/<table>/indexes/<gsi>/contributor-insights
 *     → {"table", "index"?, "status", "mode"?, "rules": [{"ruleName", "kind", "measure",
 *        "minutes": [{"startMs", "Timestamp", "complete", "total",
 *                     "contributors": [{"keys", "value", "maxOverestimate"}]}]}]}
 *
 * Minutes are oldest first; the minute in progress comes last with `complete: false`. A table or
 * GSI without Contributor Insights answers its status and no rules; an unknown table or GSI (or an
 * LSI) answers 404.
 */
import type { Engine } from '../engine/engine.js';
import type { InsightsReport } from '../metrics/insights.js';
import { findGlobalIndex, indexTarget, tableTarget } from '../engine/insights-targets.js';
import { InspectionError, type InspectionRouter } from './inspection.js';

export function registerInsightsRoutes(router: InspectionRouter, engine: Engine): void {
  router.get(/^\/dynatwin\/tables\/([^/]+)\/contributor-insights\/?$/, (request) => ({
    status: 200,
    body: insightsReport(engine, request.params[0]!, undefined),
  }));
  router.get(/^\/dynatwin\/tables\/([^/]+)\/indexes\/([^/]+)\/contributor-insights\/?$/, (request) => ({
    status: 200,
    body: insightsReport(engine, request.params[0]!, request.params[1]!),
  }));
}

export function insightsReport(engine: Engine, tableName: string, indexName: string | undefined): InsightsReport {
  const table = engine.catalog.get(tableName);
  if (table === undefined) throw new InspectionError(404, `table not found: ${tableName}`);
  const nowMs = engine.clock.nowMs();
  if (indexName === undefined) return engine.telemetry.insights.report(tableTarget(table), nowMs);
  const index = findGlobalIndex(table, indexName);
  if (index === undefined) throw new InspectionError(404, `global secondary index not found: ${indexName} (table ${tableName})`);
  return engine.telemetry.insights.report(indexTarget(table, index), nowMs);
}
