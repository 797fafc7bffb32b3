/**
 * Partitions through a running dynatwin: tables made and changed with the AWS SDK, partition maps
 * read from GET /dynatwin/tables/<table>/partitions. The seed article 001 counts under the classic
 * model, doubling on a raise and no merging on a cut, the modern counts and GSI maps (seed 000's
 * two-valued index key), size splits with their dilution, counts that follow every write,
 * persistence across a restart, the route's errors and the command-line flags.
 * Reference: /work/shared/docs/dynamodb-capacity-model.md §2 and §8(b).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  PutItemCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  type AttributeValue,
  type CreateTableCommandInput,
  type DynamoDBClient,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { parseCommandLine, UsageError } from '../src/cli.js';
import type { DynatwinOptions } from '../src/index.js';
import { hashPartitionKey } from '../src/model/key-codec.js';
import { seededRandom } from './support/random.js';
import { seedArticleTable } from './support/seeds.js';
import { startTwinWithClients, type TwinClients } from './support/twin.js';

/** The size unit of these tests: a 10-unit partition size limit is 640 KB, so loads stay small. */
const U = 64 * 1024;
const SIZE_LIMIT = 10 * U;
/** Every loaded item is exactly this big (S attributes only: names plus UTF-8 values). */
const ITEM_BYTES = 512;
const ITEMS_PER_U = U / ITEM_BYTES;

interface PartitionView {
  readonly id: number;
  readonly hashRange: [string, string];
  readonly itemCount: number;
  readonly sizeBytes: number;
  readonly readUnitsPerSecond: number;
  readonly writeUnitsPerSecond: number;
}

interface PartitionsDocument {
  readonly table: string;
  readonly partitionModel: string;
  readonly partitions: PartitionView[];
  readonly indexes: Record<string, { partitions: PartitionView[] }>;
}

type Item = Record<string, AttributeValue>;

async function fetchJson(url: string, init?: RequestInit): Promise<{ status: number; contentType: string | null; body: unknown }> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), body: JSON.parse(text) as unknown };
}

async function partitionsOf(twin: TwinClients, table: string): Promise<PartitionsDocument> {
  const { status, body } = await fetchJson(`${twin.twin.endpoint}/dynatwin/tables/${encodeURIComponent(table)}/partitions`);
  assert.equal(status, 200, JSON.stringify(body));
  const document = body as PartitionsDocument;
  assert.equal(document.table, table);
  assertTiles(document.partitions);
  for (const index of Object.values(document.indexes)) assertTiles(index.partitions);
  return document;
}

/** The hash ranges cover 00000000..ffffffff in order, without gaps or overlaps. */
function assertTiles(partitions: readonly PartitionView[]): void {
  assert.ok(partitions.length > 0);
  let expectedStart = 0;
  for (const partition of partitions) {
    const [first, last] = partition.hashRange.map((hex) => parseInt(hex, 16)) as [number, number];
    assert.equal(first, expectedStart, `partition ${partition.id} starts where the previous ended`);
    assert.ok(last >= first);
    expectedStart = last + 1;
  }
  assert.equal(expectedStart, 2 ** 32);
}

function assertClose(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) < 1e-6, `${what}: expected ${expected}, got ${actual}`);
}

/** Every partition's allocation, in hash order, against [read, write] pairs. */
function assertAllocations(partitions: readonly PartitionView[], expected: readonly (readonly [number, number])[]): void {
  assert.equal(partitions.length, expected.length, 'partition count');
  partitions.forEach((partition, position) => {
    assertClose(partition.readUnitsPerSecond, expected[position]![0], `partition ${position} read units`);
    assertClose(partition.writeUnitsPerSecond, expected[position]![1], `partition ${position} write units`);
  });
}

const times = <T>(count: number, value: T): T[] => Array.from({ length: count }, () => value);

/** Which of `partitions` owns a key hash. */
function ownerOf(partitions: readonly PartitionView[], hash: number): number {
  return partitions.findIndex((partition) => hash >= parseInt(partition.hashRange[0], 16) && hash <= parseInt(partition.hashRange[1], 16));
}

const hashOf = (key: string): number => hashPartitionKey(Buffer.from(key, 'utf8'));

