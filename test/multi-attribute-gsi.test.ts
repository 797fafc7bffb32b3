/**
 * Multi-attribute keys for global secondary indexes (DynamoDB, November 2025), through the AWS SDK:
 * a GSI key schema of up to four HASH and four RANGE attributes. CreateTable and UpdateTable accept
 * and validate such schemas (texts recorded against DynamoDB by public probe records and emulator
 * suites, docs/CONFORMANCE.md), DescribeTable renders them as given, an item is in the index only
 * with every key attribute, and Query takes every partition key attribute by equality and the sort
 * key attributes from the left, the last one named with any sort key condition, in the order of
 * the sort key attributes compared one by one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BatchWriteItemCommand,
  CreateBackupCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  ExecuteStatementCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
  RestoreTableFromBackupCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateContributorInsightsCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  type AttributeValue,
  type ConsumedCapacity,
  type CreateTableCommandInput,
  type KeySchemaElement,
  type QueryCommandInput,
} from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand as DocumentQueryCommand } from '@aws-sdk/lib-dynamodb';
import type { InsightsReport } from '../src/metrics/insights.js';
import { waitActive } from './support/backup-tables.js';
import { startServerProcess } from './support/process.js';
import { scratchDirectories } from './support/scratch.js';
import { attributes, createUniqueTable, keySchema, waitForIndexActive } from './support/tables.js';
import { expectDynamoError, sdkClient, startTwinWithClients, uniqueTableName, withTwin, type TwinClients } from './support/twin.js';
import { embeddedStoreOnly } from './support/test-store.js';

const VALIDATION = 'ValidationException';
const INVALID = 'One or more parameter values were invalid: ';

/** A GSI key schema: HASH elements, then RANGE ones. */
function multiKey(hashes: readonly string[], ranges: readonly string[] = []): KeySchemaElement[] {
  return [...hashes.map((name) => ({ AttributeName: name, KeyType: 'HASH' as const })), ...ranges.map((name) => ({ AttributeName: name, KeyType: 'RANGE' as const }))];
}

/** The tournament table of AWS's multi-attribute keys pattern: matches by tournament and region, then round and match. */
const MATCHES: Omit<CreateTableCommandInput, 'TableName'> = {
  AttributeDefinitions: attributes({ id: 'S', tournamentId: 'S', region: 'S', round: 'N', matchId: 'S' }),
  KeySchema: keySchema('id'),
  GlobalSecondaryIndexes: [
    { IndexName: 'by-bracket', KeySchema: multiKey(['tournamentId', 'region'], ['round', 'matchId']), Projection: { ProjectionType: 'ALL' } },
  ],
};

type Item = Record<string, AttributeValue>;

