/**
 * Limits and legacy-parameter rules DynamoDB enforces (issue 20's divergences), through the AWS SDK,
 * each with DynamoDB's answer as its source recorded it (docs/CONFORMANCE.md names them).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CreateTableCommand,
  DescribeTableCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { onDemandTable } from './support/tables.js';
import { expectDynamoError, startTwinWithClients, type TwinClients } from './support/twin.js';

const TABLE = 'limits';
const VALIDATION = 'ValidationException';
const key = { id: { S: 'k' } };

describe('conformance limits', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients();
    await twin.client.send(new CreateTableCommand(onDemandTable(TABLE)));
    await twin.client.send(new PutItemCommand({ TableName: TABLE, Item: { ...key, a: { N: '1' }, b: { N: '2' }, l: { L: [] } } }));
  });
  after(async () => {
    await twin.close();
  });

  const update = (input: Omit<ConstructorParameters<typeof UpdateItemCommand>[0], 'TableName' | 'Key'>) =>
    twin.client.send(new UpdateItemCommand({ TableName: TABLE, Key: key, ...input }));

  test('300 operators per expression; function calls and parentheses are not operators (Alternator test_limits.py, recorded from DynamoDB)', async () => {
    const conditional = (condition: string) => update({ UpdateExpression: 'SET z = :v', ConditionExpression: condition, ExpressionAttributeValues: { ':v': { N: '1' } } });
    // 149 levels hold 299 "<" and "or": accepted. 454 levels stay under 4 KB but hold 909 operators.
    await conditional('a<b ' + 'or (a<b '.repeat(149) + ')'.repeat(149));
    await expectDynamoError(
      conditional('a<b ' + 'or (a<b '.repeat(454) + ')'.repeat(454)),
      VALIDATION,
      'Invalid ConditionExpression: The expression contains too many operators; operator count: 301',
    );
    await expectDynamoError(
      conditional('not '.repeat(1000) + 'a<b'),
      VALIDATION,
      'Invalid ConditionExpression: The expression contains too many operators; operator count: 301',
    );
    await expectDynamoError(
      twin.client.send(new ScanCommand({ TableName: TABLE, FilterExpression: Array.from({ length: 301 }, () => 'a = :v').join(' OR '), ExpressionAttributeValues: { ':v': { N: '1' } } })),
      VALIDATION,
      'Invalid FilterExpression: The expression contains too many operators; operator count: 301',
    );
  });

  test('list_append inside list_append is refused (Alternator test_update_expression.py, recorded from DynamoDB)', async () => {
    const values = { ':a': { L: [{ S: 'a' }] }, ':b': { L: [{ S: 'b' }] } };
    await expectDynamoError(
      update({ UpdateExpression: 'SET l = list_append(list_append(:a, :b), :a)', ExpressionAttributeValues: values }),
      VALIDATION,
      'Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append',
    );
    await expectDynamoError(
      update({ UpdateExpression: 'SET l = list_append(:a, list_append(:a, :b))', ExpressionAttributeValues: values }),
      VALIDATION,
      'Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append',
    );
    // The usual idiom still works.
    await update({ UpdateExpression: 'SET m = list_append(if_not_exists(m, :e), :b)', ExpressionAttributeValues: { ':b': values[':b'], ':e': { L: [] } } });
    const { Item } = await twin.client.send(new GetItemCommand({ TableName: TABLE, Key: key, ConsistentRead: true }));
    assert.deepEqual(Item?.m, { L: [{ S: 'b' }] });
  });

  test('attribute names up to 65,535 bytes, top-level or nested (measured on DynamoDB: ExtendDB/extenddb#365, scylladb/scylladb#9169)', async () => {
    const tooLarge = '1 validation error detected: Attribute name is too large, must be less than 65536 bytes';
    const longest = 'n'.repeat(65_535);
    const tooLong = 'n'.repeat(65_536);
    await twin.client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: 'long' }, [longest]: { N: '1' }, m: { M: { [longest]: { N: '2' } } } } }));
    await expectDynamoError(twin.client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: 'x' }, [tooLong]: { N: '1' } } })), VALIDATION, tooLarge);
    await expectDynamoError(twin.client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: 'x' }, m: { M: { [tooLong]: { N: '1' } } } } })), VALIDATION, tooLarge);
    // Counted in UTF-8 bytes: 21,846 three-byte characters are 65,538 bytes.
    await expectDynamoError(twin.client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: 'x' }, ['€'.repeat(21_846)]: { N: '1' } } })), VALIDATION, tooLarge);
    await expectDynamoError(
      update({ UpdateExpression: 'SET doc = :v', ExpressionAttributeValues: { ':v': { M: { [tooLong]: { N: '1' } } } } }),
      VALIDATION,
      tooLarge,
    );
    await expectDynamoError(
      update({ UpdateExpression: 'SET #n = :v', ExpressionAttributeNames: { '#n': tooLong }, ExpressionAttributeValues: { ':v': { N: '1' } } }),
      VALIDATION,
      tooLarge,
    );
    await expectDynamoError(twin.client.send(new GetItemCommand({ TableName: TABLE, Key: key, AttributesToGet: [tooLong] })), VALIDATION, tooLarge);
    await expectDynamoError(update({ AttributeUpdates: { [tooLong]: { Action: 'PUT', Value: { N: '1' } } } }), VALIDATION, tooLarge);
    const { Item } = await twin.client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: 'long' } }, ProjectionExpression: '#n', ExpressionAttributeNames: { '#n': longest } }));
    assert.deepEqual(Item, { [longest]: { N: '1' } });
  });

  describe('legacy ConditionalOperator and Expected', () => {
    // Texts from ExtendDB/extenddb's dual-target tests, run against Amazon DynamoDB.
    const WITHOUT = 'ConditionalOperator cannot be used without Filter or Expected';
    const TWO_OR_MORE = 'ConditionalOperator can only be used when Filter or Expected has two or more elements';
    const eq = (value: string) => ({ ComparisonOperator: 'EQ' as const, AttributeValueList: [{ S: value }] });

    test('ConditionalOperator needs a Filter or Expected of two or more conditions', async () => {
      await expectDynamoError(twin.client.send(new ScanCommand({ TableName: TABLE, ConditionalOperator: 'AND' })), VALIDATION, WITHOUT);
      await expectDynamoError(twin.client.send(new ScanCommand({ TableName: TABLE, ConditionalOperator: 'OR', ScanFilter: {} })), VALIDATION, WITHOUT);
      await expectDynamoError(twin.client.send(new ScanCommand({ TableName: TABLE, ConditionalOperator: 'AND', ScanFilter: { a: eq('x') } })), VALIDATION, TWO_OR_MORE);
      // Before the missing key condition is reported.
      await expectDynamoError(twin.client.send(new QueryCommand({ TableName: TABLE, ConditionalOperator: 'AND' })), VALIDATION, WITHOUT);
      await expectDynamoError(
        twin.client.send(new QueryCommand({ TableName: TABLE, ConditionalOperator: 'AND', KeyConditions: { id: eq('k') }, QueryFilter: { a: eq('x') } })),
        VALIDATION,
        TWO_OR_MORE,
      );
      await expectDynamoError(twin.client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: 'p' } }, ConditionalOperator: 'AND' })), VALIDATION, WITHOUT);
      await expectDynamoError(
        twin.client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: 'p' } }, ConditionalOperator: 'AND', Expected: { a: eq('x') } })),
        VALIDATION,
        TWO_OR_MORE,
      );
      await expectDynamoError(update({ ConditionalOperator: 'AND', AttributeUpdates: { a: { Action: 'PUT', Value: { S: 'v' } } } }), VALIDATION, WITHOUT);
      // ConditionalOperator is a non-expression parameter.
      await expectDynamoError(
        twin.client.send(
          new PutItemCommand({ TableName: TABLE, Item: { id: { S: 'p' } }, Expected: { a: eq('x') }, ConditionalOperator: 'AND', ConditionExpression: 'attribute_exists(id)' }),
        ),
        VALIDATION,
        'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected, ConditionalOperator} Expression parameters: {ConditionExpression}',
      );
      // Two conditions: accepted.
      const { Count } = await twin.client.send(new ScanCommand({ TableName: TABLE, ConditionalOperator: 'OR', ScanFilter: { a: eq('x'), b: eq('y') } }));
      assert.equal(Count, 0);
    });

    test('Expected: a value the operator cannot take is a ValidationException, not a failed condition (Alternator test_expected.py, recorded from DynamoDB)', async () => {
      const expected = (condition: object) => update({ AttributeUpdates: { z: { Action: 'PUT', Value: { N: '17' } } }, Expected: { a: condition } });
      const invalid = 'One or more parameter values were invalid: ';
      await expectDynamoError(expected({ ComparisonOperator: 'NOT_CONTAINS', AttributeValueList: [{ L: [{ N: '1' }] }] }), VALIDATION, invalid + 'ComparisonOperator NOT_CONTAINS is not valid for L AttributeValue type');
      await expectDynamoError(expected({ ComparisonOperator: 'IN', AttributeValueList: [{ L: [{ N: '1' }] }, { L: [{ N: '2' }] }] }), VALIDATION, invalid + 'ComparisonOperator IN is not valid for L AttributeValue type');
      await expectDynamoError(expected({ ComparisonOperator: 'BETWEEN', AttributeValueList: [{ NS: ['1'] }, { NS: ['2'] }] }), VALIDATION, invalid + 'ComparisonOperator BETWEEN is not valid for NS AttributeValue type');
      await expectDynamoError(expected({ ComparisonOperator: 'BEGINS_WITH', AttributeValueList: [{ N: '3' }] }), VALIDATION, invalid + 'ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type');
      await expectDynamoError(expected({ ComparisonOperator: 'EQ', AttributeValueList: [{ N: '2' }, { N: '3' }] }), VALIDATION, invalid + 'Invalid number of argument(s) for the EQ ComparisonOperator');
      // BEGINS_WITH of a string against a number attribute is just false.
      await expectDynamoError(expected({ ComparisonOperator: 'BEGINS_WITH', AttributeValueList: [{ S: 'dog' }] }), 'ConditionalCheckFailedException');
    });

    test('AttributeUpdates ADD / DELETE on a value of another type: the legacy text (dynalite\'s record of DynamoDB); UpdateExpression keeps its own', async () => {
      await update({ AttributeUpdates: { ss: { Action: 'PUT', Value: { SS: ['1'] } }, n: { Action: 'PUT', Value: { N: '1' } } } });
      const mismatch = 'Type mismatch for attribute to update';
      await expectDynamoError(update({ AttributeUpdates: { ss: { Action: 'ADD', Value: { NS: ['2'] } } } }), VALIDATION, mismatch);
      await expectDynamoError(update({ AttributeUpdates: { ss: { Action: 'DELETE', Value: { NS: ['1'] } } } }), VALIDATION, mismatch);
      await expectDynamoError(update({ AttributeUpdates: { n: { Action: 'DELETE', Value: { NS: ['1'] } } } }), VALIDATION, mismatch);
      await expectDynamoError(
        update({ UpdateExpression: 'ADD ss :v', ExpressionAttributeValues: { ':v': { NS: ['2'] } } }),
        VALIDATION,
        'An operand in the update expression has an incorrect data type',
      );
    });

    test('Expected NOT_CONTAINS on a missing attribute fails, unlike NE (Alternator test_expected.py, recorded from DynamoDB)', async () => {
      const expected = (condition: object) => update({ AttributeUpdates: { z: { Action: 'PUT', Value: { N: '17' } } }, Expected: { missing: condition } });
      await expectDynamoError(expected({ ComparisonOperator: 'NOT_CONTAINS', AttributeValueList: [{ N: '1' }] }), 'ConditionalCheckFailedException');
      await expected({ ComparisonOperator: 'NE', AttributeValueList: [{ N: '1' }] });
    });
  });

  test('constraint texts render request structures as DynamoDB\'s Java classes print them (paritysuite/dynamodb-conformance, quoted in nubo-db/dynoxide#11)', async () => {
    await expectDynamoError(
      twin.client.send(
        new CreateTableCommand({
          TableName: 'three-keys',
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
            { AttributeName: 'extra', KeyType: 'RANGE' },
          ],
        }),
      ),
      VALIDATION,
      "1 validation error detected: Value '[KeySchemaElement(attributeName=pk, keyType=HASH), KeySchemaElement(attributeName=sk, keyType=RANGE), " +
        "KeySchemaElement(attributeName=extra, keyType=RANGE)]' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2",
    );
  });

  test('UpdateTable redeclaring an existing attribute with another type: accepted, the stored type kept (paritysuite/dynamodb-conformance#78, characterised on AWS)', async () => {
    await twin.client.send(
      new UpdateTableCommand({
        TableName: TABLE,
        AttributeDefinitions: [
          { AttributeName: 'id', AttributeType: 'N' },
          { AttributeName: 'g', AttributeType: 'S' },
        ],
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'by-g', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } } }],
      }),
    );
    const { Table } = await twin.client.send(new DescribeTableCommand({ TableName: TABLE }));
    assert.deepEqual(Table?.AttributeDefinitions, [
      { AttributeName: 'id', AttributeType: 'S' },
      { AttributeName: 'g', AttributeType: 'S' },
    ]);
    await twin.client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: 'still-a-string' }, g: { S: 'x' } } }));
  });
});
