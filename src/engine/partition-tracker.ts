/**
 * The partition map of one table or GSI, kept in step with its data inside the writes that change
 * it, and persisted: partitions only ever split, so a restart must not forget a split (a table
 * whose throughput was lowered keeps the partitions its old throughput made, §2.3/§2.4).
 *
 * Storage: 0x00 'p' <table or index id, u32 BE> → PartitionLayout. Ids come from one counter, so a
 * table and its indexes never collide.
 *
 * Counts are persisted too, so that start-up does not read every item to recount them:
 * 0x00 'c' <resource id, u32 BE> <partition id, u32 BE> → [itemCount, sizeBytes], put by `record`
 * in the same transaction as the write that changed them (so a crash can never leave them apart
 * from the data). A layout change rewrites them all. `open` uses them when every partition of the
 * saved layout has its record, and measures the data otherwise (a store written before counts were
 * persisted, or by a run with accounting off, which clears them: it does not keep them current).
 *
 * Splits measure the two halves with a range scan of the parent's hash range: items of a table and
 * entries of an index are stored in hash order under their prefix, so a partition is one
 * contiguous key range. A split is rare (once per size limit of data, or on a throughput increase),
 * so its O(items in the partition) cost stays off the steady-state path; recording a change is O(1).
 *
 * A size split divides the partition's data evenly (§2.3): it cuts at the key hash that balances
 * the two halves' bytes, not at the middle of the range, so one split always brings both halves
 * under the limit unless a single key dominates. A partition whose data is all under one key hash
 * cannot be divided by hash range; it is left whole (and marked, so later writes do not rescan it)
 * rather than halved again and again down to a one-hash range, each time halving its share.
 */
import {
  HASH_SPACE,
  initialPartitionCount,
  PARTITION_READ_UNITS_MAX,
  PARTITION_WRITE_UNITS_MAX,
  PartitionMap,
  type MeasureRange,
  type Partition,
  type PartitionLayout,
  type PartitionPolicy,
  type Throughput,
} from '../capacity/partitions.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { decodeItemKeyHash, prefixUpperBound } from '../model/key-codec.js';
import type { CapacitySettings, PartitionCapacity, ResourceCapacity } from '../capacity/admission.js';
import type { Clock } from '../clock.js';
import type { ReadView, WriteTransaction } from '../storage/storage.js';

const CATALOG_BYTE = 0x00;
const LAYOUT_TAG = 0x70; // 'p'
const COUNTS_TAG = 0x63; // 'c' (counts)

/** Runs `work` in a storage write of its own, later or at once; failures are reported, not thrown. */
export type BackgroundWrite = (work: (txn: WriteTransaction) => void) => void;

/** A partition's persisted [itemCount, sizeBytes]. */
type SavedCounts = readonly [number, number];

/** How partitions are made and whether writes keep them current (off only to measure its cost). */
export interface PartitionSettings {
  readonly policy: PartitionPolicy;
  /** False: maps are made but writes do not update their counts (the bench's "accounting off"). */
  readonly accounting: boolean;
  /**
   * False on a store that ends with the process (`--in-memory`): saved counts are only read when a
   * store is opened again, so writes keep them in the map and skip the put of a counts record per
   * write. Layouts (splits) are still saved. Default true.
   */
  readonly persistCounts?: boolean;
  /** Admission tunables (burst seconds, GSI backlog bound, ...); DynamoDB's defaults otherwise. */
  readonly capacity?: Partial<CapacitySettings>;
}

/** 0x00 <tag> <resource id u32> [<partition id u32>]: a catalog record about a table or index. */
export function catalogKey(tag: number, resourceId: number, partitionId?: number): Buffer {
  const key = Buffer.allocUnsafe(partitionId === undefined ? 6 : 10);
  key[0] = CATALOG_BYTE;
  key[1] = tag;
  key.writeUInt32BE(resourceId, 2);
  if (partitionId !== undefined) key.writeUInt32BE(partitionId, 6);
  return key;
}

function layoutKey(resourceId: number): Buffer {
  return catalogKey(LAYOUT_TAG, resourceId);
}

