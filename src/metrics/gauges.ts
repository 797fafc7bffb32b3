/**
 * Gauges: metrics that describe a state rather than events, sampled from the catalog rather than
 * recorded per request. CloudWatch publishes Provisioned*CapacityUnits every 5 minutes; dynatwin
 * samples whenever `sampleTableGauges` is called (Telemetry.sampleGauges calls it at most once per
 * second of the injected clock), so the Minimum / Maximum / Average of a minute show a throughput
 * change within that minute as CloudWatch's do.
 *
 * - ProvisionedRead/WriteCapacityUnits: provisioned tables and their GSIs (on-demand tables have
 *   none in CloudWatch either).
 * - OnlineIndexPercentageProgress: a GSI being backfilled. Items are stored in partition-key-hash
 *   order and the backfill walks them in that order, so the hash at its cursor, as a fraction of
 *   the 32-bit hash space, estimates the share of the table already indexed.
 */
import type { Table } from '../engine/table.js';
import type { ThroughputRecord } from '../engine/table.js';
import type { MetricsRegistry } from './registry.js';

/** What sampling needs of the catalog (engine/catalog.ts Catalog fits). */
export interface TableSource {
  names(): readonly string[];
  get(name: string): Table | undefined;
}

export function sampleTableGauges(metrics: MetricsRegistry, tables: TableSource, nowMs: number): void {
  for (const name of tables.names()) {
    const table = tables.get(name);
    if (table !== undefined) sampleTable(metrics, table, nowMs);
  }
}

function sampleTable(metrics: MetricsRegistry, table: Table, nowMs: number): void {
  const provisioned = table.record.billingMode === 'PROVISIONED';
  if (provisioned) recordThroughput(metrics, table.name, undefined, table.record.throughput, nowMs);
  for (const index of table.indexes.all) {
    if (index.kind !== 'global' || !index.live) continue;
    const throughput = index.record.throughput;
    if (provisioned && throughput !== undefined) recordThroughput(metrics, table.name, index.name, throughput, nowMs);
    const cursor = index.state.backfillCursor;
    if (cursor !== undefined) {
      const series = metrics.series({ metric: 'OnlineIndexPercentageProgress', table: table.name, index: index.name });
      series.record(backfillPercent(cursor, table.itemPrefix.length), nowMs);
    }
  }
}

function recordThroughput(metrics: MetricsRegistry, table: string, index: string | undefined, throughput: ThroughputRecord, nowMs: number): void {
  metrics.series({ metric: 'ProvisionedReadCapacityUnits', table, index }).record(throughput.readCapacityUnits, nowMs);
  metrics.series({ metric: 'ProvisionedWriteCapacityUnits', table, index }).record(throughput.writeCapacityUnits, nowMs);
}

const HASH_SPACE = 2 ** 32;

/**
 * The backfill's progress in percent from its cursor: an item key is the table's prefix, then the
 * 32-bit hash of the partition key (engine/catalog.ts). A cursor at the prefix itself is 0 %.
 */
export function backfillPercent(cursor: Uint8Array, itemPrefixLength: number): number {
  if (cursor.length < itemPrefixLength + 4) return 0;
  const hash = Buffer.from(cursor.buffer, cursor.byteOffset, cursor.byteLength).readUInt32BE(itemPrefixLength);
  return (hash / HASH_SPACE) * 100;
}
