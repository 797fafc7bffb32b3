/**
 * The metrics API of the inspection router.
 *
 *   GET /metrics  → Prometheus text exposition (version 0.0.4) of every series (metrics/prometheus.ts)
 *   GET /dynatwin/metrics?table=<t>[&index=<gsi>][&metric=<CloudWatch name>][&operation=<op>]
 *                        [&period=1|60][&startMs=<epoch ms>][&endMs=<epoch ms>]
 *       → {"table", "index"?, "periodSeconds", "startMs", "endMs",
 *          "metrics": [{"metric", "unit", "dimensions", "datapoints": [{Timestamp, Sum, Average,
 *                        Minimum, Maximum, SampleCount}]}]}
 *     Without `metric`, every metric of the table (or GSI); `period` defaults to 60. UserErrors, the
 *     account-level metric, is asked for without `table`. Bad or unknown parameters answer 400.
 */
import type { Clock } from '../clock.js';
import { isOperationName, metricDefinition, type MetricName, type OperationName } from '../metrics/catalog.js';
import { escapeLabelValue, PROMETHEUS_CONTENT_TYPE } from '../metrics/prometheus.js';
import type { Storage, WriteRefusal } from '../storage/storage.js';
import { MetricsQueryError, type MetricsQuery, type MetricsRegistry } from '../metrics/registry.js';
import { InspectionError, type InspectionRouter } from './inspection.js';

export interface MetricsRouteOptions {
  /** Runs before a read with its time, e.g. to sample gauges (Telemetry.sampleGauges) first. */
  readonly beforeRead?: (nowMs: number) => void;
  /** The store whose write state /metrics reports (dynatwin_store_writes_refused). */
  readonly storage?: () => Storage;
}

const QUERY_PARAMETERS = ['table', 'index', 'metric', 'operation', 'period', 'startMs', 'endMs'] as const;
const NAME_PATTERN = /^[a-zA-Z0-9_.-]{3,255}$/;
/** The largest epoch ms a Date can hold. */
const EPOCH_MS_MAX = 8.64e15;

export function registerMetricsRoutes(router: InspectionRouter, metrics: MetricsRegistry, clock: Clock, options: MetricsRouteOptions = {}): void {
  router.get(/^\/metrics$/, () => {
    const nowMs = clock.nowMs();
    options.beforeRead?.(nowMs);
    const storage = options.storage?.();
    const body = metrics.prometheus(nowMs) + (storage === undefined ? '' : storePrometheus(storage.writeRefusal));
    return { status: 200, body, contentType: PROMETHEUS_CONTENT_TYPE };
  });
  router.get(/^\/dynatwin\/metrics\/?$/, (request) => {
    const query = parseMetricsQuery(request.url.searchParams);
    const nowMs = clock.nowMs();
    options.beforeRead?.(nowMs);
    try {
      const result = metrics.query(query, nowMs);
      return { status: 200, body: { table: query.table, index: query.index, ...result } };
    } catch (error) {
      if (error instanceof MetricsQueryError) throw new InspectionError(400, error.message);
      throw error;
    }
  });
}

/** The query string as a MetricsQuery; InspectionError 400 for anything unknown, repeated or malformed. */
export function parseMetricsQuery(parameters: URLSearchParams): MetricsQuery {
  const seen = new Set<string>();
  for (const name of parameters.keys()) {
    if (!(QUERY_PARAMETERS as readonly string[]).includes(name)) {
      throw new InspectionError(400, `unknown parameter ${JSON.stringify(name)}; known: ${QUERY_PARAMETERS.join(', ')}`);
    }
    if (seen.has(name)) throw new InspectionError(400, `parameter ${name} is given more than once`);
    seen.add(name);
  }
  const startMs = epochMsOf(parameters, 'startMs');
  const endMs = epochMsOf(parameters, 'endMs');
  if (startMs !== undefined && endMs !== undefined && startMs > endMs) throw new InspectionError(400, 'startMs must not be after endMs');
  return {
    table: nameOf(parameters, 'table'),
    index: nameOf(parameters, 'index'),
    metric: metricOf(parameters.get('metric')),
    operation: operationOf(parameters.get('operation')),
    periodSeconds: periodOf(parameters.get('period')),
    startMs,
    endMs,
  };
}

function nameOf(parameters: URLSearchParams, name: 'table' | 'index'): string | undefined {
  const value = parameters.get(name);
  if (value === null) return undefined;
  if (!NAME_PATTERN.test(value)) throw new InspectionError(400, `${name} must be 3 to 255 characters of [a-zA-Z0-9_.-]`);
  return value;
}

function metricOf(value: string | null): MetricName | undefined {
  if (value === null) return undefined;
  const definition = metricDefinition(value);
  if (definition === undefined) throw new InspectionError(400, `unknown metric ${JSON.stringify(value)}: use a CloudWatch AWS/DynamoDB metric name`);
  return definition.name;
}

function operationOf(value: string | null): OperationName | undefined {
  if (value === null) return undefined;
  if (!isOperationName(value)) throw new InspectionError(400, `unknown operation ${JSON.stringify(value)}`);
  return value;
}

function periodOf(value: string | null): 1 | 60 {
  if (value === null || value === '60') return 60;
  if (value === '1') return 1;
  throw new InspectionError(400, 'period must be 1 or 60 (seconds)');
}

function epochMsOf(parameters: URLSearchParams, name: 'startMs' | 'endMs'): number | undefined {
  const value = parameters.get(name);
  if (value === null) return undefined;
  if (!/^\d{1,16}$/.test(value) || Number(value) > EPOCH_MS_MAX) throw new InspectionError(400, `${name} must be epoch milliseconds (a non-negative integer)`);
  return Number(value);
}

/**
 * The store's write state in Prometheus text: dynatwin_store_writes_refused is 1 while a disk
 * fault makes it refuse writes (labelled with the fault's code, what failed and the data
 * directory), else 0; dynatwin_store_writes_refused_since_seconds is when that began.
 */
export function storePrometheus(refusal: WriteRefusal | undefined): string {
  const lines = [
    '# HELP dynatwin_store_writes_refused 1 while the store refuses writes for a disk fault (ENOSPC, EIO); they resume by themselves.',
    '# TYPE dynatwin_store_writes_refused gauge',
  ];
  if (refusal === undefined) {
    lines.push('dynatwin_store_writes_refused 0');
  } else {
    const labels = `code="${escapeLabelValue(refusal.code)}",stage="${refusal.stage}",path="${escapeLabelValue(refusal.path)}"`;
    lines.push(
      `dynatwin_store_writes_refused{${labels}} 1`,
      '# HELP dynatwin_store_writes_refused_since_seconds When the store began refusing writes (Unix time).',
      '# TYPE dynatwin_store_writes_refused_since_seconds gauge',
      `dynatwin_store_writes_refused_since_seconds{${labels}} ${refusal.sinceMs / 1000}`,
      '# HELP dynatwin_store_writes_refused_needed_bytes Free bytes the store needs before it takes writes again.',
      '# TYPE dynatwin_store_writes_refused_needed_bytes gauge',
      `dynatwin_store_writes_refused_needed_bytes{${labels}} ${refusal.neededBytes}`,
    );
  }
  return lines.join('\n') + '\n';
}
