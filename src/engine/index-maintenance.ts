/**
 * Keeping secondary indexes in step with the items, inside the item's own storage write (called
 * from write-pipeline.ts, the one write path of single writes, batches, transactions, PartiQL and
 * TTL deletions). Each entry is projected and sized once, in entryChange, when the write is
 * planned; admission, charges and the item-collection delta read that change.
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
import { itemSize } from '../model/item-size.js';
import type { ReadView, WriteTransaction } from '../storage/storage.js';
import { tableKeySuffixOf } from './index-keys.js';
import { indexWriteUnits } from '../capacity/units.js';
import { itemsEqual } from '../expressions/evaluate.js';
import { decodeItemKeyHash, prefixUpperBound } from '../model/key-codec.js';
import { INDEX_PREFIX_BYTES } from './index-keys.js';
import type { IndexState, SecondaryIndex } from './indexes.js';
import { ItemCollections } from './item-collections.js';
import type { NewImage, OldImage } from './write-pipeline.js';
import type { Engine } from './engine.js';
import type { Table } from './table.js';

/** One write's effect on one index: an entry removed and/or put, and the statistics' movement. */
export interface EntryChange {
  readonly removeKey: Buffer | undefined;
  readonly putKey: Buffer | undefined;
  readonly entry: AttributeMap | undefined;
  readonly countDelta: number;
  readonly bytesDelta: number;
  /** Size of the entry the item had before (0 when it had none): what leaves the old partition. */
  readonly oldBytes: number;
  /**
   * What the change costs the index (0, 1 or 2 writes sized on entries, capacity/units.ts). Known
   * when the write is planned; a change restored from the propagation log was charged already (0).
   */
  readonly writeUnits: number;
}

/** What `old` → `next` changes in `index`, or undefined when the index does not change. */
export function entryChange(index: SecondaryIndex, tableKeySuffix: Uint8Array, old: OldImage, next: NewImage): EntryChange | undefined {
  const oldKey = old.item === undefined ? undefined : index.entryKey(old.item, tableKeySuffix);
  const newKey = next.item === undefined ? undefined : index.entryKey(next.item, tableKeySuffix);
  if (oldKey === undefined && newKey === undefined) return undefined;
  const sameKey = oldKey !== undefined && newKey !== undefined && oldKey.equals(newKey);
  // A KEYS_ONLY entry is made of key values only, so an unchanged key is an unchanged entry.
  if (sameKey && index.keysOnly) return undefined;
  const oldEntry = oldKey === undefined ? undefined : index.entryOf(old.item!);
  const entry = newKey === undefined ? undefined : index.entryOf(next.item!);
  // An INCLUDE entry whose projected attributes did not change is not written (nor charged).
  if (sameKey && index.projected !== undefined && itemsEqual(oldEntry!, entry!)) return undefined;
  const oldBytes = oldEntry === undefined ? 0 : index.entrySize(oldEntry, old.sizeBytes);
  const newBytes = entry === undefined ? 0 : index.entrySize(entry, next.sizeBytes);
  return {
    removeKey: sameKey ? undefined : oldKey,
    putKey: newKey,
    entry,
    countDelta: (newKey === undefined ? 0 : 1) - (oldKey === undefined ? 0 : 1),
    bytesDelta: newBytes - oldBytes,
    oldBytes,
    writeUnits: indexWriteUnits(oldEntry === undefined ? undefined : oldBytes, entry === undefined ? undefined : newBytes, !sameKey),
  };
}

/**
 * The removal of one stored entry of a deleted index (backfill.ts), which no item write plans: its
 * statistics shrink by the entry's stored size, and it costs nothing (the index is gone).
 */
export function entryRemoval(key: Uint8Array, entry: AttributeMap): EntryChange {
  const bytes = itemSize(entry);
  const removeKey = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  return { removeKey, putKey: undefined, entry: undefined, countDelta: -1, bytesDelta: -bytes, oldBytes: bytes, writeUnits: 0 };
}

/**
 * Applies a change to the index's entries, statistics and (GSIs) partition map. Entry keys carry
 * the index partition-key hash right after the index prefix, as item keys do (index-keys.ts).
 * `partitions` is the index's map unless the caller says otherwise: a deleted index's removal
 * passes undefined, since its map goes with it and is not moved entry by entry.
 */
export function applyEntryChange(txn: WriteTransaction, state: IndexState, change: EntryChange, partitions = state.partitions): void {
  if (change.removeKey !== undefined) txn.remove(change.removeKey);
  if (change.putKey !== undefined) txn.put(change.putKey, change.entry!);
  const statistics = state.statistics;
  statistics.itemCount += change.countDelta;
  statistics.sizeBytes += change.bytesDelta;
  if (partitions === undefined) return;
  if (change.removeKey === undefined) {
    if (change.putKey !== undefined) partitions.record(txn, decodeItemKeyHash(change.putKey, INDEX_PREFIX_BYTES), change.countDelta, change.bytesDelta);
    return;
  }
  partitions.record(txn, decodeItemKeyHash(change.removeKey, INDEX_PREFIX_BYTES), -1, -change.oldBytes);
  if (change.putKey !== undefined) partitions.record(txn, decodeItemKeyHash(change.putKey, INDEX_PREFIX_BYTES), 1, change.oldBytes + change.bytesDelta);
}

