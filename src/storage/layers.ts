/**
 * Reading through the layers of the logged store (logged.ts), newest first: the groups not yet
 * durable (seen by write callbacks only), the memtable, the memtable being checkpointed, LMDB.
 *
 * An upper layer holds a slot per key it changed: the new value with its JSON text, or TOMBSTONE
 * for a remove (the key may still be in a layer below). A point read takes the first layer that
 * has a slot; a range read merges the layers in key order, the newest slot of a key winning and
 * tombstones hiding the key.
 */
import { BTree, toBinaryString, type BinaryKeyedEntry, type BTreeRangeOptions } from './btree.js';
import type { Entry, RangeOptions, StoredValue } from './storage.js';

/** A remove in an upper layer. Compared by identity. */
export const TOMBSTONE: unique symbol = Symbol('removed');

/**
 * A put in an upper layer, and where its JSON bytes are in the log, so a checkpoint copies them
 * into LMDB without encoding the value again. Until its group is written, `segment` is 0 and
 * `offset` is within the group's frame.
 *
 * The parsed value is kept only while the group is gathering or in flight (write callbacks read
 * it). Once acknowledged, the memtable keeps the frame's bytes (`source`, off the V8 heap) and
 * drops the value: a put's item tree then dies young instead of being copied by every scavenge
 * on its way to the old generation (measured on the bench VM: ~1.3 KB promoted per 1 KB put,
 * scavenges of 7-14 ms every ~85 ms under a closed loop). A read parses it back once and keeps
 * it in the slot (slotValue), so a hot key is parsed once per value, not once per read.
 */
export interface PutSlot {
  /** The value; undefined in a memtable slot nobody read yet (slotValue parses `source`). */
  value: StoredValue | undefined;
  segment: number;
  offset: number;
  readonly bytes: number;
  /**
   * A spliced value (a stream record carrying the item its write put, wal.ts OP_PUT_SPLICED):
   * its JSON is head + the bytes at offset + tail, the bytes being the embedded value's.
   * Undefined for a plain put, whose JSON is those bytes alone.
   */
  readonly head: string | undefined;
  readonly tail: string | undefined;
  /** Bytes holding the value's JSON (`bytes` of them at `sourceOffset`): its frame, or a replayed segment. */
  source: Buffer | undefined;
  sourceOffset: number;
}

/** A put slot's value, parsed from its logged bytes on the first read and kept in the slot. */
export function slotValue(slot: PutSlot): StoredValue {
  const kept = slot.value;
  if (kept !== undefined) return kept;
  const source = slot.source;
  if (source === undefined) throw new Error('assertion failed: a put slot has neither its value nor its bytes');
  const text = source.toString('utf8', slot.sourceOffset, slot.sourceOffset + slot.bytes);
  const value = JSON.parse(slot.head === undefined ? text : slot.head + text + slot.tail!) as StoredValue;
  slot.value = value;
  return value;
}

export type Slot = PutSlot | typeof TOMBSTONE;

/** What a layer yields while merging: the base's entries, or an upper layer's slots. */
interface LayerEntry {
  readonly key: Uint8Array;
  readonly value: Slot | StoredValue;
}

/**
 * An upper layer: a B+tree of slots for ranges, and a hash index of the same slots for point
 * reads. A write reads its key's old value through every layer before LMDB (a new key: through
 * all of them), and a hash probe is a fraction of a descent through a tree of tens of thousands
 * of keys (the lookup key's hash is computed once and kept by its string, for all the layers).
 *
 * A group's layer (ordered 'on demand') keeps only the hash index until something ranges over
 * it: a write callback rarely does, and the group's slots go into the memtable in any order, so
 * most groups never pay a tree insert per write (a third of the store's B-tree work per put).
 * The first range builds the tree from the index, and from then on both are kept.
 */
export class Layer {
  #tree: BTree<Slot> | undefined;
  readonly #index = new Map<string, Slot>();

  constructor(ordered: 'always' | 'on demand' = 'always') {
    this.#tree = ordered === 'always' ? new BTree<Slot>() : undefined;
  }

  get size(): number {
    return this.#index.size;
  }

  /** The slot of a key in its binary string form (toBinaryString). */
  getByBinary(k: string): Slot | undefined {
    return this.#index.get(k);
  }

  get(key: Uint8Array): Slot | undefined {
    return this.#index.get(toBinaryString(key));
  }

  /** Inserts or replaces; returns the slot it replaced. */
  set(key: Uint8Array, slot: Slot): Slot | undefined {
    return this.setByBinary(toBinaryString(key), slot);
  }

  setByBinary(k: string, slot: Slot): Slot | undefined {
    const tree = this.#tree;
    if (tree !== undefined) {
      this.#index.set(k, slot);
      return tree.setByBinary(k, slot);
    }
    const previous = this.#index.get(k);
    this.#index.set(k, slot);
    return previous;
  }

