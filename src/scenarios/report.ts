/**
 * What a simulation answers: per variant, totals, per-resource totals and findings; the terminal
 * summary printed from them; and the `--json` document (the same plus per-second series).
 */
import { findingsOf, type Finding } from './findings.js';
import { billingFinding, dollars, US_EAST_1_PRICES, variantCost, type PriceTable, type VariantCost } from './pricing.js';
import type { KeySummary } from './key-tally.js';
import type { OperationStats, ResourceSeries, ScalingActivity, VariantResult, VariantSeries } from './runner.js';
import { variantSeconds, type Scenario } from './schema.js';

export interface VariantTotals {
  readonly offered: number;
  readonly accepted: number;
  readonly throttled: number;
  readonly failed: number;
  readonly requests: number;
  /** Retries still waiting when the workload ended. */
  readonly pendingAtEnd: number;
  readonly firstThrottleSeconds: number | null;
  /** Accepted per second over the last minute of the run (or the whole run, if shorter). */
  readonly acceptedPerSecondLastMinute: number;
  readonly errors: Readonly<Record<string, number>>;
}

export interface ResourceTotals {
  readonly consumedReadUnits: number;
  readonly consumedWriteUnits: number;
  readonly throttleEvents: number;
  /** The hottest partition's units over the resource's units, across the run. */
  readonly hottestPartitionShare: number;
  readonly partitions: number;
}

export interface VariantReport {
  readonly name: string;
  readonly description: string;
  readonly totals: VariantTotals;
  readonly resources: readonly { readonly name: string; readonly kind: 'table' | 'index'; readonly partitionKey: string; readonly totals: ResourceTotals; readonly series: ResourceSeries }[];
  readonly series: VariantSeries;
  /** The values each resource's partition key took (top values and shares), by resource name. */
  readonly keys: Readonly<Record<string, KeySummary>>;
  /** Per workload operation: requests, outcomes, capacity. */
  readonly operations: readonly OperationStats[];
  /** Provisioned throughput at the end of the run, over every table and GSI, and its list price. */
  readonly provisioned: ProvisionedTotals;
  /** Capacity and outcomes per unit of work (a "delivery"), when operations say what they count. */
  readonly perUnit: PerUnit | null;
  /** The run's bill at the report's price table (pricing.ts). */
  readonly cost: VariantCost;
  /** Capacity changes auto scaling made (variants[].autoScaling), in time order. */
  readonly scalingActivities: readonly ScalingActivity[];
  readonly findings: readonly Finding[];
}

export interface ProvisionedTotals {
  readonly readUnitsPerSecond: number;
  readonly writeUnitsPerSecond: number;
  /** At us-east-1 list prices for provisioned capacity, 730 hours a month. */
  readonly dollarsPerMonth: number;
}

export interface PerUnit {
  readonly name: string;
  /** Units of work completed (accepted requests of the operations that count them). */
  readonly count: number;
  /** Every operation's consumed units over the count. */
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly calls: number;
}

/** us-east-1 provisioned capacity list prices (per unit-hour) and hours in a month. */
const WRITE_UNIT_HOUR_DOLLARS = 0.00065;
const READ_UNIT_HOUR_DOLLARS = 0.00013;
const HOURS_PER_MONTH = 730;

export interface SimulationReport {
  readonly scenario: string;
  readonly description: string;
  readonly simulatedSeconds: number;
  readonly tickMs: number;
  readonly fidelity: 'items' | 'flow';
  /** The price table the costs use. */
  readonly prices: PriceTable;
  readonly variants: readonly VariantReport[];
}

export function buildReport(scenario: Scenario, results: readonly VariantResult[], prices: PriceTable = US_EAST_1_PRICES): SimulationReport {
  return {
    scenario: scenario.name,
    description: scenario.description,
    simulatedSeconds: Math.max(...scenario.variants.map(variantSeconds)),
    tickMs: scenario.tickMs,
    fidelity: scenario.fidelity,
    prices,
    variants: results.map((result) => variantReport(result, prices)),
  };
}

