/**
 * One metric series (a metric for one table, GSI or operation) and its datapoints: fixed-size rings
 * of 1-second and 1-minute buckets on the injected clock, each bucket holding CloudWatch's
 * statistics (Sum, Minimum, Maximum, SampleCount; Average = Sum / SampleCount).
 *
 * Recording is O(1) and allocates nothing once the rings exist: the bucket of a time is
 * `floor(nowMs / periodMs)`, its slot `bucket mod slots`, and a slot still holding an older bucket
 * is reset in place; a sample of the bucket last written (the steady path) skips even that
 * arithmetic (BucketRing.record). The rings are allocated at the first sample, so series resolved
 * but never recorded (most throttle reasons, most operations) cost a few fields.
 */
import type { MetricDefinition, OperationName } from './catalog.js';

/** One period of a series, as CloudWatch's GetMetricStatistics reports it. */
export interface Datapoint {
  /** The start of the period, ISO 8601 (UTC). */
  readonly Timestamp: string;
  readonly Sum: number;
  readonly Average: number;
  readonly Minimum: number;
  readonly Maximum: number;
  readonly SampleCount: number;
}

/** The statistics of one bucket, with its start in epoch ms. */
export interface BucketStatistics {
  readonly startMs: number;
  readonly sum: number;
  readonly minimum: number;
  readonly maximum: number;
  readonly sampleCount: number;
}

/** A slot's fields in a ring's array: bucket number, Sum, Minimum, Maximum, SampleCount. */
const BUCKET = 0;
const SUM = 1;
const MINIMUM = 2;
const MAXIMUM = 3;
const COUNT = 4;
const SLOT_FIELDS = 5;

/** A ring of `slots` buckets of `periodMs` each: the last `slots` periods of one series. */
export class BucketRing {
  readonly periodMs: number;
  readonly slots: number;
  /**
   * SLOT_FIELDS float64 per slot, slot-major, so that a sample touches one or two cache lines: the
   * bucket number (`floor(ms / periodMs)`) the slot holds (-1 for a slot never used), then the
   * slot's statistics.
   */
  readonly #data: Float64Array;

  constructor(periodMs: number, slots: number) {
    if (!Number.isInteger(periodMs) || periodMs <= 0) throw new RangeError('periodMs must be a positive integer');
    if (!Number.isInteger(slots) || slots <= 0) throw new RangeError('slots must be a positive integer');
    this.periodMs = periodMs;
    this.slots = slots;
    this.#data = new Float64Array(slots * SLOT_FIELDS);
    for (let slot = 0; slot < slots; slot++) this.#data[slot * SLOT_FIELDS + BUCKET] = -1;
  }

  /**
   * The newest bucket recorded, where its slot's fields start, and a span of times known to fall
   * in it. The bucket of a time, `floor(ms / periodMs)`, never decreases as ms grows, so every time
   * between two times of one bucket is in that bucket too: the span is the bucket's whole period
   * (its ends checked with that same formula, see `bucketSpanStart`), and the steady path (samples
   * of the current second or minute) finds its slot with two comparisons instead of a division and
   * a floating-point modulo. Invariant: the slot holds the bucket (only a newer bucket may replace
   * a slot's, and that one becomes the newest).
   */
  #newestBucket = -Infinity;
  #newestBase = 0;
  #newestFromMs = Infinity;
  #newestToMs = -Infinity;

  /** Adds one sample. A sample older than every slot's bucket (later than the ring's span) is dropped. */
  record(value: number, nowMs: number): void {
    const data = this.#data;
    let base: number;
    if (nowMs >= this.#newestFromMs && nowMs <= this.#newestToMs) {
      base = this.#newestBase;
    } else {
      const bucket = Math.floor(nowMs / this.periodMs);
      const slot = bucket % this.slots;
      // A negative slot (a time before 1970) stores nothing, as no index of it is in the array.
      base = slot * SLOT_FIELDS;
      const held = data[base + BUCKET]!;
      if (held !== bucket) {
        // A newer bucket in the slot means this sample is older than the retention: nowhere to go.
        if (held > bucket) return;
        data[base + BUCKET] = bucket;
        data[base + SUM] = value;
        data[base + MINIMUM] = value;
        data[base + MAXIMUM] = value;
        data[base + COUNT] = 1;
        this.#noteBucket(bucket, slot, nowMs);
        return;
      }
      this.#noteBucket(bucket, slot, nowMs);
    }
    data[base + SUM]! += value;
    if (value < data[base + MINIMUM]!) data[base + MINIMUM] = value;
    if (value > data[base + MAXIMUM]!) data[base + MAXIMUM] = value;
    data[base + COUNT]! += 1;
  }

