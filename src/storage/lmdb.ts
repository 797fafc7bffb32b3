/**
 * A durable Storage on LMDB (the `lmdb` package).
 *
 * Writes: every write(fn) is one queued lmdb transaction callback. lmdb queues the callbacks and
 * later runs them one after another, on the main thread, inside a single batched write
 * transaction (group commit); reads inside a callback see the uncommitted writes of the callbacks
 * before it, which makes a read-check-write inside fn serialisable. Each callback runs in an LMDB
 * child transaction of the batch (lmdb's `childTransaction`, queued), so a callback that throws is
 * aborted alone: its puts are rolled back and the rest of the batch commits, as the Storage
 * contract requires (a write applies whole or not at all).
 *
 * Durability. A write() promise resolves only when its transaction is durable. lmdb offers
 * three ways to get there. Measured: 10,000 write() calls issued at once, each a get + put of a
 * ~1 KB JSON value, fresh database; median of 7 interleaved runs on a 2-vCPU VM, ext4 on a
 * virtio disk whose fdatasync takes ~0.1 ms; the right-hand columns slow fdatasync to ~2.5 ms
 * with an LD_PRELOAD shim, to model a real SSD / network volume:
 *
 *                                         fdatasync ~0.1 ms           fdatasync ~2.5 ms
 *                                         writes/s  p50     p99       writes/s  p50     p99
 *   (a) overlappingSync, await commit     67k       122 ms  145 ms    50k       155 ms  190 ms
 *   (b) overlappingSync, await db.flushed 59k       130 ms  167 ms    43k       166 ms  221 ms
 *   (c) no overlappingSync, await commit  63k       125 ms  151 ms    49k       168 ms  193 ms
 *
 * (a) survives a process crash but not power loss. Of the two durable options (c) had 7-12%
 * more throughput (run-to-run spread is about +-15%, so "not slower" is the firm claim) and is
 * simpler: LMDB fdatasyncs inside the commit, so "committed" is "durable" and there is no
 * second promise to track. With 64 closed-loop writers, or one, all three were within the noise
 * (64 writers: 12-35k writes/s; 1 writer: p50 0.16-0.21 ms, ~2.7 ms with slow fdatasync): with
 * overlapping sync each commit waits for the previous flush anyway. Hence 'flush' (default) is
 * (c) and 'commit' is (a); 'commit' buys little unless the target disk measures otherwise.
 *
 * 'none' (lmdb's noSync, without overlappingSync: LMDB never flushes) is for measurement only,
 * and only startDynatwin accepts it, not the CLI. It exists so the benchmark can show the
 * ceiling of this store on a given machine whatever the durability design: with every flush
 * gone, what is left is the CPU cost and LMDB's copy-on-write page writes into the page cache
 * (issue #3: on the bench VM, durable PutItem is bounded by the disk's random-write bandwidth,
 * and even this ceiling stays below 2x dynalite). Never use it for data: committed writes
 * survive a crash of the process (they are in the page cache), but a crash of the machine can
 * lose them and can corrupt the store, since pages may reach the disk in any order.
 *
 * Values are stored as JSON, not lmdb's default msgpack, because msgpackr renames an object key
 * "__proto__" to "__proto_" when decoding (a prototype-pollution guard), and "__proto__" is a
 * legal DynamoDB attribute name. Cost, 50,000 items of ~1 KB in DynamoDB wire form: put
 * 7.3-8.1 us (msgpack 6.3-7.1), get 3.7-4.6 us (msgpack 4.1-5.3), scan 4.4-4.9 us/item
 * (msgpack 4.0-4.6); the file is ~33% larger.
 */
import { open as openFile } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import { asBinary, open } from 'lmdb';
import type { RangeOptions as LmdbRangeOptions, RootDatabase } from 'lmdb';
import { codeOf, DamagedFileError, makeDirectory } from './directory.js';
import { assertStorableKey, callSynchronously, guardIteration, MAX_KEY_BYTES } from './memory.js';
import type { Entry, RangeOptions, Storage, StoredValue, ValueWithJson, WriteTransaction } from './storage.js';

