/**
 * The PostgreSQL store (`--store postgres://...`): the Storage contract (storage.ts) over one
 * table of ordered keys in a PostgreSQL schema (postgres-schema.ts), so that several dynatwin
 * processes can share one database.
 *
 * How it keeps the contract:
 * - Reads and writes answer synchronously (postgres-bridge.ts: a worker thread talks to the
 *   database, this thread waits for each answer), so the engine's transactions run unchanged.
 * - A write (`write(fn)`) is one database transaction on READ COMMITTED: `fn` reads through it
 *   (its own puts first), buffers its puts and removes, and they are applied and committed after
 *   `fn` returns; only then does the promise resolve. The items a write checks are read with
 *   `getLocked` (the write pipeline's read phase): advisory locks per key, held to the commit, so
 *   a condition checked on them still holds when the write commits, across processes. Locks are
 *   taken in one sorted batch; a deadlock the database breaks (only possible between writes that
 *   lock in several batches) re-runs `fn` from the start, which is safe because the read phase
 *   comes before anything else in a write.
 * - A write whose commit fails after `fn` ran (the connection cut, the disk full) leaves the
 *   engine's in-memory state moved for a write that may not have happened: the store refuses
 *   writes and hands over to the onWritesLost handler (server.ts opens a new engine on the store),
 *   exactly as the logged store does after a failed log frame. The request is answered with
 *   DynamoDB's retryable InternalServerError (500), since the outcome of a cut commit is unknown.
 * - A read that fails on the connection answers InternalServerError (500) too, and the worker
 *   connects again on the next request: a restarted database is reconnected to by itself.
 */
import { internalError, writesRefused } from '../errors.js';
import { Bridge, DatabaseError, type Request } from './postgres-bridge.js';
import type { Row } from './postgres-protocol.js';
import { parsePostgresUrl } from './postgres-url.js';
import { KeyConflictError, type Entry, type LockMode, type RangeOptions, type Storage, type StoredValue, type ValueWithJson, type WriteRefusal, type WriteTransaction } from './storage.js';

export interface PostgresStoreOptions {
  /** Where the store reports what it does on its own (reconnects, lost writes). */
  readonly log?: (message: string) => void;
}

/**
 * The database at `url` could not be reached or used at start-up; the message is one line that
 * names the URL without its password and says why.
 */
export class StoreOpenError extends Error {}

