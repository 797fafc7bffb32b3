/**
 * Partition maps: how a table (or a GSI) is split into partitions, each owning a contiguous range
 * of the 32-bit partition-key hash (the same hash that orders items in the store, so a partition
 * is also a contiguous key range there). Reference: dynamodb-capacity-model.md §2.
 *
 * Two policies (`--partition-model`):
 * - classic: the 2017 model of seed article 001 — ceil(max(RCU/3000 + WCU/1000, size/limit))
 *   partitions, throughput spread evenly, doubling when a throughput increase needs more, a
 *   partition past the size limit splits in two and each child keeps half its parent's share.
 * - modern: independent per-partition ceilings of 3,000 read / 1,000 write units, so a
 *   provisioned table needs ceil(max(RCU/3000, WCU/1000)) partitions; an on-demand table starts
 *   with 4 (its 12,000 RRU / 4,000 WRU warm throughput); size splits as above.
 * Both split only, never merge: lowering throughput dilutes the partitions' shares.
 *
 * This module is pure bookkeeping. Finding a key's partition is O(1): a 65,536-entry table on the
 * top 16 bits of the hash points at the first candidate, and ranges are contiguous.
 */

export type PartitionModel = 'modern' | 'classic';

/** Per-partition ceilings (§2.1). */
export const PARTITION_READ_UNITS_MAX = 3000;
export const PARTITION_WRITE_UNITS_MAX = 1000;
/** A new on-demand table's partitions (12,000 RRU / 4,000 WRU warm throughput, §2.4). */
export const ON_DEMAND_INITIAL_PARTITIONS = 4;
/** A partition holds about 10 GB (§2.1); `--partition-size-limit` makes it small for a laptop. */
export const DEFAULT_PARTITION_SIZE_LIMIT_BYTES = 10 * 1024 ** 3;
/** The hash space: [0, 2^32). */
export const HASH_SPACE = 2 ** 32;

export type Throughput =
  | { readonly mode: 'provisioned'; readonly readUnitsPerSecond: number; readonly writeUnitsPerSecond: number }
  | { readonly mode: 'on-demand' };

export interface PartitionPolicy {
  readonly model: PartitionModel;
  /** A partition holding more than this many bytes splits in two (10 GB by default). */
  readonly sizeLimitBytes: number;
}

export interface Partition {
  readonly id: number;
  /** Inclusive start of the owned hash range. */
  readonly start: number;
  /** Exclusive end of the owned hash range (at most HASH_SPACE). */
  readonly end: number;
  /** Fraction of the table's provisioned throughput this partition is allocated. */
  readonly share: number;
  itemCount: number;
  sizeBytes: number;
  /**
   * Set while the partition is over the size limit but all its data is under this one key hash:
   * no hash range divides it (DynamoDB would split the item collection by sort key, which a map of
   * hash ranges cannot express), so it stays whole. Cleared when data under another hash arrives.
   */
  unsplittableHash?: number | undefined;
}

/** What a split needs to know about the data in a hash range: measured by the engine. */
export type MeasureRange = (start: number, end: number) => { readonly itemCount: number; readonly sizeBytes: number };

/** The persisted form: the split history, which a restart must not lose (partitions never merge). */
export interface PartitionLayout {
  readonly nextId: number;
  readonly partitions: readonly { readonly id: number; readonly start: number; readonly end: number; readonly share: number }[];
}

/** The allocated units of one partition, for the inspection API and admission. */
export interface PartitionView {
  readonly id: number;
  readonly hashRange: readonly [string, string];
  readonly itemCount: number;
  readonly sizeBytes: number;
  readonly readUnitsPerSecond: number;
  readonly writeUnitsPerSecond: number;
}

/**
 * The hash → partition index has about 16 buckets per partition (a power of two, at most 2^16):
 * a lookup then steps over a partition boundary or two at most for evenly sized partitions, and
 * an empty table's map costs a few hundred bytes, not the 256 KB of a fixed 2^16 buckets (which
 * made a thousand empty tables cost a quarter of a gigabyte).
 */
const BUCKET_BITS_MAX = 16;
const BUCKETS_PER_PARTITION_BITS = 4;

