/**
 * Flow fidelity against items fidelity (issue 35): the examples in examples/scenarios/ run both
 * ways and must agree — the same findings (code and resource) per variant, the first throttle
 * within 2 s, accepted items within 2%. Long examples are cut short (status-gsi to 140 s, past
 * its first throttle at ~81 s; gsi-sharding to 30 s) to keep the suite short; docs/SCENARIOS.md
 * gives the full runs' figures side by side. What a flow cannot model is refused in one line.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import type { SimulationReport } from '../src/scenarios/report.js';
import { ScenarioError } from '../src/scenarios/schema.js';
import { parsePrices } from '../src/scenarios/pricing.js';
import { simulate } from '../src/scenarios/simulate.js';

type Document = { workload?: { phases: { durationSeconds: number }[] }; variants: { name: string; workload?: { phases: { durationSeconds: number }[] } }[] };

function example(name: string): Document {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`../../examples/scenarios/${name}`, import.meta.url)), 'utf8')) as Document;
}

/** The example with every phase cut to `seconds`. */
function shortened(document: Document, seconds: number): Document {
  for (const phases of [document.workload?.phases ?? [], ...document.variants.map((variant) => variant.workload?.phases ?? [])]) {
    for (const phase of phases) phase.durationSeconds = Math.min(phase.durationSeconds, seconds);
  }
  return document;
}

function withoutVariant(document: Document, name: string): Document {
  return { ...document, variants: document.variants.filter((variant) => variant.name !== name) };
}

/** Runs a document in both fidelities (one after the other: each uses the machine's cores). */
async function bothWays(document: Document): Promise<{ items: SimulationReport; flow: SimulationReport }> {
  const items = await simulate(document, { fidelity: 'items' });
  const flow = await simulate(document, { fidelity: 'flow' });
  return { items, flow };
}

function findingKeys(report: SimulationReport, variant: number): string[] {
  return report.variants[variant]!.findings.map((finding) => `${finding.code} ${finding.resource}`).sort();
}

/** The bar: same findings, first throttle within 2 s, accepted within 2%. */
function assertAgree(items: SimulationReport, flow: SimulationReport): void {
  assert.equal(flow.variants.length, items.variants.length);
  items.variants.forEach((expected, at) => {
    const actual = flow.variants[at]!;
    const name = expected.name;
    assert.deepEqual(findingKeys(flow, at), findingKeys(items, at), `${name}: findings`);
    const [a, b] = [expected.totals.firstThrottleSeconds, actual.totals.firstThrottleSeconds];
    if (a === null || b === null) assert.equal(b, a, `${name}: first throttle`);
    else assert.ok(Math.abs(a - b) <= 2, `${name}: first throttle ${b} s in flow, ${a} s in items`);
    assert.equal(actual.totals.offered, expected.totals.offered, `${name}: offered`);
    const accepted = expected.totals.accepted;
    assert.ok(Math.abs(actual.totals.accepted - accepted) <= accepted * 0.02, `${name}: accepted ${actual.totals.accepted} in flow, ${accepted} in items`);
  });
}

describe('fidelity flow agrees with fidelity items on the examples', () => {
  test('status-gsi (140 s): the low-cardinality GSI throttles at ~81 s in both; the sparse index never', async () => {
    const { items, flow } = await bothWays(shortened(example('status-gsi.json'), 140));
    assertAgree(items, flow);
    assert.ok(flow.variants[0]!.totals.firstThrottleSeconds !== null, 'the status GSI throttles');
    assert.equal(flow.variants[1]!.totals.throttled, 0);
  });

  test('date-keyed-log: the classic size split, dilution and back-pressure at a bound of 0 agree', async () => {
    const { items, flow } = await bothWays(example('date-keyed-log.json'));
    assertAgree(items, flow);
    const codes = findingKeys(flow, 0).join(' ');
    assert.match(codes, /CLASSIC_DILUTION_AFTER_SPLIT/);
    assert.match(codes, /TIME_KEYED_GSI/);
  });

  test('gsi-sharding (30 s): a constant key, 5 and 64 shards, and the sharded read agree', async () => {
    const { items, flow } = await bothWays(shortened(example('gsi-sharding.json'), 30));
    assertAgree(items, flow);
    const reads = (report: SimulationReport): number => report.variants[2]!.operations.find((operation) => operation.kind === 'ShardedQuery')!.readUnits;
    assert.ok(Math.abs(reads(flow) - reads(items)) <= reads(items) * 0.05, `sharded read units ${reads(flow)} vs ${reads(items)}`);
  });

  test('delivery-lists without its transaction variant: rewritten lists, chunks, a table per delivery agree', async () => {
    const { items, flow } = await bothWays(withoutVariant(example('delivery-lists.json'), 'list-plus-targets'));
    assertAgree(items, flow);
    const failures = (report: SimulationReport): number => report.variants[0]!.operations.reduce((total, operation) => total + operation.itemSizeFailures, 0);
    assert.equal(failures(flow), failures(items));
  });

  test('a TransactWriteItems or a condition expression is refused in one line naming the operation', async () => {
    await assert.rejects(simulate(example('delivery-lists.json'), { fidelity: 'flow' }), (error: unknown) => {
      assert.ok(error instanceof ScenarioError);
      assert.match(error.message, /^variants\[2\]\.workload\.phases\[0\]\.operations\[4\] \(send: delete the target, record it\): fidelity flow cannot model TransactWriteItems/);
      assert.doesNotMatch(error.message, /\n/);
      return true;
    });
    const conditional = example('status-gsi.json') as Document & { workload: { phases: { operations: Record<string, unknown>[] }[] } };
    conditional.workload.phases[0]!.operations[0] = {
      operation: 'PutItem',
      table: 'test',
      itemsPerSecond: 10,
      item: { id: { uuid: {} } },
      conditionExpression: 'attribute_not_exists(id)',
    };
    await assert.rejects(simulate({ ...conditional, fidelity: 'flow' }), /workload\.phases\[0\]\.operations\[0\] \(PutItem test\): fidelity flow cannot model a condition expression/);
    await assert.rejects(simulate({ ...example('status-gsi.json'), fidelity: 'fast' }), /fidelity: must be 'items' or 'flow', got "fast"/);
  });
});

