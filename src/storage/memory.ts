/**
 * A non-durable Storage on the in-memory B+tree, for tests and throwaway servers.
 *
 * Writes apply to the tree directly, so "committed" means "fn returned". Each put and remove
 * notes the value it displaced in an undo log (the tree hands it back at no extra lookup); when fn
 * throws, the log is played backwards and the tree is exactly as before the write, as the Storage
 * contract requires.
 */
import { BTree } from './btree.js';
import { JsonCache } from './json-cache.js';
import type { Entry, RangeOptions, Storage, StoredValue, ValueWithJson, WriteTransaction } from './storage.js';

/**
 * Longest key accepted. This is LMDB's limit at the page size LmdbStorage uses; the memory store
 * enforces it too so that code tested against memory fails the same way it would on disk.
 */
export const MAX_KEY_BYTES = 4026;

export class MemoryStorage implements Storage {
  readonly kind = 'memory';
  readonly location = '(memory)';
  readonly #tree = new BTree<StoredValue>();
  /** The JSON text (and answer) of values read through getWithJson, within a budget (json-cache.ts). */
  readonly #json = new JsonCache();
  /** True while a write fn runs; a write() issued from inside one is queued behind it. */
  #writing = false;
  /** The running write's undo log, reused by every write; emptied when the write ends. */
  readonly #undo = new UndoLog<Uint8Array, StoredValue>();
  readonly #queued: Array<() => void> = [];
  #closed = false;

  get(key: Uint8Array): StoredValue | undefined {
    this.#assertOpen();
    return this.#tree.get(key);
  }

  getWithJson(key: Uint8Array): ValueWithJson | undefined {
    this.#assertOpen();
    const value = this.#tree.get(key);
    return value === undefined ? undefined : this.#json.entry(value);
  }

  range(options: RangeOptions): Iterable<Entry> {
    this.#assertOpen();
    return this.#tree.range(options);
  }

  write<T>(fn: (txn: WriteTransaction) => T): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('storage is closed'));
    if (this.#writing) {
      // Same behaviour as LMDB: a write started inside a write runs after it, not nested in it.
      return new Promise<T>((resolve, reject) => {
        this.#queued.push(() => {
          try {
            resolve(this.#runExclusive(fn));
          } catch (error) {
            reject(error);
          }
        });
      });
    }
    // The common case runs at once, without a promise executor and a closure per write.
    let result: T;
    try {
      result = this.#runExclusive(fn);
    } catch (error) {
      this.#drainQueue();
      return Promise.reject(error);
    }
    this.#drainQueue();
    return Promise.resolve(result);
  }

  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  #runExclusive<T>(fn: (txn: WriteTransaction) => T): T {
    const undo = this.#undo;
    const txn = new MemoryTransaction(this.#tree, undo);
    this.#writing = true;
    try {
      return callSynchronously(fn, txn);
    } catch (error) {
      this.#rollBack();
      throw error;
    } finally {
      this.#writing = false;
      undo.clear();
      txn.end();
    }
  }

  /** Undoes the running write's changes, newest first. */
  #rollBack(): void {
    const undo = this.#undo;
    for (let at = undo.count - 1; at >= 0; at--) {
      const key = undo.keyAt(at);
      const previous = undo.displacedAt(at);
      if (previous === undefined) this.#tree.delete(key);
      else this.#tree.set(key, previous);
    }
  }

  #drainQueue(): void {
    for (let next = this.#queued.shift(); next !== undefined; next = this.#queued.shift()) next();
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('storage is closed');
  }
}

/** The view handed to one write fn; it refuses use after fn returned, when it would bypass write(). */
class MemoryTransaction implements WriteTransaction {
  readonly #tree: BTree<StoredValue>;
  readonly #undo: UndoLog<Uint8Array, StoredValue>;
  #active = true;

  constructor(tree: BTree<StoredValue>, undo: UndoLog<Uint8Array, StoredValue>) {
    this.#tree = tree;
    this.#undo = undo;
  }

  end(): void {
    this.#active = false;
  }

  get(key: Uint8Array): StoredValue | undefined {
    this.#assertActive();
    return this.#tree.get(key);
  }

