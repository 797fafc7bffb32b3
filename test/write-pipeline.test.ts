/**
 * The write pipeline's change records (engine/write-pipeline.ts), as the ChangeSink sees them, for
 * every write path driven through the real SDK: one record per item change, none for a write that
 * changes nothing, system records for TTL deletions, and everything a sink puts committed in the
 * write's own storage transaction.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BatchWriteItemCommand,
  CreateBackupCommand,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DeleteItemCommand,
  DynamoDBClient,
  ExecuteStatementCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  RestoreTableFromBackupCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { DEFAULT_SERVER_OPTIONS, startServer, type RunningServer } from '../src/server/server.js';
import { ManualClock } from '../src/clock.js';
import type { ChangeRecord, ChangeSink } from '../src/engine/write-pipeline.js';
import type { Table } from '../src/engine/table.js';
import { storageKeyOfKey } from '../src/engine/keys.js';
import { targetOf, transactWrite } from '../src/engine/transactions.js';
import type { AttributeMap } from '../src/model/attribute-value.js';
import { itemSize } from '../src/model/item-size.js';
import type { WriteTransaction } from '../src/storage/storage.js';
import { expectDynamoError, sdkClient, uniqueTableName } from './support/client.js';
import { testServerOptions } from './support/test-store.js';

interface Seen {
  readonly table: string;
  readonly event: string;
  readonly keys: unknown;
  readonly oldImage: unknown;
  readonly newImage: unknown;
  readonly system: boolean;
}

/** Records every change, and puts a marker beside it in the change's own transaction. */
class RecordingSink implements ChangeSink {
  readonly seen: Seen[] = [];
  total = 0;
  onChange(txn: WriteTransaction, table: Table, change: ChangeRecord): void {
    this.total++;
    this.seen.push({ table: table.name, event: change.event, keys: change.keys, oldImage: change.oldImage, newImage: change.newImage, system: change.system });
    txn.put(markerKey(this.total), { event: change.event });
  }
  take(): Seen[] {
    return this.seen.splice(0, this.seen.length);
  }
}

/** Under 0x7f, a byte no table, index or catalog key starts with. */
function markerKey(sequence: number): Buffer {
  const key = Buffer.alloc(5);
  key[0] = 0x7f;
  key.writeUInt32BE(sequence, 1);
  return key;
}

let server: RunningServer;
let client: DynamoDBClient;
const sink = new RecordingSink();
const table = uniqueTableName('pipeline');

