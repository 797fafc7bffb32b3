/**
 * The item collection size cache (src/engine/item-collections.ts): bounded, least recently used
 * dropped first, measured once per miss, and moved by writes only while cached (an uncached size
 * lives in the store). The SDK-level behaviour across restarts is in startup-statistics.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ItemCollections } from '../src/engine/item-collections.js';

test('a miss is measured once and cached; writes move a cached size', () => {
  const collections = new ItemCollections(4);
  let measured = 0;
  const measure = (bytes: number) => () => {
    measured++;
    return bytes;
  };
  assert.equal(collections.sizeIn('a', measure(100)), 100);
  assert.equal(collections.sizeIn('a', measure(999)), 100, 'a cached size is not measured again');
  assert.equal(measured, 1);
  collections.add('a', 25);
  assert.equal(collections.cachedSizeOf('a'), 125);
  collections.add('b', 25);
  assert.equal(collections.cachedSizeOf('b'), undefined, 'an uncached collection gains no entry from a write');
});

test('the cache holds at most its bound, dropping the least recently used', () => {
  const collections = new ItemCollections(3);
  for (const key of ['a', 'b', 'c']) collections.sizeIn(key, () => 1);
  collections.sizeIn('a', () => assert.fail('a is cached')); // a is now the most recently used
  collections.sizeIn('d', () => 4);
  assert.equal(collections.cachedCount, 3);
  assert.equal(collections.cachedSizeOf('b'), undefined, 'b was the least recently used');
  for (const key of ['a', 'c', 'd']) assert.notEqual(collections.cachedSizeOf(key), undefined);
  for (let index = 0; index < 100; index++) collections.sizeIn(`k${index}`, () => index);
  assert.equal(collections.cachedCount, 3);
  assert.throws(() => new ItemCollections(0));
});
