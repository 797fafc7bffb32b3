/**
 * UpdateItem and conditional writes through the AWS SDK: every clause, function and comparator,
 * ReturnValues, the legacy parameters, and DynamoDB's error texts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { seedArticleTable } from './support/seeds.js';
import { createTables, onDemandTable } from './support/tables.js';
import { expectDynamoError, startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

const INVALID = 'One or more parameter values were invalid: ';

describe('UpdateItem and conditions', () => {
  let twin: TwinClients;
  const table = uniqueTableName('update');
  const indexed = uniqueTableName('update-indexed');

  before(async () => {
    twin = await startTwinWithClients();
    await createTables(twin.client, onDemandTable(table), seedArticleTable(indexed));
  });
  after(async () => {
    await twin.close();
  });

  const update = (id: string, input: Omit<UpdateItemCommandInput, 'TableName' | 'Key'>, tableName = table) =>
    twin.client.send(new UpdateItemCommand({ TableName: tableName, Key: { id: { S: id } }, ...input }));
  const get = async (id: string) =>
    (await twin.client.send(new GetItemCommand({ TableName: table, Key: { id: { S: id } }, ConsistentRead: true }))).Item;
  const put = (item: Record<string, AttributeValue>) => twin.client.send(new PutItemCommand({ TableName: table, Item: item }));

  describe('functionality', () => {
    test('UpdateItem creates the item when absent', async () => {
      await update('new', { UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': { S: 'x' } } });
      assert.deepEqual(await get('new'), { id: { S: 'new' }, a: { S: 'x' } });
      await update('bare', {});
      assert.deepEqual(await get('bare'), { id: { S: 'bare' } });
    });

    test('SET with arithmetic, if_not_exists and list_append; REMOVE; ADD; DELETE', async () => {
      await put({ id: { S: 'all' }, n: { N: '10' }, l: { L: [{ S: 'a' }] }, gone: { S: 'x' }, s: { SS: ['p', 'q', 'r'] }, m: { M: { k: { N: '1' } } } });
      await update('all', {
        UpdateExpression:
          'SET n = n + :one, c = if_not_exists(c, :zero) - :one, l = list_append(l, :more), m.k2 = :two REMOVE gone ADD tally :one, s2 :set DELETE s :del',
        ExpressionAttributeValues: {
          ':one': { N: '1' },
          ':zero': { N: '0' },
          ':two': { N: '2' },
          ':more': { L: [{ S: 'b' }] },
          ':set': { SS: ['z'] },
          ':del': { SS: ['q', 'absent'] },
        },
      });
      await update('all', { UpdateExpression: 'REMOVE l[0]' });
      const item = await get('all');
      assert.deepEqual(item?.n, { N: '11' });
      assert.deepEqual(item?.c, { N: '-1' });
      assert.deepEqual(item?.l, { L: [{ S: 'b' }] });
      assert.deepEqual(item?.m, { M: { k: { N: '1' }, k2: { N: '2' } } });
      assert.equal(item?.gone, undefined);
      assert.deepEqual(item?.tally, { N: '1' });
      assert.deepEqual(item?.s2, { SS: ['z'] });
      assert.deepEqual(new Set(item?.s?.SS), new Set(['p', 'r']));
    });

    test('arithmetic is exact 38-digit decimal', async () => {
      await put({ id: { S: 'math' }, x: { N: '0.1' } });
      const result = await update('math', {
        UpdateExpression: 'SET x = x + :y',
        ExpressionAttributeValues: { ':y': { N: '0.2' } },
        ReturnValues: 'UPDATED_NEW',
      });
      assert.deepEqual(result.Attributes, { x: { N: '0.3' } });
      await expectDynamoError(
        update('math', { UpdateExpression: 'SET x = :big + :big', ExpressionAttributeValues: { ':big': { N: '9E125' } } }),
        'ValidationException',
        'Number overflow. Attempting to store a number with magnitude larger than supported range',
      );
    });

    test('ReturnValues NONE, ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW', async () => {
      await put({ id: { S: 'rv' }, a: { N: '1' }, b: { S: 'keep' } });
      const input = { UpdateExpression: 'SET a = a + :one', ExpressionAttributeValues: { ':one': { N: '1' } } };
      assert.equal((await update('rv', { ...input, ReturnValues: 'NONE' })).Attributes, undefined);
      assert.deepEqual((await update('rv', { ...input, ReturnValues: 'ALL_OLD' })).Attributes, { id: { S: 'rv' }, a: { N: '2' }, b: { S: 'keep' } });
      assert.deepEqual((await update('rv', { ...input, ReturnValues: 'UPDATED_OLD' })).Attributes, { a: { N: '3' } });
      assert.deepEqual((await update('rv', { ...input, ReturnValues: 'ALL_NEW' })).Attributes, { id: { S: 'rv' }, a: { N: '5' }, b: { S: 'keep' } });
      assert.deepEqual((await update('rv', { ...input, ReturnValues: 'UPDATED_NEW' })).Attributes, { a: { N: '6' } });
    });

    test('the DocumentClient UpdateCommand works unchanged', async () => {
      await twin.documentClient.send(new PutCommand({ TableName: table, Item: { id: 'doc', tags: new Set(['a']), visits: 1 } }));
      const result = await twin.documentClient.send(
        new UpdateCommand({
          TableName: table,
          Key: { id: 'doc' },
          UpdateExpression: 'ADD visits :one, tags :t SET #s = :s',
          ConditionExpression: 'attribute_exists(id) AND visits < :max',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':one': 1, ':t': new Set(['b']), ':s': 'USED', ':max': 10 },
          ReturnValues: 'ALL_NEW',
        }),
      );
      assert.deepEqual(result.Attributes, { id: 'doc', tags: new Set(['a', 'b']), visits: 2, status: 'USED' });
      const got = await twin.documentClient.send(new GetCommand({ TableName: table, Key: { id: 'doc' } }));
      assert.deepEqual(got.Item, result.Attributes);
    });

    test('every comparator and function decides a conditional put', async () => {
      await put({
        id: { S: 'cond' },
        n: { N: '5' },
        s: { S: 'hello' },
        b: { B: new Uint8Array([1, 2, 3]) },
        ss: { SS: ['x', 'y'] },
        l: { L: [{ S: 'e' }, { N: '1' }] },
        m: { M: { deep: { S: 'v' } } },
        t: { BOOL: true },
      });
      const cases: [string, Record<string, AttributeValue>, boolean][] = [
        ['n = :v', { ':v': { N: '5' } }, true],
        ['n = :v', { ':v': { S: '5' } }, false],
        ['n <> :v', { ':v': { N: '5' } }, false],
        ['n < :v', { ':v': { N: '10' } }, true],
        ['n <= :v', { ':v': { N: '5' } }, true],
        ['n > :v', { ':v': { N: '4.99' } }, true],
        ['n >= :v', { ':v': { N: '6' } }, false],
        ['s < :v', { ':v': { S: 'help' } }, true],
        ['n BETWEEN :lo AND :hi', { ':lo': { N: '1' }, ':hi': { N: '5' } }, true],
        ['n IN (:a, :b)', { ':a': { N: '4' }, ':b': { N: '5' } }, true],
        ['s IN (:a)', { ':a': { S: 'nope' } }, false],
        ['attribute_exists(m.deep)', {}, true],
        ['attribute_not_exists(m.shallow)', {}, true],
        ['attribute_type(ss, :t)', { ':t': { S: 'SS' } }, true],
        ['attribute_type(n, :t)', { ':t': { S: 'S' } }, false],
        ['begins_with(s, :p)', { ':p': { S: 'he' } }, true],
        ['begins_with(b, :p)', { ':p': { B: new Uint8Array([1, 2]) } }, true],
        ['contains(s, :p)', { ':p': { S: 'll' } }, true],
        ['contains(ss, :p)', { ':p': { S: 'y' } }, true],
        ['contains(l, :p)', { ':p': { N: '1' } }, true],
        ['size(s) = :five', { ':five': { N: '5' } }, true],
        ['size(ss) > :one', { ':one': { N: '1' } }, true],
        ['size(b) = :three', { ':three': { N: '3' } }, true],
        ['NOT t = :f', { ':f': { BOOL: false } }, true],
        ['n = :v OR s = :w AND t = :f', { ':v': { N: '5' }, ':w': { S: 'no' }, ':f': { BOOL: false } }, true],
        ['(n = :v OR s = :w) AND t = :f', { ':v': { N: '5' }, ':w': { S: 'no' }, ':f': { BOOL: false } }, false],
        ['missingAttr <> :v', { ':v': { N: '1' } }, true],
        ['missingAttr = :v', { ':v': { N: '1' } }, false],
        ['l[1] = :v', { ':v': { N: '1' } }, true],
        ['m.deep = :v', { ':v': { S: 'v' } }, true],
      ];
      for (const [expression, values, expected] of cases) {
        const call = twin.client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: { id: { S: 'cond' } },
            UpdateExpression: 'SET touched = :touch',
            ConditionExpression: expression,
            ExpressionAttributeValues: { ...values, ':touch': { BOOL: true } },
          }),
        );
        if (expected) await call;
        else await expectDynamoError(call, 'ConditionalCheckFailedException', 'The conditional request failed');
      }
    });

    test('a failed condition leaves the item unchanged and can return it', async () => {
      await put({ id: { S: 'guarded' }, v: { N: '1' } });
      await expectDynamoError(
        twin.client.send(
          new PutItemCommand({
            TableName: table,
            Item: { id: { S: 'guarded' }, v: { N: '2' } },
            ConditionExpression: 'attribute_not_exists(id)',
          }),
        ),
        'ConditionalCheckFailedException',
        'The conditional request failed',
      );
      assert.deepEqual(await get('guarded'), { id: { S: 'guarded' }, v: { N: '1' } });
      try {
        await twin.client.send(
          new DeleteItemCommand({
            TableName: table,
            Key: { id: { S: 'guarded' } },
            ConditionExpression: 'v = :two',
            ExpressionAttributeValues: { ':two': { N: '2' } },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        assert.fail('the delete should have failed its condition');
      } catch (error) {
        assert.equal((error as Error).name, 'ConditionalCheckFailedException');
        assert.deepEqual((error as { Item?: unknown }).Item, { id: { S: 'guarded' }, v: { N: '1' } });
      }
      await twin.client.send(
        new DeleteItemCommand({ TableName: table, Key: { id: { S: 'guarded' } }, ConditionExpression: 'attribute_exists(v)' }),
      );
      assert.equal(await get('guarded'), undefined);
    });

    test('the seed 000 design: mark an UN_USED item USED only once', async () => {
      await twin.documentClient.send(new PutCommand({ TableName: indexed, Item: { id: 'coupon', status: 'UN_USED' } }));
      const claim = () =>
        twin.documentClient.send(
          new UpdateCommand({
            TableName: indexed,
            Key: { id: 'coupon' },
            UpdateExpression: 'SET #status = :used',
            ConditionExpression: '#status = :unused',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':used': 'USED', ':unused': 'UN_USED' },
          }),
        );
      const results = await Promise.allSettled([claim(), claim(), claim(), claim()]);
      assert.equal(results.filter((result) => result.status === 'fulfilled').length, 1, 'exactly one claim wins');
    });

    test('legacy Expected and AttributeUpdates', async () => {
      await put({ id: { S: 'legacy' }, n: { N: '1' }, l: { L: [{ S: 'a' }] }, s: { NS: ['1', '2'] } });
      await update('legacy', {
        Expected: { n: { Value: { N: '1' } }, missing: { Exists: false }, l: { ComparisonOperator: 'NOT_NULL' } },
        AttributeUpdates: {
          n: { Action: 'ADD', Value: { N: '2' } },
          l: { Action: 'ADD', Value: { L: [{ S: 'b' }] } },
          s: { Action: 'DELETE', Value: { NS: ['1'] } },
          fresh: { Action: 'PUT', Value: { S: 'new' } },
        },
      });
      assert.deepEqual(await get('legacy'), {
        id: { S: 'legacy' },
        n: { N: '3' },
        l: { L: [{ S: 'a' }, { S: 'b' }] },
        s: { NS: ['2'] },
        fresh: { S: 'new' },
      });
      await expectDynamoError(
        update('legacy', { Expected: { n: { ComparisonOperator: 'GT', AttributeValueList: [{ N: '3' }] } }, AttributeUpdates: { x: { Action: 'DELETE' } } }),
        'ConditionalCheckFailedException',
        'The conditional request failed',
      );
      await update('legacy', {
        Expected: { n: { ComparisonOperator: 'GT', AttributeValueList: [{ N: '3' }] }, fresh: { Value: { S: 'new' } } },
        ConditionalOperator: 'OR',
        AttributeUpdates: { fresh: { Action: 'DELETE' } },
      });
      assert.equal((await get('legacy'))?.fresh, undefined);
    });
  });

  describe('validation', () => {
    test('reserved words, syntax errors and undefined placeholders', async () => {
      await expectDynamoError(
        update('v', { UpdateExpression: 'SET status = :s', ExpressionAttributeValues: { ':s': { S: 'x' } } }),
        'ValidationException',
        'Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status',
      );
      await expectDynamoError(
        update('v', { UpdateExpression: 'SET a = ', ExpressionAttributeValues: { ':s': { S: 'x' } } }),
        'ValidationException',
        'Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "= "',
      );
      await expectDynamoError(
        update('v', { UpdateExpression: 'SET a = :missing' }),
        'ValidationException',
        'Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :missing',
      );
      await expectDynamoError(
        update('v', { UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': { S: 'x' }, ':b': { S: 'y' } } }),
        'ValidationException',
        'Value provided in ExpressionAttributeValues unused in expressions: keys: {:b}',
      );
      await expectDynamoError(
        update('v', { UpdateExpression: 'SET a = :a SET b = :a', ExpressionAttributeValues: { ':a': { S: 'x' } } }),
        'ValidationException',
        'Invalid UpdateExpression: The "SET" section can only be used once in an update expression;',
      );
      await expectDynamoError(
        update('v', { UpdateExpression: 'SET a = :a REMOVE a.b', ExpressionAttributeValues: { ':a': { S: 'x' } } }),
        'ValidationException',
        'Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]',
      );
      await expectDynamoError(
        twin.client.send(
          new PutItemCommand({ TableName: table, Item: { id: { S: 'v' } }, ConditionExpression: 'foo(a)' }),
        ),
        'ValidationException',
        'Invalid ConditionExpression: Invalid function name; function: foo',
      );
      await expectDynamoError(
        twin.client.send(
          new PutItemCommand({
            TableName: table,
            Item: { id: { S: 'v' } },
            ConditionExpression: 'begins_with(a)',
          }),
        ),
        'ValidationException',
        'Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 1',
      );
    });

    test('expression and legacy parameters cannot be mixed', async () => {
      await expectDynamoError(
        update('v', { UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': { S: 'x' } }, Expected: { a: { Exists: false } } }),
        'ValidationException',
        'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {UpdateExpression}',
      );
      await expectDynamoError(
        update('v', { ExpressionAttributeValues: { ':a': { S: 'x' } } }),
        'ValidationException',
        'ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null',
      );
    });

    test('key attributes cannot be updated; index keys keep their type', async () => {
      await expectDynamoError(
        update('v', { UpdateExpression: 'SET id = :a', ExpressionAttributeValues: { ':a': { S: 'x' } } }),
        'ValidationException',
        INVALID + 'Cannot update attribute id. This attribute is part of the key',
      );
      await expectDynamoError(
        update('v', { UpdateExpression: 'SET #s = :n', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':n': { N: '1' } } }, indexed),
        'ValidationException',
        INVALID + 'Type mismatch for Index Key status Expected: S Actual: N IndexName: gsi-status',
      );
    });

    test('type errors in updates', async () => {
      await put({ id: { S: 'types' }, s: { S: 'text' }, n: { N: '1' } });
      await expectDynamoError(
        update('types', { UpdateExpression: 'SET n = s + :one', ExpressionAttributeValues: { ':one': { N: '1' } } }),
        'ValidationException',
        'An operand in the update expression has an incorrect data type',
      );
      await expectDynamoError(
        update('types', { UpdateExpression: 'SET x = nothere + :one', ExpressionAttributeValues: { ':one': { N: '1' } } }),
        'ValidationException',
        'The provided expression refers to an attribute that does not exist in the item',
      );
      await expectDynamoError(
        update('types', { UpdateExpression: 'SET a.b.c = :one', ExpressionAttributeValues: { ':one': { N: '1' } } }),
        'ValidationException',
        'The document path provided in the update expression is invalid for update',
      );
    });

    test('an update that grows the item past 400 KB is rejected', async () => {
      await put({ id: { S: 'grow' }, a: { S: 'a'.repeat(300_000) } });
      await expectDynamoError(
        update('grow', { UpdateExpression: 'SET b = :b', ExpressionAttributeValues: { ':b': { S: 'b'.repeat(200_000) } } }),
        'ValidationException',
        'Item size to update has exceeded the maximum allowed size',
      );
    });
  });
});
