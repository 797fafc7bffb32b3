/**
 * The Storage interface: an ordered, transactional key-value store.
 *
 * Keys are byte strings compared as unsigned bytes (memcmp order). The engine builds keys with
 * src/model/key-codec.ts so that byte order is DynamoDB's order. Values are plain JSON-compatible
 * objects (items in AttributeValue wire form, table descriptions); a stored value is immutable:
 * neither the store nor its callers may mutate an object after `put` or after it was returned
 * by a read.
 *
 * Concurrency model: all writes go through `write(fn)`. `fn` runs synchronously and exclusively
 * (no other write runs while it does) and sees its own writes and every earlier write, committed
 * or not, so a read-check-write inside one `fn` is serialisable. The returned promise resolves
 * only once the store has committed the write durably (an acknowledged write survives a crash of
 * the process; `memory` aside). A write applies whole or not at all: when `fn` throws, every
 * `put`/`remove` it made is undone (both stores) and the promise rejects with its error. A key
 * passed to `put`/`remove` must not be modified until `fn` returns. The engine still does all of
 * its checks before its first `put` (write-pipeline.ts), because its own in-memory state
 * (statistics, partitions, item collections) moves with the puts and is not rolled back.
 *
 * Reads outside `write` see the last committed state.
 */

import type { JsonText } from '../model/encoded-text.js';

export type StoredValue = object;

export interface RangeOptions {
  /** Inclusive lower bound; omitted means from the first key. */
  readonly start?: Uint8Array;
  /** Exclusive upper bound; omitted means to the last key. */
  readonly end?: Uint8Array;
  /** Iterate from the upper bound down. */
  readonly reverse?: boolean;
  /** At most this many entries. */
  readonly limit?: number;
}

export interface Entry {
  readonly key: Uint8Array;
  readonly value: StoredValue;
}

export interface ReadView {
  get(key: Uint8Array): StoredValue | undefined;
  /** Entries with start <= key < end, in byte order (or reverse). Lazy: stop iterating to stop reading. */
  range(options: RangeOptions): Iterable<Entry>;
}

export interface WriteTransaction extends ReadView {
  put(key: Uint8Array, value: StoredValue): void;
  /**
   * Optional, for a store that encodes values as it goes (logged.ts): puts `value`, whose JSON
   * is exactly head + JSON.stringify(inner) + tail, where `inner` is usually a value this write
   * put before (a stream record carrying the item). The store then reuses inner's encoding
   * instead of encoding it again; otherwise this is put(key, value). Stores that keep objects
   * (memory) or encode at commit (lmdb) leave it out, and callers then simply put.
   */
  putSpliced?(key: Uint8Array, value: StoredValue, head: string, inner: StoredValue, tail: string): void;
  remove(key: Uint8Array): void;
  /**
   * Optional, for a store other processes write too (postgres.ts): the current values of `keys`
   * (undefined for absent ones), read after each key is locked against every other writer of the
   * store until this write commits, so a check made on them still holds at commit. 'wait' waits
   * for a key another write holds; 'fail' throws KeyConflictError instead (a transaction, which
   * DynamoDB cancels rather than queue). Stores only this process writes leave it out: `fn` runs
   * exclusively there, and callers then simply get.
   */
  getLocked?(keys: readonly Uint8Array[], mode: LockMode): (StoredValue | undefined)[];
}

/** How getLocked treats a key another write holds: wait for it, or fail at once. */
export type LockMode = 'wait' | 'fail';

/** getLocked('fail') found a key another write holds: nothing was read, the write must not go on. */
export class KeyConflictError extends Error {
  readonly key: Uint8Array;

  constructor(key: Uint8Array) {
    super('a key this write reads is held by another write');
    this.key = key;
  }
}

/** A committed value together with its JSON text, exactly `JSON.stringify(value)`. */
export interface ValueWithJson {
  readonly value: StoredValue;
  readonly json: string;
  /**
   * Free for the reader that sends `json` on: the answer it builds around it, encoded, built once
   * per committed value (GetItem's; see operations/getItem.ts). A store that caches entries keeps
   * it as long as the value; one that hands out fresh entries simply never sees it again.
   */
  answer?: JsonText;
}


export interface Storage extends ReadView {
  /** 'lmdb' or 'memory', for the banner and diagnostics. */
  readonly kind: string;
  /** Where the data lives: a directory for lmdb, '(memory)' otherwise. */
  readonly location: string;
  /**
   * Like get (the last committed state), with the value's JSON text as well, for a caller that
   * sends the value on as JSON and would otherwise encode it again. Same key rules as get.
   */
  getWithJson(key: Uint8Array): ValueWithJson | undefined;
  write<T>(fn: (txn: WriteTransaction) => T): Promise<T>;
  /**
   * Why writes are refused now, for a disk fault (the logged store, see its DISK FAULTS); undefined
   * while they are taken, and always for the stores that have no such state.
   */
  readonly writeRefusal?: WriteRefusal | undefined;
  /**
   * This store, but a write made while writes are refused waits for them to be taken again
   * instead of failing (background work); absent: the store itself.
   */
  waitingWrites?(): Storage;
  /**
   * What runs before writes resume after a refusal that failed writes whose callbacks had run: the
   * caller's in-memory state moved with them and must be rebuilt from the store (server.ts opens a
   * new engine on it). Writes stay refused until it settles.
   */
  onWritesLost?(handler: (() => Promise<void>) | undefined): void;
  /** Waits for pending writes to commit, then releases the store. Idempotent. */
  close(): Promise<void>;
}

/** What a store refusing writes for a disk fault reports (metrics, the dashboard, the 503's text). */
export interface WriteRefusal {
  /** The system error's code: 'ENOSPC', 'EIO', 'EDQUOT' ..., or 'ERROR' when it had none. */
  readonly code: string;
  /** What failed (logged.ts REFUSAL_STAGES says each in words). */
  readonly stage: RefusalStage;
  /** The data directory. */
  readonly path: string;
  /** Wall-clock time the refusal began, epoch ms. */
  readonly sinceMs: number;
  /** Free bytes the store needs before it takes writes again (a prepared log segment), at least. */
  readonly neededBytes: number;
  /** The failure's own text. */
  readonly detail: string;
  /** A frame failed after its writes ran: the engine's in-memory state is rebuilt before writes resume. */
  readonly lostWrites: boolean;
}

export type RefusalStage = 'log' | 'segment' | 'checkpoint' | 'space';
