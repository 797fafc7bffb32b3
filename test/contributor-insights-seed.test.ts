/**
 * Issue #9, "What it must show", seed article 000 through the AWS SDK on a manual clock: the
 * article's table (table-def.json: on-demand, GSI `gsi-status` on a two-valued `status`) loaded
 * with 25-item BatchWriteItems of new `UN_USED` items at 2,000 items per simulated second, past
 * the GSI back-pressure buffer (80,000 write units, docs/CAPACITY-MODEL.md §4: ~80 s at this
 * rate). What the article saw on CloudWatch must show on the inspection API:
 * - WriteThrottleEvents on `gsi-status`, none on the table's own series or partitions;
 *   ThrottledRequests{BatchWriteItem} only for the batches throttled whole;
 * - Contributor Insights on the GSI: `UN_USED` the single most accessed key; no throttled keys
 *   (AWS does not count GSI back-pressure against keys).
 * Then the article's sparse design (better-table-def.json) under the same load: accesses spread
 * over the item ids, no key dominates, nothing throttled.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DescribeContributorInsightsCommand,
  UpdateContributorInsightsCommand,
  type AttributeValue,
  type DynamoDBClient,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import { DEFAULT_INSIGHTS_OPTIONS, type InsightsReport, type RuleReport } from '../src/metrics/insights.js';
import type { Datapoint } from '../src/metrics/series.js';
import { startDynatwin, type Dynatwin } from '../src/index.js';
import { rawRequest } from './support/raw.js';
import { betterSeedArticleTable, seedArticleTable } from './support/seeds.js';
import { sdkClient } from './support/client.js';
import { testTwinOptions } from './support/test-store.js';

const SECOND = 1_000;
const MINUTE = 60_000;
const ITEMS_PER_SECOND = 2_000;
const BATCH_SIZE = 25;
const BATCHES_PER_SECOND = ITEMS_PER_SECOND / BATCH_SIZE;

interface LoadTally {
  /** Items sent. */
  sent: number;
  /** Items the table accepted. */
  written: number;
  /** Items returned in UnprocessedItems of partly written batches. */
  unprocessed: number;
  /** Batches of which some items came back unprocessed. */
  partialBatches: number;
  /** Batches refused whole (ThrottlingException). */
  throttledBatches: number;
  /** Items sent before the first one was refused; undefined while none was. */
  sentBeforeFirstRefusal: number | undefined;
  /** The ThrottlingReasons of the first batch refused whole. */
  reasons: unknown;
}

/**
 * The article's loop at `ITEMS_PER_SECOND`: each simulated second, `BATCHES_PER_SECOND`
 * BatchWriteItems of 25 new items (sent together), then the clock moves one second. A client with
 * maxAttempts 1, so every throttle reaches the tally.
 */
async function load(client: DynamoDBClient, clock: ManualClock, table: string, seconds: number, item: (id: string) => Record<string, AttributeValue>): Promise<LoadTally> {
  const tally: LoadTally = { sent: 0, written: 0, unprocessed: 0, partialBatches: 0, throttledBatches: 0, sentBeforeFirstRefusal: undefined, reasons: undefined };
  for (let second = 0; second < seconds; second++) {
    const calls: Promise<void>[] = [];
    for (let batch = 0; batch < BATCHES_PER_SECOND; batch++) {
      const requests: WriteRequest[] = [];
      for (let at = 0; at < BATCH_SIZE; at++) requests.push({ PutRequest: { Item: item(randomUUID()) } });
      const sentBefore = tally.sent;
      tally.sent += BATCH_SIZE;
      calls.push(
        client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } })).then(
          (answer) => {
            const left = answer.UnprocessedItems?.[table]?.length ?? 0;
            tally.written += BATCH_SIZE - left;
            if (left > 0) {
              tally.unprocessed += left;
              tally.partialBatches++;
              tally.sentBeforeFirstRefusal = Math.min(tally.sentBeforeFirstRefusal ?? Infinity, sentBefore + BATCH_SIZE - left);
            }
          },
          (error: Error) => {
            assert.equal(error.name, 'ThrottlingException', error.message);
            tally.reasons ??= (error as { throttlingReasons?: unknown }).throttlingReasons;
            tally.throttledBatches++;
            tally.sentBeforeFirstRefusal = Math.min(tally.sentBeforeFirstRefusal ?? Infinity, sentBefore);
          },
        ),
      );
    }
    await Promise.all(calls);
    clock.advance(SECOND);
  }
  return tally;
}

interface MetricsAnswer {
  readonly metrics: readonly { readonly metric: string; readonly dimensions: Record<string, string>; readonly datapoints: readonly Datapoint[] }[];
}

