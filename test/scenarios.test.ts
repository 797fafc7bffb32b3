/**
 * `dynatwin simulate` (issue 18): the seed-000 example run through the library entry point and
 * its figures asserted; the CLI on good and bad scenario files (one line naming the field, exit 2).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { simulate } from '../src/scenarios/simulate.js';
import { parseScenario, ScenarioError } from '../src/scenarios/schema.js';
import { runCli } from './support/process.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/scenarios/status-gsi.json', import.meta.url));

function example(durationSeconds: number): Record<string, unknown> {
  const document = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { workload: { phases: { durationSeconds: number }[] } };
  document.workload.phases[0]!.durationSeconds = durationSeconds;
  return document as unknown as Record<string, unknown>;
}

const scratch = mkdtempSync(join(tmpdir(), 'dynatwin-scenarios-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('simulate: seed article 000 (examples/scenarios/status-gsi.json, shortened to 140 s)', () => {
  test('the status GSI first throttles near 80 s, then accepts about 1,000 items/s; the sparse index never throttles', async () => {
    const progress: number[] = [];
    const report = await simulate(example(140), { onProgress: (p) => progress.push(Math.min(...p.secondsByVariant)) });
    assert.equal(progress.at(-1), 140, 'progress reaches the end');
    const [status, sparse] = report.variants;
    assert.equal(status!.name, 'status-gsi');
    assert.equal(status!.totals.offered, 280_000, '2,000 items/s for 140 s');
    const first = status!.totals.firstThrottleSeconds!;
    assert.ok(first >= 76 && first <= 84, `first throttle at ${first} s`);
    // The minute after the first throttle: the GSI partition's 1,000 WCU/s sets the pace.
    const settled = status!.series.accepted.slice(90, 140);
    const rate = settled.reduce((a, b) => a + b, 0) / settled.length;
    assert.ok(rate >= 950 && rate <= 1050, `accepted ${rate} items/s once throttled`);
    const gsi = status!.resources.find((resource) => resource.name === 'test/index/gsi-status')!;
    assert.ok(gsi.totals.throttleEvents > 0);
    assert.ok(gsi.totals.hottestPartitionShare > 0.99, 'every GSI write lands on one partition');
    const finding = status!.findings.find((f) => f.code === 'LOW_CARDINALITY_GSI_KEY');
    assert.ok(finding, 'the low-cardinality GSI key is found');
    assert.equal(finding.resource, 'test/index/gsi-status');
    assert.equal(finding.figures.topValue, 'UN_USED');
    assert.equal(finding.figures.topValueShare, 1);
    assert.ok(Math.abs(Number(finding.figures.ceilingItemsPerSecond) - 1000) < 1, 'ceiling: 1,000 items/s');
    assert.equal(finding.figures.recommendedShards, 4, '2,000 WCU/s over shards at half a partition each');
    assert.match(finding.fixes[0]!, /[Ss]parse/);

    assert.equal(sparse!.name, 'sparse-index');
    assert.equal(sparse!.totals.throttled, 0);
    assert.equal(sparse!.totals.accepted, 280_000);
    assert.equal(sparse!.totals.firstThrottleSeconds, null);
    assert.deepEqual(sparse!.findings, []);
    const sparseGsi = sparse!.resources.find((resource) => resource.name === 'test/index/gsi-un-used-id')!;
    assert.ok(sparseGsi.totals.hottestPartitionShare < 0.35, `sparse GSI spread: ${sparseGsi.totals.hottestPartitionShare}`);
  });

  test('SDK retries re-send UnprocessedItems with backoff: more requests, and items given up only after the attempts', async () => {
    const document = example(100);
    document.client = { retries: 'sdk', maxAttempts: 3 };
    document.variants = [(document.variants as unknown[])[0]];
    const [variant] = (await simulate(document)).variants;
    const totals = variant!.totals;
    assert.ok(totals.requests > 4000, `retries add requests: ${totals.requests}`);
    assert.ok(totals.throttled > totals.failed, 'some throttled items were accepted on a retry');
    assert.equal(totals.offered, totals.accepted + totals.failed + totals.pendingAtEnd);
  });
});

describe('simulate: a hot key', () => {
  test('a zipf-hot key holding one table partition at its ceiling is named', async () => {
    const report = await simulate({
      name: 'hot-key',
      client: { retries: 'none' },
      variants: [
        {
          name: 'counters',
          tables: [
            {
              TableName: 'counters',
              AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
              KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
              BillingMode: 'PAY_PER_REQUEST',
            },
          ],
        },
      ],
      workload: {
        phases: [
          {
            durationSeconds: 20,
            operations: [
              {
                operation: 'UpdateItem',
                table: 'counters',
                requestsPerSecond: 1500,
                key: { pk: { choice: { values: ['page#home', 'page#about'], weights: [95, 5] } } },
                updateExpression: 'ADD hits :one',
                values: { ':one': { constant: 1 } },
              },
            ],
          },
        ],
      },
    });
    const [variant] = report.variants;
    assert.ok(variant!.totals.throttled > 0);
    const finding = variant!.findings.find((f) => f.code === 'HOT_KEY_AT_PARTITION_CEILING');
    assert.ok(finding, JSON.stringify(variant!.findings));
    assert.equal(finding.figures.key, 'page#home');
    assert.equal(finding.resource, 'counters');
  });
});

describe('dynatwin simulate (CLI)', () => {
  test('prints the summary and writes --json with per-second series', async () => {
    const file = join(scratch, 'short.json');
    writeFileSync(file, JSON.stringify(example(5)));
    const out = join(scratch, 'out.json');
    const outcome = await runCli(['simulate', file, '--json', out, '--quiet'], { timeoutMs: 180_000 });
    assert.equal(outcome.status, 0, outcome.stderr);
    assert.match(outcome.stdout, /Variant status-gsi/);
    assert.match(outcome.stdout, /Variant sparse-index/);
    const json = JSON.parse(readFileSync(out, 'utf8')) as { variants: { totals: { offered: number }; series: { offered: number[] }; resources: { name: string; series: { consumedWriteUnits: number[] } }[] }[] };
    assert.equal(json.variants.length, 2);
    assert.equal(json.variants[0]!.totals.offered, 10_000);
    assert.equal(json.variants[0]!.series.offered.length, 5);
    assert.deepEqual(json.variants[0]!.series.offered, [2000, 2000, 2000, 2000, 2000]);
    assert.equal(json.variants[0]!.resources[1]!.name, 'test/index/gsi-status');
    assert.equal(json.variants[0]!.resources[1]!.series.consumedWriteUnits.length, 5);
  });

  const bad: [string, (document: Record<string, unknown>) => void, RegExp][] = [
    ['an unknown operation', (d) => (phaseOperation(d).operation = 'PutItems'), /^workload\.phases\[0\]\.operations\[0\]\.operation: must be one of PutItem, /],
    ['a bad generator', (d) => ((phaseOperation(d).item as Record<string, unknown>).id = { uuidv7: {} }), /^workload\.phases\[0\]\.operations\[0\]\.item\.id: 'uuidv7' is not a generator/],
    ['a negative rate', (d) => (phaseOperation(d).itemsPerSecond = -5), /^workload\.phases\[0\]\.operations\[0\]\.itemsPerSecond: must not be negative/],
    ['a table missing from a variant', (d) => (phaseOperation(d).table = 'orders'), /^workload\.phases\[0\]\.operations\[0\]\.table: names table 'orders', which variant 'status-gsi' does not create/],
    ['a bad zipf option', (d) => ((phaseOperation(d).item as Record<string, unknown>).id = { zipf: { n: 0 } }), /item\.id\.zipf\.n: must be a whole number from 1/],
  ];
  for (const [what, spoil, message] of bad) {
    test(`${what}: one line naming the field, exit code 2`, async () => {
      const document = example(5);
      spoil(document);
      assert.throws(() => parseScenario(document), (error: unknown) => error instanceof ScenarioError && message.test(error.message));
      const file = join(scratch, 'bad.json');
      writeFileSync(file, JSON.stringify(document));
      const outcome = await runCli(['simulate', file], { timeoutMs: 120_000 });
      assert.equal(outcome.status, 2);
      assert.equal(outcome.stdout, '');
      const lines = outcome.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, outcome.stderr);
      assert.ok(lines[0]!.startsWith(`dynatwin simulate: ${file}: `), lines[0]);
      assert.match(lines[0]!.slice(`dynatwin simulate: ${file}: `.length), message);
    });
  }

  test('a table definition CreateTable refuses names the variant table', async () => {
    const document = example(5);
    ((document.variants as Record<string, unknown>[])[1]!.tables as Record<string, unknown>[])[0]!.BillingMode = 'FREE';
    const file = join(scratch, 'bad-table.json');
    writeFileSync(file, JSON.stringify(document));
    const outcome = await runCli(['simulate', file], { timeoutMs: 120_000 });
    assert.equal(outcome.status, 2);
    assert.match(outcome.stderr, /^dynatwin simulate: .*: variants\[1\]\.tables\[0\]: CreateTable refused it: ValidationException: /);
    assert.equal(outcome.stderr.trimEnd().split('\n').length, 1);
  });

  test('not JSON, or no file: one line, exit code 2', async () => {
    const file = join(scratch, 'not.json');
    writeFileSync(file, '{ nope');
    const outcome = await runCli(['simulate', file], { timeoutMs: 120_000 });
    assert.equal(outcome.status, 2);
    assert.match(outcome.stderr, /not valid JSON/);
    const missing = await runCli(['simulate', join(scratch, 'missing.json')], { timeoutMs: 120_000 });
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /cannot read it: ENOENT/);
  });
});

function phaseOperation(document: Record<string, unknown>): Record<string, unknown> {
  return (document.workload as { phases: { operations: Record<string, unknown>[] }[] }).phases[0]!.operations[0]!;
}
