/**
 * `dynatwin analyze` against a twin under `--auth verify` (issue 31, item 4): with the
 * environment's credentials it signs DescribeTable and the routes it reads; with `--token` it sends
 * the inspection token to those routes; with neither it stops with one line saying what to set.
 * Its signer (scenarios/sign-request.ts) gives the SDKs' signature (@smithy/signature-v4) for the
 * same request.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { startDynatwin, type Dynatwin } from '../src/index.js';
import { AnalyzeError, analyzeTable } from '../src/scenarios/analyze.js';
import { runAnalyzeCommand } from '../src/scenarios/analyze-command.js';
import { environmentCredentials, signRequest } from '../src/scenarios/sign-request.js';
import { NodeSha256 } from './support/node-sha256.js';
import { testTwinOptions } from './support/test-store.js';

const KEY = { accessKeyId: 'AKIDANALYZE000000001', secretAccessKey: 'analyze/secret+0000000000000000000001' };
const TABLE = 'analyzed';

/** A stream that keeps what is written. */
function collector(): Writable & { text(): string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return Object.assign(stream, { text: () => text });
}

describe('dynatwin analyze against a twin under --auth verify', () => {
  let twin: Dynatwin;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  before(async () => {
    process.env.AWS_ACCESS_KEY_ID = KEY.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = KEY.secretAccessKey;
    twin = await startDynatwin(testTwinOptions({ auth: 'verify' }));
    const client = new DynamoDBClient({ endpoint: twin.endpoint, region: 'us-east-1', credentials: KEY });
    await client.send(
      new CreateTableCommand({ TableName: TABLE, AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }),
    );
    client.destroy();
  });
  after(async () => {
    await twin.close();
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    else process.env.AWS_ACCESS_KEY_ID = saved.id;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
  });

  test('signed with the credentials, alone or beside the token, it reads the table', async () => {
    for (const token of [undefined, twin.inspectionToken]) {
      const report = await analyzeTable({ endpoint: twin.endpoint, table: TABLE, minutes: 1, credentials: KEY, ...(token === undefined ? {} : { token }) });
      assert.deepEqual(report.resources.map((resource) => resource.name), [TABLE]);
      assert.equal(report.table, TABLE);
    }
  });

  test('the command takes --token and the environment; with neither it stops with one line naming them', async () => {
    const environment = { AWS_ACCESS_KEY_ID: KEY.accessKeyId, AWS_SECRET_ACCESS_KEY: KEY.secretAccessKey };
    const stdout = collector();
    const stderr = collector();
    assert.equal(await runAnalyzeCommand(['--endpoint', twin.endpoint, '--table', TABLE, '--minutes', '1', '--json', '--token', twin.inspectionToken!], { stdout, stderr }, environment), 0, stderr.text());
    assert.equal((JSON.parse(stdout.text()) as { table: string }).table, TABLE);

    const refusedOut = collector();
    const refused = collector();
    assert.equal(await runAnalyzeCommand(['--endpoint', twin.endpoint, '--table', TABLE, '--minutes', '1'], { stdout: refusedOut, stderr: refused }, {}), 1);
    assert.match(refused.text(), /^dynatwin analyze: GET \/dynatwin\/tables: HTTP 403: .*MissingAuthenticationTokenException.* \(a twin under --auth verify: set AWS_ACCESS_KEY_ID \/ AWS_SECRET_ACCESS_KEY to a key it accepts, or pass --token <its inspection token> for its own routes\)\n$/);
    // The token opens the twin's own routes, but DescribeTable needs a signature.
    await assert.rejects(analyzeTable({ endpoint: twin.endpoint, table: TABLE, minutes: 1, token: twin.inspectionToken! }), (error: Error) => error instanceof AnalyzeError && /^DescribeTable analyzed: HTTP 400: Signature expired: .*set AWS_ACCESS_KEY_ID/.test(error.message));
  });
});

test('the environment\'s credentials are read as the SDKs read them', () => {
  assert.equal(environmentCredentials({}), undefined);
  assert.equal(environmentCredentials({ AWS_ACCESS_KEY_ID: 'A', AWS_SECRET_ACCESS_KEY: '' }), undefined);
  assert.deepEqual(environmentCredentials({ AWS_ACCESS_KEY_ID: 'A', AWS_SECRET_ACCESS_KEY: 's' }), { accessKeyId: 'A', secretAccessKey: 's' });
  assert.deepEqual(environmentCredentials({ AWS_ACCESS_KEY_ID: 'A', AWS_SECRET_ACCESS_KEY: 's', AWS_SESSION_TOKEN: 't' }), { accessKeyId: 'A', secretAccessKey: 's', sessionToken: 't' });
});

test('analyze\'s signer gives the SDKs\' signature for the same request (a query, an escaped path, a session token)', async () => {
  const credentials = { ...KEY, sessionToken: 'session/token+=' };
  const nowMs = Date.UTC(2026, 0, 2, 3, 4, 5);
  const cases: { method: string; url: URL; headers: Record<string, string>; body: string }[] = [
    { method: 'GET', url: new URL('http://127.0.0.1:8000/dynatwin/tables/a.b-c_d/heatmap?period=1&minutes=5&index=by%20status'), headers: {}, body: '' },
    { method: 'POST', url: new URL('http://localhost:8000/'), headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.DescribeTable' }, body: '{"TableName":"t"}' },
  ];
  for (const request of cases) {
    const ours = signRequest(request, credentials, 'eu-west-1', nowMs);
    const query: Record<string, string> = {};
    for (const [name, value] of request.url.searchParams) query[name] = value;
    const theirs = await new SignatureV4({ credentials, region: 'eu-west-1', service: 'dynamodb', sha256: NodeSha256, applyChecksum: false }).sign(
      { method: request.method, protocol: request.url.protocol, hostname: request.url.hostname, port: Number(request.url.port), path: request.url.pathname, query, headers: { ...request.headers, host: request.url.host }, body: request.body },
      { signingDate: new Date(nowMs) },
    );
    assert.equal(ours.authorization, theirs.headers.authorization, request.url.href);
    assert.equal(ours['x-amz-security-token'], credentials.sessionToken);
  }
});
