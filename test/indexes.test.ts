/**
 * Secondary indexes through the AWS SDK: maintenance on every kind of write (sparse indexes, key
 * changes moving entries), the seed articles' designs (seed 000: the low-cardinality `status` GSI
 * and the sparse `unUsedId` GSI; seed 003: no strong reads on a GSI), Query and Scan on GSIs and
 * LSIs (order, pagination, projections, LSI fetches), DescribeTable's live index statistics.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  DescribeTableCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
  type AttributeValue,
  type QueryCommandInput,
  type QueryCommandOutput,
  type ScanCommandInput,
} from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { itemSize } from '../src/model/item-size.js';
import type { AttributeMap } from '../src/model/attribute-value.js';
import { compareKeyValues, keyText, type Item } from './support/read-tables.js';
import { betterSeedArticleTable, seedArticleTable } from './support/seeds.js';
import { attributes, createUniqueTable, globalIndex, keySchema, localIndex } from './support/tables.js';
import { expectDynamoError, startTwinWithClients, type TwinClients } from './support/twin.js';

const VALIDATION = 'ValidationException';
const INVALID = 'One or more parameter values were invalid: ';

describe('secondary indexes', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients();
  });
  after(async () => {
    await twin.close();
  });

  const query = (input: QueryCommandInput): Promise<QueryCommandOutput> => twin.client.send(new QueryCommand(input));
  const describeTable = async (name: string) => (await twin.client.send(new DescribeTableCommand({ TableName: name }))).Table!;
  const gsiOf = async (table: string, index: string) => (await describeTable(table)).GlobalSecondaryIndexes!.find((gsi) => gsi.IndexName === index)!;

  /** Every item a Query or Scan returns, page by page, with the LastEvaluatedKeys seen. */
  async function readAll(input: QueryCommandInput | ScanCommandInput, kind: 'Query' | 'Scan'): Promise<{ items: Item[]; keys: Item[] }> {
    const items: Item[] = [];
    const keys: Item[] = [];
    let start: Item | undefined;
    do {
      const page = kind === 'Query'
        ? await twin.client.send(new QueryCommand({ ...(input as QueryCommandInput), ExclusiveStartKey: start }))
        : await twin.client.send(new ScanCommand({ ...(input as ScanCommandInput), ExclusiveStartKey: start }));
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
      if (start !== undefined) keys.push(start);
    } while (start !== undefined);
    return { items, keys };
  }

  describe('seed 000: the status GSI and the sparse unUsedId GSI', () => {
    test('a low-cardinality GSI finds the UN_USED items; a claimed item moves to USED', async () => {
      const table = await createUniqueTable(twin.client, 'test', seedArticleTable());
      const ids = Array.from({ length: 100 }, (_, index) => `id-${String(index).padStart(3, '0')}`);
      for (let batch = 0; batch < ids.length; batch += 25) {
        const requests = ids.slice(batch, batch + 25).map((id) => ({ PutRequest: { Item: { id, status: 'UN_USED' } } }));
        await twin.documentClient.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      }
      const unused = (limit?: number) =>
        readAll(
          { TableName: table, IndexName: 'gsi-status', KeyConditionExpression: '#s = :s', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':s': { S: 'UN_USED' } }, Limit: limit },
          'Query',
        );
      const all = await unused(30);
      assert.equal(all.items.length, 100);
      assert.deepEqual(all.items.map((item) => item.id!.S).sort(), ids);
      // Pagination keys carry the index key and the table key.
      assert.deepEqual(Object.keys(all.keys[0]!).sort(), ['id', 'status']);

      const claim = () =>
        twin.documentClient.send(
          new UpdateCommand({
            TableName: table,
            Key: { id: 'id-042' },
            UpdateExpression: 'SET #s = :used',
            ConditionExpression: '#s = :unused',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':used': 'USED', ':unused': 'UN_USED' },
          }),
        );
      await claim();
      await expectDynamoError(claim(), 'ConditionalCheckFailedException', 'The conditional request failed');
      assert.equal((await unused()).items.length, 99);
      const used = await query({
        TableName: table,
        IndexName: 'gsi-status',
        KeyConditionExpression: '#s = :s',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': { S: 'USED' } },
      });
      assert.deepEqual(used.Items, [{ id: { S: 'id-042' }, status: { S: 'USED' } }]);

      const gsi = await gsiOf(table, 'gsi-status');
      assert.equal(gsi.IndexStatus, 'ACTIVE');
      assert.equal(gsi.ItemCount, 100);
      assert.equal(gsi.IndexSizeBytes, 99 * itemSize({ id: { S: 'id-000' }, status: { S: 'UN_USED' } }) + itemSize({ id: { S: 'id-042' }, status: { S: 'USED' } }));
      assert.match(gsi.IndexArn!, new RegExp(`:table/${table}/index/gsi-status$`));
      assert.equal(gsi.Backfilling, undefined);
    });

    test('the sparse unUsedId GSI holds only unused items: a claimed item disappears from it', async () => {
      const table = await createUniqueTable(twin.client, 'better-table', betterSeedArticleTable());
      const ids = Array.from({ length: 50 }, (_, index) => `coupon-${index}`);
      for (let batch = 0; batch < ids.length; batch += 25) {
        const requests = ids.slice(batch, batch + 25).map((id) => ({ PutRequest: { Item: { id, unUsedId: id } } }));
        await twin.documentClient.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      }
      const scanIndex = async () => (await readAll({ TableName: table, IndexName: 'gsi-un-used-id', Limit: 20 }, 'Scan')).items;
      assert.equal((await scanIndex()).length, 50);

      const claim = (id: string) =>
        twin.documentClient.send(
          new UpdateCommand({ TableName: table, Key: { id }, UpdateExpression: 'REMOVE unUsedId', ConditionExpression: 'attribute_exists(unUsedId)' }),
        );
      await claim('coupon-7');
      await expectDynamoError(claim('coupon-7'), 'ConditionalCheckFailedException', 'The conditional request failed');
      const remaining = await scanIndex();
      assert.equal(remaining.length, 49);
      assert.ok(!remaining.some((item) => item.id!.S === 'coupon-7'));
      const direct = await query({ TableName: table, IndexName: 'gsi-un-used-id', KeyConditionExpression: 'unUsedId = :u', ExpressionAttributeValues: { ':u': { S: 'coupon-7' } } });
      assert.equal(direct.Count, 0);

      await twin.documentClient.send(new PutCommand({ TableName: table, Item: { id: 'no-index-key' } }));
      const described = await describeTable(table);
      assert.equal(described.ItemCount, 51);
      assert.equal(described.GlobalSecondaryIndexes![0]!.ItemCount, 49);
    });
  });

  describe('seed 003: consistency', () => {
    let table: string;
    before(async () => {
      table = await createUniqueTable(twin.client, 'deliveries', {
        AttributeDefinitions: attributes({ delivery_id: 'S', user_id: 'S', sent_at: 'N' }),
        KeySchema: keySchema('delivery_id', 'user_id'),
        GlobalSecondaryIndexes: [globalIndex('by-user', 'user_id')],
        LocalSecondaryIndexes: [localIndex('by-sent', 'delivery_id', 'sent_at')],
      });
      await twin.documentClient.send(new PutCommand({ TableName: table, Item: { delivery_id: '1', user_id: '1142', sent_at: 5 } }));
    });

    test('strongly consistent reads are refused on a GSI, Query and Scan alike', async () => {
      const message = 'Consistent reads are not supported on global secondary indexes';
      await expectDynamoError(
        query({ TableName: table, IndexName: 'by-user', KeyConditionExpression: 'user_id = :u', ExpressionAttributeValues: { ':u': { S: '1142' } }, ConsistentRead: true }),
        VALIDATION,
        message,
      );
      await expectDynamoError(twin.client.send(new ScanCommand({ TableName: table, IndexName: 'by-user', ConsistentRead: true })), VALIDATION, message);
      const eventual = await query({ TableName: table, IndexName: 'by-user', KeyConditionExpression: 'user_id = :u', ExpressionAttributeValues: { ':u': { S: '1142' } } });
      assert.equal(eventual.Count, 1);
    });

    test('an LSI honours ConsistentRead (and charges a strong read)', async () => {
      const output = await query({
        TableName: table,
        IndexName: 'by-sent',
        KeyConditionExpression: 'delivery_id = :d AND sent_at > :t',
        ExpressionAttributeValues: { ':d': { S: '1' }, ':t': { N: '1' } },
        ConsistentRead: true,
        ReturnConsumedCapacity: 'INDEXES',
      });
      assert.equal(output.Count, 1);
      assert.deepEqual(output.ConsumedCapacity, {
        TableName: table,
        CapacityUnits: 1,
        Table: { CapacityUnits: 0 },
        LocalSecondaryIndexes: { 'by-sent': { CapacityUnits: 1 } },
      });
    });
  });

  describe('maintenance', () => {
    let table: string;
    before(async () => {
      table = await createUniqueTable(twin.client, 'maintenance', {
        AttributeDefinitions: attributes({ pk: 'S', sk: 'S', g: 'S', r: 'N', l: 'S' }),
        KeySchema: keySchema('pk', 'sk'),
        GlobalSecondaryIndexes: [globalIndex('g-r', 'g', { KeySchema: keySchema('g', 'r'), Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['x'] } })],
        LocalSecondaryIndexes: [localIndex('pk-l', 'pk', 'l', { Projection: { ProjectionType: 'KEYS_ONLY' } })],
      });
    });

    const gsiKeys = async (g: string) =>
      (await query({ TableName: table, IndexName: 'g-r', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: g } } })).Items!.map(
        (item) => `${item.pk!.S}/${item.sk!.S}/${item.r!.N}`,
      );
    const lsiKeys = async (pk: string) =>
      (await query({ TableName: table, IndexName: 'pk-l', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: pk } } })).Items!.map(
        (item) => `${item.sk!.S}/${item.l!.S}`,
      );

    test('key changes move entries; removing a key attribute removes the entry', async () => {
      const key = { pk: 'p1', sk: 's1' };
      await twin.documentClient.send(new PutCommand({ TableName: table, Item: { ...key, g: 'red', r: 1, l: 'b', x: 'kept', y: 'not projected' } }));
      assert.deepEqual(await gsiKeys('red'), ['p1/s1/1']);
      assert.deepEqual(await lsiKeys('p1'), ['s1/b']);

      const update = (expression: string, values?: Record<string, unknown>) =>
        twin.documentClient.send(new UpdateCommand({ TableName: table, Key: key, UpdateExpression: expression, ExpressionAttributeValues: values }));
      await update('SET g = :g', { ':g': 'blue' });
      assert.deepEqual(await gsiKeys('red'), []);
      assert.deepEqual(await gsiKeys('blue'), ['p1/s1/1']);
      await update('SET r = :r', { ':r': 7 });
      assert.deepEqual(await gsiKeys('blue'), ['p1/s1/7']);
      await update('SET l = :l', { ':l': 'a' });
      assert.deepEqual(await lsiKeys('p1'), ['s1/a']);
      // An index with a sort key is sparse in it too.
      await update('REMOVE r');
      assert.deepEqual(await gsiKeys('blue'), []);
      await update('SET r = :r', { ':r': 3 });
      assert.deepEqual(await gsiKeys('blue'), ['p1/s1/3']);

      await twin.documentClient.send(new TransactWriteCommand({ TransactItems: [{ Update: { TableName: table, Key: key, UpdateExpression: 'SET g = :g', ExpressionAttributeValues: { ':g': 'green' } } }] }));
      assert.deepEqual(await gsiKeys('blue'), []);
      assert.deepEqual(await gsiKeys('green'), ['p1/s1/3']);

      await twin.documentClient.send(new DeleteCommand({ TableName: table, Key: key }));
      assert.deepEqual(await gsiKeys('green'), []);
      assert.deepEqual(await lsiKeys('p1'), []);
      const described = await describeTable(table);
      assert.equal(described.GlobalSecondaryIndexes![0]!.ItemCount, 0);
      assert.equal(described.GlobalSecondaryIndexes![0]!.IndexSizeBytes, 0);
      assert.equal(described.LocalSecondaryIndexes![0]!.ItemCount, 0);
    });

    test('an index key of the wrong type is refused, and nothing is written', async () => {
      await expectDynamoError(
        twin.client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: 'p9' }, sk: { S: 's' }, r: { S: 'one' } } })),
        VALIDATION,
        INVALID + 'Type mismatch for Index Key r Expected: N Actual: S IndexName: g-r',
      );
      assert.equal((await describeTable(table)).GlobalSecondaryIndexes![0]!.ItemCount, 0);
    });

    test('the GSI entry holds what the projection names; a GSI does not fetch from the table', async () => {
      await twin.documentClient.send(new PutCommand({ TableName: table, Item: { pk: 'p2', sk: 's', g: 'proj', r: 1, x: 'in', y: 'out', l: 'z' } }));
      const base = { TableName: table, IndexName: 'g-r', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'proj' } } };
      const projected = await query(base);
      assert.deepEqual(projected.Items, [{ pk: { S: 'p2' }, sk: { S: 's' }, g: { S: 'proj' }, r: { N: '1' }, x: { S: 'in' } }]);
      assert.deepEqual((await query({ ...base, ProjectionExpression: 'x, pk' })).Items, [{ x: { S: 'in' }, pk: { S: 'p2' } }]);
      // Asking a GSI for what it does not project is refused (it cannot fetch from the table):
      // DynamoDB's text names the index and the attributes, as recorded by a user (localstack#478).
      await expectDynamoError(query({ ...base, ProjectionExpression: 'x, y, doc.m' }), VALIDATION, INVALID + 'Global secondary index g-r does not project [y, doc]');
      await expectDynamoError(twin.client.send(new ScanCommand({ TableName: table, IndexName: 'g-r', AttributesToGet: ['x', 'y'] })), VALIDATION, INVALID + 'Global secondary index g-r does not project [y]');
      await expectDynamoError(
        twin.client.send(new ScanCommand({ TableName: table, IndexName: 'g-r', ProjectionExpression: 'y' })),
        VALIDATION,
        INVALID + 'Global secondary index g-r does not project [y]',
      );
      await expectDynamoError(
        query({ ...base, Select: 'ALL_ATTRIBUTES' }),
        VALIDATION,
        INVALID + 'Select type ALL_ATTRIBUTES is not supported for global secondary index g-r because its projection type is not ALL',
      );
      assert.equal((await query({ ...base, Select: 'ALL_PROJECTED_ATTRIBUTES' })).Count, 1);
      assert.equal((await query({ ...base, FilterExpression: 'y = :y', ExpressionAttributeValues: { ':g': { S: 'proj' }, ':y': { S: 'out' } } })).Count, 0);
      await expectDynamoError(
        query({ ...base, FilterExpression: 'r = :r', ExpressionAttributeValues: { ':g': { S: 'proj' }, ':r': { N: '1' } } }),
        VALIDATION,
        'Filter Expression can only contain non-primary key attributes: Primary key attribute: r',
      );
    });

    test('an LSI fetches attributes it does not project from the table, and charges the fetch', async () => {
      const item = { pk: 'p3', sk: 's', l: 'k', big: 'b'.repeat(5000), small: 'v' };
      await twin.documentClient.send(new PutCommand({ TableName: table, Item: item }));
      const base = { TableName: table, IndexName: 'pk-l', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p3' } } };
      const keysOnly = await query({ ...base, ReturnConsumedCapacity: 'INDEXES' });
      assert.deepEqual(keysOnly.Items, [{ pk: { S: 'p3' }, sk: { S: 's' }, l: { S: 'k' } }]);
      assert.deepEqual(keysOnly.ConsumedCapacity?.Table, { CapacityUnits: 0 });

      const all = await query({ ...base, Select: 'ALL_ATTRIBUTES', ReturnConsumedCapacity: 'INDEXES' });
      assert.equal(all.Items![0]!.big!.S, item.big);
      // 0.5 for the index entry read, 1 for the fetched 5 KB item (two 4 KB blocks, eventually consistent).
      assert.deepEqual(all.ConsumedCapacity, { TableName: table, CapacityUnits: 1.5, Table: { CapacityUnits: 1 }, LocalSecondaryIndexes: { 'pk-l': { CapacityUnits: 0.5 } } });
      assert.deepEqual((await query({ ...base, ProjectionExpression: 'small' })).Items, [{ small: { S: 'v' } }]);
      const filtered = await query({ ...base, FilterExpression: 'small = :v', ExpressionAttributeValues: { ':p': { S: 'p3' }, ':v': { S: 'v' } } });
      assert.deepEqual(filtered.Items, [{ pk: { S: 'p3' }, sk: { S: 's' }, l: { S: 'k' }, big: { S: item.big }, small: { S: 'v' } }]);
    });
  });

  describe('reads', () => {
    let table: string;
    const texts = ['a', 'a\u0000', 'a\u0000b', 'a\u0001', 'ab', 'b', '\u0000', 'z\u0000\u0000'];
    const numbers = ['-10', '-1.5', '-1', '0', '0.5', '1', '10', '100'];
    const binaries = [[0x00], [0x00, 0x00], [0x00, 0xff], [0x01], [0xff], [0xff, 0x00], [0x61, 0x00, 0x62]];

    before(async () => {
      const keysOnly = { Projection: { ProjectionType: 'KEYS_ONLY' } } as const;
      table = await createUniqueTable(twin.client, 'index-reads', {
        AttributeDefinitions: attributes({ pk: 'S', g: 'S', ts: 'S', tn: 'N', tb: 'B' }),
        KeySchema: keySchema('pk'),
        GlobalSecondaryIndexes: [
          globalIndex('g-ts', 'g', { KeySchema: keySchema('g', 'ts') }),
          globalIndex('g-tn', 'g', { KeySchema: keySchema('g', 'tn'), ...keysOnly }),
          globalIndex('g-tb', 'g', { KeySchema: keySchema('g', 'tb'), ...keysOnly }),
          globalIndex('g-only', 'g', keysOnly),
        ],
      });
      const items: Item[] = [];
      // Duplicated sort key values (two items each) test that the table key keeps entries apart.
      texts.forEach((value, index) => {
        for (const copy of [0, 1]) items.push({ pk: { S: `s${index}-${copy}` }, g: { S: 'text' }, ts: { S: value } });
      });
      numbers.forEach((value, index) => items.push({ pk: { S: `n${index}` }, g: { S: 'number' }, tn: { N: value } }));
      binaries.forEach((bytes, index) => items.push({ pk: { S: `b${index}` }, g: { S: 'binary' }, tb: { B: new Uint8Array(bytes) } }));
      for (let index = 0; index < 40; index++) items.push({ pk: { S: `same-${index}` }, g: { S: 'same' } });
      for (const item of items) await twin.client.send(new PutItemCommand({ TableName: table, Item: item }));
    });

    const sortedKeys = (values: AttributeValue[]) => [...values].sort(compareKeyValues).map(keyText);

    test('index sort keys are in DynamoDB order, S and B values that prefix each other included', async () => {
      const textRead = await readAll({ TableName: table, IndexName: 'g-ts', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'text' } }, Limit: 3 }, 'Query');
      const expectedTexts = sortedKeys(texts.flatMap((value) => [{ S: value }, { S: value }]));
      assert.deepEqual(textRead.items.map((item) => keyText(item.ts)), expectedTexts);
      for (const key of textRead.keys) assert.deepEqual(Object.keys(key).sort(), ['g', 'pk', 'ts']);
      const reversed = await readAll(
        { TableName: table, IndexName: 'g-ts', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'text' } }, Limit: 5, ScanIndexForward: false },
        'Query',
      );
      assert.deepEqual(reversed.items.map((item) => keyText(item.ts)), [...expectedTexts].reverse());

      const numberRead = await query({ TableName: table, IndexName: 'g-tn', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'number' } } });
      assert.deepEqual(numberRead.Items!.map((item) => keyText(item.tn)), sortedKeys(numbers.map((value) => ({ N: value }))));
      const binaryRead = await query({ TableName: table, IndexName: 'g-tb', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'binary' } } });
      assert.deepEqual(binaryRead.Items!.map((item) => keyText(item.tb)), sortedKeys(binaries.map((bytes) => ({ B: new Uint8Array(bytes) }))));
    });

    test('every sort key condition on an index selects what the comparison says', async () => {
      const expected = (keep: (value: AttributeValue) => boolean) =>
        sortedKeys(texts.flatMap((value) => [{ S: value }, { S: value }]).filter(keep));
      const cmp = (left: AttributeValue, right: string) => compareKeyValues(left, { S: right });
      const cases: [string, Record<string, AttributeValue>, (value: AttributeValue) => boolean][] = [
        ['ts = :a', { ':a': { S: 'a\u0000' } }, (value) => cmp(value, 'a\u0000') === 0],
        ['ts < :a', { ':a': { S: 'a\u0000b' } }, (value) => cmp(value, 'a\u0000b') < 0],
        ['ts <= :a', { ':a': { S: 'a\u0000' } }, (value) => cmp(value, 'a\u0000') <= 0],
        ['ts > :a', { ':a': { S: 'a' } }, (value) => cmp(value, 'a') > 0],
        ['ts >= :a', { ':a': { S: 'a\u0001' } }, (value) => cmp(value, 'a\u0001') >= 0],
        ['ts BETWEEN :a AND :b', { ':a': { S: 'a\u0000' }, ':b': { S: 'ab' } }, (value) => cmp(value, 'a\u0000') >= 0 && cmp(value, 'ab') <= 0],
        ['begins_with(ts, :a)', { ':a': { S: 'a\u0000' } }, (value) => (value.S ?? '').startsWith('a\u0000')],
        ['begins_with(ts, :a)', { ':a': { S: 'a' } }, (value) => (value.S ?? '').startsWith('a')],
      ];
      for (const [condition, values, keep] of cases) {
        for (const forward of [true, false]) {
          const read = await readAll(
            { TableName: table, IndexName: 'g-ts', KeyConditionExpression: `g = :g AND ${condition}`, ExpressionAttributeValues: { ':g': { S: 'text' }, ...values }, Limit: 2, ScanIndexForward: forward },
            'Query',
          );
          const want = expected(keep);
          assert.deepEqual(read.items.map((item) => keyText(item.ts)), forward ? want : [...want].reverse(), `${condition} ${JSON.stringify(values)}`);
        }
      }
    });

    test('a hash-only GSI pages through non-unique keys, each item exactly once', async () => {
      const read = await readAll({ TableName: table, IndexName: 'g-only', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'same' } }, Limit: 7 }, 'Query');
      assert.equal(read.items.length, 40);
      assert.equal(new Set(read.items.map((item) => item.pk!.S)).size, 40);
      assert.deepEqual(Object.keys(read.keys[0]!).sort(), ['g', 'pk']);
      const scanned = await readAll({ TableName: table, IndexName: 'g-only', Limit: 9 }, 'Scan');
      assert.equal(scanned.items.length, texts.length * 2 + numbers.length + binaries.length + 40);
      const segments = await Promise.all(
        [0, 1, 2].map((segment) => readAll({ TableName: table, IndexName: 'g-only', Segment: segment, TotalSegments: 3, Limit: 4 }, 'Scan')),
      );
      assert.equal(segments.reduce((total, segment) => total + segment.items.length, 0), scanned.items.length);
    });

    test('start keys on an index: every key attribute, with the right types', async () => {
      const base = { TableName: table, IndexName: 'g-ts', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'text' } } };
      // On an index a start key of the wrong shape is only "invalid" (docs/CONFORMANCE.md).
      await expectDynamoError(query({ ...base, ExclusiveStartKey: { pk: { S: 's0-0' } } }), VALIDATION, 'The provided starting key is invalid');
      await expectDynamoError(
        query({ ...base, ExclusiveStartKey: { pk: { S: 's0-0' }, g: { S: 'text' }, ts: { N: '1' } } }),
        VALIDATION,
        'The provided starting key is invalid',
      );
      await expectDynamoError(
        twin.client.send(new ScanCommand({ TableName: table, IndexName: 'g-ts', ExclusiveStartKey: { pk: { S: 's0-0' } } })),
        VALIDATION,
        'The provided starting key is invalid',
      );
      // The table's own start keys keep their texts.
      await expectDynamoError(
        query({ TableName: table, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 's0-0' } }, ExclusiveStartKey: { pk: { S: 's0-0' }, x1: { S: 'x' }, x2: { S: 'x' } } }),
        VALIDATION,
        "Exclusive Start Key must have same size as table's key schema",
      );
    });
  });

  test('entry keys past LMDB\'s key length still find exactly their items', async () => {
    const table = await createUniqueTable(twin.client, 'huge-keys', {
      AttributeDefinitions: attributes({ pk: 'S', sk: 'S', g: 'S', r: 'S' }),
      KeySchema: keySchema('pk', 'sk'),
      GlobalSecondaryIndexes: [globalIndex('huge', 'g', { KeySchema: keySchema('g', 'r'), Projection: { ProjectionType: 'KEYS_ONLY' } })],
    });
    // 2 KB index partition key, 1 KB sort keys of zero bytes (2 KB escaped), 3 KB table keys: ~7 KB entry keys.
    const g = 'g'.repeat(2048);
    const sortKeys = ['\u0000'.repeat(1024), '\u0000'.repeat(1023) + '\u0001', '\u0000'.repeat(1023), '\u0000'.repeat(1000) + 'a'];
    for (const [index, r] of sortKeys.entries()) {
      for (const copy of [0, 1]) {
        await twin.client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: `${index}${copy}`.padEnd(2048, 'p') }, sk: { S: 's'.repeat(1024) }, g: { S: g }, r: { S: r } } }));
      }
    }
    for (const r of sortKeys) {
      const read = await readAll({ TableName: table, IndexName: 'huge', KeyConditionExpression: 'g = :g AND r = :r', ExpressionAttributeValues: { ':g': { S: g }, ':r': { S: r } }, Limit: 1 }, 'Query');
      assert.deepEqual(read.items.map((item) => item.r!.S), [r, r]);
    }
    const all = await readAll({ TableName: table, IndexName: 'huge', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: g } }, Limit: 3 }, 'Query');
    assert.equal(all.items.length, 8);
    assert.equal(new Set(all.items.map((item) => item.pk!.S)).size, 8);
    await twin.client.send(new UpdateItemCommand({ TableName: table, Key: { pk: { S: '00'.padEnd(2048, 'p') }, sk: { S: 's'.repeat(1024) } }, UpdateExpression: 'REMOVE r' }));
    assert.equal((await gsiOf(table, 'huge')).ItemCount, 7);
  });

  describe('DescribeTable', () => {
    test('each index reports status, counts, ARN, projection and throughput', async () => {
      const table = await createUniqueTable(twin.client, 'describe-indexes', {
        BillingMode: 'PROVISIONED',
        ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
        AttributeDefinitions: attributes({ pk: 'S', sk: 'S', g: 'S' }),
        KeySchema: keySchema('pk', 'sk'),
        GlobalSecondaryIndexes: [
          globalIndex('gsi', 'g', { Projection: { ProjectionType: 'KEYS_ONLY' }, ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 3 } }),
        ],
        LocalSecondaryIndexes: [localIndex('lsi', 'pk', 'g', { Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['v'] } })],
      });
      const item: AttributeMap = { pk: { S: 'p' }, sk: { S: 's' }, g: { S: 'gg' }, v: { S: 'vvv' }, w: { S: 'not projected' } };
      await twin.client.send(new PutItemCommand({ TableName: table, Item: item as Record<string, AttributeValue> }));
      const described = await describeTable(table);
      const gsi = described.GlobalSecondaryIndexes![0]!;
      assert.equal(gsi.IndexStatus, 'ACTIVE');
      assert.equal(gsi.ItemCount, 1);
      assert.equal(gsi.IndexSizeBytes, itemSize({ pk: item.pk!, sk: item.sk!, g: item.g! }));
      assert.equal(gsi.ProvisionedThroughput?.ReadCapacityUnits, 2);
      assert.deepEqual(gsi.Projection, { ProjectionType: 'KEYS_ONLY' });
      const lsi = described.LocalSecondaryIndexes![0]!;
      assert.equal(lsi.ItemCount, 1);
      assert.equal(lsi.IndexSizeBytes, itemSize({ pk: item.pk!, sk: item.sk!, g: item.g!, v: item.v! }));
      assert.match(lsi.IndexArn!, new RegExp(`:table/${table}/index/lsi$`));
      await twin.client.send(
        new UpdateItemCommand({ TableName: table, Key: { pk: { S: 'p' }, sk: { S: 's' } }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { S: 'v' } } }),
      );
      const after = await describeTable(table);
      assert.equal(after.LocalSecondaryIndexes![0]!.IndexSizeBytes, itemSize({ pk: item.pk!, sk: item.sk!, g: item.g!, v: { S: 'v' } }));
      assert.equal(after.GlobalSecondaryIndexes![0]!.IndexSizeBytes, gsi.IndexSizeBytes);
    });
  });
});
