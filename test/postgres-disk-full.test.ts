/**
 * The PostgreSQL store when the database's disk is full (issue #32, item 4): the store's table is
 * moved onto a tablespace on a small tmpfs this test mounts (as root; skipped with the reason
 * otherwise), so the table cannot grow while PostgreSQL's own log still has room, which is how a
 * full data volume shows: `53100 could not extend file`. Writes are refused with a retryable 503
 * that names the fault, reads go on, and once the table has room again writes are taken by
 * themselves, with every acknowledged write present.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { CreateTableCommand, GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import pg from 'pg';
import { startDynatwin, type Dynatwin } from '../src/index.js';
import { postgresAvailability, startPrivatePostgres, type PrivatePostgres } from './support/postgres.js';
import { sdkClient } from './support/client.js';
import { mountTmpfs } from './support/tmpfs.js';

const TMPFS_BYTES = 4 * 1024 * 1024;
const SCHEMA = 'fulldisk';
const TABLE = 'Full';
/** Puts of this size fill the 4 MB tablespace in a few hundred writes; random, as PostgreSQL compresses long values. */
const VALUE = randomBytes(4608).toString('base64');
const PUTS_MAX = 5_000;

let cluster: PrivatePostgres | undefined;
const tmpfs = mountTmpfs(TMPFS_BYTES, 'dynatwin-pg-full');
const mountPoint = typeof tmpfs === 'string' ? undefined : tmpfs.path;

const skip = postgresAvailability() || (typeof tmpfs === 'string' ? tmpfs : false);

before(async () => {
  if (skip !== false) process.stdout.write(`# postgres-disk-full: skipped, ${skip}\n`);
  else cluster = await startPrivatePostgres();
});

after(async () => {
  await cluster?.stop();
  if (typeof tmpfs !== 'string') tmpfs.unmount();
});

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: cluster!.url() });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function put(client: DynamoDBClient, id: string): Promise<void> {
  await client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: id }, value: { S: VALUE } } }));
}

test('a full database refuses writes with a retryable 503, keeps reads, and takes writes again once there is room', { skip }, async () => {
  // The postgres OS user owns the tablespace's directory (PostgreSQL insists).
  const stat = execFileSync('id', ['-u', 'postgres']).toString().trim();
  const group = execFileSync('id', ['-g', 'postgres']).toString().trim();
  chownSync(mountPoint!, Number(stat), Number(group));
  await sql(`CREATE TABLESPACE small LOCATION '${mountPoint!}'`);
  let twin: Dynatwin | undefined = await startDynatwin({ store: cluster!.url(SCHEMA) });
  const client = sdkClient(twin.endpoint);
  try {
    await client.send(new CreateTableCommand({ TableName: TABLE, AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }));
    await sql(`ALTER TABLE ${SCHEMA}.kv SET TABLESPACE small`);
    const acknowledged: string[] = [];
    let refusal: unknown;
    for (let index = 0; index < PUTS_MAX && refusal === undefined; index++) {
      try {
        await put(client, `item-${index}`);
        acknowledged.push(`item-${index}`);
      } catch (error) {
        refusal = error;
      }
    }
    assert.ok(acknowledged.length > 0, 'some puts were taken before the tablespace filled');
    assert.ok(refusal instanceof Error, `the tablespace filled within ${PUTS_MAX} puts`);
    const status = (refusal as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    // The first refused write failed at its commit (answered 503 for the full disk).
    assert.equal(status, 503, `a 503, got ${status}: ${refusal.message}`);
    assert.match(refusal.message, /53100/);
    // Reads go on.
    const read = await client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: acknowledged[0]! } }, ConsistentRead: true }));
    assert.equal(read.Item?.['value']?.S, VALUE);

    // Room again: the table moves back to the main tablespace; writes are taken by themselves.
    await sql(`ALTER TABLE ${SCHEMA}.kv SET TABLESPACE pg_default`);
    let taken = false;
    // A bound on a hang, not a speed: the back-off is 1 s, a busy machine may take many.
    for (let attempt = 0; attempt < 600 && !taken; attempt++) {
      try {
        await put(client, 'after-room');
        taken = true;
      } catch (error) {
        assert.equal((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode, 503, String(error));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    assert.ok(taken, 'a write was taken again once the table had room');
    acknowledged.push('after-room');
    for (const id of acknowledged) {
      const item = await client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: id } }, ConsistentRead: true }));
      assert.equal(item.Item?.['id']?.S, id, `acknowledged ${id} is present`);
    }
    await twin.close();
    twin = undefined;
    // A restart on the same schema finds them too.
    twin = await startDynatwin({ store: cluster!.url(SCHEMA) });
    const again = sdkClient(twin.endpoint);
    const last = await again.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: 'after-room' } }, ConsistentRead: true }));
    assert.equal(last.Item?.['id']?.S, 'after-room');
    again.destroy();
  } finally {
    client.destroy();
    await twin?.close();
    await sql('DROP TABLESPACE IF EXISTS small').catch(() => {});
  }
});
