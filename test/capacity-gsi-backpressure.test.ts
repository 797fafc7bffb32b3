/**
 * GSI back-pressure (reference §3.5 model rule): index writes wait in a per-GSI-partition backlog
 * drained at what the GSI partition admits; while a backlog is over its bound every base-table
 * write is refused with the GSI's reason. Calibrated on seed article 000: one hot GSI key, 2,000
 * writes/s, ~80 s (~160k items) before the first refusal, then the GSI partition's 1,000/s.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admit, type CapacitySettings, type Demand, type PartitionCapacity, type ResourceCapacity } from '../src/capacity/admission.js';
import { throttleError } from '../src/capacity/throttle-errors.js';
import {
  demand,
  evenPartitions,
  indexArn,
  indexCapacity,
  MINUTE_MS,
  newTally,
  offer,
  ON_DEMAND,
  provisioned,
  SECOND_MS,
  simulate,
  START_MS,
  tableCapacity,
  within,
  type Tally,
} from './support/capacity.js';

const STEP_MS = 100;

interface Setup {
  readonly table: ResourceCapacity;
  readonly index: ResourceCapacity;
  readonly tablePartitions: PartitionCapacity[];
  readonly hot: PartitionCapacity;
  /** One PutItem per table partition: the table write plus the index write on the hot GSI key. */
  readonly puts: Demand[][];
}

function setUp(name: string, tableBilling = ON_DEMAND, indexBilling = ON_DEMAND, settings: Partial<CapacitySettings> = {}): Setup {
  const table = tableCapacity(name, tableBilling, START_MS, settings);
  const index = indexCapacity(name, 'by-status', indexBilling, START_MS, settings);
  table.attachIndex(index);
  const tableWrite = tableBilling.mode === 'provisioned' ? tableBilling.writeUnitsPerSecond : 0;
  const tablePartitions = evenPartitions(table, 4, 0, tableWrite);
  const indexWrite = indexBilling.mode === 'provisioned' ? indexBilling.writeUnitsPerSecond : 0;
  const indexPartitionCount = indexBilling.mode === 'provisioned' ? 1 : 4;
  const hot = evenPartitions(index, indexPartitionCount, 0, indexWrite)[0]!;
  const puts = tablePartitions.map((partition) => [demand(partition, 'write', 1), demand(hot, 'write', 1)]);
  return { table, index, tablePartitions, hot, puts };
}

/** `perStep` PutItems every 100 ms, spread over the table's partitions. */
function load(setup: Setup, perStep: number, fromMs: number, toMs: number, tally: Tally, onStep?: (nowMs: number) => void): void {
  simulate(fromMs, toMs, STEP_MS, (nowMs) => {
    for (let count = 0; count < perStep; count++) offer(setup.puts[count % setup.puts.length]!, 1, nowMs, tally);
    onStep?.(nowMs);
  });
}