/** DynamoDB's size of an item of S attributes (name bytes plus value bytes). */
function sizeOf(item: Item): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    assert.ok(value.S !== undefined, 'sizeOf handles S attributes only');
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value.S);
  }
  return bytes;
}

/** An item of exactly ITEM_BYTES under partition key `pk` (plus any extra S attributes). */
function sizedItem(pk: string, extra: Item = {}): Item {
  const item: Item = { pk: { S: pk }, ...extra };
  const padding = ITEM_BYTES - sizeOf(item) - 'pad'.length;
  assert.ok(padding > 0);
  item.pad = { S: 'x'.repeat(padding) };
  return item;
}

/** `count` distinct 10-character keys from a seeded generator, optionally only those `accept` takes. */
function randomKeys(seed: number, count: number, accept: (key: string) => boolean = () => true): string[] {
  const random = seededRandom(seed);
  const keys = new Set<string>();
  for (let attempt = 0; keys.size < count; attempt++) {
    assert.ok(attempt < 1_000_000, 'too few keys found in the wanted hash range');
    const key = 'k-' + Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0');
    if (accept(key)) keys.add(key);
  }
  return [...keys];
}

/** BatchWriteItem, 25 puts a request, resending anything left unprocessed. */
async function load(client: DynamoDBClient, table: string, items: readonly Item[]): Promise<void> {
  for (let at = 0; at < items.length; at += 25) {
    let requests: WriteRequest[] = items.slice(at, at + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      assert.ok(attempt < 50, 'BatchWriteItem kept leaving items unprocessed');
      const answer = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
      requests = answer.UnprocessedItems?.[table] ?? [];
    }
  }
}

async function describeTable(client: DynamoDBClient, table: string) {
  return (await client.send(new DescribeTableCommand({ TableName: table }))).Table!;
}

/** The partitions' counts and sizes add up to DescribeTable's ItemCount and TableSizeBytes. */
async function assertTotalsMatchTable(twin: TwinClients, table: string, document: PartitionsDocument): Promise<void> {
  const description = await describeTable(twin.client, table);
  const sum = (key: 'itemCount' | 'sizeBytes') => document.partitions.reduce((total, partition) => total + partition[key], 0);
  assert.equal(sum('itemCount'), description.ItemCount);
  assert.equal(sum('sizeBytes'), description.TableSizeBytes);
  for (const gsi of description.GlobalSecondaryIndexes ?? []) {
    const partitions = document.indexes[gsi.IndexName!]!.partitions;
    assert.equal(partitions.reduce((total, partition) => total + partition.itemCount, 0), gsi.ItemCount, `${gsi.IndexName} ItemCount`);
    assert.equal(partitions.reduce((total, partition) => total + partition.sizeBytes, 0), gsi.IndexSizeBytes, `${gsi.IndexName} IndexSizeBytes`);
  }
}

function provisionedTable(name: string, read: number, write: number, extra: Partial<CreateTableCommandInput> = {}): CreateTableCommandInput {
  return {
    TableName: name,
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    ProvisionedThroughput: { ReadCapacityUnits: read, WriteCapacityUnits: write },
    ...extra,
  };
}

/** Seed article 000's design (an on-demand GSI on the two-valued `status`), keyed by `pk` like these tests' items. */
function statusIndexedTable(name: string): CreateTableCommandInput {
  return seedArticleTable(name, { key: 'pk', index: 'by-status' });
}

async function withTwin(options: DynatwinOptions, run: (twin: TwinClients) => Promise<void>): Promise<void> {
  const twin = await startTwinWithClients(options);
  try {
    await run(twin);
  } finally {
    await twin.close();
  }
}

const classic: DynatwinOptions = { partitionModel: 'classic', partitionSizeLimitBytes: SIZE_LIMIT };

