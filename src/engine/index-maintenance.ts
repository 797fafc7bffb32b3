/**
 * Keeping secondary indexes in step with the items, inside the item's own storage write (called
 * from item-image.ts, the one write path of single writes, batches, transactions and PartiQL).
 *
 * Per index a write costs O(1): the item's old and new entry keys are computed from the two
 * images, the old entry is removed when its key changed or the item left the index (sparse
 * indexes: an item without the index key attributes has no entry), and the new entry is put.
 * Statistics move by the difference, so ItemCount and IndexSizeBytes are always current.
 *
 * LSIs change in the same write. GSIs too unless a propagation lag is configured; their changes are
 * then logged and applied later (gsi-propagation.ts).
 */
import { ownMember, type AttributeMap } from '../model/attribute-value.js';
import type { WriteTransaction } from '../storage/storage.js';
import { tableKeySuffixOf } from './index-keys.js';
import type { IndexStatistics, SecondaryIndex } from './indexes.js';
import { CollectionGrowth, ItemCollections, itemCollectionSizeLimitExceeded } from './item-collections.js';
import type { OldImage } from './item-image.js';
import type { NewImage } from './items.js';
import type { Table } from './table.js';

/** One write's effect on one index: an entry removed and/or put, and the statistics' movement. */
export interface EntryChange {
  readonly removeKey: Buffer | undefined;
  readonly putKey: Buffer | undefined;
  readonly entry: AttributeMap | undefined;
  readonly countDelta: number;
  readonly bytesDelta: number;
}

/** What `old` → `next` changes in `index`, or undefined when the index does not change. */
export function entryChange(index: SecondaryIndex, tableKeySuffix: Uint8Array, old: OldImage, next: NewImage): EntryChange | undefined {
  const oldKey = old.item === undefined ? undefined : index.entryKey(old.item, tableKeySuffix);
  const newKey = next.item === undefined ? undefined : index.entryKey(next.item, tableKeySuffix);
  if (oldKey === undefined && newKey === undefined) return undefined;
  const sameKey = oldKey !== undefined && newKey !== undefined && oldKey.equals(newKey);
  // A KEYS_ONLY entry is made of key values only, so an unchanged key is an unchanged entry.
  if (sameKey && index.keysOnly) return undefined;
  const oldBytes = oldKey === undefined ? 0 : index.entrySize(index.entryOf(old.item!), old.sizeBytes);
  const entry = newKey === undefined ? undefined : index.entryOf(next.item!);
  const newBytes = entry === undefined ? 0 : index.entrySize(entry, next.sizeBytes);
  return {
    removeKey: sameKey ? undefined : oldKey,
    putKey: newKey,
    entry,
    countDelta: (newKey === undefined ? 0 : 1) - (oldKey === undefined ? 0 : 1),
    bytesDelta: newBytes - oldBytes,
  };
}

export function applyEntryChange(txn: WriteTransaction, statistics: IndexStatistics, change: EntryChange): void {
  if (change.removeKey !== undefined) txn.remove(change.removeKey);
  if (change.putKey !== undefined) txn.put(change.putKey, change.entry!);
  statistics.itemCount += change.countDelta;
  statistics.sizeBytes += change.bytesDelta;
}

/** Brings every live index of the table in step with one item's new image (after its put). */
export function maintainIndexes(txn: WriteTransaction, table: Table, storageKey: Uint8Array, old: OldImage, next: NewImage): void {
  const runtime = table.indexRuntime;
  const indexes = runtime.current.live;
  if (indexes.length === 0) return;
  const env = runtime.env;
  const nowMs = env.clock.nowMs();
  const lagMs = env.gsiLagMs;
  // Older logged changes go first; without a lag, any left from an earlier run are all due.
  env.propagation.applyDue(txn, lagMs === 0 ? Infinity : nowMs, env.states);
  const suffix = tableKeySuffixOf(storageKey, table.itemPrefix.length);
  for (const index of indexes) {
    if (!index.covers(storageKey)) continue;
    const change = entryChange(index, suffix, old, next);
    if (change === undefined) continue;
    if (index.kind === 'global' && lagMs > 0) env.propagation.enqueue(txn, index.id, change, nowMs + lagMs);
    else applyEntryChange(txn, index.state.statistics, change);
  }
  const collections = runtime.collections;
  if (collections !== undefined) {
    collections.add(ItemCollections.keyOfStorageKey(storageKey, table.itemPrefix.length), collectionDelta(table, old, next));
  }
}

/** How much a write grows its item collection: the item plus its entry in every LSI. */
export function collectionDelta(table: Table, old: OldImage, next: NewImage): number {
  let delta = next.sizeBytes - old.sizeBytes;
  for (const index of table.indexRuntime.current.locals) {
    delta += localEntryBytes(index, next.item, next.sizeBytes) - localEntryBytes(index, old.item, old.sizeBytes);
  }
  return delta;
}

function localEntryBytes(index: SecondaryIndex, item: AttributeMap | undefined, itemSizeBytes: number): number {
  if (item === undefined) return 0;
  // An item without the LSI's sort key has no entry in it; the table key is always present.
  const range = index.key.range;
  const value = range === undefined ? undefined : ownMember(item, range.name);
  if (range !== undefined && (value === undefined || !(range.type in value))) return 0;
  return index.entrySize(index.entryOf(item), itemSizeBytes);
}

/**
 * Refuses a write that would grow an item collection past the limit. Must run before the write's
 * first put (the Storage contract); `growth` sums the writes of one batch or transaction.
 */
export function checkItemCollection(table: Table, storageKey: Uint8Array, old: OldImage, next: NewImage, growth = new CollectionGrowth()): void {
  if (!fitsItemCollection(table, storageKey, old, next, growth)) throw itemCollectionSizeLimitExceeded();
}

export function fitsItemCollection(table: Table, storageKey: Uint8Array, old: OldImage, next: NewImage, growth: CollectionGrowth): boolean {
  const runtime = table.indexRuntime;
  const collections = runtime.collections;
  if (collections === undefined) return true;
  const key = ItemCollections.keyOfStorageKey(storageKey, table.itemPrefix.length);
  return growth.fits(collections, key, collectionDelta(table, old, next), runtime.env.itemCollectionSizeLimitBytes);
}
