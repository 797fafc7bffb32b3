/**
 * The DynamoDB metrics dynatwin publishes, with CloudWatch's names (namespace AWS/DynamoDB), units
 * and dimensions (reference: shared/docs/dynamodb-capacity-model.md §6.1). The dimensions decide
 * which series a metric has: per table, per table and GSI, per table and operation, or one for the
 * account. A series key that does not fit its metric's dimensions is refused, so the series count
 * stays what CloudWatch would publish.
 */

export const METRIC_NAMES = [
  'ConsumedReadCapacityUnits',
  'ConsumedWriteCapacityUnits',
  'ProvisionedReadCapacityUnits',
  'ProvisionedWriteCapacityUnits',
  'ReadThrottleEvents',
  'WriteThrottleEvents',
  'ThrottledRequests',
  'ReadKeyRangeThroughputThrottleEvents',
  'WriteKeyRangeThroughputThrottleEvents',
  'ReadProvisionedThroughputThrottleEvents',
  'WriteProvisionedThroughputThrottleEvents',
  'ReadAccountLimitThrottleEvents',
  'WriteAccountLimitThrottleEvents',
  'ReadMaxOnDemandThroughputThrottleEvents',
  'WriteMaxOnDemandThroughputThrottleEvents',
  'SuccessfulRequestLatency',
  'ReturnedItemCount',
  'UserErrors',
  'SystemErrors',
  'ConditionalCheckFailedRequests',
  'OnlineIndexPercentageProgress',
  'TimeToLiveDeletedItemCount',
  'TransactionConflict',
] as const;

export type MetricName = (typeof METRIC_NAMES)[number];

/** The values of CloudWatch's Operation dimension for DynamoDB (GetRecords belongs to Streams). */
export const OPERATION_NAMES = [
  'PutItem',
  'DeleteItem',
  'UpdateItem',
  'GetItem',
  'BatchGetItem',
  'Scan',
  'Query',
  'BatchWriteItem',
  'TransactWriteItems',
  'TransactGetItems',
  'ExecuteTransaction',
  'BatchExecuteStatement',
  'ExecuteStatement',
] as const;

export type OperationName = (typeof OPERATION_NAMES)[number];

/**
 * Which dimensions a metric's series carry:
 * - `tableOrIndex`: TableName, plus GlobalSecondaryIndexName for a GSI's own series;
 * - `index`: TableName and GlobalSecondaryIndexName (GSIs only);
 * - `table`: TableName only;
 * - `tableOperation`: TableName and Operation;
 * - `account`: none (account and Region).
 */
export type DimensionSet = 'tableOrIndex' | 'index' | 'table' | 'tableOperation' | 'account';

/**
 * What the Prometheus page shows for a series: the Sum or the Average over the last complete
 * minute, or the latest sample of a gauge.
 */
export type ExpositionStatistic = 'Sum' | 'Average' | 'Latest';

export interface MetricDefinition {
  readonly name: MetricName;
  readonly unit: 'Count' | 'Milliseconds';
  readonly dimensions: DimensionSet;
  readonly exposition: ExpositionStatistic;
  /** `dynamodb_<snake_case name>`. */
  readonly prometheusName: string;
  readonly help: string;
}

function define(name: MetricName, unit: MetricDefinition['unit'], dimensions: DimensionSet, exposition: ExpositionStatistic, help: string): MetricDefinition {
  return { name, unit, dimensions, exposition, prometheusName: 'dynamodb_' + snakeCase(name), help };
}

/** ConsumedReadCapacityUnits → consumed_read_capacity_units (the names have no acronyms). */
export function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function throttleReason(name: MetricName, reason: string): MetricDefinition {
  return define(name, 'Count', 'tableOrIndex', 'Sum', `Throttled events whose reason is ${reason}.`);
}

/**
 * WriteAccountLimitThrottleEvents is documented with TableName only; the throttling reasons have
 * Index… variants for it as for the other seven, so it gets the GSI dimension too (CONFORMANCE.md).
 */
