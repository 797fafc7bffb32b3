/**
 * DynamoDB Streams through the real SDK clients (`@aws-sdk/client-dynamodb-streams` beside the
 * DynamoDB client) on a manual clock: StreamSpecification on CreateTable / UpdateTable /
 * DescribeTable and its rules; ListStreams, DescribeStream, GetShardIterator, GetRecords; records
 * of every view type and every write path (single writes, batches, transactions, PartiQL, TTL);
 * the four iterator types; iterator expiry and 24-hour trimming; shards closing and children
 * opening across partition splits; restart on LMDB; the API's validation errors.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BatchExecuteStatementCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  ExecuteStatementCommand,
  ExecuteTransactionCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type StreamViewType,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
  type _Record,
  type ShardFilter,
  type DynamoDBStreamsClient,
} from '@aws-sdk/client-dynamodb-streams';
import { ManualClock } from '../src/clock.js';
import { openStorage } from '../src/storage/index.js';
import { STREAM_METAS_END, STREAM_METAS_START } from '../src/streams/records.js';
import type { TablesDocument } from '../src/server/dashboard-routes.js';
import type { PartitionsDocument } from '../src/server/partition-routes.js';
import { rawRequest, SIGNED_HEADERS } from './support/raw.js';
import { scratchDirectories } from './support/scratch.js';
import { describeAll, readShard, readStream, streamsClient } from './support/streams.js';
import { attributes, keySchema, localIndex, globalIndex } from './support/tables.js';
import { expectDynamoError, startTwinWithClients, uniqueTableName, withTwin, type TwinClients } from './support/twin.js';
import { embeddedStoreOnly } from './support/test-store.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

function manualClock(twin: TwinClients): ManualClock {
  const clock = twin.twin.clock;
  assert.ok(clock instanceof ManualClock);
  return clock;
}

async function createStreamTable(twin: TwinClients, viewType: StreamViewType, extra: Partial<ConstructorParameters<typeof CreateTableCommand>[0]> = {}): Promise<{ name: string; streamArn: string }> {
  const name = uniqueTableName('streams');
  const answer = await twin.client.send(
    new CreateTableCommand({
      TableName: name,
      AttributeDefinitions: attributes({ pk: 'S', sk: 'N' }),
      KeySchema: keySchema('pk', 'sk'),
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamEnabled: true, StreamViewType: viewType },
      ...extra,
    }),
  );
  const streamArn = answer.TableDescription!.LatestStreamArn!;
  assert.ok(streamArn.startsWith(`${answer.TableDescription!.TableArn}/stream/`));
  return { name, streamArn };
}

function eventNames(records: readonly _Record[]): string[] {
  return records.map((record) => record.eventName!);
}

function sequences(records: readonly _Record[]): bigint[] {
  return records.map((record) => BigInt(record.dynamodb!.SequenceNumber!));
}

/** Records of a stream in commit order (one stream's sequence numbers increase with every record). */
async function allRecords(streams: DynamoDBStreamsClient, streamArn: string): Promise<_Record[]> {
  const records = await readStream(streams, streamArn);
  return records.sort((a, b) => (BigInt(a.dynamodb!.SequenceNumber!) < BigInt(b.dynamodb!.SequenceNumber!) ? -1 : 1));
}

