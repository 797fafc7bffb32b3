/**
 * Indexes across restarts on LMDB: statistics and LSI item collection sizes are the same after a
 * restart, GSI changes still waiting for their propagation lag are not lost, and a backfill
 * interrupted by a shutdown resumes where it stopped. Plus the index flags of the command line.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { DescribeTableCommand, QueryCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { parseCommandLine, UsageError } from '../src/cli.js';
import { scratchDirectories } from './support/scratch.js';
import { attributes, createTables, globalIndex, keySchema, localIndex } from './support/tables.js';
import { expectDynamoError, withTwin, type TwinClients } from './support/twin.js';

const TABLE = 'indexed';

describe('indexes across restarts', () => {
  const scratch = scratchDirectories('dynatwin-indexes-');
  const freshDirectory = (): string => scratch.fresh();
  after(() => scratch.removeAll());

  const createTable = (twin: TwinClients) =>
    createTables(twin.client, {
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: attributes({ pk: 'S', sk: 'S', g: 'S' }),
      KeySchema: keySchema('pk', 'sk'),
      GlobalSecondaryIndexes: [globalIndex('by-g', 'g', { Projection: { ProjectionType: 'KEYS_ONLY' } })],
      LocalSecondaryIndexes: [localIndex('by-g-local', 'pk', 'g')],
    });
  const describeIndexes = async (twin: TwinClients) => {
    const table = (await twin.client.send(new DescribeTableCommand({ TableName: TABLE }))).Table!;
    return { gsi: table.GlobalSecondaryIndexes![0]!, lsi: table.LocalSecondaryIndexes?.[0] };
  };
  const gsiCount = async (twin: TwinClients, g: string) =>
    (await twin.client.send(new QueryCommand({ TableName: TABLE, IndexName: 'by-g', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: g } } }))).Count;

  test('index statistics and item collection sizes are the same after a restart', async () => {
    const dataDir = freshDirectory();
    // Each item is 600 bytes with its LSI entry: three fill a collection limited to 1,800.
    const options = { dataDir, itemCollectionSizeLimitBytes: 1800 };
    const item = (sk: string) => ({ pk: 'p', sk, g: 'x', pad: 'p'.repeat(289) });
    const before = await withTwin(options, async (twin) => {
      await createTable(twin);
      for (const sk of ['1', '2', '3']) await twin.documentClient.send(new PutCommand({ TableName: TABLE, Item: item(sk) }));
      return describeIndexes(twin);
    });
    assert.equal(before.gsi.ItemCount, 3);
    await withTwin(options, async (twin) => {
      assert.deepEqual(await describeIndexes(twin), before);
      assert.equal(await gsiCount(twin, 'x'), 3);
      await expectDynamoError(twin.documentClient.send(new PutCommand({ TableName: TABLE, Item: item('4') })), 'ItemCollectionSizeLimitExceededException', 'Collection size exceeded.');
    });
  });

  test('GSI changes waiting for their lag survive a restart', async () => {
    const dataDir = freshDirectory();
    await withTwin({ dataDir, clock: 'manual', gsiLagMs: 60_000 }, async (twin) => {
      await createTable(twin);
      await twin.documentClient.send(new PutCommand({ TableName: TABLE, Item: { pk: 'p', sk: 's', g: 'late' } }));
      assert.equal(await gsiCount(twin, 'late'), 0);
    });
    // Without a lag, whatever was still pending is due at once.
    await withTwin({ dataDir }, async (twin) => {
      assert.equal(await gsiCount(twin, 'late'), 1);
      assert.equal((await describeIndexes(twin)).gsi.ItemCount, 1);
    });
  });

  test('a backfill interrupted by a shutdown resumes at start-up', async () => {
    const dataDir = freshDirectory();
    const total = 3000;
    await withTwin({ dataDir }, async (twin) => {
      await createTable(twin);
      for (let start = 0; start < total; start += 25) {
        const requests = Array.from({ length: 25 }, (_, offset) => ({ PutRequest: { Item: { pk: `p${start + offset}`, sk: 's', h: `h${(start + offset) % 7}` } } }));
        await twin.documentClient.send(new BatchWriteCommand({ RequestItems: { [TABLE]: requests } }));
      }
      await twin.client.send(
        new UpdateTableCommand({
          TableName: TABLE,
          AttributeDefinitions: [{ AttributeName: 'h', AttributeType: 'S' }],
          GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'by-h', KeySchema: [{ AttributeName: 'h', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } } }],
        }),
      );
      // Closing now stops the backfill after its current chunk.
    });
    await withTwin({ dataDir }, async (twin) => {
      const deadline = Date.now() + 120_000; // a bound on a hang, not a speed test
      for (;;) {
        const table = (await twin.client.send(new DescribeTableCommand({ TableName: TABLE }))).Table!;
        const index = table.GlobalSecondaryIndexes!.find((gsi) => gsi.IndexName === 'by-h')!;
        if (index.IndexStatus === 'ACTIVE') {
          assert.equal(index.ItemCount, total);
          break;
        }
        assert.ok(Date.now() < deadline, 'the backfill did not finish');
        // No pause: the index must not read as ACTIVE before its last entries can be queried,
        // and polling as fast as a waiter can is what finds such a window.
        await new Promise((resolve) => setImmediate(resolve));
      }
      const counted = await twin.client.send(new QueryCommand({ TableName: TABLE, IndexName: 'by-h', KeyConditionExpression: 'h = :h', ExpressionAttributeValues: { ':h': { S: 'h0' } }, Select: 'COUNT' }));
      assert.equal(counted.Count, Math.ceil(total / 7));
    });
  });
});

describe('index flags', () => {
  test('--gsi-lag and --item-collection-size-limit', () => {
    const options = parseCommandLine(['--gsi-lag', '250', '--item-collection-size-limit', '1048576']);
    assert.ok(typeof options === 'object');
    assert.equal(options.gsiLagMs, 250);
    assert.equal(options.itemCollectionSizeLimitBytes, 1048576);
    const defaults = parseCommandLine([]);
    assert.ok(typeof defaults === 'object');
    assert.equal(defaults.gsiLagMs, 0);
    assert.equal(defaults.itemCollectionSizeLimitBytes, 10 * 1024 ** 3);
    assert.throws(() => parseCommandLine(['--gsi-lag', '-1']), UsageError);
    assert.throws(() => parseCommandLine(['--item-collection-size-limit', '0']), UsageError);
  });
});
