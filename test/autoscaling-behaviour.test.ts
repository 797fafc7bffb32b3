/**
 * Auto scaling's behaviour on the server's clock, through the SDKs (DynamoDB and Application Auto
 * Scaling) on a manual clock: every item of issue 19's "What it must show" about scaling, and the
 * rules of docs/CAPACITY-MODEL.md §13. The load is UpdateItem on items of a chosen size (an update
 * of an N KB item costs N WCU), so a minute's consumption is exact and cheap to send.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DescribeScalingActivitiesCommand,
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
  type ApplicationAutoScalingClient,
} from '@aws-sdk/client-application-auto-scaling';
import { DescribeTableCommand, PutItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import { autoScalingClient, provisionedTable } from './support/autoscaling.js';
import { startTwinWithClients, type TwinClients } from './support/twin.js';
import type { Dynatwin } from '../src/index.js';

const SECOND_MS = 1000;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The twin, its clock, and the two SDK clients. */
interface Rig {
  readonly twin: Dynatwin<ManualClock>;
  readonly client: DynamoDBClient;
  readonly scaling: ApplicationAutoScalingClient;
}

async function advance(rig: Rig, ms: number): Promise<void> {
  rig.twin.clock.advance(ms);
  await rig.twin.settled();
}

/** Moves the clock to the next minute boundary (a datapoint starts there). */
async function alignToMinute(rig: Rig): Promise<void> {
  const now = rig.twin.clock.nowMs();
  await advance(rig, MINUTE_MS - (now % MINUTE_MS));
}

/** An item `id` whose update costs `kilobytes` write units (on the table and on an ALL-projected GSI). */
async function seedItem(client: DynamoDBClient, table: string, id: string, kilobytes: number, group?: string): Promise<void> {
  await client.send(
    new PutItemCommand({
      TableName: table,
      Item: { id: { S: id }, n: { N: '0' }, payload: { S: 'x'.repeat(kilobytes * 1024 - 100) }, ...(group === undefined ? {} : { group: { S: group } }) },
    }),
  );
}

/** What a stretch of load did: units admitted and requests throttled, per second of the clock. */
interface LoadOutcome {
  admittedUnits: number;
  throttled: number;
  /** Clock offsets (ms from the start of the stretch) of throttled requests. */
  throttledAtMs: number[];
}

/**
 * For `durationMs`, every `stepMs` of the clock: one UpdateItem of each item in `ids` (each costs
 * its size in KB), then the clock moves on by the step. Throttles are counted, never retried.
 */
async function load(rig: Rig, table: string, ids: readonly { readonly id: string; readonly units: number }[], durationMs: number, stepMs = SECOND_MS): Promise<LoadOutcome> {
  const outcome: LoadOutcome = { admittedUnits: 0, throttled: 0, throttledAtMs: [] };
  for (let elapsedMs = 0; elapsedMs < durationMs; elapsedMs += stepMs) {
    for (const { id, units } of ids) {
      try {
        await rig.client.send(
          new UpdateItemCommand({ TableName: table, Key: { id: { S: id } }, UpdateExpression: 'SET n = n + :one', ExpressionAttributeValues: { ':one': { N: '1' } } }),
        );
        outcome.admittedUnits += units;
      } catch (error) {
        assert.equal((error as Error).name, 'ProvisionedThroughputExceededException', `only throttles are expected, got ${(error as Error).message}`);
        outcome.throttled++;
        outcome.throttledAtMs.push(elapsedMs);
      }
    }
    await advance(rig, stepMs);
  }
  return outcome;
}

/** A load of `unitsPerSecond` from one item of that size updated every second (or every 10 s for small rates, from a 10× item). */
function rate(unitsPerSecond: number): { ids: { id: string; units: number }[]; stepMs: number } {
  if (unitsPerSecond <= 30) return { ids: [{ id: `w${unitsPerSecond * 10}`, units: unitsPerSecond * 10 }], stepMs: 10 * SECOND_MS };
  return { ids: [{ id: `w${unitsPerSecond}`, units: unitsPerSecond }], stepMs: SECOND_MS };
}

async function runAt(rig: Rig, table: string, unitsPerSecond: number, durationMs: number): Promise<LoadOutcome> {
  const { ids, stepMs } = rate(unitsPerSecond);
  return load(rig, table, ids, durationMs, stepMs);
}