describe('DynamoDB Streams', () => {
  let twin: TwinClients;
  let streams: DynamoDBStreamsClient;
  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual' });
    streams = streamsClient(twin.twin.endpoint);
  });
  after(async () => {
    streams.destroy();
    await twin.close();
  });

  for (const viewType of ['NEW_AND_OLD_IMAGES', 'NEW_IMAGE', 'OLD_IMAGE', 'KEYS_ONLY'] as const) {
    test(`${viewType}: INSERT, MODIFY, REMOVE with the images the view keeps; an unchanged write writes nothing`, async () => {
      const { name, streamArn } = await createStreamTable(twin, viewType);
      const key = { pk: { S: 'a' }, sk: { N: '1' } };
      await twin.client.send(new PutItemCommand({ TableName: name, Item: { ...key, v: { N: '1' } } }));
      await twin.client.send(new UpdateItemCommand({ TableName: name, Key: key, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { N: '2' } } }));
      // Same image again: no record.
      await twin.client.send(new PutItemCommand({ TableName: name, Item: { ...key, v: { N: '2' } } }));
      await twin.client.send(new UpdateItemCommand({ TableName: name, Key: key, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { N: '2' } } }));
      // A failed condition writes nothing either.
      await expectDynamoError(twin.client.send(new PutItemCommand({ TableName: name, Item: key, ConditionExpression: 'attribute_not_exists(pk)' })), 'ConditionalCheckFailedException');
      await twin.client.send(new DeleteItemCommand({ TableName: name, Key: key }));
      await twin.client.send(new DeleteItemCommand({ TableName: name, Key: key }));

      const records = await allRecords(streams, streamArn);
      assert.deepEqual(eventNames(records), ['INSERT', 'MODIFY', 'REMOVE']);
      const keepsNew = viewType === 'NEW_IMAGE' || viewType === 'NEW_AND_OLD_IMAGES';
      const keepsOld = viewType === 'OLD_IMAGE' || viewType === 'NEW_AND_OLD_IMAGES';
      const [insert, modify, remove] = records as [_Record, _Record, _Record];
      for (const record of records) {
        assert.equal(record.eventVersion, '1.1');
        assert.equal(record.eventSource, 'aws:dynamodb');
        assert.equal(record.awsRegion, 'us-east-1');
        assert.match(record.eventID!, /^[0-9a-f]{32}$/);
        assert.deepEqual(record.dynamodb!.Keys, key);
        assert.equal(record.dynamodb!.StreamViewType, viewType);
        assert.match(record.dynamodb!.SequenceNumber!, /^[0-9]{21,40}$/);
        assert.ok(record.dynamodb!.SizeBytes! > 0);
        assert.ok(record.dynamodb!.ApproximateCreationDateTime instanceof Date);
        assert.equal(record.userIdentity, undefined);
      }
      assert.equal(new Set(records.map((record) => record.eventID)).size, 3);
      assert.deepEqual(insert.dynamodb!.NewImage, keepsNew ? { ...key, v: { N: '1' } } : undefined);
      assert.equal(insert.dynamodb!.OldImage, undefined);
      assert.deepEqual(modify.dynamodb!.NewImage, keepsNew ? { ...key, v: { N: '2' } } : undefined);
      assert.deepEqual(modify.dynamodb!.OldImage, keepsOld ? { ...key, v: { N: '1' } } : undefined);
      assert.equal(remove.dynamodb!.NewImage, undefined);
      assert.deepEqual(remove.dynamodb!.OldImage, keepsOld ? { ...key, v: { N: '2' } } : undefined);

      const table = (await twin.client.send(new DescribeTableCommand({ TableName: name }))).Table!;
      assert.deepEqual(table.StreamSpecification, { StreamEnabled: true, StreamViewType: viewType });
      assert.equal(table.LatestStreamArn, streamArn);
      assert.equal(streamArn.endsWith(`/stream/${table.LatestStreamLabel}`), true);
      const description = (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription!;
      assert.equal(description.StreamStatus, 'ENABLED');
      assert.equal(description.StreamViewType, viewType);
      assert.equal(description.TableName, name);
      assert.equal(description.StreamLabel, table.LatestStreamLabel);
      assert.deepEqual(description.KeySchema, keySchema('pk', 'sk'));
      assert.ok(description.CreationRequestDateTime instanceof Date);
      // An on-demand table starts with 4 partitions: one open shard each.
      assert.equal(description.Shards!.length, 4);
      for (const shard of description.Shards!) {
        assert.match(shard.ShardId!, /^shardId-[0-9]{20}-[0-9a-f]{8}$/);
        assert.equal(shard.SequenceNumberRange!.EndingSequenceNumber, undefined);
        assert.equal(shard.ParentShardId, undefined);
      }
    });
  }

  test('every write path writes one record per changed item: batch, transaction, PartiQL', async () => {
    const { name, streamArn } = await createStreamTable(twin, 'NEW_AND_OLD_IMAGES', {
      AttributeDefinitions: attributes({ pk: 'S', sk: 'N', g: 'S', l: 'S' }),
      GlobalSecondaryIndexes: [globalIndex('byG', 'g')],
      LocalSecondaryIndexes: [localIndex('byL', 'pk', 'l')],
    });
    const item = (pk: string, sk: number, extra: Record<string, { S: string }> = {}) => ({ pk: { S: pk }, sk: { N: String(sk) }, ...extra });
    await twin.client.send(
      new BatchWriteItemCommand({
        RequestItems: { [name]: [1, 2, 3].map((sk) => ({ PutRequest: { Item: item('b', sk, { g: { S: 'x' }, l: { S: 'y' } }) } })) },
      }),
    );
    await twin.client.send(new BatchWriteItemCommand({ RequestItems: { [name]: [{ DeleteRequest: { Key: item('b', 3) } }] } }));
    await twin.client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: name, Item: item('t', 1) } },
          { Update: { TableName: name, Key: item('b', 1), UpdateExpression: 'SET g = :g', ExpressionAttributeValues: { ':g': { S: 'z' } } } },
          { Delete: { TableName: name, Key: item('b', 2) } },
          { ConditionCheck: { TableName: name, Key: item('t', 9), ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
    // A cancelled transaction writes nothing.
    await expectDynamoError(
      twin.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: name, Item: item('t', 2) } },
            { ConditionCheck: { TableName: name, Key: item('t', 1), ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      ),
      'TransactionCanceledException',
    );
    await twin.client.send(new ExecuteStatementCommand({ Statement: `INSERT INTO "${name}" VALUE {'pk': 'p', 'sk': 1}` }));
    await twin.client.send(new ExecuteStatementCommand({ Statement: `UPDATE "${name}" SET v = 5 WHERE pk = 'p' AND sk = 1` }));
    await twin.client.send(
      new BatchExecuteStatementCommand({ Statements: [{ Statement: `INSERT INTO "${name}" VALUE {'pk': 'p', 'sk': 2}` }, { Statement: `DELETE FROM "${name}" WHERE pk = 'p' AND sk = 1` }] }),
    );
    await twin.client.send(
      new ExecuteTransactionCommand({
        TransactStatements: [{ Statement: `UPDATE "${name}" SET v = 6 WHERE pk = 'p' AND sk = 2` }, { Statement: `DELETE FROM "${name}" WHERE pk = 't' AND sk = 1` }],
      }),
    );

    const records = await allRecords(streams, streamArn);
    const summary = records.map((record) => `${record.eventName} ${record.dynamodb!.Keys!.pk!.S}${record.dynamodb!.Keys!.sk!.N}`);
    assert.deepEqual(summary, [
      'INSERT b1',
      'INSERT b2',
      'INSERT b3',
      'REMOVE b3',
      'INSERT t1',
      'MODIFY b1',
      'REMOVE b2',
      'INSERT p1',
      'MODIFY p1',
      'INSERT p2',
      'REMOVE p1',
      'MODIFY p2',
      'REMOVE t1',
    ]);
    const modified = records[5]!.dynamodb!;
    assert.equal(modified.OldImage!.g!.S, 'x');
    assert.equal(modified.NewImage!.g!.S, 'z');
  });

  test('TTL deletions carry the service identity; user deletes do not', async () => {
    const { name, streamArn } = await createStreamTable(twin, 'OLD_IMAGE');
    await twin.client.send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } }));
    const nowS = Math.floor(twin.twin.clock.nowMs() / 1000);
    await twin.client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'ttl' }, sk: { N: '1' }, expires: { N: String(nowS + 5) } } }));
    await twin.client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'user' }, sk: { N: '1' } } }));
    await twin.client.send(new DeleteItemCommand({ TableName: name, Key: { pk: { S: 'user' }, sk: { N: '1' } } }));
    manualClock(twin).advance(60_000);
    await twin.twin.settled();
    const records = await allRecords(streams, streamArn);
    assert.deepEqual(eventNames(records), ['INSERT', 'INSERT', 'REMOVE', 'REMOVE']);
    const ttlRemove = records[3]!;
    assert.deepEqual(ttlRemove.dynamodb!.Keys, { pk: { S: 'ttl' }, sk: { N: '1' } });
    assert.deepEqual(ttlRemove.userIdentity, { Type: 'Service', PrincipalId: 'dynamodb.amazonaws.com' });
    assert.equal(records[2]!.userIdentity, undefined);
    assert.equal(ttlRemove.dynamodb!.OldImage!.expires!.N, String(nowS + 5));
  });

  test('iterator types: TRIM_HORIZON, LATEST, AT_ and AFTER_SEQUENCE_NUMBER, Limit and NextShardIterator', async () => {
    const { name, streamArn } = await createStreamTable(twin, 'KEYS_ONLY');
    const put = (sk: number) => twin.client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'one' }, sk: { N: String(sk) } } }));
    for (let sk = 1; sk <= 5; sk++) await put(sk);
    const { shards } = await describeAll(streams, streamArn);
    const shardId = (await Promise.all(shards.map(async (shard) => ((await readShard(streams, streamArn, shard.ShardId!)).length > 0 ? shard.ShardId! : undefined)))).find(
      (id) => id !== undefined,
    )!;
    const iterator = async (type: 'TRIM_HORIZON' | 'LATEST' | 'AT_SEQUENCE_NUMBER' | 'AFTER_SEQUENCE_NUMBER', sequence?: string) =>
      (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: type, SequenceNumber: sequence }))).ShardIterator!;

    // Paging with Limit 2: 2, 2, 1, then an empty page that still hands back an iterator (the shard is open).
    let next: string | undefined = await iterator('TRIM_HORIZON');
    const pages: number[] = [];
    const seen: _Record[] = [];
    for (let page = 0; page < 4; page++) {
      const answer: { Records?: _Record[]; NextShardIterator?: string } = await streams.send(new GetRecordsCommand({ ShardIterator: next, Limit: 2 }));
      pages.push(answer.Records!.length);
      seen.push(...answer.Records!);
      next = answer.NextShardIterator;
      assert.ok(next !== undefined);
    }
    assert.deepEqual(pages, [2, 2, 1, 0]);
    const seqs = sequences(seen);
    assert.deepEqual([...seqs].sort((a, b) => (a < b ? -1 : 1)), seqs);

    const latest = await iterator('LATEST');
    await put(6);
    const afterLatest = await streams.send(new GetRecordsCommand({ ShardIterator: latest }));
    assert.deepEqual(afterLatest.Records!.map((record) => record.dynamodb!.Keys!.sk!.N), ['6']);
    // The iterator from before the write (the empty page's) sees it too.
    assert.equal((await streams.send(new GetRecordsCommand({ ShardIterator: next }))).Records!.length, 1);

    const third = seen[2]!.dynamodb!.SequenceNumber!;
    const at = await streams.send(new GetRecordsCommand({ ShardIterator: await iterator('AT_SEQUENCE_NUMBER', third) }));
    assert.deepEqual(at.Records!.map((record) => record.dynamodb!.Keys!.sk!.N), ['3', '4', '5', '6']);
    const afterThird = await streams.send(new GetRecordsCommand({ ShardIterator: await iterator('AFTER_SEQUENCE_NUMBER', third) }));
    assert.deepEqual(afterThird.Records!.map((record) => record.dynamodb!.Keys!.sk!.N), ['4', '5', '6']);
  });

  test('iterators expire after 15 minutes of the server clock; records are trimmed after 24 hours', async () => {
    const { name, streamArn } = await createStreamTable(twin, 'NEW_IMAGE', { AttributeDefinitions: attributes({ pk: 'S', sk: 'N' }) });
    const clock = manualClock(twin);
    const put = (pk: string) => twin.client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: pk }, sk: { N: '1' } } }));
    await put('old');
    const { shards } = await describeAll(streams, streamArn);
    const holding = [];
    for (const shard of shards) if ((await readShard(streams, streamArn, shard.ShardId!)).length > 0) holding.push(shard.ShardId!);
    assert.equal(holding.length, 1);
    const shardId = holding[0]!;
    const horizon = async () => (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator!;

    const early = await horizon();
    clock.advance(15 * 60 * 1000);
    assert.equal((await streams.send(new GetRecordsCommand({ ShardIterator: early }))).Records!.length, 1, 'still valid at exactly 15 minutes');
    clock.advance(1);
    await expectDynamoError(streams.send(new GetRecordsCommand({ ShardIterator: early })), 'ExpiredIteratorException', /^Iterator expired\. The iterator was created at time \w{3} \w{3} \d{2} \d{2}:\d{2}:\d{2} UTC \d{4} while right now it is .* tolerated delay of 900000 milliseconds\.$/);

    const oldRecord = (await streams.send(new GetRecordsCommand({ ShardIterator: await horizon() }))).Records![0]!;
    const oldSequence = oldRecord.dynamodb!.SequenceNumber!;
    // Just before the old record turns 24 hours old: an iterator at it, then a newer record.
    clock.advance(DAY_MS - 15 * 60 * 1000 - 10_000);
    const atOld = await horizon();
    await put('old'); // same key, same image: no record
    await twin.client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'old' }, sk: { N: '1' }, v: { S: 'new' } } }));
    clock.advance(20_000);
    // The old record is now trimmed: the iterator taken before it was, and its sequence number, fail.
    await expectDynamoError(streams.send(new GetRecordsCommand({ ShardIterator: atOld })), 'TrimmedDataAccessException', 'The data you are trying to access has been trimmed.');
    await expectDynamoError(
      streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: oldSequence })),
      'TrimmedDataAccessException',
    );
    // TRIM_HORIZON now starts at the oldest untrimmed record.
    const fresh = await streams.send(new GetRecordsCommand({ ShardIterator: await horizon() }));
    assert.deepEqual(fresh.Records!.map((record) => record.dynamodb!.NewImage!.v?.S), ['new']);
  });

  test('disabling and enabling again: the old stream is DISABLED, closed and readable; a new stream and label', async () => {
    const { name, streamArn } = await createStreamTable(twin, 'NEW_AND_OLD_IMAGES');
    await twin.client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'k' }, sk: { N: '1' } } }));
    const enable = (viewType: StreamViewType) => twin.client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: true, StreamViewType: viewType } }));
    await expectDynamoError(enable('NEW_AND_OLD_IMAGES'), 'ValidationException', `Table already has an enabled stream: TableName: ${name}`);
    await expectDynamoError(enable('KEYS_ONLY'), 'ValidationException', `Table already has an enabled stream: TableName: ${name}`);
    await expectDynamoError(
      twin.client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: true } })),
      'ValidationException',
      /If stream is being enabled then UpdateViewType is required/,
    );

    const disabled = await twin.client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: false } }));
    assert.equal(disabled.TableDescription!.LatestStreamArn, streamArn);
    // As DynamoDB answers once a stream is disabled: no StreamSpecification, the latest stream still named.
    const described = (await twin.client.send(new DescribeTableCommand({ TableName: name }))).Table!;
    assert.equal(described.StreamSpecification, undefined);
    assert.equal(described.LatestStreamArn, streamArn);
    assert.equal(described.LatestStreamLabel, streamArn.split('/stream/')[1]);
    await expectDynamoError(
      twin.client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: false } })),
      'ValidationException',
      `Table has no stream to disable: TableName: ${name}`,
    );
    // Writes after disabling are not recorded.
    await twin.client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'k' }, sk: { N: '2' } } }));
    const { description, shards } = await describeAll(streams, streamArn);
    assert.equal(description.StreamStatus, 'DISABLED');
    for (const shard of shards) assert.ok(shard.SequenceNumberRange!.EndingSequenceNumber !== undefined, 'every shard closed');
    const records = await readStream(streams, streamArn);
    assert.deepEqual(eventNames(records), ['INSERT']);
    // A drained closed shard answers no NextShardIterator.
    for (const shard of shards) {
      let iterator: string | undefined = (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
      let calls = 0;
      while (iterator !== undefined) {
        iterator = (await streams.send(new GetRecordsCommand({ ShardIterator: iterator }))).NextShardIterator;
        assert.ok(++calls <= 2, 'a closed shard is drained in at most two calls');
      }
    }

    const enabled = await enable('KEYS_ONLY');
    const newArn = enabled.TableDescription!.LatestStreamArn!;
    assert.notEqual(newArn, streamArn);
    assert.deepEqual(enabled.TableDescription!.StreamSpecification, { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' });
    await twin.client.send(new DeleteItemCommand({ TableName: name, Key: { pk: { S: 'k' }, sk: { N: '2' } } }));
    assert.deepEqual(eventNames(await readStream(streams, newArn)), ['REMOVE']);
    const listed = (await streams.send(new ListStreamsCommand({ TableName: name }))).Streams!;
    assert.deepEqual(listed.map((stream) => stream.StreamArn), [streamArn, newArn]);

    // DeleteTable: the stream is DISABLED and still readable.
    await twin.client.send(new DeleteTableCommand({ TableName: name }));
    const afterDelete = (await streams.send(new DescribeStreamCommand({ StreamArn: newArn }))).StreamDescription!;
    assert.equal(afterDelete.StreamStatus, 'DISABLED');
    assert.deepEqual(eventNames(await readStream(streams, newArn)), ['REMOVE']);
    // 24 hours later both streams are gone from ListStreams.
    manualClock(twin).advance(DAY_MS + 1);
    assert.deepEqual((await streams.send(new ListStreamsCommand({ TableName: name }))).Streams, []);
    await expectDynamoError(streams.send(new DescribeStreamCommand({ StreamArn: newArn })), 'ResourceNotFoundException', `Requested resource not found: Stream: ${newArn} not found`);
  });

  test('the dashboard lists each table\'s stream: shards and records per second', async () => {
    const { name, streamArn } = await createStreamTable(twin, 'NEW_AND_OLD_IMAGES');
    manualClock(twin).advance(60_000);
    for (let sk = 0; sk < 20; sk++) await twin.client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'dash' }, sk: { N: String(sk) } } }));
    const tables = async () => JSON.parse((await rawRequest(twin.twin.endpoint, { method: 'GET', path: '/dynatwin/tables' })).text) as TablesDocument;
    const summary = (await tables()).tables.find((table) => table.name === name)!;
    assert.deepEqual(summary.stream, { arn: streamArn, viewType: 'NEW_AND_OLD_IMAGES', openShards: 4, closedShards: 0, recordsPerSecond: 2 });
    manualClock(twin).advance(10_000);
    assert.equal((await tables()).tables.find((table) => table.name === name)!.stream!.recordsPerSecond, 0);
    await twin.client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: false } }));
    assert.equal((await tables()).tables.find((table) => table.name === name)!.stream, null);
  });

  test('UpdateTable raising throughput splits partitions: their shards close and children open in that write', async () => {
    const { name, streamArn } = await createStreamTable(twin, 'KEYS_ONLY', { BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } });
    await twin.client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'before' }, sk: { N: '1' } } }));
    const before = await describeAll(streams, streamArn);
    assert.equal(before.shards.length, 1);
    await twin.client.send(new UpdateTableCommand({ TableName: name, ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 2000 } }));
    const after = await describeAll(streams, streamArn);
    const [parent, ...children] = after.shards;
    assert.equal(parent!.ShardId, before.shards[0]!.ShardId);
    assert.equal(parent!.SequenceNumberRange!.EndingSequenceNumber !== undefined, true);
    assert.equal(children.length, 2);
    for (const child of children) assert.equal(child.ParentShardId, parent!.ShardId);
    await twin.client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'after' }, sk: { N: '1' } } }));
    assert.deepEqual((await readStream(streams, streamArn)).map((record) => record.dynamodb!.Keys!.pk!.S), ['before', 'after']);
  });

  test('DescribeStream ShardFilter CHILD_SHARDS: only the children of the named shard; a bad or missing Type or ShardId refused', async () => {
    const { name, streamArn } = await createStreamTable(twin, 'KEYS_ONLY', { BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } });
    await twin.client.send(new UpdateTableCommand({ TableName: name, ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 2000 } }));
    const [parent, ...children] = (await describeAll(streams, streamArn)).shards;
    assert.equal(children.length, 2);
    const describe = (ShardFilter: ShardFilter, extra: { Limit?: number; ExclusiveStartShardId?: string } = {}) =>
      streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ShardFilter, ...extra }));
    const filtered = await describe({ Type: 'CHILD_SHARDS', ShardId: parent!.ShardId! });
    assert.deepEqual(filtered.StreamDescription!.Shards!.map((shard) => shard.ShardId), children.map((child) => child.ShardId));
    assert.equal(filtered.StreamDescription!.StreamStatus, 'ENABLED');
    // Paging applies to the filtered list.
    const first = await describe({ Type: 'CHILD_SHARDS', ShardId: parent!.ShardId! }, { Limit: 1 });
    assert.deepEqual(first.StreamDescription!.Shards!.map((shard) => shard.ShardId), [children[0]!.ShardId]);
    assert.equal(first.StreamDescription!.LastEvaluatedShardId, children[0]!.ShardId);
    const second = await describe({ Type: 'CHILD_SHARDS', ShardId: parent!.ShardId! }, { ExclusiveStartShardId: children[0]!.ShardId! });
    assert.deepEqual(second.StreamDescription!.Shards!.map((shard) => shard.ShardId), [children[1]!.ShardId]);
    // A shard without children (an open one) answers no shards.
    assert.deepEqual((await describe({ Type: 'CHILD_SHARDS', ShardId: children[0]!.ShardId! })).StreamDescription!.Shards, []);

    await expectDynamoError(
      describe({ Type: 'PARENT_SHARDS' as 'CHILD_SHARDS', ShardId: parent!.ShardId! }),
      'ValidationException',
      "1 validation error detected: Value 'PARENT_SHARDS' at 'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]",
    );
    await expectDynamoError(
      describe({ Type: 'CHILD_SHARDS', ShardId: 'short' }),
      'ValidationException',
      "1 validation error detected: Value 'short' at 'shardFilter.shardId' failed to satisfy constraint: Member must have length greater than or equal to 28",
    );
    await expectDynamoError(
      describe({ ShardId: parent!.ShardId! }),
      'ValidationException',
      "1 validation error detected: Value null at 'shardFilter.type' failed to satisfy constraint: Member must not be null",
    );
    await expectDynamoError(
      describe({ Type: 'CHILD_SHARDS' }),
      'ValidationException',
      "1 validation error detected: Value null at 'shardFilter.shardId' failed to satisfy constraint: Member must not be null",
    );
  });

  test('CreateTable stream rules', async () => {
    const create = (specification: { StreamEnabled: boolean; StreamViewType?: StreamViewType }) =>
      twin.client.send(new CreateTableCommand({ TableName: uniqueTableName('rules'), AttributeDefinitions: attributes({ pk: 'S' }), KeySchema: keySchema('pk'), BillingMode: 'PAY_PER_REQUEST', StreamSpecification: specification }));
    await expectDynamoError(create({ StreamEnabled: true }), 'ValidationException', /UpdateViewType is required/);
    await expectDynamoError(create({ StreamEnabled: false, StreamViewType: 'KEYS_ONLY' }), 'ValidationException', /UpdateViewType should not be specified/);
    const none = await create({ StreamEnabled: false });
    assert.equal(none.TableDescription!.LatestStreamArn, undefined);
  });

  test('ListStreams pages with Limit and ExclusiveStartStreamArn', async () => {
    const tables = [];
    for (let index = 0; index < 3; index++) tables.push(await createStreamTable(twin, 'KEYS_ONLY'));
    const all = (await streams.send(new ListStreamsCommand({}))).Streams!.map((stream) => stream.StreamArn!);
    for (const table of tables) assert.ok(all.includes(table.streamArn));
    const collected: string[] = [];
    let start: string | undefined;
    do {
      const page = await streams.send(new ListStreamsCommand({ Limit: 2, ExclusiveStartStreamArn: start }));
      assert.ok(page.Streams!.length <= 2);
      collected.push(...page.Streams!.map((stream) => stream.StreamArn!));
      start = page.LastEvaluatedStreamArn;
    } while (start !== undefined);
    assert.deepEqual(collected, all);
    const one = (await streams.send(new ListStreamsCommand({ TableName: tables[1]!.name }))).Streams!;
    assert.deepEqual(one, [{ StreamArn: tables[1]!.streamArn, TableName: tables[1]!.name, StreamLabel: tables[1]!.streamArn.split('/stream/')[1] }]);
    // DescribeStream pages its shards the same way.
    const firstPage = (await streams.send(new DescribeStreamCommand({ StreamArn: tables[0]!.streamArn, Limit: 3 }))).StreamDescription!;
    assert.equal(firstPage.Shards!.length, 3);
    const rest = (await streams.send(new DescribeStreamCommand({ StreamArn: tables[0]!.streamArn, ExclusiveStartShardId: firstPage.LastEvaluatedShardId }))).StreamDescription!;
    assert.equal(rest.Shards!.length, 1);
    assert.equal(rest.LastEvaluatedShardId, undefined);
  });

  test('validation and not-found errors, with DynamoDB texts', async () => {
    const { streamArn } = await createStreamTable(twin, 'KEYS_ONLY');
    const { shards } = await describeAll(streams, streamArn);
    const shardId = shards[0]!.ShardId!;
    const missingArn = streamArn.replace('/stream/', '-nope/stream/');
    await expectDynamoError(streams.send(new DescribeStreamCommand({ StreamArn: missingArn })), 'ResourceNotFoundException', `Requested resource not found: Stream: ${missingArn} not found`);
    await expectDynamoError(
      streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: 'shardId-00000000000000000000-ffffffff', ShardIteratorType: 'LATEST' })),
      'ResourceNotFoundException',
      'Requested resource not found: Shard does not exist',
    );
    await expectDynamoError(
      streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'AT_SEQUENCE_NUMBER' })),
      'ValidationException',
      /^Invalid SequenceNumber for ShardIteratorType AT_SEQUENCE_NUMBER/,
    );
    await expectDynamoError(
      streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: '9'.repeat(30) })),
      'ValidationException',
      /^Invalid SequenceNumber/,
    );
    // Types that take no sequence number refuse one (ValidationException, as DynamoDB answers).
    for (const type of ['TRIM_HORIZON', 'LATEST'] as const) {
      const sequence = shards[0]!.SequenceNumberRange!.StartingSequenceNumber!;
      await expectDynamoError(
        streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: type, SequenceNumber: sequence })),
        'ValidationException',
        `Invalid SequenceNumber for ShardIteratorType ${type}: ${sequence}`,
      );
    }
    // Something that is no stream ARN at all is invalid; a well-formed ARN of no stream is not found (above).
    const notAnArn = 'sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfgasf';
    await expectDynamoError(streams.send(new DescribeStreamCommand({ StreamArn: notAnArn })), 'ValidationException', 'Invalid StreamArn');
    await expectDynamoError(streams.send(new GetShardIteratorCommand({ StreamArn: notAnArn, ShardId: shardId, ShardIteratorType: 'LATEST' })), 'ValidationException', 'Invalid StreamArn');
    await expectDynamoError(streams.send(new ListStreamsCommand({ ExclusiveStartStreamArn: notAnArn })), 'ValidationException', 'Invalid StreamArn');
    // An ExclusiveStartShardId the stream does not have is no error: the page is empty.
    const afterUnknown = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: 'shardId-zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz' }));
    assert.deepEqual(afterUnknown.StreamDescription!.Shards, []);
    await expectDynamoError(streams.send(new GetRecordsCommand({ ShardIterator: 'not-an-iterator' })), 'ValidationException', 'Invalid ShardIterator');
    const iterator = (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'LATEST' }))).ShardIterator!;
    await expectDynamoError(
      streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1001 })),
      'ValidationException',
      "1 validation error detected: Value '1001' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 1000",
    );
    await expectDynamoError(streams.send(new GetRecordsCommand({ ShardIterator: iterator.replace(/\|1\|/, '|2|') })), 'ValidationException', 'Invalid ShardIterator');

    // Raw JSON: shape checks run before anything else, as for DynamoDB's own operations.
    const raw = async (target: string, body: unknown) => {
      const response = await rawRequest(twin.twin.endpoint, {
        method: 'POST',
        path: '/',
        headers: { ...SIGNED_HEADERS, 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': `DynamoDBStreams_20120810.${target}` },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: JSON.parse(response.text) as { __type: string; message?: string; Message?: string } };
    };
    const shortArn = await raw('DescribeStream', { StreamArn: 'arn:short' });
    assert.equal(shortArn.status, 400);
    assert.equal(shortArn.body.__type, 'com.amazon.coral.validate#ValidationException');
    assert.equal(shortArn.body.message, "1 validation error detected: Value 'arn:short' at 'streamArn' failed to satisfy constraint: Member must have length greater than or equal to 37");
    const noArn = await raw('DescribeStream', {});
    assert.equal(noArn.body.message, "1 validation error detected: Value null at 'streamArn' failed to satisfy constraint: Member must not be null");
    const badType = await raw('GetShardIterator', { StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'SOMEWHERE' });
    assert.match(badType.body.message!, /Value 'SOMEWHERE' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: \[/);
    const wrongType = await raw('ListStreams', { Limit: 'ten' });
    assert.equal(wrongType.body.__type, 'com.amazon.coral.service#SerializationException');
    const badLimit = await raw('ListStreams', { Limit: 101 });
    assert.match(badLimit.body.message!, /Member must have value less than or equal to 100/);
    const unknown = await raw('PutRecords', {});
    assert.equal(unknown.body.__type, 'com.amazon.coral.service#UnknownOperationException');
  });

  test('shards follow partitions: a split closes the parent and opens two children, in key order', async () => {
    await withTwin({ clock: 'manual', partitionSizeLimitBytes: 16 * 1024 }, async (small) => {
      const smallStreams = streamsClient(small.twin.endpoint);
      try {
        const { name, streamArn } = await createStreamTable(small, 'NEW_IMAGE');
        const before = await describeAll(smallStreams, streamArn);
        assert.equal(before.shards.length, 4);
        // ~100 KB of items (the last rounds overwrite the first ones): every partition passes 16 KB.
        const writes: string[] = [];
        for (let round = 0; round < 25; round++) {
          for (let key = 0; key < 8; key++) {
            const pk = `key-${key}`;
            await small.client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: pk }, sk: { N: String(round % 20) }, round: { N: String(round) }, pad: { S: 'x'.repeat(600) } } }));
            writes.push(`${pk}/${round}`);
          }
        }
        const after = await describeAll(smallStreams, streamArn);
        const closed = after.shards.filter((shard) => shard.SequenceNumberRange!.EndingSequenceNumber !== undefined);
        const children = after.shards.filter((shard) => shard.ParentShardId !== undefined);
        assert.ok(closed.length >= 1, 'a split closed a shard');
        assert.ok(children.length >= 2 * closed.length, 'each closed shard has two children');
        for (const shard of closed) {
          const range = shard.SequenceNumberRange!;
          assert.ok(BigInt(range.EndingSequenceNumber!) >= BigInt(range.StartingSequenceNumber!));
          const own = children.filter((child) => child.ParentShardId === shard.ShardId);
          assert.equal(own.length, 2, `${shard.ShardId} has two children`);
          for (const child of own) assert.ok(BigInt(child.SequenceNumberRange!.StartingSequenceNumber!) > BigInt(range.EndingSequenceNumber!));
        }
        const partitions = JSON.parse((await rawRequest(small.twin.endpoint, { method: 'GET', path: `/dynatwin/tables/${name}/partitions` })).text) as PartitionsDocument;
        const open = after.shards.filter((shard) => shard.SequenceNumberRange!.EndingSequenceNumber === undefined);
        assert.equal(open.length, partitions.partitions.length, 'one open shard per partition');

        // Parent-first reading sees every write once, and each partition key's writes in order.
        const records = await readStream(smallStreams, streamArn);
        assert.equal(records.length, writes.length);
        assert.deepEqual(eventNames(records).filter((event) => event === 'MODIFY').length, 5 * 8);
        const perKey = new Map<string, number[]>();
        for (const record of records) {
          const image = record.dynamodb!.NewImage!;
          perKey.set(image.pk!.S!, [...(perKey.get(image.pk!.S!) ?? []), Number(image.round!.N)]);
        }
        assert.equal(perKey.size, 8);
        for (const [key, rounds] of perKey) assert.deepEqual(rounds, Array.from({ length: 25 }, (_, round) => round), `${key} in write order`);
      } finally {
        smallStreams.destroy();
      }
    });
  });
});

