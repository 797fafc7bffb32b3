/**
 * `--store postgres://...` (DYNATWIN_STORE, `store:` in dynatwin.yaml, startDynatwin's `store`):
 * where the data lives is one choice among --in-memory, --data-dir and --store; the URL's password
 * is never shown (dynatwin config, errors); a store that cannot be reached at start-up is one line
 * on stderr naming the URL without its password, exit code 2, and nothing created.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { commandLineConfiguration, parseCommandLine, UsageError } from '../src/cli.js';
import { formatConfiguration } from '../src/config.js';
import { OptionError, startDynatwin } from '../src/index.js';
import { storeOpenMessage } from '../src/server/server.js';
import { runCli, ServerProcesses } from './support/process.js';
import { scratchDirectories } from './support/scratch.js';
import { testStoreKind, testTwinOptions } from './support/test-store.js';

const scratch = scratchDirectories('dynatwin-store-option-');
const servers = new ServerProcesses();
after(async () => {
  await servers.killAll();
  scratch.removeAll();
});

/** These need the PostgreSQL pass's cluster (scripts/run-tests.mjs); on the embedded pass there is no database to open. */
const NEEDS_POSTGRES = testStoreKind() === 'postgres' ? false : 'needs the PostgreSQL pass (npm test -- --store postgres): a database to open';

const PASSWORD = 'pw-never-shown';
const URL_WITH_PASSWORD = `postgres://twin:${PASSWORD}@db.test:5432/app?schema=orders`;

