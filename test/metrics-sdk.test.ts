/**
 * Issue #9, "What it must show": metric values checked against known loads, sent through the AWS
 * SDK to a server on a manual clock, read back from GET /dynatwin/metrics and GET /metrics.
 *
 * Each phase runs inside its own minute of the injected clock, so the minute's datapoint holds
 * exactly that phase's samples; right after the minute ends, the Prometheus page (which shows the
 * last complete minute) must agree with it, with each family's documented statistic (Sum for
 * counts, Average for latency, the latest sample for gauges). Last, retention: 1-second buckets go
 * after 10 minutes, 1-minute buckets after 3 hours.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  type AttributeValue,
  type ConsumedCapacity,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import type { Datapoint } from '../src/metrics/series.js';
import { rawRequest } from './support/raw.js';
import { expectDynamoError, startTwinWithClients, type TwinClients } from './support/twin.js';

const SECOND = 1_000;
const MINUTE = 60_000;
const TABLE = 'metrics-sdk';
const INDEX = 'by-kind';
/** A provisioned table, for the Provisioned* gauges. */
const PROVISIONED_TABLE = 'metrics-sdk-provisioned';

interface MetricsAnswer {
  readonly startMs: number;
  readonly endMs: number;
  readonly metrics: readonly { readonly metric: string; readonly dimensions: Record<string, string>; readonly datapoints: readonly Datapoint[] }[];
}

/** An item of exactly `sizeBytes` (DynamoDB's item size: attribute names plus values). */
function itemOf(id: string, sizeBytes: number, extra: Record<string, AttributeValue> = {}): Record<string, AttributeValue> {
  let fixed = 'id'.length + id.length + 'body'.length;
  for (const [name, value] of Object.entries(extra)) fixed += name.length + (value.S ?? '').length;
  assert.ok(sizeBytes > fixed);
  return { id: { S: id }, body: { S: 'x'.repeat(sizeBytes - fixed) }, ...extra };
}

