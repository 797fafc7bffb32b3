/**
 * BatchGetItem and BatchWriteItem over the store.
 *
 * A batch write is applied in one storage write: every item is written atomically and the whole
 * batch lands together. DynamoDB only promises the former (its batches are not atomic), so one
 * write is a stricter behaviour chosen for speed — one exclusive section and one commit instead of
 * up to 25. Every check (table still present) runs before the first put, as the Storage contract
 * requires.
 *
 * A batch read is a series of committed reads, like GetItems, with no snapshot across the keys
 * (DynamoDB gives none either). It stops once the response would pass its size limit; the keys
 * not read are returned to the caller as unprocessed.
 */
import type { AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import type { Engine } from './engine.js';
import { readItem } from './items.js';
import { BATCH_WRITE, commitPlans, planWrite, readOldImage, requireCurrentTable, type NewImage, type WritePlan } from './write-pipeline.js';
import type { Table } from './table.js';
/** BatchGetItem returns at most 16 MB of items per call. */
export const BATCH_GET_RESPONSE_BYTES_MAX = 16 * 1024 * 1024;

export interface BatchRead {
  readonly storageKey: Uint8Array;
}

export interface BatchReadResult {
  /** One entry per read processed, in order: the item, or undefined when there is none. */
  readonly items: readonly (AttributeMap | undefined)[];
  readonly sizes: readonly number[];
}

/**
 * Reads `reads` in order until the next item would take the items read past `limitBytes`; reads
 * after that are left for the caller to return as unprocessed. The limit counts whole items as
 * stored, before any projection: it bounds the data DynamoDB reads, as capacity does, so a
 * projection never changes which keys are processed.
 */
export function readBatch(engine: Engine, reads: readonly BatchRead[], limitBytes = BATCH_GET_RESPONSE_BYTES_MAX): BatchReadResult {
  const items: (AttributeMap | undefined)[] = [];
  const sizes: number[] = [];
  let totalBytes = 0;
  for (const read of reads) {
    const item = readItem(engine, read.storageKey);
    const sizeBytes = item === undefined ? 0 : itemSize(item);
    if (totalBytes + sizeBytes > limitBytes) break;
    totalBytes += sizeBytes;
    items.push(item);
    sizes.push(sizeBytes);
  }
  return { items, sizes };
}

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
    for (const table of new Set(writes.map((write) => write.table))) requireCurrentTable(engine, table);
    // Keys are distinct within a batch, so every old image can be read before anything is put.
    const plans = writes.map((write) => planWrite(write.table, write.storageKey, readOldImage(txn, write.storageKey), write.image, 'standard'));
    commitPlans(engine, txn, plans, BATCH_WRITE);
    return plans;
  });
}
