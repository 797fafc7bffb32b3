/**
 * The expression case table (test/expression-cases.ts), replayed end to end: each case travels
 * through the AWS SDK to a running dynatwin inside the operation that carries that kind of
 * expression, and must come back with exactly the expected DynamoDB answer. Then condition
 * evaluation cases (expression, item, outcome), and a fuzz of 10,000 expressions over HTTP.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, describe, test } from 'node:test';
import {
  CreateTableCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { EXPRESSION_CASES, type ExpressionCase } from './expression-cases.js';
import { callOperation } from './support/raw.js';
import { startTwinWithClients, type TwinClients } from './support/twin.js';
import { seededRandom as mulberry32 } from './support/random.js';

const TABLE = 'expression-cases';
const KEY = { tk: { S: 'case' } };

/** Kinds that an item operation carries; Filter and KeyCondition expressions need Query/Scan. */
const ITEM_OPERATION_KINDS = new Set(['ConditionExpression', 'UpdateExpression', 'ProjectionExpression']);

describe('expressions end to end', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients();
    await twin.client.send(
      new CreateTableCommand({
        TableName: TABLE,
        AttributeDefinitions: [{ AttributeName: 'tk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'tk', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  });
  after(async () => {
    await twin.close();
  });

  const send = (item: ExpressionCase): Promise<unknown> => {
    const placeholders = {
      ExpressionAttributeNames: item.names as Record<string, string> | undefined,
      ExpressionAttributeValues: item.values as Record<string, AttributeValue> | undefined,
    };
    switch (item.kind) {
      case 'ConditionExpression':
        return twin.client.send(new PutItemCommand({ TableName: TABLE, Item: KEY, ConditionExpression: item.expression, ...placeholders }));
      case 'UpdateExpression':
        return twin.client.send(new UpdateItemCommand({ TableName: TABLE, Key: KEY, UpdateExpression: item.expression, ...placeholders }));
      default:
        return twin.client.send(
          new GetItemCommand({ TableName: TABLE, Key: KEY, ProjectionExpression: item.expression, ExpressionAttributeNames: placeholders.ExpressionAttributeNames }),
        );
    }
  };

  const replayable = EXPRESSION_CASES.filter(
    (item) => ITEM_OPERATION_KINDS.has(item.kind) && (item.kind !== 'ProjectionExpression' || item.values === undefined),
  );

  test(`${replayable.length} parse cases answer as DynamoDB does`, async () => {
    assert.ok(replayable.length >= 200, `only ${replayable.length} replayable cases`);
    const mismatches: string[] = [];
    for (const item of replayable) {
      let caught: Error | undefined;
      try {
        await send(item);
      } catch (error) {
        caught = error as Error;
      }
      if (item.expect === 'ok') {
        // A valid expression may still fail later for reasons of the item (a failed condition,
        // an operand that does not exist) or leave placeholders unused; it must not be rejected
        // by the parser.
        if (caught !== undefined && caught.message.startsWith(`Invalid ${item.kind}`)) {
          mismatches.push(`${item.kind} ${item.expression}: unexpected ${caught.message}`);
        }
      } else if (caught?.name !== 'ValidationException' || caught.message !== item.expect.error) {
        mismatches.push(`${item.kind} ${item.expression}: expected ${item.expect.error}, got ${caught?.name}: ${caught?.message}`);
      }
    }
    assert.deepEqual(mismatches, []);
  });

  test('conditions evaluate against the stored item as DynamoDB evaluates them', async () => {
    const item: Record<string, AttributeValue> = {
      tk: { S: 'eval' },
      num: { N: '-12.5' },
      big: { N: '12345678901234567890123456789012345678' },
      str: { S: 'Zürich 😀' },
      blank: { S: '' },
      bin: { B: new Uint8Array([0x00, 0xff, 0x10]) },
      yes: { BOOL: true },
      nul: { NULL: true },
      strs: { SS: ['b', 'a'] },
      nums: { NS: ['1', '2.5'] },
      bins: { BS: [new Uint8Array([1])] },
      lst: { L: [{ N: '1' }, { S: 'two' }, { L: [{ N: '3' }] }] },
      mp: { M: { inside: { M: { leaf: { S: 'x' } } }, n: { N: '0' } } },
    };
    await twin.client.send(new PutItemCommand({ TableName: TABLE, Item: item }));
    const S = (text: string): AttributeValue => ({ S: text });
    const N = (text: string): AttributeValue => ({ N: text });
    const cases: [string, Record<string, AttributeValue>, boolean][] = [
      ['num = :v', { ':v': N('-12.50') }, true],
      ['num < :v', { ':v': N('-12.4') }, true],
      ['num > :v', { ':v': N('-12') }, false],
      ['big = :v', { ':v': N('1.2345678901234567890123456789012345678E37') }, true],
      ['big > :v', { ':v': N('12345678901234567890123456789012345677') }, true],
      ['str = :v', { ':v': S('Zürich 😀') }, true],
      ['str > :v', { ':v': S('Zürich \uffff') }, true],
      ['str > :v', { ':v': S('Zz') }, true], // 'ü' is 0xC3 0xBC in UTF-8, above 'z'
      ['blank = :v', { ':v': S('') }, true],
      ['size(blank) = :v', { ':v': N('0') }, true],
      ['bin > :v', { ':v': { B: new Uint8Array([0x00, 0xfe]) } }, true],
      ['bin = :v', { ':v': { B: new Uint8Array([0x00, 0xff, 0x10]) } }, true],
      ['yes = :v', { ':v': { BOOL: true } }, true],
      ['yes <> :v', { ':v': { BOOL: true } }, false],
      ['nul = :v', { ':v': { NULL: true } }, true],
      ['strs = :v', { ':v': { SS: ['a', 'b'] } }, true],
      ['nums = :v', { ':v': { NS: ['2.50', '1'] } }, true],
      ['nums = :v', { ':v': { NS: ['1'] } }, false],
      ['contains(nums, :v)', { ':v': N('2.5') }, true],
      ['contains(bins, :v)', { ':v': { B: new Uint8Array([1]) } }, true],
      ['contains(str, :v)', { ':v': S('😀') }, true],
      ['contains(lst, :v)', { ':v': S('two') }, true],
      ['contains(lst, :v)', { ':v': { L: [N('3')] } }, true],
      ['lst[2][0] = :v', { ':v': N('3') }, true],
      ['lst[3] = :v', { ':v': N('3') }, false],
      ['attribute_exists(lst[2])', {}, true],
      ['attribute_exists(lst[5])', {}, false],
      ['mp.inside.leaf = :v', { ':v': S('x') }, true],
      ['mp.inside = :v', { ':v': { M: { leaf: S('x') } } }, true],
      ['attribute_not_exists(mp.inside.elsewhere)', {}, true],
      ['attribute_type(mp, :t)', { ':t': S('M') }, true],
      ['attribute_type(lst, :t)', { ':t': S('L') }, true],
      ['attribute_type(nul, :t)', { ':t': S('NULL') }, true],
      ['attribute_type(bins, :t)', { ':t': S('BS') }, true],
      ['size(lst) = :v', { ':v': N('3') }, true],
      ['size(mp) = :v', { ':v': N('2') }, true],
      ['size(bin) = :v', { ':v': N('3') }, true],
      ['size(num) = :v', { ':v': N('1') }, false],
      ['num BETWEEN :lo AND :hi', { ':lo': N('-13'), ':hi': N('-12.5') }, true],
      ['str BETWEEN :lo AND :hi', { ':lo': S('A'), ':hi': S('Z') }, false],
      ['num IN (:a, :b, :c)', { ':a': S('-12.5'), ':b': N('1'), ':c': N('-12.5') }, true],
      ['begins_with(str, :p)', { ':p': S('Zü') }, true],
      ['begins_with(num, :p)', { ':p': S('-1') }, false],
      ['num = :v', { ':v': S('-12.5') }, false],
      ['num < :v', { ':v': S('a') }, false],
      ['NOT (num < :v)', { ':v': S('a') }, true],
      ['nothere = blank', {}, false],
      ['nothere <> :v', { ':v': N('1') }, true],
      ['NOT attribute_exists(nothere) AND yes = :t', { ':t': { BOOL: true } }, true],
      ['yes = :f OR NOT yes = :f', { ':f': { BOOL: false } }, true],
    ];
    const failures: string[] = [];
    for (const [expression, values, expected] of cases) {
      let outcome: boolean;
      try {
        await twin.client.send(
          new UpdateItemCommand({
            TableName: TABLE,
            Key: { tk: S('eval') },
            UpdateExpression: 'SET touched = :touched',
            ConditionExpression: expression,
            ExpressionAttributeValues: { ...values, ':touched': { BOOL: true } },
          }),
        );
        outcome = true;
      } catch (error) {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw new Error(`${expression}: ${(error as Error).message}`);
        outcome = false;
      }
      if (outcome !== expected) failures.push(`${expression} → ${outcome}, expected ${expected}`);
    }
    assert.deepEqual(failures, []);
  });

  test('10,000 generated and mutated expressions over HTTP: a result or a ValidationException, never a 500', async () => {
    const random = mulberry32(0x5eed);
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const seeds = EXPRESSION_CASES.filter((item) => ITEM_OPERATION_KINDS.has(item.kind));
    const counts = { ok: 0, validation: 0, conditional: 0 };
    const total = 10_000;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < total) {
        next++;
        const seed = seeds[Math.floor(random() * seeds.length)]!;
        const expression = mutateExpression(random, seed.expression);
        const body = requestBody(seed, expression);
        const response = await callOperation(twin.twin.endpoint, body.operation, JSON.stringify(body.input), agent);
        if (response.status === 200) {
          counts.ok++;
          continue;
        }
        assert.equal(response.status, 400, `${expression}: HTTP ${response.status} ${response.text}`);
        const type = (JSON.parse(response.text) as { __type: string }).__type;
        if (type.endsWith('#ConditionalCheckFailedException')) counts.conditional++;
        else {
          assert.equal(type, 'com.amazon.coral.validate#ValidationException', `${expression}: ${response.text}`);
          counts.validation++;
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    agent.destroy();
    assert.equal(counts.ok + counts.validation + counts.conditional, total);
    assert.ok(counts.validation > 1000 && counts.ok + counts.conditional > 100, JSON.stringify(counts));
  });
});

function requestBody(seed: ExpressionCase, expression: string): { operation: string; input: Record<string, unknown> } {
  const placeholders = { ExpressionAttributeNames: seed.names, ExpressionAttributeValues: seed.values };
  switch (seed.kind) {
    case 'ConditionExpression':
      return { operation: 'PutItem', input: { TableName: TABLE, Item: KEY, ConditionExpression: expression, ...placeholders } };
    case 'UpdateExpression':
      return { operation: 'UpdateItem', input: { TableName: TABLE, Key: KEY, UpdateExpression: expression, ...placeholders } };
    default:
      return {
        operation: 'GetItem',
        input: { TableName: TABLE, Key: KEY, ProjectionExpression: expression, ExpressionAttributeNames: seed.names },
      };
  }
}

const FRAGMENTS = [' ', '(', ')', ',', '.', '[', ']', '[0]', ' AND ', ' OR ', 'NOT ', ' = ', ' <> ', ' < ', ' BETWEEN ', ' IN ',
  'size(', 'contains(', 'attribute_exists(', 'SET ', 'REMOVE ', 'ADD ', 'DELETE ', ' + ', ' - ', 'if_not_exists(', 'list_append(',
  '#n', ':v', 'a', 'status', '😀', '\u0000', '"', '99999999999999999999', '[4294967296]'];

function mutateExpression(random: () => number, text: string): string {
  let result = text;
  const edits = 1 + Math.floor(random() * 3);
  for (let edit = 0; edit < edits; edit++) {
    const at = Math.floor(random() * (result.length + 1));
    const roll = random();
    if (roll < 0.4) result = result.slice(0, at) + FRAGMENTS[Math.floor(random() * FRAGMENTS.length)] + result.slice(at);
    else if (roll < 0.7) result = result.slice(0, at) + result.slice(at + 1 + Math.floor(random() * 4));
    else if (roll < 0.85) result = result.slice(0, at);
    else result = result + result.slice(0, at);
  }
  return result;
}