describe('multi-attribute GSI keys', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients();
  });
  after(async () => {
    await twin.close();
  });

  const describeTable = async (name: string) => (await twin.client.send(new DescribeTableCommand({ TableName: name }))).Table!;
  const put = (table: string, item: Item) => twin.client.send(new PutItemCommand({ TableName: table, Item: item }));

  async function queryAll(input: QueryCommandInput): Promise<{ items: Item[]; keys: Item[] }> {
    const items: Item[] = [];
    const keys: Item[] = [];
    let start: Item | undefined;
    do {
      const page = await twin.client.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
      if (start !== undefined) keys.push(start);
    } while (start !== undefined);
    return { items, keys };
  }


  const match = (id: string, tournamentId: string, region: string, round: number | undefined, matchId: string | undefined, extra: Item = {}): Item => ({
    id: { S: id },
    tournamentId: { S: tournamentId },
    region: { S: region },
    ...(round === undefined ? {} : { round: { N: String(round) } }),
    ...(matchId === undefined ? {} : { matchId: { S: matchId } }),
    ...extra,
  });

  describe('CreateTable, DescribeTable, ListTables, DeleteTable', () => {
    test('a GSI of two HASH and two RANGE attributes is described as given, and so is one of four and four', async () => {
      const table = await createUniqueTable(twin.client, 'mk-describe', {
        AttributeDefinitions: attributes({ id: 'S', h1: 'S', h2: 'N', h3: 'B', h4: 'S', r1: 'N', r2: 'S', r3: 'B', r4: 'S', a: 'S', b: 'S' }),
        KeySchema: keySchema('id'),
        GlobalSecondaryIndexes: [
          { IndexName: 'eight', KeySchema: multiKey(['h1', 'h2', 'h3', 'h4'], ['r1', 'r2', 'r3', 'r4']), Projection: { ProjectionType: 'KEYS_ONLY' } },
          { IndexName: 'two-hash', KeySchema: multiKey(['a', 'b']), Projection: { ProjectionType: 'ALL' } },
        ],
      });
      const description = await describeTable(table);
      const byName = new Map(description.GlobalSecondaryIndexes!.map((gsi) => [gsi.IndexName, gsi]));
      assert.deepEqual(byName.get('eight')!.KeySchema, multiKey(['h1', 'h2', 'h3', 'h4'], ['r1', 'r2', 'r3', 'r4']));
      assert.deepEqual(byName.get('two-hash')!.KeySchema, multiKey(['a', 'b']));
      assert.equal(byName.get('eight')!.IndexStatus, 'ACTIVE');
      assert.ok((await twin.client.send(new ListTablesCommand({}))).TableNames!.includes(table));
      const deleted = await twin.client.send(new DeleteTableCommand({ TableName: table }));
      assert.equal(deleted.TableDescription!.TableName, table);
    });

    test('the table key and LSIs stay one HASH and at most one RANGE, with DynamoDB\'s texts', async () => {
      const create = (input: Omit<CreateTableCommandInput, 'TableName' | 'BillingMode'>) =>
        twin.client.send(new CreateTableCommand({ TableName: uniqueTableName('mk-table-key'), BillingMode: 'PAY_PER_REQUEST', ...input }));
      await expectDynamoError(
        create({ AttributeDefinitions: attributes({ a: 'S', b: 'S' }), KeySchema: multiKey(['a', 'b']) }),
        VALIDATION,
        'Invalid KeySchema: The second KeySchemaElement is not a RANGE key type',
      );
      await expectDynamoError(
        create({ AttributeDefinitions: attributes({ a: 'S', b: 'S', c: 'S' }), KeySchema: multiKey(['a'], ['b', 'c']) }),
        VALIDATION,
        /^1 validation error detected: Value '\[.+\]' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2$/,
      );
      await expectDynamoError(
        create({
          AttributeDefinitions: attributes({ p: 'S', c: 'S', l: 'S' }),
          KeySchema: keySchema('p', 'c'),
          LocalSecondaryIndexes: [{ IndexName: 'lsi', KeySchema: multiKey(['p'], ['c', 'l']), Projection: { ProjectionType: 'ALL' } }],
        }),
        VALIDATION,
        /^1 validation error detected: Value '\[.+\]' at 'localSecondaryIndexes\.1\.member\.keySchema' failed to satisfy constraint: Member must have length less than or equal to 2$/,
      );
    });

    const createWithGsiKey = (gsiKey: KeySchemaElement[], defined: Record<string, 'S' | 'N' | 'B'>) =>
      twin.client.send(
        new CreateTableCommand({
          TableName: uniqueTableName('mk-invalid'),
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: attributes({ id: 'S', ...defined }),
          KeySchema: keySchema('id'),
          GlobalSecondaryIndexes: [{ IndexName: 'gsi', KeySchema: gsiKey, Projection: { ProjectionType: 'ALL' } }],
        }),
      );

    test('a GSI key schema of more than four HASH or four RANGE attributes, or out of order, is refused', async () => {
      const five = { a: 'S', b: 'S', c: 'S', d: 'S', e: 'S' } as const;
      await expectDynamoError(createWithGsiKey(multiKey(['a', 'b', 'c', 'd', 'e']), five), VALIDATION, INVALID + 'The KeySchema exceeds the maximum allowed number of HASH key attributes');
      await expectDynamoError(
        createWithGsiKey(multiKey(['h'], ['a', 'b', 'c', 'd', 'e']), { h: 'S', ...five }),
        VALIDATION,
        INVALID + 'The KeySchema exceeds the maximum allowed number of RANGE key attributes',
      );
      await expectDynamoError(
        createWithGsiKey([...multiKey(['a'], ['b']), { AttributeName: 'c', KeyType: 'HASH' }], { a: 'S', b: 'S', c: 'S' }),
        VALIDATION,
        INVALID + 'All HASH key attributes must precede RANGE key attributes in the KeySchema',
      );
      await expectDynamoError(
        createWithGsiKey([{ AttributeName: 'b', KeyType: 'RANGE' }, { AttributeName: 'a', KeyType: 'HASH' }], { a: 'S', b: 'S' }),
        VALIDATION,
        'Invalid KeySchema: The first KeySchemaElement is not a HASH key type',
      );
      await expectDynamoError(createWithGsiKey(multiKey([], ['a', 'b']), { a: 'S', b: 'S' }), VALIDATION, 'Invalid KeySchema: The first KeySchemaElement is not a HASH key type');
      await expectDynamoError(createWithGsiKey(multiKey(['a', 'a']), { a: 'S' }), VALIDATION, 'The KeySchema contains multiple key attributes with the same name');
      await expectDynamoError(createWithGsiKey(multiKey(['a', 'b'], ['a']), { a: 'S', b: 'S' }), VALIDATION, 'The KeySchema contains multiple key attributes with the same name');
      await expectDynamoError(
        createWithGsiKey(multiKey(['a', 'b']), { a: 'S' }),
        VALIDATION,
        INVALID + 'Some index key attributes are not defined in AttributeDefinitions. Keys: [a, b], AttributeDefinitions: [id, a]',
      );
      // Four and four is the limit, not past it.
      await createWithGsiKey(multiKey(['a', 'b', 'c', 'd'], ['e', 'f', 'g', 'h']), { a: 'S', b: 'S', c: 'S', d: 'S', e: 'S', f: 'S', g: 'S', h: 'S' });
    });
  });

  describe('writes', () => {
    test('an item is in the index only with every key attribute; updates move it in and out', async () => {
      const table = await createUniqueTable(twin.client, 'mk-sparse', MATCHES);
      await put(table, match('full', 'WINTER', 'NA', 1, 'm1'));
      await put(table, match('no-match-id', 'WINTER', 'NA', 1, undefined));
      await put(table, match('no-round', 'WINTER', 'NA', undefined, 'm2'));
      await put(table, { id: { S: 'no-region' }, tournamentId: { S: 'WINTER' }, round: { N: '1' }, matchId: { S: 'm3' } });
      const scanIds = async () => ((await twin.client.send(new ScanCommand({ TableName: table, IndexName: 'by-bracket' }))).Items ?? []).map((item) => item.id!.S).sort();
      assert.deepEqual(await scanIds(), ['full']);
      await twin.client.send(new UpdateItemCommand({ TableName: table, Key: { id: { S: 'no-round' } }, UpdateExpression: 'SET #r = :r', ExpressionAttributeNames: { '#r': 'round' }, ExpressionAttributeValues: { ':r': { N: '2' } } }));
      assert.deepEqual(await scanIds(), ['full', 'no-round']);
      await twin.client.send(new UpdateItemCommand({ TableName: table, Key: { id: { S: 'full' } }, UpdateExpression: 'REMOVE #region', ExpressionAttributeNames: { '#region': 'region' } }));
      assert.deepEqual(await scanIds(), ['no-round']);
      await twin.client.send(new DeleteItemCommand({ TableName: table, Key: { id: { S: 'no-round' } } }));
      assert.deepEqual(await scanIds(), []);
      const gsi = (await describeTable(table)).GlobalSecondaryIndexes![0]!;
      assert.equal(gsi.ItemCount, 0);
    });

    test('a key attribute of another type, or an empty one, is refused as for single-attribute keys; limits hold per attribute', async () => {
      const table = await createUniqueTable(twin.client, 'mk-types', MATCHES);
      await expectDynamoError(
        put(table, match('a', 'WINTER', 'NA', undefined, 'm', { round: { S: 'one' } })),
        VALIDATION,
        INVALID + 'Type mismatch for Index Key round Expected: N Actual: S IndexName: by-bracket',
      );
      await expectDynamoError(
        put(table, { ...match('a', 'WINTER', 'NA', 1, 'm'), region: { N: '7' } }),
        VALIDATION,
        INVALID + 'Type mismatch for Index Key region Expected: S Actual: N IndexName: by-bracket',
      );
      await expectDynamoError(
        put(table, match('a', 'WINTER', '', 1, 'm')),
        VALIDATION,
        'One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: by-bracket, IndexKey: region',
      );
      await expectDynamoError(
        put(table, match('a', 'WINTER', 'x'.repeat(2049), 1, 'm')),
        VALIDATION,
        INVALID + 'Size limit exceeded for Index Key region Actual Size: 2049 bytes Max Size: 2048 bytes IndexName: by-bracket',
      );
      await expectDynamoError(
        put(table, match('a', 'WINTER', 'NA', 1, 'x'.repeat(1025))),
        VALIDATION,
        INVALID + 'Size limit exceeded for Index Key matchId Actual Size: 1025 bytes Max Size: 1024 bytes IndexName: by-bracket',
      );
      // Every write path checks every key attribute of the index.
      const mismatch = INVALID + 'Type mismatch for Index Key matchId Expected: S Actual: N IndexName: by-bracket';
      await put(table, match('u', 'WINTER', 'NA', 1, 'm'));
      await expectDynamoError(
        twin.client.send(new UpdateItemCommand({ TableName: table, Key: { id: { S: 'u' } }, UpdateExpression: 'SET matchId = :m', ExpressionAttributeValues: { ':m': { N: '1' } } })),
        VALIDATION,
        mismatch,
      );
      await expectDynamoError(
        twin.client.send(new UpdateItemCommand({ TableName: table, Key: { id: { S: 'u' } }, UpdateExpression: 'SET #region.x = :m', ExpressionAttributeNames: { '#region': 'region' }, ExpressionAttributeValues: { ':m': { S: 'x' } } })),
        VALIDATION,
        "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: IndexKey: region",
      );
      await expectDynamoError(
        twin.client.send(new BatchWriteItemCommand({ RequestItems: { [table]: [{ PutRequest: { Item: match('b', 'WINTER', 'NA', 1, undefined, { matchId: { N: '1' } }) } }] } })),
        VALIDATION,
        mismatch,
      );
      await assert.rejects(
        twin.client.send(new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: table, Item: match('t', 'WINTER', 'NA', 1, undefined, { matchId: { N: '1' } }) } }] })),
        (error: Error & { CancellationReasons?: { Code?: string; Message?: string }[] }) => {
          assert.equal(error.name, 'TransactionCanceledException');
          assert.deepEqual(error.CancellationReasons, [{ Code: 'ValidationError', Message: mismatch }]);
          return true;
        },
      );
      await expectDynamoError(
        twin.client.send(new ExecuteStatementCommand({ Statement: `INSERT INTO "${table}" VALUE {'id': 'p', 'tournamentId': 'W', 'region': 'NA', 'round': 1, 'matchId': 1}` })),
        VALIDATION,
        mismatch,
      );
      // Each value within its own limit: two 2,048-byte partition values and a 1,024-byte sort value are indexed.
      await put(table, match('big', 'x'.repeat(2048), 'y'.repeat(2048), 1, 'z'.repeat(1024)));
      const { items } = await queryAll({
        TableName: table,
        IndexName: 'by-bracket',
        KeyConditionExpression: 'tournamentId = :t AND #region = :r AND #round = :n AND matchId = :m',
        ExpressionAttributeNames: { '#region': 'region', '#round': 'round' },
        ExpressionAttributeValues: { ':t': { S: 'x'.repeat(2048) }, ':r': { S: 'y'.repeat(2048) }, ':n': { N: '1' }, ':m': { S: 'z'.repeat(1024) } },
      });
      assert.deepEqual(items.map((item) => item.id!.S), ['big']);
    });

    test('UpdateTable adds such a GSI: the backfill indexes the items that have every key attribute', async () => {
      const table = await createUniqueTable(twin.client, 'mk-backfill', { AttributeDefinitions: attributes({ id: 'S' }), KeySchema: keySchema('id') });
      for (let at = 0; at < 30; at++) await put(table, match(`m${String(at).padStart(2, '0')}`, 'SPRING', at % 2 === 0 ? 'EU' : 'NA', at % 3, `x${at}`));
      await put(table, match('partial', 'SPRING', 'EU', 1, undefined));
      await put(table, { ...match('wrong-type', 'SPRING', 'EU', 1, 'x'), round: { S: 'one' } });
      await expectDynamoError(
        twin.client.send(
          new UpdateTableCommand({
            TableName: table,
            AttributeDefinitions: attributes({ a: 'S', b: 'S', c: 'S', d: 'S', e: 'S' }),
            GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'too-many', KeySchema: multiKey(['a', 'b', 'c', 'd', 'e']), Projection: { ProjectionType: 'ALL' } } }],
          }),
        ),
        VALIDATION,
        INVALID + 'The KeySchema exceeds the maximum allowed number of HASH key attributes',
      );
      await twin.client.send(
        new UpdateTableCommand({
          TableName: table,
          AttributeDefinitions: attributes({ tournamentId: 'S', region: 'S', round: 'N', matchId: 'S' }),
          GlobalSecondaryIndexUpdates: [
            { Create: { IndexName: 'by-bracket', KeySchema: multiKey(['tournamentId', 'region'], ['round', 'matchId']), Projection: { ProjectionType: 'KEYS_ONLY' } } },
          ],
        }),
      );
      await waitForIndexActive(twin.client, table, 'by-bracket');
      const gsi = (await describeTable(table)).GlobalSecondaryIndexes![0]!;
      assert.deepEqual(gsi.KeySchema, multiKey(['tournamentId', 'region'], ['round', 'matchId']));
      assert.equal(gsi.ItemCount, 30);
      const { items } = await queryAll({
        TableName: table,
        IndexName: 'by-bracket',
        KeyConditionExpression: 'tournamentId = :t AND #region = :r',
        ExpressionAttributeNames: { '#region': 'region' },
        ExpressionAttributeValues: { ':t': { S: 'SPRING' }, ':r': { S: 'EU' } },
      });
      assert.equal(items.length, 15);
      // KEYS_ONLY: the table key and every index key attribute.
      assert.deepEqual(Object.keys(items[0]!).sort(), ['id', 'matchId', 'region', 'round', 'tournamentId']);
    });
  });

  describe('Query', () => {
    let table: string;
    /** Every item of the WINTER/NA partition, in the index's order: round (a number), then matchId. */
    const expected: Item[] = [];
    before(async () => {
      table = await createUniqueTable(twin.client, 'mk-query', MATCHES);
      const rounds = [10, 2, -1, 2.5, 100];
      const matchIds = ['b', 'a', 'a\u0000', 'ab', 'B'];
      let serial = 0;
      for (const round of rounds) {
        for (const matchId of matchIds) {
          const item = match(`w${serial++}`, 'WINTER', 'NA', round, matchId, { score: { N: String(serial) } });
          await put(table, item);
          expected.push(item);
        }
      }
      // Other partitions that share one of the two partition values.
      await put(table, match('other-region', 'WINTER', 'EU', 2, 'a'));
      await put(table, match('other-tournament', 'SUMMER', 'NA', 2, 'a'));
      const byBytes = (left: string, right: string) => Buffer.compare(Buffer.from(left), Buffer.from(right));
      expected.sort((left, right) => Number(left.round!.N) - Number(right.round!.N) || byBytes(left.matchId!.S!, right.matchId!.S!));
    });

    const ids = (items: readonly Item[]) => items.map((item) => item.id!.S);
    const keyQuery = (condition: string, values: Item, extra: Partial<QueryCommandInput> = {}): QueryCommandInput => ({
      TableName: table,
      IndexName: 'by-bracket',
      KeyConditionExpression: `tournamentId = :t AND #region = :g${condition === '' ? '' : ' AND ' + condition}`,
      ExpressionAttributeNames: { '#region': 'region', ...(condition.includes('#round') ? { '#round': 'round' } : {}) },
      ExpressionAttributeValues: { ':t': { S: 'WINTER' }, ':g': { S: 'NA' }, ...values },
      ...extra,
    });

    test('every partition key attribute by equality reads the partition in sort key order, each attribute compared by its type', async () => {
      const forward = await queryAll(keyQuery('', {}));
      assert.deepEqual(ids(forward.items), ids(expected));
      const backward = await queryAll(keyQuery('', {}, { ScanIndexForward: false, Limit: 4 }));
      assert.deepEqual(ids(backward.items), ids(expected).reverse());
      // Pages restart from keys that carry the table key and every index key attribute (a full last page would have one too).
      assert.equal(expected.length % 4, 1);
      assert.equal(backward.keys.length, Math.floor(expected.length / 4));
      assert.deepEqual(Object.keys(backward.keys[0]!).sort(), ['id', 'matchId', 'region', 'round', 'tournamentId']);
    });

    test('sort key attributes from the left, the last one with any sort key condition', async () => {
      const inRound = (round: number) => expected.filter((item) => Number(item.round!.N) === round);
      const cases: [string, Item, (item: Item) => boolean][] = [
        ['#round = :n', { ':n': { N: '2.5' } }, (item) => item.round!.N === '2.5'],
        ['#round < :n', { ':n': { N: '2.5' } }, (item) => Number(item.round!.N) < 2.5],
        ['#round <= :n', { ':n': { N: '2.5' } }, (item) => Number(item.round!.N) <= 2.5],
        ['#round > :n', { ':n': { N: '2.5' } }, (item) => Number(item.round!.N) > 2.5],
        ['#round >= :n', { ':n': { N: '2.5' } }, (item) => Number(item.round!.N) >= 2.5],
        ['#round BETWEEN :lo AND :hi', { ':lo': { N: '2' }, ':hi': { N: '10' } }, (item) => Number(item.round!.N) >= 2 && Number(item.round!.N) <= 10],
        ['#round = :n AND matchId = :m', { ':n': { N: '10' }, ':m': { S: 'a' } }, (item) => item.round!.N === '10' && item.matchId!.S === 'a'],
        ['#round = :n AND matchId < :m', { ':n': { N: '10' }, ':m': { S: 'ab' } }, (item) => item.round!.N === '10' && Buffer.compare(Buffer.from(item.matchId!.S!), Buffer.from('ab')) < 0],
        ['#round = :n AND matchId <= :m', { ':n': { N: '10' }, ':m': { S: 'a\u0000' } }, (item) => item.round!.N === '10' && ['B', 'a', 'a\u0000'].includes(item.matchId!.S!)],
        ['#round = :n AND matchId > :m', { ':n': { N: '10' }, ':m': { S: 'a' } }, (item) => item.round!.N === '10' && ['a\u0000', 'ab', 'b'].includes(item.matchId!.S!)],
        ['#round = :n AND matchId >= :m', { ':n': { N: '10' }, ':m': { S: 'ab' } }, (item) => item.round!.N === '10' && ['ab', 'b'].includes(item.matchId!.S!)],
        ['#round = :n AND matchId BETWEEN :lo AND :hi', { ':n': { N: '-1' }, ':lo': { S: 'B' }, ':hi': { S: 'a\u0000' } }, (item) => item.round!.N === '-1' && ['B', 'a', 'a\u0000'].includes(item.matchId!.S!)],
        ['#round = :n AND begins_with(matchId, :p)', { ':n': { N: '100' }, ':p': { S: 'a' } }, (item) => item.round!.N === '100' && item.matchId!.S!.startsWith('a')],
        // The condition's terms in any order: the key schema orders them.
        ['matchId = :m AND #round = :n', { ':n': { N: '2' }, ':m': { S: 'b' } }, (item) => item.round!.N === '2' && item.matchId!.S === 'b'],
      ];
      for (const [condition, values, keep] of cases) {
        for (const forward of [true, false]) {
          const { items } = await queryAll(keyQuery(condition, values, { ScanIndexForward: forward, Limit: 3 }));
          const wanted = expected.filter(keep);
          assert.deepEqual(ids(items), ids(forward ? wanted : [...wanted].reverse()), `${condition} (${forward ? 'forward' : 'backward'})`);
        }
      }
      assert.equal(inRound(10).length, 5);
    });

    test('the DocumentClient queries such an index with plain values', async () => {
      const { Items } = await twin.documentClient.send(
        new DocumentQueryCommand({
          TableName: table,
          IndexName: 'by-bracket',
          KeyConditionExpression: 'tournamentId = :t AND #region = :g AND #round = :n',
          ExpressionAttributeNames: { '#region': 'region', '#round': 'round' },
          ExpressionAttributeValues: { ':t': 'WINTER', ':g': 'NA', ':n': 2 },
        }),
      );
      assert.deepEqual(Items!.map((item) => item.matchId), ['B', 'a', 'a\u0000', 'ab', 'b']);
      await twin.documentClient.send(new PutCommand({ TableName: table, Item: { id: 'doc', tournamentId: 'DOC', region: 'R', round: 1, matchId: 'm' } }));
      const { Items: mine } = await twin.documentClient.send(
        new DocumentQueryCommand({
          TableName: table,
          IndexName: 'by-bracket',
          KeyConditionExpression: 'tournamentId = :t AND #region = :g',
          ExpressionAttributeNames: { '#region': 'region' },
          ExpressionAttributeValues: { ':t': 'DOC', ':g': 'R' },
        }),
      );
      assert.deepEqual(mine, [{ id: 'doc', tournamentId: 'DOC', region: 'R', round: 1, matchId: 'm' }]);
    });

    test('a missing partition attribute, a range on one, a skipped sort attribute, a range before the last: refused', async () => {
      const refuse = (input: QueryCommandInput, message: string) => expectDynamoError(twin.client.send(new QueryCommand(input)), VALIDATION, message);
      const only = (condition: string, values: Item, names: Record<string, string> = {}): QueryCommandInput => ({
        TableName: table,
        IndexName: 'by-bracket',
        KeyConditionExpression: condition,
        ...(Object.keys(names).length === 0 ? {} : { ExpressionAttributeNames: names }),
        ExpressionAttributeValues: values,
      });
      // The refusals name the HASH attributes that each need equality, or the RANGE attributes to give from the left.
      const hashRule = 'Query key condition not supported: every HASH key attribute needs an equality condition; HASH key attributes: [tournamentId, region]';
      const rangeRule =
        'Query key condition not supported: RANGE key attributes must be given from the left without a gap, each with an equality condition ' +
        'except the last one given; RANGE key attributes: [round, matchId]';
      await refuse(only('tournamentId = :t', { ':t': { S: 'WINTER' } }), hashRule);
      await refuse(only('#region = :g', { ':g': { S: 'NA' } }, { '#region': 'region' }), hashRule);
      await refuse(only('tournamentId = :t AND #region > :g', { ':t': { S: 'WINTER' }, ':g': { S: 'NA' } }, { '#region': 'region' }), hashRule);
      await refuse(only('tournamentId = :t AND begins_with(#region, :g)', { ':t': { S: 'WINTER' }, ':g': { S: 'N' } }, { '#region': 'region' }), hashRule);
      await refuse(keyQuery('matchId = :m', { ':m': { S: 'a' } }), rangeRule);
      await refuse(keyQuery('#round > :n AND matchId = :m', { ':n': { N: '1' }, ':m': { S: 'a' } }), rangeRule);
      await refuse(keyQuery('#round > :n AND matchId > :m', { ':n': { N: '1' }, ':m': { S: 'a' } }), rangeRule);
      await refuse(keyQuery('begins_with(#round, :n) AND matchId = :m', { ':n': { S: '1' }, ':m': { S: 'a' } }), INVALID + 'Condition parameter type does not match schema type');
      await refuse(keyQuery('#round = :n AND score = :s', { ':n': { N: '1' }, ':s': { N: '1' } }), 'Query key condition not supported');
      await refuse(keyQuery('#round = :n AND matchId = :m AND score = :s', { ':n': { N: '1' }, ':m': { S: 'a' }, ':s': { N: '1' } }), 'Query key condition not supported');
      await refuse(keyQuery('#round = :n', { ':n': { S: '1' } }), INVALID + 'Condition parameter type does not match schema type');
      // A filter may name no key attribute of the index.
      await refuse(keyQuery('', { ':m': { S: 'a' } }, { FilterExpression: 'matchId = :m' }), 'Filter Expression can only contain non-primary key attributes: Primary key attribute: matchId');
      // Legacy KeyConditions cannot express such a key.
      await refuse(
        {
          TableName: table,
          IndexName: 'by-bracket',
          KeyConditions: {
            tournamentId: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'WINTER' }] },
            region: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'NA' }] },
          },
        },
        'KeyConditions are not supported on global secondary indexes with multi-attribute keys; use KeyConditionExpression',
      );
      // A start key missing an index key attribute, or outside the condition.
      const first = expected[0]!;
      const startKey = { id: first.id!, tournamentId: first.tournamentId!, region: first.region!, round: first.round!, matchId: first.matchId! };
      const { matchId: _dropped, ...partial } = startKey;
      await refuse(keyQuery('', {}, { ExclusiveStartKey: partial }), 'The provided starting key is invalid');
      await refuse(keyQuery('', {}, { ExclusiveStartKey: { ...partial, score: { S: 'x' } } }), 'The provided starting key is invalid');
      await refuse(keyQuery('', {}, { ExclusiveStartKey: { ...startKey, region: { S: 'EU' } } }), 'The provided starting key is outside query boundaries based on provided conditions');
      await refuse(keyQuery('#round = :n', { ':n': { N: '2' } }, { ExclusiveStartKey: startKey }), 'The provided starting key does not match the range key predicate');
    });

    test('more than two conditions fail on a single-attribute GSI with the schema, on a table before its lookup', async () => {
      const single = await createUniqueTable(twin.client, 'mk-single', {
        AttributeDefinitions: attributes({ id: 'S', g: 'S', s: 'S' }),
        KeySchema: keySchema('id'),
        GlobalSecondaryIndexes: [{ IndexName: 'by-g', KeySchema: keySchema('g', 's'), Projection: { ProjectionType: 'ALL' } }],
      });
      const values = { ':a': { S: 'a' } };
      await expectDynamoError(
        twin.client.send(new QueryCommand({ TableName: single, IndexName: 'by-g', KeyConditionExpression: 'g = :a AND s = :a AND x = :a', ExpressionAttributeValues: values })),
        VALIDATION,
        'Conditions can be of length 1 or 2 only',
      );
      await expectDynamoError(
        twin.client.send(new QueryCommand({ TableName: uniqueTableName('absent'), KeyConditionExpression: 'g = :a AND s = :a AND x = :a', ExpressionAttributeValues: values })),
        VALIDATION,
        'Conditions can be of length 1 or 2 only',
      );
      // On an index the count waits for the schema: an absent table is not found first.
      await expectDynamoError(
        twin.client.send(new QueryCommand({ TableName: uniqueTableName('absent'), IndexName: 'idx', KeyConditionExpression: 'g = :a AND s = :a AND x = :a', ExpressionAttributeValues: values })),
        'ResourceNotFoundException',
      );
    });

    test('a filter on other attributes and a Scan of the index', async () => {
      const { items } = await queryAll(keyQuery('#round >= :n', { ':n': { N: '10' }, ':s': { N: '13' } }, { FilterExpression: 'score < :s' }));
      assert.deepEqual(ids(items), ids(expected.filter((item) => Number(item.round!.N) >= 10 && Number(item.score!.N) < 13)));
      const scanned: Item[] = [];
      let start: Item | undefined;
      do {
        const page = await twin.client.send(new ScanCommand({ TableName: table, IndexName: 'by-bracket', Limit: 7, ExclusiveStartKey: start }));
        scanned.push(...page.Items!);
        start = page.LastEvaluatedKey;
      } while (start !== undefined);
      assert.equal(scanned.length, expected.length + 3);
      assert.deepEqual(ids(scanned.filter((item) => item.tournamentId!.S === 'WINTER' && item.region!.S === 'NA')), ids(expected));
    });
  });
});

