/**
 * Property: after any sequence of writes — PutItem, UpdateItem, DeleteItem, BatchWriteItem,
 * TransactWriteItems (some cancelled), PartiQL — every index holds exactly what a full
 * recomputation from the table gives: one entry per item that has the index key attributes,
 * projected as the index says, in the index's key order, with DescribeTable's ItemCount and
 * IndexSizeBytes to match. Runs with GSIs updated in the write and with a propagation lag.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  ExecuteStatementCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import type { AttributeMap } from '../src/model/attribute-value.js';
import { itemSize } from '../src/model/item-size.js';
import { seededRandom } from './support/random.js';
import { compareKeyValues, type Item } from './support/read-tables.js';
import { startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

interface IndexSpec {
  readonly name: string;
  readonly hash: string;
  readonly range: string | undefined;
  /** Undefined for ALL. */
  readonly projected: readonly string[] | undefined;
}

const TABLE_KEYS = ['pk', 'sk'];
const INDEXES: readonly IndexSpec[] = [
  { name: 'gsi-sparse-all', hash: 'g', range: undefined, projected: undefined },
  { name: 'gsi-keys', hash: 'g', range: 'n', projected: [] },
  { name: 'gsi-include', hash: 'h', range: 'b', projected: ['x'] },
  { name: 'lsi-include', hash: 'pk', range: 'l', projected: ['y'] },
];

const S_VALUES = ['a', 'b', 'a\u0000', 'ab', 'é'];
const N_VALUES = ['-5', '0', '0.5', '3', '100'];
const B_VALUES = [[0x00], [0x00, 0x01], [0xff], [0x61]];

type Random = () => number;
const pick = <T>(random: Random, values: readonly T[]): T => values[Math.floor(random() * values.length)]!;

function keyOf(random: Random): Item {
  return { pk: { S: pick(random, ['p1', 'p2', 'p3', 'p4']) }, sk: { S: pick(random, ['s1', 's2', 's3', 's4', 's5']) } };
}

/** An item with each index key attribute present or not (sparse indexes), plus projected and other attributes. */
function itemOf(random: Random): Item {
  const item: Item = keyOf(random);
  const maybe = (name: string, value: () => AttributeValue) => {
    if (random() < 0.7) item[name] = value();
  };
  maybe('g', () => ({ S: pick(random, S_VALUES) }));
  maybe('n', () => ({ N: pick(random, N_VALUES) }));
  maybe('h', () => ({ S: pick(random, S_VALUES) }));
  maybe('b', () => ({ B: new Uint8Array(pick(random, B_VALUES)) }));
  maybe('l', () => ({ S: pick(random, S_VALUES) }));
  maybe('x', () => ({ S: 'x'.repeat(Math.floor(random() * 20)) }));
  maybe('y', () => ({ N: String(Math.floor(random() * 1000)) }));
  maybe('z', () => ({ L: [{ S: 'not projected' }] }));
  return item;
}

const UPDATABLE: readonly [string, (random: Random) => AttributeValue][] = [
  ['g', (random) => ({ S: pick(random, S_VALUES) })],
  ['n', (random) => ({ N: pick(random, N_VALUES) })],
  ['h', (random) => ({ S: pick(random, S_VALUES) })],
  ['l', (random) => ({ S: pick(random, S_VALUES) })],
  ['x', (random) => ({ S: pick(random, S_VALUES) })],
  ['y', (random) => ({ N: pick(random, N_VALUES) })],
];

function updateOf(random: Random): { expression: string; values: Record<string, AttributeValue> | undefined } {
  const [name, value] = pick(random, UPDATABLE);
  if (random() < 0.35) return { expression: `REMOVE ${name}`, values: undefined };
  return { expression: `SET ${name} = :v`, values: { ':v': value(random) } };
}

