/**
 * HTTP compression (issue 20): gzip / deflate request bodies (what the SDKs' request compression
 * sends) and gzip / deflate responses for clients that send Accept-Encoding, with x-amz-crc32 the
 * checksum of the compressed bytes as DynamoDB sends it. Through the SDK with middleware (the
 * JavaScript SDK neither compresses DynamoDB requests nor asks for compressed responses by itself),
 * raw requests for what no SDK sends, and a seeded fuzz of corrupt compressed bodies.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { crc32, deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { responseEncodingOf, RESPONSE_COMPRESSION_BYTES_MIN } from '../src/server/compression.js';
import { REQUEST_BODY_BYTES_MAX } from '../src/server/http.js';
import { callOperation, rawRequest, SIGNED_HEADERS, type RawResponse } from './support/raw.js';
import { seededRandom } from './support/random.js';
import { onDemandTable } from './support/tables.js';
import { sdkClient, startTwinWithClients, type TwinClients } from './support/twin.js';

const TABLE = 'compressed';

/** Request middleware: the body compressed as the SDKs' request compression sends it. */
function compressingClient(endpoint: string, encoding: 'gzip' | 'deflate'): DynamoDBClient {
  const client = sdkClient(endpoint);
  client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { body?: string | Uint8Array; headers: Record<string, string> };
      if (request.body !== undefined) {
        const raw = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : Buffer.from(request.body);
        const compressed = encoding === 'gzip' ? gzipSync(raw) : deflateSync(raw);
        request.body = compressed;
        request.headers['content-encoding'] = encoding;
        request.headers['content-length'] = String(compressed.length);
      }
      return next(args);
    },
    { step: 'build', name: 'compressRequestBody' },
  );
  return client;
}

interface SeenResponse {
  encoding: string | undefined;
  sentBytes: number;
}

/**
 * Response middleware: asks for `acceptEncoding`, checks x-amz-crc32 against the bytes as sent
 * (the compressed ones, as aws-sdk-go-v2 does for DynamoDB) and decompresses before the SDK
 * parses. Records what each response looked like on the wire.
 */
function decompressingClient(endpoint: string, acceptEncoding: string, seen: SeenResponse[]): DynamoDBClient {
  const client = sdkClient(endpoint);
  client.middlewareStack.add(
    (next) => async (args) => {
      (args.request as { headers: Record<string, string> }).headers['accept-encoding'] = acceptEncoding;
      const result = await next(args);
      const response = result.response as { headers: Record<string, string>; body: AsyncIterable<Buffer> };
      const chunks: Buffer[] = [];
      for await (const chunk of response.body) chunks.push(Buffer.from(chunk));
      const sent = Buffer.concat(chunks);
      assert.equal(String(crc32(sent)), response.headers['x-amz-crc32'], 'x-amz-crc32 is the checksum of the bytes sent');
      const encoding = response.headers['content-encoding'];
      seen.push({ encoding, sentBytes: sent.length });
      response.body = (encoding === 'gzip' ? gunzipSync(sent) : encoding === 'deflate' ? inflateSync(sent) : sent) as unknown as AsyncIterable<Buffer>;
      return result;
    },
    { step: 'deserialize', name: 'decompressResponseBody', priority: 'low' },
  );
  return client;
}

function putBody(id: string, extra = ''): string {
  return JSON.stringify({ TableName: TABLE, Item: { id: { S: id }, ...(extra === '' ? {} : { text: { S: extra } }) } });
}

async function stored(twin: TwinClients, id: string): Promise<boolean> {
  const { Item } = await twin.client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: id } }, ConsistentRead: true }));
  return Item !== undefined;
}

function encodedPut(endpoint: string, encoding: string, body: Buffer | string, agent?: Agent): Promise<RawResponse> {
  return rawRequest(endpoint, {
    headers: {
      ...SIGNED_HEADERS,
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': 'DynamoDB_20120810.PutItem',
      'Content-Encoding': encoding,
    },
    body,
    agent,
  });
}

function assertSerializationError(response: RawResponse, context: string): void {
  assert.equal(response.status, 400, `${context}: ${response.text}`);
  const parsed = JSON.parse(response.text) as { __type: string };
  assert.equal(parsed.__type, 'com.amazon.coral.service#SerializationException', context);
}

