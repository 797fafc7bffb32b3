/**
 * A TransactWriteItems with a ClientRequestToken that was applied stays applied once, whatever
 * happens to the server between the first send and a retry with the same token: the SDK retries a
 * transaction whose answer it never got (a connection reset by kill -9, a 503 of a later frame)
 * with the token it generated, and DynamoDB answers the retry for 10 minutes without applying it
 * again. Two ways the server used to forget the token and apply an ADD twice: a restart on the
 * same data directory, and the engine reopened on its store after a disk fault lost later writes
 * (storage/logged.ts DISK FAULTS).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { GetItemCommand, PutItemCommand, TransactWriteItemsCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ServerProcesses, type ServerProcess } from './support/process.js';
import { scratchDirectories } from './support/scratch.js';
import { sdkClient } from './support/client.js';
import { createTables, onDemandTable } from './support/tables.js';

const TABLE = 'tokens';
const TRANSACTIONS = 80;
/** Bounds on retries of a refused request (a hang fails, slowness does not). */
const ATTEMPTS_MAX = 400;
const RETRY_PAUSE_MS = 20;

const scratch = scratchDirectories('dynatwin-idempotency-');
const servers = new ServerProcesses();
after(async () => {
  await servers.killAll();
  scratch.removeAll();
});

test('a transaction retried with its token after kill -9 and a restart is not applied again', async () => {
  const dataDir = scratch.fresh();
  const first = await start(['--data-dir', dataDir]);
  const client = sdkClient(first.endpoint);
  await createTable(client);
  await client.send(addOne('once', 'token-once'));
  first.child.kill('SIGKILL');
  await first.exited;
  const second = await start(['--data-dir', dataDir]);
  const again = sdkClient(second.endpoint);
  await again.send(addOne('once', 'token-once'));
  assert.equal(await counterOf(again, 'once'), 1);
  // The token is still bound to its request: another request with it is refused.
  await assert.rejects(again.send(addOne('other', 'token-once')), { name: 'IdempotentParameterMismatchException' });
});

test('transactions acknowledged before frames failed are not applied again when retried after the engine reopened', async () => {
  const server = await start(['--data-dir', scratch.fresh()], { DYNATWIN_STORE_FAULTS: 'seed=11,rate=0.15,stages=frame' });
  const client = sdkClient(server.endpoint);
  await untilTaken(() => createTable(client));
  const acknowledged: number[] = [];
  for (let i = 0; i < TRANSACTIONS; i++) {
    try {
      await client.send(addOne(`k${i}`, `token-${i}`));
      acknowledged.push(i);
    } catch (error) {
      assert.equal((error as Error).name, 'ServiceUnavailable', String(error));
      await pause();
    }
  }
  // Once writes are taken again (after the engine was reopened), each acknowledged one is retried.
  await untilTaken(() => client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'sentinel' } } })));
  assert.match(server.output(), /reopening the engine on the store before writes resume/);
  assert.ok(acknowledged.length > 0);
  for (const i of acknowledged) await untilTaken(() => client.send(addOne(`k${i}`, `token-${i}`)));
  for (const i of acknowledged) assert.equal(await counterOf(client, `k${i}`), 1, `k${i} applied once`);
});

function start(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<ServerProcess> {
  return servers.start(args, env);
}

/** The test's table: on-demand, keyed by pk. */
function createTable(client: DynamoDBClient): Promise<void> {
  return createTables(client, onDemandTable(TABLE, { pk: 'S' }));
}

function addOne(key: string, token: string): TransactWriteItemsCommand {
  return new TransactWriteItemsCommand({
    ClientRequestToken: token,
    TransactItems: [{ Update: { TableName: TABLE, Key: { pk: { S: key } }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } } }],
  });
}

async function counterOf(client: DynamoDBClient, key: string): Promise<number> {
  const { Item } = await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: key } }, ConsistentRead: true }));
  return Number(Item?.n?.N);
}

/** Runs `send` until it is not refused with a 503 (the store resumes after a back-off). */
async function untilTaken<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < ATTEMPTS_MAX; attempt++) {
    try {
      return await send();
    } catch (error) {
      if ((error as Error).name !== 'ServiceUnavailable') throw error;
      await pause();
    }
  }
  assert.fail(`still refused after ${ATTEMPTS_MAX} attempts`);
}

function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
}
