/**
 * Background work over a key range (GSI backfills and removals, TTL sweeps) goes in chunks: each
 * a bounded read, so that one storage write, or one turn of the event loop, never takes long.
 */
import type { AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import type { ReadView } from '../storage/storage.js';

/** A chunk ends after this many items (unless the caller asks for fewer) or bytes, whichever comes first. */
const CHUNK_ITEMS = 256;
const CHUNK_BYTES = 1024 * 1024;
const ZERO_BYTE = Buffer.from([0x00]);

export interface Chunk {
  readonly entries: readonly { readonly key: Uint8Array; readonly value: object }[];
  /** True when the range ran out before the chunk's limits. */
  readonly complete: boolean;
}

/**
 * Reads the next chunk of [start, end) in full before returning: the caller changes the store only
 * afterwards (puts inside a live range make stores re-seek), and no cursor outlives the call.
 */
export function readChunk(view: ReadView, start: Uint8Array, end: Uint8Array, itemsMax = CHUNK_ITEMS): Chunk {
  if (!Number.isInteger(itemsMax) || itemsMax < 1) throw new RangeError('itemsMax must be a positive integer');
  const entries: { key: Uint8Array; value: object }[] = [];
  let bytes = 0;
  for (const entry of view.range({ start, end })) {
    entries.push({ key: entry.key, value: entry.value });
    bytes += itemSize(entry.value as AttributeMap);
    if (entries.length >= itemsMax || bytes >= CHUNK_BYTES) return { entries, complete: false };
  }
  return { entries, complete: true };
}

/** The smallest key greater than `key` (it followed by a zero byte): where the next chunk starts. */
export function keyAfter(key: Uint8Array): Buffer {
  return Buffer.concat([key, ZERO_BYTE]);
}
