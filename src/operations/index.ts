/**
 * The operation registry: X-Amz-Target operation name → operation. One file per operation.
 */
import { deleteItemOperation } from './deleteItem.js';
import { getItemOperation } from './getItem.js';
import type { AnyOperation } from './operation.js';
import { putItemOperation } from './putItem.js';
import { updateItemOperation } from './updateItem.js';
import { controlPlaneOperations } from './control-plane.js';

export function createOperationRegistry(): ReadonlyMap<string, AnyOperation> {
  const operations: AnyOperation[] = [putItemOperation, getItemOperation, updateItemOperation, deleteItemOperation, ...controlPlaneOperations];
  return new Map(operations.map((operation) => [operation.name, operation]));
}
