/**
 * Issue #7: every worked example of the capacity reference's §1 (capacity-unit arithmetic,
 * /work/shared/docs/dynamodb-capacity-model.md) as one table of cases, each run through the AWS SDK
 * against a live dynatwin and checked on the whole ConsumedCapacity member.
 *
 * A case says what table it needs (key schema, indexes, billing, how many partitions), the items
 * to preload (built to an exact byte size by DynamoDB's rules, asserted with itemSize), the request,
 * and the ConsumedCapacity expected. Where the reference marks a rule uncertain (⚠), the case
 * follows the choice dynatwin's code comments make, and says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  ExecuteStatementCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type CreateTableCommandInput,
  type DynamoDBClient,
  type Projection,
  type TransactWriteItemsCommandInput,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import type { ConsumedCapacity } from '../src/capacity/consumption.js';
import type { AttributeMap } from '../src/model/attribute-value.js';
import { itemSize, utf8Length } from '../src/model/item-size.js';
import { hashPartitionKey, keyBytesOf } from '../src/model/key-codec.js';
import { callOperation } from './support/raw.js';
import { startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

type Item = Record<string, AttributeValue>;

// ---------------------------------------------------------------------------------------------
// Items of an exact size

const KB = 1024;

function sizeOf(item: Item): number {
  return itemSize(item as unknown as AttributeMap);
}

const s = (text: string): AttributeValue => ({ S: text });
const key = (pk: string): Item => ({ pk: s(pk) });
const ckey = (pk: string, sk: string): Item => ({ pk: s(pk), sk: s(sk) });

/**
 * `attributes` plus one string attribute (`pad` unless named otherwise) whose length brings the
 * item to exactly `bytes` by DynamoDB's rules: each attribute's UTF-8 name bytes + its value bytes.
 */
function sized(bytes: number, attributes: Item, padName = 'pad'): Item {
  assert.ok(!(padName in attributes), `${padName} is already an attribute`);
  const padLength = bytes - sizeOf(attributes) - utf8Length(padName);
  assert.ok(padLength >= 1, `an item of ${bytes} bytes cannot hold ${JSON.stringify(attributes)} and a non-empty ${padName}`);
  const item = { ...attributes, [padName]: s('x'.repeat(padLength)) };
  assert.equal(sizeOf(item), bytes, 'the sized() helper built an item of the wrong size');
  return item;
}

/** The projected part of an item (an index entry made of the named attributes). */
function pick(item: Item, names: readonly string[]): Item {
  const picked: Item = {};
  for (const name of names) if (item[name] !== undefined) picked[name] = item[name]!;
  return picked;
}

// ---------------------------------------------------------------------------------------------
// Keys in a chosen partition: partitions own equal, contiguous ranges of the 32-bit key hash when
// a table is created (capacity/partitions.ts; checked per case through the inspection endpoint).

const HASH_SPACE = 2 ** 32;

function partitionOfKey(pk: string, partitionCount: number): number {
  const hash = hashPartitionKey(keyBytesOf({ S: pk }));
  for (let index = 0; index < partitionCount; index++) {
    if (hash < Math.floor(((index + 1) * HASH_SPACE) / partitionCount)) return index;
  }
  throw new Error('hash outside the hash space');
}

/** The first `stem<n>` partition key that hashes into `partition` of `partitionCount`. */
function keyInPartition(stem: string, partition: number, partitionCount: number): string {
  for (let n = 0; ; n++) if (partitionOfKey(`${stem}${n}`, partitionCount) === partition) return `${stem}${n}`;
}

// ---------------------------------------------------------------------------------------------
// Tables

/** GSI `by-g` keyed on g (S); LSI `by-l` keyed on pk + l (S). */
const GSI = 'by-g';
const LSI = 'by-l';

interface TableSetup {
  /** pk (S) HASH, plus sk (S) RANGE when true (always with an LSI). */
  readonly sortKey?: boolean;
  readonly gsi?: Projection;
  readonly lsi?: Projection;
  /** Provisioned throughput; on-demand (PAY_PER_REQUEST) otherwise. */
  readonly provisioned?: { readonly read: number; readonly write: number };
  /** Partitions the table must start with (checked before the case runs). */
  readonly partitions?: number;
  /** Items per table partition after the preload (checked before the case runs). */
  readonly partitionItemCounts?: readonly number[];
  /** Entries per partition of the GSI after the preload (checked before the case runs). */
  readonly gsiPartitionItemCounts?: readonly number[];
}

const hashTable: TableSetup = {};
const compositeTable: TableSetup = { sortKey: true };
const ALL: Projection = { ProjectionType: 'ALL' };
const KEYS_ONLY: Projection = { ProjectionType: 'KEYS_ONLY' };
const includes = (...names: string[]): Projection => ({ ProjectionType: 'INCLUDE', NonKeyAttributes: names });

function createTableInput(name: string, setup: TableSetup): CreateTableCommandInput {
  const sortKey = setup.sortKey === true || setup.lsi !== undefined;
  const attributes = [{ AttributeName: 'pk', AttributeType: 'S' as const }];
  if (sortKey) attributes.push({ AttributeName: 'sk', AttributeType: 'S' });
  if (setup.gsi !== undefined) attributes.push({ AttributeName: 'g', AttributeType: 'S' });
  if (setup.lsi !== undefined) attributes.push({ AttributeName: 'l', AttributeType: 'S' });
  const throughput = setup.provisioned === undefined ? undefined : { ReadCapacityUnits: setup.provisioned.read, WriteCapacityUnits: setup.provisioned.write };
  return {
    TableName: name,
    AttributeDefinitions: attributes,
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, ...(sortKey ? [{ AttributeName: 'sk', KeyType: 'RANGE' as const }] : [])],
    ...(throughput === undefined ? { BillingMode: 'PAY_PER_REQUEST' as const } : { ProvisionedThroughput: throughput }),
    ...(setup.gsi === undefined
      ? {}
      : {
          GlobalSecondaryIndexes: [
            { IndexName: GSI, KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: setup.gsi, ...(throughput === undefined ? {} : { ProvisionedThroughput: throughput }) },
          ],
        }),
    ...(setup.lsi === undefined
      ? {}
      : {
          LocalSecondaryIndexes: [
            { IndexName: LSI, KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'l', KeyType: 'RANGE' }], Projection: setup.lsi },
          ],
        }),
  };
}

// ---------------------------------------------------------------------------------------------
// The cases

type Command =
  | GetItemCommand
  | PutItemCommand
  | UpdateItemCommand
  | DeleteItemCommand
  | BatchGetItemCommand
  | BatchWriteItemCommand
  | QueryCommand
  | ScanCommand
  | TransactGetItemsCommand
  | TransactWriteItemsCommand
  | ExecuteStatementCommand;

interface Output {
  readonly ConsumedCapacity?: unknown;
  readonly [member: string]: unknown;
}

