/**
 * PutItem, GetItem and DeleteItem through the AWS SDK: serialization, validation, functionality.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { seedArticleTable } from './support/seeds.js';
import { attributes, createTables, keySchema, onDemandTable } from './support/tables.js';
import { expectDynamoError, startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

const INVALID = 'One or more parameter values were invalid: ';

describe('items', () => {
  let twin: TwinClients;
  const hashTable = uniqueTableName('items-hash');
  const compositeTable = uniqueTableName('items-composite');
  const indexedTable = uniqueTableName('items-indexed');
  const stringRangeTable = uniqueTableName('items-string-range');

  before(async () => {
    twin = await startTwinWithClients();
    await createTables(
      twin.client,
      onDemandTable(hashTable),
      {
        TableName: compositeTable,
        AttributeDefinitions: attributes({ pk: 'B', sk: 'N' }),
        KeySchema: keySchema('pk', 'sk'),
        ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
      },
      onDemandTable(stringRangeTable, { pk: 'S', sk: 'S' }),
      seedArticleTable(indexedTable),
    );
  });

  after(async () => {
    await twin.close();
  });

  describe('functionality', () => {
    test('every attribute type round-trips byte for byte through the low-level client', async () => {
      const item: Record<string, AttributeValue> = {
        id: { S: 'every-type' },
        string: { S: 'héllo wörld ✓ 𝄞' },
        emptyString: { S: '' },
        number: { N: '-12345.678' },
        bigNumber: { N: '99999999999999999999999999999999999999' },
        tinyNumber: { N: '0.0000000000000000000000000000000000001' },
        binary: { B: new Uint8Array([0, 1, 2, 253, 254, 255]) },
        emptyBinary: { B: new Uint8Array([]) },
        boolTrue: { BOOL: true },
        boolFalse: { BOOL: false },
        nothing: { NULL: true },
        stringSet: { SS: ['a', 'b', 'c'] },
        numberSet: { NS: ['1', '2.5', '-3'] },
        binarySet: { BS: [new Uint8Array([1]), new Uint8Array([2, 3])] },
        list: { L: [{ S: 'x' }, { N: '1' }, { L: [] }, { M: {} }, { NULL: true }] },
        map: { M: { nested: { M: { deeper: { L: [{ BOOL: false }, { SS: ['z'] }] } } }, 'with space': { S: 'y' } } },
      };
      await twin.client.send(new PutItemCommand({ TableName: hashTable, Item: item }));
      const got = await twin.client.send(new GetItemCommand({ TableName: hashTable, Key: { id: { S: 'every-type' } } }));
      assert.deepEqual(got.Item, item);
    });

    test('numbers come back in DynamoDB canonical form', async () => {
      const cases: [string, string][] = [
        ['1.50', '1.5'],
        ['-0', '0'],
        ['1e2', '100'],
        ['00042', '42'],
        ['3.1400', '3.14'],
        ['1.5E2', '150'],
        ['-1.0e-2', '-0.01'],
      ];
      for (const [input, canonical] of cases) {
        await twin.client.send(new PutItemCommand({ TableName: hashTable, Item: { id: { S: 'n-' + input }, n: { N: input }, ns: { NS: [input] } } }));
        const got = await twin.client.send(new GetItemCommand({ TableName: hashTable, Key: { id: { S: 'n-' + input } } }));
        assert.deepEqual(got.Item?.n, { N: canonical }, input);
        assert.deepEqual(got.Item?.ns, { NS: [canonical] }, input);
      }
    });

    test('the DocumentClient round-trips JavaScript values, sets and binary', async () => {
      const item = {
        id: 'doc-1',
        text: 'plain',
        count: 42,
        ratio: 0.25,
        flag: true,
        nothing: null,
        tags: new Set(['red', 'green']),
        scores: new Set([1, 2, 3]),
        bytes: new Uint8Array([9, 8, 7]),
        nested: { list: [1, 'two', { three: [3] }], empty: {} },
      };
      await twin.documentClient.send(new PutCommand({ TableName: hashTable, Item: item }));
      const got = await twin.documentClient.send(new GetCommand({ TableName: hashTable, Key: { id: 'doc-1' } }));
      assert.deepEqual(got.Item, item);
    });

    test('a composite binary/number key addresses exactly one item', async () => {
      const pk = new Uint8Array([1, 2, 3]);
      for (const sk of ['1', '2', '-1.5']) {
        await twin.client.send(new PutItemCommand({ TableName: compositeTable, Item: { pk: { B: pk }, sk: { N: sk }, v: { S: 'v' + sk } } }));
      }
      const got = await twin.client.send(new GetItemCommand({ TableName: compositeTable, Key: { pk: { B: pk }, sk: { N: '-1.50' } } }));
      assert.deepEqual(got.Item?.v, { S: 'v-1.5' });
      const missing = await twin.client.send(new GetItemCommand({ TableName: compositeTable, Key: { pk: { B: pk }, sk: { N: '3' } } }));
      assert.equal(missing.Item, undefined);
    });

    test('PutItem replaces the whole item and returns the old one with ALL_OLD', async () => {
      const first = await twin.client.send(
        new PutItemCommand({ TableName: hashTable, Item: { id: { S: 'replace' }, a: { S: '1' } }, ReturnValues: 'ALL_OLD' }),
      );
      assert.equal(first.Attributes, undefined);
      const second = await twin.client.send(
        new PutItemCommand({ TableName: hashTable, Item: { id: { S: 'replace' }, b: { S: '2' } }, ReturnValues: 'ALL_OLD' }),
      );
      assert.deepEqual(second.Attributes, { id: { S: 'replace' }, a: { S: '1' } });
      const got = await twin.client.send(new GetItemCommand({ TableName: hashTable, Key: { id: { S: 'replace' } } }));
      assert.deepEqual(got.Item, { id: { S: 'replace' }, b: { S: '2' } });
    });

    test('DeleteItem removes the item, returns it with ALL_OLD, and is a no-op when absent', async () => {
      await twin.documentClient.send(new PutCommand({ TableName: hashTable, Item: { id: 'gone', x: 1 } }));
      const deleted = await twin.documentClient.send(new DeleteCommand({ TableName: hashTable, Key: { id: 'gone' }, ReturnValues: 'ALL_OLD' }));
      assert.deepEqual(deleted.Attributes, { id: 'gone', x: 1 });
      const again = await twin.documentClient.send(new DeleteCommand({ TableName: hashTable, Key: { id: 'gone' }, ReturnValues: 'ALL_OLD' }));
      assert.equal(again.Attributes, undefined);
      const got = await twin.documentClient.send(new GetCommand({ TableName: hashTable, Key: { id: 'gone' } }));
      assert.equal(got.Item, undefined);
    });

    test('ProjectionExpression with names and nested paths, and AttributesToGet', async () => {
      await twin.client.send(
        new PutItemCommand({
          TableName: hashTable,
          Item: {
            id: { S: 'projected' },
            status: { S: 'USED' },
            a: { M: { b: { L: [{ S: 'zero' }, { M: { c: { N: '1' }, d: { N: '2' } } }] }, e: { S: 'e' } } },
            other: { S: 'not returned' },
          },
        }),
      );
      const projected = await twin.client.send(
        new GetItemCommand({
          TableName: hashTable,
          Key: { id: { S: 'projected' } },
          ProjectionExpression: '#s, a.b[1].c, a.e, absent',
          ExpressionAttributeNames: { '#s': 'status' },
        }),
      );
      assert.deepEqual(projected.Item, {
        status: { S: 'USED' },
        a: { M: { b: { L: [{ M: { c: { N: '1' } } }] }, e: { S: 'e' } } },
      });
      const legacy = await twin.client.send(
        new GetItemCommand({ TableName: hashTable, Key: { id: { S: 'projected' } }, AttributesToGet: ['id', 'other', 'nope'] }),
      );
      assert.deepEqual(legacy.Item, { id: { S: 'projected' }, other: { S: 'not returned' } });
    });

    test('ConsistentRead and ReturnConsumedCapacity are honoured', async () => {
      const big = 'x'.repeat(5000);
      const put = await twin.client.send(
        new PutItemCommand({ TableName: hashTable, Item: { id: { S: 'capacity' }, big: { S: big } }, ReturnConsumedCapacity: 'TOTAL' }),
      );
      assert.deepEqual(put.ConsumedCapacity, { TableName: hashTable, CapacityUnits: 5 });
      const strong = await twin.client.send(
        new GetItemCommand({ TableName: hashTable, Key: { id: { S: 'capacity' } }, ConsistentRead: true, ReturnConsumedCapacity: 'INDEXES' }),
      );
      assert.deepEqual(strong.ConsumedCapacity, { TableName: hashTable, CapacityUnits: 2, Table: { CapacityUnits: 2 } });
      const eventual = await twin.client.send(
        new GetItemCommand({ TableName: hashTable, Key: { id: { S: 'absent' } }, ReturnConsumedCapacity: 'TOTAL' }),
      );
      assert.deepEqual(eventual.ConsumedCapacity, { TableName: hashTable, CapacityUnits: 0.5 });
    });

    test('an item of exactly 400 KB is accepted', async () => {
      // id (2 + 8 bytes) + name "p" (1) + value: 409600 in all.
      const padding = 'p'.repeat(400 * 1024 - 2 - 'exact400'.length - 1);
      await twin.client.send(new PutItemCommand({ TableName: hashTable, Item: { id: { S: 'exact400' }, p: { S: padding } } }));
      const got = await twin.client.send(new GetItemCommand({ TableName: hashTable, Key: { id: { S: 'exact400' } } }));
      assert.equal(got.Item?.p?.S?.length, padding.length);
    });
  });

  describe('validation', () => {
    const put = (item: Record<string, AttributeValue>, table = hashTable) =>
      twin.client.send(new PutItemCommand({ TableName: table, Item: item }));

    test('a missing table is ResourceNotFoundException', async () => {
      await expectDynamoError(put({ id: { S: 'a' } }, 'no-such-table'), 'ResourceNotFoundException', 'Requested resource not found');
      await expectDynamoError(
        twin.client.send(new GetItemCommand({ TableName: 'no-such-table', Key: { id: { S: 'a' } } })),
        'ResourceNotFoundException',
        'Requested resource not found',
      );
    });

    test('item key attributes must be present and of the schema type', async () => {
      await expectDynamoError(put({ other: { S: 'a' } }), 'ValidationException', INVALID + 'Missing the key id in the item');
      await expectDynamoError(put({ id: { N: '1' } }), 'ValidationException', INVALID + 'Type mismatch for key id expected: S actual: N');
      await expectDynamoError(
        put({ id: { S: '' } }),
        'ValidationException',
        'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: id',
      );
    });

    test('index key attributes must have the index type', async () => {
      await expectDynamoError(
        put({ id: { S: 'a' }, status: { N: '1' } }, indexedTable),
        'ValidationException',
        INVALID + 'Type mismatch for Index Key status Expected: S Actual: N IndexName: gsi-status',
      );
    });

    test('Key maps must match the key schema exactly', async () => {
      const get = (key: Record<string, AttributeValue>, table = hashTable) => twin.client.send(new GetItemCommand({ TableName: table, Key: key }));
      const mismatch = 'The provided key element does not match the schema';
      await expectDynamoError(get({ id: { N: '1' } }), 'ValidationException', mismatch);
      await expectDynamoError(get({ id: { S: 'a' }, extra: { S: 'b' } }), 'ValidationException', mismatch);
      await expectDynamoError(get({ other: { S: 'a' } }), 'ValidationException', mismatch);
      await expectDynamoError(get({ pk: { B: new Uint8Array([1]) } }, compositeTable), 'ValidationException', mismatch);
      await expectDynamoError(
        twin.client.send(new DeleteItemCommand({ TableName: hashTable, Key: { id: { S: '' } } })),
        'ValidationException',
        'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: id',
      );
    });

    test('key size limits: 2048 bytes for the partition key, 1024 for the sort key', async () => {
      await put({ id: { S: 'é'.repeat(1024) } });
      await expectDynamoError(
        put({ id: { S: 'é'.repeat(1024) + 'x' } }),
        'ValidationException',
        INVALID + 'Size of hashkey has exceeded the maximum size limit of2048 bytes',
      );
      await expectDynamoError(
        put({ pk: { B: new Uint8Array(2049) }, sk: { N: '1' } }, compositeTable),
        'ValidationException',
        INVALID + 'Size of hashkey has exceeded the maximum size limit of2048 bytes',
      );
      await put({ pk: { S: 'a' }, sk: { S: 's'.repeat(1024) } }, stringRangeTable);
      await expectDynamoError(
        put({ pk: { S: 'a' }, sk: { S: 's'.repeat(1025) } }, stringRangeTable),
        'ValidationException',
        INVALID + 'Aggregated size of all range keys has exceeded the size limit of 1024 bytes',
      );
    });

    test('an item over 400 KB is rejected', async () => {
      await expectDynamoError(
        put({ id: { S: 'big' }, p: { S: 'p'.repeat(400 * 1024) } }),
        'ValidationException',
        'Item size has exceeded the maximum allowed size',
      );
    });

    test('numbers outside DynamoDB range or precision are rejected', async () => {
      await expectDynamoError(
        put({ id: { S: 'n' }, n: { N: '1234567890123456789012345678901234567890' } }),
        'ValidationException',
        'Attempting to store more than 38 significant digits in a Number',
      );
      await expectDynamoError(
        put({ id: { S: 'n' }, n: { N: '1E126' } }),
        'ValidationException',
        'Number overflow. Attempting to store a number with magnitude larger than supported range',
      );
      await expectDynamoError(
        put({ id: { S: 'n' }, n: { N: '1E-131' } }),
        'ValidationException',
        'Number underflow. Attempting to store a number with magnitude smaller than supported range',
      );
      await expectDynamoError(
        put({ id: { S: 'n' }, n: { N: 'abc' } }),
        'ValidationException',
        'The parameter cannot be converted to a numeric value: abc',
      );
      await expectDynamoError(put({ id: { S: 'n' }, n: { N: '' } }), 'ValidationException', 'The parameter cannot be converted to a numeric value');
    });

    test('sets must be non-empty and free of duplicates; NULL must be true; one type per value', async () => {
      await expectDynamoError(put({ id: { S: 's' }, s: { SS: [] } }), 'ValidationException', INVALID + 'An string set  may not be empty');
      await expectDynamoError(put({ id: { S: 's' }, s: { NS: [] } }), 'ValidationException', INVALID + 'An number set  may not be empty');
      await expectDynamoError(put({ id: { S: 's' }, s: { BS: [] } }), 'ValidationException', INVALID + 'Binary sets should not be empty');
      await expectDynamoError(
        put({ id: { S: 's' }, s: { SS: ['a', 'a'] } }),
        'ValidationException',
        INVALID + 'Input collection [a, a] contains duplicates.',
      );
      await expectDynamoError(put({ id: { S: 's' }, s: { NS: ['1', '1.0'] } }), 'ValidationException', 'Input collection contains duplicates');
      await expectDynamoError(
        put({ id: { S: 's' }, s: { NULL: false } }),
        'ValidationException',
        INVALID + 'Null attribute value types must have the value of true',
      );
      await expectDynamoError(
        put({ id: { S: 's' }, s: { S: 'a', N: '1' } as unknown as AttributeValue }),
        'ValidationException',
        'Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes',
      );
    });

    test('ReturnValues other than NONE and ALL_OLD are rejected on PutItem and DeleteItem', async () => {
      await expectDynamoError(
        twin.client.send(new PutItemCommand({ TableName: hashTable, Item: { id: { S: 'r' } }, ReturnValues: 'ALL_NEW' })),
        'ValidationException',
        'ReturnValues can only be ALL_OLD or NONE',
      );
      await expectDynamoError(
        twin.client.send(new DeleteItemCommand({ TableName: hashTable, Key: { id: { S: 'r' } }, ReturnValues: 'UPDATED_NEW' })),
        'ValidationException',
        'ReturnValues can only be ALL_OLD or NONE',
      );
    });

    test('projection parameters: both kinds, unused and undefined names', async () => {
      const get = (extra: Record<string, unknown>) =>
        twin.client.send(new GetItemCommand({ TableName: hashTable, Key: { id: { S: 'p' } }, ...extra }));
      await expectDynamoError(
        get({ ProjectionExpression: 'a', AttributesToGet: ['a'] }),
        'ValidationException',
        'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}',
      );
      await expectDynamoError(
        get({ ExpressionAttributeNames: { '#a': 'a' } }),
        'ValidationException',
        'ExpressionAttributeNames can only be specified when using expressions',
      );
      await expectDynamoError(
        get({ ProjectionExpression: 'a', ExpressionAttributeNames: { '#a': 'a' } }),
        'ValidationException',
        'Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}',
      );
      await expectDynamoError(
        get({ ProjectionExpression: '#b' }),
        'ValidationException',
        'Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #b',
      );
      await expectDynamoError(
        get({ AttributesToGet: ['a', 'a'] }),
        'ValidationException',
        INVALID + 'Duplicate value in attribute name: a',
      );
    });

    test('constraint violations are listed together', async () => {
      await expectDynamoError(
        twin.client.send(new GetItemCommand({ TableName: 'ab', Key: { id: { S: 'a' } }, ReturnConsumedCapacity: 'SOME' as 'TOTAL' })),
        'ValidationException',
        "2 validation errors detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3; " +
          "Value 'SOME' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]",
      );
    });
  });
});
