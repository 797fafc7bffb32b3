/**
 * Index entry keys (src/engine/index-keys.ts): escaped S/B sort keys keep DynamoDB's order even
 * when something follows them; over-long keys are cut to the storable length with a digest;
 * range bounds past that length are widened and flagged inexact.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AttributeValue as SdkValue } from '@aws-sdk/client-dynamodb';
import { encodeEntryKey, encodeIndexSortKey, indexPartitionRange, indexPrefixOf, storableKey, STORED_PREFIX_BYTES } from '../src/engine/index-keys.js';
import type { AttributeValue } from '../src/model/attribute-value.js';
import { MAX_KEY_BYTES } from '../src/storage/memory.js';
import { seededRandom } from './support/random.js';
import { compareKeyValues } from './support/read-tables.js';

const ALPHABET = ['\u0000', '\u0001', 'a', 'b', '\u00ff', '\uffff', 'é'];

function randomText(random: () => number): string {
  const length = 1 + Math.floor(random() * 5);
  let text = '';
  for (let index = 0; index < length; index++) text += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return text;
}

function randomBytes(random: () => number): number[] {
  const length = 1 + Math.floor(random() * 5);
  return Array.from({ length }, () => [0x00, 0x01, 0x7f, 0xfe, 0xff][Math.floor(random() * 5)]!);
}

/** The SDK form of a wire value, for the independent comparator. */
function sdkOf(value: AttributeValue): SdkValue {
  if ('B' in value) return { B: Buffer.from(value.B, 'base64') };
  return value as SdkValue;
}

describe('index entry keys', () => {
  test('escaped sort keys sort as DynamoDB sorts S, B and N, whatever follows them', () => {
    const random = seededRandom(7);
    const values: AttributeValue[][] = [
      Array.from({ length: 200 }, () => ({ S: randomText(random) })),
      Array.from({ length: 200 }, () => ({ B: Buffer.from(randomBytes(random)).toString('base64') })),
      Array.from({ length: 200 }, () => ({ N: String(Math.round((random() - 0.5) * 2000) / 8) })),
    ];
    for (const list of values) {
      // A table key suffix of 0xff bytes after a smaller value, 0x00 bytes after a larger one:
      // if the encoding were not prefix-free, the suffix would decide instead of the value.
      const keyed = list.map((value, index) => ({ value, key: Buffer.concat([encodeIndexSortKey(value), Buffer.alloc(3, index % 2 === 0 ? 0xff : 0x00)]) }));
      const byEncoding = [...keyed].sort((left, right) => Buffer.compare(left.key, right.key)).map((entry) => entry.value);
      for (let at = 1; at < byEncoding.length; at++) {
        assert.ok(compareKeyValues(sdkOf(byEncoding[at - 1]!), sdkOf(byEncoding[at]!)) <= 0, JSON.stringify([byEncoding[at - 1], byEncoding[at]]));
      }
    }
  });

  test('sparse: an item without the index keys, or with another type, has no entry', () => {
    const prefix = indexPrefixOf(3);
    const shape = { hash: { name: 'g', type: 'S' as const }, range: { name: 'r', type: 'N' as const } };
    const suffix = Buffer.from([0, 1, 0x61]);
    assert.equal(encodeEntryKey(prefix, shape, { g: { S: 'x' } }, suffix), undefined);
    assert.equal(encodeEntryKey(prefix, shape, { g: { S: 'x' }, r: { S: '1' } }, suffix), undefined);
    const key = encodeEntryKey(prefix, shape, { g: { S: 'x' }, r: { N: '1' } }, suffix)!;
    assert.deepEqual(key.subarray(0, 5), prefix);
    assert.deepEqual(key.subarray(key.length - suffix.length), suffix);
  });

  test('keys past the storable length are cut and end with a digest of the whole key', () => {
    const long = Buffer.alloc(MAX_KEY_BYTES + 100, 0x61);
    const other = Buffer.from(long);
    other[long.length - 1] = 0x62;
    const stored = storableKey(long);
    assert.equal(stored.length, MAX_KEY_BYTES);
    assert.deepEqual(stored.subarray(0, STORED_PREFIX_BYTES), long.subarray(0, STORED_PREFIX_BYTES));
    assert.notDeepEqual(storableKey(other), stored);
    const fits = Buffer.alloc(MAX_KEY_BYTES, 0x61);
    assert.equal(storableKey(fits), fits);
  });

  test('range bounds past the storable length are widened and reported inexact', () => {
    const prefix = indexPrefixOf(9);
    const partition: AttributeValue = { S: 'p'.repeat(2048) };
    const exact = indexPartitionRange(prefix, partition, { kind: 'compare', comparator: '=', value: { S: 'v' } });
    assert.equal(exact.exact, true);
    const sortKey: AttributeValue = { S: '\u0000'.repeat(1024) };
    const wide = indexPartitionRange(prefix, partition, { kind: 'compare', comparator: '=', value: sortKey });
    assert.equal(wide.exact, false);
    assert.ok(wide.start.length <= STORED_PREFIX_BYTES && wide.end.length <= STORED_PREFIX_BYTES);
    const full = Buffer.concat([indexPartitionRange(prefix, partition, undefined).start, encodeIndexSortKey(sortKey)]);
    const stored = storableKey(Buffer.concat([full, Buffer.alloc(50, 0x01)]));
    assert.ok(Buffer.compare(wide.start, stored) <= 0 && Buffer.compare(stored, wide.end) < 0);
  });
});
