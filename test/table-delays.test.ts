/**
 * UpdateTable and DeleteTable delays (`--table-update-delay`, `--table-delete-delay`) on the manual
 * clock, through the SDK: UPDATING and a new GSI CREATING for the delay, DELETING and then gone,
 * DynamoDB's refusals meanwhile, and the SDK's waiters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
  UpdateTableCommand,
  waitUntilTableExists,
  waitUntilTableNotExists,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import { startDynatwin } from '../src/index.js';
import { expectDynamoError, sdkClient, startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';
import { scratchDirectories } from './support/scratch.js';

const UPDATE_DELAY_MS = 10_000;
const DELETE_DELAY_MS = 7_000;

const tableInput = (name: string): CreateTableCommandInput => ({
  TableName: name,
  AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
  KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
  ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
});

describe('table update and delete delays on the manual clock', () => {
  let twin: TwinClients;
  let clock: ManualClock;
  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual', tableUpdateDelayMs: UPDATE_DELAY_MS, tableDeleteDelayMs: DELETE_DELAY_MS });
    clock = twin.twin.clock as ManualClock;
  });
  after(() => twin.close());

  const status = async (name: string): Promise<string | undefined> =>
    (await twin.client.send(new DescribeTableCommand({ TableName: name }))).Table?.TableStatus;

  test('UpdateTable leaves the table UPDATING for the delay; a second UpdateTable or a DeleteTable meanwhile is in use', async () => {
    const name = uniqueTableName('updating');
    await twin.client.send(new CreateTableCommand(tableInput(name)));
    const answer = await twin.client.send(new UpdateTableCommand({ TableName: name, ProvisionedThroughput: { ReadCapacityUnits: 10, WriteCapacityUnits: 10 } }));
    assert.equal(answer.TableDescription?.TableStatus, 'UPDATING');
    assert.equal(await status(name), 'UPDATING');
    // Items are served while the table is UPDATING, as DynamoDB serves them.
    await twin.client.send(new PutItemCommand({ TableName: name, Item: { id: { S: 'a' } } }));
    const inUse = `Attempt to change a resource which is still in use: Table is being updated: ${name}`;
    await expectDynamoError(
      twin.client.send(new UpdateTableCommand({ TableName: name, ProvisionedThroughput: { ReadCapacityUnits: 20, WriteCapacityUnits: 20 } })),
      'ResourceInUseException',
      inUse,
    );
    await expectDynamoError(twin.client.send(new DeleteTableCommand({ TableName: name })), 'ResourceInUseException', inUse);
    clock.advance(UPDATE_DELAY_MS - 1);
    assert.equal(await status(name), 'UPDATING');
    clock.advance(1);
    assert.equal(await status(name), 'ACTIVE');
    const described = await twin.client.send(new DescribeTableCommand({ TableName: name }));
    assert.equal(described.Table?.ProvisionedThroughput?.ReadCapacityUnits, 10);
    // ACTIVE again: the next change is accepted.
    await twin.client.send(new UpdateTableCommand({ TableName: name, ProvisionedThroughput: { ReadCapacityUnits: 20, WriteCapacityUnits: 20 } }));
    assert.equal(await status(name), 'UPDATING');
    clock.advance(UPDATE_DELAY_MS);
    await waitUntilTableExists({ client: twin.client, maxWaitTime: 30, minDelay: 1, maxDelay: 1 }, { TableName: name });
  });

  test('a GSI added by UpdateTable is CREATING and backfilling, unreadable, until the delay has passed', async () => {
    const name = uniqueTableName('gsi-delay');
    await twin.client.send(new CreateTableCommand(tableInput(name)));
    for (const id of ['a', 'b', 'c']) await twin.client.send(new PutItemCommand({ TableName: name, Item: { id: { S: id }, grp: { S: 'g' } } }));
    const answer = await twin.client.send(
      new UpdateTableCommand({
        TableName: name,
        AttributeDefinitions: [{ AttributeName: 'grp', AttributeType: 'S' }],
        GlobalSecondaryIndexUpdates: [
          {
            Create: {
              IndexName: 'by-grp',
              KeySchema: [{ AttributeName: 'grp', KeyType: 'HASH' }],
              Projection: { ProjectionType: 'ALL' },
              ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
            },
          },
        ],
      }),
    );
    assert.equal(answer.TableDescription?.TableStatus, 'UPDATING');
    const query = () =>
      twin.client.send(
        new QueryCommand({ TableName: name, IndexName: 'by-grp', KeyConditionExpression: 'grp = :g', ExpressionAttributeValues: { ':g': { S: 'g' } } }),
      );
    // However soon the three items are backfilled, the index stays CREATING until the delay is over.
    clock.advance(UPDATE_DELAY_MS - 1);
    const during = await twin.client.send(new DescribeTableCommand({ TableName: name }));
    assert.equal(during.Table?.TableStatus, 'UPDATING');
    assert.equal(during.Table?.GlobalSecondaryIndexes?.[0]?.IndexStatus, 'CREATING');
    assert.equal(during.Table?.GlobalSecondaryIndexes?.[0]?.Backfilling, true);
    await expectDynamoError(query(), 'ValidationException', 'Cannot read from backfilling global secondary index: by-grp');
    clock.advance(1);
    // The backfill itself runs in the background on real time: wait for it, not for the clock.
    const deadline = Date.now() + 60_000;
    let index = (await twin.client.send(new DescribeTableCommand({ TableName: name }))).Table?.GlobalSecondaryIndexes?.[0];
    while (index?.IndexStatus !== 'ACTIVE' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      index = (await twin.client.send(new DescribeTableCommand({ TableName: name }))).Table?.GlobalSecondaryIndexes?.[0];
    }
    assert.equal(index?.IndexStatus, 'ACTIVE');
    assert.equal(index?.Backfilling, undefined);
    assert.equal(await status(name), 'ACTIVE');
    assert.equal((await query()).Count, 3);
  });

  test('DeleteTable answers DELETING; the table refuses items, stays listed, then is gone after the delay', async () => {
    const name = uniqueTableName('deleting');
    await twin.client.send(new CreateTableCommand(tableInput(name)));
    await twin.client.send(new PutItemCommand({ TableName: name, Item: { id: { S: 'a' } } }));
    const answer = await twin.client.send(new DeleteTableCommand({ TableName: name }));
    assert.equal(answer.TableDescription?.TableStatus, 'DELETING');
    assert.equal(await status(name), 'DELETING');
    assert.ok((await twin.client.send(new ListTablesCommand({}))).TableNames?.includes(name));
    // Item operations find no table; control-plane changes find it in use.
    await expectDynamoError(twin.client.send(new GetItemCommand({ TableName: name, Key: { id: { S: 'a' } } })), 'ResourceNotFoundException', 'Requested resource not found');
    await expectDynamoError(twin.client.send(new PutItemCommand({ TableName: name, Item: { id: { S: 'b' } } })), 'ResourceNotFoundException', 'Requested resource not found');
    const inUse = `Attempt to change a resource which is still in use: Table is being deleted: ${name}`;
    await expectDynamoError(twin.client.send(new DeleteTableCommand({ TableName: name })), 'ResourceInUseException', inUse);
    await expectDynamoError(
      twin.client.send(new UpdateTableCommand({ TableName: name, ProvisionedThroughput: { ReadCapacityUnits: 9, WriteCapacityUnits: 9 } })),
      'ResourceInUseException',
      inUse,
    );
    await expectDynamoError(twin.client.send(new CreateTableCommand(tableInput(name))), 'ResourceInUseException', `Table already exists: ${name}`);
    clock.advance(DELETE_DELAY_MS - 1);
    assert.equal(await status(name), 'DELETING');
    clock.advance(1);
    await waitUntilTableNotExists({ client: twin.client, maxWaitTime: 30, minDelay: 1, maxDelay: 1 }, { TableName: name });
    await expectDynamoError(
      twin.client.send(new DescribeTableCommand({ TableName: name })),
      'ResourceNotFoundException',
      `Requested resource not found: Table: ${name} not found`,
    );
    assert.ok(!(await twin.client.send(new ListTablesCommand({}))).TableNames?.includes(name));
    // The name is free again, and the new table starts empty.
    await twin.client.send(new CreateTableCommand(tableInput(name)));
    assert.equal((await twin.client.send(new GetItemCommand({ TableName: name, Key: { id: { S: 'a' } } }))).Item, undefined);
  });

  test('the waiter for a deleted table returns once the clock passes the delay while it polls', async () => {
    const name = uniqueTableName('waiter');
    await twin.client.send(new CreateTableCommand(tableInput(name)));
    await twin.client.send(new DeleteTableCommand({ TableName: name }));
    const waiting = waitUntilTableNotExists({ client: twin.client, maxWaitTime: 60, minDelay: 1, maxDelay: 1 }, { TableName: name });
    // The waiter's first look finds the table DELETING; the clock moves while it waits to look again.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await status(name), 'DELETING');
    clock.advance(DELETE_DELAY_MS);
    const result = await waiting;
    assert.equal(result.state, 'SUCCESS');
  });
});

test('a pending delayed deletion survives a restart on LMDB and completes on the clock', async () => {
  const directories = scratchDirectories('dynatwin-delete-delay-');
  const name = uniqueTableName('restart');
  const options = { dataDir: directories.fresh(), clock: 'manual' as const, tableDeleteDelayMs: DELETE_DELAY_MS };
  try {
    const first = await startDynatwin(options);
    const client = sdkClient(first.endpoint);
    await client.send(new CreateTableCommand(tableInput(name)));
    await client.send(new PutItemCommand({ TableName: name, Item: { id: { S: 'a' } } }));
    await client.send(new DeleteTableCommand({ TableName: name }));
    client.destroy();
    await first.close();

    const second = await startDynatwin(options);
    const again = sdkClient(second.endpoint);
    try {
      // A new manual clock starts at the real time, before the persisted due time.
      assert.equal((await again.send(new DescribeTableCommand({ TableName: name }))).Table?.TableStatus, 'DELETING');
      second.clock.advance(DELETE_DELAY_MS);
      await waitUntilTableNotExists({ client: again, maxWaitTime: 30, minDelay: 1, maxDelay: 1 }, { TableName: name });
      await again.send(new CreateTableCommand(tableInput(name)));
      assert.equal((await again.send(new GetItemCommand({ TableName: name, Key: { id: { S: 'a' } } }))).Item, undefined);
    } finally {
      again.destroy();
      await second.close();
    }
  } finally {
    directories.removeAll();
  }
});
