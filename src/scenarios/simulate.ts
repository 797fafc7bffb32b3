/**
 * `dynatwin simulate`: checks a scenario, runs each variant in a worker thread of its own (a
 * variant is an independent engine, so variants run side by side on the machine's cores), shows
 * progress, and answers the report.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { buildReport, type SimulationReport } from './report.js';
import { checkVariantTables, type VariantResult } from './runner.js';
import { refuseUnflowable } from './flow.js';
import type { PriceTable } from './pricing.js';
import { parseFidelity, parseScenario, ScenarioError, variantSeconds, type Fidelity, type Scenario } from './schema.js';
import type { WorkerInput, WorkerMessage } from './worker.js';

export interface SimulateOptions {
  /** Called as variants advance: simulated seconds of each variant, throttles so far in all. */
  readonly onProgress?: (progress: SimulationProgress) => void;
  /** Variants run at once (default: the machine's cores). */
  readonly threads?: number;
  /** Overrides the file's `fidelity` (`--fidelity`): `items` or `flow`. */
  readonly fidelity?: Fidelity;
  /** The price table of the bill (`--prices`); us-east-1 list prices by default. */
  readonly prices?: PriceTable;
}

export interface SimulationProgress {
  readonly totalSeconds: number;
  readonly secondsByVariant: readonly number[];
  readonly throttled: number;
}

/**
 * Young-generation size of each worker: the simulation allocates many short-lived request objects,
 * and a larger nursery makes their collection far cheaper (measured: ~20% of the run was GC).
 */
const WORKER_YOUNG_GENERATION_MB = 64;

/** Runs a scenario document; throws ScenarioError for a bad one (before anything runs). */
export async function simulate(given: unknown, options: SimulateOptions = {}): Promise<SimulationReport> {
  const document = withFidelity(given, options.fidelity);
  const scenario = parseScenario(document);
  if (scenario.fidelity === 'flow') refuseUnflowable(scenario);
  await checkVariantTables(scenario);
  const totalSeconds = Math.max(...scenario.variants.map(variantSeconds));
  const secondsByVariant = scenario.variants.map(() => 0);
  const throttledByVariant = scenario.variants.map(() => 0);
  const report = (): void =>
    options.onProgress?.({ totalSeconds, secondsByVariant, throttled: throttledByVariant.reduce((total, count) => total + count, 0) });
  const results: VariantResult[] = new Array(scenario.variants.length);
  const threads = Math.max(1, options.threads ?? availableParallelism());
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < scenario.variants.length) {
      const variantIndex = next++;
      results[variantIndex] = await runInWorker(document, variantIndex, (seconds, throttled) => {
        secondsByVariant[variantIndex] = seconds;
        throttledByVariant[variantIndex] = throttled;
        report();
      });
      // A variant with a shorter workload is done: it counts as at the end.
      secondsByVariant[variantIndex] = totalSeconds;
    }
  };
  await Promise.all(Array.from({ length: Math.min(threads, scenario.variants.length) }, lane));
  return buildReport(scenario, results, options.prices);
}

/** The document with `fidelity` set (each worker parses the document itself). */
function withFidelity(document: unknown, fidelity: Fidelity | undefined): unknown {
  if (fidelity === undefined) return document;
  parseFidelity(fidelity, '--fidelity');
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return document;
  return { ...document, fidelity };
}

function runInWorker(document: unknown, variantIndex: number, onProgress: (seconds: number, throttled: number) => void): Promise<VariantResult> {
  const input: WorkerInput = { document, variantIndex };
  const worker = new Worker(new URL('./worker.js', import.meta.url), {
    workerData: input,
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  return new Promise((resolve, reject) => {
    let settled = false;
    worker.on('message', (message: WorkerMessage) => {
      switch (message.type) {
        case 'progress':
          onProgress(message.seconds, message.throttled);
          return;
        case 'result':
          settled = true;
          resolve(message.result);
          return;
        case 'scenario-error':
          settled = true;
          reject(new ScenarioError(message.message));
          return;
        case 'error':
          settled = true;
          reject(new Error(`variant ${variantIndex} failed: ${message.message}`));
          return;
      }
    });
    worker.on('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.on('exit', (code) => {
      if (!settled) reject(new Error(`variant ${variantIndex}: worker exited with code ${code} before answering`));
    });
  });
}

export type { Scenario };