describe('partitions API: seed article 001 under the classic model', () => {
  test('5,000 RCU / 500 WCU gives 3 partitions, each with a third of the throughput', () =>
    withTwin(classic, async (twin) => {
      await twin.client.send(new CreateTableCommand(provisionedTable('article-001', 5000, 500)));
      const document = await partitionsOf(twin, 'article-001');
      assert.equal(document.partitionModel, 'classic');
      assert.deepEqual(document.indexes, {});
      assertAllocations(document.partitions, times(3, [5000 / 3, 500 / 3] as const));
      assert.deepEqual(
        document.partitions.map((partition) => partition.hashRange),
        [
          ['00000000', '55555554'],
          ['55555555', 'aaaaaaa9'],
          ['aaaaaaaa', 'ffffffff'],
        ],
      );
      assert.deepEqual(document.partitions.map((partition) => [partition.itemCount, partition.sizeBytes]), times(3, [0, 0]));
    }));

  test('35 units of data at a 10-unit size limit gives 4 partitions', () =>
    withTwin(classic, async (twin) => {
      // 1,000 / 600: 0.33 + 0.6 of a partition, so the table starts with one.
      await twin.client.send(new CreateTableCommand(provisionedTable('bulk-35', 1000, 600)));
      assert.equal((await partitionsOf(twin, 'bulk-35')).partitions.length, 1);
      const items = randomKeys(35, 35 * ITEMS_PER_U).map((key) => sizedItem(key));
      await load(twin.client, 'bulk-35', items);

      const document = await partitionsOf(twin, 'bulk-35');
      assert.equal(document.partitions.length, 4);
      for (const partition of document.partitions) {
        assert.ok(partition.sizeBytes <= SIZE_LIMIT, `partition ${partition.id} holds ${partition.sizeBytes} bytes, over the limit`);
        assert.ok(partition.itemCount > 0);
      }
      // Two rounds of splits: each partition has a quarter of the table's throughput.
      assertAllocations(document.partitions, times(4, [250, 150] as const));
      await assertTotalsMatchTable(twin, 'bulk-35', document);
      const description = await describeTable(twin.client, 'bulk-35');
      assert.equal(description.ItemCount, items.length);
      assert.equal(description.TableSizeBytes, 35 * U);
      // Each partition counts exactly the loaded keys whose hash it owns.
      const expected = document.partitions.map(() => 0);
      for (const item of items) expected[ownerOf(document.partitions, hashOf(item.pk!.S!))]!++;
      assert.deepEqual(document.partitions.map((partition) => partition.itemCount), expected);
    }));

  test('8 units of data with 5,000 RCU / 500 WCU gives 3 partitions', () =>
    withTwin(classic, async (twin) => {
      await twin.client.send(new CreateTableCommand(provisionedTable('bulk-8', 5000, 500)));
      await load(twin.client, 'bulk-8', randomKeys(8, 8 * ITEMS_PER_U).map((key) => sizedItem(key)));
      const document = await partitionsOf(twin, 'bulk-8');
      assertAllocations(document.partitions, times(3, [5000 / 3, 500 / 3] as const));
      await assertTotalsMatchTable(twin, 'bulk-8', document);
      assert.equal((await describeTable(twin.client, 'bulk-8')).TableSizeBytes, 8 * U);
    }));
});

describe('partitions API: throughput changes', () => {
  test('raising RCU past what 4 partitions serve doubles them; lowering it never merges', () =>
    withTwin({ partitionModel: 'classic' }, async (twin) => {
      await twin.client.send(new CreateTableCommand(provisionedTable('doubling', 5000, 2000)));
      assertAllocations((await partitionsOf(twin, 'doubling')).partitions, times(4, [1250, 500] as const));

      await twin.client.send(new UpdateTableCommand({ TableName: 'doubling', ProvisionedThroughput: { ReadCapacityUnits: 8000, WriteCapacityUnits: 2000 } }));
      const doubled = await partitionsOf(twin, 'doubling');
      assertAllocations(doubled.partitions, times(8, [1000, 250] as const));
      assert.deepEqual(
        doubled.partitions.map((partition) => partition.hashRange[0]),
        ['00000000', '20000000', '40000000', '60000000', '80000000', 'a0000000', 'c0000000', 'e0000000'],
      );

      await twin.client.send(new UpdateTableCommand({ TableName: 'doubling', ProvisionedThroughput: { ReadCapacityUnits: 1000, WriteCapacityUnits: 400 } }));
      const lowered = await partitionsOf(twin, 'doubling');
      assertAllocations(lowered.partitions, times(8, [125, 50] as const));
      assert.deepEqual(
        lowered.partitions.map((partition) => partition.hashRange),
        doubled.partitions.map((partition) => partition.hashRange),
      );
    }));
});

