/**
 * Query through the AWS SDK: serialization, validation (DynamoDB's texts and their order) and
 * functionality — every key condition operator on S, N and B sort keys in both directions,
 * pagination, the 1 MB page, filters, Select, projections and consumed capacity.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QueryCommand, type AttributeValue, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import { paginateQuery, QueryCommand as DocumentQueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AttributeMap } from '../src/model/attribute-value.js';
import { itemSize } from '../src/model/item-size.js';
import { callOperation } from './support/raw.js';
import { compareKeyValues, createTable, keyText, putAll, type Item } from './support/read-tables.js';
import { expectDynamoError, startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

const INVALID = 'One or more parameter values were invalid: ';
const VALIDATION = 'ValidationException';
const PAGE_BYTES = 1024 * 1024;

const S_SORT_KEYS = ['10', '2', 'B', 'a', 'aa', 'ab', 'abc', 'b', 'z', 'é', 'éa', '\uFFFD', '\u{10000}', '\u{10000}x'];
const N_SORT_KEYS = ['-9.9E+125', '-1E10', '-99.1', '-1', '-0.01', '0', '1E-130', '0.01', '0.1', '1', '1.5', '9', '10', '99.1', '1E10', '9.9E+125'];
const B_SORT_KEYS = [[0x00], [0x00, 0x00], [0x01], [0x61, 0x62], [0x61, 0x62, 0x63], [0x7f], [0x80], [0xff], [0xff, 0x00], [0xff, 0xff]];

describe('Query', () => {
  let twin: TwinClients;
  const hashTable = uniqueTableName('query-hash');
  const stringTable = uniqueTableName('query-s');
  const numberTable = uniqueTableName('query-n');
  const binaryTable = uniqueTableName('query-b');
  const indexedTable = uniqueTableName('query-indexed');
  const missingTable = uniqueTableName('query-missing');

  before(async () => {
    // Bulk loads at full speed on the real clock would be throttled, as on DynamoDB; this suite
    // tests behaviour other than capacity, which test/capacity-*.test.ts and throttling.test.ts cover.
    twin = await startTwinWithClients();
    await createTable(twin.client, hashTable, { hash: ['pk', 'S'] });
    await createTable(twin.client, stringTable, { hash: ['pk', 'S'], range: ['sk', 'S'] });
    await createTable(twin.client, numberTable, { hash: ['pk', 'S'], range: ['sk', 'N'] });
    await createTable(twin.client, binaryTable, { hash: ['pk', 'S'], range: ['sk', 'B'] });
    await createTable(
      twin.client,
      indexedTable,
      { hash: ['pk', 'S'], range: ['sk', 'S'], extraAttributes: [['gk', 'S']] },
      { gsi: 'gsi-gk', lsi: 'lsi-gk' },
    );
    await putAll(twin.client, hashTable, [{ pk: { S: 'one' }, v: { N: '1' } }, { pk: { S: 'two' }, v: { N: '2' } }]);
    await putAll(twin.client, stringTable, S_SORT_KEYS.map((sk, index) => ({ pk: { S: 'strings' }, sk: { S: sk }, i: { N: String(index) } })));
    await putAll(twin.client, stringTable, [{ pk: { S: 'other' }, sk: { S: 'a' } }]);
    await putAll(twin.client, numberTable, N_SORT_KEYS.map((sk) => ({ pk: { S: 'numbers' }, sk: { N: sk } })));
    await putAll(twin.client, binaryTable, B_SORT_KEYS.map((bytes) => ({ pk: { S: 'bytes' }, sk: { B: new Uint8Array(bytes) } })));
  });
  after(async () => {
    await twin.close();
  });

  const query = (input: QueryCommandInput): Promise<QueryCommandOutput> => twin.client.send(new QueryCommand(input));
  const sortKeys = (output: QueryCommandOutput): string[] => (output.Items ?? []).map((item) => keyText(item.sk));

  describe('serialization', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['TableName', { TableName: 1 }, 'NUMBER_VALUE cannot be converted to String'],
      ['Limit', { TableName: 'abc', Limit: 'x' }, 'STRING_VALUE cannot be converted to Integer'],
      ['ScanIndexForward', { TableName: 'abc', ScanIndexForward: 5 }, 'NUMBER_VALUE cannot be converted to Boolean'],
      ['ConsistentRead', { TableName: 'abc', ConsistentRead: [] }, 'Unrecognized collection type class java.lang.Boolean'],
      [
        'KeyConditions',
        { TableName: 'abc', KeyConditions: [] },
        'Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.Condition>',
      ],
      ['KeyConditions.Attr', { TableName: 'abc', KeyConditions: { a: 'x' } }, 'Unexpected value type in payload'],
      ['QueryFilter.Attr.AttributeValueList', { TableName: 'abc', QueryFilter: { a: { AttributeValueList: 'x' } } }, 'Unexpected field type'],
      ['ExclusiveStartKey.Attr.S', { TableName: 'abc', ExclusiveStartKey: { a: { S: 1 } } }, 'NUMBER_VALUE cannot be converted to String'],
      ['Select', { TableName: 'abc', Select: true }, 'TRUE_VALUE cannot be converted to String'],
    ];
    for (const [member, body, message] of cases) {
      test(`${member} of the wrong JSON type is a SerializationException`, async () => {
        const response = await callOperation(twin.twin.endpoint, 'Query', JSON.stringify(body));
        assert.equal(response.status, 400);
        assert.deepEqual(JSON.parse(response.text), { __type: 'com.amazon.coral.service#SerializationException', Message: message });
      });
    }
  });

  describe('validation', () => {
    test('member constraints are reported together, in DynamoDB order, at most ten', async () => {
      await expectDynamoError(
        query({
          TableName: 'abc;',
          ReturnConsumedCapacity: 'hi' as never,
          AttributesToGet: [],
          IndexName: 'abc;',
          Select: 'hi' as never,
          Limit: -1,
          KeyConditions: { a: {} as never, b: { ComparisonOperator: '' as never } },
          ConditionalOperator: 'AN' as never,
          QueryFilter: { a: {} as never, b: { ComparisonOperator: '' as never } },
        }),
        VALIDATION,
        // Limit is checked on its own after these (below), as Query's newer validation reports it.
        '10 validation errors detected: ' +
          "Value 'hi' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]; " +
          "Value 'abc;' at 'indexName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
          "Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
          "Value null at 'queryFilter.a.member.comparisonOperator' failed to satisfy constraint: Member must not be null; " +
          "Value '' at 'queryFilter.b.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]; " +
          "Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
          "Value 'AN' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]; " +
          "Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1; " +
          "Value null at 'keyConditions.a.member.comparisonOperator' failed to satisfy constraint: Member must not be null; " +
          "Value '' at 'keyConditions.b.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]",
      );
      await expectDynamoError(
        query({ TableName: stringTable, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'x' } }, Limit: 0 }),
        VALIDATION,
        // paritysuite/dynamodb-conformance's Query error-message test, captured on AWS (Scan keeps `Value '0' at 'limit'`).
        "1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
      );
    });

    test('expression and legacy parameters cannot be mixed (KeyConditions may go with other expressions)', async () => {
      await expectDynamoError(
        query({
          TableName: 'abc',
          AttributesToGet: ['a'],
          QueryFilter: { a: { ComparisonOperator: 'NULL' } },
          ConditionalOperator: 'OR',
          KeyConditions: { a: { ComparisonOperator: 'NULL' } },
          ProjectionExpression: 'a',
          FilterExpression: 'a = b',
          KeyConditionExpression: 'a = b',
        }),
        VALIDATION,
        'Can not use both expression and non-expression parameters in the same request: ' +
          'Non-expression parameters: {AttributesToGet, QueryFilter, ConditionalOperator, KeyConditions} ' +
          'Expression parameters: {ProjectionExpression, FilterExpression, KeyConditionExpression}',
      );
      await expectDynamoError(
        query({ TableName: 'abc', QueryFilter: { a: { ComparisonOperator: 'NULL' } }, KeyConditions: { a: { ComparisonOperator: 'NULL' } }, FilterExpression: 'a = b' }),
        VALIDATION,
        'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {QueryFilter} Expression parameters: {FilterExpression}',
      );
      await expectDynamoError(
        query({ TableName: 'abc', KeyConditions: { a: { ComparisonOperator: 'NULL' } }, ExpressionAttributeValues: { ':a': { S: 'a' } } }),
        VALIDATION,
        'ExpressionAttributeValues can only be specified when using expressions: FilterExpression and KeyConditionExpression are null',
      );
      await expectDynamoError(
        query({ TableName: 'abc', KeyConditions: { a: { ComparisonOperator: 'NULL' } }, ExpressionAttributeNames: { '#a': 'a' } }),
        VALIDATION,
        'ExpressionAttributeNames can only be specified when using expressions',
      );
    });

    test('QueryFilter conditions: argument counts, one type, types per operator, BETWEEN order', async () => {
      const filterCases: [Record<string, unknown>, string][] = [
        [{ a: { ComparisonOperator: 'EQ' } }, INVALID + 'Invalid number of argument(s) for the EQ ComparisonOperator'],
        [{ a: { ComparisonOperator: 'NULL', AttributeValueList: [{ S: 'a' }] } }, INVALID + 'Invalid number of argument(s) for the NULL ComparisonOperator'],
        [{ a: { ComparisonOperator: 'BETWEEN', AttributeValueList: [{ S: 'a' }] } }, INVALID + 'Invalid number of argument(s) for the BETWEEN ComparisonOperator'],
        [{ a: { ComparisonOperator: 'IN', AttributeValueList: [{ S: 'b' }, { N: '1' }] } }, INVALID + 'AttributeValues inside AttributeValueList must be of same type'],
        [{ a: { ComparisonOperator: 'LT', AttributeValueList: [{ BOOL: true }] } }, INVALID + 'ComparisonOperator LT is not valid for BOOL AttributeValue type'],
        [{ a: { ComparisonOperator: 'IN', AttributeValueList: [{ SS: ['a'] }] } }, INVALID + 'ComparisonOperator IN is not valid for SS AttributeValue type'],
        [{ a: { ComparisonOperator: 'CONTAINS', AttributeValueList: [{ L: [] }] } }, INVALID + 'ComparisonOperator CONTAINS is not valid for L AttributeValue type'],
        [{ a: { ComparisonOperator: 'BEGINS_WITH', AttributeValueList: [{ N: '1' }] } }, INVALID + 'ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type'],
        [{ a: { ComparisonOperator: 'BETWEEN', AttributeValueList: [{ M: {} }, { M: {} }] } }, INVALID + 'ComparisonOperator BETWEEN is not valid for M AttributeValue type'],
        [
          { a: { ComparisonOperator: 'BETWEEN', AttributeValueList: [{ S: 'b' }, { S: 'a' }] } },
          'The BETWEEN condition was provided a range where the lower bound is greater than the upper bound',
        ],
        [{ a: { ComparisonOperator: 'EQ', AttributeValueList: [{ NULL: false }] } }, INVALID + 'Null attribute value types must have the value of true'],
      ];
      for (const [queryFilter, message] of filterCases) {
        await expectDynamoError(query({ TableName: 'abc', QueryFilter: queryFilter as never, KeyConditions: {} }), VALIDATION, message);
      }
      // The same rules hold for KeyConditions.
      await expectDynamoError(
        query({ TableName: 'abc', KeyConditions: { a: { ComparisonOperator: 'GE', AttributeValueList: [{ NS: ['1'] }] } } }),
        VALIDATION,
        INVALID + 'ComparisonOperator GE is not valid for NS AttributeValue type',
      );
    });

    test('AttributesToGet may not repeat a name; start key values are checked before the table', async () => {
      await expectDynamoError(
        query({ TableName: 'abc', KeyConditions: {}, AttributesToGet: ['a', 'b', 'a'] }),
        VALIDATION,
        INVALID + 'Duplicate value in attribute name: a',
      );
      await expectDynamoError(
        query({ TableName: 'abc', KeyConditions: {}, ExclusiveStartKey: { a: { NULL: false } } }),
        VALIDATION,
        'The provided starting key is invalid: ' + INVALID + 'Null attribute value types must have the value of true',
      );
      await expectDynamoError(
        query({ TableName: 'abc', KeyConditions: {}, ExclusiveStartKey: { a: { SS: ['x', 'x'] } } }),
        VALIDATION,
        INVALID + 'Input collection [x, x] contains duplicates.',
      );
      await expectDynamoError(
        query({ TableName: 'abc', KeyConditions: {}, ExclusiveStartKey: { a: { N: 'b' } } }),
        VALIDATION,
        'The parameter cannot be converted to a numeric value: b',
      );
    });

    test('a key condition is required; KeyConditions hold one or two conditions', async () => {
      await expectDynamoError(
        query({ TableName: 'abc' }),
        VALIDATION,
        'Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.',
      );
      await expectDynamoError(query({ TableName: 'abc', KeyConditions: {} }), VALIDATION, 'Conditions can be of length 1 or 2 only');
      await expectDynamoError(
        query({
          TableName: 'abc',
          KeyConditions: { a: { ComparisonOperator: 'NULL' }, b: { ComparisonOperator: 'NULL' }, c: { ComparisonOperator: 'NULL' } },
        }),
        VALIDATION,
        'Conditions can be of length 1 or 2 only',
      );
    });

    test('the form of a KeyConditionExpression is checked before the table is looked up', async () => {
      const values = { ':a': { S: 'a' }, ':b': { S: 'b' } };
      const cases: [string, string][] = [
        ['a = :a and b = :a and c = :a', 'Conditions can be of length 1 or 2 only'],
        ['a = :a OR b = :b', 'Invalid operator used in KeyConditionExpression: OR'],
        ['NOT a = :a', 'Invalid operator used in KeyConditionExpression: NOT'],
        ['a <> :a', 'Invalid operator used in KeyConditionExpression: <>'],
        ['a IN (:a, :b)', 'Invalid operator used in KeyConditionExpression: IN'],
        ['attribute_exists(a)', 'Invalid operator used in KeyConditionExpression: attribute_exists'],
        ['contains(a, :a)', 'Invalid operator used in KeyConditionExpression: contains'],
        ['begins_with(:a, a)', 'Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand'],
        ['size(a) > :a', 'KeyConditionExpressions cannot contain nested operations'],
        ['a.b = :a', 'KeyConditionExpressions cannot have conditions on nested attributes'],
        ['a = b', 'Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition'],
        [':a = :b', 'Invalid condition in KeyConditionExpression: No key attribute specified'],
        ['a > :a AND a < :b', 'KeyConditionExpressions must only contain one condition per key'],
        ['a BETWEEN :b AND :a', 'Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}'],
        ['a = ', 'Invalid KeyConditionExpression: Syntax error; token: "<EOF>", near: "= "'],
      ];
      for (const [expression, message] of cases) {
        const used = Object.fromEntries(Object.entries(values).filter(([key]) => expression.includes(key)));
        await expectDynamoError(
          query({ TableName: missingTable, KeyConditionExpression: expression, ExpressionAttributeValues: Object.keys(used).length > 0 ? used : undefined }),
          VALIDATION,
          message,
        );
      }
      // Unused placeholders are reported before the key condition's form.
      await expectDynamoError(
        query({ TableName: missingTable, KeyConditionExpression: 'a = :a OR b = :a', ExpressionAttributeValues: { ':a': { S: 'a' }, ':c': { S: 'c' } } }),
        VALIDATION,
        'Value provided in ExpressionAttributeValues unused in expressions: keys: {:c}',
      );
      await expectDynamoError(
        query({ TableName: missingTable, KeyConditionExpression: 'a = :a', FilterExpression: 'b = :a', ProjectionExpression: '', ExpressionAttributeValues: { ':a': { S: 'a' } } }),
        VALIDATION,
        'Invalid ProjectionExpression: The expression can not be empty;',
      );
      await expectDynamoError(
        query({ TableName: missingTable, KeyConditionExpression: 'z = :a', ExpressionAttributeValues: { ':a': { N: '1' } }, ExclusiveStartKey: { b: { S: 'a' } } }),
        'ResourceNotFoundException',
        'Requested resource not found',
      );
    });

    test('Select rules', async () => {
      const base = { TableName: stringTable, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'x' } } };
      await expectDynamoError(query({ ...base, Select: 'SPECIFIC_ATTRIBUTES' }), VALIDATION, 'Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES');
      await expectDynamoError(query({ ...base, Select: 'ALL_ATTRIBUTES', ProjectionExpression: 'a' }), VALIDATION, 'Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES');
      await expectDynamoError(query({ ...base, Select: 'COUNT', ProjectionExpression: 'a' }), VALIDATION, 'Cannot specify the ProjectionExpression when choosing to get only the Count');
      await expectDynamoError(
        query({ TableName: stringTable, KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'x' }] } }, Select: 'COUNT', AttributesToGet: ['a'] }),
        VALIDATION,
        'Cannot specify the AttributesToGet when choosing to get only the Count',
      );
      await expectDynamoError(query({ ...base, Select: 'ALL_PROJECTED_ATTRIBUTES' }), VALIDATION, 'ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName');
      await expectDynamoError(
        query({ ...base, Select: 'ALL_PROJECTED_ATTRIBUTES', ProjectionExpression: 'a', IndexName: 'gsi-gk' }),
        VALIDATION,
        'Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES',
      );
    });

    test('secondary indexes: unknown ones as DynamoDB says; keyed by the index key schema', async () => {
      const base = { KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'x' } } };
      await expectDynamoError(query({ ...base, TableName: stringTable, IndexName: 'whatever' }), VALIDATION, 'The table does not have the specified index: whatever');
      await expectDynamoError(query({ ...base, TableName: indexedTable, IndexName: 'gsi-gk' }), VALIDATION, 'Query condition missed key schema element: gk');
      assert.equal((await query({ ...base, TableName: indexedTable, IndexName: 'lsi-gk' })).Count, 0);
    });

    test('the key condition against the key schema', async () => {
      const cases: [string, Omit<QueryCommandInput, 'TableName'>, string][] = [
        [hashTable, { KeyConditionExpression: 'z = :a', ExpressionAttributeValues: { ':a': { S: '1' } } }, 'Query condition missed key schema element: pk'],
        [hashTable, { KeyConditionExpression: 'pk > :a', ExpressionAttributeValues: { ':a': { S: '1' } } }, 'Query key condition not supported'],
        [hashTable, { KeyConditionExpression: 'begins_with(pk, :a)', ExpressionAttributeValues: { ':a': { S: '1' } } }, 'Query key condition not supported'],
        [hashTable, { KeyConditionExpression: 'pk = :a AND b = :a', ExpressionAttributeValues: { ':a': { S: '1' } } }, 'Query key condition not supported'],
        [hashTable, { KeyConditionExpression: ':a > pk', ExpressionAttributeValues: { ':a': { N: '1' } } }, INVALID + 'Condition parameter type does not match schema type'],
        [stringTable, { KeyConditionExpression: 'pk = :a AND c = :a', ExpressionAttributeValues: { ':a': { S: '1' } } }, 'Query condition missed key schema element: sk'],
        [stringTable, { KeyConditionExpression: 'pk = :a AND sk > :n', ExpressionAttributeValues: { ':a': { S: '1' }, ':n': { N: '1' } } }, INVALID + 'Condition parameter type does not match schema type'],
        [stringTable, { KeyConditionExpression: 'sk = :a', ExpressionAttributeValues: { ':a': { S: '1' } } }, 'Query condition missed key schema element: pk'],
        [hashTable, { KeyConditions: { pk: { ComparisonOperator: 'NE', AttributeValueList: [{ S: 'a' }] } } }, 'Attempted conditional constraint is not an indexable operation'],
        [hashTable, { KeyConditions: { pk: { ComparisonOperator: 'LE', AttributeValueList: [{ S: 'a' }] } } }, 'Query key condition not supported'],
        [hashTable, { KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ N: '1' }] } } }, INVALID + 'Condition parameter type does not match schema type'],
        [hashTable, { KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'a' }] }, b: { ComparisonOperator: 'NULL' } } }, 'Query key condition not supported'],
        [
          stringTable,
          { KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'a' }] }, sk: { ComparisonOperator: 'CONTAINS', AttributeValueList: [{ S: 'a' }] } } },
          'Attempted conditional constraint is not an indexable operation',
        ],
        [
          stringTable,
          { KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'a' }] }, x: { ComparisonOperator: 'NULL' } } },
          'Query condition missed key schema element: sk',
        ],
        [stringTable, { KeyConditionExpression: 'pk = :e', ExpressionAttributeValues: { ':e': { S: '' } } }, 'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk'],
        [
          stringTable,
          { KeyConditionExpression: 'pk = :p AND begins_with(sk, :e)', ExpressionAttributeValues: { ':p': { S: 'p' }, ':e': { S: '' } } },
          'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: sk',
        ],
        [
          stringTable,
          { KeyConditionExpression: 'pk = :p AND sk = :big', ExpressionAttributeValues: { ':p': { S: 'p' }, ':big': { S: 'x'.repeat(1025) } } },
          INVALID + 'Aggregated size of all range keys has exceeded the size limit of 1024 bytes',
        ],
        [
          stringTable,
          { KeyConditionExpression: 'pk = :big', ExpressionAttributeValues: { ':big': { S: 'x'.repeat(70_000) } } },
          INVALID + 'Size of hashkey has exceeded the maximum size limit of2048 bytes',
        ],
      ];
      for (const [tableName, input, message] of cases) {
        await expectDynamoError(query({ ...input, TableName: tableName }), VALIDATION, message);
      }
    });

    test('ExclusiveStartKey against the key schema and the key condition, in DynamoDB order', async () => {
      // A wrong attribute count has its own text, quoted from DynamoDB in user test suites (e.g. an
      // API's tests asserting "Exclusive Start Key must have same size as table's key schema");
      // the other texts are dynalite's record.
      const SIZE_MISMATCH = "Exclusive Start Key must have same size as table's key schema";
      const onA = { KeyConditionExpression: 'pk = :a', ExpressionAttributeValues: { ':a': { S: 'a' } } };
      const cases: [string, Omit<QueryCommandInput, 'TableName'>, string][] = [
        [hashTable, { ...onA, ExclusiveStartKey: {} }, SIZE_MISMATCH],
        [hashTable, { ...onA, ExclusiveStartKey: { b: { S: 'a' } } }, 'The provided starting key is invalid'],
        [hashTable, { ...onA, ExclusiveStartKey: { pk: { S: 'a' }, b: { S: 'a' } } }, SIZE_MISMATCH],
        [hashTable, { ...onA, ExclusiveStartKey: { pk: { N: '1' } } }, 'The provided key element does not match the schema'],
        [hashTable, { ...onA, ExclusiveStartKey: { pk: { S: '' } } }, 'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk'],
        [stringTable, { ...onA, ExclusiveStartKey: { pk: { S: 'a' } } }, SIZE_MISMATCH],
        [stringTable, { ...onA, ExclusiveStartKey: { pk: { S: 'a' }, x: { S: 'a' } } }, 'The provided starting key is invalid'],
        [stringTable, { ...onA, ExclusiveStartKey: { pk: { S: 'a' }, sk: { N: '1' } } }, 'The provided key element does not match the schema'],
        // The partition key's condition is checked before the start key's sort key.
        [
          stringTable,
          { KeyConditionExpression: 'z = :a', ExpressionAttributeValues: { ':a': { S: 'a' } }, ExclusiveStartKey: { pk: { S: 'a' }, sk: { N: '1' } } },
          'Query condition missed key schema element: pk',
        ],
        [hashTable, { ...onA, ExclusiveStartKey: { pk: { S: 'b' } } }, 'The provided starting key is outside query boundaries based on provided conditions'],
        [stringTable, { ...onA, ExclusiveStartKey: { pk: { S: 'b' }, sk: { S: 'a' } } }, 'The provided starting key is outside query boundaries based on provided conditions'],
        [
          stringTable,
          { KeyConditionExpression: 'pk = :b and sk > :b', ExpressionAttributeValues: { ':b': { S: 'b' } }, ExclusiveStartKey: { pk: { S: 'a' }, sk: { S: 'a' } } },
          'The provided starting key does not match the range key predicate',
        ],
        [
          stringTable,
          { KeyConditionExpression: 'pk = :b and sk < :b', ExpressionAttributeValues: { ':b': { S: 'b' } }, ExclusiveStartKey: { pk: { S: 'a' }, sk: { S: 'a' } } },
          'The query can return at most one row and cannot be restarted',
        ],
        [
          stringTable,
          {
            KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'b' }] }, sk: { ComparisonOperator: 'GT', AttributeValueList: [{ S: 'a' }] } },
            ExclusiveStartKey: { pk: { S: 'b' }, sk: { S: 'a' } },
          },
          'The provided starting key does not match the range key predicate',
        ],
      ];
      for (const [tableName, input, message] of cases) {
        await expectDynamoError(query({ ...input, TableName: tableName }), VALIDATION, message);
      }
    });

    test('filters may not name the primary key; key attributes are scalars in projections and filters', async () => {
      const base = { TableName: indexedTable, KeyConditionExpression: 'pk = :a' };
      await expectDynamoError(
        query({ ...base, FilterExpression: 'attribute_exists(pk.b) AND x = :b', ExpressionAttributeValues: { ':a': { S: '1' }, ':b': { N: '1' } } }),
        VALIDATION,
        'Filter Expression can only contain non-primary key attributes: Primary key attribute: pk',
      );
      await expectDynamoError(
        query({ ...base, FilterExpression: 'sk = :b', ExpressionAttributeValues: { ':a': { S: '1' }, ':b': { S: '1' } } }),
        VALIDATION,
        'Filter Expression can only contain non-primary key attributes: Primary key attribute: sk',
      );
      await expectDynamoError(
        query({
          TableName: indexedTable,
          KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'a' }] } },
          QueryFilter: { sk: { ComparisonOperator: 'NULL' } },
        }),
        VALIDATION,
        'QueryFilter can only contain non-primary key attributes: Primary key attribute: sk',
      );
      await expectDynamoError(
        query({ ...base, FilterExpression: 'gk[1] = :b', ExpressionAttributeValues: { ':a': { S: '1' }, ':b': { N: '1' } } }),
        VALIDATION,
        "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: IndexKey: gk",
      );
      await expectDynamoError(
        query({ ...base, ProjectionExpression: 'sk.x, y', ExpressionAttributeValues: { ':a': { S: '1' } } }),
        VALIDATION,
        "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: sk",
      );
    });
  });

  describe('functionality', () => {
    test('an empty partition answers Count 0 and no items', async () => {
      const result = await query({ TableName: stringTable, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'nothing' } } });
      assert.deepEqual(result.Items, []);
      assert.equal(result.Count, 0);
      assert.equal(result.ScannedCount, 0);
      assert.equal(result.LastEvaluatedKey, undefined);
    });

    test('a hash-only table answers the one item of its partition', async () => {
      const result = await query({ TableName: hashTable, KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'two' }] } }, ConsistentRead: true });
      assert.deepEqual(result.Items, [{ pk: { S: 'two' }, v: { N: '2' } }]);
      assert.equal(result.Count, 1);
      assert.equal(result.ScannedCount, 1);
    });

    const operatorSuites: [string, string, AttributeValue[], AttributeValue[]][] = [
      ['S', 'strings', S_SORT_KEYS.map((S) => ({ S })), ['a', 'ab', '\uFFFD', 'é', '0', '\u{10000}'].map((S) => ({ S }))],
      ['N', 'numbers', N_SORT_KEYS.map((N) => ({ N })), ['0', '-1', '1.5', '1E-130', '-100', '1E125'].map((N) => ({ N }))],
      ['B', 'bytes', B_SORT_KEYS.map((bytes) => ({ B: new Uint8Array(bytes) })), [[0x00], [0xff], [0x61], [0x61, 0x62], [0x7f, 0x00]].map((bytes) => ({ B: new Uint8Array(bytes) }))],
    ];
    const tableOf: Record<string, string> = { S: stringTable, N: numberTable, B: binaryTable };

    for (const [type, partition, values, pivots] of operatorSuites) {
      test(`${type} sort keys: the partition in DynamoDB order, both directions`, async () => {
        const expected = [...values].sort(compareKeyValues).map(keyText);
        const base = { TableName: tableOf[type]!, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: partition } } };
        assert.deepEqual(sortKeys(await query(base)), expected);
        assert.deepEqual(sortKeys(await query({ ...base, ScanIndexForward: false })), [...expected].reverse());
      });

      test(`${type} sort keys: every key condition operator, expression and legacy, both directions`, async () => {
        const sorted = [...values].sort(compareKeyValues);
        for (const pivot of pivots) {
          for (const [expression, legacy, holds] of operatorCases(type, pivot, pivots)) {
            const expected = sorted.filter(holds).map(keyText);
            for (const forward of [true, false]) {
              const want = forward ? expected : [...expected].reverse();
              const viaExpression = await query({
                TableName: tableOf[type]!,
                KeyConditionExpression: `pk = :p AND ${expression}`,
                ExpressionAttributeValues: {
                  ':p': { S: partition },
                  ':v': pivot,
                  ...(expression.includes(':w') ? { ':w': upperOf(pivot, pivots) } : {}),
                },
                ScanIndexForward: forward,
              }).catch((error: Error) => {
                throw new Error(`${expression} with ${keyText(pivot)}: ${error.message}`);
              });
              assert.deepEqual(sortKeys(viaExpression), want, `${expression} with ${keyText(pivot)}, forward ${forward}`);
              const viaLegacy = await query({
                TableName: tableOf[type]!,
                KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: partition }] }, sk: legacy },
                ScanIndexForward: forward,
              });
              assert.deepEqual(sortKeys(viaLegacy), want, `${legacy.ComparisonOperator} with ${keyText(pivot)}, forward ${forward}`);
            }
          }
        }
      });
    }

    test('Limit, LastEvaluatedKey and ExclusiveStartKey page through 1,000 items exactly once, in order, both ways', async () => {
      const items: Item[] = [];
      for (let index = 0; index < 1000; index++) items.push({ pk: { S: 'page' }, sk: { N: String(index) }, third: { BOOL: index % 3 === 0 } });
      await putAll(twin.client, numberTable, items);
      for (const forward of [true, false]) {
        const seen: string[] = [];
        let startKey: Record<string, AttributeValue> | undefined;
        let pages = 0;
        do {
          const page = await query({
            TableName: numberTable,
            KeyConditionExpression: 'pk = :p',
            ExpressionAttributeValues: { ':p': { S: 'page' } },
            Limit: 7,
            ScanIndexForward: forward,
            ExclusiveStartKey: startKey,
          });
          pages++;
          assert.ok((page.Count ?? 0) <= 7);
          seen.push(...sortKeys(page));
          startKey = page.LastEvaluatedKey;
          if (startKey !== undefined) assert.deepEqual(startKey, { pk: { S: 'page' }, sk: page.Items!.at(-1)!.sk });
        } while (startKey !== undefined);
        const expected = items.map((item) => item.sk!.N!);
        assert.deepEqual(seen, forward ? expected : expected.reverse());
        assert.equal(pages, Math.ceil(1000 / 7));
      }
    });

    test('Limit counts items read: a filter makes Count smaller than ScannedCount', async () => {
      let count = 0;
      let scanned = 0;
      let startKey: Record<string, AttributeValue> | undefined;
      do {
        const page = await query({
          TableName: numberTable,
          KeyConditionExpression: 'pk = :p',
          FilterExpression: 'third = :t',
          ExpressionAttributeValues: { ':p': { S: 'page' }, ':t': { BOOL: true } },
          Limit: 10,
          ExclusiveStartKey: startKey,
        });
        assert.equal(page.ScannedCount, page.LastEvaluatedKey === undefined ? 0 : 10);
        assert.ok(page.Items!.every((item) => item.third?.BOOL === true));
        count += page.Count ?? 0;
        scanned += page.ScannedCount ?? 0;
        startKey = page.LastEvaluatedKey;
      } while (startKey !== undefined);
      assert.equal(count, 334);
      assert.equal(scanned, 1000);
    });

    test('Limit equal to what is left still answers a LastEvaluatedKey; the next page is empty', async () => {
      const base = { TableName: stringTable, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'other' } } };
      const first = await query({ ...base, Limit: 1 });
      assert.equal(first.Count, 1);
      assert.deepEqual(first.LastEvaluatedKey, { pk: { S: 'other' }, sk: { S: 'a' } });
      const second = await query({ ...base, Limit: 1, ExclusiveStartKey: first.LastEvaluatedKey });
      assert.deepEqual(second.Items, []);
      assert.equal(second.LastEvaluatedKey, undefined);
    });

    test('ExclusiveStartKey continues after the key in either direction', async () => {
      const base = { TableName: stringTable, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'strings' } } };
      const order = [...S_SORT_KEYS].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      const startKey = { pk: { S: 'strings' }, sk: { S: 'ab' } };
      const at = order.indexOf('ab');
      assert.deepEqual(sortKeys(await query({ ...base, ExclusiveStartKey: startKey })), order.slice(at + 1));
      assert.deepEqual(sortKeys(await query({ ...base, ExclusiveStartKey: startKey, ScanIndexForward: false })), order.slice(0, at).reverse());
    });

    test('a page stops once the items read reach 1 MB, the crossing item included', async () => {
      const data = 'x'.repeat(100_000);
      const items: Item[] = [];
      for (let index = 0; index < 15; index++) items.push({ pk: { S: 'big' }, sk: { N: String(index) }, even: { BOOL: index % 2 === 0 }, data: { S: data } });
      await putAll(twin.client, numberTable, items);
      const sizes = items.map((item) => itemSize(item as unknown as AttributeMap));
      let total = 0;
      let firstPage = 0;
      while (total < PAGE_BYTES) total += sizes[firstPage++]!;
      assert.ok(firstPage > 1 && firstPage < 15, 'the test items must cross 1 MB inside the partition');
      const base = {
        TableName: numberTable,
        KeyConditionExpression: 'pk = :p',
        FilterExpression: 'even = :t',
        ExpressionAttributeValues: { ':p': { S: 'big' }, ':t': { BOOL: true } },
        ReturnConsumedCapacity: 'TOTAL' as const,
      };
      const first = await query(base);
      assert.equal(first.ScannedCount, firstPage);
      assert.equal(first.Count, Math.ceil(firstPage / 2));
      assert.deepEqual(first.LastEvaluatedKey, { pk: { S: 'big' }, sk: { N: String(firstPage - 1) } });
      assert.deepEqual(first.ConsumedCapacity, { TableName: numberTable, CapacityUnits: Math.ceil(total / 4096) * 0.5 });
      const rest = await query({ ...base, ExclusiveStartKey: first.LastEvaluatedKey, ConsistentRead: true });
      const restBytes = sizes.slice(firstPage).reduce((sum, size) => sum + size, 0);
      assert.equal(rest.ScannedCount, 15 - firstPage);
      assert.equal(rest.LastEvaluatedKey, undefined);
      assert.deepEqual(rest.ConsumedCapacity, { TableName: numberTable, CapacityUnits: Math.ceil(restBytes / 4096) });
    });

    test('Select COUNT answers counts only, LastEvaluatedKey included', async () => {
      const result = await query({
        TableName: stringTable,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': { S: 'strings' } },
        Select: 'COUNT',
        Limit: 3,
      });
      assert.equal(result.Items, undefined);
      assert.equal(result.Count, 3);
      assert.equal(result.ScannedCount, 3);
      assert.ok(result.LastEvaluatedKey !== undefined);
    });

    test('ProjectionExpression, AttributesToGet and SPECIFIC_ATTRIBUTES return the named attributes only', async () => {
      await putAll(twin.client, stringTable, [
        { pk: { S: 'proj' }, sk: { S: '1' }, a: { S: 'a1' }, m: { M: { x: { N: '1' }, y: { N: '2' } } }, l: { L: [{ S: 'l0' }, { S: 'l1' }] } },
        { pk: { S: 'proj' }, sk: { S: '2' }, b: { S: 'b2' } },
      ]);
      const base = { TableName: stringTable, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'proj' } } };
      const projected = await query({ ...base, ProjectionExpression: 'a, #m.y, l[1]', ExpressionAttributeNames: { '#m': 'm' } });
      assert.deepEqual(projected.Items, [{ a: { S: 'a1' }, m: { M: { y: { N: '2' } } }, l: { L: [{ S: 'l1' }] } }, {}]);
      const specific = await query({ ...base, ProjectionExpression: 'b, sk', Select: 'SPECIFIC_ATTRIBUTES' });
      assert.deepEqual(specific.Items, [{ sk: { S: '1' } }, { sk: { S: '2' }, b: { S: 'b2' } }]);
      const legacy = await query({
        TableName: stringTable,
        KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'proj' }] } },
        AttributesToGet: ['b', 'pk'],
      });
      assert.deepEqual(legacy.Items, [{ pk: { S: 'proj' } }, { pk: { S: 'proj' }, b: { S: 'b2' } }]);
    });

    test('QueryFilter with ConditionalOperator, and KeyConditions alongside expressions', async () => {
      const result = await query({
        TableName: stringTable,
        KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'strings' }] } },
        QueryFilter: {
          i: { ComparisonOperator: 'LT', AttributeValueList: [{ N: '2' }] },
          missing: { ComparisonOperator: 'NOT_NULL' },
        },
        ConditionalOperator: 'OR',
      });
      assert.deepEqual(sortKeys(result).sort(), ['10', '2']);
      assert.equal(result.ScannedCount, S_SORT_KEYS.length);
      const mixed = await query({
        TableName: stringTable,
        KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'strings' }] } },
        FilterExpression: 'i = :zero',
        ProjectionExpression: 'sk',
        ExpressionAttributeValues: { ':zero': { N: '0' } },
      });
      assert.deepEqual(mixed.Items, [{ sk: { S: '10' } }]);
    });

    test('ConsumedCapacity: TOTAL and INDEXES shapes, eventual and strong, at least one unit even for nothing', async () => {
      const base = { TableName: stringTable, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'nothing' } } };
      assert.deepEqual((await query({ ...base, ReturnConsumedCapacity: 'TOTAL' })).ConsumedCapacity, { TableName: stringTable, CapacityUnits: 0.5 });
      assert.deepEqual((await query({ ...base, ReturnConsumedCapacity: 'TOTAL', ConsistentRead: true })).ConsumedCapacity, {
        TableName: stringTable,
        CapacityUnits: 1,
      });
      assert.deepEqual((await query({ ...base, ReturnConsumedCapacity: 'INDEXES' })).ConsumedCapacity, {
        TableName: stringTable,
        CapacityUnits: 0.5,
        Table: { CapacityUnits: 0.5 },
      });
      assert.equal((await query({ ...base, ReturnConsumedCapacity: 'NONE' })).ConsumedCapacity, undefined);
      const read = await query({
        ...base,
        ExpressionAttributeValues: { ':p': { S: 'strings' }, ':none': { N: '-1' } },
        ReturnConsumedCapacity: 'TOTAL',
        FilterExpression: 'i = :none',
      });
      assert.equal(read.Count, 0);
      assert.equal(read.ConsumedCapacity?.CapacityUnits, 0.5, 'filtered-out items are read and charged, rounded once per page');
    });

    test('the DocumentClient: QueryCommand and paginateQuery', async () => {
      const direct = await twin.documentClient.send(
        new DocumentQueryCommand({
          TableName: numberTable,
          KeyConditionExpression: 'pk = :p AND sk BETWEEN :lo AND :hi',
          ExpressionAttributeValues: { ':p': 'page', ':lo': 10, ':hi': 12 },
        }),
      );
      assert.deepEqual(direct.Items, [10, 11, 12].map((sk) => ({ pk: 'page', sk, third: sk % 3 === 0 })));
      const seen: number[] = [];
      let pages = 0;
      const paginator = paginateQuery(
        { client: twin.documentClient, pageSize: 7 },
        { TableName: numberTable, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'page' }, ScanIndexForward: false },
      );
      for await (const page of paginator) {
        pages++;
        for (const item of page.Items ?? []) seen.push(item.sk as number);
      }
      assert.equal(seen.length, 1000);
      assert.deepEqual(seen, [...Array(1000).keys()].reverse());
      assert.equal(pages, Math.ceil(1000 / 7));
    });
  });
});

/**
 * Key condition operators on the sort key with their legacy form and an oracle. `:v` is the pivot
 * and `:w` a value not below it (BETWEEN's upper bound).
 */
