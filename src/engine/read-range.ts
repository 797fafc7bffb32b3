/**
 * Range reads for Query and Scan: which storage key range a key condition or a scan segment
 * covers, and one page read from such a range with DynamoDB's page limits.
 *
 * Key layout (model/key-codec.ts): prefix | hash32 | length | partition key | sort key. A
 * partition is therefore one contiguous range ordered by sort key, and the whole table is ordered
 * by hash32 — so a Query is one range scan inside one partition, and a scan segment is one range
 * of the hash space.
 *
 * Every read is one synchronous pass over one storage range, finished before the caller returns:
 * a range must never stay open across an await (an LMDB read would pin its snapshot, and the page
 * would no longer be one consistent read).
 */
import type { KeyCondition } from '../expressions/ast.js';
import type { AttributeMap, AttributeValue } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { encodeSortKey, partitionKeyPrefix, prefixUpperBound } from '../model/key-codec.js';
import type { Entry, ReadView } from '../storage/storage.js';

/**
 * A page stops once the items read reach 1 MB; the item that crosses the limit is part of the
 * page (dynalite and DynamoDB Local both include it, and dynalite's tests recorded from DynamoDB
 * show a 25th item crossing the limit still counted).
 */
export const PAGE_BYTES_MAX = 1024 * 1024;

/** Storage keys with start <= key < end. */
export interface KeyRange {
  readonly start: Uint8Array;
  readonly end: Uint8Array;
}

export type SortKeyCondition = NonNullable<KeyCondition['sortKey']>['condition'];

const ZERO_BYTE = Buffer.from([0x00]);
const HASH_BYTES = 4;
const HASH_SPACE = 2 ** 32;

/**
 * The smallest key greater than `key`. S and B sort keys are not self-delimiting, so `key` may be
 * a prefix of other keys; `key + 0x00` still has nothing between it and `key`.
 */
function justAfter(key: Uint8Array): Buffer {
  return Buffer.concat([key, ZERO_BYTE]);
}

/** The keys of one partition, narrowed by a sort key condition when there is one. */
export function partitionRange(itemPrefix: Uint8Array, partitionKey: AttributeValue, sort: SortKeyCondition | undefined): KeyRange {
  const partition = partitionKeyPrefix(itemPrefix, partitionKey);
  const partitionEnd = prefixUpperBound(partition);
  if (sort === undefined) return { start: partition, end: partitionEnd };
  const at = (value: AttributeValue): Buffer => Buffer.concat([partition, encodeSortKey(value)]);
  switch (sort.kind) {
    case 'between':
      return { start: at(sort.low), end: justAfter(at(sort.high)) };
    case 'begins_with': {
      // S and B sort keys are stored as their raw bytes, so a string or binary prefix is a byte prefix.
      const prefix = at(sort.prefix);
      return { start: prefix, end: prefixUpperBound(prefix) };
    }
    case 'compare':
      return comparisonRange(partition, partitionEnd, at(sort.value), sort.comparator);
  }
}

function comparisonRange(partition: Buffer, partitionEnd: Buffer, key: Buffer, comparator: '=' | '<' | '<=' | '>' | '>='): KeyRange {
  switch (comparator) {
    case '=':
      return { start: key, end: justAfter(key) };
    case '<':
      return { start: partition, end: key };
    case '<=':
      return { start: partition, end: justAfter(key) };
    case '>':
      return { start: justAfter(key), end: partitionEnd };
    case '>=':
      return { start: key, end: partitionEnd };
  }
}

/** The inclusive range of partition hashes that scan segment `segment` of `totalSegments` owns. */
export interface HashSegment {
  readonly lowHash: number;
  readonly highHash: number;
}

/**
 * Splits the 32-bit hash space into `totalSegments` contiguous ranges, so every item belongs to
 * exactly one segment and a segment is one storage range.
 */
export function hashSegment(segment: number, totalSegments: number): HashSegment {
  // Exact in doubles: segment * 2^32 stays below 2^53 for up to a million segments.
  const lowHash = Math.floor((segment * HASH_SPACE) / totalSegments);
  const highHash = Math.floor(((segment + 1) * HASH_SPACE) / totalSegments) - 1;
  return { lowHash, highHash };
}

