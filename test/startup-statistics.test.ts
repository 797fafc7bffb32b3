/**
 * Start-up does not read the data (issue 15): item counts and sizes of tables and GSIs, and their
 * partitions' counts, are persisted with the writes that change them, so opening a store reads
 * catalog records only. Checked by opening the engine over a store that counts what it is asked
 * for, after real SDK writes; and the restored figures equal those a full recount finds.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { BatchWriteItemCommand, CreateTableCommand, DeleteItemCommand, DescribeTableCommand, PutItemCommand, UpdateItemCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { ManualClock } from '../src/clock.js';
import { Engine } from '../src/engine/engine.js';
import { openStorage } from '../src/storage/index.js';
import type { Entry, RangeOptions, Storage } from '../src/storage/storage.js';
import { scratchDirectories } from './support/scratch.js';
import { withTwin } from './support/twin.js';

const scratch = scratchDirectories('dynatwin-startup-');
after(() => scratch.removeAll());

/** Counts the entries start-up reads from item and index key ranges (first key byte other than the catalog's 0x00). */
function countingReads(storage: Storage): { storage: Storage; dataEntriesRead: () => number } {
  let read = 0;
  const wrapped = new Proxy(storage, {
    get(target, property, receiver) {
      if (property === 'range') {
        return (options: RangeOptions): Iterable<Entry> => ({
          *[Symbol.iterator]() {
            for (const entry of target.range(options)) {
              if (entry.key[0] !== 0x00) read++;
              yield entry;
            }
          },
        });
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { storage: wrapped, dataEntriesRead: () => read };
}

interface Figures {
  readonly itemCount: number;
  readonly sizeBytes: number;
  readonly indexes: Record<string, [number, number]>;
  readonly partitions: [number, number, number][];
}

function figuresOf(engine: Engine, name: string): Figures {
  const table = engine.catalog.get(name);
  assert.ok(table !== undefined);
  const indexes: Record<string, [number, number]> = {};
  for (const index of table.indexes.all) indexes[index.name] = [index.state.statistics.itemCount, index.state.statistics.sizeBytes];
  return {
    itemCount: table.statistics.itemCount,
    sizeBytes: table.statistics.sizeBytes,
    indexes,
    partitions: table.partitions.map.list().map((partition) => [partition.id, partition.itemCount, partition.sizeBytes]),
  };
}

async function openEngine(dataDir: string): Promise<{ engine: Engine; dataEntriesRead: () => number }> {
  const counting = countingReads(await openStorage({ kind: 'lmdb', path: dataDir, durability: 'commit' }));
  const engine = Engine.open(counting.storage, { clock: new ManualClock(), region: 'us-east-1', accountId: '000000000000', tableCreateDelayMs: 0, metrics: false });
  return { engine, dataEntriesRead: counting.dataEntriesRead };
}

describe('start-up statistics', () => {
  test('a restart reads no items, and finds the counts a recount would', async () => {
    const dataDir = scratch.fresh();
    // Small partitions, so that the data splits and the counts of several partitions are persisted.
    await withTwin({ dataDir, durability: 'commit', partitionSizeLimitBytes: 64 * 1024 }, async ({ client }) => {
      await client.send(
        new CreateTableCommand({
          TableName: 'stats',
          AttributeDefinitions: [
            { AttributeName: 'pk', AttributeType: 'S' },
            { AttributeName: 'g', AttributeType: 'S' },
          ],
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          GlobalSecondaryIndexes: [{ IndexName: 'by-g', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      for (let batch = 0; batch < 20; batch++) {
        const writes: WriteRequest[] = Array.from({ length: 25 }, (_, index) => ({
          PutRequest: { Item: { pk: { S: `item-${batch}-${index}` }, g: { S: `g${index % 7}` }, body: { S: 'x'.repeat(300) } } },
        }));
        await client.send(new BatchWriteItemCommand({ RequestItems: { stats: writes } }));
      }
      await client.send(new DeleteItemCommand({ TableName: 'stats', Key: { pk: { S: 'item-0-0' } } }));
      await client.send(new UpdateItemCommand({ TableName: 'stats', Key: { pk: { S: 'item-0-1' } }, UpdateExpression: 'REMOVE g SET body = :b', ExpressionAttributeValues: { ':b': { S: 'short' } } }));
      await client.send(new PutItemCommand({ TableName: 'stats', Item: { pk: { S: 'no-g' } } }));
      const described = await client.send(new DescribeTableCommand({ TableName: 'stats' }));
      assert.equal(described.Table?.ItemCount, 500);
    });

    const first = await openEngine(dataDir);
    const restored = figuresOf(first.engine, 'stats');
    assert.equal(first.dataEntriesRead(), 0, 'start-up read no item and no index entry');
    await first.engine.close();
    assert.equal(restored.itemCount, 500);
    assert.equal(restored.indexes['by-g']![0], 498, 'two items have no g');
    assert.ok(restored.partitions.length > 1, `the data split (${restored.partitions.length} partitions)`);

    // The same store with the persisted counts removed is recounted from the data: same figures.
    const storage = await openStorage({ kind: 'lmdb', path: dataDir, durability: 'commit' });
    await storage.write((txn) => {
      const keys: Uint8Array[] = [];
      for (const entry of txn.range({ start: Buffer.from([0x00, 0x63]), end: Buffer.from([0x00, 0x64]) })) keys.push(entry.key);
      assert.ok(keys.length > 0, 'counts were persisted');
      for (const key of keys) txn.remove(key);
    });
    await storage.close();
    const recounted = await openEngine(dataDir);
    assert.ok(recounted.dataEntriesRead() >= 500, 'without persisted counts the data is read');
    assert.deepEqual(figuresOf(recounted.engine, 'stats'), restored);
    await recounted.engine.close();
  });

  test('counts persisted by writes after a recount are used by the next start', async () => {
    const dataDir = scratch.fresh();
    await withTwin({ dataDir, durability: 'commit' }, async ({ client }) => {
      await client.send(new CreateTableCommand({ TableName: 'plain', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }));
      for (let index = 0; index < 30; index++) await client.send(new PutItemCommand({ TableName: 'plain', Item: { pk: { S: `p${index}` } } }));
    });
    await withTwin({ dataDir, durability: 'commit' }, async ({ client }) => {
      await client.send(new PutItemCommand({ TableName: 'plain', Item: { pk: { S: 'one-more' } } }));
      assert.equal((await client.send(new DescribeTableCommand({ TableName: 'plain' }))).Table?.ItemCount, 31);
    });
    const reopened = await openEngine(dataDir);
    assert.equal(figuresOf(reopened.engine, 'plain').itemCount, 31);
    assert.equal(reopened.dataEntriesRead(), 0);
    await reopened.engine.close();
  });
});