describe('partitions API: the modern model (default)', () => {
  test('an on-demand table has 4 partitions of 3,000 / 1,000; provisioned 5,000 / 500 has 2', () =>
    withTwin({}, async (twin) => {
      await twin.client.send(
        new CreateTableCommand({
          TableName: 'on-demand',
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      const onDemand = await partitionsOf(twin, 'on-demand');
      assert.equal(onDemand.partitionModel, 'modern');
      assertAllocations(onDemand.partitions, times(4, [3000, 1000] as const));

      await twin.client.send(new CreateTableCommand(provisionedTable('provisioned', 5000, 500)));
      assertAllocations((await partitionsOf(twin, 'provisioned')).partitions, times(2, [2500, 250] as const));
    }));

  test('GSIs have their own maps: a provisioned GSI by its own throughput, an on-demand GSI 4 partitions', () =>
    withTwin({}, async (twin) => {
      const gsi = (read?: number, write?: number) => ({
        IndexName: 'by-status',
        KeySchema: [{ AttributeName: 'status', KeyType: 'HASH' as const }],
        Projection: { ProjectionType: 'KEYS_ONLY' as const },
        ...(read === undefined ? {} : { ProvisionedThroughput: { ReadCapacityUnits: read, WriteCapacityUnits: write } }),
      });
      const attributes = [
        { AttributeName: 'pk', AttributeType: 'S' as const },
        { AttributeName: 'status', AttributeType: 'S' as const },
      ];
      await twin.client.send(
        new CreateTableCommand(provisionedTable('gsi-provisioned', 5000, 500, { AttributeDefinitions: attributes, GlobalSecondaryIndexes: [gsi(7000, 100)] })),
      );
      const provisioned = await partitionsOf(twin, 'gsi-provisioned');
      assertAllocations(provisioned.partitions, times(2, [2500, 250] as const));
      assert.deepEqual(Object.keys(provisioned.indexes), ['by-status']);
      // max(7,000 / 3,000, 100 / 1,000) → 3 partitions.
      assertAllocations(provisioned.indexes['by-status']!.partitions, times(3, [7000 / 3, 100 / 3] as const));

      await twin.client.send(
        new CreateTableCommand({
          TableName: 'gsi-on-demand',
          AttributeDefinitions: attributes,
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
          GlobalSecondaryIndexes: [gsi()],
        }),
      );
      assertAllocations((await partitionsOf(twin, 'gsi-on-demand')).indexes['by-status']!.partitions, times(4, [3000, 1000] as const));
    }));

  test('seed 000: a GSI keyed on a two-valued attribute puts every entry of one value on one partition', () =>
    withTwin({}, async (twin) => {
      await twin.client.send(new CreateTableCommand(statusIndexedTable('two-valued')));
      const keys = randomKeys(0, 120);
      const statusOf = (position: number): string => (position < 90 ? 'new' : 'used');
      await load(twin.client, 'two-valued', keys.map((key, position) => sizedItem(key, { status: { S: statusOf(position) } })));

      const document = await partitionsOf(twin, 'two-valued');
      const index = document.indexes['by-status']!.partitions;
      assert.equal(index.length, 4);
      const newOwner = ownerOf(index, hashOf('new'));
      const usedOwner = ownerOf(index, hashOf('used'));
      const expected = [0, 0, 0, 0];
      expected[newOwner] += 90;
      expected[usedOwner] += 30;
      assert.deepEqual(index.map((partition) => partition.itemCount), expected);
      assert.equal(index[newOwner]!.itemCount, newOwner === usedOwner ? 120 : 90);
      // The base table spreads the same items over all four partitions.
      assert.ok(document.partitions.every((partition) => partition.itemCount > 0));
      await assertTotalsMatchTable(twin, 'two-valued', document);
    }));
});

describe('partitions API: size splits', () => {
  /** Keys whose hash falls in the first quarter of the hash space (partition 0 of a 4-partition table). */
  const firstQuarter = (key: string): boolean => hashOf(key) < 2 ** 30;

  test('a partition past the limit splits in two with half the share each: three at 1,250 / 500, two at 625 / 250', () =>
    withTwin(classic, async (twin) => {
      await twin.client.send(new CreateTableCommand(provisionedTable('dilution', 5000, 2000)));
      const items = randomKeys(4, 11 * ITEMS_PER_U, firstQuarter).map((key) => sizedItem(key));
      await load(twin.client, 'dilution', items);

      const document = await partitionsOf(twin, 'dilution');
      assertAllocations(document.partitions, [[625, 250], [625, 250], [1250, 500], [1250, 500], [1250, 500]]);
      const [low, high, ...rest] = document.partitions;
      // The two children divide the old first quarter, and its data, between them.
      assert.equal(low!.hashRange[0], '00000000');
      assert.equal(high!.hashRange[1], '3fffffff');
      assert.equal(low!.itemCount + high!.itemCount, items.length);
      assert.ok(low!.sizeBytes <= SIZE_LIMIT && high!.sizeBytes <= SIZE_LIMIT);
      assert.ok(low!.itemCount > 0 && high!.itemCount > 0);
      assert.deepEqual(rest.map((partition) => partition.hashRange[0]), ['40000000', '80000000', 'c0000000']);
      assert.deepEqual(rest.map((partition) => partition.itemCount), [0, 0, 0]);
      await assertTotalsMatchTable(twin, 'dilution', document);

      // 7,000 / 2,000 needs 4.33 partitions: five would do if shares were even, but each of the
      // three undiluted partitions would get 1,750 / 500 (1.08 partitions' worth), so they double.
      await twin.client.send(new UpdateTableCommand({ TableName: 'dilution', ProvisionedThroughput: { ReadCapacityUnits: 7000, WriteCapacityUnits: 2000 } }));
      const doubled = await partitionsOf(twin, 'dilution');
      assertAllocations(doubled.partitions, times(10, [700, 200] as const));
      await assertTotalsMatchTable(twin, 'dilution', doubled);
    }));

  test('one partition key past the limit stays on one partition (no split can divide it) until another key joins it', () =>
    withTwin(classic, async (twin) => {
      await twin.client.send(
        new CreateTableCommand(
          provisionedTable('hot-key', 5000, 2000, {
            AttributeDefinitions: [
              { AttributeName: 'pk', AttributeType: 'S' },
              { AttributeName: 'sk', AttributeType: 'S' },
            ],
            KeySchema: [
              { AttributeName: 'pk', KeyType: 'HASH' },
              { AttributeName: 'sk', KeyType: 'RANGE' },
            ],
          }),
        ),
      );
      const hot = 'hot';
      const items = Array.from({ length: 12 * ITEMS_PER_U }, (_, position) => sizedItem(hot, { sk: { S: String(position).padStart(6, '0') } }));
      await load(twin.client, 'hot-key', items);

      const before = await partitionsOf(twin, 'hot-key');
      assertAllocations(before.partitions, times(4, [1250, 500] as const));
      const owner = ownerOf(before.partitions, hashOf(hot));
      assert.equal(before.partitions[owner]!.itemCount, items.length);
      assert.equal(before.partitions[owner]!.sizeBytes, 12 * U);

      // A second key in the same quarter: now the data divides, with each key on its own side.
      const [quarterStart, quarterEnd] = before.partitions[owner]!.hashRange.map((hex) => parseInt(hex, 16)) as [number, number];
      const [other] = randomKeys(9, 1, (key) => hashOf(key) >= quarterStart && hashOf(key) <= quarterEnd);
      await twin.client.send(new PutItemCommand({ TableName: 'hot-key', Item: sizedItem(other!, { sk: { S: 'only' } }) }));
      const after = await partitionsOf(twin, 'hot-key');
      assert.equal(after.partitions.length, 5);
      const hotOwner = after.partitions[ownerOf(after.partitions, hashOf(hot))]!;
      const otherOwner = after.partitions[ownerOf(after.partitions, hashOf(other!))]!;
      assert.notEqual(hotOwner.id, otherOwner.id);
      assert.equal(hotOwner.itemCount, items.length);
      assert.equal(otherOwner.itemCount, 1);
      for (const child of [hotOwner, otherOwner]) {
        assertClose(child.readUnitsPerSecond, 625, 'child read units');
        assertClose(child.writeUnitsPerSecond, 250, 'child write units');
      }
      await assertTotalsMatchTable(twin, 'hot-key', after);
    }));

  test('a GSI key past the limit stays whole; an index key change into its partition splits it with exact counts', () =>
    withTwin({ partitionSizeLimitBytes: SIZE_LIMIT }, async (twin) => {
      const table = 'hot-gsi-key';
      await twin.client.send(new CreateTableCommand(statusIndexedTable(table)));
      const keys = randomKeys(11, 11 * ITEMS_PER_U);
      await load(twin.client, table, keys.map((key) => sizedItem(key, { status: { S: 'new' } })));
      const before = await partitionsOf(twin, table);
      const index = before.indexes['by-status']!.partitions;
      assert.equal(index.length, 4);
      const newOwner = ownerOf(index, hashOf('new'));
      assert.equal(index[newOwner]!.itemCount, keys.length);
      assert.ok(index[newOwner]!.sizeBytes > SIZE_LIMIT);
      await assertTotalsMatchTable(twin, table, before);

      // Another status value whose hash lands on the same GSI partition: one item moves to it.
      let other = '';
      for (let candidate = 0; other === ''; candidate++) {
        assert.ok(candidate < 100_000, 'no status value found on the partition of new');
        if (ownerOf(index, hashOf(`status-${candidate}`)) === newOwner) other = `status-${candidate}`;
      }
      await twin.client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: { pk: { S: keys[0]! } },
          UpdateExpression: 'SET #status = :other',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':other': { S: other } },
        }),
      );
      const after = await partitionsOf(twin, table);
      const split = after.indexes['by-status']!.partitions;
      assert.equal(split.length, 5);
      assert.notEqual(ownerOf(split, hashOf('new')), ownerOf(split, hashOf(other)));
      assert.equal(split[ownerOf(split, hashOf('new'))]!.itemCount, keys.length - 1);
      assert.equal(split[ownerOf(split, hashOf(other))]!.itemCount, 1);
      await assertTotalsMatchTable(twin, table, after);
    }));
});

