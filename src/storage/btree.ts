/**
 * An in-memory ordered map from byte-string keys to values: a B+tree with up to 64 keys per node.
 *
 * Keys are compared as unsigned bytes. A key is kept only as a 'latin1' binary string (one UTF-16
 * code unit per byte, all <= 0xff): JS string comparison is then exactly memcmp order, V8 compares
 * strings far faster than we could compare Uint8Arrays in JS, and a short string is small. Leaves
 * hold parallel arrays of keys and values, nothing per entry. Keeping each key's bytes as well (a
 * Uint8Array with its own ArrayBuffer and backing store) cost ~330 bytes of RSS per key, about a
 * third of a stored 1 KB item (issue 21, measured with heap snapshots of 100,000 items). A range
 * step hands out a small entry object instead, whose key bytes are made only when read.
 *
 * Every operation is O(log n) (node-local splices are bounded by the fan-out). Leaves are linked
 * both ways so a range scan walks leaf to leaf. Range iterators are lazy and tolerate the tree
 * changing between two steps: after a structural change they re-seek from the last key they
 * yielded, so they continue with the keys after it as the tree is *now*.
 */

/** Most keys a node may hold; a node that reaches MAX_KEYS + 1 splits. */
const MAX_KEYS = 64;
/** Fewest keys a non-root node may hold; below it, a node borrows from or merges with a sibling. */
const MIN_KEYS = MAX_KEYS / 2;

export interface BTreeEntry<V> {
  readonly key: Uint8Array;
  readonly value: V;
}

/** An entry a range step yields: the key's bytes are made from its binary string on first use. */
export class BinaryKeyedEntry<V> implements BTreeEntry<V> {
  #key: Uint8Array | undefined = undefined;

  constructor(
    /** The key in its binary string form (toBinaryString). */
    readonly binaryKey: string,
    readonly value: V,
  ) {}

