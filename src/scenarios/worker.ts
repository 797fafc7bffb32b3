/**
 * A worker thread running one variant of a scenario (simulate.ts starts one per variant, so two
 * variants use two cores). Messages to the parent: progress, then the result or the error.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runVariant } from './runner.js';
import { parseScenario, ScenarioError } from './schema.js';

export interface WorkerInput {
  readonly document: unknown;
  readonly variantIndex: number;
}

export type WorkerMessage =
  | { readonly type: 'progress'; readonly seconds: number; readonly throttled: number }
  | { readonly type: 'result'; readonly result: Awaited<ReturnType<typeof runVariant>> }
  | { readonly type: 'scenario-error'; readonly message: string }
  | { readonly type: 'error'; readonly message: string };

const port = parentPort!;
const input = workerData as WorkerInput;
const post = (message: WorkerMessage): void => port.postMessage(message);

try {
  const scenario = parseScenario(input.document);
  let lastPostMs = 0;
  const result = await runVariant(scenario, input.variantIndex, (_variant, seconds, totalSeconds, throttled) => {
    // A few messages a second at most: progress is for people.
    const nowMs = performance.now();
    if (nowMs - lastPostMs < 100 && seconds < totalSeconds) return;
    lastPostMs = nowMs;
    post({ type: 'progress', seconds, throttled });
  });
  post({ type: 'result', result });
} catch (error) {
  if (error instanceof ScenarioError) post({ type: 'scenario-error', message: error.message });
  else post({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
