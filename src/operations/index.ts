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

export function createOperationRegistry(): ReadonlyMap<string, AnyOperation> {
  const operations: AnyOperation[] = [putItemOperation, getItemOperation, updateItemOperation, deleteItemOperation, queryOperation, scanOperation, ...controlPlaneOperations];
  operations.push(batchGetItemOperation, batchWriteItemOperation, transactGetItemsOperation, transactWriteItemsOperation);
  operations.push(executeStatementOperation, batchExecuteStatementOperation, executeTransactionOperation);
  return new Map(operations.map((operation) => [operation.name, operation]));
}
