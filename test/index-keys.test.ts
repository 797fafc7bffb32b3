/**
 * Index entry keys (src/engine/index-keys.ts): escaped S/B sort keys keep DynamoDB's order even
 * when something follows them; over-long keys are cut to the storable length with a digest;
 * range bounds past that length are widened and flagged inexact.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AttributeValue as SdkValue } from '@aws-sdk/client-dynamodb';
import { encodeEntryKey, encodeIndexSortKey, indexPartitionRange, indexPrefixOf, multiIndexPartitionRange, storableKey, STORED_PREFIX_BYTES, type SortKeyCondition } from '../src/engine/index-keys.js';
import type { KeyShape } from '../src/engine/table.js';
import { decodeItemKeyHash } from '../src/model/key-codec.js';
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

  describe('multi-attribute keys', () => {
    const prefix = indexPrefixOf(11);
    const shape: KeyShape = {
      hash: { name: 'h1', type: 'S' },
      range: { name: 'r1', type: 'N' },
      multi: {
        hashes: [{ name: 'h1', type: 'S' }, { name: 'h2', type: 'B' }],
        ranges: [{ name: 'r1', type: 'N' }, { name: 'r2', type: 'S' }],
      },
    };
    const random = seededRandom(20);
    const number = (): AttributeValue => ({ N: String(Math.round((random() - 0.5) * 8) / 2) });
    interface TupleItem {
      readonly h1: { readonly S: string };
      readonly h2: { readonly B: string };
      readonly r1: AttributeValue;
      readonly r2: { readonly S: string };
    }
    const items = Array.from({ length: 300 }, (_, at) => ({
      item: { h1: { S: at % 2 === 0 ? 'a' : 'ab' }, h2: { B: Buffer.from(at % 3 === 0 ? [0x01, 0x00] : [0x63]).toString('base64') }, r1: number(), r2: { S: randomText(random) } } as TupleItem,
      suffix: Buffer.from([0, 2, at >> 8, at & 0xff]),
    }));
    const keyed = items.map(({ item, suffix }) => ({ item, key: encodeEntryKey(prefix, shape, { ...item }, suffix)! }));
    const partitionValues = (item: TupleItem): AttributeValue[] => [item.h1, item.h2];
    const samePartition = (left: TupleItem, right: TupleItem) => left.h1.S === right.h1.S && left.h2.B === right.h2.B;

    test('the partition is the tuple: its hash covers every value, and tuples of the same bytes differ', () => {
      const key = (h1: string, h2: number[]) => encodeEntryKey(prefix, shape, { h1: { S: h1 }, h2: { B: Buffer.from(h2).toString('base64') }, r1: { N: '1' }, r2: { S: 'x' } }, Buffer.from([0, 1, 0x61]))!;
      // "a" + "bc" and "ab" + "c" concatenate alike; each value's length keeps them apart.
      assert.notDeepEqual(key('a', [0x62, 0x63]), key('ab', [0x63]));
      assert.notEqual(decodeItemKeyHash(key('a', [0x62, 0x63]), 5), decodeItemKeyHash(key('ab', [0x63]), 5));
      assert.notEqual(decodeItemKeyHash(key('a', [0x01]), 5), decodeItemKeyHash(key('a', [0x02]), 5));
      // Missing any attribute, or one of another type: no entry.
      assert.equal(encodeEntryKey(prefix, shape, { h1: { S: 'a' }, r1: { N: '1' }, r2: { S: 'x' } }, Buffer.from([0, 1, 0x61])), undefined);
      assert.equal(encodeEntryKey(prefix, shape, { h1: { S: 'a' }, h2: { B: 'AA==' }, r1: { N: '1' }, r2: { N: '2' } }, Buffer.from([0, 1, 0x61])), undefined);
    });

    test('within a partition, entries sort by the sort values left to right, each by its type', () => {
      const sorted = [...keyed].sort((left, right) => Buffer.compare(left.key, right.key));
      for (let at = 1; at < sorted.length; at++) {
        const [left, right] = [sorted[at - 1]!.item, sorted[at]!.item];
        if (Buffer.compare(sorted[at - 1]!.key.subarray(0, 5 + 4), sorted[at]!.key.subarray(0, 5 + 4)) !== 0) continue;
        if (!samePartition(left, right)) continue;
        const order = compareKeyValues(sdkOf(left.r1), sdkOf(right.r1)) || compareKeyValues(sdkOf(left.r2), sdkOf(right.r2));
        assert.ok(order <= 0, JSON.stringify([left, right]));
      }
    });

    test('a range of given first sort values and a condition on the next holds exactly the matching entries', () => {
      const conditions: [SortKeyCondition, (value: AttributeValue) => boolean][] = [
        [{ kind: 'compare', comparator: '<', value: { S: 'b' } }, (value) => compareKeyValues(sdkOf(value), { S: 'b' }) < 0],
        [{ kind: 'compare', comparator: '>=', value: { S: 'a' } }, (value) => compareKeyValues(sdkOf(value), { S: 'a' }) >= 0],
        [{ kind: 'begins_with', prefix: { S: 'a\u0000' } }, (value) => (value as { readonly S: string }).S.startsWith('a\u0000')],
        [{ kind: 'between', low: { S: '\u0001' }, high: { S: 'b' } }, (value) => compareKeyValues(sdkOf(value), { S: '\u0001' }) >= 0 && compareKeyValues(sdkOf(value), { S: 'b' }) <= 0],
      ];
      for (const { item: probe } of items.slice(0, 20)) {
        const partition = partitionValues(probe);
        for (const [condition, keep] of conditions) {
          const range = multiIndexPartitionRange(prefix, partition, [probe.r1], condition);
          assert.equal(range.exact, true);
          const inside = keyed.filter(({ key }) => Buffer.compare(range.start, key) <= 0 && Buffer.compare(key, range.end) < 0).map(({ item }) => item);
          const wanted = items.map(({ item }) => item).filter((item) => samePartition(item, probe) && compareKeyValues(sdkOf(item.r1), sdkOf(probe.r1)) === 0 && keep(item.r2));
          assert.deepEqual(new Set(inside), new Set(wanted), JSON.stringify(condition));
        }
        const onFirst = multiIndexPartitionRange(prefix, partition, [], { kind: 'compare', comparator: '<=', value: probe.r1 });
        const inside = keyed.filter(({ key }) => Buffer.compare(onFirst.start, key) <= 0 && Buffer.compare(key, onFirst.end) < 0).length;
        const wanted = items.filter(({ item }) => samePartition(item, probe) && compareKeyValues(sdkOf(item.r1), sdkOf(probe.r1)) <= 0).length;
        assert.equal(inside, wanted);
      }
    });

    test('a partition of four 2 KB values passes the storable length: its range is inexact but covers every entry', () => {
      const big: KeyShape = { hash: { name: 'a', type: 'S' }, range: undefined, multi: { hashes: ['a', 'b', 'c', 'd'].map((name) => ({ name, type: 'S' as const })), ranges: [] } };
      const values = ['a', 'b', 'c', 'd'].map((letter) => ({ S: letter.repeat(2048) }));
      const entry = encodeEntryKey(prefix, big, { a: values[0]!, b: values[1]!, c: values[2]!, d: values[3]! }, Buffer.from([0, 1, 0x61]))!;
      assert.equal(entry.length, MAX_KEY_BYTES);
      const range = multiIndexPartitionRange(prefix, values, [], undefined);
      assert.equal(range.exact, false);
      assert.ok(Buffer.compare(range.start, entry) <= 0 && Buffer.compare(entry, range.end) < 0);
    });
  });
});