function bucketBitsFor(partitionCount: number): number {
  return Math.min(BUCKET_BITS_MAX, Math.ceil(Math.log2(Math.max(1, partitionCount))) + BUCKETS_PER_PARTITION_BITS);
}

/** How many partitions the throughput alone calls for under a policy. */
export function partitionsForThroughput(model: PartitionModel, throughput: Throughput): number {
  if (throughput.mode === 'on-demand') return ON_DEMAND_INITIAL_PARTITIONS;
  return Math.max(1, Math.ceil(partitionLoad(model, throughput) - 1e-9));
}

/**
 * A provisioned throughput in partitions' worth (classic: the reads' and writes' fractions add up;
 * modern: the larger one); 0 for on-demand, whose partitions always serve their ceilings.
 */
function partitionLoad(model: PartitionModel, throughput: Throughput): number {
  if (throughput.mode === 'on-demand') return 0;
  const reads = throughput.readUnitsPerSecond / PARTITION_READ_UNITS_MAX;
  const writes = throughput.writeUnitsPerSecond / PARTITION_WRITE_UNITS_MAX;
  return model === 'classic' ? reads + writes : Math.max(reads, writes);
}

/** How many partitions a table needs at creation (classic: the larger of throughput and size). */
export function initialPartitionCount(policy: PartitionPolicy, throughput: Throughput, sizeBytes: number): number {
  const bySize = Math.ceil(sizeBytes / policy.sizeLimitBytes);
  return Math.max(partitionsForThroughput(policy.model, throughput), bySize, 1);
}

export class PartitionMap {
  readonly policy: PartitionPolicy;
  private throughput: Throughput;
  private partitions: Partition[];
  private nextId: number;
  /** For each bucket (the hash's top `32 - bucketShift` bits), the index of the partition owning its first hash. */
  private bucketFirst = new Uint32Array(0);
  private bucketShift = 32;

  private constructor(policy: PartitionPolicy, throughput: Throughput, partitions: Partition[], nextId: number) {
    this.policy = policy;
    this.throughput = throughput;
    this.partitions = partitions;
    this.nextId = nextId;
    this.rebuildBuckets();
  }

  /** A new map with `count` partitions of equal hash ranges and equal shares. */
  static create(policy: PartitionPolicy, throughput: Throughput, count: number): PartitionMap {
    assertPositiveInteger(count, 'partition count');
    const partitions: Partition[] = [];
    for (let index = 0; index < count; index++) {
      const start = Math.floor((index * HASH_SPACE) / count);
      const end = Math.floor(((index + 1) * HASH_SPACE) / count);
      partitions.push({ id: index, start, end, share: 1 / count, itemCount: 0, sizeBytes: 0 });
    }
    return new PartitionMap(policy, throughput, partitions, count);
  }

  /** A map restored from its persisted layout; item counts and sizes come from `measure`. */
  static restore(policy: PartitionPolicy, throughput: Throughput, layout: PartitionLayout, measure: MeasureRange): PartitionMap {
    const partitions = layout.partitions.map((saved) => ({ ...saved, ...measure(saved.start, saved.end) }));
    assertTiles(partitions);
    return new PartitionMap(policy, throughput, partitions, layout.nextId);
  }

  layout(): PartitionLayout {
    return {
      nextId: this.nextId,
      partitions: this.partitions.map(({ id, start, end, share }) => ({ id, start, end, share })),
    };
  }

  get count(): number {
    return this.partitions.length;
  }

  /** The partition owning `hash` (an unsigned 32-bit value). O(1) for any realistic map. */
  partitionOf(hash: number): Partition {
    return this.partitions[this.positionOf(hash)]!;
  }

  /**
   * Records that an item under `hash` changed by `itemDelta` items and `bytesDelta` bytes.
   * Returns the partition when this change took it past the size limit and a split could divide
   * it (the caller splits it). Only growth splits: a shrinking change is recorded while its
   * transaction may already hold later changes not yet recorded, which a split would measure.
   */
  recordChange(hash: number, itemDelta: number, bytesDelta: number): Partition | undefined {
    const partition = this.partitions[this.positionOf(hash)]!;
    partition.itemCount += itemDelta;
    partition.sizeBytes += bytesDelta;
    if (partition.unsplittableHash !== undefined && partition.unsplittableHash !== hash) partition.unsplittableHash = undefined;
    return bytesDelta > 0 && this.isOversized(partition) ? partition : undefined;
  }