  /**
   * Adds `value` accrued evenly over (fromMs, toMs]: each bucket the span covers (within the
   * retention) gets one sample of its share. Shares are cut on a grid of 1/1024 unit, the last one
   * taking the rest, so that they add up to `value` exactly in floating point (totals stay equal to
   * the units counted elsewhere). O(buckets covered), at most `slots`.
   */
  recordSpan(value: number, fromMs: number, toMs: number): void {
    const period = this.periodMs;
    const lastBucket = Math.floor(toMs / period);
    const firstBucket = Math.floor(fromMs / period);
    if (!(toMs > fromMs) || firstBucket === lastBucket) {
      this.record(value, toMs);
      return;
    }
    const span = toMs - fromMs;
    // What the span accrued up to a time, on the grid.
    const accruedBy = (ms: number): number => Math.round(((value * (ms - fromMs)) / span) * SPAN_GRID) / SPAN_GRID;
    const firstKept = Math.max(firstBucket, lastBucket - this.slots + 1);
    // Buckets before the retention hold nothing: their shares go to no one.
    let given = firstKept > firstBucket ? accruedBy(firstKept * period) : 0;
    for (let bucket = firstKept; bucket < lastBucket; bucket++) {
      const upTo = accruedBy((bucket + 1) * period);
      if (upTo > given) this.record(upTo - given, Math.max(fromMs, bucket * period));
      given = Math.max(given, upTo);
    }
    const rest = value - given;
    if (rest > 0) this.record(rest, toMs);
  }

  /** Keeps the newest bucket's slot and time span current after a sample was stored in `bucket`. */
  #noteBucket(bucket: number, slot: number, nowMs: number): void {
    if (bucket === this.#newestBucket) {
      if (nowMs < this.#newestFromMs) this.#newestFromMs = nowMs;
      if (nowMs > this.#newestToMs) this.#newestToMs = nowMs;
    } else if (bucket > this.#newestBucket && slot >= 0) {
      this.#newestBucket = bucket;
      this.#newestBase = slot * SLOT_FIELDS;
      this.#newestFromMs = bucketSpanStart(bucket, this.periodMs, nowMs);
      this.#newestToMs = bucketSpanEnd(bucket, this.periodMs, nowMs);
    }
  }

  /** The statistics of bucket number `bucket`, or undefined when it has no sample (or was overwritten). */
  read(bucket: number): BucketStatistics | undefined {
    const base = (bucket % this.slots) * SLOT_FIELDS;
    const data = this.#data;
    if (data[base + BUCKET] !== bucket) return undefined;
    return {
      startMs: bucket * this.periodMs,
      sum: data[base + SUM]!,
      minimum: data[base + MINIMUM]!,
      maximum: data[base + MAXIMUM]!,
      sampleCount: data[base + COUNT]!,
    };
  }

  /**
   * The buckets with samples whose start lies in [fromMs, toMs], oldest first, limited to the
   * retention (the `slots` periods ending with the one holding `nowMs`).
   */
  range(fromMs: number, toMs: number, nowMs: number): BucketStatistics[] {
    const nowBucket = Math.floor(nowMs / this.periodMs);
    const first = Math.max(Math.ceil(fromMs / this.periodMs), nowBucket - this.slots + 1);
    const last = Math.min(Math.floor(toMs / this.periodMs), nowBucket);
    const found: BucketStatistics[] = [];
    for (let bucket = first; bucket <= last; bucket++) {
      const statistics = this.read(bucket);
      if (statistics !== undefined) found.push(statistics);
    }
    return found;
  }

  /** Bytes held by the ring's array: five float64 per slot. */
  get bytes(): number {
    return this.slots * SLOT_FIELDS * Float64Array.BYTES_PER_ELEMENT;
  }
}

/** Spread shares are multiples of 1/SPAN_GRID unit (a power of two, so they add exactly). */
const SPAN_GRID = 1024;

/**
 * How far inside a bucket's end the span of `bucketSpanEnd` stops: a time within a few ulps of the
 * end could round to the next bucket in `ms / periodMs`. Integer times (Date.now) are never there.
 */
const BUCKET_EDGE_MS = 1e-3;

/**
 * The earliest time of `bucket` that a bucket ring's fast path may trust: the bucket's start when
 * `floor(start / periodMs)` gives the bucket (always, for integer periods), else `nowMs` (a time
 * known to be in it). Any time between this and `bucketSpanEnd` is in the bucket, as the bucket
 * of a time never decreases as the time grows.
 */
export function bucketSpanStart(bucket: number, periodMs: number, nowMs: number): number {
  const startMs = bucket * periodMs;
  return startMs <= nowMs && Math.floor(startMs / periodMs) === bucket ? startMs : nowMs;
}

/** The latest time of `bucket` a bucket ring's fast path may trust (see bucketSpanStart). */
export function bucketSpanEnd(bucket: number, periodMs: number, nowMs: number): number {
  const endMs = (bucket + 1) * periodMs - BUCKET_EDGE_MS;
  return endMs >= nowMs && Math.floor(endMs / periodMs) === bucket ? endMs : nowMs;
}

export function datapointOf(statistics: BucketStatistics): Datapoint {
  return {
    Timestamp: new Date(statistics.startMs).toISOString(),
    Sum: statistics.sum,
    Average: statistics.sum / statistics.sampleCount,
    Minimum: statistics.minimum,
    Maximum: statistics.maximum,
    SampleCount: statistics.sampleCount,
  };
}

/** What identifies a series: its metric and the dimension values the metric has. */
export interface SeriesKey {
  readonly metric: MetricDefinition['name'];
  readonly table?: string;
  /** A GSI's name, for metrics with the GlobalSecondaryIndexName dimension. */
  readonly index?: string;
  readonly operation?: OperationName;
}

/** How many buckets a series keeps at each resolution. */
export interface RingSizes {
  readonly secondSlots: number;
  readonly minuteSlots: number;
}

export const SECOND_MS = 1000;
export const MINUTE_MS = 60_000;

/**
 * A series handle: resolve it once (MetricsRegistry.series) and keep it, then `record` per event.
 * A handle of a dropped table keeps working but is no longer reachable from the registry, so
 * callers cache handles on something that goes away with the table.
 */
export class MetricSeries {
  readonly definition: MetricDefinition;
  readonly key: SeriesKey;
  /** Undefined for a series refused past the registry's bound: it accepts samples and keeps none. */
  readonly #sizes: RingSizes | undefined;
  #seconds: BucketRing | undefined;
  #minutes: BucketRing | undefined;
  #latestValue = 0;
  #latestMs = -1;

