/**
 * `--auth verify` (issue 20, "Authentication, optional and real"): SigV4 signatures are checked
 * against the credentials of a shared-credentials file and the environment, on the server's clock,
 * for DynamoDB, DynamoDB Streams, CloudWatch and Application Auto Scaling on the one endpoint.
 * Through the real SDK clients (right key, wrong secret, unknown key, session tokens, an expired
 * signature), a presigned URL (query form) and a gzip body signed by @smithy/signature-v4, the AWS
 * CLI when it is installed, and a fuzz of malformed Authorization headers (never a 500 or a reset).
 * Plus the 16 KB header limit: a 400 with a DynamoDB-shaped body, not a reset.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ApplicationAutoScalingClient, DescribeScalableTargetsCommand } from '@aws-sdk/client-application-auto-scaling';
import { CloudWatchClient, ListMetricsCommand } from '@aws-sdk/client-cloudwatch';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, ListStreamsCommand } from '@aws-sdk/client-dynamodb-streams';
import { SignatureV4 } from '@smithy/signature-v4';
import { startDynatwin, type Dynatwin, type ManualClock } from '../src/index.js';
import { basicDate, deriveSigningKey, SIGNING_KEYS_MAX, SigningKeys } from '../src/server/sigv4.js';
import { parseSharedCredentials } from '../src/server/credentials.js';
import { rawRequest, type RawResponse } from './support/raw.js';
import { seededRandom } from './support/random.js';
import { scratchDirectories } from './support/scratch.js';
import { expectDynamoError } from './support/client.js';
import { NodeSha256 } from './support/node-sha256.js';
import { testTwinOptions } from './support/test-store.js';

const KEY = { accessKeyId: 'AKIDVERIFY0000000001', secretAccessKey: 'verify/secret+key0000000000000000000001' };
const OTHER = { accessKeyId: 'AKIDVERIFY0000000002', secretAccessKey: 'other-profile-secret' };
const TEMPORARY = { accessKeyId: 'ASIAVERIFY0000000003', secretAccessKey: 'temporary-secret', sessionToken: 'session-token-of-the-profile' };

const MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
const INVALID_TOKEN = 'The security token included in the request is invalid.';
const BASIC_DATE = /^\d{8}T\d{6}Z$/;

type Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };

const scratch = scratchDirectories('dynatwin-auth-');
after(() => scratch.removeAll());

function credentialsFile(): string {
  const path = join(scratch.fresh(), 'credentials');
  writeFileSync(
    path,
    [
      '# profiles the twin accepts',
      '[default]',
      `aws_access_key_id = ${KEY.accessKeyId}`,
      `aws_secret_access_key = ${KEY.secretAccessKey}`,
      '',
      '[other]',
      `aws_access_key_id=${OTHER.accessKeyId}`,
      `aws_secret_access_key=${OTHER.secretAccessKey}`,
      '[temporary]',
      `aws_access_key_id = ${TEMPORARY.accessKeyId}`,
      `aws_secret_access_key = ${TEMPORARY.secretAccessKey}`,
      `aws_session_token = ${TEMPORARY.sessionToken}`,
    ].join('\n'),
  );
  return path;
}

/** A presigned request keeps X-Amz-Target a header: the target is read from the headers. */
const KEEP_TARGET = new Set(['x-amz-target']);

const clientConfig = (endpoint: string, credentials: Credentials) => ({ endpoint, region: 'us-east-1', credentials, maxAttempts: 1 });

function signer(credentials: Credentials, service = 'dynamodb'): SignatureV4 {
  return new SignatureV4({ credentials, region: 'us-east-1', service, sha256: NodeSha256 });
}

interface PlainRequest {
  method: string;
  protocol: string;
  hostname: string;
  port: number;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string | Buffer;
}