async function writeCapacity(client: DynamoDBClient, table: string, index?: string): Promise<number> {
  const description = await client.send(new DescribeTableCommand({ TableName: table }));
  if (index === undefined) return description.Table!.ProvisionedThroughput!.WriteCapacityUnits!;
  return description.Table!.GlobalSecondaryIndexes!.find((gsi) => gsi.IndexName === index)!.ProvisionedThroughput!.WriteCapacityUnits!;
}

async function writeScaling(rig: Rig, resourceId: string, options: { min?: number; max?: number; target?: number; extra?: Record<string, unknown> } = {}): Promise<void> {
  const dimension = resourceId.includes('/index/') ? 'dynamodb:index:WriteCapacityUnits' : 'dynamodb:table:WriteCapacityUnits';
  await rig.scaling.send(
    new RegisterScalableTargetCommand({ ServiceNamespace: 'dynamodb', ResourceId: resourceId, ScalableDimension: dimension, MinCapacity: options.min ?? 1, MaxCapacity: options.max ?? 5000 }),
  );
  await rig.scaling.send(
    new PutScalingPolicyCommand({
      PolicyName: 'write-70',
      ServiceNamespace: 'dynamodb',
      ResourceId: resourceId,
      ScalableDimension: dimension,
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        TargetValue: options.target ?? 70,
        PredefinedMetricSpecification: { PredefinedMetricType: 'DynamoDBWriteCapacityUtilization' },
        ...options.extra,
      },
    }),
  );
}

async function activities(rig: Rig, resourceId: string) {
  const answer = await rig.scaling.send(new DescribeScalingActivitiesCommand({ ServiceNamespace: 'dynamodb', ResourceId: resourceId }));
  return answer.ScalingActivities ?? [];
}