/** A port nothing listens on: bound, read, closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

describe('--store: where the data lives is one choice', () => {
  test('the flag, the variable and the file give the URL as it was written', () => {
    const directory = scratch.fresh();
    const byFlag = parseCommandLine(['--store', URL_WITH_PASSWORD], {}, directory);
    const byVariable = parseCommandLine([], { DYNATWIN_STORE: URL_WITH_PASSWORD }, directory);
    writeFileSync(join(directory, 'dynatwin.yaml'), `store: ${URL_WITH_PASSWORD}\n`);
    const byFile = parseCommandLine([], {}, directory);
    for (const options of [byFlag, byVariable, byFile]) {
      assert.ok(typeof options === 'object');
      assert.equal(options.store, URL_WITH_PASSWORD);
      assert.equal(options.inMemory, false);
    }
  });

  test('with --data-dir or --in-memory at the same level: one line naming both; at different levels the higher wins', () => {
    const directory = scratch.fresh();
    const refused = (argv: string[], environment: NodeJS.ProcessEnv, pattern: RegExp): void => {
      assert.throws(() => parseCommandLine(argv, environment, directory), (error: unknown) => error instanceof UsageError && pattern.test(error.message) && !error.message.includes('\n'));
    };
    refused(['--store', URL_WITH_PASSWORD, '--data-dir', 'x'], {}, /^--store and --data-dir: store keeps everything in the PostgreSQL database, so data-dir has no use with it; give one or the other$/);
    refused(['--store', URL_WITH_PASSWORD, '--in-memory'], {}, /^--in-memory and --store: in-memory keeps nothing anywhere, so a store has no use with it; give one or the other$/);
    refused([], { DYNATWIN_STORE: URL_WITH_PASSWORD, DYNATWIN_DATA_DIR: 'x' }, /^DYNATWIN_STORE and DYNATWIN_DATA_DIR: /);
    // The existing pair keeps its words.
    refused(['--in-memory', '--data-dir', 'x'], {}, /^--in-memory and --data-dir: in-memory keeps nothing on disk/);

    writeFileSync(join(directory, 'dynatwin.yaml'), 'data-dir: ./data\n');
    const storeWins = parseCommandLine([], { DYNATWIN_STORE: URL_WITH_PASSWORD }, directory);
    assert.ok(typeof storeWins === 'object');
    assert.equal(storeWins.store, URL_WITH_PASSWORD);
    assert.match(formatConfiguration(commandLineConfiguration([], { DYNATWIN_STORE: URL_WITH_PASSWORD }, directory)), /^data-dir +\.\/dynatwin-data +overridden by DYNATWIN_STORE$/m);
    const memoryWins = parseCommandLine(['--in-memory'], { DYNATWIN_STORE: URL_WITH_PASSWORD }, directory);
    assert.ok(typeof memoryWins === 'object');
    assert.equal(memoryWins.inMemory, true);
    assert.equal(memoryWins.store, undefined);
  });

  test('a URL dynatwin cannot use is refused before start-up, without its password', () => {
    const directory = scratch.fresh();
    const refused = (text: string, pattern: RegExp): void => {
      assert.throws(
        () => parseCommandLine(['--store', text], {}, directory),
        (error: unknown) => error instanceof UsageError && pattern.test(error.message) && !error.message.includes(PASSWORD),
      );
    };
    refused(`mysql://twin:${PASSWORD}@db.test/app`, /^--store: not a PostgreSQL URL \(postgres:\/\/user:password@host:port\/database\): mysql:\/\/twin:\*\*\*@db\.test\/app$/);
    refused(`postgres://twin:${PASSWORD}@db.test/app?schema=Orders`, /^--store: the schema parameter must be a lower-case identifier/);
  });

  test('dynatwin config shows the URL with its password hidden', () => {
    const printed = formatConfiguration(commandLineConfiguration(['--store', URL_WITH_PASSWORD], {}, scratch.fresh()));
    assert.match(printed, /^store +postgres:\/\/twin:\*\*\*@db\.test:5432\/app\?schema=orders +flag --store$/m);
    assert.ok(!printed.includes(PASSWORD));
  });

  test('startDynatwin: store with dataDir, or a URL that is not PostgreSQL, is an OptionError', async () => {
    await assert.rejects(startDynatwin({ store: URL_WITH_PASSWORD, dataDir: scratch.fresh() }), (error: unknown) => error instanceof OptionError && /^dataDir and store: /.test(error.message));
    await assert.rejects(startDynatwin({ store: `http://twin:${PASSWORD}@db.test/app` }), (error: unknown) => error instanceof OptionError && /^store: not a PostgreSQL URL/.test(error.message) && !error.message.includes(PASSWORD));
  });
});

describe('--store: a database that cannot be used at start-up', () => {
  test('a closed port: exit 2, one line naming host:port without the password, nothing created', async () => {
    const directory = scratch.fresh();
    const port = await closedPort();
    const outcome = await runCli(['--port', '0', '--store', `postgres://twin:${PASSWORD}@127.0.0.1:${port}/app`], { cwd: directory });
    assert.equal(outcome.status, 2, outcome.stderr);
    const lines = outcome.stderr.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, outcome.stderr);
    assert.match(lines[0]!, new RegExp(`^dynatwin: .*postgres://twin:\\*\\*\\*@127\\.0\\.0\\.1:${port}/app`));
    assert.ok(!(outcome.stdout + outcome.stderr).includes(PASSWORD));
    assert.doesNotMatch(outcome.stdout, /listening on/);
    // No data directory (nor anything else) in the working directory.
    assert.deepEqual(readdirSync(directory), []);
    assert.equal(existsSync(join(directory, 'dynatwin-data')), false);
  });

  test("the driver's message is kept on one line, the password hidden however the driver echoed it", () => {
    const url = `postgres://twin:${encodeURIComponent('p@ss word')}@db.test:5432/app`;
    const echoed = new Error(`connect to ${url} failed: password "p@ss word" rejected\nDETAIL: more`);
    assert.equal(storeOpenMessage(url, echoed, false), 'cannot use the PostgreSQL store at postgres://twin:***@db.test:5432/app: connect to postgres://twin:***@db.test:5432/app failed: password "***" rejected');
    // The store's own message is used as it is, without a second `dynatwin: ` in front.
    assert.equal(storeOpenMessage(url, new Error('dynatwin: cannot use the PostgreSQL store at postgres://twin:***@db.test:5432/app: connection refused'), true), 'cannot use the PostgreSQL store at postgres://twin:***@db.test:5432/app: connection refused');
  });
});

describe('--store: a database that opens', () => {
  test('GET /dynatwin/store says postgres; the banner names the URL as given, password hidden', { skip: NEEDS_POSTGRES }, async () => {
    const options = testTwinOptions({});
    assert.ok(options.store !== undefined);
    const twin = await startDynatwin(options);
    try {
      const response = await fetch(`${twin.endpoint}/dynatwin/store`);
      assert.equal(response.status, 200);
      const document = (await response.json()) as { kind: string; writes: string };
      assert.equal(document.kind, 'postgres');
      assert.equal(document.writes, 'taken');
    } finally {
      await twin.close();
    }
    const server = await servers.start(['--store', testTwinOptions({}).store!]);
    assert.match(server.banner, /— store: postgres at postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres\?schema=t_[0-9a-f]{32}/);
  });
});
