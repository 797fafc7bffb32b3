/**
 * BatchWriteItem over the store (batch reads: reads.ts).
 *
 * A batch write is applied in one storage write: every item is written atomically and the whole
 * batch lands together. DynamoDB only promises the former (its batches are not atomic), so one
 * write is a stricter behaviour chosen for speed — one exclusive section and one commit instead of
 * up to 25. Every check (table still present) runs before the first put, as the Storage contract
 * requires.
 */
import type { Engine } from './engine.js';
import { BATCH_WRITE, commitPlans, planWrite, readOldImages, requireCurrentTable, type NewImage, type WritePlan } from './write-pipeline.js';
import type { Table } from './table.js';

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
export function writeBatch(engine: Engine, writes: readonly BatchWrite[]): Promise<WritePlan[]> {
  return engine.storage.write((txn) => {
    let checked: Table | undefined;
    for (const write of writes) {
      if (write.table === checked) continue;
      requireCurrentTable(engine, write.table);
      checked = write.table;
    }
    // The read phase: keys are distinct within a batch, so every old image is read before anything is put.
    const images = readOldImages(txn, writes.map((write) => write.storageKey));
    const plans = writes.map((write, index) => planWrite(write.table, write.storageKey, images[index]!, write.image, 'standard'));
    commitPlans(engine, txn, plans, BATCH_WRITE);
    return plans;
  });
}