/** Every item of a table, or only those whose partition hash lies in `segment`. */
export function tableRange(itemPrefix: Uint8Array, segment: HashSegment | undefined): KeyRange {
  const tableEnd = prefixUpperBound(itemPrefix);
  if (segment === undefined) return { start: itemPrefix, end: tableEnd };
  const start = withHash(itemPrefix, segment.lowHash);
  const end = segment.highHash === HASH_SPACE - 1 ? tableEnd : withHash(itemPrefix, segment.highHash + 1);
  return { start, end };
}

function withHash(itemPrefix: Uint8Array, hash: number): Buffer {
  const key = Buffer.allocUnsafe(itemPrefix.length + HASH_BYTES);
  key.set(itemPrefix, 0);
  key.writeUInt32BE(hash, itemPrefix.length);
  return key;
}

/** The part of `range` that comes after `startKey` in reading order (ExclusiveStartKey). */
export function rangeAfter(range: KeyRange, startKey: Uint8Array, reverse: boolean): KeyRange {
  if (reverse) return Buffer.compare(startKey, range.end) < 0 ? { start: range.start, end: startKey } : range;
  const after = justAfter(startKey);
  return Buffer.compare(after, range.start) > 0 ? { start: after, end: range.end } : range;
}

export interface PageRequest {
  readonly range: KeyRange;
  readonly reverse: boolean;
  /** Limit: at most this many items read (before any filter). */
  readonly itemLimit: number | undefined;
  /** The filter: items read but not accepted count as scanned, not returned. */
  readonly accept: (item: AttributeMap) => boolean;
  /**
   * What the filter and the page see for a stored value: the value itself by default; an LSI read
   * may fetch the table's item instead. The read is sized (and keyed) by the stored value.
   */
  readonly resolve?: (stored: AttributeMap) => AttributeMap;
  /**
   * For a range wider than its key condition (index-keys.ts, over-long bounds): whether a stored
   * value is really in it. Values outside are skipped as if the range had excluded them.
   */
  readonly inRange?: (stored: AttributeMap) => boolean;
}

export interface Page {
  readonly items: AttributeMap[];
  readonly scannedCount: number;
  /** Sum of the sizes of every item read, accepted or not: what the read costs. */
  readonly bytesRead: number;
  /** The last item read when a limit stopped the page (LastEvaluatedKey); undefined when the range ran out. */
  readonly stoppedAt: AttributeMap | undefined;
  /** The storage keys of the first and last values read (undefined when none was). */
  readonly firstKey: Uint8Array | undefined;
  readonly lastKey: Uint8Array | undefined;
}

/** Reads one page: items in key order (or reverse) until the range, Limit or 1 MB runs out. */
export function readPage(view: ReadView, request: PageRequest): Page {
  const items: AttributeMap[] = [];
  let scannedCount = 0;
  let bytesRead = 0;
  const { range, reverse, itemLimit, accept, resolve, inRange } = request;
  if (Buffer.compare(range.start, range.end) >= 0) return { items, scannedCount, bytesRead, stoppedAt: undefined, firstKey: undefined, lastKey: undefined };
  let firstKey: Uint8Array | undefined;
  // The entry, not its key: a store may make an entry's key bytes only when they are read.
  let last: Entry | undefined;
  for (const entry of view.range({ start: range.start, end: range.end, reverse })) {
    const stored = entry.value as AttributeMap;
    if (inRange !== undefined && !inRange(stored)) continue;
    if (scannedCount++ === 0) firstKey = entry.key;
    last = entry;
    bytesRead += itemSize(stored);
    const item = resolve === undefined ? stored : resolve(stored);
    if (accept(item)) items.push(item);
    // DynamoDB reports a LastEvaluatedKey whenever a limit ends the page, even if nothing follows.
    if (scannedCount === itemLimit || bytesRead >= PAGE_BYTES_MAX) return { items, scannedCount, bytesRead, stoppedAt: stored, firstKey, lastKey: entry.key };
  }
  return { items, scannedCount, bytesRead, stoppedAt: undefined, firstKey, lastKey: last?.key };
}
