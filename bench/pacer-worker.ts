/**
 * The clock of the fixed-rate phase (load.ts, Pacer), on a thread of its own. Node's timers run
 * on libuv's millisecond loop clock, so a 1 ms setInterval sends each request up to ~1 ms after
 * it fell due (measured here: 0.4 ms median, 1.1 ms p99 of lag at 5,000 req/s), and that lag
 * counts in every latency, half the 2 ms goal. This thread sleeps in Atomics.wait, whose timeout
 * is not rounded to the millisecond, and pings the main thread each time a request falls due that
 * the main thread does not know of yet (shouldPing, schedule.ts); the main thread then sends
 * whatever is due by its own clock reading, so a late ping delays requests (their latency shows
 * it) but never lowers the rate.
 * Worker entry point, started by load.ts with workerData: PacerData.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { dueBy, nextWakeNs, PACER_PING_PENDING, PACER_SEEN_DUE, PACER_STOP, shouldPing } from './schedule.js';

export interface PacerData {
  /** Request k falls due k × nsPerRequest after the start the main thread posts. */
  readonly nsPerRequest: number;
  readonly total: number;
  /**
   * An Int32Array's buffer of PACER_WORDS (schedule.ts): the main thread sets PACER_STOP to 1 (and
   * notifies) to stop us, and keeps PACER_SEEN_DUE and PACER_PING_PENDING current.
   */
  readonly shared: SharedArrayBuffer;
}

/** At very high rates one ping covers several requests rather than one wake-up each. */
const MIN_WAKE_INTERVAL_NS = 20_000;

const data = workerData as PacerData;
const shared = new Int32Array(data.shared);

const port = parentPort;
if (port === null) throw new Error('pacer-worker.js runs as a worker thread only');
port.once('message', (startNs: bigint) => pace(port, startNs));

function pace(port: MessagePort, startNs: bigint): void {
  // Request 0 is the main thread's to send at the start; we wake for the others.
  let nextNs = data.nsPerRequest;
  const lastDueNs = (data.total - 1) * data.nsPerRequest;
  while (Atomics.load(shared, PACER_STOP) === 0 && nextNs <= lastDueNs) {
    const nowNs = Number(process.hrtime.bigint() - startNs);
    if (nowNs < nextNs) {
      Atomics.wait(shared, PACER_STOP, 0, (nextNs - nowNs) / 1e6);
      continue;
    }
    const due = dueBy(nowNs, data.nsPerRequest, data.total);
    if (shouldPing(due, Atomics.load(shared, PACER_SEEN_DUE), Atomics.load(shared, PACER_PING_PENDING) === 1)) {
      Atomics.store(shared, PACER_PING_PENDING, 1);
      port.postMessage(null);
    }
    nextNs = nextWakeNs(nowNs, data.nsPerRequest, MIN_WAKE_INTERVAL_NS);
  }
}
