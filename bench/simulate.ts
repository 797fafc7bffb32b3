/**
 * The scenario simulator's speed: examples/scenarios/status-gsi.json (seed article 000: 2,000
 * items/s into two design variants) for BENCH_SIMULATE_SECONDS simulated seconds (default 600, the
 * full 10-minute example, 1.2 million items offered per variant), timed on the wall clock.
 * Reports simulated items per wall second (both variants' items, which run side by side in worker
 * threads) and simulated seconds per wall second, in each fidelity: items (every item a request
 * through the engine) and flow (flows through the same capacity model, src/scenarios/flow.ts).
 * 0 turns it off. With BENCH_SIMULATE_DAY=1, `bench:simulate` also runs
 * examples/scenarios/launch-day.json (a day, two variants, 2.3 billion requests each) in flow.
 *
 * `npm run bench` ends with it (items and flow); `npm run bench:simulate` runs it alone.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Fidelity } from '../src/scenarios/schema.js';
import { simulate } from '../src/scenarios/simulate.js';

export interface SimulationBench {
  readonly scenario: string;
  readonly fidelity: Fidelity;
  readonly simulatedSeconds: number;
  readonly variants: number;
  readonly itemsOffered: number;
  readonly wallSeconds: number;
  readonly itemsPerWallSecond: number;
  readonly simulatedSecondsPerWallSecond: number;
}

const EXAMPLE = fileURLToPath(new URL('../../examples/scenarios/status-gsi.json', import.meta.url));
const DAY_EXAMPLE = fileURLToPath(new URL('../../examples/scenarios/launch-day.json', import.meta.url));

export function simulateSecondsFromEnv(): number {
  const raw = process.env['BENCH_SIMULATE_SECONDS'];
  if (raw === undefined || raw === '') return 600;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 86_400) throw new Error(`BENCH_SIMULATE_SECONDS must be a whole number from 0 to 86400, got ${JSON.stringify(raw)}`);
  return seconds;
}

export async function benchSimulation(seconds: number, fidelity: Fidelity = 'items'): Promise<SimulationBench> {
  const document = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { workload: { phases: { durationSeconds: number }[] } };
  document.workload.phases[0]!.durationSeconds = seconds;
  return timed('examples/scenarios/status-gsi.json', document, seconds, fidelity);
}

/** The launch-day example (a day of 24 hourly phases), in flow fidelity. */
export async function benchDay(): Promise<SimulationBench> {
  return timed('examples/scenarios/launch-day.json', JSON.parse(readFileSync(DAY_EXAMPLE, 'utf8')), 86_400, 'flow');
}

async function timed(scenario: string, document: unknown, seconds: number, fidelity: Fidelity): Promise<SimulationBench> {
  const startedMs = performance.now();
  const report = await simulate(document, { fidelity });
  const wallSeconds = (performance.now() - startedMs) / 1000;
  const itemsOffered = report.variants.reduce((total, variant) => total + variant.totals.offered, 0);
  return {
    scenario,
    fidelity,
    simulatedSeconds: seconds,
    variants: report.variants.length,
    itemsOffered,
    wallSeconds,
    itemsPerWallSecond: itemsOffered / wallSeconds,
    simulatedSecondsPerWallSecond: seconds / wallSeconds,
  };
}

export function formatSimulationBench(bench: SimulationBench): string {
  return (
    `Scenario simulator, fidelity ${bench.fidelity} (${bench.scenario}, ${bench.simulatedSeconds} s simulated, ${bench.variants} variants in worker threads): ` +
    `${bench.itemsOffered.toLocaleString('en-US')} items in ${bench.wallSeconds.toFixed(1)} s wall = ` +
    `${Math.round(bench.itemsPerWallSecond).toLocaleString('en-US')} simulated items per wall second (${bench.simulatedSecondsPerWallSecond.toFixed(1)} simulated s per wall s)`
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const seconds = simulateSecondsFromEnv();
  if (seconds > 0) {
    for (const fidelity of ['items', 'flow'] as const) console.log(formatSimulationBench(await benchSimulation(seconds, fidelity)));
  }
  if (process.env['BENCH_SIMULATE_DAY'] === '1') console.log(formatSimulationBench(await benchDay()));
}
