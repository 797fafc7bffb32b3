/**
 * `dynatwin analyze` (issue 18): a running twin (manual clock) takes seed article 000's load —
 * BatchWriteItems of new UN_USED items at 2,000 items per simulated second through the SDK — with
 * Contributor Insights on the GSI; then analyze reads the table over HTTP and names the
 * low-cardinality GSI key, as the simulation does. Through the library and the CLI. Then the
 * HOT-PARTITIONS recipe itself, against CloudWatch's figures and simulate's finding.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { GetMetricStatisticsCommand, CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { BatchWriteItemCommand, CreateTableCommand, UpdateContributorInsightsCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import { analyzeTable } from '../src/scenarios/analyze.js';
import { withDurationLimit } from '../src/scenarios/command.js';
import { simulate } from '../src/scenarios/simulate.js';
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

/**
 * One number for one fact (issue 34): docs/HOT-PARTITIONS.md's recipe — seed article 000 at its
 * defaults, 80 BatchWriteItems of 25 new UN_USED items per second for 100 s on a manual clock,
 * Contributor Insights on the table from the start and on the GSI from second 50 (so the two cover
 * different minutes) — then analyze: the GSI's throttles are CloudWatch's, counted once, and the
 * finding quotes what simulate quotes for the same load (status-gsi, its first 100 s).
 */
describe('dynatwin analyze on the HOT-PARTITIONS recipe agrees with CloudWatch and with simulate', () => {
  const RECIPE_SECONDS = 100;
  let clients: TwinClients;
  let refused = 0;
  let startMs = 0;

  before(async () => {
    clients = await startTwinWithClients({ clock: 'manual' });
    const clock = clients.twin.clock as ManualClock;
    startMs = clock.nowMs();
    await clients.client.send(new CreateTableCommand(seedArticleTable(TABLE, { index: INDEX })));
    await clients.client.send(new UpdateContributorInsightsCommand({ TableName: TABLE, ContributorInsightsAction: 'ENABLE' }));
    let next = 0;
    for (let second = 1; second <= RECIPE_SECONDS; second++) {
      if (second === 50) await clients.client.send(new UpdateContributorInsightsCommand({ TableName: TABLE, IndexName: INDEX, ContributorInsightsAction: 'ENABLE' }));
      const batches: Promise<void>[] = [];
      for (let batch = 0; batch < ITEMS_PER_SECOND / 25; batch++) {
        const requests: WriteRequest[] = [];
        for (let item = 0; item < 25; item++) requests.push({ PutRequest: { Item: { id: { S: `recipe-${next++}` }, status: { S: 'UN_USED' } } } });
        batches.push(
          clients.client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: requests } })).then(
            (answer) => {
              refused += answer.UnprocessedItems?.[TABLE]?.length ?? 0;
            },
            (error: Error) => {
              if (error.name !== 'ThrottlingException') throw error;
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

  test("the GSI's throttle count is CloudWatch's WriteThrottleEvents, counted once; the table's too", async () => {
    const report = await analyzeTable({ endpoint: clients.twin.endpoint, table: TABLE, minutes: 5 });
    const cloudWatch = new CloudWatchClient({ endpoint: clients.twin.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
    try {
      const throttlesOf = async (dimensions: { Name: string; Value: string }[]): Promise<number> => {
        const answer = await cloudWatch.send(
          new GetMetricStatisticsCommand({ Namespace: 'AWS/DynamoDB', MetricName: 'WriteThrottleEvents', Dimensions: dimensions, StartTime: new Date(startMs - 60_000), EndTime: new Date(startMs + 10 * 60_000), Period: 60, Statistics: ['Sum'] }),
        );
        return (answer.Datapoints ?? []).reduce((total, point) => total + (point.Sum ?? 0), 0);
      };
      const gsiThrottles = await throttlesOf([{ Name: 'TableName', Value: TABLE }, { Name: 'GlobalSecondaryIndexName', Value: INDEX }]);
      const tableThrottles = await throttlesOf([{ Name: 'TableName', Value: TABLE }]);
      assert.equal(gsiThrottles, refused, 'CloudWatch counts each refused item once, on the GSI');
      assert.equal(report.resources[1]!.throttleEvents, gsiThrottles);
      assert.equal(report.resources[0]!.throttleEvents, tableThrottles);
    } finally {
      cloudWatch.destroy();
    }
  });

  test('the finding quotes the ceiling, the rates and the K that simulate quotes for the same load', async () => {
    const report = await analyzeTable({ endpoint: clients.twin.endpoint, table: TABLE, minutes: 5 });
    const analyzed = report.findings.find((finding) => finding.code === 'LOW_CARDINALITY_GSI_KEY');
    assert.ok(analyzed, JSON.stringify(report.findings));
    const example = JSON.parse(readFileSync(new URL('../../examples/scenarios/status-gsi.json', import.meta.url), 'utf8')) as unknown;
    const simulated = (await simulate(withDurationLimit(example, RECIPE_SECONDS))).variants.find((variant) => variant.name === 'status-gsi')!;
    const expected = simulated.findings.find((finding) => finding.code === 'LOW_CARDINALITY_GSI_KEY')!;
    for (const figure of ['topValue', 'topValueShare', 'distinctValues', 'ceilingItemsPerSecond', 'valuePeakWriteUnitsPerSecond', 'indexPartitions', 'recommendedShards']) {
      assert.equal(analyzed.figures[figure], expected.figures[figure], figure);
    }
    assert.equal(analyzed.figures['ceilingItemsPerSecond'], 1000);
    assert.equal(analyzed.figures['valuePeakWriteUnitsPerSecond'], 2000);
    assert.equal(analyzed.fixes[1], expected.fixes[1], 'the same sharding fix, K and all');
    // A second's resolution against the simulation's tick: the throttle came during second 80.
    assert.match(analyzed.summary, /caps the table at about 1,000 items\/s \(offered up to 2,000\/s; the first throttle came at 80 s\)/);
    assert.match(expected.summary, /caps the table at about 1,000 items\/s \(offered up to 2,000\/s; the first throttle came at 80\.\d s\)/);
  });
});
