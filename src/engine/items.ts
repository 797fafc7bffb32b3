/**
 * Single-item reads and writes. Every write is one storage transaction that re-checks the table
 * still exists, refuses an item a transaction in flight holds (TransactionConflictException,
 * transaction-holds.ts), reads the old image, lets the caller decide the new image from it
 * (conditions, update expressions) and writes that, so check and write are atomic and the
 * statistics move in commit order.
 *
 * On a store other processes write (getLocked) the old image is read with the 'wait' lock mode:
 * a single write queues behind another process's write of its item, even a transaction's, and
 * then applies after it. DynamoDB would answer TransactionConflictException while that other
 * process's transaction is in flight; the store's lock does not say whether its holder is a
 * transaction, and waiting gives an outcome DynamoDB also gives (the write arriving just after the
 * transaction committed), where failing a write behind another single write would be an answer
 * DynamoDB never gives. Transactions of this process are refused by the hold set on every store.
 */
import type { AttributeMap } from '../model/attribute-value.js';
import type { Engine } from './engine.js';
import { DynamoError, transactionConflict } from '../errors.js';
import { admitFailedCondition } from './admit.js';
import { commitPlans, planCheck, planWrite, readOldImage, requireCurrentTable, SINGLE_WRITE, type NewImage, type WritePlan } from './write-pipeline.js';
import type { Table } from './table.js';
import { recordTransactionConflicts } from './transaction-holds.js';

export { DELETED, type NewImage } from './write-pipeline.js';

function isConditionFailure(error: unknown): boolean {
  return error instanceof DynamoError && error.code === 'ConditionalCheckFailedException';
}

/**
 * Replaces the item under `storageKey` with what `decide` returns for the current image, through
 * the write pipeline (write-pipeline.ts). `decide` runs inside the write transaction; it may throw
 * (a failed condition, an invalid update) and then nothing is written. The applied plan is the
 * outcome: images, units (charges.ts reads them) and change record.
 */
export function writeItem(
  engine: Engine,
  table: Table,
  storageKey: Uint8Array,
  decide: (oldItem: AttributeMap | undefined) => NewImage,
): Promise<WritePlan> {
  return engine.storage.write((txn) => {
    requireCurrentTable(engine, table);
    if (engine.transactionHolds.holds(storageKey)) {
      recordTransactionConflicts(engine, table.name, 1);
      throw transactionConflict();
    }
    // The read phase: the one old image this write needs.
    const old = readOldImage(txn, storageKey);
    let next: NewImage;
    try {
      next = decide(old.item);
    } catch (error) {
      if (isConditionFailure(error)) admitFailedCondition(engine, planCheck(table, storageKey, old, 'standard'));
      throw error;
    }
    const plan = planWrite(table, storageKey, old, next, 'standard');
    commitPlans(engine, txn, [plan], SINGLE_WRITE);
    return plan;
  });
}
