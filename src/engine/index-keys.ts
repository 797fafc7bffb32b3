/**
 * Storage keys of secondary-index entries, and the key ranges Query and Scan read on an index.
 *
 *   entry key = 0x02 | index id (u32 BE) | hash32(index pk) | len16 | index pk bytes
 *               | escaped index sort key (indexes with a sort key)
 *               | len16 | table pk bytes | table sort key encoding
 *
 * A multi-attribute GSI key (several HASH or RANGE attributes) keeps that layout: its index pk
 * bytes are the tuple of its partition key values (each after its 2-byte length, hashed together:
 * key-codec's tuplePartitionKeyPrefix), and its sort key is each sort key value's prefix-free
 * encoding in key schema order. Concatenated prefix-free encodings compare as the tuples do, value
 * by value, so entries sort by the first sort attribute, then the second, each by its own type, and
 * the entries whose first k sort values are given are one contiguous range.
 *
 * The part up to the index partition key bytes is laid out exactly as a table item key (key-codec),
 * so an index partition is one contiguous range and a Scan walks the index in hash order. GSI keys
 * need not be unique, so the table key follows and makes every entry key unique; it is the table
 * item key minus its table prefix and hash, copied from the item's storage key.
 *
 * Something follows the index sort key, so it must be prefix-free for byte order to stay DynamoDB's
 * order: N is (see key-codec), S and B are escaped — 0x00 becomes 0x00 0xFF and the value ends with
 * 0x00 0x01 — which keeps unsigned byte order and makes `ab` sort before `ab\0` and `abc`.
 *
 * LMDB keys are at most MAX_KEY_BYTES. A longer entry key (only a huge index pk plus a huge sort
 * key plus a huge table key gets there) is cut to STORED_PREFIX_BYTES and followed by 16 bytes of
 * the SHA-256 of the whole key: still unique, but entries sharing those first ~4 KB are then ordered
 * by hash, not by their remaining bytes. Range bounds longer than STORED_PREFIX_BYTES are cut the
 * same way (without the hash) and reported inexact, so the reader re-checks its key condition.
 */
