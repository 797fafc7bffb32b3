/**
 * Indexes changed online and index limits, through the AWS SDK: UpdateTable's GSI Create (a
 * background backfill of 10,000 items, writes racing it) and Delete, with DynamoDB's limits and
 * texts; the LSI item collection limit (configured small) with ReturnItemCollectionMetrics; and
 * GSI propagation lag on a manual clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  DeleteTableCommand,
  DescribeTableCommand,
  QueryCommand,
  ScanCommand,
  UpdateTableCommand,
  type UpdateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ManualClock } from '../src/clock.js';
import { attributes, createUniqueTable, globalIndex, keySchema, localIndex } from './support/tables.js';
import { expectDynamoError, startTwinWithClients, type TwinClients } from './support/twin.js';

const VALIDATION = 'ValidationException';
const LIMIT = 'LimitExceededException';
const INVALID = 'One or more parameter values were invalid: ';
const ONE_ONLINE_INDEX = 'Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table';

const HASH_TABLE = { AttributeDefinitions: attributes({ id: 'S' }), KeySchema: keySchema('id') };

describe('indexes changed online', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients();
  });
  after(async () => {
    await twin.close();
  });

  const update = (input: UpdateTableCommandInput) => twin.client.send(new UpdateTableCommand(input));
  const describeTable = async (name: string) => (await twin.client.send(new DescribeTableCommand({ TableName: name }))).Table!;

  async function waitForIndex(table: string, index: string, until: (status: string | undefined) => boolean): Promise<void> {
    const deadline = Date.now() + 120_000; // a bound on a hang, not a speed test
    for (;;) {
      const gsi = (await describeTable(table)).GlobalSecondaryIndexes?.find((candidate) => candidate.IndexName === index);
      if (until(gsi?.IndexStatus)) return;
      assert.ok(Date.now() < deadline, `index ${index} still ${gsi?.IndexStatus}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async function scanAll(table: string, index?: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, never> | undefined;
    do {
      const page = await twin.client.send(new ScanCommand({ TableName: table, IndexName: index, ExclusiveStartKey: start }));
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey as Record<string, never> | undefined;
    } while (start !== undefined);
    return items;
  }

  test('a GSI created on a table of 10,000 items is backfilled in the background, then ACTIVE with every item indexed', async () => {
    // The load below writes 10,000 items as fast as the client can: more than a new on-demand
    // table's 4,000 WCU/s, which DynamoDB would throttle too. Pre-warm the table for the bulk load,
    // as one would on DynamoDB, so the suite tests the backfill and not the capacity model.
    const table = await createUniqueTable(twin.client, 'backfill', { ...HASH_TABLE, WarmThroughput: { WriteUnitsPerSecond: 40_000, ReadUnitsPerSecond: 12_000 } });
    const ids = Array.from({ length: 10_000 }, (_, index) => `item-${index}`);
    // Every tenth item lacks the new index key: the index is sparse.
    const itemOf = (id: string, index: number) => (index % 10 === 9 ? { id, n: index } : { id, grp: `g${index % 100}`, n: index });
    const batches: Promise<unknown>[] = [];
    for (let start = 0; start < ids.length; start += 25) {
      const requests = ids.slice(start, start + 25).map((id, offset) => ({ PutRequest: { Item: itemOf(id, start + offset) } }));
      batches.push(twin.documentClient.send(new BatchWriteCommand({ RequestItems: { [table]: requests } })));
      if (batches.length === 16) await Promise.all(batches.splice(0));
    }
    await Promise.all(batches);

    const answer = await update({
      TableName: table,
      AttributeDefinitions: [{ AttributeName: 'grp', AttributeType: 'S' }],
      GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'by-grp', KeySchema: [{ AttributeName: 'grp', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } } }],
    });
    assert.equal(answer.TableDescription?.TableStatus, 'UPDATING');
    const created = answer.TableDescription?.GlobalSecondaryIndexes?.[0];
    assert.equal(created?.IndexStatus, 'CREATING');
    assert.equal(created?.Backfilling, true);
    assert.deepEqual(answer.TableDescription?.AttributeDefinitions?.map((definition) => definition.AttributeName), ['id', 'grp']);
    await expectDynamoError(
      update({
        TableName: table,
        AttributeDefinitions: [{ AttributeName: 'n', AttributeType: 'N' }],
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'by-n', KeySchema: [{ AttributeName: 'n', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } } }],
      }),
      LIMIT,
      ONE_ONLINE_INDEX,
    );
    await expectDynamoError(
      twin.client.send(new DeleteTableCommand({ TableName: table })),
      'ResourceInUseException',
      'Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, updated, or deleted.',
    );

    // Writes while the backfill runs: moves, removals, deletes and new items, on both sides of its cursor.
    const writes: Promise<unknown>[] = [];
    for (let index = 0; index < 10_000; index += 97) {
      const id = ids[index]!;
      if (index % 3 === 0) writes.push(twin.documentClient.send(new UpdateCommand({ TableName: table, Key: { id }, UpdateExpression: 'SET grp = :g', ExpressionAttributeValues: { ':g': 'moved' } })));
      else if (index % 3 === 1) writes.push(twin.documentClient.send(new UpdateCommand({ TableName: table, Key: { id }, UpdateExpression: 'REMOVE grp' })));
      else writes.push(twin.documentClient.send(new DeleteCommand({ TableName: table, Key: { id } })));
      writes.push(twin.documentClient.send(new PutCommand({ TableName: table, Item: { id: `new-${index}`, grp: 'new' } })));
    }
    await Promise.all(writes);

    await waitForIndex(table, 'by-grp', (status) => status === 'ACTIVE');
    const described = await describeTable(table);
    const gsi = described.GlobalSecondaryIndexes![0]!;
    assert.equal(gsi.Backfilling, undefined);
    const tableItems = await scanAll(table);
    const expected = tableItems.filter((item) => item.grp !== undefined);
    assert.equal(gsi.ItemCount, expected.length);
    const indexed = await scanAll(table, 'by-grp');
    const canonical = (items: Record<string, unknown>[]) => items.map((item) => JSON.stringify(item, Object.keys(item).sort())).sort();
    assert.deepEqual(canonical(indexed), canonical(expected));
    const moved = await twin.client.send(new QueryCommand({ TableName: table, IndexName: 'by-grp', KeyConditionExpression: 'grp = :g', ExpressionAttributeValues: { ':g': { S: 'moved' } } }));
    assert.equal(moved.Count, expected.filter((item) => (item.grp as { S: string }).S === 'moved').length);
  });

  test('a deleted GSI is DELETING, then gone with its entries and the attribute definition only it used', async () => {
    const table = await createUniqueTable(twin.client, 'drop-index', {
      AttributeDefinitions: attributes({ id: 'S', a: 'S' }),
      KeySchema: keySchema('id'),
      GlobalSecondaryIndexes: [globalIndex('by-a', 'a')],
    });
    for (let index = 0; index < 600; index++) await twin.documentClient.send(new PutCommand({ TableName: table, Item: { id: `i${index}`, a: 'x' } }));
    const answer = await update({ TableName: table, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'by-a' } }] });
    assert.equal(answer.TableDescription?.GlobalSecondaryIndexes?.[0]?.IndexStatus, 'DELETING');
    await waitForIndex(table, 'by-a', (status) => status === undefined);
    const described = await describeTable(table);
    assert.equal(described.GlobalSecondaryIndexes, undefined);
    assert.deepEqual(described.AttributeDefinitions, [{ AttributeName: 'id', AttributeType: 'S' }]);
    await expectDynamoError(
      twin.client.send(new QueryCommand({ TableName: table, IndexName: 'by-a', KeyConditionExpression: 'a = :a', ExpressionAttributeValues: { ':a': { S: 'x' } } })),
      VALIDATION,
      'The table does not have the specified index: by-a',
    );
    // Re-created under the same name, the index is built afresh from the table.
    await update({
      TableName: table,
      AttributeDefinitions: [{ AttributeName: 'a', AttributeType: 'S' }],
      GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'by-a', KeySchema: [{ AttributeName: 'a', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } } }],
    });
    await waitForIndex(table, 'by-a', (status) => status === 'ACTIVE');
    assert.equal((await describeTable(table)).GlobalSecondaryIndexes![0]!.ItemCount, 600);
  });

  test('a GSI may be deleted while it is backfilled', async () => {
    const table = await createUniqueTable(twin.client, 'drop-backfilling', HASH_TABLE);
    for (let start = 0; start < 3000; start += 25) {
      const requests = Array.from({ length: 25 }, (_, offset) => ({ PutRequest: { Item: { id: `i${start + offset}`, a: 'x' } } }));
      await twin.documentClient.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
    }
    await update({
      TableName: table,
      AttributeDefinitions: [{ AttributeName: 'a', AttributeType: 'S' }],
      GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'by-a', KeySchema: [{ AttributeName: 'a', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } } }],
    });
    const answer = await update({ TableName: table, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'by-a' } }] });
    assert.equal(answer.TableDescription?.GlobalSecondaryIndexes?.[0]?.IndexStatus, 'DELETING');
    assert.equal(answer.TableDescription?.GlobalSecondaryIndexes?.[0]?.Backfilling, undefined);
    await waitForIndex(table, 'by-a', (status) => status === undefined);
    await twin.client.send(new DeleteTableCommand({ TableName: table }));
  });

  test("UpdateTable's index rules and texts", async () => {
    const table = await createUniqueTable(twin.client, 'index-rules', {
      AttributeDefinitions: attributes({ pk: 'S', sk: 'S', g: 'S' }),
      KeySchema: keySchema('pk', 'sk'),
      GlobalSecondaryIndexes: [globalIndex('gsi', 'g')],
      LocalSecondaryIndexes: [localIndex('lsi', 'pk', 'g')],
    });
    const createOf = (name: string, attribute = 'x') => ({ Create: { IndexName: name, KeySchema: [{ AttributeName: attribute, KeyType: 'HASH' as const }], Projection: { ProjectionType: 'ALL' as const } } });
    const definitions = [{ AttributeName: 'x', AttributeType: 'S' as const }];
    await expectDynamoError(update({ TableName: table, AttributeDefinitions: definitions, GlobalSecondaryIndexUpdates: [createOf('one'), createOf('two')] }), LIMIT, ONE_ONLINE_INDEX);
    await expectDynamoError(
      update({ TableName: table, AttributeDefinitions: definitions, GlobalSecondaryIndexUpdates: [createOf('one'), { Delete: { IndexName: 'gsi' } }] }),
      LIMIT,
      ONE_ONLINE_INDEX,
    );
    await expectDynamoError(update({ TableName: table, GlobalSecondaryIndexUpdates: [createOf('one')] }), VALIDATION, INVALID + 'AttributeDefinitions is not specified for index: one');
    await expectDynamoError(update({ TableName: table, AttributeDefinitions: definitions, GlobalSecondaryIndexUpdates: [createOf('gsi')] }), VALIDATION, 'Attempting to create an index which already exists');
    await expectDynamoError(update({ TableName: table, AttributeDefinitions: definitions, GlobalSecondaryIndexUpdates: [createOf('lsi')] }), VALIDATION, 'Attempting to create an index which already exists');
    await expectDynamoError(
      update({ TableName: table, AttributeDefinitions: definitions, GlobalSecondaryIndexUpdates: [createOf('one', 'y')] }),
      VALIDATION,
      INVALID + 'Some index key attributes are not defined in AttributeDefinitions. Keys: [y], AttributeDefinitions: [pk, sk, g, x]',
    );
    await expectDynamoError(
      update({
        TableName: table,
        AttributeDefinitions: definitions,
        GlobalSecondaryIndexUpdates: [{ Create: { ...createOf('one').Create, ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } } }],
      }),
      VALIDATION,
      INVALID + 'ProvisionedThroughput should not be specified for index: one when BillingMode is PAY_PER_REQUEST',
    );
    await expectDynamoError(update({ TableName: table, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'lsi' } }] }), VALIDATION, 'Cannot delete an index that is not a GlobalSecondaryIndex: lsi');
    await expectDynamoError(update({ TableName: table, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'nope' } }] }), 'ResourceNotFoundException', `Requested resource not found: Index: nope not found for table: ${table}`);
    await expectDynamoError(
      update({ TableName: table, BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 }, AttributeDefinitions: definitions, GlobalSecondaryIndexUpdates: [createOf('one')] }),
      VALIDATION,
      'You cannot create or delete index while updating table IOPS',
    );
    // An existing key attribute needs no new definition; the created index uses the table's.
    await update({ TableName: table, AttributeDefinitions: [], GlobalSecondaryIndexUpdates: [createOf('by-sk', 'sk')] });
    await waitForIndex(table, 'by-sk', (status) => status === 'ACTIVE');
  });

  test('at most 20 GSIs: the 21st is LimitExceededException through UpdateTable', async () => {
    const attributes = Array.from({ length: 21 }, (_, index) => `a${index}`);
    const table = await createUniqueTable(twin.client, 'many-gsis', {
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }, ...attributes.slice(0, 20).map((name) => ({ AttributeName: name, AttributeType: 'S' as const }))],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: attributes.slice(0, 20).map((name) => ({ IndexName: `by-${name}`, KeySchema: [{ AttributeName: name, KeyType: 'HASH' as const }], Projection: { ProjectionType: 'KEYS_ONLY' as const } })),
    });
    await expectDynamoError(
      update({
        TableName: table,
        AttributeDefinitions: [{ AttributeName: 'a20', AttributeType: 'S' }],
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'by-a20', KeySchema: [{ AttributeName: 'a20', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } } }],
      }),
      LIMIT,
      'Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of 20',
    );
  });
});

describe('LSI item collections', () => {
  let twin: TwinClients;
  let table: string;
  const LIMIT_BYTES = 2000;
  before(async () => {
    twin = await startTwinWithClients({ itemCollectionSizeLimitBytes: LIMIT_BYTES });
    table = await createUniqueTable(twin.client, 'collections', {
      AttributeDefinitions: attributes({ pk: 'S', sk: 'S', l: 'S' }),
      KeySchema: keySchema('pk', 'sk'),
      LocalSecondaryIndexes: [localIndex('by-l', 'pk', 'l')],
    });
  });
  after(async () => {
    await twin.close();
  });

  // pk(2+1) + sk(2+2) + l(1+1) + pad(3+288) = 300 bytes; with its ALL-projected LSI entry, 600.
  const itemOf = (pk: string, sk: string) => ({ pk, sk: sk.padStart(2, '0'), l: 'x', pad: 'p'.repeat(288) });
  const put = (pk: string, sk: string) =>
    twin.documentClient.send(new PutCommand({ TableName: table, Item: itemOf(pk, sk), ReturnItemCollectionMetrics: 'SIZE' }));

  test('a collection may not grow past the limit; ReturnItemCollectionMetrics reports its size', async () => {
    const first = await put('a', '1');
    assert.deepEqual(first.ItemCollectionMetrics, { ItemCollectionKey: { pk: 'a' }, SizeEstimateRangeGB: [0, 1] });
    await put('a', '2');
    await put('a', '3');
    await expectDynamoError(put('a', '4'), 'ItemCollectionSizeLimitExceededException', 'Collection size exceeded.');
    // Other collections are unaffected; replacing an item by one of the same size does not grow it.
    await put('b', '1');
    await put('a', '3');
    await expectDynamoError(
      twin.documentClient.send(new BatchWriteCommand({ RequestItems: { [table]: [{ PutRequest: { Item: itemOf('c', '1') } }, { PutRequest: { Item: itemOf('a', '9') } }] } })),
      'ItemCollectionSizeLimitExceededException',
      'Collection size exceeded.',
    );
    const canceled = twin.documentClient.send(
      new TransactWriteCommand({ TransactItems: [{ Put: { TableName: table, Item: itemOf('d', '1') } }, { Put: { TableName: table, Item: itemOf('a', '8') } }] }),
    );
    await expectDynamoError(canceled, 'TransactionCanceledException', 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ItemCollectionSizeLimitExceeded]');
    // Nothing of the failed batch or transaction was written.
    const scanned = await twin.client.send(new ScanCommand({ TableName: table, Select: 'COUNT' }));
    assert.equal(scanned.Count, 4);

    const removed = await twin.documentClient.send(new DeleteCommand({ TableName: table, Key: { pk: 'a', sk: '01' }, ReturnItemCollectionMetrics: 'SIZE' }));
    assert.deepEqual(removed.ItemCollectionMetrics?.ItemCollectionKey, { pk: 'a' });
    await put('a', '4');
    const batch = await twin.documentClient.send(
      new BatchWriteCommand({ RequestItems: { [table]: [{ PutRequest: { Item: itemOf('e', '1') } }] }, ReturnItemCollectionMetrics: 'SIZE' }),
    );
    assert.deepEqual(batch.ItemCollectionMetrics, { [table]: [{ ItemCollectionKey: { pk: 'e' }, SizeEstimateRangeGB: [0, 1] }] });
  });

  test('one request writing the same key to two tables grows two collections, each against its own limit', async () => {
    const other = await createUniqueTable(twin.client, 'collections-other', {
      AttributeDefinitions: attributes({ pk: 'S', sk: 'S', l: 'S' }),
      KeySchema: keySchema('pk', 'sk'),
      LocalSecondaryIndexes: [localIndex('by-l', 'pk', 'l')],
    });
    // Three 600-byte writes per table fit its 2,000-byte limit; summed across tables they would not.
    const puts = (name: string) => ['1', '2', '3'].map((sk) => ({ Put: { TableName: name, Item: itemOf('shared', sk) } }));
    await twin.documentClient.send(new TransactWriteCommand({ TransactItems: [...puts(table), ...puts(other)] }));
    const requests = () => ['4', '5', '6'].map((sk) => ({ PutRequest: { Item: itemOf('batched', sk) } }));
    const batch = await twin.documentClient.send(new BatchWriteCommand({ RequestItems: { [table]: requests(), [other]: requests() } }));
    assert.deepEqual(batch.UnprocessedItems, {});
    for (const name of [table, other]) {
      const counted = await twin.client.send(new ScanCommand({ TableName: name, Select: 'COUNT', FilterExpression: 'pk IN (:a, :b)', ExpressionAttributeValues: { ':a': { S: 'shared' }, ':b': { S: 'batched' } } }));
      assert.equal(counted.Count, 6, name);
    }
  });
});

describe('GSI propagation lag on a manual clock', () => {
  let twin: TwinClients;
  let clock: ManualClock;
  let table: string;
  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual', gsiLagMs: 1000 });
    clock = twin.twin.clock as ManualClock;
    table = await createUniqueTable(twin.client, 'lagged', {
      AttributeDefinitions: attributes({ pk: 'S', sk: 'S', g: 'S' }),
      KeySchema: keySchema('pk', 'sk'),
      GlobalSecondaryIndexes: [globalIndex('by-g', 'g')],
      LocalSecondaryIndexes: [localIndex('by-g-local', 'pk', 'g')],
    });
  });
  after(async () => {
    await twin.close();
  });

  const gsiValues = async (g: string) =>
    (await twin.client.send(new QueryCommand({ TableName: table, IndexName: 'by-g', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: g } } }))).Items!.map(
      (item) => item.v?.S,
    );
  const lsiCount = async () =>
    (await twin.client.send(new QueryCommand({ TableName: table, IndexName: 'by-g-local', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } } }))).Count;
  const gsiItemCount = async () => (await twin.client.send(new DescribeTableCommand({ TableName: table }))).Table!.GlobalSecondaryIndexes![0]!.ItemCount;

  test('a GSI read misses a fresh write until the lag has passed on the clock; an LSI sees it at once', async () => {
    await twin.documentClient.send(new PutCommand({ TableName: table, Item: { pk: 'p', sk: 's', g: 'one', v: 'first' } }));
    assert.deepEqual(await gsiValues('one'), []);
    assert.equal(await lsiCount(), 1);
    assert.equal(await gsiItemCount(), 0);
    clock.advance(999);
    assert.deepEqual(await gsiValues('one'), []);
    clock.advance(1);
    assert.deepEqual(await gsiValues('one'), ['first']);
    assert.equal(await gsiItemCount(), 1);

    // A key change: the old entry stays visible until the change propagates, in write order.
    await twin.documentClient.send(new UpdateCommand({ TableName: table, Key: { pk: 'p', sk: 's' }, UpdateExpression: 'SET g = :g, v = :v', ExpressionAttributeValues: { ':g': 'two', ':v': 'second' } }));
    clock.advance(500);
    await twin.documentClient.send(new UpdateCommand({ TableName: table, Key: { pk: 'p', sk: 's' }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': 'third' } }));
    assert.deepEqual(await gsiValues('one'), ['first']);
    assert.deepEqual(await gsiValues('two'), []);
    clock.advance(500);
    assert.deepEqual(await gsiValues('one'), []);
    assert.deepEqual(await gsiValues('two'), ['second']);
    clock.advance(500);
    assert.deepEqual(await gsiValues('two'), ['third']);
    await expectDynamoError(
      twin.client.send(new QueryCommand({ TableName: table, IndexName: 'by-g', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'two' } }, ConsistentRead: true })),
      VALIDATION,
      'Consistent reads are not supported on global secondary indexes',
    );
  });
});
