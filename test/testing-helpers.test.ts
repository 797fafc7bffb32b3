/**
 * dynatwin/testing's contract with Vitest and Jest, exercised as those frameworks call it, in this
 * process (test-frameworks.test.ts runs the frameworks themselves on small projects): a Vitest-style globalSetup module (`export { setup, teardown }`) and a
 * Jest-style pair (globalSetup's default export, globalTeardown's from a separately loaded module
 * instance, as Jest loads each in a registry of its own); the test files' side reaches the twin with
 * an SDK client given no endpoint, and resetTables() brings back the init tables between tests.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DynamoDBClient, GetItemCommand, ListTablesCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import * as testing from '../src/testing.js';
import { scratchDirectories } from './support/scratch.js';

const scratch = scratchDirectories('dynatwin-testing-');
const VARIABLES = [testing.ENDPOINT_VARIABLE, testing.INIT_VARIABLE, 'AWS_ENDPOINT_URL_DYNAMODB', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'];
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
after(() => {
  scratch.removeAll();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** A test file's client: no endpoint, region or credentials of its own, as a user's code makes it. */
function clientAsInATestFile(): DynamoDBClient {
  return new DynamoDBClient({ maxAttempts: 1 });
}

describe('dynatwin/testing', () => {
  test('Vitest: globalSetup: ["./dynatwin.setup.ts"] with `export { setup, teardown } from "dynatwin/testing"`', async () => {
    for (const name of VARIABLES) delete process.env[name];
    // Vitest passes its project as the argument; the helper does not read it.
    await (testing.setup as (project: unknown) => Promise<void>)({ provide() {}, config: {} });
    const endpoint = testing.dynatwinEndpoint();
    assert.match(endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(process.env['AWS_ENDPOINT_URL_DYNAMODB'], endpoint);
    const client = clientAsInATestFile();
    try {
      assert.deepEqual((await client.send(new ListTablesCommand({}))).TableNames, []);
    } finally {
      client.destroy();
    }
    await testing.teardown();
    assert.equal(process.env[testing.ENDPOINT_VARIABLE], undefined);
    await assert.rejects(fetch(endpoint), 'the twin is closed');
    assert.throws(() => testing.dynatwinEndpoint(), /DYNATWIN_ENDPOINT is not set/);
  });

  test('Jest: globalSetup default export with init tables, resetTables() in beforeEach, globalTeardown from another module instance', async () => {
    const init = join(scratch.fresh(), 'tables.yaml');
    writeFileSync(
      init,
      'tables:\n  - TableName: users\n    AttributeDefinitions: [{ AttributeName: id, AttributeType: S }]\n    KeySchema: [{ AttributeName: id, KeyType: HASH }]\n    BillingMode: PAY_PER_REQUEST\n    Items: [{ id: { S: ada } }]\n',
    );
    // jest.setup.mjs: export default globalSetup({ init: './tables.yaml' }); Jest calls it with its configs.
    const jestSetup = testing.globalSetup({ init }) as (globalConfig: unknown, projectConfig: unknown) => Promise<unknown>;
    await jestSetup({}, {});
    const client = clientAsInATestFile();
    try {
      // A test writes and adds a table...
      await client.send(new PutItemCommand({ TableName: 'users', Item: { id: { S: 'grace' } } }));
      await client.send(new PutItemCommand({ TableName: 'users', Item: { id: { S: 'ada' }, changed: { BOOL: true } } }));
      // ...the next test's beforeEach resets: the init tables as the file has them, nothing else.
      await testing.resetTables();
      assert.deepEqual((await client.send(new ListTablesCommand({}))).TableNames, ['users']);
      assert.equal((await client.send(new GetItemCommand({ TableName: 'users', Key: { id: { S: 'grace' } } }))).Item, undefined);
      assert.deepEqual((await client.send(new GetItemCommand({ TableName: 'users', Key: { id: { S: 'ada' } } }))).Item, { id: { S: 'ada' } });
    } finally {
      client.destroy();
    }
    const endpoint = testing.dynatwinEndpoint();
    // jest.teardown.mjs is loaded apart from jest.setup.mjs: a second instance of the module.
    const specifier = '../src/testing.js?jest-teardown';
    const teardownModule = (await import(specifier)) as typeof testing;
    assert.notEqual(teardownModule.teardown, testing.teardown);
    await teardownModule.teardown();
    await assert.rejects(fetch(endpoint), 'the twin is closed');
  });
});
