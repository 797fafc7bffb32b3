/**
 * The main thread's side of the PostgreSQL store: requests to the worker thread that owns the
 * database connection (postgres-worker.ts), answered synchronously.
 *
 * Why synchronous: the engine's write transactions run to the end in one turn (storage.ts: `fn`
 * runs synchronously and exclusively), and so do its read paths; they read the store as they go.
 * The worker runs the query; this thread sleeps on a shared word (Atomics.wait) until the worker
 * has posted the answer and set the word, then takes the answer off the port
 * (receiveMessageOnPort) without going back to the event loop. The cost: the event loop waits for
 * the database's round trip, so one dynatwin process has one request at the database at a time;
 * several processes on one database are how this store grows (docs/POSTGRES.md).
 *
 * Every wait is bounded (ANSWER_WAIT_MS); an answer that comes after its request gave up is
 * recognised by its id and dropped.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { BridgeReply, BridgeRequest, DatabaseFailure, LifecycleRequest, WorkerSettings } from './postgres-protocol.js';

/** Longer than the worker's statement timeout plus a reconnection: a request the worker still runs is not given up early. */
const ANSWER_WAIT_MS = 30_000;

/** A request without its id (the bridge numbers them). */
export type Request = BridgeRequest extends infer R ? (R extends { readonly id: number } ? Omit<R, 'id'> : never) : never;

/** The database failed a request; `failure` says how. */
export class DatabaseError extends Error {
  readonly failure: DatabaseFailure;

  constructor(failure: DatabaseFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

export class Bridge {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #signal: Int32Array;
  #nextId = 1;
  #closed = false;

  private constructor(worker: Worker, port: MessagePort, signal: Int32Array) {
    this.#worker = worker;
    this.#port = port;
    this.#signal = signal;
  }

  /** Starts the worker and makes the schema ready (created or migrated); rejects with the database's failure. */
  static async open(connectionString: string, schema: string): Promise<Bridge> {
    const signal = new SharedArrayBuffer(4);
    const channel = new MessageChannel();
    const settings: WorkerSettings = { connectionString, schema, signal };
    const worker = new Worker(new URL('./postgres-worker.js', import.meta.url), { workerData: { settings, port: channel.port2 }, transferList: [channel.port2] });
    // The worker must not keep the process alive on its own (close() ends it).
    worker.unref();
    const bridge = new Bridge(worker, channel.port1, new Int32Array(signal));
    try {
      await bridge.#lifecycle('open');
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    return bridge;
  }

  /** Sends `request` and waits for its answer; throws DatabaseError when the database failed it. */
  call(request: Request): Extract<BridgeReply, { ok: true }> {
    if (this.#closed) throw new DatabaseError({ kind: 'connection', code: 'CLOSED', message: 'the store is closed' });
    const id = this.#nextId++;
    Atomics.store(this.#signal, 0, 0);
    this.#port.postMessage({ ...request, id } as BridgeRequest);
    const deadline = performance.now() + ANSWER_WAIT_MS;
    for (;;) {
      const reply = this.#take(id);
      if (reply !== undefined) return settled(reply);
      const leftMs = deadline - performance.now();
      if (leftMs <= 0) throw new DatabaseError({ kind: 'connection', code: 'TIMEOUT', message: `the database did not answer within ${ANSWER_WAIT_MS} ms` });
      Atomics.wait(this.#signal, 0, 0, leftMs);
    }
  }

  /** The answer to `id` if it has come (older ones, given up on, are dropped); the word is cleared first so a later answer wakes the next wait. */
  #take(id: number): BridgeReply | undefined {
    Atomics.store(this.#signal, 0, 0);
    for (;;) {
      const received = receiveMessageOnPort(this.#port);
      if (received === undefined) return undefined;
      const reply = received.message as BridgeReply;
      if (reply.id === id) return reply;
    }
  }

  /** A request awaited without blocking the event loop (open, close). */
  async #lifecycle(op: LifecycleRequest['op']): Promise<void> {
    // Atomics.waitAsync alone keeps no process alive: the worker does, while it is awaited.
    this.#worker.ref();
    try {
      await this.#awaitLifecycle(op);
    } finally {
      this.#worker.unref();
    }
  }

  async #awaitLifecycle(op: LifecycleRequest['op']): Promise<void> {
    const id = this.#nextId++;
    Atomics.store(this.#signal, 0, 0);
    this.#port.postMessage({ id, op } satisfies LifecycleRequest);
    for (;;) {
      const reply = this.#take(id);
      if (reply !== undefined) {
        settled(reply);
        return;
      }
      const waited = (Atomics as unknown as AtomicsWithWaitAsync).waitAsync(this.#signal, 0, 0, ANSWER_WAIT_MS);
      if (waited.async) await waited.value;
    }
  }

  /** Ends the connection and the worker. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#lifecycle('close');
    } catch {
      // The connection may already be gone; the worker is ended either way.
    }
    this.#port.close();
    await this.#worker.terminate();
  }
}

/** Atomics.waitAsync (Node 16+), missing from the compiler's ES2022 library. */
interface AtomicsWithWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { readonly async: boolean; readonly value: Promise<string> | string };
}

function settled(reply: BridgeReply): Extract<BridgeReply, { ok: true }> {
  if (!reply.ok) throw new DatabaseError(reply.failure);
  return reply;
}
