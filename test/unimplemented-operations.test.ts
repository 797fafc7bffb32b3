/**
 * Operations AWS has and dynatwin lacks: DynamoDB's answer to an unknown target, unchanged, and
 * one line per operation name on the server's log.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import * as DynamoDB from '@aws-sdk/client-dynamodb';
import { DescribeBulkOperationCommand, ListBulkOperationsCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DYNAMODB_OPERATION_NAMES } from '../src/operations/aws-operations.js';
import { createOperationRegistry } from '../src/operations/index.js';
import { DEFAULT_SERVER_OPTIONS, startServer, type RunningServer } from '../src/server/server.js';
import { rawRequest, SIGNED_HEADERS } from './support/raw.js';
import { expectDynamoError, sdkClient } from './support/client.js';
import { testServerOptions } from './support/test-store.js';

describe('operations AWS has and dynatwin does not implement', () => {
  const logged: string[] = [];
  let server: RunningServer;
  before(async () => {
    server = await startServer(testServerOptions({ ...DEFAULT_SERVER_OPTIONS, port: 0, inMemory: true, log: (message) => logged.push(message) }));
  });
  after(() => server.close());

  // The empty message is checked on the raw body below (the SDK shows an empty one as "UnknownError").
  test('are answered UnknownOperationException, and logged once per name', async () => {
    const client = sdkClient(server.endpoint);
    try {
      for (let round = 0; round < 3; round++) {
        await expectDynamoError(client.send(new ListBulkOperationsCommand({})), 'UnknownOperationException');
        await expectDynamoError(client.send(new DescribeBulkOperationCommand({ BulkOperationArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/t/bulk/1' })), 'UnknownOperationException');
      }
      await client.send(new ListTablesCommand({}));
    } finally {
      client.destroy();
    }
    assert.deepEqual(
      logged.map((line) => /^dynatwin: (\w+) is a DynamoDB operation dynatwin does not implement yet/.exec(line)?.[1]),
      ['ListBulkOperations', 'DescribeBulkOperation'],
    );
  });

  test('the body is the same for an operation AWS has and one it has not; only the former is logged', async () => {
    const before = logged.length;
    for (const name of ['StartBulkPutItems', 'NoSuchOperation']) {
      const response = await rawRequest(server.endpoint, {
        headers: { ...SIGNED_HEADERS, 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': `DynamoDB_20120810.${name}` },
        body: '{}',
      });
      assert.equal(response.status, 400);
      assert.deepEqual(JSON.parse(response.text), { __type: 'com.amazon.coral.service#UnknownOperationException' });
    }
    assert.equal(logged.length, before + 1);
    assert.match(logged.at(-1)!, /^dynatwin: StartBulkPutItems is a DynamoDB operation/);
  });

  test('the list covers every command of the AWS SDK, and the README lists exactly the missing ones', () => {
    const sdkOperations = Object.keys(DynamoDB)
      .filter((name) => name.endsWith('Command') && name !== 'Command' && name !== '$Command')
      .map((name) => name.slice(0, -'Command'.length));
    assert.ok(sdkOperations.length > 50, `found ${sdkOperations.length} SDK commands`);
    assert.deepEqual(sdkOperations.filter((name) => !DYNAMODB_OPERATION_NAMES.has(name)), []);
    const implemented = createOperationRegistry();
    for (const name of implemented.keys()) assert.ok(DYNAMODB_OPERATION_NAMES.has(name), `${name} is a DynamoDB operation`);
    const missing = [...DYNAMODB_OPERATION_NAMES].filter((name) => !implemented.has(name)).sort();
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = /Not implemented \(answered `UnknownOperationException`[^\n]*\n((?:[^\n]+\n)+)/.exec(readme);
    assert.ok(section !== null, 'the README has the "Not implemented" paragraph');
    const listed = [...section[1]!.matchAll(/\b[A-Z][a-z]+(?:[A-Z][a-z]*)+\b/g)].map((match) => match[0]).sort();
    assert.deepEqual(listed, missing);
  });
});
