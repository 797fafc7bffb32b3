/**
 * HTTP edges of the protocol (issue 36), on both doors (the fast lane and `--node-http`), through
 * raw HTTP: a POST to a path other than `/` finds no operation (404 `<UnknownOperationException/>`,
 * as DynamoDB serves its protocol at `/` only), and a compressed answer carries its Content-Length,
 * never chunked transfer encoding (DynamoDB does not chunk its answers).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { DEFAULT_SERVER_OPTIONS, startServer, type RunningServer } from '../src/server/server.js';
import { callOperation, rawRequest, SIGNED_HEADERS } from './support/raw.js';
import { dynamoRequest, WireClient } from './support/http-wire.js';
import { testServerOptions } from './support/test-store.js';

const DYNAMO_HEADERS = { ...SIGNED_HEADERS, 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.ListTables' };

/** A POST whose answer is read as bytes, with its headers as node's client parsed them. */
function postForBytes(endpoint: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(new URL('/', endpoint), { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

for (const nodeHttp of [false, true]) {
  describe(`HTTP edges (${nodeHttp ? 'node:http' : 'fast lane'})`, () => {
    let server: RunningServer;
    before(async () => {
      server = await startServer(testServerOptions({ ...DEFAULT_SERVER_OPTIONS, port: 0, inMemory: true, nodeHttp, log: () => {} }));
    });
    after(() => server.close());

    test('a POST to a path other than / answers 404 <UnknownOperationException/>, and runs nothing', async () => {
      for (const path of ['/x', '/tables', '/x/', '/x?y=1', '/%2F']) {
        const answer = await rawRequest(server.endpoint, { path, headers: { ...DYNAMO_HEADERS, 'X-Amz-Target': 'DynamoDB_20120810.CreateTable' }, body: JSON.stringify({ TableName: 'never', AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }) });
        assert.equal(answer.status, 404, path);
        assert.equal(answer.text, '<UnknownOperationException/>\n', path);
      }
      // The same bytes on a raw socket, an absolute-form target included, keep the connection usable.
      const client = await WireClient.open(server.port);
      try {
        await client.write(dynamoRequest(server.port, 'ListTables', '{}').replace('POST / ', 'POST /other '));
        await client.write(dynamoRequest(server.port, 'ListTables', '{}').replace('POST / ', `POST http://127.0.0.1:${server.port}/x `));
        await client.write(dynamoRequest(server.port, 'ListTables', '{}'));
        const answers = await client.responses(3);
        assert.deepEqual(answers.map((answer) => answer.status), [404, 404, 200]);
        assert.equal(answers[2]!.body, '{"TableNames":[]}');
      } finally {
        client.destroy();
      }
      const tables = await callOperation(server.endpoint, 'ListTables', '{}');
      assert.equal(tables.text, '{"TableNames":[]}', 'nothing ran: no table was created');
    });

    test('a POST to / with a query string is served', async () => {
      const answer = await rawRequest(server.endpoint, { path: '/?x=1', headers: DYNAMO_HEADERS, body: '{}' });
      assert.equal(answer.status, 200);
      assert.equal(answer.text, '{"TableNames":[]}');
    });

    test('a compressed answer carries Content-Length, not Transfer-Encoding: chunked', async () => {
      // ListTables of enough long names to pass the 4 KB compression threshold.
      for (let index = 0; index < 24; index++) {
        const created = await callOperation(
          server.endpoint,
          'CreateTable',
          JSON.stringify({ TableName: `t${index}-${'n'.repeat(200)}`, AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }),
        );
        assert.equal(created.status, 200, created.text);
      }
      for (const encoding of ['gzip', 'deflate']) {
        const answer = await postForBytes(server.endpoint, { ...DYNAMO_HEADERS, 'Accept-Encoding': encoding }, '{}');
        assert.equal(answer.status, 200);
        assert.equal(answer.headers['content-encoding'], encoding);
        assert.equal(answer.headers['transfer-encoding'], undefined);
        assert.equal(answer.headers['content-length'], String(answer.bytes.length));
        if (encoding === 'gzip') assert.equal((JSON.parse(gunzipSync(answer.bytes).toString('utf8')) as { TableNames: string[] }).TableNames.length, 24);
      }
    });
  });
}