function variantReport(result: VariantResult, prices: PriceTable): VariantReport {
  const cost = variantCost(result, prices);
  const billing = billingFinding(result, cost, prices);
  const series = result.series;
  const lastMinute = series.accepted.slice(-60);
  return {
    name: result.name,
    description: result.description,
    totals: {
      offered: sum(series.offered),
      accepted: sum(series.accepted),
      throttled: sum(series.throttled),
      failed: sum(series.failed),
      requests: sum(series.requests),
      pendingAtEnd: result.pendingAtEnd,
      firstThrottleSeconds: result.firstThrottleSeconds ?? null,
      acceptedPerSecondLastMinute: lastMinute.length === 0 ? 0 : sum(lastMinute) / lastMinute.length,
      errors: result.errors,
    },
    resources: result.resources.map((resource) => ({
      name: resource.name,
      kind: resource.kind,
      partitionKey: resource.partitionKey,
      totals: resourceTotals(resource),
      series: resource,
    })),
    series,
    keys: result.keys,
    operations: result.operations,
    provisioned: provisionedTotals(result),
    perUnit: perUnitOf(result),
    cost,
    scalingActivities: result.scalingActivities ?? [],
    findings: billing === undefined ? findingsOf(result) : [...findingsOf(result), billing],
  };
}

function provisionedTotals(result: VariantResult): ProvisionedTotals {
  let read = 0;
  let write = 0;
  for (const resource of result.provisioned) {
    read += resource.readUnitsPerSecond;
    write += resource.writeUnitsPerSecond;
  }
  return { readUnitsPerSecond: read, writeUnitsPerSecond: write, dollarsPerMonth: Math.round((read * READ_UNIT_HOUR_DOLLARS + write * WRITE_UNIT_HOUR_DOLLARS) * HOURS_PER_MONTH * 100) / 100 };
}

function perUnitOf(result: VariantResult): PerUnit | null {
  const counting = result.operations.filter((operation) => operation.countsAs !== undefined);
  if (counting.length === 0) return null;
  const count = counting.reduce((total, operation) => total + operation.accepted, 0);
  const totals = result.operations.reduce(
    (acc, operation) => ({ read: acc.read + operation.readUnits, write: acc.write + operation.writeUnits, calls: acc.calls + operation.calls }),
    { read: 0, write: 0, calls: 0 },
  );
  const per = (value: number): number => (count === 0 ? 0 : value / count);
  return { name: counting[0]!.countsAs!, count, readUnits: per(totals.read), writeUnits: per(totals.write), calls: per(totals.calls) };
}

function resourceTotals(resource: ResourceSeries): ResourceTotals {
  const writes = sum(resource.consumedWriteUnits);
  const reads = sum(resource.consumedReadUnits);
  const units = writes > 0 ? writes : reads;
  return {
    consumedReadUnits: reads,
    consumedWriteUnits: writes,
    throttleEvents: sum(resource.throttleEvents),
    hottestPartitionShare: units === 0 ? 0 : sum(resource.hottestPartitionUnits) / units,
    partitions: resource.partitionCount[resource.partitionCount.length - 1] ?? 0,
  };
}

/** The `--json` document: the report without the copies of series kept for convenience. */
export function jsonDocument(report: SimulationReport): object {
  return {
    ...report,
    variants: report.variants.map((variant) => ({
      ...variant,
      resources: variant.resources.map(({ name, kind, partitionKey, totals, series }) => ({
        name,
        kind,
        partitionKey,
        totals,
        series: {
          consumedReadUnits: series.consumedReadUnits,
          consumedWriteUnits: series.consumedWriteUnits,
          throttleEvents: series.throttleEvents,
          hottestPartitionShare: series.hottestPartitionShare.map((share) => Math.round(share * 1000) / 1000),
          partitionCount: series.partitionCount,
          backlogWriteUnits: series.backlogWriteUnits,
        },
      })),
    })),
  };
}

/** The bill in one line: the total and its non-zero parts. */
function costLine(cost: VariantCost, prices: PriceTable): string {
  const usd = dollars;
  const parts: string[] = [];
  if (cost.writeRequestUnits + cost.readRequestUnits > 0) parts.push(`on-demand ${usd(cost.onDemandWriteUsd + cost.onDemandReadUsd)} (${n(cost.writeRequestUnits)} WRU, ${n(cost.readRequestUnits)} RRU)`);
  if (cost.writeCapacityUnitHours + cost.readCapacityUnitHours > 0) parts.push(`provisioned ${usd(cost.provisionedWriteUsd + cost.provisionedReadUsd)} (${n(cost.writeCapacityUnitHours)} WCU-h, ${n(cost.readCapacityUnitHours)} RCU-h)`);
  parts.push(`storage ${usd(cost.storageUsd)} (${cost.storageGbAtEnd.toLocaleString('en-US')} GB at the end, ${usd(cost.storageUsdPerMonth)}/month)`);
  return `  cost: ${usd(cost.usd)} at ${prices.region} prices · ${parts.join(' · ')}`;
}

