/**
 * Every operation of DynamoDB's API (target prefix DynamoDB_20120810), implemented here or not:
 * the "Actions" page of AWS's Amazon DynamoDB API Reference, plus the operations of the API model
 * that @aws-sdk/client-dynamodb 3.1162 is generated from and that page does not list yet (the
 * bulk operations and SearchVectors). A request for one of them that dynatwin does not implement
 * still gets DynamoDB's answer to an unknown target (UnknownOperationException, empty message);
 * the list only lets the server tell the user which operation it lacks.
 */
export const DYNAMODB_OPERATION_NAMES: ReadonlySet<string> = new Set([
  'BatchExecuteStatement',
  'BatchGetItem',
  'BatchWriteItem',
  'CancelBulkOperation',
  'CreateBackup',
  'CreateGlobalTable',
  'CreateTable',
  'DeleteBackup',
  'DeleteItem',
  'DeleteResourcePolicy',
  'DeleteTable',
  'DescribeBackup',
  'DescribeBulkOperation',
  'DescribeContinuousBackups',
  'DescribeContributorInsights',
  'DescribeEndpoints',
  'DescribeExport',
  'DescribeGlobalTable',
  'DescribeGlobalTableSettings',
  'DescribeImport',
  'DescribeKinesisStreamingDestination',
  'DescribeLimits',
  'DescribeTable',
  'DescribeTableReplicaAutoScaling',
  'DescribeTimeToLive',
  'DisableKinesisStreamingDestination',
  'EnableKinesisStreamingDestination',
  'ExecuteStatement',
  'ExecuteTransaction',
  'ExportTableToPointInTime',
  'GetItem',
  'GetResourcePolicy',
  'ImportTable',
  'ListBackups',
  'ListBulkOperations',
  'ListContributorInsights',
  'ListExports',
  'ListGlobalTables',
  'ListImports',
  'ListTables',
  'ListTagsOfResource',
  'PutItem',
  'PutResourcePolicy',
  'Query',
  'RestoreTableFromBackup',
  'RestoreTableToPointInTime',
  'Scan',
  'SearchVectors',
  'StartBulkPutItems',
  'TagResource',
  'TransactGetItems',
  'TransactWriteItems',
  'UntagResource',
  'UpdateContinuousBackups',
  'UpdateContributorInsights',
  'UpdateGlobalTable',
  'UpdateGlobalTableSettings',
  'UpdateItem',
  'UpdateKinesisStreamingDestination',
  'UpdateTable',
  'UpdateTableReplicaAutoScaling',
  'UpdateTimeToLive',
]);

/**
 * Reports, once per name, a request for a DynamoDB operation that dynatwin lacks. Bounded: it
 * remembers at most the names of DYNAMODB_OPERATION_NAMES.
 */
export class UnimplementedOperations {
  readonly #reported = new Set<string>();
  readonly #implemented: ReadonlyMap<string, unknown>;
  readonly #log: (message: string) => void;

  constructor(implemented: ReadonlyMap<string, unknown>, log: (message: string) => void) {
    this.#implemented = implemented;
    this.#log = log;
  }

  /** Called with the target's operation name when no operation answers it. */
  requested(name: string): void {
    if (!DYNAMODB_OPERATION_NAMES.has(name) || this.#implemented.has(name) || this.#reported.has(name)) return;
    this.#reported.add(name);
    this.#log(`dynatwin: ${name} is a DynamoDB operation dynatwin does not implement yet; answered UnknownOperationException as for any unknown operation (README: "Not implemented")`);
  }
}
