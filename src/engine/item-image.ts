/**
 * The steps every write repeats inside its storage write (PutItem/UpdateItem/DeleteItem through
 * items.ts, BatchWriteItem, TransactWriteItems): make sure each table it touches is still the
 * table that was planned against, and replace one item's image while keeping the table
 * statistics in commit order. They work on an open WriteTransaction, so many items can share one
 * exclusive write. Every change to an item goes through replaceImage: it is the one place where
 * whatever follows an item (statistics today, indexes next) is kept in step.
 */
import { resourceNotFound } from '../errors.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import type { WriteTransaction } from '../storage/storage.js';
import type { Engine } from './engine.js';
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

/** Puts (or removes) the new image and moves the table statistics by the difference. */
export function replaceImage(txn: WriteTransaction, table: Table, storageKey: Uint8Array, old: OldImage, next: NewImage): void {
  if (next.item !== undefined) txn.put(storageKey, next.item);
  else if (old.item !== undefined) txn.remove(storageKey);
  const statistics = table.statistics;
  statistics.itemCount += (next.item === undefined ? 0 : 1) - (old.item === undefined ? 0 : 1);
  statistics.sizeBytes += next.sizeBytes - old.sizeBytes;
}
