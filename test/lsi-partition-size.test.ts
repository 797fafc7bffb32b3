/**
 * LSI entries count toward the table partition's size (issue 14; docs/CAPACITY-MODEL.md §10): an
 * item's LSI entries live on its partition, so the size that splits a partition (10 GB on AWS,
 * `--partition-size-limit` here) includes them. Through the AWS SDK: the same items in a table
 * with an LSI and one without, under a 100 KB limit — only the table with the LSI splits; and after
 * a restart, its partitions are measured with their LSI entries again.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CreateTableCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { attributes, keySchema, localIndex } from './support/tables.js';
import { KB, partitionsOf } from './support/throttling.js';
import { withTwin } from './support/twin.js';

const LIMIT_BYTES = 100 * KB;
/** 20 items of about 4 KB: 80 KB of items, under the limit; with an ALL-projecting LSI, 160 KB. */
const ITEMS = 20;
const ITEM_BYTES = 4 * KB;

async function createAndFill(client: DynamoDBClient, table: string, withLsi: boolean): Promise<number> {
  await client.send(
    new CreateTableCommand({
      TableName: table,
      AttributeDefinitions: attributes({ pk: 'S', sk: 'N', ...(withLsi ? { other: 'S' } : {}) }),
      KeySchema: keySchema('pk', 'sk'),
      // 5 units: one partition to begin with.
      ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
      ...(withLsi ? { LocalSecondaryIndexes: [localIndex('by-other', 'pk', 'other')] } : {}),
    }),
  );
  let bytes = 0;
  for (let n = 0; n < ITEMS; n++) {
    const pk = `key-${n}`;
    const pad = 'x'.repeat(ITEM_BYTES - 200);
    await client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: pk }, sk: { N: '1' }, other: { S: `o${n}` }, pad: { S: pad } } }));
    bytes += 'pk'.length + pk.length + 'sk'.length + 2 + 'other'.length + `o${n}`.length + 'pad'.length + pad.length;
  }
  return bytes;
}

test('a table with an LSI splits at --partition-size-limit where the same table without one does not: its LSI entries are on its partitions', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'dynatwin-lsi-size-'));
  try {
    let itemBytes = 0;
    await withTwin({ dataDir, partitionSizeLimitBytes: LIMIT_BYTES }, async ({ twin, client }) => {
      itemBytes = await createAndFill(client, 'plain', false);
      assert.equal(await createAndFill(client, 'with-lsi', true), itemBytes);
      assert.ok(itemBytes < LIMIT_BYTES && 2 * itemBytes > LIMIT_BYTES, `the items (${itemBytes} bytes) fit; with their LSI entries they do not`);

      const plain = await partitionsOf(twin.endpoint, 'plain');
      assert.equal(plain.partitions.length, 1, 'the items alone stay under the limit');
      assert.equal(plain.partitions[0]!.sizeBytes, itemBytes);

      const withLsi = await partitionsOf(twin.endpoint, 'with-lsi');
      assert.ok(withLsi.partitions.length >= 2, `the table with an LSI split (${withLsi.partitions.length} partitions)`);
      // Items counted once; bytes: each item and its ALL-projected LSI entry (the same size).
      assert.equal(withLsi.partitions.reduce((sum, partition) => sum + partition.itemCount, 0), ITEMS);
      assert.equal(withLsi.partitions.reduce((sum, partition) => sum + partition.sizeBytes, 0), 2 * itemBytes);
      for (const partition of withLsi.partitions) assert.ok(partition.sizeBytes <= LIMIT_BYTES, `partition ${partition.id}: ${partition.sizeBytes} bytes`);
    });
    // A restart measures them again, LSI entries included.
    await withTwin({ dataDir, partitionSizeLimitBytes: LIMIT_BYTES }, async ({ twin }) => {
      const withLsi = await partitionsOf(twin.endpoint, 'with-lsi');
      assert.ok(withLsi.partitions.length >= 2);
      assert.equal(withLsi.partitions.reduce((sum, partition) => sum + partition.sizeBytes, 0), 2 * itemBytes);
      assert.equal((await partitionsOf(twin.endpoint, 'plain')).partitions.length, 1);
    });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