interface CapacityCase {
  readonly name: string;
  readonly table: TableSetup;
  /** Started with partitionModel 'classic' (reference §2.3) instead of the default 'modern'. */
  readonly classic?: boolean;
  readonly preload?: readonly Item[];
  /** Requests that must run first (e.g. the transaction an idempotent replay repeats). */
  readonly prepare?: (t: string) => readonly Command[];
  readonly request: (t: string) => Command;
  /** The whole ConsumedCapacity member, for the table named `t`. */
  readonly expected: (t: string) => ConsumedCapacity | readonly ConsumedCapacity[];
  /** Other members of the response worth pinning (counts, pages). */
  readonly check?: (output: Output) => void;
}

/** A case whose request fails: the error, and no ConsumedCapacity anywhere in its body. */
interface FailingCase {
  readonly name: string;
  readonly table: TableSetup;
  readonly preload?: readonly Item[];
  readonly request: (t: string) => Command;
  readonly error: string;
}

const indexes = 'INDEXES' as const;
const total = 'TOTAL' as const;

/** INDEXES on a table without index charges: {TableName, CapacityUnits, Table}. */
const tableOnly = (units: number) => (t: string): ConsumedCapacity => ({ TableName: t, CapacityUnits: units, Table: { CapacityUnits: units } });
const totalOnly = (units: number) => (t: string): ConsumedCapacity => ({ TableName: t, CapacityUnits: units });

// Items used by several cases.
const item500 = (pk: string, extra: Item = {}): Item => sized(500, { ...key(pk), ...extra });
/** Ten items totalling 41,779 bytes (40.8 KB): 9 × 4,178 + 4,177 (each alone would round to 8 KB). */
function tenItems408(keyOf: (n: number) => Item): Item[] {
  const items = Array.from({ length: 10 }, (_, n) => sized(n === 9 ? 4_177 : 4_178, keyOf(n)));
  assert.equal(items.reduce((sum, item) => sum + sizeOf(item), 0), 41_779);
  return items;
}
/** The ten items under one partition key p, sort keys s0..s9. */
const queryTen = (n: number): Item => ckey('p', `s${n}`);
/** Items of the LSI fetch example (§1.3): 200-byte KEYS_ONLY entries {pk, sk, l}, 300-byte items. */
const lsiFetchItems: Item[] = Array.from({ length: 4 }, (_, n) => {
  const entry = sized(200, ckey('p', `s${n}`), 'l');
  const item = sized(300, entry, 'extra');
  assert.equal(sizeOf(pick(item, ['pk', 'sk', 'l'])), 200);
  return item;
});
/** The GSI read example (§1.3): 8 INCLUDE(pad) entries {pk, g, pad} of 2,000 bytes, items of 5,000. */
const gsiReadItems: Item[] = Array.from({ length: 8 }, (_, n) => {
  const entry = sized(2_000, { ...key(`i${n}`), g: s('G') });
  const item = sized(5_000, entry, 'extra');
  assert.equal(sizeOf(pick(item, ['pk', 'g', 'pad'])), 2_000);
  return item;
});
/** 1,500 items of 64 bytes under one partition key (pk 3 bytes + sk 6 bytes + pad 3 + 52). */
const items64 = Array.from({ length: 1_500 }, (_, n) => sized(64, ckey('p', String(n).padStart(4, '0'))));
assert.equal(items64.reduce((sum, item) => sum + sizeOf(item), 0), 96_000);

/** A 3,000-byte item whose INCLUDE(p) entry {pk, g, p} is 1,500 bytes. */
const includeItem3000 = sized(3_000, sized(1_500, { ...key('a'), g: s('A') }, 'p'), 'rest');
assert.equal(sizeOf(pick(includeItem3000, ['pk', 'g', 'p'])), 1_500);

const replayInput = (t: string): TransactWriteItemsCommandInput => ({
  TransactItems: ['r1', 'r2', 'r3'].map((pk) => ({ Put: { TableName: t, Item: item500(pk) } })),
  ClientRequestToken: `replay-${t}`,
  ReturnConsumedCapacity: indexes,
});

const fourPartitionKeys = [0, 1, 2, 3].map((partition) => keyInPartition('q', partition, 4));
const twoPartitionKeys = [0, 1].map((partition) => keyInPartition('c', partition, 2));
const fourGsiPartitionValues = [0, 1, 2, 3].map((partition) => keyInPartition('v', partition, 4));
const onePartitionKeys = ['a', 'b', 'c'].map((stem) => keyInPartition(stem, 2, 4));

