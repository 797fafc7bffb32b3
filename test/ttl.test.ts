/**
 * TTL expiry through the AWS SDK on a manual clock: expired items are deleted at the first sweep
 * after their time (POST /dynatwin/clock answers once it has run), with their GSI and LSI entries,
 * statistics, partitions and item collections; what never expires (other types, values more than
 * five years back) stays; disabling TTL stops deletion; deletions consume no capacity and are
 * counted in TimeToLiveDeletedItemCount. Then the recheck inside the delete's write (an item given a
 * later expiry between scan and delete stays), and sweeping across a restart on LMDB.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DeleteTableCommand, DescribeTableCommand, UpdateTableCommand, UpdateTimeToLiveCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ManualClock } from '../src/clock.js';
import { deleteExpired, isExpired, scanChunk, TTL_CHUNK_ITEMS, TTL_HORIZON_MS, TTL_SWEEP_INTERVAL_MS, type SweepTarget } from '../src/engine/ttl.js';
import type { DynatwinOptions } from '../src/index.js';
import { prefixUpperBound } from '../src/model/key-codec.js';
import type { PartitionsDocument } from '../src/server/partition-routes.js';
import { startManualServer } from './support/dashboard.js';
import { rawRequest } from './support/raw.js';
import { scratchDirectories } from './support/scratch.js';
import { attributes, createTables, createUniqueTable, globalIndex, keySchema, localIndex } from './support/tables.js';
import { expectDynamoError, startTwinWithClients, uniqueTableName, withTwin, type TwinClients } from './support/twin.js';

const TTL = 'expires';
const DAY_S = 24 * 60 * 60;
const YEAR_S = 365 * DAY_S;

/** Advances the server's manual clock over HTTP; the answer comes after the sweeps it made due. */
async function advance(twin: TwinClients, advanceMs: number): Promise<void> {
  const body = JSON.stringify({ advanceMs });
  const response = await rawRequest(twin.twin.endpoint, { method: 'POST', path: '/dynatwin/clock', headers: { 'Content-Type': 'application/json' }, body });
  assert.equal(response.status, 200, response.text);
}

/** The server's time in epoch seconds, the unit of TTL attributes. */
function nowSeconds(twin: TwinClients): number {
  return Math.floor(twin.twin.clock.nowMs() / 1000);
}

function enableTtl(client: DynamoDBClient, table: string, enabled = true): Promise<unknown> {
  return client.send(new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { Enabled: enabled, AttributeName: TTL } }));
}

async function tableDescription(client: DynamoDBClient, table: string) {
  return (await client.send(new DescribeTableCommand({ TableName: table }))).Table!;
}

async function getJson<T>(twin: TwinClients, path: string): Promise<T> {
  const response = await rawRequest(twin.twin.endpoint, { method: 'GET', path });
  assert.equal(response.status, 200, response.text);
  return JSON.parse(response.text) as T;
}

interface MetricsAnswer {
  readonly metrics: readonly { readonly metric: string; readonly datapoints: readonly { readonly Timestamp: number; readonly Sum: number }[] }[];
}

/** The Sum of a table metric's 1-second datapoints from `startMs` on (0 without any). */
async function metricSum(twin: TwinClients, table: string, metric: string, startMs?: number): Promise<{ sum: number; datapoints: number }> {
  const since = startMs === undefined ? '' : `&startMs=${startMs}`;
  const answer = await getJson<MetricsAnswer>(twin, `/dynatwin/metrics?table=${encodeURIComponent(table)}&metric=${metric}&period=1${since}`);
  const datapoints = answer.metrics.flatMap((series) => series.datapoints);
  return { sum: datapoints.reduce((total, point) => total + point.Sum, 0), datapoints: datapoints.length };
}

async function putAll(twin: TwinClients, table: string, items: readonly Record<string, unknown>[]): Promise<void> {
  for (let start = 0; start < items.length; start += 25) {
    const requests = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
    const answer = await twin.documentClient.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
    assert.deepEqual(answer.UnprocessedItems ?? {}, {});
  }
}

