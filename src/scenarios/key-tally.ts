/**
 * Counts the values one partition-key attribute took, exactly while there are few of them (the
 * case findings care about: a GSI keyed by a status), and only as "many" beyond a bound, so a
 * per-item key (a UUID) costs one failed lookup per item and no memory.
 */

/** Distinct values counted exactly; past this, new values only add to `otherCount`. */
export const KEY_TALLY_VALUES_MAX = 1024;

/** Past the bound, one value in this many is counted (with this weight). */
const OVERFLOW_SAMPLE_EVERY = 16;

export interface KeyShare {
  readonly value: string;
  readonly count: number;
  readonly share: number;
}

/** A tally as plain data (it crosses from a worker thread). */
export interface KeySummary {
  readonly total: number;
  /** Undefined: more than KEY_TALLY_VALUES_MAX values. */
  readonly distinct: number | undefined;
  readonly top: readonly KeyShare[];
}

/** Values a summary lists. */
const SUMMARY_TOP_VALUES = 10;

export class KeyTally {
  readonly #counts = new Map<string, number>();
  #total = 0;
  #otherCount = 0;

  add(value: string): void {
    this.#total++;
    // Once there are many values (a per-item key), every OVERFLOW_SAMPLE_EVERY-th one is looked
    // up and stands for that many: the counts of frequent values stay close, at a fraction of
    // the cost (a lookup per item was ~5% of a simulation).
    if (this.#otherCount > 0 && this.#total % OVERFLOW_SAMPLE_EVERY !== 0) return;
    const weight = this.#otherCount > 0 ? OVERFLOW_SAMPLE_EVERY : 1;
    const count = this.#counts.get(value);
    if (count !== undefined) this.#counts.set(value, count + weight);
    else if (this.#counts.size < KEY_TALLY_VALUES_MAX) this.#counts.set(value, weight);
    else this.#otherCount += weight;
  }

  get total(): number {
    return this.#total;
  }

  /** The number of distinct values, or undefined when there were more than the bound. */
  get distinct(): number | undefined {
    return this.#otherCount > 0 ? undefined : this.#counts.size;
  }

  /** The most frequent values counted exactly, by count. */
  top(limit: number): KeyShare[] {
    const total = this.#total;
    return [...this.#counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([value, count]) => ({ value, count, share: total === 0 ? 0 : count / total }));
  }

  summary(): KeySummary {
    return { total: this.#total, distinct: this.distinct, top: this.top(SUMMARY_TOP_VALUES) };
  }
}