const cases: CapacityCase[] = [
  // ---- §1.1 / §1.3 GetItem: the item rounded up to 4 KB; SC 1, EC 0.5, transactional 2 per 4 KB.
  {
    name: 'GetItem SC of a 3,500-byte item costs one 4 KB read: 1',
    table: hashTable,
    preload: [sized(3_500, key('a'))],
    request: (t) => new GetItemCommand({ TableName: t, Key: key('a'), ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(1),
  },
  {
    name: 'GetItem EC of a 3,500-byte item: 0.5',
    table: hashTable,
    preload: [sized(3_500, key('a'))],
    request: (t) => new GetItemCommand({ TableName: t, Key: key('a'), ReturnConsumedCapacity: indexes }),
    expected: tableOnly(0.5),
  },
  {
    name: 'GetItem SC of exactly 4,096 bytes is one block: 1',
    table: hashTable,
    preload: [sized(4 * KB, key('a'))],
    request: (t) => new GetItemCommand({ TableName: t, Key: key('a'), ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(1),
  },
  {
    name: 'GetItem SC of 4,097 bytes starts a second block: 2',
    table: hashTable,
    preload: [sized(4 * KB + 1, key('a'))],
    request: (t) => new GetItemCommand({ TableName: t, Key: key('a'), ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(2),
  },
  {
    name: 'GetItem SC of an 8 KB (8,192-byte) item: 2',
    table: hashTable,
    preload: [sized(8 * KB, key('a'))],
    request: (t) => new GetItemCommand({ TableName: t, Key: key('a'), ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(2),
  },
  {
    name: 'GetItem EC of an 8 KB item: 1',
    table: hashTable,
    preload: [sized(8 * KB, key('a'))],
    request: (t) => new GetItemCommand({ TableName: t, Key: key('a'), ConsistentRead: false, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(1),
  },
  {
    name: 'TransactGetItems of an 8 KB item: 4 (Read split)',
    table: hashTable,
    preload: [sized(8 * KB, key('a'))],
    request: (t) => new TransactGetItemsCommand({ TransactItems: [{ Get: { TableName: t, Key: key('a') } }], ReturnConsumedCapacity: indexes }),
    expected: (t) => [{ TableName: t, CapacityUnits: 4, ReadCapacityUnits: 4, Table: { CapacityUnits: 4, ReadCapacityUnits: 4 } }],
  },
  {
    name: 'GetItem SC of a 10 KB (10,240-byte) item is billed as 12 KB: 3',
    table: hashTable,
    preload: [sized(10 * KB, key('a'))],
    request: (t) => new GetItemCommand({ TableName: t, Key: key('a'), ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(3),
  },
  {
    name: 'GetItem EC of a 10 KB item, TOTAL shape: 1.5',
    table: hashTable,
    preload: [sized(10 * KB, key('a'))],
    request: (t) => new GetItemCommand({ TableName: t, Key: key('a'), ReturnConsumedCapacity: total }),
    expected: totalOnly(1.5),
  },
  {
    name: 'GetItem SC of a missing item: 1',
    table: hashTable,
    request: (t) => new GetItemCommand({ TableName: t, Key: key('missing'), ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(1),
  },
  {
    name: 'GetItem EC of a missing item: 0.5',
    table: hashTable,
    request: (t) => new GetItemCommand({ TableName: t, Key: key('missing'), ReturnConsumedCapacity: indexes }),
    expected: tableOnly(0.5),
    check: (output) => assert.equal(output.Item, undefined),
  },
  {
    name: 'GetItem with a ProjectionExpression is billed on the whole 8 KB item: 2 SC',
    table: hashTable,
    preload: [sized(8 * KB, key('a'))],
    request: (t) => new GetItemCommand({ TableName: t, Key: key('a'), ProjectionExpression: 'pk', ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(2),
    check: (output) => assert.deepEqual(output.Item, key('a')),
  },

  // ---- §1.3 BatchGetItem: each key rounded to 4 KB on its own, then summed.
  {
    name: 'BatchGetItem SC of 1.5 KB + 6.5 KB = 4 KB + 8 KB = 12 KB: 3 (not 8 KB: 2)',
    table: hashTable,
    preload: [sized(1_536, key('a')), sized(6_656, key('b'))],
    request: (t) => new BatchGetItemCommand({ RequestItems: { [t]: { Keys: [key('a'), key('b')], ConsistentRead: true } }, ReturnConsumedCapacity: indexes }),
    expected: (t) => [tableOnly(3)(t)],
  },
  {
    name: 'BatchGetItem EC of 1.5 KB + 6.5 KB, TOTAL shape: 1.5',
    table: hashTable,
    preload: [sized(1_536, key('a')), sized(6_656, key('b'))],
    request: (t) => new BatchGetItemCommand({ RequestItems: { [t]: { Keys: [key('a'), key('b')] } }, ReturnConsumedCapacity: total }),
    expected: (t) => [totalOnly(1.5)(t)],
  },
  {
    // ⚠ §1.3: a missing key in a batch costs like a missing GetItem (batchGetItem.ts charges size 0 as one block).
    name: 'BatchGetItem EC with a missing key: 1.5 KB (0.5) + missing (0.5) = 1',
    table: hashTable,
    preload: [sized(1_536, key('a'))],
    request: (t) => new BatchGetItemCommand({ RequestItems: { [t]: { Keys: [key('a'), key('missing')] } }, ReturnConsumedCapacity: indexes }),
    expected: (t) => [tableOnly(1)(t)],
  },

  // ---- §1.3 Query: everything read summed, then rounded up once.
  {
    name: 'Query SC of 10 items totalling 40.8 KB (41,779 bytes) is rounded once to 44 KB: 11 (not 20)',
    table: compositeTable,
    preload: tenItems408(queryTen),
    request: (t) =>
      new QueryCommand({ TableName: t, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': s('p') }, ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(11),
    check: (output) => assert.equal(output.Count, 10),
  },
  {
    name: 'Query EC of the same 41,779 bytes, TOTAL shape: 5.5',
    table: compositeTable,
    preload: tenItems408(queryTen),
    request: (t) => new QueryCommand({ TableName: t, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': s('p') }, ReturnConsumedCapacity: total }),
    expected: totalOnly(5.5),
  },
  {
    name: 'Query SC of 1,500 items of 64 bytes (96,000 bytes, under the 1 MB page) is 96 KB: 24',
    table: compositeTable,
    preload: items64,
    request: (t) =>
      new QueryCommand({ TableName: t, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': s('p') }, ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(24),
    check: (output) => {
      assert.equal(output.Count, 1_500);
      assert.equal(output.LastEvaluatedKey, undefined, 'one page: 96,000 bytes are under 1 MB');
    },
  },
  {
    name: 'Query SC with a filter that keeps nothing costs what it read: 11',
    table: compositeTable,
    preload: tenItems408(queryTen),
    request: (t) =>
      new QueryCommand({
        TableName: t,
        KeyConditionExpression: 'pk = :p',
        FilterExpression: 'attribute_exists(nothing)',
        ExpressionAttributeValues: { ':p': s('p') },
        ConsistentRead: true,
        ReturnConsumedCapacity: indexes,
      }),
    expected: tableOnly(11),
    check: (output) => {
      assert.equal(output.Count, 0);
      assert.equal(output.ScannedCount, 10);
    },
  },
  {
    name: 'Query SC with Select COUNT costs the same as returning the items: 11',
    table: compositeTable,
    preload: tenItems408(queryTen),
    request: (t) =>
      new QueryCommand({
        TableName: t,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': s('p') },
        Select: 'COUNT',
        ConsistentRead: true,
        ReturnConsumedCapacity: indexes,
      }),
    expected: tableOnly(11),
    check: (output) => {
      assert.equal(output.Count, 10);
      assert.equal(output.Items, undefined);
    },
  },
  {
    name: 'Query SC with a ProjectionExpression is billed on the whole items: 11',
    table: compositeTable,
    preload: tenItems408(queryTen),
    request: (t) =>
      new QueryCommand({
        TableName: t,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': s('p') },
        ProjectionExpression: 'sk',
        ConsistentRead: true,
        ReturnConsumedCapacity: indexes,
      }),
    expected: tableOnly(11),
  },
  {
    name: 'Query SC page stopped by Limit 5 is billed on its own: 5 × 4,178 = 20,890 bytes → 24 KB: 6',
    table: compositeTable,
    preload: tenItems408(queryTen),
    request: (t) =>
      new QueryCommand({
        TableName: t,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': s('p') },
        Limit: 5,
        ConsistentRead: true,
        ReturnConsumedCapacity: indexes,
      }),
    expected: tableOnly(6),
    check: (output) => assert.deepEqual(output.LastEvaluatedKey, ckey('p', 's4')),
  },
  {
    name: 'Query SC that finds nothing still pays for its partition: 1',
    table: compositeTable,
    request: (t) =>
      new QueryCommand({ TableName: t, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': s('nobody') }, ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(1),
  },
  {
    name: 'Query EC that finds nothing: 0.5',
    table: compositeTable,
    request: (t) => new QueryCommand({ TableName: t, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': s('nobody') }, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(0.5),
  },

  // ---- §1.3 Scan: the items evaluated, at least one 4 KB read per partition searched.
  {
    name: 'Scan EC of a one-partition table charges the 41,779 bytes evaluated: 5.5',
    table: { provisioned: { read: 1_000, write: 1_000 }, partitions: 1 },
    preload: tenItems408((n) => key(`s${n}`)),
    request: (t) => new ScanCommand({ TableName: t, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(5.5),
  },
  {
    name: 'Scan SC with a filter that keeps nothing is not reduced: 11',
    table: { provisioned: { read: 1_000, write: 1_000 }, partitions: 1 },
    preload: tenItems408((n) => key(`s${n}`)),
    request: (t) => new ScanCommand({ TableName: t, FilterExpression: 'attribute_exists(nothing)', ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(11),
    check: (output) => {
      assert.equal(output.Count, 0);
      assert.equal(output.ScannedCount, 10);
    },
  },
  {
    name: 'Scan SC of an on-demand table (4 partitions), one 100-byte item in each: one read per partition: 4',
    table: { partitions: 4, partitionItemCounts: [1, 1, 1, 1] },
    preload: fourPartitionKeys.map((pk) => sized(100, key(pk))),
    request: (t) => new ScanCommand({ TableName: t, ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(4),
  },
  {
    name: 'Scan EC of the same four partitions: 2',
    table: { partitions: 4, partitionItemCounts: [1, 1, 1, 1] },
    preload: fourPartitionKeys.map((pk) => sized(100, key(pk))),
    request: (t) => new ScanCommand({ TableName: t, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(2),
  },
  {
    // Per engine/reads.ts partitionsSearched: the partitions from the first item's to the last item's.
    name: 'Scan SC of items in partitions 0 and 3 only: partitions 0..3 searched: 4',
    table: { partitions: 4, partitionItemCounts: [1, 0, 0, 1] },
    preload: [sized(100, key(fourPartitionKeys[0]!)), sized(100, key(fourPartitionKeys[3]!))],
    request: (t) => new ScanCommand({ TableName: t, ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(4),
  },
  {
    name: 'Scan EC of a 4-partition table whose three items share one partition: 0.5',
    table: { partitions: 4, partitionItemCounts: [0, 0, 3, 0] },
    preload: onePartitionKeys.map((pk) => sized(100, key(pk))),
    request: (t) => new ScanCommand({ TableName: t, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(0.5),
    check: (output) => assert.equal(output.Count, 3),
  },
  {
    name: 'Scan SC with Limit 2 over the four partitions stops in the second: partitions 0..1: 2',
    table: { partitions: 4, partitionItemCounts: [1, 1, 1, 1] },
    preload: fourPartitionKeys.map((pk) => sized(100, key(pk))),
    request: (t) => new ScanCommand({ TableName: t, Limit: 2, ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(2),
    check: (output) => assert.deepEqual(output.LastEvaluatedKey, key(fourPartitionKeys[1]!)),
  },
  {
    name: 'Scan SC, segment 0 of 2 over the four partitions: its half holds partitions 0..1: 2',
    table: { partitions: 4, partitionItemCounts: [1, 1, 1, 1] },
    preload: fourPartitionKeys.map((pk) => sized(100, key(pk))),
    request: (t) => new ScanCommand({ TableName: t, Segment: 0, TotalSegments: 2, ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(2),
    check: (output) => assert.equal(output.Count, 2),
  },
  {
    name: 'Scan of a GSI (4 partitions of its own), one entry in each: charged to the GSI, EC: 2',
    table: { gsi: KEYS_ONLY, gsiPartitionItemCounts: [1, 1, 1, 1] },
    preload: fourGsiPartitionValues.map((value, n) => sized(1_000, { ...key(`e${n}`), g: s(value) })),
    request: (t) => new ScanCommand({ TableName: t, IndexName: GSI, ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 2, Table: { CapacityUnits: 0 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 2 } } }),
    check: (output) => assert.equal(output.Count, 4),
  },
  {
    // ⚠ §1.3 says every partition searched costs a read; engine/reads.ts follows real DynamoDB's
    // answer for an empty on-demand table (0.5, not 2): partitions without an item are not charged.
    name: 'Scan EC of an empty on-demand table: 0.5',
    table: { partitions: 4 },
    request: (t) => new ScanCommand({ TableName: t, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(0.5),
  },
  {
    name: 'Scan SC, classic model: 1,000 RCU + 1,000 WCU make 2 partitions (§2.3); an item in each: 2',
    classic: true,
    table: { provisioned: { read: 1_000, write: 1_000 }, partitions: 2, partitionItemCounts: [1, 1] },
    preload: twoPartitionKeys.map((pk) => sized(100, key(pk))),
    request: (t) => new ScanCommand({ TableName: t, ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(2),
  },
  {
    name: 'Scan SC, classic model: 1,000 RCU + 500 WCU make 1 partition (§2.3); the same items: 1',
    classic: true,
    table: { provisioned: { read: 1_000, write: 500 }, partitions: 1, partitionItemCounts: [2] },
    preload: twoPartitionKeys.map((pk) => sized(100, key(pk))),
    request: (t) => new ScanCommand({ TableName: t, ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(1),
  },

  // ---- §1.4 writes: the larger image rounded up to 1 KB; at least 1.
  {
    name: 'PutItem of a 500-byte item: 1',
    table: hashTable,
    request: (t) => new PutItemCommand({ TableName: t, Item: item500('a'), ReturnConsumedCapacity: indexes }),
    expected: tableOnly(1),
  },
  {
    name: 'PutItem of exactly 1,024 bytes: 1',
    table: hashTable,
    request: (t) => new PutItemCommand({ TableName: t, Item: sized(KB, key('a')), ReturnConsumedCapacity: indexes }),
    expected: tableOnly(1),
  },
  {
    name: 'PutItem of a 2 KB (2,048-byte) item: 2',
    table: hashTable,
    request: (t) => new PutItemCommand({ TableName: t, Item: sized(2 * KB, key('a')), ReturnConsumedCapacity: indexes }),
    expected: tableOnly(2),
  },
  {
    name: 'TransactWriteItems Put of a 2 KB item: 4 (Write split)',
    table: hashTable,
    request: (t) => new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: t, Item: sized(2 * KB, key('a')) } }], ReturnConsumedCapacity: indexes }),
    expected: (t) => [{ TableName: t, CapacityUnits: 4, WriteCapacityUnits: 4, Table: { CapacityUnits: 4, WriteCapacityUnits: 4 } }],
  },
  {
    name: 'PutItem of 1.6 KB (1,638 bytes) is billed as 2 KB: 2',
    table: hashTable,
    request: (t) => new PutItemCommand({ TableName: t, Item: sized(1_638, key('a')), ReturnConsumedCapacity: indexes }),
    expected: tableOnly(2),
  },
  {
    name: 'PutItem of 500 bytes replacing a 3,072-byte item is charged the larger: 3',
    table: hashTable,
    preload: [sized(3 * KB, key('a'))],
    request: (t) => new PutItemCommand({ TableName: t, Item: item500('a'), ReturnValues: 'ALL_OLD', ReturnConsumedCapacity: indexes }),
    expected: tableOnly(3),
  },
  {
    name: 'UpdateItem growing a 500-byte item to 2,500 bytes is charged the after-image: 3 (ReturnValues costs nothing)',
    table: hashTable,
    preload: [item500('a')],
    request: (t) =>
      new UpdateItemCommand({
        TableName: t,
        Key: key('a'),
        UpdateExpression: 'SET big = :b',
        ExpressionAttributeValues: { ':b': s('x'.repeat(2_500 - 500 - utf8Length('big'))) },
        ReturnValues: 'ALL_NEW',
        ReturnConsumedCapacity: indexes,
      }),
    expected: tableOnly(3),
    check: (output) => assert.equal(sizeOf(output.Attributes as Item), 2_500),
  },
  {
    name: 'UpdateItem shrinking a 3,000-byte item to 3 bytes is charged the before-image: 3',
    table: hashTable,
    preload: [sized(3_000, key('a'))],
    request: (t) => new UpdateItemCommand({ TableName: t, Key: key('a'), UpdateExpression: 'REMOVE #pad', ExpressionAttributeNames: { '#pad': 'pad' }, ReturnValues: 'ALL_NEW', ReturnConsumedCapacity: indexes }),
    expected: tableOnly(3),
    check: (output) => assert.equal(sizeOf(output.Attributes as Item), 3),
  },
  {
    name: 'UpdateItem of one small attribute of a 2,500-byte item is charged the whole item (2,503 bytes): 3',
    table: hashTable,
    preload: [sized(2_500, key('a'))],
    request: (t) =>
      new UpdateItemCommand({ TableName: t, Key: key('a'), UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': { N: '1' } }, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(3),
  },
  {
    name: 'DeleteItem is charged the deleted 2,500-byte item: 3',
    table: hashTable,
    preload: [sized(2_500, key('a'))],
    request: (t) => new DeleteItemCommand({ TableName: t, Key: key('a'), ReturnConsumedCapacity: indexes }),
    expected: tableOnly(3),
  },
  {
    // ⚠ §1.4: not documented; the minimum write (units.ts writeUnits).
    name: 'DeleteItem of a missing key: 1',
    table: hashTable,
    request: (t) => new DeleteItemCommand({ TableName: t, Key: key('missing'), ReturnConsumedCapacity: indexes }),
    expected: tableOnly(1),
  },
  {
    name: 'BatchWriteItem of 500 B + 3.5 KB = 1 KB + 4 KB: 5 (not 4)',
    table: hashTable,
    request: (t) =>
      new BatchWriteItemCommand({
        RequestItems: { [t]: [{ PutRequest: { Item: item500('a') } }, { PutRequest: { Item: sized(3_584, key('b')) } }] },
        ReturnConsumedCapacity: indexes,
      }),
    expected: (t) => [tableOnly(5)(t)],
  },
  {
    name: 'BatchWriteItem of 500 B + 3.5 KB, TOTAL shape: 5',
    table: hashTable,
    request: (t) =>
      new BatchWriteItemCommand({
        RequestItems: { [t]: [{ PutRequest: { Item: item500('a') } }, { PutRequest: { Item: sized(3_584, key('b')) } }] },
        ReturnConsumedCapacity: total,
      }),
    expected: (t) => [totalOnly(5)(t)],
  },
  {
    name: 'BatchWriteItem deleting a 2,500-byte item and putting a 1,638-byte one: 3 + 2 = 5',
    table: hashTable,
    preload: [sized(2_500, key('a'))],
    request: (t) =>
      new BatchWriteItemCommand({
        RequestItems: { [t]: [{ DeleteRequest: { Key: key('a') } }, { PutRequest: { Item: sized(1_638, key('b')) } }] },
        ReturnConsumedCapacity: indexes,
      }),
    expected: (t) => [tableOnly(5)(t)],
  },

  // ---- §1.5 GSI writes: per index, 0, 1 or 2 writes sized on the entry, charged to the GSI.
  {
    name: 'GSI (ALL): a 500-byte item enters the index: table 1 + GSI 1',
    table: { gsi: ALL },
    request: (t) => new PutItemCommand({ TableName: t, Item: item500('a', { g: s('A') }), ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 2, Table: { CapacityUnits: 1 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 1 } } }),
  },
  {
    name: 'GSI (ALL): a 1,500-byte item enters the index, its entry is 1,500 bytes: table 2 + GSI 2',
    table: { gsi: ALL },
    request: (t) => new PutItemCommand({ TableName: t, Item: sized(1_500, { ...key('a'), g: s('A') }), ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 4, Table: { CapacityUnits: 2 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 2 } } }),
  },
  {
    name: 'GSI (ALL), TOTAL shape: the total includes the GSI write: 2',
    table: { gsi: ALL },
    request: (t) => new PutItemCommand({ TableName: t, Item: item500('a', { g: s('A') }), ReturnConsumedCapacity: total }),
    expected: totalOnly(2),
  },
  {
    name: 'GSI (ALL): an update gives a 500-byte item its index key: table 1 + GSI 1',
    table: { gsi: ALL },
    preload: [sized(497, key('a'))],
    request: (t) =>
      new UpdateItemCommand({ TableName: t, Key: key('a'), UpdateExpression: 'SET g = :g', ExpressionAttributeValues: { ':g': s('A') }, ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 2, Table: { CapacityUnits: 1 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 1 } } }),
  },
  {
    name: 'GSI (ALL): the index key changes A → B: delete + put: table 1 + GSI 2',
    table: { gsi: ALL },
    preload: [item500('a', { g: s('A') })],
    request: (t) =>
      new UpdateItemCommand({ TableName: t, Key: key('a'), UpdateExpression: 'SET g = :g', ExpressionAttributeValues: { ':g': s('B') }, ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 3, Table: { CapacityUnits: 1 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 2 } } }),
  },
  {
    name: 'GSI (ALL): the index key of a 2,500-byte item changes: two writes of 2,500-byte entries: table 3 + GSI 6',
    table: { gsi: ALL },
    preload: [sized(2_500, { ...key('a'), g: s('A') })],
    request: (t) =>
      new UpdateItemCommand({ TableName: t, Key: key('a'), UpdateExpression: 'SET g = :g', ExpressionAttributeValues: { ':g': s('B') }, ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 9, Table: { CapacityUnits: 3 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 6 } } }),
  },
  {
    name: 'GSI (ALL): the item loses its index key and leaves the index: table 1 + GSI 1',
    table: { gsi: ALL },
    preload: [item500('a', { g: s('A') })],
    request: (t) => new UpdateItemCommand({ TableName: t, Key: key('a'), UpdateExpression: 'REMOVE g', ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 2, Table: { CapacityUnits: 1 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 1 } } }),
  },
  {
    name: 'GSI (ALL): an update of a projected non-key attribute rewrites the entry: table 1 + GSI 1',
    table: { gsi: ALL },
    preload: [item500('a', { g: s('A') })],
    request: (t) =>
      new UpdateItemCommand({ TableName: t, Key: key('a'), UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': { N: '7' } }, ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 2, Table: { CapacityUnits: 1 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 1 } } }),
  },
  {
    name: 'GSI (INCLUDE p): an update of the projected attribute p: table 1 + GSI 1',
    table: { gsi: includes('p') },
    preload: [item500('a', { g: s('A'), p: s('old') })],
    request: (t) =>
      new UpdateItemCommand({ TableName: t, Key: key('a'), UpdateExpression: 'SET p = :p', ExpressionAttributeValues: { ':p': s('new') }, ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 2, Table: { CapacityUnits: 1 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 1 } } }),
  },
  {
    name: 'GSI (INCLUDE p): an update of the projected attribute p of a 1,500-byte entry: one write sized on the entry: table 2 + GSI 2',
    table: { gsi: includes('p') },
    preload: [includeItem3000],
    request: (t) =>
      new UpdateItemCommand({ TableName: t, Key: key('a'), UpdateExpression: 'SET p = :p', ExpressionAttributeValues: { ':p': s('y'.repeat(includeItem3000.p!.S!.length)) }, ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 5, Table: { CapacityUnits: 3 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 2 } } }),
  },
  {
    name: 'GSI (INCLUDE p): an update of a non-projected attribute writes no entry: table 1, no GSI member',
    table: { gsi: includes('p') },
    preload: [item500('a', { g: s('A'), p: s('v') })],
    request: (t) =>
      new UpdateItemCommand({ TableName: t, Key: key('a'), UpdateExpression: 'SET note = :o', ExpressionAttributeValues: { ':o': s('x') }, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(1),
  },
  {
    name: 'GSI (KEYS_ONLY): an update of a non-key attribute writes no entry: table 1, no GSI member',
    table: { gsi: KEYS_ONLY },
    preload: [item500('a', { g: s('A') })],
    request: (t) =>
      new UpdateItemCommand({ TableName: t, Key: key('a'), UpdateExpression: 'SET note = :o', ExpressionAttributeValues: { ':o': s('x') }, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(1),
  },
  {
    name: 'GSI (ALL), sparse: an item without the index key costs the index nothing: table 1, no GSI member',
    table: { gsi: ALL },
    request: (t) => new PutItemCommand({ TableName: t, Item: item500('a'), ReturnConsumedCapacity: indexes }),
    expected: tableOnly(1),
  },
  {
    name: 'GSI (KEYS_ONLY): a 5,120-byte item has a 9-byte entry {pk, g}: table 5 + GSI 1',
    table: { gsi: KEYS_ONLY },
    request: (t) => new PutItemCommand({ TableName: t, Item: sized(5 * KB, { ...key('a'), g: s('A') }), ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 6, Table: { CapacityUnits: 5 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 1 } } }),
  },
  {
    name: 'GSI (ALL): deleting a 2,500-byte indexed item deletes its 2,500-byte entry: table 3 + GSI 3',
    table: { gsi: ALL },
    preload: [sized(2_500, { ...key('a'), g: s('A') })],
    request: (t) => new DeleteItemCommand({ TableName: t, Key: key('a'), ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 6, Table: { CapacityUnits: 3 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 3 } } }),
  },
  {
    name: 'GSI (KEYS_ONLY): deleting a 2,500-byte indexed item deletes a small entry: table 3 + GSI 1',
    table: { gsi: KEYS_ONLY },
    preload: [sized(2_500, { ...key('a'), g: s('A') })],
    request: (t) => new DeleteItemCommand({ TableName: t, Key: key('a'), ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 4, Table: { CapacityUnits: 3 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 1 } } }),
  },
  {
    name: 'GSI (ALL): BatchWriteItem charges each put its GSI entry: 2 × (table 1 + GSI 1)',
    table: { gsi: ALL },
    request: (t) =>
      new BatchWriteItemCommand({
        RequestItems: { [t]: [{ PutRequest: { Item: item500('a', { g: s('A') }) } }, { PutRequest: { Item: item500('b', { g: s('B') }) } }] },
        ReturnConsumedCapacity: indexes,
      }),
    expected: (t) => [{ TableName: t, CapacityUnits: 4, Table: { CapacityUnits: 2 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 2 } } }],
  },

  // ---- §1.5 LSI writes: charged to the table, reported under LocalSecondaryIndexes.
  {
    name: 'LSI (KEYS_ONLY): a 500-byte item enters the index: table 1 + LSI 1',
    table: { lsi: KEYS_ONLY },
    request: (t) => new PutItemCommand({ TableName: t, Item: sized(500, { ...ckey('p', 's'), l: s('L') }), ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 2, Table: { CapacityUnits: 1 }, LocalSecondaryIndexes: { [LSI]: { CapacityUnits: 1 } } }),
  },
  {
    name: 'LSI (ALL): the index key changes: table 1 + LSI 2',
    table: { lsi: ALL },
    preload: [sized(500, { ...ckey('p', 's'), l: s('L1') })],
    request: (t) =>
      new UpdateItemCommand({ TableName: t, Key: ckey('p', 's'), UpdateExpression: 'SET l = :l', ExpressionAttributeValues: { ':l': s('L2') }, ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 3, Table: { CapacityUnits: 1 }, LocalSecondaryIndexes: { [LSI]: { CapacityUnits: 2 } } }),
  },

  // ---- §1.3 index reads.
  {
    name: 'GSI Query of 8 entries × 2,000 bytes = 16,000 bytes → 16 KB, EC: GSI 2, table 0',
    table: { gsi: includes('pad') },
    preload: gsiReadItems,
    request: (t) =>
      new QueryCommand({ TableName: t, IndexName: GSI, KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': s('G') }, ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 2, Table: { CapacityUnits: 0 }, GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 2 } } }),
    check: (output) => assert.equal(output.Count, 8),
  },
  {
    name: 'LSI Query EC of projected attributes only: the LSI line carries it, table 0: 0.5',
    table: { lsi: KEYS_ONLY },
    preload: lsiFetchItems,
    request: (t) =>
      new QueryCommand({ TableName: t, IndexName: LSI, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': s('p') }, ReturnConsumedCapacity: indexes }),
    expected: (t) => ({ TableName: t, CapacityUnits: 0.5, Table: { CapacityUnits: 0 }, LocalSecondaryIndexes: { [LSI]: { CapacityUnits: 0.5 } } }),
    check: (output) => assert.equal(output.Count, 4),
  },
  {
    // §1.3: 4 KB for the 4 × 200-byte entries (rounded once) + 4 × 4 KB for the 300-byte items
    // (each rounded alone) = 20 KB. engine/reads.ts pageConsumption puts the entries on the LSI
    // line and the item fetches on the table line.
    name: 'LSI Query SC asking for a non-projected attribute: 4 entries (4 KB: LSI 1) + 4 fetched items (4 × 4 KB: table 4) = 5',
    table: { lsi: KEYS_ONLY },
    preload: lsiFetchItems,
    request: (t) =>
      new QueryCommand({
        TableName: t,
        IndexName: LSI,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': s('p') },
        ProjectionExpression: 'extra',
        ConsistentRead: true,
        ReturnConsumedCapacity: indexes,
      }),
    expected: (t) => ({ TableName: t, CapacityUnits: 5, Table: { CapacityUnits: 4 }, LocalSecondaryIndexes: { [LSI]: { CapacityUnits: 1 } } }),
    check: (output) => assert.equal(output.Count, 4),
  },
  {
    name: 'LSI Query EC asking for a non-projected attribute: LSI 0.5 + table 2 = 2.5',
    table: { lsi: KEYS_ONLY },
    preload: lsiFetchItems,
    request: (t) =>
      new QueryCommand({
        TableName: t,
        IndexName: LSI,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': s('p') },
        ProjectionExpression: 'extra',
        ReturnConsumedCapacity: indexes,
      }),
    expected: (t) => ({ TableName: t, CapacityUnits: 2.5, Table: { CapacityUnits: 2 }, LocalSecondaryIndexes: { [LSI]: { CapacityUnits: 0.5 } } }),
  },

  // ---- §1.3 / §1.4 transactions: 2 units per item per 1 KB (writes) or 4 KB (reads).
  {
    name: 'TransactWriteItems of 3 × 500-byte Puts: 6 WCU',
    table: hashTable,
    request: (t) =>
      new TransactWriteItemsCommand({ TransactItems: ['a', 'b', 'c'].map((pk) => ({ Put: { TableName: t, Item: item500(pk) } })), ReturnConsumedCapacity: indexes }),
    expected: (t) => [{ TableName: t, CapacityUnits: 6, WriteCapacityUnits: 6, Table: { CapacityUnits: 6, WriteCapacityUnits: 6 } }],
  },
  {
    name: 'TransactWriteItems of 3 × 500-byte Puts, TOTAL shape: 6 WCU',
    table: hashTable,
    request: (t) =>
      new TransactWriteItemsCommand({ TransactItems: ['a', 'b', 'c'].map((pk) => ({ Put: { TableName: t, Item: item500(pk) } })), ReturnConsumedCapacity: total }),
    expected: (t) => [{ TableName: t, CapacityUnits: 6, WriteCapacityUnits: 6 }],
  },
  {
    name: 'TransactGetItems of 3 × 500-byte items: 6 RCU',
    table: hashTable,
    preload: ['a', 'b', 'c'].map((pk) => item500(pk)),
    request: (t) => new TransactGetItemsCommand({ TransactItems: ['a', 'b', 'c'].map((pk) => ({ Get: { TableName: t, Key: key(pk) } })), ReturnConsumedCapacity: indexes }),
    expected: (t) => [{ TableName: t, CapacityUnits: 6, ReadCapacityUnits: 6, Table: { CapacityUnits: 6, ReadCapacityUnits: 6 } }],
  },
  {
    name: 'TransactGetItems of a missing item: 2 RCU',
    table: hashTable,
    request: (t) => new TransactGetItemsCommand({ TransactItems: [{ Get: { TableName: t, Key: key('missing') } }], ReturnConsumedCapacity: total }),
    expected: (t) => [{ TableName: t, CapacityUnits: 2, ReadCapacityUnits: 2 }],
  },
  {
    // charges.ts: a transaction doubles the table's units; its index writes cost what they cost
    // outside a transaction.
    name: 'TransactWriteItems Put of a 500-byte item into a GSI (ALL): table 2 (doubled) + GSI 1 (not)',
    table: { gsi: ALL },
    request: (t) => new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: t, Item: item500('a', { g: s('A') }) } }], ReturnConsumedCapacity: indexes }),
    expected: (t) => [
      {
        TableName: t,
        CapacityUnits: 3,
        WriteCapacityUnits: 3,
        Table: { CapacityUnits: 2, WriteCapacityUnits: 2 },
        GlobalSecondaryIndexes: { [GSI]: { CapacityUnits: 1, WriteCapacityUnits: 1 } },
      },
    ],
  },
  {
    name: 'TransactWriteItems Put of a 500-byte item into an LSI (KEYS_ONLY): table 2 (doubled) + LSI 1 (not)',
    table: { lsi: KEYS_ONLY },
    request: (t) =>
      new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: t, Item: sized(500, { ...ckey('p', 's'), l: s('L') }) } }], ReturnConsumedCapacity: indexes }),
    expected: (t) => [
      {
        TableName: t,
        CapacityUnits: 3,
        WriteCapacityUnits: 3,
        Table: { CapacityUnits: 2, WriteCapacityUnits: 2 },
        LocalSecondaryIndexes: { [LSI]: { CapacityUnits: 1, WriteCapacityUnits: 1 } },
      },
    ],
  },
  {
    name: 'TransactWriteItems replayed with its ClientRequestToken reports the reads of 3 × 500-byte items: 6 RCU',
    table: hashTable,
    prepare: (t) => [new TransactWriteItemsCommand(replayInput(t))],
    request: (t) => new TransactWriteItemsCommand(replayInput(t)),
    expected: (t) => [{ TableName: t, CapacityUnits: 6, ReadCapacityUnits: 6, Table: { CapacityUnits: 6, ReadCapacityUnits: 6 } }],
  },
  {
    name: 'TransactWriteItems ConditionCheck on a 2,048-byte item is charged as a transactional write: 4 WCU',
    table: hashTable,
    preload: [sized(2 * KB, key('a'))],
    request: (t) =>
      new TransactWriteItemsCommand({
        TransactItems: [{ ConditionCheck: { TableName: t, Key: key('a'), ConditionExpression: 'attribute_exists(pk)' } }],
        ReturnConsumedCapacity: indexes,
      }),
    expected: (t) => [{ TableName: t, CapacityUnits: 4, WriteCapacityUnits: 4, Table: { CapacityUnits: 4, WriteCapacityUnits: 4 } }],
  },
  {
    name: 'TransactWriteItems ConditionCheck (500 B) + Put (1,638 B): 2 + 4 = 6 WCU',
    table: hashTable,
    preload: [item500('a')],
    request: (t) =>
      new TransactWriteItemsCommand({
        TransactItems: [
          { ConditionCheck: { TableName: t, Key: key('a'), ConditionExpression: 'attribute_exists(pk)' } },
          { Put: { TableName: t, Item: sized(1_638, key('b')) } },
        ],
        ReturnConsumedCapacity: indexes,
      }),
    expected: (t) => [{ TableName: t, CapacityUnits: 6, WriteCapacityUnits: 6, Table: { CapacityUnits: 6, WriteCapacityUnits: 6 } }],
  },

  // ---- PartiQL: each statement is charged as the operation it runs as.
  {
    name: 'ExecuteStatement SELECT by key (a GetItem) of an 8 KB item, EC: 1',
    table: hashTable,
    preload: [sized(8 * KB, key('a'))],
    request: (t) => new ExecuteStatementCommand({ Statement: `SELECT * FROM "${t}" WHERE pk = ?`, Parameters: [s('a')], ReturnConsumedCapacity: indexes }),
    expected: tableOnly(1),
  },
  {
    name: 'ExecuteStatement SELECT by key of an 8 KB item, ConsistentRead: 2',
    table: hashTable,
    preload: [sized(8 * KB, key('a'))],
    request: (t) =>
      new ExecuteStatementCommand({ Statement: `SELECT * FROM "${t}" WHERE pk = ?`, Parameters: [s('a')], ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(2),
  },
  {
    name: 'ExecuteStatement SELECT of one partition key (a Query) of 41,779 bytes, SC: 11',
    table: compositeTable,
    preload: tenItems408(queryTen),
    request: (t) => new ExecuteStatementCommand({ Statement: `SELECT * FROM "${t}" WHERE pk = ?`, Parameters: [s('p')], ConsistentRead: true, ReturnConsumedCapacity: indexes }),
    expected: tableOnly(11),
  },
  {
    name: 'ExecuteStatement INSERT of a 2,048-byte item: 2',
    table: hashTable,
    request: (t) => {
      const item = sized(2 * KB, key('a'));
      return new ExecuteStatementCommand({ Statement: `INSERT INTO "${t}" VALUE {'pk': ?, 'pad': ?}`, Parameters: [item.pk!, item.pad!], ReturnConsumedCapacity: indexes });
    },
    expected: tableOnly(2),
  },
  {
    name: 'ExecuteStatement UPDATE growing a 500-byte item to 2,500 bytes: 3',
    table: hashTable,
    preload: [item500('a')],
    request: (t) =>
      new ExecuteStatementCommand({
        Statement: `UPDATE "${t}" SET big = ? WHERE pk = ?`,
        Parameters: [s('x'.repeat(2_500 - 500 - utf8Length('big'))), s('a')],
        ReturnConsumedCapacity: indexes,
      }),
    expected: tableOnly(3),
  },
  {
    name: 'ExecuteStatement DELETE of a 2,500-byte item: 3',
    table: hashTable,
    preload: [sized(2_500, key('a'))],
    request: (t) => new ExecuteStatementCommand({ Statement: `DELETE FROM "${t}" WHERE pk = ?`, Parameters: [s('a')], ReturnConsumedCapacity: total }),
    expected: totalOnly(3),
  },
];

const failingCases: FailingCase[] = [
  {
    name: 'PutItem whose condition fails: ConditionalCheckFailedException, no ConsumedCapacity in the body',
    table: hashTable,
    preload: [item500('a')],
    request: (t) =>
      new PutItemCommand({ TableName: t, Item: sized(2 * KB, key('a')), ConditionExpression: 'attribute_not_exists(pk)', ReturnConsumedCapacity: indexes }),
    error: 'ConditionalCheckFailedException',
  },
  {
    name: 'UpdateItem whose condition fails on a GSI table: ConditionalCheckFailedException, no ConsumedCapacity in the body',
    table: { gsi: ALL },
    preload: [item500('a', { g: s('A') })],
    request: (t) =>
      new UpdateItemCommand({
        TableName: t,
        Key: key('a'),
        UpdateExpression: 'SET g = :b',
        ConditionExpression: 'g = :c',
        ExpressionAttributeValues: { ':b': s('B'), ':c': s('C') },
        ReturnConsumedCapacity: total,
      }),
    error: 'ConditionalCheckFailedException',
  },
  {
    name: 'DeleteItem whose condition fails on a missing item: ConditionalCheckFailedException, no ConsumedCapacity in the body',
    table: hashTable,
    request: (t) => new DeleteItemCommand({ TableName: t, Key: key('missing'), ConditionExpression: 'attribute_exists(pk)', ReturnConsumedCapacity: indexes }),
    error: 'ConditionalCheckFailedException',
  },
];

// ---------------------------------------------------------------------------------------------
// Running them

async function send(client: DynamoDBClient, command: Command): Promise<Output> {
  return (await client.send(command as never)) as unknown as Output;
}

async function preload(client: DynamoDBClient, table: string, items: readonly Item[]): Promise<void> {
  for (let start = 0; start < items.length; start += 25) {
    let requests: WriteRequest[] = items.slice(start, start + 25).map((item) => ({ PutRequest: { Item: item } }));
    while (requests.length > 0) {
      const output = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
      requests = output.UnprocessedItems?.[table] ?? [];
    }
  }
}

interface PartitionsDocument {
  readonly partitions: readonly { readonly itemCount: number }[];
  readonly indexes: Readonly<Record<string, { readonly partitions: readonly { readonly itemCount: number }[] }>>;
}

async function tablePartitions(twin: TwinClients, table: string): Promise<PartitionsDocument> {
  const response = await fetch(`${twin.twin.endpoint}/dynatwin/tables/${encodeURIComponent(table)}/partitions`);
  assert.equal(response.status, 200);
  return (await response.json()) as PartitionsDocument;
}

async function setUp(twin: TwinClients, stem: string, setup: TableSetup, items: readonly Item[] | undefined): Promise<string> {
  const table = uniqueTableName(stem);
  await twin.client.send(new CreateTableCommand(createTableInput(table, setup)));
  await preload(twin.client, table, items ?? []);
  if (setup.partitions !== undefined || setup.partitionItemCounts !== undefined || setup.gsiPartitionItemCounts !== undefined) {
    const document = await tablePartitions(twin, table);
    if (setup.partitions !== undefined) assert.equal(document.partitions.length, setup.partitions, 'partitions of the table');
    if (setup.partitionItemCounts !== undefined) {
      assert.deepEqual(
        document.partitions.map((partition) => partition.itemCount),
        setup.partitionItemCounts,
        'items per partition',
      );
    }
    if (setup.gsiPartitionItemCounts !== undefined) {
      assert.deepEqual(
        document.indexes[GSI]?.partitions.map((partition) => partition.itemCount),
        setup.gsiPartitionItemCounts,
        'entries per GSI partition',
      );
    }
  }
  return table;
}

describe('capacity units: every worked example of reference §1, through the AWS SDK', () => {
  let modern: TwinClients;
  let classic: TwinClients;

  before(async () => {
    modern = await startTwinWithClients();
    classic = await startTwinWithClients({ partitionModel: 'classic' });
  });

  after(async () => {
    await modern?.close();
    await classic?.close();
  });

  test('the table holds every example (at least 35 cases)', () => {
    assert.ok(cases.length + failingCases.length >= 35, `${cases.length + failingCases.length} cases`);
    const names = [...cases, ...failingCases].map((entry) => entry.name);
    assert.equal(new Set(names).size, names.length, 'case names are unique');
  });

  for (const entry of cases) {
    test(entry.name, async () => {
      const twin = entry.classic === true ? classic : modern;
      const table = await setUp(twin, 'cu', entry.table, entry.preload);
      for (const command of entry.prepare?.(table) ?? []) await send(twin.client, command);
      const output = await send(twin.client, entry.request(table));
      assert.deepStrictEqual(output.ConsumedCapacity, entry.expected(table));
      entry.check?.(output);
    });
  }

  for (const entry of failingCases) {
    test(entry.name, async () => {
      const table = await setUp(modern, 'cu-fail', entry.table, entry.preload);
      const command = entry.request(table);
      let caught: unknown;
      try {
        await send(modern.client, command);
      } catch (error) {
        caught = error;
      }
      assert.ok(caught instanceof Error, `expected ${entry.error}, but the call succeeded`);
      assert.equal(caught.name, entry.error);
      assert.equal((caught as { ConsumedCapacity?: unknown }).ConsumedCapacity, undefined);
      // The body itself, as the wire carries it (the SDK might drop an unmodelled member).
      const operation = command.constructor.name.replace(/Command$/, '');
      const raw = await callOperation(modern.twin.endpoint, operation, JSON.stringify(command.input));
      assert.equal(raw.status, 400);
      const body = JSON.parse(raw.text) as Record<string, unknown>;
      assert.match(String(body.__type), new RegExp(`#${entry.error}$`));
      assert.ok(!('ConsumedCapacity' in body), `no ConsumedCapacity in ${raw.text}`);
    });
  }
});
