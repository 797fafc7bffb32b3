/**
 * Partition history: per table or GSI, per partition, the read and write units consumed and the
 * throttle events, in time buckets on the injected clock. What the dashboard's heat map draws
 * (GET /dynatwin/tables/<t>/heatmap, server/dashboard-routes.ts).
 *
 * Resolution and retention (defaults; `PartitionHistoryOptions`):
 * - 1-second buckets for the last hour (3,600 of them): the heat map can show an hour second by
 *   second;
 * - 1-minute buckets for the last 3 hours (180), as the metrics registry keeps minutes.
 *
 * Storage: each partition that has seen traffic owns one `PartitionRings` (a ring per resolution),
 * fixed-size typed arrays allocated at its first sample: per slot the bucket number it holds and
 * four float32 sums (read units, write units, read throttles, write throttles), 20 bytes. That is
 * ≈75 KB per partition by default. Recording is O(1) and allocates nothing once the partition's
 * rings exist: the bucket of a time is `floor(nowMs / periodMs)`, its slot `bucket mod slots`, and
 * a slot still holding an older bucket is reset in place (no sweep, so an idle hour costs nothing);
 * a sample of the bucket last written (the steady path) skips even that arithmetic.
 *
 * Bounds: at most `partitionsMaxPerResource` partitions per table or GSI and `partitionsMax` in
 * all; samples of a partition past either bound are discarded and counted (`rejectedSamples`).
 * `forget(id)` (a partition that split) returns its rings to a pool that the next new partition
 * reuses, so memory never exceeds `memoryBoundBytes` (≈77 MB by default, reached only with 1,024
 * partitions that all had traffic).
 *
 * What the caller (the admission step) does, per table or GSI:
 *   const history = telemetry.partitionHistory.resource(table, index);   // once; keep it
 *   history.record(partitionId, 'write', units, nowMs);     // units admitted on the partition
 *   history.recordSpan(partitionId, 'write', units, fromMs, toMs);   // units consumed over a span
 *                                                           // (a GSI backlog drained lazily)
 *   history.recordThrottle(partitionId, 'write', nowMs);    // one throttle event
 *   history.forget(partitionId);                            // the partition split (or went away)
 * and `dropTable` / `dropIndex` when a table or GSI is deleted (Telemetry does it with its own).
 */
import { bucketSpanEnd, bucketSpanStart, MINUTE_MS, SECOND_MS } from './series.js';

export type HistoryDirection = 'read' | 'write';
export type HistoryPeriodSeconds = 1 | 60;

export interface PartitionHistoryOptions {
  /** How long 1-second buckets are kept: whole seconds, 1 minute to 3 hours. */
  readonly secondRetentionMs: number;
  /** How long 1-minute buckets are kept: whole minutes, 1 minute to 24 hours. */
  readonly minuteRetentionMs: number;
  /** Partitions with history per table or GSI (1 to 65,536). */
  readonly partitionsMaxPerResource: number;
  /** Partitions with history in all (1 to 65,536). */
  readonly partitionsMax: number;
}

export const DEFAULT_PARTITION_HISTORY_OPTIONS: PartitionHistoryOptions = Object.freeze({
  secondRetentionMs: 60 * MINUTE_MS,
  minuteRetentionMs: 3 * 60 * MINUTE_MS,
  partitionsMaxPerResource: 256,
  partitionsMax: 1024,
});

/** Float32 sums per slot: read units, write units, read throttles, write throttles. */
const FIELDS = 4;
const READ_UNITS = 0;
const WRITE_UNITS = 1;
const READ_THROTTLES = 2;
const WRITE_THROTTLES = 3;
/** Bytes per slot: four float32 sums and a uint32 bucket stamp. */
const BYTES_PER_SLOT = FIELDS * Float32Array.BYTES_PER_ELEMENT + Uint32Array.BYTES_PER_ELEMENT;
/** Stamps are bucket + 1 in a uint32 (0 = never used): seconds since the epoch fit until 2106. */
const STAMP_MAX = 0xffff_ffff;
const PARTITIONS_LIMIT = 65_536;