describe('partitions API: counts follow every write', () => {
  test('deletes and updates lower itemCount and sizeBytes; GSI counts follow index key changes', () =>
    withTwin({}, async (twin) => {
      const table = 'counted';
      await twin.client.send(new CreateTableCommand(statusIndexedTable(table)));
      // What the table should hold, kept beside it: per-partition expectations come from it.
      const model = new Map<string, Item>();
      const keys = randomKeys(5, 40);
      keys.forEach((key, position) => model.set(key, sizedItem(key, { status: { S: position < 25 ? 'new' : 'used' } })));
      await load(twin.client, table, [...model.values()]);

      const check = async (): Promise<PartitionsDocument> => {
        const document = await partitionsOf(twin, table);
        const tableExpected = document.partitions.map(() => ({ itemCount: 0, sizeBytes: 0 }));
        const indexPartitions = document.indexes['by-status']!.partitions;
        const indexExpected = indexPartitions.map(() => ({ itemCount: 0, sizeBytes: 0 }));
        for (const item of model.values()) {
          const tableSlot = tableExpected[ownerOf(document.partitions, hashOf(item.pk!.S!))]!;
          tableSlot.itemCount++;
          tableSlot.sizeBytes += sizeOf(item);
          if (item.status === undefined) continue;
          const indexSlot = indexExpected[ownerOf(indexPartitions, hashOf(item.status.S!))]!;
          indexSlot.itemCount++;
          indexSlot.sizeBytes += sizeOf(item);
        }
        const figures = (partitions: readonly PartitionView[]) => partitions.map(({ itemCount, sizeBytes }) => ({ itemCount, sizeBytes }));
        assert.deepEqual(figures(document.partitions), tableExpected, 'table partitions');
        assert.deepEqual(figures(indexPartitions), indexExpected, 'GSI partitions');
        await assertTotalsMatchTable(twin, table, document);
        return document;
      };
      const totals = (document: PartitionsDocument) => ({
        items: document.partitions.reduce((sum, partition) => sum + partition.itemCount, 0),
        bytes: document.partitions.reduce((sum, partition) => sum + partition.sizeBytes, 0),
      });
      const initial = totals(await check());
      assert.deepEqual(initial, { items: 40, bytes: 40 * ITEM_BYTES });

      // Deletes: five 'new' items go.
      for (const key of keys.slice(0, 5)) {
        await twin.client.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: key } } }));
        model.delete(key);
      }
      const afterDeletes = totals(await check());
      assert.deepEqual(afterDeletes, { items: 35, bytes: 35 * ITEM_BYTES });

      // An update that shrinks an item: its partition's sizeBytes goes down, the count stays.
      const shrunk = keys[10]!;
      await twin.client.send(new UpdateItemCommand({ TableName: table, Key: { pk: { S: shrunk } }, UpdateExpression: 'REMOVE #pad', ExpressionAttributeNames: { '#pad': 'pad' } }));
      const { pad: _removed, ...withoutPad } = model.get(shrunk)!;
      model.set(shrunk, withoutPad);
      const afterShrink = totals(await check());
      assert.equal(afterShrink.items, 35);
      assert.ok(afterShrink.bytes < afterDeletes.bytes);

      // Index key changes: three items move from 'new' to 'used', one leaves the (sparse) index.
      for (const key of keys.slice(5, 8)) {
        await twin.client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: { pk: { S: key } },
            UpdateExpression: 'SET #status = :used',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':used': { S: 'used' } },
          }),
        );
        model.set(key, { ...model.get(key)!, status: { S: 'used' } });
      }
      const sparse = keys[30]!;
      await twin.client.send(
        new UpdateItemCommand({ TableName: table, Key: { pk: { S: sparse } }, UpdateExpression: 'REMOVE #status', ExpressionAttributeNames: { '#status': 'status' } }),
      );
      const { status: _status, ...unindexed } = model.get(sparse)!;
      model.set(sparse, unindexed);
      const document = await check();
      const index = document.indexes['by-status']!.partitions;
      const count = (value: string) => index[ownerOf(index, hashOf(value))]!.itemCount;
      if (ownerOf(index, hashOf('new')) !== ownerOf(index, hashOf('used'))) {
        assert.equal(count('new'), 25 - 5 - 3);
        assert.equal(count('used'), 15 + 3 - 1);
      }
    }));
});

