/**
 * Space-Saving (Metwally, Agrawal, El Abbadi 2005): the heavy hitters of a weighted stream in a
 * fixed number of counters, whatever the number of distinct keys.
 *
 * The sketch monitors at most `capacity` keys. A monitored key's counter grows by each weight; an
 * unmonitored key takes over the counter with the smallest count, inheriting that count as its
 * possible overestimate (`error`). Guarantees, with W the total weight added:
 * - every key whose true weight exceeds W / capacity is monitored;
 * - a monitored key's count overestimates its true weight by at most its `error` ≤ W / capacity,
 *   so `count - error` is a lower bound.
 *
 * Counters sit in flat arrays with a binary min-heap over them (smallest count on top), found by
 * key through an open-addressing hash table of their own (linear probing, at most half full,
 * backward-shift deletion). An add is a hash of at most 64 characters, a few probes and
 * O(log capacity) swaps, and allocates nothing: a JavaScript Map here spent most of the time
 * rehashing, since a skewed stream evicts a counter on nearly every add.
 */

export interface Contributor {
  readonly key: string;
  /** Estimated total weight (an upper bound of the true weight). */
  readonly count: number;
  /** How much `count` may overestimate: the true weight is in [count - error, count]. */
  readonly error: number;
}

export const SKETCH_CAPACITY_MAX = 100_000;

export class SpaceSaving {
  readonly capacity: number;
  /** Hash table: slot + 1 of the key hashed there, 0 when empty. */
  readonly #table: Int32Array;
  readonly #mask: number;
  /** Per slot: its key, its home position in the table, its count and its error. */
  readonly #keys: string[];
  readonly #homes: Int32Array;
  readonly #counts: Float64Array;
  readonly #errors: Float64Array;
  /** heap[i] = slot; the slot with the smallest count is heap[0]. */
  readonly #heap: Int32Array;
  /** position[slot] = index of the slot in the heap. */
  readonly #position: Int32Array;
  #size = 0;
  #total = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > SKETCH_CAPACITY_MAX) {
      throw new RangeError(`capacity must be an integer between 1 and ${SKETCH_CAPACITY_MAX}`);
    }
    this.capacity = capacity;
    const tableSize = 2 ** Math.ceil(Math.log2(capacity * 2));
    this.#table = new Int32Array(tableSize);
    this.#mask = tableSize - 1;
    this.#keys = new Array<string>(capacity).fill('');
    this.#homes = new Int32Array(capacity);
    this.#counts = new Float64Array(capacity);
    this.#errors = new Float64Array(capacity);
    this.#heap = new Int32Array(capacity);
    this.#position = new Int32Array(capacity);
  }

  /** Keys monitored now (≤ capacity). */
  get size(): number {
    return this.#size;
  }

  /** The total weight added since the last clear. */
  get total(): number {
    return this.#total;
  }

  /** Adds `weight` (> 0, finite) to `key`. Weights that are not positive are ignored: they contribute nothing. */
  add(key: string, weight: number): void {
    if (!(weight > 0) || weight === Infinity) return;
    this.#total += weight;
    const home = this.#homeOf(key);
    const slot = this.#find(key, home);
    if (slot >= 0) {
      this.#counts[slot]! += weight;
      this.#siftDown(this.#position[slot]!);
      return;
    }
    if (this.#size < this.capacity) {
      const free = this.#size++;
      this.#keys[free] = key;
      this.#counts[free] = weight;
      this.#errors[free] = 0;
      this.#insert(free, home);
      this.#heap[free] = free;
      this.#position[free] = free;
      this.#siftUp(free);
      return;
    }
    // Replace the smallest counter: the newcomer may have been seen up to `minimum` times unmonitored.
    const smallest = this.#heap[0]!;
    const minimum = this.#counts[smallest]!;
    this.#remove(smallest);
    this.#keys[smallest] = key;
    this.#insert(smallest, home);
    this.#counts[smallest] = minimum + weight;
    this.#errors[smallest] = minimum;
    this.#siftDown(0);
  }

  /** The `n` largest counters, largest first (ties by key, for stable output). */
  top(n: number): Contributor[] {
    const contributors: Contributor[] = [];
    for (let slot = 0; slot < this.#size; slot++) {
      contributors.push({ key: this.#keys[slot]!, count: this.#counts[slot]!, error: this.#errors[slot]! });
    }
    contributors.sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return contributors.slice(0, Math.max(0, n));
  }

  /** Forgets every key (the next period starts); keeps the arrays. */
  clear(): void {
    this.#table.fill(0);
    this.#keys.fill('');
    this.#size = 0;
    this.#total = 0;
  }

  /**
   * FNV-1a over the length and the first and last 32 characters: bounded work for keys of up to
   * 3 KB. Keys sharing both ends collide and are told apart by comparison.
   */
  #homeOf(key: string): number {
    const length = key.length;
    let hash = Math.imul(0x811c9dc5 ^ length, 0x01000193);
    const head = Math.min(length, 32);
    for (let i = 0; i < head; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
    for (let i = Math.max(head, length - 32); i < length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
    return (hash ^ (hash >>> 15)) & this.#mask;
  }

  /** The slot monitoring `key`, or -1. */
  #find(key: string, home: number): number {
    for (let position = home; ; position = (position + 1) & this.#mask) {
      const entry = this.#table[position]!;
      if (entry === 0) return -1;
      if (this.#keys[entry - 1] === key) return entry - 1;
    }
  }

  #insert(slot: number, home: number): void {
    this.#homes[slot] = home;
    let position = home;
    while (this.#table[position] !== 0) position = (position + 1) & this.#mask;
    this.#table[position] = slot + 1;
  }

  /** Removes a slot's key; later entries of its probe run move back so lookups never stop early. */
  #remove(slot: number): void {
    let hole = this.#homes[slot]!;
    while (this.#table[hole] !== slot + 1) hole = (hole + 1) & this.#mask;
    this.#table[hole] = 0;
    for (let position = (hole + 1) & this.#mask; ; position = (position + 1) & this.#mask) {
      const entry = this.#table[position]!;
      if (entry === 0) return;
      const entryHome = this.#homes[entry - 1]!;
      // The entry may fill the hole unless its home lies cyclically in (hole, position].
      const homeBetween = hole <= position ? entryHome > hole && entryHome <= position : entryHome > hole || entryHome <= position;
      if (homeBetween) continue;
      this.#table[hole] = entry;
      this.#table[position] = 0;
      hole = position;
    }
  }

  #siftUp(index: number): void {
    let child = index;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (this.#countAt(parent) <= this.#countAt(child)) return;
      this.#swap(parent, child);
      child = parent;
    }
  }

  #siftDown(index: number): void {
    let parent = index;
    for (;;) {
      const left = 2 * parent + 1;
      if (left >= this.#size) return;
      const right = left + 1;
      const smaller = right < this.#size && this.#countAt(right) < this.#countAt(left) ? right : left;
      if (this.#countAt(parent) <= this.#countAt(smaller)) return;
      this.#swap(parent, smaller);
      parent = smaller;
    }
  }

  #countAt(heapIndex: number): number {
    return this.#counts[this.#heap[heapIndex]!]!;
  }

  #swap(a: number, b: number): void {
    const slotA = this.#heap[a]!;
    const slotB = this.#heap[b]!;
    this.#heap[a] = slotB;
    this.#heap[b] = slotA;
    this.#position[slotB] = a;
    this.#position[slotA] = b;
  }
}
