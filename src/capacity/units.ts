/**
 * Capacity-unit arithmetic as AWS charges it (reference: dynamodb-capacity-model.md §1.1, §1.6).
 * Pure functions; the request path calls them once per item touched.
 */

/** Read units are charged per started 4 KB. */
export const READ_UNIT_BYTES = 4 * 1024;
/** Write units are charged per started 1 KB. */
export const WRITE_UNIT_BYTES = 1024;

export type ReadConsistency = 'eventual' | 'strong' | 'transactional';

const READ_UNITS_PER_BLOCK: Readonly<Record<ReadConsistency, number>> = {
  eventual: 0.5,
  strong: 1,
  transactional: 2,
};

/** Units for reading `sizeBytes` in one request; a missing item (size 0) still costs one block. */
export function readUnits(sizeBytes: number, consistency: ReadConsistency): number {
  const blocks = Math.max(1, Math.ceil(sizeBytes / READ_UNIT_BYTES));
  return blocks * READ_UNITS_PER_BLOCK[consistency];
}

/** Units for writing an item of `sizeBytes`; every write costs at least one unit. */
export function writeUnits(sizeBytes: number, transactional = false): number {
  const blocks = Math.max(1, Math.ceil(sizeBytes / WRITE_UNIT_BYTES));
  return transactional ? blocks * 2 : blocks;
}

/**
 * Write units one index pays for one base-table write (§1.5): a put when the item enters the index,
 * a delete when it leaves, both when its index key moves, one update when it stays under the same
 * key with a changed entry. Each write is sized on the index entry, not on the item. `undefined`
 * means the item has no entry on that side.
 */
export function indexWriteUnits(oldEntryBytes: number | undefined, newEntryBytes: number | undefined, keyMoved: boolean): number {
  if (oldEntryBytes === undefined) return newEntryBytes === undefined ? 0 : writeUnits(newEntryBytes);
  if (newEntryBytes === undefined) return writeUnits(oldEntryBytes);
  return keyMoved ? writeUnits(oldEntryBytes) + writeUnits(newEntryBytes) : writeUnits(Math.max(oldEntryBytes, newEntryBytes));
}

export type { ReturnConsumedCapacity } from './consumption.js';
