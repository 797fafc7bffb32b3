/**
 * A write whose log frame fails after it ran (storage/logged.ts DISK FAULTS): the engine's
 * in-memory state had moved with it (statistics, partition counts), so the server reopens its
 * engine on the store before writes resume. Shown on a live server, no restart: frame writes fail
 * at random (DYNATWIN_STORE_FAULTS, frames only), and once the store takes writes again the
 * table's ItemCount is exactly the acknowledged items, none of the refused ones.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { CreateTableCommand, DescribeTableCommand, GetItemCommand, PutItemCommand, ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ServerProcesses } from './support/process.js';
import { scratchDirectories } from './support/scratch.js';
import { sdkClient } from './support/client.js';

const TABLE = 'faults';
const KEYS = 150;
/** Bounds on retries of a refused request and on waiting for the store to take writes (a hang fails, slowness does not). */
const ATTEMPTS_MAX = 400;
const RETRY_PAUSE_MS = 20;

const scratch = scratchDirectories('dynatwin-store-faults-');
const servers = new ServerProcesses();
after(async () => {
  await servers.killAll();
  scratch.removeAll();
});

test('after frames fail under writes, the live server counts exactly the acknowledged items and refused ones are absent', async () => {
  const server = await servers.start(['--data-dir', scratch.fresh()], { DYNATWIN_STORE_FAULTS: 'seed=5,rate=0.15,stages=frame' });
  const client = sdkClient(server.endpoint);
  await untilTaken(() =>
    client.send(
      new CreateTableCommand({
        TableName: TABLE,
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    ),
  );
  const acknowledged: string[] = [];
  const refused: string[] = [];
  // Each key is written once: acknowledged, or refused (503: not applied).
  await Promise.all(
    Array.from({ length: 4 }, async (_, writer) => {
      for (let i = writer; i < KEYS; i += 4) {
        const key = `k${i}`;
        try {
          await client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: key }, n: { N: String(i) } } }));
          acknowledged.push(key);
        } catch (error) {
          assert.equal((error as Error).name, 'ServiceUnavailable', String(error));
          assert.match((error as Error).message, /^Writes are refused: .*(EIO|ENOSPC) writing the write-ahead log/);
          refused.push(key);
          await pause();
        }
      }
    }),
  );
  assert.ok(refused.length > 0, 'some writes were refused');
  assert.ok(acknowledged.length > 0, 'some writes were acknowledged');
  // Once writes are taken again, the reopened engine's statistics are the store's.
  const sentinel = await untilTaken(() => client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'sentinel' } } })));
  assert.ok(sentinel !== undefined);
  const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
  assert.equal(Table?.ItemCount, acknowledged.length + 1);
  assert.equal(await countItems(client), acknowledged.length + 1);
  for (const key of refused) {
    const { Item } = await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: key } } }));
    assert.equal(Item, undefined, `refused ${key} is absent`);
  }
  assert.match(server.output(), /reopening the engine on the store before writes resume/);
  assert.equal(server.child.exitCode, null);
});

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

async function countItems(client: DynamoDBClient): Promise<number> {
  let count = 0;
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: TABLE, Select: 'COUNT', ExclusiveStartKey: start }));
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return count;
}
