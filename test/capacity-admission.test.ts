/**
 * The admission model on provisioned tables: per-partition allocation, burst bank and ceiling,
 * adaptive capacity, all-or-nothing verdicts and the inspection counters. Every simulation steps
 * a simulated clock; the acceptance figures are reference §4.1 (150 RCU burst for 900 s), §4.2
 * (400 WCU over 4 partitions with one hot) and §2.1 (1,000 WCU per partition).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admit, throttleReason } from '../src/capacity/admission.js';
import {
  demand,
  evenPartitions,
  MINUTE_MS,
  newTally,
  offer,
  provisioned,
  SECOND_MS,
  simulate,
  START_MS,
  tableArn,
  tableCapacity,
  within,
} from './support/capacity.js';

const STEP_MS = 100;
/** The one-second ceiling alone (no reserve, no bank floor): the rules these tests isolate. */
const STRICT = { ceilingReserveSeconds: 0, burstBankCeilingSecondsMin: 0 } as const;

describe('adaptive capacity and burst (acceptance)', () => {
  test('400 WCU over 4 partitions, one at 150 WCU/s for 20 min: never throttled (burst bank first, then adaptive)', () => {
    const table = tableCapacity('hot-partition', provisioned(0, 400));
    const partitions = evenPartitions(table, 4, 0, 400);
    assert.deepEqual(partitions.map((partition) => partition.allocation('write')), [100, 100, 100, 100]);
    const cold = partitions.slice(0, 3).map((partition) => [demand(partition, 'write', 1)]);
    const hot = [demand(partitions[3]!, 'write', 1)];
    const coldTally = newTally();
    const hotTally = newTally();
    let bankAt5Min = NaN;
    let bankAt11Min = NaN;
    let adaptiveAt11Min = NaN;
    simulate(START_MS, START_MS + 20 * MINUTE_MS, STEP_MS, (nowMs) => {
      // Per 100 ms: 5 writes on each cold partition (50/s), 15 on the hot one (150/s).
      for (const request of cold) offer(request, 5, nowMs, coldTally);
      offer(hot, 15, nowMs, hotTally);
      if (nowMs === START_MS + 5 * MINUTE_MS) bankAt5Min = partitions[3]!.stats(nowMs).write.burstBalanceUnits;
      if (nowMs === START_MS + 11 * MINUTE_MS) {
        const stats = partitions[3]!.stats(nowMs).write;
        bankAt11Min = stats.burstBalanceUnits;
        adaptiveAt11Min = stats.adaptiveUnitsTotal;
      }
    });
    assert.equal(hotTally.refused, 0, `hot partition throttled: ${hotTally.lastVerdict?.reason}`);
    assert.equal(coldTally.refused, 0);
    assert.equal(hotTally.admitted, 150 * 20 * 60);
    // The bank (300 s × 100 = 30,000) drains at 50/s: half gone after 5 min, empty after 10.
    assert.ok(within(bankAt5Min, 15_000, 0.02), `bank after 5 min: ${bankAt5Min}`);
    assert.ok(bankAt11Min < 200, `bank after 11 min: ${bankAt11Min}`);
    assert.ok(adaptiveAt11Min > 0, 'adaptive capacity took over once the bank was empty');
    // From then on 50 WCU/s are borrowed: 10 min × 50 = 30,000 by the end (±2%).
    const lent = partitions[3]!.stats(START_MS + 20 * MINUTE_MS).write.adaptiveUnitsTotal;
    assert.ok(within(lent, 30_000, 0.02), `borrowed ${lent}`);
  });

  test('150 RCU, idle 5 min, then 200 RCU/s: the excess is absorbed for 900 s, then throttled at the provisioned rate', () => {
    const table = tableCapacity('burst', provisioned(150, 1));
    const [partition] = evenPartitions(table, 1, 150, 1);
    const request = [demand(partition!, 'read', 1)];
    const readsStartMs = START_MS + 5 * MINUTE_MS;
    const tally = newTally();
    simulate(readsStartMs, readsStartMs + 20 * MINUTE_MS, STEP_MS, (nowMs) => offer(request, 20, nowMs, tally));
    const absorbedSeconds = (tally.firstRefusalMs! - readsStartMs) / SECOND_MS;
    assert.ok(within(absorbedSeconds, 900, 0.02), `absorbed for ${absorbedSeconds} s`);
    assert.equal(tally.lastVerdict?.reason, 'TableReadProvisionedThroughputExceeded');
    assert.equal(tally.lastVerdict?.resourceArn, tableArn('burst'));
    // After the bank: exactly the provisioned 150/s (adaptive has nothing to lend: the table is over its rate).
    const after = newTally();
    const fromMs = readsStartMs + 20 * MINUTE_MS;
    simulate(fromMs, fromMs + 5 * MINUTE_MS, STEP_MS, (nowMs) => offer(request, 20, nowMs, after));
    assert.ok(within(after.admitted / 300, 150, 0.02), `${after.admitted / 300} reads/s`);
  });

  test('a single hot key on 10,000 WCU (10 partitions) gets 1,000 WCU/s; the same load spread out is not throttled', () => {
    const hotTable = tableCapacity('hot-key', provisioned(1, 10_000));
    const hotPartitions = evenPartitions(hotTable, 10, 1, 10_000);
    assert.equal(hotPartitions[0]!.allocation('write'), 1000);
    const hot = [demand(hotPartitions[0]!, 'write', 5)];
    const tally = newTally();
    let admittedAfterFirstMinute = 0;
    simulate(START_MS, START_MS + 10 * MINUTE_MS, STEP_MS, (nowMs) => {
      const before = tally.admitted;
      offer(hot, 40, nowMs, tally); // 2,000 WCU/s offered
      if (nowMs >= START_MS + MINUTE_MS) admittedAfterFirstMinute += tally.admitted - before;
    });
    const rate = (admittedAfterFirstMinute * 5) / (9 * 60);
    assert.ok(within(rate, 1000, 0.02), `hot key admitted at ${rate} WCU/s`);
    assert.equal(tally.lastVerdict?.reason, 'TableWriteKeyRangeThroughputExceeded');

    const spreadTable = tableCapacity('spread', provisioned(1, 10_000));
    const spread = evenPartitions(spreadTable, 10, 1, 10_000).map((partition) => [demand(partition, 'write', 5)]);
    const spreadTally = newTally();
    simulate(START_MS, START_MS + 10 * MINUTE_MS, STEP_MS, (nowMs) => {
      for (const request of spread) offer(request, 4, nowMs, spreadTally); // 2,000 WCU/s in all
    });
    assert.equal(spreadTally.refused, 0);
  });
});

