/**
 * The request-level metrics, recorded once per DynamoDB request by the server (reference §6.1):
 * SuccessfulRequestLatency and ReturnedItemCount of a successful request, ThrottledRequests of a
 * throttled one, ConditionalCheckFailedRequests, SystemErrors (HTTP 500) and UserErrors (any other
 * 4xx, account-wide). Capacity metrics (Consumed*, *ThrottleEvents) are recorded per table and GSI
 * at admission (engine/capacity-recorder.ts).
 *
 * The tables a request names are read from its validated form: `tableName`, or the `tableName`
 * of each entry of `tables`, `actions`, `gets` or `entries` (batches, transactions, PartiQL).
 * Handles are cached per operation and table, so a request costs a Map lookup and a few adds.
 */
import { DynamoError } from '../errors.js';
import { isOperationName, type OperationName } from './catalog.js';
import type { MetricsRegistry } from './registry.js';
import type { MetricSeries } from './series.js';

const THROTTLE_CODES: ReadonlySet<string> = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/** The series of one operation on one table. */
interface OperationSeries {
  readonly latency: MetricSeries;
  readonly returnedItems: MetricSeries;
  readonly throttled: MetricSeries;
  readonly systemErrors: MetricSeries;
  readonly conditionFailures: MetricSeries;
}

/** Entries of a request list that may name a table (`tableName`) or hold one (`table.name`). */
const LIST_MEMBERS = ['tables', 'actions', 'gets', 'entries'] as const;

export class RequestMetrics {
  readonly #registry: MetricsRegistry;
  readonly #series = new Map<string, OperationSeries>();
  #userErrors: MetricSeries | undefined;

  constructor(registry: MetricsRegistry) {
    this.#registry = registry;
  }

  /** A successful request: its server-side latency, and the items a Query, Scan or statement returned. */
  succeeded(operation: string, request: unknown, result: object, elapsedMs: number, nowMs: number): void {
    if (!isOperationName(operation)) return;
    const returned = returnedItemCount(operation, result);
    for (const table of tableNamesOf(request)) {
      const series = this.#seriesOf(operation, table);
      series.latency.record(elapsedMs, nowMs);
      if (returned !== undefined) series.returnedItems.record(returned, nowMs);
    }
  }

  /** A request that failed after validation named its tables (`request` undefined before that). */
  failed(operation: string, request: unknown, error: unknown, nowMs: number): void {
    const code = error instanceof DynamoError ? error.code : undefined;
    const status = error instanceof DynamoError ? error.statusCode : 500;
    if (code !== undefined && THROTTLE_CODES.has(code)) {
      this.#perTable(operation, request, nowMs, (series) => series.throttled);
    } else if (code === 'ConditionalCheckFailedException') {
      this.#perTable(operation, request, nowMs, (series) => series.conditionFailures);
    } else if (status >= 500) {
      this.#perTable(operation, request, nowMs, (series) => series.systemErrors);
    } else {
      (this.#userErrors ??= this.#registry.series({ metric: 'UserErrors' })).record(1, nowMs);
    }
  }

  #perTable(operation: string, request: unknown, nowMs: number, pick: (series: OperationSeries) => MetricSeries): void {
    if (!isOperationName(operation)) return;
    for (const table of tableNamesOf(request)) pick(this.#seriesOf(operation, table)).record(1, nowMs);
  }

  #seriesOf(operation: OperationName, table: string): OperationSeries {
    const key = operation + '\u0000' + table;
    let series = this.#series.get(key);
    if (series === undefined) {
      const registry = this.#registry;
      series = {
        latency: registry.series({ metric: 'SuccessfulRequestLatency', table, operation }),
        returnedItems: registry.series({ metric: 'ReturnedItemCount', table, operation }),
        throttled: registry.series({ metric: 'ThrottledRequests', table, operation }),
        systemErrors: registry.series({ metric: 'SystemErrors', table, operation }),
        conditionFailures: registry.series({ metric: 'ConditionalCheckFailedRequests', table }),
      };
      this.#series.set(key, series);
    }
    return series;
  }

  /** A table was deleted: its handles go (the registry drops the series themselves). */
  dropTable(table: string): void {
    for (const key of [...this.#series.keys()]) if (key.endsWith('\u0000' + table)) this.#series.delete(key);
  }
}

/** Items returned by a Query or Scan page (Count) or a PartiQL statement (Items). */
function returnedItemCount(operation: OperationName, result: object): number | undefined {
  if (operation === 'Query' || operation === 'Scan') {
    const count = (result as { Count?: unknown }).Count;
    return typeof count === 'number' ? count : undefined;
  }
  if (operation === 'ExecuteStatement') {
    const items = (result as { Items?: unknown }).Items;
    return Array.isArray(items) ? items.length : undefined;
  }
  return undefined;
}

/** The distinct table names a validated request names. */
export function tableNamesOf(request: unknown): string[] {
  if (typeof request !== 'object' || request === null) return [];
  const own = (request as { tableName?: unknown }).tableName;
  if (typeof own === 'string') return [own];
  const names: string[] = [];
  for (const member of LIST_MEMBERS) {
    const list = (request as Record<string, unknown>)[member];
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      const name = nameOfEntry(entry);
      if (name !== undefined && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

function nameOfEntry(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const tableName = (entry as { tableName?: unknown }).tableName;
  if (typeof tableName === 'string') return tableName;
  const table = (entry as { table?: { name?: unknown } }).table;
  return typeof table?.name === 'string' ? table.name : undefined;
}
