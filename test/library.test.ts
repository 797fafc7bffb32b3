/**
 * The library's helpers for test suites: startDynatwin's clock type, and reset() between tests.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { CreateTableCommand, DescribeTableCommand, ListTablesCommand, PutItemCommand, ScanCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { ManualClock, RealClock, startDynatwin, type Dynatwin } from '../src/index.js';
import { scratchDirectories } from './support/scratch.js';
import { sdkClient } from './support/client.js';
import { testTwinOptions } from './support/test-store.js';

async function createOrders(endpoint: string): Promise<void> {
  const client = sdkClient(endpoint);
  try {
    await client.send(
      new CreateTableCommand({
        TableName: 'orders',
        AttributeDefinitions: [
          { AttributeName: 'id', AttributeType: 'S' },
          { AttributeName: 'status', AttributeType: 'S' },
        ],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        GlobalSecondaryIndexes: [{ IndexName: 'by-status', KeySchema: [{ AttributeName: 'status', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  } finally {
    client.destroy();
  }
}

/** How many datapoints the table's metrics hold, all metrics together. */
async function datapointsOf(twin: Dynatwin, table: string): Promise<number> {
  const response = await fetch(`${twin.endpoint}/dynatwin/metrics?table=${table}&period=1`);
  assert.equal(response.status, 200);
  const { metrics } = (await response.json()) as { metrics: { datapoints: unknown[] }[] };
  return metrics.reduce((sum, metric) => sum + metric.datapoints.length, 0);
}

describe('library', () => {
  const scratch = scratchDirectories('dynatwin-library-');
  after(() => scratch.removeAll());

  test("clock: 'manual' gives a ManualClock, typed as one", async () => {
    const twin = await startDynatwin(testTwinOptions({ clock: 'manual' }));
    try {
      // Type-checks only because startDynatwin's overload types the clock as ManualClock.
      const startMs = twin.clock.nowMs();
      assert.equal(twin.clock.advance(60_000), startMs + 60_000);
      assert.ok(twin.clock instanceof ManualClock);
    } finally {
      await twin.close();
    }
    const real = await startDynatwin(testTwinOptions({}));
    try {
      assert.ok(real.clock instanceof RealClock);
      // @ts-expect-error a real clock cannot be advanced, and its type says so
      assert.equal(typeof real.clock.advance, 'undefined');
    } finally {
      await real.close();
    }
  });

  for (const store of ['memory', 'lmdb'] as const) {
    test(`reset() deletes every table and forgets metrics, on the same endpoint (${store})`, async () => {
      const dataDir = store === 'lmdb' ? scratch.fresh() : undefined;
      const twin = await startDynatwin(testTwinOptions({ clock: 'manual', ...(dataDir === undefined ? {} : { dataDir }) }));
      const client = sdkClient(twin.endpoint);
      try {
        await createOrders(twin.endpoint);
        await client.send(new UpdateTimeToLiveCommand({ TableName: 'orders', TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } }));
        for (let index = 0; index < 300; index++) {
          await client.send(new PutItemCommand({ TableName: 'orders', Item: { id: { S: `o${index}` }, status: { S: index % 2 === 0 ? 'open' : 'shipped' } } }));
        }
        await client.send(new CreateTableCommand({ TableName: 'other', AttributeDefinitions: [{ AttributeName: 'k', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'k', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }));
        assert.ok((await datapointsOf(twin, 'orders')) > 0);
        const nowMs = twin.clock.nowMs();

        await twin.reset();

        assert.deepEqual((await client.send(new ListTablesCommand({}))).TableNames, []);
        assert.equal(await datapointsOf(twin, 'orders'), 0);
        assert.equal(twin.clock.nowMs(), nowMs, 'the clock keeps its time');
        // The names are free again, and the new table starts empty, without the old TTL setting.
        await createOrders(twin.endpoint);
        const described = await client.send(new DescribeTableCommand({ TableName: 'orders' }));
        assert.equal(described.Table?.ItemCount, 0);
        assert.deepEqual((await client.send(new ScanCommand({ TableName: 'orders' }))).Items, []);
        assert.deepEqual((await client.send(new ScanCommand({ TableName: 'orders', IndexName: 'by-status' }))).Items, []);
        await client.send(new PutItemCommand({ TableName: 'orders', Item: { id: { S: 'new' }, status: { S: 'open' } } }));
        assert.equal((await client.send(new ScanCommand({ TableName: 'orders', IndexName: 'by-status' }))).Count, 1);
      } finally {
        client.destroy();
        await twin.close();
      }
      if (dataDir === undefined) return;
      // What reset removed stays removed after a restart.
      const again = await startDynatwin(testTwinOptions({ dataDir }));
      const againClient = sdkClient(again.endpoint);
      try {
        assert.deepEqual((await againClient.send(new ListTablesCommand({}))).TableNames, ['orders']);
        assert.equal((await againClient.send(new ScanCommand({ TableName: 'orders' }))).Count, 1);
      } finally {
        againClient.destroy();
        await again.close();
      }
    });
  }
});