describe('multi-attribute GSI keys: partitions, capacity, Contributor Insights', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual' });
  });
  after(async () => {
    await twin.close();
  });

  interface PartitionsView {
    readonly indexes: Record<string, { readonly partitions: readonly { readonly itemCount: number; readonly consumedWriteUnitsLastMinute: number }[] }>;
  }
  const inspect = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const answer = await fetch(`${twin.twin.endpoint}${path}`);
    return { status: answer.status, body: (await answer.json()) as T };
  };

  test('the partition is chosen by all partition key values together; units, insights and the dashboard use the tuple', async () => {
    const table = await createUniqueTable(twin.client, 'mk-partitions', {
      AttributeDefinitions: attributes({ id: 'S', tournamentId: 'S', region: 'S', round: 'N' }),
      KeySchema: keySchema('id'),
      GlobalSecondaryIndexes: [
        { IndexName: 'by-tuple', KeySchema: multiKey(['tournamentId', 'region'], ['round']), Projection: { ProjectionType: 'ALL' } },
        { IndexName: 'by-tournament', KeySchema: keySchema('tournamentId'), Projection: { ProjectionType: 'ALL' } },
      ],
    });
    await twin.client.send(new UpdateContributorInsightsCommand({ TableName: table, IndexName: 'by-tuple', ContributorInsightsAction: 'ENABLE' }));
    let consumed: ConsumedCapacity | undefined;
    for (let at = 0; at < 64; at++) {
      const answer = await twin.client.send(
        new PutItemCommand({
          TableName: table,
          Item: { id: { S: `i${at}` }, tournamentId: { S: 'T' }, region: { S: `r${at}` }, round: { N: String(at % 4) }, pad: { S: 'x'.repeat(1500) } },
          ReturnConsumedCapacity: 'INDEXES',
        }),
      );
      consumed = answer.ConsumedCapacity;
    }
    // An entry is sized with every key attribute: a 1.5 KB item is 2 write units in each GSI (ALL).
    assert.equal(consumed!.GlobalSecondaryIndexes!['by-tuple']!.CapacityUnits, 2);
    assert.equal(consumed!.GlobalSecondaryIndexes!['by-tournament']!.CapacityUnits, 2);

    const { body } = await inspect<PartitionsView>(`/dynatwin/tables/${table}/partitions`);
    const occupied = (index: string) => body.indexes[index]!.partitions.filter((partition) => partition.itemCount > 0).length;
    assert.ok(body.indexes['by-tuple']!.partitions.length > 1, 'an on-demand GSI starts with several partitions');
    // One partition key value: one partition. Sixty-four tuples sharing their first value: hashed apart.
    assert.equal(occupied('by-tournament'), 1);
    assert.ok(occupied('by-tuple') > 1, `the tuples landed on ${occupied('by-tuple')} partition(s)`);

    const { status, body: insights } = await inspect<InsightsReport>(`/dynatwin/tables/${table}/indexes/by-tuple/contributor-insights`);
    assert.equal(status, 200);
    const [pkc, skc] = insights.rules;
    assert.equal(pkc!.kind, 'PKC');
    const partitionKeys = pkc!.minutes.flatMap((minute) => minute.contributors.map((contributor) => contributor.keys));
    assert.ok(partitionKeys.length > 0);
    for (const keys of partitionKeys) assert.match(keys[0]!, /^\["T","r\d+"\]$/);
    const sortKeys = skc!.minutes.flatMap((minute) => minute.contributors.map((contributor) => contributor.keys));
    assert.ok(sortKeys.length > 0);
    for (const keys of sortKeys) assert.equal(keys[1], `["${Number(keys[0]!.slice(7, -2)) % 4}"]`, JSON.stringify(keys));

    const tables = await inspect<unknown>('/dynatwin/tables');
    assert.equal(tables.status, 200);
    const heatmap = await inspect<unknown>(`/dynatwin/tables/${table}/heatmap?index=by-tuple`);
    assert.equal(heatmap.status, 200);

    // A Query reads one partition of the index and is charged to it.
    const query = await twin.client.send(
      new QueryCommand({
        TableName: table,
        IndexName: 'by-tuple',
        KeyConditionExpression: 'tournamentId = :t AND #region = :r',
        ExpressionAttributeNames: { '#region': 'region' },
        ExpressionAttributeValues: { ':t': { S: 'T' }, ':r': { S: 'r7' } },
        ReturnConsumedCapacity: 'INDEXES',
      }),
    );
    assert.equal(query.Count, 1);
    assert.equal(query.ConsumedCapacity!.GlobalSecondaryIndexes!['by-tuple']!.CapacityUnits, 0.5);
  });

  test('a KEYS_ONLY entry is sized with every key attribute of the index', async () => {
    const table = await createUniqueTable(twin.client, 'mk-units', {
      AttributeDefinitions: attributes({ id: 'S', a: 'S', b: 'S', c: 'S' }),
      KeySchema: keySchema('id'),
      GlobalSecondaryIndexes: [{ IndexName: 'keys', KeySchema: multiKey(['a', 'b'], ['c']), Projection: { ProjectionType: 'KEYS_ONLY' } }],
    });
    const { ConsumedCapacity } = await twin.client.send(
      new PutItemCommand({
        TableName: table,
        Item: { id: { S: 'i' }, a: { S: 'a'.repeat(1200) }, b: { S: 'b'.repeat(1200) }, c: { S: 'c'.repeat(600) }, pad: { S: 'p'.repeat(5000) } },
        ReturnConsumedCapacity: 'INDEXES',
      }),
    );
    // id + a + b + c: 3,004 bytes of values and names, 3 write units; the item itself is 8.
    assert.equal(ConsumedCapacity!.GlobalSecondaryIndexes!['keys']!.CapacityUnits, 3);
    assert.equal(ConsumedCapacity!.Table!.CapacityUnits, 8);
  });
});