interface PartitionAnswer {
  readonly id: number;
  readonly itemCount: number;
  readonly writeThrottleEvents: number;
  readonly readThrottleEvents: number;
  readonly backlogWriteUnits: number;
}

interface PartitionsAnswer {
  readonly partitions: readonly PartitionAnswer[];
  readonly indexes: Record<string, { readonly partitions: readonly PartitionAnswer[] }>;
}

async function getJson<T>(endpoint: string, path: string): Promise<T> {
  const response = await rawRequest(endpoint, { method: 'GET', path });
  assert.equal(response.status, 200, `${path}: ${response.text}`);
  return JSON.parse(response.text) as T;
}

/** The datapoints of one metric (a query naming a metric without operation answers one series). */
async function datapoints(endpoint: string, query: string): Promise<readonly Datapoint[]> {
  const answer = await getJson<MetricsAnswer>(endpoint, `/dynatwin/metrics?${query}`);
  assert.equal(answer.metrics.length, 1, query);
  return answer.metrics[0]!.datapoints;
}

function sumOf(points: readonly Datapoint[]): number {
  return points.reduce((total, point) => total + point.Sum, 0);
}

function rule(report: InsightsReport, kind: RuleReport['kind']): RuleReport {
  const found = report.rules.find((candidate) => candidate.kind === kind);
  assert.ok(found !== undefined, `${report.table}${report.index === undefined ? '' : '/' + report.index} has a ${kind} rule`);
  return found;
}