/** One resolution of one partition: `slots` buckets of `periodMs`. */
class HistoryRing {
  readonly periodMs: number;
  readonly slots: number;
  /** bucket + 1 of the bucket each slot holds; 0 for a slot never used. */
  readonly stamps: Uint32Array;
  /** FIELDS sums per slot, slot-major. */
  readonly sums: Float32Array;

  constructor(periodMs: number, slots: number) {
    this.periodMs = periodMs;
    this.slots = slots;
    this.stamps = new Uint32Array(slots);
    this.sums = new Float32Array(slots * FIELDS);
  }

  /**
   * The newest bucket's stamp, the index of its first sum, and a span of times known to fall in
   * it (its whole period, as in series.ts BucketRing: the bucket of a time never decreases as the
   * time grows): the steady path (samples of the current second or minute) skips the division and
   * the floating-point modulo. Invariant: the slot holds that stamp (only a newer bucket may
   * replace a slot's, and that one becomes the newest); clear() forgets it.
   */
  #newestStamp = 0;
  #newestBase = 0;
  #newestFromMs = Infinity;
  #newestToMs = -Infinity;

  add(field: number, value: number, nowMs: number): void {
    if (nowMs >= this.#newestFromMs && nowMs <= this.#newestToMs) {
      this.sums[this.#newestBase + field]! += value;
      return;
    }
    const bucket = Math.floor(nowMs / this.periodMs);
    const stamp = bucket + 1;
    if (!(stamp > 0 && stamp < STAMP_MAX)) return;
    const slot = bucket % this.slots;
    const held = this.stamps[slot]!;
    const base = slot * FIELDS;
    if (held !== stamp) {
      // A newer bucket in the slot: this sample is older than the retention.
      if (held > stamp) return;
      this.stamps[slot] = stamp;
      this.sums[base] = 0;
      this.sums[base + 1] = 0;
      this.sums[base + 2] = 0;
      this.sums[base + 3] = 0;
    }
    this.sums[base + field]! += value;
    if (stamp === this.#newestStamp) {
      if (nowMs < this.#newestFromMs) this.#newestFromMs = nowMs;
      if (nowMs > this.#newestToMs) this.#newestToMs = nowMs;
    } else if (stamp > this.#newestStamp) {
      this.#newestStamp = stamp;
      this.#newestBase = base;
      this.#newestFromMs = bucketSpanStart(bucket, this.periodMs, nowMs);
      this.#newestToMs = bucketSpanEnd(bucket, this.periodMs, nowMs);
    }
  }

  /** The sum of `field` in bucket number `bucket`; 0 when the slot holds another bucket. */
  read(field: number, bucket: number): number {
    const slot = bucket % this.slots;
    return this.stamps[slot] === bucket + 1 ? this.sums[slot * FIELDS + field]! : 0;
  }

  /** `perMs` units per ms over [fromMs, toMs), bucket by bucket; the part before the retention is dropped. */
  addSpan(field: number, perMs: number, fromMs: number, toMs: number): void {
    // The span's last bucket holds the instant just before toMs.
    const lastBucket = Math.ceil(toMs / this.periodMs) - 1;
    const retentionStartMs = (lastBucket - this.slots + 1) * this.periodMs;
    let startMs = Math.max(fromMs, retentionStartMs);
    while (startMs < toMs) {
      const endMs = Math.min(toMs, (Math.floor(startMs / this.periodMs) + 1) * this.periodMs);
      this.add(field, perMs * (endMs - startMs), startMs);
      startMs = endMs;
    }
  }

  clear(): void {
    this.stamps.fill(0);
    this.sums.fill(0);
    this.#newestStamp = 0;
    this.#newestBase = 0;
    this.#newestFromMs = Infinity;
    this.#newestToMs = -Infinity;
  }
}

/** Both resolutions of one partition. */
class PartitionRings {
  readonly seconds: HistoryRing;
  readonly minutes: HistoryRing;

  constructor(secondSlots: number, minuteSlots: number) {
    this.seconds = new HistoryRing(SECOND_MS, secondSlots);
    this.minutes = new HistoryRing(MINUTE_MS, minuteSlots);
  }

  add(field: number, value: number, nowMs: number): void {
    this.seconds.add(field, value, nowMs);
    this.minutes.add(field, value, nowMs);
  }

  ring(periodSeconds: HistoryPeriodSeconds): HistoryRing {
    return periodSeconds === 1 ? this.seconds : this.minutes;
  }
}

/** One partition's buckets, columnar: element i is the bucket starting at `startMs + i × period`. */
export interface PartitionHistorySeries {
  readonly id: number;
  readonly readUnits: number[];
  readonly writeUnits: number[];
  readonly readThrottles: number[];
  readonly writeThrottles: number[];
}

export interface PartitionHistoryQueryResult {
  readonly periodSeconds: HistoryPeriodSeconds;
  /** The start of the first bucket (epoch ms, a multiple of the period). */
  readonly startMs: number;
  /** How many buckets each partition's arrays hold (0 when the range holds none). */
  readonly bucketCount: number;
  /** Partitions that have history, by id; every bucket is there, 0 where nothing happened. */
  readonly partitions: readonly PartitionHistorySeries[];
}

/** What every resource of one holder shares: the options, the global bound and the ring pool. */
class RingBudget {
  readonly options: PartitionHistoryOptions;
  readonly secondSlots: number;
  readonly minuteSlots: number;
  inUse = 0;
  rejected = 0;
  readonly #pool: PartitionRings[] = [];

  constructor(options: PartitionHistoryOptions) {
    this.options = options;
    this.secondSlots = options.secondRetentionMs / SECOND_MS;
    this.minuteSlots = options.minuteRetentionMs / MINUTE_MS;
  }

  get bytesPerPartition(): number {
    return (this.secondSlots + this.minuteSlots) * BYTES_PER_SLOT;
  }

  /** Rings for a new partition, or undefined past the global bound. */
  take(): PartitionRings | undefined {
    if (this.inUse >= this.options.partitionsMax) return undefined;
    this.inUse++;
    const reused = this.#pool.pop();
    if (reused === undefined) return new PartitionRings(this.secondSlots, this.minuteSlots);
    reused.seconds.clear();
    reused.minutes.clear();
    return reused;
  }

  give(rings: PartitionRings): void {
    this.inUse--;
    this.#pool.push(rings);
  }

  /** Rings allocated, in use or pooled. */
  get allocated(): number {
    return this.inUse + this.#pool.length;
  }
}

/** The history of one table's or one GSI's partitions. Get it from PartitionHistories.resource. */
export class PartitionHistory {
  readonly table: string;
  readonly index: string | undefined;
  readonly #budget: RingBudget;
  readonly #partitions = new Map<number, PartitionRings>();
  #dropped = false;
  /** The partition recorded last and its rings (a request stream mostly hits the same few); NaN for none, as it equals no id. */
  #lastId = Number.NaN;
  #lastRings: PartitionRings | undefined;

  /** Use PartitionHistories.resource. */
  constructor(table: string, index: string | undefined, budget: RingBudget) {
    this.table = table;
    this.index = index;
    this.#budget = budget;
  }

  /** Units consumed (admitted) on a partition at `nowMs`. */
  record(partitionId: number, direction: HistoryDirection, units: number, nowMs: number): void {
    if (!checkUnits(units)) return;
    this.#ringsOf(partitionId)?.add(direction === 'read' ? READ_UNITS : WRITE_UNITS, units, nowMs);
  }

  /**
   * Units consumed evenly over [fromMs, toMs): spread over the buckets the span covers, e.g. a GSI
   * backlog drain computed lazily for the time since the last look. O(buckets spanned), at most
   * each ring's slots; what falls before a ring's retention is dropped.
   */
  recordSpan(partitionId: number, direction: HistoryDirection, units: number, fromMs: number, toMs: number): void {
    if (!(toMs > fromMs)) {
      this.record(partitionId, direction, units, toMs);
      return;
    }
    if (!checkUnits(units)) return;
    const rings = this.#ringsOf(partitionId);
    if (rings === undefined) return;
    const field = direction === 'read' ? READ_UNITS : WRITE_UNITS;
    const perMs = units / (toMs - fromMs);
    rings.seconds.addSpan(field, perMs, fromMs, toMs);
    rings.minutes.addSpan(field, perMs, fromMs, toMs);
  }

  /** Throttle events on a partition (one per refused demand, by default). */
  recordThrottle(partitionId: number, direction: HistoryDirection, nowMs: number, events = 1): void {
    if (!(events > 0)) return;
    this.#ringsOf(partitionId)?.add(direction === 'read' ? READ_THROTTLES : WRITE_THROTTLES, events, nowMs);
  }

  /** The partition is gone (it split): its history goes, and its rings go back to the pool. */
  forget(partitionId: number): void {
    const rings = this.#partitions.get(partitionId);
    if (rings === undefined) return;
    this.#partitions.delete(partitionId);
    if (partitionId === this.#lastId) this.#forgetLast();
    this.#budget.give(rings);
  }

  /** Partition ids with history, ascending. */
  partitionIds(): number[] {
    return [...this.#partitions.keys()].sort((a, b) => a - b);
  }

  has(partitionId: number): boolean {
    return this.#partitions.has(partitionId);
  }

  /** How far back a period's buckets reach, in ms. */
  retentionMsOf(periodSeconds: HistoryPeriodSeconds): number {
    return periodSeconds === 1 ? this.#budget.options.secondRetentionMs : this.#budget.options.minuteRetentionMs;
  }

  /**
   * The buckets starting in [startMs, endMs] of every partition with history (or of `ids` only),
   * at most the retention's worth (the latest ones), oldest first.
   */
  query(periodSeconds: HistoryPeriodSeconds, startMs: number, endMs: number, ids?: Iterable<number>): PartitionHistoryQueryResult {
    if (periodSeconds !== 1 && periodSeconds !== 60) throw new RangeError('periodSeconds must be 1 or 60');
    const periodMs = periodSeconds * SECOND_MS;
    const slots = periodSeconds === 1 ? this.#budget.secondSlots : this.#budget.minuteSlots;
    const last = Math.floor(endMs / periodMs);
    const first = Math.max(Math.ceil(startMs / periodMs), last - slots + 1);
    const bucketCount = Math.max(0, last - first + 1);
    const partitions: PartitionHistorySeries[] = [];
    const wanted = ids === undefined ? this.partitionIds() : [...ids];
    for (const id of wanted) {
      const rings = this.#partitions.get(id);
      if (rings === undefined) continue;
      const ring = rings.ring(periodSeconds);
      const series: PartitionHistorySeries = {
        id,
        readUnits: new Array<number>(bucketCount),
        writeUnits: new Array<number>(bucketCount),
        readThrottles: new Array<number>(bucketCount),
        writeThrottles: new Array<number>(bucketCount),
      };
      for (let column = 0; column < bucketCount; column++) {
        const bucket = first + column;
        series.readUnits[column] = ring.read(READ_UNITS, bucket);
        series.writeUnits[column] = ring.read(WRITE_UNITS, bucket);
        series.readThrottles[column] = ring.read(READ_THROTTLES, bucket);
        series.writeThrottles[column] = ring.read(WRITE_THROTTLES, bucket);
      }
      partitions.push(series);
    }
    return { periodSeconds, startMs: first * periodMs, bucketCount, partitions };
  }

  /** Bytes of buckets this resource holds. */
  get bytes(): number {
    return this.#partitions.size * this.#budget.bytesPerPartition;
  }

  /** @internal The holder dropped the resource: release its rings; later samples are discarded. */
  release(): void {
    for (const rings of this.#partitions.values()) this.#budget.give(rings);
    this.#partitions.clear();
    this.#forgetLast();
    this.#dropped = true;
  }

  #forgetLast(): void {
    this.#lastId = Number.NaN;
    this.#lastRings = undefined;
  }

  #ringsOf(partitionId: number): PartitionRings | undefined {
    if (partitionId === this.#lastId) return this.#lastRings;
    const existing = this.#partitions.get(partitionId);
    if (existing !== undefined) {
      this.#lastId = partitionId;
      this.#lastRings = existing;
      return existing;
    }
    if (this.#dropped) return undefined;
    if (!Number.isInteger(partitionId) || partitionId < 0) throw new RangeError(`partition history: a partition id is an integer >= 0, got ${partitionId}`);
    const rings = this.#partitions.size < this.#budget.options.partitionsMaxPerResource ? this.#budget.take() : undefined;
    if (rings === undefined) {
      this.#budget.rejected++;
      return undefined;
    }
    this.#partitions.set(partitionId, rings);
    this.#lastId = partitionId;
    this.#lastRings = rings;
    return rings;
  }
}

/**
 * Every table's and GSI's partition history in one engine (the Engine's
 * `telemetry.partitionHistory`), keyed by table name and, for a GSI, index name.
 */
export class PartitionHistories {
  readonly options: PartitionHistoryOptions;
  readonly #budget: RingBudget;
  /** table → (index name, '' for the table itself) → history. */
  readonly #tables = new Map<string, Map<string, PartitionHistory>>();

  constructor(options: Partial<PartitionHistoryOptions> = {}) {
    this.options = checkOptions({ ...DEFAULT_PARTITION_HISTORY_OPTIONS, ...options });
    this.#budget = new RingBudget(this.options);
  }

  /** The history of a table (no index) or of one of its GSIs, created on first use. Keep the handle. */
  resource(table: string, index?: string): PartitionHistory {
    let resources = this.#tables.get(table);
    if (resources === undefined) this.#tables.set(table, (resources = new Map()));
    const key = index ?? '';
    let history = resources.get(key);
    if (history === undefined) resources.set(key, (history = new PartitionHistory(table, index, this.#budget)));
    return history;
  }

  /** The history of a table or GSI if it exists; never creates one. */
  find(table: string, index?: string): PartitionHistory | undefined {
    return this.#tables.get(table)?.get(index ?? '');
  }

  /** A table was deleted: its history and its GSIs' go (handles still held discard samples). */
  dropTable(table: string): void {
    const resources = this.#tables.get(table);
    if (resources === undefined) return;
    for (const history of resources.values()) history.release();
    this.#tables.delete(table);
  }

  /** A GSI was deleted. */
  dropIndex(table: string, index: string): void {
    const resources = this.#tables.get(table);
    const history = resources?.get(index);
    if (resources === undefined || history === undefined) return;
    history.release();
    resources.delete(index);
  }

  /** Samples discarded because their partition was past a bound (per resource or in all). */
  get rejectedSamples(): number {
    return this.#budget.rejected;
  }

  /** Partitions holding history now. */
  get partitionCount(): number {
    return this.#budget.inUse;
  }

  /** Bytes of rings allocated (in use or pooled for reuse). */
  get bytes(): number {
    return this.#budget.allocated * this.#budget.bytesPerPartition;
  }

  /** The most bytes the rings can take: every allowed partition with history. */
  get memoryBoundBytes(): number {
    return this.options.partitionsMax * this.#budget.bytesPerPartition;
  }
}

/** False for 0 (nothing to record); throws for a negative, NaN or infinite amount (a caller bug). */
function checkUnits(units: number): boolean {
  if (units > 0 && units !== Infinity) return true;
  if (units === 0) return false;
  throw new RangeError(`partition history: units must be a finite number >= 0, got ${units}`);
}

function checkOptions(options: PartitionHistoryOptions): PartitionHistoryOptions {
  const { secondRetentionMs, minuteRetentionMs, partitionsMaxPerResource, partitionsMax } = options;
  if (!Number.isInteger(secondRetentionMs) || secondRetentionMs % SECOND_MS !== 0 || secondRetentionMs < MINUTE_MS || secondRetentionMs > 3 * 60 * MINUTE_MS) {
    throw new RangeError('secondRetentionMs must be whole seconds between 1 minute and 3 hours');
  }
  if (!Number.isInteger(minuteRetentionMs) || minuteRetentionMs % MINUTE_MS !== 0 || minuteRetentionMs < MINUTE_MS || minuteRetentionMs > 24 * 60 * MINUTE_MS) {
    throw new RangeError('minuteRetentionMs must be whole minutes between 1 minute and 24 hours');
  }
  for (const [name, value] of [
    ['partitionsMaxPerResource', partitionsMaxPerResource],
    ['partitionsMax', partitionsMax],
  ] as const) {
    if (!Number.isInteger(value) || value < 1 || value > PARTITIONS_LIMIT) throw new RangeError(`${name} must be an integer between 1 and ${PARTITIONS_LIMIT}`);
  }
  return Object.freeze({ ...options });
}
