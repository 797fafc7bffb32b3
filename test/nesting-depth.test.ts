/**
 * DynamoDB's attribute nesting limit (32 levels) on every write path, through the SDK: an item may
 * not become deeper than PutItem accepts, whether it arrives whole (PutItem, BatchWriteItem,
 * TransactWriteItems Put, PartiQL INSERT) or is built by an update (SET of a document at a path,
 * list_append, in UpdateItem, TransactWriteItems Update and PartiQL UPDATE).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  ExecuteStatementCommand,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { expectDynamoError, startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

const NESTING = 'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit';
/** The most map levels an attribute value may have (a leaf inside 32 maps). */
const LEVELS_MAX = 32;

/** `levels` maps, one inside the other, around a string leaf. */
function nested(levels: number, leaf: AttributeValue = { S: 'leaf' }): AttributeValue {
  let value: AttributeValue = leaf;
  for (let level = 0; level < levels; level++) value = { M: { k: value } };
  return value;
}

/** The document path of the innermost map of `doc` when it holds nested(levels): doc.k.k... */
function innermostMap(levels: number): string {
  return ['doc', ...Array.from({ length: levels - 1 }, () => 'k')].join('.');
}

describe('nesting depth on every write path', () => {
  let twin: TwinClients;
  let table: string;
  before(async () => {
    twin = await startTwinWithClients();
    table = uniqueTableName('nesting');
    await twin.client.send(
      new CreateTableCommand({
        TableName: table,
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  });
  after(() => twin.close());

  const key = (pk: string): Record<string, AttributeValue> => ({ pk: { S: pk } });
  const put = (pk: string, levels: number) => twin.client.send(new PutItemCommand({ TableName: table, Item: { ...key(pk), doc: nested(levels) } }));
  const stored = async (pk: string): Promise<Record<string, AttributeValue> | undefined> =>
    (await twin.client.send(new GetItemCommand({ TableName: table, Key: key(pk) }))).Item;

  test('PutItem, BatchWriteItem, TransactWriteItems Put and PartiQL INSERT accept 32 levels and refuse 33', async () => {
    await put('put-max', LEVELS_MAX);
    await expectDynamoError(put('put-over', LEVELS_MAX + 1), 'ValidationException', NESTING);
    await expectDynamoError(
      twin.client.send(new BatchWriteItemCommand({ RequestItems: { [table]: [{ PutRequest: { Item: { ...key('batch'), doc: nested(LEVELS_MAX + 1) } } }] } })),
      'ValidationException',
      NESTING,
    );
    await expectDynamoError(
      twin.client.send(new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: table, Item: { ...key('txn'), doc: nested(LEVELS_MAX + 1) } } }] })),
      'ValidationException',
      NESTING,
    );
    await expectDynamoError(
      twin.client.send(new ExecuteStatementCommand({ Statement: `INSERT INTO "${table}" VALUE {'pk': 'partiql', 'doc': ?}`, Parameters: [nested(LEVELS_MAX + 1)] })),
      'ValidationException',
      NESTING,
    );
    assert.equal(await stored('put-over'), undefined);
    assert.equal(await stored('batch'), undefined);
    assert.equal(await stored('txn'), undefined);
    assert.equal(await stored('partiql'), undefined);
  });

  test('UpdateItem: a SET that would make the item deeper than 32 levels is refused, at a path or by value', async () => {
    await put('update', LEVELS_MAX - 1);
    // doc holds 31 maps: one more map at the innermost one reaches 32 levels, which is allowed...
    await twin.client.send(
      new UpdateItemCommand({ TableName: table, Key: key('update'), UpdateExpression: `SET ${innermostMap(LEVELS_MAX - 1)}.extra = :v`, ExpressionAttributeValues: { ':v': nested(1) } }),
    );
    // ...and one more level beyond that is not, though the value alone is shallow.
    await expectDynamoError(
      twin.client.send(
        new UpdateItemCommand({ TableName: table, Key: key('update'), UpdateExpression: `SET ${innermostMap(LEVELS_MAX - 1)}.extra = :v`, ExpressionAttributeValues: { ':v': nested(2) } }),
      ),
      'ValidationException',
      NESTING,
    );
    // A top-level SET of a value as deep as PutItem allows is fine; on a new item too.
    await twin.client.send(new UpdateItemCommand({ TableName: table, Key: key('update-new'), UpdateExpression: 'SET doc = :v', ExpressionAttributeValues: { ':v': nested(LEVELS_MAX) } }));
    assert.deepEqual((await stored('update-new'))?.doc, nested(LEVELS_MAX));
    // The refused update changed nothing.
    const item = await stored('update');
    let inner: AttributeValue | undefined = item?.doc;
    for (let level = 0; level < LEVELS_MAX - 2; level++) inner = inner?.M?.k;
    assert.deepEqual(inner?.M?.extra, nested(1));
  });

  test('UpdateItem: list_append that nests a document in a deep list is refused, though the value alone is shallow', async () => {
    // doc holds 31 maps; the innermost one has a list `entries`, whose elements lie 32 levels down.
    const doc = nested(LEVELS_MAX - 2, { M: { k: { S: 'leaf' }, entries: { L: [] } } });
    await twin.client.send(new PutItemCommand({ TableName: table, Item: { ...key('append'), doc } }));
    const append = (value: AttributeValue) =>
      twin.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key('append'),
          UpdateExpression: `SET ${innermostMap(LEVELS_MAX - 1)}.entries = list_append(${innermostMap(LEVELS_MAX - 1)}.entries, :v)`,
          ExpressionAttributeValues: { ':v': value },
        }),
      );
    await expectDynamoError(append({ L: [nested(1)] }), 'ValidationException', NESTING);
    await append({ L: [{ S: 'x' }] });
    let inner: AttributeValue | undefined = (await stored('append'))?.doc;
    for (let level = 0; level < LEVELS_MAX - 2; level++) inner = inner?.M?.k;
    assert.deepEqual(inner?.M?.entries, { L: [{ S: 'x' }] });
  });

  test('TransactWriteItems Update and PartiQL UPDATE refuse the same deepening', async () => {
    await put('txn-update', LEVELS_MAX - 1);
    let caught: unknown;
    try {
      await twin.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [{ Update: { TableName: table, Key: key('txn-update'), UpdateExpression: `SET ${innermostMap(LEVELS_MAX - 1)}.extra = :v`, ExpressionAttributeValues: { ':v': nested(2) } } }],
        }),
      );
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof TransactionCanceledException, `expected TransactionCanceledException, got ${String(caught)}`);
    assert.deepEqual(caught.CancellationReasons?.map((reason) => [reason.Code, reason.Message]), [['ValidationError', NESTING]]);

    await put('partiql-update', LEVELS_MAX - 1);
    await expectDynamoError(
      twin.client.send(
        new ExecuteStatementCommand({ Statement: `UPDATE "${table}" SET ${innermostMap(LEVELS_MAX - 1)}.extra = ? WHERE pk = 'partiql-update'`, Parameters: [nested(2)] }),
      ),
      'ValidationException',
      NESTING,
    );
    await twin.client.send(
      new ExecuteStatementCommand({ Statement: `UPDATE "${table}" SET ${innermostMap(LEVELS_MAX - 1)}.extra = ? WHERE pk = 'partiql-update'`, Parameters: [nested(1)] }),
    );
  });
});