  get key(): Uint8Array {
    return (this.#key ??= fromBinaryString(this.binaryKey));
  }
}

export interface BTreeRangeOptions {
  /** Inclusive lower bound. */
  readonly start?: Uint8Array;
  /** Exclusive upper bound. */
  readonly end?: Uint8Array;
  readonly reverse?: boolean;
  readonly limit?: number;
}

/** The memcmp-ordered string form of a key: one char per byte. */
export function toBinaryString(key: Uint8Array): string {
  // Keys are mostly Buffers already (key-codec.ts makes them): decoded as they are, without the
  // Buffer view a plain Uint8Array needs (~90 bytes and ~150 ns per lookup, a third of a GetItem's
  // tree lookup, measured with a 20,000-key tree).
  if (key instanceof Buffer) return key.toString('latin1');
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}

/** The key bytes of a binary string (the inverse of toBinaryString). */
export function fromBinaryString(binary: string): Uint8Array {
  // A plain Uint8Array of its own (not a view of Buffer's shared pool, which a kept key would pin).
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

class Leaf<V> {
  readonly isLeaf = true;
  keys: string[] = [];
  /** values[i] is the value of keys[i]. */
  values: V[] = [];
  prev: Leaf<V> | null = null;
  next: Leaf<V> | null = null;
}

class Internal<V> {
  readonly isLeaf = false;
  /** keys[i] separates children[i] (all keys < keys[i]) from children[i + 1] (all keys >= keys[i]). */
  keys: string[];
  children: TreeNode<V>[];

  constructor(keys: string[], children: TreeNode<V>[]) {
    this.keys = keys;
    this.children = children;
  }
}

type TreeNode<V> = Leaf<V> | Internal<V>;

/** What a child hands its parent after an insert made it split. */
interface Split<V> {
  readonly separator: string;
  readonly right: TreeNode<V>;
}

/** A position in the leaf chain; index may be out of the leaf's bounds (meaning "nothing here"). */
interface Cursor<V> {
  leaf: Leaf<V>;
  index: number;
}

/** First index i with keys[i] >= key. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index i with keys[i] > key. */
function upperBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the child of `node` whose key range contains `key`. */
function childIndex<V>(node: Internal<V>, key: string): number {
  return upperBound(node.keys, key);
}

export class BTree<V> {
  #root: TreeNode<V> = new Leaf<V>();
  #size = 0;
  /** Bumped on every insert and delete, so lazy iterators know to re-seek. */
  #version = 0;
  /** The value the last set replaced or the last delete removed (their return value's scratch). */
  #displaced: V | undefined = undefined;
  /**
   * Where the last get found its key (or where the key would go): a write reads an item, then
   * puts or removes it, and the put or remove starts there instead of descending the tree again
   * (~1 us of a PutItem's ~2 us of tree work at 100,000 keys, each level's binary search missing
   * the cache on every key it compares). Valid while #version is unchanged: only inserts and
   * deletes change which leaf holds a key or where in it.
   */
  #fingerKey: string | undefined = undefined;
  #fingerLeaf: Leaf<V> | undefined = undefined;
  #fingerIndex = 0;
  #fingerVersion = 0;

  get size(): number {
    return this.#size;
  }

  get(key: Uint8Array): V | undefined {
    return this.getByBinary(toBinaryString(key));
  }

  /** get, for a key already in its binary string form (toBinaryString): one conversion for several trees. */
  getByBinary(k: string): V | undefined {
    const leaf = this.#leafFor(k);
    const i = lowerBound(leaf.keys, k);
    this.#fingerKey = k;
    this.#fingerLeaf = leaf;
    this.#fingerIndex = i;
    this.#fingerVersion = this.#version;
    return leaf.keys[i] === k ? leaf.values[i] : undefined;
  }

  /** The leaf the last get of `k` found, if the tree has not changed shape since; else undefined. */
  #fingerFor(k: string): Leaf<V> | undefined {
    const leaf = this.#fingerLeaf;
    if (leaf === undefined || this.#fingerVersion !== this.#version || this.#fingerKey !== k) return undefined;
    return leaf;
  }

  has(key: Uint8Array): boolean {
    const k = toBinaryString(key);
    const leaf = this.#leafFor(k);
    return leaf.keys[lowerBound(leaf.keys, k)] === k;
  }

  /**
   * Inserts or replaces. Only the key's string form is kept, so the caller may reuse its buffer.
   * Returns the value it replaced (undefined for a new key), so a caller can undo it.
   */
  set(key: Uint8Array, value: V): V | undefined {
    return this.setByBinary(toBinaryString(key), value);
  }

  /** set, for a key already in its binary string form (toBinaryString). */
  setByBinary(k: string, value: V): V | undefined {
    const leaf = this.#fingerFor(k);
    if (leaf !== undefined) {
      const i = this.#fingerIndex;
      if (leaf.keys[i] === k) {
        const displaced = leaf.values[i];
        leaf.values[i] = value;
        return displaced;
      }
      // A new key in a leaf with room: no split, so no node above it changes.
      if (leaf.keys.length < MAX_KEYS) {
        insertAt(leaf.keys, i, k);
        insertAt(leaf.values, i, value);
        this.#size++;
        this.#version++;
        return undefined;
      }
    }
    this.#displaced = undefined;
    const split = this.#insert(this.#root, k, value);
    if (split !== undefined) {
      this.#root = new Internal<V>([split.separator], [this.#root, split.right]);
    }
    return this.#take();
  }

  /** Removes the key; returns whether it was present. */
  delete(key: Uint8Array): boolean {
    return this.remove(key) !== undefined;
  }

  /** Removes the key; returns the value it had (undefined when absent). */
  remove(key: Uint8Array): V | undefined {
    const k = toBinaryString(key);
    const leaf = this.#fingerFor(k);
    // A leaf that keeps its fill (or is the root) needs no rebalancing: nothing above it changes.
    if (leaf !== undefined && (leaf === this.#root || leaf.keys.length > MIN_KEYS)) {
      const i = this.#fingerIndex;
      if (leaf.keys[i] !== k) return undefined;
      const removed = leaf.values[i];
      removeAt(leaf.keys, i);
      removeAt(leaf.values, i);
      this.#size--;
      this.#version++;
      return removed;
    }
    this.#displaced = undefined;
    this.#remove(this.#root, k);
    const root = this.#root;
    if (!root.isLeaf && root.keys.length === 0) {
      // The root lost its last separator in a merge: its only child becomes the root.
      this.#root = root.children[0]!;
    }
    return this.#take();
  }

  #take(): V | undefined {
    const displaced = this.#displaced;
    this.#displaced = undefined;
    return displaced;
  }

  /** Entries with start <= key < end, ascending (or descending with reverse), at most `limit`. */
  *range(options: BTreeRangeOptions = {}): Generator<BinaryKeyedEntry<V>, void, undefined> {
    const limit = options.limit ?? Infinity;
    if (limit <= 0) return;
    const start = options.start === undefined ? undefined : toBinaryString(options.start);
    const end = options.end === undefined ? undefined : toBinaryString(options.end);
    if (start !== undefined && end !== undefined && start >= end) return;
    if (options.reverse === true) yield* this.#scanDown(start, end, limit);
    else yield* this.#scanUp(start, end, limit);
  }

  *#scanUp(start: string | undefined, end: string | undefined, limit: number): Generator<BinaryKeyedEntry<V>, void, undefined> {
    let cursor = start === undefined ? this.#firstCursor() : this.#seekUp(start, false);
    let version = this.#version;
    let count = 0;
    while (count < limit) {
      cursor = this.#settleUp(cursor);
      const { leaf, index } = cursor;
      if (index >= leaf.keys.length) return;
      const key = leaf.keys[index]!;
      if (end !== undefined && key >= end) return;
      count++;
      yield new BinaryKeyedEntry(key, leaf.values[index]!);
      if (version !== this.#version) {
        // The tree changed while the consumer held the entry: node positions are stale.
        cursor = this.#seekUp(key, true);
        version = this.#version;
      } else {
        cursor.index++;
      }
    }
  }

  *#scanDown(start: string | undefined, end: string | undefined, limit: number): Generator<BinaryKeyedEntry<V>, void, undefined> {
    let cursor = end === undefined ? this.#lastCursor() : this.#seekDown(end);
    let version = this.#version;
    let count = 0;
    while (count < limit) {
      cursor = this.#settleDown(cursor);
      const { leaf, index } = cursor;
      if (index < 0) return;
      const key = leaf.keys[index]!;
      if (start !== undefined && key < start) return;
      count++;
      yield new BinaryKeyedEntry(key, leaf.values[index]!);
      if (version !== this.#version) {
        cursor = this.#seekDown(key);
        version = this.#version;
      } else {
        cursor.index--;
      }
    }
  }

