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
 * The pacer's shared words (an Int32Array both threads hold): the stop flag, how many requests the
 * main thread knew to be due at its last pump (it sends those, or they wait for a reply to free a
 * connection), and whether a ping is posted and not yet handled.
 */
export const PACER_STOP = 0;
export const PACER_SEEN_DUE = 1;
export const PACER_PING_PENDING = 2;
export const PACER_WORDS = 3;

/**
 * Whether the pacer should ping the main thread now that `dueNow` requests are due: not when the
 * main thread already knows of them all (a reply made it pump since), nor while an earlier ping
 * waits to be handled (that pump will send everything due by then). Each ping the main thread
 * need not handle is a wake-up and a callback fewer on the generator's side of the shared cores.
 */
export function shouldPing(dueNow: number, seenDue: number, pingPending: boolean): boolean {
  return !pingPending && seenDue < dueNow;
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
