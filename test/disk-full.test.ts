/**
 * A full disk is a state, not a crash (issue 31; storage/logged.ts DISK FAULTS), on a real full
 * filesystem: a small tmpfs this test mounts (as root; skipped with the reason otherwise), a
 * dynatwin process with its data directory there, filled up by a filler file and SDK PutItems.
 * Outcomes only, no timings:
 *   - the process stays up; writes get the retryable 503 ServiceUnavailable naming the data
 *     directory; reads go on; /metrics and /dynatwin/store show the state;
 *   - once the filler is deleted, writes succeed again without a restart;
 *   - after kill -9 and a restart, every acknowledged write is there;
 *   - a start-up on a full disk serves reads and refuses writes the same way, and takes writes
 *     once space is freed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { mountTmpfs } from './support/tmpfs.js';
import { after, before, test } from 'node:test';
import { GetItemCommand, ListTablesCommand, PutItemCommand, ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ServerProcesses, type ServerProcess } from './support/process.js';
import { sdkClient } from './support/client.js';
import { createTables, onDemandTable } from './support/tables.js';

const TMPFS_BYTES = 24 * 1024 * 1024;
/** A prepared log segment is 1.25 times this: 1.25 MB must be free for writes to resume. */
const SERVER_ARGS = ['--checkpoint-log-size', '1MB'];
const TABLE = 'full';
const VALUE = 'v'.repeat(8 * 1024);
/** Bounds on loops that wait for an outcome (a hang fails the test, slowness does not). */
const PUTS_MAX = 4000;
const RESUME_ATTEMPTS_MAX = 600;

const servers = new ServerProcesses();
const tmpfs = mountTmpfs(TMPFS_BYTES, 'dynatwin-full');
const mountPoint = typeof tmpfs === 'string' ? undefined : tmpfs.path;

const skip = typeof tmpfs === 'string' ? tmpfs : false;

before(() => {
  if (skip !== false) process.stdout.write(`# disk-full: skipped, ${skip}\n`);
});

after(async () => {
  await servers.killAll();
  if (typeof tmpfs !== 'string') tmpfs.unmount();
});

test('a full disk refuses writes with a retryable 503, keeps reads, resumes by itself once space is freed, and loses nothing acknowledged', { skip }, async () => {
  const dataDir = join(mountPoint!, 'data');
  const filler = join(mountPoint!, 'filler');
  let server = await start(dataDir);
  let client = sdkClient(server.endpoint);
  await createTable(client);
  const acknowledged: string[] = [];
  // Most of the disk goes to the filler; the puts take the rest.
  fill(filler, 4 * 1024 * 1024);
  const refusal = await putUntilRefused(client, acknowledged);
  assert.ok(acknowledged.length > 0, 'some puts were acknowledged before the disk was full');
  assertRefusal(refusal, dataDir);
  await assertRefusingServer(server, client, acknowledged, dataDir);

  // Space returns: writes resume by themselves, no restart.
  unlinkSync(filler);
  await putOnceTaken(client, acknowledged);
  for (let i = 0; i < 20; i++) await put(client, `after-${i}`, acknowledged);
  assert.equal(server.child.exitCode, null);
  assert.equal((await storeState(server)).writes, 'taken');
  await assertReadable(client, acknowledged);

  // kill -9 and a restart: every acknowledged write is there.
  server.child.kill('SIGKILL');
  await server.exited;
  server = await start(dataDir);
  client = sdkClient(server.endpoint);
  await assertReadable(client, acknowledged);
  await put(client, 'after-restart', acknowledged);
  server.child.kill('SIGKILL');
  await server.exited;
});

test('a start-up on a full disk serves reads, refuses writes the same way, and takes them once space is freed', { skip }, async () => {
  const dataDir = join(mountPoint!, 'startup');
  const filler = join(mountPoint!, 'filler-startup');
  let server = await start(dataDir);
  let client = sdkClient(server.endpoint);
  await createTable(client);
  const acknowledged: string[] = [];
  for (let i = 0; i < 40; i++) await put(client, `before-${i}`, acknowledged);
  server.child.kill('SIGKILL');
  await server.exited;
  // The disk fills while it is down; the restart replays its log and must checkpoint it.
  fill(filler, 0);
  server = await start(dataDir);
  client = sdkClient(server.endpoint);
  assert.ok((await client.send(new ListTablesCommand({}))).TableNames?.includes(TABLE));
  await assertReadable(client, acknowledged);
  // A checkpoint that got through frees the log it covered: the disk is filled up again.
  fill(`${filler}-more`, 0);
  const refusal = await putUntilRefused(client, acknowledged);
  assertRefusal(refusal, dataDir);
  await assertRefusingServer(server, client, acknowledged, dataDir);
  rmSync(filler);
  rmSync(`${filler}-more`);
  await putOnceTaken(client, acknowledged);
  await assertReadable(client, acknowledged);
  assert.equal(server.child.exitCode, null);
  server.child.kill('SIGKILL');
  await server.exited;
  server = await start(dataDir);
  await assertReadable(sdkClient(server.endpoint), acknowledged);
});

