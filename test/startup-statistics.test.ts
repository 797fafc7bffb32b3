/**
 * Start-up does not read the data (issue 15): item counts and sizes of tables and GSIs, and their
 * partitions' counts, are persisted with the writes that change them, so opening a store reads
 * catalog records only. Checked by opening the engine over a store that counts what it is asked
 * for, after real SDK writes; and the restored figures equal those a full recount finds.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteItemCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { ManualClock } from '../src/clock.js';
import { Engine } from '../src/engine/engine.js';
import { openStorage } from '../src/storage/index.js';
import type { Entry, RangeOptions, Storage, WriteTransaction } from '../src/storage/storage.js';
import { createOperationRegistry } from '../src/operations/index.js';
import { invokeOperation } from '../src/operations/invoke.js';
import { scratchDirectories } from './support/scratch.js';
import { attributes, keySchema, localIndex } from './support/tables.js';
import { expectDynamoError, withTwin } from './support/twin.js';
import { embeddedStoreOnly } from './support/test-store.js';

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

/** An on-demand table keyed by `pk` with one GSI `by-g` on `g` (ALL projection). */
function tableWithGsi(name: string): CreateTableCommandInput {
  return {
    TableName: name,
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'g', AttributeType: 'S' },
    ],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    GlobalSecondaryIndexes: [{ IndexName: 'by-g', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
    BillingMode: 'PAY_PER_REQUEST',
  };
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

describe('start-up statistics', { skip: embeddedStoreOnly("reads the data directory's LMDB to count what a start-up read") }, () => {
  test('a restart reads no items, and finds the counts a recount would', async () => {
    const dataDir = scratch.fresh();
    // Small partitions, so that the data splits and the counts of several partitions are persisted.
    await withTwin({ dataDir, durability: 'commit', partitionSizeLimitBytes: 64 * 1024 }, async ({ client }) => {
      await client.send(new CreateTableCommand(tableWithGsi('stats')));
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

/**
 * Tables with LSIs (the last item of issue 15): their statistics record (table-statistics.ts)
 * carries the table's and each LSI's counts and marks the partition counts as including LSI
 * entries, so a restart reads none of their items or entries either; item collection sizes are
 * read per partition key when a write needs one. What a client sees is the same before and after
 * a restart, and after the one-time recount of a store written before the record existed.
 */
describe('start-up statistics of tables with LSIs', { skip: embeddedStoreOnly("reads the data directory's LMDB to count what a start-up read") }, () => {
  const TABLE = 'with-lsi';
  /** Each item with its ALL-projected LSI entry is about 600 bytes: 30 of them fill most of 20,000. */
  const options = (dataDir: string) => ({ dataDir, durability: 'commit' as const, partitionSizeLimitBytes: 64 * 1024, itemCollectionSizeLimitBytes: 20_000 });
  const item = (pk: string, sk: string, other: string | undefined, padBytes = 250): Record<string, AttributeValue> => ({
    pk: { S: pk },
    sk: { S: sk },
    ...(other === undefined ? {} : { other: { S: other } }),
    pad: { S: 'x'.repeat(padBytes) },
  });
  const createTable = (client: DynamoDBClient) =>
    client.send(
      new CreateTableCommand({
        TableName: TABLE,
        AttributeDefinitions: attributes({ pk: 'S', sk: 'S', other: 'S' }),
        KeySchema: keySchema('pk', 'sk'),
        LocalSecondaryIndexes: [localIndex('by-other', 'pk', 'other')],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  const put = (client: DynamoDBClient, value: Record<string, AttributeValue>) =>
    client.send(new PutItemCommand({ TableName: TABLE, Item: value, ReturnItemCollectionMetrics: 'SIZE' }));

  /** What a client can see of the table's sizes. */
  async function observed(client: DynamoDBClient) {
    const table = (await client.send(new DescribeTableCommand({ TableName: TABLE }))).Table!;
    const lsi = table.LocalSecondaryIndexes![0]!;
    // Rewriting an item with itself changes no size, and reports its collection's.
    const metrics = (await put(client, item('full', 'f-0', 'o0'))).ItemCollectionMetrics;
    return { itemCount: table.ItemCount, tableSizeBytes: table.TableSizeBytes, lsiItemCount: lsi.ItemCount, lsiSizeBytes: lsi.IndexSizeBytes, metrics };
  }

  /**
   * The largest pad a new item of the 'full' collection may have under the limit, found by trying
   * (a refused put changes nothing; an accepted one is deleted again): the collection's exact size
   * as the limit check sees it, without re-deriving dynatwin's size formula here.
   */
  async function largestFittingPad(client: DynamoDBClient): Promise<number> {
    let fits = 0;
    let refused = 20_000;
    while (refused - fits > 1) {
      const pad = Math.floor((fits + refused) / 2);
      try {
        await put(client, item('full', 'probe', 'p', pad));
        await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: { S: 'full' }, sk: { S: 'probe' } } }));
        fits = pad;
      } catch (error) {
        assert.equal((error as Error).name, 'ItemCollectionSizeLimitExceededException');
        refused = pad;
      }
    }
    return fits;
  }

  /** After a restart: the threshold is exactly where it was (one byte more is refused). */
  async function sameLimit(client: DynamoDBClient, pad: number): Promise<void> {
    await expectDynamoError(put(client, item('full', 'probe', 'p', pad + 1)), 'ItemCollectionSizeLimitExceededException', 'Collection size exceeded.');
    await put(client, item('full', 'probe', 'p', pad));
    await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: { S: 'full' }, sk: { S: 'probe' } } }));
  }

  test('a restart reads no item or LSI entry; sizes, counts and the item collection limit are the same; an old store is recounted once', async () => {
    const dataDir = scratch.fresh();
    const before = await withTwin(options(dataDir), async ({ client }) => {
      await createTable(client);
      // 20 collections of 15 items (every fifth without the LSI key: sparse), and one of 30.
      for (let group = 0; group < 20; group++) {
        const writes: WriteRequest[] = Array.from({ length: 15 }, (_, index) => ({
          PutRequest: { Item: item(`pk-${group}`, `s-${index}`, index % 5 === 0 ? undefined : `o${index}`) },
        }));
        await client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: writes } }));
      }
      for (let index = 0; index < 30; index++) await put(client, item('full', `f-${index}`, `o${index}`));
      await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: { S: 'pk-0' }, sk: { S: 's-1' } } }));
      await client.send(
        new UpdateItemCommand({
          TableName: TABLE,
          Key: { pk: { S: 'pk-1' }, sk: { S: 's-2' } },
          UpdateExpression: 'REMOVE #other SET #pad = :pad',
          ExpressionAttributeNames: { '#other': 'other', '#pad': 'pad' },
          ExpressionAttributeValues: { ':pad': { S: 'short' } },
        }),
      );
      const seen = await observed(client);
      return { seen, pad: await largestFittingPad(client) };
    });
    assert.equal(before.seen.itemCount, 329);
    assert.ok(before.seen.lsiItemCount! > 0 && before.seen.lsiItemCount! < 329, `the LSI is sparse (${before.seen.lsiItemCount} entries)`);
    assert.ok(before.pad > 0 && before.pad < 20_000, `the 'full' collection has room for a pad of ${before.pad}`);

    // Opened on the same directory: the statistics come from their record, no item is read.
    const first = await openEngine(dataDir);
    const restored = figuresOf(first.engine, TABLE);
    assert.equal(first.dataEntriesRead(), 0, 'start-up read no item and no LSI entry');
    assert.equal(first.engine.catalog.get(TABLE)!.indexRuntime.collections!.cachedCount, 0, 'no item collection size is loaded at start-up');
    await first.engine.close();
    assert.equal(restored.itemCount, 329);
    assert.ok(restored.partitions.length > 1, `the data split (${restored.partitions.length} partitions)`);

    // Through the SDK: the same sizes, the same metrics, the same limit.
    await withTwin(options(dataDir), async ({ client }) => {
      assert.deepEqual(await observed(client), before.seen);
      await sameLimit(client, before.pad);
    });

    // A store from before the record existed: no record, and partition counts without the LSI
    // entries' bytes (what the code before d41babc saved). Recounted once, to the same figures.
    const storage = await openStorage({ kind: 'lmdb', path: dataDir, durability: 'commit' });
    await storage.write((txn) => {
      const records = [...txn.range({ start: Buffer.from([0x00, 0x6c]), end: Buffer.from([0x00, 0x6d]) })];
      assert.equal(records.length, 1, 'one statistics record, for the one table with an LSI');
      txn.remove(records[0]!.key);
      for (const entry of [...txn.range({ start: Buffer.from([0x00, 0x63]), end: Buffer.from([0x00, 0x64]) })]) {
        const [itemCount, sizeBytes] = entry.value as unknown as [number, number];
        txn.put(entry.key, [itemCount, Math.floor(sizeBytes / 2)]);
      }
    });
    await storage.close();
    const recounted = await openEngine(dataDir);
    assert.ok(recounted.dataEntriesRead() >= 329, 'without the record the data is read');
    assert.deepEqual(figuresOf(recounted.engine, TABLE), restored);
    await recounted.engine.close();

    // The recount was saved: the next start reads nothing again, and finds the same figures.
    const again = await openEngine(dataDir);
    assert.equal(again.dataEntriesRead(), 0, 'the recount is done once');
    assert.deepEqual(figuresOf(again.engine, TABLE), restored);
    await again.engine.close();
    await withTwin(options(dataDir), async ({ client }) => {
      assert.deepEqual(await observed(client), before.seen);
      await sameLimit(client, before.pad);
    });
  });

  test('DeleteTable removes the statistics record', async () => {
    const dataDir = scratch.fresh();
    await withTwin(options(dataDir), async ({ client }) => {
      await createTable(client);
      await put(client, item('a', '1', 'o'));
      await client.send(new DeleteTableCommand({ TableName: TABLE }));
    });
    const storage = await openStorage({ kind: 'lmdb', path: dataDir, durability: 'commit' });
    try {
      assert.equal([...storage.range({ start: Buffer.from([0x00, 0x6c]), end: Buffer.from([0x00, 0x6d]) })].length, 0);
    } finally {
      await storage.close();
    }
  });
});

