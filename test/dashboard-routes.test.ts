/**
 * The dashboard's routes without a browser (src/server/dashboard-routes.ts): the page and every
 * asset it loads (found from the compiled file, as in a clean clone), the tables list, and the heat
 * map JSON (partition history joined with the partition map), with its parameters and errors.
 * Served by their own InspectionRouter over a real engine, as server.ts serves them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import type { HeatmapDocument, TablesDocument } from '../src/server/dashboard-routes.js';
import type { RunningServer } from '../src/server/server.js';
import { serveDashboard, startManualServer, type ServedDashboard } from './support/dashboard.js';
import { rawRequest } from './support/raw.js';
import { attributes, createTables, globalIndex, keySchema, localIndex } from './support/tables.js';


async function get(endpoint: string, path: string): Promise<{ status: number; type: string; text: string }> {
  const response = await rawRequest(endpoint, { method: 'GET', path });
  return { status: response.status, type: String(response.headers['content-type']), text: response.text };
}

async function getJson<T>(endpoint: string, path: string): Promise<{ status: number; body: T }> {
  const response = await get(endpoint, path);
  assert.match(response.type, /^application\/json/, path);
  return { status: response.status, body: JSON.parse(response.text) as T };
}

describe('dashboard routes', () => {
  let server: RunningServer;
  let served: ServedDashboard;
  let client: DynamoDBClient;
  let clock: ManualClock;

  before(async () => {
    ({ server, clock, client } = await startManualServer());
    await createTables(
      client,
      {
        TableName: 'orders',
        AttributeDefinitions: attributes({ id: 'S', status: 'S' }),
        KeySchema: keySchema('id'),
        BillingMode: 'PROVISIONED',
        ProvisionedThroughput: { ReadCapacityUnits: 5000, WriteCapacityUnits: 500 },
        GlobalSecondaryIndexes: [
          globalIndex('by-status', 'status', { Projection: { ProjectionType: 'KEYS_ONLY' }, ProvisionedThroughput: { ReadCapacityUnits: 100, WriteCapacityUnits: 100 } }),
        ],
      },
      {
        TableName: 'events',
        AttributeDefinitions: attributes({ pk: 'S', sk: 'S', at: 'N' }),
        KeySchema: keySchema('pk', 'sk'),
        BillingMode: 'PAY_PER_REQUEST',
        LocalSecondaryIndexes: [localIndex('by-time', 'pk', 'at')],
      },
    );
    served = await serveDashboard(server.engine, clock);
  });

  after(async () => {
    await served.close();
    client.destroy();
    await server.close();
    assert.deepEqual(served.internalErrors, [], 'no route answered 500');
  });

  test('GET /dynatwin/ serves the page, and every asset it loads is served with its type', async () => {
    for (const path of ['/dynatwin/', '/dynatwin']) {
      const page = await get(served.endpoint, path);
      assert.equal(page.status, 200, path);
      assert.equal(page.type, 'text/html; charset=utf-8');
      assert.match(page.text, /<script type="module" src="\/dynatwin\/assets\/app\.js"><\/script>/);
    }
    // The page's own references, then the modules' relative imports, transitively.
    const page = await get(served.endpoint, '/dynatwin/');
    const pending = [...page.text.matchAll(/(?:src|href)="\/dynatwin\/assets\/([^"]+)"/g)].map((match) => match[1]!);
    assert.deepEqual(pending.sort(), ['app.js', 'dashboard.css']);
    const seen = new Set<string>();
    while (pending.length > 0) {
      const name = pending.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      const asset = await get(served.endpoint, `/dynatwin/assets/${name}`);
      assert.equal(asset.status, 200, name);
      assert.equal(asset.type, name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8', name);
      for (const match of asset.text.matchAll(/from '\.\/([a-z0-9-]+\.js)'/g)) pending.push(match[1]!);
    }
    assert.deepEqual([...seen].sort(), ['api.js', 'app.js', 'charts.js', 'dashboard.css', 'format.js', 'heatmap.js', 'insights.js', 'scaling.js']);
  });

  test('unknown or unsafe asset names answer 404', async () => {
    for (const path of ['/dynatwin/assets/nope.js', '/dynatwin/assets/..%2Fpackage.json', '/dynatwin/assets/index.html', '/dynatwin/assets/.hidden.js']) {
      const answer = await getJson<{ error: string }>(served.endpoint, path);
      assert.equal(answer.status, 404, path);
      assert.match(answer.body.error, /no such dashboard asset/, path);
    }
  });

  test('GET /dynatwin/tables lists tables with their GSIs, billing, provisioned units and partitions', async () => {
    const answer = await getJson<TablesDocument>(served.endpoint, '/dynatwin/tables');
    assert.equal(answer.status, 200);
    assert.equal(answer.body.nowMs, clock.nowMs());
    assert.deepEqual(answer.body.tables, [
      {
        name: 'events',
        status: 'ACTIVE',
        billingMode: 'PAY_PER_REQUEST',
        provisioned: null,
        itemCount: 0,
        sizeBytes: 0,
        partitionCount: 4,
        partitionModel: 'modern',
        contributorInsights: 'DISABLED',
        indexes: [],
        localIndexes: ['by-time'],
        stream: null,
      },
      {
        name: 'orders',
        status: 'ACTIVE',
        billingMode: 'PROVISIONED',
        provisioned: { readCapacityUnits: 5000, writeCapacityUnits: 500 },
        itemCount: 0,
        sizeBytes: 0,
        partitionCount: 2,
        partitionModel: 'modern',
        contributorInsights: 'DISABLED',
        indexes: [
          {
            name: 'by-status',
            status: 'ACTIVE',
            provisioned: { readCapacityUnits: 100, writeCapacityUnits: 100 },
            itemCount: 0,
            sizeBytes: 0,
            partitionCount: 1,
            contributorInsights: 'DISABLED',
          },
        ],
        localIndexes: [],
        stream: null,
      },
    ]);
    const bad = await getJson<{ error: string }>(served.endpoint, '/dynatwin/tables?x=1');
    assert.equal(bad.status, 400);
  });

  test('GET /dynatwin/tables serves each table from its cached JSON until the table changes, and never a table that is gone', async () => {
    const { TablesJsonCache, tablesDocument } = await import('../src/server/dashboard-routes.js');
    const cache = new TablesJsonCache();
    const engine = server.engine;
    // Every answer equals the document built from scratch, whatever the cache holds.
    const check = (): TablesDocument => {
      const cached = JSON.parse(cache.document(engine)) as TablesDocument;
      assert.deepEqual(cached, JSON.parse(JSON.stringify(tablesDocument(engine))));
      return cached;
    };
    check();
    check();
    const { PutItemCommand, CreateTableCommand, DeleteTableCommand } = await import('@aws-sdk/client-dynamodb');
    await client.send(new PutItemCommand({ TableName: 'events', Item: { pk: { S: 'a' }, sk: { S: '1' }, at: { N: '1' } } }));
    assert.equal(check().tables.find((table) => table.name === 'events')?.itemCount, 1);
    await client.send(new CreateTableCommand({ TableName: 'cached-extra', AttributeDefinitions: attributes({ id: 'S' }), KeySchema: keySchema('id'), BillingMode: 'PAY_PER_REQUEST' }));
    assert.ok(check().tables.some((table) => table.name === 'cached-extra'));
    await client.send(new DeleteTableCommand({ TableName: 'cached-extra' }));
    assert.ok(!check().tables.some((table) => table.name === 'cached-extra'));
    const { DeleteItemCommand } = await import('@aws-sdk/client-dynamodb');
    await client.send(new DeleteItemCommand({ TableName: 'events', Key: { pk: { S: 'a' }, sk: { S: '1' } } }));
    assert.equal(check().tables.find((table) => table.name === 'events')?.itemCount, 0);
  });

  test('GET …/heatmap joins the partition history with the partition map', async () => {
    const engine = server.engine;
    const table = engine.catalog.get('orders')!;
    const [low, high] = table.partitions.map.list();
    const history = engine.telemetry.partitionHistory.resource('orders');
    const start = Math.ceil(clock.nowMs() / 60_000) * 60_000 + 60_000;
    clock.advance(start - clock.nowMs());
    history.record(high!.id, 'write', 250, start);
    history.record(high!.id, 'write', 125, start + 1_000);
    history.recordThrottle(high!.id, 'write', start + 1_000);
    history.record(low!.id, 'read', 0.5, start + 2_000);
    clock.advance(2_500);

    const answer = await getJson<HeatmapDocument>(served.endpoint, '/dynatwin/tables/orders/heatmap');
    assert.equal(answer.status, 200);
    const doc = answer.body;
    assert.equal(doc.table, 'orders');
    assert.equal(doc.index, null);
    assert.equal(doc.billingMode, 'PROVISIONED');
    assert.deepEqual(doc.provisioned, { readCapacityUnits: 5000, writeCapacityUnits: 500 });
    assert.equal(doc.nowMs, start + 2_500);
    assert.equal(doc.periodSeconds, 1);
    assert.equal(doc.bucketCount, 600, 'ten minutes of 1-second buckets by default');
    assert.equal(doc.startMs, start + 2_000 - 599_000);
    assert.equal(doc.windowStartMs, doc.startMs);
    assert.deepEqual(
      doc.partitions.map((partition) => [partition.id, partition.hashRange, partition.readUnitsPerSecond, partition.writeUnitsPerSecond]),
      [
        [low!.id, ['00000000', '7fffffff'], 2500, 250],
        [high!.id, ['80000000', 'ffffffff'], 2500, 250],
      ],
    );
    const hot = doc.partitions[1]!;
    assert.equal(hot.writeUnits.length, 600);
    assert.deepEqual(hot.writeUnits.slice(-3), [250, 125, 0]);
    assert.deepEqual(hot.writeThrottles.slice(-3), [0, 1, 0]);
    assert.deepEqual(hot.readUnits, [], 'all zeros are sent as []');
    assert.deepEqual(hot.readThrottles, []);
    assert.deepEqual(doc.partitions[0]!.readUnits.slice(-1), [0.5]);
    assert.deepEqual(doc.partitions[0]!.writeUnits, []);

    // Incremental: only the buckets from `since`.
    const since = await getJson<HeatmapDocument>(served.endpoint, `/dynatwin/tables/orders/heatmap?since=${start + 1_000}`);
    assert.equal(since.body.startMs, start + 1_000);
    assert.equal(since.body.bucketCount, 2);
    assert.equal(since.body.windowStartMs, doc.windowStartMs);
    assert.deepEqual(since.body.partitions[1]!.writeUnits, [125, 0]);
    const future = await getJson<HeatmapDocument>(served.endpoint, `/dynatwin/tables/orders/heatmap?since=${start + 60_000}`);
    assert.equal(future.body.bucketCount, 0);
    const ancient = await getJson<HeatmapDocument>(served.endpoint, `/dynatwin/tables/orders/heatmap?since=0&minutes=1`);
    assert.equal(ancient.body.bucketCount, 60, 'since is clamped to the window');

    // One-minute buckets over the last hour by default.
    const minutes = await getJson<HeatmapDocument>(served.endpoint, '/dynatwin/tables/orders/heatmap?period=60');
    assert.equal(minutes.body.periodSeconds, 60);
    assert.equal(minutes.body.bucketCount, 180);
    assert.deepEqual(minutes.body.partitions[1]!.writeUnits.slice(-1), [375]);

    // An hour of seconds.
    const hour = await getJson<HeatmapDocument>(served.endpoint, '/dynatwin/tables/orders/heatmap?period=1&minutes=60');
    assert.equal(hour.body.bucketCount, 3600);
  });

  test('GSIs have their own partitions; an LSI or unknown index or table answers 404; bad parameters 400', async () => {
    const gsi = await getJson<HeatmapDocument>(served.endpoint, '/dynatwin/tables/orders/heatmap?index=by-status&minutes=1');
    assert.equal(gsi.status, 200);
    assert.equal(gsi.body.index, 'by-status');
    assert.deepEqual(gsi.body.provisioned, { readCapacityUnits: 100, writeCapacityUnits: 100 });
    assert.equal(gsi.body.partitions.length, 1);
    assert.equal(gsi.body.partitions[0]!.writeUnitsPerSecond, 100);
    assert.equal(gsi.body.bucketCount, 60);

    const onDemand = await getJson<HeatmapDocument>(served.endpoint, '/dynatwin/tables/events/heatmap');
    assert.equal(onDemand.body.provisioned, null);
    assert.deepEqual(
      onDemand.body.partitions.map((partition) => partition.writeUnitsPerSecond),
      [1000, 1000, 1000, 1000],
    );

    const cases: [string, number, RegExp][] = [
      ['/dynatwin/tables/nope/heatmap', 404, /table not found: nope/],
      ['/dynatwin/tables/orders/heatmap?index=nope', 404, /global secondary index not found: nope/],
      ['/dynatwin/tables/events/heatmap?index=by-time', 404, /local secondary index/],
      ['/dynatwin/tables/orders/heatmap?period=5', 400, /period must be 1 or 60/],
      ['/dynatwin/tables/orders/heatmap?minutes=61', 400, /minutes must be an integer from 1 to 60/],
      ['/dynatwin/tables/orders/heatmap?period=60&minutes=181', 400, /from 1 to 180/],
      ['/dynatwin/tables/orders/heatmap?minutes=0', 400, /minutes/],
      ['/dynatwin/tables/orders/heatmap?since=-1', 400, /since must be epoch milliseconds/],
      ['/dynatwin/tables/orders/heatmap?perid=1', 400, /unknown parameter "perid"/],
      ['/dynatwin/tables/orders/heatmap?period=1&period=60', 400, /more than once/],
    ];
    for (const [path, status, message] of cases) {
      const answer = await getJson<{ error: string }>(served.endpoint, path);
      assert.equal(answer.status, status, path);
      assert.match(answer.body.error, message, path);
    }
  });
});