describe('metrics through the SDK, against known loads', () => {
  let clients: TwinClients;
  let client: DynamoDBClient;
  let clock: ManualClock;
  let endpoint: string;

  before(async () => {
    clients = await startTwinWithClients({ clock: 'manual' });
    client = clients.client;
    clock = clients.twin.clock as ManualClock;
    endpoint = clients.twin.endpoint;
    await client.send(
      new CreateTableCommand({
        TableName: TABLE,
        AttributeDefinitions: [
          { AttributeName: 'id', AttributeType: 'S' },
          { AttributeName: 'kind', AttributeType: 'S' },
        ],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        // KEYS_ONLY: an entry costs 1 write unit whatever the item's size.
        GlobalSecondaryIndexes: [{ IndexName: INDEX, KeySchema: [{ AttributeName: 'kind', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await client.send(
      new CreateTableCommand({
        TableName: PROVISIONED_TABLE,
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        ProvisionedThroughput: { ReadCapacityUnits: 7, WriteCapacityUnits: 4 },
      }),
    );
  });
  after(() => clients?.close());

  /** Moves the clock to the start of the next minute; returns it. */
  function nextMinute(): number {
    clock.advance(MINUTE - (clock.nowMs() % MINUTE));
    return clock.nowMs();
  }

  async function metricsAnswer(query: string): Promise<MetricsAnswer> {
    const response = await rawRequest(endpoint, { method: 'GET', path: `/dynatwin/metrics?${query}` });
    assert.equal(response.status, 200, `${query}: ${response.text}`);
    return JSON.parse(response.text) as MetricsAnswer;
  }

  /** The datapoints of one series (the query must name exactly one). */
  async function datapoints(query: string): Promise<readonly Datapoint[]> {
    const answer = await metricsAnswer(query);
    assert.equal(answer.metrics.length, 1, `${query} names one series`);
    return answer.metrics[0]!.datapoints;
  }

  /** The datapoint of the minute starting at `minuteMs`, or undefined when that minute had no sample. */
  async function minutePoint(query: string, minuteMs: number): Promise<Datapoint | undefined> {
    const points = await datapoints(`${query}&period=60`);
    return points.find((point) => point.Timestamp === new Date(minuteMs).toISOString());
  }

  /** The value of one Prometheus sample line, `family{labels}`; undefined when the line is absent. */
  async function prometheus(): Promise<(series: string) => number | undefined> {
    const response = await rawRequest(endpoint, { method: 'GET', path: '/metrics' });
    assert.equal(response.status, 200);
    const values = new Map<string, number>();
    for (const line of response.text.split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      const at = line.lastIndexOf(' ');
      values.set(line.slice(0, at), Number(line.slice(at + 1)));
    }
    return (series) => values.get(series);
  }

  function tableUnits(capacity: ConsumedCapacity | undefined): number {
    return capacity?.Table?.CapacityUnits ?? 0;
  }

  test('N PutItems of K-unit items: ConsumedWriteCapacityUnits Sum = N × K, SampleCount = N; latency SampleCount = N', async () => {
    const N = 5;
    const K = 3;
    const minute = nextMinute();
    for (let at = 0; at < N; at++) {
      // 2,500 bytes: 3 write units (1 KB each, rounded up).
      const answer = await client.send(new PutItemCommand({ TableName: TABLE, Item: itemOf(`put-${at}`, 2_500), ReturnConsumedCapacity: 'INDEXES' }));
      assert.equal(tableUnits(answer.ConsumedCapacity), K);
      clock.advance(7 * SECOND);
    }
    const consumed = await minutePoint(`table=${TABLE}&metric=ConsumedWriteCapacityUnits`, minute);
    assert.deepEqual(consumed, { Timestamp: new Date(minute).toISOString(), Sum: N * K, Average: K, Minimum: K, Maximum: K, SampleCount: N });
    // No GSI entry was written (the items have no `kind`): the GSI has no sample.
    assert.deepEqual(await datapoints(`table=${TABLE}&index=${INDEX}&metric=ConsumedWriteCapacityUnits&period=60`), []);
    const latency = await minutePoint(`table=${TABLE}&metric=SuccessfulRequestLatency&operation=PutItem`, minute);
    assert.equal(latency?.SampleCount, N);
    assert.ok(latency.Minimum >= 0 && latency.Maximum >= latency.Minimum && latency.Average > 0);

    // The minute over, the Prometheus page shows the same figures.
    nextMinute();
    const value = await prometheus();
    assert.equal(value(`dynamodb_consumed_write_capacity_units{table="${TABLE}"}`), N * K);
    assert.equal(value(`dynamodb_successful_request_latency{table="${TABLE}",operation="PutItem"}`), latency.Average, 'latency shows the Average');
    assert.equal(value(`dynamodb_write_throttle_events{table="${TABLE}"}`), 0);
    assert.equal(value(`dynamodb_consumed_write_capacity_units{table="${TABLE}",index="${INDEX}"}`), undefined, 'no GSI series yet');
  });

  test("a GSI write adds to the GSI's series, not the table's", async () => {
    const minute = clock.nowMs();
    assert.equal(minute % MINUTE, 0);
    let tableSum = 0;
    let indexSum = 0;
    const puts = [itemOf('kind-0', 2_500, { kind: { S: 'k1' } }), itemOf('kind-1', 2_500, { kind: { S: 'k1' } }), itemOf('big', 9_000)];
    for (const Item of puts) {
      const answer = await client.send(new PutItemCommand({ TableName: TABLE, Item, ReturnConsumedCapacity: 'INDEXES' }));
      tableSum += tableUnits(answer.ConsumedCapacity);
      indexSum += answer.ConsumedCapacity?.GlobalSecondaryIndexes?.[INDEX]?.CapacityUnits ?? 0;
    }
    // 3 + 3 units on the table for the two indexed items, 9 for the big one; 1 per KEYS_ONLY entry.
    assert.equal(tableSum, 15);
    assert.equal(indexSum, 2);
    const table = await minutePoint(`table=${TABLE}&metric=ConsumedWriteCapacityUnits`, minute);
    assert.equal(table?.Sum, 15, 'the table series holds the table units only');
    assert.equal(table.SampleCount, 3);
    const index = await minutePoint(`table=${TABLE}&index=${INDEX}&metric=ConsumedWriteCapacityUnits`, minute);
    assert.equal(index?.Sum, 2);
    assert.equal(index.SampleCount, 2);
    assert.deepEqual((await metricsAnswer(`table=${TABLE}&index=${INDEX}&metric=ConsumedWriteCapacityUnits`)).metrics[0]!.dimensions, {
      TableName: TABLE,
      GlobalSecondaryIndexName: INDEX,
    });

    nextMinute();
    const value = await prometheus();
    assert.equal(value(`dynamodb_consumed_write_capacity_units{table="${TABLE}"}`), 15);
    assert.equal(value(`dynamodb_consumed_write_capacity_units{table="${TABLE}",index="${INDEX}"}`), 2);
  });

  test('reads: GetItem SC / EC units, Query and Scan ReturnedItemCount = items returned, latency per operation', async () => {
    const minute = clock.nowMs();
    let tableReadUnits = 0;
    // 9,000 bytes: 3 read units strongly consistent, 1.5 eventually consistent (4 KB each).
    for (const ConsistentRead of [true, true, false, false]) {
      const answer = await client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: 'big' } }, ConsistentRead, ReturnConsumedCapacity: 'TOTAL' }));
      assert.ok(answer.Item !== undefined);
      assert.equal(answer.ConsumedCapacity?.CapacityUnits, ConsistentRead ? 3 : 1.5);
      tableReadUnits += answer.ConsumedCapacity.CapacityUnits;
    }
    const getItemUnits = await minutePoint(`table=${TABLE}&metric=ConsumedReadCapacityUnits`, minute);
    assert.deepEqual(getItemUnits, { Timestamp: new Date(minute).toISOString(), Sum: 9, Average: 2.25, Minimum: 1.5, Maximum: 3, SampleCount: 4 });

    // Query: 1 item from the table, 2 from the GSI (whose read units go to the GSI's series).
    const byId = await client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': { S: 'put-0' } }, ReturnConsumedCapacity: 'INDEXES' }));
    assert.equal(byId.Count, 1);
    tableReadUnits += tableUnits(byId.ConsumedCapacity);
    const byKind = await client.send(
      new QueryCommand({ TableName: TABLE, IndexName: INDEX, KeyConditionExpression: 'kind = :k', ExpressionAttributeValues: { ':k': { S: 'k1' } }, ReturnConsumedCapacity: 'INDEXES' }),
    );
    assert.equal(byKind.Count, 2);
    const indexReadUnits = byKind.ConsumedCapacity?.GlobalSecondaryIndexes?.[INDEX]?.CapacityUnits ?? 0;
    assert.ok(indexReadUnits > 0);
    tableReadUnits += tableUnits(byKind.ConsumedCapacity);
    // Scan: 8 items read, 2 returned by the filter; ReturnedItemCount counts the returned ones.
    const scan = await client.send(new ScanCommand({ TableName: TABLE, FilterExpression: 'attribute_exists(kind)', ReturnConsumedCapacity: 'TOTAL' }));
    assert.equal(scan.ScannedCount, 8);
    assert.equal(scan.Count, 2);
    tableReadUnits += scan.ConsumedCapacity?.CapacityUnits ?? 0;

    const table = await minutePoint(`table=${TABLE}&metric=ConsumedReadCapacityUnits`, minute);
    assert.equal(table?.Sum, tableReadUnits, 'the table read units of the GetItems, Query and Scan');
    // 4 GetItems, the table Query and the Scan; the GSI Query reads nothing of the table.
    assert.equal(table.SampleCount, 6);
    const index = await minutePoint(`table=${TABLE}&index=${INDEX}&metric=ConsumedReadCapacityUnits`, minute);
    assert.equal(index?.Sum, indexReadUnits);
    assert.equal(index.SampleCount, 1);
    const queryItems = await minutePoint(`table=${TABLE}&metric=ReturnedItemCount&operation=Query`, minute);
    assert.equal(queryItems?.Sum, 3);
    assert.equal(queryItems.SampleCount, 2);
    const scanItems = await minutePoint(`table=${TABLE}&metric=ReturnedItemCount&operation=Scan`, minute);
    assert.equal(scanItems?.Sum, 2);
    assert.equal(scanItems.SampleCount, 1);
    // GetItem has no ReturnedItemCount (Query, Scan and ExecuteStatement only).
    assert.deepEqual(
      (await metricsAnswer(`table=${TABLE}&metric=ReturnedItemCount&operation=GetItem`)).metrics.map((metric) => metric.datapoints.length),
      [0],
    );
    const latencyCount = async (operation: string): Promise<number | undefined> =>
      (await minutePoint(`table=${TABLE}&metric=SuccessfulRequestLatency&operation=${operation}`, minute))?.SampleCount;
    assert.equal(await latencyCount('GetItem'), 4);
    assert.equal(await latencyCount('Query'), 2);
    assert.equal(await latencyCount('Scan'), 1);
    assert.equal(await latencyCount('PutItem'), undefined, 'no PutItem in this minute');

    nextMinute();
    const value = await prometheus();
    assert.equal(value(`dynamodb_consumed_read_capacity_units{table="${TABLE}"}`), tableReadUnits);
    assert.equal(value(`dynamodb_consumed_read_capacity_units{table="${TABLE}",index="${INDEX}"}`), indexReadUnits);
    assert.equal(value(`dynamodb_returned_item_count{table="${TABLE}",operation="Query"}`), 3);
    assert.equal(value(`dynamodb_returned_item_count{table="${TABLE}",operation="Scan"}`), 2);
    assert.equal(value(`dynamodb_consumed_write_capacity_units{table="${TABLE}"}`), 0, 'a count with no sample in the last complete minute shows 0');
    assert.equal(value(`dynamodb_successful_request_latency{table="${TABLE}",operation="PutItem"}`), undefined, 'latency without requests has no line');
  });

  test('ConditionalCheckFailedRequests counts failed conditions, UserErrors a validation error (not the failed conditions)', async () => {
    const minute = clock.nowMs();
    for (const id of ['put-0', 'put-1']) {
      await expectDynamoError(
        client.send(new PutItemCommand({ TableName: TABLE, Item: itemOf(id, 100), ConditionExpression: 'attribute_not_exists(id)' })),
        'ConditionalCheckFailedException',
        'The conditional request failed',
      );
    }
    await expectDynamoError(client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { N: '1' } } })), 'ValidationException', 'The provided key element does not match the schema');

    const failedConditions = await minutePoint(`table=${TABLE}&metric=ConditionalCheckFailedRequests`, minute);
    assert.equal(failedConditions?.Sum, 2);
    assert.equal(failedConditions.SampleCount, 2);
    const userErrors = await minutePoint('metric=UserErrors', minute);
    assert.equal(userErrors?.Sum, 1, 'the validation error only');
    assert.deepEqual((await metricsAnswer('metric=UserErrors')).metrics[0]!.dimensions, {}, 'UserErrors is account-level');
    // Neither is a success, nor a throttle, nor a system error.
    assert.equal(await minutePoint(`table=${TABLE}&metric=SuccessfulRequestLatency&operation=PutItem`, minute), undefined);
    assert.equal(await minutePoint(`table=${TABLE}&metric=ThrottledRequests&operation=PutItem`, minute), undefined);
    assert.equal(await minutePoint(`table=${TABLE}&metric=SystemErrors&operation=PutItem`, minute), undefined);
    // A failed condition still consumes write capacity: the stored item's size (3 units each).
    assert.equal((await minutePoint(`table=${TABLE}&metric=ConsumedWriteCapacityUnits`, minute))?.Sum, 6);

    nextMinute();
    const value = await prometheus();
    assert.equal(value(`dynamodb_conditional_check_failed_requests{table="${TABLE}"}`), 2);
    assert.equal(value('dynamodb_user_errors'), 1);
    assert.equal(value(`dynamodb_throttled_requests{table="${TABLE}",operation="PutItem"}`), 0);
  });

  test('1-second and 60-second periods bucket samples on the injected clock', async () => {
    const minute = clock.nowMs();
    const putAt = async (offsetMs: number, count: number, stem: string): Promise<void> => {
      clock.advance(minute + offsetMs - clock.nowMs());
      for (let at = 0; at < count; at++) await client.send(new PutItemCommand({ TableName: TABLE, Item: itemOf(`${stem}-${at}`, 500) }));
    };
    await putAt(0, 2, 'second-0');
    await putAt(5_500, 3, 'second-5');
    await putAt(59_999, 1, 'second-59');
    await putAt(60_000, 4, 'next-minute');

    const seconds = await datapoints(`table=${TABLE}&metric=ConsumedWriteCapacityUnits&period=1&startMs=${minute}`);
    assert.deepEqual(
      seconds.map((point) => [point.Timestamp, point.Sum, point.SampleCount]),
      [
        [new Date(minute).toISOString(), 2, 2],
        [new Date(minute + 5_000).toISOString(), 3, 3],
        [new Date(minute + 59_000).toISOString(), 1, 1],
        [new Date(minute + 60_000).toISOString(), 4, 4],
      ],
    );
    const minutes = await datapoints(`table=${TABLE}&metric=ConsumedWriteCapacityUnits&period=60&startMs=${minute}`);
    assert.deepEqual(
      minutes.map((point) => [point.Timestamp, point.Sum, point.SampleCount]),
      [
        [new Date(minute).toISOString(), 6, 6],
        [new Date(minute + MINUTE).toISOString(), 4, 4],
      ],
    );
    // endMs selects buckets by their start: the minute in progress is left out.
    const until = await datapoints(`table=${TABLE}&metric=ConsumedWriteCapacityUnits&period=60&startMs=${minute}&endMs=${minute + MINUTE - 1}`);
    assert.deepEqual(until.map((point) => point.Sum), [6]);

    // The last complete minute is the one with 6; the minute in progress (4 so far) is not shown.
    const value = await prometheus();
    assert.equal(value(`dynamodb_consumed_write_capacity_units{table="${TABLE}"}`), 6);
  });

  test('gauges show their latest sample; every family says which statistic it shows', async () => {
    const response = await rawRequest(endpoint, { method: 'GET', path: '/metrics' });
    const text = response.text;
    assert.ok(text.includes(`dynamodb_provisioned_read_capacity_units{table="${PROVISIONED_TABLE}"} 7\n`), 'sampled when /metrics is read');
    assert.ok(text.includes(`dynamodb_provisioned_write_capacity_units{table="${PROVISIONED_TABLE}"} 4\n`));
    assert.ok(!text.includes(`dynamodb_provisioned_read_capacity_units{table="${TABLE}"}`), 'an on-demand table has no provisioned capacity');
    const help = (family: string): string => text.split('\n').find((line) => line.startsWith(`# HELP ${family} `)) ?? '';
    for (const family of ['dynamodb_consumed_write_capacity_units', 'dynamodb_returned_item_count', 'dynamodb_conditional_check_failed_requests', 'dynamodb_user_errors']) {
      assert.match(help(family), /value: the Sum over the last complete minute\.$/, family);
    }
    assert.match(help('dynamodb_successful_request_latency'), /value: the Average over the last complete minute\.$/);
    assert.match(help('dynamodb_provisioned_write_capacity_units'), /value: the latest sample\.$/);
  });

  test('a BatchWriteItem and a BatchGetItem are one Consumed* sample per table and request', async () => {
    const batchTable = 'metrics-batches';
    await client.send(
      new CreateTableCommand({ TableName: batchTable, AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }),
    );
    const minute = nextMinute();
    // 10 items of 2,500 bytes: 3 write units each; read back strongly consistent, 1 unit each.
    const ids = Array.from({ length: 10 }, (_, at) => `batch-${at}`);
    const written = await client.send(
      new BatchWriteItemCommand({ RequestItems: { [batchTable]: ids.map((id) => ({ PutRequest: { Item: itemOf(id, 2_500) } })) }, ReturnConsumedCapacity: 'TOTAL' }),
    );
    assert.equal(written.ConsumedCapacity?.[0]?.CapacityUnits, 30);
    const read = await client.send(
      new BatchGetItemCommand({ RequestItems: { [batchTable]: { Keys: ids.map((id) => ({ id: { S: id } })), ConsistentRead: true } }, ReturnConsumedCapacity: 'TOTAL' }),
    );
    assert.equal(read.Responses?.[batchTable]?.length, 10);
    assert.equal(read.ConsumedCapacity?.[0]?.CapacityUnits, 10);
    const writes = await minutePoint(`table=${batchTable}&metric=ConsumedWriteCapacityUnits`, minute);
    assert.deepEqual(writes, { Timestamp: new Date(minute).toISOString(), Sum: 30, Average: 30, Minimum: 30, Maximum: 30, SampleCount: 1 });
    const reads = await minutePoint(`table=${batchTable}&metric=ConsumedReadCapacityUnits`, minute);
    assert.deepEqual(reads, { Timestamp: new Date(minute).toISOString(), Sum: 10, Average: 10, Minimum: 10, Maximum: 10, SampleCount: 1 });
    // The next request's sample stands alone.
    await client.send(new PutItemCommand({ TableName: batchTable, Item: itemOf('single', 2_500) }));
    const after = await minutePoint(`table=${batchTable}&metric=ConsumedWriteCapacityUnits`, minute);
    assert.deepEqual(after, { Timestamp: new Date(minute).toISOString(), Sum: 33, Average: 16.5, Minimum: 3, Maximum: 30, SampleCount: 2 });
  });

  test('retention: 1-second buckets go after 10 minutes, 1-minute buckets after 3 hours', async () => {
    const first = (await datapoints(`table=${TABLE}&metric=ConsumedWriteCapacityUnits&period=60`))[0]!;
    const firstMs = Date.parse(first.Timestamp);
    assert.ok((await datapoints(`table=${TABLE}&metric=ConsumedWriteCapacityUnits&period=1`)).length > 0);

    clock.advance(10 * MINUTE + SECOND);
    assert.deepEqual(await datapoints(`table=${TABLE}&metric=ConsumedWriteCapacityUnits&period=1`), [], 'seconds older than 10 minutes are gone');
    assert.equal((await datapoints(`table=${TABLE}&metric=ConsumedWriteCapacityUnits&period=60`))[0]!.Timestamp, first.Timestamp, 'minutes are still there');

    // Past 3 hours after the first minute: it is gone, the later ones too once they are as old.
    clock.advance(firstMs + 3 * 60 * MINUTE - clock.nowMs());
    const left = await datapoints(`table=${TABLE}&metric=ConsumedWriteCapacityUnits&period=60`);
    assert.ok(left.length > 0 && left.every((point) => Date.parse(point.Timestamp) > firstMs), 'the first minute is gone');
    const asked = await metricsAnswer(`table=${TABLE}&metric=ConsumedWriteCapacityUnits&period=60&startMs=${firstMs}`);
    assert.equal(asked.startMs, firstMs + MINUTE, 'a start before the retention is clamped to it');

    clock.advance(3 * 60 * MINUTE);
    assert.deepEqual(await datapoints(`table=${TABLE}&metric=ConsumedWriteCapacityUnits&period=60`), []);
    assert.deepEqual(await datapoints(`table=${TABLE}&metric=ReturnedItemCount&operation=Query&period=60`), []);
    // A new sample lands in its own minute; nothing of the old ones comes back with the ring's reuse.
    const minute = nextMinute();
    await client.send(new PutItemCommand({ TableName: TABLE, Item: itemOf('after-retention', 500) }));
    const points = await datapoints(`table=${TABLE}&metric=ConsumedWriteCapacityUnits&period=60`);
    assert.deepEqual(points.map((point) => [point.Timestamp, point.Sum]), [[new Date(minute).toISOString(), 1]]);
    nextMinute();
    const value = await prometheus();
    assert.equal(value(`dynamodb_consumed_write_capacity_units{table="${TABLE}"}`), 1);
    assert.equal(value(`dynamodb_returned_item_count{table="${TABLE}",operation="Query"}`), 0);
  });
});
