/**
 * admitFlow (the flow fidelity of scenarios): a flow of N identical requests at one instant is
 * admitted exactly as N one-by-one `admit` calls at that instant would be. Two identical worlds
 * run the same steps, one request by request, one flow by flow; every step's admitted counts, and
 * at the end every partition's consumption and throttle events, must agree.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admit, admitFlow, type CapacitySettings, type Demand, type PartitionCapacity, type ResourceBilling, type ResourceCapacity } from '../src/capacity/admission.js';
import { demand, evenPartitions, indexCapacity, ON_DEMAND, provisioned, START_MS, tableCapacity } from './support/capacity.js';

/** One world: a table (and optionally a GSI) with its partitions. */
interface World {
  readonly table: ResourceCapacity;
  readonly index: ResourceCapacity | undefined;
  readonly tablePartitions: PartitionCapacity[];
  readonly indexPartitions: PartitionCapacity[];
}

interface Shape {
  readonly tableBilling: ResourceBilling;
  readonly indexBilling?: ResourceBilling;
  readonly settings?: Partial<CapacitySettings>;
  readonly partitions: number;
  readonly indexPartitions?: number;
}

function world(shape: Shape): World {
  const settings = shape.settings ?? {};
  const table = tableCapacity('t', shape.tableBilling, START_MS, settings);
  const writeUnits = shape.tableBilling.mode === 'provisioned' ? shape.tableBilling.writeUnitsPerSecond : 0;
  const readUnits = shape.tableBilling.mode === 'provisioned' ? shape.tableBilling.readUnitsPerSecond : 0;
  const tablePartitions = evenPartitions(table, shape.partitions, readUnits, writeUnits);
  let index: ResourceCapacity | undefined;
  let indexPartitions: PartitionCapacity[] = [];
  if (shape.indexBilling !== undefined) {
    index = indexCapacity('t', 'gsi', shape.indexBilling, START_MS, settings);
    table.attachIndex(index);
    const indexWrite = shape.indexBilling.mode === 'provisioned' ? shape.indexBilling.writeUnitsPerSecond : 0;
    indexPartitions = evenPartitions(index, shape.indexPartitions ?? 1, 0, indexWrite);
  }
  return { table, index, tablePartitions, indexPartitions };
}

/** A flow of a step: `count` requests, each the demands `build` makes in a world. */
interface FlowSpec {
  readonly count: number;
  readonly build: (world: World) => Demand[];
  readonly itemsPerRequest?: number;
}

/**
 * Runs `steps` steps `stepMs` apart in two worlds of `shape`: requests one by one in the first,
 * flows in the second. Returns the admitted counts per step and flow of each, and both worlds.
 */
function compare(shape: Shape, steps: number, stepMs: number, flowsAt: (step: number) => FlowSpec[]): { byRequest: number[]; byFlow: number[]; one: World; two: World } {
  const one = world(shape);
  const two = world(shape);
  const byRequest: number[] = [];
  const byFlow: number[] = [];
  for (let step = 0; step < steps; step++) {
    const nowMs = START_MS + step * stepMs;
    for (const flow of flowsAt(step)) {
      const demands = flow.build(one);
      let admitted = 0;
      for (let request = 0; request < flow.count; request++) if (admit(demands, nowMs) === undefined) admitted++;
      byRequest.push(admitted);
      byFlow.push(admitFlow(flow.build(two), flow.count, nowMs, flow.itemsPerRequest).admitted);
    }
  }
  return { byRequest, byFlow, one, two };
}

function assertSameState(one: World, two: World, nowMs: number): void {
  const pairs: [PartitionCapacity, PartitionCapacity][] = [
    ...one.tablePartitions.map((partition, at): [PartitionCapacity, PartitionCapacity] => [partition, two.tablePartitions[at]!]),
    ...one.indexPartitions.map((partition, at): [PartitionCapacity, PartitionCapacity] => [partition, two.indexPartitions[at]!]),
  ];
  for (const [left, right] of pairs) {
    const a = left.stats(nowMs);
    const b = right.stats(nowMs);
    for (const direction of ['read', 'write'] as const) {
      assert.ok(Math.abs(a[direction].consumedUnitsLastMinute - b[direction].consumedUnitsLastMinute) < 1e-6, `consumed ${direction} on partition ${left.id}`);
      assert.equal(a[direction].throttleEvents, b[direction].throttleEvents, `throttle events ${direction} on partition ${left.id}`);
    }
    assert.ok(Math.abs(a.backlogWriteUnits - b.backlogWriteUnits) < 1e-6, `backlog on partition ${left.id}`);
  }
}

