/**
 * BatchWriteItem over the store (batch reads: reads.ts).
 *
 * A batch write is applied in one storage write: every item is written atomically and the whole
 * batch lands together. DynamoDB only promises the former (its batches are not atomic), so one
 * write is a stricter behaviour chosen for speed — one exclusive section and one commit instead of
 * up to 25. Every check (table still present) runs before the first put, as the Storage contract
 * requires. An item a transaction in flight holds is not written: it comes back in UnprocessedItems
 * (transaction-holds.ts says why) and the rest of the batch is written.
 */
import type { Engine } from './engine.js';
import { BATCH_WRITE, commitPlans, planWrite, readOldImages, requireCurrentTable, type NewImage, type WritePlan } from './write-pipeline.js';
import type { Table } from './table.js';
import { recordConflictsByTable } from './transaction-holds.js';
import type { WriteTransaction } from '../storage/storage.js';

/** The outcome of a batch write whose item a transaction in flight holds: nothing written, the request unprocessed. */
export const HELD_BY_TRANSACTION = 'held-by-transaction';

/** Each batch write's outcome: its plan (applied or refused by admission), or held by a transaction. */
export type BatchOutcome = WritePlan | typeof HELD_BY_TRANSACTION;

export interface BatchWrite {
  readonly table: Table;
  readonly storageKey: Uint8Array;
  /** The item to put, or DELETED. */
  readonly image: NewImage;
}

/**
 * Applies every put and delete of a batch in one storage write, through the write pipeline; one
 * plan per write, in order: admitted ones were applied, refused ones carry the verdict (they go back
 * in UnprocessedItems). Each item is admitted on its own — the batch is not atomic, and what
 * capacity refuses comes back unprocessed while the rest is applied (reference §3.4) — and item
 * collection limits (tables with LSIs) count the admitted items of the batch together.
 */
export function writeBatch(engine: Engine, writes: readonly BatchWrite[]): Promise<BatchOutcome[]> {
  return engine.storage.write((txn): BatchOutcome[] => {
    let checked: Table | undefined;
    for (const write of writes) {
      if (write.table === checked) continue;
      requireCurrentTable(engine, write.table);
      checked = write.table;
    }
    const holds = engine.transactionHolds;
    if (!holds.active) return commitWrites(engine, txn, writes);
    const held = writes.map((write) => holds.holds(write.storageKey));
    if (!held.includes(true)) return commitWrites(engine, txn, writes);
    recordConflictsByTable(engine, writes.flatMap((write, index) => (held[index] ? [write.table.name] : [])));
    const free = writes.filter((_, index) => !held[index]);
    const plans = free.length === 0 ? [] : commitWrites(engine, txn, free);
    let next = 0;
    return held.map((isHeld) => (isHeld ? HELD_BY_TRANSACTION : plans[next++]!));
  });
}

function commitWrites(engine: Engine, txn: WriteTransaction, writes: readonly BatchWrite[]): WritePlan[] {
  // The read phase: keys are distinct within a batch, so every old image is read before anything is put.
  const images = readOldImages(txn, writes.map((write) => write.storageKey));
  const plans = writes.map((write, index) => planWrite(write.table, write.storageKey, images[index]!, write.image, 'standard'));
  commitPlans(engine, txn, plans, BATCH_WRITE);
  return plans;
}