describe('DynamoDB Streams on LMDB across a restart', () => {
  const scratch = scratchDirectories('dynatwin-streams-');
  after(() => scratch.removeAll());

  test('records, shards and the sequence survive a restart; new records sort after the old', async () => {
    const dataDir = scratch.fresh();
    const { name, streamArn, firstRecords } = await withTwin({ dataDir }, async (twin) => {
      const created = await createStreamTable(twin, 'NEW_AND_OLD_IMAGES');
      for (let sk = 0; sk < 20; sk++) await twin.client.send(new PutItemCommand({ TableName: created.name, Item: { pk: { S: `k${sk % 5}` }, sk: { N: String(sk) } } }));
      const client = streamsClient(twin.twin.endpoint);
      const firstRecords = await allRecords(client, created.streamArn);
      client.destroy();
      return { ...created, firstRecords };
    });
    assert.equal(firstRecords.length, 20);
    await withTwin({ dataDir }, async (twin) => {
      const client = streamsClient(twin.twin.endpoint);
      try {
        assert.deepEqual(await allRecords(client, streamArn), firstRecords);
        await twin.client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'k0' }, sk: { N: '0' }, v: { S: 'after' } } }));
        const records = await allRecords(client, streamArn);
        assert.equal(records.length, 21);
        const last = records[20]!;
        assert.equal(last.eventName, 'MODIFY');
        assert.ok(BigInt(last.dynamodb!.SequenceNumber!) > BigInt(firstRecords[19]!.dynamodb!.SequenceNumber!));
      } finally {
        client.destroy();
      }
    });
  });

  test('every view type reads the same images from the write-ahead log and, after a restart, from LMDB (the log holds an item and its record\'s image once)', { skip: embeddedStoreOnly("reads the records from the data directory's LMDB") }, async () => {
    const dataDir = scratch.fresh();
    const viewTypes = ['NEW_AND_OLD_IMAGES', 'NEW_IMAGE', 'OLD_IMAGE', 'KEYS_ONLY'] as const;
    const item = (sk: number, v: string) => ({ pk: { S: 'é€😀' }, sk: { N: String(sk) }, v: { S: v }, m: { M: { l: { L: [{ N: '1.5' }, { BOOL: true }, { NULL: true }] } } } });
    const tables = await withTwin({ dataDir }, async (twin) => {
      const tables: { name: string; streamArn: string; viewType: StreamViewType; records: _Record[] }[] = [];
      for (const viewType of viewTypes) {
        const { name, streamArn } = await createStreamTable(twin, viewType);
        await twin.client.send(new PutItemCommand({ TableName: name, Item: item(1, 'ü"\\') }));
        await twin.client.send(new UpdateItemCommand({ TableName: name, Key: { pk: { S: 'é€😀' }, sk: { N: '1' } }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { S: 'two' } } }));
        await twin.client.send(
          new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: name, Item: item(2, 'a') } }, { Put: { TableName: name, Item: item(1, 'three') } }] }),
        );
        await twin.client.send(new BatchWriteItemCommand({ RequestItems: { [name]: [{ PutRequest: { Item: item(3, 'b') } }, { DeleteRequest: { Key: { pk: { S: 'é€😀' }, sk: { N: '2' } } } }] } }));
        await twin.client.send(new DeleteItemCommand({ TableName: name, Key: { pk: { S: 'é€😀' }, sk: { N: '1' } } }));
        const client = streamsClient(twin.twin.endpoint);
        const records = await allRecords(client, streamArn);
        client.destroy();
        tables.push({ name, streamArn, viewType, records });
      }
      return tables;
    });
    for (const { viewType, records } of tables) {
      const keepsNew = viewType === 'NEW_IMAGE' || viewType === 'NEW_AND_OLD_IMAGES';
      const keepsOld = viewType === 'OLD_IMAGE' || viewType === 'NEW_AND_OLD_IMAGES';
      assert.deepEqual(eventNames(records), ['INSERT', 'MODIFY', 'INSERT', 'MODIFY', 'INSERT', 'REMOVE', 'REMOVE'], viewType);
      const images = records.map((record) => [record.dynamodb!.NewImage?.v?.S, record.dynamodb!.OldImage?.v?.S]);
      const expected = [
        ['ü"\\', undefined],
        ['two', 'ü"\\'],
        ['a', undefined],
        ['three', 'two'],
        ['b', undefined],
        [undefined, 'a'],
        [undefined, 'three'],
      ].map(([newer, older]) => [keepsNew ? newer : undefined, keepsOld ? older : undefined]);
      assert.deepEqual(images, expected, viewType);
      if (keepsNew) assert.deepEqual(records[0]!.dynamodb!.NewImage, item(1, 'ü"\\'), viewType);
    }
    // Records stored before the key was left out beside an image carried it: they read the same.
    const storage = await openStorage({ kind: 'lmdb', path: dataDir });
    let rewritten = 0;
    try {
      const stored = [...storage.range({ start: Buffer.from([0x04]), end: Buffer.from([0x05]) })];
      await storage.write((txn) => {
        for (const { key, value } of stored) {
          const record = value as { e: number; t: number; k?: object; o?: Record<string, unknown>; n?: Record<string, unknown>; u?: 1 };
          const image = record.n ?? record.o;
          if (record.k !== undefined || image === undefined) continue;
          txn.put(key, { e: record.e, t: record.t, k: { pk: image.pk, sk: image.sk }, o: record.o, n: record.n, u: record.u });
          rewritten++;
        }
      });
    } finally {
      await storage.close();
    }
    // Every record with an image was stored without its key: NEW_AND_OLD_IMAGES' 7, NEW_IMAGE's 5 (not its REMOVEs), OLD_IMAGE's 4 (not its INSERTs).
    assert.equal(rewritten, 7 + 5 + 4);
    await withTwin({ dataDir }, async (twin) => {
      const client = streamsClient(twin.twin.endpoint);
      try {
        for (const { streamArn, viewType, records } of tables) assert.deepEqual(await allRecords(client, streamArn), records, viewType);
      } finally {
        client.destroy();
      }
    });
  });

  /** What a closed data directory holds of DynamoDB Streams: stored records and stream descriptions. */
  async function streamsOnDisk(dataDir: string): Promise<{ records: number; streams: number }> {
    const storage = await openStorage({ kind: 'lmdb', path: dataDir });
    try {
      const count = (start: Buffer, end: Buffer) => [...storage.range({ start, end })].length;
      return { records: count(Buffer.from([0x04]), Buffer.from([0x05])), streams: count(STREAM_METAS_START, STREAM_METAS_END) };
    } finally {
      await storage.close();
    }
  }

  test('idle streams: records past 24 hours are deleted from the store by the clock alone (idle table, disabled stream, deleted table)', { skip: embeddedStoreOnly("counts the records in the data directory's LMDB") }, async () => {
    const dataDir = scratch.fresh();
    const put = (twin: TwinClients, table: string, sk: number) => twin.client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: `k${sk % 3}` }, sk: { N: String(sk) } } }));
    const idle = await withTwin({ dataDir, clock: 'manual' }, async (twin) => {
      const idle = await createStreamTable(twin, 'NEW_AND_OLD_IMAGES');
      const disabled = await createStreamTable(twin, 'KEYS_ONLY');
      const deleted = await createStreamTable(twin, 'NEW_IMAGE');
      for (let sk = 0; sk < 40; sk++) await put(twin, idle.name, sk);
      for (let sk = 0; sk < 10; sk++) await put(twin, disabled.name, sk);
      for (let sk = 0; sk < 10; sk++) await put(twin, deleted.name, sk);
      await twin.client.send(new UpdateTableCommand({ TableName: disabled.name, StreamSpecification: { StreamEnabled: false } }));
      await twin.client.send(new DeleteTableCommand({ TableName: deleted.name }));
      return idle;
    });
    assert.deepEqual(await streamsOnDisk(dataDir), { records: 60, streams: 3 }, 'the writes left their records');

    // A manual clock starts at the real time: 23 hours on, with no traffic, nothing is due yet.
    await withTwin({ dataDir, clock: 'manual' }, async (twin) => {
      manualClock(twin).advance(23 * HOUR_MS);
      await twin.twin.settled();
    });
    assert.deepEqual(await streamsOnDisk(dataDir), { records: 60, streams: 3 }, 'nothing younger than 24 hours is deleted');

    await withTwin({ dataDir, clock: 'manual' }, async (twin) => {
      // Past 24 hours and a sweep interval: the sweep's clean-up trims every stream, with no request at all.
      manualClock(twin).advance(DAY_MS + 20_000);
      await twin.twin.settled();
      const streams = streamsClient(twin.twin.endpoint);
      try {
        const listed = (await streams.send(new ListStreamsCommand({}))).Streams!.map((stream) => stream.StreamArn);
        assert.deepEqual(listed, [idle.streamArn], 'the disabled and deleted tables\' streams are gone');
        assert.deepEqual(await readStream(streams, idle.streamArn), []);
      } finally {
        streams.destroy();
      }
    });
    // Deleted, not just hidden: the idle table keeps its (empty) stream; the other two are forgotten.
    assert.deepEqual(await streamsOnDisk(dataDir), { records: 0, streams: 1 });
  });
});
