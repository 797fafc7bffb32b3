/**
 * UpdateContributorInsights: turns Contributor Insights on (in a mode) or off for a table or one of
 * its GSIs. The answer is ENABLING / DISABLING; the change settles on the injected clock
 * (src/metrics/insights.ts). Re-enabling the current mode and disabling what is disabled change
 * nothing and answer the current status, as DynamoDB does.
 */
import { tableStatusAt } from '../engine/describe.js';
import type { Engine } from '../engine/engine.js';
import { resourceNotFound, validationError } from '../errors.js';
import { INSIGHTS_MODES, type InsightsAction, type InsightsMode, type InsightsTarget } from '../metrics/insights.js';
import { findGlobalIndex, indexTarget, tableTarget } from '../engine/insights-targets.js';
import { requireTable, tableNameOrArnMember, tableReferenceOf, type TableReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';

/** IndexName: 3..255 characters of [a-zA-Z0-9_.-]. */
export const insightsIndexNameMember = shapes.string({ pattern: '[a-zA-Z0-9_.-]+', lengthMin: 3, lengthMax: 255 });

const NOT_ACTIVE = 'Table or Index is not in a valid state to update Key Access Insights: ';

interface UpdateContributorInsightsRequest {
  readonly reference: TableReference;
  readonly indexName: string | undefined;
  readonly action: InsightsAction;
  readonly mode: InsightsMode | undefined;
}

/** The table or GSI a request names, or DynamoDB's ResourceNotFoundException (an LSI is not found either). */
export function resolveInsightsTarget(engine: Engine, reference: TableReference, indexName: string | undefined): InsightsTarget {
  const table = requireTable(engine, reference);
  if (indexName === undefined) return tableTarget(table);
  const index = findGlobalIndex(table, indexName);
  if (index === undefined) throw resourceNotFound(`Requested resource not found: Index: ${indexName} not found for table: ${table.name}`);
  return indexTarget(table, index);
}

/** Rules are created on ACTIVE tables and GSIs only; disabling is always accepted. */
function checkEnableAllowed(engine: Engine, target: InsightsTarget, nowMs: number): void {
  const table = engine.catalog.get(target.table);
  if (table === undefined) return;
  if (tableStatusAt(table.record, nowMs) === 'CREATING') {
    throw validationError(NOT_ACTIVE + 'TableStatus must be ACTIVE to enable ContributorInsights.');
  }
  if (target.index === undefined) return;
  const index = findGlobalIndex(table, target.index);
  if (index !== undefined && (index.record.status === 'CREATING' || index.backfilling)) {
    throw validationError(NOT_ACTIVE + 'IndexStatus must be ACTIVE to enable ContributorInsights.');
  }
}

export const updateContributorInsightsOperation = defineOperation<UpdateContributorInsightsRequest>({
  name: 'UpdateContributorInsights',
  members: {
    TableName: tableNameOrArnMember,
    IndexName: insightsIndexNameMember,
    ContributorInsightsAction: shapes.string({ notNull: true, enumValues: ['ENABLE', 'DISABLE'] }),
    ContributorInsightsMode: shapes.string({ enumValues: INSIGHTS_MODES }),
  },

  validate(input) {
    return {
      reference: tableReferenceOf(input.TableName as string),
      indexName: input.IndexName as string | undefined,
      action: input.ContributorInsightsAction as InsightsAction,
      mode: input.ContributorInsightsMode as InsightsMode | undefined,
    };
  },

  execute(engine, request) {
    const nowMs = engine.clock.nowMs();
    const target = resolveInsightsTarget(engine, request.reference, request.indexName);
    if (request.action === 'ENABLE') checkEnableAllowed(engine, target, nowMs);
    const result = engine.telemetry.insights.update(target, request.action, request.mode, nowMs);
    return {
      TableName: target.table,
      IndexName: target.index,
      ContributorInsightsStatus: result.status,
      ContributorInsightsMode: result.mode,
    };
  },
});