/** The terminal summary, one block per variant. */
export function formatSummary(report: SimulationReport): string {
  const lines: string[] = [`Scenario ${report.scenario}: ${report.simulatedSeconds} s simulated`];
  for (const variant of report.variants) {
    const totals = variant.totals;
    lines.push('', `Variant ${variant.name}${variant.description === '' ? '' : ` — ${variant.description}`}`);
    lines.push(
      `  offered ${n(totals.offered)} · accepted ${n(totals.accepted)} (${pct(totals.offered === 0 ? 0 : totals.accepted / totals.offered)})` +
        ` · throttled ${n(totals.throttled)} · gave up ${n(totals.failed)}` +
        (totals.pendingAtEnd > 0 ? ` · still retrying ${n(totals.pendingAtEnd)}` : '') +
        ` · requests ${n(totals.requests)}`,
    );
    lines.push(
      `  first throttle: ${totals.firstThrottleSeconds === null ? 'none' : `${Math.round(totals.firstThrottleSeconds * 10) / 10} s`}` +
        ` · accepted over the last minute: ${n(totals.acceptedPerSecondLastMinute)}/s`,
    );
    const errors = Object.entries(totals.errors);
    if (errors.length > 0) lines.push(`  errors: ${errors.map(([code, count]) => `${code} ${n(count)}`).join(', ')}`);
    if (variant.provisioned.readUnitsPerSecond + variant.provisioned.writeUnitsPerSecond > 0) {
      const p = variant.provisioned;
      lines.push(`  provisioned at the end: ${n(p.readUnitsPerSecond)} RCU + ${n(p.writeUnitsPerSecond)} WCU over its tables and GSIs ≈ $${p.dollarsPerMonth.toFixed(2)}/month (us-east-1 list price)`);
    }
    lines.push(costLine(variant.cost, report.prices));
    const scaled = variant.scalingActivities;
    if (scaled.length > 0) {
      const outs = scaled.filter((activity) => activity.direction === 'out').length;
      const last = scaled.at(-1)!;
      lines.push(`  auto scaling: ${n(scaled.length)} changes (${n(outs)} out, ${n(scaled.length - outs)} in); last at ${n(last.timeSeconds)} s: ${last.resource} ${n(last.from)} → ${n(last.to)}`);
    }
    if (variant.perUnit !== null) {
      const u = variant.perUnit;
      lines.push(`  per ${u.name}: ${dec(u.writeUnits)} write units · ${dec(u.readUnits)} read units · ${dec(u.calls)} calls (${n(u.count)} counted)`);
    }
    if (variant.operations.length > 1 || variant.operations.some((operation) => operation.failed > 0 || operation.kind === 'ShardedQuery' || operation.kind === 'Scan')) {
      for (const operation of variant.operations) {
        lines.push(
          `  operation ${operation.name}: ${n(operation.accepted)} done of ${n(operation.offered)} · ${n(operation.calls)} calls · ${n(operation.writeUnits)} WCU · ${n(operation.readUnits)} RCU` +
            (operation.throttled > 0 ? ` · throttled ${n(operation.throttled)}` : '') +
            (operation.itemSizeFailures > 0 ? ` · over 400 KB ${n(operation.itemSizeFailures)}` : ''),
        );
      }
    }
    const width = Math.max(8, ...variant.resources.map((resource) => resource.name.length));
    lines.push(`  ${'resource'.padEnd(width)}  ${'write units'.padStart(12)}  ${'read units'.padStart(12)}  ${'throttles'.padStart(10)}  hottest partition`);
    for (const resource of variant.resources) {
      const t = resource.totals;
      lines.push(
        `  ${resource.name.padEnd(width)}  ${n(t.consumedWriteUnits).padStart(12)}  ${n(t.consumedReadUnits).padStart(12)}  ${n(t.throttleEvents).padStart(10)}  ` +
          `${pct(t.hottestPartitionShare)} of ${t.partitions} partition${t.partitions === 1 ? '' : 's'}`,
      );
    }
    if (variant.findings.length === 0) lines.push('  findings: none');
    for (const finding of variant.findings) {
      lines.push(`  [${finding.severity}] ${finding.code} on ${finding.resource}: ${finding.summary}`);
      for (const fix of finding.fixes) lines.push(`    fix: ${fix}`);
    }
  }
  return lines.join('\n') + '\n';
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

function n(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function dec(value: number): string {
  return value >= 100 ? n(value) : String(Math.round(value * 10) / 10);
}

function pct(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}
