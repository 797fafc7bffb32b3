/**
 * The Space-Saving sketch behind Contributor Insights (src/metrics/space-saving.ts): exact while
 * the keys fit, heavy hitters found in a skewed stream with bounded memory, and its error bounds.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SpaceSaving } from '../src/metrics/space-saving.js';
import { seededRandom } from './support/random.js';

/** A Zipf-like stream: key k (0-based) drawn with weight 1 / (k + 1)^exponent. */
function skewedStream(seed: number, length: number, keys: number, exponent: number): string[] {
  const random = seededRandom(seed);
  const cumulative: number[] = [];
  let total = 0;
  for (let k = 0; k < keys; k++) cumulative.push((total += 1 / (k + 1) ** exponent));
  const stream: string[] = [];
  for (let i = 0; i < length; i++) {
    const target = random() * total;
    let low = 0;
    let high = keys - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    stream.push(`key-${low}`);
  }
  return stream;
}

function trueCounts(stream: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of stream) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

describe('Space-Saving sketch', () => {
  test('is exact while the distinct keys fit its capacity', () => {
    const sketch = new SpaceSaving(4);
    for (const [key, weight] of [['a', 1], ['b', 2], ['a', 3], ['c', 0.5], ['b', 1]] as const) sketch.add(key, weight);
    assert.deepEqual(sketch.top(10), [
      { key: 'a', count: 4, error: 0 },
      { key: 'b', count: 3, error: 0 },
      { key: 'c', count: 0.5, error: 0 },
    ]);
    assert.equal(sketch.total, 7.5);
  });

  test('finds the heavy hitters of a skewed stream of 10,000 keys with 64 counters', () => {
    const stream = skewedStream(7, 200_000, 10_000, 1.1);
    const sketch = new SpaceSaving(64);
    for (const key of stream) sketch.add(key, 1);
    assert.equal(sketch.size, 64, 'memory stays at its capacity');

    const truth = [...trueCounts(stream)].sort((a, b) => b[1] - a[1]);
    const top = sketch.top(10);
    assert.equal(top[0]!.key, truth[0]![0], 'the known top key is the single top key');
    const reported = new Set(top.map((contributor) => contributor.key));
    for (const [key] of truth.slice(0, 5)) assert.ok(reported.has(key), `${key} is among the top 10 reported`);
  });

  test('keeps every key above W / capacity, and brackets each true count', () => {
    const stream = skewedStream(11, 50_000, 5_000, 1.0);
    const capacity = 50;
    const sketch = new SpaceSaving(capacity);
    for (const key of stream) sketch.add(key, 1);
    const truth = trueCounts(stream);
    const threshold = stream.length / capacity;
    const monitored = new Map(sketch.top(capacity).map((contributor) => [contributor.key, contributor]));
    for (const [key, count] of truth) {
      if (count > threshold) assert.ok(monitored.has(key), `${key} (${count} > ${threshold}) is monitored`);
    }
    for (const contributor of monitored.values()) {
      const actual = truth.get(contributor.key)!;
      assert.ok(contributor.count >= actual, 'never underestimates');
      assert.ok(contributor.count - contributor.error <= actual, 'count - error is a lower bound');
      assert.ok(contributor.error <= threshold, 'the error is at most W / capacity');
    }
  });

  test('weights: one key with a few heavy writes beats many light reads', () => {
    const sketch = new SpaceSaving(8);
    const random = seededRandom(3);
    for (let i = 0; i < 5_000; i++) sketch.add(`reader-${Math.floor(random() * 1_000)}`, 0.5);
    for (let i = 0; i < 50; i++) sketch.add('hot-writer', 3 * 10);
    assert.equal(sketch.top(1)[0]!.key, 'hot-writer');
    assert.ok(sketch.top(1)[0]!.count >= 1_500);
  });

  test('ignores weights that contribute nothing; clear starts over', () => {
    const sketch = new SpaceSaving(2);
    sketch.add('a', 0);
    sketch.add('a', -1);
    sketch.add('a', Number.NaN);
    sketch.add('a', Infinity);
    assert.equal(sketch.size, 0);
    sketch.add('a', 1);
    sketch.add('b', 1);
    sketch.add('c', 5);
    assert.deepEqual(sketch.top(1), [{ key: 'c', count: 6, error: 1 }]);
    sketch.clear();
    assert.equal(sketch.size, 0);
    assert.equal(sketch.total, 0);
    sketch.add('d', 2);
    assert.deepEqual(sketch.top(5), [{ key: 'd', count: 2, error: 0 }]);
  });

  test('capacity is bounded', () => {
    assert.throws(() => new SpaceSaving(0), RangeError);
    assert.throws(() => new SpaceSaving(1.5), RangeError);
    assert.throws(() => new SpaceSaving(1_000_000), RangeError);
  });
});
