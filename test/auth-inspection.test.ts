/**
 * `--auth verify` means every route (issue 31, item 4): dynatwin's own routes (`/dynatwin/...`,
 * `/metrics`) need the inspection token (`Authorization: Bearer`) or a SigV4 signature. Unsigned
 * POSTs of a fault rule or a clock step are refused and change nothing (no rule, the clock and a TTL
 * item as they were); unsigned GETs of tables, partitions, metrics, Contributor Insights, scaling
 * and /metrics are refused with a DynamoDB-shaped 403; with the token or a signature they answer.
 * The dashboard's page and files stay open (no data). Without `--auth verify` nothing changes.
 * Signatures through @smithy/signature-v4 (the SDKs' signer), requests through raw HTTP and the SDK.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand, UpdateContributorInsightsCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { startDynatwin, type Dynatwin, type ManualClock } from '../src/index.js';
import { rawRequest, type RawResponse } from './support/raw.js';
import { NodeSha256 } from './support/node-sha256.js';
import { testTwinOptions, embeddedStoreOnly } from './support/test-store.js';

const KEY = { accessKeyId: 'AKIDINSPECT000000001', secretAccessKey: 'inspection/secret+0000000000000000001' };
const TABLE = 'guarded';
const DAY_MS = 24 * 60 * 60 * 1000;

/** Headers of a request signed by the SDKs' signer (signing name dynamodb), as the client sends them. */
async function signedHeaders(endpoint: string, method: string, path: string, body: string, credentials = KEY, signingDate?: Date): Promise<Record<string, string>> {
  const url = new URL(path, endpoint);
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = value;
  const headers: Record<string, string> = { host: url.host };
  if (body !== '') headers['content-type'] = 'application/json';
  const signer = new SignatureV4({ credentials, region: 'us-east-1', service: 'dynamodb', sha256: NodeSha256 });
  const signed = await signer.sign({ method, protocol: url.protocol, hostname: url.hostname, port: Number(url.port), path: url.pathname, query, headers, body }, signingDate === undefined ? {} : { signingDate });
  const sent = { ...signed.headers };
  delete sent.host;
  return sent;
}

function dynamoErrorOf(response: RawResponse): { status: number; type: string; message: string } {
  const body = JSON.parse(response.text) as { __type: string; message: string };
  return { status: response.status, type: body.__type.slice(body.__type.indexOf('#') + 1), message: body.message };
}

/** Every read route the issue names, for a table with Contributor Insights on. */
const READ_PATHS = [
  '/dynatwin/clock',
  '/dynatwin/faults',
  '/dynatwin/tables',
  `/dynatwin/tables/${TABLE}/partitions`,
  `/dynatwin/tables/${TABLE}/heatmap`,
  `/dynatwin/tables/${TABLE}/scaling`,
  `/dynatwin/tables/${TABLE}/contributor-insights`,
  `/dynatwin/metrics?table=${TABLE}`,
  '/metrics',
  '/dynatwin/no-such-route',
];

