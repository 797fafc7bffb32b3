/**
 * The shard count (issue 18): the overload probability by simulated hash placement against cases
 * with a known answer, the smallest K under 5% and its neighbours, weighted shards per value, and
 * `dynatwin shards` on good and bad flags.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Random } from '../src/scenarios/generators.js';
import { overloadProbability, recommendShards, shardsPerValue } from '../src/scenarios/shards.js';
import { runCli } from './support/process.js';

describe('overloadProbability: simulated hash placement', () => {
  test('cases with a known answer', () => {
    assert.equal(overloadProbability(1, [1, 1, 1], 1.5, 1000, new Random(1)), 0, 'one partition is never over its fair share');
    assert.equal(overloadProbability(2, [1], 1.5, 1000, new Random(1)), 1, 'one shard over two partitions: always all of it on one');
    // Two equal shards over two partitions: overloaded exactly when both land on the same one (1/2).
    const two = overloadProbability(2, [1, 1], 1.5, 20_000, new Random(7));
    assert.ok(Math.abs(two - 0.5) < 0.02, `P = ${two}`);
    // Three over three: overloaded unless each lands apart (1 - 3!/27 = 7/9) — 2 on one is 2/3 of the load > 1.5 × 1/3.
    const three = overloadProbability(3, [1, 1, 1], 1.5, 20_000, new Random(7));
    assert.ok(Math.abs(three - 7 / 9) < 0.02, `P = ${three}`);
  });

  test('more shards, less risk', () => {
    const few = overloadProbability(4, new Array(8).fill(1), 1.5, 4000, new Random(3));
    const many = overloadProbability(4, new Array(128).fill(1), 1.5, 4000, new Random(3));
    assert.ok(few > 0.3 && many < 0.02, `K=8: ${few}, K=128: ${many}`);
  });
});

describe('recommendShards', () => {
  test('the smallest K under 5%: the K below it is not, and a fresh simulation agrees', () => {
    for (const partitions of [2, 4, 10]) {
      const answer = recommendShards({ partitions });
      assert.ok(answer.probability < 0.05, `N=${partitions}: ${answer.probability}`);
      const below = answer.probabilities.find((entry) => entry.shards === answer.recommendedShards - 1);
      assert.ok(below !== undefined && below.probability >= 0.05, `N=${partitions}: K-1 computed and over 5% (${JSON.stringify(below)})`);
      assert.ok(answer.recommendedShards >= 5 * partitions, `N=${partitions}: K=${answer.recommendedShards}, several shards per partition`);
      const fresh = overloadProbability(partitions, new Array(answer.recommendedShards).fill(1), 1.5, 20_000, new Random(99));
      assert.ok(fresh < 0.07, `N=${partitions}, K=${answer.recommendedShards}: another seed gives ${fresh}`);
      assert.deepEqual(recommendShards({ partitions }), answer, 'the same answer for the same question');
    }
    assert.equal(recommendShards({ partitions: 1 }).recommendedShards, 1);
    assert.equal(recommendShards({ partitions: 4 }).recommendedShards, 64);
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
    assert.throws(() => recommendShards({ partitions: 4, threshold: 1 }), RangeError);
    assert.throws(() => recommendShards({ partitions: 4, target: 0 }), RangeError);
  });
});

describe('dynatwin shards (CLI)', () => {
  test('prints the K, the shards per value and the probabilities; --json gives the answer', async () => {
    const text = await runCli(['shards', '--partitions', '4', '--values', 'succeeded=35,failed=10'], { timeoutMs: 120_000 });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^Over 4 partitions, K = \d+ random shards/);
    assert.match(text.stdout, /succeeded: \d+ \(succeeded#1 \.\. succeeded#\d+\)/);
    const json = await runCli(['shards', '--partitions', '4', '--json'], { timeoutMs: 120_000 });
    assert.equal(json.status, 0, json.stderr);
    const answer = JSON.parse(json.stdout) as { recommendedShards: number; probability: number };
    assert.equal(answer.recommendedShards, 64);
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