async function randomWrite(twin: TwinClients, table: string, random: Random): Promise<void> {
  const roll = random();
  if (roll < 0.3) {
    await twin.client.send(new PutItemCommand({ TableName: table, Item: itemOf(random) }));
  } else if (roll < 0.55) {
    const { expression, values } = updateOf(random);
    await twin.client.send(new UpdateItemCommand({ TableName: table, Key: keyOf(random), UpdateExpression: expression, ExpressionAttributeValues: values }));
  } else if (roll < 0.65) {
    await twin.client.send(new DeleteItemCommand({ TableName: table, Key: keyOf(random) }));
  } else if (roll < 0.8) {
    await twin.client.send(new BatchWriteItemCommand({ RequestItems: { [table]: distinctWrites(random, 5).map((write) => (random() < 0.7 ? { PutRequest: { Item: write } } : { DeleteRequest: { Key: keyOfItem(write) } })) } }));
  } else if (roll < 0.95) {
    await randomTransaction(twin, table, random);
  } else {
    const key = keyOf(random);
    try {
      await twin.client.send(
        new ExecuteStatementCommand({ Statement: `UPDATE "${table}" SET g = ? WHERE pk = ? AND sk = ?`, Parameters: [{ S: pick(random, S_VALUES) }, key.pk!, key.sk!] }),
      );
    } catch (error) {
      // A PartiQL UPDATE only updates an existing item.
      if (!(error instanceof Error) || error.name !== 'ConditionalCheckFailedException') throw error;
    }
  }
}

/** Items with distinct keys (batches and transactions refuse the same item twice). */
function distinctWrites(random: Random, count: number): Item[] {
  const byKey = new Map<string, Item>();
  for (let attempt = 0; attempt < count; attempt++) {
    const item = itemOf(random);
    byKey.set(`${item.pk!.S}/${item.sk!.S}`, item);
  }
  return [...byKey.values()];
}

function keyOfItem(item: Item): Item {
  return { pk: item.pk!, sk: item.sk! };
}

async function randomTransaction(twin: TwinClients, table: string, random: Random): Promise<void> {
  const items = distinctWrites(random, 4);
  const actions = items.map((item) => {
    const roll = random();
    if (roll < 0.4) return { Put: { TableName: table, Item: item } };
    if (roll < 0.7) {
      const { expression, values } = updateOf(random);
      return { Update: { TableName: table, Key: keyOfItem(item), UpdateExpression: expression, ExpressionAttributeValues: values } };
    }
    if (roll < 0.85) return { Delete: { TableName: table, Key: keyOfItem(item) } };
    // A condition that sometimes fails cancels the whole transaction.
    return { ConditionCheck: { TableName: table, Key: keyOfItem(item), ConditionExpression: 'attribute_exists(g)' } };
  });
  try {
    await twin.client.send(new TransactWriteItemsCommand({ TransactItems: actions }));
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') throw error;
  }
}