describe('partition buckets', () => {
  test('the ceiling holds even with a full burst bank: 1,000 write units per second', () => {
    const table = tableCapacity('ceiling', provisioned(1, 1000), START_MS, STRICT);
    const [partition] = evenPartitions(table, 1, 1, 1000);
    const request = [demand(partition!, 'write', 1)];
    const tally = newTally();
    offer(request, 1500, START_MS, tally);
    assert.equal(tally.admitted, 1000);
    assert.equal(tally.lastVerdict?.reason, 'TableWriteKeyRangeThroughputExceeded');
    // Half a second later, half the ceiling is back.
    const later = newTally();
    offer(request, 1000, START_MS + 500, later);
    assert.equal(later.admitted, 500);
  });

  test('burst beyond the allocation up to the bank, then the allocation rate', () => {
    const table = tableCapacity('bank', provisioned(1, 10), START_MS, STRICT);
    const [partition] = evenPartitions(table, 1, 1, 10);
    // A new partition starts with a full bank: 300 s × 10 = 3,000 units, spent below the ceiling.
    const tally = newTally();
    offer([demand(partition!, 'write', 1)], 5000, START_MS, tally);
    assert.equal(tally.admitted, 1000, 'the ceiling limits the first second');
    offer([demand(partition!, 'write', 1)], 5000, START_MS + SECOND_MS, tally);
    offer([demand(partition!, 'write', 1)], 5000, START_MS + 2 * SECOND_MS, tally);
    offer([demand(partition!, 'write', 1)], 5000, START_MS + 3 * SECOND_MS, tally);
    // 3,000 banked + 10/s earned over 3 s.
    assert.equal(tally.admitted, 3030);
    assert.equal(tally.lastVerdict?.reason, 'TableWriteProvisionedThroughputExceeded');
  });

  test('a demand larger than the whole bank passes when the bank is full and leaves a debt', () => {
    const table = tableCapacity('oversized', provisioned(1, 1), START_MS, STRICT);
    const [partition] = evenPartitions(table, 1, 1, 1);
    // 1 WCU/s banks 300 units: a 400-unit write still passes on the full bank, which is then at -100.
    assert.equal(admit([demand(partition!, 'write', 400)], START_MS), undefined);
    assert.equal(partition!.stats(START_MS).write.burstBalanceUnits, -100);
    // Paid back at 1 unit/s (adaptive capacity lends at most the table's one second, 1 unit).
    assert.equal(admit([demand(partition!, 'write', 2)], START_MS + 50 * SECOND_MS)?.limit, 'ProvisionedThroughputExceeded');
    assert.equal(admit([demand(partition!, 'write', 2)], START_MS + 102 * SECOND_MS), undefined);
  });

  test('combined ceiling: reads cost a third of a write unit of the one budget', () => {
    for (const mode of ['independent', 'combined'] as const) {
      const table = tableCapacity('combined-' + mode, provisioned(3000, 1000), START_MS, { ...STRICT, partitionCeilingMode: mode });
      const [partition] = evenPartitions(table, 1, 3000, 1000);
      assert.equal(admit([demand(partition!, 'write', 600)], START_MS), undefined);
      const verdict = admit([demand(partition!, 'read', 1500)], START_MS);
      if (mode === 'independent') assert.equal(verdict, undefined);
      else assert.equal(verdict?.reason, 'TableReadKeyRangeThroughputExceeded', '600 + 1,500 / 3 > 1,000');
      assert.equal(admit([demand(partition!, 'read', 1200)], START_MS), mode === 'independent' ? verdict : undefined);
    }
  });

  test('a changed allocation applies from then on; the bank keeps what it holds up to its new size', () => {
    const table = tableCapacity('realloc', provisioned(1, 100));
    const partition = table.partitionCapacity(7, 1, 100, START_MS);
    assert.equal(partition.stats(START_MS).write.burstBalanceUnits, 30_000);
    assert.equal(table.partitionCapacity(7, 1, 10, START_MS), partition, 'the same partition state');
    assert.equal(partition.allocation('write'), 10);
    assert.equal(partition.stats(START_MS).write.burstBalanceUnits, 3_000);
    table.partitionCapacity(7, 1, 5_000, START_MS);
    assert.equal(partition.allocation('write'), 1000, 'capped at the ceiling');
  });

  test('time never goes back', () => {
    const table = tableCapacity('clock', provisioned(10, 10));
    const [partition] = evenPartitions(table, 1, 10, 10);
    assert.equal(admit([demand(partition!, 'read', 1)], START_MS + 10), undefined);
    assert.throws(() => admit([demand(partition!, 'read', 1)], START_MS + 9), /time never goes back/);
    assert.throws(() => admit([demand(partition!, 'read', Number.NaN)], START_MS + 10), /units/);
    assert.throws(() => admit([demand(partition!, 'read', -1)], START_MS + 10), /units/);
  });
});

