/**
 * The request-level metrics, recorded once per DynamoDB request by the server (reference §6.1):
 * SuccessfulRequestLatency and ReturnedItemCount of a successful request, ThrottledRequests of a
 * throttled one, ConditionalCheckFailedRequests, SystemErrors (HTTP 500) and UserErrors (any other
 * 4xx, account-wide). Capacity metrics (Consumed*, *ThrottleEvents) are recorded per table and GSI
 * at admission (engine/capacity-recorder.ts).
 *
 * The tables a request touched are what its operation declares (Operation.tables in
 * src/operations): one name for single-table operations, a list for batches, transactions and
 * PartiQL. Handles are cached per operation and table (the last table of each operation beside its
 * map), so the steady path costs a lookup of the operation's name, one string comparison and a few
 * adds, and allocates nothing.
 */
import { DynamoError } from '../errors.js';
import { OPERATION_NAMES, type OperationName } from './catalog.js';
import type { MetricsRegistry } from './registry.js';
import type { MetricSeries } from './series.js';

const THROTTLE_CODES: ReadonlySet<string> = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/** The series of one operation on one table. */
class OperationSeries {
  constructor(
    readonly latency: MetricSeries,
    readonly returnedItems: MetricSeries,
    readonly throttled: MetricSeries,
    readonly systemErrors: MetricSeries,
    readonly conditionFailures: MetricSeries,
  ) {}
}

/** Which failure series a failed request counts in. */
type FailureSeries = 'throttled' | 'conditionFailures' | 'systemErrors';

/** What ReturnedItemCount counts of a successful result: Count (Query, Scan), Items (ExecuteStatement), or nothing. */
type ReturnedItems = 'count' | 'items' | undefined;

/**
 * One operation's handles, per table. The table a request names is a fresh string each time (it
 * comes out of JSON.parse), so the table of the previous request is kept beside the map: a stream
 * of requests on one table finds its series with one string comparison, without building a key.
 */
class OperationHandles {
  readonly operation: OperationName;
  readonly returned: ReturnedItems;
  readonly byTable = new Map<string, OperationSeries>();
  lastTable: string | undefined = undefined;
  lastSeries: OperationSeries | undefined = undefined;

  constructor(operation: OperationName) {
    this.operation = operation;
    this.returned = operation === 'Query' || operation === 'Scan' ? 'count' : operation === 'ExecuteStatement' ? 'items' : undefined;
  }

  forget(table: string): void {
    this.byTable.delete(table);
    if (this.lastTable === table) {
      this.lastTable = undefined;
      this.lastSeries = undefined;
    }
  }
}

/** The tables a request touched: one name, several, or none known (it failed before validation). */
export type RequestTables = string | readonly string[] | undefined;

export class RequestMetrics {
  readonly #registry: MetricsRegistry;
  /** Per operation of CloudWatch's Operation dimension; other operations (the control plane) record nothing. */
  readonly #operations = new Map<string, OperationHandles>(OPERATION_NAMES.map((operation) => [operation, new OperationHandles(operation)]));
  #userErrors: MetricSeries | undefined;

  constructor(registry: MetricsRegistry) {
    this.#registry = registry;
  }

  /** A successful request: its server-side latency, and the items a Query, Scan or statement returned. */
  succeeded(operation: string, tables: RequestTables, result: object, elapsedMs: number, nowMs: number): void {
    const handles = this.#operations.get(operation);
    if (handles === undefined || tables === undefined) return;
    const returned = returnedItemCount(handles.returned, result);
    if (typeof tables === 'string') {
      this.#succeededOn(this.#seriesOf(handles, tables), elapsedMs, returned, nowMs);
      return;
    }
    for (const table of tables) this.#succeededOn(this.#seriesOf(handles, table), elapsedMs, returned, nowMs);
  }

  #succeededOn(series: OperationSeries, elapsedMs: number, returned: number | undefined, nowMs: number): void {
    series.latency.record(elapsedMs, nowMs);
    if (returned !== undefined) series.returnedItems.record(returned, nowMs);
  }

  /** A request that failed after validation named its tables (`tables` undefined before that). */
  failed(operation: string, tables: RequestTables, error: unknown, nowMs: number): void {
    const code = error instanceof DynamoError ? error.code : undefined;
    const status = error instanceof DynamoError ? error.statusCode : 500;
    if (code !== undefined && THROTTLE_CODES.has(code)) {
      this.#perTable(operation, tables, nowMs, 'throttled');
    } else if (code === 'ConditionalCheckFailedException') {
      this.#perTable(operation, tables, nowMs, 'conditionFailures');
    } else if (status >= 500) {
      this.#perTable(operation, tables, nowMs, 'systemErrors');
    } else {
      (this.#userErrors ??= this.#registry.series({ metric: 'UserErrors' })).record(1, nowMs);
    }
  }

  #perTable(operation: string, tables: RequestTables, nowMs: number, failure: FailureSeries): void {
    const handles = this.#operations.get(operation);
    if (handles === undefined || tables === undefined) return;
    if (typeof tables === 'string') {
      this.#seriesOf(handles, tables)[failure].record(1, nowMs);
      return;
    }
    for (const table of tables) this.#seriesOf(handles, table)[failure].record(1, nowMs);
  }

  #seriesOf(handles: OperationHandles, table: string): OperationSeries {
    if (table === handles.lastTable) return handles.lastSeries!;
    let series = handles.byTable.get(table);
    if (series === undefined) {
      const registry = this.#registry;
      const operation = handles.operation;
      series = new OperationSeries(
        registry.series({ metric: 'SuccessfulRequestLatency', table, operation }),
        registry.series({ metric: 'ReturnedItemCount', table, operation }),
        registry.series({ metric: 'ThrottledRequests', table, operation }),
        registry.series({ metric: 'SystemErrors', table, operation }),
        registry.series({ metric: 'ConditionalCheckFailedRequests', table }),
      );
      handles.byTable.set(table, series);
    }
    handles.lastTable = table;
    handles.lastSeries = series;
    return series;
  }

  /** A table was deleted: its handles go (the registry drops the series themselves). */
  dropTable(table: string): void {
    for (const handles of this.#operations.values()) handles.forget(table);
  }
}

/** Items returned by a Query or Scan page (Count) or a PartiQL statement (Items). */
function returnedItemCount(returned: ReturnedItems, result: object): number | undefined {
  if (returned === undefined) return undefined;
  if (returned === 'count') {
    const count = (result as { Count?: unknown }).Count;
    return typeof count === 'number' ? count : undefined;
  }
  const items = (result as { Items?: unknown }).Items;
  return Array.isArray(items) ? items.length : undefined;
}