/** Enables Contributor Insights on the table and its GSI as the article does, and checks Describe. */
async function enableInsights(client: DynamoDBClient, table: string, index: string): Promise<void> {
  for (const IndexName of [undefined, index]) {
    const updated = await client.send(new UpdateContributorInsightsCommand({ TableName: table, IndexName, ContributorInsightsAction: 'ENABLE' }));
    assert.equal(updated.ContributorInsightsStatus, 'ENABLING');
    const described = await client.send(new DescribeContributorInsightsCommand({ TableName: table, IndexName }));
    assert.equal(described.ContributorInsightsStatus, 'ENABLED');
    assert.equal(described.IndexName, IndexName);
    assert.equal(described.ContributorInsightsMode, 'ACCESSED_AND_THROTTLED_KEYS');
    // The resource name is the table's, or <table>-<index> for a GSI; hash-only keys: PKC and PKT.
    const resource = IndexName === undefined ? table : `${table}-${IndexName}`;
    const names = described.ContributorInsightsRuleList ?? [];
    assert.equal(names.length, 2, names.join(', '));
    assert.match(names[0]!, new RegExp(`^DynamoDBContributorInsights-PKC-${resource}-\\d{13}$`));
    assert.match(names[1]!, new RegExp(`^DynamoDBContributorInsights-PKT-${resource}-\\d{13}$`));
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The most accessed keys of a load where every key is written once per minute: each key's true
 * figure is 3 (one write unit × 3), and Space-Saving's upper bound `value` overestimates it by at
 * most total / sketch capacity, so no key can look dominant.
 */
function assertSpread(rule: RuleReport, what: string): void {
  assert.ok(rule.minutes.length > 0, `${what}: some minute was recorded`);
  for (const minute of rule.minutes) {
    assert.ok(minute.contributors.length > 1, `${what}: several contributors`);
    for (const contributor of minute.contributors) {
      assert.match(contributor.keys[0]!, UUID, `${what}: the contributors are item ids`);
      assert.ok(contributor.value - contributor.maxOverestimate <= 3, `${what}: ${contributor.keys[0]} counts at least ${contributor.value - contributor.maxOverestimate} (> 3)`);
      assert.ok(contributor.value <= minute.total / DEFAULT_INSIGHTS_OPTIONS.sketchCapacity + 3, `${what}: ${contributor.value} of ${minute.total} dominates`);
    }
  }
}

/** No minute of a throttled-keys rule has a contributor. */
function assertNoThrottledKeys(rule: RuleReport, what: string): void {
  assert.equal(rule.measure, 'ThrottleCount');
  assert.deepEqual(rule.minutes.filter((minute) => minute.contributors.length > 0), [], `${what}: no throttled key`);
}

describe('seed article 000 through the SDK: metrics and Contributor Insights', () => {
  let twin: Dynatwin;
  let client: DynamoDBClient;
  let clock: ManualClock;

  before(async () => {
    twin = await startDynatwin(testTwinOptions({ clock: 'manual' }));
    client = sdkClient(twin.endpoint);
    clock = twin.clock as ManualClock;
  });
  after(async () => {
    client?.destroy();
    await twin?.close();
  });

  /** Moves the clock to the start of the next minute (no-op on a minute); returns it. */
  function toMinute(): number {
    if (clock.nowMs() % MINUTE !== 0) clock.advance(MINUTE - (clock.nowMs() % MINUTE));
    return clock.nowMs();
  }

  describe('table-def.json: a GSI on a two-valued status', () => {
    const INDEX = 'gsi-status';
    /** Long enough to pass the 80,000-unit buffer (80 s at 1,000 units/s of growth), then 4 s throttled. */
    const SECONDS = 84;
    let startMs = 0;
    let tally: LoadTally;

    test('Contributor Insights enabled on the table and the GSI through the SDK: ENABLED, with the rule names', async () => {
      await client.send(new CreateTableCommand(seedArticleTable()));
      await enableInsights(client, 'test', INDEX);
    });

    test("the load: the first refusal after ~160,000 items, then the table accepts the GSI partition's 1,000 items/s", async (t) => {
      startMs = toMinute();
      tally = await load(client, clock, 'test', SECONDS, (id) => ({ id: { S: id }, status: { S: 'UN_USED' } }));
      toMinute();
      const refused = tally.unprocessed + BATCH_SIZE * tally.throttledBatches;
      t.diagnostic(`sent ${tally.sent} items, written ${tally.written}, refused ${refused} (${tally.throttledBatches} batches throttled whole, ${tally.partialBatches} partly); first refusal after ${tally.sentBeforeFirstRefusal} items`);
      assert.equal(tally.written + refused, tally.sent);
      assert.ok(refused > 0, 'the load was throttled');
      // The article: 160,350 items sent when the first UnprocessedItems came back.
      const first = tally.sentBeforeFirstRefusal!;
      assert.ok(Math.abs(first - 160_000) <= 0.02 * 160_000, `first refusal after ${first} items`);

      const perSecond = await datapoints(twin.endpoint, `table=test&metric=ConsumedWriteCapacityUnits&period=1&startMs=${startMs}`);
      assert.equal(perSecond.length, SECONDS);
      assert.ok(perSecond.slice(0, 80).every((point) => point.Sum === ITEMS_PER_SECOND), 'everything accepted for 80 s');
      assert.deepEqual(perSecond.slice(-3).map((point) => point.Sum), [1_000, 1_000, 1_000], 'then the GSI partition’s rate');
    });

    test('WriteThrottleEvents on gsi-status, none on the table; ThrottledRequests{BatchWriteItem} = the batches throttled whole', async (t) => {
      const refused = tally.unprocessed + BATCH_SIZE * tally.throttledBatches;
      const gsiThrottles = await datapoints(twin.endpoint, `table=test&index=${INDEX}&metric=WriteThrottleEvents&period=60`);
      t.diagnostic(`gsi-status WriteThrottleEvents per minute: ${gsiThrottles.map((point) => `${point.Timestamp} ${point.Sum}`).join(', ')}`);
      assert.ok(sumOf(gsiThrottles) > 0);
      assert.equal(sumOf(gsiThrottles), refused, 'one event per refused item');
      // The per-reason metric of the back-pressure verdict (IndexWriteKeyRangeThroughputExceeded), on the GSI too.
      assert.equal(sumOf(await datapoints(twin.endpoint, `table=test&index=${INDEX}&metric=WriteKeyRangeThroughputThrottleEvents&period=60`)), refused);
      // The first throttled second is the 81st of the load: the buffer took 80 s to fill.
      const gsiSeconds = await datapoints(twin.endpoint, `table=test&index=${INDEX}&metric=WriteThrottleEvents&period=1&startMs=${startMs}`);
      assert.equal(gsiSeconds[0]!.Timestamp, new Date(startMs + 80 * SECOND).toISOString());

      assert.deepEqual(await datapoints(twin.endpoint, 'table=test&metric=WriteThrottleEvents&period=60'), [], "the table's own series: no throttle event");
      for (const reason of ['WriteKeyRangeThroughputThrottleEvents', 'WriteProvisionedThroughputThrottleEvents', 'WriteAccountLimitThrottleEvents', 'WriteMaxOnDemandThroughputThrottleEvents']) {
        assert.deepEqual(await datapoints(twin.endpoint, `table=test&metric=${reason}&period=60`), [], reason);
      }

      // A batch refused whole is a ThrottlingException naming the GSI (back-pressure).
      assert.deepEqual(tally.reasons, [{ reason: 'IndexWriteKeyRangeThroughputExceeded', resource: `arn:aws:dynamodb:us-east-1:000000000000:table/test/index/${INDEX}` }]);
      const throttledRequests = await datapoints(twin.endpoint, 'table=test&metric=ThrottledRequests&operation=BatchWriteItem&period=60');
      assert.equal(sumOf(throttledRequests), tally.throttledBatches, 'only the batches refused whole; partly written ones are not throttled requests');
      assert.ok(tally.throttledBatches > 0);

      // Consumption: every accepted item once on the table (1 unit each); the GSI counts what its
      // partition served, as CloudWatch does — the accepted items less what still waits in its
      // backlog — and never more in a minute than its 1,000 WCU/s ceiling serves (plus the
      // rested partition's stored second and reserve).
      assert.equal(sumOf(await datapoints(twin.endpoint, 'table=test&metric=ConsumedWriteCapacityUnits&period=60')), tally.written);
      const gsiConsumed = await datapoints(twin.endpoint, `table=test&index=${INDEX}&metric=ConsumedWriteCapacityUnits&period=60`);
      for (const point of gsiConsumed) assert.ok(point.Sum <= 60 * 1_000 + 2 * 1_000, `${point.Timestamp}: the GSI served ${point.Sum} units in a minute`);

      // The GSI partition holding UN_USED counts the throttle events; the GSI's other partitions none.
      const partitions = await getJson<PartitionsAnswer>(twin.endpoint, '/dynatwin/tables/test/partitions');
      const gsiPartitions = partitions.indexes[INDEX]!.partitions;
      const hot = gsiPartitions.filter((partition) => partition.itemCount > 0);
      assert.equal(hot.length, 1);
      assert.equal(sumOf(gsiConsumed) + hot[0]!.backlogWriteUnits, tally.written, 'served + still waiting = accepted');
      assert.equal(hot[0]!.itemCount, tally.written);
      assert.equal(hot[0]!.writeThrottleEvents, refused);
      assert.ok(hot[0]!.backlogWriteUnits > 0, 'the backlog is still being worked off');
      assert.deepEqual(
        gsiPartitions.filter((partition) => partition !== hot[0]).map((partition) => partition.writeThrottleEvents),
        [0, 0, 0],
      );
    });

    test(
      "the table's partitions count no throttle event",
      async () => {
        const partitions = await getJson<PartitionsAnswer>(twin.endpoint, '/dynatwin/tables/test/partitions');
        assert.deepEqual(
          partitions.partitions.map((partition) => partition.writeThrottleEvents),
          partitions.partitions.map(() => 0),
        );
      },
    );

    test('Contributor Insights: UN_USED is the single most accessed key of the GSI; no throttled keys', async (t) => {
      const gsi = await getJson<InsightsReport>(twin.endpoint, `/dynatwin/tables/test/indexes/${INDEX}/contributor-insights`);
      for (const minute of rule(gsi, 'PKC').minutes) t.diagnostic(`gsi-status PKC ${minute.Timestamp}: ${JSON.stringify(minute.contributors)}`);
      assert.equal(gsi.status, 'ENABLED');
      const accessed = rule(gsi, 'PKC');
      assert.equal(accessed.measure, 'ConsumedThroughputUnits');
      const consumed = await datapoints(twin.endpoint, 'table=test&metric=ConsumedWriteCapacityUnits&period=60');
      assert.equal(accessed.minutes.length, consumed.length);
      for (const minute of accessed.minutes) {
        assert.ok(minute.complete);
        // 3 × the write units of the minute's accepted items (the article: ~350k in a minute).
        const items = consumed.find((point) => point.Timestamp === minute.Timestamp)!.Sum;
        assert.deepEqual(minute.contributors, [{ keys: ['UN_USED'], value: 3 * items, maxOverestimate: 0 }]);
        assert.equal(minute.total, 3 * items);
      }
      assert.equal(accessed.minutes[0]!.total, 3 * ITEMS_PER_SECOND * 60);
      // AWS does not count GSI back-pressure against keys, on the GSI or on the table.
      assertNoThrottledKeys(rule(gsi, 'PKT'), 'gsi-status');
      const table = await getJson<InsightsReport>(twin.endpoint, '/dynatwin/tables/test/contributor-insights');
      assertNoThrottledKeys(rule(table, 'PKT'), 'test');
      // The table's own keys: the item ids, each written once.
      assertSpread(rule(table, 'PKC'), 'test');
      const top = rule(table, 'PKC').minutes[0]!;
      t.diagnostic(`test PKC ${top.Timestamp}: total ${top.total}, top ${JSON.stringify(top.contributors[0])}`);
    });

    test("once the GSI's backlog has drained, its ConsumedWriteCapacityUnits total every accepted item, no minute over its ceiling", async (t) => {
      // The backlog drains at the hot partition's 1,000 WCU/s while the clock moves.
      clock.advance(2 * MINUTE);
      const gsiConsumed = await datapoints(twin.endpoint, `table=test&index=${INDEX}&metric=ConsumedWriteCapacityUnits&period=60`);
      t.diagnostic(`gsi-status ConsumedWriteCapacityUnits per minute: ${gsiConsumed.map((point) => `${point.Timestamp} ${point.Sum}`).join(', ')}`);
      const partitions = await getJson<PartitionsAnswer>(twin.endpoint, '/dynatwin/tables/test/partitions');
      assert.deepEqual(partitions.indexes[INDEX]!.partitions.map((partition) => partition.backlogWriteUnits), [0, 0, 0, 0]);
      assert.equal(sumOf(gsiConsumed), tally.written);
      for (const point of gsiConsumed) assert.ok(point.Sum <= 60 * 1_000 + 2 * 1_000, `${point.Timestamp}: the GSI served ${point.Sum} units in a minute`);
      assert.ok(gsiConsumed.length >= 3, 'the drain went on into the minutes after the load');
    });
  });

  describe('better-table-def.json: the sparse design', () => {
    const INDEX = 'gsi-un-used-id';
    const SECONDS = 20;

    test('the same load spreads over the GSI: no key dominates, nothing is throttled', async (t) => {
      await client.send(new CreateTableCommand(betterSeedArticleTable()));
      await enableInsights(client, 'better-table', INDEX);
      const startMs = toMinute();
      const tally = await load(client, clock, 'better-table', SECONDS, (id) => ({ id: { S: id }, unUsedId: { S: id } }));
      toMinute();
      assert.deepEqual(
        { written: tally.written, unprocessed: tally.unprocessed, throttledBatches: tally.throttledBatches },
        { written: ITEMS_PER_SECOND * SECONDS, unprocessed: 0, throttledBatches: 0 },
      );

      for (const query of ['table=better-table', `table=better-table&index=${INDEX}`]) {
        assert.deepEqual(await datapoints(twin.endpoint, `${query}&metric=WriteThrottleEvents&period=60`), [], query);
        assert.equal(sumOf(await datapoints(twin.endpoint, `${query}&metric=ConsumedWriteCapacityUnits&period=60`)), ITEMS_PER_SECOND * SECONDS, query);
      }
      const throttledRequests = await getJson<MetricsAnswer>(twin.endpoint, '/dynatwin/metrics?table=better-table&metric=ThrottledRequests&period=60');
      assert.deepEqual(throttledRequests.metrics.flatMap((metric) => metric.datapoints), []);
      const perSecond = await datapoints(twin.endpoint, `table=better-table&metric=ConsumedWriteCapacityUnits&period=1&startMs=${startMs}`);
      assert.ok(perSecond.length === SECONDS && perSecond.every((point) => point.Sum === ITEMS_PER_SECOND), 'every second accepted in full');

      // The GSI's entries spread over its partitions, each well under 1,000 units/s: no backlog builds.
      const partitions = await getJson<PartitionsAnswer>(twin.endpoint, '/dynatwin/tables/better-table/partitions');
      const gsiPartitions = partitions.indexes[INDEX]!.partitions;
      assert.ok(gsiPartitions.length > 1 && gsiPartitions.every((partition) => partition.itemCount > 0));
      for (const partition of [...partitions.partitions, ...gsiPartitions]) {
        assert.equal(partition.writeThrottleEvents, 0);
        assert.equal(partition.backlogWriteUnits, 0);
      }

      const table = await getJson<InsightsReport>(twin.endpoint, '/dynatwin/tables/better-table/contributor-insights');
      const gsi = await getJson<InsightsReport>(twin.endpoint, `/dynatwin/tables/better-table/indexes/${INDEX}/contributor-insights`);
      assertSpread(rule(table, 'PKC'), 'better-table');
      assertSpread(rule(gsi, 'PKC'), INDEX);
      const top = rule(gsi, 'PKC').minutes[0]!;
      t.diagnostic(`${INDEX} PKC ${top.Timestamp}: total ${top.total}, ${top.contributors.length} contributors, top ${JSON.stringify(top.contributors[0])}`);
      t.diagnostic(`GSI partitions: ${gsiPartitions.map((partition) => `#${partition.id} ${partition.itemCount} items`).join(', ')}`);
      assertNoThrottledKeys(rule(table, 'PKT'), 'better-table');
      assertNoThrottledKeys(rule(gsi, 'PKT'), INDEX);
    });
  });
});
