/**
 * The bench's pure parts that decide a reported figure: the baseline-build ratio (issue 16: this
 * build against the one before the change, per workload) and the disk's fdatasync probe (issue 21).
 * No timing is asserted: the probe's figures depend on the machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { measureFdatasync } from '../bench/disk-sync.js';
import { BASELINE_BUILD_GOAL_RATIO, buildRatioOf, formatBuildRatio, type MeasuredOutcome, type Outcome } from '../bench/report.js';

function outcome(target: MeasuredOutcome['target'], label: string, rounds: readonly number[]): MeasuredOutcome {
  const sorted = [...rounds].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return { status: 'measured', target, label, result: { opsPerSec: median }, roundOpsPerSec: rounds } as unknown as MeasuredOutcome;
}

test('the baseline-build ratio is the median of the rounds’ own ratios, not the ratio of medians', () => {
  // Round 2 ran on a slow spell of the host for both builds: paired, it cancels out.
  const outcomes: Outcome[] = [outcome('dynatwin-memory', 'dynatwin (memory)', [1000, 500, 990]), outcome('dynatwin-baseline', 'dynatwin (memory) @ 8343082', [1000, 520, 1000])];
  const ratio = buildRatioOf(outcomes, 'dynatwin-memory', 'dynatwin-baseline')!;
  assert.equal(ratio.rounds, 3);
  assert.equal(ratio.ratio, 0.99);
  assert.equal(ratio.goalRatio, BASELINE_BUILD_GOAL_RATIO);
  assert.match(formatBuildRatio('PutItem', ratio), /^PutItem: dynatwin \(memory\) ÷ dynatwin \(memory\) @ 8343082 = 99\.0% of its ops\/s \(goal >= 95%: met; median of 3 interleaved rounds/);
  const slower = buildRatioOf([outcome('dynatwin-memory', 'a', [900, 900, 900]), outcome('dynatwin-baseline', 'b', [1000, 1000, 1000])], 'dynatwin-memory', 'dynatwin-baseline')!;
  assert.match(formatBuildRatio('GetItem', slower), /90\.0% .*MISSED/);
});

test('no baseline-build ratio unless both builds were measured', () => {
  const skipped: Outcome = { status: 'skipped', target: 'dynatwin-baseline', label: 'b', stage: 'start', reason: 'no build' };
  assert.equal(buildRatioOf([outcome('dynatwin-memory', 'a', [1000]), skipped], 'dynatwin-memory', 'dynatwin-baseline'), undefined);
});

test('the fdatasync probe times appends one by one and leaves nothing behind', () => {
  const result = measureFdatasync(50);
  assert.ok(result.latency.count >= 1, 'at least one append was synced');
  assert.ok(result.latency.p99Ms >= result.latency.p50Ms && result.latency.maxMs >= result.latency.p99Ms);
  assert.equal(result.appendBytes, 4096);
});