describe('compression', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients();
    await twin.client.send(new CreateTableCommand(onDemandTable(TABLE)));
  });
  after(async () => {
    await twin.close();
  });

  for (const encoding of ['gzip', 'deflate'] as const) {
    test(`the SDK with ${encoding} request compression writes and reads items`, async () => {
      const client = compressingClient(twin.twin.endpoint, encoding);
      try {
        const long = 'compressible '.repeat(5000);
        await client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: `req-${encoding}` }, text: { S: long } } }));
        const { Item } = await client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: `req-${encoding}` } } }));
        assert.deepEqual(Item, { id: { S: `req-${encoding}` }, text: { S: long } });
      } finally {
        client.destroy();
      }
    });

    test(`responses of ${RESPONSE_COMPRESSION_BYTES_MIN} bytes or more come ${encoding}-compressed to a client that accepts it, with the CRC32 of the compressed bytes; smaller ones plain`, async () => {
      const seen: SeenResponse[] = [];
      const client = decompressingClient(twin.twin.endpoint, encoding, seen);
      try {
        const long = 'x'.repeat(3 * RESPONSE_COMPRESSION_BYTES_MIN);
        await client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: `res-${encoding}` }, text: { S: long } } }));
        const { Item } = await client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: `res-${encoding}` } } }));
        assert.deepEqual(Item, { id: { S: `res-${encoding}` }, text: { S: long } });
        const small = await client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: `res-${encoding}` } }, ProjectionExpression: 'id' }));
        assert.deepEqual(small.Item, { id: { S: `res-${encoding}` } });
        assert.equal(seen.length, 3);
        assert.equal(seen[0]!.encoding, undefined, 'the PutItem answer ({}) is below the threshold');
        assert.equal(seen[1]!.encoding, encoding);
        assert.ok(seen[1]!.sentBytes < RESPONSE_COMPRESSION_BYTES_MIN, `compressed to ${seen[1]!.sentBytes} bytes`);
        assert.equal(seen[2]!.encoding, undefined);
      } finally {
        client.destroy();
      }
    });
  }

  test('a client without Accept-Encoding gets plain responses, however large', async () => {
    const response = await callOperation(twin.twin.endpoint, 'GetItem', JSON.stringify({ TableName: TABLE, Key: { id: { S: 'res-gzip' } } }));
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-encoding'], undefined);
    assert.equal(response.headers['x-amz-crc32'], String(crc32(Buffer.from(response.text, 'utf8'))));
    assert.ok(response.text.length > RESPONSE_COMPRESSION_BYTES_MIN);
  });

  test('Accept-Encoding is read as DynamoDB reads it (qualities, *, ties, malformed entries)', () => {
    const cases: [string | undefined, string | undefined][] = [
      [undefined, undefined],
      ['', undefined],
      ['identity', undefined],
      ['br', undefined],
      ['x-gzip', undefined],
      ['gzip, deflate', 'gzip'],
      ['br, identity, deflate, gzip', 'deflate'],
      ['GZIP, identity', 'gzip'],
      ['dog, gzip ,, cat', 'gzip'],
      ['gzip;q=0.8, deflate;q=0.5', 'gzip'],
      ['br, gzip;q=0, deflate; q = 0.5 , identity;q=0', 'deflate'],
      ['*', 'gzip'],
      ['*, deflate;q=0.5', 'gzip'],
      ['*, deflate', 'deflate'],
      ['*, gzip;q=0.5', 'deflate'],
      ['gzip ;q=0', undefined],
      ['*;q=0', undefined],
      ['*;q=0.5,identity', 'gzip'],
      ['br;q=0.8,identity;q=0.5,*;q=0', undefined],
      ['"gzip"', undefined],
      ['gzip br', undefined],
      ['gzip:q=1', undefined],
      ['deflate;q=0.5, gzip;q=31', 'gzip'],
      ['deflate;q=0.5, gzip;q=1;q=0.2', 'gzip'],
      ['deflate;q=0.5,gzip;q=0.', 'deflate'],
      ['deflate;q=0.5,gzip;q=0.x', 'gzip'],
      ['deflate;q=-0.5,gzip;q=0.2', 'gzip'],
      ['gzip; q=0;q=1', undefined],
      ['gzip;nq=0;q=1', undefined],
      ['gzip;q =0;q=1', 'gzip'],
      ['gzip;q= 0;q=1', undefined],
      ['gzip;q=0, gzip;q=1, gzip;q=0', 'gzip'],
      ['br,identity;q=0.5,gzip;q=0.0001', 'gzip'],
    ];
    for (const [header, expected] of cases) assert.equal(responseEncodingOf(header), expected, `Accept-Encoding: ${header}`);
    assert.equal(responseEncodingOf(['identity', 'gzip']), undefined, 'only the first of repeated headers counts');
  });

  test('concatenated gzip members are one body; identity is no coding', async () => {
    const body = Buffer.from(putBody('two-members'), 'utf8');
    const twoMembers = Buffer.concat([gzipSync(body.subarray(0, 10)), gzipSync(body.subarray(10))]);
    assert.equal((await encodedPut(twin.twin.endpoint, 'gzip', twoMembers)).status, 200);
    assert.ok(await stored(twin, 'two-members'));
    assert.equal((await encodedPut(twin.twin.endpoint, 'identity', putBody('identity'))).status, 200);
    assert.ok(await stored(twin, 'identity'));
  });

  test('an unknown Content-Encoding, a body that is not what it claims, a truncated or empty stream: a 400 and no write', async () => {
    const cases: [string, string, Buffer | string][] = [
      ['garbage coding', 'garbage', putBody('bad-1')],
      ['br', 'br', putBody('bad-2')],
      ['plain JSON sent as gzip', 'gzip', putBody('bad-3')],
      ['plain JSON sent as deflate', 'deflate', putBody('bad-4')],
      ['gzip missing its last byte', 'gzip', gzipSync(putBody('bad-5')).subarray(0, -1)],
      ['deflate missing its last byte', 'deflate', deflateSync(putBody('bad-6')).subarray(0, -1)],
      ['empty gzip', 'gzip', ''],
      ['empty deflate', 'deflate', ''],
      ['gzip sent as deflate', 'deflate', gzipSync(putBody('bad-7'))],
    ];
    for (const [context, encoding, body] of cases) assertSerializationError(await encodedPut(twin.twin.endpoint, encoding, body), context);
    for (let index = 1; index <= 7; index++) assert.equal(await stored(twin, `bad-${index}`), false);
  });

  test('the 16 MB limit counts decompressed bytes: a small zip bomb is refused with 413 while it inflates', async () => {
    const body = putBody('bomb');
    const inflated = Buffer.alloc(REQUEST_BODY_BYTES_MAX + 4 * 1024 * 1024, 0x20);
    inflated.write(body.slice(0, -1), 0, 'utf8');
    inflated.write('}', inflated.length - 1, 'utf8');
    for (const [encoding, compressed] of [['gzip', gzipSync(inflated)], ['deflate', deflateSync(inflated)]] as const) {
      assert.ok(compressed.length < 64 * 1024, `the bomb is small (${compressed.length} bytes)`);
      const response = await encodedPut(twin.twin.endpoint, encoding, compressed);
      assert.equal(response.status, 413, encoding);
      assert.match(response.text, /RequestEntityTooLargeException/);
    }
    assert.equal(await stored(twin, 'bomb'), false);
  });

  test('a compressed body nesting too deep gets the nesting ValidationException', async () => {
    const response = await encodedPut(twin.twin.endpoint, 'gzip', gzipSync('['.repeat(100_000)));
    assert.equal(response.status, 400);
    assert.match(response.text, /ValidationException/);
  });

  test('fuzz: corrupted gzip and deflate bodies always get a 4xx, never a 500, a hang or a reset; the server serves afterwards', async () => {
    const random = seededRandom(20_2026);
    const agent = new Agent({ keepAlive: false });
    try {
      for (let round = 0; round < 120; round++) {
        const encoding = random() < 0.5 ? 'gzip' : 'deflate';
        const valid = encoding === 'gzip' ? gzipSync(putBody(`fuzz-${round}`, 'abc'.repeat(50))) : deflateSync(putBody(`fuzz-${round}`, 'abc'.repeat(50)));
        const body = Buffer.from(valid);
        const mutation = Math.floor(random() * 4);
        if (mutation === 0) {
          // Flip a few bytes.
          for (let flips = 1 + Math.floor(random() * 4); flips > 0; flips--) body[Math.floor(random() * body.length)]! ^= 1 + Math.floor(random() * 255);
        } else if (mutation === 1) {
          // Truncate.
          const cut = body.subarray(0, Math.floor(random() * body.length));
          body.fill(0);
          cut.copy(body);
        } else if (mutation === 2) {
          // Random bytes behind a valid header.
          for (let index = 10; index < body.length; index++) body[index] = Math.floor(random() * 256);
        } else {
          // Pure noise.
          for (let index = 0; index < body.length; index++) body[index] = Math.floor(random() * 256);
        }
        const response = await encodedPut(twin.twin.endpoint, encoding, body, agent);
        // A flip may leave the stream valid (a flipped byte in gzip's header MTIME/OS fields), so 200 is allowed.
        assert.ok(response.status === 200 || (response.status >= 400 && response.status < 500), `round ${round} (${encoding}, mutation ${mutation}): ${response.status} ${response.text}`);
      }
    } finally {
      agent.destroy();
    }
    assert.equal((await callOperation(twin.twin.endpoint, 'PutItem', putBody('after-fuzz'))).status, 200);
  });
});