export const METRICS: readonly MetricDefinition[] = [
  define('ConsumedReadCapacityUnits', 'Count', 'tableOrIndex', 'Sum', 'Read capacity units consumed (per request samples).'),
  define('ConsumedWriteCapacityUnits', 'Count', 'tableOrIndex', 'Sum', 'Write capacity units consumed (per request samples).'),
  define('ProvisionedReadCapacityUnits', 'Count', 'tableOrIndex', 'Latest', 'Provisioned read capacity units (provisioned tables and their GSIs).'),
  define('ProvisionedWriteCapacityUnits', 'Count', 'tableOrIndex', 'Latest', 'Provisioned write capacity units (provisioned tables and their GSIs).'),
  define('ReadThrottleEvents', 'Count', 'tableOrIndex', 'Sum', 'Read events that were throttled (one per item of a batch).'),
  define('WriteThrottleEvents', 'Count', 'tableOrIndex', 'Sum', 'Write events that were throttled (one per table or GSI write).'),
  define('ThrottledRequests', 'Count', 'tableOperation', 'Sum', 'Requests with at least one throttled event (a batch only when all its items were).'),
  throttleReason('ReadKeyRangeThroughputThrottleEvents', 'ReadKeyRangeThroughputExceeded'),
  throttleReason('WriteKeyRangeThroughputThrottleEvents', 'WriteKeyRangeThroughputExceeded'),
  throttleReason('ReadProvisionedThroughputThrottleEvents', 'ReadProvisionedThroughputExceeded'),
  throttleReason('WriteProvisionedThroughputThrottleEvents', 'WriteProvisionedThroughputExceeded'),
  throttleReason('ReadAccountLimitThrottleEvents', 'ReadAccountLimitExceeded'),
  throttleReason('WriteAccountLimitThrottleEvents', 'WriteAccountLimitExceeded'),
  throttleReason('ReadMaxOnDemandThroughputThrottleEvents', 'ReadMaxOnDemandThroughputExceeded'),
  throttleReason('WriteMaxOnDemandThroughputThrottleEvents', 'WriteMaxOnDemandThroughputExceeded'),
  define('SuccessfulRequestLatency', 'Milliseconds', 'tableOperation', 'Average', 'Server-side latency of successful requests in milliseconds.'),
  define('ReturnedItemCount', 'Count', 'tableOperation', 'Sum', 'Items returned by Query, Scan and ExecuteStatement.'),
  define('UserErrors', 'Count', 'account', 'Sum', 'Requests answered with HTTP 400, except throttles and failed conditions.'),
  define('SystemErrors', 'Count', 'tableOperation', 'Sum', 'Requests answered with HTTP 500.'),
  define('ConditionalCheckFailedRequests', 'Count', 'table', 'Sum', 'Writes whose condition failed.'),
  define('OnlineIndexPercentageProgress', 'Count', 'index', 'Latest', 'Backfill progress of a GSI being created, in percent.'),
  define('TimeToLiveDeletedItemCount', 'Count', 'table', 'Sum', 'Expired items deleted by TTL (system deletes, no capacity consumed).'),
  define('TransactionConflict', 'Count', 'table', 'Sum', 'Item-level requests refused because a transaction in flight holds the item (one sample per refused request).'),
];

const BY_NAME: ReadonlyMap<string, MetricDefinition> = new Map(METRICS.map((metric) => [metric.name, metric]));

export function metricDefinition(name: string): MetricDefinition | undefined {
  return BY_NAME.get(name);
}

const OPERATIONS: ReadonlySet<string> = new Set(OPERATION_NAMES);

/** One hash lookup (a per-request check: the request metrics call it for every request). */
export function isOperationName(name: string): name is OperationName {
  return OPERATIONS.has(name);
}

/** Whether a metric has series for a table itself (no GSI, no operation dimension required). */
export function hasTableSeries(metric: MetricDefinition): boolean {
  return metric.dimensions === 'tableOrIndex' || metric.dimensions === 'table' || metric.dimensions === 'tableOperation';
}

/** Whether a metric has series for a GSI. */
export function hasIndexSeries(metric: MetricDefinition): boolean {
  return metric.dimensions === 'tableOrIndex' || metric.dimensions === 'index';
}