  /**
   * Moves a cursor that ran off the end of its leaf to the start of the next non-empty leaf. In
   * place: a scan owns its cursor, and a new one per step was an object per item a Query read.
   */
  #settleUp(cursor: Cursor<V>): Cursor<V> {
    while (cursor.index >= cursor.leaf.keys.length && cursor.leaf.next !== null) {
      cursor.leaf = cursor.leaf.next;
      cursor.index = 0;
    }
    return cursor;
  }

  /** Moves a cursor that ran off the front of its leaf to the end of the previous leaf (in place). */
  #settleDown(cursor: Cursor<V>): Cursor<V> {
    while (cursor.index < 0 && cursor.leaf.prev !== null) {
      cursor.leaf = cursor.leaf.prev;
      cursor.index = cursor.leaf.keys.length - 1;
    }
    return cursor;
  }

  /** Cursor at the first key >= key (or > key when strict). */
  #seekUp(key: string, strict: boolean): Cursor<V> {
    const leaf = this.#leafFor(key);
    return { leaf, index: strict ? upperBound(leaf.keys, key) : lowerBound(leaf.keys, key) };
  }

  /** Cursor at the last key < key. */
  #seekDown(key: string): Cursor<V> {
    const leaf = this.#leafFor(key);
    return { leaf, index: lowerBound(leaf.keys, key) - 1 };
  }

  #firstCursor(): Cursor<V> {
    let node = this.#root;
    while (!node.isLeaf) node = node.children[0]!;
    return { leaf: node, index: 0 };
  }

  #lastCursor(): Cursor<V> {
    let node = this.#root;
    while (!node.isLeaf) node = node.children[node.children.length - 1]!;
    return { leaf: node, index: node.keys.length - 1 };
  }

  /** The leaf whose key range contains key (keys before it are < key, keys after it are > key). */
  #leafFor(key: string): Leaf<V> {
    let node = this.#root;
    while (!node.isLeaf) node = node.children[childIndex(node, key)]!;
    return node;
  }

  #insert(node: TreeNode<V>, k: string, value: V): Split<V> | undefined {
    if (node.isLeaf) return this.#insertIntoLeaf(node, k, value);
    const i = childIndex(node, k);
    const split = this.#insert(node.children[i]!, k, value);
    if (split === undefined) return undefined;
    node.keys.splice(i, 0, split.separator);
    node.children.splice(i + 1, 0, split.right);
    return node.keys.length > MAX_KEYS ? splitInternal(node) : undefined;
  }

  #insertIntoLeaf(leaf: Leaf<V>, k: string, value: V): Split<V> | undefined {
    const i = lowerBound(leaf.keys, k);
    if (leaf.keys[i] === k) {
      this.#displaced = leaf.values[i];
      leaf.values[i] = value;
      return undefined;
    }
    insertAt(leaf.keys, i, k);
    insertAt(leaf.values, i, value);
    this.#size++;
    this.#version++;
    return leaf.keys.length > MAX_KEYS ? splitLeaf(leaf) : undefined;
  }

  #remove(node: TreeNode<V>, k: string): boolean {
    if (node.isLeaf) return this.#removeFromLeaf(node, k);
    const i = childIndex(node, k);
    const child = node.children[i]!;
    const removed = this.#remove(child, k);
    if (removed && child.keys.length < MIN_KEYS) rebalanceChild(node, i);
    return removed;
  }

  #removeFromLeaf(leaf: Leaf<V>, k: string): boolean {
    const i = lowerBound(leaf.keys, k);
    if (leaf.keys[i] !== k) return false;
    this.#displaced = leaf.values[i];
    removeAt(leaf.keys, i);
    removeAt(leaf.values, i);
    this.#size--;
    this.#version++;
    return true;
  }

  /**
   * Verifies every structural invariant and throws on the first violation: sorted unique keys,
   * node fill bounds, separator bounds, uniform leaf depth, intact leaf links, as many values
   * as keys, and the size count. O(n); for tests.
   */
  checkInvariants(): void {
    const leaves: Leaf<V>[] = [];
    const count = checkNode(this.#root, undefined, undefined, true, leaves);
    if (count !== this.#size) throw new Error(`size is ${this.#size} but the tree holds ${count} keys`);
    checkLeafChain(leaves);
  }
}

/**
 * Inserts `value` at `at`, shifting the rest up: what `splice(at, 0, value)` does, without the
 * (empty) array splice returns and faster on a node's few dozen entries (~30%, measured on 48).
 */
function insertAt<T>(array: T[], at: number, value: T): void {
  let index = array.length;
  array.push(value);
  while (index > at) {
    array[index] = array[index - 1]!;
    index--;
  }
  array[at] = value;
}

/** Removes the entry at `at`, shifting the rest down: `splice(at, 1)` without its result array. */
function removeAt<T>(array: T[], at: number): void {
  const last = array.length - 1;
  for (let index = at; index < last; index++) array[index] = array[index + 1]!;
  array.pop();
}

function splitLeaf<V>(leaf: Leaf<V>): Split<V> {
  const right = new Leaf<V>();
  const mid = leaf.keys.length >>> 1;
  right.keys = leaf.keys.splice(mid);
  right.values = leaf.values.splice(mid);
  right.next = leaf.next;
  right.prev = leaf;
  if (leaf.next !== null) leaf.next.prev = right;
  leaf.next = right;
  return { separator: right.keys[0]!, right };
}

function splitInternal<V>(node: Internal<V>): Split<V> {
  const mid = node.keys.length >>> 1;
  const rightKeys = node.keys.splice(mid);
  // The middle key moves up: it separates the two halves in the parent.
  const separator = rightKeys.shift()!;
  const rightChildren = node.children.splice(mid + 1);
  return { separator, right: new Internal<V>(rightKeys, rightChildren) };
}

/** Restores MIN_KEYS in parent.children[i] by borrowing from a sibling, or else merging with one. */
function rebalanceChild<V>(parent: Internal<V>, i: number): void {
  const child = parent.children[i]!;
  const left = i > 0 ? parent.children[i - 1]! : undefined;
  const right = i + 1 < parent.children.length ? parent.children[i + 1]! : undefined;
  if (left !== undefined && left.keys.length > MIN_KEYS) {
    borrowFromLeft(parent, i, left, child);
  } else if (right !== undefined && right.keys.length > MIN_KEYS) {
    borrowFromRight(parent, i, child, right);
  } else if (left !== undefined) {
    mergeChildren(parent, i - 1);
  } else if (right !== undefined) {
    mergeChildren(parent, i);
  }
  // No sibling at all only happens for the root's single child, which the caller collapses.
}

function borrowFromLeft<V>(parent: Internal<V>, i: number, left: TreeNode<V>, child: TreeNode<V>): void {
  if (left.isLeaf && child.isLeaf) {
    child.keys.unshift(left.keys.pop()!);
    child.values.unshift(left.values.pop()!);
    parent.keys[i - 1] = child.keys[0]!;
  } else if (!left.isLeaf && !child.isLeaf) {
    // Rotate through the parent: its separator comes down, left's last key goes up.
    child.keys.unshift(parent.keys[i - 1]!);
    child.children.unshift(left.children.pop()!);
    parent.keys[i - 1] = left.keys.pop()!;
  }
}

function borrowFromRight<V>(parent: Internal<V>, i: number, child: TreeNode<V>, right: TreeNode<V>): void {
  if (right.isLeaf && child.isLeaf) {
    child.keys.push(right.keys.shift()!);
    child.values.push(right.values.shift()!);
    parent.keys[i] = right.keys[0]!;
  } else if (!right.isLeaf && !child.isLeaf) {
    child.keys.push(parent.keys[i]!);
    child.children.push(right.children.shift()!);
    parent.keys[i] = right.keys.shift()!;
  }
}

/** Merges parent.children[i + 1] into parent.children[i] and drops the separator between them. */
function mergeChildren<V>(parent: Internal<V>, i: number): void {
  const left = parent.children[i]!;
  const right = parent.children[i + 1]!;
  const separator = parent.keys[i]!;
  if (left.isLeaf && right.isLeaf) {
    left.keys.push(...right.keys);
    left.values.push(...right.values);
    left.next = right.next;
    if (right.next !== null) right.next.prev = left;
  } else if (!left.isLeaf && !right.isLeaf) {
    left.keys.push(separator, ...right.keys);
    left.children.push(...right.children);
  }
  parent.keys.splice(i, 1);
  parent.children.splice(i + 1, 1);
}

/** Checks the subtree (keys within [lo, hi)), collects its leaves in order, returns its key count. */
function checkNode<V>(
  node: TreeNode<V>,
  lo: string | undefined,
  hi: string | undefined,
  isRoot: boolean,
  leaves: Leaf<V>[],
): number {
  checkKeys(node.keys, lo, hi);
  checkFill(node, isRoot);
  if (node.isLeaf) {
    checkLeafEntries(node);
    leaves.push(node);
    return node.keys.length;
  }
  if (node.children.length !== node.keys.length + 1) {
    throw new Error(`internal node has ${node.keys.length} keys but ${node.children.length} children`);
  }
  const depth = leafDepth(node.children[0]!);
  let count = 0;
  for (let c = 0; c < node.children.length; c++) {
    const child = node.children[c]!;
    if (leafDepth(child) !== depth) throw new Error('leaves are not all at the same depth');
    const childLo = c === 0 ? lo : node.keys[c - 1];
    const childHi = c === node.keys.length ? hi : node.keys[c];
    count += checkNode(child, childLo, childHi, false, leaves);
  }
  return count;
}

function checkKeys(keys: readonly string[], lo: string | undefined, hi: string | undefined): void {
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (i > 0 && !(keys[i - 1]! < key)) throw new Error(`keys out of order at index ${i}`);
    if (lo !== undefined && key < lo) throw new Error('key below its separator bound');
    if (hi !== undefined && key >= hi) throw new Error('key at or above its separator bound');
  }
}

