/**
 * Issue #32, item 3: transaction conflicts as DynamoDB answers them, through the SDK.
 *
 * A TransactWriteItems holds its items from the moment it is applied until its commit settles
 * (engine/transaction-holds.ts). The store here (support/storage-twin.ts HeldCommitStorage) keeps
 * one commit in flight until the test releases it, so what arrives meanwhile meets the held items
 * for certain, without timers: single writes get TransactionConflictException, other transactions
 * (write and read) are cancelled with TransactionConflict at the held items, a batch returns the
 * held items unprocessed, GetItem is served. After the commit settles, the items are writable again.
 * The TransactionConflict metric is read back with CloudWatch's GetMetricStatistics.
 *
 * The second part stands in for a store other processes write (LockingStorage: getLocked, an item
 * marked `lockedElsewhere` held by another process's write): a transaction reads with the 'fail'
 * mode and is cancelled at the locked item; a single write reads with 'wait' and applies.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GetMetricStatisticsCommand } from '@aws-sdk/client-cloudwatch';
import {
  BatchExecuteStatementCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  ExecuteStatementCommand,
  ExecuteTransactionCommand,
  GetItemCommand,
  PutItemCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { expectDynamoError, uniqueTableName } from './support/twin.js';
import { HeldCommitStorage, LockingStorage, startStorageTwin, type StorageTwin } from './support/storage-twin.js';

const CONFLICT_MESSAGE = 'Transaction is ongoing for the item';
const CONFLICT_REASON = { Code: 'TransactionConflict', Message: CONFLICT_MESSAGE };
const NONE = { Code: 'None' };

function key(id: string): Record<string, AttributeValue> {
  return { pk: { S: id } };
}

async function createTable(client: DynamoDBClient, stem: string): Promise<string> {
  const name = uniqueTableName(stem);
  await client.send(
    new CreateTableCommand({
      TableName: name,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  return name;
}

async function putBalance(client: DynamoDBClient, table: string, id: string, balance: number, extra: Record<string, AttributeValue> = {}): Promise<void> {
  await client.send(new PutItemCommand({ TableName: table, Item: { ...key(id), balance: { N: String(balance) }, ...extra } }));
}

async function balanceOf(client: DynamoDBClient, table: string, id: string): Promise<string | undefined> {
  const answer = await client.send(new GetItemCommand({ TableName: table, Key: key(id), ConsistentRead: true }));
  return answer.Item?.['balance']?.N;
}

function add(table: string, id: string, amount: number): TransactWriteItem {
  return { Update: { TableName: table, Key: key(id), UpdateExpression: 'ADD balance :amount', ExpressionAttributeValues: { ':amount': { N: String(amount) } } } };
}

/** The TransactionCanceledException `call` must fail with: its message and reasons. */
async function expectCancelled(call: Promise<unknown>, reasons: readonly object[]): Promise<void> {
  const error = await call.then(
    () => assert.fail('expected TransactionCanceledException, but the call succeeded'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof TransactionCanceledException, `TransactionCanceledException, got ${String(error)}`);
  const codes = reasons.map((reason) => (reason as { Code: string }).Code).join(', ');
  assert.equal(error.message, `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`);
  assert.deepEqual(error.CancellationReasons, reasons);
  assert.equal(error.$metadata.httpStatusCode, 400);
}

/** The table's TransactionConflict over the manual clock's first minute: [Sum, SampleCount], or undefined without a datapoint. */
async function conflictMetric(twin: StorageTwin, table: string): Promise<[number | undefined, number | undefined] | undefined> {
  twin.clock.advance(60_000);
  const answer = await twin.cloudWatch.send(
    new GetMetricStatisticsCommand({
      Namespace: 'AWS/DynamoDB',
      MetricName: 'TransactionConflict',
      Dimensions: [{ Name: 'TableName', Value: table }],
      StartTime: new Date(0),
      EndTime: new Date(twin.clock.nowMs()),
      Period: 3_600,
      Statistics: ['Sum', 'SampleCount'],
    }),
  );
  const points = answer.Datapoints ?? [];
  if (points.length === 0) return undefined;
  assert.equal(points.length, 1);
  return [points[0]!.Sum, points[0]!.SampleCount];
}

describe('a transaction in flight holds its items', () => {
  const storage = new HeldCommitStorage();
  let twin: StorageTwin;
  let client: DynamoDBClient;

  before(async () => {
    twin = await startStorageTwin(storage);
    client = twin.client;
  });
  after(async () => {
    assert.deepEqual(twin.internalErrors, []);
    await twin.close();
  });

  /** Sends a transfer from a to b and holds its commit open; resolves once it is applied, with its answer to await. */
  async function transferInFlight(table: string): Promise<{ readonly answer: Promise<unknown>; release(): void }> {
    const hold = storage.holdNextWrite();
    const answer = client.send(new TransactWriteItemsCommand({ TransactItems: [add(table, 'a', -10), add(table, 'b', 10)] }));
    await hold.reached;
    return { answer, release: hold.release };
  }

  test('PutItem, UpdateItem and DeleteItem on a held item get TransactionConflictException; once the commit settles they apply', async () => {
    const table = await createTable(client, 'held-single');
    for (const id of ['a', 'b', 'c']) await putBalance(client, table, id, 100);
    const transfer = await transferInFlight(table);

    await expectDynamoError(client.send(new PutItemCommand({ TableName: table, Item: { ...key('a'), balance: { N: '0' } } })), 'TransactionConflictException', CONFLICT_MESSAGE);
    await expectDynamoError(
      client.send(new UpdateItemCommand({ TableName: table, Key: key('b'), UpdateExpression: 'SET balance = :zero', ExpressionAttributeValues: { ':zero': { N: '0' } } })),
      'TransactionConflictException',
      CONFLICT_MESSAGE,
    );
    await expectDynamoError(client.send(new DeleteItemCommand({ TableName: table, Key: key('a') })), 'TransactionConflictException', CONFLICT_MESSAGE);
    // An item the transaction does not touch is written; a read of a held item is served.
    await putBalance(client, table, 'c', 7);
    assert.equal(await balanceOf(client, table, 'c'), '7');
    assert.ok((await balanceOf(client, table, 'a')) !== undefined);

    transfer.release();
    await transfer.answer;
    assert.equal(await balanceOf(client, table, 'a'), '90');
    assert.equal(await balanceOf(client, table, 'b'), '110');
    assert.equal(twin.engine.transactionHolds.size, 0);
    await putBalance(client, table, 'a', 1);
    await client.send(new DeleteItemCommand({ TableName: table, Key: key('b') }));
    assert.equal(await balanceOf(client, table, 'a'), '1');
    assert.equal(await balanceOf(client, table, 'b'), undefined);
  });

  test('another TransactWriteItems is cancelled with TransactionConflict at each held item, None elsewhere, and writes nothing', async () => {
    const table = await createTable(client, 'held-transact');
    for (const id of ['a', 'b', 'c']) await putBalance(client, table, id, 100);
    const transfer = await transferInFlight(table);

    await expectCancelled(
      client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            add(table, 'c', 5),
            { ConditionCheck: { TableName: table, Key: key('b'), ConditionExpression: 'attribute_exists(pk)' } },
            { Put: { TableName: table, Item: { ...key('d'), balance: { N: '1' } } } },
            add(table, 'a', 5),
          ],
        }),
      ),
      [NONE, CONFLICT_REASON, NONE, CONFLICT_REASON],
    );
    assert.equal(await balanceOf(client, table, 'c'), '100');
    assert.equal(await balanceOf(client, table, 'd'), undefined);

    transfer.release();
    await transfer.answer;
    await client.send(new TransactWriteItemsCommand({ TransactItems: [add(table, 'c', 5), add(table, 'a', 5)] }));
    assert.equal(await balanceOf(client, table, 'a'), '95');
    assert.equal(await balanceOf(client, table, 'c'), '105');
  });

  test('TransactGetItems with a held item is cancelled with TransactionConflict at it; after the commit it reads the transfer whole', async () => {
    const table = await createTable(client, 'held-read');
    for (const id of ['a', 'b', 'c']) await putBalance(client, table, id, 100);
    const transfer = await transferInFlight(table);
    const read = (): Promise<unknown> => client.send(new TransactGetItemsCommand({ TransactItems: ['c', 'a'].map((id) => ({ Get: { TableName: table, Key: key(id) } })) }));

    await expectCancelled(read(), [NONE, CONFLICT_REASON]);

    transfer.release();
    await transfer.answer;
    const answer = (await read()) as { Responses: { Item?: Record<string, AttributeValue> }[] };
    assert.deepEqual(answer.Responses.map((response) => response.Item?.['balance']?.N), ['100', '90']);
  });

  test('BatchWriteItem writes the free items and returns the held one in UnprocessedItems', async () => {
    const table = await createTable(client, 'held-batch');
    for (const id of ['a', 'b']) await putBalance(client, table, id, 100);
    const transfer = await transferInFlight(table);

    const heldPut = { PutRequest: { Item: { ...key('a'), balance: { N: '0' } } } };
    const answer = await client.send(
      new BatchWriteItemCommand({ RequestItems: { [table]: [{ PutRequest: { Item: { ...key('e'), balance: { N: '3' } } } }, heldPut, { DeleteRequest: { Key: key('missing') } }] } }),
    );
    assert.deepEqual(answer.UnprocessedItems, { [table]: [heldPut] });
    assert.equal(await balanceOf(client, table, 'e'), '3');

    transfer.release();
    await transfer.answer;
    assert.equal(await balanceOf(client, table, 'a'), '90');
    const retried = await client.send(new BatchWriteItemCommand({ RequestItems: answer.UnprocessedItems! }));
    assert.deepEqual(retried.UnprocessedItems, {});
    assert.equal(await balanceOf(client, table, 'a'), '0');
  });

  test('PartiQL meets the held items as the operations it runs as: ExecuteStatement, BatchExecuteStatement, ExecuteTransaction', async () => {
    const table = await createTable(client, 'held-partiql');
    for (const id of ['a', 'b', 'c']) await putBalance(client, table, id, 100);
    const transfer = await transferInFlight(table);
    const update = (id: string): string => `UPDATE "${table}" SET balance = 0 WHERE pk = '${id}'`;

    await expectDynamoError(client.send(new ExecuteStatementCommand({ Statement: update('a') })), 'TransactionConflictException', CONFLICT_MESSAGE);
    const batch = await client.send(new BatchExecuteStatementCommand({ Statements: [{ Statement: update('c') }, { Statement: update('b') }] }));
    assert.deepEqual(
      batch.Responses?.map((response) => response.Error),
      [undefined, { Code: 'TransactionConflict', Message: CONFLICT_MESSAGE }],
    );
    await expectCancelled(client.send(new ExecuteTransactionCommand({ TransactStatements: [{ Statement: update('b') }, { Statement: update('c') }] })), [CONFLICT_REASON, NONE]);

    transfer.release();
    await transfer.answer;
    assert.deepEqual(await Promise.all(['a', 'b', 'c'].map((id) => balanceOf(client, table, id))), ['90', '110', '0']);
  });

  test('TransactionConflict counts the refused item-level requests per table: Sum items, SampleCount requests', async () => {
    const table = await createTable(client, 'held-metric');
    for (const id of ['a', 'b', 'c']) await putBalance(client, table, id, 100);
    const transfer = await transferInFlight(table);

    await expectDynamoError(client.send(new PutItemCommand({ TableName: table, Item: { ...key('a'), balance: { N: '0' } } })), 'TransactionConflictException', CONFLICT_MESSAGE);
    await expectCancelled(client.send(new TransactWriteItemsCommand({ TransactItems: [add(table, 'a', 1), add(table, 'b', 1), add(table, 'c', 1)] })), [
      CONFLICT_REASON,
      CONFLICT_REASON,
      NONE,
    ]);
    await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: [{ DeleteRequest: { Key: key('b') } }] } }));
    transfer.release();
    await transfer.answer;
    // Allowed once settled: not counted.
    await putBalance(client, table, 'a', 5);

    // 1 + 2 + 1 refused items in 3 requests.
    assert.deepEqual(await conflictMetric(twin, table), [4, 3]);
  });
});