  range(options: RangeOptions): Iterable<Entry> {
    this.#assertActive();
    return guardIteration(this.#tree.range(options), () => this.#active);
  }

  put(key: Uint8Array, value: StoredValue): void {
    this.#assertActive();
    assertStorableKey(key);
    // The key object is kept, not copied: fn may not modify a key it passed until it returns.
    this.#undo.record(key, this.#tree.set(key, value));
  }

  remove(key: Uint8Array): void {
    this.#assertActive();
    const removed = this.#tree.remove(key);
    if (removed !== undefined) this.#undo.record(key, removed);
  }

  #assertActive(): void {
    if (!this.#active) throw new Error('write transaction used after its write() callback returned');
  }
}

/** Changes an undo log keeps room for between writes: a write of a few items uses a handful. */
const UNDO_KEPT_MAX = 256;

/**
 * A write's undo log: per change, the key and the value it displaced (undefined: the key was
 * absent), in the order of the changes, reused from write to write. It is emptied by its count:
 * emptying its arrays with `length = 0` dropped their backing stores, so every PutItem allocated
 * them again (~150 bytes, heap sampling, issue 21). Cleared entries are overwritten with
 * undefined so a kept slot keeps no displaced item alive, and room past UNDO_KEPT_MAX (a large
 * transaction's) is let go.
 */
export class UndoLog<K, V> {
  readonly #keys: (K | undefined)[] = [];
  readonly #displaced: (V | undefined)[] = [];
  #count = 0;

  /** Changes logged since the last clear. */
  get count(): number {
    return this.#count;
  }

  record(key: K, displaced: V | undefined): void {
    const at = this.#count++;
    if (at < this.#keys.length) {
      this.#keys[at] = key;
      this.#displaced[at] = displaced;
    } else {
      this.#keys.push(key);
      this.#displaced.push(displaced);
    }
  }

  /** The key of change `at` (0 is the oldest). */
  keyAt(at: number): K {
    this.#assertLogged(at);
    return this.#keys[at] as K;
  }

  /** The value change `at` displaced (undefined: its key was absent). */
  displacedAt(at: number): V | undefined {
    this.#assertLogged(at);
    return this.#displaced[at];
  }

  clear(): void {
    for (let at = 0; at < this.#count; at++) {
      this.#keys[at] = undefined;
      this.#displaced[at] = undefined;
    }
    this.#count = 0;
    // Shortening to a non-zero length keeps the backing store (emptying would drop it).
    if (this.#keys.length > UNDO_KEPT_MAX) {
      this.#keys.length = UNDO_KEPT_MAX;
      this.#displaced.length = UNDO_KEPT_MAX;
    }
  }

  #assertLogged(at: number): void {
    if (!(Number.isInteger(at) && at >= 0 && at < this.#count)) throw new Error(`assertion failed: undo log entry ${at} of ${this.#count}`);
  }
}

/** Rejects keys LMDB would reject, so both stores agree on what is storable. */
export function assertStorableKey(key: Uint8Array, maxKeySize: number = MAX_KEY_BYTES): void {
  if (key.byteLength === 0) throw new Error('a storage key must not be empty');
  if (key.byteLength > maxKeySize) {
    throw new Error(`storage key is ${key.byteLength} bytes, more than the ${maxKeySize} allowed`);
  }
}

/** Wraps a lazy iteration so it fails loudly if continued after its transaction ended. */
export function* guardIteration<E>(entries: Iterable<E>, isActive: () => boolean): Generator<E, void, undefined> {
  for (const entry of entries) {
    if (!isActive()) throw new Error('range iterated after its write() callback returned');
    yield entry;
  }
}

/** Runs a write callback, refusing one that returns a promise: it would go on after its write "finished", outside its exclusivity. */
export function callSynchronously<T>(fn: (txn: WriteTransaction) => T, txn: WriteTransaction): T {
  const result = fn(txn);
  if (isThenable(result)) {
    result.then(undefined, () => undefined);
    throw new Error('write() callbacks must be synchronous');
  }
  return result;
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
