/**
 * Gauges: metrics that describe a state rather than events, sampled from the catalog rather than
 * recorded per request. CloudWatch publishes Provisioned*CapacityUnits every 5 minutes; dynatwin
 * samples whenever `sampleTableGauges` is called (Telemetry.sampleGauges calls it at most once per
 * second of the injected clock), so the Minimum / Maximum / Average of a minute show a throughput
 * change within that minute as CloudWatch's do.
 *
 * - ProvisionedRead/WriteCapacityUnits: provisioned tables and their GSIs (on-demand tables have
 *   none in CloudWatch either).
 * - OnlineIndexPercentageProgress: a GSI being backfilled (the engine estimates the share done,
 *   engine/gauge-readings.ts).
 *
 * The readings are plain numbers handed in by the caller: metrics knows nothing of tables.
 */
import type { MetricsRegistry } from './registry.js';

/** Provisioned read and write capacity of a table or GSI. */
export interface ProvisionedReading {
  readonly readCapacityUnits: number;
  readonly writeCapacityUnits: number;
}

/** A GSI's gauges: its provisioned throughput, its backfill's progress in percent. */
export interface IndexGaugeReading {
  readonly index: string;
  readonly provisioned: ProvisionedReading | undefined;
  readonly backfillPercent: number | undefined;
}

/** A table's gauges and those of its live GSIs. */
export interface TableGaugeReading {
  readonly table: string;
  readonly provisioned: ProvisionedReading | undefined;
  readonly indexes: readonly IndexGaugeReading[];
}

/** What sampling reads: the gauges of every table now (engine/catalog.ts Catalog fits). */
export interface GaugeSource {
  gaugeReadings(): Iterable<TableGaugeReading>;
}

export function sampleTableGauges(metrics: MetricsRegistry, source: GaugeSource, nowMs: number): void {
  for (const reading of source.gaugeReadings()) {
    if (reading.provisioned !== undefined) recordThroughput(metrics, reading.table, undefined, reading.provisioned, nowMs);
    for (const index of reading.indexes) {
      if (index.provisioned !== undefined) recordThroughput(metrics, reading.table, index.index, index.provisioned, nowMs);
      if (index.backfillPercent !== undefined) {
        metrics.series({ metric: 'OnlineIndexPercentageProgress', table: reading.table, index: index.index }).record(index.backfillPercent, nowMs);
      }
    }
  }
}

function recordThroughput(metrics: MetricsRegistry, table: string, index: string | undefined, throughput: ProvisionedReading, nowMs: number): void {
  metrics.series({ metric: 'ProvisionedReadCapacityUnits', table, index }).record(throughput.readCapacityUnits, nowMs);
  metrics.series({ metric: 'ProvisionedWriteCapacityUnits', table, index }).record(throughput.writeCapacityUnits, nowMs);
}
