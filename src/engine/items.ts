/**
 * Single-item reads and writes. Each write runs inside one storage transaction that re-checks the
 * table still exists, reads the old image and writes the new one, so the returned old image is
 * exactly what the write replaced, and the table statistics move in commit order.
 */
import { resourceNotFound } from '../errors.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import type { WriteTransaction } from '../storage/storage.js';
import type { Engine } from './engine.js';
import type { Table } from './table.js';

/** The committed item under `storageKey`, or undefined. */
export function readItem(engine: Engine, storageKey: Uint8Array): AttributeMap | undefined {
  return engine.storage.get(storageKey) as AttributeMap | undefined;
}

export interface WriteOutcome {
  /** The image the write replaced or removed. */
  readonly oldItem: AttributeMap | undefined;
  readonly oldSizeBytes: number;
}

/** Puts `item` (already validated, `sizeBytes` its DynamoDB size) and returns what it replaced. */
export function putItem(engine: Engine, table: Table, storageKey: Uint8Array, item: AttributeMap, sizeBytes: number): Promise<WriteOutcome> {
  return engine.storage.write((txn) => {
    requireSameTable(engine, table);
    const outcome = readOld(txn, storageKey);
    txn.put(storageKey, item);
    const statistics = table.statistics;
    if (outcome.oldItem === undefined) statistics.itemCount++;
    statistics.sizeBytes += sizeBytes - outcome.oldSizeBytes;
    return outcome;
  });
}

/** Removes the item under `storageKey` (a no-op when absent) and returns what was there. */
export function deleteItem(engine: Engine, table: Table, storageKey: Uint8Array): Promise<WriteOutcome> {
  return engine.storage.write((txn) => {
    requireSameTable(engine, table);
    const outcome = readOld(txn, storageKey);
    if (outcome.oldItem !== undefined) {
      txn.remove(storageKey);
      table.statistics.itemCount--;
      table.statistics.sizeBytes -= outcome.oldSizeBytes;
    }
    return outcome;
  });
}

function readOld(txn: WriteTransaction, storageKey: Uint8Array): WriteOutcome {
  const oldItem = txn.get(storageKey) as AttributeMap | undefined;
  return { oldItem, oldSizeBytes: oldItem === undefined ? 0 : itemSize(oldItem) };
}

/**
 * A DeleteTable (or delete and re-create) may have committed between planning and applying;
 * the write must then fail as DynamoDB's would, not land in a table that no longer exists.
 */
function requireSameTable(engine: Engine, table: Table): void {
  const current = engine.catalog.get(table.name);
  if (current === undefined || current.record.id !== table.record.id) throw resourceNotFound();
}
