/**
 * A fixed-size log-linear latency histogram (the HdrHistogram idea, cut down). Recording is one
 * array increment with no allocation, so the load generator's own bookkeeping never competes with
 * the server under test; the price is a bounded relative error of 1/SUB_BUCKETS (< 0.8 %).
 */

/** Sub-buckets per power of two: 2^7 = 128, i.e. under 1 % relative error per bucket. */
const SUB_BITS = 7;
const SUB_BUCKETS = 1 << SUB_BITS;
/** Values below this are stored exactly (one bucket per nanosecond). */
const EXACT_LIMIT = SUB_BUCKETS * 2;
/** Largest power of two tracked: 2^40 ns is ~18 minutes, far beyond any sane request. */
const MAX_EXPONENT = 40;
const BUCKET_COUNT = EXACT_LIMIT + (MAX_EXPONENT - SUB_BITS) * SUB_BUCKETS;
const MAX_VALUE = 2 ** (MAX_EXPONENT + 1) - 1;

export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

export class LatencyHistogram {
  private readonly buckets = new Float64Array(BUCKET_COUNT);
  private total = 0;
  private sumNs = 0;
  private maxNs = 0;

  /** Records one latency given in nanoseconds (the difference of two hrtime.bigint() readings). */
  record(ns: number): void {
    const value = ns < 1 ? 1 : ns > MAX_VALUE ? MAX_VALUE : Math.floor(ns);
    this.buckets[bucketIndex(value)]++;
    this.total++;
    this.sumNs += value;
    if (value > this.maxNs) this.maxNs = value;
  }

  get count(): number {
    return this.total;
  }

  /** The latency (ns) at quantile q in [0, 1], reported as the midpoint of its bucket. */
  quantileNs(q: number): number {
    if (this.total === 0) return 0;
    const rank = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    for (let i = 0; i < BUCKET_COUNT; i++) {
      seen += this.buckets[i];
      if (seen >= rank) return Math.min(bucketMidpoint(i), this.maxNs);
    }
    return this.maxNs;
  }

  summary(): LatencySummary {
    const ms = (ns: number): number => ns / 1e6;
    return {
      count: this.total,
      p50Ms: ms(this.quantileNs(0.5)),
      p90Ms: ms(this.quantileNs(0.9)),
      p99Ms: ms(this.quantileNs(0.99)),
      p999Ms: ms(this.quantileNs(0.999)),
      maxMs: ms(this.maxNs),
      meanMs: this.total === 0 ? 0 : ms(this.sumNs / this.total),
    };
  }
}

function bucketIndex(value: number): number {
  if (value < EXACT_LIMIT) return value;
  const exponent = floorLog2(value);
  const shift = exponent - SUB_BITS;
  // mantissa is in [SUB_BUCKETS, 2 * SUB_BUCKETS): the top SUB_BITS + 1 bits of the value.
  const mantissa = Math.floor(value / 2 ** shift);
  return EXACT_LIMIT + (shift - 1) * SUB_BUCKETS + (mantissa - SUB_BUCKETS);
}

function bucketMidpoint(index: number): number {
  if (index < EXACT_LIMIT) return index;
  const offset = index - EXACT_LIMIT;
  const shift = Math.floor(offset / SUB_BUCKETS) + 1;
  const mantissa = (offset % SUB_BUCKETS) + SUB_BUCKETS;
  return (mantissa + 0.5) * 2 ** shift;
}

/** floor(log2(v)) for v >= 1, exact even above 2^32 where Math.clz32 cannot help. */
function floorLog2(value: number): number {
  if (value < 2 ** 32) return 31 - Math.clz32(value);
  let exponent = Math.floor(Math.log2(value));
  // Math.log2 may round across a power of two for huge values; nudge it back into place.
  if (2 ** exponent > value) exponent--;
  else if (2 ** (exponent + 1) <= value) exponent++;
  return exponent;
}