describe('admitFlow admits a flow as one-by-one admission at the same instant', () => {
  test('provisioned: a hot partition past its allocation and bank, adaptive lending, the ceiling', () => {
    const shape: Shape = { tableBilling: provisioned(0, 400), partitions: 4, settings: { burstBankSecondsMax: 5 } };
    const { byRequest, byFlow, one, two } = compare(shape, 300, 100, (step) => [
      { count: 30 + (step % 7) * 10, build: (w) => [demand(w.tablePartitions[0]!, 'write', 1)] },
      { count: 3, build: (w) => [demand(w.tablePartitions[1]!, 'write', 2)] },
      { count: 150, build: (w) => [demand(w.tablePartitions[2]!, 'write', 1)] },
    ]);
    assert.deepEqual(byFlow, byRequest);
    assert.ok(byRequest.some((admitted, at) => admitted < [30, 3, 150][at % 3]!), 'the load throttles somewhere, or the test proves nothing');
    assertSameState(one, two, START_MS + 300 * 100);
  });

  test('on-demand: twice the previous peak and the partition ceilings hold a fast ramp', () => {
    const shape: Shape = { tableBilling: ON_DEMAND, partitions: 4 };
    const { byRequest, byFlow, one, two } = compare(shape, 200, 100, (step) => [
      { count: 100 + step * 5, build: (w) => [demand(w.tablePartitions[step % 4]!, 'write', 1)] },
      { count: 400, build: (w) => [demand(w.tablePartitions[(step + 1) % 4]!, 'read', 0.5)] },
    ]);
    assert.deepEqual(byFlow, byRequest);
    assertSameState(one, two, START_MS + 200 * 100);
  });

  test('GSI back-pressure: the backlog fills to its bound, then the table admits what the GSI drains (seed 000)', () => {
    const shape: Shape = { tableBilling: ON_DEMAND, indexBilling: ON_DEMAND, partitions: 4, indexPartitions: 4, settings: { gsiBacklogWriteUnitsMax: 20_000 } };
    const { byRequest, byFlow, one, two } = compare(shape, 400, 100, () =>
      [0, 1, 2, 3].map((at) => ({ count: 50, build: (w: World) => [demand(w.tablePartitions[at]!, 'write', 1), demand(w.indexPartitions[0]!, 'write', 1)] })),
    );
    assert.deepEqual(byFlow, byRequest);
    assert.ok(byRequest.reduce((sum, count) => sum + count, 0) < 400 * 200, 'back-pressure refused writes');
    assertSameState(one, two, START_MS + 400 * 100);
  });

  test('GSI back-pressure with a bound of 0: each write drains what the GSI partition holds at once', () => {
    const shape: Shape = { tableBilling: provisioned(0, 1000), indexBilling: provisioned(0, 500), partitions: 1, indexPartitions: 2, settings: { gsiBacklogWriteUnitsMax: 0, burstBankSecondsMax: 10 } };
    const { byRequest, byFlow, one, two } = compare(shape, 600, 100, () => [
      { count: 60, build: (w) => [demand(w.tablePartitions[0]!, 'write', 1), demand(w.indexPartitions[0]!, 'write', 0.7), demand(w.indexPartitions[1]!, 'write', 0.3)] },
    ]);
    // Exact but for a few steps where the bank runs out: one by one, a partition's backlog drains in
    // pieces (each from its own bank, then from adaptive lending); a flow's drain is one piece. The
    // sum stays within 0.5% and the steady state is the same.
    const sum = (counts: number[]): number => counts.reduce((total, count) => total + count, 0);
    assert.ok(Math.abs(sum(byFlow) - sum(byRequest)) <= sum(byRequest) * 0.005, `${sum(byFlow)} vs ${sum(byRequest)}`);
    assert.deepEqual(byFlow.slice(-100), byRequest.slice(-100));
    assert.ok(byRequest.some((admitted) => admitted < 60), 'the GSI partition throttled');
    void one;
    void two;
  });

  test('large requests are judged per request, not on the flow: 1,500-unit writes go through the banks', () => {
    const shape: Shape = { tableBilling: ON_DEMAND, partitions: 4 };
    const { byRequest, byFlow, one, two } = compare(shape, 100, 1000, () => [{ count: 4, build: (w) => [demand(w.tablePartitions[0]!, 'write', 1500)] }]);
    assert.deepEqual(byFlow, byRequest);
    assert.ok(byRequest[0]! > 0, 'a large request is admitted from the banks');
    assertSameState(one, two, START_MS + 100 * 1000);
  });

  test('a flow of zero requests admits nothing and changes nothing', () => {
    const two = world({ tableBilling: ON_DEMAND, partitions: 1 });
    const outcome = admitFlow([demand(two.tablePartitions[0]!, 'write', 1)], 0, START_MS);
    assert.deepEqual(outcome, { admitted: 0, verdict: undefined });
    assert.equal(two.tablePartitions[0]!.stats(START_MS + 1000).write.consumedUnitsLastMinute, 0);
  });
});
