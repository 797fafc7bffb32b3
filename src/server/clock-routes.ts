/**
 * The clock API of the inspection router: read the server's time, and move a manual clock forward.
 *
 *   GET  /dynatwin/clock                       → {"mode": "manual"|"real", "nowMs": <epoch ms>}
 *   POST /dynatwin/clock  {"advanceMs": n}     → the same shape, after the step
 *
 * A test (or a person driving a simulation with `--clock manual`) advances time through here, so
 * everything time-dependent (capacity refills, GSI lag, table status, TTL expiry) moves exactly
 * when asked. POST answers once the background work the step made due (TTL sweeps) has finished,
 * so a client that advances time and then reads sees its effects.
 * A real clock cannot be moved: POST answers 409.
 */
import { ManualClock, type Clock } from '../clock.js';
import { InspectionError, type InspectionRouter, type InspectionResponse } from './inspection.js';

const CLOCK_PATH = /^\/dynatwin\/clock\/?$/;

/** One step may move time by at most a year: anything larger is far more likely a unit mistake (µs, ns) than a wish. */
export const CLOCK_ADVANCE_MS_MAX = 365 * 24 * 60 * 60 * 1000;

export interface ClockState {
  readonly mode: 'manual' | 'real';
  readonly nowMs: number;
}

/**
 * `settled` resolves once the work due at the clock's current time has finished (the engine's
 * TTL sweeps, table removals, auto scaling's evaluations); without it, POST answers right after the step.
 */
export function registerClockRoutes(router: InspectionRouter, clock: Clock, settled: () => Promise<void> = () => Promise.resolve()): void {
  router.get(CLOCK_PATH, () => answer(clock));
  router.post(CLOCK_PATH, async (request) => {
    if (!(clock instanceof ManualClock)) {
      throw new InspectionError(409, 'the server runs on the real clock, which cannot be advanced; start it with --clock manual');
    }
    const advanceMs = parseAdvance(request.body);
    const beforeMs = clock.nowMs();
    clock.advance(advanceMs);
    // Postcondition: time moved forward by the step (a ManualClock never goes back).
    if (clock.nowMs() < beforeMs) throw new Error('assertion failed: the manual clock went back');
    await settled();
    return answer(clock);
  });
}

function answer(clock: Clock): InspectionResponse {
  const body: ClockState = { mode: clock.mode, nowMs: clock.nowMs() };
  return { status: 200, body };
}

/** The body must be exactly `{"advanceMs": n}` with 0 <= n <= CLOCK_ADVANCE_MS_MAX. */
export function parseAdvance(body: unknown): number {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InspectionError(400, 'the body must be a JSON object {"advanceMs": <milliseconds>}');
  }
  const members = body as Record<string, unknown>;
  // A misspelt member (advanceMS, advance) must not pass silently as "advance by nothing".
  const unknown = Object.keys(members).filter((name) => name !== 'advanceMs');
  if (unknown.length > 0) throw new InspectionError(400, `unknown member ${JSON.stringify(unknown[0])}; the body is {"advanceMs": <milliseconds>}`);
  if (!('advanceMs' in members)) throw new InspectionError(400, 'advanceMs is required');
  const advanceMs = members['advanceMs'];
  if (typeof advanceMs !== 'number') throw new InspectionError(400, 'advanceMs must be a number');
  if (!Number.isFinite(advanceMs)) throw new InspectionError(400, 'advanceMs must be finite');
  if (advanceMs < 0) throw new InspectionError(400, 'advanceMs must be >= 0: time never goes back');
  if (advanceMs > CLOCK_ADVANCE_MS_MAX) throw new InspectionError(400, `advanceMs must be at most ${CLOCK_ADVANCE_MS_MAX} (365 days)`);
  return advanceMs;
}
