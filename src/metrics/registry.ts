/**
 * MetricsRegistry: every metric series of one engine, found by key, bounded in count and in time.
 *
 * Hot path: a caller resolves a series once per table / GSI / operation and metric
 * (`registry.series({ metric, table, index, operation })`), keeps the handle, and calls
 * `series.record(value, nowMs)` per event: O(1), no allocation once the series has its rings.
 *
 * Bounds:
 * - time: 1-second buckets for `secondRetentionMs` (default 10 minutes), 1-minute buckets for
 *   `retentionMs` (default 3 hours, CloudWatch's retention of high-resolution data);
 * - count: at most `seriesMax` series (default 4096). Past it `series()` hands out a handle that
 *   accepts samples and keeps none, and counts the refusal (`rejectedSeries`, also on /metrics);
 * - memory: a series with data holds (secondSlots + minuteSlots) × 40 bytes (≈31 KB by default),
 *   so the datapoints never exceed `seriesMax` × that (`memoryBoundBytes`, ≈128 MB by default;
 *   a handful of tables with traffic use a few MB).
 * A dropped table's series (and a dropped GSI's) are removed with `dropTable` / `dropIndex`.
 *
 * Gauges (Provisioned*CapacityUnits, OnlineIndexPercentageProgress) are sampled, not recorded per
 * request: see gauges.ts.
 */
import {
  hasIndexSeries,
  hasTableSeries,
  isOperationName,
  metricDefinition,
  METRICS,
  OPERATION_NAMES,
  type MetricDefinition,
  type MetricName,
  type OperationName,
} from './catalog.js';
import { renderPrometheus } from './prometheus.js';
import { MetricSeries, MINUTE_MS, SECOND_MS, type Datapoint, type RingSizes, type SeriesKey } from './series.js';

export interface MetricsOptions {
  /** How long 1-minute buckets are kept: whole minutes, 1 minute to 24 hours. */
  readonly retentionMs: number;
  /** How long 1-second buckets are kept: whole seconds, 1 second to 3 hours. */
  readonly secondRetentionMs: number;
  /** The most series held at once (1 to 1,000,000). */
  readonly seriesMax: number;
}

export const DEFAULT_METRICS_OPTIONS: MetricsOptions = Object.freeze({
  retentionMs: 3 * 60 * MINUTE_MS,
  secondRetentionMs: 10 * MINUTE_MS,
  seriesMax: 4096,
});

const RETENTION_MS_MAX = 24 * 60 * MINUTE_MS;
const SECOND_RETENTION_MS_MAX = 3 * 60 * MINUTE_MS;
const SERIES_MAX_LIMIT = 1_000_000;
const BYTES_PER_SLOT = 5 * Float64Array.BYTES_PER_ELEMENT;

/** A query that names no existing combination of metric and dimensions: the HTTP API answers 400. */
export class MetricsQueryError extends Error {}

export interface MetricsQuery {
  /** Required except for the account-level metric (UserErrors). */
  readonly table?: string;
  /** A GSI of `table`: the query is then about that GSI's series. */
  readonly index?: string;
  /** One metric; without it, every metric the table (or GSI) has. */
  readonly metric?: MetricName;
  /** Only the series of this operation (per-operation metrics only). */
  readonly operation?: OperationName;
  readonly periodSeconds: 1 | 60;
  /** Epoch ms; buckets starting before it are left out. Default: the start of the retention. */
  readonly startMs?: number;
  /** Epoch ms; buckets starting after it are left out. Default: now. */
  readonly endMs?: number;
}

export interface MetricDimensions {
  readonly TableName?: string;
  readonly GlobalSecondaryIndexName?: string;
  readonly Operation?: OperationName;
}

export interface MetricResult {
  readonly metric: MetricName;
  readonly unit: MetricDefinition['unit'];
  readonly dimensions: MetricDimensions;
  /** Oldest first; periods without samples are left out, as CloudWatch does. */
  readonly datapoints: readonly Datapoint[];
}