describe('the bill', () => {
  const table = (billing: Record<string, unknown>): Record<string, unknown> => ({
    TableName: 'orders',
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    ...billing,
  });
  const scenario = (fidelity: 'items' | 'flow'): Record<string, unknown> => ({
    name: 'bill',
    fidelity,
    variants: [
      { name: 'on-demand', tables: [table({ BillingMode: 'PAY_PER_REQUEST' })] },
      { name: 'provisioned', tables: [table({ ProvisionedThroughput: { ReadCapacityUnits: 100, WriteCapacityUnits: 2000 } })] },
    ],
    workload: {
      phases: [
        {
          name: 'steady',
          durationSeconds: 3600,
          operations: [
            { operation: 'PutItem', table: 'orders', itemsPerSecond: 500, item: { id: { uuid: {} }, body: { payload: { bytes: 1500 } } } },
            { operation: 'GetItem', table: 'orders', requestsPerSecond: 100, key: { id: { uuid: {} } } },
          ],
        },
      ],
    },
  });

  test('request units at list price on-demand, capacity-hours provisioned, storage prorated; the cheaper mode found', async () => {
    // An hour (the shortest run a billing finding is made for); items fidelity takes a while for 1.8 million puts, so flow only here,
    // and items on a minute below.
    for (const fidelity of ['flow'] as const) {
      const report = await simulate(scenario(fidelity));
      const [onDemand, provisioned] = report.variants;
      // 1,800,000 puts of 2 KB items: 3,600,000 WRU; 360,000 eventually consistent reads of 2 KB: 180,000 RRU.
      assert.equal(onDemand!.cost.writeRequestUnits, 3_600_000, fidelity);
      assert.equal(onDemand!.cost.readRequestUnits, 180_000, fidelity);
      assert.ok(Math.abs(onDemand!.cost.onDemandWriteUsd - 2.25) < 1e-6 && Math.abs(onDemand!.cost.onDemandReadUsd - 0.0225) < 1e-6, fidelity);
      // 2,000 WCU and 100 RCU for an hour.
      assert.ok(Math.abs(provisioned!.cost.provisionedWriteUsd - 2000 * 0.00065) < 1e-6, fidelity);
      assert.ok(Math.abs(provisioned!.cost.provisionedReadUsd - 100 * 0.00013) < 1e-6, fidelity);
      assert.equal(provisioned!.cost.writeRequestUnits, 0);
      const storedGb = onDemand!.cost.storageGbAtEnd;
      assert.ok(storedGb > (1_800_000 * 1500) / 1024 ** 3 && storedGb < (1_800_000 * 1600) / 1024 ** 3, `${storedGb} GB`);
      assert.ok(Math.abs(onDemand!.cost.usd - (onDemand!.cost.onDemandWriteUsd + onDemand!.cost.onDemandReadUsd + onDemand!.cost.storageUsd)) < 1e-5);
      // Provisioned at the busiest second (~1,000 WCU, 50 RCU) for a minute costs less than on-demand.
      const finding = onDemand!.findings.find((candidate) => candidate.code === 'CHEAPER_BILLING_MODE');
      assert.ok(finding, `${fidelity}: on-demand at a steady 1,000 WCU/s costs more than provisioned at that peak`);
      assert.equal(finding.figures.alternativeMode, 'provisioned');
      assert.equal(report.prices.region, 'us-east-1');
    }
  });

  test('items fidelity bills the same way; --prices replaces the price table; a bad one is refused in one line', async () => {
    const minute = scenario('items') as { workload: { phases: { durationSeconds: number }[] } };
    minute.workload.phases[0]!.durationSeconds = 60;
    const items = await simulate(minute);
    assert.equal(items.variants[0]!.cost.writeRequestUnits, 60_000);
    assert.equal(items.variants[0]!.cost.readRequestUnits, 3_000);
    assert.ok(Math.abs(items.variants[1]!.cost.provisionedWriteUsd - (2000 / 60) * 0.00065) < 1e-6);
    assert.equal(items.variants[0]!.findings.length, 0, 'no billing finding for a minute');
    const report = await simulate(scenario('flow'), { prices: parsePrices({ region: 'eu-west-1', writeRequestUnitsPerMillion: 1.25 }, '--prices') });
    assert.equal(report.prices.region, 'eu-west-1');
    assert.ok(Math.abs(report.variants[0]!.cost.onDemandWriteUsd - 4.5) < 1e-6);
    assert.throws(() => parsePrices({ writeRequestUnitPerMillion: 1 }, '--prices'), /--prices\.writeRequestUnitPerMillion: is not a price/);
    assert.throws(() => parsePrices({ storageGbMonth: -1 }, '--prices'), /--prices\.storageGbMonth: must be a number of dollars/);
  });
});