/**
 * 'flush': a write resolves once it is on disk (fdatasync'd): survives power loss.
 * 'commit': a write resolves once committed to the OS page cache: survives a crash of the
 * process but not of the machine (LMDB then reopens at the last flushed transaction, intact).
 * 'none': never flushed (benchmarks only, see the header): a crash of the machine can corrupt
 * the store.
 */
export type Durability = 'flush' | 'commit' | 'none';

export interface LmdbStorageOptions {
  /** Directory holding data.mdb and lock.mdb; created if missing. */
  readonly path: string;
  readonly durability?: Durability;
}

type Database = RootDatabase<StoredValue, Uint8Array>;

/** A change already encoded: the value's JSON as UTF-8 bytes (exactly what encoding 'json' stores), or undefined to remove. */
export interface EncodedChange {
  readonly key: Uint8Array;
  readonly json: Uint8Array | undefined;
}

/**
 * lmdb's queue of transaction callbacks, which `transaction` and `childTransaction` both use; its
 * second argument (lmdb 3.5) runs the callback in an abortable child transaction of the batch. Not
 * in lmdb's typings; checked when the store opens.
 */
interface QueuedChildTransactions {
  transactionAsync<T>(callback: () => T, asChild: boolean): Promise<T>;
}

/**
 * LMDB's largest key is about a quarter of a page; 8 KiB pages allow 4026-byte keys where the
 * default 4 KiB pages allow only 1978, less than a DynamoDB partition key plus sort key needs.
 * The page size only applies when the file is created.
 */
const PAGE_SIZE = 8192;

/** No non-empty byte string sorts before it. */
const SMALLEST_KEY: Uint8Array = Uint8Array.of(0);

export class LmdbStorage implements Storage {
  readonly kind = 'lmdb';
  readonly location: string;
  readonly #db: Database;
  /** The open file's real key limit (smaller if the file was created with smaller pages). */
  readonly #maxKeySize: number;
  /** Writes not yet settled, so close() can wait for them. */
  readonly #pending = new Set<Promise<unknown>>();
  /** Write transactions committed since open (lmdb's 'aftercommit' event), for diagnostics and tests. */
  #commits = 0;
  #closing: Promise<void> | undefined;
  #released = false;

  private constructor(location: string, db: Database) {
    this.location = location;
    this.#db = db;
    this.#maxKeySize = Math.min(MAX_KEY_BYTES, maxKeySizeOf(db));
    db.on('aftercommit', (commit: unknown) => {
      // The first write also reports lmdb's initial placeholder, whose transaction id is 0.
      const txnId: unknown = typeof commit === 'object' && commit !== null ? Reflect.get(commit, 'txnId') : undefined;
      if (typeof txnId === 'number' && txnId > 0) this.#commits++;
    });
  }

  /** Write transactions committed since open (each one an LMDB sync, under either durability). */
  get commits(): number {
    return this.#commits;
  }

  static async open(options: LmdbStorageOptions): Promise<LmdbStorage> {
    const location = resolvePath(options.path);
    // Not fs.mkdir's recursive mode, which never ends on some paths (see directory.ts).
    await makeDirectory(location);
    await assertDataFileStamped(location);
    const durability = options.durability ?? 'flush';
    const db = open<StoredValue, Uint8Array>({
      path: location,
      // Always a directory: lmdb-js would otherwise take a path with a dot in it (./my.data) for
      // a file name.
      noSubdir: false,
      keyEncoding: 'binary',
      // Not msgpack: it would rename "__proto__" keys (see the header).
      encoding: 'json',
      pageSize: PAGE_SIZE,
      // Without overlapping sync, LMDB fdatasyncs inside the commit, so "committed" already
      // means "durable"; with it, the sync runs after the commit and we do not wait for it.
      overlappingSync: durability === 'commit',
      // No flush at all ('none', benchmarks only); lmdb refuses noSync with overlappingSync.
      noSync: durability === 'none',
    });
    if (typeof Reflect.get(db, 'transactionAsync') !== 'function') throw new Error('this lmdb version has no transactionAsync: dynatwin needs lmdb 3.5');
    if (!process.listeners('unhandledRejection').includes(ignoreOrphanCommitFailure)) process.on('unhandledRejection', ignoreOrphanCommitFailure);
    return new LmdbStorage(location, db);
  }