/** One index's part of a write: the entry change, and so what the write costs that index. */
export interface IndexWrite {
  readonly index: SecondaryIndex;
  readonly change: EntryChange;
}

const NO_INDEX_WRITES: readonly IndexWrite[] = [];

/**
 * What one item's new image changes in each live index of its table, before anything is put: the
 * plan admission charges (GSI writes to the GSI, LSI writes to the table) and applyIndexWrites
 * then carries out.
 */
export function planIndexWrites(table: Table, storageKey: Uint8Array, old: OldImage, next: NewImage): readonly IndexWrite[] {
  const indexes = table.indexRuntime.current.live;
  if (indexes.length === 0) return NO_INDEX_WRITES;
  const suffix = tableKeySuffixOf(storageKey, table.itemPrefix.length);
  let writes: IndexWrite[] | undefined;
  for (const index of indexes) {
    if (!index.covers(storageKey)) continue;
    const change = entryChange(index, suffix, old, next);
    if (change !== undefined) (writes ??= []).push({ index, change });
  }
  return writes ?? NO_INDEX_WRITES;
}

/**
 * Brings every live index of the table in step with one item's planned write (after its put), and
 * its LSI item collection by the delta the plan computed from the same entry changes.
 */
export function applyIndexWrites(txn: WriteTransaction, table: Table, storageKey: Uint8Array, writes: readonly IndexWrite[], collectionDeltaBytes: number): void {
  const runtime = table.indexRuntime;
  if (runtime.current.live.length === 0) return;
  const env = runtime.env;
  const nowMs = env.clock.nowMs();
  const lagMs = env.gsiLagMs;
  // Older logged changes go first; without a lag, any left from an earlier run are all due.
  env.propagation.applyDue(txn, lagMs === 0 ? Infinity : nowMs, env.states);
  for (const { index, change } of writes) {
    if (index.kind === 'global' && lagMs > 0) env.propagation.enqueue(txn, index.id, change, nowMs + lagMs);
    else applyEntryChange(txn, index.state, change);
  }
  const collections = runtime.collections;
  if (collections !== undefined) collections.add(ItemCollections.keyOfStorageKey(storageKey, table.itemPrefix.length), collectionDeltaBytes);
}

/**
 * The size of one item collection (key: ItemCollections.keyOfStorageKey) as `view` holds it: one
 * range read of the partition key's items, each with the LSI entries it makes. Sized from the
 * items, not read from the LSIs, so that one range read serves every LSI and an LSI still being
 * backfilled (a store from before indexes had ids) counts the entries it will hold, as a write's
 * delta does.
 */
export function measureItemCollection(view: ReadView, table: Table, key: string): number {
  const start = Buffer.concat([table.itemPrefix, Buffer.from(key, 'latin1')]);
  let bytes = 0;
  for (const entry of view.range({ start, end: prefixUpperBound(start) })) {
    const item = entry.value as AttributeMap;
    bytes += collectionBytesOf(table, item, itemSize(item));
  }
  return bytes;
}

/**
 * The size of the item collection `key` inside a write transaction: cached, or measured from
 * `txn` (which sees every earlier write) and cached. Only the read phase calls it
 * (write-pipeline.ts readCollectionSizes), before the request's first put.
 */
export function itemCollectionSizeIn(txn: WriteTransaction, table: Table, collections: ItemCollections, key: string): number {
  return collections.sizeIn(key, () => measureItemCollection(txn, table, key));
}

/**
 * The size of an item collection after a write, for ItemCollectionMetrics: cached (a write that
 * grew it cached it), or measured from the committed store and not cached, since writes not yet
 * committed may have moved it already (item-collections.ts).
 */
export function itemCollectionSizeAfterWrite(engine: Engine, table: Table, collections: ItemCollections, key: string): number {
  return collections.cachedSizeOf(key) ?? measureItemCollection(engine.storage, table, key);
}

/**
 * The size an item adds to its item collection: itself plus its entry in every LSI. Measuring a
 * collection uses it; a write reads its plan's delta (write-pipeline.ts).
 */
export function collectionBytesOf(table: Table, item: AttributeMap, itemSizeBytes: number): number {
  let bytes = itemSizeBytes;
  for (const index of table.indexRuntime.current.locals) bytes += localEntryBytes(index, item, itemSizeBytes);
  return bytes;
}

function localEntryBytes(index: SecondaryIndex, item: AttributeMap, itemSizeBytes: number): number {
  // An item without the LSI's sort key has no entry in it; the table key is always present.
  const range = index.key.range;
  const value = range === undefined ? undefined : ownMember(item, range.name);
  if (range !== undefined && (value === undefined || !(range.type in value))) return 0;
  return index.entrySize(index.entryOf(item), itemSizeBytes);
}
