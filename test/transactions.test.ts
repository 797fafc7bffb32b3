/**
 * TransactWriteItems and TransactGetItems through the AWS SDK (and the DocumentClient's
 * TransactWrite / TransactGet): every action and parameter, cancellation reasons, where DynamoDB
 * reports each fault, idempotency tokens on the injected clock, capacity, and a concurrency test
 * of transfers racing conditional single-item writes and snapshot reads.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  GetItemCommand,
  PutItemCommand,
  TransactGetItemsCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type CancellationReason,
  type DynamoDBClient,
  type TransactGetItem,
  type TransactWriteItem,
  type TransactWriteItemsCommandInput,
} from '@aws-sdk/client-dynamodb';
import { TransactGetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { IdempotencyTokens, requestFingerprint } from '../src/engine/idempotency.js';
import { ManualClock } from '../src/index.js';
import { MemoryStorage } from '../src/storage/memory.js';
import { callOperation } from './support/raw.js';
import { seedArticleTable } from './support/seeds.js';
import { createTables, onDemandTable } from './support/tables.js';
import { expectDynamoError, sdkClient, startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

type Item = Record<string, AttributeValue>;

const KEY_MISMATCH = 'The provided key element does not match the schema';
const CONDITION_FAILED = 'The conditional request failed';
const ONE_ITEM = 'Transaction request cannot include multiple operations on one item';

const key = (id: string): Item => ({ id: { S: id } });

/** Awaits a TransactionCanceledException and checks its message and every reason, in order. */
async function expectCancelled(call: Promise<unknown>, reasons: CancellationReason[]): Promise<void> {
  let caught: unknown;
  try {
    await call;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof TransactionCanceledException, `expected TransactionCanceledException, got ${String(caught)}`);
  const codes = reasons.map((reason) => reason.Code).join(', ');
  assert.equal(caught.message, `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`);
  assert.deepEqual(caught.CancellationReasons, reasons);
}

const failed = (item?: Item): CancellationReason =>
  item === undefined ? { Code: 'ConditionalCheckFailed', Message: CONDITION_FAILED } : { Code: 'ConditionalCheckFailed', Message: CONDITION_FAILED, Item: item };
const invalid = (message: string): CancellationReason => ({ Code: 'ValidationError', Message: message });
const none: CancellationReason = { Code: 'None' };

