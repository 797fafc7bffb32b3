/**
 * The wire protocol, byte level: routing, authentication, content types, error bodies, headers.
 */
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { startDynatwin, type Dynatwin } from '../src/index.js';
import { callOperation, rawRequest, SIGNED_HEADERS } from './support/raw.js';
import { testTwinOptions } from './support/test-store.js';

describe('protocol', () => {
  let twin: Dynatwin;
  before(async () => {
    twin = await startDynatwin(testTwinOptions({}));
  });
  after(async () => {
    await twin.close();
  });

  const json = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

  test('GET / answers the health check', async () => {
    const response = await rawRequest(twin.endpoint, { method: 'GET' });
    assert.equal(response.status, 200);
    assert.equal(response.text, `healthy: ${new URL(twin.endpoint).host} `);
  });

  test('responses carry a request id and the CRC32 of the body', async () => {
    const response = await callOperation(twin.endpoint, 'ListTables', '{}');
    assert.equal(response.status, 200);
    assert.match(String(response.headers['x-amzn-requestid']), /^[A-Z0-9]{52}$/);
    assert.equal(Number(response.headers['x-amz-crc32']), crc32(Buffer.from(response.text, 'utf8')));
    assert.equal(response.headers['content-type'], 'application/x-amz-json-1.0');
  });

  test('GetItem answers read again (kept encoded per stored item) carry the right length and CRC32, and follow a new value', async () => {
    const create = await callOperation(
      twin.endpoint,
      'CreateTable',
      JSON.stringify({
        TableName: 'kept-answers',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    assert.equal(create.status, 200);
    const get = '{"TableName":"kept-answers","Key":{"id":{"S":"k"}}}';
    const check = (response: { status: number; text: string; headers: Record<string, unknown> }): void => {
      assert.equal(response.status, 200);
      const bytes = Buffer.from(response.text, 'utf8');
      assert.equal(Number(response.headers['content-length']), bytes.length);
      assert.equal(Number(response.headers['x-amz-crc32']), crc32(bytes));
      assert.match(String(response.headers['x-amzn-requestid']), /^[A-Z0-9]{52}$/);
    };
    for (const text of ['first ☃ value', 'second value, longer, with é and 𝄞']) {
      const item = { id: { S: 'k' }, text: { S: text }, n: { N: '1.5' } };
      assert.equal((await callOperation(twin.endpoint, 'PutItem', JSON.stringify({ TableName: 'kept-answers', Item: item }))).status, 200);
      const first = await callOperation(twin.endpoint, 'GetItem', get);
      const again = await callOperation(twin.endpoint, 'GetItem', get);
      check(first);
      check(again);
      assert.equal(again.text, first.text);
      assert.deepEqual(json(first.text), { Item: item });
      // With ConsumedCapacity the answer is built per request, around the same item text.
      const withCapacity = await callOperation(twin.endpoint, 'GetItem', get.replace('}}}', '}},"ReturnConsumedCapacity":"TOTAL"}'));
      check(withCapacity);
      assert.deepEqual(json(withCapacity.text), { Item: item, ConsumedCapacity: { TableName: 'kept-answers', CapacityUnits: 0.5 } });
    }
  });

  test('application/json is accepted and echoed', async () => {
    const response = await rawRequest(twin.endpoint, {
      headers: { ...SIGNED_HEADERS, 'Content-Type': 'application/json', 'X-Amz-Target': 'DynamoDB_20120810.ListTables' },
      body: '{}',
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-type'], 'application/json');
  });

  test('malformed JSON is a SerializationException', async () => {
    const response = await callOperation(twin.endpoint, 'ListTables', '{"Limit": ');
    assert.equal(response.status, 400);
    assert.deepEqual(json(response.text), { __type: 'com.amazon.coral.service#SerializationException' });
  });

  test('wrong JSON types are SerializationExceptions with the deserializer text', async () => {
    const cases: [string, string, string][] = [
      ['GetItem', '{"TableName": 5, "Key": {}}', 'NUMBER_VALUE cannot be converted to String'],
      ['GetItem', '{"TableName": 1.5, "Key": {}}', 'DECIMAL_VALUE cannot be converted to String'],
      ['GetItem', '{"TableName": true, "Key": {}}', 'TRUE_VALUE cannot be converted to String'],
      ['GetItem', '{"TableName": {}, "Key": {}}', 'Start of structure or map found where not expected'],
      ['GetItem', '{"TableName": [], "Key": {}}', 'Unrecognized collection type class java.lang.String'],
      ['ListTables', '{"Limit": "5"}', 'STRING_VALUE cannot be converted to Integer'],
      ['GetItem', '{"TableName": "t", "Key": {"id": 5}}', 'Unexpected value type in payload'],
      ['GetItem', '{"TableName": "t", "Key": []}', 'Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>'],
      ['GetItem', '{"TableName": "t", "Key": {"id": {"B": "abc"}}}', 'Base64 encoded length is expected a multiple of 4 bytes but found: 3'],
      ['GetItem', '{"TableName": "t", "Key": {"id": {"S": 5}}}', 'NUMBER_VALUE cannot be converted to String'],
      ['GetItem', '{"TableName": "t", "Key": {"id": {"SS": "a"}}}', 'Unexpected field type'],
      ['GetItem', '{"TableName": "t", "ConsistentRead": "maybe", "Key": {}}', 'Unexpected token received from parser'],
    ];
    for (const [operation, body, message] of cases) {
      const response = await callOperation(twin.endpoint, operation, body);
      assert.equal(response.status, 400, body);
      assert.deepEqual(json(response.text), { __type: 'com.amazon.coral.service#SerializationException', Message: message }, body);
    }
  });

  test('an unknown operation is UnknownOperationException', async () => {
    for (const target of ['DynamoDB_20120810.Frobnicate', 'Nope.ListTables', 'ListTables']) {
      const response = await rawRequest(twin.endpoint, {
        headers: { ...SIGNED_HEADERS, 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': target },
        body: '{}',
      });
      assert.equal(response.status, 400);
      assert.deepEqual(json(response.text), { __type: 'com.amazon.coral.service#UnknownOperationException' });
    }
  });

  test('a wrong content type or method is a 404 UnknownOperationException', async () => {
    const response = await rawRequest(twin.endpoint, {
      headers: { ...SIGNED_HEADERS, 'Content-Type': 'text/plain', 'X-Amz-Target': 'DynamoDB_20120810.ListTables' },
      body: '{}',
    });
    assert.equal(response.status, 404);
    assert.equal(response.text, '<UnknownOperationException/>\n');
  });

  test('a request without authentication is MissingAuthenticationTokenException', async () => {
    const response = await rawRequest(twin.endpoint, {
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.ListTables' },
      body: '{}',
    });
    assert.equal(response.status, 400);
    assert.deepEqual(json(response.text), {
      __type: 'com.amazon.coral.service#MissingAuthenticationTokenException',
      message: 'Request is missing Authentication Token',
    });
  });

  test('an incomplete signature names what is missing', async () => {
    const response = await rawRequest(twin.endpoint, {
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.ListTables', Authorization: 'AWS4-HMAC-SHA256 Signature=abc' },
      body: '{}',
    });
    assert.equal(response.status, 400);
    assert.deepEqual(json(response.text), {
      __type: 'com.amazon.coral.service#IncompleteSignatureException',
      message:
        "Authorization header requires 'Credential' parameter. Authorization header requires 'SignedHeaders' parameter. " +
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=AWS4-HMAC-SHA256 Signature=abc",
    });
  });

  test('an empty body is a SerializationException', async () => {
    const response = await callOperation(twin.endpoint, 'ListTables', '');
    assert.equal(response.status, 400);
    assert.deepEqual(json(response.text), { __type: 'com.amazon.coral.service#SerializationException' });
  });

  test('a JSON body that is not an object is a SerializationException', async () => {
    for (const body of ['[]', '5', '"x"', 'null']) {
      const response = await callOperation(twin.endpoint, 'ListTables', body);
      assert.equal(response.status, 400, body);
      assert.equal(json(response.text).__type, 'com.amazon.coral.service#SerializationException', body);
    }
  });

  test('a body over 16 MB is refused with 413, without reading it all', async () => {
    const body = Buffer.alloc(16 * 1024 * 1024 + 1, 0x20);
    const response = await callOperation(twin.endpoint, 'ListTables', body);
    assert.equal(response.status, 413);
    assert.equal(json(response.text).__type, 'com.amazon.coral.service#RequestEntityTooLargeException');
  });

  test('documents nested deeper than DynamoDB allows are rejected, not a crash', async () => {
    const depth = 100_000;
    const body = `{"TableName":"t","Key":{"id":${'{"L":['.repeat(depth)}${']}'.repeat(depth)}}}`;
    const response = await callOperation(twin.endpoint, 'GetItem', body);
    assert.equal(response.status, 400);
    assert.deepEqual(json(response.text), {
      __type: 'com.amazon.coral.validate#ValidationException',
      message: 'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit',
    });
  });

  test('CORS preflight is answered for pages served from loopback', async () => {
    const response = await rawRequest(twin.endpoint, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:3000',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-amz-target,authorization',
      },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers['access-control-allow-origin'], 'http://localhost:3000');
    assert.equal(response.headers['vary'], 'Origin');
    assert.equal(response.headers['access-control-allow-headers'], 'content-type,x-amz-target,authorization');
    assert.equal(response.headers['access-control-allow-methods'], 'POST');
  });
});
