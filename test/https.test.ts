/**
 * HTTPS (`--https`, `--tls-cert` / `--tls-key`): DynamoDB is reached over TLS, and some client code
 * paths only run over it. Through the real SDK, the DocumentClient, the CLI and (when installed)
 * the AWS CLI; plus the self-signed certificate's own properties.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, ListTablesCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { startDynatwin } from '../src/index.js';
import { CERTIFICATE_FILE, KEY_FILE } from '../src/server/tls-files.js';
import { certificateNames, selfSignedCertificate, SELF_SIGNED_VALIDITY_DAYS, stillServes } from '../src/server/tls.js';
import { runCli, startServerProcess } from './support/process.js';
import { scratchDirectories } from './support/scratch.js';
import { testTwinOptions, embeddedStoreOnly } from './support/test-store.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const scratch = scratchDirectories('dynatwin-https-');
after(() => scratch.removeAll());

function trustingClient(endpoint: string, certificate: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    maxAttempts: 1,
    requestHandler: { httpsAgent: new Agent({ ca: certificate }) },
  });
}

async function createAndUse(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(new CreateTableCommand({
    TableName: tableName,
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    BillingMode: 'PAY_PER_REQUEST',
  }));
  await client.send(new PutItemCommand({ TableName: tableName, Item: { id: { S: 'a' }, n: { N: '1' } } }));
  const { Item } = await client.send(new GetItemCommand({ TableName: tableName, Key: { id: { S: 'a' } } }));
  assert.deepEqual(Item, { id: { S: 'a' }, n: { N: '1' } });
}

describe('HTTPS: the library with a self-signed certificate', () => {
  test('https: true serves the SDK and the DocumentClient over TLS to a client that trusts the certificate', async () => {
    const twin = await startDynatwin(testTwinOptions({ https: true }));
    const client = trustingClient(twin.endpoint, twin.certificate!);
    try {
      assert.match(twin.endpoint, /^https:\/\/127\.0\.0\.1:\d+$/);
      assert.ok(twin.certificate?.startsWith('-----BEGIN CERTIFICATE-----'));
      await createAndUse(client, 'over-tls');
      const documents = DynamoDBDocumentClient.from(client);
      await documents.send(new PutCommand({ TableName: 'over-tls', Item: { id: 'doc', list: [1, 'two'] } }));
      const { Item } = await documents.send(new GetCommand({ TableName: 'over-tls', Key: { id: 'doc' } }));
      assert.deepEqual(Item, { id: 'doc', list: [1, 'two'] });
    } finally {
      client.destroy();
      await twin.close();
    }
  });

  test('a client that does not trust the certificate is refused by TLS itself, not served', async () => {
    const twin = await startDynatwin(testTwinOptions({ https: true }));
    const client = new DynamoDBClient({ endpoint: twin.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'A', secretAccessKey: 's' }, maxAttempts: 1 });
    try {
      await assert.rejects(client.send(new ListTablesCommand({})), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'DEPTH_ZERO_SELF_SIGNED_CERT', String(error));
        return true;
      });
    } finally {
      client.destroy();
      await twin.close();
    }
  });

  test('a plain-HTTP server has no certificate', async () => {
    const twin = await startDynatwin(testTwinOptions({}));
    try {
      assert.match(twin.endpoint, /^http:\/\//);
      assert.equal(twin.certificate, undefined);
    } finally {
      await twin.close();
    }
  });
});

describe('HTTPS: the command line', () => {
  test('--https on a data directory keeps the certificate there (key 0600), names it in the banner, and reuses it after a restart', { skip: embeddedStoreOnly('the certificate kept in the data directory') }, async () => {
    const dataDir = scratch.fresh();
    const first = await startServerProcess(['--https', '--data-dir', dataDir]);
    const certificatePath = join(dataDir, CERTIFICATE_FILE);
    let certificate: string;
    try {
      assert.match(first.endpoint, /^https:\/\//);
      assert.ok(first.banner.endsWith(`certificate: ${certificatePath}`), first.banner);
      certificate = readFileSync(certificatePath, 'utf8');
      assert.equal(statSync(join(dataDir, KEY_FILE)).mode & 0o777, 0o600);
      const client = trustingClient(first.endpoint, certificate);
      await createAndUse(client, 'kept');
      client.destroy();
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
    const second = await startServerProcess(['--https', '--data-dir', dataDir]);
    try {
      assert.equal(readFileSync(certificatePath, 'utf8'), certificate, 'the trusted certificate is reused');
      const client = trustingClient(second.endpoint, certificate);
      const { Item } = await client.send(new GetItemCommand({ TableName: 'kept', Key: { id: { S: 'a' } } }));
      assert.deepEqual(Item?.n, { N: '1' });
      client.destroy();
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  test('--tls-cert and --tls-key serve the given certificate', { skip: embeddedStoreOnly('a CLI server in a child process (the CLI runs in memory here)') }, async () => {
    const directory = scratch.fresh();
    const material = selfSignedCertificate([], Date.now());
    writeFileSync(join(directory, 'cert.pem'), material.cert);
    writeFileSync(join(directory, 'key.pem'), material.key);
    const server = await startServerProcess(['--in-memory', '--tls-cert', join(directory, 'cert.pem'), '--tls-key', join(directory, 'key.pem')]);
    try {
      assert.match(server.endpoint, /^https:\/\//);
      assert.doesNotMatch(server.banner, /certificate:/, 'the user knows their own certificate');
      const client = trustingClient(server.endpoint, material.cert);
      await createAndUse(client, 'own-cert');
      client.destroy();
      await awsCliListTables(server.endpoint, join(directory, 'cert.pem'));
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  test('bad TLS flags are one line and exit code 1, and start nothing', { skip: embeddedStoreOnly("the CLI's flags; no twin on a store") }, async () => {
    const directory = scratch.fresh();
    writeFileSync(join(directory, 'not-a-cert.pem'), 'hello');
    const cases: [readonly string[], RegExp][] = [
      [['--tls-cert', join(directory, 'x.pem')], /^dynatwin: --tls-cert and --tls-key go together/],
      [['--tls-cert', join(directory, 'missing.pem'), '--tls-key', join(directory, 'missing.pem')], /^dynatwin: --tls-cert \S+missing\.pem cannot be read \(ENOENT\)/],
      [['--tls-cert', join(directory, 'not-a-cert.pem'), '--tls-key', join(directory, 'not-a-cert.pem')], /^dynatwin: --tls-cert \S+ and --tls-key \S+ are no usable PEM certificate and key/],
      [['--https', '--tls-cert', join(directory, 'not-a-cert.pem'), '--tls-key', join(directory, 'not-a-cert.pem')], /^dynatwin: --https makes its own certificate/],
    ];
    for (const [flags, expected] of cases) {
      const outcome = await runCli(['--port', '0', '--in-memory', ...flags]);
      assert.equal(outcome.status, 1, outcome.stderr);
      assert.match(outcome.stderr, expected);
      assert.equal(outcome.stderr.trim().split('\n').length, 1, outcome.stderr);
      assert.equal(outcome.stdout, '');
    }
  });
});

/** `aws dynamodb list-tables --ca-bundle` when the AWS CLI is installed (a clean CI machine may not have it). */
async function awsCliListTables(endpoint: string, caBundle: string): Promise<void> {
  const run = promisify(execFile);
  try {
    await run('aws', ['--version']);
  } catch {
    console.log('# aws CLI not installed: its HTTPS check skipped');
    return;
  }
  const { stdout } = await run('aws', ['dynamodb', 'list-tables', '--endpoint-url', endpoint, '--ca-bundle', caBundle, '--output', 'json'], {
    env: { ...process.env, AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'secret', AWS_DEFAULT_REGION: 'us-east-1' },
  });
  assert.deepEqual(JSON.parse(stdout), { TableNames: ['own-cert'] });
}

