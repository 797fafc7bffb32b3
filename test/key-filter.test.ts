/**
 * The key filter of the logged store (src/storage/key-filter.ts): never a false negative, few
 * false positives at its capacity. Its use by the store is in test/storage-wal.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyFilter } from '../src/storage/key-filter.js';
import { seededRandom } from './support/random.js';

function randomKey(random: () => number): Uint8Array {
  const key = new Uint8Array(1 + Math.floor(random() * 60));
  for (let i = 0; i < key.length; i++) key[i] = Math.floor(random() * 256);
  return key;
}

test('key filter: every key added is maybe there; at capacity, few others are', () => {
  const random = seededRandom(7);
  const filter = new KeyFilter(0);
  const added: Uint8Array[] = [];
  while (filter.added < filter.capacity) {
    const key = randomKey(random);
    filter.add(key);
    added.push(key);
  }
  for (const key of added) assert.equal(filter.mayHave(key), true);
  let positives = 0;
  const probes = 100_000;
  for (let i = 0; i < probes; i++) {
    // A key of 61+ bytes: never one of the added ones.
    const key = new Uint8Array(61 + Math.floor(random() * 10)).map(() => Math.floor(random() * 256));
    if (filter.mayHave(key)) positives++;
  }
  assert.ok(positives / probes < 0.03, `false positive rate ${positives / probes}`);
});

test('key filter: sized for the keys expected, within its bounds; similar keys do not collide', () => {
  assert.equal(new KeyFilter(0).capacity, (1 << 20) / 10);
  assert.ok(new KeyFilter(1_000_000).capacity >= 1_000_000);
  assert.throws(() => new KeyFilter(-1), /expected keys/);
  const filter = new KeyFilter(10_000);
  // Keys differing in one byte, as storage keys of one table do.
  for (let i = 0; i < 10_000; i++) filter.add(Buffer.from(`\x01table\x00item-${i}`, 'latin1'));
  let positives = 0;
  for (let i = 10_000; i < 20_000; i++) if (filter.mayHave(Buffer.from(`\x01table\x00item-${i}`, 'latin1'))) positives++;
  assert.ok(positives < 200, `${positives} of 10,000 near misses`);
  for (let i = 0; i < 10_000; i++) assert.equal(filter.mayHave(Buffer.from(`\x01table\x00item-${i}`, 'latin1')), true);
});
