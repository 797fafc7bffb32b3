/**
 * The fixed-rate phase's schedule arithmetic (load.ts FixedRatePhase, pacer-worker.ts), kept pure
 * so it can be tested without sockets or clocks: request k is due k × nsPerRequest after the start.
 */

/** How many requests are due by `nowNs` after the start (request 0 is due at once), at most `total`. */
export function dueBy(nowNs: number, nsPerRequest: number, total: number): number {
  if (nowNs < 0) return 0;
  return Math.min(total, Math.floor(nowNs / nsPerRequest) + 1);
}

/** The intended send time of request `index`, in ns after the start. */
export function intendedNs(index: number, nsPerRequest: number): number {
  return index * nsPerRequest;
}

/**
 * When the pacer should wake next, having woken at `nowNs`: at the next request's due time, or
 * `minWakeIntervalNs` from now if that is later (at very high rates one ping then covers several
 * requests). Always after `nowNs`, so the pacer never spins.
 */
export function nextWakeNs(nowNs: number, nsPerRequest: number, minWakeIntervalNs: number): number {
  const nextDue = (Math.floor(nowNs / nsPerRequest) + 1) * nsPerRequest;
  return Math.max(nextDue, nowNs + Math.max(1, minWakeIntervalNs));
}

/**
 * Counts the requests that fell due while every connection was busy, each once however many
 * pumps it waits through: `note(sent, due)` after a pump that could send only up to `sent` of
 * the `due` requests.
 */
export class ClientQueueCount {
  /** Requests before this index have been counted (or were sent without waiting). */
  #countedUpTo = 0;
  #waited = 0;

  note(sent: number, due: number): void {
    if (sent >= due) return;
    this.#waited += due - Math.max(this.#countedUpTo, sent);
    this.#countedUpTo = due;
  }

  get waited(): number {
    return this.#waited;
  }
}
