/**
 * Hostile request bodies (issue 15): inputs that used to throw inside the server. Each gets
 * DynamoDB's ValidationException or SerializationException, never an InternalServerError, and
 * attribute names that happen to be JavaScript's own (`__proto__`, `constructor`) are data like
 * any other name.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { CreateTableCommand, PutItemCommand, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { callOperation, rawRequest, SIGNED_HEADERS } from './support/raw.js';
import { startTwinWithClients, type TwinClients } from './support/twin.js';

const VALIDATION = 'com.amazon.coral.validate#ValidationException';

interface ErrorBody {
  readonly __type: string;
  readonly message?: string;
  readonly Message?: string;
}

async function expectError(twin: TwinClients, operation: string, body: string, type: string, message: string): Promise<void> {
  const response = await callOperation(twin.twin.endpoint, operation, body);
  assert.equal(response.status, 400, `${operation} ${body}: ${response.text}`);
  const parsed = JSON.parse(response.text) as ErrorBody;
  assert.equal(parsed.__type, type, `${operation} ${body}`);
  assert.equal(parsed.message ?? parsed.Message, message, `${operation} ${body}`);
}

describe('bodies that used to be internal errors', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients();
    await twin.client.send(
      new CreateTableCommand({
        TableName: 'hostile',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  });
  after(async () => {
    await twin.close();
  });

  test('prototype names as members are unknown members, at any depth, for any operation', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      // Top level: unknown members are ignored, so the required ones are missing.
      await expectError(twin, 'CreateTable', `{"${name}":1}`, VALIDATION, "The parameter 'TableName' is required but was not present in the request");
      await expectError(
        twin,
        'GetItem',
        `{"${name}":{"a":1}}`,
        VALIDATION,
        "2 validation errors detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null; Value null at 'key' failed to satisfy constraint: Member must not be null",
      );
      await expectError(twin, 'ListTables', `{"${name}":1, "Limit": 0}`, VALIDATION, "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1");
      // Nested in a structure: ignored there too.
      await expectError(
        twin,
        'CreateTable',
        `{"TableName":"t-${name.length}","KeySchema":[{"AttributeName":"pk","KeyType":"HASH","${name}":{}}],"AttributeDefinitions":[{"${name}":[]}],"BillingMode":"PAY_PER_REQUEST"}`,
        VALIDATION,
        "2 validation errors detected: Value null at 'attributeDefinitions.1.member.attributeName' failed to satisfy constraint: Member must not be null; Value null at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must not be null",
      );
    }
  });

  test('a null element in a list of statements or parameters is a validation error', async () => {
    await expectError(twin, 'BatchExecuteStatement', '{"Statements":[null]}', VALIDATION, "1 validation error detected: Value null at 'statements.1.member' failed to satisfy constraint: Member must not be null");
    await expectError(twin, 'ExecuteTransaction', '{"TransactStatements":[null]}', VALIDATION, "1 validation error detected: Value null at 'transactStatements.1.member' failed to satisfy constraint: Member must not be null");
    await expectError(
      twin,
      'ExecuteStatement',
      '{"Statement":"SELECT * FROM \\"hostile\\" WHERE pk = ?","Parameters":[null]}',
      VALIDATION,
      "1 validation error detected: Value null at 'parameters.1.member' failed to satisfy constraint: Member must not be null",
    );
    await expectError(
      twin,
      'BatchExecuteStatement',
      '{"Statements":[{"Statement":"SELECT * FROM \\"hostile\\" WHERE pk = ?","Parameters":[{"S":"a"},null]}]}',
      VALIDATION,
      "1 validation error detected: Value null at 'statements.1.member.parameters.2.member' failed to satisfy constraint: Member must not be null",
    );
  });

  test('attribute names such as __proto__ and constructor are stored, read, queried and updated like any other', async () => {
    // Written as JSON text: an object literal's __proto__ would set the prototype instead of a member.
    const text = JSON.stringify({ TableName: 'hostile', Item: { pk: { S: 'proto' }, constructor: { N: '1' }, toString: { M: { valueOf: { S: 'v' } } } } }).replace('"constructor"', '"__proto__":{"S":"p"},"constructor"');
    const put = await callOperation(twin.twin.endpoint, 'PutItem', text);
    assert.equal(put.status, 200, put.text);
    const got = await callOperation(twin.twin.endpoint, 'GetItem', JSON.stringify({ TableName: 'hostile', Key: { pk: { S: 'proto' } }, ConsistentRead: true }));
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(Object.keys((JSON.parse(got.text) as { Item: object }).Item).sort(), ['__proto__', 'constructor', 'pk', 'toString'].sort());
    const projected = await callOperation(twin.twin.endpoint, 'GetItem', JSON.stringify({ TableName: 'hostile', Key: { pk: { S: 'proto' } }, ProjectionExpression: '#p, #c, #t.valueOf', ExpressionAttributeNames: { '#p': '__proto__', '#c': 'constructor', '#t': 'toString' } }));
    assert.equal(projected.status, 200, projected.text);
    assert.equal(projected.text, '{"Item":{"__proto__":{"S":"p"},"constructor":{"N":"1"},"toString":{"M":{"valueOf":{"S":"v"}}}}}');
    await twin.client.send(
      new UpdateItemCommand({
        TableName: 'hostile',
        Key: { pk: { S: 'proto' } },
        UpdateExpression: 'SET #c = #c + :one, #h = :h',
        ConditionExpression: 'attribute_exists(#c) AND attribute_not_exists(#h)',
        ExpressionAttributeNames: { '#c': 'constructor', '#h': 'hasOwnProperty' },
        ExpressionAttributeValues: { ':one': { N: '1' }, ':h': { S: 'h' } },
      }),
    );
    const queried = await twin.client.send(
      new QueryCommand({ TableName: 'hostile', KeyConditionExpression: 'pk = :p', FilterExpression: '#c = :two', ExpressionAttributeNames: { '#c': 'constructor' }, ExpressionAttributeValues: { ':p': { S: 'proto' }, ':two': { N: '2' } } }),
    );
    assert.equal(queried.Count, 1);
    assert.deepEqual(queried.Items?.[0]?.['hasOwnProperty'], { S: 'h' });
    // A name that is only inherited is absent: a condition on it does not see Object's methods.
    await twin.client.send(new PutItemCommand({ TableName: 'hostile', Item: { pk: { S: 'plain' } } }));
    const absent = await twin.client.send(
      new QueryCommand({ TableName: 'hostile', KeyConditionExpression: 'pk = :p', FilterExpression: 'attribute_not_exists(#v) AND attribute_not_exists(#c)', ExpressionAttributeNames: { '#v': 'valueOf', '#c': 'constructor' }, ExpressionAttributeValues: { ':p': { S: 'plain' } } }),
    );
    assert.equal(absent.Count, 1);
  });
});

test('an internal error is an HTTP 500 with DynamoDB InternalServerError body', async () => {
  const { internalError } = await import('../src/errors.js');
  const error = internalError();
  assert.equal(error.statusCode, 500);
  assert.deepEqual(error.toBody(), { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' });
});

describe('nesting is refused before parsing', () => {
  const NESTING = 'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit';

  test('the scanner counts brackets outside strings only, across chunk boundaries', async () => {
    const { JsonDepthScanner, nestsDeeperThan } = await import('../src/server/json-depth.js');
    const text = '{"a":"[[[[{{{{\\"[[[","b":[[{"c":"\\\\"}]]}';
    assert.equal(nestsDeeperThan(Buffer.from(text), 4), false);
    assert.equal(nestsDeeperThan(Buffer.from(text), 3), true);
    assert.equal(nestsDeeperThan(Buffer.from('"' + '['.repeat(1000) + '"'), 1), false);
    assert.equal(nestsDeeperThan(Buffer.from(']]]]]]' + '[['), 2), false, 'unbalanced closers do not lower the depth below zero');
    // Byte by byte, as if every byte were its own chunk: the same verdicts.
    for (const [limit, expected] of [[4, false], [3, true]] as const) {
      const scanner = new JsonDepthScanner(limit);
      for (const byte of Buffer.from(text)) scanner.feed(Buffer.from([byte]));
      assert.equal(scanner.exceeded, expected);
    }
  });

  test('a 16 MB body of nested brackets gets the nesting ValidationException, and so do 16 at once while other clients are served', async () => {
    const twin = await startTwinWithClients();
    try {
      await twin.client.send(
        new CreateTableCommand({ TableName: 'probe', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }),
      );
      const half = (16 * 1024 * 1024 - 64) / 2;
      const body = Buffer.from(`{"TableName":"probe","Item":{"pk":${'['.repeat(half)}${']'.repeat(half)}}}`);
      const single = await callOperation(twin.twin.endpoint, 'PutItem', body);
      assert.equal(single.status, 400);
      assert.deepEqual(JSON.parse(single.text), { __type: VALIDATION, message: NESTING });
      // Authentication and target still come first, as for any body.
      const unknown = await callOperation(twin.twin.endpoint, 'NoSuchOperation', body);
      assert.equal((JSON.parse(unknown.text) as ErrorBody).__type, 'com.amazon.coral.service#UnknownOperationException');

      const hostile = Array.from({ length: 16 }, () => callOperation(twin.twin.endpoint, 'BatchWriteItem', body));
      let probes = 0;
      let done = false;
      const probe = (async () => {
        while (!done) {
          await twin.client.send(new PutItemCommand({ TableName: 'probe', Item: { pk: { S: `p${probes}` } } }));
          probes++;
        }
      })();
      const answers = await Promise.all(hostile);
      done = true;
      await probe;
      for (const answer of answers) assert.deepEqual(JSON.parse(answer.text), { __type: VALIDATION, message: NESTING });
      assert.ok(probes > 0, 'the probe client was served meanwhile');
    } finally {
      await twin.close();
    }
  });

  test('a deep body whose first chunks are short (kept unscanned below the limit) is still refused, and a short body is served', async () => {
    const twin = await startTwinWithClients();
    try {
      await twin.client.send(
        new CreateTableCommand({ TableName: 'probe', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }),
      );
      const { hostname, port } = new URL(twin.twin.endpoint);
      const send = (chunks: readonly string[]): Promise<{ status: number; text: string }> =>
        new Promise((resolve, reject) => {
          const request = http.request(
            { hostname, port, method: 'POST', path: '/', headers: { ...SIGNED_HEADERS, 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.PutItem' } },
            (response) => {
              const parts: Buffer[] = [];
              response.on('data', (part: Buffer) => parts.push(part));
              response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
            },
          );
          request.on('error', reject);
          // One chunk per write, each flushed before the next (chunked transfer encoding).
          const writeNext = (at: number): void => {
            if (at === chunks.length) {
              request.end();
              return;
            }
            request.write(chunks[at]!, () => setTimeout(() => writeNext(at + 1), 5));
          };
          writeNext(0);
        });
      const head = '{"TableName":"probe","Item":{"pk":';
      // Not even JSON past the brackets: parsed, it would be a SerializationException; the scan refuses it first.
      const deep = await send([head, '['.repeat(60), '['.repeat(60), 'not json}}']);
      assert.equal(deep.status, 400, deep.text);
      assert.deepEqual(JSON.parse(deep.text), { __type: VALIDATION, message: NESTING });
      const short = await send([head, '{"S":"a"}', '}}']);
      assert.equal(short.status, 200, short.text);
    } finally {
      await twin.close();
    }
  });

  test('a refused 16 MB body is answered to clients that send Connection: close, and the connection is then closed', async () => {
    const twin = await startTwinWithClients();
    try {
      const half = (16 * 1024 * 1024 - 64) / 2;
      const body = Buffer.from(`{"TableName":"probe","Item":{"pk":${'['.repeat(half)}${']'.repeat(half)}}}`);
      // No agent: each request says Connection: close. The answer must arrive before the server
      // lets go of the connection, whatever of the upload is still under way.
      const answers = await Promise.all(Array.from({ length: 16 }, () => rawRequest(twin.twin.endpoint, { headers: { ...SIGNED_HEADERS, 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.PutItem' }, body, agent: false })));
      for (const answer of answers) {
        assert.equal(answer.status, 400);
        assert.equal(answer.headers['connection'], 'close');
        assert.deepEqual(JSON.parse(answer.text), { __type: VALIDATION, message: NESTING });
      }
      // A small too-deep body on a keep-alive connection: answered, and the next request on a new
      // connection is served.
      const small = await callOperation(twin.twin.endpoint, 'GetItem', `{"TableName":"probe","Key":{"pk":${'['.repeat(300)}${']'.repeat(300)}}}`);
      assert.deepEqual(JSON.parse(small.text), { __type: VALIDATION, message: NESTING });
      const listed = await callOperation(twin.twin.endpoint, 'ListTables', '{}');
      assert.equal(listed.status, 200);
    } finally {
      await twin.close();
    }
  });

  test('the deepest legitimate document (31 map levels in a transaction update value) is not refused by the scan', async () => {
    const twin = await startTwinWithClients();
    try {
      await twin.client.send(
        new CreateTableCommand({ TableName: 'deep', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }),
      );
      const deepValue = (levels: number): string => '{"M":{"k":'.repeat(levels) + '{"S":"leaf"}' + '}}'.repeat(levels);
      const request = (levels: number): string =>
        `{"TransactItems":[{"Update":{"TableName":"deep","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET v = :v","ExpressionAttributeValues":{":v":${deepValue(levels)}}}}]}`;
      const accepted = await callOperation(twin.twin.endpoint, 'TransactWriteItems', request(31));
      assert.equal(accepted.status, 200, accepted.text);
      const refused = await callOperation(twin.twin.endpoint, 'TransactWriteItems', request(60));
      assert.equal(refused.status, 400);
      assert.equal((JSON.parse(refused.text) as ErrorBody).message, NESTING);
    } finally {
      await twin.close();
    }
  });
});
