/**
 * BatchGetItem and BatchWriteItem through the AWS SDK (and the DocumentClient's BatchGet /
 * BatchWrite): every parameter, the limits, UnprocessedKeys past 16 MB, consumed capacity per
 * table, and DynamoDB's error texts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  GetItemCommand,
  PutItemCommand,
  type AttributeValue,
  type BatchGetItemCommandInput,
  type KeysAndAttributes,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { seedArticleTable } from './support/seeds.js';
import { createTables, onDemandTable } from './support/tables.js';
import { expectDynamoError, startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

type Item = Record<string, AttributeValue>;

const INVALID = 'One or more parameter values were invalid: ';
const KEY_MISMATCH = 'The provided key element does not match the schema';
const DUPLICATES = 'Provided list of item keys contains duplicates';

describe('BatchGetItem and BatchWriteItem', () => {
  let twin: TwinClients;
  const hash = uniqueTableName('batch-hash');
  const other = uniqueTableName('batch-other');
  const binary = uniqueTableName('batch-binary');
  const indexed = uniqueTableName('batch-indexed');

  before(async () => {
    // Bulk loads at full speed on the real clock would be throttled, as on DynamoDB; this suite
    // tests behaviour other than capacity, which test/capacity-*.test.ts and throttling.test.ts cover.
    twin = await startTwinWithClients();
    await createTables(twin.client, onDemandTable(hash), onDemandTable(other), onDemandTable(binary, { id: 'B' }), seedArticleTable(indexed));
  });
  after(async () => {
    await twin.close();
  });

  const key = (id: string): Item => ({ id: { S: id } });
  const put = (table: string, item: Item) => twin.client.send(new PutItemCommand({ TableName: table, Item: item }));
  const get = async (table: string, id: string) =>
    (await twin.client.send(new GetItemCommand({ TableName: table, Key: key(id), ConsistentRead: true }))).Item;
  const batchWrite = (requestItems: Record<string, WriteRequest[]>, extra: { ReturnConsumedCapacity?: 'TOTAL' | 'INDEXES' | 'NONE' } = {}) =>
    twin.client.send(new BatchWriteItemCommand({ RequestItems: requestItems, ...extra }));
  const batchGet = (requestItems: Record<string, KeysAndAttributes>, extra: Omit<BatchGetItemCommandInput, 'RequestItems'> = {}) =>
    twin.client.send(new BatchGetItemCommand({ RequestItems: requestItems, ...extra }));
  const putRequest = (item: Item): WriteRequest => ({ PutRequest: { Item: item } });
  const deleteRequest = (id: string): WriteRequest => ({ DeleteRequest: { Key: key(id) } });

  describe('BatchWriteItem', () => {
    test('puts and deletes across tables in one call; UnprocessedItems is empty', async () => {
      await put(hash, { ...key('w-gone'), a: { S: 'old' } });
      const result = await batchWrite({
        [hash]: [putRequest({ ...key('w-1'), a: { N: '1' } }), putRequest({ ...key('w-2'), a: { N: '2' } }), deleteRequest('w-gone')],
        [other]: [putRequest({ ...key('w-1'), b: { S: 'other table, same key' } })],
      });
      assert.deepEqual(result.UnprocessedItems, {});
      assert.equal(result.ConsumedCapacity, undefined);
      assert.deepEqual(await get(hash, 'w-1'), { ...key('w-1'), a: { N: '1' } });
      assert.deepEqual(await get(hash, 'w-2'), { ...key('w-2'), a: { N: '2' } });
      assert.equal(await get(hash, 'w-gone'), undefined);
      assert.deepEqual(await get(other, 'w-1'), { ...key('w-1'), b: { S: 'other table, same key' } });
    });

    test('a put replaces the whole item; deleting a missing item is no error', async () => {
      await put(hash, { ...key('w-replace'), a: { S: 'x' }, b: { S: 'y' } });
      await batchWrite({ [hash]: [putRequest({ ...key('w-replace'), c: { S: 'z' } }), deleteRequest('w-never-there')] });
      assert.deepEqual(await get(hash, 'w-replace'), { ...key('w-replace'), c: { S: 'z' } });
    });

    test('ConsumedCapacity is an array with one entry per table, in request order', async () => {
      await put(hash, { ...key('w-cap-old'), a: { S: 'x' } });
      const large = { ...key('w-cap-large'), blob: { S: 'x'.repeat(1500) } };
      const requestItems = {
        [other]: [putRequest(large)],
        [hash]: [putRequest({ ...key('w-cap-1') }), putRequest({ ...key('w-cap-2') }), deleteRequest('w-cap-old')],
      };
      const total = await batchWrite(requestItems, { ReturnConsumedCapacity: 'TOTAL' });
      assert.deepEqual(total.ConsumedCapacity, [
        { TableName: other, CapacityUnits: 2 },
        { TableName: hash, CapacityUnits: 3 },
      ]);
      const indexes = await batchWrite(requestItems, { ReturnConsumedCapacity: 'INDEXES' });
      assert.deepEqual(indexes.ConsumedCapacity, [
        { TableName: other, CapacityUnits: 2, Table: { CapacityUnits: 2 } },
        { TableName: hash, CapacityUnits: 3, Table: { CapacityUnits: 3 } },
      ]);
      const none = await batchWrite(requestItems, { ReturnConsumedCapacity: 'NONE' });
      assert.equal(none.ConsumedCapacity, undefined);
    });

    test('ReturnItemCollectionMetrics is accepted', async () => {
      const result = await twin.client.send(
        new BatchWriteItemCommand({ RequestItems: { [hash]: [putRequest(key('w-icm'))] }, ReturnItemCollectionMetrics: 'SIZE' }),
      );
      assert.deepEqual(result.UnprocessedItems, {});
    });

    test('25 requests are accepted; 26 in one table fail the map-value constraint', async () => {
      const requests = (count: number, stem: string) => Array.from({ length: count }, (_, index) => putRequest(key(`${stem}-${index}`)));
      await batchWrite({ [hash]: requests(25, 'w-25') });
      assert.deepEqual(await get(hash, 'w-25-24'), key('w-25-24'));
      await expectDynamoError(
        batchWrite({ [hash]: requests(26, 'w-26') }),
        'ValidationException',
        new RegExp(
          `^1 validation error detected: Value '\\{${hash}=\\[.+\\]\\}' at 'requestItems' failed to satisfy constraint: ` +
            'Map value must satisfy constraint: \\[Member must have length less than or equal to 25, Member must have length greater than or equal to 1\\]$',
          's',
        ),
      );
      assert.equal(await get(hash, 'w-26-0'), undefined);
    });

    test('more than 25 requests over all tables are too many', async () => {
      const requests = Array.from({ length: 13 }, (_, index) => putRequest(key(`w-many-${index}`)));
      await expectDynamoError(
        batchWrite({ [hash]: requests, [other]: requests }),
        'ValidationException',
        'Too many items requested for the BatchWriteItem call',
      );
    });

    test('an empty RequestItems or an empty request list is refused', async () => {
      await expectDynamoError(batchWrite({}), 'ValidationException', 'The requestItems parameter is required for BatchWriteItem');
      await expectDynamoError(
        batchWrite({ [hash]: [] }),
        'ValidationException',
        `1 validation error detected: Value '{${hash}=[]}' at 'requestItems' failed to satisfy constraint: ` +
          'Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]',
      );
    });

    test('a malformed table name fails the map-keys constraint', async () => {
      await expectDynamoError(
        batchWrite({ 'bad!name': [putRequest(key('a'))] }),
        'ValidationException',
        /^1 validation error detected: Value '\{bad!name=\[.+\]\}' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: \[Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: \[a-zA-Z0-9_.-\]\+\]$/,
      );
    });

    test('an unknown ReturnConsumedCapacity is a constraint error and nothing is written', async () => {
      await expectDynamoError(
        twin.client.send(
          new BatchWriteItemCommand({
            RequestItems: { [hash]: [putRequest(key('w-bogus'))] },
            ReturnConsumedCapacity: 'BOGUS' as 'TOTAL',
          }),
        ),
        'ValidationException',
        "1 validation error detected: Value 'BOGUS' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]",
      );
      assert.equal(await get(hash, 'w-bogus'), undefined);
    });

    test('the same item twice in one batch is refused, whatever the requests', async () => {
      await expectDynamoError(batchWrite({ [hash]: [putRequest(key('w-dup')), deleteRequest('w-dup')] }), 'ValidationException', DUPLICATES);
      await expectDynamoError(
        batchWrite({ [hash]: [putRequest({ ...key('w-dup'), a: { S: '1' } }), putRequest({ ...key('w-dup'), a: { S: '2' } })] }),
        'ValidationException',
        DUPLICATES,
      );
      assert.equal(await get(hash, 'w-dup'), undefined);
    });

    test('a missing table is ResourceNotFoundException and nothing of the batch is written', async () => {
      await expectDynamoError(
        batchWrite({ [hash]: [putRequest(key('w-rnf'))], 'no-such-table': [putRequest(key('w-rnf'))] }),
        'ResourceNotFoundException',
        'Requested resource not found',
      );
      assert.equal(await get(hash, 'w-rnf'), undefined);
    });

    test('put items and delete keys must match the key schema', async () => {
      await expectDynamoError(batchWrite({ [hash]: [putRequest({ id: { N: '5' } })] }), 'ValidationException', KEY_MISMATCH);
      await expectDynamoError(batchWrite({ [hash]: [putRequest({ id: { L: [{ S: 'x' }] } })] }), 'ValidationException', KEY_MISMATCH);
      await expectDynamoError(batchWrite({ [hash]: [putRequest({ other: { S: 'x' } })] }), 'ValidationException', KEY_MISMATCH);
      await expectDynamoError(
        batchWrite({ [hash]: [{ DeleteRequest: { Key: { other: { S: 'x' } } } }] }),
        'ValidationException',
        KEY_MISMATCH,
      );
      await expectDynamoError(
        batchWrite({ [hash]: [{ DeleteRequest: { Key: { ...key('x'), extra: { S: 'y' } } } }] }),
        'ValidationException',
        KEY_MISMATCH,
      );
    });

    test('empty key values are refused with the "are not valid" wording', async () => {
      await expectDynamoError(
        batchWrite({ [hash]: [putRequest({ id: { S: '' } })] }),
        'ValidationException',
        'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: id',
      );
      await expectDynamoError(
        batchWrite({ [binary]: [putRequest({ id: { B: new Uint8Array([]) } })] }),
        'ValidationException',
        'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: id',
      );
      await expectDynamoError(
        batchWrite({ [binary]: [{ DeleteRequest: { Key: { id: { B: new Uint8Array([]) } } } }] }),
        'ValidationException',
        'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: id',
      );
    });

    test('items are validated as PutItem validates them', async () => {
      await expectDynamoError(
        batchWrite({ [hash]: [putRequest({ ...key('w-big'), blob: { S: 'x'.repeat(400 * 1024) } })] }),
        'ValidationException',
        'Item size has exceeded the maximum allowed size',
      );
      await expectDynamoError(
        batchWrite({ [indexed]: [putRequest({ ...key('w-index'), status: { N: '1' } })] }),
        'ValidationException',
        INVALID + 'Type mismatch for Index Key status Expected: S Actual: N IndexName: gsi-status',
      );
      await expectDynamoError(
        batchWrite({ [hash]: [putRequest({ ...key('w-null'), a: { NULL: false } })] }),
        'ValidationException',
        INVALID + 'Null attribute value types must have the value of true',
      );
      await expectDynamoError(
        batchWrite({ [hash]: [putRequest({ ...key('w-set'), a: { SS: ['x', 'x'] } })] }),
        'ValidationException',
        INVALID + 'Input collection [x, x] contains duplicates.',
      );
    });

    test('a WriteRequest must hold exactly one request', async () => {
      const message = 'Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes';
      await expectDynamoError(batchWrite({ [hash]: [{}] }), 'ValidationException', message);
      await expectDynamoError(
        batchWrite({ [hash]: [{ PutRequest: { Item: key('w-both') }, DeleteRequest: { Key: key('w-both') } }] }),
        'ValidationException',
        message,
      );
    });

    test('numbers are stored canonical', async () => {
      await batchWrite({ [hash]: [putRequest({ ...key('w-number'), n: { N: '00100.500' } })] });
      assert.deepEqual((await get(hash, 'w-number'))?.n, { N: '100.5' });
    });

    test('the DocumentClient BatchWriteCommand works unchanged', async () => {
      const result = await twin.documentClient.send(
        new BatchWriteCommand({
          RequestItems: {
            [hash]: [{ PutRequest: { Item: { id: 'w-doc', list: [1, 'two'], nested: { a: true } } } }, { DeleteRequest: { Key: { id: 'w-1' } } }],
          },
        }),
      );
      assert.deepEqual(result.UnprocessedItems, {});
      assert.deepEqual(await get(hash, 'w-doc'), {
        id: { S: 'w-doc' },
        list: { L: [{ N: '1' }, { S: 'two' }] },
        nested: { M: { a: { BOOL: true } } },
      });
      assert.equal(await get(hash, 'w-1'), undefined);
    });
  });

  describe('BatchGetItem', () => {
    before(async () => {
      await put(hash, { ...key('g-1'), a: { S: 'one' }, b: { N: '1' }, nested: { M: { x: { S: 'deep' }, y: { S: 'other' } } } });
      await put(hash, { ...key('g-2'), a: { S: 'two' }, b: { N: '2' } });
      await put(hash, { ...key('g-5k'), blob: { S: 'x'.repeat(5000) } });
      await put(other, { ...key('g-1'), c: { S: 'other' } });
    });

    test('keys across tables; Responses per table; missing keys simply absent', async () => {
      const result = await batchGet({
        [hash]: { Keys: [key('g-1'), key('g-2'), key('g-missing')] },
        [other]: { Keys: [key('g-1')] },
        [binary]: { Keys: [{ id: { B: new Uint8Array([1]) } }] },
      });
      assert.deepEqual(result.UnprocessedKeys, {});
      assert.deepEqual(result.Responses?.[hash]?.map((item) => item.id?.S), ['g-1', 'g-2']);
      assert.deepEqual(result.Responses?.[other], [{ ...key('g-1'), c: { S: 'other' } }]);
      assert.deepEqual(result.Responses?.[binary], []);
      assert.equal(result.ConsumedCapacity, undefined);
    });

    test('ProjectionExpression with ExpressionAttributeNames, and AttributesToGet', async () => {
      const projected = await batchGet({
        [hash]: { Keys: [key('g-1'), key('g-2')], ProjectionExpression: '#a, nested.x', ExpressionAttributeNames: { '#a': 'a' } },
      });
      assert.deepEqual(projected.Responses?.[hash], [{ a: { S: 'one' }, nested: { M: { x: { S: 'deep' } } } }, { a: { S: 'two' } }]);
      const legacy = await batchGet({ [hash]: { Keys: [key('g-1')], AttributesToGet: ['b', 'absent'] } });
      assert.deepEqual(legacy.Responses?.[hash], [{ b: { N: '1' } }]);
    });

    test('ConsumedCapacity: each item rounded up to 4 KB on its own, missing keys charged, per table', async () => {
      const eventual = await batchGet(
        { [hash]: { Keys: [key('g-1'), key('g-5k'), key('g-missing')] }, [other]: { Keys: [key('g-1')], ConsistentRead: true } },
        { ReturnConsumedCapacity: 'TOTAL' },
      );
      assert.deepEqual(eventual.ConsumedCapacity, [
        { TableName: hash, CapacityUnits: 0.5 + 1 + 0.5 },
        { TableName: other, CapacityUnits: 1 },
      ]);
      const strong = await batchGet(
        { [hash]: { Keys: [key('g-1'), key('g-5k'), key('g-missing')], ConsistentRead: true } },
        { ReturnConsumedCapacity: 'INDEXES' },
      );
      assert.deepEqual(strong.ConsumedCapacity, [{ TableName: hash, CapacityUnits: 4, Table: { CapacityUnits: 4 } }]);
    });

    test('keys are validated as GetItem validates them', async () => {
      await expectDynamoError(batchGet({ [hash]: { Keys: [{ id: { N: '1' } }] } }), 'ValidationException', KEY_MISMATCH);
      await expectDynamoError(batchGet({ [hash]: { Keys: [{ ...key('a'), extra: { S: 'b' } }] } }), 'ValidationException', KEY_MISMATCH);
      await expectDynamoError(batchGet({ [hash]: { Keys: [{}] } }), 'ValidationException', KEY_MISMATCH);
      await expectDynamoError(
        batchGet({ [binary]: { Keys: [{ id: { B: new Uint8Array([]) } }] } }),
        'ValidationException',
        'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: id',
      );
    });

    test('a missing table is ResourceNotFoundException', async () => {
      await expectDynamoError(
        batchGet({ [hash]: { Keys: [key('g-1')] }, 'no-such-table': { Keys: [key('g-1')] } }),
        'ResourceNotFoundException',
        'Requested resource not found',
      );
    });

    test('duplicate keys are refused, numbers compared canonically', async () => {
      await expectDynamoError(batchGet({ [hash]: { Keys: [key('g-1'), key('g-1')] } }), 'ValidationException', DUPLICATES);
      await expectDynamoError(
        batchGet({ [hash]: { Keys: [{ id: { N: '1.0' } }, { id: { N: '1' } }] } }),
        'ValidationException',
        DUPLICATES,
      );
      const sameKeyTwoTables = await batchGet({ [hash]: { Keys: [key('g-1')] }, [other]: { Keys: [key('g-1')] } });
      assert.equal(sameKeyTwoTables.Responses?.[other]?.length, 1);
    });

    test('100 keys in total at most', async () => {
      const keys = (count: number) => Array.from({ length: count }, (_, index) => key(`g-n-${index}`));
      const hundred = await batchGet({ [hash]: { Keys: keys(60) }, [other]: { Keys: keys(40) } });
      assert.deepEqual(hundred.UnprocessedKeys, {});
      await expectDynamoError(
        batchGet({ [hash]: { Keys: keys(60) }, [other]: { Keys: keys(41) } }),
        'ValidationException',
        'Too many items requested for the BatchGetItem call',
      );
      await expectDynamoError(
        batchGet({ [hash]: { Keys: keys(101) } }),
        'ValidationException',
        // DynamoDB's newer validation names the member path, not the value (paritysuite/dynamodb-conformance
        // tier3 batchGetItem, captured on AWS).
        `1 validation error detected: Value at 'RequestItems.${hash}.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100`,
      );
      await expectDynamoError(
        batchGet({ [hash]: { Keys: [] } }),
        'ValidationException',
        `1 validation error detected: Value at 'RequestItems.${hash}.member.Keys' failed to satisfy constraint: Member must have length greater than or equal to 1`,
      );
    });

    test('an empty RequestItems and malformed table names are refused', async () => {
      await expectDynamoError(
        batchGet({}),
        'ValidationException',
        "1 validation error detected: Value at 'RequestItems' failed to satisfy constraint: Member must have length greater than or equal to 1",
      );
      await expectDynamoError(
        batchGet({ 'bad!name': { Keys: [key('a')] } }),
        'ValidationException',
        /^1 validation error detected: Value '.+' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: \[Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: \[a-zA-Z0-9_.-\]\+\]$/,
      );
    });

    test('expression parameters follow GetItem rules, per table and across tables', async () => {
      await expectDynamoError(
        batchGet({ [hash]: { Keys: [key('g-1')], AttributesToGet: ['a'], ProjectionExpression: 'a' } }),
        'ValidationException',
        'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}',
      );
      await expectDynamoError(
        batchGet({ [hash]: { Keys: [key('g-1')], ProjectionExpression: 'a' }, [other]: { Keys: [key('g-1')], AttributesToGet: ['a'] } }),
        'ValidationException',
        'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}',
      );
      await expectDynamoError(
        batchGet({ [hash]: { Keys: [key('g-1')], ExpressionAttributeNames: { '#a': 'a' } } }),
        'ValidationException',
        'ExpressionAttributeNames can only be specified when using expressions',
      );
      await expectDynamoError(
        batchGet({ [hash]: { Keys: [key('g-1')], ProjectionExpression: 'a', ExpressionAttributeNames: { '#x': 'x' } } }),
        'ValidationException',
        'Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}',
      );
      await expectDynamoError(
        batchGet({ [hash]: { Keys: [key('g-1')], AttributesToGet: ['a', 'a'] } }),
        'ValidationException',
        INVALID + 'Duplicate value in attribute name: a',
      );
      await expectDynamoError(
        batchGet({ [hash]: { Keys: [key('g-1')], ProjectionExpression: 'a, a' }, [other]: { Keys: [key('g-1')], ProjectionExpression: 'a' } }),
        'ValidationException',
        'Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]',
      );
    });

    test('the DocumentClient BatchGetCommand works unchanged', async () => {
      const result = await twin.documentClient.send(
        new BatchGetCommand({ RequestItems: { [hash]: { Keys: [{ id: 'g-2' }], ProjectionExpression: 'a, b' } } }),
      );
      assert.deepEqual(result.Responses?.[hash], [{ a: 'two', b: 2 }]);
    });
  });

  describe('BatchGetItem past 16 MB', () => {
    const big = uniqueTableName('batch-big');
    // 2 + 6 (id) + 4 + 358,400 (blob): 46 such items fit in 16 MB, the 47th does not.
    const itemBytes = 2 + 6 + 4 + 350 * 1024;
    const perCall = Math.floor((16 * 1024 * 1024) / itemBytes);
    const ids = Array.from({ length: 100 }, (_, index) => `b-${String(index).padStart(4, '0')}`);

    before(async () => {
      await createTables(twin.client, onDemandTable(big));
      const blob = { S: 'x'.repeat(350 * 1024) };
      for (let start = 0; start < ids.length; start += 20) {
        await batchWrite({ [big]: ids.slice(start, start + 20).map((id) => putRequest({ ...key(id), blob })) });
      }
    });

    test('stops before 16 MB and returns the rest in UnprocessedKeys, shaped like the request', async () => {
      assert.equal(perCall, 46);
      const first = await batchGet(
        { [big]: { Keys: ids.map(key), ProjectionExpression: '#i', ExpressionAttributeNames: { '#i': 'id' }, ConsistentRead: true } },
        { ReturnConsumedCapacity: 'TOTAL' },
      );
      assert.equal(first.Responses?.[big]?.length, perCall);
      const unprocessed = first.UnprocessedKeys?.[big];
      assert.deepEqual(unprocessed, {
        Keys: ids.slice(perCall).map(key),
        ProjectionExpression: '#i',
        ExpressionAttributeNames: { '#i': 'id' },
        ConsistentRead: true,
      });
      // Only the keys read are charged: 88 blocks of 4 KB each, strongly consistent.
      assert.deepEqual(first.ConsumedCapacity, [{ TableName: big, CapacityUnits: perCall * Math.ceil(itemBytes / 4096) }]);

      const seen = new Set(first.Responses?.[big]?.map((item) => item.id?.S));
      let pending = first.UnprocessedKeys;
      let calls = 1;
      while (pending !== undefined && Object.keys(pending).length > 0) {
        const next = await twin.client.send(new BatchGetItemCommand({ RequestItems: pending }));
        for (const item of next.Responses?.[big] ?? []) {
          assert.ok(!seen.has(item.id?.S), 'each item is returned once');
          seen.add(item.id?.S);
        }
        pending = next.UnprocessedKeys;
        calls++;
      }
      assert.equal(seen.size, ids.length);
      assert.equal(calls, 3);
    });

    test('a full response carries up to 16 MB of items through the SDK', async () => {
      const result = await batchGet({ [big]: { Keys: ids.slice(0, 60).map(key) } });
      const items = result.Responses?.[big] ?? [];
      assert.equal(items.length, perCall);
      assert.equal(items[0]?.blob?.S?.length, 350 * 1024);
      assert.deepEqual(result.UnprocessedKeys?.[big]?.Keys, ids.slice(perCall, 60).map(key));
    });
  });
});