describe('GSI back-pressure', () => {
  test('seed article 000: 2,000 writes/s on one GSI key run ~80 s (~160k items) before the first refusal, then settle at 1,000/s', () => {
    const setup = setUp('article-000');
    const tally = newTally();
    let admittedAtThreeMinutes = 0;
    load(setup, 200, START_MS, START_MS + 10 * MINUTE_MS, tally, (nowMs) => {
      if (nowMs === START_MS + 3 * MINUTE_MS - STEP_MS) admittedAtThreeMinutes = tally.admitted;
    });
    const firstRefusalSeconds = (tally.firstRefusalMs! - START_MS) / SECOND_MS;
    assert.ok(within(firstRefusalSeconds, 80, 0.02), `first refusal after ${firstRefusalSeconds} s`);
    const settled = (tally.admitted - admittedAtThreeMinutes) / (7 * 60);
    assert.ok(within(settled, 1000, 0.02), `settled at ${settled} writes/s`);

    const verdict = tally.lastVerdict!;
    assert.equal(verdict.reason, 'IndexWriteKeyRangeThroughputExceeded');
    assert.equal(verdict.resourceArn, indexArn('article-000', 'by-status'));
    assert.equal(verdict.backPressure, true);
    assert.equal(verdict.demandIndex, 0, 'the base-table write is the one refused');
    const error = throttleError(verdict);
    assert.equal(error.code, 'ThrottlingException');
    assert.match(error.message, /global secondary indexes/);

    // The last step's time: the moment the load stops, the backlog starts to fall below the bound.
    const nowMs = START_MS + 10 * MINUTE_MS - STEP_MS;
    const hotStats = setup.hot.stats(nowMs);
    assert.ok(hotStats.backlogWriteUnits > 79_000 && hotStats.backlogWriteUnits <= 80_200, `backlog ${hotStats.backlogWriteUnits}`);
    assert.ok(within(hotStats.write.consumedUnitsLastMinute, 60_000, 0.02), 'the GSI partition applies 1,000 units/s');
    assert.ok(hotStats.write.throttleEvents > 0, 'the GSI counts write throttle events');
    assert.equal(setup.index.stats(nowMs).backPressure, true);
  });

  test('every base-table write is refused while back-pressured, even one the GSI does not index; reads are not', () => {
    const setup = setUp('sparse');
    load(setup, 200, START_MS, START_MS + 90 * SECOND_MS, newTally());
    const nowMs = START_MS + 90 * SECOND_MS - STEP_MS;
    const sparsePut = [demand(setup.tablePartitions[1]!, 'write', 1)];
    assert.equal(admit(sparsePut, nowMs)?.reason, 'IndexWriteKeyRangeThroughputExceeded');
    assert.equal(admit([demand(setup.tablePartitions[1]!, 'read', 1)], nowMs), undefined);
    assert.equal(admit([demand(setup.hot, 'read', 1)], nowMs), undefined, 'GSI reads have their own buckets');
  });

  test('once the load stops, writes pass again and the backlog drains at the GSI rate', () => {
    const setup = setUp('drain');
    load(setup, 200, START_MS, START_MS + 90 * SECOND_MS, newTally());
    const stopMs = START_MS + 90 * SECOND_MS;
    assert.equal(admit([demand(setup.tablePartitions[0]!, 'write', 1)], stopMs + SECOND_MS), undefined);
    const halfway = setup.hot.stats(stopMs + 40 * SECOND_MS).backlogWriteUnits;
    assert.ok(within(halfway, 40_000, 0.02), `backlog after 40 s: ${halfway}`);
    assert.equal(setup.hot.stats(stopMs + 81 * SECOND_MS).backlogWriteUnits, 0);
    assert.equal(setup.index.stats(stopMs + 81 * SECOND_MS).backPressure, false);
  });

  test('a provisioned GSI drains at its ceiling while its burst bank lasts, then at its provisioned rate', () => {
    const setup = setUp('provisioned-gsi', provisioned(100, 4000), provisioned(100, 500));
    assert.equal(setup.hot.allocation('write'), 500);
    const tally = newTally();
    let admittedAt400s = 0;
    let admittedAt600s = 0;
    load(setup, 200, START_MS, START_MS + 600 * SECOND_MS, tally, (nowMs) => {
      if (nowMs === START_MS + 400 * SECOND_MS - STEP_MS) admittedAt400s = tally.admitted;
      if (nowMs === START_MS + 600 * SECOND_MS - STEP_MS) admittedAt600s = tally.admitted;
    });
    const late = (admittedAt600s - admittedAt400s) / 200;
    assert.ok(within(late, 500, 0.02), `${late} writes/s once the bank is spent`);
    const verdict = tally.lastVerdict!;
    assert.equal(verdict.reason, 'IndexWriteProvisionedThroughputExceeded');
    const error = throttleError(verdict);
    assert.equal(error.code, 'ProvisionedThroughputExceededException');
    assert.match(error.message, /^The level of configured provisioned throughput for one or more global secondary indexes/);
  });

  test('a bound of 0 makes GSI writes synchronous: the GSI rate from the first seconds, no buffer', () => {
    const setup = setUp('no-buffer', ON_DEMAND, ON_DEMAND, { gsiBacklogWriteUnitsMax: 0 });
    const tally = newTally();
    let admittedAfter2s = 0;
    load(setup, 200, START_MS, START_MS + MINUTE_MS, tally, (nowMs) => {
      if (nowMs === START_MS + 2 * SECOND_MS - STEP_MS) admittedAfter2s = tally.admitted;
    });
    assert.ok(tally.firstRefusalMs! - START_MS < 2 * SECOND_MS);
    const rate = (tally.admitted - admittedAfter2s) / 58;
    assert.ok(within(rate, 1000, 0.02), `${rate}/s`);
  });

  test('a deleted GSI no longer holds the table back; a split partition hands over its backlog', () => {
    const setup = setUp('detach');
    load(setup, 200, START_MS, START_MS + 90 * SECOND_MS, newTally());
    const nowMs = START_MS + 90 * SECOND_MS - STEP_MS;
    const tableWrite = [demand(setup.tablePartitions[0]!, 'write', 1)];
    assert.notEqual(admit(tableWrite, nowMs), undefined);
    setup.table.detachIndex(setup.index);
    assert.equal(admit(tableWrite, nowMs), undefined);

    const left = setup.index.removePartition(setup.hot.id, nowMs);
    assert.ok(left > 80_000, `backlog handed over: ${left}`);
    assert.equal(setup.index.findPartition(setup.hot.id), undefined);
    const child = setup.index.partitionCapacity(100, 0, 0, nowMs);
    setup.index.enqueueIndexWrites(child, left, nowMs);
    // The child applies its first second of ceiling at once.
    assert.ok(within(child.stats(nowMs).backlogWriteUnits, left - 1000, 0.001));
  });

  test('a drain between rare looks is computed in one step at the partition\'s rate', () => {
    const setup = setUp('rare-looks');
    setup.index.enqueueIndexWrites(setup.hot, 5000, START_MS);
    // The first second of ceiling goes at once; then 1,000 units/s, however long nobody looks.
    assert.equal(setup.hot.stats(START_MS).backlogWriteUnits, 4000);
    assert.equal(setup.hot.stats(START_MS + 3 * SECOND_MS).backlogWriteUnits, 1000);
    assert.equal(setup.hot.stats(START_MS + 60 * SECOND_MS).backlogWriteUnits, 0);
  });

  test('a refused base-table write adds nothing to the GSI backlog', () => {
    const setup = setUp('refused-put', provisioned(1, 4), ON_DEMAND, { burstBankCeilingSecondsMin: 0 });
    const put = setup.puts[0]!;
    // The table partition has 1 WCU/s and a 300-unit bank: after 250, a 100-unit write does not fit.
    assert.equal(admit([demand(setup.tablePartitions[0]!, 'write', 250)], START_MS), undefined);
    const bigPut = [demand(setup.tablePartitions[0]!, 'write', 100), demand(setup.hot, 'write', 100)];
    assert.equal(admit(bigPut, START_MS + SECOND_MS)?.reason, 'TableWriteProvisionedThroughputExceeded');
    assert.equal(setup.hot.stats(START_MS + SECOND_MS).backlogWriteUnits, 0);
    assert.equal(admit(put, START_MS + SECOND_MS), undefined);
  });

  test('a GSI over its maximum on-demand throughput: IndexWriteMaxOnDemandThroughputExceeded once its buffer is full', () => {
    const setup = setUp('gsi-max', ON_DEMAND, { mode: 'on-demand', maxWriteRequestUnits: 300 }, { gsiBacklogWriteUnitsMax: 1000 });
    const tally = newTally();
    let admittedAt20s = 0;
    load(setup, 100, START_MS, START_MS + 80 * SECOND_MS, tally, (nowMs) => {
      if (nowMs === START_MS + 20 * SECOND_MS - STEP_MS) admittedAt20s = tally.admitted;
    });
    const rate = (tally.admitted - admittedAt20s) / 60;
    assert.ok(within(rate, 300, 0.02), `${rate}/s`);
    assert.equal(tally.lastVerdict?.reason, 'IndexWriteMaxOnDemandThroughputExceeded');
    assert.equal(throttleError(tally.lastVerdict!).message, 'Throughput exceeds the maximum OnDemandThroughput configured on table or index');
  });
});