  delete(key: Uint8Array): void {
    this.#index.delete(toBinaryString(key));
    this.#tree?.delete(key);
  }

  /** Every key (binary string form) and its slot, in no particular order. */
  unordered(): IterableIterator<[string, Slot]> {
    return this.#index.entries();
  }

  range(options: BTreeRangeOptions = {}): Iterable<BinaryKeyedEntry<Slot>> {
    return this.#ordered().range(options);
  }

  #ordered(): BTree<Slot> {
    let tree = this.#tree;
    if (tree === undefined) {
      tree = new BTree<Slot>();
      for (const [k, slot] of this.#index) tree.setByBinary(k, slot);
      this.#tree = tree;
    }
    return tree;
  }
}

/** The bottom layer, which holds values only (LMDB). */
export interface BaseLayer {
  get(key: Uint8Array): StoredValue | undefined;
  range(options: RangeOptions): Iterable<Entry>;
}

/** The newest slot for key among `layers` (newest first), or undefined when none has one. */
export function slotIn(layers: readonly Layer[], key: Uint8Array): Slot | undefined {
  if (layers.length === 0) return undefined;
  const binary = toBinaryString(key);
  for (const layer of layers) {
    if (layer.size === 0) continue;
    const slot = layer.getByBinary(binary);
    if (slot !== undefined) return slot;
  }
  return undefined;
}

/** The value of key as the layers and the base show it. */
export function readThrough(layers: readonly Layer[], base: BaseLayer, key: Uint8Array): StoredValue | undefined {
  const slot = slotIn(layers, key);
  if (slot === undefined) return base.get(key);
  return slot === TOMBSTONE ? undefined : slotValue(slot);
}

/**
 * Entries of the merged view with start <= key < end (or reversed), at most `limit`, lazily.
 * `layers` answers the layers as they are now (a checkpoint may add or drop one). `changes` counts changes to the layers: when it moves between two steps (a write callback put
 * or removed while iterating; a group became durable), the merge re-seeks just past the last key
 * it yielded and continues over the layers as they are now, as the B-tree's own iterators do.
 * Source iterators are closed when the consumer stops early (an LMDB iterator pins a snapshot).
 */
export function* mergedRange(
  layers: () => readonly Layer[],
  base: BaseLayer,
  options: RangeOptions,
  changes: () => number,
): Generator<Entry, void, undefined> {
  let remaining = options.limit ?? Infinity;
  if (remaining <= 0) return;
  const reverse = options.reverse === true;
  let bounds: RangeOptions = { start: options.start, end: options.end, reverse };
  for (;;) {
    const seen = changes();
    const sources: Iterator<LayerEntry>[] = layers().filter((layer) => layer.size > 0).map((layer) => layer.range(bounds)[Symbol.iterator]());
    const baseIndex = sources.length;
    sources.push(base.range(bounds)[Symbol.iterator]());
    const heads: (LayerEntry | undefined)[] = sources.map(nextOf);
    let last: Uint8Array | undefined;
    try {
      for (;;) {
        // The source with the smallest key (largest in reverse); on a tie the newest layer, first.
        let best = -1;
        for (let i = 0; i < heads.length; i++) {
          const head = heads[i];
          if (head === undefined) continue;
          if (best < 0) {
            best = i;
            continue;
          }
          const order = Buffer.compare(head.key, heads[best]!.key);
          if (reverse ? order > 0 : order < 0) best = i;
        }
        if (best < 0) return;
        const winner = heads[best]!;
        for (let i = best + 1; i < heads.length; i++) {
          // Older layers' slots for the same key are shadowed.
          if (heads[i] !== undefined && Buffer.compare(heads[i]!.key, winner.key) === 0) heads[i] = nextOf(sources[i]!);
        }
        heads[best] = nextOf(sources[best]!);
        const value = best === baseIndex ? (winner.value as StoredValue) : visibleValue(winner.value as Slot);
        if (value === undefined) continue;
        yield { key: winner.key, value };
        last = winner.key;
        if (--remaining <= 0) return;
        if (changes() !== seen) break;
      }
    } finally {
      for (const source of sources) source.return?.();
    }
    bounds = boundsAfter(bounds, last!, reverse);
  }
}

function nextOf(source: Iterator<LayerEntry>): LayerEntry | undefined {
  const step = source.next();
  return step.done === true ? undefined : step.value;
}

function visibleValue(slot: Slot): StoredValue | undefined {
  return slot === TOMBSTONE ? undefined : slotValue(slot);
}

/** The rest of a range after `last` was yielded. */
function boundsAfter(bounds: RangeOptions, last: Uint8Array, reverse: boolean): RangeOptions {
  if (reverse) return { ...bounds, end: last };
  // The smallest key greater than `last` is `last` followed by a zero byte.
  const successor = new Uint8Array(last.byteLength + 1);
  successor.set(last);
  return { ...bounds, start: successor };
}
