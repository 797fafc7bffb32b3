/**
 * docs/HOT-PARTITIONS.md stays true: its table definitions, its load script and its commands, taken
 * from the page itself, run against the CLI started as the page says (`--clock manual --in-memory`),
 * and every figure the page quotes for them is the one they print: the load's lines, the
 * partitions, metrics and CloudWatch-shaped figures of its curl lines, analyze's finding, and the
 * sparse fix's 200,000 items. The `aws dynamodb` lines are done with the SDK (the same requests).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CreateTableCommand, UpdateContributorInsightsCommand, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { runCli, startServerProcess, type ServerProcess } from './support/process.js';
import { sdkClient } from './support/client.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGE = readFileSync(join(ROOT, 'docs', 'HOT-PARTITIONS.md'), 'utf8');
/** A bound on a hang: two 100-second loads of 2,000 items per simulated second. */
const LOAD_TIMEOUT_MS = 300_000;

/** The page's fenced blocks of one language, in order. */
function blocks(language: string): string[] {
  return [...PAGE.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);
}

/** The output block right after the fenced block holding `command`. */
function outputAfter(command: string): string[] {
  const at = PAGE.indexOf(command);
  const start = PAGE.indexOf('```\n', PAGE.indexOf('```\n', at) + 4);
  const end = PAGE.indexOf('```', start + 4);
  return PAGE.slice(start + 4, end).split('\n').filter((line) => line !== '' && line !== '...');
}

/** A figure the page quotes, by a pattern with one group (commas allowed in it). */
function quoted(pattern: RegExp): number {
  const match = pattern.exec(PAGE);
  assert.ok(match !== null, `the page quotes ${pattern}`);
  return Number(match[1]!.replace(/,/g, ''));
}

