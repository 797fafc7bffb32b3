/**
 * GET /dynatwin/tables/<t>[/indexes/<gsi>]/contributor-insights (src/server/insights-routes.ts)
 * over real HTTP, on a running engine: Contributor Insights enabled through the SDK, accesses and
 * throttles recorded through the engine's ContributorInsights as the request path will, the top
 * contributors read back per rule and minute. The route is served by its own InspectionRouter
 * until server.ts registers it.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { CreateTableCommand, UpdateContributorInsightsCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import type { InsightsReport } from '../src/metrics/insights.js';
import { InspectionRouter } from '../src/server/inspection.js';
import { registerInsightsRoutes } from '../src/server/insights-routes.js';
import { DEFAULT_SERVER_OPTIONS, startServer, type RunningServer } from '../src/server/server.js';
import { rawRequest } from './support/raw.js';
import { sdkClient, uniqueTableName } from './support/client.js';
import { testServerOptions } from './support/test-store.js';

const MINUTE = 60_000;

describe('GET …/contributor-insights', () => {
  let server: RunningServer;
  let client: DynamoDBClient;
  let endpoint: string;
  let closeRoutes: () => Promise<void>;
  const internalErrors: unknown[] = [];
  const table = uniqueTableName('ci-route');

  before(async () => {
    server = await startServer(testServerOptions({ ...DEFAULT_SERVER_OPTIONS, port: 0, inMemory: true, clock: 'manual', log: () => {} }));
    client = sdkClient(server.endpoint);
    const router = new InspectionRouter((error) => internalErrors.push(error));
    registerInsightsRoutes(router, server.engine);
    const http = createServer((request, response) => router.handle(request, response));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    closeRoutes = () => new Promise<void>((resolve) => http.close(() => resolve()));
    await client.send(
      new CreateTableCommand({
        TableName: table,
        AttributeDefinitions: [
          { AttributeName: 'customer', AttributeType: 'S' },
          { AttributeName: 'order', AttributeType: 'N' },
          { AttributeName: 'day', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'customer', KeyType: 'HASH' },
          { AttributeName: 'order', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [{ IndexName: 'by-day', KeySchema: [{ AttributeName: 'day', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } }],
        LocalSecondaryIndexes: [
          {
            IndexName: 'by-day-local',
            KeySchema: [
              { AttributeName: 'customer', KeyType: 'HASH' },
              { AttributeName: 'day', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  });
  after(async () => {
    client.destroy();
    await closeRoutes();
    await server.close();
    assert.deepEqual(internalErrors, []);
  });

  async function report(path: string): Promise<{ status: number; body: InsightsReport & { error?: string } }> {
    const response = await rawRequest(endpoint, { method: 'GET', path });
    return { status: response.status, body: JSON.parse(response.text) as InsightsReport & { error?: string } };
  }

  test('a table without Contributor Insights answers DISABLED and no rules', async () => {
    const answer = await report(`/dynatwin/tables/${table}/contributor-insights`);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { table, status: 'DISABLED', rules: [] });
  });

  test('per rule and minute, the top contributors of the table and of its GSI', async () => {
    const clock = server.clock as ManualClock;
    clock.advance(MINUTE - (clock.nowMs() % MINUTE)); // start on a minute boundary
    const startMs = clock.nowMs();
    await client.send(new UpdateContributorInsightsCommand({ TableName: table, ContributorInsightsAction: 'ENABLE' }));
    await client.send(new UpdateContributorInsightsCommand({ TableName: table, IndexName: 'by-day', ContributorInsightsAction: 'ENABLE' }));
    const insights = server.engine.telemetry.insights;
    const now = () => clock.nowMs();
    for (let i = 0; i < 20; i++) insights.recordAccess(table, undefined, { S: 'big-buyer' }, { N: String(i % 2) }, 0, 1, now());
    insights.recordAccess(table, undefined, { S: 'casual' }, { N: '9' }, 0.5, 0, now());
    insights.recordAccess(table, 'by-day', { S: '2026-01-01' }, undefined, 0, 1, now());
    insights.recordThrottle(table, undefined, { S: 'big-buyer' }, { N: '0' }, now());
    clock.advance(MINUTE);
    insights.recordAccess(table, undefined, { S: 'casual' }, { N: '9' }, 1, 0, now());

    const answer = await report(`/dynatwin/tables/${table}/contributor-insights`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'ENABLED');
    assert.equal(answer.body.mode, 'ACCESSED_AND_THROTTLED_KEYS');
    assert.deepEqual(
      answer.body.rules.map((rule) => [rule.ruleName, rule.measure]),
      [
        [`DynamoDBContributorInsights-PKC-${table}-${startMs}`, 'ConsumedThroughputUnits'],
        [`DynamoDBContributorInsights-SKC-${table}-${startMs}`, 'ConsumedThroughputUnits'],
        [`DynamoDBContributorInsights-PKT-${table}-${startMs}`, 'ThrottleCount'],
        [`DynamoDBContributorInsights-SKT-${table}-${startMs}`, 'ThrottleCount'],
      ],
    );
    const [pkc, skc, pkt, skt] = answer.body.rules;
    assert.deepEqual(
      pkc!.minutes.map((minute) => [minute.startMs - startMs, minute.complete, minute.contributors.map((c) => [c.keys, c.value])]),
      [
        [0, true, [[['big-buyer'], 60], [['casual'], 0.5]]],
        [MINUTE, false, [[['casual'], 1]]],
      ],
    );
    assert.deepEqual(
      skc!.minutes[0]!.contributors.map((c) => [c.keys, c.value]),
      [
        [['big-buyer', '0'], 30],
        [['big-buyer', '1'], 30],
        [['casual', '9'], 0.5],
      ],
    );
    assert.deepEqual(pkt!.minutes[0]!.contributors, [{ keys: ['big-buyer'], value: 1, maxOverestimate: 0 }]);
    assert.deepEqual(skt!.minutes[0]!.contributors, [{ keys: ['big-buyer', '0'], value: 1, maxOverestimate: 0 }]);

    const index = await report(`/dynatwin/tables/${table}/indexes/by-day/contributor-insights`);
    assert.equal(index.body.index, 'by-day');
    assert.deepEqual(
      index.body.rules.map((rule) => rule.kind),
      ['PKC', 'PKT'],
    );
    assert.deepEqual(index.body.rules[0]!.minutes[0]!.contributors, [{ keys: ['2026-01-01'], value: 3, maxOverestimate: 0 }]);
  });

  test('an unknown table, an unknown index and an LSI answer 404', async () => {
    for (const path of [
      '/dynatwin/tables/no-such-table/contributor-insights',
      `/dynatwin/tables/${table}/indexes/ghost/contributor-insights`,
      `/dynatwin/tables/${table}/indexes/by-day-local/contributor-insights`,
    ]) {
      const answer = await report(path);
      assert.equal(answer.status, 404, path);
      assert.match(String(answer.body.error), /not found/);
    }
  });
});