function countsPrefix(resourceId: number): Buffer {
  return catalogKey(COUNTS_TAG, resourceId);
}

function countsKey(resourceId: number, partitionId: number): Buffer {
  return catalogKey(COUNTS_TAG, resourceId, partitionId);
}

/** The persisted counts of a resource's partitions, by partition id. O(partitions). */
function savedCounts(view: ReadView, resourceId: number): Map<number, SavedCounts> {
  const prefix = countsPrefix(resourceId);
  const counts = new Map<number, SavedCounts>();
  for (const entry of view.range({ start: prefix, end: prefixUpperBound(prefix) })) {
    counts.set(Buffer.from(entry.key.buffer, entry.key.byteOffset, entry.key.byteLength).readUInt32BE(6), entry.value as unknown as SavedCounts);
  }
  return counts;
}

function removeCounts(txn: WriteTransaction, resourceId: number): void {
  const prefix = countsPrefix(resourceId);
  // Collect first: removing while iterating a live range is not safe in every store.
  const keys: Uint8Array[] = [];
  for (const entry of txn.range({ start: prefix, end: prefixUpperBound(prefix) })) keys.push(entry.key);
  for (const key of keys) txn.remove(key);
}

export class ResourcePartitions {
  /** The table's or index's storage id. */
  readonly resourceId: number;
  /** Storage prefix of its items (table) or entries (index). */
  readonly prefix: Buffer;
  /**
   * What its partitions hold, for sizes and splits: `prefix`, then (a table with LSIs) each LSI's
   * entry prefix — an item's LSI entries live on its partition (item collections never span
   * partitions), so they count toward the partition's size and a 10 GB split sees them. Items are
   * counted under `prefix` only.
   */
  readonly #stored: readonly Buffer[];
  readonly map: PartitionMap;
  /**
   * Admission state per partition (capacity/admission.ts), attached once the catalog knows the
   * resource's billing (table-partitions.ts). Keyed by partition id: a split's children start
   * fresh and inherit what their parent's GSI backlog still held.
   */
  #capacity: ResourceCapacity | undefined;
  #clock: Clock | undefined;
  /** Runs a storage write of its own (splits due outside a write: splitWhenDue). */
  #backgroundWrite: BackgroundWrite | undefined;
  /** A peak split is scheduled and has not run yet. */
  #peakSplitPending = false;
  /**
   * Where the data's sizes come from when they are not stored (a scenario's flow fidelity, which
   * keeps no items): splits measure and divide with it instead of scanning the store.
   */
  #sizes: SizeSource | undefined;
  readonly #accounting: boolean;
  readonly #persistCounts: boolean;
  /** Set when the layout changed (or was never saved) and the next write must save it. */
  #dirty: boolean;
  /** True when `open` took every partition's counts from the store instead of reading the data. */
  readonly countsRestored: boolean;
  /** Accounting off: the persisted counts were removed by this run's first write (they go stale). */
  #countsCleared = false;
  /**
   * While a request applies several items (deferCounts … saveDeferredCounts, write-pipeline.ts
   * applyPlans): the partitions whose counts changed, each saved once at the end rather than once
   * per item — a 25-item BatchWriteItem puts each touched partition's counts once, not 25 times.
   */
  #deferred: Set<Partition> | undefined;

  private constructor(resourceId: number, stored: readonly Buffer[], map: PartitionMap, settings: PartitionSettings, dirty: boolean, countsRestored: boolean) {
    this.resourceId = resourceId;
    this.prefix = stored[0]!;
    this.#stored = stored;
    this.map = map;
    this.#accounting = settings.accounting;
    this.#persistCounts = settings.persistCounts !== false;
    this.#dirty = dirty;
    this.countsRestored = countsRestored;
  }