export interface MetricsQueryResult {
  readonly periodSeconds: 1 | 60;
  /** The range the datapoints were taken from, after clamping to the retention. */
  readonly startMs: number;
  readonly endMs: number;
  readonly metrics: readonly MetricResult[];
}

export class MetricsRegistry {
  readonly options: MetricsOptions;
  readonly #sizes: RingSizes;
  readonly #series = new Map<string, MetricSeries>();
  /** The series of each table (its GSIs' included), for queries and dropTable. */
  readonly #byTable = new Map<string, Set<MetricSeries>>();
  #rejected = 0;

  constructor(options: Partial<MetricsOptions> = {}) {
    this.options = checkOptions({ ...DEFAULT_METRICS_OPTIONS, ...options });
    this.#sizes = {
      secondSlots: this.options.secondRetentionMs / SECOND_MS,
      minuteSlots: this.options.retentionMs / MINUTE_MS,
    };
  }

  /**
   * The series of a metric for a table, GSI, operation or the account, created on first use. The
   * key must carry exactly the dimensions the metric has (catalog.ts): anything else is a caller
   * bug and throws a RangeError.
   */
  series(key: SeriesKey): MetricSeries {
    const id = seriesId(key);
    const existing = this.#series.get(id);
    if (existing !== undefined) return existing;
    const definition = checkSeriesKey(key);
    const ownKey = copyKey(key);
    if (this.#series.size >= this.options.seriesMax) {
      this.#rejected++;
      return new MetricSeries(definition, ownKey, undefined);
    }
    const series = new MetricSeries(definition, ownKey, this.#sizes);
    this.#series.set(id, series);
    if (ownKey.table !== undefined) {
      let tableSeries = this.#byTable.get(ownKey.table);
      if (tableSeries === undefined) this.#byTable.set(ownKey.table, (tableSeries = new Set()));
      tableSeries.add(series);
    }
    return series;
  }

  /** The series of a key if it exists; never creates one. */
  find(key: SeriesKey): MetricSeries | undefined {
    return this.#series.get(seriesId(key));
  }

  /** Every series held, in creation order. */
  all(): IterableIterator<MetricSeries> {
    return this.#series.values();
  }

  get seriesCount(): number {
    return this.#series.size;
  }

  /** How many times `series()` refused a new series because `seriesMax` were held. */
  get rejectedSeries(): number {
    return this.#rejected;
  }

  /** The most bytes of datapoints the registry can hold: every allowed series with both rings. */
  get memoryBoundBytes(): number {
    return this.options.seriesMax * (this.#sizes.secondSlots + this.#sizes.minuteSlots) * BYTES_PER_SLOT;
  }

  /** Bytes of datapoints held now. */
  get bytes(): number {
    let total = 0;
    for (const series of this.#series.values()) total += series.bytes;
    return total;
  }

  /** How far back a period's buckets reach. */
  retentionMsOf(periodSeconds: 1 | 60): number {
    return periodSeconds === 1 ? this.options.secondRetentionMs : this.options.retentionMs;
  }

  /** Removes every series of a table, its GSIs' included (the table was deleted). */
  dropTable(table: string): void {
    const tableSeries = this.#byTable.get(table);
    if (tableSeries === undefined) return;
    for (const series of tableSeries) this.#series.delete(seriesId(series.key));
    this.#byTable.delete(table);
  }

  /** Removes the series of one GSI (the index was deleted). */
  dropIndex(table: string, index: string): void {
    const tableSeries = this.#byTable.get(table);
    if (tableSeries === undefined) return;
    for (const series of tableSeries) {
      if (series.key.index !== index) continue;
      this.#series.delete(seriesId(series.key));
      tableSeries.delete(series);
    }
  }

  /** Datapoints of a table's, a GSI's or the account's metrics (the JSON of GET /dynatwin/metrics). */
  query(query: MetricsQuery, nowMs: number): MetricsQueryResult {
    const definitions = metricsOf(query);
    const periodMs = query.periodSeconds * SECOND_MS;
    const retentionStartMs = (Math.floor(nowMs / periodMs) + 1) * periodMs - this.retentionMsOf(query.periodSeconds);
    const startMs = Math.max(query.startMs ?? retentionStartMs, retentionStartMs);
    const endMs = Math.min(query.endMs ?? nowMs, nowMs);
    const metrics: MetricResult[] = [];
    for (const definition of definitions) {
      for (const series of this.#seriesForQuery(definition, query)) {
        metrics.push({
          metric: definition.name,
          unit: definition.unit,
          dimensions: dimensionsOf(series.key),
          datapoints: series.datapoints(query.periodSeconds, startMs, endMs, nowMs),
        });
      }
    }
    return { periodSeconds: query.periodSeconds, startMs, endMs, metrics };
  }

  /** The Prometheus text exposition of every series (GET /metrics); see prometheus.ts. */
  prometheus(nowMs: number): string {
    return renderPrometheus(this, nowMs);
  }

  /**
   * Per-operation metrics list the operations that have a series; other metrics always answer,
   * with no datapoints when nothing was recorded, so a client sees every metric name.
   */
  #seriesForQuery(definition: MetricDefinition, query: MetricsQuery): MetricSeries[] {
    if (definition.dimensions === 'tableOperation') {
      const operations = query.operation === undefined ? OPERATION_NAMES : [query.operation];
      const found: MetricSeries[] = [];
      for (const operation of operations) {
        const series = this.find({ metric: definition.name, table: query.table, operation });
        if (series !== undefined) found.push(series);
      }
      return found;
    }
    const key: SeriesKey = { metric: definition.name, table: query.table, index: query.index };
    return [this.find(key) ?? new MetricSeries(definition, copyKey(key), undefined)];
  }
}

/** One string per series key; table and index names cannot contain NUL, so the id is unambiguous. */
function seriesId(key: SeriesKey): string {
  return key.metric + '\u0000' + (key.table ?? '') + '\u0000' + (key.index ?? '') + '\u0000' + (key.operation ?? '');
}

/** A copy with only the dimensions that are set, so a caller's object is never retained. */
function copyKey(key: SeriesKey): SeriesKey {
  const copy: { metric: MetricName; table?: string; index?: string; operation?: OperationName } = { metric: key.metric };
  if (key.table !== undefined) copy.table = key.table;
  if (key.index !== undefined) copy.index = key.index;
  if (key.operation !== undefined) copy.operation = key.operation;
  return Object.freeze(copy);
}

const NAME_LENGTH_MAX = 255;

function checkName(kind: string, name: string | undefined, required: boolean): void {
  if (name === undefined) {
    if (required) throw new RangeError(`a series of this metric needs a ${kind}`);
    return;
  }
  if (name.length === 0 || name.length > NAME_LENGTH_MAX) throw new RangeError(`${kind} names are 1 to ${NAME_LENGTH_MAX} characters`);
}

function forbid(metric: MetricName, dimension: string, value: unknown): void {
  if (value !== undefined) throw new RangeError(`${metric} has no ${dimension} dimension`);
}

/** Checks a key against its metric's dimensions (catalog.ts); returns the metric's definition. */
export function checkSeriesKey(key: SeriesKey): MetricDefinition {
  const definition = metricDefinition(key.metric);
  if (definition === undefined) throw new RangeError(`unknown metric ${String(key.metric)}`);
  const name = definition.name;
  switch (definition.dimensions) {
    case 'account':
      forbid(name, 'TableName', key.table);
      forbid(name, 'GlobalSecondaryIndexName', key.index);
      forbid(name, 'Operation', key.operation);
      break;
    case 'table':
      checkName('table', key.table, true);
      forbid(name, 'GlobalSecondaryIndexName', key.index);
      forbid(name, 'Operation', key.operation);
      break;
    case 'tableOrIndex':
      checkName('table', key.table, true);
      checkName('index', key.index, false);
      forbid(name, 'Operation', key.operation);
      break;
    case 'index':
      checkName('table', key.table, true);
      checkName('index', key.index, true);
      forbid(name, 'Operation', key.operation);
      break;
    case 'tableOperation':
      checkName('table', key.table, true);
      forbid(name, 'GlobalSecondaryIndexName', key.index);
      if (key.operation === undefined || !isOperationName(key.operation)) {
        throw new RangeError(`${name} needs an Operation, one of ${OPERATION_NAMES.join(', ')}`);
      }
      break;
  }
  return definition;
}

/** The metrics a query asks about, or a MetricsQueryError saying why the combination does not exist. */
function metricsOf(query: MetricsQuery): readonly MetricDefinition[] {
  if (query.index !== undefined && query.table === undefined) throw new MetricsQueryError('index needs table');
  if (query.metric !== undefined) {
    const definition = metricDefinition(query.metric);
    if (definition === undefined) throw new MetricsQueryError(`unknown metric ${query.metric}`);
    checkQueryFits(definition, query);
    return [definition];
  }
  if (query.table === undefined) throw new MetricsQueryError('table is required (only UserErrors, an account-level metric, has no TableName)');
  const fits = query.index === undefined ? hasTableSeries : hasIndexSeries;
  return METRICS.filter((definition) => fits(definition) && (query.operation === undefined || definition.dimensions === 'tableOperation'));
}

function checkQueryFits(definition: MetricDefinition, query: MetricsQuery): void {
  const name = definition.name;
  if (definition.dimensions === 'account') {
    if (query.table !== undefined) throw new MetricsQueryError(`${name} is account-level: it has no TableName dimension`);
  } else if (query.table === undefined) {
    throw new MetricsQueryError(`${name} needs table`);
  }
  if (query.index !== undefined && !hasIndexSeries(definition)) {
    throw new MetricsQueryError(`${name} has no GlobalSecondaryIndexName dimension`);
  }
  if (query.index === undefined && definition.dimensions === 'index') {
    throw new MetricsQueryError(`${name} is published per GSI: add index`);
  }
  if (query.operation !== undefined && definition.dimensions !== 'tableOperation') {
    throw new MetricsQueryError(`${name} has no Operation dimension`);
  }
}

function dimensionsOf(key: SeriesKey): MetricDimensions {
  const dimensions: { TableName?: string; GlobalSecondaryIndexName?: string; Operation?: OperationName } = {};
  if (key.table !== undefined) dimensions.TableName = key.table;
  if (key.index !== undefined) dimensions.GlobalSecondaryIndexName = key.index;
  if (key.operation !== undefined) dimensions.Operation = key.operation;
  return dimensions;
}

function checkOptions(options: MetricsOptions): MetricsOptions {
  const { retentionMs, secondRetentionMs, seriesMax } = options;
  if (!Number.isInteger(retentionMs) || retentionMs % MINUTE_MS !== 0 || retentionMs < MINUTE_MS || retentionMs > RETENTION_MS_MAX) {
    throw new RangeError(`retentionMs must be whole minutes between ${MINUTE_MS} and ${RETENTION_MS_MAX}`);
  }
  if (
    !Number.isInteger(secondRetentionMs) ||
    secondRetentionMs % SECOND_MS !== 0 ||
    secondRetentionMs < SECOND_MS ||
    secondRetentionMs > SECOND_RETENTION_MS_MAX
  ) {
    throw new RangeError(`secondRetentionMs must be whole seconds between ${SECOND_MS} and ${SECOND_RETENTION_MS_MAX}`);
  }
  if (!Number.isInteger(seriesMax) || seriesMax < 1 || seriesMax > SERIES_MAX_LIMIT) {
    throw new RangeError(`seriesMax must be an integer between 1 and ${SERIES_MAX_LIMIT}`);
  }
  return Object.freeze({ ...options });
}