before(async () => {
  server = await startServer(testServerOptions({ ...DEFAULT_SERVER_OPTIONS, port: 0, inMemory: true, clock: 'manual', log: () => {} }));
  server.engine.setChangeSink(sink);
  client = sdkClient(server.endpoint);
  await client.send(
    new CreateTableCommand({
      TableName: table,
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'N' },
        { AttributeName: 'g', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [{ IndexName: 'byG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
      LocalSecondaryIndexes: [
        {
          IndexName: 'byG-local',
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'g', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
});

after(async () => {
  client.destroy();
  await server.close();
});

const key = (pk: string, sk: number) => ({ pk: { S: pk }, sk: { N: String(sk) } });

test('single-item writes: INSERT, MODIFY, REMOVE; unchanged writes have no record', async () => {
  sink.take();
  await client.send(new PutItemCommand({ TableName: table, Item: { ...key('a', 1), g: { S: 'x' }, n: { N: '1' } } }));
  await client.send(new PutItemCommand({ TableName: table, Item: { ...key('a', 1), g: { S: 'x' }, n: { N: '1' } } }));
  await client.send(new UpdateItemCommand({ TableName: table, Key: key('a', 1), UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': { N: '2' } } }));
  await client.send(new UpdateItemCommand({ TableName: table, Key: key('a', 1), UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': { N: '2' } } }));
  await client.send(new DeleteItemCommand({ TableName: table, Key: key('a', 1) }));
  await client.send(new DeleteItemCommand({ TableName: table, Key: key('a', 1) }));
  const seen = sink.take();
  assert.deepEqual(
    seen.map((change) => change.event),
    ['INSERT', 'MODIFY', 'REMOVE'],
  );
  assert.deepEqual(seen[0], { table, event: 'INSERT', keys: key('a', 1), oldImage: undefined, newImage: { ...key('a', 1), g: { S: 'x' }, n: { N: '1' } }, system: false });
  assert.deepEqual(seen[1]!.oldImage, { ...key('a', 1), g: { S: 'x' }, n: { N: '1' } });
  assert.deepEqual(seen[1]!.newImage, { ...key('a', 1), g: { S: 'x' }, n: { N: '2' } });
  assert.deepEqual(seen[2], { table, event: 'REMOVE', keys: key('a', 1), oldImage: { ...key('a', 1), g: { S: 'x' }, n: { N: '2' } }, newImage: undefined, system: false });
});

test('a failed condition or a refused write has no record', async () => {
  sink.take();
  await expectDynamoError(
    client.send(new PutItemCommand({ TableName: table, Item: key('b', 1), ConditionExpression: 'attribute_exists(pk)' })),
    'ConditionalCheckFailedException',
  );
  await expectDynamoError(
    client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: table, Item: key('b', 2) } },
          { ConditionCheck: { TableName: table, Key: key('b', 3), ConditionExpression: 'attribute_exists(pk)' } },
        ],
      }),
    ),
    'TransactionCanceledException',
  );
  assert.deepEqual(sink.take(), []);
});

test('batches and transactions: one record per changed item, in request order', async () => {
  sink.take();
  await client.send(
    new BatchWriteItemCommand({
      RequestItems: { [table]: [{ PutRequest: { Item: key('c', 1) } }, { PutRequest: { Item: key('c', 2) } }, { DeleteRequest: { Key: key('c', 9) } }] },
    }),
  );
  await client.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        { ConditionCheck: { TableName: table, Key: key('c', 1), ConditionExpression: 'attribute_exists(pk)' } },
        { Update: { TableName: table, Key: key('c', 2), UpdateExpression: 'SET g = :g', ExpressionAttributeValues: { ':g': { S: 'y' } } } },
        { Delete: { TableName: table, Key: key('c', 3) } },
        { Put: { TableName: table, Item: key('c', 4) } },
      ],
    }),
  );
  assert.deepEqual(
    sink.take().map((change) => [change.event, change.keys]),
    [
      ['INSERT', key('c', 1)],
      ['INSERT', key('c', 2)],
      ['MODIFY', key('c', 2)],
      ['INSERT', key('c', 4)],
    ],
  );
});

test('PartiQL writes are changes like the operations they compile to', async () => {
  sink.take();
  await client.send(new ExecuteStatementCommand({ Statement: `INSERT INTO "${table}" VALUE {'pk': 'd', 'sk': 1}` }));
  await client.send(new ExecuteStatementCommand({ Statement: `UPDATE "${table}" SET n = 5 WHERE pk = 'd' AND sk = 1` }));
  await client.send(new ExecuteStatementCommand({ Statement: `DELETE FROM "${table}" WHERE pk = 'd' AND sk = 1` }));
  assert.deepEqual(
    sink.take().map((change) => change.event),
    ['INSERT', 'MODIFY', 'REMOVE'],
  );
});

test('TTL deletions are system REMOVE records; every record is committed with its change', async () => {
  await client.send(new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } }));
  const clock = server.clock as ManualClock;
  const expires = Math.floor(clock.nowMs() / 1000) + 60;
  await client.send(new PutItemCommand({ TableName: table, Item: { ...key('e', 1), expires: { N: String(expires) } } }));
  sink.take();
  clock.advance(3_600_000);
  await server.engine.ttl.settled();
  const seen = sink.seen.slice();
  assert.deepEqual(
    seen.map((change) => [change.event, change.keys, change.system]),
    [['REMOVE', key('e', 1), true]],
  );
  // The sink's markers were put in the same transactions as the changes: all of them are there.
  const markers = [...server.engine.storage.range({ start: markerKey(0), end: Buffer.from([0x80]) })];
  assert.equal(markers.length, sink.total);
  assert.deepEqual(markers.at(-1)!.value, { event: 'REMOVE' });
});

