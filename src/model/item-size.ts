/**
 * Item size in bytes by DynamoDB's rules (capacity-model doc §1.2). The size drives the 400 KB item
 * limit, key-size limits and every capacity-unit charge, so it runs on every read and write: no
 * value is decoded or copied, only measured.
 */

import type { AttributeMap, AttributeValue } from './attribute-value.js';
import { MAX_SIGNIFICANT_DIGITS, numberShape } from './numbers.js';

/** Largest item, attribute names included (DynamoDB limit: 400 KB, binary units). */
export const ITEM_SIZE_MAX_BYTES = 400 * 1024;
/** Largest partition key value. */
export const PARTITION_KEY_MAX_BYTES = 2048;
/** Largest sort key value. */
export const SORT_KEY_MAX_BYTES = 1024;

/** Lists and maps carry 3 bytes of their own, whatever they hold (an empty L or M is 3 bytes). */
const CONTAINER_OVERHEAD = 3;
/** Each element of a list or map adds 1 byte on top of its own size. */
const ELEMENT_OVERHEAD = 1;
/** BOOL and NULL are one byte each. */
const FLAG_SIZE = 1;

const CHAR_PAD = 0x3d; // '='
const CHAR_MINUS = 0x2d;
const CHAR_ZERO = 0x30;
const CHAR_NINE = 0x39;

/** UTF-8 byte length of a string (lone surrogates count as the 3-byte U+FFFD they encode to). */
export function utf8Length(text: string): number {
  // Benchmarked faster than a charCodeAt loop even for short names: V8 has a fast path for it.
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Decoded length of base64 text, from its length and `=` padding alone. DynamoDB counts the raw
 * bytes of B values, not the wire text. Unpadded text is measured the same way (every full
 * 4-character group is 3 bytes, a trailing 2 or 3 characters are 1 or 2 bytes). Assumes the text
 * was validated as base64 (no whitespace), as the request parser does.
 */
export function base64DecodedLength(text: string): number {
  let length = text.length;
  if (length > 0 && text.charCodeAt(length - 1) === CHAR_PAD) length--;
  if (length > 0 && text.charCodeAt(length - 1) === CHAR_PAD) length--;
  return Math.floor((length * 3) / 4);
}

/**
 * Size of a Number. AWS documents only "about 1 byte per 2 significant digits, plus 1"; this is
 * dynalite's reverse-engineered exact rule: digits are packed in base-100 pairs aligned to even
 * powers of ten (so an even count starting at an even exponent needs one more pair), plus one
 * byte of header and, for negatives, one terminator byte. Zero is a single byte.
 */
export function numberSize(text: string): number {
  const integerSize = canonicalIntegerSize(text);
  if (integerSize !== undefined) return integerSize;
  const { negative, digitCount, exponent } = numberShape(text);
  if (digitCount === 0) return 1;
  const unalignedPair = digitCount % 2 === 0 && exponent % 2 === 0 ? 1 : 0;
  return 1 + Math.ceil(digitCount / 2) + unalignedPair + (negative ? 1 : 0);
}

/** Digits a canonical integer may have and still be in range (its first digit at 10^125 at most). */
const INTEGER_DIGITS_MAX = 126;

/**
 * numberSize of a canonical integer (`0`, or `-?[1-9][0-9]*` within DynamoDB's limits) from its
 * text alone, or undefined for any other text: counters and sort keys are mostly integers, and
 * the general path allocates two objects per number (~0.12 KB, sampled in a Query page's sizing).
 */
function canonicalIntegerSize(text: string): number | undefined {
  const negative = text.charCodeAt(0) === CHAR_MINUS;
  const start = negative ? 1 : 0;
  const digits = text.length - start;
  if (digits < 1 || digits > INTEGER_DIGITS_MAX) return undefined;
  const first = text.charCodeAt(start);
  if (first === CHAR_ZERO) return digits === 1 && !negative ? 1 : undefined;
  if (first < CHAR_ZERO || first > CHAR_NINE) return undefined;
  let significantEnd = start + 1;
  for (let at = start + 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code < CHAR_ZERO || code > CHAR_NINE) return undefined;
    if (code !== CHAR_ZERO) significantEnd = at + 1;
  }
  const digitCount = significantEnd - start;
  if (digitCount > MAX_SIGNIFICANT_DIGITS) return undefined;
  // The first digit sits at 10^(digits - 1): as the general rule, pairs aligned to even powers.
  const unalignedPair = digitCount % 2 === 0 && (digits - 1) % 2 === 0 ? 1 : 0;
  return 1 + Math.ceil(digitCount / 2) + unalignedPair + (negative ? 1 : 0);
}

function sumSizes(values: readonly string[], size: (value: string) => number): number {
  let total = 0;
  for (const value of values) total += size(value);
  return total;
}

function listSize(elements: readonly AttributeValue[]): number {
  let total = CONTAINER_OVERHEAD;
  for (const element of elements) total += ELEMENT_OVERHEAD + attributeValueSize(element);
  return total;
}

/** A map element costs its key's UTF-8 bytes + its value + the per-element byte. */
function mapSize(map: AttributeMap): number {
  let total = CONTAINER_OVERHEAD;
  for (const name in map) total += ELEMENT_OVERHEAD + utf8Length(name) + attributeValueSize(map[name]);
  return total;
}

/** Size of one value by DynamoDB's per-type rules. */
export function attributeValueSize(value: AttributeValue): number {
  // Ordered by how common the types are in real items.
  if ('S' in value) return utf8Length(value.S);
  if ('N' in value) return numberSize(value.N);
  if ('M' in value) return mapSize(value.M);
  if ('L' in value) return listSize(value.L);
  if ('BOOL' in value || 'NULL' in value) return FLAG_SIZE;
  if ('B' in value) return base64DecodedLength(value.B);
  // Sets: AWS documents no overhead; like dynalite, a set is the plain sum of its elements (⚠ doc §1.2).
  if ('SS' in value) return sumSizes(value.SS, utf8Length);
  if ('NS' in value) return sumSizes(value.NS, numberSize);
  return sumSizes(value.BS, base64DecodedLength);
}

/** Size of an item: each top-level attribute's UTF-8 name length plus its value's size. */
export function itemSize(item: AttributeMap): number {
  let total = 0;
  for (const name in item) total += utf8Length(name) + attributeValueSize(item[name]);
  return total;
}
