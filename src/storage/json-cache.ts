/**
 * The JSON text of stored values read through getWithJson, and the answer a reader builds around
 * it (ValueWithJson.answer: GetItem's, encoded), by value, within a byte budget. Stored values are
 * immutable, so an entry stays right for as long as its value is current; a replaced value is
 * simply never asked for again and leaves when its turn comes.
 *
 * Why a budget: reading an item keeps about twice its size again (its text and its answer's
 * bytes). Kept for every item ever read, a Scan-sized sweep of GetItems would double the memory
 * of a large table; within the budget, a hot set of items is answered without being encoded
 * again, which is where the cache pays (~13% of a 1 KB GetItem's server CPU, perf).
 *
 * Eviction is first in, first out: a hit costs one Map lookup and no reordering.
 */
import type { StoredValue, ValueWithJson } from './storage.js';

/** Bytes the cache may hold: about 20,000 entries of 1 KB items. */
export const JSON_CACHE_BYTES_MAX = 64 * 1024 * 1024;
/**
 * What one entry is counted as, per character of its text: the text, the answer's bytes, and
 * the value it keeps alive once the store has replaced it (about the text's size again).
 */
const ENTRY_BYTES_PER_CHARACTER = 3;
/** The entry object, the Map slot, and the answer's objects (JsonText, body) and small strings. */
const ENTRY_BYTES_FIXED = 256;

export class JsonCache {
  readonly #entries = new Map<StoredValue, ValueWithJson>();
  readonly #bytesMax: number;
  #bytes = 0;

  constructor(bytesMax: number = JSON_CACHE_BYTES_MAX) {
    if (!(bytesMax >= 0)) throw new Error(`a JSON cache's byte budget must be >= 0, got ${bytesMax}`);
    this.#bytesMax = bytesMax;
  }

  /** Entries kept (diagnostics and tests). */
  get size(): number {
    return this.#entries.size;
  }

  /** Bytes the kept entries are counted as; never above the budget. */
  get bytes(): number {
    return this.#bytes;
  }

  /** `value` with its JSON text: the kept entry, or a new one (kept if it fits the budget at all). */
  entry(value: StoredValue): ValueWithJson {
    const cached = this.#entries.get(value);
    if (cached !== undefined) return cached;
    const made: ValueWithJson = { value, json: JSON.stringify(value) };
    const bytes = entryBytes(made);
    if (bytes > this.#bytesMax) return made;
    this.#entries.set(value, made);
    this.#bytes += bytes;
    if (this.#bytes > this.#bytesMax) this.#evict();
    return made;
  }

  /** Drops the oldest entries until the budget holds. */
  #evict(): void {
    for (const [value, entry] of this.#entries) {
      if (this.#bytes <= this.#bytesMax) break;
      this.#entries.delete(value);
      this.#bytes -= entryBytes(entry);
    }
    if (!(this.#bytes <= this.#bytesMax)) throw new Error(`the JSON cache holds ${this.#bytes} bytes, past its ${this.#bytesMax}`);
  }
}

function entryBytes(entry: ValueWithJson): number {
  return ENTRY_BYTES_FIXED + ENTRY_BYTES_PER_CHARACTER * entry.json.length;
}