  /** Over the size limit, and not known to hold a single key hash (which no split divides). */
  isOversized(partition: Partition): boolean {
    return (
      partition.sizeBytes > this.policy.sizeLimitBytes && partition.end - partition.start > 1 && partition.unsplittableHash === undefined
    );
  }

  /** The partition is over the limit with all its data under `hash`: leave it whole until other data arrives. */
  markUnsplittable(partition: Partition, hash: number): void {
    partition.unsplittableHash = hash;
  }

  /**
   * Splits a partition in two at `at` (default: the middle of its hash range); each child keeps
   * half of its share (so a hot key's throughput halves: the dilution of seed article 001).
   * Returns the two children, or undefined when the range is a single hash.
   */
  split(partition: Partition, measure: MeasureRange, at?: number): readonly [Partition, Partition] | undefined {
    const index = this.partitions.indexOf(partition);
    if (index < 0) throw new Error('assertion failed: splitting a partition of another map');
    if (partition.end - partition.start < 2) return undefined;
    const middle = at ?? partition.start + Math.floor((partition.end - partition.start) / 2);
    if (!Number.isInteger(middle) || middle <= partition.start || middle >= partition.end) {
      throw new Error(`assertion failed: split point ${middle} outside partition ${partition.id}`);
    }
    const low = this.child(partition.start, middle, partition.share / 2, measure);
    const high = this.child(middle, partition.end, partition.share / 2, measure);
    this.partitions.splice(index, 1, low, high);
    this.rebuildBuckets();
    return [low, high];
  }

  /**
   * Pre-warming (warm throughput, reference §4.4): splits partitions until there are at least
   * `count`, each into pieces in proportion to its width of the hash space, so equal partitions
   * stay equal (4 → 40: each into 10). Never merges; shares are then spread evenly.
   */
  spreadTo(count: number, measure: MeasureRange): boolean {
    if (this.partitions.length >= count) return false;
    let assigned = 0;
    let cumulative = 0;
    for (const partition of [...this.partitions]) {
      cumulative += partition.end - partition.start;
      const pieces = Math.max(1, Math.round((count * cumulative) / HASH_SPACE) - assigned);
      assigned += pieces;
      const width = (partition.end - partition.start) / pieces;
      let rest: Partition = partition;
      for (let piece = 1; piece < pieces; piece++) {
        const halves = this.split(rest, measure, partition.start + Math.round(width * piece));
        if (halves === undefined) break;
        rest = halves[1];
      }
    }
    const share = 1 / this.partitions.length;
    this.partitions = this.partitions.map((partition) => ({ ...partition, share }));
    this.rebuildBuckets();
    return true;
  }

  /** Splits oversized partitions at their middle until none is over the limit (a bulk load may need several rounds). */
  splitOversized(measure: MeasureRange): void {
    for (let round = 0; round < 64; round++) {
      const oversized = this.partitions.filter((partition) => this.isOversized(partition));
      if (oversized.length === 0) return;
      for (const partition of oversized) this.split(partition, measure);
    }
  }

  /**
   * A new table throughput. When the partitions cannot serve it (too few of them, or a partition
   * whose share, left larger by size splits, exceeds one partition's ceilings), every partition
   * splits in two until they can (the doubling of §2.3); shares are then spread evenly. Never merges.
   */
  setThroughput(throughput: Throughput, measure: MeasureRange): boolean {
    this.throughput = throughput;
    // On-demand needs at least its initial partitions too: a provisioned table switched to
    // on-demand serves at least 4,000 WRU / 12,000 RRU at once (§4.3).
    const needed = partitionsForThroughput(this.policy.model, throughput);
    const load = partitionLoad(this.policy.model, throughput);
    const served = (): boolean =>
      this.partitions.length >= needed && this.partitions.every((partition) => partition.share * load <= 1 + 1e-9);
    if (served()) return false;
    while (!served()) {
      for (const partition of [...this.partitions]) this.split(partition, measure);
    }
    const share = 1 / this.partitions.length;
    this.partitions = this.partitions.map((partition) => ({ ...partition, share }));
    this.rebuildBuckets();
    return true;
  }

