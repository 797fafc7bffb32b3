/**
 * The shard count (issues 18 and 34): the exact overload probability against counted placements
 * and cases with a known answer, its bounds, the smallest K from which every larger K stays under
 * 5%, weighted shards per value, and `dynatwin shards` on good and bad flags.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chernoffShards, overloadProbability, recommendShards, shardsPerValue, unionBound } from '../src/scenarios/shards.js';
import { runCli } from './support/process.js';

/** The overload probability by counting every one of the N^K placements: the definition itself. */
function countedProbability(partitions: number, shards: number, threshold: number): number {
  const placements = partitions ** shards;
  let overloaded = 0;
  const counts = new Array<number>(partitions);
  for (let placement = 0; placement < placements; placement++) {
    counts.fill(0);
    let rest = placement;
    for (let shard = 0; shard < shards; shard++) {
      counts[rest % partitions]!++;
      rest = Math.floor(rest / partitions);
    }
    // Overloaded: a partition's share m/K above threshold × 1/N.
    if (counts.some((count) => count * partitions > threshold * shards)) overloaded++;
  }
  return overloaded / placements;
}

describe('overloadProbability: exact', () => {
  test('cases with a known answer', () => {
    assert.equal(overloadProbability(1, 3, 1.5), 0, 'one partition is never over its fair share');
    assert.equal(overloadProbability(2, 1, 1.5), 1, 'one shard over two partitions: always all of it on one');
    assert.ok(Math.abs(overloadProbability(2, 2, 1.5) - 1 / 2) < 1e-12, 'two over two: overloaded when both land together');
    assert.ok(Math.abs(overloadProbability(3, 3, 1.5) - 7 / 9) < 1e-12, 'three over three: overloaded unless each lands apart (1 - 3!/27)');
    assert.equal(overloadProbability(4, 8, 4), 0, 'a threshold of N: no partition can hold more than all');
  });

  test('equals the count of every placement', () => {
    for (const [partitions, shards] of [[2, 12], [3, 9], [4, 8], [5, 6], [7, 5]] as const) {
      for (const threshold of [1.25, 1.5, 2]) {
        const counted = countedProbability(partitions, shards, threshold);
        const exact = overloadProbability(partitions, shards, threshold);
        assert.ok(Math.abs(exact - counted) < 1e-12, `N=${partitions}, K=${shards}, x${threshold}: exact ${exact}, counted ${counted}`);
        assert.ok(unionBound(partitions, shards, threshold) >= exact - 1e-12, 'the union bound is an upper bound');
      }
    }
  });

  test('not monotonic in K, so the answer is the start of the run that stays under', () => {
    // K = 69 is over 5% while 67 and 68 are under: "the smallest K under 5%" alone would say 67.
    assert.ok(overloadProbability(4, 67, 1.5) < 0.05 && overloadProbability(4, 68, 1.5) < 0.05);
    assert.ok(overloadProbability(4, 69, 1.5) >= 0.05);
  });
});

describe('recommendShards', () => {
  test('the smallest K from which every larger K stays under 5%', () => {
    for (const partitions of [2, 3, 4, 8]) {
      const answer = recommendShards({ partitions });
      const k = answer.recommendedShards;
      assert.ok(answer.probability < 0.05, `N=${partitions}: ${answer.probability}`);
      assert.ok(overloadProbability(partitions, k - 1, 1.5) >= 0.05, `N=${partitions}: K-1 is over 5%`);
      // Every K from the answer up to Chernoff's bound is checked here one by one; past the bound,
      // the bound itself (with the union bound) holds every K under 5%.
      const bound = chernoffShards(partitions, 1.5, 0.05);
      for (let larger = k; larger <= bound; larger++) assert.ok(overloadProbability(partitions, larger, 1.5) < 0.05, `N=${partitions}: K=${larger}`);
      assert.ok(partitions * Math.exp(-bound * divergence(1.5 / partitions, 1 / partitions)) < 0.05);
      assert.ok(answer.probabilities.some((entry) => entry.shards === k - 1 && entry.probability >= 0.05), 'the table shows the K below');
      assert.deepEqual(recommendShards({ partitions }), answer, 'the same answer for the same question');
    }
    assert.equal(recommendShards({ partitions: 1 }).recommendedShards, 1);
    assert.equal(recommendShards({ partitions: 4 }).recommendedShards, 70);
  });

  test('weighted: a hot value gets more shards, in proportion, and the total is the K', () => {
    const weights = { succeeded: 35, ignored: 35, pending: 10, in_progress: 10, failed: 10 };
    const answer = recommendShards({ partitions: 4, weights });
    const counts = answer.shardsPerValue;
    assert.equal(Object.values(counts).reduce((a, b) => a + b, 0), answer.recommendedShards);
    assert.ok(counts['succeeded']! >= 3 * counts['failed']!, JSON.stringify(counts));
    assert.equal(counts['succeeded'], counts['ignored']);
    assert.ok(answer.probability < 0.05);
    assert.deepEqual(shardsPerValue({ a: 3, b: 1 }, 8), { a: 6, b: 2 });
    assert.deepEqual(shardsPerValue({ a: 100, b: 1 }, 10), { a: 10, b: 1 }, 'at least one shard each');
  });

  test('bad questions are RangeErrors', () => {
    assert.throws(() => recommendShards({ partitions: 0 }), RangeError);
    assert.throws(() => recommendShards({ partitions: 257 }), RangeError);
    assert.throws(() => recommendShards({ partitions: 4, threshold: 1 }), RangeError);
    assert.throws(() => recommendShards({ partitions: 4, target: 0 }), RangeError);
  });
});

describe('dynatwin shards (CLI)', () => {
  test('prints the K, the shards per value and the probabilities; --json gives the answer', async () => {
    const text = await runCli(['shards', '--partitions', '4', '--values', 'succeeded=35,failed=10'], { timeoutMs: 120_000 });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^Over 4 partitions, K = \d+ random shards .* computed exactly; every larger K stays under 5%/);
    assert.match(text.stdout, /succeeded: \d+ \(succeeded#1 \.\. succeeded#\d+\)/);
    const json = await runCli(['shards', '--partitions', '4', '--json'], { timeoutMs: 120_000 });
    assert.equal(json.status, 0, json.stderr);
    const answer = JSON.parse(json.stdout) as { recommendedShards: number; probability: number };
    assert.equal(answer.recommendedShards, 70);
    assert.ok(answer.probability < 0.05);
  });

  for (const [what, args, message] of [
    ['no --partitions', [], /--partitions is required/],
    ['zero partitions', ['--partitions', '0'], /--partitions must be a whole number from 1/],
    ['a bad weight', ['--partitions', '4', '--values', 'a=x'], /the weight of 'a' must be a number above 0/],
    ['an unknown flag', ['--partitions', '4', '--shards', '3'], /Unknown option '--shards'/],
  ] as const) {
    test(`${what}: one line, exit code 2`, async () => {
      const outcome = await runCli(['shards', ...args], { timeoutMs: 120_000 });
      assert.equal(outcome.status, 2);
      assert.equal(outcome.stdout, '');
      assert.equal(outcome.stderr.trimEnd().split('\n').length, 1, outcome.stderr);
      assert.match(outcome.stderr, /^dynatwin shards: /);
      assert.match(outcome.stderr, message);
    });
  }
});

/** Kullback-Leibler divergence of Bernoulli(a) from Bernoulli(p). */
function divergence(a: number, p: number): number {
  return a * Math.log(a / p) + (1 - a) * Math.log((1 - a) / (1 - p));
}