describe('--auth verify covers dynatwin\'s own routes', () => {
  let twin: Dynatwin<ManualClock>;
  let client: DynamoDBClient;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY, token: process.env.AWS_SESSION_TOKEN };

  before(async () => {
    process.env.AWS_ACCESS_KEY_ID = KEY.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = KEY.secretAccessKey;
    delete process.env.AWS_SESSION_TOKEN;
    twin = await startDynatwin(testTwinOptions({ auth: 'verify', clock: 'manual' }));
    // The SDK signs with the wall clock; the manual clock starts at it and moves only when told.
    client = new DynamoDBClient({ endpoint: twin.endpoint, region: 'us-east-1', credentials: KEY, maxAttempts: 1 });
    await client.send(
      new CreateTableCommand({ TableName: TABLE, AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }),
    );
    await client.send(new UpdateTimeToLiveCommand({ TableName: TABLE, TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } }));
    await client.send(new UpdateContributorInsightsCommand({ TableName: TABLE, ContributorInsightsAction: 'ENABLE' }));
    // Expires in a day of the server's clock: a step of 31 days would delete it.
    const expiresSeconds = Math.floor((twin.clock.nowMs() + DAY_MS) / 1000);
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: 'kept' }, expires: { N: String(expiresSeconds) } } }));
  });
  after(async () => {
    client.destroy();
    await twin.close();
    for (const [name, value] of [
      ['AWS_ACCESS_KEY_ID', saved.id],
      ['AWS_SECRET_ACCESS_KEY', saved.secret],
      ['AWS_SESSION_TOKEN', saved.token],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  test('the token is made at start-up and handed to library users', () => {
    assert.match(twin.inspectionToken ?? '', /^[A-Za-z0-9_-]{32}$/);
  });

  test('an unsigned POST /dynatwin/faults, or one with a wrong token, is refused and installs no rule', async () => {
    const rule = JSON.stringify({ operation: 'GetItem', error: 'InternalServerError' });
    const unsigned = await rawRequest(twin.endpoint, { path: '/dynatwin/faults', headers: { 'Content-Type': 'application/json' }, body: rule });
    assert.deepEqual(dynamoErrorOf(unsigned), {
      status: 403,
      type: 'MissingAuthenticationTokenException',
      message: "Request is missing Authentication Token: under --auth verify, dynatwin's own routes take 'Authorization: Bearer <the inspection token printed at start-up>' or a SigV4 signature",
    });
    const wrong = await rawRequest(twin.endpoint, { path: '/dynatwin/faults', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer not-the-token-of-this-twin' }, body: rule });
    assert.deepEqual(dynamoErrorOf(wrong), { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' });
    assert.deepEqual(twin.faults.list(), []);
    // The next signed request is served, not faulted.
    assert.equal((await client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: 'kept' } } }))).Item?.id?.S, 'kept');
    // DELETE is guarded too: a rule installed by the library stays.
    const installed = twin.faults.add({ operation: 'Scan', error: 'InternalServerError' });
    const deleted = await rawRequest(twin.endpoint, { method: 'DELETE', path: '/dynatwin/faults' });
    assert.equal(dynamoErrorOf(deleted).type, 'MissingAuthenticationTokenException');
    assert.deepEqual(twin.faults.list().map((view) => view.id), [installed.id]);
    twin.faults.clear();
  });

  test('an unsigned POST /dynatwin/clock is refused: the clock does not move and the TTL item stays', async () => {
    const before = twin.clock.nowMs();
    const step = JSON.stringify({ advanceMs: 31 * DAY_MS });
    const refused = await rawRequest(twin.endpoint, { path: '/dynatwin/clock', headers: { 'Content-Type': 'application/json' }, body: step });
    assert.equal(dynamoErrorOf(refused).type, 'MissingAuthenticationTokenException');
    assert.equal(twin.clock.nowMs(), before);
    await twin.settled();
    assert.equal((await client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: 'kept' } } }))).Item?.id?.S, 'kept');
  });

  test('unsigned GETs of every data route and /metrics are refused with a DynamoDB-shaped 403; with the token they answer', async () => {
    for (const path of READ_PATHS) {
      const refused = await rawRequest(twin.endpoint, { method: 'GET', path });
      assert.equal(refused.status, 403, `${path}: ${refused.text}`);
      assert.equal(dynamoErrorOf(refused).type, 'MissingAuthenticationTokenException', path);
      assert.ok(!refused.text.includes(TABLE), `${path} names no table`);
    }
    for (const path of READ_PATHS) {
      const answered = await rawRequest(twin.endpoint, { method: 'GET', path, headers: { Authorization: `Bearer ${twin.inspectionToken}` } });
      assert.equal(answered.status, path === '/dynatwin/no-such-route' ? 404 : 200, `${path}: ${answered.text}`);
    }
    const tables = await rawRequest(twin.endpoint, { method: 'GET', path: '/dynatwin/tables', headers: { Authorization: `bearer  ${twin.inspectionToken}` } });
    assert.deepEqual((JSON.parse(tables.text) as { tables: { name: string }[] }).tables.map((table) => table.name), [TABLE]);
    // Prometheus' scrape: its bearer token.
    const scraped = await rawRequest(twin.endpoint, { method: 'GET', path: '/metrics', headers: { Authorization: `Bearer ${twin.inspectionToken}` } });
    assert.match(String(scraped.headers['content-type']), /^text\/plain/);
  });

  test('a SigV4 signature opens every route; a wrong secret, an old date or a body changed after signing does not', async () => {
    for (const path of READ_PATHS.filter((candidate) => candidate !== '/dynatwin/no-such-route')) {
      const answered = await rawRequest(twin.endpoint, { method: 'GET', path, headers: await signedHeaders(twin.endpoint, 'GET', path, '', KEY, new Date(twin.clock.nowMs())) });
      assert.equal(answered.status, 200, `${path}: ${answered.text}`);
    }
    const wrongSecret = await rawRequest(twin.endpoint, { method: 'GET', path: '/dynatwin/tables', headers: await signedHeaders(twin.endpoint, 'GET', '/dynatwin/tables', '', { ...KEY, secretAccessKey: 'not-it' }, new Date(twin.clock.nowMs())) });
    assert.deepEqual(dynamoErrorOf(wrongSecret).type, 'InvalidSignatureException');
    assert.equal(wrongSecret.status, 403);
    const old = await rawRequest(twin.endpoint, { method: 'GET', path: '/dynatwin/tables', headers: await signedHeaders(twin.endpoint, 'GET', '/dynatwin/tables', '', KEY, new Date(twin.clock.nowMs() - 10 * 60_000)) });
    assert.match(dynamoErrorOf(old).message, /^Signature expired: /);

    // A signed clock step moves the clock; the same signature over another body does not.
    const before = twin.clock.nowMs();
    const step = JSON.stringify({ advanceMs: 1000 });
    const headers = await signedHeaders(twin.endpoint, 'POST', '/dynatwin/clock', step, KEY, new Date(before));
    const tampered = await rawRequest(twin.endpoint, { path: '/dynatwin/clock', headers, body: JSON.stringify({ advanceMs: 31 * DAY_MS }) });
    assert.equal(dynamoErrorOf(tampered).type, 'InvalidSignatureException');
    assert.equal(twin.clock.nowMs(), before);
    const moved = await rawRequest(twin.endpoint, { path: '/dynatwin/clock', headers, body: step });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(twin.clock.nowMs(), before + 1000);
  });

  test('malformed credentials on the inspection routes get a DynamoDB-shaped 403, never a 500, and run nothing', async () => {
    const token = twin.inspectionToken!;
    const signedSet = await signedHeaders(twin.endpoint, 'GET', '/dynatwin/tables', '', KEY, new Date(twin.clock.nowMs()));
    const signed = signedSet.authorization!;
    const values = [
      'Bearer',
      'Bearer ',
      `Bearer ${token}x`,
      `Bearer ${token.slice(1)}`,
      `Basic ${Buffer.from(`user:${token}`).toString('base64')}`,
      'AWS4-HMAC-SHA256',
      'AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature=zz',
      signed.replace(/Signature=\w+/, 'Signature=' + '0'.repeat(64)),
      signed.replace('SignedHeaders=', 'SignedHeaders=zz;'),
      token,
    ];
    const before = twin.clock.nowMs();
    for (const authorization of values) {
      for (const [method, path, body] of [['GET', '/dynatwin/tables', ''], ['POST', '/dynatwin/clock', '{"advanceMs": 86400000}']] as const) {
        const response = await rawRequest(twin.endpoint, { method, path, headers: { Authorization: authorization, 'Content-Type': 'application/json', 'X-Amz-Date': signedSet['x-amz-date']! }, body });
        assert.equal(response.status, 403, `${authorization} ${method} ${path}: ${response.text}`);
        assert.match((JSON.parse(response.text) as { __type: string }).__type, /^com\.amazon\.coral\.service#\w+Exception$/);
      }
    }
    assert.equal(twin.clock.nowMs(), before);
  });

  test('a POST with the token changes state, and still takes only application/json', async () => {
    const authorization = `Bearer ${twin.inspectionToken}`;
    const plain = await rawRequest(twin.endpoint, { path: '/dynatwin/faults', headers: { Authorization: authorization, 'Content-Type': 'text/plain' }, body: '{"operation":"Scan","error":"InternalServerError"}' });
    assert.equal(plain.status, 415);
    const added = await rawRequest(twin.endpoint, { path: '/dynatwin/faults', headers: { Authorization: authorization, 'Content-Type': 'application/json' }, body: '{"operation":"Scan","error":"InternalServerError"}' });
    assert.equal(added.status, 201, added.text);
    assert.equal(twin.faults.list().length, 1);
    const removed = await rawRequest(twin.endpoint, { method: 'DELETE', path: '/dynatwin/faults', headers: { Authorization: authorization } });
    assert.deepEqual(JSON.parse(removed.text), { removed: 1 });
  });

  test('the dashboard page and its files are served without the token; they hold no data', async () => {
    const page = await rawRequest(twin.endpoint, { method: 'GET', path: '/dynatwin/' });
    assert.equal(page.status, 200);
    assert.match(page.text, /<title>dynatwin dashboard<\/title>/);
    assert.ok(!page.text.includes(TABLE));
    const script = await rawRequest(twin.endpoint, { method: 'GET', path: '/dynatwin/assets/api.js' });
    assert.equal(script.status, 200);
    assert.match(script.text, /Authorization/);
  });
});