  constructor(definition: MetricDefinition, key: SeriesKey, sizes: RingSizes | undefined) {
    this.definition = definition;
    this.key = key;
    this.#sizes = sizes;
  }

  /**
   * Adds one sample (a request's units, one throttled event, a latency ...). A value that is not a
   * finite number is a caller bug and throws rather than poisoning every later Sum.
   */
  record(value: number, nowMs: number): void {
    if (!Number.isFinite(value)) throw new RangeError(`metric ${this.definition.name}: a sample must be a finite number, got ${value}`);
    if (this.#seconds === undefined || this.#minutes === undefined) {
      if (this.#sizes === undefined) return;
      this.#seconds = new BucketRing(SECOND_MS, this.#sizes.secondSlots);
      this.#minutes = new BucketRing(MINUTE_MS, this.#sizes.minuteSlots);
    }
    this.#seconds.record(value, nowMs);
    this.#minutes.record(value, nowMs);
    if (nowMs >= this.#latestMs) {
      this.#latestMs = nowMs;
      this.#latestValue = value;
    }
  }

  /**
   * Adds `value` accrued evenly over (fromMs, toMs] (a GSI backlog drained lazily over that span),
   * spread over the seconds and minutes it covers, so that no bucket counts what was served in another.
   */
  recordSpan(value: number, fromMs: number, toMs: number): void {
    if (!Number.isFinite(value)) throw new RangeError(`metric ${this.definition.name}: a sample must be a finite number, got ${value}`);
    if (this.#seconds === undefined || this.#minutes === undefined) {
      if (this.#sizes === undefined) return;
      this.#seconds = new BucketRing(SECOND_MS, this.#sizes.secondSlots);
      this.#minutes = new BucketRing(MINUTE_MS, this.#sizes.minuteSlots);
    }
    this.#seconds.recordSpan(value, fromMs, toMs);
    this.#minutes.recordSpan(value, fromMs, toMs);
    if (toMs >= this.#latestMs) {
      this.#latestMs = toMs;
      this.#latestValue = value;
    }
  }

  /** False for a series the registry refused (over its series bound): its samples are discarded. */
  get retained(): boolean {
    return this.#sizes !== undefined;
  }

  /** The ring of a period (1 or 60 seconds), or undefined before the first sample. */
  ring(periodSeconds: 1 | 60): BucketRing | undefined {
    return periodSeconds === 1 ? this.#seconds : this.#minutes;
  }

  /** The datapoints of a period between two times (see BucketRing.range), oldest first. */
  datapoints(periodSeconds: 1 | 60, fromMs: number, toMs: number, nowMs: number): Datapoint[] {
    const ring = this.ring(periodSeconds);
    return ring === undefined ? [] : ring.range(fromMs, toMs, nowMs).map(datapointOf);
  }

  /** The most recent sample and when it was taken, if the retention still covers it. */
  latest(nowMs: number, retentionMs: number): { readonly value: number; readonly atMs: number } | undefined {
    if (this.#latestMs < 0 || nowMs - this.#latestMs >= retentionMs) return undefined;
    return { value: this.#latestValue, atMs: this.#latestMs };
  }

  /** Bytes of datapoint storage this series holds (0 until its first sample). */
  get bytes(): number {
    return (this.#seconds?.bytes ?? 0) + (this.#minutes?.bytes ?? 0);
  }
}