async function scanAll(twin: TwinClients, table: string, index?: string): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await twin.client.send(new ScanCommand({ TableName: table, IndexName: index, ExclusiveStartKey: start, Limit: 7 }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}

/** What the index must hold, recomputed from the table's items. */
function expectedEntries(items: readonly Item[], index: IndexSpec): Item[] {
  const entries: Item[] = [];
  for (const item of items) {
    if (item[index.hash] === undefined || (index.range !== undefined && item[index.range] === undefined)) continue;
    if (index.projected === undefined) {
      entries.push(item);
      continue;
    }
    const entry: Item = {};
    for (const name of [...TABLE_KEYS, index.hash, ...(index.range === undefined ? [] : [index.range]), ...index.projected]) {
      if (item[name] !== undefined) entry[name] = item[name]!;
    }
    entries.push(entry);
  }
  return entries;
}

/** An SDK item in DynamoDB's wire form (binary as base64), which is what itemSize measures. */
function wireOf(item: Item): AttributeMap {
  const wire: Record<string, unknown> = {};
  for (const name of Object.keys(item)) {
    const value = item[name]!;
    wire[name] = value.B === undefined ? value : { B: Buffer.from(value.B).toString('base64') };
  }
  return wire as AttributeMap;
}

function canonical(item: Item): string {
  return JSON.stringify(
    Object.keys(item)
      .sort()
      .map((name) => [name, item[name]!.B === undefined ? item[name] : { B: Buffer.from(item[name]!.B).toString('hex') }]),
  );
}

/** The index's entries must be each partition's entries in sort key order. */
async function checkQueryOrder(twin: TwinClients, table: string, index: IndexSpec, expected: readonly Item[]): Promise<void> {
  const partitions = new Map<string, AttributeValue>();
  for (const entry of expected) partitions.set(canonical({ v: entry[index.hash]! }), entry[index.hash]!);
  for (const value of partitions.values()) {
    const items: Item[] = [];
    let start: Item | undefined;
    do {
      const page = await twin.client.send(
        new QueryCommand({ TableName: table, IndexName: index.name, KeyConditionExpression: '#h = :h', ExpressionAttributeNames: { '#h': index.hash }, ExpressionAttributeValues: { ':h': value }, ExclusiveStartKey: start, Limit: 3 }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    const want = expected.filter((entry) => canonical({ v: entry[index.hash]! }) === canonical({ v: value }));
    assert.equal(items.length, want.length, `${index.name} partition size`);
    if (index.range === undefined) continue;
    for (let at = 1; at < items.length; at++) {
      assert.ok(compareKeyValues(items[at - 1]![index.range]!, items[at]![index.range]!) <= 0, `${index.name} sort order`);
    }
  }
}

async function checkIndexes(twin: TwinClients, table: string, context: string): Promise<void> {
  const items = await scanAll(twin, table);
  const described = (await twin.client.send(new DescribeTableCommand({ TableName: table }))).Table!;
  const descriptions = [...(described.GlobalSecondaryIndexes ?? []), ...(described.LocalSecondaryIndexes ?? [])];
  for (const index of INDEXES) {
    const expected = expectedEntries(items, index);
    const actual = await scanAll(twin, table, index.name);
    assert.deepEqual(actual.map(canonical).sort(), expected.map(canonical).sort(), `${context}: ${index.name} entries`);
    const description = descriptions.find((candidate) => candidate.IndexName === index.name)!;
    assert.equal(description.ItemCount, expected.length, `${context}: ${index.name} ItemCount`);
    const bytes = expected.reduce((total, entry) => total + itemSize(wireOf(entry)), 0);
    assert.equal(description.IndexSizeBytes, bytes, `${context}: ${index.name} IndexSizeBytes`);
    await checkQueryOrder(twin, table, index, expected);
  }
}

async function createIndexedTable(twin: TwinClients): Promise<string> {
  const name = uniqueTableName('property');
  const projection = (index: IndexSpec) =>
    index.projected === undefined ? { ProjectionType: 'ALL' as const } : index.projected.length === 0 ? { ProjectionType: 'KEYS_ONLY' as const } : { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.projected] };
  const keySchema = (index: IndexSpec) => [
    { AttributeName: index.hash, KeyType: 'HASH' as const },
    ...(index.range === undefined ? [] : [{ AttributeName: index.range, KeyType: 'RANGE' as const }]),
  ];
  await twin.client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: 'g', AttributeType: 'S' },
        { AttributeName: 'n', AttributeType: 'N' },
        { AttributeName: 'h', AttributeType: 'S' },
        { AttributeName: 'b', AttributeType: 'B' },
        { AttributeName: 'l', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: INDEXES.filter((index) => index.name.startsWith('gsi')).map((index) => ({ IndexName: index.name, KeySchema: keySchema(index), Projection: projection(index) })),
      LocalSecondaryIndexes: INDEXES.filter((index) => index.name.startsWith('lsi')).map((index) => ({ IndexName: index.name, KeySchema: keySchema(index), Projection: projection(index) })),
    }),
  );
  return name;
}

describe('index property: every index equals a recomputation from the table', () => {
  for (const seed of [1, 2, 3]) {
    test(`random writes, seed ${seed}`, async () => {
      const twin = await startTwinWithClients();
      try {
        const table = await createIndexedTable(twin);
        const random = seededRandom(seed);
        for (let round = 0; round < 4; round++) {
          for (let step = 0; step < 60; step++) await randomWrite(twin, table, random);
          await checkIndexes(twin, table, `seed ${seed} round ${round}`);
        }
      } finally {
        await twin.close();
      }
    });
  }

  test('random writes with a GSI propagation lag: the indexes converge once the lag has passed', async () => {
    const twin = await startTwinWithClients({ clock: 'manual', gsiLagMs: 250 });
    const clock = twin.twin.clock as ManualClock;
    try {
      const table = await createIndexedTable(twin);
      const random = seededRandom(42);
      for (let round = 0; round < 3; round++) {
        for (let step = 0; step < 80; step++) {
          await randomWrite(twin, table, random);
          clock.advance(Math.floor(random() * 20));
          // Reads in between apply whatever is due, interleaving propagation with writes.
          if (random() < 0.1) await scanAll(twin, table, 'gsi-keys');
        }
        clock.advance(250);
        await checkIndexes(twin, table, `lagged round ${round}`);
      }
    } finally {
      await twin.close();
    }
  });
});