describe('inspection token settings', () => {
  test('without --auth verify the routes stay open and there is no token; a token needs --auth verify and a length', async () => {
    const open = await startDynatwin(testTwinOptions({}));
    try {
      assert.equal(open.inspectionToken, undefined);
      const answered = await rawRequest(open.endpoint, { method: 'GET', path: '/dynatwin/tables' });
      assert.equal(answered.status, 200);
      const stepped = await rawRequest(open.endpoint, { method: 'GET', path: '/metrics' });
      assert.equal(stepped.status, 200);
    } finally {
      await open.close();
    }
    await assert.rejects(startDynatwin({ inspectionToken: 'a-token-of-twenty-chars' }), /--inspection-token is used with --auth verify only/);
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = KEY.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = KEY.secretAccessKey;
    try {
      await assert.rejects(startDynatwin({ auth: 'verify', inspectionToken: 'short' }), /inspectionToken must be 16 to 256 characters long/);
      await assert.rejects(startDynatwin({ auth: 'verify', inspectionToken: 'has spaces in it, no good' }), /inspectionToken may hold only/);
      const fixed = await startDynatwin(testTwinOptions({ auth: 'verify', inspectionToken: 'ci-fixed-token-0123456789' }));
      try {
        assert.equal(fixed.inspectionToken, 'ci-fixed-token-0123456789');
        const answered = await rawRequest(fixed.endpoint, { method: 'GET', path: '/metrics', headers: { Authorization: 'Bearer ci-fixed-token-0123456789' } });
        assert.equal(answered.status, 200);
      } finally {
        await fixed.close();
      }
    } finally {
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      else process.env.AWS_ACCESS_KEY_ID = saved.id;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    }
  });
});

