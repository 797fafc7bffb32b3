import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { AttributeMap, AttributeValue } from '../src/model/attribute-value.js';
import {
  attributeValueSize,
  base64DecodedLength,
  ITEM_SIZE_MAX_BYTES,
  itemSize,
  numberSize,
  PARTITION_KEY_MAX_BYTES,
  SORT_KEY_MAX_BYTES,
  utf8Length,
} from '../src/model/item-size.js';
import { seededRandom as randomSource } from './support/random.js';

/** dynalite's sizer, used only as a test oracle (it measures strings in UTF-16 units, so ASCII only). */
const dynalite = createRequire(import.meta.url)('dynalite/db/index.js') as { itemSize(item: AttributeMap): number };


test('limits', () => {
  assert.equal(ITEM_SIZE_MAX_BYTES, 409_600);
  assert.equal(PARTITION_KEY_MAX_BYTES, 2048);
  assert.equal(SORT_KEY_MAX_BYTES, 1024);
});

test('AWS example: shirt-color R, shirt-size M is 23 bytes', () => {
  assert.equal(itemSize({ 'shirt-color': { S: 'R' }, 'shirt-size': { S: 'M' } }), 23);
});

test('strings count UTF-8 bytes, names included', () => {
  assert.equal(utf8Length(''), 0);
  assert.equal(utf8Length('abc'), 3);
  assert.equal(utf8Length('é'), 2);
  assert.equal(utf8Length('€'), 3);
  assert.equal(utf8Length('😀'), 4);
  assert.equal(utf8Length('\ud800'), 3, 'a lone surrogate is encoded as U+FFFD');
  assert.equal(attributeValueSize({ S: '' }), 0);
  assert.equal(attributeValueSize({ S: 'a€😀' }), 8);
  assert.equal(itemSize({ ñame: { S: '日本' } }), 5 + 6);
});

test('numbers: dynalite formula', () => {
  const cases: [string, number][] = [
    ['0', 1],
    ['1', 2],
    ['-1', 3],
    ['9', 2],
    ['10', 2],
    ['100', 2],
    ['12', 2], // 2 digits at an odd exponent: one base-100 pair
    ['1.2', 3], // 2 digits at an even exponent straddle two pairs
    ['-1.2', 4],
    ['123', 3],
    ['1234', 3],
    ['12345', 4],
    ['123456', 4],
    ['12.34', 3],
    ['1.234', 4],
    ['0.1', 2],
    ['0.12', 2],
    ['0.012', 3],
    ['-12', 3],
    ['1' + '0'.repeat(125), 2],
    ['9'.repeat(38) + '0'.repeat(88), 20],
    ['-' + '9'.repeat(38) + '0'.repeat(88), 21],
    ['0.' + '0'.repeat(129) + '1', 2],
    ['1234567890.1234567890123456789012345678', 20],
    ['123456789.12345678901234567890123456789', 21],
  ];
  for (const [text, size] of cases) {
    assert.equal(numberSize(text), size, text);
    assert.equal(attributeValueSize({ N: text }), size, text);
  }
});

test('binary: decoded length from base64 text and padding', () => {
  const cases: [string, number][] = [
    ['', 0],
    ['QQ==', 1],
    ['QUI=', 2],
    ['QUJD', 3],
    ['QUJDRA==', 4],
    ['QUJDREU=', 5],
    ['QUJDREVG', 6],
    ['QQ', 1],
    ['QUI', 2],
  ];
  for (const [text, size] of cases) {
    assert.equal(base64DecodedLength(text), size, text);
    assert.equal(attributeValueSize({ B: text }), size, text);
    assert.equal(size, Buffer.from(text, 'base64').length);
  }
  const random = randomSource(7);
  for (let length = 0; length < 300; length++) {
    const bytes = Buffer.alloc(length);
    for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
    assert.equal(base64DecodedLength(bytes.toString('base64')), length);
    assert.equal(base64DecodedLength(bytes.toString('base64url')), length);
  }
});

test('BOOL and NULL are 1 byte', () => {
  assert.equal(attributeValueSize({ BOOL: true }), 1);
  assert.equal(attributeValueSize({ BOOL: false }), 1);
  assert.equal(attributeValueSize({ NULL: true }), 1);
});

