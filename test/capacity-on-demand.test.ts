/**
 * On-demand admission (reference §4.3, §4.5, §4.6): twice the previous peak at once, the
 * 30-minute rule, the maximum on-demand throughput, the per-table quota, and switches from
 * provisioned. Partitions are given enough of them that their ceilings stay out of the way unless
 * a test is about them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admit, type Demand, type PartitionCapacity, type ResourceCapacity } from '../src/capacity/admission.js';
import {
  demand,
  evenPartitions,
  MINUTE_MS,
  newTally,
  ON_DEMAND,
  provisioned,
  SECOND_MS,
  simulate,
  START_MS,
  tableCapacity,
  within,
  type Tally,
} from './support/capacity.js';

/** One request per partition per second carrying that partition's share of `unitsPerSecond`. */
function offerSpread(partitions: readonly PartitionCapacity[], unitsPerSecond: number, nowMs: number, tally: Tally): void {
  const units = unitsPerSecond / partitions.length;
  for (const partition of partitions) {
    const verdict = admit([demand(partition, 'write', units)], nowMs);
    if (verdict === undefined) tally.admitted += units;
    else {
      tally.refused += units;
      tally.lastVerdict = verdict;
      tally.firstRefusalMs ??= nowMs;
    }
  }
}

/** Runs `unitsPerSecond` of writes spread over the partitions, in steps of `stepMs`, for a while. */
function run(partitions: readonly PartitionCapacity[], unitsPerSecond: number, fromMs: number, durationMs: number, stepMs = SECOND_MS): Tally {
  const tally = newTally();
  simulate(fromMs, fromMs + durationMs, stepMs, (nowMs) => offerSpread(partitions, (unitsPerSecond * stepMs) / SECOND_MS, nowMs, tally));
  return tally;
}

function onDemandTable(name: string, partitionCount: number): { table: ResourceCapacity; partitions: PartitionCapacity[] } {
  const table = tableCapacity(name, ON_DEMAND);
  return { table, partitions: evenPartitions(table, partitionCount, 0, 0) };
}

describe('a new on-demand table', () => {
  test('takes 4,000 writes/s and 12,000 reads/s at once', () => {
    const { table, partitions } = onDemandTable('new', 4);
    assert.equal(partitions[0]!.allocation('write'), 1000, 'on-demand partitions are allocated their ceiling');
    assert.equal(table.previousPeak('write'), 2000);
    assert.equal(table.previousPeak('read'), 6000);
    const writes = partitions.map((partition) => [demand(partition, 'write', 1)]);
    const reads = partitions.map((partition) => [demand(partition, 'read', 3)]);
    let refused = 0;
    simulate(START_MS, START_MS + MINUTE_MS, 100, (nowMs) => {
      for (let count = 0; count < 100; count++) {
        for (const request of writes) if (admit(request, nowMs) !== undefined) refused++;
        for (const request of reads) if (admit(request, nowMs) !== undefined) refused++;
      }
    });
    assert.equal(refused, 0);
    assert.equal(table.stats(START_MS + MINUTE_MS).write.consumedUnitsLastMinute, 4000 * 60);
    assert.equal(table.stats(START_MS + MINUTE_MS).read.consumedUnitsLastMinute, 12_000 * 60);
  });

  test('more than twice the previous peak is throttled as a key-range throttle (the table has not scaled yet)', () => {
    const { partitions } = onDemandTable('over-twice', 8);
    // The first seconds also spend the bucket's initial second of tokens; measure after them.
    run(partitions, 6000, START_MS, 5 * SECOND_MS, 100);
    const tally = run(partitions, 6000, START_MS + 5 * SECOND_MS, MINUTE_MS, 100);
    assert.ok(within(tally.admitted / 60, 4000, 0.02), `${tally.admitted / 60} WRU/s`);
    assert.equal(tally.lastVerdict?.reason, 'TableWriteKeyRangeThroughputExceeded');
    assert.equal(tally.lastVerdict?.billing, 'on-demand');
  });
});

