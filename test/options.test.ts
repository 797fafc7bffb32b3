/**
 * One options table for the CLI and the library: every row is a flag, is in --help and the README,
 * reaches the server, and a bad value is one `dynatwin:` line and exit status 2.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DEFAULT_CAPACITY_SETTINGS } from '../src/capacity/admission.js';
import { parseCommandLine, UsageError } from '../src/cli.js';
import { OptionError, OPTION_TABLE, startDynatwin } from '../src/index.js';
import { cliSpecs, type OptionSpec } from '../src/options.js';
import { runCli, startServerProcess } from './support/process.js';
import { sdkClient } from './support/client.js';

const STRING_EXAMPLES: ReadonlyMap<string, string> = new Map([
  ['inspection-token', 'example-token-0123456789'],
  ['account-id', '123456789012'],
  ['store', 'postgres://twin:secret@db.test:5432/app'],
]);

const specs = OPTION_TABLE as readonly OptionSpec[];

/** A valid flag value other than the default, and what the option then holds. */
function sampleOf(spec: OptionSpec): [string, unknown] {
  switch (spec.kind) {
    case 'integer':
    case 'size': {
      const value = spec.default === spec.min ? spec.min + 1 : spec.min;
      return [String(value), value];
    }
    case 'choice': {
      const other = spec.choices.find((choice) => choice !== spec.default)!;
      return [other, other];
    }
    case 'string': {
      // Some strings have a form of their own: the inspection token a floor on its length
      // (inspection-auth.ts), the account id twelve digits, the store a PostgreSQL URL.
      const text = STRING_EXAMPLES.get(spec.flag) ?? 'example';
      return [text, text];
    }
    case 'strings':
      return [spec.flag === 'cors-origin' ? 'http://app.test:3000' : 'example.test', [spec.flag === 'cors-origin' ? 'http://app.test:3000' : 'example.test']];
    case 'boolean':
      return ['', true];
  }
}

describe('the options table', () => {
  test('every capacity setting of the admission model has a row, with its default', () => {
    for (const [name, value] of Object.entries(DEFAULT_CAPACITY_SETTINGS)) {
      const spec = specs.find((row) => row.group === 'capacitySettings' && row.name === name);
      assert.ok(spec !== undefined, `${name} has a row`);
      assert.equal(spec.default, value, name);
    }
  });

  test('every flag parses into the server options the library option would set', () => {
    for (const spec of cliSpecs()) {
      if (spec.flag === 'in-memory') continue;
      const [text, expected] = sampleOf(spec);
      const parsed = parseCommandLine(spec.kind === 'boolean' ? [`--${spec.flag}`] : [`--${spec.flag}`, text]);
      assert.ok(typeof parsed === 'object', spec.flag);
      const actual =
        spec.group === 'capacitySettings'
          ? (parsed.capacitySettings as Record<string, unknown> | undefined)?.[spec.name]
          : spec.name === 'allowHosts' || spec.name === 'corsOrigins'
            ? parsed.browserAccess[spec.name]
            : (parsed as unknown as Record<string, unknown>)[spec.name];
      assert.deepEqual(actual, expected, `--${spec.flag} ${text}`);
    }
  });

  test('--help and the README name every flag; --help gives each default', async () => {
    const help = await runCli(['--help']);
    assert.equal(help.status, 0);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const spec of cliSpecs()) {
      assert.match(help.stdout, new RegExp(`^  --${spec.flag}\\b`, 'm'), `--help lists --${spec.flag}`);
      assert.ok(readme.includes(`\`--${spec.flag}`), `README lists --${spec.flag}`);
      // Help text wraps: compare with line breaks and indentation folded to single spaces.
      if (spec.kind === 'integer' || spec.kind === 'size') assert.ok(help.stdout.replace(/\s+/g, ' ').includes(`[default ${spec.default}; `), `--help gives --${spec.flag}'s default`);
    }
  });

  test('out-of-bounds and malformed values are usage errors', () => {
    const bad: string[][] = [
      ['--gsi-backlog-write-units-max', '1e3'],
      ['--gsi-backlog-write-units-max', '1000000001'],
      ['--burst-bank-seconds', '3601'],
      ['--on-demand-peak-sustain-seconds', '0'],
      ['--table-create-delay', '86400001'],
      ['--gsi-lag', '1.5'],
      ['--partition-ceiling-mode', 'both'],
      ['--port', '65536'],
      ['--host', ''],
      ['--account-id', '12345678901a'],
      ['--no-such-flag', '1'],
    ];
    for (const argv of bad) assert.throws(() => parseCommandLine(argv), UsageError, argv.join(' '));
  });

  test('through the CLI, a bad value is one dynatwin: line and exit status 2', async () => {
    for (const [argv, pattern] of [
      [['--gsi-backlog-write-units-max', 'lots'], /^dynatwin: --gsi-backlog-write-units-max must be a whole number of write units from 0 to 1000000000, got 'lots'\n$/],
      [['--partition-size-limit', '10XB'], /^dynatwin: --partition-size-limit must be a size/],
      [['--table-create-delay'], /^dynatwin: Option '--table-create-delay <value>' argument missing/],
    ] as const) {
      const outcome = await runCli(argv);
      assert.equal(outcome.status, 2, argv.join(' '));
      assert.equal(outcome.stdout, '');
      assert.match(outcome.stderr, pattern);
      assert.equal(outcome.stderr.trimEnd().split('\n').length, 1, outcome.stderr);
    }
  });

  test('the library checks its options against the same rows', async () => {
    await assert.rejects(startDynatwin({ gsiLagMs: -1 }), (error: unknown) => error instanceof OptionError && /^gsiLagMs must be a whole number of ms from 0 to 86400000, got -1$/.test(error.message));
    await assert.rejects(startDynatwin({ capacitySettings: { gsiBacklogWriteUnitsMax: 0.5 } }), (error: unknown) => error instanceof OptionError && /^capacitySettings\.gsiBacklogWriteUnitsMax must be/.test(error.message));
    // @ts-expect-error a value outside the row's choices is a type error too
    await assert.rejects(startDynatwin({ partitionModel: 'adaptive' }), OptionError);
  });

  test('--table-create-delay keeps a new table CREATING until the manual clock passes it', async () => {
    const server = await startServerProcess(['--in-memory', '--clock', 'manual', '--table-create-delay', '20000']);
    const client = sdkClient(server.endpoint);
    try {
      await client.send(
        new CreateTableCommand({
          TableName: 'slow',
          AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      const advance = (advanceMs: number): Promise<Response> => fetch(`${server.endpoint}/dynatwin/clock`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ advanceMs }) });
      const status = async (): Promise<string | undefined> => (await client.send(new DescribeTableCommand({ TableName: 'slow' }))).Table?.TableStatus;
      assert.equal(await status(), 'CREATING');
      assert.equal((await advance(19_999)).status, 200);
      assert.equal(await status(), 'CREATING');
      assert.equal((await advance(1)).status, 200);
      assert.equal(await status(), 'ACTIVE');
    } finally {
      client.destroy();
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
