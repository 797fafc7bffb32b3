/**
 * On-demand read peaks split partitions when they fall due, not at the next write (issue 14;
 * docs/CAPACITY-MODEL.md §10): through the AWS SDK on a manual clock, a table that is only read
 * at a sustained 9,180 RRU/s has a previous read peak of that level 30 minutes later, which twice
 * over needs more than its 4 partitions of 3,000 RRU — the first read after that splits them, with
 * no write in between.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CreateTableCommand, DescribeTableCommand, GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { onDemandTable } from './support/tables.js';
import { KB, keysByPartition, MINUTE_MS, partitionsOf, SECOND_MS, startManualTwin } from './support/throttling.js';

const TABLE = 'read-peak';
/** Three items of 340 KB under each key: a strongly consistent Query of one collection reads 255 units (under the 1 MB page). */
const ITEMS_PER_KEY = 3;
const ITEM_BYTES = 340 * KB;
/** Queries of each collection per second: 4 × 9 × 255 = 9,180 RRU/s, 2,295 per partition (ceiling 3,000). */
const QUERIES_PER_KEY_PER_SECOND = 9;

test('an on-demand table read at a sustained 9,180 RRU/s splits its 4 partitions into 8 at the first read once that peak is 30 minutes old, with no write', async (t) => {
  const twin = await startManualTwin();
  try {
    await twin.client.send(new CreateTableCommand(onDemandTable(TABLE, { id: 'S', n: 'N' })));
    const before = await partitionsOf(twin.twin.endpoint, TABLE);
    assert.equal(before.partitions.length, 4);
    // One item collection on each partition.
    const keys = keysByPartition(before.partitions, 1, 'collection-').map((partitionKeys) => partitionKeys[0]!);
    for (let n = 0; n < ITEMS_PER_KEY; n++) {
      for (const id of keys) {
        const pad = 'x'.repeat(ITEM_BYTES - 'id'.length - id.length - 'n'.length - 'pad'.length - 2);
        await twin.client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: id }, n: { N: String(n) }, pad: { S: pad } } }));
      }
      twin.clock.advance(SECOND_MS);
    }

    // Reads only from here on: 61 seconds at 9,180 RRU/s.
    const levelAt = twin.clock.nowMs();
    let perSecondUnits = 0;
    for (let second = 0; second < 61; second++) {
      const queries: Promise<number>[] = [];
      for (const id of keys) {
        for (let q = 0; q < QUERIES_PER_KEY_PER_SECOND; q++) {
          queries.push(
            twin.client
              .send(
                new QueryCommand({
                  TableName: TABLE,
                  KeyConditionExpression: 'id = :id',
                  ExpressionAttributeValues: { ':id': { S: id } },
                  Select: 'COUNT',
                  ConsistentRead: true,
                  ReturnConsumedCapacity: 'TOTAL',
                }),
              )
              .then((answer) => {
                assert.equal(answer.Count, ITEMS_PER_KEY);
                return answer.ConsumedCapacity?.CapacityUnits ?? 0;
              }),
          );
        }
      }
      const units = (await Promise.all(queries)).reduce((sum, value) => sum + value, 0);
      if (second === 0) perSecondUnits = units;
      assert.equal(units, perSecondUnits, `second ${second}: every second reads the same`);
      twin.clock.advance(SECOND_MS);
    }
    t.diagnostic(`sustained read level: ${perSecondUnits} RRU/s`);
    assert.equal(perSecondUnits, 4 * QUERIES_PER_KEY_PER_SECOND * 255);
    assert.equal((await partitionsOf(twin.twin.endpoint, TABLE)).partitions.length, 4, 'the level is not the previous peak yet');

    // 31 minutes later, one read: the promoted read peak needs ceil(2 × 9,180 / 3,000) = 7 partitions, so all 4 split in two.
    twin.clock.advance(levelAt + 31 * MINUTE_MS - twin.clock.nowMs());
    const read = await twin.client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: keys[0]! }, n: { N: '0' } }, ProjectionExpression: 'id' }));
    assert.equal(read.Item?.id?.S, keys[0]);
    const after = await partitionsOf(twin.twin.endpoint, TABLE);
    assert.equal(after.partitions.length, 8, 'split at the read, not at a write');
    // Every collection is still whole on one partition, its items counted there.
    assert.equal(after.partitions.reduce((sum, partition) => sum + partition.itemCount, 0), keys.length * ITEMS_PER_KEY);
    const described = (await twin.client.send(new DescribeTableCommand({ TableName: TABLE }))).Table!;
    assert.equal(described.WarmThroughput?.ReadUnitsPerSecond, 2 * perSecondUnits, 'warm throughput: twice the promoted read peak');
  } finally {
    await twin.close();
  }
});
