/**
 * Single-item reads and writes. Every write is one storage transaction that re-checks the table
 * still exists, reads the old image, lets the caller decide the new image from it (conditions,
 * update expressions) and writes that, so check and write are atomic and the statistics move in
 * commit order.
 */
import { resourceNotFound } from '../errors.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import type { Engine } from './engine.js';
import type { Table } from './table.js';

/** The committed item under `storageKey`, or undefined. */
export function readItem(engine: Engine, storageKey: Uint8Array): AttributeMap | undefined {
  return engine.storage.get(storageKey) as AttributeMap | undefined;
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
}

export const DELETED: NewImage = { item: undefined, sizeBytes: 0 };

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
    requireSameTable(engine, table);
    const oldItem = txn.get(storageKey) as AttributeMap | undefined;
    const next = decide(oldItem);
    const oldSizeBytes = oldItem === undefined ? 0 : itemSize(oldItem);
    if (next.item !== undefined) txn.put(storageKey, next.item);
    else if (oldItem !== undefined) txn.remove(storageKey);
    const statistics = table.statistics;
    statistics.itemCount += (next.item === undefined ? 0 : 1) - (oldItem === undefined ? 0 : 1);
    statistics.sizeBytes += next.sizeBytes - oldSizeBytes;
    return { oldItem, oldSizeBytes, newItem: next.item, newSizeBytes: next.sizeBytes };
  });
}

/**
 * A DeleteTable (or delete and re-create) may have committed between planning and applying;
 * the write must then fail as DynamoDB's would, not land in a table that no longer exists.
 */
function requireSameTable(engine: Engine, table: Table): void {
  const current = engine.catalog.get(table.name);
  if (current === undefined || current.record.id !== table.record.id) throw resourceNotFound();
}
