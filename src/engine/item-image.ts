/**
 * The steps every write repeats inside its storage write (PutItem/UpdateItem/DeleteItem through
 * items.ts, BatchWriteItem, TransactWriteItems): make sure each table it touches is still the
 * table that was planned against, and replace one item's image while keeping the table
 * statistics in commit order. They work on an open WriteTransaction, so many items can share one
 * exclusive write. Every change to an item goes through applyImage: it is the one place where
 * whatever follows an item (statistics, secondary indexes, item collections) is kept in step, in
 * the same storage write as the item.
 */
import { resourceNotFound } from '../errors.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import type { WriteTransaction } from '../storage/storage.js';
import type { Engine } from './engine.js';
import { decodeItemKeyHash } from '../model/key-codec.js';
import { applyIndexWrites, planIndexWrites, type IndexWrite } from './index-maintenance.js';
import type { NewImage } from './items.js';
import type { Table } from './table.js';

/**
 * A DeleteTable (or a delete and re-create) may have committed between planning and this write;
 * the request must then fail as DynamoDB's would instead of writing into a table that is gone.
 * Call it for every table before the first put: the store does not roll back a half-done write.
 */
export function requireCurrentTable(engine: Engine, table: Table): void {
  const current = engine.catalog.get(table.name);
  if (current === undefined || current.record.id !== table.record.id) throw resourceNotFound();
}

/** The image an item had before a write, with its size (0 when the item did not exist). */
export interface OldImage {
  readonly item: AttributeMap | undefined;
  readonly sizeBytes: number;
}

export function readOldImage(txn: WriteTransaction, storageKey: Uint8Array): OldImage {
  const item = txn.get(storageKey) as AttributeMap | undefined;
  return { item, sizeBytes: item === undefined ? 0 : itemSize(item) };
}

/**
 * One item's write, planned before anything is put: its images and what it changes in each index.
 * Capacity is charged on the plan (table units from the larger image, index units from the entry
 * changes) and admission decides on it; only then is it applied.
 */
export interface ImagePlan {
  readonly storageKey: Uint8Array;
  readonly old: OldImage;
  readonly next: NewImage;
  readonly indexWrites: readonly IndexWrite[];
}

export function planImage(table: Table, storageKey: Uint8Array, old: OldImage, next: NewImage): ImagePlan {
  return { storageKey, old, next, indexWrites: planIndexWrites(table, storageKey, old, next) };
}

/** Puts (or removes) the new image, moves the table statistics and partitions, and maintains every index. */
export function applyImage(txn: WriteTransaction, table: Table, plan: ImagePlan): void {
  const { storageKey, old, next } = plan;
  if (next.item !== undefined) txn.put(storageKey, next.item);
  else if (old.item !== undefined) txn.remove(storageKey);
  const itemDelta = (next.item === undefined ? 0 : 1) - (old.item === undefined ? 0 : 1);
  const bytesDelta = next.sizeBytes - old.sizeBytes;
  const statistics = table.statistics;
  statistics.itemCount += itemDelta;
  statistics.sizeBytes += bytesDelta;
  table.partitions.record(txn, decodeItemKeyHash(storageKey, table.itemPrefix.length), itemDelta, bytesDelta);
  applyIndexWrites(txn, table, storageKey, old, next, plan.indexWrites);
}
