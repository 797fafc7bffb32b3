/**
 * The Prometheus text exposition (format version 0.0.4) of a MetricsRegistry: GET /metrics.
 *
 * One family per CloudWatch metric, named `dynamodb_<snake_case name>`, with labels `table`,
 * `index` (GSI series only) and `operation` where CloudWatch has those dimensions. Every family is
 * typed `gauge`, because every value is a level, not a running total:
 * - counts (consumed units, throttle events, errors, returned items): the Sum over the last
 *   complete minute, 0 when nothing was recorded in it. A per-minute sum goes down as well as up,
 *   so typing it `counter` would make `rate()` read every decrease as a reset;
 * - SuccessfulRequestLatency: the Average over the last complete minute (a sum of latencies means
 *   nothing), left out when no request completed in that minute;
 * - Provisioned*CapacityUnits and OnlineIndexPercentageProgress: the latest sample, left out once
 *   it is older than the retention.
 * The last *complete* minute is used so a scrape never sees a minute that is still filling up.
 */
import { METRICS, type MetricDefinition, type MetricName } from './catalog.js';
import type { MetricsRegistry } from './registry.js';
import { MINUTE_MS, type MetricSeries } from './series.js';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export function renderPrometheus(registry: MetricsRegistry, nowMs: number): string {
  const byMetric = groupByMetric(registry.all());
  const lines: string[] = [];
  for (const definition of METRICS) {
    lines.push(`# HELP ${definition.prometheusName} ${escapeHelp(helpOf(definition))}`);
    lines.push(`# TYPE ${definition.prometheusName} gauge`);
    for (const series of byMetric.get(definition.name) ?? []) {
      const value = valueOf(series, nowMs, registry.options.retentionMs);
      if (value !== undefined) lines.push(`${definition.prometheusName}${labelsOf(series)} ${formatValue(value)}`);
    }
  }
  lines.push('# HELP dynatwin_metrics_series Metric series held by dynatwin.');
  lines.push('# TYPE dynatwin_metrics_series gauge');
  lines.push(`dynatwin_metrics_series ${registry.seriesCount}`);
  lines.push('# HELP dynatwin_metrics_series_rejected_total Series refused because the series bound was reached.');
  lines.push('# TYPE dynatwin_metrics_series_rejected_total counter');
  lines.push(`dynatwin_metrics_series_rejected_total ${registry.rejectedSeries}`);
  return lines.join('\n') + '\n';
}

function helpOf(definition: MetricDefinition): string {
  const statistic =
    definition.exposition === 'Latest' ? 'the latest sample' : `the ${definition.exposition} over the last complete minute`;
  return `${definition.help} CloudWatch AWS/DynamoDB ${definition.name} (${definition.unit}); value: ${statistic}.`;
}

/** Series per metric, sorted by their labels so scrapes are stable. */
function groupByMetric(all: Iterable<MetricSeries>): Map<MetricName, MetricSeries[]> {
  const byMetric = new Map<MetricName, MetricSeries[]>();
  for (const series of all) {
    let list = byMetric.get(series.key.metric);
    if (list === undefined) byMetric.set(series.key.metric, (list = []));
    list.push(series);
  }
  for (const list of byMetric.values()) list.sort((a, b) => compareText(sortKey(a), sortKey(b)));
  return byMetric;
}

function sortKey(series: MetricSeries): string {
  return (series.key.table ?? '') + '\u0000' + (series.key.index ?? '') + '\u0000' + (series.key.operation ?? '');
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The value a series shows, or undefined to leave its line out (see the module comment). */
function valueOf(series: MetricSeries, nowMs: number, retentionMs: number): number | undefined {
  const exposition = series.definition.exposition;
  if (exposition === 'Latest') return series.latest(nowMs, retentionMs)?.value;
  const lastCompleteMinute = Math.floor(nowMs / MINUTE_MS) - 1;
  const statistics = series.ring(60)?.read(lastCompleteMinute);
  if (exposition === 'Sum') return statistics?.sum ?? 0;
  return statistics === undefined ? undefined : statistics.sum / statistics.sampleCount;
}

function labelsOf(series: MetricSeries): string {
  const labels: string[] = [];
  const { table, index, operation } = series.key;
  if (table !== undefined) labels.push(`table="${escapeLabelValue(table)}"`);
  if (index !== undefined) labels.push(`index="${escapeLabelValue(index)}"`);
  if (operation !== undefined) labels.push(`operation="${escapeLabelValue(operation)}"`);
  return labels.length === 0 ? '' : `{${labels.join(',')}}`;
}

/** Label values escape backslash, double quote and line feed (exposition format 0.0.4). */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text escapes backslash and line feed only. */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** Go's float syntax, which Prometheus parses: NaN, +Inf, -Inf, or the shortest decimal. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
