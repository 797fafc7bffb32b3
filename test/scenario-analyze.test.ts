/**
 * `dynatwin analyze` (issue 18): a running twin (manual clock) takes seed article 000's load —
 * BatchWriteItems of new UN_USED items at 2,000 items per simulated second through the SDK — with
 * Contributor Insights on the GSI; then analyze reads the table over HTTP and names the
 * low-cardinality GSI key, as the simulation does. Through the library and the CLI.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { BatchWriteItemCommand, CreateTableCommand, UpdateContributorInsightsCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import { analyzeTable } from '../src/scenarios/analyze.js';
import { runCli } from './support/process.js';
import { seedArticleTable } from './support/seeds.js';
import { startTwinWithClients, type TwinClients } from './support/twin.js';

const TABLE = 'test';
const INDEX = 'gsi-status';
const SECONDS = 20;
const ITEMS_PER_SECOND = 2000;

describe('dynatwin analyze against a running twin after a workload', () => {
  let clients: TwinClients;
  let written = 0;
  let refused = 0;

  before(async () => {
    // A small back-pressure bound, so the GSI refuses writes within the 20 s of load.
    clients = await startTwinWithClients({ clock: 'manual', capacitySettings: { gsiBacklogWriteUnitsMax: 5000 } });
    const clock = clients.twin.clock as ManualClock;
    await clients.client.send(new CreateTableCommand(seedArticleTable(TABLE, { index: INDEX })));
    await clients.client.send(new UpdateContributorInsightsCommand({ TableName: TABLE, IndexName: INDEX, ContributorInsightsAction: 'ENABLE' }));
    await clients.client.send(new UpdateContributorInsightsCommand({ TableName: TABLE, ContributorInsightsAction: 'ENABLE' }));
    for (let second = 0; second < SECONDS; second++) {
      const batches: Promise<void>[] = [];
      for (let batch = 0; batch < ITEMS_PER_SECOND / 25; batch++) {
        const requests: WriteRequest[] = [];
        for (let item = 0; item < 25; item++) requests.push({ PutRequest: { Item: { id: { S: `item-${second}-${batch}-${item}` }, status: { S: 'UN_USED' } } } });
        batches.push(
          clients.client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: requests } })).then(
            (answer) => {
              const left = answer.UnprocessedItems?.[TABLE]?.length ?? 0;
              refused += left;
              written += 25 - left;
            },
            (error: Error) => {
              if (error.name !== 'ThrottlingException' && error.name !== 'ProvisionedThroughputExceededException') throw error;
              refused += 25;
            },
          ),
        );
      }
      await Promise.all(batches);
      clock.advance(1000);
    }
  });
  after(() => clients?.close());

  test('the library names the low-cardinality GSI key from the partitions, metrics and Contributor Insights', async () => {
    assert.ok(refused > 0 && written > 0, `the load throttled: ${written} written, ${refused} refused`);
    const report = await analyzeTable({ endpoint: clients.twin.endpoint, table: TABLE, minutes: 5 });
    assert.equal(report.partitionModel, 'modern');
    assert.deepEqual(report.resources.map((resource) => resource.name), [TABLE, `${TABLE}/index/${INDEX}`]);
    const gsi = report.resources[1]!;
    assert.ok(gsi.throttleEvents > 0, `the GSI's refusals: ${gsi.throttleEvents}`);
    assert.ok(gsi.contributorInsights);
    assert.equal(Math.round(report.resources[0]!.writeUnits), written, 'the table consumed a write unit per item written');
    const finding = report.findings.find((candidate) => candidate.code === 'LOW_CARDINALITY_GSI_KEY');
    assert.ok(finding, JSON.stringify(report.findings));
    assert.equal(finding.resource, `${TABLE}/index/${INDEX}`);
    assert.equal(finding.severity, 'error');
    assert.equal(finding.figures.topValue, 'UN_USED');
    assert.equal(finding.figures.topValueShare, 1);
    assert.equal(finding.figures.distinctValues, 1);
    assert.match(finding.fixes[0]!, /^Sparse index keyed per item/);
    // Per-item table keys: no key finding on the table.
    assert.equal(report.findings.some((candidate) => candidate.resource === TABLE), false);
  });

  test('the CLI prints the same finding; a bad flag or an unreachable twin is one line', async () => {
    const outcome = await runCli(['analyze', '--endpoint', clients.twin.endpoint, '--table', TABLE, '--minutes', '5'], { timeoutMs: 120_000 });
    assert.equal(outcome.status, 0, outcome.stderr);
    assert.match(outcome.stdout, /^Table test \(modern partition model\)/);
    assert.match(outcome.stdout, /\[error\] LOW_CARDINALITY_GSI_KEY on test\/index\/gsi-status: GSI partition key 'status' took 1 value; 'UN_USED' is 100%/);
    const missing = await runCli(['analyze', '--endpoint', clients.twin.endpoint], { timeoutMs: 120_000 });
    assert.equal(missing.status, 2);
    assert.equal(missing.stderr, 'dynatwin analyze: --table is required\n');
    const unknown = await runCli(['analyze', '--endpoint', clients.twin.endpoint, '--table', 'nope'], { timeoutMs: 120_000 });
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /^dynatwin analyze: table 'nope' is not on http:\/\/127\.0\.0\.1:\d+ \(tables: test\)\n$/);
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const port = (server.address() as AddressInfo).port;
        server.close(() => resolve(port));
      });
    });
    const unreachable = await runCli(['analyze', '--endpoint', `http://127.0.0.1:${closedPort}`, '--table', TABLE], { timeoutMs: 120_000 });
    assert.equal(unreachable.status, 1);
    assert.equal(unreachable.stderr, `dynatwin analyze: cannot reach http://127.0.0.1:${closedPort}/dynatwin/tables: ECONNREFUSED\n`);
  });
});
