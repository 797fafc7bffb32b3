/**
 * Maximum on-demand throughput (reference §4.6) through the AWS SDK on a manual clock: requests
 * past a table's or GSI's MaxReadRequestUnits / MaxWriteRequestUnits are throttled with
 * ThrottlingException and the reason DynamoDB gives (`<Table|Index><Read|Write>MaxOnDemandThroughputExceeded`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CreateTableCommand, GetItemCommand, PutItemCommand, QueryCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { expectDynamoError } from './support/client.js';
import { globalIndex, keySchema, onDemandTable } from './support/tables.js';
import { indexArn, rejection, SECOND_MS, startManualTwin, tableArn, type ManualTwin } from './support/throttling.js';

const MAX_MESSAGE = 'Throughput exceeds the maximum OnDemandThroughput configured on table or index';

describe('maximum on-demand throughput', () => {
  let twin: ManualTwin;
  before(async () => {
    twin = await startManualTwin();
    await twin.client.send(
      new CreateTableCommand({
        ...onDemandTable('capped', { id: 'S', g: 'S' }),
        KeySchema: keySchema('id'),
        OnDemandThroughput: { MaxReadRequestUnits: 5, MaxWriteRequestUnits: 10 },
        GlobalSecondaryIndexes: [globalIndex('by-g', 'g', { OnDemandThroughput: { MaxReadRequestUnits: 3 } })],
      }),
    );
  });
  after(async () => {
    await twin.close();
  });

  test('writes past MaxWriteRequestUnits: TableWriteMaxOnDemandThroughputExceeded; a second later they pass again', async () => {
    for (let n = 0; n < 10; n++) await twin.client.send(new PutItemCommand({ TableName: 'capped', Item: { id: { S: `w${n}` }, g: { S: 'one' } } }));
    const error = await rejection(twin.client.send(new PutItemCommand({ TableName: 'capped', Item: { id: { S: 'w10' }, g: { S: 'one' } } })));
    assert.equal(error.name, 'ThrottlingException');
    assert.equal(error.message, MAX_MESSAGE);
    assert.deepEqual(error['throttlingReasons'], [{ reason: 'TableWriteMaxOnDemandThroughputExceeded', resource: tableArn('capped') }]);
    twin.clock.advance(SECOND_MS);
    await twin.client.send(new PutItemCommand({ TableName: 'capped', Item: { id: { S: 'w10' }, g: { S: 'one' } } }));
  });

  test('reads past MaxReadRequestUnits: TableReadMaxOnDemandThroughputExceeded', async () => {
    twin.clock.advance(SECOND_MS);
    for (let n = 0; n < 5; n++) await twin.client.send(new GetItemCommand({ TableName: 'capped', Key: { id: { S: `w${n}` } }, ConsistentRead: true }));
    const error = await rejection(twin.client.send(new GetItemCommand({ TableName: 'capped', Key: { id: { S: 'w5' } }, ConsistentRead: true })));
    assert.equal(error.message, MAX_MESSAGE);
    assert.deepEqual(error['throttlingReasons'], [{ reason: 'TableReadMaxOnDemandThroughputExceeded', resource: tableArn('capped') }]);
  });

  test("a GSI's own maximum: IndexReadMaxOnDemandThroughputExceeded on Query of the index", async () => {
    twin.clock.advance(SECOND_MS);
    const query = () => twin.client.send(new QueryCommand({ TableName: 'capped', IndexName: 'by-g', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'none' } } }));
    // An empty page costs 0.5 read units (eventually consistent): 6 fit in 3 units.
    for (let n = 0; n < 6; n++) await query();
    const error = await rejection(query());
    assert.equal(error.message, MAX_MESSAGE);
    assert.deepEqual(error['throttlingReasons'], [{ reason: 'IndexReadMaxOnDemandThroughputExceeded', resource: indexArn('capped', 'by-g') }]);
  });

  test('UpdateTable raises the maximum; -1 removes it', async () => {
    await twin.client.send(new UpdateTableCommand({ TableName: 'capped', OnDemandThroughput: { MaxWriteRequestUnits: -1 } }));
    twin.clock.advance(SECOND_MS);
    for (let n = 0; n < 50; n++) await twin.client.send(new PutItemCommand({ TableName: 'capped', Item: { id: { S: `u${n}` }, g: { S: 'one' } } }));
  });

  test("a maximum above the account's per-table maximum (40,000) is a LimitExceededException, for the table and a GSI", async () => {
    await expectDynamoError(
      twin.client.send(new UpdateTableCommand({ TableName: 'capped', OnDemandThroughput: { MaxReadRequestUnits: 40_001 } })),
      'LimitExceededException',
      'Subscriber limit exceeded: Requested MaxReadRequestUnits for OnDemandThroughput for table exceeds TableMaxReadCapacityUnits of the account in region us-east-1',
    );
    await expectDynamoError(
      twin.client.send(new UpdateTableCommand({ TableName: 'capped', GlobalSecondaryIndexUpdates: [{ Update: { IndexName: 'by-g', OnDemandThroughput: { MaxWriteRequestUnits: 50_000 } } }] })),
      'LimitExceededException',
      'Subscriber limit exceeded: Requested MaxWriteRequestUnits for OnDemandThroughput for index : by-g exceeds TableMaxWriteCapacityUnits of the account in region us-east-1',
    );
    await twin.client.send(new UpdateTableCommand({ TableName: 'capped', OnDemandThroughput: { MaxReadRequestUnits: 40_000 } }));
  });
});
