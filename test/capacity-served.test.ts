/**
 * The admission rules that keep dynatwin from refusing what DynamoDB serves (CAPACITY-MODEL.md
 * §11): the ceiling reserve of a rested partition, the bank floor of a tiny provisioned table, and
 * large requests paid from the burst banks — each with the sustained limit it must keep. Pure
 * unit tests on a simulated clock; test/capacity-served-sdk.test.ts runs the same cases through
 * the AWS SDK.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admit, RequestUnits, type Demand } from '../src/capacity/admission.js';
import { demand, evenPartitions, newTally, offer, ON_DEMAND, provisioned, SECOND_MS, simulate, START_MS, tableCapacity, within } from './support/capacity.js';

describe('the ceiling reserve of a rested partition', () => {
  test('a rested partition takes two seconds of its ceiling in an instant, in small requests', () => {
    const table = tableCapacity('reserve', provisioned(1, 1000));
    const [partition] = evenPartitions(table, 1, 1, 1000);
    const tally = newTally();
    offer([demand(partition!, 'write', 1)], 2500, START_MS, tally);
    assert.equal(tally.admitted, 2000);
    assert.equal(tally.lastVerdict?.reason, 'TableWriteKeyRangeThroughputExceeded');
  });

  test('held at the ceiling the reserve never refills: an instant then gets one second, and sustained overload 1,000/s', () => {
    const table = tableCapacity('reserve-held', provisioned(1, 1000));
    const [partition] = evenPartitions(table, 1, 1, 1000);
    const request = [demand(partition!, 'write', 1)];
    // Spend the reserve, then ten seconds at exactly the ceiling in 100 ms steps.
    offer(request, 2000, START_MS, newTally());
    const held = newTally();
    simulate(START_MS + 100, START_MS + 10 * SECOND_MS + 100, 100, (nowMs) => offer(request, 100, nowMs, held));
    assert.equal(held.refused, 0);
    const burst = newTally();
    offer(request, 1500, START_MS + 10 * SECOND_MS + 100, burst);
    assert.equal(burst.admitted, 100, 'the step just refilled 100 units; nothing else');
    // Sustained overload: 2,000/s offered for a minute is held at 1,000/s.
    const overload = newTally();
    simulate(START_MS + 11 * SECOND_MS, START_MS + 71 * SECOND_MS, 100, (nowMs) => offer(request, 200, nowMs, overload));
    assert.ok(within(overload.admitted / 60, 1000, 0.02), `${overload.admitted / 60}/s`);
  });

  test('the reserve fills again only with ceiling left unused once the second is full', () => {
    const table = tableCapacity('reserve-refill', provisioned(1, 1000));
    const [partition] = evenPartitions(table, 1, 1, 1000);
    const request = [demand(partition!, 'write', 1)];
    offer(request, 2000, START_MS, newTally());
    // 1.5 s idle: 1 s refills the second, the last 0.5 s goes to the reserve.
    const after = newTally();
    offer(request, 3000, START_MS + 1500, after);
    assert.equal(after.admitted, 1500);
  });
});

describe('the bank floor of a tiny provisioned table', () => {
  test('a 1 WCU / 1 RCU partition takes a 400 KB put and its update at once, then pays them back at 1 unit/s', () => {
    const table = tableCapacity('tiny', provisioned(1, 1));
    const [partition] = evenPartitions(table, 1, 1, 1);
    assert.equal(partition!.stats(START_MS).write.burstBalanceUnits, 1000, 'a bank of one second of the ceiling, not 300 units');
    assert.equal(admit([demand(partition!, 'write', 400)], START_MS), undefined, 'the put');
    assert.equal(admit([demand(partition!, 'read', 100)], START_MS), undefined, 'a strongly consistent get');
    assert.equal(admit([demand(partition!, 'write', 400)], START_MS), undefined, 'the update');
    assert.equal(admit([demand(partition!, 'write', 400)], START_MS)?.reason, 'TableWriteProvisionedThroughputExceeded', '1,200 units in an instant is more than the bank');
    // Sustained: 1 unit/s (the bank refills at the allocation).
    const tally = newTally();
    simulate(START_MS + SECOND_MS, START_MS + 601 * SECOND_MS, SECOND_MS, (nowMs) => offer([demand(partition!, 'write', 10)], 1, nowMs, tally));
    assert.ok(tally.admitted * 10 <= 200 + 600 + 10, `${tally.admitted * 10} units in 600 s`);
  });
});

describe('large requests are paid from the burst banks', () => {
  /** A new on-demand table's 4 partitions, `units` write units on each in one request. */
  function bigWrite(partitions: readonly ReturnType<typeof evenPartitions>[number][], units: number): Demand[] {
    return partitions.map((partition) => demand(partition, 'write', units));
  }

  test('a 4 MB transaction (8,200 WCU) on a new on-demand table, then small writes at once', () => {
    const table = tableCapacity('tx', ON_DEMAND);
    const partitions = evenPartitions(table, 4, 0, 0);
    assert.equal(admit(bigWrite(partitions, 2050), START_MS), undefined);
    // The one-second buckets are untouched: a second's worth of small writes still passes.
    const small = newTally();
    for (const partition of partitions) offer([demand(partition, 'write', 1)], 1000, START_MS, small);
    assert.equal(small.refused, 0);
    assert.equal(small.admitted, 4000);
  });

  test('back to back, large requests are held to the banks: the long-run rate stays 2 × the peak', () => {
    const table = tableCapacity('tx-loop', ON_DEMAND);
    const partitions = evenPartitions(table, 4, 0, 0);
    // 8,000 WCU requests every 100 ms (80,000 WCU/s offered) for 10 minutes.
    const tally = newTally();
    simulate(START_MS, START_MS + 600 * SECOND_MS, 100, (nowMs) => offer(bigWrite(partitions, 2000), 1, nowMs, tally));
    const unitsPerSecond = (tally.admitted * 8000) / 600;
    // The banks (300 s of 4,000/s) plus 4,000/s.
    assert.ok(unitsPerSecond <= 4000 + 1_200_000 / 600 + 8000 / 600, `${unitsPerSecond} WCU/s`);
    assert.equal(tally.lastVerdict?.reason, 'TableWriteKeyRangeThroughputExceeded');
    // Once the banks are spent, the table's rate is what large requests get.
    const late = newTally();
    simulate(START_MS + 600 * SECOND_MS, START_MS + 900 * SECOND_MS, 100, (nowMs) => offer(bigWrite(partitions, 2000), 1, nowMs, late));
    assert.ok(within((late.admitted * 8000) / 300, 4000, 0.05), `${(late.admitted * 8000) / 300} WCU/s once the banks are spent`);
  });

  test('a batch is judged by its total: 25 items of 400 WCU on one partition pass one by one', () => {
    const table = tableCapacity('batch', ON_DEMAND);
    const [partition] = evenPartitions(table, 4, 0, 0);
    const items = Array.from({ length: 25 }, () => [demand(partition!, 'write', 400)]);
    const request = new RequestUnits();
    for (const item of items) request.add(item);
    assert.equal(request.of(table, 'write'), 10_000);
    for (const item of items) assert.equal(admit(item, START_MS, request), undefined);
    // The same items as separate requests: the second and reserve hold five of them.
    const alone = tableCapacity('alone', ON_DEMAND);
    const [other] = evenPartitions(alone, 4, 0, 0);
    const tally = newTally();
    offer([demand(other!, 'write', 400)], 25, START_MS, tally);
    assert.equal(tally.admitted, 5);
  });
});
