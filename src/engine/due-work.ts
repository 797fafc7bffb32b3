/**
 * Background work that falls due on the injected clock: TTL sweeps (ttl.ts) and auto scaling's
 * minute evaluations (autoscaling/service.ts). Both need the same discipline, kept here once:
 * - poking is O(1) when nothing is due, because it runs on every ManualClock advance;
 * - at most one pass runs at a time, and a poke that comes while one runs starts another after
 *   it (the clock may have moved past more work meanwhile), never a second pass beside it;
 * - `settled()` lets a test (POST /dynatwin/clock, `startDynatwin().settled()`) wait for the work
 *   an advance made due, and `stop()` waits for the running pass, which checks `stopped` between
 *   its steps.
 */
import type { Clock } from '../clock.js';
import { ManualClock } from '../clock.js';

/** How often the real clock is checked for due work; the work itself decides what is due. */
const REAL_CLOCK_CHECK_MS = 1_000;

export class DueWork {
  readonly #isDue: () => boolean;
  readonly #pass: () => Promise<void>;
  #running: Promise<void> | undefined;
  /** Work fell due while a pass was running: another pass runs when that one ends. */
  #dueAgain = false;
  #stopped = false;
  #detach: () => void = () => undefined;

  /**
   * `isDue` must be cheap (it runs on every poke); `pass` does the work, starting with an await if
   * it must not run inside whoever poked (an advance()).
   */
  constructor(isDue: () => boolean, pass: () => Promise<void>) {
    this.#isDue = isDue;
    this.#pass = pass;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Pokes on the clock's advances (ManualClock) or on a real-time timer; once. */
  attach(clock: Clock): void {
    if (this.#stopped) return;
    this.#detach();
    this.#detach = attachTrigger(clock, () => this.poke());
  }

  /** Starts a pass if work is due and none runs; notes that one is due again if one runs. */
  poke(): void {
    if (this.#stopped || !this.#isDue()) return;
    if (this.#running !== undefined) {
      this.#dueAgain = true;
      return;
    }
    const run = this.#passWhileDue();
    this.#running = run;
    void run.finally(() => {
      if (this.#running === run) this.#running = undefined;
    });
  }

  /** Resolves once the passes due so far have finished (at once when none runs). */
  settled(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }

  /** Detaches the trigger and waits for the running pass, which stops after its current step. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#detach();
    await this.#running;
  }

  async #passWhileDue(): Promise<void> {
    do {
      this.#dueAgain = false;
      await this.#pass();
    } while (this.#dueAgain && !this.#stopped);
  }
}

/** What pokes due work: a ManualClock's advances, or a real-time timer that never keeps the process alive. */
export function attachTrigger(clock: Clock, poke: () => void): () => void {
  if (clock instanceof ManualClock) return clock.onAdvance(poke);
  // A manual clock of another kind offers no hook, and polling it in real time would make the
  // work depend on the wall clock: its work never falls due.
  if (clock.mode !== 'real') return () => undefined;
  const timer = setInterval(poke, REAL_CLOCK_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