  /**
   * An on-demand table whose traffic set a new peak: every partition splits in two until there are
   * at least `count` (§2.4: on-demand scales by splitting partitions for consumption; §4.3: twice
   * the previous peak is admitted at once). Returns whether it split. Never merges.
   */
  growTo(count: number, measure: MeasureRange): boolean {
    if (this.partitions.length >= count) return false;
    while (this.partitions.length < count) {
      const before = this.partitions.length;
      for (const partition of [...this.partitions]) this.split(partition, measure);
      // A map of one-hash partitions cannot split further.
      if (this.partitions.length === before) break;
    }
    const share = 1 / this.partitions.length;
    this.partitions = this.partitions.map((partition) => ({ ...partition, share }));
    this.rebuildBuckets();
    return true;
  }

  get currentThroughput(): Throughput {
    return this.throughput;
  }

  /** Position of a partition in hash order (0-based), for counting partitions a range spans. */
  positionOf(hash: number): number {
    // Only a bucket split by partition boundaries needs a step or two forward.
    let index = this.bucketFirst[hash >>> this.bucketShift]!;
    while (hash >= this.partitions[index]!.end) index++;
    return index;
  }

  /** The partitions in hash order (read-only views of the live objects). */
  list(): readonly Partition[] {
    return this.partitions;
  }

  /** Allocated read units per second of a partition. */
  readUnitsOf(partition: Partition): number {
    if (this.throughput.mode === 'on-demand') return PARTITION_READ_UNITS_MAX;
    return Math.min(PARTITION_READ_UNITS_MAX, this.throughput.readUnitsPerSecond * partition.share);
  }

  /** Allocated write units per second of a partition. */
  writeUnitsOf(partition: Partition): number {
    if (this.throughput.mode === 'on-demand') return PARTITION_WRITE_UNITS_MAX;
    return Math.min(PARTITION_WRITE_UNITS_MAX, this.throughput.writeUnitsPerSecond * partition.share);
  }

  views(): PartitionView[] {
    return this.partitions.map((partition) => ({
      id: partition.id,
      hashRange: [hex32(partition.start), hex32(partition.end - 1)] as const,
      itemCount: partition.itemCount,
      sizeBytes: partition.sizeBytes,
      readUnitsPerSecond: this.readUnitsOf(partition),
      writeUnitsPerSecond: this.writeUnitsOf(partition),
    }));
  }

  private child(start: number, end: number, share: number, measure: MeasureRange): Partition {
    const measured = measure(start, end);
    return { id: this.nextId++, start, end, share, itemCount: measured.itemCount, sizeBytes: measured.sizeBytes };
  }

  private rebuildBuckets(): void {
    const bits = bucketBitsFor(this.partitions.length);
    if (this.bucketFirst.length !== 1 << bits) {
      this.bucketFirst = new Uint32Array(1 << bits);
      this.bucketShift = 32 - bits;
    }
    let index = 0;
    for (let bucket = 0; bucket < this.bucketFirst.length; bucket++) {
      const firstHash = bucket * 2 ** this.bucketShift;
      while (firstHash >= this.partitions[index]!.end) index++;
      this.bucketFirst[bucket] = index;
    }
  }
}

function hex32(value: number): string {
  return value.toString(16).padStart(8, '0');
}

function assertPositiveInteger(value: number, what: string): void {
  if (!Number.isInteger(value) || value < 1) throw new Error(`assertion failed: ${what} must be a positive integer, got ${value}`);
}

/** Partitions must tile [0, 2^32) without gaps or overlaps, in order. */
function assertTiles(partitions: readonly Partition[]): void {
  let expectedStart = 0;
  for (const partition of partitions) {
    if (partition.start !== expectedStart || partition.end <= partition.start) {
      throw new Error('assertion failed: partition ranges must tile the hash space in order');
    }
    expectedStart = partition.end;
  }
  if (expectedStart !== HASH_SPACE) throw new Error('assertion failed: partition ranges must cover the hash space');
}
