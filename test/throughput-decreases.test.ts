/**
 * UpdateTable's decrease quota through the AWS SDK on a manual clock: 4 decreases a UTC day at
 * any time, then one per 3,600 s after the previous one, counted separately for the table and
 * for each GSI, restored at midnight UTC; refused requests change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CreateTableCommand, DescribeTableCommand, UpdateTableCommand, type UpdateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { ManualClock } from '../src/clock.js';
import { longUtcDate } from '../src/operations/updateTable.js';
import { attributes, globalIndex, keySchema } from './support/tables.js';
import { expectDynamoError, startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const INDEX = 'by-g';
const LIMIT_EXCEEDED = 'LimitExceededException';

function quotaMessage(count: number, lastMs: number, nextMs: number): string {
  return (
    'Subscriber limit exceeded: Provisioned throughput decreases are limited within a given UTC day. ' +
    'After the first 4 decreases, each subsequent decrease in the same UTC day can be performed at most once every 3600 seconds. ' +
    `Number of decreases today: ${count}. Last decrease at ${longUtcDate(lastMs)}. Next decrease can be made at ${longUtcDate(nextMs)}`
  );
}

describe('long UTC dates in the quota message', () => {
  test('are written as DynamoDB writes them', () => {
    assert.equal(longUtcDate(Date.UTC(2026, 9, 9, 0, 21, 34)), 'Friday, October 9, 2026 at 12:21:34 AM Coordinated Universal Time');
    assert.equal(longUtcDate(Date.UTC(2026, 9, 9, 1, 21, 34)), 'Friday, October 9, 2026 at 1:21:34 AM Coordinated Universal Time');
    assert.equal(longUtcDate(Date.UTC(2023, 1, 13, 10, 25, 39)), 'Monday, February 13, 2023 at 10:25:39 AM Coordinated Universal Time');
    assert.equal(longUtcDate(Date.UTC(2026, 9, 8, 23, 20, 48)), 'Thursday, October 8, 2026 at 11:20:48 PM Coordinated Universal Time');
    assert.equal(longUtcDate(Date.UTC(2026, 11, 31, 12, 0, 5)), 'Thursday, December 31, 2026 at 12:00:05 PM Coordinated Universal Time');
  });
});

describe('UpdateTable decrease quota', () => {
  let twin: TwinClients;
  let clock: ManualClock;
  let name: string;
  /** 00:10:00 UTC of the day after the clock's start: every step below stays on a known day. */
  let dayStartMs: number;

  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual' });
    assert.ok(twin.twin.clock instanceof ManualClock);
    clock = twin.twin.clock;
    dayStartMs = (Math.floor(clock.nowMs() / DAY_MS) + 1) * DAY_MS;
    clock.advance(dayStartMs + 10 * MINUTE_MS - clock.nowMs());
    name = uniqueTableName('decreases');
    const units = { ReadCapacityUnits: 100, WriteCapacityUnits: 100 };
    await twin.client.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: attributes({ pk: 'S', g: 'S' }),
        KeySchema: keySchema('pk'),
        ProvisionedThroughput: units,
        GlobalSecondaryIndexes: [globalIndex(INDEX, 'g', { Projection: { ProjectionType: 'KEYS_ONLY' }, ProvisionedThroughput: units })],
      }),
    );
  });
  after(() => twin.close());

  const update = (input: Omit<UpdateTableCommandInput, 'TableName'>) => twin.client.send(new UpdateTableCommand({ TableName: name, ...input }));
  const tableUnits = (read: number, write: number) => update({ ProvisionedThroughput: { ReadCapacityUnits: read, WriteCapacityUnits: write } });
  const indexUnits = (read: number, write: number) =>
    update({ GlobalSecondaryIndexUpdates: [{ Update: { IndexName: INDEX, ProvisionedThroughput: { ReadCapacityUnits: read, WriteCapacityUnits: write } } }] });
  const described = async () => {
    const table = (await twin.client.send(new DescribeTableCommand({ TableName: name }))).Table!;
    return { table: table.ProvisionedThroughput!, index: table.GlobalSecondaryIndexes![0]!.ProvisionedThroughput! };
  };

  test('a GSI has its own 4 decreases; a request over either quota is refused whole', async () => {
    for (const units of [90, 80, 70, 60]) await indexUnits(units, units);
    let now = await described();
    assert.equal(now.index.NumberOfDecreasesToday, 4);
    assert.equal(now.table.NumberOfDecreasesToday, 0);
    const lastIndexDecreaseMs = clock.nowMs();
    await expectDynamoError(
      update({
        ProvisionedThroughput: { ReadCapacityUnits: 50, WriteCapacityUnits: 50 },
        GlobalSecondaryIndexUpdates: [{ Update: { IndexName: INDEX, ProvisionedThroughput: { ReadCapacityUnits: 50, WriteCapacityUnits: 50 } } }],
      }),
      LIMIT_EXCEEDED,
      quotaMessage(4, lastIndexDecreaseMs, lastIndexDecreaseMs + HOUR_MS),
    );
    now = await described();
    assert.equal(now.table.ReadCapacityUnits, 100, 'the table part of the refused request was not applied');
    assert.equal(now.table.NumberOfDecreasesToday, 0);
    assert.equal(now.index.NumberOfDecreasesToday, 4);
  });

  test('after 4 decreases the next waits 3,600 s from the last; increases are never limited', async () => {
    for (const units of [90, 80, 70, 60]) await tableUnits(units, units);
    const lastMs = clock.nowMs();
    const refused = quotaMessage(4, lastMs, lastMs + HOUR_MS);
    await expectDynamoError(tableUnits(50, 50), LIMIT_EXCEEDED, refused);
    // Lowering one of the two while raising the other is still a decrease.
    await expectDynamoError(tableUnits(50, 70), LIMIT_EXCEEDED, refused);
    await tableUnits(65, 65);
    clock.advance(HOUR_MS - 1000);
    await expectDynamoError(tableUnits(50, 50), LIMIT_EXCEEDED, refused);
    let now = await described();
    assert.equal(now.table.NumberOfDecreasesToday, 4, 'refused requests move no counter');
    assert.equal(now.table.LastDecreaseDateTime?.getTime(), lastMs);
    clock.advance(1000);
    await tableUnits(50, 50);
    now = await described();
    assert.equal(now.table.NumberOfDecreasesToday, 5);
    assert.equal(now.table.ReadCapacityUnits, 50);
    const fifthMs = clock.nowMs();
    await expectDynamoError(tableUnits(40, 40), LIMIT_EXCEEDED, quotaMessage(5, fifthMs, fifthMs + HOUR_MS));
  });

  test('midnight UTC restores all 4, and a late decrease is told to wait for midnight', async () => {
    clock.advance(dayStartMs + 23 * HOUR_MS + 30 * MINUTE_MS - clock.nowMs());
    await tableUnits(40, 40);
    const lateMs = clock.nowMs();
    assert.equal((await described()).table.NumberOfDecreasesToday, 6);
    await expectDynamoError(tableUnits(30, 30), LIMIT_EXCEEDED, quotaMessage(6, lateMs, dayStartMs + DAY_MS));
    clock.advance(dayStartMs + DAY_MS - clock.nowMs());
    for (const units of [30, 20, 10, 5]) await tableUnits(units, units);
    const now = await described();
    assert.equal(now.table.NumberOfDecreasesToday, 4);
    assert.equal(now.index.NumberOfDecreasesToday, 0);
    await expectDynamoError(tableUnits(4, 4), LIMIT_EXCEEDED, quotaMessage(4, clock.nowMs(), clock.nowMs() + HOUR_MS));
  });
});
