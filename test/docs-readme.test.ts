/**
 * What the README quotes of the CLI is what the CLI prints: the shard count, the one-line errors of
 * the configuration and of a seeding file (their examples taken from the README itself, and run).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DescribeTimeToLiveCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { runCli, startServerProcess } from './support/process.js';
import { sdkClient } from './support/client.js';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const flat = (text: string): string => text.replace(/\s+/g, ' ');

describe("the README's quoted output", () => {
  const directory = mkdtempSync(join(tmpdir(), 'dynatwin-readme-'));
  after(() => rmSync(directory, { recursive: true, force: true }));

  test('dynatwin shards --partitions 4: the K the README names', async () => {
    const named = /\(K = (\d+) for 4 partitions/.exec(flat(README));
    assert.ok(named !== null, 'the README names the K');
    const outcome = await runCli(['shards', '--partitions', '4', '--json'], { timeoutMs: 120_000 });
    assert.equal(outcome.status, 0, outcome.stderr);
    assert.equal((JSON.parse(outcome.stdout) as { recommendedShards: number }).recommendedShards, Number(named[1]));
  });

  test("a bad environment variable: the README's line, exit status 2", async () => {
    const line = /\(`(dynatwin: DYNATWIN_PORT must be [^`]+)`\)/.exec(flat(README));
    assert.ok(line !== null, 'the README quotes the line');
    const value = /got '([^']*)'/.exec(line[1]!)![1]!;
    const outcome = await runCliWithEnvironment(['--in-memory'], { DYNATWIN_PORT: value });
    assert.equal(outcome.status, 2);
    assert.equal(outcome.stderr, `${line[1]}\n`);
  });

  test("the README's seeding file seeds, and a missing key gives its quoted line", async () => {
    const seedBlock = /### Seed tables[\s\S]*?```yaml\n([\s\S]*?)```/.exec(README);
    assert.ok(seedBlock !== null);
    writeFileSync(join(directory, 'init.yaml'), seedBlock[1]!);
    const server = await startServerProcess(['--in-memory', '--init', join(directory, 'init.yaml')]);
    const client = sdkClient(server.endpoint);
    try {
      const items = (await client.send(new ScanCommand({ TableName: 'orders' }))).Items;
      assert.deepEqual(items, [{ id: { S: 'order-1' }, total: { N: '42' } }]);
      assert.equal((await client.send(new DescribeTimeToLiveCommand({ TableName: 'orders' }))).TimeToLiveDescription?.AttributeName, 'expiresAt');
    } finally {
      client.destroy();
      server.child.kill('SIGTERM');
      await server.exited;
    }
    // The README's error: an item of tables[0] without its key, as the second item.
    const quotedLine = /\(`dynatwin: init\.yaml: (tables\[0\]\.Items\[1\]: ValidationException: [^`]+)`,/.exec(flat(README));
    assert.ok(quotedLine !== null, 'the README quotes the error');
    writeFileSync(join(directory, 'init.yaml'), `${seedBlock[1]!}      - { total: { N: "1" } }\n`);
    const outcome = await runCli(['--in-memory', '--port', '0', '--init', 'init.yaml'], { cwd: directory });
    assert.equal(outcome.status, 2);
    assert.equal(flat(outcome.stderr).trim(), `dynatwin: init.yaml: ${quotedLine[1]!}`);
  });
});

/** runCli with extra environment variables (runCli passes the test's own environment). */
async function runCliWithEnvironment(args: readonly string[], environment: Record<string, string>): Promise<{ status: number | NodeJS.Signals; stderr: string }> {
  const saved = Object.fromEntries(Object.keys(environment).map((name) => [name, process.env[name]]));
  Object.assign(process.env, environment);
  try {
    return await runCli(args);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
