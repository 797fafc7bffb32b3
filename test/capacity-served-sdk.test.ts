/**
 * "DynamoDB serves this": single requests and short bursts that DynamoDB answers, sent through the
 * AWS SDK with throttling on (the default) and SDK retries off (maxAttempts 1), on a manual clock
 * that never moves, so nothing here is served because time passed. The rules that serve them are
 * CAPACITY-MODEL.md §11; their sustained limits are held by test/throttling.test.ts and
 * test/capacity-served.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type CreateTableCommandInput,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { itemSize } from '../src/model/item-size.js';
import type { AttributeMap } from '../src/model/attribute-value.js';
import { onDemandTable, attributes, keySchema } from './support/tables.js';
import { KB, startManualTwin, type ManualTwin } from './support/throttling.js';

type Item = Record<string, AttributeValue>;

const ITEM_BYTES_MAX = 400 * KB;
const PAGE_BYTES = 1024 * 1024;

/** An item of exactly `bytes` (DynamoDB's size: names plus values) under `id` (and `sk` when given). */
function sizedItem(bytes: number, id: string, sk?: number, fill = 'x'): Item {
  const item: Item = { id: { S: id }, ...(sk === undefined ? {} : { sk: { N: String(sk) } }), data: { S: '' } };
  const overhead = itemSize(item as unknown as AttributeMap);
  item['data'] = { S: fill.repeat(bytes - overhead) };
  assert.equal(itemSize(item as unknown as AttributeMap), bytes);
  return item;
}

function provisionedTable(name: string, read: number, write: number): CreateTableCommandInput {
  return { TableName: name, AttributeDefinitions: attributes({ id: 'S' }), KeySchema: keySchema('id'), ProvisionedThroughput: { ReadCapacityUnits: read, WriteCapacityUnits: write } };
}

async function batchWriteAll(twin: ManualTwin, table: string, items: readonly Item[]): Promise<void> {
  for (let at = 0; at < items.length; at += 25) {
    const requests: WriteRequest[] = items.slice(at, at + 25).map((Item) => ({ PutRequest: { Item } }));
    const result = await twin.client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
    assert.deepEqual(result.UnprocessedItems ?? {}, {}, `batch at ${at}: nothing unprocessed`);
  }
}

