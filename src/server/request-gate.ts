/**
 * The requests a closing server still owes an answer, so that it closes the way a database is
 * expected to: it stops taking requests, answers those it already took, and only then closes the
 * store (server.ts `stop`).
 *
 * Which requests. Only those that are not answered in the turn they arrive: an operation that
 * answers with a promise (a write, once durable) and one held by a latency fault. A request
 * answered in its own turn (GetItem, a validation error) cannot straddle a close, which starts in
 * a turn of its own. Such a request is admitted (`admit`) when it starts waiting and released
 * (`release`) when its answer is ready; in between it is on an intrusive list (the links live in
 * the request's own object), so tracking one costs a counter and two field writes, no allocation.
 *
 * Closing. `close()` turns new requests away (the doors check `closing`: http.ts); `drain()` waits
 * for the admitted ones to be answered, at most a bound, then answers each one left with
 * ServiceUnavailable itself (`refuse`) and drops its operation's outcome when it comes, so no
 * request is answered twice and none is left to the store being closed under it.
 */
import { assert } from '../errors.js';

/** Not on the gate's list. */
export const GATE_OUT = 0;
/** Admitted and not answered yet. */
export const GATE_IN = 1;
/** Answered by the gate at close's bound; the operation's own outcome is dropped. */
export const GATE_REFUSED = 2;

/** A request the gate may hold: its links and state live in the request's own object. */
export interface GateEntry {
  gateState: number;
  gatePrevious: GateEntry | undefined;
  gateNext: GateEntry | undefined;
  /** Answers the request with DynamoDB's ServiceUnavailable (never throws). */
  refuse(): void;
}

export class RequestGate {
  #closing = false;
  #count = 0;
  #head: GateEntry | undefined;
  /** Called when the last admitted request is released while a drain waits. */
  #onIdle: (() => void) | undefined;

  /** The server is closing: new requests are answered ServiceUnavailable, not run. */
  get closing(): boolean {
    return this.#closing;
  }

  /** Requests admitted and not answered yet. */
  get count(): number {
    return this.#count;
  }

  /** A request that will be answered in a later turn; no-op if it already is admitted. */
  admit(entry: GateEntry): void {
    if (entry.gateState !== GATE_OUT) return;
    entry.gateState = GATE_IN;
    entry.gatePrevious = undefined;
    entry.gateNext = this.#head;
    if (this.#head !== undefined) this.#head.gatePrevious = entry;
    this.#head = entry;
    this.#count++;
  }

  /**
   * The request's answer is ready: whether it may be sent. False when the gate answered it already
   * (close's bound passed): its outcome is dropped.
   */
  release(entry: GateEntry): boolean {
    if (entry.gateState === GATE_REFUSED) return false;
    if (entry.gateState === GATE_OUT) return true;
    this.#unlink(entry);
    entry.gateState = GATE_OUT;
    if (this.#count === 0) this.#onIdle?.();
    return true;
  }

  close(): void {
    this.#closing = true;
  }

  /**
   * Resolves once every admitted request is answered, or after `waitMs`, when those still waiting
   * are answered ServiceUnavailable here; resolves with how many were. Call after close().
   */
  drain(waitMs: number): Promise<number> {
    assert(this.#closing, 'drain() after close()');
    if (this.#count === 0) return Promise.resolve(0);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#onIdle = undefined;
        resolve(this.#refuseAll());
      }, waitMs);
      this.#onIdle = () => {
        this.#onIdle = undefined;
        clearTimeout(timer);
        resolve(0);
      };
    });
  }

  #refuseAll(): number {
    let refused = 0;
    while (this.#head !== undefined) {
      const entry = this.#head;
      this.#unlink(entry);
      entry.gateState = GATE_REFUSED;
      entry.refuse();
      refused++;
    }
    return refused;
  }

  #unlink(entry: GateEntry): void {
    const previous = entry.gatePrevious;
    const next = entry.gateNext;
    if (previous === undefined) this.#head = next;
    else previous.gateNext = next;
    if (next !== undefined) next.gatePrevious = previous;
    entry.gatePrevious = undefined;
    entry.gateNext = undefined;
    this.#count--;
  }
}