describe('auto scaling in scenarios', () => {
  const scenario = (fidelity: 'items' | 'flow', autoScaling: unknown[]): Record<string, unknown> => ({
    name: 'scaling',
    fidelity,
    tickMs: 1000,
    variants: [
      {
        name: 'provisioned-autoscaling',
        tables: [
          {
            TableName: 'orders',
            AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
            ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 200 },
          },
        ],
        autoScaling,
      },
    ],
    workload: {
      phases: [{ name: 'ramp', durationSeconds: 900, operations: [{ operation: 'PutItem', table: 'orders', itemsPerSecond: { from: 100, to: 800 }, item: { id: { uuid: {} } } }] }],
    },
  });
  const writeTarget = { ResourceId: 'table/orders', ScalableDimension: 'dynamodb:table:WriteCapacityUnits', MinCapacity: 200, MaxCapacity: 2000, TargetValue: 70 };

  test('the server\'s target tracking scales a ramp out, in both fidelities, at the same minutes', async () => {
    const runs = await Promise.all((['items', 'flow'] as const).map((fidelity) => simulate(scenario(fidelity, [writeTarget]))));
    const [items, flow] = runs.map((report) => report.variants[0]!.scalingActivities);
    for (const activities of [items!, flow!]) {
      assert.ok(activities.length >= 3, `${activities.length} scaling activities`);
      assert.ok(activities.every((activity) => activity.direction === 'out' && activity.to > activity.from && activity.resource === 'table/orders dynamodb:table:WriteCapacityUnits'));
      assert.match(activities[0]!.cause, /^monitor alarm TargetTracking-table\/orders-AlarmHigh-.* in state ALARM triggered policy scenario-1$/);
      assert.ok(activities.at(-1)!.to <= 2000);
      // Each step sets the capacity that puts the last minute at 70%: consumption / 0.7.
      assert.ok(activities.at(-1)!.to > 700 / 0.7 - 200, `last step to ${activities.at(-1)!.to}`);
    }
    assert.deepEqual(flow!.map((activity) => activity.timeSeconds), items!.map((activity) => activity.timeSeconds));
    for (const [at, activity] of flow!.entries()) assert.ok(Math.abs(activity.to - items![at]!.to) <= items![at]!.to * 0.02, `step ${at}: ${activity.to} vs ${items![at]!.to}`);
    // The bill follows the capacity second by second: more than 200 WCU for 15 minutes.
    assert.ok(runs[1]!.variants[0]!.cost.writeCapacityUnitHours > 200 / 4);
  });

  test('a target the operations refuse stops the run in one line naming it', async () => {
    await assert.rejects(simulate(scenario('flow', [{ ...writeTarget, ScalableDimension: 'dynamodb:table:Writes' }])), (error: unknown) => {
      assert.ok(error instanceof ScenarioError);
      assert.match(error.message, /^variants\[0\]\.autoScaling\[0\]: RegisterScalableTarget refused it: ValidationException: /);
      return true;
    });
    await assert.rejects(simulate(scenario('flow', [{ ...writeTarget, Target: 70 }])), /variants\[0\]\.autoScaling\[0\]\.Target/);
  });
});
