/**
 * The metrics HTTP API (src/server/metrics-routes.ts) over real HTTP: GET /dynatwin/metrics (JSON
 * datapoints, 400s for bad parameters) and GET /metrics (Prometheus text). The routes are served by
 * their own InspectionRouter here, as server.ts will serve them; the gauge test samples a real
 * engine's catalog.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { ManualClock } from '../src/clock.js';
import { MetricsRegistry } from '../src/metrics/registry.js';
import { InspectionRouter } from '../src/server/inspection.js';
import { registerMetricsRoutes } from '../src/server/metrics-routes.js';
import { DEFAULT_SERVER_OPTIONS, startServer, type RunningServer } from '../src/server/server.js';
import { rawRequest } from './support/raw.js';
import { sdkClient, uniqueTableName } from './support/client.js';
import { testServerOptions } from './support/test-store.js';

const T0 = Date.UTC(2026, 0, 1);

interface Served {
  readonly endpoint: string;
  close(): Promise<void>;
}

/** An HTTP server answering every request with the router, as the request handler does for /dynatwin and /metrics. */
async function serve(router: InspectionRouter): Promise<Served> {
  const server = createServer((request, response) => router.handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function getJson(endpoint: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await rawRequest(endpoint, { method: 'GET', path });
  assert.match(String(response.headers['content-type']), /^application\/json/);
  return { status: response.status, body: JSON.parse(response.text) as Record<string, unknown> };
}

/** Route bugs (500s) land here; every test file ends by checking there were none. */
const internalErrors: unknown[] = [];
after(() => assert.deepEqual(internalErrors, []));

interface MetricAnswer {
  readonly metric: string;
  readonly dimensions: Record<string, string>;
  readonly datapoints: readonly Record<string, unknown>[];
}

describe('GET /dynatwin/metrics and GET /metrics', () => {
  const clock = new ManualClock(T0);
  const metrics = new MetricsRegistry();
  const readTimes: number[] = [];
  let served: Served;

  before(async () => {
    const router = new InspectionRouter((error) => internalErrors.push(error));
    registerMetricsRoutes(router, metrics, clock, { beforeRead: (nowMs) => readTimes.push(nowMs) });
    served = await serve(router);
    metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders' }).record(2, T0 + 100);
    metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders' }).record(4, T0 + 1_100);
    metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders', index: 'by-day' }).record(1, T0 + 100);
    metrics.series({ metric: 'ThrottledRequests', table: 'orders', operation: 'PutItem' }).record(1, T0 + 100);
    metrics.series({ metric: 'UserErrors' }).record(1, T0 + 100);
    clock.advance(61_000);
  });
  after(() => served.close());

  test('one metric of a table at 1-second resolution', async () => {
    const answer = await getJson(served.endpoint, '/dynatwin/metrics?table=orders&metric=ConsumedReadCapacityUnits&period=1');
    assert.equal(answer.status, 200);
    assert.equal(answer.body['table'], 'orders');
    assert.equal(answer.body['periodSeconds'], 1);
    assert.equal(answer.body['endMs'], T0 + 61_000);
    assert.deepEqual(answer.body['metrics'], [
      {
        metric: 'ConsumedReadCapacityUnits',
        unit: 'Count',
        dimensions: { TableName: 'orders' },
        datapoints: [
          { Timestamp: '2026-01-01T00:00:00.000Z', Sum: 2, Average: 2, Minimum: 2, Maximum: 2, SampleCount: 1 },
          { Timestamp: '2026-01-01T00:00:01.000Z', Sum: 4, Average: 4, Minimum: 4, Maximum: 4, SampleCount: 1 },
        ],
      },
    ]);
    assert.equal(readTimes.at(-1), T0 + 61_000, 'the beforeRead hook ran with the clock time');
  });

  test('every metric of a table (1-minute by default), of a GSI, and the account-level UserErrors', async () => {
    const table = await getJson(served.endpoint, '/dynatwin/metrics?table=orders');
    assert.equal(table.body['periodSeconds'], 60);
    const tableMetrics = table.body['metrics'] as MetricAnswer[];
    assert.deepEqual(tableMetrics.find((metric) => metric.metric === 'ConsumedReadCapacityUnits')!.datapoints.map((point) => point['Sum']), [6]);
    assert.deepEqual(tableMetrics.find((metric) => metric.metric === 'ThrottledRequests')!.dimensions, { TableName: 'orders', Operation: 'PutItem' });
    assert.ok(tableMetrics.some((metric) => metric.metric === 'ReadMaxOnDemandThroughputThrottleEvents' && metric.datapoints.length === 0));

    const index = await getJson(served.endpoint, '/dynatwin/metrics?table=orders&index=by-day&metric=ConsumedReadCapacityUnits');
    assert.deepEqual((index.body['metrics'] as MetricAnswer[])[0]!.dimensions, { TableName: 'orders', GlobalSecondaryIndexName: 'by-day' });

    const userErrors = await getJson(served.endpoint, '/dynatwin/metrics?metric=UserErrors');
    assert.equal(((userErrors.body['metrics'] as MetricAnswer[])[0]!.datapoints[0]!)['Sum'], 1);
  });

  test('startMs and endMs bound the buckets', async () => {
    const answer = await getJson(served.endpoint, `/dynatwin/metrics?table=orders&metric=ConsumedReadCapacityUnits&period=1&startMs=${T0 + 1_000}&endMs=${T0 + 2_000}`);
    assert.deepEqual((answer.body['metrics'] as MetricAnswer[])[0]!.datapoints.map((point) => point['Sum']), [4]);
  });

  test('bad parameters answer 400 with a JSON error', async () => {
    const cases: [string, RegExp][] = [
      ['/dynatwin/metrics?table=orders&tabel=x', /unknown parameter "tabel"/],
      ['/dynatwin/metrics?table=orders&table=users', /more than once/],
      ['/dynatwin/metrics?table=orders&period=5', /period must be 1 or 60/],
      ['/dynatwin/metrics?table=o!', /table must be 3 to 255/],
      ['/dynatwin/metrics?table=orders&index=xy', /index must be 3 to 255/],
      ['/dynatwin/metrics?table=orders&metric=ConsumedReadUnits', /unknown metric "ConsumedReadUnits"/],
      ['/dynatwin/metrics?table=orders&operation=Frobnicate', /unknown operation/],
      ['/dynatwin/metrics?table=orders&startMs=-5', /startMs must be epoch milliseconds/],
      [`/dynatwin/metrics?table=orders&startMs=${T0 + 10}&endMs=${T0}`, /startMs must not be after endMs/],
      ['/dynatwin/metrics', /table is required/],
      ['/dynatwin/metrics?table=orders&metric=UserErrors', /account-level/],
      ['/dynatwin/metrics?table=orders&index=by-day&metric=ThrottledRequests', /no GlobalSecondaryIndexName/],
      ['/dynatwin/metrics?table=orders&metric=ConsumedReadCapacityUnits&operation=GetItem', /no Operation/],
    ];
    for (const [path, message] of cases) {
      const answer = await getJson(served.endpoint, path);
      assert.equal(answer.status, 400, path);
      assert.match(String(answer.body['error']), message, path);
    }
  });

  test('GET /metrics is the Prometheus text page', async () => {
    const response = await rawRequest(served.endpoint, { method: 'GET', path: '/metrics' });
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    assert.ok(response.text.includes('# TYPE dynamodb_consumed_read_capacity_units gauge\n'));
    assert.ok(response.text.includes('dynamodb_consumed_read_capacity_units{table="orders"} 6\n'));
    assert.ok(response.text.includes('dynamodb_throttled_requests{table="orders",operation="PutItem"} 1\n'));
    const post = await rawRequest(served.endpoint, { method: 'POST', path: '/metrics' });
    assert.equal(post.status, 405);
  });
});

describe('gauges sampled from a running engine', () => {
  let server: RunningServer;
  let served: Served;

  before(async () => {
    server = await startServer(testServerOptions({ ...DEFAULT_SERVER_OPTIONS, port: 0, inMemory: true, clock: 'manual', log: () => {} }));
    const router = new InspectionRouter((error) => internalErrors.push(error));
    const engine = server.engine;
    registerMetricsRoutes(router, engine.telemetry.metrics, server.clock, {
      beforeRead: (nowMs) => engine.telemetry.sampleGauges(engine.catalog, nowMs),
    });
    served = await serve(router);
  });
  after(async () => {
    await served.close();
    await server.close();
  });

  test('ProvisionedRead/WriteCapacityUnits of a provisioned table and its GSI, at most one sample per second', async () => {
    const client = sdkClient(server.endpoint);
    const name = uniqueTableName('gauges');
    try {
      await client.send(
        new CreateTableCommand({
          TableName: name,
          AttributeDefinitions: [
            { AttributeName: 'pk', AttributeType: 'S' },
            { AttributeName: 'g', AttributeType: 'S' },
          ],
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 7 },
          GlobalSecondaryIndexes: [
            {
              IndexName: 'by-g',
              KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }],
              Projection: { ProjectionType: 'KEYS_ONLY' },
              ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 3 },
            },
          ],
        }),
      );
    } finally {
      client.destroy();
    }
    const table = await getJson(served.endpoint, `/dynatwin/metrics?table=${name}&metric=ProvisionedWriteCapacityUnits&period=1`);
    const point = (table.body['metrics'] as MetricAnswer[])[0]!.datapoints[0]!;
    assert.equal(point['Maximum'], 7);
    assert.equal(point['SampleCount'], 1);
    const index = await getJson(served.endpoint, `/dynatwin/metrics?table=${name}&index=by-g&metric=ProvisionedReadCapacityUnits&period=1`);
    assert.equal((index.body['metrics'] as MetricAnswer[])[0]!.datapoints[0]!['Maximum'], 2);
    assert.equal(server.engine.telemetry.sampleGauges(server.engine.catalog, server.clock.nowMs()), false, 'already sampled this second');

    const page = await rawRequest(served.endpoint, { method: 'GET', path: '/metrics' });
    assert.ok(page.text.includes(`dynamodb_provisioned_read_capacity_units{table="${name}"} 5\n`));
    assert.ok(page.text.includes(`dynamodb_provisioned_write_capacity_units{table="${name}",index="by-g"} 3\n`));
  });
});