describe('DynamoDB serves this: throttling on, SDK retries off, no time passing', () => {
  let twin: ManualTwin;
  before(async () => {
    twin = await startManualTwin();
  });
  after(async () => {
    await twin.close();
  });

  const billings: [string, (name: string) => CreateTableCommandInput][] = [
    ['a new on-demand table', (name) => onDemandTable(name)],
    ['a new provisioned table (5 RCU / 5 WCU)', (name) => provisionedTable(name, 5, 5)],
    ['a 1 RCU / 1 WCU provisioned table', (name) => provisionedTable(name, 1, 1)],
  ];
  for (const [label, input] of billings) {
    test(`the largest item (400 KB): put, get both ways, update, get — ${label}`, async () => {
      const table = `largest-${billings.findIndex(([other]) => other === label)}`;
      await twin.client.send(new CreateTableCommand(input(table)));
      const item = sizedItem(ITEM_BYTES_MAX, 'big');
      const put = await twin.client.send(new PutItemCommand({ TableName: table, Item: item, ReturnConsumedCapacity: 'TOTAL' }));
      assert.equal(put.ConsumedCapacity?.CapacityUnits, 400);
      const strong = await twin.client.send(new GetItemCommand({ TableName: table, Key: { id: { S: 'big' } }, ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }));
      assert.equal(strong.Item?.['data']?.S?.length, item['data']!.S!.length);
      assert.equal(strong.ConsumedCapacity?.CapacityUnits, 100);
      const eventual = await twin.client.send(new GetItemCommand({ TableName: table, Key: { id: { S: 'big' } } }));
      assert.equal(eventual.Item?.['data']?.S, item['data']!.S);
      const replaced = 'y'.repeat(item['data']!.S!.length);
      const update = await twin.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: { id: { S: 'big' } },
          UpdateExpression: 'SET #d = :d',
          ExpressionAttributeNames: { '#d': 'data' },
          ExpressionAttributeValues: { ':d': { S: replaced } },
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      assert.equal(update.ConsumedCapacity?.CapacityUnits, 400);
      const read = await twin.client.send(new GetItemCommand({ TableName: table, Key: { id: { S: 'big' } }, ConsistentRead: true }));
      assert.equal(read.Item?.['data']?.S, replaced);
    });
  }

  test('a 25-item BatchWriteItem of 400 KB items on a new on-demand table, all processed', async () => {
    await twin.client.send(new CreateTableCommand(onDemandTable('batch-write-400')));
    const items = Array.from({ length: 25 }, (_, n) => sizedItem(ITEM_BYTES_MAX, `w${n}`));
    const result = await twin.client.send(
      new BatchWriteItemCommand({ RequestItems: { 'batch-write-400': items.map((Item) => ({ PutRequest: { Item } })) }, ReturnConsumedCapacity: 'TOTAL' }),
    );
    assert.deepEqual(result.UnprocessedItems, {});
    assert.deepEqual(result.ConsumedCapacity, [{ TableName: 'batch-write-400', CapacityUnits: 25 * 400 }]);
  });

  test('a 100-item BatchGetItem of 400 KB items: 16 MB a call, the rest unprocessed by size only, all read in 3 calls', async () => {
    await twin.client.send(new CreateTableCommand(onDemandTable('batch-get-400')));
    const items = Array.from({ length: 100 }, (_, n) => sizedItem(ITEM_BYTES_MAX, `g${String(n).padStart(3, '0')}`));
    await batchWriteAll(twin, 'batch-get-400', items);
    const perCall = Math.floor((16 * 1024 * 1024) / ITEM_BYTES_MAX);
    let pending: Record<string, { Keys: Item[]; ConsistentRead: boolean }> | undefined = {
      'batch-get-400': { Keys: items.map((item) => ({ id: item['id']! })), ConsistentRead: true },
    };
    const seen = new Set<string>();
    const counts: number[] = [];
    while (pending !== undefined && Object.keys(pending).length > 0) {
      const result = await twin.client.send(new BatchGetItemCommand({ RequestItems: pending }));
      const found = result.Responses?.['batch-get-400'] ?? [];
      counts.push(found.length);
      for (const item of found) seen.add(item['id']!.S!);
      pending = result.UnprocessedKeys as typeof pending;
    }
    assert.deepEqual(counts, [perCall, perCall, 100 - 2 * perCall]);
    assert.equal(seen.size, 100);
  });

  test('a 4 MB / 100-action TransactWriteItems on a new on-demand table, twice, followed at once by more writes', async () => {
    await twin.client.send(new CreateTableCommand(onDemandTable('tx-4mb')));
    const actionBytes = Math.floor((4 * 1024 * 1024) / 100);
    for (const round of [0, 1]) {
      const items = Array.from({ length: 100 }, (_, n) => sizedItem(actionBytes, `t${round}-${n}`));
      const result = await twin.client.send(new TransactWriteItemsCommand({ TransactItems: items.map((Item) => ({ Put: { TableName: 'tx-4mb', Item } })), ReturnConsumedCapacity: 'TOTAL' }));
      // Transactional writes cost twice: 41 KB rounds to 41 units, 82 per action.
      assert.equal(result.ConsumedCapacity?.[0]?.CapacityUnits, 100 * 2 * Math.ceil(actionBytes / KB));
    }
    const small = Array.from({ length: 25 }, (_, n) => ({ id: { S: `after-${n}` }, n: { N: String(n) } }));
    const batch = await twin.client.send(new BatchWriteItemCommand({ RequestItems: { 'tx-4mb': small.map((Item) => ({ PutRequest: { Item } })) } }));
    assert.deepEqual(batch.UnprocessedItems, {});
    for (let n = 0; n < 20; n++) await twin.client.send(new PutItemCommand({ TableName: 'tx-4mb', Item: sizedItem(10 * KB, `single-${n}`) }));
  });

  describe('full 1 MB pages, forwards and backwards', () => {
    const table = 'pages-1mb';
    // 40 items of 100 KB under one partition key: 4 MB, four full pages.
    const items = Array.from({ length: 40 }, (_, n) => sizedItem(100 * KB, 'coll', n));
    before(async () => {
      await twin.client.send(new CreateTableCommand(onDemandTable(table, { id: 'S', sk: 'N' })));
      await batchWriteAll(twin, table, items);
    });

    const perPage = Math.ceil(PAGE_BYTES / (100 * KB));
    for (const forward of [true, false]) {
      for (const consistent of [true, false]) {
        test(`Query ${forward ? 'forwards' : 'backwards'}, ${consistent ? 'strongly consistent' : 'eventually consistent'}: every page in a row, none throttled`, async () => {
          const sks: number[] = [];
          let start: Item | undefined;
          let pages = 0;
          do {
            const page = await twin.client.send(
              new QueryCommand({
                TableName: table,
                KeyConditionExpression: 'id = :c',
                ExpressionAttributeValues: { ':c': { S: 'coll' } },
                ScanIndexForward: forward,
                ConsistentRead: consistent,
                ExclusiveStartKey: start,
                ReturnConsumedCapacity: 'TOTAL',
              }),
            );
            if (pages === 0) {
              assert.equal(page.Count, perPage, 'the first page is a full 1 MB');
              assert.equal(page.ConsumedCapacity?.CapacityUnits, (Math.ceil((perPage * 100 * KB) / (4 * KB)) * (consistent ? 1 : 0.5)));
            }
            for (const item of page.Items ?? []) sks.push(Number(item['sk']!.N));
            start = page.LastEvaluatedKey;
            pages++;
          } while (start !== undefined);
          const expected = items.map((_, n) => n);
          assert.deepEqual(sks, forward ? expected : expected.reverse());
          assert.equal(pages, Math.ceil(40 / perPage));
        });
      }
    }

    test('Scan: every 1 MB page in a row, strongly consistent, none throttled', async () => {
      let start: Item | undefined;
      let count = 0;
      let first = true;
      do {
        const page = await twin.client.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }));
        if (first) assert.equal(page.Count, perPage);
        first = false;
        count += page.Count ?? 0;
        start = page.LastEvaluatedKey;
      } while (start !== undefined);
      assert.equal(count, 40);
    });
  });
});