describe('the CLI under --auth verify', { skip: embeddedStoreOnly('a CLI server in a child process (the CLI runs in memory here)') }, () => {
  test('prints the token once, after the banner, with the dashboard link; --inspection-token fixes it and a bad one exits 2', async () => {
    const cli = fileURLToPath(new URL('../../bin/dynatwin.js', import.meta.url));
    const environment = { ...process.env, AWS_ACCESS_KEY_ID: KEY.accessKeyId, AWS_SECRET_ACCESS_KEY: KEY.secretAccessKey };
    for (const fixed of [undefined, 'ci+fixed/token=0123456789']) {
      const child = spawn(process.execPath, [cli, '--port', '0', '--in-memory', '--auth', 'verify', ...(fixed === undefined ? [] : ['--inspection-token', fixed])], { stdio: ['ignore', 'pipe', 'pipe'], env: environment });
      const exited = new Promise<unknown>((resolve) => child.once('exit', resolve));
      try {
        // A bound on a hang, not a speed test: start-up on a loaded machine.
        const output = await new Promise<string>((resolve, reject) => {
          let text = '';
          const timer = setTimeout(() => reject(new Error(`no token line within 60 s: ${text}`)), 60_000);
          child.stdout!.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8');
            if (/inspection token[^\n]*\n/.test(text)) {
              clearTimeout(timer);
              resolve(text);
            }
          });
        });
        const [banner, tokenLine] = output.split('\n');
        const endpoint = /listening on (\S+)/.exec(banner!)![1]!;
        const match = /inspection token \(--auth verify covers \/dynatwin\/\.\.\. and \/metrics\): (\S+) — dashboard: (\S+) — other clients: Authorization: Bearer <token>$/.exec(tokenLine!);
        assert.ok(match !== null, tokenLine);
        const token = match[1]!;
        if (fixed !== undefined) assert.equal(token, fixed);
        assert.equal(match[2], `${endpoint}/dynatwin/#token=${encodeURIComponent(token)}`);
        assert.equal((await rawRequest(endpoint, { method: 'GET', path: '/dynatwin/tables' })).status, 403);
        assert.equal((await rawRequest(endpoint, { method: 'GET', path: '/dynatwin/tables', headers: { Authorization: `Bearer ${token}` } })).status, 200);
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    }
    const refused = spawn(process.execPath, [cli, '--port', '0', '--in-memory', '--auth', 'verify', '--inspection-token', 'short'], { stdio: ['ignore', 'pipe', 'pipe'], env: environment });
    let stderr = '';
    refused.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => refused.once('close', resolve));
    assert.equal(code, 2);
    assert.match(stderr, /--inspection-token must be 16 to 256 characters long/);
  });
});
