/**
 * A token bucket refilled continuously on the injected clock's milliseconds: the one primitive
 * behind every rate in the admission model (partition allocation and burst bank, partition
 * ceiling, table-level adaptive capacity, on-demand limits). Reference:
 * dynamodb-capacity-model.md §2.4 (the paper's per-partition token buckets) and §4.1.
 *
 * Refills are `rate × elapsedMs / 1000` in doubles, so comparisons allow UNITS_EPSILON.
 */
import { assert } from '../errors.js';

/** Slack for the float error of continuous refills (a thousandth of a millionth of a unit matters to nobody). */
export const UNITS_EPSILON = 1e-6;

export class TokenBucket {
  #ratePerSecond: number;
  #capacityUnits: number;
  #tokens: number;
  #lastMs: number;

  /** A bucket holding `tokens` (at most `capacityUnits`) at `nowMs`. */
  constructor(ratePerSecond: number, capacityUnits: number, tokens: number, nowMs: number) {
    assertRate(ratePerSecond, capacityUnits);
    assert(Number.isFinite(nowMs), 'nowMs must be finite');
    this.#ratePerSecond = ratePerSecond;
    this.#capacityUnits = capacityUnits;
    this.#tokens = Math.min(tokens, capacityUnits);
    this.#lastMs = nowMs;
  }

  get ratePerSecond(): number {
    return this.#ratePerSecond;
  }

  get capacityUnits(): number {
    return this.#capacityUnits;
  }

  /** Tokens as of the last refill; negative while a demand larger than the bucket is paid back. */
  get tokens(): number {
    return this.#tokens;
  }

  get lastMs(): number {
    return this.#lastMs;
  }

  /** Adds what the rate earned since the last refill, up to the capacity. */
  refill(nowMs: number): void {
    const elapsedMs = this.#elapsedTo(nowMs);
    if (elapsedMs === 0) return;
    this.#tokens = Math.min(this.#capacityUnits, this.#tokens + (this.#ratePerSecond * elapsedMs) / 1000);
    this.#lastMs = nowMs;
  }

  /**
   * The tokens there would be at `nowMs` with no capacity cap: what a consumer draining the
   * bucket continuously since the last refill could have used (a draining bucket never fills,
   * so the cap would not have applied). Does not change the bucket; see `settle`.
   */
  accrued(nowMs: number): number {
    return this.#tokens + (this.#ratePerSecond * this.#elapsedTo(nowMs)) / 1000;
  }

  /** Ends a continuous drain computed from `accrued(nowMs)`: `tokens` left, capped. */
  settle(tokens: number, nowMs: number): void {
    this.#elapsedTo(nowMs);
    this.#tokens = Math.min(this.#capacityUnits, tokens);
    this.#lastMs = nowMs;
  }

  /**
   * Whether `units` may be taken now (after `refill`). A demand larger than the whole bucket is
   * allowed once the bucket is full and then leaves it in debt: otherwise a big transaction on a
   * small allocation could never be admitted, while the debt still keeps the long-run rate.
   */
  covers(units: number): boolean {
    if (units <= this.#tokens + UNITS_EPSILON) return true;
    return this.#capacityUnits > 0 && units > this.#capacityUnits && this.#tokens >= this.#capacityUnits - UNITS_EPSILON;
  }

  /** Whether the bucket holds `units` now, with no allowance for oversized demands: for buckets that lend. */
  holds(units: number): boolean {
    return units <= this.#tokens + UNITS_EPSILON;
  }

  /** Takes units the caller checked with `covers` (the balance may go negative only for an oversized demand). */
  take(units: number): void {
    assert(units >= 0, 'units taken must be >= 0');
    this.#tokens -= units;
  }

  /** Draws units but never below zero: for buckets that measure spare throughput rather than grant it. */
  drawClamped(units: number): void {
    assert(units >= 0, 'units drawn must be >= 0');
    this.#tokens = Math.max(0, this.#tokens - units);
  }

  /** New rate and capacity from `nowMs` on (earned tokens are kept, up to the new capacity). */
  reconfigure(ratePerSecond: number, capacityUnits: number, nowMs: number): void {
    assertRate(ratePerSecond, capacityUnits);
    this.refill(nowMs);
    this.#ratePerSecond = ratePerSecond;
    this.#capacityUnits = capacityUnits;
    this.#tokens = Math.min(this.#tokens, capacityUnits);
  }

  #elapsedTo(nowMs: number): number {
    // The message is built only on failure: this runs on every admission.
    if (!(nowMs >= this.#lastMs)) {
      assert(Number.isFinite(nowMs), 'nowMs must be finite');
      assert(false, `time never goes back (bucket at ${this.#lastMs}, asked at ${nowMs})`);
    }
    return nowMs - this.#lastMs;
  }
}

function assertRate(ratePerSecond: number, capacityUnits: number): void {
  assert(Number.isFinite(ratePerSecond) && ratePerSecond >= 0, 'a bucket rate must be finite and >= 0');
  assert(Number.isFinite(capacityUnits) && capacityUnits >= 0, 'a bucket capacity must be finite and >= 0');
}