describe('the 30-minute rule', () => {
  test('jumping past twice the previous peak within 30 minutes throttles', () => {
    for (const jumpAfterMinutes of [10, 29]) {
      const { table, partitions } = onDemandTable('jump-' + jumpAfterMinutes, 16);
      const steady = run(partitions, 3000, START_MS, jumpAfterMinutes * MINUTE_MS);
      assert.equal(steady.refused, 0);
      const jumpMs = START_MS + jumpAfterMinutes * MINUTE_MS;
      const jump = run(partitions, 7000, jumpMs, 50 * SECOND_MS, 100);
      assert.ok(jump.refused > 0, `a jump to 7,000 after ${jumpAfterMinutes} min is throttled`);
      assert.ok(within(jump.admitted / 50, 4000, 0.02), `admitted ${jump.admitted / 50}/s`);
      assert.equal(table.previousPeak('write'), 2000);
    }
  });

  test('the jump is absorbed once the new level is 30 minutes old, and the peak keeps climbing with sustained traffic', () => {
    const { table, partitions } = onDemandTable('catch-up', 16);
    run(partitions, 3000, START_MS, 10 * MINUTE_MS);
    // 7,000 offered from minute 10: ~4,000 admitted; 3,000 becomes the peak at minute 30 (limit
    // 6,000), ~4,000 at minute 40 (limit ~8,000).
    const tally = run(partitions, 7000, START_MS + 10 * MINUTE_MS, 20 * MINUTE_MS, 100);
    assert.ok(tally.firstRefusalMs! - START_MS - 10 * MINUTE_MS < 2 * SECOND_MS, 'throttled within the jump\'s first seconds');
    assert.equal(table.previousPeak('write'), 2000, 'not yet: the stretch at 3,000 is 30 minutes old at minute 30');
    assert.equal(table.stats(START_MS + 30 * MINUTE_MS).write.previousPeakUnitsPerSecond, 3000);
    const middle = run(partitions, 7000, START_MS + 30 * MINUTE_MS, 10 * MINUTE_MS, 100);
    assert.ok(within(middle.admitted / 600, 6000, 0.02), `${middle.admitted / 600}/s with the peak at 3,000`);
    const peak = table.stats(START_MS + 40 * MINUTE_MS).write.previousPeakUnitsPerSecond!;
    assert.ok(within(peak, 4000, 0.02), `peak ${peak}`);
    // (A second's pause: at minute 40 the bucket of the old rate is still empty.)
    const late = run(partitions, 7000, START_MS + 40 * MINUTE_MS + SECOND_MS, 5 * MINUTE_MS, 100);
    assert.equal(late.refused, 0);
  });

  test('growing ×1.5 every 31 minutes is never throttled', () => {
    const { table, partitions } = onDemandTable('slow-growth', 32);
    let rate = 3000;
    const peaks: number[] = [];
    for (let stage = 0; stage < 5; stage++) {
      const tally = run(partitions, rate, START_MS + stage * 31 * MINUTE_MS, 31 * MINUTE_MS);
      assert.equal(tally.refused, 0, `stage ${stage} at ${rate}/s: ${tally.lastVerdict?.reason}`);
      peaks.push(table.previousPeak('write')!);
      rate *= 1.5;
    }
    assert.deepEqual(peaks, [3000, 4500, 6750, 10125, 15187.5]);
  });
});

