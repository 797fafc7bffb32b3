/**
 * DynamoDB's ordering of scalar values: N by numeric value, S by the bytes of its UTF-8 encoding,
 * B by unsigned bytes. JavaScript's own string order (UTF-16 code units) differs from UTF-8 byte
 * order for characters beyond the Basic Multilingual Plane, hence the care.
 */
import type { AttributeValue } from './attribute-value.js';
import { compareNumbers } from './numbers.js';

/** Orders two values of the same scalar type (S, N or B); -1, 0 or 1. */
export function compareScalars(left: AttributeValue, right: AttributeValue): number {
  if ('N' in left && 'N' in right) return compareNumbers(left.N, right.N);
  if ('S' in left && 'S' in right) return compareUtf8(left.S, right.S);
  if ('B' in left && 'B' in right) return Buffer.compare(Buffer.from(left.B, 'base64'), Buffer.from(right.B, 'base64'));
  throw new Error('assertion failed: compareScalars needs two S, N or B values of one type');
}

/** Compares strings in UTF-8 byte order without encoding them when they are plain ASCII-range text. */
export function compareUtf8(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    const a = left.charCodeAt(index);
    const b = right.charCodeAt(index);
    if (a === b) continue;
    // Below the surrogate range, UTF-16 order equals code point order equals UTF-8 byte order.
    if (a < 0xd800 && b < 0xd800) return a < b ? -1 : 1;
    return Math.sign(Buffer.compare(Buffer.from(left.slice(index), 'utf8'), Buffer.from(right.slice(index), 'utf8')));
  }
  return left.length === right.length ? 0 : left.length < right.length ? -1 : 1;
}
