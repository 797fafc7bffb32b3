/**
 * The partition map of one table or GSI, kept in step with its data inside the writes that change
 * it, and persisted: partitions only ever split, so a restart must not forget a split (a table
 * whose throughput was lowered keeps the partitions its old throughput made, §2.3/§2.4).
 *
 * Storage: 0x00 'p' <table or index id, u32 BE> → PartitionLayout. Ids come from one counter, so a
 * table and its indexes never collide.
 *
 * Splits measure the two halves with a range scan of the parent's hash range: items of a table and
 * entries of an index are stored in hash order under their prefix, so a partition is one
 * contiguous key range. A split is rare (once per size limit of data, or on a throughput increase),
 * so its O(items in the partition) cost stays off the steady-state path; recording a change is O(1).
 */
import {
  HASH_SPACE,
  initialPartitionCount,
  PartitionMap,
  type MeasureRange,
  type PartitionLayout,
  type PartitionPolicy,
  type Throughput,
} from '../capacity/partitions.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { prefixUpperBound } from '../model/key-codec.js';
import type { ReadView, WriteTransaction } from '../storage/storage.js';

const CATALOG_BYTE = 0x00;
const LAYOUT_TAG = 0x70; // 'p'

/** How partitions are made and whether writes keep them current (off only to measure its cost). */
export interface PartitionSettings {
  readonly policy: PartitionPolicy;
  /** False: maps are made but writes do not update their counts (the bench's "accounting off"). */
  readonly accounting: boolean;
}

function layoutKey(resourceId: number): Buffer {
  const key = Buffer.allocUnsafe(6);
  key[0] = CATALOG_BYTE;
  key[1] = LAYOUT_TAG;
  key.writeUInt32BE(resourceId, 2);
  return key;
}

export class ResourcePartitions {
  /** The table's or index's storage id. */
  readonly resourceId: number;
  /** Storage prefix of its items (table) or entries (index). */
  readonly prefix: Buffer;
  readonly map: PartitionMap;
  readonly #accounting: boolean;
  /** Set when the layout changed (or was never saved) and the next write must save it. */
  #dirty: boolean;

  private constructor(resourceId: number, prefix: Buffer, map: PartitionMap, accounting: boolean, dirty: boolean) {
    this.resourceId = resourceId;
    this.prefix = prefix;
    this.map = map;
    this.#accounting = accounting;
    this.#dirty = dirty;
  }

  /**
   * The saved layout with counts measured from the data, or a new map sized for the throughput
   * and the data already there (a table stored before partitions were tracked).
   */
  static open(view: ReadView, resourceId: number, prefix: Buffer, settings: PartitionSettings, throughput: Throughput): ResourcePartitions {
    const measure = measureWith(view, prefix);
    const saved = view.get(layoutKey(resourceId)) as PartitionLayout | undefined;
    if (saved !== undefined) {
      const map = PartitionMap.restore(settings.policy, throughput, saved, measure);
      return new ResourcePartitions(resourceId, prefix, map, settings.accounting, false);
    }
    const whole = measure(0, HASH_SPACE);
    const map = PartitionMap.create(settings.policy, throughput, initialPartitionCount(settings.policy, throughput, whole.sizeBytes));
    const tracker = new ResourcePartitions(resourceId, prefix, map, settings.accounting, true);
    if (whole.itemCount > 0) {
      // Counts per partition, then any split the data calls for (e.g. a smaller size limit now).
      const restored = PartitionMap.restore(settings.policy, throughput, map.layout(), measure);
      restored.splitOversized(measure);
      return new ResourcePartitions(resourceId, prefix, restored, settings.accounting, true);
    }
    return tracker;
  }

  /** A new, empty resource's map (CreateTable, a GSI added by UpdateTable), saved in `txn`. */
  static create(txn: WriteTransaction, resourceId: number, prefix: Buffer, settings: PartitionSettings, throughput: Throughput): ResourcePartitions {
    const existing = txn.get(layoutKey(resourceId)) as PartitionLayout | undefined;
    if (existing !== undefined) return ResourcePartitions.open(txn, resourceId, prefix, settings, throughput);
    const map = PartitionMap.create(settings.policy, throughput, initialPartitionCount(settings.policy, throughput, 0));
    const tracker = new ResourcePartitions(resourceId, prefix, map, settings.accounting, true);
    tracker.#save(txn);
    return tracker;
  }

  /** Records one item's (or entry's) change under `hash`; splits a partition that grew past the limit. */
  record(txn: WriteTransaction, hash: number, itemDelta: number, bytesDelta: number): void {
    if (!this.#accounting) return;
    const oversized = this.map.recordChange(hash, itemDelta, bytesDelta);
    if (oversized !== undefined) {
      this.map.split(oversized, measureWith(txn, this.prefix));
      this.#dirty = true;
    }
    if (this.#dirty) this.#save(txn);
  }

  /** A new throughput (UpdateTable); partitions double until they can serve it, never merge. */
  setThroughput(txn: WriteTransaction, throughput: Throughput): void {
    if (sameThroughput(this.map.currentThroughput, throughput)) return;
    if (this.map.setThroughput(throughput, measureWith(txn, this.prefix))) this.#dirty = true;
    if (this.#dirty) this.#save(txn);
  }

  /** The resource is gone (DeleteTable, index removal). */
  static remove(txn: WriteTransaction, resourceId: number): void {
    txn.remove(layoutKey(resourceId));
  }

  #save(txn: WriteTransaction): void {
    txn.put(layoutKey(this.resourceId), this.map.layout());
    this.#dirty = false;
  }
}

function sameThroughput(left: Throughput, right: Throughput): boolean {
  if (left.mode === 'on-demand' || right.mode === 'on-demand') return left.mode === right.mode;
  return left.readUnitsPerSecond === right.readUnitsPerSecond && left.writeUnitsPerSecond === right.writeUnitsPerSecond;
}

/** Counts and sizes the values stored under `prefix` whose key hash lies in [start, end). */
function measureWith(view: ReadView, prefix: Buffer): MeasureRange {
  return (start, end) => {
    let itemCount = 0;
    let sizeBytes = 0;
    const range = { start: hashBound(prefix, start), end: end >= HASH_SPACE ? prefixUpperBound(prefix) : hashBound(prefix, end) };
    for (const entry of view.range(range)) {
      itemCount++;
      sizeBytes += itemSize(entry.value as AttributeMap);
    }
    return { itemCount, sizeBytes };
  };
}

function hashBound(prefix: Buffer, hash: number): Buffer {
  const bound = Buffer.allocUnsafe(prefix.length + 4);
  prefix.copy(bound, 0);
  bound.writeUInt32BE(hash, prefix.length);
  return bound;
}