describe('verdicts', () => {
  test('all or nothing: a refused demand leaves every bucket of the request untouched', () => {
    const table = tableCapacity('txn', provisioned(1, 2000), START_MS, STRICT);
    const [first, second] = evenPartitions(table, 2, 1, 2000);
    assert.equal(admit([demand(second!, 'write', 900)], START_MS), undefined);
    const before = first!.stats(START_MS).write;
    const verdict = admit([demand(first!, 'write', 10), demand(second!, 'write', 200)], START_MS);
    assert.equal(verdict?.demandIndex, 1);
    assert.equal(verdict?.reason, 'TableWriteKeyRangeThroughputExceeded');
    assert.equal(verdict?.backPressure, false);
    const after = first!.stats(START_MS).write;
    assert.deepEqual({ ...after, throttleEvents: 0 }, { ...before, throttleEvents: 0 });
    assert.equal(second!.stats(START_MS).write.throttleEvents, 1);
    assert.equal(first!.stats(START_MS).write.throttleEvents, 0);
    // The first partition still has its whole second.
    assert.equal(admit([demand(first!, 'write', 1000)], START_MS), undefined);
  });

  test('demands sharing a partition are checked on their sum', () => {
    const table = tableCapacity('sum', provisioned(1, 1000), START_MS, STRICT);
    const [partition] = evenPartitions(table, 1, 1, 1000);
    assert.equal(admit([demand(partition!, 'write', 500)], START_MS), undefined);
    assert.equal(admit([demand(partition!, 'write', 300)], START_MS + 0), undefined);
    // 200 left: two demands of 150 each fit alone but not together.
    const verdict = admit([demand(partition!, 'write', 150), demand(partition!, 'write', 150)], START_MS);
    assert.equal(verdict?.limit, 'KeyRangeThroughputExceeded');
    assert.equal(admit([demand(partition!, 'write', 150)], START_MS), undefined);
  });

  test('reads and writes are independent', () => {
    const table = tableCapacity('directions', provisioned(3000, 1000), START_MS, STRICT);
    const [partition] = evenPartitions(table, 1, 3000, 1000);
    assert.equal(admit([demand(partition!, 'write', 1000)], START_MS), undefined);
    assert.equal(admit([demand(partition!, 'write', 1)], START_MS)?.reason, 'TableWriteKeyRangeThroughputExceeded');
    assert.equal(admit([demand(partition!, 'read', 3000)], START_MS), undefined);
    assert.equal(admit([demand(partition!, 'read', 1)], START_MS)?.reason, 'TableReadKeyRangeThroughputExceeded');
  });

  test('the 16 reason strings', () => {
    const reasons = new Set<string>();
    for (const kind of ['Table', 'Index'] as const) {
      for (const direction of ['read', 'write'] as const) {
        for (const limit of ['KeyRangeThroughputExceeded', 'ProvisionedThroughputExceeded', 'AccountLimitExceeded', 'MaxOnDemandThroughputExceeded'] as const) {
          reasons.add(throttleReason(kind, direction, limit));
        }
      }
    }
    assert.equal(reasons.size, 16);
    assert.ok(reasons.has('TableReadProvisionedThroughputExceeded'));
    assert.ok(reasons.has('IndexWriteKeyRangeThroughputExceeded'));
    assert.ok(reasons.has('IndexWriteAccountLimitExceeded'));
  });
});