describe('on-demand limits', () => {
  test('MaxWriteRequestUnits caps the table: MaxOnDemandThroughputExceeded; -1 removes the cap', () => {
    const table = tableCapacity('capped', { mode: 'on-demand', maxWriteRequestUnits: 500 });
    const partitions = evenPartitions(table, 4, 0, 0);
    run(partitions, 800, START_MS, 5 * SECOND_MS, 100);
    const tally = run(partitions, 800, START_MS + 5 * SECOND_MS, MINUTE_MS, 100);
    assert.ok(within(tally.admitted / 60, 500, 0.02), `${tally.admitted / 60}/s`);
    assert.equal(tally.lastVerdict?.reason, 'TableWriteMaxOnDemandThroughputExceeded');
    const laterMs = START_MS + 65 * SECOND_MS;
    assert.equal(table.stats(laterMs).write.admitUnitsPerSecondMax, 500);
    table.setBilling({ mode: 'on-demand', maxWriteRequestUnits: -1 }, laterMs);
    assert.equal(run(partitions, 800, laterMs, MINUTE_MS, 100).refused, 0);
  });

  test('the per-table quota (40,000 WRU/s): AccountLimitExceeded', () => {
    const table = tableCapacity('quota', ON_DEMAND, START_MS, { onDemandInitialPeakWriteUnitsPerSecond: 30_000 });
    const partitions = evenPartitions(table, 64, 0, 0);
    run(partitions, 50_000, START_MS, 5 * SECOND_MS, 100);
    const tally = run(partitions, 50_000, START_MS + 5 * SECOND_MS, 20 * SECOND_MS, 100);
    assert.ok(within(tally.admitted / 20, 40_000, 0.02), `${tally.admitted / 20}/s`);
    assert.equal(tally.lastVerdict?.reason, 'TableWriteAccountLimitExceeded');
    assert.equal(table.stats(START_MS + 25 * SECOND_MS).write.admitUnitsPerSecondMax, 40_000);
  });

  test('partition ceilings still apply on demand', () => {
    const { partitions } = onDemandTable('hot-key', 4);
    const hot: Demand[] = [demand(partitions[0]!, 'write', 1)];
    const tally = newTally();
    simulate(START_MS, START_MS + 20 * SECOND_MS, 100, (nowMs) => {
      for (let count = 0; count < 300; count++) {
        const verdict = admit(hot, nowMs);
        if (verdict === undefined) tally.admitted++;
        else tally.lastVerdict = verdict;
      }
    });
    // 20 s at 1,000/s plus the rested partition's first two seconds (its second and its reserve, CAPACITY-MODEL.md §11).
    assert.ok(within(tally.admitted, 22_000, 0.02), `${tally.admitted} in 20 s`);
    assert.equal(tally.lastVerdict?.reason, 'TableWriteKeyRangeThroughputExceeded');
  });
});

describe('switching billing', () => {
  test('from provisioned: at least the highest provisioned rate at once; back and forth keeps the peak', () => {
    const table = tableCapacity('switch', provisioned(24_000, 8000));
    table.setBilling(provisioned(10, 10), START_MS);
    table.setBilling(ON_DEMAND, START_MS);
    assert.equal(table.billingMode, 'on-demand');
    assert.equal(table.previousPeak('write'), 4000, 'twice it is the 8,000 WCU once provisioned');
    assert.equal(table.previousPeak('read'), 12_000);
    const partitions = evenPartitions(table, 16, 0, 0);
    assert.equal(run(partitions, 8000, START_MS, 10 * SECOND_MS).refused, 0);
    const earlier = tableCapacity('switch-partitions', provisioned(400, 400));
    const [existing] = evenPartitions(earlier, 4, 400, 400);
    assert.equal(existing!.allocation('write'), 100);
    earlier.setBilling(ON_DEMAND, START_MS);
    assert.equal(existing!.allocation('write'), 1000, 'existing partitions get their ceilings at the switch');
    assert.equal(existing!.allocation('read'), 3000);
    table.setBilling(provisioned(100, 100), START_MS + 10 * SECOND_MS);
    assert.equal(table.previousPeak('write'), undefined, 'no peak while provisioned');
    table.setBilling(ON_DEMAND, START_MS + 20 * SECOND_MS);
    assert.equal(table.previousPeak('write'), 4000);
  });
});