describe('the self-signed certificate', () => {
  const nowMs = Date.parse('2026-11-25T12:00:00Z');
  const material = selfSignedCertificate(['dev.local'], nowMs);
  const certificate = new X509Certificate(material.cert);

  test('names localhost, 127.0.0.1, ::1 and the bound host, and signs itself as a CA', () => {
    assert.equal(certificate.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:dev.local');
    assert.ok(certificate.ca);
    assert.ok(certificate.verify(certificate.publicKey));
    assert.equal(certificate.issuer, certificate.subject);
  });

  test('is valid from a day before it was made for 397 days (the most clients accept)', () => {
    assert.equal(Date.parse(certificate.validFrom), nowMs - DAY_MS);
    assert.equal(Date.parse(certificate.validTo), nowMs + SELF_SIGNED_VALIDITY_DAYS * DAY_MS);
  });

  test('is reused only while valid for another day and for every name asked', () => {
    assert.ok(stillServes(material, ['dev.local'], nowMs));
    assert.ok(stillServes(material, ['127.0.0.1'], nowMs));
    assert.equal(stillServes(material, ['other.local'], nowMs), false);
    assert.equal(stillServes(material, [], nowMs + SELF_SIGNED_VALIDITY_DAYS * DAY_MS), false);
    assert.equal(stillServes({ cert: material.cert, key: selfSignedCertificate([], nowMs).key }, [], nowMs), false, 'a key of another certificate');
    assert.equal(stillServes({ cert: 'garbage', key: material.key }, [], nowMs), false);
  });

  test('leaves wildcard bind addresses out of its names', () => {
    assert.deepEqual(certificateNames(['0.0.0.0', '::', '[::1]', 'Box.Local']), ['localhost', '127.0.0.1', '::1', 'box.local']);
  });
});
