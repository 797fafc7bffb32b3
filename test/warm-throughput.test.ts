/**
 * Warm throughput (reference §4.4; CAPACITY-MODEL.md §12) through the AWS SDK on a manual clock:
 * DescribeTable reports it for tables and GSIs, CreateTable and UpdateTable pre-warm (more
 * partitions, a higher on-demand peak), and a pre-warmed table takes its warm throughput at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CreateTableCommand, DescribeTableCommand, PutItemCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { expectDynamoError } from './support/twin.js';
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

  test('warm throughput never falls; values below 1 and WarmThroughput with other changes are refused', async () => {
    await twin.client.send(new CreateTableCommand(onDemandTable('warm-rules')));
    await twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules', WarmThroughput: { ReadUnitsPerSecond: 20_000 } }));
    await twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules', WarmThroughput: { ReadUnitsPerSecond: 15_000, WriteUnitsPerSecond: 1000 } }));
    assert.deepEqual((await describeWarm('warm-rules')).WarmThroughput, { ReadUnitsPerSecond: 20_000, WriteUnitsPerSecond: 4000, Status: 'ACTIVE' });
    await expectDynamoError(
      twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules', WarmThroughput: { WriteUnitsPerSecond: 0 } })),
      'ValidationException',
      INVALID + 'Requested WriteUnitsPerSecond for WarmThroughput for table is outside of valid range',
    );
    await expectDynamoError(
      twin.client.send(new UpdateTableCommand({ TableName: 'warm-rules', WarmThroughput: { WriteUnitsPerSecond: 5000 }, BillingMode: 'PAY_PER_REQUEST' })),
      'ValidationException',
      INVALID + 'WarmThroughput must be the only operation in the request',
    );
  });
});