describe('partitions API: persistence', () => {
  const directories: string[] = [];
  after(() => {
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  test('splits and a lowered throughput survive a restart (LMDB)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dynatwin-partitions-'));
    directories.push(dataDir);
    const options: DynatwinOptions = { ...classic, dataDir };
    const table = 'persisted';
    let before: PartitionsDocument | undefined;
    await withTwin(options, async (twin) => {
      await twin.client.send(
        new CreateTableCommand(
          provisionedTable(table, 5000, 2000, {
            AttributeDefinitions: [
              { AttributeName: 'pk', AttributeType: 'S' },
              { AttributeName: 'status', AttributeType: 'S' },
            ],
            GlobalSecondaryIndexes: [
              {
                IndexName: 'by-status',
                KeySchema: [{ AttributeName: 'status', KeyType: 'HASH' }],
                Projection: { ProjectionType: 'KEYS_ONLY' },
                ProvisionedThroughput: { ReadCapacityUnits: 3000, WriteCapacityUnits: 1000 },
              },
            ],
          }),
        ),
      );
      const items = randomKeys(6, 11 * ITEMS_PER_U, (key) => hashOf(key) < 2 ** 30).map((key, position) =>
        sizedItem(key, position % 2 === 0 ? { status: { S: 'new' } } : {}),
      );
      await load(twin.client, table, items);
      assert.equal((await partitionsOf(twin, table)).partitions.length, 5);
      await twin.client.send(new UpdateTableCommand({ TableName: table, ProvisionedThroughput: { ReadCapacityUnits: 1000, WriteCapacityUnits: 400 } }));
      before = await partitionsOf(twin, table);
      assertAllocations(before.partitions, [[125, 50], [125, 50], [250, 100], [250, 100], [250, 100]]);
      assertAllocations(before.indexes['by-status']!.partitions, times(2, [1500, 500] as const));
      await assertTotalsMatchTable(twin, table, before);
    });

    await withTwin(options, async (twin) => {
      const reopened = await partitionsOf(twin, table);
      // The layout and the data survive; what admission saw (consumption, burst) starts afresh.
      assert.ok(before !== undefined);
      assert.deepEqual(layoutOf(reopened), layoutOf(before));
      const description = await describeTable(twin.client, table);
      assert.deepEqual([description.ProvisionedThroughput?.ReadCapacityUnits, description.ProvisionedThroughput?.WriteCapacityUnits], [1000, 400]);
      await assertTotalsMatchTable(twin, table, reopened);
    });
  });
});