/**
 * Partition counts are saved once per partition a request changed, not once per item: a 25-item
 * BatchWriteItem over a table of 4 partitions puts at most 4 counts records (plus its GSI's), in
 * the same write as its items. Counted with a store that records the keys each write puts.
 */
describe('partition counts per request', () => {
  test('a 25-item BatchWriteItem saves each changed partition once, and the counts are exact after a restart', async () => {
    const dataDir = scratch.fresh();
    const storage = await openStorage({ kind: 'lmdb', path: dataDir, durability: 'commit' });
    const countsPuts: number[] = [];
    const counting = new Proxy(storage, {
      get(target, property, receiver) {
        if (property === 'write') {
          return <T>(fn: (txn: WriteTransaction) => T): Promise<T> =>
            target.write((txn) => {
              let puts = 0;
              const watched = new Proxy(txn, {
                get(inner, name, innerReceiver) {
                  if (name === 'put') {
                    return (key: Uint8Array, value: object): void => {
                      if (key[0] === 0x00 && key[1] === 0x63) puts++;
                      inner.put(key, value);
                    };
                  }
                  const member: unknown = Reflect.get(inner, name, innerReceiver);
                  return typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(inner) : member;
                },
              });
              const result = fn(watched);
              countsPuts.push(puts);
              return result;
            });
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const engine = Engine.open(counting, { clock: new ManualClock(), region: 'us-east-1', accountId: '000000000000', tableCreateDelayMs: 0, metrics: false });
    const operations = createOperationRegistry();
    const invoke = (name: string, input: object): Promise<object> => invokeOperation(engine, operations.get(name)!, input);
    await invoke('CreateTable', tableWithGsi('batched'));
    const table = engine.catalog.get('batched')!;
    const tablePartitions = table.partitions.map.count;
    const indexPartitions = table.indexes.all[0]!.state.partitions!.map.count;
    for (let batch = 0; batch < 4; batch++) {
      countsPuts.length = 0;
      const writes = Array.from({ length: 25 }, (_, index) => ({ PutRequest: { Item: { pk: { S: `k-${batch}-${index}` }, g: { S: `g${index}` } } } }));
      await invoke('BatchWriteItem', { RequestItems: { batched: writes } });
      const puts = countsPuts.reduce((sum, count) => sum + count, 0);
      assert.ok(puts <= tablePartitions + indexPartitions, `batch ${batch}: ${puts} counts puts for ${tablePartitions} + ${indexPartitions} partitions, not one per item`);
      assert.ok(puts > 0, 'the counts were saved');
    }
    const before = figuresOf(engine, 'batched');
    await engine.close();
    const reopened = await openEngine(dataDir);
    assert.equal(reopened.dataEntriesRead(), 0, 'the restart used the saved counts');
    assert.deepEqual(figuresOf(reopened.engine, 'batched'), before);
    assert.equal(before.itemCount, 100);
    await reopened.engine.close();
  });
});
