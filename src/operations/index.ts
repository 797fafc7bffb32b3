/**
 * The operation registry: X-Amz-Target operation name → operation. One file per operation.
 */
import { batchGetItemOperation } from './batchGetItem.js';
import { batchWriteItemOperation } from './batchWriteItem.js';
import { deleteItemOperation } from './deleteItem.js';
import { executeStatementOperation } from './executeStatement.js';
import { batchExecuteStatementOperation } from './batchExecuteStatement.js';
import { executeTransactionOperation } from './executeTransaction.js';
import { getItemOperation } from './getItem.js';
import type { AnyOperation } from './operation.js';
import { putItemOperation } from './putItem.js';
import { queryOperation } from './query.js';
import { scanOperation } from './scan.js';
import { transactGetItemsOperation } from './transactGetItems.js';
import { transactWriteItemsOperation } from './transactWriteItems.js';
import { updateItemOperation } from './updateItem.js';
import { controlPlaneOperations } from './control-plane.js';
import { updateContributorInsightsOperation } from './updateContributorInsights.js';
import { describeContributorInsightsOperation } from './describeContributorInsights.js';
import { listContributorInsightsOperation } from './listContributorInsights.js';
import { backupOperations } from './backup-operations.js';
import { accountOperations } from './account-operations.js';

export function createOperationRegistry(): ReadonlyMap<string, AnyOperation> {
  const operations: readonly AnyOperation[] = [
    ...controlPlaneOperations,
    putItemOperation,
    getItemOperation,
    updateItemOperation,
    deleteItemOperation,
    queryOperation,
    scanOperation,
    batchGetItemOperation,
    batchWriteItemOperation,
    transactGetItemsOperation,
    transactWriteItemsOperation,
    executeStatementOperation,
    batchExecuteStatementOperation,
    executeTransactionOperation,
    updateContributorInsightsOperation,
    describeContributorInsightsOperation,
    listContributorInsightsOperation,
    ...backupOperations,
    ...accountOperations,
  ];
  return new Map(operations.map((operation) => [operation.name, operation]));
}