function checkFill<V>(node: TreeNode<V>, isRoot: boolean): void {
  const n = node.keys.length;
  if (n > MAX_KEYS) throw new Error(`node holds ${n} keys, more than ${MAX_KEYS}`);
  if (!isRoot && n < MIN_KEYS) throw new Error(`node holds ${n} keys, fewer than ${MIN_KEYS}`);
  if (isRoot && !node.isLeaf && n < 1) throw new Error('internal root has no keys');
}

function checkLeafEntries<V>(leaf: Leaf<V>): void {
  if (leaf.values.length !== leaf.keys.length) throw new Error('leaf keys and values differ in length');
}

function leafDepth<V>(node: TreeNode<V>): number {
  let depth = 0;
  let current = node;
  while (!current.isLeaf) {
    current = current.children[0]!;
    depth++;
  }
  return depth;
}

/** The prev/next links must chain exactly the leaves found by in-order traversal. */
function checkLeafChain<V>(leaves: readonly Leaf<V>[]): void {
  for (let i = 0; i < leaves.length; i++) {
    const leaf = leaves[i]!;
    if (leaf.prev !== (i > 0 ? leaves[i - 1]! : null)) throw new Error(`leaf ${i} has a wrong prev link`);
    if (leaf.next !== (i + 1 < leaves.length ? leaves[i + 1]! : null)) throw new Error(`leaf ${i} has a wrong next link`);
  }
}
