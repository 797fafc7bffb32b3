/**
 * Fuzzing what parses input: thousands of mutated requests, each must get a DynamoDB-shaped answer
 * (200, or a 4xx with a JSON `__type`), never a 500, a hang or a crash.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, test } from 'node:test';
import { startDynatwin, type Dynatwin } from '../src/index.js';
import { callOperation } from './support/raw.js';
import { seededRandom as mulberry32 } from './support/random.js';

const REQUESTS_TOTAL = 4000;
const CONCURRENCY = 16;


type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const SEEDS: [string, Json][] = [
  ['CreateTable', {
    TableName: 'fuzz',
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'N' }],
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
    BillingMode: 'PAY_PER_REQUEST',
    GlobalSecondaryIndexes: [{ IndexName: 'g1', KeySchema: [{ AttributeName: 'sk', KeyType: 'HASH' }], Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['a'] } }],
  }],
  ['PutItem', {
    TableName: 'fuzz-items',
    Item: { id: { S: 'a' }, n: { N: '1.5e3' }, b: { B: 'AAEC' }, l: { L: [{ S: 'x' }, { M: { k: { NS: ['1', '2'] } } }] }, s: { SS: ['p', 'q'] }, z: { NULL: true }, t: { BOOL: false } },
    ReturnValues: 'ALL_OLD',
    ReturnConsumedCapacity: 'TOTAL',
  }],
  ['GetItem', { TableName: 'fuzz-items', Key: { id: { S: 'a' } }, ProjectionExpression: '#a.b[1], c', ExpressionAttributeNames: { '#a': 'l' }, ConsistentRead: true }],
  ['DeleteItem', { TableName: 'fuzz-items', Key: { id: { S: 'a' } }, ReturnValues: 'ALL_OLD' }],
  ['ListTables', { Limit: 2, ExclusiveStartTableName: 'fuzz' }],
  ['DescribeTable', { TableName: 'fuzz-items' }],
  ['UpdateTable', { TableName: 'fuzz-items', BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } }],
  ['TagResource', { ResourceArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/fuzz-items', Tags: [{ Key: 'k', Value: 'v' }] }],
  ['UpdateTimeToLive', { TableName: 'fuzz-items', TimeToLiveSpecification: { Enabled: true, AttributeName: 'ttl' } }],
];

const STRANGE_VALUES: Json[] = [
  null, true, false, 0, -1, 1.5, 1e300, '', 'x', '1e999', '-0', 'NaN', '\u0000', '💥', '#', ':', '[', 'a'.repeat(300),
  [], [null], {}, { S: 'x' }, { N: 'abc' }, { B: '===' }, { SS: [] }, { L: [null] }, { M: { '': { S: '' } } }, { NULL: false },
];

function pick<T>(random: () => number, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)]!;
}

/** Replaces, removes or adds one value somewhere in the document. */
function mutate(random: () => number, value: Json, depth: number): Json {
  if (depth > 0 && random() < 0.25) return pick(random, STRANGE_VALUES);
  if (Array.isArray(value)) {
    const copy = value.map((element) => (random() < 0.5 ? mutate(random, element, depth + 1) : element));
    if (random() < 0.2) copy.push(pick(random, STRANGE_VALUES));
    if (random() < 0.1) copy.length = 0;
    return copy;
  }
  if (value !== null && typeof value === 'object') {
    const copy: { [key: string]: Json } = {};
    for (const [key, inner] of Object.entries(value)) {
      const roll = random();
      if (roll < 0.1) continue;
      copy[key] = roll < 0.55 ? mutate(random, inner, depth + 1) : inner;
    }
    if (random() < 0.15) copy[pick(random, ['S', 'N', 'Extra', 'TableName', 'Key', 'Item', 'M'])] = pick(random, STRANGE_VALUES);
    return copy;
  }
  return random() < 0.5 ? pick(random, STRANGE_VALUES) : value;
}

/** Byte-level damage to the JSON text: truncation, a flipped character, an inserted brace. */
function damageText(random: () => number, text: string): string {
  const at = Math.floor(random() * text.length);
  const roll = random();
  if (roll < 0.33) return text.slice(0, at);
  if (roll < 0.66) return text.slice(0, at) + String.fromCharCode(Math.floor(random() * 128)) + text.slice(at + 1);
  return text.slice(0, at) + pick(random, ['{', '}', '[', ']', ',', '"', ':', '\\']) + text.slice(at);
}

function makeBody(random: () => number): [string, string] {
  const [operation, seed] = pick(random, SEEDS);
  const mutated = random() < 0.9 ? mutate(random, seed, 0) : seed;
  const text = JSON.stringify(mutated);
  return [operation, random() < 0.15 ? damageText(random, text) : text];
}

let twin: Dynatwin;
before(async () => {
  twin = await startDynatwin();
  await callOperation(twin.endpoint, 'CreateTable', JSON.stringify({
    TableName: 'fuzz-items',
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
  }));
});
after(async () => {
  await twin.close();
});

test(`${REQUESTS_TOTAL} mutated requests all get DynamoDB-shaped answers`, async () => {
  const random = mulberry32(0xd7a3);
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < REQUESTS_TOTAL) {
      next++;
      const [operation, body] = makeBody(random);
      const response = await callOperation(twin.endpoint, operation, body, agent);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      assert.ok(response.status === 200 || (response.status >= 400 && response.status < 500), `status ${response.status} for ${operation} ${body}`);
      if (response.status === 400) {
        const parsed = JSON.parse(response.text) as { __type?: string };
        assert.match(String(parsed.__type), /^com\.amazon(aws\.dynamodb\.v20120810|\.coral\.(service|validate))#\w+$/, body);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  assert.ok((statuses.get(400) ?? 0) > REQUESTS_TOTAL / 4, 'most mutations are invalid requests');
  const alive = await callOperation(twin.endpoint, 'ListTables', '{}');
  assert.equal(alive.status, 200);
});
