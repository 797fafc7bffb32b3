/**
 * GetItem's read units without sizing the item (engine/reads.ts fitsOneReadBlock): an item's size
 * never exceeds 3 bytes per UTF-16 unit of its JSON text, so a short text means one read block.
 * Checked on random items of every type, with multi-byte and astral characters, long numbers,
 * binaries and nested containers, and at the 4 KB edge.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitsOneReadBlock } from '../src/engine/reads.js';
import { READ_UNIT_BYTES } from '../src/capacity/units.js';
import type { AttributeMap, AttributeValue } from '../src/model/attribute-value.js';
import { itemSize } from '../src/model/item-size.js';
import { seededRandom } from './support/random.js';

const CHARACTERS = ['a', 'Z', '0', ' ', '"', '\\', '\n', 'é', 'ß', '€', '中', '😀', '\u0001'];

function randomText(random: () => number, lengthMax: number): string {
  let text = '';
  const length = Math.floor(random() * lengthMax);
  for (let index = 0; index < length; index++) text += CHARACTERS[Math.floor(random() * CHARACTERS.length)]!;
  return text;
}

function randomNumber(random: () => number): string {
  const digits = 1 + Math.floor(random() * 38);
  let text = random() < 0.3 ? '-' : '';
  for (let index = 0; index < digits; index++) text += String(index === 0 ? 1 + Math.floor(random() * 9) : Math.floor(random() * 10));
  return random() < 0.3 ? `${text}E${Math.floor(random() * 60) - 30}` : text;
}

function randomValue(random: () => number, depth: number): AttributeValue {
  const roll = Math.floor(random() * (depth > 3 ? 8 : 10));
  switch (roll) {
    case 0: return { S: randomText(random, 300) };
    case 1: return { N: randomNumber(random) };
    case 2: return { B: Buffer.from(randomText(random, 60)).toString('base64') };
    case 3: return { BOOL: random() < 0.5 };
    case 4: return { NULL: true };
    case 5: return { SS: Array.from({ length: 1 + Math.floor(random() * 4) }, (_, index) => `${index}${randomText(random, 20)}`) };
    case 6: return { NS: Array.from({ length: 1 + Math.floor(random() * 4) }, () => randomNumber(random)) };
    case 7: return { BS: Array.from({ length: 1 + Math.floor(random() * 3) }, (_, index) => Buffer.from(`${index}${randomText(random, 20)}`).toString('base64')) };
    case 8: return { L: Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1)) };
    default: return { M: randomItem(random, depth + 1) };
  }
}

function randomItem(random: () => number, depth = 0): AttributeMap {
  const item: Record<string, AttributeValue> = {};
  const count = Math.floor(random() * 5) + (depth === 0 ? 1 : 0);
  for (let index = 0; index < count; index++) item[`${randomText(random, 6)}${index}`] = randomValue(random, depth);
  return item;
}

test('an item is never larger than 3 bytes per unit of its JSON text, so a short text is one read block', () => {
  const seed = 21_016;
  const random = seededRandom(seed);
  let oneBlock = 0;
  for (let round = 0; round < 5_000; round++) {
    const item = randomItem(random);
    const json = JSON.stringify(item);
    const size = itemSize(item);
    assert.ok(size <= 3 * json.length, `seed ${seed} round ${round}: size ${size} > 3 x ${json.length}: ${json}`);
    if (fitsOneReadBlock(json)) {
      oneBlock++;
      assert.ok(size <= READ_UNIT_BYTES, `seed ${seed} round ${round}`);
    }
  }
  assert.ok(oneBlock > 1_000, `one-block items: ${oneBlock}`);
});

test('at the edge: the shortcut answers only below 4 KB / 3 units of text, whatever the characters', () => {
  // 1,365 astral-free 3-byte characters: 4,095 bytes of value, text just over the shortcut's bound.
  const wide: AttributeMap = { k: { S: '中'.repeat(1_360) } };
  assert.equal(fitsOneReadBlock(JSON.stringify(wide)), false);
  assert.ok(itemSize(wide) <= READ_UNIT_BYTES);
  const small: AttributeMap = { k: { S: '中'.repeat(1_300) } };
  assert.equal(fitsOneReadBlock(JSON.stringify(small)), true);
  assert.ok(itemSize(small) <= READ_UNIT_BYTES);
  // ASCII items up to 1,365 text units take the shortcut; a 5 KB item never does.
  assert.equal(fitsOneReadBlock(JSON.stringify({ k: { S: 'x'.repeat(1_300) } })), true);
  assert.equal(fitsOneReadBlock(JSON.stringify({ k: { S: 'x'.repeat(5_000) } })), false);
});
