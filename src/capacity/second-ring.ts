/**
 * Units consumed per whole second of the injected clock, for the last minute: a ring of 61
 * one-second slots (60 complete seconds and the one being filled) with a running sum, so every
 * operation is O(1) amortized (O(seconds elapsed), at most 61 slot writes).
 *
 * Feeds the inspection API (consumed units over the last second and minute) and the on-demand
 * peak tracker (the level held through the last N seconds).
 */
import { assert } from '../errors.js';

/** Complete seconds the ring remembers. */
export const RING_SECONDS = 60;
const SLOT_COUNT = RING_SECONDS + 1;

export function secondOf(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}

export class SecondRing {
  readonly #slots = new Float64Array(SLOT_COUNT);
  /** The second the current slot collects. */
  #second: number;
  /** Sum of the slots of the RING_SECONDS complete seconds before #second. */
  #minuteUnits = 0;

  constructor(nowMs: number) {
    this.#second = secondOf(nowMs);
  }

  /** The second being filled. */
  get second(): number {
    return this.#second;
  }

  /** Moves to the second of `nowMs`; seconds that passed without a record count as zero. */
  advance(nowMs: number): void {
    const target = secondOf(nowMs);
    assert(target >= this.#second, 'time never goes back');
    if (target === this.#second) return;
    if (target - this.#second >= SLOT_COUNT) {
      // Everything in the ring is older than a minute.
      this.#slots.fill(0);
      this.#minuteUnits = 0;
      this.#second = target;
      return;
    }
    while (this.#second < target) {
      // The current second becomes complete; the slot it moves into held the second that now
      // falls out of the minute.
      this.#minuteUnits += this.#slots[slotOf(this.#second)];
      this.#second++;
      const slot = slotOf(this.#second);
      this.#minuteUnits -= this.#slots[slot];
      this.#slots[slot] = 0;
    }
    // Adding and removing doubles can leave a crumb below zero.
    if (this.#minuteUnits < 0) this.#minuteUnits = 0;
  }

  /** Adds units to the current second (call `advance` first). */
  add(units: number): void {
    assert(units >= 0 && Number.isFinite(units), 'recorded units must be finite and >= 0');
    this.#slots[slotOf(this.#second)] += units;
  }

  /** Units of a second the ring still holds (the current one included); 0 outside it. */
  unitsIn(second: number): number {
    if (second > this.#second || second <= this.#second - SLOT_COUNT) return 0;
    return this.#slots[slotOf(second)];
  }

  /** Units of the last complete second. */
  lastSecondUnits(): number {
    return this.unitsIn(this.#second - 1);
  }

  /** Units of the last RING_SECONDS complete seconds. */
  lastMinuteUnits(): number {
    return this.#minuteUnits;
  }

  /**
   * The smallest per-second total over the `seconds` seconds ending with `endSecond` (inclusive):
   * the level traffic held through all of them. O(seconds).
   */
  floorOver(endSecond: number, seconds: number): number {
    assert(Number.isInteger(seconds) && seconds >= 1 && seconds <= RING_SECONDS, `a floor spans 1 to ${RING_SECONDS} seconds`);
    let floor = Infinity;
    for (let second = endSecond - seconds + 1; second <= endSecond; second++) {
      const units = this.unitsIn(second);
      if (units < floor) floor = units;
      if (floor === 0) break;
    }
    return floor;
  }
}

function slotOf(second: number): number {
  return ((second % SLOT_COUNT) + SLOT_COUNT) % SLOT_COUNT;
}
