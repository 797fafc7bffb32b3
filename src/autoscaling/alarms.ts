/**
 * Target tracking's two alarms per policy, evaluated once per 1-minute datapoint (pure: the
 * caller hands in each minute's consumed Sum and the capacity provisioned now).
 *
 * For a target T % on capacity C (units/s), with the metric the Sum of Consumed*CapacityUnits
 * over one minute (docs/CAPACITY-MODEL.md §13 for the sources):
 * - AlarmHigh: the Sum is above T % × C × 60 for 2 consecutive datapoints → scale out;
 * - AlarmLow: the Sum is below (T − 20) % × C × 60 for 15 consecutive datapoints → scale in;
 * - either way to the capacity that brings the latest minute back to T %:
 *   ceil(Sum / 60 / (T / 100)) — 150 units/s at 70 % → 215, 300 → 429.
 * Thresholds follow the capacity: like CloudWatch, which compares the last N datapoints with the
 * threshold in force, each evaluation compares the window with the thresholds of now.
 */

export const HIGH_DATAPOINTS = 2;
export const LOW_DATAPOINTS = 15;
/** AlarmLow's threshold is this many percentage points below the target. */
export const LOW_ALARM_MARGIN_PERCENT = 20;
const SECONDS_PER_DATAPOINT = 60;

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

export function highThresholdSum(targetPercent: number, capacity: number): number {
  return (targetPercent / 100) * capacity * SECONDS_PER_DATAPOINT;
}

export function lowThresholdSum(targetPercent: number, capacity: number): number {
  return ((targetPercent - LOW_ALARM_MARGIN_PERCENT) / 100) * capacity * SECONDS_PER_DATAPOINT;
}

/**
 * The capacity whose utilization the minute's Sum puts at the target, at least 1. Computed as
 * Sum × 100 / (60 × T) so that an exact multiple stays exact (70 units/s at 70 % is 100, not
 * 100.00000000000001 → 101).
 */
export function capacityForTarget(minuteSum: number, targetPercent: number): number {
  const exact = (minuteSum * 100) / (SECONDS_PER_DATAPOINT * targetPercent);
  return Math.max(1, Math.ceil(exact - 1e-9));
}

/**
 * The last LOW_DATAPOINTS minute Sums of one policy's metric (a fixed ring: O(1) memory per
 * policy), with how many have been pushed since the policy began watching.
 */
export class DatapointWindow {
  readonly #sums = new Float64Array(LOW_DATAPOINTS);
  #count = 0;

  push(sum: number): void {
    this.#sums[this.#count % LOW_DATAPOINTS] = sum;
    this.#count++;
  }

  get count(): number {
    return this.#count;
  }

  /** The `back`-th latest Sum (0 = latest); `back` < min(count, LOW_DATAPOINTS). */
  latest(back = 0): number {
    return this.#sums[(this.#count - 1 - back) % LOW_DATAPOINTS]!;
  }

  /** Whether the `n` latest Sums all satisfy `breach`; false while fewer than `n` exist. */
  all(n: number, breach: (sum: number) => boolean): boolean {
    if (this.#count < n) return false;
    for (let back = 0; back < n; back++) if (!breach(this.latest(back))) return false;
    return true;
  }
}

export interface AlarmStates {
  readonly high: AlarmState;
  /** Undefined when the policy disables scale-in (no low alarm exists). */
  readonly low: AlarmState | undefined;
}

/**
 * The two alarms' states for the window against the thresholds of `capacity`: ALARM when the last
 * N datapoints all breach, OK once any datapoint exists otherwise (as a CloudWatch alarm that has
 * data), INSUFFICIENT_DATA before the first.
 */
export function alarmStates(window: DatapointWindow, targetPercent: number, capacity: number, disableScaleIn: boolean): AlarmStates {
  if (window.count === 0) return { high: 'INSUFFICIENT_DATA', low: disableScaleIn ? undefined : 'INSUFFICIENT_DATA' };
  const highSum = highThresholdSum(targetPercent, capacity);
  const high: AlarmState = window.all(HIGH_DATAPOINTS, (sum) => sum > highSum) ? 'ALARM' : 'OK';
  if (disableScaleIn) return { high, low: undefined };
  const lowSum = lowThresholdSum(targetPercent, capacity);
  return { high, low: window.all(LOW_DATAPOINTS, (sum) => sum < lowSum) ? 'ALARM' : 'OK' };
}