describe('a store other processes write: getLocked', () => {
  const storage = new LockingStorage();
  let twin: StorageTwin;
  let client: DynamoDBClient;

  before(async () => {
    twin = await startStorageTwin(storage);
    client = twin.client;
  });
  after(async () => {
    assert.deepEqual(twin.internalErrors, []);
    await twin.close();
  });

  test("a transaction reads with 'fail' and an item another process's write holds cancels it at that item (KeyConflictError)", async () => {
    const table = await createTable(client, 'locked-transact');
    await putBalance(client, table, 'a', 100);
    await putBalance(client, table, 'b', 100, { lockedElsewhere: { BOOL: true } });
    storage.lockRequests.length = 0;

    await expectCancelled(client.send(new TransactWriteItemsCommand({ TransactItems: [add(table, 'a', -10), add(table, 'b', 10), add(table, 'c', 1)] })), [
      NONE,
      CONFLICT_REASON,
      NONE,
    ]);
    assert.deepEqual(storage.lockRequests, [{ mode: 'fail', keyCount: 3, metHeldKey: true }]);
    assert.equal(await balanceOf(client, table, 'a'), '100');
    assert.equal(await balanceOf(client, table, 'c'), undefined);
    assert.deepEqual(await conflictMetric(twin, table), [1, 1]);
  });

  test("a single write reads with 'wait': it queues behind the other process's write and applies", async () => {
    const table = await createTable(client, 'locked-single');
    await putBalance(client, table, 'b', 100, { lockedElsewhere: { BOOL: true } });
    storage.lockRequests.length = 0;

    await client.send(new UpdateItemCommand({ TableName: table, Key: key('b'), UpdateExpression: 'ADD balance :one', ExpressionAttributeValues: { ':one': { N: '1' } } }));
    assert.deepEqual(storage.lockRequests, [{ mode: 'wait', keyCount: 1, metHeldKey: true }]);
    assert.equal(await balanceOf(client, table, 'b'), '101');
    assert.equal(await conflictMetric(twin, table), undefined);
  });
});
