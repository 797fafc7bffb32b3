import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { AttributeValue } from '../src/model/attribute-value.js';
import { canonicalizeNumber, compareNumbers } from '../src/model/numbers.js';
import {
  decodeItemKeyHash,
  encodeItemKey,
  encodeSortKey,
  hashPartitionKey,
  keyBytesOf,
  murmur3x86_32,
  partitionKeyPrefix,
  prefixUpperBound,
} from '../src/model/key-codec.js';
import { seededRandom as randomSource } from './support/random.js';

// decimal.js's ESM build has only a default export while its typings are CommonJS (see model-numbers test).
const { Decimal } = createRequire(import.meta.url)('decimal.js') as typeof import('decimal.js');


function randomInt(random: () => number, bound: number): number {
  return Math.floor(random() * bound);
}

const prefix = Buffer.from([0x00, 0x2a]);

test('murmur3_x86_32 matches the reference test vectors', () => {
  const cases: [string, number, number][] = [
    ['', 0, 0x00000000],
    ['', 1, 0x514e28b7],
    ['', 0xffffffff, 0x81f16f39],
    ['a', 0, 0x3c2569b2],
    ['ab', 0, 0x9bbfd75f],
    ['abc', 0, 0xb3dd93fa],
    ['aaaa', 0x9747b28c, 0x5a97808a],
    ['hello', 0, 0x248bfa47],
    ['Hello, world!', 1234, 0xfaf6cdb3],
    ['The quick brown fox jumps over the lazy dog', 0, 0x2e4ff723],
  ];
  for (const [text, seed, expected] of cases) {
    assert.equal(murmur3x86_32(Buffer.from(text), seed), expected, `${JSON.stringify(text)} seed ${seed}`);
  }
  // A sub-range hashes like the same bytes on their own.
  const framed = Buffer.from('xxhelloyy');
  assert.equal(murmur3x86_32(framed, 0, 2, 7), 0x248bfa47);
});

test('keyBytesOf: S as UTF-8, N as canonical text, B decoded', () => {
  assert.deepEqual([...keyBytesOf({ S: 'a€' })], [0x61, 0xe2, 0x82, 0xac]);
  assert.deepEqual(Buffer.from(keyBytesOf({ N: '1.50' })).toString('latin1'), '1.5');
  assert.deepEqual(Buffer.from(keyBytesOf({ N: '-0' })).toString('latin1'), '0');
  assert.deepEqual([...keyBytesOf({ B: 'AP8=' })], [0x00, 0xff]);
  assert.throws(() => keyBytesOf({ BOOL: true }), /key attribute must be S, N or B/);
});

test('hash is deterministic and equal for equal numbers however written', () => {
  const bytes = Buffer.from('user#42');
  assert.equal(hashPartitionKey(bytes), hashPartitionKey(Buffer.from('user#42')));
  assert.equal(hashPartitionKey(keyBytesOf({ N: '100' })), hashPartitionKey(keyBytesOf({ N: '1E2' })));
  const key = encodeItemKey(prefix, { N: '1.0e2' }, undefined);
  assert.equal(decodeItemKeyHash(key, prefix.length), hashPartitionKey(Buffer.from('100')));
  assert.deepEqual(key, encodeItemKey(prefix, { N: '100' }, undefined));
});

