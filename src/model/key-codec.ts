/**
 * Order-preserving byte encoding of item keys for an ordered key-value store (memcmp order).
 *
 *   item key = prefix | hash32 (4 bytes BE) | partition key length (2 bytes BE) | partition key bytes
 *              | encoded sort key (tables with a sort key only)
 *
 * All items of one partition key share everything up to the partition key bytes, so they are
 * contiguous and ordered by the sort key encoding; distinct partition keys are ordered by the hash
 * of their bytes. Partitions own ranges of that hash, and Scan walks items in this order, which
 * like DynamoDB's is unrelated to the key values.
 *
 * The sort key is the last component and is not self-delimiting for S and B: anything appended
 * after it would need an escaping scheme first.
 */

import type { AttributeValue } from './attribute-value.js';
import { assert } from '../errors.js';
import { canonicalizeNumber, MIN_EXPONENT, parseCanonicalNumber, type ParsedNumber } from './numbers.js';

/** Fixed seed: hashes (and so Scan order and partition placement) must be stable across restarts. */
export const PARTITION_HASH_SEED = 0x9747b28c;

const HASH_BYTES = 4;
const LENGTH_BYTES = 2;
const MAX_ENCODED_PARTITION_KEY = 0xffff;

/** Sign classes of an encoded number: every negative < zero < every positive. */
const SIGN_NEGATIVE = 0x01;
const SIGN_ZERO = 0x02;
const SIGN_POSITIVE = 0x03;
/**
 * Ends a positive's digits. Digits are written as digit+1 (1..10), so a number that is a digit
 * prefix of another (`1` vs `15`) sorts first; inverted for negatives it becomes 0xff, making
 * `-1` sort after `-15`.
 */
const DIGITS_END = 0x00;
const CHAR_ZERO = 0x30;

const MURMUR_C1 = 0xcc9e2d51;
const MURMUR_C2 = 0x1b873593;

function rotateLeft32(value: number, bits: number): number {
  return (value << bits) | (value >>> (32 - bits));
}

function scrambleBlock(block: number): number {
  return Math.imul(rotateLeft32(Math.imul(block, MURMUR_C1), 15), MURMUR_C2);
}

