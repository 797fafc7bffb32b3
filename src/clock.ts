/**
 * The only source of time in dynatwin. Everything time-dependent (capacity refills, TTL, table
 * status transitions, metrics buckets) reads an injected Clock, so a test can drive simulated
 * minutes in milliseconds of real time with a ManualClock.
 */
export interface Clock {
  readonly mode: 'real' | 'manual';
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
}

export class RealClock implements Clock {
  readonly mode = 'real' as const;
  private lastMs = -Infinity;

  /**
   * Wall-clock time that never goes back: the capacity model asserts monotonic time, and a system
   * clock stepped back (NTP) must not turn every request into a failed assertion. A step back
   * holds time still until the wall clock catches up.
   */
  nowMs(): number {
    const wallMs = Date.now();
    if (wallMs > this.lastMs) this.lastMs = wallMs;
    return this.lastMs;
  }
}

/** Called after a ManualClock moved, with the new time. */
export type AdvanceListener = (nowMs: number) => void;

export class ManualClock implements Clock {
  readonly mode = 'manual' as const;
  private currentMs: number;
  readonly #listeners = new Set<AdvanceListener>();

  constructor(startMs: number = Date.now()) {
    this.currentMs = startMs;
  }

  nowMs(): number {
    return this.currentMs;
  }

  /** Moves time forward; time never goes back, so a negative or non-finite step is a caller bug. */
  advance(deltaMs: number): number {
    if (!Number.isFinite(deltaMs) || deltaMs < 0) throw new RangeError('advanceMs must be a finite number >= 0');
    this.currentMs += deltaMs;
    // Work that falls due with time (TTL sweeps) starts here rather than on a real-time timer, so a
    // test that advances the clock never has to sleep. A copy: a listener may unsubscribe itself.
    for (const listener of [...this.#listeners]) listener(this.currentMs);
    return this.currentMs;
  }

  /**
   * Calls `listener` synchronously after every advance (a step of 0 included); answers the function
   * that unsubscribes it. Listeners must not throw: the caller of advance() is not theirs to fail.
   */
  onAdvance(listener: AdvanceListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }
}
