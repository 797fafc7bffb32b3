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

export class ManualClock implements Clock {
  readonly mode = 'manual' as const;
  private currentMs: number;

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
    return this.currentMs;
  }
}