test("a restore's load is a system write that records no change: its items, indexes and statistics are there, no record", async () => {
  await client.send(new PutItemCommand({ TableName: table, Item: { ...key('r', 1), g: { S: 'restored' } } }));
  await client.send(new PutItemCommand({ TableName: table, Item: { ...key('r', 2), g: { S: 'restored' } } }));
  const source = await client.send(new ScanCommand({ TableName: table }));
  const backup = await client.send(new CreateBackupCommand({ TableName: table, BackupName: 'pipeline' }));
  await server.engine.settled();
  const target = uniqueTableName('pipeline-restored');
  sink.take();
  await client.send(new RestoreTableFromBackupCommand({ BackupArn: backup.BackupDetails!.BackupArn!, TargetTableName: target }));
  await server.engine.settled();
  // The load put every item (and the GSI's entries), yet the sink was handed nothing.
  assert.deepEqual(sink.take(), []);
  const restored = await client.send(new ScanCommand({ TableName: target }));
  assert.equal(restored.Count, source.Count);
  assert.ok((source.Count ?? 0) >= 2);
  const byG = await client.send(new QueryCommand({ TableName: target, IndexName: 'byG', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'restored' } } }));
  assert.equal(byG.Count, 2);
  const described = await client.send(new DescribeTableCommand({ TableName: target }));
  assert.equal(described.Table?.TableStatus, 'ACTIVE');
  assert.equal(described.Table?.ItemCount, source.Count);
});

test('"is this still the same table?" has one answer: catalog.sameTable, by name and storage id', async () => {
  const name = uniqueTableName('pipeline-same');
  const definition = { TableName: name, AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' as const }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' as const }], BillingMode: 'PAY_PER_REQUEST' as const };
  await client.send(new CreateTableCommand(definition));
  const catalog = server.engine.catalog;
  const first = catalog.get(name)!;
  assert.equal(catalog.sameTable(name, first.record.id), first);
  await client.send(new DeleteTableCommand({ TableName: name }));
  assert.equal(catalog.sameTable(name, first.record.id), undefined);
  await client.send(new CreateTableCommand(definition));
  // Created again under its name: another table, which the old id does not find.
  const second = catalog.get(name)!;
  assert.notEqual(second.record.id, first.record.id);
  assert.equal(catalog.sameTable(name, first.record.id), undefined);
  assert.equal(catalog.sameTable(name, second.record.id), second);
  assert.equal(catalog.sameTable(uniqueTableName('pipeline-none'), second.record.id), undefined);
});

test('the read phase: a transaction reads every old image before it decides any action, and decides all before its first put', async () => {
  const name = uniqueTableName('pipeline-reads');
  await client.send(
    new CreateTableCommand({ TableName: name, AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }),
  );
  await client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'a' }, n: { N: '1' } } }));
  const engine = server.engine;
  const tableNow = engine.catalog.get(name)!;
  const events: string[] = [];
  const storage = engine.storage;
  const write = storage.write.bind(storage);
  // Every get, range and put the transaction's storage write makes, in order, beside each decide.
  storage.write = <T>(fn: (txn: WriteTransaction) => T): Promise<T> =>
    write((txn) =>
      fn({
        get: (key) => (events.push('get'), txn.get(key)),
        range: (options) => (events.push('range'), txn.range(options)),
        put: (key, value) => (events.push('put'), txn.put(key, value)),
        remove: (key) => (events.push('remove'), txn.remove(key)),
      }),
    );
  try {
    const actions = ['a', 'b', 'c'].map((pk) => ({
      table: tableNow,
      target: targetOf(() => storageKeyOfKey(tableNow, { pk: { S: pk } })),
      condition: undefined,
      returnOldItemOnFailure: false,
      decide: (old: AttributeMap | undefined) => {
        events.push('decide');
        const previous = old?.n;
        const item = { pk: { S: pk }, n: { N: String((previous !== undefined && 'N' in previous ? Number(previous.N) : 0) + 1) } };
        return { item, sizeBytes: itemSize(item) };
      },
    }));
    const result = await transactWrite(engine, actions, undefined);
    assert.equal(result.kind, 'applied');
  } finally {
    storage.write = write;
  }
  const firstDecide = events.indexOf('decide');
  const firstPut = events.indexOf('put');
  assert.deepEqual(events.slice(0, firstDecide), ['get', 'get', 'get'], 'the three old images, read before the first decide');
  assert.deepEqual(events.slice(firstDecide, firstPut), ['decide', 'decide', 'decide'], 'nothing read between deciding and applying');
  const item = await client.send(new GetItemCommand({ TableName: name, Key: { pk: { S: 'a' } }, ConsistentRead: true }));
  assert.deepEqual(item.Item?.n, { N: '2' });
});