/** Opens (creating or migrating its schema) the PostgreSQL store at `url`. */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Storage> {
  let target;
  try {
    target = parsePostgresUrl(url);
  } catch (error) {
    throw new StoreOpenError(`dynatwin: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const bridge = await Bridge.open(target.connectionString, target.schema);
    return new PostgresStore(bridge, target.redacted, options.log ?? ((message) => console.error(message)));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new StoreOpenError(`dynatwin: cannot use the PostgreSQL store at ${target.redacted}: ${why.split('\n')[0]}`);
  }
}

/** Rows a range asks for first; each further batch doubles, up to RANGE_BATCH_MAX (a Query page stops early; a Scan goes on). */
const RANGE_BATCH_FIRST = 64;
const RANGE_BATCH_MAX = 4_096;
/** How many times a write whose locks deadlocked is run again before it fails. */
const DEADLOCK_RETRIES_MAX = 8;
/** How long writes stay refused after the database said its disk is full, before one is tried again. */
const FULL_BACKOFF_MS = 1_000;
/** Back-off between attempts to reopen the engine after lost writes (the database may still be down). */
const REOPEN_RETRY_FIRST_MS = 100;
const REOPEN_RETRY_MAX_MS = 2_000;

class PostgresStore implements Storage {
  readonly kind = 'postgres';
  readonly location: string;
  readonly #bridge: Bridge;
  readonly #log: (message: string) => void;
  #refusal: WriteRefusal | undefined;
  #onWritesLost: (() => Promise<void>) | undefined;
  /** Set while a new engine is opened after lost writes: writes wait for it to be done. */
  #rebuilding: Promise<void> | undefined;
  #closed = false;

  constructor(bridge: Bridge, location: string, log: (message: string) => void) {
    this.#bridge = bridge;
    this.location = location;
    this.#log = log;
  }

  get writeRefusal(): WriteRefusal | undefined {
    const refusal = this.#refusal;
    // A disk-full refusal lasts its back-off; then the next write tries the database again.
    if (refusal !== undefined && !refusal.lostWrites && Date.now() - refusal.sinceMs >= FULL_BACKOFF_MS) this.#refusal = undefined;
    return this.#refusal;
  }

  onWritesLost(handler: (() => Promise<void>) | undefined): void {
    this.#onWritesLost = handler;
  }

  get(key: Uint8Array): StoredValue | undefined {
    return this.getWithJson(key)?.value;
  }

  getWithJson(key: Uint8Array): ValueWithJson | undefined {
    const rows = this.#call({ op: 'get', keys: [key], inTransaction: false }).rows;
    if (rows.length === 0) return undefined;
    const json = rows[0]![1];
    return { value: JSON.parse(json) as StoredValue, json };
  }

  range(options: RangeOptions): Iterable<Entry> {
    return readRange((request) => this.#call(request).rows, options, false);
  }

  write<T>(fn: (txn: WriteTransaction) => T): Promise<T> {
    if (this.#closed) return Promise.reject(writesRefused('dynatwin: the store is closed'));
    const refusal = this.writeRefusal;
    if (refusal !== undefined) return Promise.reject(writesRefused(refusalText(refusal, this.location)));
    // The engine is being rebuilt after lost writes: this one was decided on the old engine's state.
    if (this.#rebuilding !== undefined) return Promise.reject(writesRefused(`dynatwin: writes are refused for now: a write to the PostgreSQL database at ${this.location} failed after it ran, and the engine is being reopened from the database; writes are taken again by themselves`));
    for (let attempt = 0; ; attempt++) {
      const txn = new PostgresTransaction(this.#bridge);
      let result: T;
      try {
        result = fn(txn);
      } catch (error) {
        txn.rollback();
        if (error instanceof DatabaseError && error.failure.kind === 'deadlock' && attempt < DEADLOCK_RETRIES_MAX) continue;
        return Promise.reject(this.#failedWrite(error, txn.lockedAny));
      }
      try {
        txn.commit();
      } catch (error) {
        return Promise.reject(this.#failedWrite(error, true));
      }
      return Promise.resolve(result);
    }
  }

  /**
   * What a failed write answers. A DatabaseError after `fn` may have moved the engine's state
   * (`ran`): writes are refused and the onWritesLost handler rebuilds the engine first.
   */
  #failedWrite(error: unknown, ran: boolean): unknown {
    if (!(error instanceof DatabaseError)) return error;
    const failure = error.failure;
    this.#log(`dynatwin: a write failed in the PostgreSQL store at ${this.location} (${failure.code}): ${failure.message}`);
    if (ran) this.#writesLost();
    if (failure.kind === 'full') {
      this.#refusal = { code: failure.code, stage: 'space', path: this.location, sinceMs: Date.now(), neededBytes: 0, detail: failure.message, lostWrites: false };
      return writesRefused(refusalText(this.#refusal, this.location));
    }
    return internalError();
  }

  /**
   * Writes ran whose commit failed: refuse writes until the handler has rebuilt the engine from
   * the database. The handler reads the database, which may still be down: it is tried again,
   * backing off from REOPEN_RETRY_FIRST_MS to REOPEN_RETRY_MAX_MS, for as long as it takes (the old
   * engine's state is wrong, so no write may be taken on it meanwhile).
   */
  #writesLost(): void {
    const handler = this.#onWritesLost;
    if (handler === undefined || this.#rebuilding !== undefined) return;
    this.#rebuilding = this.#reopen(handler).finally(() => {
      this.#rebuilding = undefined;
    });
  }

  async #reopen(handler: () => Promise<void>): Promise<void> {
    for (let delayMs = REOPEN_RETRY_FIRST_MS; !this.#closed; delayMs = Math.min(delayMs * 2, REOPEN_RETRY_MAX_MS)) {
      try {
        await handler();
        return;
      } catch (error) {
        this.#log(`dynatwin: reopening the engine after lost writes failed (tried again in ${delayMs} ms): ${error instanceof Error ? error.message : String(error)}`);
      }
      await new Promise<void>((resolve) => setTimeout(resolve, delayMs).unref());
    }
  }

  #call(request: Request): ReturnType<Bridge['call']> {
    try {
      return this.#bridge.call(request);
    } catch (error) {
      if (error instanceof DatabaseError) {
        this.#log(`dynatwin: a read failed in the PostgreSQL store at ${this.location} (${error.failure.code}): ${error.failure.message}`);
        throw internalError();
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#rebuilding;
    await this.#bridge.close();
  }
}

function refusalText(refusal: WriteRefusal, location: string): string {
  return `dynatwin: writes are refused for now: the PostgreSQL database at ${location} reported ${refusal.code} (${refusal.detail}); reads are served, and writes are tried again by themselves`;
}

/** The key as a string that sorts as the bytes do (one char per byte), for the write buffer. */
function keyString(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}

interface Buffered {
  readonly key: Uint8Array;
  /** undefined: removed. */
  readonly value: StoredValue | undefined;
}

/** One write's transaction: reads through the database (its own puts first), puts buffered until commit. */
class PostgresTransaction implements WriteTransaction {
  readonly #bridge: Bridge;
  readonly #buffer = new Map<string, Buffered>();
  /** Whether the database transaction was begun (a read or a lock was sent in it). */
  #begun = false;
  /** Whether any lock was taken: from then a failure may follow effects of `fn`. */
  lockedAny = false;

  constructor(bridge: Bridge) {
    this.#bridge = bridge;
  }

  get(key: Uint8Array): StoredValue | undefined {
    const buffered = this.#buffer.get(keyString(key));
    if (buffered !== undefined) return buffered.value;
    this.#begun = true;
    const rows = this.#bridge.call({ op: 'get', keys: [key], inTransaction: true }).rows;
    return rows.length === 0 ? undefined : (JSON.parse(rows[0]![1]) as StoredValue);
  }

  getLocked(keys: readonly Uint8Array[], mode: LockMode): (StoredValue | undefined)[] {
    if (keys.length === 0) return [];
    const order = keys.map((key, position) => ({ key, position, id: lockIdOf(key) }));
    // One order for every write: two writes locking overlapping keys in one batch each cannot deadlock.
    order.sort((a, b) => a.id[0] - b.id[0] || a.id[1] - b.id[1]);
    this.#begun = true;
    const reply = this.#bridge.call({ op: 'lock', keys, lockIds: order.map((entry) => entry.id), fail: mode === 'fail' });
    if (reply.held !== undefined) throw new KeyConflictError(order[reply.held]!.key);
    this.lockedAny = true;
    const found = new Map<string, string>();
    for (const [key, json] of reply.rows) found.set(keyString(key), json);
    return keys.map((key) => {
      const name = keyString(key);
      const buffered = this.#buffer.get(name);
      if (buffered !== undefined) return buffered.value;
      const json = found.get(name);
      return json === undefined ? undefined : (JSON.parse(json) as StoredValue);
    });
  }

  range(options: RangeOptions): Iterable<Entry> {
    this.#begun = true;
    if (this.#buffer.size === 0) return readRange((request) => this.#bridge.call(request).rows, options, true);
    // The limit applies after the merge: a buffered remove may hide a stored entry.
    const stored = readRange((request) => this.#bridge.call(request).rows, { ...options, limit: undefined }, true);
    return mergeBuffered(stored, this.#bufferedIn(options), options);
  }

  /** The buffered puts and removes within the range, in its order. */
  #bufferedIn(options: RangeOptions): Buffered[] {
    const start = options.start === undefined ? undefined : keyString(options.start);
    const end = options.end === undefined ? undefined : keyString(options.end);
    const inRange: [string, Buffered][] = [];
    for (const entry of this.#buffer) {
      if ((start === undefined || entry[0] >= start) && (end === undefined || entry[0] < end)) inRange.push(entry);
    }
    inRange.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    if (options.reverse === true) inRange.reverse();
    return inRange.map((entry) => entry[1]);
  }

  put(key: Uint8Array, value: StoredValue): void {
    this.#buffer.set(keyString(key), { key, value });
  }

  remove(key: Uint8Array): void {
    this.#buffer.set(keyString(key), { key, value: undefined });
  }

  /** Applies the buffer and commits (puts in key order: writers of the same rows lock them in one order). */
  commit(): void {
    if (this.#buffer.size === 0 && !this.#begun) return;
    const names = [...this.#buffer.keys()].sort();
    const putKeys: Uint8Array[] = [];
    const putValues: string[] = [];
    const removeKeys: Uint8Array[] = [];
    for (const name of names) {
      const entry = this.#buffer.get(name)!;
      if (entry.value === undefined) removeKeys.push(entry.key);
      else {
        putKeys.push(entry.key);
        putValues.push(JSON.stringify(entry.value));
      }
    }
    this.#bridge.call({ op: 'commit', putKeys, putValues, removeKeys });
  }

  rollback(): void {
    if (!this.#begun) return;
    try {
      this.#bridge.call({ op: 'rollback' });
    } catch {
      // The worker rolls back (or drops the connection) by itself after a failure.
    }
  }
}

/**
 * A key's advisory lock id: two 32-bit FNV-1a hashes with different offsets. Two keys that share
 * both only make one write wait for (or conflict with) another that did not need to: never wrong.
 */
export function lockIdOf(key: Uint8Array): readonly [number, number] {
  let first = 0x811c9dc5;
  let second = 0x01000193 ^ 0x5bd1e995;
  for (let index = 0; index < key.length; index++) {
    first = Math.imul(first ^ key[index]!, 0x01000193);
    second = Math.imul(second ^ key[index]!, 0x01000193);
  }
  return [first | 0, second | 0];
}

/** A range read in growing batches (lazy: iteration stopped early reads no more). */
function* readRange(call: (request: Request) => readonly Row[], options: RangeOptions, inTransaction: boolean): Generator<Entry> {
  let left = options.limit ?? Infinity;
  let after: Uint8Array | undefined;
  let batch = RANGE_BATCH_FIRST;
  while (left > 0) {
    const limit = Math.min(batch, left);
    const rows = call({ op: 'range', start: options.start, end: options.end, after, reverse: options.reverse === true, limit, inTransaction });
    for (const [key, json] of rows) yield { key, value: JSON.parse(json) as StoredValue };
    if (rows.length < limit) return;
    left -= rows.length;
    after = rows[rows.length - 1]![0];
    batch = Math.min(batch * 2, RANGE_BATCH_MAX);
  }
}

/** The stored entries merged with the write's buffered ones (a buffered key wins; a buffered remove hides). */
function* mergeBuffered(stored: Iterable<Entry>, buffered: readonly Buffered[], options: RangeOptions): Generator<Entry> {
  const reverse = options.reverse === true;
  let left = options.limit ?? Infinity;
  let next = 0;
  const before = (a: string, b: string): boolean => (reverse ? a > b : a < b);
  for (const entry of stored) {
    const name = keyString(entry.key);
    while (next < buffered.length && before(keyString(buffered[next]!.key), name)) {
      const own = buffered[next++]!;
      if (own.value !== undefined) {
        if (left-- <= 0) return;
        yield { key: own.key, value: own.value };
      }
    }
    if (next < buffered.length && keyString(buffered[next]!.key) === name) {
      const own = buffered[next++]!;
      if (own.value === undefined) continue;
      if (left-- <= 0) return;
      yield { key: own.key, value: own.value };
      continue;
    }
    if (left-- <= 0) return;
    yield entry;
  }
  for (; next < buffered.length; next++) {
    const own = buffered[next]!;
    if (own.value === undefined) continue;
    if (left-- <= 0) return;
    yield { key: own.key, value: own.value };
  }
}
