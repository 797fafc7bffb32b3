/**
 * An engine's observability state: its CloudWatch-style metrics and its Contributor Insights. One
 * per Engine (the `telemetry` field), so two servers in one process never share series or rules.
 *
 * What the request path calls (the server wires these):
 * - per request: handles from `metrics.series(...)`, resolved once and cached, then
 *   `series.record(value, nowMs)`; `insights.recordAccess(...)` / `insights.recordThrottle(...)`;
 * - now and then (each request is fine: it is rate-limited here): `sampleGauges(catalog, nowMs)`;
 * - per admitted demand / throttle: `partitionHistory.resource(table, index)` (resolved once) then
 *   `record(partitionId, direction, units, nowMs)` / `recordThrottle(...)`; `forget(id)` on a split;
 * - on DeleteTable / a GSI's removal: `dropTable(name)` / `dropIndex(table, index)`.
 */
import { sampleTableGauges, type GaugeSource } from './gauges.js';
import { ContributorInsights, type InsightsOptions } from './insights.js';
import { PartitionHistories } from './partition-history.js';
import { MetricsRegistry, type MetricsOptions } from './registry.js';
import { RequestMetrics } from './request-metrics.js';
import { SECOND_MS } from './series.js';

export interface TelemetryOptions {
  readonly metrics?: Partial<MetricsOptions>;
  readonly insights?: Partial<InsightsOptions>;
}

export class Telemetry {
  readonly metrics: MetricsRegistry;
  readonly insights: ContributorInsights;
  /** Request-level metrics (latency, returned items, throttled requests, errors), per operation and table. */
  readonly requests: RequestMetrics;
  /** Per table / GSI partition: units consumed and throttles over time (the dashboard's heat map). */
  readonly partitionHistory = new PartitionHistories();
  /** The second of the injected clock gauges were last sampled in. */
  #sampledSecond = -Infinity;

  constructor(options: TelemetryOptions = {}) {
    this.metrics = new MetricsRegistry(options.metrics);
    this.requests = new RequestMetrics(this.metrics);
    this.insights = new ContributorInsights(options.insights);
  }

  /**
   * Samples the gauges (Provisioned*CapacityUnits, OnlineIndexPercentageProgress) of every table,
   * at most once per second of the injected clock: cheap enough to call on every request.
   * Returns whether it sampled.
   */
  sampleGauges(tables: GaugeSource, nowMs: number): boolean {
    const second = Math.floor(nowMs / SECOND_MS);
    if (second <= this.#sampledSecond) return false;
    this.#sampledSecond = second;
    sampleTableGauges(this.metrics, tables, nowMs);
    return true;
  }

  /** A table was deleted: its series and its Contributor Insights (rules included) go with it. */
  dropTable(table: string): void {
    this.metrics.dropTable(table);
    this.requests.dropTable(table);
    this.insights.dropTable(table);
    this.partitionHistory.dropTable(table);
  }

  /** A GSI was deleted. */
  dropIndex(table: string, index: string): void {
    this.metrics.dropIndex(table, index);
    this.insights.dropIndex(table, index);
    this.partitionHistory.dropIndex(table, index);
  }
}