describe('auto scaling on the manual clock', () => {
  let twinClients: TwinClients;
  let rig: Rig;
  before(async () => {
    twinClients = await startTwinWithClients({ clock: 'manual' });
    rig = { twin: twinClients.twin as Dynatwin<ManualClock>, client: twinClients.client, scaling: autoScalingClient(twinClients.twin.endpoint) };
    // One UTC day holds the whole first scenario: start an hour after midnight.
    const now = rig.twin.clock.nowMs();
    await advance(rig, DAY_MS - (now % DAY_MS) + 60 * MINUTE_MS);
  });
  after(async () => {
    rig.scaling.destroy();
    await twinClients.close();
  });

  test('200 WCU at a 70% target: stays at 50%, 215 after 2 minutes at 75%, 429 at 300 WCU/s, lowered after 15 minutes at 20, the 5th decrease of the day waits for the quota', async () => {
    const table = await provisionedTable(rig.client, 'scale-main', 10, 200);
    for (const units of [100, 150, 300, 200, 100, 50, 20, 10]) await seedItem(rig.client, table, `w${units}`, units);
    await alignToMinute(rig);
    const t0 = rig.twin.clock.nowMs();
    await writeScaling(rig, `table/${table}`);

    // 100 WCU/s is 50 %: three minutes, no change.
    await runAt(rig, table, 100, 3 * MINUTE_MS);
    assert.equal(await writeCapacity(rig.client, table), 200, 'stays put at 50 %');

    // 150 WCU/s is 75 %: raised exactly two minutes later, to 215 (AWS's example).
    await runAt(rig, table, 150, 2 * MINUTE_MS - SECOND_MS);
    assert.equal(await writeCapacity(rig.client, table), 200, 'not before two datapoints above the target');
    await runAt(rig, table, 150, SECOND_MS);
    assert.equal(rig.twin.clock.nowMs(), t0 + 5 * MINUTE_MS);
    assert.equal(await writeCapacity(rig.client, table), 215);
    let history = await activities(rig, `table/${table}`);
    assert.equal(history.length, 1);
    assert.equal(history[0]!.Description, 'Setting write capacity units to 215.');
    assert.match(history[0]!.Cause!, new RegExp(`^monitor alarm TargetTracking-table/${table}-AlarmHigh-[0-9a-f-]{36} in state ALARM triggered policy write-70$`));
    assert.equal(history[0]!.StatusCode, 'Successful');
    assert.equal(history[0]!.StatusMessage, 'Successfully set write capacity units to 215. Change successfully fulfilled by dynamodb.');
    assert.equal(history[0]!.StartTime!.getTime(), t0 + 5 * MINUTE_MS);

    // At 215, 150 WCU/s is 69.8 %: it stays. Then 300 WCU/s: 429 two minutes later.
    await runAt(rig, table, 150, MINUTE_MS);
    assert.equal(await writeCapacity(rig.client, table), 215);
    const surge = await runAt(rig, table, 300, 2 * MINUTE_MS);
    assert.equal(surge.throttled, 0, 'the burst bank carries 300 WCU/s through the window');
    assert.equal(await writeCapacity(rig.client, table), 429, 'the capacity that gives 70 % at 300 WCU/s');

    // 20 WCU/s is under 50 % of 429: lowered after 15 minutes, to ceil(20 / 0.7) = 29.
    await runAt(rig, table, 20, 15 * MINUTE_MS - 10 * SECOND_MS);
    assert.equal(await writeCapacity(rig.client, table), 429, 'not before 15 datapoints');
    await runAt(rig, table, 20, 10 * SECOND_MS);
    assert.equal(await writeCapacity(rig.client, table), 29);

    // Three more decreases (10 → 15, 5 → 8, 2 → 3), 15 minutes each: four in the UTC day.
    for (const [unitsPerSecond, expected] of [[10, 15], [5, 8], [2, 3]] as const) {
      await runAt(rig, table, unitsPerSecond, 15 * MINUTE_MS);
      assert.equal(await writeCapacity(rig.client, table), expected, `lowered to ${expected} at ${unitsPerSecond} WCU/s`);
    }
    const fourthMs = rig.twin.clock.nowMs();
    // The fifth (1 WCU/s → 2) is due 15 minutes later but the quota allows it only 3,600 s after the fourth.
    await runAt(rig, table, 1, 15 * MINUTE_MS);
    assert.equal(await writeCapacity(rig.client, table), 3, 'the fifth decrease waits');
    history = await activities(rig, `table/${table}`);
    assert.equal(history[0]!.StatusCode, 'Failed');
    assert.equal(history[0]!.Description, 'Setting write capacity units to 2.');
    assert.match(history[0]!.StatusMessage!, /^Failed to set write capacity units to 2\. Reason: Subscriber limit exceeded: Provisioned throughput decreases are limited within a given UTC day\. .*Number of decreases today: 4\./);
    await runAt(rig, table, 1, fourthMs + 60 * MINUTE_MS - rig.twin.clock.nowMs() - 10 * SECOND_MS);
    assert.equal(await writeCapacity(rig.client, table), 3);
    assert.equal(history.filter((activity) => activity.StatusCode === 'Failed').length, 1, 'a refusal that repeats is recorded once');
    await runAt(rig, table, 1, 10 * SECOND_MS);
    assert.equal(rig.twin.clock.nowMs(), fourthMs + 60 * MINUTE_MS);
    assert.equal(await writeCapacity(rig.client, table), 2, 'made once the quota allows it');
    const description = await rig.client.send(new DescribeTableCommand({ TableName: table }));
    assert.equal(description.Table!.ProvisionedThroughput!.NumberOfDecreasesToday, 5);
    history = await activities(rig, `table/${table}`);
    assert.deepEqual(
      history.filter((activity) => activity.StatusCode === 'Successful').map((activity) => activity.Description).reverse(),
      [215, 429, 29, 15, 8, 3, 2].map((units) => `Setting write capacity units to ${units}.`),
    );
  });

  test('a GSI scales on its own policy; the table stays', async () => {
    const table = await provisionedTable(rig.client, 'scale-gsi', 10, 100, { read: 10, write: 50 });
    await seedItem(rig.client, table, 'w40', 40, 'g');
    await alignToMinute(rig);
    await writeScaling(rig, `table/${table}/index/byGroup`);
    // 40 WCU/s on the table (40 %) and on the GSI (80 % of 50).
    await runAt(rig, table, 40, 2 * MINUTE_MS);
    assert.equal(await writeCapacity(rig.client, table, 'byGroup'), 58, 'ceil(40 / 0.7)');
    assert.equal(await writeCapacity(rig.client, table), 100);
    const history = await activities(rig, `table/${table}/index/byGroup`);
    assert.equal(history[0]!.ScalableDimension, 'dynamodb:index:WriteCapacityUnits');
    assert.equal(history[0]!.Description, 'Setting write capacity units to 58.');
  });

  test('throttles in the scale-out window are what the partitions allow: burst, then the old capacity; the raise splits the partition', async () => {
    const table = await provisionedTable(rig.client, 'scale-burst', 10, 200);
    await seedItem(rig.client, table, 'w390a', 390);
    await seedItem(rig.client, table, 'w390b', 390);
    await alignToMinute(rig);
    // Rested: the burst bank holds 300 s of 200 WCU.
    await advance(rig, 5 * MINUTE_MS);
    await writeScaling(rig, `table/${table}`);
    const ids = [{ id: 'w390a', units: 390 }, { id: 'w390b', units: 390 }];
    // 780 WCU/s on 200: the bank (60,000) drains at 580/s, so for ~103 s nothing is refused...
    const window = await load(rig, table, ids, 2 * MINUTE_MS);
    const firstThrottleS = window.throttledAtMs[0]! / 1000;
    assert.ok(firstThrottleS >= 100 && firstThrottleS <= 106, `first throttle at ${firstThrottleS} s, when the bank runs out`);
    // ...then the old capacity: 200 WCU/s admitted, the rest throttled.
    const afterBankS = 120 - Math.ceil(firstThrottleS);
    const admittedAfterBank = window.admittedUnits - Math.ceil(firstThrottleS) * 780;
    assert.ok(admittedAfterBank <= 200 * afterBankS + 2 * 390, `after the bank: ${admittedAfterBank} units in ${afterBankS} s at 200 WCU`);
    assert.ok(window.throttled >= afterBankS, 'about half the requests are throttled');
    const raised = await writeCapacity(rig.client, table);
    assert.ok(raised > 780, `raised to ${raised} after two minutes`);
    // At the raised capacity 780 WCU/s passes, once the emptied bank has refilled a request's worth.
    const next = await load(rig, table, ids, 2 * MINUTE_MS);
    assert.ok(next.throttledAtMs.every((ms) => ms < 2 * SECOND_MS), `throttled at ${next.throttledAtMs.join(', ')} ms after the raise to ${raised}`);
    // 780 on `raised` is still above 70 %: raised again to ceil(780 / 0.7) = 1115, past one partition's 1,000 WCU.
    assert.equal(await writeCapacity(rig.client, table), 1115);
    const document = (await (await fetch(`${rig.twin.endpoint}/dynatwin/tables/${table}/partitions`)).json()) as { partitions: unknown[] };
    assert.equal(document.partitions.length, 2, 'the raise doubled the partitions, as a user’s UpdateTable does');
  });

  test('a spike shorter than the evaluation window does not scale', async () => {
    const table = await provisionedTable(rig.client, 'scale-spike', 10, 200);
    for (const units of [100, 300]) await seedItem(rig.client, table, `w${units}`, units);
    await alignToMinute(rig);
    await writeScaling(rig, `table/${table}`);
    await runAt(rig, table, 100, 2 * MINUTE_MS);
    await runAt(rig, table, 300, MINUTE_MS);
    await runAt(rig, table, 100, 3 * MINUTE_MS);
    await runAt(rig, table, 300, MINUTE_MS);
    await runAt(rig, table, 100, 2 * MINUTE_MS);
    assert.equal(await writeCapacity(rig.client, table), 200);
    assert.deepEqual(await activities(rig, `table/${table}`), []);
  });

  test('MaxCapacity caps a scale-out; ScaleOutCooldown delays the next; DisableScaleIn keeps the capacity', async () => {
    const table = await provisionedTable(rig.client, 'scale-bounds', 10, 200);
    for (const units of [150, 300, 200]) await seedItem(rig.client, table, `w${units}`, units);
    await alignToMinute(rig);
    await writeScaling(rig, `table/${table}`, { max: 400, extra: { ScaleOutCooldown: 300, DisableScaleIn: true } });
    await runAt(rig, table, 150, 2 * MINUTE_MS);
    assert.equal(await writeCapacity(rig.client, table), 215);
    // 300 WCU/s would raise it two minutes later; the 5-minute cooldown holds it until then.
    await runAt(rig, table, 300, 4 * MINUTE_MS);
    assert.equal(await writeCapacity(rig.client, table), 215, 'within the scale-out cooldown');
    await runAt(rig, table, 300, MINUTE_MS);
    assert.equal(await writeCapacity(rig.client, table), 400, 'at the maximum, not 429');
    await runAt(rig, table, 20, 20 * MINUTE_MS);
    assert.equal(await writeCapacity(rig.client, table), 400, 'DisableScaleIn: never lowered');
  });
});
