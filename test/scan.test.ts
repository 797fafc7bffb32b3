/**
 * Scan through the AWS SDK: serialization, validation (DynamoDB's texts and their order) and
 * functionality — hash order, pagination, parallel segments that cover every item exactly once,
 * the 1 MB page, filters (expression and ScanFilter), Select, projections and consumed capacity.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ScanCommand, type AttributeValue, type ScanCommandInput, type ScanCommandOutput } from '@aws-sdk/client-dynamodb';
import { paginateScan } from '@aws-sdk/lib-dynamodb';
import type { AttributeMap } from '../src/model/attribute-value.js';
import { itemSize } from '../src/model/item-size.js';
import { hashPartitionKey } from '../src/model/key-codec.js';
import { callOperation } from './support/raw.js';
import { createTable, putAll, type Item } from './support/read-tables.js';
import { expectDynamoError, startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

const INVALID = 'One or more parameter values were invalid: ';
const VALIDATION = 'ValidationException';
const START_KEY_INVALID = 'The provided starting key is invalid: ';
const PAGE_BYTES = 1024 * 1024;
const ITEM_COUNT = 1000;

describe('Scan', () => {
  let twin: TwinClients;
  const manyTable = uniqueTableName('scan-many');
  const rangeTable = uniqueTableName('scan-range');
  const bigTable = uniqueTableName('scan-big');
  const indexedTable = uniqueTableName('scan-indexed');
  const emptyTable = uniqueTableName('scan-empty');
  const items: Item[] = [];
  for (let index = 0; index < ITEM_COUNT; index++) {
    items.push({ pk: { S: `item-${String(index).padStart(4, '0')}` }, n: { N: String(index) }, fifth: { BOOL: index % 5 === 0 } });
  }

  before(async () => {
    // Bulk loads at full speed on the real clock would be throttled, as on DynamoDB; this suite
    // tests behaviour other than capacity, which test/capacity-*.test.ts and throttling.test.ts cover.
    twin = await startTwinWithClients();
    await createTable(twin.client, manyTable, { hash: ['pk', 'S'] });
    await createTable(twin.client, rangeTable, { hash: ['pk', 'S'], range: ['sk', 'N'] });
    await createTable(twin.client, bigTable, { hash: ['pk', 'S'] });
    await createTable(twin.client, emptyTable, { hash: ['pk', 'S'] });
    await createTable(twin.client, indexedTable, { hash: ['pk', 'S'], extraAttributes: [['gk', 'S']] }, { gsi: 'gsi-gk' });
    await putAll(twin.client, manyTable, items);
    await putAll(twin.client, rangeTable, [
      { pk: { S: 'a' }, sk: { N: '1' }, s: { S: 'hello' }, set: { SS: ['x', 'y'] }, b: { B: new Uint8Array([1, 2, 3]) } },
      { pk: { S: 'a' }, sk: { N: '2' }, s: { S: 'help' }, num: { N: '5' } },
      { pk: { S: 'b' }, sk: { N: '1' }, s: { S: 'world' }, num: { N: '10' }, list: { L: [{ S: 'e' }] } },
      { pk: { S: 'c' }, sk: { N: '-1' }, num: { N: '-3' }, flag: { BOOL: true }, nothing: { NULL: true } },
    ]);
  });
  after(async () => {
    await twin.close();
  });

  const scan = (input: ScanCommandInput): Promise<ScanCommandOutput> => twin.client.send(new ScanCommand(input));
  const keysOf = (output: ScanCommandOutput): string[] => (output.Items ?? []).map((item) => item.pk!.S!);

  /** Every page of a scan, following LastEvaluatedKey. */
  async function scanAll(input: ScanCommandInput): Promise<{ keys: string[]; pages: ScanCommandOutput[] }> {
    const keys: string[] = [];
    const pages: ScanCommandOutput[] = [];
    let startKey = input.ExclusiveStartKey;
    do {
      const page = await scan({ ...input, ExclusiveStartKey: startKey });
      pages.push(page);
      keys.push(...keysOf(page));
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    return { keys, pages };
  }

  describe('serialization', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['Segment', { TableName: 'abc', Segment: 'x' }, 'STRING_VALUE cannot be converted to Integer'],
      ['TotalSegments', { TableName: 'abc', TotalSegments: true }, 'TRUE_VALUE cannot be converted to Integer'],
      [
        'ScanFilter',
        { TableName: 'abc', ScanFilter: [] },
        'Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.Condition>',
      ],
      ['ScanFilter.Attr.ComparisonOperator', { TableName: 'abc', ScanFilter: { a: { ComparisonOperator: 1 } } }, 'NUMBER_VALUE cannot be converted to String'],
      ['ExclusiveStartKey', { TableName: 'abc', ExclusiveStartKey: 'x' }, 'Unexpected field type'],
      ['AttributesToGet', { TableName: 'abc', AttributesToGet: 'a' }, 'Unexpected field type'],
    ];
    for (const [member, body, message] of cases) {
      test(`${member} of the wrong JSON type is a SerializationException`, async () => {
        const response = await callOperation(twin.twin.endpoint, 'Scan', JSON.stringify(body));
        assert.equal(response.status, 400);
        assert.deepEqual(JSON.parse(response.text), { __type: 'com.amazon.coral.service#SerializationException', Message: message });
      });
    }
  });

  describe('validation', () => {
    test('member constraints are reported together, in DynamoDB order, at most ten', async () => {
      await expectDynamoError(
        scan({
          TableName: 'abc;',
          ReturnConsumedCapacity: 'hi' as never,
          AttributesToGet: [],
          IndexName: 'abc;',
          Segment: -1,
          TotalSegments: -1,
          Select: 'hi' as never,
          Limit: -1,
          ScanFilter: { a: {} as never, b: { ComparisonOperator: '' as never } },
          ConditionalOperator: 'AN' as never,
        }),
        VALIDATION,
        '10 validation errors detected: ' +
          "Value 'hi' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]; " +
          "Value 'abc;' at 'indexName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
          "Value '-1' at 'totalSegments' failed to satisfy constraint: Member must have value greater than or equal to 1; " +
          "Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
          "Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
          "Value 'AN' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]; " +
          "Value null at 'scanFilter.a.member.comparisonOperator' failed to satisfy constraint: Member must not be null; " +
          "Value '' at 'scanFilter.b.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]; " +
          "Value '-1' at 'segment' failed to satisfy constraint: Member must have value greater than or equal to 0; " +
          "Value '-1' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
      );
      await expectDynamoError(
        scan({ TableName: manyTable, Segment: 1_000_000, TotalSegments: 1_000_001 }),
        VALIDATION,
        '2 validation errors detected: ' +
          "Value '1000001' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000; " +
          "Value '1000000' at 'segment' failed to satisfy constraint: Member must have value less than or equal to 999999",
      );
    });

    test('expression and legacy parameters cannot be mixed', async () => {
      await expectDynamoError(
        scan({
          TableName: 'abc',
          ScanFilter: { a: { ComparisonOperator: 'NULL' } },
          AttributesToGet: ['a'],
          ConditionalOperator: 'OR',
          FilterExpression: 'a = b',
          ProjectionExpression: 'a',
        }),
        VALIDATION,
        'Can not use both expression and non-expression parameters in the same request: ' +
          'Non-expression parameters: {AttributesToGet, ScanFilter, ConditionalOperator} Expression parameters: {ProjectionExpression, FilterExpression}',
      );
      await expectDynamoError(
        scan({ TableName: 'abc', ExpressionAttributeValues: { ':a': { S: 'a' } } }),
        VALIDATION,
        'ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null',
      );
      await expectDynamoError(
        scan({ TableName: 'abc', ExpressionAttributeNames: { '#a': 'a' } }),
        VALIDATION,
        'ExpressionAttributeNames can only be specified when using expressions',
      );
    });

    test('AttributesToGet duplicates, then ScanFilter rules, then start key values, then segments', async () => {
      const badFilter = { a: { ComparisonOperator: 'LT' as const, AttributeValueList: [{ BOOL: true }] } };
      await expectDynamoError(
        scan({ TableName: 'abc', AttributesToGet: ['a', 'a'], ScanFilter: badFilter, Segment: 1 }),
        VALIDATION,
        INVALID + 'Duplicate value in attribute name: a',
      );
      await expectDynamoError(
        scan({ TableName: 'abc', ScanFilter: badFilter, ExclusiveStartKey: { a: { NULL: false } }, Segment: 1 }),
        VALIDATION,
        INVALID + 'ComparisonOperator LT is not valid for BOOL AttributeValue type',
      );
      await expectDynamoError(
        scan({ TableName: 'abc', ExclusiveStartKey: { a: { NULL: false } }, Segment: 1 }),
        VALIDATION,
        START_KEY_INVALID + INVALID + 'Null attribute value types must have the value of true',
      );
      await expectDynamoError(
        scan({ TableName: 'abc', ExclusiveStartKey: { a: { NS: [] } } }),
        VALIDATION,
        INVALID + 'An number set  may not be empty',
      );
      const filterCases: [Record<string, unknown>, string][] = [
        [{ a: { ComparisonOperator: 'NOT_NULL', AttributeValueList: [{ S: 'a' }] } }, INVALID + 'Invalid number of argument(s) for the NOT_NULL ComparisonOperator'],
        [{ a: { ComparisonOperator: 'IN' } }, INVALID + 'Invalid number of argument(s) for the IN ComparisonOperator'],
        [{ a: { ComparisonOperator: 'NOT_CONTAINS', AttributeValueList: [{ NS: ['1'] }] } }, INVALID + 'ComparisonOperator NOT_CONTAINS is not valid for NS AttributeValue type'],
        [{ a: { ComparisonOperator: 'GT', AttributeValueList: [{ NULL: true }] } }, INVALID + 'ComparisonOperator GT is not valid for NULL AttributeValue type'],
        [{ a: { ComparisonOperator: 'BETWEEN', AttributeValueList: [{ N: '2' }, { N: '1' }] } }, 'The BETWEEN condition was provided a range where the lower bound is greater than the upper bound'],
      ];
      for (const [scanFilter, message] of filterCases) {
        await expectDynamoError(scan({ TableName: 'abc', ScanFilter: scanFilter as never }), VALIDATION, message);
      }
    });

    test('Segment and TotalSegments come together, Segment below TotalSegments', async () => {
      await expectDynamoError(
        scan({ TableName: 'abc', Segment: 0 }),
        VALIDATION,
        'The TotalSegments parameter is required but was not present in the request when Segment parameter is present',
      );
      await expectDynamoError(
        scan({ TableName: 'abc', TotalSegments: 1 }),
        VALIDATION,
        'The Segment parameter is required but was not present in the request when parameter TotalSegments is present',
      );
      await expectDynamoError(
        scan({ TableName: 'abc', Segment: 1, TotalSegments: 1 }),
        VALIDATION,
        'The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 1 is not less than TotalSegments: 1',
      );
    });

    test('expressions are parsed before the table is looked up', async () => {
      await expectDynamoError(scan({ TableName: 'abc', FilterExpression: '' }), VALIDATION, 'Invalid FilterExpression: The expression can not be empty;');
      await expectDynamoError(
        scan({ TableName: 'abc', FilterExpression: 'a > :missing' }),
        VALIDATION,
        'Invalid FilterExpression: An expression attribute value used in expression is not defined; attribute value: :missing',
      );
      await expectDynamoError(
        scan({ TableName: 'abc', FilterExpression: 'a = :a', ExpressionAttributeValues: { ':a': { S: 'a' }, ':b': { S: 'b' } } }),
        VALIDATION,
        'Value provided in ExpressionAttributeValues unused in expressions: keys: {:b}',
      );
      await expectDynamoError(scan({ TableName: 'abc', ExclusiveStartKey: { z: { S: 'a' } } }), 'ResourceNotFoundException', 'Requested resource not found');
    });

    test('Select rules', async () => {
      await expectDynamoError(scan({ TableName: manyTable, Select: 'SPECIFIC_ATTRIBUTES' }), VALIDATION, 'Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES');
      await expectDynamoError(scan({ TableName: manyTable, Select: 'ALL_ATTRIBUTES', AttributesToGet: ['a'] }), VALIDATION, 'Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES');
      await expectDynamoError(scan({ TableName: manyTable, Select: 'COUNT', AttributesToGet: ['a'] }), VALIDATION, 'Cannot specify the AttributesToGet when choosing to get only the Count');
      await expectDynamoError(scan({ TableName: manyTable, Select: 'ALL_PROJECTED_ATTRIBUTES' }), VALIDATION, 'ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName');
    });

    test('secondary indexes: unknown ones as DynamoDB says; a GSI refuses strong consistency', async () => {
      await expectDynamoError(scan({ TableName: manyTable, IndexName: 'whatever' }), VALIDATION, 'The table does not have the specified index: whatever');
      await expectDynamoError(
        scan({ TableName: indexedTable, IndexName: 'gsi-gk', ConsistentRead: true }),
        VALIDATION,
        'Consistent reads are not supported on global secondary indexes',
      );
      assert.equal((await scan({ TableName: indexedTable, IndexName: 'gsi-gk' })).Count, 0);
    });

    test('ExclusiveStartKey must be a key of the table, and of the segment in a parallel scan', async () => {
      const cases: [string, Record<string, AttributeValue>, string][] = [
        [manyTable, {}, 'The provided key element does not match the schema'],
        [manyTable, { pk: { S: 'a' }, b: { S: 'a' } }, 'The provided key element does not match the schema'],
        [manyTable, { pk: { N: '1' } }, 'The provided key element does not match the schema'],
        [manyTable, { pk: { S: '' } }, 'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk'],
        [rangeTable, { pk: { S: 'a' } }, 'The provided key element does not match the schema'],
        [rangeTable, { pk: { S: 'a' }, sk: { S: '1' } }, 'The provided key element does not match the schema'],
        [rangeTable, { pk: { S: 'a' }, z: { N: '1' } }, 'The provided key element does not match the schema'],
        [rangeTable, { pk: { S: 'a'.repeat(2049) }, sk: { N: '1' } }, INVALID + 'Size of hashkey has exceeded the maximum size limit of2048 bytes'],
      ];
      for (const [tableName, startKey, message] of cases) {
        await expectDynamoError(scan({ TableName: tableName, ExclusiveStartKey: startKey }), VALIDATION, START_KEY_INVALID + message);
      }
      const second = await scan({ TableName: manyTable, Segment: 1, TotalSegments: 2, Limit: 1 });
      assert.ok(second.LastEvaluatedKey !== undefined);
      await expectDynamoError(
        scan({ TableName: manyTable, Segment: 0, TotalSegments: 2, ExclusiveStartKey: second.LastEvaluatedKey }),
        VALIDATION,
        START_KEY_INVALID + 'Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: 2 Segment: 0',
      );
    });

    test('key attributes are scalars in filters and projections', async () => {
      const scalars = "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: ";
      await expectDynamoError(
        scan({ TableName: indexedTable, FilterExpression: 'attribute_exists(pk.b.c) and #a = b', ExpressionAttributeNames: { '#a': 'x' } }),
        VALIDATION,
        scalars + 'Key: pk',
      );
      await expectDynamoError(
        scan({ TableName: indexedTable, FilterExpression: 'attribute_exists(#a[0])', ExpressionAttributeNames: { '#a': 'pk' } }),
        VALIDATION,
        scalars + 'Key: pk',
      );
      await expectDynamoError(scan({ TableName: indexedTable, ProjectionExpression: 'x, gk.y' }), VALIDATION, scalars + 'IndexKey: gk');
      // A whole key attribute may be filtered and projected in a Scan.
      await scan({ TableName: indexedTable, FilterExpression: 'pk = :p', ProjectionExpression: 'pk, gk', ExpressionAttributeValues: { ':p': { S: 'x' } } });
    });
  });

  describe('functionality', () => {
    test('an empty table answers Count 0 and no items', async () => {
      const result = await scan({ TableName: emptyTable, ReturnConsumedCapacity: 'TOTAL' });
      assert.deepEqual(result.Items, []);
      assert.equal(result.Count, 0);
      assert.equal(result.ScannedCount, 0);
      assert.equal(result.LastEvaluatedKey, undefined);
      assert.deepEqual(result.ConsumedCapacity, { TableName: emptyTable, CapacityUnits: 0.5 });
    });

    test('a scan returns every item once, ordered by the hash of the partition key', async () => {
      const result = await scan({ TableName: manyTable });
      assert.equal(result.Count, ITEM_COUNT);
      assert.equal(result.ScannedCount, ITEM_COUNT);
      assert.equal(result.LastEvaluatedKey, undefined);
      const keys = keysOf(result);
      assert.deepEqual([...keys].sort(), items.map((item) => item.pk!.S!));
      const hashes = keys.map((key) => hashPartitionKey(Buffer.from(key, 'utf8')));
      for (let index = 1; index < hashes.length; index++) assert.ok(hashes[index - 1]! <= hashes[index]!, `hash order at ${index}`);
      assert.notDeepEqual(keys, [...keys].sort(), 'hash order is not key order');
    });

    test('Limit pages through 1,000 items exactly once, in the same order as one full scan', async () => {
      const full = keysOf(await scan({ TableName: manyTable }));
      const { keys, pages } = await scanAll({ TableName: manyTable, Limit: 7 });
      assert.deepEqual(keys, full);
      assert.equal(pages.length, Math.ceil(ITEM_COUNT / 7));
      for (const page of pages.slice(0, -1)) {
        assert.equal(page.Count, 7);
        assert.deepEqual(page.LastEvaluatedKey, { pk: page.Items!.at(-1)!.pk });
      }
    });

    test('Limit counts items read: a filter makes Count smaller than ScannedCount', async () => {
      const { keys, pages } = await scanAll({
        TableName: manyTable,
        Limit: 100,
        FilterExpression: 'fifth = :t',
        ExpressionAttributeValues: { ':t': { BOOL: true } },
      });
      assert.equal(keys.length, ITEM_COUNT / 5);
      for (const page of pages.slice(0, 10)) assert.equal(page.ScannedCount, 100);
      assert.equal(pages.reduce((sum, page) => sum + (page.ScannedCount ?? 0), 0), ITEM_COUNT);
      assert.ok(pages.some((page) => page.Count !== page.ScannedCount));
    });

    test('a parallel scan over 4 segments returns every item exactly once, segment by segment in hash order', async () => {
      const full = keysOf(await scan({ TableName: manyTable }));
      const segments: string[][] = [];
      for (let segment = 0; segment < 4; segment++) {
        segments.push((await scanAll({ TableName: manyTable, Segment: segment, TotalSegments: 4, Limit: 33 })).keys);
      }
      const union = segments.flat();
      assert.equal(new Set(union).size, ITEM_COUNT, 'no item twice');
      assert.deepEqual(union, full, 'the segments are consecutive ranges of the hash order');
      for (const keys of segments) assert.ok(keys.length > 150 && keys.length < 350, `a segment holds about a quarter: ${keys.length}`);
      const one = await scanAll({ TableName: manyTable, Segment: 0, TotalSegments: 1 });
      assert.deepEqual(one.keys, full);
      const many = new Set<string>();
      for (let segment = 0; segment < 1000; segment += 111) {
        for (const key of (await scanAll({ TableName: manyTable, Segment: segment, TotalSegments: 1000 })).keys) many.add(key);
      }
      assert.ok(many.size < ITEM_COUNT);
    });

    test('a page stops once the items read reach 1 MB, the crossing item included', async () => {
      const data = 'x'.repeat(100_000);
      const bigItems: Item[] = [];
      for (let index = 0; index < 15; index++) bigItems.push({ pk: { S: `big-${index}` }, even: { BOOL: index % 2 === 0 }, data: { S: data } });
      await putAll(twin.client, bigTable, bigItems);
      const first = await scan({ TableName: bigTable, ReturnConsumedCapacity: 'INDEXES' });
      const sizes = first.Items!.map((item) => itemSize(item as unknown as AttributeMap));
      const total = sizes.reduce((sum, size) => sum + size, 0);
      assert.ok(total >= PAGE_BYTES && total - sizes.at(-1)! < PAGE_BYTES, 'the last item read crossed 1 MB');
      assert.ok(first.Count! < 15);
      assert.deepEqual(first.LastEvaluatedKey, { pk: first.Items!.at(-1)!.pk });
      const units = Math.ceil(total / 4096) * 0.5;
      assert.deepEqual(first.ConsumedCapacity, { TableName: bigTable, CapacityUnits: units, Table: { CapacityUnits: units } });
      const filtered = await scan({ TableName: bigTable, FilterExpression: 'even = :t', ExpressionAttributeValues: { ':t': { BOOL: true } } });
      assert.equal(filtered.ScannedCount, first.Count, 'the filter does not change what a page reads');
      assert.ok(filtered.Count! < filtered.ScannedCount!);
      const rest = await scanAll({ TableName: bigTable, ExclusiveStartKey: first.LastEvaluatedKey });
      assert.equal(rest.keys.length + first.Count!, 15);
    });

    test('ScanFilter: every comparison operator, AND and OR', async () => {
      const cases: [Record<string, unknown>, 'AND' | 'OR' | undefined, string[]][] = [
        [{ s: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'hello' }] } }, undefined, ['a/1']],
        [{ s: { ComparisonOperator: 'NE', AttributeValueList: [{ S: 'hello' }] } }, undefined, ['a/2', 'b/1', 'c/-1']],
        [{ num: { ComparisonOperator: 'LT', AttributeValueList: [{ N: '5' }] } }, undefined, ['c/-1']],
        [{ num: { ComparisonOperator: 'LE', AttributeValueList: [{ N: '5' }] } }, undefined, ['a/2', 'c/-1']],
        [{ num: { ComparisonOperator: 'GT', AttributeValueList: [{ N: '5' }] } }, undefined, ['b/1']],
        [{ num: { ComparisonOperator: 'GE', AttributeValueList: [{ N: '-3' }] } }, undefined, ['a/2', 'b/1', 'c/-1']],
        [{ num: { ComparisonOperator: 'BETWEEN', AttributeValueList: [{ N: '0' }, { N: '10' }] } }, undefined, ['a/2', 'b/1']],
        [{ num: { ComparisonOperator: 'IN', AttributeValueList: [{ N: '10' }, { N: '-3' }] } }, undefined, ['b/1', 'c/-1']],
        [{ s: { ComparisonOperator: 'BEGINS_WITH', AttributeValueList: [{ S: 'hel' }] } }, undefined, ['a/1', 'a/2']],
        [{ b: { ComparisonOperator: 'BEGINS_WITH', AttributeValueList: [{ B: new Uint8Array([1, 2]) }] } }, undefined, ['a/1']],
        [{ s: { ComparisonOperator: 'CONTAINS', AttributeValueList: [{ S: 'or' }] } }, undefined, ['b/1']],
        [{ set: { ComparisonOperator: 'CONTAINS', AttributeValueList: [{ S: 'y' }] } }, undefined, ['a/1']],
        [{ list: { ComparisonOperator: 'CONTAINS', AttributeValueList: [{ S: 'e' }] } }, undefined, ['b/1']],
        // A missing attribute does not contain anything (dynalite; DynamoDB Local answers false instead).
        [{ s: { ComparisonOperator: 'NOT_CONTAINS', AttributeValueList: [{ S: 'l' }] } }, undefined, ['c/-1']],
        [{ s: { ComparisonOperator: 'NULL' } }, undefined, ['c/-1']],
        [{ flag: { ComparisonOperator: 'NOT_NULL' } }, undefined, ['c/-1']],
        [{ flag: { ComparisonOperator: 'EQ', AttributeValueList: [{ BOOL: true }] } }, undefined, ['c/-1']],
        [{ nothing: { ComparisonOperator: 'EQ', AttributeValueList: [{ NULL: true }] } }, undefined, ['c/-1']],
        [{ set: { ComparisonOperator: 'EQ', AttributeValueList: [{ SS: ['y', 'x'] }] } }, undefined, ['a/1']],
        [{ s: { ComparisonOperator: 'BEGINS_WITH', AttributeValueList: [{ S: 'hel' }] }, num: { ComparisonOperator: 'NOT_NULL' } }, 'AND', ['a/2']],
        [{ s: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'world' }] }, flag: { ComparisonOperator: 'NOT_NULL' } }, 'OR', ['b/1', 'c/-1']],
      ];
      for (const [scanFilter, operator, expected] of cases) {
        const result = await scan({ TableName: rangeTable, ScanFilter: scanFilter as never, ConditionalOperator: operator });
        const found = (result.Items ?? []).map((item) => `${item.pk!.S}/${item.sk!.N}`).sort();
        assert.deepEqual(found, [...expected].sort(), JSON.stringify(scanFilter));
        assert.equal(result.ScannedCount, 4);
      }
    });

    test('Select COUNT, ProjectionExpression and AttributesToGet', async () => {
      const counted = await scan({ TableName: rangeTable, Select: 'COUNT', FilterExpression: 'attribute_exists(num)' });
      assert.equal(counted.Items, undefined);
      assert.equal(counted.Count, 3);
      assert.equal(counted.ScannedCount, 4);
      const projected = await scan({ TableName: rangeTable, ProjectionExpression: '#s, #l[0]', ExpressionAttributeNames: { '#s': 's', '#l': 'list' }, Select: 'SPECIFIC_ATTRIBUTES' });
      assert.deepEqual(
        projected.Items!.map((item) => JSON.stringify(item)).sort(),
        [{ s: { S: 'hello' } }, { s: { S: 'help' } }, { s: { S: 'world' }, list: { L: [{ S: 'e' }] } }, {}].map((item) => JSON.stringify(item)).sort(),
      );
      const legacy = await scan({ TableName: rangeTable, AttributesToGet: ['sk', 'flag'] });
      assert.deepEqual(
        legacy.Items!.map((item) => JSON.stringify(item)).sort(),
        [{ sk: { N: '1' } }, { sk: { N: '2' } }, { sk: { N: '1' } }, { sk: { N: '-1' }, flag: { BOOL: true } }].map((item) => JSON.stringify(item)).sort(),
      );
    });

    test('ConsumedCapacity sums every item read and rounds once; ConsistentRead doubles it', async () => {
      const all = await scan({ TableName: manyTable, ReturnConsumedCapacity: 'TOTAL' });
      const bytes = all.Items!.reduce((sum, item) => sum + itemSize(item as unknown as AttributeMap), 0);
      assert.deepEqual(all.ConsumedCapacity, { TableName: manyTable, CapacityUnits: Math.ceil(bytes / 4096) * 0.5 });
      const strong = await scan({ TableName: manyTable, ReturnConsumedCapacity: 'TOTAL', ConsistentRead: true, Select: 'COUNT' });
      assert.deepEqual(strong.ConsumedCapacity, { TableName: manyTable, CapacityUnits: Math.ceil(bytes / 4096) });
    });

    test('the DocumentClient: paginateScan, whole and by segment', async () => {
      const seen: string[] = [];
      let pages = 0;
      for await (const page of paginateScan({ client: twin.documentClient, pageSize: 100 }, { TableName: manyTable })) {
        pages++;
        for (const item of page.Items ?? []) seen.push(item.pk as string);
      }
      assert.equal(new Set(seen).size, ITEM_COUNT);
      assert.equal(seen.length, ITEM_COUNT);
      assert.equal(pages, ITEM_COUNT / 100 + 1, 'a full last page still carries a LastEvaluatedKey');
      const bySegment: string[] = [];
      for (let segment = 0; segment < 3; segment++) {
        const paginator = paginateScan(
          { client: twin.documentClient, pageSize: 64 },
          { TableName: manyTable, Segment: segment, TotalSegments: 3, FilterExpression: 'fifth = :t', ExpressionAttributeValues: { ':t': true } },
        );
        for await (const page of paginator) for (const item of page.Items ?? []) bySegment.push(item.pk as string);
      }
      assert.equal(bySegment.length, ITEM_COUNT / 5);
      assert.equal(new Set(bySegment).size, ITEM_COUNT / 5);
    });
  });
});