describe('docs/HOT-PARTITIONS.md, run as written', { timeout: 2 * LOAD_TIMEOUT_MS }, () => {
  let server: ServerProcess;
  let project: string;

  const load = async (...args: string[]): Promise<string[]> => {
    const { stdout } = await run(process.execPath, ['load.mjs', ...args], { cwd: project, timeout: LOAD_TIMEOUT_MS, env: { ...process.env, DYNATWIN: server.endpoint } });
    return stdout.trim().split('\n');
  };
  const json = async (path: string): Promise<unknown> => (await fetch(new URL(path, server.endpoint))).json();

  before(async () => {
    assert.match(PAGE, /npx dynatwin --clock manual --in-memory/);
    server = await startServerProcess(['--clock', 'manual', '--in-memory']);
    project = mkdtempSync(join(tmpdir(), 'dynatwin-hot-partitions-'));
    // load.mjs imports @aws-sdk/client-dynamodb, which the page says the project has.
    symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
    writeFileSync(join(project, 'load.mjs'), blocks('js').find((block) => block.includes('// node load.mjs'))!);
  });
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    if (project !== undefined) rmSync(project, { recursive: true, force: true });
  });

  test('the status design: 80 s without a refusal, then 1,000 of 2,000 refused every second, and the figures of the curl lines', async () => {
    const [tableDef] = blocks('json').map((text) => JSON.parse(text) as CreateTableCommandInput).filter((definition) => definition.TableName === 'test');
    const client = sdkClient(server.endpoint);
    try {
      await client.send(new CreateTableCommand(tableDef!));
      assert.match(PAGE, /--table-name test --contributor-insights-action ENABLE/);
      assert.match(PAGE, /--table-name test --index-name gsi-status --contributor-insights-action ENABLE/);
      await client.send(new UpdateContributorInsightsCommand({ TableName: 'test', ContributorInsightsAction: 'ENABLE' }));
      await client.send(new UpdateContributorInsightsCommand({ TableName: 'test', IndexName: 'gsi-status', ContributorInsightsAction: 'ENABLE' }));
    } finally {
      client.destroy();
    }
    const printed = await load('test', '100');
    for (const line of outputAfter('node load.mjs test 100')) assert.ok(printed.includes(line), `load.mjs printed "${line}"; it printed:\n${printed.join('\n')}`);

    const partitions = (await json('/dynatwin/tables/test/partitions')) as { indexes: Record<string, { partitions: Record<string, number>[] }> };
    const hot = partitions.indexes['gsi-status']!.partitions[quoted(/indexes\.gsi-status\.partitions\[(\d+)\]/)]!;
    assert.equal(hot['itemCount'], quoted(/itemCount (\d+),/));
    assert.equal(hot['consumedWriteUnitsLastSecond'], quoted(/consumedWriteUnitsLastSecond (\d+),/));
    assert.equal(hot['writeThrottleEvents'], quoted(/writeThrottleEvents (\d+),/));
    assert.equal(hot['backlogWriteUnits'], quoted(/backlogWriteUnits (\d+)/));

    type Metrics = { metrics: { dimensions: Record<string, string>; datapoints: { Sum: number }[] }[] };
    const gsiThrottles = (await json('/dynatwin/metrics?table=test&index=gsi-status&metric=WriteThrottleEvents')) as Metrics;
    assert.equal(gsiThrottles.metrics[0]!.datapoints.reduce((total, point) => total + point.Sum, 0), quoted(/Sum (\d+) over its datapoints/));
    const throttledRequests = (await json('/dynatwin/metrics?table=test&metric=ThrottledRequests')) as Metrics;
    const batches = throttledRequests.metrics.find((metric) => metric.dimensions['Operation'] === 'BatchWriteItem')!;
    assert.equal(batches.datapoints.reduce((total, point) => total + point.Sum, 0), quoted(/Operation BatchWriteItem: (\d+)/));

    // The page's reasoning: 80,000 units of backlog at 1,000 a second is 80 s, 160,000 items.
    assert.ok(printed.includes(`second 80: ${quoted(/\*\*([\d,]+) items\*\* written by then/)} items written, 0 refused this second`));
  });

  test("analyze prints the page's finding", async () => {
    const outcome = await runCli(['analyze', '--endpoint', server.endpoint, '--table', 'test'], { timeoutMs: 120_000 });
    assert.equal(outcome.status, 0, outcome.stderr);
    const analyzeBlock = blocks('sh').find((block) => block.includes('npx dynatwin analyze'))!;
    const flat = (text: string): string => text.replace(/\s+/g, ' ');
    const printed = flat(outcome.stdout);
    // The quoted lines, comment marks and elisions aside, each appear in what analyze printed.
    const quotedText = analyzeBlock.split('\n').filter((line) => line.startsWith('#')).map((line) => line.replace(/^#\s*/, '')).join(' ');
    const pieces = flat(quotedText).split(/ ?\.\.\.(?: |$)/).map((part) => part.replace(/^fix: /, '').trim()).filter((part) => part !== '');
    assert.ok(pieces.length >= 3 && pieces.some((piece) => piece.includes('19,999 throttle events')) && pieces.some((piece) => piece.includes('K = 70')), JSON.stringify(pieces));
    for (const piece of pieces) {
      assert.ok(printed.includes(piece), `analyze printed "${piece}"; it printed:\n${outcome.stdout}`);
    }
  });

  test('the sparse fix: all 200,000 items written', async () => {
    const betterDef = blocks('json').map((text) => JSON.parse(text) as CreateTableCommandInput).find((definition) => definition.TableName === 'better-table')!;
    const client = sdkClient(server.endpoint);
    try {
      await client.send(new CreateTableCommand(betterDef));
    } finally {
      client.destroy();
    }
    const printed = await load('better-table', '100', 'sparse');
    for (const line of outputAfter('node load.mjs better-table 100 sparse')) assert.ok(printed.includes(line), `load.mjs printed "${line}"; it printed:\n${printed.join('\n')}`);
  });
});