describe('TTL expiry on a manual clock', () => {
  let twin: TwinClients;
  before(async () => {
    // A small item collection limit, for the test that an expiry frees room in a collection.
    twin = await startTwinWithClients({ clock: 'manual', itemCollectionSizeLimitBytes: 4000 });
  });
  after(() => twin.close());

  /** An on-demand table keyed pk/sk with a GSI on g and an LSI on l, TTL on `expires`. */
  async function indexedTable(stem: string): Promise<string> {
    const name = await createUniqueTable(twin.client, stem, {
      AttributeDefinitions: attributes({ pk: 'S', sk: 'S', g: 'S', l: 'S' }),
      KeySchema: keySchema('pk', 'sk'),
      GlobalSecondaryIndexes: [globalIndex('by-g', 'g')],
      LocalSecondaryIndexes: [localIndex('by-l', 'pk', 'l')],
    });
    await enableTtl(twin.client, name);
    return name;
  }

  const keysOf = (items: readonly Record<string, unknown>[] | undefined): string[] => (items ?? []).map((item) => String(item['sk'])).sort();

  test('expired items are deleted at the first sweep after their time, with their index entries and statistics', async () => {
    const table = await indexedTable('ttl-basic');
    const now = nowSeconds(twin);
    const item = (sk: string, expires?: number) => ({ pk: 'p', sk, g: 'x', l: `l-${sk}`, pad: 'x'.repeat(100), ...(expires === undefined ? {} : { [TTL]: expires }) });
    for (const next of [item('expired', now - 1), item('soon', now + 60), item('never')]) {
      await twin.documentClient.send(new PutCommand({ TableName: table, Item: next }));
    }
    const before = await tableDescription(twin.client, table);
    assert.equal(before.ItemCount, 3);

    // Expired but not yet swept: still read, as DynamoDB returns expired items until it deletes them.
    assert.ok((await twin.documentClient.send(new GetCommand({ TableName: table, Key: { pk: 'p', sk: 'expired' } }))).Item);

    await advance(twin, TTL_SWEEP_INTERVAL_MS);
    assert.equal((await twin.documentClient.send(new GetCommand({ TableName: table, Key: { pk: 'p', sk: 'expired' }, ConsistentRead: true }))).Item, undefined);
    assert.deepEqual(keysOf((await twin.documentClient.send(new ScanCommand({ TableName: table }))).Items), ['never', 'soon']);
    const byG = await twin.documentClient.send(new QueryCommand({ TableName: table, IndexName: 'by-g', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': 'x' } }));
    assert.deepEqual(keysOf(byG.Items), ['never', 'soon']);
    const byL = await twin.documentClient.send(new QueryCommand({ TableName: table, IndexName: 'by-l', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'p' } }));
    assert.deepEqual(keysOf(byL.Items), ['never', 'soon']);

    const after = await tableDescription(twin.client, table);
    assert.equal(after.ItemCount, 2);
    assert.ok(after.TableSizeBytes! < before.TableSizeBytes!);
    assert.equal(after.GlobalSecondaryIndexes![0]!.ItemCount, 2);
    assert.ok(after.GlobalSecondaryIndexes![0]!.IndexSizeBytes! < before.GlobalSecondaryIndexes![0]!.IndexSizeBytes!);
    assert.equal(after.LocalSecondaryIndexes![0]!.ItemCount, 2);
    const partitions = await getJson<PartitionsDocument>(twin, `/dynatwin/tables/${encodeURIComponent(table)}/partitions`);
    const count = (list: PartitionsDocument['partitions']): number => list.reduce((total, partition) => total + partition.itemCount, 0);
    assert.equal(count(partitions.partitions), 2);
    assert.equal(count(partitions.indexes['by-g']!.partitions), 2);

    // Not expired yet after 10 s; deleted once the clock passes its time and a sweep runs.
    assert.equal((await tableDescription(twin.client, table)).ItemCount, 2);
    await advance(twin, 60_000);
    assert.deepEqual(keysOf((await twin.documentClient.send(new ScanCommand({ TableName: table }))).Items), ['never']);
    assert.equal((await tableDescription(twin.client, table)).GlobalSecondaryIndexes![0]!.ItemCount, 1);
  });

  test('a sweep falls due every interval of clock time: a shorter step deletes nothing yet', async () => {
    const table = await indexedTable('ttl-interval');
    // Two steps: the first lines this test up with the sweep schedule (it runs the sweep due now).
    await advance(twin, TTL_SWEEP_INTERVAL_MS);
    await twin.documentClient.send(new PutCommand({ TableName: table, Item: { pk: 'p', sk: 'a', [TTL]: nowSeconds(twin) - 1 } }));
    await advance(twin, TTL_SWEEP_INTERVAL_MS / 2);
    assert.equal((await tableDescription(twin.client, table)).ItemCount, 1);
    await advance(twin, TTL_SWEEP_INTERVAL_MS / 2);
    assert.equal((await tableDescription(twin.client, table)).ItemCount, 0);
  });

  test('only Numbers of epoch seconds in the last five years expire: other types and older values stay', async () => {
    const table = await indexedTable('ttl-types');
    const now = nowSeconds(twin);
    const items: Record<string, unknown>[] = [
      { pk: 'p', sk: 'four-years', [TTL]: now - 4 * YEAR_S },
      { pk: 'p', sk: 'fraction', [TTL]: now - 0.5 },
      { pk: 'p', sk: 'six-years', [TTL]: now - 6 * YEAR_S },
      { pk: 'p', sk: 'negative', [TTL]: -1 },
      { pk: 'p', sk: 'string', [TTL]: String(now - 60) },
      { pk: 'p', sk: 'number-set', [TTL]: new Set([now - 60]) },
      { pk: 'p', sk: 'list', [TTL]: [now - 60] },
      // Milliseconds by mistake read as seconds: tens of thousands of years ahead.
      { pk: 'p', sk: 'milliseconds', [TTL]: twin.twin.clock.nowMs() - 60_000 },
      { pk: 'p', sk: 'missing' },
    ];
    for (const item of items) await twin.documentClient.send(new PutCommand({ TableName: table, Item: item }));
    await advance(twin, TTL_SWEEP_INTERVAL_MS);
    assert.deepEqual(keysOf((await twin.documentClient.send(new ScanCommand({ TableName: table }))).Items), [
      'list',
      'milliseconds',
      'missing',
      'negative',
      'number-set',
      'six-years',
      'string',
    ]);
  });

  test('an item updated to a later expiry, or its attribute removed, before the sweep stays', async () => {
    const table = await indexedTable('ttl-update');
    const now = nowSeconds(twin);
    for (const sk of ['later', 'removed', 'kept']) {
      await twin.documentClient.send(new PutCommand({ TableName: table, Item: { pk: 'p', sk, [TTL]: now - 1 } }));
    }
    await twin.documentClient.send(new UpdateCommand({ TableName: table, Key: { pk: 'p', sk: 'later' }, UpdateExpression: 'SET #t = :t', ExpressionAttributeNames: { '#t': TTL }, ExpressionAttributeValues: { ':t': now + 3600 } }));
    await twin.documentClient.send(new UpdateCommand({ TableName: table, Key: { pk: 'p', sk: 'removed' }, UpdateExpression: 'REMOVE #t', ExpressionAttributeNames: { '#t': TTL } }));
    await advance(twin, TTL_SWEEP_INTERVAL_MS);
    assert.deepEqual(keysOf((await twin.documentClient.send(new ScanCommand({ TableName: table }))).Items), ['later', 'removed']);
  });

  test('disabling TTL stops deletion; enabling it again resumes it', async () => {
    const table = await indexedTable('ttl-disable');
    await twin.documentClient.send(new PutCommand({ TableName: table, Item: { pk: 'p', sk: 'a', [TTL]: nowSeconds(twin) - 1 } }));
    await enableTtl(twin.client, table, false);
    await advance(twin, 2 * TTL_SWEEP_INTERVAL_MS);
    assert.equal((await tableDescription(twin.client, table)).ItemCount, 1);
    await enableTtl(twin.client, table);
    await advance(twin, TTL_SWEEP_INTERVAL_MS);
    assert.equal((await tableDescription(twin.client, table)).ItemCount, 0);
  });

  test('a table without TTL keeps expired-looking items', async () => {
    const table = await createUniqueTable(twin.client, 'ttl-off', { AttributeDefinitions: attributes({ pk: 'S' }), KeySchema: keySchema('pk') });
    await twin.documentClient.send(new PutCommand({ TableName: table, Item: { pk: 'a', [TTL]: nowSeconds(twin) - 1 } }));
    await advance(twin, TTL_SWEEP_INTERVAL_MS);
    assert.equal((await tableDescription(twin.client, table)).ItemCount, 1);
  });

  test('an expiry frees room in an LSI item collection', async () => {
    const table = await indexedTable('ttl-collection');
    const now = nowSeconds(twin);
    const item = (sk: string, expires?: number) => ({ pk: 'full', sk, l: sk, pad: 'x'.repeat(300), ...(expires === undefined ? {} : { [TTL]: expires }) });
    // Fill the 4,000-byte collection with expired items until a put no longer fits.
    let filled = 0;
    for (;;) {
      try {
        await twin.documentClient.send(new PutCommand({ TableName: table, Item: item(`e${filled}`, now - 1) }));
        filled++;
      } catch (error) {
        assert.equal((error as Error).name, 'ItemCollectionSizeLimitExceededException');
        break;
      }
      assert.ok(filled < 20, 'the collection never filled');
    }
    await expectDynamoError(twin.documentClient.send(new PutCommand({ TableName: table, Item: item('fresh') })), 'ItemCollectionSizeLimitExceededException');
    await advance(twin, TTL_SWEEP_INTERVAL_MS);
    await twin.documentClient.send(new PutCommand({ TableName: table, Item: item('fresh') }));
    assert.equal((await tableDescription(twin.client, table)).ItemCount, 1);
  });

  test('TTL deletes consume no capacity and are not throttled on a 1 WCU table; TimeToLiveDeletedItemCount counts them', async () => {
    const total = 300;
    const table = await createUniqueTable(twin.client, 'ttl-provisioned', {
      BillingMode: 'PROVISIONED',
      AttributeDefinitions: attributes({ pk: 'S', g: 'S' }),
      KeySchema: keySchema('pk'),
      ProvisionedThroughput: { ReadCapacityUnits: 10, WriteCapacityUnits: 1000 },
      GlobalSecondaryIndexes: [globalIndex('by-g', 'g', { ProvisionedThroughput: { ReadCapacityUnits: 10, WriteCapacityUnits: 1000 } })],
    });
    await enableTtl(twin.client, table);
    const expires = nowSeconds(twin) + 30;
    await putAll(twin, table, Array.from({ length: total }, (_, n) => ({ pk: `item-${n}`, g: `g${n % 10}`, [TTL]: expires })));
    // Now down to 1 WCU, table and GSI: hundreds of charged deletes would be throttled.
    await twin.client.send(new UpdateTableCommand({ TableName: table, ProvisionedThroughput: { ReadCapacityUnits: 10, WriteCapacityUnits: 1 } }));
    await twin.client.send(
      new UpdateTableCommand({
        TableName: table,
        GlobalSecondaryIndexUpdates: [{ Update: { IndexName: 'by-g', ProvisionedThroughput: { ReadCapacityUnits: 10, WriteCapacityUnits: 1 } } }],
      }),
    );
    // The puts' Consumed* samples stay behind this point.
    await advance(twin, 1000);
    const sinceMs = twin.twin.clock.nowMs();

    await advance(twin, 60_000);
    const described = await tableDescription(twin.client, table);
    assert.equal(described.ItemCount, 0);
    assert.equal(described.GlobalSecondaryIndexes![0]!.ItemCount, 0);
    assert.deepEqual(await metricSum(twin, table, 'TimeToLiveDeletedItemCount'), { sum: total, datapoints: 1 });
    assert.equal((await metricSum(twin, table, 'ConsumedWriteCapacityUnits', sinceMs)).datapoints, 0);
    assert.equal((await metricSum(twin, table, 'WriteThrottleEvents')).datapoints, 0);
    const gsiWrites = await getJson<MetricsAnswer>(twin, `/dynatwin/metrics?table=${encodeURIComponent(table)}&index=by-g&metric=ConsumedWriteCapacityUnits&period=1&startMs=${sinceMs}`);
    assert.deepEqual(gsiWrites.metrics.flatMap((series) => series.datapoints), []);
    // No GSI back-pressure built up either: a write goes through at once.
    await twin.documentClient.send(new PutCommand({ TableName: table, Item: { pk: 'after', g: 'g0' } }));
  });

  test('in-process: clock.advance() then settled() sees the deletions; DeleteTable stops a table being swept', async () => {
    const clock = twin.twin.clock;
    assert.ok(clock instanceof ManualClock);
    const kept = await indexedTable('ttl-inprocess');
    const dropped = await indexedTable('ttl-dropped');
    const now = nowSeconds(twin);
    for (const table of [kept, dropped]) await twin.documentClient.send(new PutCommand({ TableName: table, Item: { pk: 'p', sk: 'a', [TTL]: now - 1 } }));
    await twin.client.send(new DeleteTableCommand({ TableName: dropped }));
    clock.advance(TTL_SWEEP_INTERVAL_MS);
    await twin.twin.settled();
    assert.equal((await tableDescription(twin.client, kept)).ItemCount, 0);
    // The dropped table's metrics went with it and no sweep brought them back.
    assert.equal((await metricSum(twin, kept, 'TimeToLiveDeletedItemCount')).sum, 1);
    const response = await rawRequest(twin.twin.endpoint, { method: 'GET', path: `/dynatwin/metrics?table=${encodeURIComponent(dropped)}&metric=TimeToLiveDeletedItemCount` });
    assert.deepEqual((JSON.parse(response.text) as MetricsAnswer).metrics.flatMap((series) => series.datapoints), []);
  });
});

describe('TTL expiry rule and the recheck inside the delete', () => {
  test('isExpired: a Number of epoch seconds before now and not more than five years back', () => {
    const nowMs = 1_800_000_000_000;
    const item = (value: object | undefined) => (value === undefined ? {} : { [TTL]: value }) as Parameters<typeof isExpired>[0];
    assert.equal(isExpired(item({ N: '1799999999' }), TTL, nowMs), true);
    assert.equal(isExpired(item({ N: '1799999999.999' }), TTL, nowMs), true);
    // "Less than the current time": the exact second is not expired yet.
    assert.equal(isExpired(item({ N: '1800000000' }), TTL, nowMs), false);
    assert.equal(isExpired(item({ N: String((nowMs - TTL_HORIZON_MS) / 1000) }), TTL, nowMs), true);
    assert.equal(isExpired(item({ N: String((nowMs - TTL_HORIZON_MS) / 1000 - 1) }), TTL, nowMs), false);
    assert.equal(isExpired(item({ S: '1799999999' }), TTL, nowMs), false);
    assert.equal(isExpired(item({ NS: ['1799999999'] }), TTL, nowMs), false);
    assert.equal(isExpired(item(undefined), TTL, nowMs), false);
    assert.equal(isExpired({ other: { N: '1' } }, TTL, nowMs), false);
  });

  test('an item given a later expiry between the scan and the delete is not deleted; nor is anything once its table is gone', async () => {
    const { server, clock, client } = await startManualServer();
    try {
      const engine = server.engine;
      const name = uniqueTableName('ttl-race');
      const create = { TableName: name, BillingMode: 'PAY_PER_REQUEST' as const, AttributeDefinitions: attributes({ pk: 'S' }), KeySchema: keySchema('pk') };
      await createTables(client, create);
      await enableTtl(client, name);
      const documents = DynamoDBDocumentClient.from(client);
      const now = Math.floor(clock.nowMs() / 1000);
      for (const pk of ['renewed', 'deleted-by-client', 'expired']) await documents.send(new PutCommand({ TableName: name, Item: { pk, [TTL]: now - 1 } }));

      const table = engine.catalog.get(name)!;
      const target: SweepTarget = { tableName: name, tableId: table.record.id, itemPrefix: table.itemPrefix, attributeName: TTL };
      const chunk = scanChunk(engine.storage, TTL, table.itemPrefix, prefixUpperBound(table.itemPrefix), clock.nowMs());
      assert.equal(chunk.expiredKeys.length, 3);
      assert.equal(chunk.nextStart, undefined);

      // Between the scan and the delete's write, clients renew one item and delete another.
      await documents.send(new UpdateCommand({ TableName: name, Key: { pk: 'renewed' }, UpdateExpression: 'SET #t = :t', ExpressionAttributeNames: { '#t': TTL }, ExpressionAttributeValues: { ':t': now + 3600 } }));
      await documents.send(new DeleteCommand({ TableName: name, Key: { pk: 'deleted-by-client' } }));
      const deleted = await engine.storage.write((txn) => deleteExpired(txn, engine, target, chunk.expiredKeys, clock.nowMs()));
      assert.equal(deleted, 1);
      assert.ok((await documents.send(new GetCommand({ TableName: name, Key: { pk: 'renewed' } }))).Item);
      assert.equal((await documents.send(new GetCommand({ TableName: name, Key: { pk: 'expired' } }))).Item, undefined);
      assert.equal(engine.catalog.get(name)!.statistics.itemCount, 1);

      // A table deleted and created again under its name is another table: the old pass deletes nothing.
      await client.send(new DeleteTableCommand({ TableName: name }));
      await createTables(client, create);
      await enableTtl(client, name);
      await documents.send(new PutCommand({ TableName: name, Item: { pk: 'expired', [TTL]: now - 1 } }));
      const again = scanChunk(engine.storage, TTL, engine.catalog.get(name)!.itemPrefix, prefixUpperBound(engine.catalog.get(name)!.itemPrefix), clock.nowMs());
      assert.equal(await engine.storage.write((txn) => deleteExpired(txn, engine, target, again.expiredKeys, clock.nowMs())), 0);
      assert.equal(engine.catalog.get(name)!.statistics.itemCount, 1);
    } finally {
      client.destroy();
      await server.close();
    }
  });
});

describe('TTL sweeps in short turns', () => {
  test('a pass reads and deletes at most TTL_CHUNK_ITEMS items per chunk, and still deletes every expired item of a larger table', async () => {
    const { server, clock, client } = await startManualServer();
    try {
      const name = uniqueTableName('ttl-chunks');
      await createTables(client, { TableName: name, BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: attributes({ pk: 'S' }), KeySchema: keySchema('pk') });
      await enableTtl(client, name);
      const documents = DynamoDBDocumentClient.from(client);
      const now = Math.floor(clock.nowMs() / 1000);
      const count = TTL_CHUNK_ITEMS * 2 + 5;
      for (let at = 0; at < count; at += 25) {
        const puts = Array.from({ length: Math.min(25, count - at) }, (_, i) => ({ PutRequest: { Item: { pk: `item-${at + i}`, [TTL]: now - 1 } } }));
        await documents.send(new BatchWriteCommand({ RequestItems: { [name]: puts } }));
      }
      const engine = server.engine;
      const table = engine.catalog.get(name)!;
      const first = scanChunk(engine.storage, TTL, table.itemPrefix, prefixUpperBound(table.itemPrefix), clock.nowMs());
      assert.equal(first.expiredKeys.length, TTL_CHUNK_ITEMS, 'one chunk holds TTL_CHUNK_ITEMS items');
      assert.ok(first.nextStart !== undefined, 'and says where the next one starts');

      // The clock route answers once the sweeps the advance made due have run.
      const body = JSON.stringify({ advanceMs: TTL_SWEEP_INTERVAL_MS });
      const advanced = await rawRequest(server.endpoint, { method: 'POST', path: '/dynatwin/clock', headers: { 'Content-Type': 'application/json' }, body });
      assert.equal(advanced.status, 200, advanced.text);
      const left = await documents.send(new ScanCommand({ TableName: name, Select: 'COUNT' }));
      assert.equal(left.Count, 0, 'every chunk of the pass was swept');
      assert.equal(engine.catalog.get(name)!.statistics.itemCount, 0);
    } finally {
      client.destroy();
      await server.close();
    }
  });
});

describe('TTL across restarts (LMDB)', () => {
  const scratch = scratchDirectories('dynatwin-ttl-');
  after(() => scratch.removeAll());

  test('a restart resumes sweeping, an interrupted pass included', async () => {
    const dataDir = scratch.fresh();
    const options: DynatwinOptions = { dataDir, clock: 'manual' };
    const TABLE = 'ttl-restart';
    const expired = 1500;
    const later = 50;
    let expiresLater = 0;
    await withTwin(options, async (twin) => {
      await createTables(twin.client, {
        TableName: TABLE,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attributes({ pk: 'S', g: 'S' }),
        KeySchema: keySchema('pk'),
        GlobalSecondaryIndexes: [globalIndex('by-g', 'g')],
      });
      await enableTtl(twin.client, TABLE);
      const now = nowSeconds(twin);
      expiresLater = now + 30;
      await putAll(twin, TABLE, [
        ...Array.from({ length: expired }, (_, n) => ({ pk: `old-${n}`, g: 'x', [TTL]: now - 1 })),
        ...Array.from({ length: later }, (_, n) => ({ pk: `later-${n}`, g: 'x', [TTL]: expiresLater })),
      ]);
      // A sweep falls due; its pass starts on the next turn of the event loop, and the server
      // closes right behind that turn: the pass stops after a chunk (of 256 items) or two.
      (twin.twin.clock as ManualClock).advance(TTL_SWEEP_INTERVAL_MS);
      await new Promise((resolve) => setImmediate(resolve));
    });
    await withTwin(options, async (twin) => {
      const clock = twin.twin.clock as ManualClock;
      const left = (await tableDescription(twin.client, TABLE)).ItemCount!;
      assert.ok(left > later && left < expired + later, `${left} items after the restart: the pass had begun and was cut short`);
      // The new clock starts at the real time again; move it past the later items' time.
      const stepMs = Math.max(0, expiresLater * 1000 - clock.nowMs()) + TTL_SWEEP_INTERVAL_MS;
      await advance(twin, stepMs);
      const described = await tableDescription(twin.client, TABLE);
      assert.equal(described.ItemCount, 0);
      assert.equal(described.GlobalSecondaryIndexes![0]!.ItemCount, 0);
      assert.equal((await metricSum(twin, TABLE, 'TimeToLiveDeletedItemCount')).sum, left);
      await expectDynamoError(twin.client.send(new UpdateTimeToLiveCommand({ TableName: TABLE, TimeToLiveSpecification: { Enabled: true, AttributeName: TTL } })), 'ValidationException', 'TimeToLive is already enabled');
    });
  });
});
