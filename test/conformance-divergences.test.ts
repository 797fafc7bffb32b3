/**
 * Small divergences from DynamoDB found by independent conformance suites (issue 20), each with
 * DynamoDB's answer as recorded by its source (docs/CONFORMANCE.md names them).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CreateTableCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  ListTagsOfResourceCommand,
  TagResourceCommand,
  TransactWriteItemsCommand,
  UntagResourceCommand,
  UpdateItemCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { callOperation, rawRequest, SIGNED_HEADERS } from './support/raw.js';
import { onDemandTable } from './support/tables.js';
import { OptionError, startDynatwin } from '../src/index.js';
import { expectDynamoError, startTwinWithClients, withTwin, type TwinClients } from './support/twin.js';

const TABLE = 'divergences';

describe('conformance divergences', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients();
    await twin.client.send(new CreateTableCommand(onDemandTable(TABLE)));
  });
  after(async () => {
    await twin.close();
  });

  async function exists(id: string): Promise<boolean> {
    const { Item } = await twin.client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: id } }, ConsistentRead: true }));
    return Item !== undefined;
  }

  describe('UpdateItem that only takes away, on a missing item (scylladb/scylladb#5862, observed on DynamoDB)', () => {
    test('REMOVE, DELETE and legacy DELETE create nothing; REMOVE x[0] is no error', async () => {
      const update = (id: string, input: Partial<ConstructorParameters<typeof UpdateItemCommand>[0]>) =>
        twin.client.send(new UpdateItemCommand({ TableName: TABLE, Key: { id: { S: id } }, ...input }));
      await update('remove', { UpdateExpression: 'REMOVE a, b.c' });
      await update('remove-index', { UpdateExpression: 'REMOVE x[0]' });
      await update('delete', { UpdateExpression: 'DELETE s :v', ExpressionAttributeValues: { ':v': { SS: ['a'] } } });
      await update('legacy-delete', { AttributeUpdates: { a: { Action: 'DELETE' } } });
      const returned = await update('returned', { UpdateExpression: 'REMOVE a', ReturnValues: 'ALL_NEW' });
      assert.equal(returned.Attributes, undefined);
      for (const id of ['remove', 'remove-index', 'delete', 'legacy-delete', 'returned']) assert.equal(await exists(id), false, id);
    });

    test('an update with SET or ADD beside a REMOVE, or with no action at all, still creates the item', async () => {
      await twin.client.send(new UpdateItemCommand({ TableName: TABLE, Key: { id: { S: 'set-remove' } }, UpdateExpression: 'SET a = :v REMOVE b', ExpressionAttributeValues: { ':v': { N: '1' } } }));
      await twin.client.send(new UpdateItemCommand({ TableName: TABLE, Key: { id: { S: 'add' } }, UpdateExpression: 'ADD n :v REMOVE b', ExpressionAttributeValues: { ':v': { N: '1' } } }));
      await twin.client.send(new UpdateItemCommand({ TableName: TABLE, Key: { id: { S: 'empty' } } }));
      for (const id of ['set-remove', 'add', 'empty']) assert.equal(await exists(id), true, id);
    });

    test('on an existing item REMOVE still removes, and the item stays', async () => {
      await twin.client.send(new UpdateItemCommand({ TableName: TABLE, Key: { id: { S: 'existing' } }, UpdateExpression: 'SET a = :v, b = :v', ExpressionAttributeValues: { ':v': { S: 'x' } } }));
      await twin.client.send(new UpdateItemCommand({ TableName: TABLE, Key: { id: { S: 'existing' } }, UpdateExpression: 'REMOVE a' }));
      const { Item } = await twin.client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: 'existing' } }, ConsistentRead: true }));
      assert.deepEqual(Item, { id: { S: 'existing' }, b: { S: 'x' } });
    });

    test('a transaction Update that only removes creates nothing either', async () => {
      await twin.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Update: { TableName: TABLE, Key: { id: { S: 'tx-remove' } }, UpdateExpression: 'REMOVE a' } },
            { Update: { TableName: TABLE, Key: { id: { S: 'tx-set' } }, UpdateExpression: 'SET a = :v', ExpressionAttributeValues: { ':v': { S: 'x' } } } },
          ],
        }),
      );
      assert.equal(await exists('tx-remove'), false);
      assert.equal(await exists('tx-set'), true);
    });
  });

  test('UpdateTable deleting a GSI the table lacks: ResourceNotFoundException (nubo-db/dynamodb-conformance)', async () => {
    await expectDynamoError(
      twin.client.send(new UpdateTableCommand({ TableName: TABLE, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'doesNotExist' } }] })),
      'ResourceNotFoundException',
      `Requested resource not found: Index: doesNotExist not found for table: ${TABLE}`,
    );
  });

  test("tag operations on another account's ARN: AccessDeniedException; another region: invalid TableArn; a missing table: not found", async () => {
    const foreign = `arn:aws:dynamodb:us-east-1:111122223333:table/${TABLE}`;
    const send = {
      TagResource: () => twin.client.send(new TagResourceCommand({ ResourceArn: foreign, Tags: [{ Key: 'k', Value: 'v' }] })),
      UntagResource: () => twin.client.send(new UntagResourceCommand({ ResourceArn: foreign, TagKeys: ['k'] })),
      ListTagsOfResource: () => twin.client.send(new ListTagsOfResourceCommand({ ResourceArn: foreign })),
    };
    for (const [action, call] of Object.entries(send)) {
      await expectDynamoError(
        call(),
        'AccessDeniedException',
        `User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:${action} on resource: ${foreign} because no resource-based policy allows the dynamodb:${action} action`,
      );
    }
    // The account is checked before the region.
    const foreignElsewhere = 'arn:aws:dynamodb:eu-west-1:111122223333:table/xyz';
    await expectDynamoError(twin.client.send(new ListTagsOfResourceCommand({ ResourceArn: foreignElsewhere })), 'AccessDeniedException');
    const elsewhere = 'arn:aws:dynamodb:eu-west-1:000000000000:table/xyz';
    await expectDynamoError(twin.client.send(new ListTagsOfResourceCommand({ ResourceArn: elsewhere })), 'ValidationException', `Invalid TableArn: Invalid ResourceArn provided as input ${elsewhere}`);
    const missing = 'arn:aws:dynamodb:us-east-1:000000000000:table/missing';
    await expectDynamoError(twin.client.send(new ListTagsOfResourceCommand({ ResourceArn: missing })), 'ResourceNotFoundException', `Requested resource not found: ResourcArn: ${missing} not found`);
  });

  test('TagResource and UntagResource answer an empty body (Content-Length 0), not {}; the SDK reads it as success', async () => {
    const arn = `arn:aws:dynamodb:us-east-1:000000000000:table/${TABLE}`;
    const tagged = await callOperation(twin.twin.endpoint, 'TagResource', JSON.stringify({ ResourceArn: arn, Tags: [{ Key: 'k', Value: 'v' }] }));
    assert.equal(tagged.status, 200);
    assert.equal(tagged.text, '');
    assert.equal(tagged.headers['content-length'], '0');
    assert.equal(tagged.headers['x-amz-crc32'], '0');
    const untagged = await callOperation(twin.twin.endpoint, 'UntagResource', JSON.stringify({ ResourceArn: arn, TagKeys: ['k'] }));
    assert.equal(untagged.status, 200);
    assert.equal(untagged.text, '');
    const answer = await twin.client.send(new TagResourceCommand({ ResourceArn: arn, Tags: [{ Key: 'sdk', Value: 'v' }] }));
    assert.equal(answer.$metadata.httpStatusCode, 200);
    await twin.client.send(new UntagResourceCommand({ ResourceArn: arn, TagKeys: ['sdk'] }));
    assert.deepEqual((await twin.client.send(new ListTagsOfResourceCommand({ ResourceArn: arn }))).Tags, []);
  });

  test('an empty TableName on an item operation gets the single length-1 error, not the pattern and length-3 pair', async () => {
    const oneError = "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1";
    await expectDynamoError(twin.client.send(new PutItemCommand({ TableName: '', Item: { id: { S: 'x' } } })), 'ValidationException', oneError);
    await expectDynamoError(twin.client.send(new GetItemCommand({ TableName: '', Key: { id: { S: 'x' } } })), 'ValidationException', oneError);
    // Any other name keeps the name's own rules.
    await expectDynamoError(
      twin.client.send(new PutItemCommand({ TableName: 'a!', Item: { id: { S: 'x' } } })),
      'ValidationException',
      "2 validation errors detected: Value 'a!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value 'a!' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3",
    );
  });

  test('an item attribute named "" is refused; nothing is written', async () => {
    const text = 'One or more parameter values were invalid: An attribute name may not be empty';
    await expectDynamoError(twin.client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: 'empty-name' }, '': { S: 'v' } } })), 'ValidationException', text);
    await expectDynamoError(
      twin.client.send(new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: TABLE, Item: { id: { S: 'empty-name' }, '': { N: '1' } } } }] })),
      'ValidationException',
      text,
    );
    await expectDynamoError(
      twin.client.send(new UpdateItemCommand({ TableName: TABLE, Key: { id: { S: 'empty-name' } }, AttributeUpdates: { '': { Action: 'PUT', Value: { S: 'v' } } } })),
      'ValidationException',
      text,
    );
    assert.equal(await exists('empty-name'), false);
  });

  test('attribute_type with a value as first operand is accepted and tests that value\'s type', async () => {
    const put = (id: string, type: string) =>
      twin.client.send(
        new PutItemCommand({
          TableName: TABLE,
          Item: { id: { S: id } },
          ConditionExpression: 'attribute_type(:v, :t)',
          ExpressionAttributeValues: { ':v': { S: 'text' }, ':t': { S: type } },
        }),
      );
    await put('type-of-value', 'S');
    assert.equal(await exists('type-of-value'), true);
    await expectDynamoError(put('type-of-value-n', 'N'), 'ConditionalCheckFailedException', 'The conditional request failed');
    assert.equal(await exists('type-of-value-n'), false);
  });

  test('UpdateTable adding a GSI that redefines a key attribute\'s type is refused, naming both schema elements', async () => {
    const table = 'divergences-redefine';
    await twin.client.send(
      new CreateTableCommand({
        TableName: table,
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }, { AttributeName: 'xyz', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
        GlobalSecondaryIndexes: [{ IndexName: 'index1', KeySchema: [{ AttributeName: 'xyz', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
      }),
    );
    const create = (name: string, type: 'S' | 'N', keyType: 'HASH' | 'RANGE' = 'HASH') =>
      twin.client.send(
        new UpdateTableCommand({
          TableName: table,
          AttributeDefinitions: [{ AttributeName: name, AttributeType: type }, ...(keyType === 'RANGE' ? [{ AttributeName: 'xyz', AttributeType: 'S' as const }] : [])],
          GlobalSecondaryIndexUpdates: [
            {
              Create: {
                IndexName: 'index2',
                KeySchema: keyType === 'RANGE' ? [{ AttributeName: 'xyz', KeyType: 'HASH' }, { AttributeName: name, KeyType: 'RANGE' }] : [{ AttributeName: name, KeyType: 'HASH' }],
                Projection: { ProjectionType: 'ALL' },
              },
            },
          ],
        }),
      );
    const redefined = (name: string, was: string, now: string) =>
      'One or more parameter values were invalid: Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. ' +
      `Existing schema: Schema:[SchemaElement: key{${name}:${was}}] New schema: Schema:[SchemaElement: key{${name}:${now}}]`;
    await expectDynamoError(create('xyz', 'N'), 'ValidationException', redefined('xyz', 'S:HASH', 'N:HASH'));
    await expectDynamoError(create('id', 'N', 'RANGE'), 'ValidationException', redefined('id', 'S:HASH', 'N:RANGE'));
    // The same type is fine.
    await twin.client.send(new UpdateTableCommand({
      TableName: table,
      AttributeDefinitions: [{ AttributeName: 'xyz', AttributeType: 'S' }],
      GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'index2', KeySchema: [{ AttributeName: 'xyz', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } } }],
    }));
  });

  test('--account-id: with another caller account, an ARN of 000000000000 is someone else\'s (AccessDeniedException) and a missing table of the caller\'s own is not found', async () => {
    await withTwin({ accountId: '123456789012' }, async (other) => {
      const created = await other.client.send(new CreateTableCommand(onDemandTable('tagged')));
      assert.equal(created.TableDescription!.TableArn, 'arn:aws:dynamodb:us-east-1:123456789012:table/tagged');
      const foreign = 'arn:aws:dynamodb:us-east-1:000000000000:table/nonexistent_table_xyz';
      await expectDynamoError(
        other.client.send(new ListTagsOfResourceCommand({ ResourceArn: foreign })),
        'AccessDeniedException',
        `User: arn:aws:iam::123456789012:root is not authorized to perform: dynamodb:ListTagsOfResource on resource: ${foreign} because no resource-based policy allows the dynamodb:ListTagsOfResource action`,
      );
      const missing = `${created.TableDescription!.TableArn!}x`;
      await expectDynamoError(
        other.client.send(new TagResourceCommand({ ResourceArn: missing, Tags: [{ Key: 'x', Value: 'y' }] })),
        'ResourceNotFoundException',
        `Requested resource not found: ResourcArn: ${missing} not found`,
      );
    });
    await assert.rejects(startDynatwin({ accountId: '1234' }), (error: unknown) => error instanceof OptionError && error.message === "accountId must be twelve digits, got '1234'");
  });

  test('a start key with a sort key attribute on a table without one is refused, by Query and Scan', async () => {
    const startKey = { id: { S: 'x' }, sk: { S: 'y' } };
    await expectDynamoError(
      twin.client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': { S: 'x' } }, ExclusiveStartKey: startKey })),
      'ValidationException',
      "Exclusive Start Key must have same size as table's key schema",
    );
    await expectDynamoError(
      twin.client.send(new ScanCommand({ TableName: TABLE, ExclusiveStartKey: startKey })),
      'ValidationException',
      'The provided starting key is invalid: The provided key element does not match the schema',
    );
  });

  test('a strongly consistent Scan of one small item consumes 1 read unit, an eventually consistent one 0.5 (DynamoDB\'s documented 4 KB rounding)', async () => {
    const table = 'divergences-scan-units';
    await twin.client.send(new CreateTableCommand(onDemandTable(table)));
    await twin.client.send(new PutItemCommand({ TableName: table, Item: { id: { S: 'only' }, a: { S: 'small' } } }));
    const strong = await twin.client.send(new ScanCommand({ TableName: table, ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }));
    assert.deepEqual(strong.ConsumedCapacity, { TableName: table, CapacityUnits: 1 });
    const eventual = await twin.client.send(new ScanCommand({ TableName: table, ReturnConsumedCapacity: 'TOTAL' }));
    assert.deepEqual(eventual.ConsumedCapacity, { TableName: table, CapacityUnits: 0.5 });
  });

  test('GET / names the address the client used', async () => {
    const response = await rawRequest(twin.twin.endpoint, { method: 'GET' });
    assert.equal(response.status, 200);
    assert.equal(response.text, `healthy: ${new URL(twin.twin.endpoint).host} `);
    const named = await rawRequest(twin.twin.endpoint, { method: 'GET', headers: { Host: 'localhost' } });
    assert.equal(named.text, 'healthy: localhost ');
  });

  test('the response Content-Type follows the request: application/json in, application/json out; JSON 1.0 in, JSON 1.0 out; errors too', async () => {
    for (const type of ['application/json', 'application/x-amz-json-1.0']) {
      const headers = { ...SIGNED_HEADERS, 'Content-Type': type, 'X-Amz-Target': 'DynamoDB_20120810.ListTables' };
      const ok = await rawRequest(twin.twin.endpoint, { headers, body: '{}' });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers['content-type'], type);
      const failed = await rawRequest(twin.twin.endpoint, { headers, body: '{"Limit": 0}' });
      assert.equal(failed.status, 400);
      assert.equal(failed.headers['content-type'], type);
    }
    const withCharset = await rawRequest(twin.twin.endpoint, {
      headers: { ...SIGNED_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'X-Amz-Target': 'DynamoDB_20120810.ListTables' },
      body: '{}',
    });
    assert.equal(withCharset.headers['content-type'], 'application/json');
    assert.equal((await callOperation(twin.twin.endpoint, 'ListTables', '{}')).headers['content-type'], 'application/x-amz-json-1.0');
  });
});