function dynamoRequest(endpoint: string, operation: string, body: string | Buffer, headers: Record<string, string> = {}): PlainRequest {
  const url = new URL(endpoint);
  return {
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: '/',
    query: {},
    headers: { host: url.host, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${operation}`, ...headers },
    body,
  };
}

/** Sends a request signed (or presigned) by the caller, as it is. */
function send(endpoint: string, request: { path: string; query?: Record<string, string | string[] | null>; headers: Record<string, string>; body?: unknown }): Promise<RawResponse> {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query ?? {})) {
    for (const one of Array.isArray(value) ? value : [value ?? '']) query.append(name, one);
  }
  const search = query.toString().replace(/\+/g, '%20');
  const headers = { ...request.headers };
  delete headers.host;
  return rawRequest(endpoint, { path: search === '' ? request.path : `${request.path}?${search}`, headers, body: request.body as string | Buffer });
}

/** A raw request over HTTP, or HTTPS trusting `certificate`. */
function doorRequest(endpoint: string, certificate: string | undefined, method: string, path: string, headers: Record<string, string>, body: string | Buffer): Promise<RawResponse> {
  if (certificate === undefined) return rawRequest(endpoint, { method, path, headers, body });
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(new URL(path, endpoint), { method, headers, ca: certificate }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Sends a signed request with these header lines in place of its own of the same names (repeated names allowed). */
function rawRequestLines(endpoint: string, request: { headers: Record<string, string>; body?: unknown }, lines: readonly [string, string][]): Promise<RawResponse> {
  const replaced = new Set(lines.map(([name]) => name.toLowerCase()));
  const url = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      const body = Buffer.from(request.body as string);
      let head = `POST / HTTP/1.1\r\nHost: ${url.host}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n`;
      for (const [name, value] of Object.entries(request.headers)) if (name !== 'host' && name !== 'content-length' && !replaced.has(name.toLowerCase())) head += `${name}: ${value}\r\n`;
      for (const [name, value] of lines) head += `${name}: ${value}\r\n`;
      socket.end(Buffer.concat([Buffer.from(head + '\r\n', 'latin1'), body]));
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, headers: {}, text: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

function errorOf(response: RawResponse): { type: string; message: string } {
  const body = JSON.parse(response.text) as { __type: string; message?: string; Message?: string };
  return { type: body.__type.slice(body.__type.indexOf('#') + 1), message: body.message ?? body.Message ?? '' };
}

describe('--auth verify', () => {
  let twin: Dynatwin<ManualClock>;
  let endpoint: string;
  const savedEnvironment = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY, token: process.env.AWS_SESSION_TOKEN };

  before(async () => {
    // The environment's key is accepted too.
    process.env.AWS_ACCESS_KEY_ID = 'AKIDFROMENVIRONMENT1';
    process.env.AWS_SECRET_ACCESS_KEY = 'environment-secret';
    delete process.env.AWS_SESSION_TOKEN;
    twin = await startDynatwin(testTwinOptions({ auth: 'verify', credentialsFile: credentialsFile(), clock: 'manual' }));
    endpoint = twin.endpoint;
  });
  after(async () => {
    await twin.close();
    for (const [name, value] of [
      ['AWS_ACCESS_KEY_ID', savedEnvironment.id],
      ['AWS_SECRET_ACCESS_KEY', savedEnvironment.secret],
      ['AWS_SESSION_TOKEN', savedEnvironment.token],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  test('the SDK with a key of the file, of another profile, with its session token, or of the environment works', async () => {
    const client = new DynamoDBClient(clientConfig(endpoint, KEY));
    await client.send(
      new CreateTableCommand({ TableName: 'signed', AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }),
    );
    await client.send(new PutItemCommand({ TableName: 'signed', Item: { id: { S: 'a' } } }));
    client.destroy();
    for (const credentials of [OTHER, TEMPORARY, { accessKeyId: 'AKIDFROMENVIRONMENT1', secretAccessKey: 'environment-secret' }]) {
      const other = new DynamoDBClient(clientConfig(endpoint, credentials));
      assert.deepEqual((await other.send(new ListTablesCommand({}))).TableNames, ['signed']);
      other.destroy();
    }
  });

  test('a wrong secret is InvalidSignatureException, an unknown key or a wrong session token UnrecognizedClientException', async () => {
    const wrongSecret = new DynamoDBClient(clientConfig(endpoint, { ...KEY, secretAccessKey: 'not-the-secret' }));
    await expectDynamoError(wrongSecret.send(new ListTablesCommand({})), 'InvalidSignatureException', MISMATCH);
    wrongSecret.destroy();
    const unknown = new DynamoDBClient(clientConfig(endpoint, { accessKeyId: 'AKIDUNKNOWN000000000', secretAccessKey: KEY.secretAccessKey }));
    await expectDynamoError(unknown.send(new ListTablesCommand({})), 'UnrecognizedClientException', INVALID_TOKEN);
    unknown.destroy();
    for (const credentials of [{ ...TEMPORARY, sessionToken: 'another-token' }, { accessKeyId: TEMPORARY.accessKeyId, secretAccessKey: TEMPORARY.secretAccessKey }, { ...KEY, sessionToken: 'unexpected' }]) {
      const client = new DynamoDBClient(clientConfig(endpoint, credentials));
      await expectDynamoError(client.send(new ListTablesCommand({})), 'UnrecognizedClientException', INVALID_TOKEN);
      client.destroy();
    }
  });

  test('DynamoDB Streams, CloudWatch and Application Auto Scaling verify too, with their own signing names', async () => {
    const streams = new DynamoDBStreamsClient(clientConfig(endpoint, KEY));
    assert.deepEqual((await streams.send(new ListStreamsCommand({}))).Streams, []);
    const cloudWatch = new CloudWatchClient(clientConfig(endpoint, KEY));
    assert.ok(Array.isArray((await cloudWatch.send(new ListMetricsCommand({}))).Metrics));
    const scaling = new ApplicationAutoScalingClient(clientConfig(endpoint, KEY));
    assert.deepEqual((await scaling.send(new DescribeScalableTargetsCommand({ ServiceNamespace: 'dynamodb' }))).ScalableTargets, []);
    for (const client of [streams, cloudWatch, scaling]) client.destroy();

    const wrong = { ...KEY, secretAccessKey: 'not-the-secret' };
    const wrongStreams = new DynamoDBStreamsClient(clientConfig(endpoint, wrong));
    await expectDynamoError(wrongStreams.send(new ListStreamsCommand({})), 'InvalidSignatureException', MISMATCH);
    const wrongCloudWatch = new CloudWatchClient(clientConfig(endpoint, wrong));
    await assert.rejects(wrongCloudWatch.send(new ListMetricsCommand({})), (error: Error) => error.name === 'InvalidSignatureException' && error.message === MISMATCH);
    const wrongScaling = new ApplicationAutoScalingClient(clientConfig(endpoint, wrong));
    await expectDynamoError(wrongScaling.send(new DescribeScalableTargetsCommand({ ServiceNamespace: 'dynamodb' })), 'InvalidSignatureException', MISMATCH);
    for (const client of [wrongStreams, wrongCloudWatch, wrongScaling]) client.destroy();

    // A DynamoDB request signed for another service.
    const request = await signer(KEY, 'monitoring').sign(dynamoRequest(endpoint, 'ListTables', '{}'));
    const response = await send(endpoint, request);
    assert.equal(response.status, 400);
    assert.deepEqual(errorOf(response), { type: 'InvalidSignatureException', message: "Credential should be scoped to correct service: 'dynamodb'. " });
  });

  test('a presigned URL (query-string form) works; its body or an expired one do not', async () => {
    const body = '{}';
    const presigned = await signer(KEY).presign(dynamoRequest(endpoint, 'ListTables', body), { expiresIn: 60, signingDate: new Date(twin.clock.nowMs()), unhoistableHeaders: KEEP_TARGET });
    assert.ok(presigned.query?.['X-Amz-Signature'] !== undefined && presigned.headers.authorization === undefined, 'the signature is in the query string');
    const answered = await send(endpoint, presigned);
    assert.equal(answered.status, 200, answered.text);
    assert.ok(Array.isArray((JSON.parse(answered.text) as { TableNames: unknown }).TableNames));

    const tampered = await send(endpoint, { ...presigned, body: '{"Limit":1}' });
    assert.deepEqual(errorOf(tampered), { type: 'InvalidSignatureException', message: MISMATCH });

    const signedMs = twin.clock.nowMs() - 120_000;
    const stale = await signer(KEY).presign(dynamoRequest(endpoint, 'ListTables', body), { expiresIn: 60, signingDate: new Date(signedMs), unhoistableHeaders: KEEP_TARGET });
    const expired = errorOf(await send(endpoint, stale));
    assert.equal(expired.type, 'InvalidSignatureException');
    const nowMs = twin.clock.nowMs();
    assert.equal(expired.message, `Signature expired: ${basicDate(signedMs)} is now earlier than ${basicDate(nowMs - 60_000)} (${basicDate(nowMs)} - 60 sec.)`);
  });

  test('a gzip body is verified over the bytes as sent; the header form with a body changed in transit is refused', async () => {
    const json = JSON.stringify({ TableName: 'signed', Item: { id: { S: 'compressed' }, pad: { S: 'x'.repeat(2000) } } });
    const gzipped = gzipSync(json);
    const signed = await signer(KEY).sign(dynamoRequest(endpoint, 'PutItem', gzipped, { 'content-encoding': 'gzip', 'content-length': String(gzipped.length) }), {
      signingDate: new Date(twin.clock.nowMs()),
    });
    const response = await send(endpoint, signed);
    assert.equal(response.status, 200, response.text);

    const plain = await signer(KEY).sign(dynamoRequest(endpoint, 'ListTables', '{}'), { signingDate: new Date(twin.clock.nowMs()) });
    assert.deepEqual(errorOf(await send(endpoint, { ...plain, body: '{ }' })), { type: 'InvalidSignatureException', message: MISMATCH });
    // Authentication comes before the body is parsed: a bad signature over a broken body is refused as such.
    assert.deepEqual(errorOf(await send(endpoint, { ...plain, body: '{not json' })), { type: 'InvalidSignatureException', message: MISMATCH });
    const broken = await signer(KEY).sign(dynamoRequest(endpoint, 'ListTables', '{not json'), { signingDate: new Date(twin.clock.nowMs()) });
    assert.equal(errorOf(await send(endpoint, broken)).type, 'SerializationException');
  });

  test('a signature more than 5 minutes old or ahead of the server clock is refused with DynamoDB\'s texts', async () => {
    const ahead = await signer(KEY).sign(dynamoRequest(endpoint, 'ListTables', '{}'), { signingDate: new Date(twin.clock.nowMs() + 6 * 60_000) });
    const early = errorOf(await send(endpoint, ahead));
    assert.equal(early.type, 'InvalidSignatureException');
    let nowMs = twin.clock.nowMs();
    assert.equal(early.message, `Signature not yet current: ${basicDate(nowMs + 6 * 60_000)} is still later than ${basicDate(nowMs + 5 * 60_000)} (${basicDate(nowMs)} + 5 min.)`);

    // The SDK signs with the wall clock; the server's manual clock moves 6 minutes on.
    const client = new DynamoDBClient(clientConfig(endpoint, KEY));
    assert.ok((await client.send(new ListTablesCommand({}))).TableNames !== undefined, 'within the window');
    twin.clock.advance(6 * 60_000);
    nowMs = twin.clock.nowMs();
    let caught: Error | undefined;
    try {
      await client.send(new ListTablesCommand({}));
    } catch (error) {
      caught = error as Error;
    }
    client.destroy();
    assert.equal(caught?.name, 'InvalidSignatureException');
    const match = /^Signature expired: (\S+) is now earlier than (\S+) \((\S+) - 5 min\.\)$/.exec(caught.message);
    assert.ok(match !== null, caught.message);
    assert.match(match[1]!, BASIC_DATE);
    assert.equal(match[2], basicDate(nowMs - 5 * 60_000));
    assert.equal(match[3], basicDate(nowMs));
  });

  test('with its signing key kept, a wrong secret is still refused, and a signature of the next day verifies', async () => {
    // Signed at the server's (manual) clock, which other tests move.
    const at = async (credentials: typeof KEY, signingDate: Date): Promise<RawResponse> =>
      send(endpoint, await signer(credentials).sign(dynamoRequest(endpoint, 'ListTables', '{}'), { signingDate }));
    const today = new Date(twin.clock.nowMs());
    for (let i = 0; i < 3; i++) assert.equal((await at(KEY, today)).status, 200);
    const wrong = { ...KEY, secretAccessKey: 'not-the-secret' };
    assert.deepEqual(errorOf(await at(wrong, today)), { type: 'InvalidSignatureException', message: MISMATCH });
    // The server's clock a day on: the scope's day changes, and so does the key.
    twin.clock.advance(24 * 60 * 60_000);
    const nextDay = new Date(twin.clock.nowMs());
    const answer = await at(KEY, nextDay);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(errorOf(await at(wrong, nextDay)), { type: 'InvalidSignatureException', message: MISMATCH });
  });

  /** A DynamoDB call signed at the server's (manual) clock, which earlier tests moved. */
  const signedCall = async (operation: string, input: object): Promise<RawResponse> =>
    send(endpoint, await signer(KEY).sign(dynamoRequest(endpoint, operation, JSON.stringify(input)), { signingDate: new Date(twin.clock.nowMs()) }));

  test('x-amz-content-sha256: UNSIGNED-PAYLOAD is refused for DynamoDB, so a captured request cannot carry another body', async () => {
    // The SDKs' signer takes a given x-amz-content-sha256 as the payload's hash: the signature covers the literal.
    const unsigned = await signer(KEY).sign(dynamoRequest(endpoint, 'PutItem', JSON.stringify({ TableName: 'signed', Item: { id: { S: 'unsigned' } } }), { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }), {
      signingDate: new Date(twin.clock.nowMs()),
    });
    assert.match(unsigned.headers.authorization!, /x-amz-content-sha256/);
    assert.deepEqual(errorOf(await send(endpoint, unsigned)), { type: 'InvalidSignatureException', message: MISMATCH });
    const replayed = await send(endpoint, { ...unsigned, body: JSON.stringify({ TableName: 'signed', Item: { id: { S: 'replayed' } } }) });
    assert.deepEqual(errorOf(replayed), { type: 'InvalidSignatureException', message: MISMATCH });
    for (const id of ['unsigned', 'replayed']) {
      const read = await signedCall('GetItem', { TableName: 'signed', Key: { id: { S: id } }, ConsistentRead: true });
      assert.deepEqual(JSON.parse(read.text), {}, `${id} was not written`);
    }
    // The body's real hash in the header is signed and checked like any header.
    const body = JSON.stringify({ TableName: 'signed', Item: { id: { S: 'hashed' } } });
    const hashed = await signer(KEY).sign(dynamoRequest(endpoint, 'PutItem', body, { 'x-amz-content-sha256': createHash('sha256').update(body).digest('hex') }), { signingDate: new Date(twin.clock.nowMs()) });
    assert.equal((await send(endpoint, hashed)).status, 200);
  });

  test('host and every x-amz-* header sent must be signed: a captured GetItem cannot be replayed as a DeleteItem', async () => {
    assert.equal((await signedCall('PutItem', { TableName: 'signed', Item: { id: { S: 'precious' } } })).status, 200);
    const key = JSON.stringify({ TableName: 'signed', Key: { id: { S: 'precious' } } });
    const signingDate = new Date(twin.clock.nowMs());
    // The target left out of the signature: refused, whatever it names.
    const targetUnsigned = await signer(KEY).sign(dynamoRequest(endpoint, 'GetItem', key), { signingDate, unsignableHeaders: new Set(['x-amz-target']) });
    assert.doesNotMatch(targetUnsigned.headers.authorization!, /x-amz-target/);
    const asDelete = { ...targetUnsigned, headers: { ...targetUnsigned.headers, 'x-amz-target': 'DynamoDB_20120810.DeleteItem' } };
    for (const request of [targetUnsigned, asDelete]) {
      assert.deepEqual(errorOf(await send(endpoint, request)), { type: 'InvalidSignatureException', message: "'x-amz-target' must be a 'SignedHeader' in the AWS Authorization." });
    }
    // Signed as GetItem, sent as DeleteItem: the signature does not match.
    const getItem = await signer(KEY).sign(dynamoRequest(endpoint, 'GetItem', key), { signingDate });
    assert.equal((await send(endpoint, getItem)).status, 200);
    const replayed = await send(endpoint, { ...getItem, headers: { ...getItem.headers, 'x-amz-target': 'DynamoDB_20120810.DeleteItem' } });
    assert.deepEqual(errorOf(replayed), { type: 'InvalidSignatureException', message: MISMATCH });
    const kept = await signedCall('GetItem', { TableName: 'signed', Key: { id: { S: 'precious' } }, ConsistentRead: true });
    assert.deepEqual(JSON.parse(kept.text), { Item: { id: { S: 'precious' } } });
    // Host: DynamoDB's text.
    const hostUnsigned = await signer(KEY).sign(dynamoRequest(endpoint, 'ListTables', '{}'), { signingDate, unsignableHeaders: new Set(['host']) });
    assert.deepEqual(errorOf(await send(endpoint, hostUnsigned)), { type: 'InvalidSignatureException', message: "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization." });
    // An x-amz-* header added after signing is refused by name; x-amz-content-sha256 is not required.
    const listTables = await signer(KEY).sign(dynamoRequest(endpoint, 'ListTables', '{}'), { signingDate });
    const added = await send(endpoint, { ...listTables, headers: { ...listTables.headers, 'X-Amz-Meta-Note': 'added later' } });
    assert.deepEqual(errorOf(added), { type: 'InvalidSignatureException', message: "'x-amz-meta-note' must be a 'SignedHeader' in the AWS Authorization." });
    const contentHash = await send(endpoint, { ...listTables, headers: { ...listTables.headers, 'x-amz-content-sha256': createHash('sha256').update('{}').digest('hex') } });
    assert.equal(contentHash.status, 200, contentHash.text);
  });

  test('a signed Accept-Encoding is covered as sent: changed in transit it fails, split into repeated headers or spaced out it verifies', async () => {
    const signingDate = new Date(twin.clock.nowMs());
    const identity = await signer(KEY).sign(dynamoRequest(endpoint, 'ListTables', '{}', { 'accept-encoding': 'identity' }), { signingDate });
    assert.match(identity.headers.authorization!, /accept-encoding/);
    assert.equal((await send(endpoint, identity)).status, 200);
    assert.deepEqual(errorOf(await send(endpoint, { ...identity, headers: { ...identity.headers, 'accept-encoding': 'gzip' } })), { type: 'InvalidSignatureException', message: MISMATCH });
    // Signed as one value, sent as two header lines: joined with ',' they are what was signed.
    const both = await signer(KEY).sign(dynamoRequest(endpoint, 'ListTables', '{}', { 'accept-encoding': 'gzip,identity' }), { signingDate });
    const split = await rawRequestLines(endpoint, both, [['Accept-Encoding', 'gzip'], ['Accept-Encoding', 'identity']]);
    assert.equal(split.status, 200, split.text);
    const reordered = await rawRequestLines(endpoint, both, [['Accept-Encoding', 'identity'], ['Accept-Encoding', 'gzip']]);
    assert.deepEqual(errorOf(reordered), { type: 'InvalidSignatureException', message: MISMATCH });
    // Spaces are trimmed and collapsed in the canonical form, as the signers do (SigV4's Trimall).
    const spaced = await signer(KEY).sign(dynamoRequest(endpoint, 'ListTables', '{}', { 'accept-encoding': '  gzip,  deflate,    br  ' }), { signingDate });
    assert.equal((await send(endpoint, spaced)).status, 200);
  });

  test('an expired or future signature is refused for its date first, whatever its key or credential (DynamoDB\'s order)', async () => {
    // As ScyllaDB's Alternator suite sends it to DynamoDB: an unknown key, a scope that names nothing, no commas.
    const alternatorStyle = (date: string): Promise<RawResponse> =>
      rawRequest(endpoint, {
        headers: {
          'Content-Type': 'application/x-amz-json-1.0',
          'X-Amz-Date': date,
          'X-Amz-Target': 'DynamoDB_20120810.DescribeEndpoints',
          Authorization: 'AWS4-HMAC-SHA256 Credential=alternator/2/3/4/aws4_request SignedHeaders=x-amz-date;host Signature=123',
        },
      });
    const expired = errorOf(await alternatorStyle('20170101T010101Z'));
    let nowMs = twin.clock.nowMs();
    assert.deepEqual(expired, { type: 'InvalidSignatureException', message: `Signature expired: 20170101T010101Z is now earlier than ${basicDate(nowMs - 5 * 60_000)} (${basicDate(nowMs)} - 5 min.)` });
    const future = errorOf(await alternatorStyle('30200101T010101Z'));
    nowMs = twin.clock.nowMs();
    assert.deepEqual(future, { type: 'InvalidSignatureException', message: `Signature not yet current: 30200101T010101Z is still later than ${basicDate(nowMs + 5 * 60_000)} (${basicDate(nowMs)} + 5 min.)` });
    // A well-formed signature of an unknown key, ten minutes old: expired, not UnrecognizedClientException.
    const signedMs = twin.clock.nowMs() - 10 * 60_000;
    const unknown = await signer({ accessKeyId: 'AKIDUNKNOWN000000000', secretAccessKey: 'whatever' }).sign(dynamoRequest(endpoint, 'ListTables', '{}'), { signingDate: new Date(signedMs) });
    const refused = errorOf(await send(endpoint, unknown));
    nowMs = twin.clock.nowMs();
    assert.deepEqual(refused, { type: 'InvalidSignatureException', message: `Signature expired: ${basicDate(signedMs)} is now earlier than ${basicDate(nowMs - 5 * 60_000)} (${basicDate(nowMs)} - 5 min.)` });
    // Within the window, the unknown key is what is wrong.
    const current = await signer({ accessKeyId: 'AKIDUNKNOWN000000000', secretAccessKey: 'whatever' }).sign(dynamoRequest(endpoint, 'ListTables', '{}'), { signingDate: new Date(twin.clock.nowMs()) });
    assert.deepEqual(errorOf(await send(endpoint, current)), { type: 'UnrecognizedClientException', message: INVALID_TOKEN });
  });

  test('a request without authentication is MissingAuthenticationTokenException', async () => {
    const response = await rawRequest(endpoint, { headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.ListTables' }, body: '{}' });
    assert.equal(response.status, 400);
    assert.deepEqual(errorOf(response), { type: 'MissingAuthenticationTokenException', message: 'Request is missing Authentication Token' });
  });

  test('the AWS CLI signs its way in, and is refused with a wrong secret (skipped when it is not installed)', async (context) => {
    const cli = await runCli(['--version'], KEY);
    if (cli === undefined) {
      context.skip('the AWS CLI is not installed');
      return;
    }
    // The CLI signs with the wall clock: the server's manual clock must not be ahead of it.
    const restarted = await startDynatwin(testTwinOptions({ auth: 'verify', credentialsFile: credentialsFile() }));
    try {
      const listed = await runCli(['dynamodb', 'list-tables', '--endpoint-url', restarted.endpoint, '--output', 'json'], KEY);
      assert.equal(listed?.code, 0, listed?.stderr);
      assert.deepEqual(JSON.parse(listed!.stdout), { TableNames: [] });
      const refused = await runCli(['dynamodb', 'list-tables', '--endpoint-url', restarted.endpoint], { ...KEY, secretAccessKey: 'not-the-secret' });
      assert.notEqual(refused?.code, 0);
      assert.match(refused!.stderr, /InvalidSignatureException/);
    } finally {
      await restarted.close();
    }
  });

  test('fuzz: malformed Authorization headers and presigned query strings get a 4xx DynamoDB error, never a 500 or a reset', async () => {
    const next = seededRandom(20);
    const random = { int: (bound: number): number => Math.floor(next() * bound) };
    const valid = await signer(KEY).sign(dynamoRequest(endpoint, 'ListTables', '{}'), { signingDate: new Date(twin.clock.nowMs()) });
    const header = valid.headers.authorization!;
    const pieces = ['AWS4-HMAC-SHA256', 'AWS4-ECDSA-P256-SHA256', 'Credential=', 'SignedHeaders=', 'Signature=', '/', ',', ' ', ';', '=', 'aws4_request', '%', '\u00e9', '\t', KEY.accessKeyId, 'host', 'x-amz-date'];
    const mutate = (text: string): string => {
      let result = text;
      const edits = 1 + random.int(4);
      for (let edit = 0; edit < edits; edit++) {
        const at = random.int(result.length + 1);
        switch (random.int(4)) {
          case 0:
            result = result.slice(0, at) + result.slice(at + 1 + random.int(12));
            break;
          case 1:
            result = result.slice(0, at) + pieces[random.int(pieces.length)]! + result.slice(at);
            break;
          case 2:
            result = result.slice(0, at) + String.fromCharCode(0x20 + random.int(0x5f)) + result.slice(at + 1);
            break;
          default:
            result = result.slice(0, at);
        }
      }
      return result;
    };
    const fixed = ['', 'AWS4-HMAC-SHA256', 'AWS4-HMAC-SHA256 ', 'AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=zz', 'AWS4-HMAC-SHA256 Credential=' + '/'.repeat(500), header.replace(/Signature=\w+/, 'Signature=' + 'A'.repeat(64))];
    const headers = [...fixed, ...Array.from({ length: 250 }, () => mutate(header))].filter((value) => /^[\t\x20-\x7e]*$/.test(value));
    const seen = new Set<string>();
    const datesFor = ['20260101T000000Z', '99999999T999999Z', '', 'not-a-date', valid.headers['x-amz-date']!];
    for (const [index, authorization] of headers.entries()) {
      const response = await send(endpoint, { ...valid, headers: { ...valid.headers, authorization, 'x-amz-date': datesFor[index % datesFor.length]! } });
      // A mutation may give the valid header back (a character replaced by itself).
      if (authorization === header && response.status === 200) continue;
      assert.ok(response.status >= 400 && response.status < 500, `${authorization} -> ${response.status} ${response.text}`);
      assert.notEqual(errorOf(response).type, 'InternalServerError');
      seen.add(errorOf(response).type);
    }
    const presigned = await signer(KEY).presign(dynamoRequest(endpoint, 'ListTables', '{}'), { expiresIn: 60, signingDate: new Date(twin.clock.nowMs()), unhoistableHeaders: KEEP_TARGET });
    for (let round = 0; round < 150; round++) {
      const query: Record<string, string> = { ...presigned.query } as Record<string, string>;
      const names = Object.keys(query);
      const name = names[random.int(names.length)]!;
      if (random.int(3) === 0) delete query[name];
      else query[name] = mutate(query[name]!);
      const response = await send(endpoint, { ...presigned, query });
      if (JSON.stringify(query) === JSON.stringify(presigned.query) && response.status === 200) continue;
      assert.ok(response.status >= 400 && response.status < 500, `${JSON.stringify(query)} -> ${response.status} ${response.text}`);
      assert.notEqual(errorOf(response).type, 'InternalServerError');
      seen.add(errorOf(response).type);
    }
    // The mutations reach every stage: the shape checks, the key, the time and the signature.
    for (const type of ['MissingAuthenticationTokenException', 'IncompleteSignatureException', 'UnrecognizedClientException', 'InvalidSignatureException']) {
      assert.ok(seen.has(type), `the fuzz met ${type} (saw ${[...seen].join(', ')})`);
    }
  });
});

describe('--auth verify on every door', () => {
  test('a signed SDK request works through the fast lane\'s listener, --node-http and HTTPS; an unsigned target and the inspection routes without a token are refused on each', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = KEY.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = KEY.secretAccessKey;
    try {
      for (const door of [{}, { nodeHttp: true }, { https: true }] as const) {
        const served = await startDynatwin(testTwinOptions({ auth: 'verify', ...door }));
        const name = JSON.stringify(door);
        try {
          const agent = served.certificate === undefined ? undefined : new HttpsAgent({ ca: served.certificate });
          const client = new DynamoDBClient({ ...clientConfig(served.endpoint, KEY), ...(agent === undefined ? {} : { requestHandler: { httpsAgent: agent } }) });
          await client.send(
            new CreateTableCommand({ TableName: 'doors', AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }),
          );
          await client.send(new PutItemCommand({ TableName: 'doors', Item: { id: { S: 'through' } } }));
          assert.deepEqual((await client.send(new ListTablesCommand({}))).TableNames, ['doors'], name);
          client.destroy();
          const sentTo = async (request: { headers: Record<string, string>; body?: unknown }): Promise<RawResponse> => {
            const headers = { ...request.headers };
            delete headers.host;
            return doorRequest(served.endpoint, served.certificate, 'POST', '/', headers, request.body as string);
          };
          const targetUnsigned = await signer(KEY).sign(dynamoRequest(served.endpoint, 'ListTables', '{}'), { unsignableHeaders: new Set(['x-amz-target']) });
          assert.equal(errorOf(await sentTo(targetUnsigned)).message, "'x-amz-target' must be a 'SignedHeader' in the AWS Authorization.", name);
          const inspection = await doorRequest(served.endpoint, served.certificate, 'GET', '/dynatwin/tables', {}, '');
          assert.equal(inspection.status, 403, name);
          const withToken = await doorRequest(served.endpoint, served.certificate, 'GET', '/dynatwin/tables', { Authorization: `Bearer ${served.inspectionToken}` }, '');
          assert.equal(withToken.status, 200, name);
        } finally {
          await served.close();
        }
      }
    } finally {
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      else process.env.AWS_ACCESS_KEY_ID = saved.id;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    }
  });
});

describe('auth settings', () => {
  test('--auth verify without any credentials, or --credentials-file without it, fails to start with one line', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    try {
      await assert.rejects(startDynatwin({ auth: 'verify' }), /--auth verify needs credentials/);
      const empty = join(scratch.fresh(), 'empty');
      writeFileSync(empty, '[default]\nregion = us-east-1\n');
      await assert.rejects(startDynatwin({ auth: 'verify', credentialsFile: empty }), /has no profile with aws_access_key_id/);
      await assert.rejects(startDynatwin({ auth: 'verify', credentialsFile: join(scratch.fresh(), 'missing') }), /cannot read the credentials file/);
      await assert.rejects(startDynatwin({ credentialsFile: credentialsFile() }), /--credentials-file is read with --auth verify only/);
    } finally {
      if (saved.id !== undefined) process.env.AWS_ACCESS_KEY_ID = saved.id;
      if (saved.secret !== undefined) process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    }
  });

  test('the default accepts any credentials', async () => {
    const twin = await startDynatwin(testTwinOptions({}));
    try {
      const client = new DynamoDBClient(clientConfig(twin.endpoint, { accessKeyId: 'anything', secretAccessKey: 'at all' }));
      assert.deepEqual((await client.send(new ListTablesCommand({}))).TableNames, []);
      client.destroy();
    } finally {
      await twin.close();
    }
  });

  test('the shared-credentials parser reads every profile with a key and a secret', () => {
    const parsed = parseSharedCredentials('[a]\naws_access_key_id=A\naws_secret_access_key = s=1\n; comment\n[profile b]\nAWS_ACCESS_KEY_ID = B\n[c]\naws_access_key_id=C\naws_secret_access_key=t\naws_session_token=tok\n');
    assert.deepEqual([...parsed], [
      ['A', { secretAccessKey: 's=1' }],
      ['C', { secretAccessKey: 't', sessionToken: 'tok' }],
    ]);
  });
});

describe('request heads over 16 KB', () => {
  test('get a 400 with a DynamoDB-shaped body, not a reset, and the server goes on', async () => {
    const twin = await startDynatwin(testTwinOptions({}));
    try {
      const response = await rawRequest(twin.endpoint, {
        headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.ListTables', 'X-Padding': 'p'.repeat(20 * 1024) },
        body: '{}',
        agent: false,
      });
      assert.equal(response.status, 400);
      assert.deepEqual(errorOf(response), { type: 'SerializationException', message: 'The request headers are larger than 16384 bytes' });
      const client = new DynamoDBClient(clientConfig(twin.endpoint, KEY));
      assert.deepEqual((await client.send(new ListTablesCommand({}))).TableNames, []);
      client.destroy();
    } finally {
      await twin.close();
    }
  });
});

/** Runs the AWS CLI with these credentials; undefined when it is not installed. */
function runCli(args: readonly string[], credentials: Credentials): Promise<{ code: number; stdout: string; stderr: string } | undefined> {
  const environment: Record<string, string | undefined> = {
    ...process.env,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_MAX_ATTEMPTS: '1',
    AWS_PAGER: '',
    AWS_CONFIG_FILE: '/nonexistent',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
  };
  delete environment.AWS_SESSION_TOKEN;
  delete environment.AWS_PROFILE;
  return new Promise((resolve) => {
    execFile('aws', [...args], { env: environment, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error !== null && (error as NodeJS.ErrnoException).code === 'ENOENT') resolve(undefined);
      else resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

test('signing keys: each kept one is what deriving it gives, per secret, day, region and service, and at most SIGNING_KEYS_MAX are kept', () => {
  const keys = new SigningKeys();
  const first = keys.keyFor('se/cret', '20260101', 'us-east-1', 'dynamodb');
  assert.deepEqual(first, deriveSigningKey('se/cret', '20260101', 'us-east-1', 'dynamodb'));
  assert.equal(keys.keyFor('se/cret', '20260101', 'us-east-1', 'dynamodb'), first, 'kept: the same key again');
  // Every part counts, a '/' in the secret included.
  const others = [
    keys.keyFor('se/cret', '20260102', 'us-east-1', 'dynamodb'),
    keys.keyFor('se/cret', '20260101', 'eu-west-1', 'dynamodb'),
    keys.keyFor('se/cret', '20260101', 'us-east-1', 'monitoring'),
    keys.keyFor('se', '20260101', 'us-east-1', 'dynamodb'),
    keys.keyFor('se/cret/', '20260101', 'us-east-1', 'dynamodb'),
  ];
  for (const other of others) assert.notDeepEqual(other, first);
  assert.equal(keys.size, 6);
  for (let day = 1; day <= 2 * SIGNING_KEYS_MAX; day++) keys.keyFor('s', `2027${String(day).padStart(4, '0')}`, 'r', 'dynamodb');
  assert.equal(keys.size, SIGNING_KEYS_MAX);
  // The first went long ago; asked again, it is derived again, the same.
  assert.deepEqual(keys.keyFor('se/cret', '20260101', 'us-east-1', 'dynamodb'), first);
  // AWS's published example key (secret wJalr...EXAMPLEKEY, 20120215, us-east-1, iam).
  assert.equal(deriveSigningKey('wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', '20120215', 'us-east-1', 'iam').toString('hex'), 'f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d');
});
