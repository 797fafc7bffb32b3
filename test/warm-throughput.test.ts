/**
 * Warm throughput (reference §4.4; CAPACITY-MODEL.md §12) through the AWS SDK on a manual clock:
 * DescribeTable reports it for tables and GSIs, CreateTable and UpdateTable pre-warm (more
 * partitions, a higher on-demand peak), and a pre-warmed table takes its warm throughput at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CreateTableCommand, DescribeTableCommand, PutItemCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { expectDynamoError } from './support/client.js';
import { globalIndex, onDemandTable, attributes, keySchema } from './support/tables.js';
import { KB, keysByPartition, partitionsOf, SECOND_MS, startManualTwin, type ManualTwin } from './support/throttling.js';

const INVALID = 'One or more parameter values were invalid: ';

describe('warm throughput', () => {
  let twin: ManualTwin;
  before(async () => {
    twin = await startManualTwin();
  });
  after(async () => {
    await twin.close();
  });

  const describeWarm = async (table: string) => (await twin.client.send(new DescribeTableCommand({ TableName: table }))).Table!;

  test('a new on-demand table and its GSI report 12,000 read / 4,000 write units per second; a provisioned one its throughput', async () => {
    await twin.client.send(new CreateTableCommand({ ...onDemandTable('warm-new', { id: 'S', g: 'S' }), KeySchema: keySchema('id'), GlobalSecondaryIndexes: [globalIndex('by-g', 'g')] }));
    const table = await describeWarm('warm-new');
    assert.deepEqual(table.WarmThroughput, { ReadUnitsPerSecond: 12_000, WriteUnitsPerSecond: 4000, Status: 'ACTIVE' });
    assert.deepEqual(table.GlobalSecondaryIndexes?.[0]?.WarmThroughput, { ReadUnitsPerSecond: 12_000, WriteUnitsPerSecond: 4000, Status: 'ACTIVE' });
    await twin.client.send(
      new CreateTableCommand({ TableName: 'warm-prov', AttributeDefinitions: attributes({ id: 'S' }), KeySchema: keySchema('id'), ProvisionedThroughput: { ReadCapacityUnits: 50, WriteCapacityUnits: 20 } }),
    );
    assert.deepEqual((await describeWarm('warm-prov')).WarmThroughput, { ReadUnitsPerSecond: 50, WriteUnitsPerSecond: 20, Status: 'ACTIVE' });
  });

  test('pre-warming an on-demand table to 40,000 WCU: 40 partitions, reported back, and 40,000 WCU/s spread over keys at once', async () => {
    await twin.client.send(new CreateTableCommand(onDemandTable('warm-40k')));
    assert.equal((await partitionsOf(twin.twin.endpoint, 'warm-40k')).partitions.length, 4);
    const updated = await twin.client.send(new UpdateTableCommand({ TableName: 'warm-40k', WarmThroughput: { WriteUnitsPerSecond: 40_000 } }));
    assert.deepEqual(updated.TableDescription?.WarmThroughput, { ReadUnitsPerSecond: 12_000, WriteUnitsPerSecond: 40_000, Status: 'UPDATING' });
    const document = await partitionsOf(twin.twin.endpoint, 'warm-40k');
    assert.equal(document.partitions.length, 40);
    // Equal shares of the hash space: 2^32 / 40, give or take a hash.
    for (const partition of document.partitions) {
      const width = parseInt(partition.hashRange[1], 16) - parseInt(partition.hashRange[0], 16) + 1;
      assert.ok(Math.abs(width - 2 ** 32 / 40) <= 1, `partition ${partition.id}: ${width}`);
      assert.equal(partition.writeUnitsPerSecond, 1000);
    }
    assert.deepEqual((await describeWarm('warm-40k')).WarmThroughput, { ReadUnitsPerSecond: 12_000, WriteUnitsPerSecond: 40_000, Status: 'ACTIVE' });

    // 40,000 WCU/s: every 100 ms, a 100-WCU put on each partition's key, for 3 s — nothing refused.
    const keys = keysByPartition(document.partitions, 1, 'warm-').map((partitionKeys) => partitionKeys[0]!);
    const item = (id: string) => ({ id: { S: id }, pad: { S: 'x'.repeat(100 * KB - 'id'.length - id.length - 'pad'.length) } });
    let admitted = 0;
    for (let tick = 0; tick < 30; tick++) {
      const answers = await Promise.all(keys.map((id) => twin.client.send(new PutItemCommand({ TableName: 'warm-40k', Item: item(id), ReturnConsumedCapacity: 'TOTAL' }))));
      for (const answer of answers) admitted += answer.ConsumedCapacity?.CapacityUnits ?? 0;
      twin.clock.advance(SECOND_MS / 10);
    }
    assert.equal(admitted, 3 * 40_000);
    const loaded = await partitionsOf(twin.twin.endpoint, 'warm-40k');
    for (const partition of loaded.partitions) assert.equal(partition.writeThrottleEvents, 0);

    // The same load on a table that was not pre-warmed: one instant takes 4,000 WCU (twice the
    // initial peak), the next 4,000 in that instant are refused.
    await twin.client.send(new CreateTableCommand(onDemandTable('cold-40k')));
    let coldAdmitted = 0;
    let refused = 0;
    for (const round of [0, 1]) {
      for (const id of keys) {
        try {
          await twin.client.send(new PutItemCommand({ TableName: 'cold-40k', Item: item(`${id}`) }));
          coldAdmitted += 100;
        } catch (error) {
          assert.equal((error as Error).name, 'ThrottlingException', `round ${round}`);
          refused++;
        }
      }
    }
    assert.equal(coldAdmitted, 4000);
    assert.equal(refused, 40);
  });

  test('CreateTable with WarmThroughput: the partitions for it from the start; GSIs too', async () => {
    await twin.client.send(
      new CreateTableCommand({
        ...onDemandTable('warm-create', { id: 'S', g: 'S' }),
        KeySchema: keySchema('id'),
        WarmThroughput: { ReadUnitsPerSecond: 30_000, WriteUnitsPerSecond: 10_000 },
        GlobalSecondaryIndexes: [globalIndex('by-g', 'g', { WarmThroughput: { ReadUnitsPerSecond: 15_000, WriteUnitsPerSecond: 8000 } })],
      }),
    );
    assert.equal((await partitionsOf(twin.twin.endpoint, 'warm-create')).partitions.length, 10);
    const table = await describeWarm('warm-create');
    assert.deepEqual(table.WarmThroughput, { ReadUnitsPerSecond: 30_000, WriteUnitsPerSecond: 10_000, Status: 'ACTIVE' });
    assert.deepEqual(table.GlobalSecondaryIndexes?.[0]?.WarmThroughput, { ReadUnitsPerSecond: 15_000, WriteUnitsPerSecond: 8000, Status: 'ACTIVE' });
  });

  test('UpdateTable: a lower value is refused with DynamoDB\'s text, an equal one accepted; the table stays ACTIVE; over 40,000 is LimitExceeded', async () => {
    await twin.client.send(new CreateTableCommand(onDemandTable('warm-rules')));
    const raised = await twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules', WarmThroughput: { ReadUnitsPerSecond: 20_000 } }));
    // Pre-warming leaves the table ACTIVE: only its WarmThroughput says UPDATING.
    assert.equal(raised.TableDescription?.TableStatus, 'ACTIVE');
    assert.equal(raised.TableDescription?.WarmThroughput?.Status, 'UPDATING');
    const lower = (member: string) =>
      INVALID + `Requested ${member} for WarmThroughput for table is lower than current WarmThroughput, decreasing WarmThroughput is not supported`;
    await expectDynamoError(
      twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules', WarmThroughput: { ReadUnitsPerSecond: 15_000, WriteUnitsPerSecond: 5000 } })),
      'ValidationException',
      lower('ReadUnitsPerSecond'),
    );
    // Below the 4,000 a new on-demand table reports: a decrease too (0 included).
    for (const units of [1000, 0]) {
      await expectDynamoError(
        twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules', WarmThroughput: { WriteUnitsPerSecond: units } })),
        'ValidationException',
        lower('WriteUnitsPerSecond'),
      );
    }
    await twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules', WarmThroughput: { ReadUnitsPerSecond: 20_000, WriteUnitsPerSecond: 4000 } }));
    assert.deepEqual((await describeWarm('warm-rules')).WarmThroughput, { ReadUnitsPerSecond: 20_000, WriteUnitsPerSecond: 4000, Status: 'ACTIVE' });
    await expectDynamoError(
      twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules', WarmThroughput: { WriteUnitsPerSecond: 40_001 } })),
      'LimitExceededException',
      'Subscriber limit exceeded: Requested WriteUnitsPerSecond for WarmThroughput for table exceeds TableMaxWriteCapacityUnits of the account in region us-east-1',
    );
    await expectDynamoError(
      twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules', WarmThroughput: { WriteUnitsPerSecond: 5000 }, BillingMode: 'PAY_PER_REQUEST' })),
      'ValidationException',
      INVALID + 'WarmThroughput must be the only operation in the request',
    );
    // An empty WarmThroughput is no change: alone, nothing to update; beside another change, ignored.
    await expectDynamoError(twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules', WarmThroughput: {} })), 'ValidationException', /^At least one of /);
    await twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules', WarmThroughput: {}, DeletionProtectionEnabled: false }));

    // A provisioned table is warm to its provisioned units: below them is a decrease too.
    await twin.client.send(
      new CreateTableCommand({ TableName: 'warm-rules-prov', AttributeDefinitions: attributes({ id: 'S' }), KeySchema: keySchema('id'), ProvisionedThroughput: { ReadCapacityUnits: 50, WriteCapacityUnits: 20 } }),
    );
    await expectDynamoError(
      twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules-prov', WarmThroughput: { ReadUnitsPerSecond: 10 } })),
      'ValidationException',
      lower('ReadUnitsPerSecond'),
    );
    await twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules-prov', WarmThroughput: { ReadUnitsPerSecond: 60 } }));
    assert.deepEqual((await describeWarm('warm-rules-prov')).WarmThroughput, { ReadUnitsPerSecond: 60, WriteUnitsPerSecond: 20, Status: 'ACTIVE' });
  });

  test('CreateTable: below the on-demand initial throughput or the provisioned units is refused; an empty WarmThroughput is the default', async () => {
    await expectDynamoError(
      twin.client.send(new CreateTableCommand({ ...onDemandTable('warm-low'), WarmThroughput: { ReadUnitsPerSecond: 1, WriteUnitsPerSecond: 1 } })),
      'ValidationException',
      INVALID +
        'Requested ReadUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand. ' +
        'See: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html#on-demand-capacity-mode-initial',
    );
    await expectDynamoError(
      twin.client.send(
        new CreateTableCommand({
          ...onDemandTable('warm-low', { id: 'S', g: 'S' }),
          KeySchema: keySchema('id'),
          GlobalSecondaryIndexes: [globalIndex('by-g', 'g', { WarmThroughput: { WriteUnitsPerSecond: 100 } })],
        }),
      ),
      'ValidationException',
      INVALID +
        'Requested WriteUnitsPerSecond for WarmThroughput for index by-g is lower than initial throughput for OnDemand. ' +
        'See: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html#on-demand-capacity-mode-initial',
    );
    await expectDynamoError(
      twin.client.send(
        new CreateTableCommand({
          TableName: 'warm-low',
          AttributeDefinitions: attributes({ id: 'S' }),
          KeySchema: keySchema('id'),
          ProvisionedThroughput: { ReadCapacityUnits: 10, WriteCapacityUnits: 10 },
          WarmThroughput: { ReadUnitsPerSecond: 5, WriteUnitsPerSecond: 5 },
        }),
      ),
      'ValidationException',
      INVALID + 'Requested ReadUnitsPerSecond for WarmThroughput for table is lower than ReadCapacityUnits of ProvisionedThroughput',
    );
    await twin.client.send(new CreateTableCommand({ ...onDemandTable('warm-empty'), WarmThroughput: {} }));
    assert.deepEqual((await describeWarm('warm-empty')).WarmThroughput, { ReadUnitsPerSecond: 12_000, WriteUnitsPerSecond: 4000, Status: 'ACTIVE' });
  });

  test('UpdateTable GlobalSecondaryIndexUpdates Update.WarmThroughput pre-warms a GSI: its partitions, DescribeTable, the texts', async () => {
    await twin.client.send(
      new CreateTableCommand({ ...onDemandTable('warm-gsi', { id: 'S', g: 'S' }), KeySchema: keySchema('id'), GlobalSecondaryIndexes: [globalIndex('by-g', 'g')] }),
    );
    assert.equal((await partitionsOf(twin.twin.endpoint, 'warm-gsi')).indexes['by-g']?.partitions.length, 4);
    const updated = await twin.client.send(
      new UpdateTableCommand({ TableName: 'warm-gsi', GlobalSecondaryIndexUpdates: [{ Update: { IndexName: 'by-g', WarmThroughput: { WriteUnitsPerSecond: 20_000 } } }] }),
    );
    assert.equal(updated.TableDescription?.TableStatus, 'ACTIVE');
    assert.deepEqual(updated.TableDescription?.GlobalSecondaryIndexes?.[0]?.WarmThroughput, { ReadUnitsPerSecond: 12_000, WriteUnitsPerSecond: 20_000, Status: 'UPDATING' });
    assert.equal(updated.TableDescription?.GlobalSecondaryIndexes?.[0]?.IndexStatus, 'ACTIVE');
    const document = await partitionsOf(twin.twin.endpoint, 'warm-gsi');
    assert.equal(document.indexes['by-g']?.partitions.length, 20, 'enough GSI partitions of 1,000 WCU for 20,000');
    assert.equal(document.partitions.length, 4, "the table's own partitions are not pre-warmed");
    const described = await describeWarm('warm-gsi');
    assert.deepEqual(described.GlobalSecondaryIndexes?.[0]?.WarmThroughput, { ReadUnitsPerSecond: 12_000, WriteUnitsPerSecond: 20_000, Status: 'ACTIVE' });
    assert.deepEqual(described.WarmThroughput, { ReadUnitsPerSecond: 12_000, WriteUnitsPerSecond: 4000, Status: 'ACTIVE' });

    // The table and its GSI pre-warmed in one request, as AWS's guide does it.
    const both = await twin.client.send(
      new UpdateTableCommand({
        TableName: 'warm-gsi',
        WarmThroughput: { ReadUnitsPerSecond: 30_000 },
        GlobalSecondaryIndexUpdates: [{ Update: { IndexName: 'by-g', WarmThroughput: { ReadUnitsPerSecond: 24_000 } } }],
      }),
    );
    assert.deepEqual(both.TableDescription?.WarmThroughput, { ReadUnitsPerSecond: 30_000, WriteUnitsPerSecond: 4000, Status: 'UPDATING' });
    assert.deepEqual(both.TableDescription?.GlobalSecondaryIndexes?.[0]?.WarmThroughput, { ReadUnitsPerSecond: 24_000, WriteUnitsPerSecond: 20_000, Status: 'UPDATING' });
    const after = await partitionsOf(twin.twin.endpoint, 'warm-gsi');
    assert.equal(after.partitions.length, 10, '30,000 RCU is ten partitions of 3,000');
    assert.equal(after.indexes['by-g']?.partitions.length, 20);

    const update = (warm: { ReadUnitsPerSecond?: number; WriteUnitsPerSecond?: number } | undefined) =>
      twin.client.send(new UpdateTableCommand({ TableName: 'warm-gsi', GlobalSecondaryIndexUpdates: [{ Update: { IndexName: 'by-g', ...(warm === undefined ? {} : { WarmThroughput: warm }) } }] }));
    await expectDynamoError(
      update({ WriteUnitsPerSecond: 10_000 }),
      'ValidationException',
      INVALID + 'Requested WriteUnitsPerSecond for WarmThroughput for index by-g is lower than current WarmThroughput, decreasing WarmThroughput is not supported',
    );
    await expectDynamoError(update({}), 'ValidationException', INVALID + 'WarmThroughput must have at least one of ReadUnitsPerSecond or WriteUnitsPerSecond specified for index: by-g');
    await expectDynamoError(
      update(undefined),
      'ValidationException',
      INVALID + 'The only Updates for index: by-g when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput',
    );
    await expectDynamoError(
      twin.client.send(
        new UpdateTableCommand({
          TableName: 'warm-gsi',
          WarmThroughput: { ReadUnitsPerSecond: 31_000 },
          AttributeDefinitions: attributes({ h: 'S' }),
          GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'by-h', KeySchema: keySchema('h'), Projection: { ProjectionType: 'ALL' } } }],
        }),
      ),
      'ValidationException',
      INVALID + 'Create global secondary index cannot be specified when updating WarmThroughput',
    );
  });
});