describe('multi-attribute GSI keys: restarts, backups, PartiQL', () => {
  const scratch = scratchDirectories('dynatwin-multi-key-');
  after(() => scratch.removeAll());

  const TABLE = 'matches';
  const bracketQuery = (table: string): QueryCommandInput => ({
    TableName: table,
    IndexName: 'by-bracket',
    KeyConditionExpression: 'tournamentId = :t AND #region = :r AND #round > :n',
    ExpressionAttributeNames: { '#region': 'region', '#round': 'round' },
    ExpressionAttributeValues: { ':t': { S: 'T' }, ':r': { S: 'EU' }, ':n': { N: '1' } },
  });
  const items = Array.from({ length: 12 }, (_, at) => ({
    id: { S: `m${at}` },
    tournamentId: { S: 'T' },
    region: { S: at % 2 === 0 ? 'EU' : 'NA' },
    round: { N: String(at % 4) },
    matchId: { S: `x${11 - at}` },
  }));
  const answerOf = async (twin: TwinClients, table: string) => {
    const { Items } = await twin.client.send(new QueryCommand(bracketQuery(table)));
    return Items!.map((item) => [item.round!.N, item.matchId!.S, item.id!.S]);
  };

  test('the key schema and the entries survive a restart of a server with --data-dir, and a backup restores the index', async () => {
    const dataDir = scratch.fresh();
    const before = await withTwin({ dataDir }, async (twin) => {
      await twin.client.send(new CreateTableCommand({ TableName: TABLE, BillingMode: 'PAY_PER_REQUEST', ...MATCHES }));
      for (const item of items) await twin.client.send(new PutItemCommand({ TableName: TABLE, Item: item }));
      const answer = await answerOf(twin, TABLE);
      // Even items are EU; round = item % 4 > 1 leaves m2, m6, m10, in matchId order.
      assert.deepEqual(answer, [['2', 'x1', 'm10'], ['2', 'x5', 'm6'], ['2', 'x9', 'm2']]);
      return answer;
    });
    await withTwin({ dataDir }, async (twin) => {
      const gsi = (await twin.client.send(new DescribeTableCommand({ TableName: TABLE }))).Table!.GlobalSecondaryIndexes![0]!;
      assert.deepEqual(gsi.KeySchema, MATCHES.GlobalSecondaryIndexes![0]!.KeySchema);
      assert.deepEqual(await answerOf(twin, TABLE), before);
      // A write after the restart keeps the index in step.
      await twin.client.send(new PutItemCommand({ TableName: TABLE, Item: { ...items[2]!, id: { S: 'late' }, matchId: { S: 'x0' } } }));
      assert.equal((await answerOf(twin, TABLE)).length, 4);

      const { BackupDetails } = await twin.client.send(new CreateBackupCommand({ TableName: TABLE, BackupName: 'matches-backup' }));
      await twin.twin.settled();
      await twin.client.send(new RestoreTableFromBackupCommand({ TargetTableName: 'matches-restored', BackupArn: BackupDetails!.BackupArn! }));
      await waitActive(twin.client, 'matches-restored');
      const restored = (await twin.client.send(new DescribeTableCommand({ TableName: 'matches-restored' }))).Table!;
      assert.deepEqual(restored.GlobalSecondaryIndexes![0]!.KeySchema, MATCHES.GlobalSecondaryIndexes![0]!.KeySchema);
      // ACTIVE means readable: the restore's last chunk is committed before the table turns ACTIVE.
      assert.deepEqual(await answerOf(twin, 'matches-restored'), await answerOf(twin, TABLE));
      // An override may restate the multi-attribute key schema; the rules are CreateTable's.
      await expectDynamoError(
        twin.client.send(
          new RestoreTableFromBackupCommand({
            TargetTableName: 'matches-restored-2',
            BackupArn: BackupDetails!.BackupArn!,
            GlobalSecondaryIndexOverride: [{ IndexName: 'by-bracket', KeySchema: [...multiKey(['tournamentId'], ['round']), { AttributeName: 'region', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
          }),
        ),
        VALIDATION,
        INVALID + 'All HASH key attributes must precede RANGE key attributes in the KeySchema',
      );
    });
  });

  test('a server killed with kill -9 comes back with the index, its schema and its entries (write-ahead log replay)', { skip: embeddedStoreOnly("the write-ahead log's replay after kill -9 of a CLI server on --data-dir") }, async () => {
    const dataDir = scratch.fresh();
    const first = await startServerProcess(['--data-dir', dataDir]);
    const client = sdkClient(first.endpoint);
    try {
      await client.send(new CreateTableCommand({ TableName: TABLE, BillingMode: 'PAY_PER_REQUEST', ...MATCHES }));
      for (const item of items) await client.send(new PutItemCommand({ TableName: TABLE, Item: item }));
    } finally {
      client.destroy();
    }
    first.child.kill('SIGKILL');
    assert.equal(await first.exited, 'SIGKILL');
    const second = await startServerProcess(['--data-dir', dataDir]);
    const again = sdkClient(second.endpoint);
    try {
      const gsi = (await again.send(new DescribeTableCommand({ TableName: TABLE }))).Table!.GlobalSecondaryIndexes![0]!;
      assert.deepEqual(gsi.KeySchema, MATCHES.GlobalSecondaryIndexes![0]!.KeySchema);
      assert.equal(gsi.ItemCount, items.length);
      const { Items } = await again.send(new QueryCommand(bracketQuery(TABLE)));
      assert.deepEqual(Items!.map((item) => item.id!.S), ['m10', 'm6', 'm2']);
    } finally {
      again.destroy();
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  test('PartiQL SELECT on such an index scans it with the WHERE as its filter', async () => {
    await withTwin({}, async (twin) => {
      await twin.client.send(new CreateTableCommand({ TableName: TABLE, BillingMode: 'PAY_PER_REQUEST', ...MATCHES }));
      for (const item of items) await twin.client.send(new PutItemCommand({ TableName: TABLE, Item: item }));
      const { Items } = await twin.client.send(
        new ExecuteStatementCommand({ Statement: `SELECT id FROM "${TABLE}"."by-bracket" WHERE tournamentId = 'T' AND region = 'EU' AND round > 1` }),
      );
      assert.deepEqual(Items!.map((item) => item.id!.S).sort(), ['m10', 'm2', 'm6']);
      const all = await twin.client.send(new ExecuteStatementCommand({ Statement: `SELECT * FROM "${TABLE}"."by-bracket"` }));
      assert.equal(all.Items!.length, 12);
    });
  });
});
