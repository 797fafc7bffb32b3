/**
 * The catalog's gauges as metrics/gauges.ts reads them: plain numbers per table and live GSI, so
 * the metrics layer needs nothing of the engine. Walked at most once a second (Telemetry.sampleGauges).
 */
import type { IndexGaugeReading, TableGaugeReading } from '../metrics/gauges.js';
import type { Table } from './table.js';

export function gaugeReadingOf(table: Table): TableGaugeReading {
  const provisioned = table.record.billingMode === 'PROVISIONED';
  const indexes: IndexGaugeReading[] = [];
  for (const index of table.indexes.all) {
    if (index.kind !== 'global' || !index.live) continue;
    const cursor = index.state.backfillCursor;
    indexes.push({
      index: index.name,
      provisioned: provisioned ? index.record.throughput : undefined,
      backfillPercent: cursor === undefined ? undefined : backfillPercent(cursor, table.itemPrefix.length),
    });
  }
  return { table: table.name, provisioned: provisioned ? table.record.throughput : undefined, indexes };
}

const HASH_SPACE = 2 ** 32;

/**
 * A backfill's progress in percent from its cursor. Items are stored in partition-key-hash order
 * and the backfill walks them in that order, so the hash at its cursor (right after the table's
 * prefix, engine/catalog.ts), as a fraction of the 32-bit hash space, estimates the share of the
 * table already indexed. A cursor at the prefix itself is 0 %.
 */
export function backfillPercent(cursor: Uint8Array, itemPrefixLength: number): number {
  if (cursor.length < itemPrefixLength + 4) return 0;
  const hash = Buffer.from(cursor.buffer, cursor.byteOffset, cursor.byteLength).readUInt32BE(itemPrefixLength);
  return (hash / HASH_SPACE) * 100;
}
