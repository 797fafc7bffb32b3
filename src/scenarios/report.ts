/**
 * What a simulation answers: per variant, totals, per-resource totals and findings; the terminal
 * summary printed from them; and the `--json` document (the same plus per-second series).
 */
import { findingsOf, type Finding } from './findings.js';
import type { KeySummary } from './key-tally.js';
import type { ResourceSeries, VariantResult, VariantSeries } from './runner.js';
import type { Scenario } from './schema.js';

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
  readonly findings: readonly Finding[];
}

export interface SimulationReport {
  readonly scenario: string;
  readonly description: string;
  readonly simulatedSeconds: number;
  readonly tickMs: number;
  readonly variants: readonly VariantReport[];
}

export function buildReport(scenario: Scenario, results: readonly VariantResult[]): SimulationReport {
  return {
    scenario: scenario.name,
    description: scenario.description,
    simulatedSeconds: scenario.phases.reduce((total, phase) => total + phase.durationSeconds, 0),
    tickMs: scenario.tickMs,
    variants: results.map(variantReport),
  };
}

function variantReport(result: VariantResult): VariantReport {
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
    findings: findingsOf(result),
  };
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

function pct(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}