  /**
   * The saved layout with counts measured from the data, or a new map sized for the throughput
   * and the data already there (a table stored before partitions were tracked). Either way, a
   * partition over the size limit is split (the limit may be smaller than in the last run), and
   * a throughput the partitions cannot serve under the current model doubles them.
   */
  static open(
    view: ReadView,
    resourceId: number,
    prefix: Buffer,
    settings: PartitionSettings,
    throughput: Throughput,
    localIndexPrefixes: readonly Buffer[] = [],
    countsIncludeLocalIndexes = false,
  ): ResourcePartitions {
    const stored = [prefix, ...localIndexPrefixes];
    const measureData = measureWith(view, stored);
    const saved = view.get(layoutKey(resourceId)) as PartitionLayout | undefined;
    // A table with LSIs uses its saved counts only when its persisted statistics say they include
    // LSI entry bytes (table-statistics.ts): counts saved before LSI entries were counted in
    // partition sizes would be too small.
    const countsUsable = localIndexPrefixes.length === 0 || countsIncludeLocalIndexes;
    const counts = saved !== undefined && settings.accounting && countsUsable ? savedCounts(view, resourceId) : undefined;
    const countsRestored = saved !== undefined && counts !== undefined && saved.partitions.every((partition) => counts.has(partition.id));
    // A saved partition's range is answered from its persisted counts; any other range (a split
    // decided now) is measured.
    const savedRanges = new Map(saved?.partitions.map((partition) => [`${partition.start}:${partition.end}`, partition.id]) ?? []);
    const measure: MeasureRange = countsRestored
      ? (start, end) => {
          const id = savedRanges.get(`${start}:${end}`);
          const figures = id === undefined ? undefined : counts!.get(id);
          return figures === undefined ? measureData(start, end) : { itemCount: figures[0], sizeBytes: figures[1] };
        }
      : measureData;
    let map: PartitionMap;
    if (saved !== undefined) {
      map = PartitionMap.restore(settings.policy, throughput, saved, measure);
    } else {
      const whole = measure(0, HASH_SPACE);
      const created = PartitionMap.create(settings.policy, throughput, initialPartitionCount(settings.policy, throughput, whole.sizeBytes));
      // Counts per partition (none to measure in an empty resource).
      map = whole.itemCount > 0 ? PartitionMap.restore(settings.policy, throughput, created.layout(), measure) : created;
    }
    // Measured counts are saved (with the layout) by the next write.
    let changed = saved === undefined || (settings.accounting && !countsRestored);
    if (map.setThroughput(throughput, measure)) changed = true;
    for (const partition of [...map.list()]) {
      if (map.isOversized(partition) && splitToFit(map, view, stored, partition)) changed = true;
    }
    return new ResourcePartitions(resourceId, stored, map, settings, changed, countsRestored);
  }

  /** The resource's item (entry) count and bytes: the sum over its partitions. O(partitions). */
  totals(): { itemCount: number; sizeBytes: number } {
    let itemCount = 0;
    let sizeBytes = 0;
    for (const partition of this.map.list()) {
      itemCount += partition.itemCount;
      sizeBytes += partition.sizeBytes;
    }
    return { itemCount, sizeBytes };
  }

  /** A new, empty resource's map (CreateTable, a GSI added by UpdateTable), saved in `txn`. */
  static create(
    txn: WriteTransaction,
    resourceId: number,
    prefix: Buffer,
    settings: PartitionSettings,
    throughput: Throughput,
    localIndexPrefixes: readonly Buffer[] = [],
  ): ResourcePartitions {
    const existing = txn.get(layoutKey(resourceId)) as PartitionLayout | undefined;
    if (existing !== undefined) return ResourcePartitions.open(txn, resourceId, prefix, settings, throughput, localIndexPrefixes);
    const map = PartitionMap.create(settings.policy, throughput, initialPartitionCount(settings.policy, throughput, 0));
    const tracker = new ResourcePartitions(resourceId, [prefix, ...localIndexPrefixes], map, settings, true, true);
    tracker.#save(txn);
    return tracker;
  }

  /** From now on, splits measure with `sizes` instead of the stored data (flow fidelity). */
  useSizeSource(sizes: SizeSource): void {
    this.#sizes = sizes;
  }

