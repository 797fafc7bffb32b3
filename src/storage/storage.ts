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
  /** Waits for pending writes to commit, then releases the store. Idempotent. */
  close(): Promise<void>;
}
