/**
 * Index key violations, through the AWS SDK. A GSI added to a table whose items hold values that
 * cannot key it — an empty S or B, a partition key value over 2,048 bytes, a sort key value over
 * 1,024 bytes, another type — is backfilled without them and becomes ACTIVE: DynamoDB's developer
 * guide ("Detecting and correcting index key violations") says the backfill goes on uninterrupted
 * and leaves such items out of the index, and that writes violating the key schema are refused
 * afterwards. The refusal's text for an oversized value is the service's as users quote it
 * (`Size limit exceeded for Index Key componentId Actual Size: 2175 bytes Max Size: 2048 bytes
 * IndexName: work-sets-index`, wellcomecollection/platform#2285; architect/dynalite#35).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BatchWriteItemCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  ExecuteStatementCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { attributes, createUniqueTable, keySchema, waitForIndexActive } from './support/tables.js';
import { expectDynamoError, startTwinWithClients, type TwinClients } from './support/twin.js';

const VALIDATION = 'ValidationException';
const INVALID = 'One or more parameter values were invalid: ';
const HASH_TABLE = { AttributeDefinitions: attributes({ id: 'S' }), KeySchema: keySchema('id') };

describe('index key violations', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients();
  });
  after(async () => {
    await twin.close();
  });

  const describeTable = async (name: string) => (await twin.client.send(new DescribeTableCommand({ TableName: name }))).Table!;


  async function indexedIds(table: string, index: string): Promise<string[]> {
    const { Items } = await twin.client.send(new ScanCommand({ TableName: table, IndexName: index }));
    return Items!.map((item) => item.id!.S!).sort();
  }

  async function put(table: string, item: Record<string, AttributeValue>): Promise<void> {
    await twin.client.send(new PutItemCommand({ TableName: table, Item: item }));
  }

  test('a GSI backfill skips items whose partition key value is empty, too long or of another type, and becomes ACTIVE', async () => {
    const table = await createUniqueTable(twin.client, 'violations-hash', HASH_TABLE);
    await put(table, { id: { S: 'good' }, g: { S: 'x'.repeat(2048) } });
    await put(table, { id: { S: 'good-b' }, g: { S: 'short' } });
    await put(table, { id: { S: 'empty' }, g: { S: '' } });
    await put(table, { id: { S: 'long' }, g: { S: 'x'.repeat(2049) } });
    await put(table, { id: { S: 'long-utf8' }, g: { S: 'é'.repeat(1025) } }); // 2,050 bytes of UTF-8
    await put(table, { id: { S: 'number' }, g: { N: '1' } });
    await put(table, { id: { S: 'absent' } });
    await twin.client.send(
      new UpdateTableCommand({
        TableName: table,
        AttributeDefinitions: [{ AttributeName: 'g', AttributeType: 'S' }],
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'by-g', KeySchema: keySchema('g'), Projection: { ProjectionType: 'ALL' } } }],
      }),
    );
    await waitForIndexActive(twin.client, table, 'by-g');
    assert.deepEqual(await indexedIds(table, 'by-g'), ['good', 'good-b']);
    const gsi = (await describeTable(table)).GlobalSecondaryIndexes![0]!;
    assert.equal(gsi.ItemCount, 2);
    assert.equal(gsi.Backfilling, undefined);
    const { Items } = await twin.client.send(
      new QueryCommand({ TableName: table, IndexName: 'by-g', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'short' } } }),
    );
    assert.deepEqual(Items, [{ id: { S: 'good-b' }, g: { S: 'short' } }]);
    // The skipped items stay in the table, and the table is not stuck: it can be deleted.
    assert.equal((await twin.client.send(new ScanCommand({ TableName: table }))).Count, 7);
    await twin.client.send(new DeleteTableCommand({ TableName: table }));
  });

  test('a GSI backfill skips items whose sort key value is empty or over 1,024 bytes (S and B)', async () => {
    const table = await createUniqueTable(twin.client, 'violations-range', HASH_TABLE);
    await put(table, { id: { S: 'good' }, h: { S: 'h' }, r: { B: new Uint8Array(1024).fill(7) } });
    await put(table, { id: { S: 'empty' }, h: { S: 'h' }, r: { B: new Uint8Array(0) } });
    await put(table, { id: { S: 'long' }, h: { S: 'h' }, r: { B: new Uint8Array(1025).fill(7) } });
    // A 2,048-byte partition key value beside a usable sort key is still indexed.
    await put(table, { id: { S: 'long-hash' }, h: { S: 'y'.repeat(2048) }, r: { B: new Uint8Array([1]) } });
    await twin.client.send(
      new UpdateTableCommand({
        TableName: table,
        AttributeDefinitions: [
          { AttributeName: 'h', AttributeType: 'S' },
          { AttributeName: 'r', AttributeType: 'B' },
        ],
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'by-hr', KeySchema: keySchema('h', 'r'), Projection: { ProjectionType: 'KEYS_ONLY' } } }],
      }),
    );
    await waitForIndexActive(twin.client, table, 'by-hr');
    assert.deepEqual(await indexedIds(table, 'by-hr'), ['good', 'long-hash']);
    await twin.client.send(new DeleteTableCommand({ TableName: table }));
  });

  test('once the GSI exists, every write path refuses an oversized or empty index key value', async () => {
    const table = await createUniqueTable(twin.client, 'violations-writes', {
      AttributeDefinitions: attributes({ id: 'S', g: 'S', r: 'S' }),
      KeySchema: keySchema('id'),
      GlobalSecondaryIndexes: [{ IndexName: 'by-gr', KeySchema: keySchema('g', 'r'), Projection: { ProjectionType: 'ALL' } }],
    });
    const hashTooLong = INVALID + 'Size limit exceeded for Index Key g Actual Size: 2049 bytes Max Size: 2048 bytes IndexName: by-gr';
    const rangeTooLong = INVALID + 'Size limit exceeded for Index Key r Actual Size: 1025 bytes Max Size: 1024 bytes IndexName: by-gr';
    const longHash = { S: 'x'.repeat(2049) };
    const longRange = { S: 'x'.repeat(1025) };
    await expectDynamoError(put(table, { id: { S: 'a' }, g: longHash }), VALIDATION, hashTooLong);
    await expectDynamoError(put(table, { id: { S: 'a' }, g: { S: 'g' }, r: longRange }), VALIDATION, rangeTooLong);
    await expectDynamoError(
      twin.client.send(
        new UpdateItemCommand({ TableName: table, Key: { id: { S: 'a' } }, UpdateExpression: 'SET g = :g', ExpressionAttributeValues: { ':g': longHash } }),
      ),
      VALIDATION,
      hashTooLong,
    );
    await expectDynamoError(
      twin.client.send(
        new UpdateItemCommand({ TableName: table, Key: { id: { S: 'a' } }, AttributeUpdates: { r: { Action: 'PUT', Value: longRange } } }),
      ),
      VALIDATION,
      rangeTooLong,
    );
    await expectDynamoError(
      twin.client.send(new BatchWriteItemCommand({ RequestItems: { [table]: [{ PutRequest: { Item: { id: { S: 'a' }, g: longHash } } }] } })),
      VALIDATION,
      hashTooLong,
    );
    await expectDynamoError(
      twin.client.send(new ExecuteStatementCommand({ Statement: `INSERT INTO "${table}" VALUE {'id': 'a', 'g': ?}`, Parameters: [longHash] })),
      VALIDATION,
      hashTooLong,
    );
    // In a transaction the fault is the action's cancellation reason, as for other item faults.
    await assert.rejects(
      twin.client.send(new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: table, Item: { id: { S: 'a' }, g: longHash } } }] })),
      (error: Error & { CancellationReasons?: { Code?: string; Message?: string }[] }) => {
        assert.equal(error.name, 'TransactionCanceledException');
        assert.deepEqual(error.CancellationReasons, [{ Code: 'ValidationError', Message: hashTooLong }]);
        return true;
      },
    );
    // An empty value keeps DynamoDB's empty-key text.
    await expectDynamoError(
      put(table, { id: { S: 'a' }, g: { S: '' } }),
      VALIDATION,
      'One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: by-gr, IndexKey: g',
    );
    // The limits themselves are allowed, and nothing refused was written.
    await put(table, { id: { S: 'b' }, g: { S: 'x'.repeat(2048) }, r: { S: 'x'.repeat(1024) } });
    assert.equal((await twin.client.send(new ScanCommand({ TableName: table }))).Count, 1);
  });

  test("the table's partition key as a GSI sort key is held to the sort key's 1,024 bytes", async () => {
    const table = await createUniqueTable(twin.client, 'violations-table-key', {
      AttributeDefinitions: attributes({ id: 'S', g: 'S' }),
      KeySchema: keySchema('id'),
      GlobalSecondaryIndexes: [{ IndexName: 'by-g-id', KeySchema: keySchema('g', 'id'), Projection: { ProjectionType: 'KEYS_ONLY' } }],
    });
    await expectDynamoError(
      put(table, { id: { S: 'x'.repeat(1025) }, g: { S: 'g' } }),
      VALIDATION,
      INVALID + 'Size limit exceeded for Index Key id Actual Size: 1025 bytes Max Size: 1024 bytes IndexName: by-g-id',
    );
  });
});