  #measure(view: ReadView): MeasureRange {
    return this.#sizes?.measure ?? measureWith(view, this.#stored);
  }

  get capacity(): ResourceCapacity {
    const capacity = this.#capacity;
    if (capacity === undefined) throw new Error(`assertion failed: resource ${this.resourceId} has no capacity state attached`);
    return capacity;
  }

  get hasCapacity(): boolean {
    return this.#capacity !== undefined;
  }

  /** Gives the resource its admission state (once, when the catalog attaches it). */
  attachCapacity(capacity: ResourceCapacity, clock: Clock, backgroundWrite?: BackgroundWrite): void {
    this.#capacity = capacity;
    this.#clock = clock;
    this.#backgroundWrite = backgroundWrite;
  }

  /**
   * Reads call this: an on-demand resource whose previous peak (promoted on the clock, reads
   * included) now needs more partitions splits when that falls due, not at its next write. The
   * check is O(1); the split is a storage write of its own (it measures the halves and persists
   * the layout), scheduled once — on the in-memory store it runs at once, before the read is
   * placed; on LMDB in the write queue's order.
   */
  splitWhenDue(nowMs: number): void {
    const capacity = this.#capacity;
    const backgroundWrite = this.#backgroundWrite;
    if (capacity === undefined || backgroundWrite === undefined || !this.#accounting || this.#peakSplitPending) return;
    if (capacity.partitionsForPeak(nowMs) <= this.map.count) return;
    this.#peakSplitPending = true;
    backgroundWrite((txn) => {
      this.#peakSplitPending = false;
      // Deleted meanwhile (DeleteTable, a GSI removed): its layout record is gone, nothing to split.
      if (txn.get(layoutKey(this.resourceId)) === undefined) return;
      this.#scaleForPeak(txn);
    });
  }

  /**
   * The admission state of the partition owning `hash`, with its current allocation (the map's
   * share of the throughput, or the ceiling when on-demand). O(1).
   */
  capacityAt(hash: number, nowMs: number): PartitionCapacity {
    const partition = this.map.partitionOf(hash);
    return this.capacity.partitionCapacity(partition.id, this.map.readUnitsOf(partition), this.map.writeUnitsOf(partition), nowMs);
  }

  /** Records one item's (or entry's) change under `hash`; splits a partition that grew past the limit. */
  record(txn: WriteTransaction, hash: number, itemDelta: number, bytesDelta: number): void {
    if (!this.#accounting) {
      if (!this.#countsCleared) removeCounts(txn, this.resourceId);
      this.#countsCleared = true;
      return;
    }
    this.#scaleForPeak(txn);
    const oversized = this.map.recordChange(hash, itemDelta, bytesDelta);
    if (oversized !== undefined) {
      const before = rangesOf(this.map);
      const split = this.#sizes === undefined ? splitToFit(this.map, txn, this.#stored, oversized) : splitSourceToFit(this.map, this.#sizes, oversized);
      if (split) this.#layoutChanged(before);
    }
    if (this.#dirty) this.#save(txn);
    else if (this.#deferred !== undefined) this.#deferred.add(this.map.partitionOf(hash));
    else if (this.#persistCounts) this.#saveCounts(txn, this.map.partitionOf(hash));
  }

  /** From now until saveDeferredCounts, in the same storage write, a change saves no counts. */
  deferCounts(): void {
    if (this.#persistCounts) this.#deferred ??= new Set();
  }

  /**
   * Saves the counts of the partitions changed since deferCounts, in the same storage write as
   * the changes, and ends the deferral. A layout saved meanwhile (a split) saved every count.
   */
  saveDeferredCounts(txn: WriteTransaction): void {
    const deferred = this.#deferred;
    this.#deferred = undefined;
    if (deferred === undefined) return;
    for (const partition of deferred) this.#saveCounts(txn, partition);
  }

  /**
   * On-demand: once the previous peak (admission's on-demand tracker) calls for more partitions
   * than there are — twice the peak over the per-partition ceilings — every partition splits, so
   * that the twice-the-peak traffic the table now admits is not capped by too few partitions
   * (§2.4 split for consumption). Checked on each write (O(1) unless it splits), and by reads
   * through splitWhenDue.
   */
  #scaleForPeak(txn: WriteTransaction): void {
    const capacity = this.#capacity;
    const clock = this.#clock;
    if (capacity === undefined || clock === undefined || capacity.billingMode !== 'on-demand') return;
    const needed = capacity.partitionsForPeak(clock.nowMs());
    if (needed <= this.map.count) return;
    const before = rangesOf(this.map);
    if (this.map.growTo(needed, this.#measure(txn))) this.#layoutChanged(before);
    if (this.#dirty) this.#save(txn);
  }

  /**
   * Warm throughput (CreateTable/UpdateTable WarmThroughput, reference §4.4): enough partitions
   * to serve `readUnitsPerSecond` / `writeUnitsPerSecond` at their ceilings, split now, in the
   * request's write. Never merges.
   */
  prewarm(txn: WriteTransaction, readUnitsPerSecond: number, writeUnitsPerSecond: number): void {
    const needed = Math.ceil(Math.max(readUnitsPerSecond / PARTITION_READ_UNITS_MAX, writeUnitsPerSecond / PARTITION_WRITE_UNITS_MAX) - 1e-9);
    const before = rangesOf(this.map);
    if (this.map.spreadTo(needed, this.#measure(txn))) this.#layoutChanged(before);
    if (this.#dirty) this.#save(txn);
  }

  /** A new throughput (UpdateTable); partitions double until they can serve it, never merge. */
  setThroughput(txn: WriteTransaction, throughput: Throughput): void {
    if (sameThroughput(this.map.currentThroughput, throughput)) return;
    const before = rangesOf(this.map);
    if (this.map.setThroughput(throughput, this.#measure(txn))) this.#layoutChanged(before);
    if (this.#dirty) this.#save(txn);
  }

  /**
   * Partitions split: the admission state of the partitions that are gone is dropped, and what
   * their GSI backlogs still held is spread over the partitions now owning their ranges.
   */
  #layoutChanged(before: ReadonlyMap<number, readonly [number, number]>): void {
    this.#dirty = true;
    const capacity = this.#capacity;
    const clock = this.#clock;
    if (capacity === undefined || clock === undefined) return;
    const nowMs = clock.nowMs();
    const live = new Set(this.map.list().map((partition) => partition.id));
    for (const gone of capacity.partitions()) {
      if (live.has(gone.id)) continue;
      const left = capacity.removePartition(gone.id, nowMs);
      if (left <= 0 || capacity.kind !== 'Index') continue;
      // The children cover the parent's range: hand each an equal part of what was waiting.
      const range = before.get(gone.id);
      if (range === undefined) continue;
      const heirs = this.map.list().filter((partition) => partition.start >= range[0] && partition.end <= range[1]);
      for (const heir of heirs) capacity.enqueueIndexWrites(this.capacityAt(heir.start, nowMs), left / heirs.length, nowMs);
    }
  }

  /**
   * Saves the layout with the counts `open` measured (accounting off: removes the stale counts
   * instead), for a caller that must persist them now, in the same write as what vouches for them
   * (an LSI table's statistics record, catalog.ts), rather than at the next write.
   */
  saveMeasured(txn: WriteTransaction): void {
    if (this.#accounting) this.#save(txn);
    else {
      txn.put(layoutKey(this.resourceId), this.map.layout());
      removeCounts(txn, this.resourceId);
    }
  }

  /** The resource is gone (DeleteTable, index removal). */
  static remove(txn: WriteTransaction, resourceId: number): void {
    txn.remove(layoutKey(resourceId));
    removeCounts(txn, resourceId);
  }

  /** The layout and every partition's counts (partitions that are gone lose theirs). */
  #save(txn: WriteTransaction): void {
    txn.put(layoutKey(this.resourceId), this.map.layout());
    if (this.#accounting) {
      removeCounts(txn, this.resourceId);
      for (const partition of this.map.list()) this.#saveCounts(txn, partition);
    }
    // Every partition's counts are saved, and partitions a split replaced must not be saved again.
    this.#deferred?.clear();
    this.#dirty = false;
  }

  #saveCounts(txn: WriteTransaction, partition: Partition): void {
    const counts: SavedCounts = [partition.itemCount, partition.sizeBytes];
    txn.put(countsKey(this.resourceId, partition.id), counts);
  }
}

/** Each partition's hash range by id, to know what a split's children inherit. */
function rangesOf(map: PartitionMap): Map<number, readonly [number, number]> {
  return new Map(map.list().map((partition) => [partition.id, [partition.start, partition.end] as const]));
}

function sameThroughput(left: Throughput, right: Throughput): boolean {
  if (left.mode === 'on-demand' || right.mode === 'on-demand') return left.mode === right.mode;
  return left.readUnitsPerSecond === right.readUnitsPerSecond && left.writeUnitsPerSecond === right.writeUnitsPerSecond;
}

/**
 * Splits an oversized partition where its data divides evenly, then any child still over the
 * limit (one key may hold most of the data). A partition whose data is all under one key hash is
 * marked instead. Returns whether the layout changed.
 */
function splitToFit(map: PartitionMap, view: ReadView, stored: readonly Buffer[], oversized: Partition): boolean {
  let changed = false;
  const pending = [oversized];
  while (pending.length > 0) {
    const partition = pending.pop()!;
    if (!map.isOversized(partition)) continue;
    const plan = planSplit(view, stored, partition.start, partition.end);
    if (plan.kind === 'whole') {
      map.markUnsplittable(partition, plan.hash);
      continue;
    }
    const children = map.split(partition, (start) => (start === partition.start ? plan.low : plan.high), plan.at);
    if (children === undefined) continue;
    changed = true;
    pending.push(...children);
  }
  return changed;
}

/**
 * Sizes of data that is not stored (flow fidelity: a scenario's items exist only as counts):
 * what a hash range holds, and where its bytes divide evenly.
 */
export interface SizeSource {
  readonly measure: MeasureRange;
  /** The key hash in (start, end) that balances the range's bytes, or undefined when one key hash holds them all (returned as `whole`). */
  splitPoint(start: number, end: number): { readonly at: number } | { readonly whole: number };
}

/** splitToFit with sizes from a SizeSource. */
function splitSourceToFit(map: PartitionMap, sizes: SizeSource, oversized: Partition): boolean {
  let changed = false;
  const pending = [oversized];
  for (let splits = 0; pending.length > 0 && splits < SOURCE_SPLITS_MAX; splits++) {
    const partition = pending.pop()!;
    if (!map.isOversized(partition)) continue;
    const point = sizes.splitPoint(partition.start, partition.end);
    if ('whole' in point) {
      map.markUnsplittable(partition, point.whole);
      continue;
    }
    const children = map.split(partition, sizes.measure, point.at);
    if (children === undefined) continue;
    changed = true;
    pending.push(...children);
  }
  return changed;
}

/** Splits one oversized partition may need at most (each halves its bytes; 64 is far past any table). */
const SOURCE_SPLITS_MAX = 64;

interface RangeFigures {
  itemCount: number;
  sizeBytes: number;
}

type SplitPlan =
  | { readonly kind: 'split'; readonly at: number; readonly low: RangeFigures; readonly high: RangeFigures }
  | { readonly kind: 'whole'; readonly hash: number };

/** Per key hash in a range, in hash order: how many items and how many bytes (items and LSI entries). */
interface HashGroups {
  readonly hashes: number[];
  readonly counts: number[];
  readonly sizes: number[];
}

/** The groups of one prefix's values in [start, end); `counted` says whether they are items (else LSI entries: bytes only). */
function scanGroups(view: ReadView, prefix: Buffer, start: number, end: number, counted: boolean): HashGroups {
  // Stored keys are in hash order, so values of one key hash are consecutive.
  const groups: HashGroups = { hashes: [], counts: [], sizes: [] };
  for (const entry of view.range(hashRange(prefix, start, end))) {
    const hash = decodeItemKeyHash(entry.key, prefix.length);
    const size = itemSize(entry.value as AttributeMap);
    const last = groups.hashes.length - 1;
    if (last >= 0 && groups.hashes[last] === hash) {
      groups.counts[last]! += counted ? 1 : 0;
      groups.sizes[last]! += size;
    } else {
      groups.hashes.push(hash);
      groups.counts.push(counted ? 1 : 0);
      groups.sizes.push(size);
    }
  }
  return groups;
}

/** Two hash-ordered group lists as one (a key hash in both adds up). */
function mergeGroups(left: HashGroups, right: HashGroups): HashGroups {
  if (right.hashes.length === 0) return left;
  const merged: HashGroups = { hashes: [], counts: [], sizes: [] };
  let l = 0;
  let r = 0;
  while (l < left.hashes.length || r < right.hashes.length) {
    const fromLeft = r >= right.hashes.length || (l < left.hashes.length && left.hashes[l]! <= right.hashes[r]!);
    const source = fromLeft ? left : right;
    const at = fromLeft ? l++ : r++;
    const last = merged.hashes.length - 1;
    if (last >= 0 && merged.hashes[last] === source.hashes[at]) {
      merged.counts[last]! += source.counts[at]!;
      merged.sizes[last]! += source.sizes[at]!;
    } else {
      merged.hashes.push(source.hashes[at]!);
      merged.counts.push(source.counts[at]!);
      merged.sizes.push(source.sizes[at]!);
    }
  }
  return merged;
}

/**
 * Where to split what is stored in [start, end) (items or entries under `stored[0]`, LSI entries
 * under the rest): at the key hash that leaves the two halves' bytes closest to equal, with at
 * least one key hash on each side. One range scan per prefix, whose figures are the children's
 * counts. 'whole' when every value has the same key hash.
 */
function planSplit(view: ReadView, stored: readonly Buffer[], start: number, end: number): SplitPlan {
  let groups = scanGroups(view, stored[0]!, start, end, true);
  for (const prefix of stored.slice(1)) groups = mergeGroups(groups, scanGroups(view, prefix, start, end, false));
  const { hashes, counts, sizes } = groups;
  let totalBytes = 0;
  for (const size of sizes) totalBytes += size;
  if (hashes.length === 1) return { kind: 'whole', hash: hashes[0]! };
  if (hashes.length === 0) {
    // The counts said oversized but the store holds nothing here (never expected): split at the
    // middle into two empty halves, which is what the scan found, so the counts are right again.
    const zero = (): RangeFigures => ({ itemCount: 0, sizeBytes: 0 });
    return { kind: 'split', at: start + Math.floor((end - start) / 2), low: zero(), high: zero() };
  }
  let bestGroup = 1;
  let bestImbalance = Infinity;
  let lowBytes = 0;
  for (let group = 1; group < hashes.length; group++) {
    lowBytes += sizes[group - 1]!;
    const imbalance = Math.abs(2 * lowBytes - totalBytes);
    if (imbalance < bestImbalance) {
      bestImbalance = imbalance;
      bestGroup = group;
    }
  }
  const low: RangeFigures = { itemCount: 0, sizeBytes: 0 };
  const high: RangeFigures = { itemCount: 0, sizeBytes: 0 };
  for (let group = 0; group < hashes.length; group++) {
    const side = group < bestGroup ? low : high;
    side.itemCount += counts[group]!;
    side.sizeBytes += sizes[group]!;
  }
  return { kind: 'split', at: hashes[bestGroup]!, low, high };
}

/** Counts the items under `stored[0]` and sizes every value under `stored` whose key hash lies in [start, end). */
function measureWith(view: ReadView, stored: readonly Buffer[]): MeasureRange {
  return (start, end) => {
    let itemCount = 0;
    let sizeBytes = 0;
    stored.forEach((prefix, at) => {
      for (const entry of view.range(hashRange(prefix, start, end))) {
        if (at === 0) itemCount++;
        sizeBytes += itemSize(entry.value as AttributeMap);
      }
    });
    return { itemCount, sizeBytes };
  };
}

/** The storage keys under `prefix` whose key hash lies in [start, end). */
function hashRange(prefix: Buffer, start: number, end: number): { start: Buffer; end: Buffer } {
  return { start: hashBound(prefix, start), end: end >= HASH_SPACE ? prefixUpperBound(prefix) : hashBound(prefix, end) };
}

function hashBound(prefix: Buffer, hash: number): Buffer {
  const bound = Buffer.allocUnsafe(prefix.length + 4);
  prefix.copy(bound, 0);
  bound.writeUInt32BE(hash, prefix.length);
  return bound;
}