test('hash spreads keys evenly over 2^32', () => {
  const count = 65_536;
  const high = new Array<number>(256).fill(0);
  const low = new Array<number>(256).fill(0);
  const seen = new Set<number>();
  let min = 2 ** 32;
  let max = 0;
  for (let i = 0; i < count; i++) {
    const hash = hashPartitionKey(Buffer.from(`user#${i}`));
    assert.ok(Number.isInteger(hash) && hash >= 0 && hash < 2 ** 32);
    high[hash >>> 24]++;
    low[hash & 0xff]++;
    seen.add(hash);
    min = Math.min(min, hash);
    max = Math.max(max, hash);
  }
  // Chi-square over 256 buckets has 255 degrees of freedom (mean 255, sd ~22.6); 400 is > 6 sd.
  const expected = count / 256;
  for (const buckets of [high, low]) {
    const chiSquare = buckets.reduce((sum, observed) => sum + (observed - expected) ** 2 / expected, 0);
    assert.ok(chiSquare < 400, `chi-square ${chiSquare}`);
  }
  assert.ok(seen.size > count - 10, `${count - seen.size} collisions`);
  assert.ok(min < 2 ** 32 / 1000 && max > 2 ** 32 * 0.999, 'covers the whole range');
});

test('hash avalanche: one flipped input bit changes about half the output bits', () => {
  const random = randomSource(99);
  let changed = 0;
  const trials = 5_000;
  for (let i = 0; i < trials; i++) {
    const bytes = Buffer.alloc(1 + randomInt(random, 40));
    for (let j = 0; j < bytes.length; j++) bytes[j] = randomInt(random, 256);
    const before = hashPartitionKey(bytes);
    bytes[randomInt(random, bytes.length)] ^= 1 << randomInt(random, 8);
    let diff = (before ^ hashPartitionKey(bytes)) >>> 0;
    while (diff !== 0) {
      changed += diff & 1;
      diff >>>= 1;
    }
  }
  const mean = changed / trials;
  assert.ok(mean > 15.5 && mean < 16.5, `mean changed bits ${mean}`);
});

test('number sort key encoding: layout', () => {
  assert.deepEqual([...encodeSortKey({ N: '0' })], [0x02]);
  assert.deepEqual([...encodeSortKey({ N: '-0.0' })], [0x02]);
  assert.deepEqual([...encodeSortKey({ N: '1' })], [0x03, 130, 2, 0x00]);
  assert.deepEqual([...encodeSortKey({ N: '-1' })], [0x01, 0xff - 130, 0xff - 2, 0xff]);
  assert.deepEqual([...encodeSortKey({ N: '105' })], [0x03, 132, 2, 1, 6, 0x00]);
  assert.deepEqual([...encodeSortKey({ N: '1e-130' })], [0x03, 0, 2, 0x00]);
  assert.equal(encodeSortKey({ N: '9.9999999999999999999999999999999999999E+125' })[1], 255);
  assert.equal(encodeSortKey({ N: '-1e-130' })[1], 255);
  assert.deepEqual(encodeSortKey({ N: '1.50' }), encodeSortKey({ N: '1.5' }));
});

/** A random valid number, biased towards shared prefixes, tiny/huge exponents and long digit runs. */
function randomNumber(random: () => number): string {
  const roll = random();
  if (roll < 0.05) return '0';
  if (roll < 0.1) {
    const extreme = random() < 0.5 ? '1e-130' : '9.9999999999999999999999999999999999999E+125';
    return canonicalizeNumber((random() < 0.5 ? '-' : '') + extreme);
  }
  const digitCount = 1 + randomInt(random, random() < 0.3 ? 38 : 4);
  let digits = '';
  for (let i = 0; i < digitCount; i++) digits += String(randomInt(random, random() < 0.3 ? 2 : 10));
  const exponent = random() < 0.2 ? randomInt(random, 250) - 125 : randomInt(random, 8) - 4;
  return canonicalizeNumber((random() < 0.5 ? '-' : '') + digits + 'e' + String(exponent - digitCount + 1));
}

function sign(value: number): number {
  return value < 0 ? -1 : value > 0 ? 1 : 0;
}

test('number sort keys: byte order equals numeric order (random pairs)', () => {
  const random = randomSource(0xabc);
  for (let i = 0; i < 20_000; i++) {
    const a = randomNumber(random);
    const b = random() < 0.05 ? a : randomNumber(random);
    const byValue = new Decimal(a).cmp(new Decimal(b));
    assert.equal(sign(compareNumbers(a, b)), byValue, `${a} vs ${b}`);
    assert.equal(sign(Buffer.compare(encodeSortKey({ N: a }), encodeSortKey({ N: b }))), byValue, `${a} vs ${b}`);
  }
});

