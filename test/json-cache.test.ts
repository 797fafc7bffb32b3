import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonCache, JSON_CACHE_BYTES_MAX } from '../src/storage/json-cache.js';
import { openStorage } from '../src/storage/index.js';

function item(n: number, pad = 100): object {
  return { id: { S: `k${n}` }, pad: { S: 'x'.repeat(pad) } };
}

test('an entry is made once per value and answered again while kept', () => {
  const cache = new JsonCache(1_000_000);
  const value = item(1);
  const first = cache.entry(value);
  assert.equal(first.json, JSON.stringify(value));
  assert.equal(cache.entry(value), first, 'the same entry, so a reader’s encoded answer is kept too');
  // An equal but distinct value (a replaced item's successor) gets its own entry.
  const successor = item(1);
  assert.notEqual(cache.entry(successor), first);
  assert.equal(cache.size, 2);
});

test('the cache stays within its byte budget, dropping the oldest entries first', () => {
  const cache = new JsonCache(20_000);
  const values = Array.from({ length: 200 }, (_, n) => item(n));
  for (const value of values) {
    cache.entry(value);
    assert.ok(cache.bytes <= 20_000, `bytes ${cache.bytes} within the budget`);
  }
  assert.ok(cache.size > 10 && cache.size < 200, `kept ${cache.size} of 200`);
  // The newest entry is kept; the oldest went.
  const newest = values[199]!;
  assert.equal(cache.entry(newest), cache.entry(newest));
  const sizeBefore = cache.size;
  const oldestAgain = cache.entry(values[0]!);
  assert.equal(oldestAgain.json, JSON.stringify(values[0]));
  assert.equal(cache.size, sizeBefore, 'the oldest came back in, evicting another');
});

test('a value larger than the whole budget is answered but not kept', () => {
  const cache = new JsonCache(1_000);
  const entry = cache.entry(item(1, 5_000));
  assert.equal(entry.json.length > 5_000, true);
  assert.equal(cache.size, 0);
  assert.equal(cache.bytes, 0);
});

test('a budget must be a number of bytes >= 0', () => {
  assert.throws(() => new JsonCache(-1), /budget/);
  assert.throws(() => new JsonCache(Number.NaN), /budget/);
  assert.ok(JSON_CACHE_BYTES_MAX >= 16 * 1024 * 1024);
});

test('the memory store answers getWithJson right after its cache turned over many times', async () => {
  const store = await openStorage({ kind: 'memory' });
  try {
    const count = 3_000;
    const key = (n: number) => new Uint8Array(Buffer.from(`item-${n}`));
    await store.write((txn) => {
      for (let n = 0; n < count; n++) txn.put(key(n), item(n, 10_000));
    });
    // 3,000 items of ~10 KB read through: about 90 MB counted, past the 64 MB budget.
    for (let round = 0; round < 2; round++) {
      for (let n = 0; n < count; n += 1) assert.equal(store.getWithJson(key(n))?.json, JSON.stringify(item(n, 10_000)));
    }
    await store.write((txn) => txn.put(key(7), { id: { S: 'k7' }, pad: { S: 'changed' } }));
    assert.equal(store.getWithJson(key(7))?.json, '{"id":{"S":"k7"},"pad":{"S":"changed"}}');
  } finally {
    await store.close();
  }
});