/** MurmurHash3's finaliser: spreads every input bit over the whole word. */
function finalMix(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** MurmurHash3 x86 32-bit of bytes[start, end), as an unsigned 32-bit integer. */
export function murmur3x86_32(bytes: Uint8Array, seed: number, start = 0, end = bytes.length): number {
  const length = end - start;
  const blocksEnd = start + (length & ~3);
  let hash = seed | 0;
  for (let index = start; index < blocksEnd; index += 4) {
    const block = bytes[index] | (bytes[index + 1] << 8) | (bytes[index + 2] << 16) | (bytes[index + 3] << 24);
    hash ^= scrambleBlock(block);
    hash = (Math.imul(rotateLeft32(hash, 13), 5) + 0xe6546b64) | 0;
  }
  const tail = length & 3;
  if (tail > 0) {
    let block = 0;
    if (tail === 3) block ^= bytes[blocksEnd + 2] << 16;
    if (tail >= 2) block ^= bytes[blocksEnd + 1] << 8;
    block ^= bytes[blocksEnd];
    hash ^= scrambleBlock(block);
  }
  return finalMix(hash ^ length);
}

/** The 32-bit hash of a partition key's bytes (see keyBytesOf) that places it in a partition. */
export function hashPartitionKey(bytes: Uint8Array): number {
  return murmur3x86_32(bytes, PARTITION_HASH_SEED);
}

/**
 * A key attribute's bytes before they are written: text (S, or canonical N, which is ASCII) to be
 * UTF-8 encoded straight into the target, or already-decoded B bytes.
 */
type KeySource = string | Uint8Array;

function keySourceOf(value: AttributeValue): KeySource {
  if ('S' in value) return value.S;
  // Canonicalised again so `1.0` and `1` can never become two different keys; it returns its input
  // unchanged (no allocation) for the canonical text stored items already carry.
  if ('N' in value) return canonicalizeNumber(value.N);
  // Decoded rather than measured from the text: Node's decoder tolerates whitespace, so the
  // decoded length is the only safe one for a buffer we must fill exactly.
  if ('B' in value) return Buffer.from(value.B, 'base64');
  throw new Error('assertion failed: key attribute must be S, N or B');
}

function keySourceLength(source: KeySource): number {
  return typeof source === 'string' ? Buffer.byteLength(source, 'utf8') : source.length;
}

/**
 * Below this length an ASCII key is copied char by char: Buffer#write costs ~80 ns per call, more
 * than the loop for the short keys typical of DynamoDB tables.
 */
const SHORT_ASCII_KEY = 64;

function writeKeySource(source: KeySource, target: Buffer, offset: number, length: number): void {
  if (typeof source !== 'string') {
    target.set(source, offset);
  } else if (length === source.length && length <= SHORT_ASCII_KEY) {
    // As many bytes as UTF-16 units means every char is ASCII (anything else takes 2+ bytes).
    for (let index = 0; index < length; index++) target[offset + index] = source.charCodeAt(index);
  } else {
    target.write(source, offset, length, 'utf8');
  }
}

/** How many bytes DynamoDB keys on (keyBytesOf's length); an S value is measured, not copied. */
export function keyByteLengthOf(value: AttributeValue): number {
  return keySourceLength(keySourceOf(value));
}

/** The bytes DynamoDB keys on: S as UTF-8, N as its canonical text, B decoded from base64. */
export function keyBytesOf(value: AttributeValue): Uint8Array {
  const source = keySourceOf(value);
  return typeof source === 'string' ? Buffer.from(source, 'utf8') : source;
}

/** A sort key ready to write: S/B bytes (DynamoDB orders them as unsigned bytes) or a parsed N. */
type SortSource = KeySource | ParsedNumber;

function sortSourceOf(value: AttributeValue): SortSource {
  if ('N' in value) return parseCanonicalNumber(value.N);
  return keySourceOf(value);
}

function isParsedNumber(source: SortSource): source is ParsedNumber {
  return typeof source !== 'string' && !(source instanceof Uint8Array);
}

/** Sign byte, then (non-zero only) exponent byte, one byte per digit and the end byte. */
function numberEncodingLength(parsed: ParsedNumber): number {
  return parsed.digits.length === 0 ? 1 : 3 + parsed.digits.length;
}

/**
 * Writes a number so unsigned byte order is numeric order. Positives: exponent+130 (0..255, since
 * DynamoDB's range is 1E-130 … 9.9E+125), then digit+1 per significant digit, then 0x00; with no
 * leading zeros a larger exponent always means a larger value. Negatives: the same bytes of the
 * magnitude, each inverted, so larger magnitudes sort first.
 */
function writeNumberSortKey(parsed: ParsedNumber, target: Buffer, offset: number): void {
  const { digits } = parsed;
  if (digits.length === 0) {
    target[offset] = SIGN_ZERO;
    return;
  }
  const invert = parsed.negative ? 0xff : 0x00;
  target[offset] = parsed.negative ? SIGN_NEGATIVE : SIGN_POSITIVE;
  target[offset + 1] = (parsed.exponent - MIN_EXPONENT) ^ invert;
  for (let index = 0; index < digits.length; index++) {
    target[offset + 2 + index] = (digits.charCodeAt(index) - CHAR_ZERO + 1) ^ invert;
  }
  target[offset + 2 + digits.length] = DIGITS_END ^ invert;
}

function sortSourceLength(source: SortSource): number {
  return isParsedNumber(source) ? numberEncodingLength(source) : keySourceLength(source);
}

function writeSortSource(source: SortSource, target: Buffer, offset: number, length: number): void {
  if (isParsedNumber(source)) writeNumberSortKey(source, target, offset);
  else writeKeySource(source, target, offset, length);
}

/** The memcmp-ordered encoding of a sort key value (S, N or B). */
export function encodeSortKey(value: AttributeValue): Uint8Array {
  const source = sortSourceOf(value);
  const length = sortSourceLength(source);
  const target = Buffer.allocUnsafe(length);
  writeSortSource(source, target, 0, length);
  return target;
}

/**
 * prefix | hash32 | length | partition key bytes [| sort key], in one allocation: lengths first,
 * then every byte written in place, the hash computed over the partition key bytes just written.
 */
function encodeKey(prefix: Uint8Array, partitionKey: AttributeValue, sort: SortSource | undefined): Buffer {
  const partition = keySourceOf(partitionKey);
  const partitionLength = keySourceLength(partition);
  assert(partitionLength <= MAX_ENCODED_PARTITION_KEY, 'partition key longer than its 2-byte length field');
  const sortLength = sort === undefined ? 0 : sortSourceLength(sort);
  const partitionStart = prefix.length + HASH_BYTES + LENGTH_BYTES;
  const partitionEnd = partitionStart + partitionLength;
  const target = Buffer.allocUnsafe(partitionEnd + sortLength);
  target.set(prefix, 0);
  writeKeySource(partition, target, partitionStart, partitionLength);
  const hash = murmur3x86_32(target, PARTITION_HASH_SEED, partitionStart, partitionEnd);
  // Byte by byte: writeUInt32BE's range checks were ~0.15 us of every key encoded (profile);
  // the hash is an unsigned 32-bit integer and the length was asserted to fit 16 bits above.
  const at = prefix.length;
  target[at] = hash >>> 24;
  target[at + 1] = hash >>> 16;
  target[at + 2] = hash >>> 8;
  target[at + 3] = hash;
  target[at + HASH_BYTES] = partitionLength >>> 8;
  target[at + HASH_BYTES + 1] = partitionLength;
  if (sort !== undefined) writeSortSource(sort, target, partitionEnd, sortLength);
  return target;
}

/** The store key of an item: prefix | hash32 | partition key length | partition key | sort key. */
export function encodeItemKey(
  prefix: Uint8Array,
  partitionKey: AttributeValue,
  sortKey: AttributeValue | undefined,
): Buffer {
  return encodeKey(prefix, partitionKey, sortKey === undefined ? undefined : sortSourceOf(sortKey));
}

/** Everything up to and including the partition key bytes: the range every item of it shares. */
export function partitionKeyPrefix(prefix: Uint8Array, partitionKey: AttributeValue): Buffer {
  return encodeKey(prefix, partitionKey, undefined);
}

/**
 * Everything up to and including a multi-attribute partition key's bytes (a GSI key of several
 * HASH attributes), laid out as partitionKeyPrefix lays out one value: the tuple's bytes are each
 * value's key bytes after its own 2-byte length (so distinct tuples never share bytes), and the
 * hash is taken over all of them, as DynamoDB hashes the attributes together.
 */
export function tuplePartitionKeyPrefix(prefix: Uint8Array, values: readonly AttributeValue[]): Buffer {
  const sources = values.map(keySourceOf);
  let tupleLength = 0;
  for (const source of sources) tupleLength += LENGTH_BYTES + keySourceLength(source);
  assert(tupleLength <= MAX_ENCODED_PARTITION_KEY, 'partition key longer than its 2-byte length field');
  const partitionStart = prefix.length + HASH_BYTES + LENGTH_BYTES;
  const target = Buffer.allocUnsafe(partitionStart + tupleLength);
  target.set(prefix, 0);
  let at = partitionStart;
  for (const source of sources) {
    const length = keySourceLength(source);
    assert(length <= MAX_ENCODED_PARTITION_KEY, 'partition key attribute longer than its 2-byte length field');
    target.writeUInt16BE(length, at);
    writeKeySource(source, target, at + LENGTH_BYTES, length);
    at += LENGTH_BYTES + length;
  }
  target.writeUInt32BE(murmur3x86_32(target, PARTITION_HASH_SEED, partitionStart, at), prefix.length);
  target.writeUInt16BE(tupleLength, prefix.length + HASH_BYTES);
  return target;
}

/**
 * The smallest key greater than every key starting with `prefix`: drop trailing 0xff bytes, then
 * add one to the last byte. Used as an exclusive range end.
 */
export function prefixUpperBound(prefix: Uint8Array): Buffer {
  let end = prefix.length;
  while (end > 0 && prefix[end - 1] === 0xff) end--;
  assert(end > 0, 'a prefix of only 0xff bytes has no upper bound');
  const bound = Buffer.from(prefix.subarray(0, end));
  bound[end - 1]++;
  return bound;
}

/** Reads back the 4 hash bytes that follow the prefix of an encoded item key. */
export function decodeItemKeyHash(key: Uint8Array, prefixLength: number): number {
  assert(key.length >= prefixLength + HASH_BYTES, 'key too short to hold a partition hash');
  const at = prefixLength;
  return ((key[at] << 24) | (key[at + 1] << 16) | (key[at + 2] << 8) | key[at + 3]) >>> 0;
}