describe('inspection counters', () => {
  test('consumed units over the last second and minute, throttle events, per partition and per table', () => {
    const table = tableCapacity('counters', provisioned(100, 100));
    const [partition] = evenPartitions(table, 1, 100, 100);
    const request = [demand(partition!, 'read', 2)];
    simulate(START_MS, START_MS + 90 * SECOND_MS, SECOND_MS, (nowMs) => offer(request, 10, nowMs, newTally()));
    const nowMs = START_MS + 90 * SECOND_MS;
    const stats = partition!.stats(nowMs).read;
    assert.equal(stats.consumedUnitsLastSecond, 20);
    assert.equal(stats.consumedUnitsLastMinute, 1200);
    assert.equal(stats.allocatedUnitsPerSecond, 100);
    assert.equal(stats.throttleEvents, 0);
    const tableStats = table.stats(nowMs);
    assert.equal(tableStats.read.consumedUnitsLastMinute, 1200);
    assert.equal(tableStats.billing, 'provisioned');
    assert.equal(tableStats.read.previousPeakUnitsPerSecond, undefined);
    // A quiet half minute halves the minute; a quiet minute empties it.
    assert.equal(partition!.stats(nowMs + 30 * SECOND_MS).read.consumedUnitsLastMinute, 600);
    assert.equal(partition!.stats(nowMs + 30 * SECOND_MS).read.consumedUnitsLastSecond, 0);
    assert.equal(partition!.stats(nowMs + 61 * SECOND_MS).read.consumedUnitsLastMinute, 0);
    assert.deepEqual(table.partitionStats(nowMs + 61 * SECOND_MS).map((entry) => entry.id), [0]);
  });
});
