/**
 * Single-item reads and writes. Every write is one storage transaction that re-checks the table
 * still exists, reads the old image, lets the caller decide the new image from it (conditions,
 * update expressions) and writes that, so check and write are atomic and the statistics move in
 * commit order.
 */
import type { AttributeMap } from '../model/attribute-value.js';
import type { Engine } from './engine.js';
import type { IndexWrite } from './index-maintenance.js';
import { DynamoError } from '../errors.js';
import { admitFailedCondition, admitWrite } from './admit.js';
import { checkItemCollection } from './index-maintenance.js';
import { applyImage, planImage, readOldImage, requireCurrentTable } from './item-image.js';
import type { Table } from './table.js';

/** The committed item under `storageKey`, or undefined. */
export function readItem(engine: Engine, storageKey: Uint8Array): AttributeMap | undefined {
  return engine.storage.get(storageKey) as AttributeMap | undefined;
}

/** A committed item with its JSON text (`JSON.stringify(item)`), for answering with it as is. */
export interface ItemWithJson {
  readonly item: AttributeMap;
  readonly json: string;
}

/** Like readItem, with the item's JSON text: the store has it or keeps it, so it is not re-encoded. */
export function readItemWithJson(engine: Engine, storageKey: Uint8Array): ItemWithJson | undefined {
  const read = engine.storage.getWithJson(storageKey);
  return read === undefined ? undefined : { item: read.value as AttributeMap, json: read.json };
}

/** What a write puts in place of the old image: an item and its size, or nothing (delete). */
export interface NewImage {
  readonly item: AttributeMap | undefined;
  readonly sizeBytes: number;
}

export interface WriteOutcome {
  /** The image the write replaced or removed. */
  readonly oldItem: AttributeMap | undefined;
  readonly oldSizeBytes: number;
  readonly newItem: AttributeMap | undefined;
  readonly newSizeBytes: number;
  /** What the write changed in each index: its index units (charges.ts). */
  readonly indexWrites: readonly IndexWrite[];
}

export const DELETED: NewImage = { item: undefined, sizeBytes: 0 };

function isConditionFailure(error: unknown): boolean {
  return error instanceof DynamoError && error.code === 'ConditionalCheckFailedException';
}

/**
 * Replaces the item under `storageKey` with what `decide` returns for the current image. `decide`
 * runs inside the write transaction; it may throw (a failed condition, an invalid update) and
 * then nothing is written.
 */
export function writeItem(
  engine: Engine,
  table: Table,
  storageKey: Uint8Array,
  decide: (oldItem: AttributeMap | undefined) => NewImage,
): Promise<WriteOutcome> {
  return engine.storage.write((txn) => {
    requireCurrentTable(engine, table);
    const old = readOldImage(txn, storageKey);
    let next: NewImage;
    try {
      next = decide(old.item);
    } catch (error) {
      if (isConditionFailure(error)) admitFailedCondition(engine, table, storageKey, old.sizeBytes, old.item);
      throw error;
    }
    const plan = planImage(table, storageKey, old, next);
    checkItemCollection(table, storageKey, old, next);
    admitWrite(engine, table, plan);
    applyImage(txn, table, plan);
    return { oldItem: old.item, oldSizeBytes: old.sizeBytes, newItem: next.item, newSizeBytes: next.sizeBytes, indexWrites: plan.indexWrites };
  });
}
