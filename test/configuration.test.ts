/**
 * Settings from flags, environment variables and config files (src/config.ts), and tables seeded at
 * start-up from an init file (src/server/init-tables.ts): the precedence, the one-line errors, and
 * seeding through the SDK (items written once, kept across a restart, DynamoDB's texts for a bad
 * definition).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CreateTableCommand, DeleteItemCommand, DescribeTimeToLiveCommand, GetItemCommand, ListTablesCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { commandLineConfiguration, parseCommandLine, UsageError } from '../src/cli.js';
import { environmentName, formatConfiguration } from '../src/config.js';
import { startDynatwin } from '../src/index.js';
import { cliSpecs } from '../src/options.js';
import { InitError, parseInitText } from '../src/server/init-tables.js';
import { runCli, startServerProcess } from './support/process.js';
import { scratchDirectories } from './support/scratch.js';
import { sdkClient } from './support/client.js';
import { testTwinOptions, embeddedStoreOnly } from './support/test-store.js';

const scratch = scratchDirectories('dynatwin-configuration-');
after(() => scratch.removeAll());

const ORDERS_INIT = `tables:
  - TableName: orders
    AttributeDefinitions: [{ AttributeName: id, AttributeType: S }]
    KeySchema: [{ AttributeName: id, KeyType: HASH }]
    BillingMode: PAY_PER_REQUEST
    TimeToLiveSpecification: { Enabled: true, AttributeName: expiresAt }
    Items:
      - { id: { S: a }, total: { N: "3" } }
      - { id: { S: b }, tags: { SS: [x, y] } }
  - TableName: events
    AttributeDefinitions: [{ AttributeName: pk, AttributeType: S }, { AttributeName: sk, AttributeType: N }]
    KeySchema: [{ AttributeName: pk, KeyType: HASH }, { AttributeName: sk, KeyType: RANGE }]
    ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 }
`;

describe('configuration: flag > environment > config file > default', () => {
  test('every flag has its variable, DYNATWIN_ and the flag in capitals', () => {
    assert.equal(environmentName('data-dir'), 'DYNATWIN_DATA_DIR');
    assert.equal(environmentName('port'), 'DYNATWIN_PORT');
    const names = cliSpecs().map((spec) => environmentName(spec.flag));
    assert.equal(new Set(names).size, names.length);
    for (const name of names) assert.match(name, /^DYNATWIN_[A-Z0-9_]+$/);
  });

  test('each level overrides the ones below it, setting by setting, and config names the source', () => {
    const directory = scratch.fresh();
    writeFileSync(join(directory, 'dynatwin.yaml'), 'port: 8100\nregion: eu-west-1\nclock: manual\ndata-dir: ./data\ncors-origin: [http://app.test:3000]\npartition-write-units-max: 500\n');
    const environment = { DYNATWIN_PORT: '8200', DYNATWIN_REGION: 'ap-south-1', DYNATWIN_GSI_LAG: '250' };
    const options = parseCommandLine(['--port', '8300'], environment, directory);
    assert.ok(typeof options === 'object');
    assert.equal(options.port, 8300); // flag over environment and file
    assert.equal(options.region, 'ap-south-1'); // environment over file
    assert.equal(options.clock, 'manual'); // file over default
    assert.equal(options.gsiLagMs, 250);
    assert.equal(options.dataDir, join(directory, 'data')); // a file's relative path is read from its directory
    assert.deepEqual(options.browserAccess.corsOrigins, ['http://app.test:3000']);
    assert.equal(options.capacitySettings?.partitionWriteUnitsPerSecondMax, 500);
    assert.equal(options.auth, 'any'); // default
    const printed = formatConfiguration(commandLineConfiguration(['--port', '8300'], environment, directory));
    assert.match(printed, /^port +8300 +flag --port$/m);
    assert.match(printed, /^region +ap-south-1 +environment DYNATWIN_REGION$/m);
    assert.match(printed, new RegExp(`^clock +manual +file ${join(directory, 'dynatwin.yaml')}$`, 'm'));
    assert.match(printed, /^auth +any +default$/m);
  });

  test('--config names a JSON file; DYNATWIN_CONFIG too; without either and without dynatwin.yaml, defaults', () => {
    const directory = scratch.fresh();
    writeFileSync(join(directory, 'twin.json'), JSON.stringify({ port: 8400, 'in-memory': true, 'checkpoint-log-size': '8MB' }));
    const byFlag = parseCommandLine(['--config', 'twin.json'], {}, directory);
    const byVariable = parseCommandLine([], { DYNATWIN_CONFIG: 'twin.json' }, directory);
    for (const options of [byFlag, byVariable]) {
      assert.ok(typeof options === 'object');
      assert.equal(options.port, 8400);
      assert.equal(options.inMemory, true);
      assert.equal(options.checkpointLogBytes, 8 * 1024 * 1024);
    }
    const defaults = parseCommandLine([], {}, scratch.fresh());
    assert.ok(typeof defaults === 'object');
    assert.equal(defaults.port, 8000);
    assert.equal(defaults.inMemory, false);
  });

  test('environment switches and lists: true/false, 1/0; lists comma-separated; an empty variable is unset', () => {
    const options = parseCommandLine([], { DYNATWIN_IN_MEMORY: '1', DYNATWIN_ALLOW_HOST: 'a.test, b.test', DYNATWIN_PORT: '' }, scratch.fresh());
    assert.ok(typeof options === 'object');
    assert.equal(options.inMemory, true);
    assert.deepEqual(options.browserAccess.allowHosts, ['a.test', 'b.test']);
    assert.equal(options.port, 8000);
  });

  test('in-memory and data-dir: the same level is a mistake; a higher level wins', () => {
    const directory = scratch.fresh();
    writeFileSync(join(directory, 'dynatwin.yaml'), 'data-dir: ./data\n');
    const options = parseCommandLine(['--in-memory'], {}, directory);
    assert.ok(typeof options === 'object');
    assert.equal(options.inMemory, true);
    assert.throws(() => parseCommandLine(['--in-memory', '--data-dir', 'x'], {}, directory), (error: unknown) => error instanceof UsageError && /--in-memory and --data-dir/.test(error.message));
    assert.throws(() => parseCommandLine([], { DYNATWIN_IN_MEMORY: 'true', DYNATWIN_DATA_DIR: 'x' }, directory), UsageError);
  });

  test('a bad value is one line naming its source and field', () => {
    const directory = scratch.fresh();
    const refused = (argv: string[], environment: NodeJS.ProcessEnv, pattern: RegExp): void => {
      assert.throws(() => parseCommandLine(argv, environment, directory), (error: unknown) => error instanceof UsageError && pattern.test(error.message) && !error.message.includes('\n'));
    };
    refused([], { DYNATWIN_PORT: 'abc' }, /^DYNATWIN_PORT must be a whole number from 0 to 65535, got 'abc'$/);
    refused([], { DYNATWIN_HTTPS: 'maybe' }, /^DYNATWIN_HTTPS must be true or false, got 'maybe'$/);
    writeFileSync(join(directory, 'a.yaml'), 'port: 70000\n');
    refused(['--config', 'a.yaml'], {}, /a\.yaml: port must be a whole number from 0 to 65535, got '70000'$/);
    writeFileSync(join(directory, 'b.yaml'), 'prot: 8000\n');
    refused(['--config', 'b.yaml'], {}, /b\.yaml: prot is not a setting/);
    writeFileSync(join(directory, 'c.yaml'), 'clock: [manual]\n');
    refused(['--config', 'c.yaml'], {}, /c\.yaml: clock must be a string, got \["manual"\]$/);
    writeFileSync(join(directory, 'd.yaml'), 'port: 1\nport: 2\n');
    refused(['--config', 'd.yaml'], {}, /d\.yaml: not valid YAML: Map keys must be unique at line 2, column 1$/);
    refused(['--config', 'missing.yaml'], {}, /^--config missing\.yaml: no such file$/);
  });

  test('through the CLI: dynatwin config prints, a bad variable exits 2', async () => {
    const directory = scratch.fresh();
    writeFileSync(join(directory, 'dynatwin.yaml'), 'gsi-lag: 40\n');
    const shown = await runCli(['config', '--clock', 'manual'], { cwd: directory });
    assert.equal(shown.status, 0, shown.stderr);
    assert.match(shown.stdout, /^gsi-lag +40 +file .*dynatwin\.yaml$/m);
    assert.match(shown.stdout, /^clock +manual +flag --clock$/m);
    const help = await runCli(['--help'], { cwd: directory });
    assert.doesNotMatch(help.stdout, /default undefined/);
    const bad = await runCli(['--config', 'nope.yaml'], { cwd: directory });
    assert.equal(bad.status, 2);
    assert.equal(bad.stderr, 'dynatwin: --config nope.yaml: no such file\n');
  });
});

describe('--init: tables made at start-up', () => {
  test('the file is checked before start-up, one line naming the field', () => {
    const refused = (text: string, pattern: RegExp, file = 'init.yaml'): void => {
      assert.throws(() => parseInitText(file, text), (error: unknown) => error instanceof InitError && pattern.test(error.message) && !error.message.includes('\n'));
    };
    refused('- a\n', /^init\.yaml: the document must be an object with a "tables" list$/);
    refused('tables: 3\n', /^init\.yaml: tables must be a list of CreateTable inputs$/);
    refused('tables: [{ TableName: t, Items: {} }]\n', /^init\.yaml: tables\[0\]\.Items must be a list/);
    refused('tables: [{ TableName: t, Items: [3] }]\n', /^init\.yaml: tables\[0\]\.Items\[0\] must be an item in AttributeValue JSON/);
    refused('tables: [{ KeySchema: [] }]\n', /^init\.yaml: tables\[0\]\.TableName must be a string$/);
    refused('tables: []\nextra: 1\n', /^init\.yaml: extra is not a field of an init file/);
    refused('{"tables": [', /^init\.json: not valid JSON/, 'init.json');
  });

  test('tables, TTL and items are there when startDynatwin resolves; a restart on the same data keeps them and writes nothing again', async () => {
    const directory = scratch.fresh();
    const init = join(directory, 'init.yaml');
    writeFileSync(init, ORDERS_INIT);
    const dataDir = join(directory, 'data');
    let twin = await startDynatwin(testTwinOptions({ dataDir, init }));
    let client = sdkClient(twin.endpoint);
    try {
      assert.deepEqual((await client.send(new ListTablesCommand({}))).TableNames, ['events', 'orders']);
      const scanned = await client.send(new ScanCommand({ TableName: 'orders' }));
      assert.deepEqual(scanned.Items?.map((item) => item['id']?.S).sort(), ['a', 'b']);
      const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: 'orders' }));
      assert.deepEqual(ttl.TimeToLiveDescription, { TimeToLiveStatus: 'ENABLED', AttributeName: 'expiresAt' });
      await client.send(new DeleteItemCommand({ TableName: 'orders', Key: { id: { S: 'a' } } }));
    } finally {
      client.destroy();
      await twin.close();
    }
    twin = await startDynatwin(testTwinOptions({ dataDir, init }));
    client = sdkClient(twin.endpoint);
    try {
      // The deleted item stays deleted: the existing table was left as it was.
      assert.equal((await client.send(new GetItemCommand({ TableName: 'orders', Key: { id: { S: 'a' } } }))).Item, undefined);
      assert.equal((await client.send(new ScanCommand({ TableName: 'orders' }))).Count, 1);
    } finally {
      client.destroy();
      await twin.close();
    }
  });

  test('a failed seeding removes the tables it made, so the corrected file seeds them whole on the same data', async () => {
    const directory = scratch.fresh();
    const dataDir = join(directory, 'data');
    const init = join(directory, 'init.json');
    const table = (items: object[]): object => ({ TableName: 'orders', AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST', DeletionProtectionEnabled: true, Items: items });
    // The second item lacks its key: the table was made and one item written when it failed.
    writeFileSync(init, JSON.stringify({ tables: [table([{ id: { S: 'a' } }, { other: { S: 'b' } }])] }));
    await assert.rejects(startDynatwin(testTwinOptions({ dataDir, init })), InitError);
    writeFileSync(init, JSON.stringify({ tables: [table([{ id: { S: 'a' } }, { id: { S: 'b' } }])] }));
    const twin = await startDynatwin(testTwinOptions({ dataDir, init }));
    const client = sdkClient(twin.endpoint);
    try {
      assert.deepEqual((await client.send(new ScanCommand({ TableName: 'orders' }))).Items?.map((item) => item['id']?.S).sort(), ['a', 'b']);
    } finally {
      client.destroy();
      await twin.close();
    }
  });

  test('reset() makes the init tables again, as the file has them, and nothing else', async () => {
    const directory = scratch.fresh();
    const init = join(directory, 'init.yaml');
    writeFileSync(init, ORDERS_INIT);
    const twin = await startDynatwin(testTwinOptions({ init }));
    const client = sdkClient(twin.endpoint);
    try {
      await client.send(new DeleteItemCommand({ TableName: 'orders', Key: { id: { S: 'a' } } }));
      await client.send(new CreateTableCommand({ TableName: 'scratch', AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }));
      await twin.reset();
      assert.deepEqual((await client.send(new ListTablesCommand({}))).TableNames, ['events', 'orders']);
      assert.deepEqual((await client.send(new ScanCommand({ TableName: 'orders' }))).Items?.map((item) => item['id']?.S).sort(), ['a', 'b']);
    } finally {
      client.destroy();
      await twin.close();
    }
  });

  test("a definition DynamoDB refuses fails the start with DynamoDB's text and the field; the CLI exits 2", async () => {
    const directory = scratch.fresh();
    const init = join(directory, 'bad.json');
    writeFileSync(init, JSON.stringify({ tables: [{ TableName: 'things', KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST', Items: [{ id: { S: 'ok' } }, { other: { S: 'no key' } }] }] }));
    await assert.rejects(startDynatwin(testTwinOptions({ init })), (error: unknown) => error instanceof InitError && /bad\.json: tables\[0\]\.Items\[1\]: ValidationException: One or more parameter values were invalid: Missing the key id in the item$/.test(error.message));
    const outcome = await runCli(['--in-memory', '--port', '0', '--init', init]);
    assert.equal(outcome.status, 2);
    assert.match(outcome.stderr, /^dynatwin: .*bad\.json: tables\[0\]\.Items\[1\]: ValidationException: One or more parameter values were invalid: Missing the key id in the item\n$/);
  });

  test("items a provisioned table's capacity cannot take at start-up: DynamoDB's refusal, the item and what to change", async () => {
    const directory = scratch.fresh();
    const init = join(directory, 'small.json');
    const items = Array.from({ length: 1500 }, (_, index) => ({ id: { S: `item-${index}` }, pad: { S: 'x'.repeat(900) } }));
    writeFileSync(init, JSON.stringify({ tables: [{ TableName: 'small', AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 }, Items: items }] }));
    await assert.rejects(
      startDynatwin(testTwinOptions({ init })),
      (error: unknown) =>
        error instanceof InitError &&
        /small\.json: tables\[0\]\.Items\[\d+\]: ProvisionedThroughputExceededException: The level of configured provisioned throughput for the table was exceeded\. .* \(the items are written with PutItem, paid from the table's capacity: give the table PAY_PER_REQUEST or more WriteCapacityUnits in the file\)$/.test(error.message),
    );
  });

  test('through the CLI and a config file: init: in dynatwin.yaml, read from the file\'s directory', { skip: embeddedStoreOnly('a CLI server in a child process (the CLI runs in memory here)') }, async () => {
    const directory = scratch.fresh();
    writeFileSync(join(directory, 'tables.yaml'), ORDERS_INIT);
    writeFileSync(join(directory, 'dynatwin.yaml'), 'init: tables.yaml\nin-memory: true\n');
    const server = await startServerProcessIn(directory);
    const client = sdkClient(server.endpoint);
    try {
      assert.deepEqual((await client.send(new ListTablesCommand({}))).TableNames, ['events', 'orders']);
    } finally {
      client.destroy();
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});

/** startServerProcess runs in the test's directory; a config file found in `cwd` needs the CLI there. */
function startServerProcessIn(cwd: string): ReturnType<typeof startServerProcess> {
  return startServerProcess(['--config', join(cwd, 'dynatwin.yaml')]);
}
