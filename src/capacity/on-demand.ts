/**
 * The "previous peak" of an on-demand table or GSI, per direction (reference §4.3): the resource
 * admits up to twice it per second; traffic *sustained* at a higher level becomes the new peak,
 * but only once the stretch of traffic that reached it is `promotionDelayMs` old (30 minutes), so
 * growth that more than doubles the peak within 30 minutes throttles and growth spaced over 30
 * minutes or more does not.
 *
 * "Sustained" = held through `sustainSeconds` consecutive whole seconds: the level of a stretch is
 * the smallest per-second total in it (SecondRing.floorOver). A level is promoted
 * `promotionDelayMs` after its stretch *started*, rounded down to the minute (so 29–30 minutes).
 *
 * Pending levels are kept per minute in a ring of ceil(promotionDelay / 1 min) + 2 slots (the
 * highest level whose stretch started in that minute), so memory and work are O(1) per second.
 */
import { assert } from '../errors.js';

const MINUTE_MS = 60_000;

export interface OnDemandPeakSettings {
  /** A level counts once traffic held it this many consecutive seconds (1–60). */
  readonly sustainSeconds: number;
  /** A sustained level becomes the previous peak this long after its stretch began. */
  readonly promotionDelayMs: number;
}

export class OnDemandPeak {
  #peakUnitsPerSecond: number;
  readonly #settings: OnDemandPeakSettings;
  /** Highest level per start minute, waiting for promotion; slot = minute mod length. */
  readonly #pendingByMinute: Float64Array;
  /** The oldest and newest minutes with a pending level; empty when oldest > newest. */
  #oldestMinute = 0;
  #newestMinute = -1;

  constructor(initialPeakUnitsPerSecond: number, settings: OnDemandPeakSettings) {
    assert(Number.isFinite(initialPeakUnitsPerSecond) && initialPeakUnitsPerSecond > 0, 'an on-demand peak must be > 0');
    assert(Number.isInteger(settings.sustainSeconds) && settings.sustainSeconds >= 1, 'sustainSeconds must be a whole number >= 1');
    assert(Number.isFinite(settings.promotionDelayMs) && settings.promotionDelayMs >= 0, 'promotionDelayMs must be finite and >= 0');
    this.#peakUnitsPerSecond = initialPeakUnitsPerSecond;
    this.#settings = settings;
    this.#pendingByMinute = new Float64Array(Math.ceil(settings.promotionDelayMs / MINUTE_MS) + 2);
  }

  get previousPeakUnitsPerSecond(): number {
    return this.#peakUnitsPerSecond;
  }

  get sustainSeconds(): number {
    return this.#settings.sustainSeconds;
  }

  /** A higher previous peak from outside (a switch from provisioned); never lowers it. */
  raiseTo(unitsPerSecond: number): void {
    if (unitsPerSecond > this.#peakUnitsPerSecond) this.#peakUnitsPerSecond = unitsPerSecond;
  }

  /**
   * Traffic held `unitsPerSecond` through the `sustainSeconds` seconds ending with `endSecond`.
   * Call `promote` for the current time first, so that old minutes have left the ring.
   */
  recordSustained(endSecond: number, unitsPerSecond: number): void {
    // A level at or below the peak can never raise it.
    if (!(unitsPerSecond > this.#peakUnitsPerSecond)) return;
    const startMinute = Math.floor(((endSecond - this.#settings.sustainSeconds + 1) * 1000) / MINUTE_MS);
    const slots = this.#pendingByMinute;
    if (this.#oldestMinute > this.#newestMinute) {
      this.#oldestMinute = startMinute;
      this.#newestMinute = startMinute;
    } else {
      assert(startMinute >= this.#newestMinute, 'sustained levels are recorded in time order');
      assert(startMinute - this.#oldestMinute < slots.length, 'promote before recording: the pending ring would wrap');
      this.#newestMinute = startMinute;
    }
    const slot = slotOf(startMinute, slots.length);
    if (unitsPerSecond > slots[slot]) slots[slot] = unitsPerSecond;
  }

  /** Promotes pending levels whose stretch began at least promotionDelayMs ago. Returns whether the peak rose. */
  promote(nowMs: number): boolean {
    const before = this.#peakUnitsPerSecond;
    const slots = this.#pendingByMinute;
    while (this.#oldestMinute <= this.#newestMinute && this.#oldestMinute * MINUTE_MS + this.#settings.promotionDelayMs <= nowMs) {
      const slot = slotOf(this.#oldestMinute, slots.length);
      if (slots[slot] > this.#peakUnitsPerSecond) this.#peakUnitsPerSecond = slots[slot];
      slots[slot] = 0;
      this.#oldestMinute++;
    }
    return this.#peakUnitsPerSecond > before;
  }
}

function slotOf(minute: number, length: number): number {
  return ((minute % length) + length) % length;
}