test('lists and maps: 3 bytes + 1 per element + elements (+ map keys)', () => {
  assert.equal(attributeValueSize({ L: [] }), 3);
  assert.equal(attributeValueSize({ M: {} }), 3);
  assert.equal(attributeValueSize({ L: [{ S: 'ab' }, { N: '1' }] }), 3 + (1 + 2) + (1 + 2));
  assert.equal(attributeValueSize({ M: { k: { S: 'ab' }, kk: { NULL: true } } }), 3 + (1 + 1 + 2) + (1 + 2 + 1));
  const nested: AttributeMap = {
    m: {
      M: {
        a: { S: 'xy' },
        bb: { L: [{ N: '1' }, { BOOL: true }, { NULL: true }] },
      },
    },
  };
  // m(1) + M[3 + (1 + a(1) + 2) + (1 + bb(2) + L[3 + (1+2) + (1+1) + (1+1)])]
  assert.equal(itemSize(nested), 1 + 3 + 4 + (1 + 2 + 10));
  assert.equal(attributeValueSize({ M: { é: { L: [{ L: [] }] } } }), 3 + 1 + 2 + (3 + 1 + 3));
});

test('sets: plain sum of element sizes', () => {
  assert.equal(attributeValueSize({ SS: ['a', 'bc', '€'] }), 6);
  assert.equal(attributeValueSize({ NS: ['1', '-1', '1.2'] }), 2 + 3 + 3);
  assert.equal(attributeValueSize({ BS: ['QQ==', 'QUI='] }), 3);
});

test('empty item is 0 bytes', () => {
  assert.equal(itemSize({}), 0);
});

function randomAscii(random: () => number, maxLength: number): string {
  let text = '';
  const length = Math.floor(random() * maxLength);
  for (let i = 0; i < length; i++) text += String.fromCharCode(32 + Math.floor(random() * 95));
  return text;
}

function randomNumber(random: () => number): string {
  const digits = 1 + Math.floor(random() * 38);
  let text = String(1 + Math.floor(random() * 9));
  for (let i = 1; i < digits; i++) text += String(Math.floor(random() * 10));
  const point = Math.floor(random() * (digits + 1));
  if (point < digits) text = text.slice(0, point || 1) + '.' + text.slice(point || 1);
  if (text.endsWith('0') && text.includes('.')) text = text.replace(/\.?0+$/, '');
  return (random() < 0.5 ? '-' : '') + text;
}

function randomValue(random: () => number, depth: number): AttributeValue {
  const kind = Math.floor(random() * (depth > 3 ? 8 : 10));
  switch (kind) {
    case 0:
      return { S: randomAscii(random, 20) };
    case 1:
      return { N: random() < 0.1 ? '0' : randomNumber(random) };
    case 2:
      return { B: Buffer.from(randomAscii(random, 20)).toString('base64') };
    case 3:
      return { BOOL: random() < 0.5 };
    case 4:
      return { NULL: true };
    case 5:
      return { SS: [randomAscii(random, 5) + 'a', randomAscii(random, 5) + 'b'] };
    case 6:
      return { NS: [randomNumber(random), randomNumber(random)] };
    case 7:
      return { BS: [Buffer.from(randomAscii(random, 9)).toString('base64')] };
    case 8:
      return { L: Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1)) };
    default:
      return { M: randomMap(random, depth + 1) };
  }
}

function randomMap(random: () => number, depth: number): AttributeMap {
  const map: { [name: string]: AttributeValue } = {};
  const count = Math.floor(random() * 5);
  for (let i = 0; i < count; i++) map[randomAscii(random, 8) + 'k' + i] = randomValue(random, depth);
  return map;
}

test('random ASCII items: same size as dynalite', () => {
  const random = randomSource(0x5eed);
  for (let i = 0; i < 2_000; i++) {
    const item = randomMap(random, 0);
    assert.equal(itemSize(item), dynalite.itemSize(item), JSON.stringify(item));
  }
});

test('numberSize: canonical integers (sized from their text alone) agree with the general rule and with dynalite', () => {
  const random = randomSource(2126);
  for (let i = 0; i < 5_000; i++) {
    const length = 1 + Math.floor(random() * 45);
    let digits = String(1 + Math.floor(random() * 9));
    // Many zeros, so trailing zeros (not significant) and even/odd alignments both come up.
    for (let j = 1; j < length; j++) digits += random() < 0.4 ? '0' : String(Math.floor(random() * 10));
    const text = (random() < 0.3 ? '-' : '') + digits;
    // `.0` takes the same value off the integer path, to the general one.
    const general = (): number => numberSize(`${text}.0`);
    let expected: number | Error;
    try {
      expected = general();
    } catch (error) {
      expected = error as Error;
    }
    if (expected instanceof Error) assert.throws(() => numberSize(text), { message: expected.message }, text);
    else {
      assert.equal(numberSize(text), expected, text);
      if (text.length <= 38) assert.equal(numberSize(text), dynalite.itemSize({ n: { N: text } }) - 1, text);
    }
  }
  for (const [text, size] of [['0', 1], ['-0', 1], ['1', 2], ['10', 2], ['100', 2], ['-100', 3], ['1000', 2], ['12', 2], ['123', 3]] as const) assert.equal(numberSize(text), size, text);
});