  /**
   * Resolves once every earlier commit is on disk. With durability 'commit' (overlapping sync) a
   * commit resolves before its sync; a caller that must know the data is durable (the write-ahead
   * log's checkpoint, before it lets the log go) waits for this.
   */
  flushed(): Promise<void> {
    this.#assertOpen();
    return Promise.resolve(this.#db.flushed).then(() => undefined);
  }

  /** The longest key the open file accepts. */
  get maxKeySize(): number {
    return this.#maxKeySize;
  }

  get(key: Uint8Array): StoredValue | undefined {
    this.#assertOpen();
    return readValue(this.#db, key, this.#maxKeySize);
  }

  getWithJson(key: Uint8Array): ValueWithJson | undefined {
    this.#assertOpen();
    if (!isStorableKey(key, this.#maxKeySize)) return undefined;
    // The stored bytes are the JSON text (encoding 'json' stores JSON.stringify of the value), so
    // the text is read as it is and parsed once, instead of parsed here and encoded again later.
    const bytes = this.#db.getBinaryFast(key);
    if (bytes === undefined) return undefined;
    const json = bytes.toString('utf8');
    return { value: JSON.parse(json) as StoredValue, json };
  }

  range(options: RangeOptions): Iterable<Entry> {
    this.#assertOpen();
    return readRange(this.#db, options, this.#maxKeySize);
  }

  /**
   * Every key, ascending, without reading values; from the snapshot of the first step, pinned
   * until the iteration ends or is returned (the logged store's key filter is built from it).
   */
  keys(): Iterable<Uint8Array> {
    this.#assertOpen();
    return this.#db.getKeys({}) as Iterable<Uint8Array>;
  }

  /** How many keys the store holds now (LMDB's own count, no scan). */
  get entryCount(): number {
    this.#assertOpen();
    const stats: unknown = this.#db.getStats();
    const count: unknown = typeof stats === 'object' && stats !== null ? Reflect.get(stats, 'entryCount') : undefined;
    return typeof count === 'number' && count >= 0 ? count : 0;
  }

  write<T>(fn: (txn: WriteTransaction) => T): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(new Error('storage is closed'));
    // Queued as a child transaction even when called from inside another write's fn (where
    // childTransaction would nest it there and then): a write started inside a write runs after it.
    const done = (this.#db as unknown as QueuedChildTransactions).transactionAsync(() => this.#runInTransaction(fn), true);
    this.#track(done);
    return done;
  }

  /**
   * Writes changes already encoded, as lmdb's batched background writes: queued here, applied and
   * committed by lmdb's write thread (the main thread only copies the bytes), in as many
   * transactions as lmdb batches them into. Resolves once the last one is committed: durably,
   * under durability 'flush'. Not atomic: a crash can leave any part of them applied, so this is
   * for the logged store's checkpoint, whose log holds every change until the checkpoint is done.
   */
  applyEncoded(changes: Iterable<EncodedChange>): Promise<void> {
    if (this.#closing !== undefined) return Promise.reject(new Error('storage is closed'));
    let last: Promise<boolean> | undefined;
    for (const { key, json } of changes) {
      assertStorableKey(key, this.#maxKeySize);
      // lmdb queues a pointer to the bytes and holds the buffer until its write thread put them, so
      // they may be a view of a larger buffer, which must not change meanwhile (the log's never do).
      const put = json === undefined ? this.#db.remove(key) : this.#db.put(key, asBinary(json) as unknown as StoredValue);
      // lmdb hands the writes of one batch the same promise; one left behind must not reject unhandled.
      if (last !== undefined && put !== last) last.catch(quietCommitFailure);
      last = put;
    }
    if (last === undefined) return Promise.resolve();
    const done = last.then(() => undefined, commitFailure);
    this.#track(done);
    return done;
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  /** Runs inside lmdb's write transaction; lmdb turns a throw into a rejection of this write only. */
  #runInTransaction<T>(fn: (txn: WriteTransaction) => T): T {
    const txn = new LmdbTransaction(this.#db, this.#maxKeySize);
    try {
      // A promise is refused: lmdb would keep the write transaction open across the await, stalling every commit.
      return callSynchronously(fn, txn);
    } finally {
      txn.end();
    }
  }

  #track(write: Promise<unknown>): void {
    this.#pending.add(write);
    const forget = (): void => {
      this.#pending.delete(write);
    };
    write.then(forget, forget);
  }

  async #shutDown(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
    this.#released = true;
    await this.#db.close();
  }

  #assertOpen(): void {
    if (this.#released) throw new Error('storage is closed');
  }
}

/** The view handed to one write fn; lmdb routes its reads and writes to the batch's write txn. */
class LmdbTransaction implements WriteTransaction {
  readonly #db: Database;
  readonly #maxKeySize: number;
  #active = true;
  /** Bumped by every put and remove, so open range iterations know to re-seek. */
  #version = 0;

  constructor(db: Database, maxKeySize: number) {
    this.#db = db;
    this.#maxKeySize = maxKeySize;
  }

  end(): void {
    this.#active = false;
  }

  get(key: Uint8Array): StoredValue | undefined {
    this.#assertActive();
    return readValue(this.#db, key, this.#maxKeySize);
  }

  range(options: RangeOptions): Iterable<Entry> {
    this.#assertActive();
    const live = reseekingRange(this.#db, options, this.#maxKeySize, () => this.#version);
    // Outside the callback lmdb would silently read outside the batch.
    return guardIteration(live, () => this.#active);
  }

  put(key: Uint8Array, value: StoredValue): void {
    this.#assertActive();
    assertStorableKey(key, this.#maxKeySize);
    this.#version++;
    // Inside a transaction callback lmdb applies the put synchronously; the promise is settled.
    void this.#db.put(key, value);
  }

  remove(key: Uint8Array): void {
    this.#assertActive();
    if (!isStorableKey(key, this.#maxKeySize)) return;
    this.#version++;
    void this.#db.remove(key);
  }

  #assertActive(): void {
    if (!this.#active) throw new Error('write transaction used after its write() callback returned');
  }
}

function readValue(db: Database, key: Uint8Array, maxKeySize: number): StoredValue | undefined {
  // lmdb throws on keys it could never store; such a key is simply absent.
  if (!isStorableKey(key, maxKeySize)) return undefined;
  return db.get(key);
}

function readRange(db: Database, options: RangeOptions, maxKeySize: number): Iterable<Entry> {
  const lmdbOptions = toLmdbRange(options, maxKeySize);
  if (lmdbOptions === undefined) return [];
  // lmdb yields a fresh { key, value } per step: key is a copied Buffer, value a fresh JSON.parse.
  // Outside a write, an iterator reads the snapshot it started on, even across later commits
  // (it pins that snapshot until finished or returned). Not `snapshot: false`: lmdb 3.5 then
  // re-seeks after a commit in a way that skips a key if the current one was deleted.
  return db.getRange(lmdbOptions);
}

/**
 * A range read inside a write transaction that stays correct when the same fn puts or removes
 * between two steps. An lmdb cursor does not: in lmdb 3.5 it can then yield keys that were
 * already removed. So after a change we drop the cursor and open a new one just past the last
 * key yielded, which continues over the keys as they are *now* (the memory store's semantics).
 */
function* reseekingRange(
  db: Database,
  options: RangeOptions,
  maxKeySize: number,
  version: () => number,
): Generator<Entry, void, undefined> {
  let remaining = options.limit ?? Infinity;
  let current = options;
  for (;;) {
    const seenVersion = version();
    let last: Uint8Array | undefined;
    for (const entry of readRange(db, current, maxKeySize)) {
      yield entry;
      last = entry.key;
      if (--remaining <= 0) return;
      if (version() !== seenVersion) break; // closes the stale cursor
    }
    if (last === undefined || version() === seenVersion) return;
    current = rangeAfter(options, last, remaining);
  }
}

/** The rest of `options` after `last` was yielded, holding at most `limit` more entries. */
function rangeAfter(options: RangeOptions, last: Uint8Array, limit: number): RangeOptions {
  const rest = { ...options, limit: Number.isFinite(limit) ? limit : undefined };
  if (options.reverse === true) return { ...rest, end: last };
  // The smallest key greater than `last` is `last` followed by a zero byte.
  const successor = new Uint8Array(last.byteLength + 1);
  successor.set(last);
  return { ...rest, start: successor };
}

function isStorableKey(key: Uint8Array, maxKeySize: number): boolean {
  return key.byteLength > 0 && key.byteLength <= maxKeySize;
}

type MutableLmdbRange = { -readonly [K in keyof LmdbRangeOptions]: LmdbRangeOptions[K] };

/**
 * Maps our range (start inclusive, end exclusive, in both directions) to lmdb's. Returns
 * undefined for a range that is certainly empty. lmdb treats a present-but-undefined `start` or
 * `end` differently from an absent one, so only defined bounds are set.
 */
function toLmdbRange(options: RangeOptions, maxKeySize: number): LmdbRangeOptions | undefined {
  if (isCertainlyEmpty(options)) return undefined;
  // An absent start is [0x00] inclusive, which is every key. Passing it explicitly matters in
  // reverse: without an `end`, lmdb stops *before* its default beginning key [0x00].
  const { start, end } = options;
  const lower = start === undefined || start.byteLength === 0 ? { key: SMALLEST_KEY, truncated: false } : boundOf(start, maxKeySize);
  const upper = end === undefined ? undefined : boundOf(end, maxKeySize);
  const result = options.reverse === true ? reverseRange(lower, upper) : forwardRange(lower, upper);
  if (options.limit !== undefined) result.limit = options.limit;
  return result;
}

function isCertainlyEmpty({ start, end, limit }: RangeOptions): boolean {
  if (limit !== undefined && limit <= 0) return true;
  if (end === undefined) return false;
  return end.byteLength === 0 || (start !== undefined && Buffer.compare(start, end) >= 0);
}

function forwardRange(lower: Bound, upper: Bound | undefined): MutableLmdbRange {
  const result: MutableLmdbRange = { start: lower.key };
  // key >= start; for a truncated start T that is key > T.
  if (lower.truncated) result.exclusiveStart = true;
  if (upper !== undefined) {
    result.end = upper.key;
    // key < end; for a truncated end T that is key <= T.
    if (upper.truncated) result.inclusiveEnd = true;
  }
  return result;
}

/** lmdb iterates from `start` to `end`, so in reverse `start` is our upper bound. */
function reverseRange(lower: Bound, upper: Bound | undefined): MutableLmdbRange {
  const result: MutableLmdbRange = { reverse: true, end: lower.key };
  if (!lower.truncated) result.inclusiveEnd = true;
  if (upper !== undefined) {
    result.start = upper.key;
    if (!upper.truncated) result.exclusiveStart = true;
  }
  return result;
}

interface Bound {
  readonly key: Uint8Array;
  /** The bound was longer than any storable key and was cut to maxKeySize bytes. */
  readonly truncated: boolean;
}

/**
 * lmdb rejects bounds longer than its key limit. For a bound B longer than every stored key and
 * its prefix T of maxKeySize bytes, any stored key k has k >= B iff k > T, and k < B iff k <= T,
 * so comparing against T with the opposite inclusiveness is exact.
 */
function boundOf(key: Uint8Array, maxKeySize: number): Bound {
  if (key.byteLength <= maxKeySize) return { key, truncated: false };
  return { key: key.subarray(0, maxKeySize), truncated: true };
}

/** lmdb knows its limit but does not declare it in its types. */
/**
 * lmdb rejects every write of a failed commit with "Commit failed" and carries the cause (ENOSPC,
 * EIO) as a second promise, `commitError`, which would otherwise reject unhandled and end the
 * process. Waits a moment for it and answers an error naming it, with its errno code.
 */
async function commitFailure(error: unknown): Promise<never> {
  const cause = await commitCause(error);
  if (cause === undefined) throw error;
  const code = typeof Reflect.get(cause, 'code') === 'string' ? String(Reflect.get(cause, 'code')) : errnoName(Reflect.get(cause, 'code'));
  throw Object.assign(new Error(`LMDB could not commit: ${cause.message}`, { cause }), { code });
}

function quietCommitFailure(error: unknown): void {
  void commitCause(error);
}

/**
 * A failed commit also rejects a promise lmdb keeps for itself (none of those its writes return,
 * measured on a full tmpfs), which nobody can handle and which would end the process. That one,
 * recognised by its message and its commitError, is dropped: the writes' own promises carry the
 * failure to the store. Any other unhandled rejection is left to the process's own handlers
 * when it has some (a test runner, an application embedding dynatwin: a listener of ours must not
 * end a process they keep alive), and otherwise thrown again, as Node does without a listener.
 */
function ignoreOrphanCommitFailure(reason: unknown): void {
  if (reason instanceof Error && reason.message === 'Commit failed (see commitError for details)' && Reflect.get(reason, 'commitError') instanceof Promise) {
    quietCommitFailure(reason);
    return;
  }
  if (process.listenerCount('unhandledRejection') > 1) return;
  throw reason;
}

/** How long a failed commit's cause is waited for (it is rejected in the same commit callback). */
const COMMIT_CAUSE_WAIT_MS = 1000;

async function commitCause(error: unknown): Promise<Error | undefined> {
  const commitError: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'commitError') : undefined;
  if (!(commitError instanceof Promise)) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), COMMIT_CAUSE_WAIT_MS);
    timer.unref();
  });
  const cause = await Promise.race([commitError.then(() => undefined, (reason: unknown) => (reason instanceof Error ? reason : new Error(String(reason)))), timeout]);
  clearTimeout(timer);
  return cause;
}

/** lmdb reports a system error by its number: the names dynatwin tells apart. */
function errnoName(code: unknown): string | undefined {
  if (code === 28) return 'ENOSPC';
  if (code === 5) return 'EIO';
  if (code === 122) return 'EDQUOT';
  return undefined;
}

function maxKeySizeOf(db: Database): number {
  const size: unknown = Reflect.get(db, 'maxKeySize');
  return typeof size === 'number' ? size : MAX_KEY_BYTES;
}

/** LMDB's stamp (MDB_MAGIC), in the header of its first meta page. */
const LMDB_MAGIC = 0xbeefc0de;
/**
 * Where the stamp is in the first page: after the page header, 24 bytes in lmdb-js's LMDB (its
 * header carries a transaction id), 16 in LMDB 0.9's.
 */
const LMDB_MAGIC_OFFSETS = [24, 16];
/** An LMDB file holds at least its two meta pages, of 4 KB at the least. */
const LMDB_FILE_BYTES_MIN = 2 * 4096;
/**
 * LMDB writes whole pages (4 KB at the least) and sizes a file it grows to whole OS pages: a size
 * that is no multiple of 4 KB is a file cut short (a copy that ran out of room, a truncation),
 * whose pages past the cut lmdb-js would read through its map and die of SIGBUS (exit 135, no
 * message: measured on a copy cut at byte 200,000 of 303,104).
 */
const LMDB_FILE_BYTES_UNIT = 4096;

/**
 * Refuses a data.mdb that LMDB cannot have written (shorter than its two meta pages, without its
 * stamp, or cut inside a page), reading its first bytes only: lmdb-js ends the process with a segmentation fault on
 * such a file (a truncated copy, one written over), where a start-up should say which file is
 * damaged. An empty file is LMDB's to initialise. It is no check of the B-tree's pages, which LMDB
 * does not checksum.
 */
async function assertDataFileStamped(location: string): Promise<void> {
  const path = join(location, 'data.mdb');
  let handle;
  try {
    handle = await openFile(path, 'r');
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) return;
    const head = Buffer.alloc(32);
    const { bytesRead } = await handle.read(head, 0, head.byteLength, 0);
    const stamped = bytesRead === head.byteLength && LMDB_MAGIC_OFFSETS.some((at) => head.readUInt32LE(at) === LMDB_MAGIC || head.readUInt32BE(at) === LMDB_MAGIC);
    if (size < LMDB_FILE_BYTES_MIN || !stamped || size % LMDB_FILE_BYTES_UNIT !== 0) {
      const why =
        size < LMDB_FILE_BYTES_MIN
          ? `${size} bytes, shorter than any LMDB file`
          : !stamped
            ? 'its first page is not an LMDB meta page'
            : `${size} bytes, not a whole number of ${LMDB_FILE_BYTES_UNIT}-byte pages: cut short`;
      throw new DamagedFileError(`the LMDB data file ${path} is damaged (${why}); nothing on the disk was changed. Restore it from a copy of the data directory`);
    }
  } finally {
    await handle.close();
  }
}