function operatorCases(
  type: string,
  pivot: AttributeValue,
  pivots: readonly AttributeValue[],
): [string, { ComparisonOperator: 'EQ' | 'LT' | 'LE' | 'GT' | 'GE' | 'BETWEEN' | 'BEGINS_WITH'; AttributeValueList: AttributeValue[] }, (value: AttributeValue) => boolean][] {
  const upper = upperOf(pivot, pivots);
  const order = (value: AttributeValue): number => compareKeyValues(value, pivot);
  const cases: ReturnType<typeof operatorCases> = [
    ['sk = :v', { ComparisonOperator: 'EQ', AttributeValueList: [pivot] }, (value) => order(value) === 0],
    ['sk < :v', { ComparisonOperator: 'LT', AttributeValueList: [pivot] }, (value) => order(value) < 0],
    ['sk <= :v', { ComparisonOperator: 'LE', AttributeValueList: [pivot] }, (value) => order(value) <= 0],
    ['sk > :v', { ComparisonOperator: 'GT', AttributeValueList: [pivot] }, (value) => order(value) > 0],
    ['sk >= :v', { ComparisonOperator: 'GE', AttributeValueList: [pivot] }, (value) => order(value) >= 0],
    [
      'sk BETWEEN :v AND :w',
      { ComparisonOperator: 'BETWEEN', AttributeValueList: [pivot, upper] },
      (value) => order(value) >= 0 && compareKeyValues(value, upper) <= 0,
    ],
  ];
  if (type !== 'N') {
    const prefix = bytesOf(pivot);
    cases.push([
      'begins_with(sk, :v)',
      { ComparisonOperator: 'BEGINS_WITH', AttributeValueList: [pivot] },
      (value) => {
        const bytes = bytesOf(value);
        return bytes.length >= prefix.length && bytes.subarray(0, prefix.length).equals(prefix);
      },
    ]);
  }
  return cases;
}

function bytesOf(value: AttributeValue): Buffer {
  return value.S !== undefined ? Buffer.from(value.S, 'utf8') : Buffer.from(value.B!);
}

/** The smallest pivot above `pivot`, or `pivot` itself: a valid BETWEEN upper bound. */
function upperOf(pivot: AttributeValue, pivots: readonly AttributeValue[]): AttributeValue {
  const above = pivots.filter((candidate) => compareKeyValues(candidate, pivot) > 0).sort(compareKeyValues);
  return above[0] ?? pivot;
}