describe('partitions API: errors', () => {
  test('unknown table → 404, unknown /dynatwin path → 404, POST to the partitions path → 405, all JSON', () =>
    withTwin({}, async (twin) => {
      const endpoint = twin.twin.endpoint;
      const missing = await fetchJson(`${endpoint}/dynatwin/tables/no-such-table/partitions`);
      assert.equal(missing.status, 404);
      assert.match(missing.contentType ?? '', /^application\/json/);
      assert.equal(typeof (missing.body as { error?: unknown }).error, 'string');
      assert.match((missing.body as { error: string }).error, /no-such-table/);

      const unknown = await fetchJson(`${endpoint}/dynatwin/no-such-thing`);
      assert.equal(unknown.status, 404);
      assert.equal(typeof (unknown.body as { error?: unknown }).error, 'string');

      await twin.client.send(new CreateTableCommand(provisionedTable('posted', 10, 10)));
      const posted = await fetchJson(`${endpoint}/dynatwin/tables/posted/partitions`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      assert.equal(posted.status, 405);
      assert.equal(typeof (posted.body as { error?: unknown }).error, 'string');
    }));
});

describe('partitions API: command line', () => {
  test('--partition-model classic --partition-size-limit 10MB parse; bad values are usage errors', () => {
    const options = parseCommandLine(['--partition-model', 'classic', '--partition-size-limit', '10MB']);
    assert.ok(typeof options === 'object');
    assert.equal(options.partitionModel, 'classic');
    assert.equal(options.partitionSizeLimitBytes, 10 * 1024 ** 2);

    const defaults = parseCommandLine([]);
    assert.ok(typeof defaults === 'object');
    assert.equal(defaults.partitionModel, 'modern');
    assert.equal(defaults.partitionSizeLimitBytes, 10 * 1024 ** 3);

    const sizes: [string, number][] = [
      ['4096', 4096],
      ['512KB', 512 * 1024],
      ['1gb', 1024 ** 3],
      ['64B', 64],
    ];
    for (const [text, bytes] of sizes) {
      const parsed = parseCommandLine(['--partition-size-limit', text]);
      assert.ok(typeof parsed === 'object');
      assert.equal(parsed.partitionSizeLimitBytes, bytes, text);
    }
    const modern = parseCommandLine(['--partition-model', 'modern']);
    assert.ok(typeof modern === 'object' && modern.partitionModel === 'modern');

    for (const bad of [['--partition-model', 'adaptive'], ['--partition-model', 'CLASSIC'], ['--partition-model']]) {
      assert.throws(() => parseCommandLine(bad), UsageError, bad.join(' '));
    }
    for (const bad of ['0', '0MB', '-5MB', 'ten', '10XB', '10 M', '']) {
      assert.throws(() => parseCommandLine(['--partition-size-limit', bad]), UsageError, `--partition-size-limit '${bad}'`);
    }
  });
});

/** A partitions document without admission's runtime figures: what a restart must keep. */
function layoutOf(document: Awaited<ReturnType<typeof partitionsOf>>): unknown {
  const keep = (partitions: readonly Record<string, unknown>[]) =>
    partitions.map(({ id, hashRange, itemCount, sizeBytes, readUnitsPerSecond, writeUnitsPerSecond }) => ({ id, hashRange, itemCount, sizeBytes, readUnitsPerSecond, writeUnitsPerSecond }));
  return {
    table: document.table,
    partitionModel: document.partitionModel,
    partitions: keep(document.partitions as unknown as Record<string, unknown>[]),
    indexes: Object.fromEntries(Object.entries(document.indexes).map(([name, index]) => [name, keep(index.partitions as unknown as Record<string, unknown>[])])),
  };
}