function start(dataDir: string): Promise<ServerProcess> {
  return servers.start(['--data-dir', dataDir, ...SERVER_ARGS]);
}

/** The test's table: on-demand, keyed by pk. */
function createTable(client: DynamoDBClient): Promise<void> {
  return createTables(client, onDemandTable(TABLE, { pk: 'S' }));
}

/** Writes zeros to `path` until the filesystem is full, then gives back `spareBytes` of them. */
function fill(path: string, spareBytes: number): void {
  const chunk = Buffer.alloc(256 * 1024);
  const fd = openSync(path, 'w');
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
  } finally {
    closeSync(fd);
  }
  if (spareBytes > 0) execFileSync('truncate', ['-s', String(Math.max(0, written - spareBytes)), path]);
}

async function put(client: DynamoDBClient, key: string, acknowledged: string[]): Promise<void> {
  await client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: key }, v: { S: VALUE } } }));
  acknowledged.push(key);
}

/** Puts new items until one is refused; answers the refusal. */
async function putUntilRefused(client: DynamoDBClient, acknowledged: string[]): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  for (let i = 0; i < PUTS_MAX; i++) {
    try {
      await put(client, `item-${acknowledged.length}-${i}`, acknowledged);
    } catch (error) {
      return error as Error;
    }
  }
  assert.fail(`${PUTS_MAX} puts on a full disk were all acknowledged`);
}

/** Puts one item, retrying while it is refused (the store resumes after a back-off). */
async function putOnceTaken(client: DynamoDBClient, acknowledged: string[]): Promise<void> {
  for (let attempt = 0; attempt < RESUME_ATTEMPTS_MAX; attempt++) {
    try {
      await put(client, `resumed-${attempt}`, acknowledged);
      return;
    } catch (error) {
      assertRefusal(error as Error, undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  assert.fail('writes never resumed after space was freed');
}

function assertRefusal(error: Error & { $metadata?: { httpStatusCode?: number } }, dataDir: string | undefined): void {
  assert.equal(error.name, 'ServiceUnavailable', error.message);
  assert.equal(error.$metadata?.httpStatusCode, 503);
  assert.match(error.message, /^Writes are refused: the disk holding the data directory .* is full \(ENOSPC/);
  assert.match(error.message, /resume by themselves once \d+ MB there are free/);
  if (dataDir !== undefined) assert.ok(error.message.includes(dataDir), error.message);
}

/** The server is up, refuses writes, answers reads, and its metrics and store route say why. */
async function assertRefusingServer(server: ServerProcess, client: DynamoDBClient, acknowledged: readonly string[], dataDir: string): Promise<void> {
  assert.equal(server.child.exitCode, null, 'the server is still running');
  await assert.rejects(client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'refused' } } })), (error: Error) => {
    assertRefusal(error, dataDir);
    return true;
  });
  await assertReadable(client, acknowledged);
  const state = await storeState(server);
  assert.equal(state.writes, 'refused');
  assert.equal(state.refusal?.code, 'ENOSPC');
  assert.equal(state.refusal?.path, dataDir);
  const metrics = await (await fetch(server.endpoint + '/metrics')).text();
  assert.match(metrics, /^dynatwin_store_writes_refused\{code="ENOSPC",stage="\w+",path="[^"]+"\} 1$/m);
  assert.equal(server.child.exitCode, null, 'the server is still running');
}

async function storeState(server: ServerProcess): Promise<{ writes: string; refusal?: { code: string; path: string } }> {
  const response = await fetch(server.endpoint + '/dynatwin/store');
  assert.equal(response.status, 200);
  return (await response.json()) as { writes: string; refusal?: { code: string; path: string } };
}

async function assertReadable(client: DynamoDBClient, acknowledged: readonly string[]): Promise<void> {
  for (const key of acknowledged) {
    const { Item } = await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: key } } }));
    assert.equal(Item?.['pk']?.S, key, `acknowledged item ${key} is readable`);
  }
  let count = 0;
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: TABLE, Select: 'COUNT', ExclusiveStartKey: start }));
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  assert.ok(count >= acknowledged.length, `a Scan counts ${count} items, ${acknowledged.length} were acknowledged`);
}