describe('transactions', () => {
  let twin: TwinClients;
  const table = uniqueTableName('tx');
  const second = uniqueTableName('tx-second');
  const binary = uniqueTableName('tx-binary');
  const indexed = uniqueTableName('tx-indexed');

  before(async () => {
    twin = await startTwinWithClients();
    await createTables(twin.client, onDemandTable(table), onDemandTable(second), onDemandTable(binary, { id: 'B' }), seedArticleTable(indexed));
  });
  after(async () => {
    await twin.close();
  });

  const put = (item: Item, tableName = table) => twin.client.send(new PutItemCommand({ TableName: tableName, Item: item }));
  const get = async (id: string, tableName = table) =>
    (await twin.client.send(new GetItemCommand({ TableName: tableName, Key: key(id), ConsistentRead: true }))).Item;
  const transact = (items: TransactWriteItem[], extra: Omit<TransactWriteItemsCommandInput, 'TransactItems'> = {}) =>
    twin.client.send(new TransactWriteItemsCommand({ TransactItems: items, ...extra }));
  const transactGet = (items: TransactGetItem[], extra: { ReturnConsumedCapacity?: 'TOTAL' | 'INDEXES' } = {}) =>
    twin.client.send(new TransactGetItemsCommand({ TransactItems: items, ...extra }));

  describe('TransactWriteItems', () => {
    test('Put, Update, Delete and ConditionCheck across tables apply together', async () => {
      await put({ ...key('w-upd'), n: { N: '1' } });
      await put({ ...key('w-del') });
      await put({ ...key('w-check'), ok: { BOOL: true } }, second);
      const result = await transact([
        { Put: { TableName: table, Item: { ...key('w-put'), a: { S: 'new' } }, ConditionExpression: 'attribute_not_exists(id)' } },
        {
          Update: {
            TableName: table,
            Key: key('w-upd'),
            UpdateExpression: 'SET n = n + :one, #t = :t',
            ConditionExpression: 'n = :one',
            ExpressionAttributeNames: { '#t': 'tag' },
            ExpressionAttributeValues: { ':one': { N: '1' }, ':t': { S: 'x' } },
          },
        },
        { Delete: { TableName: table, Key: key('w-del'), ConditionExpression: 'attribute_exists(id)' } },
        { ConditionCheck: { TableName: second, Key: key('w-check'), ConditionExpression: 'ok = :yes', ExpressionAttributeValues: { ':yes': { BOOL: true } } } },
      ]);
      assert.equal(result.ConsumedCapacity, undefined);
      assert.deepEqual(await get('w-put'), { ...key('w-put'), a: { S: 'new' } });
      assert.deepEqual(await get('w-upd'), { ...key('w-upd'), n: { N: '2' }, tag: { S: 'x' } });
      assert.equal(await get('w-del'), undefined);
      assert.deepEqual(await get('w-check', second), { ...key('w-check'), ok: { BOOL: true } });
    });

    test('an Update of a missing item creates it from its key', async () => {
      await transact([{ Update: { TableName: table, Key: key('w-upsert'), UpdateExpression: 'ADD c :one REMOVE gone', ExpressionAttributeValues: { ':one': { N: '1' } } } }]);
      assert.deepEqual(await get('w-upsert'), { ...key('w-upsert'), c: { N: '1' } });
    });

    test('one failed condition cancels everything, with a reason per action in order', async () => {
      await put({ ...key('w-exists'), v: { N: '1' } });
      await expectCancelled(
        transact([
          { Put: { TableName: table, Item: key('w-not-written') } },
          { Put: { TableName: table, Item: { ...key('w-exists'), v: { N: '2' } }, ConditionExpression: 'attribute_not_exists(id)' } },
          { Update: { TableName: second, Key: key('w-not-updated'), UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': { S: 'a' } } } },
        ]),
        [none, failed(), none],
      );
      assert.equal(await get('w-not-written'), undefined);
      assert.deepEqual(await get('w-exists'), { ...key('w-exists'), v: { N: '1' } });
      assert.equal(await get('w-not-updated', second), undefined);
    });

    test('every failing action is reported; ALL_OLD returns the item that failed', async () => {
      await put({ ...key('w-old'), v: { N: '7' } });
      await expectCancelled(
        transact([
          { ConditionCheck: { TableName: table, Key: key('w-old'), ConditionExpression: 'v = :zero', ExpressionAttributeValues: { ':zero': { N: '0' } }, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
          { Delete: { TableName: table, Key: key('w-absent'), ConditionExpression: 'attribute_exists(id)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
          { Put: { TableName: second, Item: key('w-fine') } },
          { Update: { TableName: second, Key: key('w-nope'), UpdateExpression: 'SET a = :a', ConditionExpression: 'attribute_exists(id)', ExpressionAttributeValues: { ':a': { S: 'a' } }, ReturnValuesOnConditionCheckFailure: 'NONE' } },
        ]),
        [failed({ ...key('w-old'), v: { N: '7' } }), failed(), none, failed()],
      );
      assert.equal(await get('w-fine', second), undefined);
    });

    test('the error body spells Message and carries CancellationReasons, as DynamoDB does', async () => {
      await put(key('w-raw'));
      const body = JSON.stringify({
        TransactItems: [{ ConditionCheck: { TableName: table, Key: key('w-raw'), ConditionExpression: 'attribute_not_exists(id)' } }],
      });
      const response = await callOperation(twin.twin.endpoint, 'TransactWriteItems', body);
      assert.equal(response.status, 400);
      assert.deepEqual(JSON.parse(response.text), {
        __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
        Message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed]',
        CancellationReasons: [{ Code: 'ConditionalCheckFailed', Message: CONDITION_FAILED }],
      });
    });

    test('faults that depend on the stored item are ValidationError reasons', async () => {
      await put({ ...key('w-text'), n: { S: 'not a number' } });
      await expectCancelled(
        transact([
          { Put: { TableName: second, Item: key('w-ok') } },
          { Update: { TableName: table, Key: key('w-text'), UpdateExpression: 'SET n = n + :one', ExpressionAttributeValues: { ':one': { N: '1' } } } },
        ]),
        [none, invalid('An operand in the update expression has an incorrect data type')],
      );
      await put({ ...key('w-grow'), blob: { S: 'x'.repeat(300 * 1024) } });
      await expectCancelled(
        transact([{ Update: { TableName: table, Key: key('w-grow'), UpdateExpression: 'SET more = :more', ExpressionAttributeValues: { ':more': { S: 'y'.repeat(150 * 1024) } } } }]),
        [invalid('Item size to update has exceeded the maximum allowed size')],
      );
      await expectCancelled(
        transact([{ Update: { TableName: indexed, Key: key('w-idx'), UpdateExpression: 'SET #s = :n', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':n': { N: '1' } } } }]),
        [invalid('One or more parameter values were invalid: Type mismatch for Index Key status Expected: S Actual: N IndexName: gsi-status')],
      );
      assert.equal(await get('w-ok', second), undefined);
    });

    test('keys that do not fit the schema are ValidationError reasons', async () => {
      await expectCancelled(transact([{ Put: { TableName: table, Item: { id: { N: '5' } } } }]), [
        invalid('One or more parameter values were invalid: Type mismatch for key id expected: S actual: N'),
      ]);
      await expectCancelled(transact([{ Put: { TableName: table, Item: { other: { S: 'x' } } } }]), [
        invalid('One or more parameter values were invalid: Missing the key id in the item'),
      ]);
      await expectCancelled(
        transact([
          { Update: { TableName: table, Key: { id: { N: '5' } }, UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': { S: 'x' } } } },
          { Delete: { TableName: table, Key: { id: { L: [{ S: 'x' }] } } } },
          { ConditionCheck: { TableName: table, Key: { id: { N: '5' } }, ConditionExpression: 'attribute_not_exists(id)' } },
          { Put: { TableName: second, Item: key('w-keyed') } },
        ]),
        // Only the first key that does not fit is reported; DynamoDB stops there (Alternator's
        // test_transact.py, recorded from DynamoDB).
        [invalid(KEY_MISMATCH), none, none, none],
      );
      // A later action's failing condition is not evaluated either.
      await expectCancelled(
        transact([
          { Put: { TableName: table, Item: { id: { N: '7' } } } },
          { Put: { TableName: table, Item: { id: { N: '8' } } } },
          { Put: { TableName: second, Item: key('w-after-invalid'), ConditionExpression: 'attribute_exists(id)' } },
        ]),
        [invalid('One or more parameter values were invalid: Type mismatch for key id expected: S actual: N'), none, none],
      );
      assert.equal(await get('w-keyed', second), undefined);
    });

    test('empty key values are top-level ValidationExceptions', async () => {
      const emptyString = 'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: id';
      const emptyBinary = 'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: id';
      await expectDynamoError(transact([{ Put: { TableName: table, Item: { id: { S: '' } } } }]), 'ValidationException', emptyString);
      await expectDynamoError(
        transact([{ Update: { TableName: table, Key: { id: { S: '' } }, UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': { S: 'x' } } } }]),
        'ValidationException',
        emptyString,
      );
      await expectDynamoError(transact([{ Delete: { TableName: binary, Key: { id: { B: new Uint8Array([]) } } } }]), 'ValidationException', emptyBinary);
      await expectDynamoError(
        transact([{ ConditionCheck: { TableName: binary, Key: { id: { B: new Uint8Array([]) } }, ConditionExpression: 'attribute_exists(id)' } }]),
        'ValidationException',
        emptyBinary,
      );
    });

    test('no two actions may act on one item', async () => {
      await expectDynamoError(
        transact([
          { Put: { TableName: table, Item: key('w-twice') } },
          { ConditionCheck: { TableName: table, Key: key('w-twice'), ConditionExpression: 'attribute_not_exists(id)' } },
        ]),
        'ValidationException',
        ONE_ITEM,
      );
      await transact([{ Put: { TableName: table, Item: key('w-twice') } }, { Put: { TableName: second, Item: key('w-twice') } }]);
      assert.deepEqual(await get('w-twice', second), key('w-twice'));
    });

    test('a missing table is ResourceNotFoundException and nothing is written', async () => {
      await expectDynamoError(
        transact([{ Put: { TableName: table, Item: key('w-rnf') } }, { Put: { TableName: 'no-such-table', Item: key('w-rnf') } }]),
        'ResourceNotFoundException',
        'Requested resource not found',
      );
      assert.equal(await get('w-rnf'), undefined);
    });

    test('1 to 100 actions', async () => {
      const puts = (count: number) => Array.from({ length: count }, (_, index) => ({ Put: { TableName: table, Item: key(`w-hundred-${index}`) } }));
      await transact(puts(100));
      assert.deepEqual(await get('w-hundred-99'), key('w-hundred-99'));
      await expectDynamoError(
        transact(puts(101)),
        'ValidationException',
        /^1 validation error detected: Value '\[.+\]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100$/s,
      );
      await expectDynamoError(
        transact([]),
        'ValidationException',
        "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1",
      );
    });

    test('each action holds exactly one of Put, Update, Delete, ConditionCheck', async () => {
      await expectDynamoError(transact([{}]), 'ValidationException', 'Invalid Request: TransactWriteRequest should contain Delete or Put or Update request');
      await expectDynamoError(
        transact([{ Put: { TableName: table, Item: key('w-two') }, Delete: { TableName: table, Key: key('w-two') } }]),
        'ValidationException',
        'TransactItems can only contain one of Check, Put, Update or Delete',
      );
    });

    test('member constraints name the action and its type', async () => {
      await expectDynamoError(
        transact([{ Put: { TableName: table, Item: key('w-name') } }, { Update: { TableName: 'bad!name', Key: key('a'), UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': { S: 'x' } } } }]),
        'ValidationException',
        "1 validation error detected: Value 'bad!name' at 'transactItems.2.member.update.tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
      );
      await expectDynamoError(
        transact([{ Put: { TableName: table, Item: key('w-rv') } }], { ReturnConsumedCapacity: 'BOGUS' as 'TOTAL', ReturnItemCollectionMetrics: 'BOGUS2' as 'SIZE' }),
        'ValidationException',
        "2 validation errors detected: Value 'BOGUS' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
          "Value 'BOGUS2' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]",
      );
      const token = 'x'.repeat(37);
      await expectDynamoError(
        transact([{ Put: { TableName: table, Item: key('w-token') } }], { ClientRequestToken: token }),
        'ValidationException',
        `1 validation error detected: Value '${token}' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36`,
      );
      await expectDynamoError(
        transact([{ Put: { TableName: table, Item: key('w-rvoccf'), ReturnValuesOnConditionCheckFailure: 'SOME' as 'ALL_OLD' } }]),
        'ValidationException',
        "1 validation error detected: Value 'SOME' at 'transactItems.1.member.put.returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]",
      );
      assert.equal(await get('w-name'), undefined);
    });

    test("each action's expressions are checked in request order before any table is looked up", async () => {
      await expectDynamoError(
        transact([
          { Put: { TableName: 'no-such-table', Item: key('a') } },
          { ConditionCheck: { TableName: table, Key: key('w-cc'), ConditionExpression: 'attribute_not_exists(' } },
        ]),
        'ValidationException',
        'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("',
      );
      await expectDynamoError(
        transact([
          { Put: { TableName: table, Item: key('w-unused') } },
          { ConditionCheck: { TableName: table, Key: key('w-cc'), ConditionExpression: 'attribute_not_exists(id)', ExpressionAttributeValues: { ':v': { S: 'x' } } } },
        ]),
        'ValidationException',
        'Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}',
      );
      await expectDynamoError(
        transact([{ Delete: { TableName: table, Key: key('w-empty'), ConditionExpression: '' } }]),
        'ValidationException',
        'Invalid ConditionExpression: The expression can not be empty;',
      );
      await expectDynamoError(
        transact([{ Put: { TableName: table, Item: key('w-names'), ExpressionAttributeNames: { '#a': 'a' } } }]),
        'ValidationException',
        'ExpressionAttributeNames can only be specified when using expressions',
      );
      assert.equal(await get('w-unused'), undefined);
    });

    test('a Put over 400 KB and more than 4 MB in all are refused up front', async () => {
      await expectDynamoError(
        transact([{ Put: { TableName: table, Item: { ...key('w-huge'), blob: { S: 'x'.repeat(400 * 1024) } } } }]),
        'ValidationException',
        'Item size has exceeded the maximum allowed size',
      );
      const blob = { S: 'x'.repeat(390 * 1024) };
      await expectDynamoError(
        transact(Array.from({ length: 11 }, (_, index) => ({ Put: { TableName: table, Item: { ...key(`w-4mb-${index}`), blob } } }))),
        'ValidationException',
        'Collection size of items exceeded, which can also be caused by the aggregate size of the items in the transaction exceeding the 4MB limit',
      );
      assert.equal(await get('w-4mb-0'), undefined);
    });

    test('ConsumedCapacity: 2 units per KB of each item, an array per table', async () => {
      await put({ ...key('w-cap-del'), a: { S: 'x' } });
      await put({ ...key('w-cap-check') }, second);
      const items: TransactWriteItem[] = [
        { Put: { TableName: table, Item: { ...key('w-cap-put'), blob: { S: 'x'.repeat(1500) } } } },
        { ConditionCheck: { TableName: second, Key: key('w-cap-check'), ConditionExpression: 'attribute_exists(id)' } },
        { Update: { TableName: table, Key: key('w-cap-upd'), UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': { S: 'x' } } } },
        { Delete: { TableName: table, Key: key('w-cap-del') } },
      ];
      const total = await transact(items, { ReturnConsumedCapacity: 'TOTAL' });
      assert.deepEqual(total.ConsumedCapacity, [
        { TableName: table, CapacityUnits: 4 + 2 + 2, WriteCapacityUnits: 8 },
        { TableName: second, CapacityUnits: 2, WriteCapacityUnits: 2 },
      ]);
      await put({ ...key('w-cap-del'), a: { S: 'x' } });
      const indexes = await transact(items, { ReturnConsumedCapacity: 'INDEXES' });
      assert.deepEqual(indexes.ConsumedCapacity, [
        { TableName: table, CapacityUnits: 8, WriteCapacityUnits: 8, Table: { CapacityUnits: 8, WriteCapacityUnits: 8 } },
        { TableName: second, CapacityUnits: 2, WriteCapacityUnits: 2, Table: { CapacityUnits: 2, WriteCapacityUnits: 2 } },
      ]);
    });

    test('ClientRequestToken: the same request is answered again without being applied again', async () => {
      const token = randomUUID();
      const items: TransactWriteItem[] = [
        { Update: { TableName: table, Key: key('w-idem'), UpdateExpression: 'ADD c :one', ExpressionAttributeValues: { ':one': { N: '1' } } } },
        { Put: { TableName: second, Item: { ...key('w-idem'), blob: { S: 'x'.repeat(1500) } } } },
      ];
      const first = await transact(items, { ClientRequestToken: token, ReturnConsumedCapacity: 'TOTAL' });
      assert.deepEqual(first.ConsumedCapacity, [
        { TableName: table, CapacityUnits: 2, WriteCapacityUnits: 2 },
        { TableName: second, CapacityUnits: 4, WriteCapacityUnits: 4 },
      ]);
      // The replay reads each item transactionally: 2 units per 4 KB.
      const replay = await transact(items, { ClientRequestToken: token, ReturnConsumedCapacity: 'TOTAL' });
      assert.deepEqual(replay.ConsumedCapacity, [
        { TableName: table, CapacityUnits: 2, ReadCapacityUnits: 2 },
        { TableName: second, CapacityUnits: 2, ReadCapacityUnits: 2 },
      ]);
      assert.deepEqual((await get('w-idem'))?.c, { N: '1' });
      // ReturnConsumedCapacity is not part of what the token binds.
      await transact(items, { ClientRequestToken: token });
      assert.deepEqual((await get('w-idem'))?.c, { N: '1' });
      // Without a token (the SDK then sends a fresh one) the request applies again.
      await transact(items);
      assert.deepEqual((await get('w-idem'))?.c, { N: '2' });
    });

    test('ClientRequestToken: the same token with another request is IdempotentParameterMismatchException', async () => {
      const token = randomUUID();
      const update = (amount: string): TransactWriteItem[] => [
        { Update: { TableName: table, Key: key('w-mismatch'), UpdateExpression: 'ADD c :n', ExpressionAttributeValues: { ':n': { N: amount } } } },
      ];
      await transact(update('1'), { ClientRequestToken: token });
      await expectDynamoError(
        transact(update('2'), { ClientRequestToken: token }),
        'IdempotentParameterMismatchException',
        'Specified idempotency token has been used with different request parameters',
      );
      // Numbers are compared canonically: 1.0 is the same request as 1.
      await transact(update('1.0'), { ClientRequestToken: token });
      assert.deepEqual((await get('w-mismatch'))?.c, { N: '1' });
    });

    test('ClientRequestToken: a cancelled transaction does not use up its token', async () => {
      const token = randomUUID();
      const items: TransactWriteItem[] = [
        { Put: { TableName: table, Item: { ...key('w-retry'), v: { N: '1' } }, ConditionExpression: 'attribute_exists(id)' } },
      ];
      await expectCancelled(transact(items, { ClientRequestToken: token }), [failed()]);
      await put(key('w-retry'));
      await transact(items, { ClientRequestToken: token });
      assert.deepEqual(await get('w-retry'), { ...key('w-retry'), v: { N: '1' } });
    });

    test('the DocumentClient TransactWriteCommand works unchanged', async () => {
      await twin.documentClient.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: table, Item: { id: 'w-doc', list: [1, 'two'], nested: { a: true } } } },
            { Update: { TableName: second, Key: { id: 'w-doc' }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 5 } } },
          ],
        }),
      );
      assert.deepEqual(await get('w-doc'), { id: { S: 'w-doc' }, list: { L: [{ N: '1' }, { S: 'two' }] }, nested: { M: { a: { BOOL: true } } } });
      assert.deepEqual(await get('w-doc', second), { id: { S: 'w-doc' }, n: { N: '5' } });
    });
  });

  describe('TransactGetItems', () => {
    before(async () => {
      await put({ ...key('g-1'), a: { S: 'one' }, b: { N: '1' }, m: { M: { x: { S: 'deep' }, y: { S: 'no' } } } });
      await put({ ...key('g-5k'), blob: { S: 'x'.repeat(5000) } });
      await put({ ...key('g-1'), c: { S: 'second' } }, second);
    });

    test('Responses in request order: {Item} when found, {} when missing; projections apply', async () => {
      const result = await transactGet([
        { Get: { TableName: second, Key: key('g-1') } },
        { Get: { TableName: table, Key: key('g-missing') } },
        { Get: { TableName: table, Key: key('g-1'), ProjectionExpression: '#a, m.x', ExpressionAttributeNames: { '#a': 'a' } } },
      ]);
      assert.deepEqual(result.Responses, [{ Item: { ...key('g-1'), c: { S: 'second' } } }, {}, { Item: { a: { S: 'one' }, m: { M: { x: { S: 'deep' } } } } }]);
      assert.equal(result.ConsumedCapacity, undefined);
    });

    test('ConsumedCapacity: 2 units per 4 KB of each item, missing ones included, per table', async () => {
      const result = await transactGet(
        [{ Get: { TableName: table, Key: key('g-5k') } }, { Get: { TableName: second, Key: key('g-1') } }, { Get: { TableName: table, Key: key('g-missing') } }],
        { ReturnConsumedCapacity: 'INDEXES' },
      );
      assert.deepEqual(result.ConsumedCapacity, [
        { TableName: table, CapacityUnits: 4 + 2, ReadCapacityUnits: 6, Table: { CapacityUnits: 6, ReadCapacityUnits: 6 } },
        { TableName: second, CapacityUnits: 2, ReadCapacityUnits: 2, Table: { CapacityUnits: 2, ReadCapacityUnits: 2 } },
      ]);
    });

    test('faults: missing table, empty key values, schema mismatch, one item twice, limits, expressions', async () => {
      await expectDynamoError(transactGet([{ Get: { TableName: 'no-such-table', Key: key('x') } }]), 'ResourceNotFoundException', 'Requested resource not found');
      await expectDynamoError(
        transactGet([{ Get: { TableName: binary, Key: { id: { B: new Uint8Array([]) } } } }]),
        'ValidationException',
        'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: id',
      );
      await expectCancelled(transactGet([{ Get: { TableName: table, Key: key('g-1') } }, { Get: { TableName: table, Key: {} } }]), [none, invalid(KEY_MISMATCH)]);
      await expectDynamoError(
        transactGet([{ Get: { TableName: table, Key: key('g-1') } }, { Get: { TableName: table, Key: key('g-1') } }]),
        'ValidationException',
        ONE_ITEM,
      );
      await expectDynamoError(
        transactGet(Array.from({ length: 101 }, (_, index) => ({ Get: { TableName: table, Key: key(`g-${index}`) } }))),
        'ValidationException',
        /^1 validation error detected: Value '\[.+\]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100$/s,
      );
      await expectDynamoError(
        transactGet([{ Get: { TableName: table, Key: key('g-1'), ProjectionExpression: '!!!' } }]),
        'ValidationException',
        'Invalid ProjectionExpression: Syntax error; token: "!", near: "!!"',
      );
      await expectDynamoError(
        transactGet([{} as TransactGetItem]),
        'ValidationException',
        "1 validation error detected: Value null at 'transactItems.1.member.get' failed to satisfy constraint: Member must not be null",
      );
    });

    test('the DocumentClient TransactGetCommand works unchanged', async () => {
      const result = await twin.documentClient.send(
        new TransactGetCommand({ TransactItems: [{ Get: { TableName: table, Key: { id: 'g-1' }, ProjectionExpression: 'a, b' } }] }),
      );
      assert.deepEqual(result.Responses, [{ Item: { a: 'one', b: 1 } }]);
    });
  });

  describe('concurrency', () => {
    const accounts = uniqueTableName('tx-accounts');
    const ACCOUNTS = 10;
    const OPENING_BALANCE = 1000;
    const CLIENTS = 50;
    const TRANSFERS_PER_CLIENT = 20;
    const accountId = (index: number) => `acct-${index}`;

    interface Transfer {
      readonly id: string;
      readonly from: string;
      readonly to: string;
      readonly amount: number;
    }

    before(async () => {
      await createTables(twin.client, onDemandTable(accounts));
      for (let index = 0; index < ACCOUNTS; index++) {
        await put({ ...key(accountId(index)), balance: { N: String(OPENING_BALANCE) }, version: { N: '0' } }, accounts);
      }
    });

    const randomInt = (below: number) => Math.floor(Math.random() * below);

    function randomTransfer(): Transfer {
      const from = randomInt(ACCOUNTS);
      const to = (from + 1 + randomInt(ACCOUNTS - 1)) % ACCOUNTS;
      return { id: randomUUID().slice(0, 13), from: accountId(from), to: accountId(to), amount: 1 + randomInt(400) };
    }

    /** Debits `from` only if it can pay; both legs bump the version and record the transfer id. */
    function transferItems(transfer: Transfer): TransactWriteItem[] {
      const values = { ':amount': { N: String(transfer.amount) }, ':one': { N: '1' }, ':id': { SS: [transfer.id] } };
      return [
        {
          Update: {
            TableName: accounts,
            Key: key(transfer.from),
            UpdateExpression: 'SET balance = balance - :amount, version = version + :one ADD transfers :id',
            ConditionExpression: 'balance >= :amount',
            ExpressionAttributeValues: values,
          },
        },
        {
          Update: {
            TableName: accounts,
            Key: key(transfer.to),
            UpdateExpression: 'SET balance = balance + :amount, version = version + :one ADD transfers :id',
            ExpressionAttributeValues: values,
          },
        },
      ];
    }

    async function runTransfers(client: DynamoDBClient, committed: Transfer[], refused: Transfer[]): Promise<void> {
      for (let count = 0; count < TRANSFERS_PER_CLIENT; count++) {
        const transfer = randomTransfer();
        try {
          await client.send(new TransactWriteItemsCommand({ TransactItems: transferItems(transfer) }));
          committed.push(transfer);
        } catch (error) {
          assert.ok(error instanceof TransactionCanceledException, `only insufficient funds may cancel: ${String(error)}`);
          assert.deepEqual(error.CancellationReasons, [failed(), none]);
          refused.push(transfer);
        }
      }
    }

    /**
     * Optimistic read-modify-write that writes the balance it read back: harmless when single
     * writes and transactions are serialisable, and a lost transfer (a changed total) if a
     * transaction could slip in between the condition check and the write.
     */
    async function runSingleWrites(client: DynamoDBClient, outcomes: { applied: number; refused: number }): Promise<void> {
      for (let count = 0; count < TRANSFERS_PER_CLIENT; count++) {
        const id = accountId(randomInt(ACCOUNTS));
        const current = (await client.send(new GetItemCommand({ TableName: accounts, Key: key(id), ConsistentRead: true }))).Item!;
        const version = current.version!.N!;
        try {
          await client.send(
            new UpdateItemCommand({
              TableName: accounts,
              Key: key(id),
              UpdateExpression: 'SET balance = :balance, version = :next',
              ConditionExpression: 'version = :version',
              ExpressionAttributeValues: { ':balance': current.balance!, ':next': { N: String(Number(version) + 1) }, ':version': { N: version } },
            }),
          );
          outcomes.applied++;
        } catch (error) {
          assert.ok(error instanceof Error && error.name === 'ConditionalCheckFailedException', String(error));
          outcomes.refused++;
        }
      }
    }

    /** Every TransactGetItems sees the opening total and no transfer on one side only. */
    async function runSnapshots(client: DynamoDBClient, transfersById: Map<string, Transfer>, count: { snapshots: number }): Promise<void> {
      for (let round = 0; round < TRANSFERS_PER_CLIENT; round++) {
        const result = await client.send(
          new TransactGetItemsCommand({
            TransactItems: Array.from({ length: ACCOUNTS }, (_, index) => ({ Get: { TableName: accounts, Key: key(accountId(index)) } })),
          }),
        );
        const items = result.Responses!.map((response) => response.Item!);
        assertConsistent(items, transfersById);
        count.snapshots++;
      }
    }

    function assertConsistent(items: readonly Item[], transfersById: ReadonlyMap<string, Transfer>): void {
      const total = items.reduce((sum, item) => sum + Number(item.balance!.N), 0);
      assert.equal(total, ACCOUNTS * OPENING_BALANCE, 'the total balance never changes');
      const marks = new Map(items.map((item) => [item.id!.S!, new Set(item.transfers?.SS ?? [])]));
      for (const [id, transfer] of transfersById) {
        const onFrom = marks.get(transfer.from)!.has(id);
        const onTo = marks.get(transfer.to)!.has(id);
        assert.equal(onFrom, onTo, `transfer ${id} is applied on both accounts or on neither`);
      }
    }

    test('50 clients transferring among 10 accounts, racing conditional single writes and snapshot reads', async () => {
      const clients = Array.from({ length: CLIENTS + 10 }, () => sdkClient(twin.twin.endpoint));
      const committed: Transfer[] = [];
      const refused: Transfer[] = [];
      const singles = { applied: 0, refused: 0 };
      const snapshots = { snapshots: 0 };
      // Transfers register their ids as they are generated only through `committed`/`refused`, so
      // snapshot readers check every id known so far: ids not yet known cannot be asserted on.
      const known = new Map<string, Transfer>();
      const track = (list: Transfer[]) => {
        const push = list.push.bind(list);
        list.push = (...transfers: Transfer[]) => {
          for (const transfer of transfers) known.set(transfer.id, transfer);
          return push(...transfers);
        };
      };
      track(committed);
      track(refused);
      try {
        await Promise.all([
          ...clients.slice(0, CLIENTS).map((client) => runTransfers(client, committed, refused)),
          ...clients.slice(CLIENTS, CLIENTS + 5).map((client) => runSingleWrites(client, singles)),
          ...clients.slice(CLIENTS + 5).map((client) => runSnapshots(client, known, snapshots)),
        ]);
      } finally {
        for (const client of clients) client.destroy();
      }
      assert.equal(committed.length + refused.length, CLIENTS * TRANSFERS_PER_CLIENT);
      assert.ok(committed.length > 0 && singles.applied > 0 && snapshots.snapshots === 5 * TRANSFERS_PER_CLIENT);

      const final = await Promise.all(Array.from({ length: ACCOUNTS }, (_, index) => get(accountId(index), accounts)));
      const items = final.map((item) => item!);
      assertConsistent(items, known);
      // The ledger explains every balance: opening balance, minus what left, plus what arrived.
      const expected = new Map(items.map((item) => [item.id!.S!, OPENING_BALANCE]));
      for (const transfer of committed) {
        expected.set(transfer.from, expected.get(transfer.from)! - transfer.amount);
        expected.set(transfer.to, expected.get(transfer.to)! + transfer.amount);
      }
      for (const item of items) {
        assert.equal(Number(item.balance!.N), expected.get(item.id!.S!), `balance of ${item.id!.S}`);
        assert.ok(Number(item.balance!.N) >= 0, 'no account is overdrawn');
        for (const id of item.transfers?.SS ?? []) assert.ok(committed.some((transfer) => transfer.id === id), 'only committed transfers leave marks');
      }
    });
  });
});

describe('transactions on a manual clock', () => {
  let twin: TwinClients;
  const table = uniqueTableName('tx-clock');

  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual' });
    await createTables(twin.client, onDemandTable(table));
  });
  after(async () => {
    await twin.close();
  });

  test('a ClientRequestToken is bound for 10 minutes, then treated as new', async () => {
    const clock = twin.twin.clock;
    assert.ok(clock instanceof ManualClock);
    const token = randomUUID();
    const add = (amount: string): TransactWriteItem[] => [
      { Update: { TableName: table, Key: key('counter'), UpdateExpression: 'ADD c :n', ExpressionAttributeValues: { ':n': { N: amount } } } },
    ];
    const send = (items: TransactWriteItem[]) => twin.client.send(new TransactWriteItemsCommand({ TransactItems: items, ClientRequestToken: token }));
    const counter = async () =>
      (await twin.client.send(new GetItemCommand({ TableName: table, Key: key('counter'), ConsistentRead: true }))).Item?.c?.N;
    await send(add('1'));
    clock.advance(10 * 60 * 1000 - 1);
    await send(add('1'));
    await expectDynamoError(send(add('5')), 'IdempotentParameterMismatchException');
    assert.equal(await counter(), '1');
    clock.advance(1);
    await send(add('5'));
    assert.equal(await counter(), '6');
  });
});

describe('IdempotencyTokens', () => {
  test('expires entries after the window and keeps at most maxEntries, in memory and in the store alike', async () => {
    const store = new MemoryStorage();
    const tokens = new IdempotencyTokens({ windowMs: 100, maxEntries: 3 });
    const record = (token: string, fingerprint: string, nowMs: number): Promise<void> => store.write((txn) => tokens.record(txn, token, fingerprint, nowMs));
    const stored = (nowMs: number): IdempotencyTokens => IdempotencyTokens.load(store, nowMs, { windowMs: 100, maxEntries: 3 });
    await record('a', 'fa', 0);
    assert.equal(tokens.check('a', 'fa', 99), 'replay');
    assert.equal(stored(99).check('a', 'fa', 99), 'replay', 'a token recorded is read back from the store');
    assert.equal(tokens.check('a', 'fa', 100), 'new');
    assert.equal(stored(100).size, 0, 'an expired token is not loaded');
    assert.throws(() => tokens.check('a', 'other', 50), { message: 'Specified idempotency token has been used with different request parameters' });
    assert.throws(() => stored(50).check('a', 'other', 50), { message: 'Specified idempotency token has been used with different request parameters' });
    await record('b', 'fb', 10);
    await record('c', 'fc', 20);
    await record('d', 'fd', 30);
    assert.equal(tokens.size, 3);
    assert.equal(tokens.check('a', 'fa', 30), 'new', 'the oldest token is forgotten first');
    assert.equal(stored(30).check('a', 'fa', 30), 'new', 'and removed from the store');
    assert.equal(tokens.check('d', 'fd', 30), 'replay');
    await record('e', 'fe', 125);
    assert.equal(tokens.size, 2, 'expired tokens are dropped as new ones arrive');
    assert.equal([...store.range({})].length, 2, 'the store keeps the same two');
  });

  test('fingerprints ignore object key order but not values', () => {
    assert.equal(requestFingerprint({ a: 1, b: [{ x: 'y', z: null }] }), requestFingerprint({ b: [{ z: null, x: 'y' }], a: 1 }));
    assert.notEqual(requestFingerprint({ a: 1 }), requestFingerprint({ a: 2 }));
  });
});