import { createHash } from 'node:crypto';
import type { KeyCondition } from '../expressions/ast.js';
import { ownMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import { PARTITION_KEY_MAX_BYTES, SORT_KEY_MAX_BYTES } from '../model/item-size.js';
import { encodeSortKey, keyByteLengthOf, keyBytesOf, partitionKeyPrefix, prefixUpperBound, tuplePartitionKeyPrefix } from '../model/key-codec.js';
import { MAX_KEY_BYTES } from '../storage/memory.js';
import type { KeyRange } from './read-range.js';
import type { KeyAttribute, KeyShape, MultiAttributeKey } from './table.js';

export const INDEX_ENTRIES_BYTE = 0x02;
const HASH_BYTES = 4;
const DIGEST_BYTES = 16;
/** How much of an over-long key is kept before its digest. */
export const STORED_PREFIX_BYTES = MAX_KEY_BYTES - DIGEST_BYTES;

const ESCAPE = 0x00;
const ESCAPED_ZERO = 0xff;
const TERMINATOR = Buffer.from([0x00, 0x01]);

/** Length of an index prefix (0x02 and the index id): the entry key's hash follows it. */
export const INDEX_PREFIX_BYTES = 5;
/**
 * Table item prefixes (0x01 and the table id, catalog.ts) have the same length: in every stored
 * key of a table or an index the 32-bit partition hash starts at this offset.
 */
export const RESOURCE_PREFIX_BYTES = INDEX_PREFIX_BYTES;

/** The storage prefix under which one index's entries live; index ids are never reused. */
export function indexPrefixOf(indexId: number): Buffer {
  const prefix = Buffer.allocUnsafe(INDEX_PREFIX_BYTES);
  prefix[0] = INDEX_ENTRIES_BYTE;
  prefix.writeUInt32BE(indexId, 1);
  return prefix;
}

/** S and B bytes with every 0x00 doubled as 0x00 0xFF: a byte prefix of the escaped value. */
function escapedBody(bytes: Uint8Array): Buffer {
  let zeros = 0;
  for (const byte of bytes) if (byte === ESCAPE) zeros++;
  if (zeros === 0) return Buffer.from(bytes);
  const target = Buffer.allocUnsafe(bytes.length + zeros);
  let at = 0;
  for (const byte of bytes) {
    target[at++] = byte;
    if (byte === ESCAPE) target[at++] = ESCAPED_ZERO;
  }
  return target;
}

/** An index sort key as it sits inside an entry key: prefix-free, in DynamoDB's order. */
export function encodeIndexSortKey(value: AttributeValue): Buffer {
  if ('N' in value) return Buffer.from(encodeSortKey(value));
  return Buffer.concat([escapedBody(keyBytesOf(value)), TERMINATOR]);
}

/** What every entry key of an S or B sort key starting with `prefix` starts with. */
function indexSortKeyPrefix(prefix: AttributeValue): Buffer {
  return escapedBody(keyBytesOf(prefix));
}

/** A key cut to what LMDB stores, with a digest of the whole so distinct keys stay distinct. */
export function storableKey(key: Buffer): Buffer {
  if (key.length <= MAX_KEY_BYTES) return key;
  const digest = createHash('sha256').update(key).digest().subarray(0, DIGEST_BYTES);
  return Buffer.concat([key.subarray(0, STORED_PREFIX_BYTES), digest]);
}

/**
 * The key attributes of an index, each present with its declared type and a usable key value, or
 * undefined: the item has no entry (a sparse index, or an index key violation).
 */
function indexKeyValues(index: KeyShape, item: AttributeMap): { hash: AttributeValue; range: AttributeValue | undefined } | undefined {
  const hash = keyMember(item, index.hash, PARTITION_KEY_MAX_BYTES);
  if (hash === undefined) return undefined;
  if (index.range === undefined) return { hash, range: undefined };
  const range = keyMember(item, index.range, SORT_KEY_MAX_BYTES);
  return range === undefined ? undefined : { hash, range };
}

/**
 * A value of another type, an empty S or B, or one longer than an index key may be never reaches a
 * write (keys.ts refuses them); an item stored before the index existed may hold one, and DynamoDB's
 * backfill leaves such an item out of the index ("index key violations", AWS's developer guide).
 */
function keyMember(item: AttributeMap, attribute: KeyAttribute, maxBytes: number): AttributeValue | undefined {
  const value = ownMember(item, attribute.name);
  if (value === undefined || !(attribute.type in value)) return undefined;
  if (attribute.type === 'N') return value;
  const byteLength = keyByteLengthOf(value);
  return byteLength === 0 || byteLength > maxBytes ? undefined : value;
}

/**
 * The entry key of `item` in an index, or undefined when the item lacks an index key attribute.
 * `tableKeySuffix` is the item's storage key after its table prefix and hash: len16 | pk | sk.
 */
export function encodeEntryKey(prefix: Buffer, index: KeyShape, item: AttributeMap, tableKeySuffix: Uint8Array): Buffer | undefined {
  if (index.multi !== undefined) return encodeMultiEntryKey(prefix, index.multi, item, tableKeySuffix);
  const values = indexKeyValues(index, item);
  if (values === undefined) return undefined;
  const partition = partitionKeyPrefix(prefix, values.hash);
  const parts = values.range === undefined ? [partition, tableKeySuffix] : [partition, encodeIndexSortKey(values.range), tableKeySuffix];
  return storableKey(Buffer.concat(parts));
}

/**
 * The entry key of `item` in an index with a multi-attribute key, or undefined unless the item has
 * every key attribute, each with its type and a usable value (the limits hold per attribute: each
 * partition key value up to 2,048 bytes, each sort key value up to 1,024).
 */
function encodeMultiEntryKey(prefix: Buffer, key: MultiAttributeKey, item: AttributeMap, tableKeySuffix: Uint8Array): Buffer | undefined {
  const hashes = keyMembers(item, key.hashes, PARTITION_KEY_MAX_BYTES);
  const ranges = hashes === undefined ? undefined : keyMembers(item, key.ranges, SORT_KEY_MAX_BYTES);
  if (hashes === undefined || ranges === undefined) return undefined;
  return storableKey(Buffer.concat([tuplePartitionKeyPrefix(prefix, hashes), ...ranges.map(encodeIndexSortKey), tableKeySuffix]));
}

function keyMembers(item: AttributeMap, attributes: readonly KeyAttribute[], maxBytes: number): AttributeValue[] | undefined {
  const values: AttributeValue[] = [];
  for (const attribute of attributes) {
    const value = keyMember(item, attribute, maxBytes);
    if (value === undefined) return undefined;
    values.push(value);
  }
  return values;
}

/** The table key part of an item's storage key that entry keys end with (after prefix and hash). */
export function tableKeySuffixOf(storageKey: Uint8Array, itemPrefixLength: number): Uint8Array {
  return storageKey.subarray(itemPrefixLength + HASH_BYTES);
}

export type SortKeyCondition = NonNullable<KeyCondition['sortKey']>['condition'];

/** A range to read, and whether its bounds are exactly the condition's (see the header). */
export interface IndexKeyRange extends KeyRange {
  readonly exact: boolean;
}

/** One index partition, narrowed by a sort key condition: the index counterpart of partitionRange. */
export function indexPartitionRange(prefix: Buffer, partitionKey: AttributeValue, sort: SortKeyCondition | undefined): IndexKeyRange {
  return rangeWithin(partitionKeyPrefix(prefix, partitionKey), sort);
}

/**
 * The entries of one partition of a multi-attribute key whose first sort key values equal
 * `sortPrefix`, narrowed by a condition on the next sort key attribute.
 */
export function multiIndexPartitionRange(
  prefix: Buffer,
  partitionValues: readonly AttributeValue[],
  sortPrefix: readonly AttributeValue[],
  sort: SortKeyCondition | undefined,
): IndexKeyRange {
  const partition = tuplePartitionKeyPrefix(prefix, partitionValues);
  if (sortPrefix.length === 0) return rangeWithin(partition, sort);
  return rangeWithin(Buffer.concat([partition, ...sortPrefix.map(encodeIndexSortKey)]), sort);
}

/** The entries starting with `partition` (a partition, or one and its first sort values), narrowed by `sort`. */
function rangeWithin(partition: Buffer, sort: SortKeyCondition | undefined): IndexKeyRange {
  const partitionEnd = prefixUpperBound(partition);
  // Only a multi-attribute key's partition (up to four 2 KB values) can outgrow the storable length.
  if (sort === undefined) return bounded(partition, partitionEnd);
  const at = (value: AttributeValue): Buffer => Buffer.concat([partition, encodeIndexSortKey(value)]);
  switch (sort.kind) {
    case 'between':
      return bounded(at(sort.low), everyEntryOf(at(sort.high)));
    case 'begins_with': {
      const start = Buffer.concat([partition, indexSortKeyPrefix(sort.prefix)]);
      return bounded(start, prefixUpperBound(start));
    }
    case 'compare':
      return comparisonRange(partition, partitionEnd, at(sort.value), sort.comparator);
  }
}

/** Every entry whose key starts with the encoded sort key: the table keys after it vary. */
function everyEntryOf(sortKeyStart: Buffer): Buffer {
  return prefixUpperBound(sortKeyStart);
}

function comparisonRange(partition: Buffer, partitionEnd: Buffer, key: Buffer, comparator: '=' | '<' | '<=' | '>' | '>='): IndexKeyRange {
  switch (comparator) {
    case '=':
      return bounded(key, everyEntryOf(key));
    case '<':
      return bounded(partition, key);
    case '<=':
      return bounded(partition, everyEntryOf(key));
    case '>':
      return bounded(everyEntryOf(key), partitionEnd);
    case '>=':
      return bounded(key, partitionEnd);
  }
}

/**
 * Bounds cut to STORED_PREFIX_BYTES compare with stored keys exactly as the full bounds compare with
 * the full keys; a longer bound is cut, widening the range (start down, end up to the prefix's end).
 */
function bounded(start: Buffer, end: Buffer): IndexKeyRange {
  const exact = start.length <= STORED_PREFIX_BYTES && end.length <= STORED_PREFIX_BYTES;
  if (exact) return { start, end, exact };
  return {
    start: start.length <= STORED_PREFIX_BYTES ? start : start.subarray(0, STORED_PREFIX_BYTES),
    end: end.length <= STORED_PREFIX_BYTES ? end : prefixUpperBound(end.subarray(0, STORED_PREFIX_BYTES)),
    exact,
  };
}