test('number sort keys: hand-picked neighbours sort correctly', () => {
  const ordered = [
    '-9.9999999999999999999999999999999999999E+125', '-1e125', '-150', '-15', '-10', '-1.5', '-1.05', '-1',
    '-0.15', '-0.1', '-1e-130', '0', '1e-130', '0.1', '0.15', '1', '1.05', '1.5', '10', '15', '150',
    '99999999999999999999999999999999999999', '1e38', '1.0000000000000000000000000000000000001e38',
    '9.9999999999999999999999999999999999999E+125',
  ];
  const encoded = ordered.map((text) => encodeSortKey({ N: text }));
  for (let i = 0; i + 1 < encoded.length; i++) {
    assert.equal(Buffer.compare(encoded[i], encoded[i + 1]), -1, `${ordered[i]} < ${ordered[i + 1]}`);
  }
});

/** Compares by Unicode code point, the order of UTF-8 bytes (unlike JS's UTF-16 `<`). */
function compareCodePoints(a: string, b: string): number {
  const pointsA = Array.from(a, (c) => c.codePointAt(0) ?? 0);
  const pointsB = Array.from(b, (c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(pointsA.length, pointsB.length); i++) {
    if (pointsA[i] !== pointsB[i]) return pointsA[i] < pointsB[i] ? -1 : 1;
  }
  return sign(pointsA.length - pointsB.length);
}

const STRING_POOL = ['a', 'b', 'z', 'é', '€', '\uffff', '\ud7ff', '\ue000', '😀', '𝄞', '\u{10ffff}', '\u0000', '\u007f', '\u0080'];

test('string sort keys: UTF-8 byte order, including surrogate pairs', () => {
  const bmpMax = encodeSortKey({ S: '\uffff' });
  const astral = encodeSortKey({ S: '😀' });
  assert.ok('\uffff' > '😀', 'JS compares UTF-16 units, where surrogates sort below U+FFFF');
  assert.equal(Buffer.compare(bmpMax, astral), -1, 'DynamoDB compares UTF-8 bytes: U+FFFF < U+1F600');
  assert.equal(Buffer.compare(encodeSortKey({ S: 'ab' }), encodeSortKey({ S: 'abc' })), -1);
  const random = randomSource(0x5);
  for (let i = 0; i < 10_000; i++) {
    const make = (): string => {
      let text = '';
      const length = 1 + randomInt(random, 4);
      for (let j = 0; j < length; j++) text += STRING_POOL[randomInt(random, STRING_POOL.length)];
      return text;
    };
    const a = make();
    const b = make();
    const bytes = sign(Buffer.compare(encodeSortKey({ S: a }), encodeSortKey({ S: b })));
    assert.equal(bytes, compareCodePoints(a, b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
});

function compareUnsigned(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return sign(a.length - b.length);
}

test('binary sort keys: unsigned byte order', () => {
  const key = (bytes: number[]): Uint8Array => encodeSortKey({ B: Buffer.from(bytes).toString('base64') });
  assert.equal(Buffer.compare(key([0x7f]), key([0x80])), -1, 'bytes are unsigned');
  assert.equal(Buffer.compare(key([0x80]), key([0xff])), -1);
  assert.equal(Buffer.compare(key([0x01]), key([0x01, 0x00])), -1, 'a prefix sorts first');
  const random = randomSource(0xb1);
  for (let i = 0; i < 5_000; i++) {
    const a = Buffer.from(Array.from({ length: 1 + randomInt(random, 4) }, () => randomInt(random, 4) * 85));
    const b = Buffer.from(Array.from({ length: 1 + randomInt(random, 4) }, () => randomInt(random, 4) * 85));
    const encodedA = encodeSortKey({ B: a.toString('base64') });
    const encodedB = encodeSortKey({ B: b.toString('base64') });
    assert.deepEqual(Buffer.from(encodedA), a);
    assert.equal(sign(Buffer.compare(encodedA, encodedB)), compareUnsigned(a, b));
  }
});

test('encodeItemKey layout: prefix | hash32 BE | length BE | partition key | sort key', () => {
  const key = encodeItemKey(prefix, { S: 'pk€' }, { N: '-12.5' });
  const partitionBytes = Buffer.from('pk€');
  const hash = hashPartitionKey(partitionBytes);
  const sortBytes = Buffer.from(encodeSortKey({ N: '-12.5' }));
  const expected = Buffer.concat([
    prefix,
    Buffer.from([hash >>> 24, (hash >>> 16) & 0xff, (hash >>> 8) & 0xff, hash & 0xff]),
    Buffer.from([0, partitionBytes.length]),
    partitionBytes,
    sortBytes,
  ]);
  assert.deepEqual(key, expected);
  assert.equal(decodeItemKeyHash(key, prefix.length), hash);
  assert.deepEqual(encodeItemKey(prefix, { B: 'AP8=' }, undefined).subarray(prefix.length + 4), Buffer.from([0, 2, 0x00, 0xff]));
  assert.deepEqual(partitionKeyPrefix(prefix, { S: 'pk€' }), expected.subarray(0, expected.length - sortBytes.length));
  assert.deepEqual(encodeItemKey(Buffer.alloc(0), { S: 'x' }, { S: 'y' }).subarray(4), Buffer.from([0, 1, 0x78, 0x79]));
});

test('encodeItemKey writes short ASCII, long ASCII and non-ASCII keys byte for byte', () => {
  for (const text of ['k', 'x'.repeat(64), 'y'.repeat(65), 'z'.repeat(2048), 'é'.repeat(40), 'a😀b', '\ud800']) {
    const key = encodeItemKey(prefix, { S: text }, { S: text });
    const bytes = Buffer.from(text, 'utf8');
    assert.deepEqual(key.subarray(prefix.length + 6), Buffer.concat([bytes, bytes]));
    assert.equal(key.readUInt16BE(prefix.length + 4), bytes.length);
    assert.equal(decodeItemKeyHash(key, prefix.length), hashPartitionKey(bytes));
  }
});

test('encodeItemKey rejects a partition key too long for its length field', () => {
  assert.throws(() => encodeItemKey(prefix, { S: 'x'.repeat(70_000) }, undefined), /assertion failed/);
});

function randomSortKey(random: () => number, type: 'S' | 'N' | 'B'): AttributeValue {
  if (type === 'N') return { N: randomNumber(random) };
  const length = 1 + randomInt(random, 6);
  const bytes = Buffer.from(Array.from({ length }, () => 0x61 + randomInt(random, 3)));
  return type === 'S' ? { S: bytes.toString('latin1') } : { B: bytes.toString('base64') };
}

function compareSortKeys(a: AttributeValue, b: AttributeValue): number {
  if ('N' in a && 'N' in b) return compareNumbers(a.N, b.N);
  if ('S' in a && 'S' in b) return compareCodePoints(a.S, b.S);
  if ('B' in a && 'B' in b) return compareUnsigned(Buffer.from(a.B, 'base64'), Buffer.from(b.B, 'base64'));
  throw new Error('mixed sort key types');
}

test('items of a partition are contiguous, sorted by sort key, and inside the Query range', () => {
  const random = randomSource(0x17);
  const partitionKeys: AttributeValue[] = Array.from({ length: 50 }, (_, i) => ({ S: `customer#${i}` }));
  for (const type of ['S', 'N', 'B'] as const) {
    const entries: { key: Buffer; partition: number; sort: AttributeValue }[] = [];
    for (let i = 0; i < 2_000; i++) {
      const partition = randomInt(random, partitionKeys.length);
      const sort = randomSortKey(random, type);
      entries.push({ key: encodeItemKey(prefix, partitionKeys[partition], sort), partition, sort });
    }
    entries.sort((x, y) => Buffer.compare(x.key, y.key));
    const finished = new Set<number>();
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      const previous = entries[i - 1];
      if (previous !== undefined && previous.partition !== entry.partition) {
        assert.ok(!finished.has(entry.partition), 'a partition key appears in two runs');
        finished.add(previous.partition);
        const hashBefore = decodeItemKeyHash(previous.key, prefix.length);
        assert.ok(hashBefore <= decodeItemKeyHash(entry.key, prefix.length), 'partitions ordered by hash');
      }
      if (previous !== undefined && previous.partition === entry.partition) {
        assert.ok(compareSortKeys(previous.sort, entry.sort) <= 0, `${type} sort keys out of order`);
      }
      const start = partitionKeyPrefix(prefix, partitionKeys[entry.partition]);
      const end = prefixUpperBound(start);
      assert.ok(Buffer.compare(start, entry.key) <= 0 && Buffer.compare(entry.key, end) < 0, 'item inside its Query range');
      const other = partitionKeys[(entry.partition + 1) % partitionKeys.length];
      const otherStart = partitionKeyPrefix(prefix, other);
      const outside = Buffer.compare(entry.key, otherStart) < 0 || Buffer.compare(entry.key, prefixUpperBound(otherStart)) >= 0;
      assert.ok(outside, 'item outside another partition key range');
    }
  }
});

test('prefixUpperBound', () => {
  assert.deepEqual(prefixUpperBound(Buffer.from([0x01])), Buffer.from([0x02]));
  assert.deepEqual(prefixUpperBound(Buffer.from([0x01, 0xfe])), Buffer.from([0x01, 0xff]));
  assert.deepEqual(prefixUpperBound(Buffer.from([0x01, 0x02, 0xff, 0xff])), Buffer.from([0x01, 0x03]));
  assert.deepEqual(prefixUpperBound(new Uint8Array([0x00])), Buffer.from([0x01]));
  assert.throws(() => prefixUpperBound(Buffer.from([0xff, 0xff])), /no upper bound/);
  assert.throws(() => prefixUpperBound(Buffer.alloc(0)), /no upper bound/);
  const input = Buffer.from([0x05, 0xff]);
  prefixUpperBound(input);
  assert.deepEqual(input, Buffer.from([0x05, 0xff]), 'input is not modified');
  const random = randomSource(3);
  for (let i = 0; i < 2_000; i++) {
    const start = Buffer.from(Array.from({ length: 1 + randomInt(random, 4) }, () => (random() < 0.4 ? 0xff : randomInt(random, 256))));
    if (start.every((byte) => byte === 0xff)) continue;
    const bound = prefixUpperBound(start);
    const extended = Buffer.concat([start, Buffer.from(Array.from({ length: randomInt(random, 4) }, () => 0xff))]);
    assert.ok(Buffer.compare(extended, bound) < 0, 'every key with the prefix is below the bound');
    assert.ok(Buffer.compare(start, bound) < 0);
    assert.ok(!bound.subarray(0, start.length).equals(start) || bound.length < start.length, 'bound lacks the prefix');
  }
});

test('decodeItemKeyHash reads the hash after any prefix length', () => {
  for (const length of [0, 1, 5]) {
    const keyPrefix = Buffer.alloc(length, 0xaa);
    const key = encodeItemKey(keyPrefix, { S: 'k' }, { S: 's' });
    assert.equal(decodeItemKeyHash(key, length), hashPartitionKey(Buffer.from('k')));
  }
  assert.throws(() => decodeItemKeyHash(Buffer.from([1, 2, 3]), 0), /too short/);
});
