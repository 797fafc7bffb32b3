/**
 * Any name DynamoDB allows works everywhere: tables, indexes, attributes and tags named like
 * Object.prototype's members (`__proto__`, `constructor`, `toString`, `valueOf`,
 * `hasOwnProperty`) go through every operation that takes a table name, and every answer keyed by
 * such a name (BatchGetItem's Responses, UnprocessedItems / UnprocessedKeys, ConsumedCapacity's
 * index maps, ItemCollectionMetrics) carries it as a member. Driven through the SDK; the answers
 * keyed by name are also read as raw JSON, because the SDK's own deserializer turns a member
 * named `__proto__` into a prototype (JSON.parse keeps it as an own member, as any JSON reader
 * does).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  BatchExecuteStatementCommand,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  CreateBackupCommand,
  CreateTableCommand,
  DeleteBackupCommand,
  DeleteItemCommand,
  DeleteTableCommand,
  DescribeBackupCommand,
  DescribeContinuousBackupsCommand,
  DescribeContributorInsightsCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ExecuteStatementCommand,
  ExecuteTransactionCommand,
  GetItemCommand,
  ListBackupsCommand,
  ListContributorInsightsCommand,
  ListTablesCommand,
  ListTagsOfResourceCommand,
  PutItemCommand,
  QueryCommand,
  RestoreTableFromBackupCommand,
  ScanCommand,
  TagResourceCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  UntagResourceCommand,
  UpdateContinuousBackupsCommand,
  UpdateContributorInsightsCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { CloudWatchClient, GetMetricStatisticsCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeStreamCommand, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { readStream } from './support/streams.js';
import { readFileSync } from 'node:fs';
import { parseScenario, ScenarioError } from '../src/scenarios/schema.js';
import { simulate } from '../src/scenarios/simulate.js';
import { runShardsCommand } from '../src/scenarios/shards-command.js';
import { PassThrough } from 'node:stream';
import { callOperation, rawRequest, SIGNED_HEADERS } from './support/raw.js';
import { startManualTwin, type ManualTwin } from './support/throttling.js';

/** The names under test, and for each the name its LSI takes (a table's index names differ). */
const NAMES: readonly (readonly [table: string, lsi: string])[] = [
  ['__proto__', 'constructor'],
  ['constructor', '__proto__'],
  ['toString', 'valueOf'],
];
/** Attribute names likewise: the GSI's key and a plain attribute are named like prototype members. */
const GSI_KEY = 'hasOwnProperty';
const PLAIN = '__proto__';

type Json = Record<string, unknown>;

/** An operation sent as raw JSON, its answer parsed by JSON.parse (own members, whatever their names). */
async function raw(twin: ManualTwin, operation: string, body: Json): Promise<Json> {
  const { status, answer } = await rawAnswer(twin, operation, body);
  assert.equal(status, 200, `${operation}: ${JSON.stringify(answer)}`);
  return answer;
}

async function rawAnswer(twin: ManualTwin, operation: string, body: Json): Promise<{ status: number; answer: Json }> {
  const response = await callOperation(twin.twin.endpoint, operation, JSON.stringify(body));
  return { status: response.status, answer: JSON.parse(response.text) as Json };
}

/**
 * Sends a batch until part of it comes back unprocessed: a whole batch refused (400) moves the
 * manual clock two seconds, so a unit or two refill and the next batch is served in part.
 */
async function partlyThrottled(twin: ManualTwin, operation: string, body: Json, member: string): Promise<Json> {
  for (let round = 0; round < 200; round++) {
    const { status, answer } = await rawAnswer(twin, operation, body);
    if (status === 200 && Object.keys(own(answer, member) as Json).length > 0) return answer;
    if (status !== 200) {
      assert.match(String(answer.__type), /ProvisionedThroughputExceededException$/);
      twin.clock.advance(2000);
    }
  }
  assert.fail(`${operation} never came back in part unprocessed`);
}

/** A DynamoDB Streams operation as raw JSON (its own target prefix), parsed by JSON.parse. */
async function callStreams(twin: ManualTwin, operation: string, body: Json): Promise<Json> {
  const response = await rawRequest(twin.twin.endpoint, {
    headers: { ...SIGNED_HEADERS, 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDBStreams_20120810.' + operation },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200, `${operation}: ${response.text}`);
  return JSON.parse(response.text) as Json;
}

/** The SDK's deserializer assigns map members with `record[key] = value`, which drops a `__proto__` key. */
const SDK_KEEPS = (name: string): boolean => name !== '__proto__';

function own(record: unknown, name: string): unknown {
  assert.ok(typeof record === 'object' && record !== null, `an object holding ${name}`);
  assert.ok(Object.hasOwn(record, name), `${JSON.stringify(record)} has a member ${name}`);
  return (record as Json)[name];
}

function item(id: string, sort: string, extra: Record<string, AttributeValue> = {}): Record<string, AttributeValue> {
  return { pk: { S: id }, sk: { S: sort }, [GSI_KEY]: { S: 'g-' + id }, lsiSort: { S: 'l-' + sort }, ...extra };
}

async function createTable(client: DynamoDBClient, table: string, lsi: string, billing: 'on-demand' | 'tiny'): Promise<void> {
  const throughput = billing === 'tiny' ? { ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } } : {};
  await client.send(
    new CreateTableCommand({
      TableName: table,
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: GSI_KEY, AttributeType: 'S' },
        { AttributeName: 'lsiSort', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [{ IndexName: table, KeySchema: [{ AttributeName: GSI_KEY, KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' }, ...throughput }],
      LocalSecondaryIndexes: [
        {
          IndexName: lsi,
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'lsiSort', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      ...(billing === 'tiny' ? throughput : { BillingMode: 'PAY_PER_REQUEST' }),
    }),
  );
}

/** The ConsumedCapacity of an INDEXES answer charged the table, the GSI and the LSI by their names. */
function chargedEveryIndex(capacity: unknown, table: string, lsi: string): void {
  assert.equal(own(capacity, 'TableName'), table);
  assert.ok((own(own(own(capacity, 'GlobalSecondaryIndexes'), table), 'CapacityUnits') as number) > 0);
  assert.ok((own(own(own(capacity, 'LocalSecondaryIndexes'), lsi), 'CapacityUnits') as number) > 0);
}

describe('tables, indexes, attributes and tags named like Object.prototype members', () => {
  for (const [table, lsi] of NAMES) {
    test(`every operation on a table named ${table} (GSI ${table}, LSI ${lsi})`, async () => {
      const twin = await startManualTwin();
      const streams = new DynamoDBStreamsClient({ endpoint: twin.twin.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' }, maxAttempts: 1 });
      try {
        const { client } = twin;
        const startedMs = twin.clock.nowMs();
        await createTable(client, table, lsi, 'on-demand');
        const described = (await client.send(new DescribeTableCommand({ TableName: table }))).Table!;
        assert.equal(described.TableName, table);
        assert.deepEqual(described.GlobalSecondaryIndexes?.map((index) => index.IndexName), [table]);
        assert.deepEqual(described.LocalSecondaryIndexes?.map((index) => index.IndexName), [lsi]);
        assert.ok((await client.send(new ListTablesCommand({}))).TableNames?.includes(table));

        // Single-item writes and reads, the attribute named __proto__ included.
        const put = await raw(twin, 'PutItem', { TableName: table, Item: item('a', '1', { [PLAIN]: { S: 'kept' } }), ReturnConsumedCapacity: 'INDEXES' });
        chargedEveryIndex(own(put, 'ConsumedCapacity'), table, lsi);
        const got = await raw(twin, 'GetItem', { TableName: table, Key: { pk: { S: 'a' }, sk: { S: '1' } }, ConsistentRead: true });
        assert.deepEqual(own(own(own(got, 'Item'), PLAIN), 'S'), 'kept');
        const sdkGot = await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'a' }, sk: { S: '1' } }, ConsistentRead: true }));
        assert.equal(sdkGot.Item?.pk?.S, 'a');
        const updated = await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: { pk: { S: 'a' }, sk: { S: '1' } },
            UpdateExpression: 'SET #n = :v',
            ExpressionAttributeNames: { '#n': 'constructor' },
            ExpressionAttributeValues: { ':v': { N: '7' } },
            ReturnValues: 'ALL_NEW',
          }),
        );
        assert.equal(updated.Attributes?.['constructor']?.N, '7');
        await client.send(new PutItemCommand({ TableName: table, Item: item('b', '1') }));
        const deleted = await client.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: 'b' }, sk: { S: '1' } }, ReturnValues: 'ALL_OLD' }));
        assert.equal(deleted.Attributes?.pk?.S, 'b');

        // Batches: answers keyed by the table's name.
        const written = await raw(twin, 'BatchWriteItem', {
          RequestItems: { [table]: [{ PutRequest: { Item: item('c', '1') } }, { PutRequest: { Item: item('c', '2') } }] },
          ReturnConsumedCapacity: 'INDEXES',
          ReturnItemCollectionMetrics: 'SIZE',
        });
        assert.deepEqual(own(written, 'UnprocessedItems'), {});
        chargedEveryIndex((own(written, 'ConsumedCapacity') as unknown[])[0], table, lsi);
        assert.equal((own(own(written, 'ItemCollectionMetrics'), table) as unknown[]).length, 2);
        const batchGet = await raw(twin, 'BatchGetItem', {
          RequestItems: { [table]: { Keys: [{ pk: { S: 'a' }, sk: { S: '1' } }, { pk: { S: 'c' }, sk: { S: '2' } }], ConsistentRead: true } },
          ReturnConsumedCapacity: 'TOTAL',
        });
        const found = own(own(batchGet, 'Responses'), table) as Json[];
        assert.deepEqual(found.map((entry) => (own(entry, 'pk') as Json).S).sort(), ['a', 'c']);
        assert.deepEqual(own(batchGet, 'UnprocessedKeys'), {});
        assert.deepEqual(own(batchGet, 'ConsumedCapacity'), [{ TableName: table, CapacityUnits: 2 }]);
        const sdkBatchGet = await client.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys: [{ pk: { S: 'c' }, sk: { S: '1' } }] } } }));
        if (SDK_KEEPS(table)) assert.equal(sdkBatchGet.Responses?.[table]?.[0]?.pk?.S, 'c');
        const sdkBatchWrite = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: [{ DeleteRequest: { Key: { pk: { S: 'c' }, sk: { S: '2' } } } }] } }));
        assert.equal(Object.keys(sdkBatchWrite.UnprocessedItems ?? {}).length, 0);

        // Transactions.
        const transactWrite = await raw(twin, 'TransactWriteItems', {
          TransactItems: [
            { Put: { TableName: table, Item: item('d', '1') } },
            { Update: { TableName: table, Key: { pk: { S: 'a' }, sk: { S: '1' } }, UpdateExpression: 'SET #t = :t', ExpressionAttributeNames: { '#t': 'toString' }, ExpressionAttributeValues: { ':t': { S: 'x' } } } },
          ],
          ReturnConsumedCapacity: 'INDEXES',
          ReturnItemCollectionMetrics: 'SIZE',
        });
        chargedEveryIndex((own(transactWrite, 'ConsumedCapacity') as unknown[])[0], table, lsi);
        assert.equal((own(own(transactWrite, 'ItemCollectionMetrics'), table) as unknown[]).length, 2);
        const transactGet = await client.send(
          new TransactGetItemsCommand({
            TransactItems: [{ Get: { TableName: table, Key: { pk: { S: 'd' }, sk: { S: '1' } } } }, { Get: { TableName: table, Key: { pk: { S: 'a' }, sk: { S: '1' } } } }],
            ReturnConsumedCapacity: 'TOTAL',
          }),
        );
        assert.deepEqual(transactGet.Responses?.map((response) => response.Item?.pk?.S), ['d', 'a']);
        assert.equal(transactGet.ConsumedCapacity?.[0]?.TableName, table);
        await client.send(new TransactWriteItemsCommand({ TransactItems: [{ Delete: { TableName: table, Key: { pk: { S: 'd' }, sk: { S: '1' } } } }] }));

        // Query and Scan: the table, the GSI and the LSI by their names.
        const onTable = await client.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'c' } } }));
        assert.equal(onTable.Count, 1);
        const onGsi = await raw(twin, 'Query', {
          TableName: table,
          IndexName: table,
          KeyConditionExpression: '#g = :g',
          ExpressionAttributeNames: { '#g': GSI_KEY },
          ExpressionAttributeValues: { ':g': { S: 'g-a' } },
          ReturnConsumedCapacity: 'INDEXES',
        });
        assert.equal(own(onGsi, 'Count'), 1);
        assert.ok((own(own(own(own(onGsi, 'ConsumedCapacity'), 'GlobalSecondaryIndexes'), table), 'CapacityUnits') as number) > 0);
        const onLsi = await raw(twin, 'Query', {
          TableName: table,
          IndexName: lsi,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': { S: 'a' } },
          ReturnConsumedCapacity: 'INDEXES',
        });
        assert.equal(own(onLsi, 'Count'), 1);
        assert.ok((own(own(own(own(onLsi, 'ConsumedCapacity'), 'LocalSecondaryIndexes'), lsi), 'CapacityUnits') as number) > 0);
        assert.equal((await client.send(new ScanCommand({ TableName: table }))).Count, 2);
        assert.equal((await client.send(new ScanCommand({ TableName: table, IndexName: table }))).Count, 2);
        assert.equal((await client.send(new ScanCommand({ TableName: table, IndexName: lsi }))).Count, 2);

        // PartiQL.
        const statement = await client.send(new ExecuteStatementCommand({ Statement: `SELECT * FROM "${table}" WHERE pk = 'a'`, ConsistentRead: true }));
        assert.equal(statement.Items?.length, 1);
        const onIndex = await client.send(new ExecuteStatementCommand({ Statement: `SELECT pk FROM "${table}"."${table}" WHERE "${GSI_KEY}" = 'g-c'` }));
        assert.deepEqual(onIndex.Items, [{ pk: { S: 'c' } }]);
        await client.send(new ExecuteStatementCommand({ Statement: `INSERT INTO "${table}" VALUE {'pk': 'e', 'sk': '1', '${PLAIN}': 'p'}` }));
        const batchStatements = await client.send(
          new BatchExecuteStatementCommand({
            Statements: [{ Statement: `UPDATE "${table}" SET "valueOf" = 1 WHERE pk = 'e' AND sk = '1'` }, { Statement: `UPDATE "${table}" SET "toString" = 2 WHERE pk = 'a' AND sk = '1'` }],
            ReturnConsumedCapacity: 'TOTAL',
          }),
        );
        assert.deepEqual(batchStatements.Responses?.map((response) => response.Error?.Code), [undefined, undefined]);
        assert.equal(batchStatements.Responses?.[0]?.TableName, table);
        const transaction = await client.send(
          new ExecuteTransactionCommand({ TransactStatements: [{ Statement: `DELETE FROM "${table}" WHERE pk = 'e' AND sk = '1'` }], ReturnConsumedCapacity: 'TOTAL' }),
        );
        assert.equal(transaction.ConsumedCapacity?.[0]?.TableName, table);

        // Table settings: UpdateTable (a stream), TTL, tags, backups, Contributor Insights.
        await client.send(new UpdateTableCommand({ TableName: table, StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } }));
        await client.send(new PutItemCommand({ TableName: table, Item: item('s', '1') }));
        const streamArn = (await client.send(new DescribeTableCommand({ TableName: table }))).Table?.LatestStreamArn;
        assert.ok(streamArn?.includes(`table/${table}/stream/`));
        const stream = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
        assert.equal(stream.StreamDescription?.TableName, table);
        const records = await readStream(streams, streamArn!);
        assert.deepEqual(records.map((record) => record.dynamodb?.Keys?.pk?.S), ['s']);

        await client.send(new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { Enabled: true, AttributeName: 'constructor' } }));
        const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: table }));
        assert.equal(ttl.TimeToLiveDescription?.AttributeName, 'constructor');

        const arn = described.TableArn!;
        await client.send(new TagResourceCommand({ ResourceArn: arn, Tags: [{ Key: table, Value: 'one' }, { Key: GSI_KEY, Value: 'two' }] }));
        const tags = await client.send(new ListTagsOfResourceCommand({ ResourceArn: arn }));
        assert.deepEqual(tags.Tags?.map((tag) => `${tag.Key}=${tag.Value}`).sort(), [`${table}=one`, `${GSI_KEY}=two`].sort());
        await client.send(new UntagResourceCommand({ ResourceArn: arn, TagKeys: [table] }));
        assert.deepEqual((await client.send(new ListTagsOfResourceCommand({ ResourceArn: arn }))).Tags?.map((tag) => tag.Key), [GSI_KEY]);

        const backup = await client.send(new CreateBackupCommand({ TableName: table, BackupName: table }));
        const backupArn = backup.BackupDetails?.BackupArn;
        assert.ok(backupArn !== undefined);
        const backupDescription = await client.send(new DescribeBackupCommand({ BackupArn: backupArn }));
        assert.equal(backupDescription.BackupDescription?.SourceTableDetails?.TableName, table);
        assert.deepEqual(backupDescription.BackupDescription?.SourceTableFeatureDetails?.GlobalSecondaryIndexes?.map((index) => index.IndexName), [table]);
        const backups = await client.send(new ListBackupsCommand({ TableName: table }));
        assert.deepEqual(backups.BackupSummaries?.map((summary) => summary.TableName), [table]);
        // Restored into a table named like a prototype member too, its GSI and LSI names kept.
        const restoredName = GSI_KEY;
        await client.send(new RestoreTableFromBackupCommand({ BackupArn: backupArn, TargetTableName: restoredName }));
        const restored = (await client.send(new DescribeTableCommand({ TableName: restoredName }))).Table!;
        assert.deepEqual(restored.GlobalSecondaryIndexes?.map((index) => index.IndexName), [table]);
        assert.deepEqual(restored.LocalSecondaryIndexes?.map((index) => index.IndexName), [lsi]);
        await twin.twin.settled();
        const restoredItems = await raw(twin, 'Scan', { TableName: restoredName, IndexName: table });
        assert.ok((own(restoredItems, 'Count') as number) > 0);
        await client.send(new DeleteTableCommand({ TableName: restoredName }));
        await client.send(new DeleteBackupCommand({ BackupArn: backupArn }));
        await client.send(new UpdateContinuousBackupsCommand({ TableName: table, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }));
        const continuous = await client.send(new DescribeContinuousBackupsCommand({ TableName: table }));
        assert.equal(continuous.ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus, 'ENABLED');

        await client.send(new UpdateContributorInsightsCommand({ TableName: table, ContributorInsightsAction: 'ENABLE' }));
        await client.send(new UpdateContributorInsightsCommand({ TableName: table, IndexName: table, ContributorInsightsAction: 'ENABLE' }));
        const insights = await client.send(new DescribeContributorInsightsCommand({ TableName: table, IndexName: table }));
        assert.equal(insights.IndexName, table);
        const listed = await client.send(new ListContributorInsightsCommand({ TableName: table }));
        assert.deepEqual(listed.ContributorInsightsSummaries?.map((summary) => summary.IndexName ?? '(table)').sort(), ['(table)', table].sort());

        // CloudWatch: the table's and its GSI's consumed units under their names, a minute later.
        twin.clock.advance(60_000);
        const cloudWatch = new CloudWatchClient({ endpoint: twin.twin.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' }, maxAttempts: 1 });
        try {
          for (const dimensions of [[{ Name: 'TableName', Value: table }], [{ Name: 'TableName', Value: table }, { Name: 'GlobalSecondaryIndexName', Value: table }]]) {
            const statistics = await cloudWatch.send(
              new GetMetricStatisticsCommand({
                Namespace: 'AWS/DynamoDB',
                MetricName: 'ConsumedWriteCapacityUnits',
                Dimensions: dimensions,
                StartTime: new Date(startedMs - 60_000),
                EndTime: new Date(twin.clock.nowMs()),
                Period: 60,
                Statistics: ['Sum'],
              }),
            );
            const sum = (statistics.Datapoints ?? []).reduce((total, point) => total + (point.Sum ?? 0), 0);
            assert.ok(sum > 0, `consumed write units under ${JSON.stringify(dimensions)}: ${sum}`);
          }
        } finally {
          cloudWatch.destroy();
        }

        // dynatwin's own view of the table's partitions, its GSI keyed by name.
        const partitions = (await (await fetch(`${twin.twin.endpoint}/dynatwin/tables/${encodeURIComponent(table)}/partitions`)).json()) as Json;
        assert.ok(Array.isArray((own(own(partitions, 'indexes'), table) as Json).partitions));

        await client.send(new DeleteTableCommand({ TableName: table }));
        assert.ok(!(await client.send(new ListTablesCommand({}))).TableNames?.includes(table));
      } finally {
        streams.destroy();
        await twin.close();
      }
    });

    test(`key attributes named ${table} and ${lsi}: items, PartiQL and batches address them`, async () => {
      const twin = await startManualTwin();
      try {
        const { client } = twin;
        await client.send(
          new CreateTableCommand({
            TableName: table,
            AttributeDefinitions: [
              { AttributeName: table, AttributeType: 'S' },
              { AttributeName: lsi, AttributeType: 'S' },
            ],
            KeySchema: [
              { AttributeName: table, KeyType: 'HASH' },
              { AttributeName: lsi, KeyType: 'RANGE' },
            ],
            BillingMode: 'PAY_PER_REQUEST',
          }),
        );
        const key = { [table]: { S: 'h' }, [lsi]: { S: 'r' } };
        await raw(twin, 'PutItem', { TableName: table, Item: { ...key, v: { N: '1' } } });
        await client.send(new ExecuteStatementCommand({ Statement: `UPDATE "${table}" SET v = 2 WHERE "${table}" = 'h' AND "${lsi}" = 'r'` }));
        const got = await raw(twin, 'GetItem', { TableName: table, Key: key, ConsistentRead: true });
        assert.deepEqual(own(own(got, 'Item'), 'v'), { N: '2' });
        assert.deepEqual(own(own(own(got, 'Item'), table), 'S'), 'h');
        const selected = await raw(twin, 'ExecuteStatement', { Statement: `SELECT * FROM "${table}" WHERE "${table}" = 'h' AND "${lsi}" = 'r'`, ConsistentRead: true });
        assert.deepEqual(own((own(selected, 'Items') as unknown[])[0], lsi), { S: 'r' });
        // The legacy parameters, keyed by attribute name: AttributeUpdates, Expected, KeyConditions.
        await raw(twin, 'UpdateItem', {
          TableName: table,
          Key: key,
          AttributeUpdates: JSON.parse('{"hasOwnProperty":{"Action":"PUT","Value":{"S":"t"}}}') as Json,
          Expected: JSON.parse(`{"${table}":{"Value":{"S":"h"}},"isPrototypeOf":{"Exists":false}}`) as Json,
        });
        const legacyQuery = await raw(twin, 'Query', { TableName: table, KeyConditions: JSON.parse(`{"${table}":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"h"}]}}`) as Json });
        assert.equal(own(legacyQuery, 'Count'), 1);
        assert.deepEqual(own((own(legacyQuery, 'Items') as unknown[])[0], 'hasOwnProperty'), { S: 't' });
        const batch = await raw(twin, 'BatchGetItem', { RequestItems: { [table]: { Keys: [key] } } });
        assert.equal((own(own(batch, 'Responses'), table) as unknown[]).length, 1);
        await client.send(new ExecuteStatementCommand({ Statement: `DELETE FROM "${table}" WHERE "${table}" = 'h' AND "${lsi}" = 'r'` }));
        assert.deepEqual(await raw(twin, 'GetItem', { TableName: table, Key: key }), {});
        // A stream's records carry the key under its names (a KEYS_ONLY stream keeps no image).
        await client.send(new UpdateTableCommand({ TableName: table, StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' } }));
        await raw(twin, 'PutItem', { TableName: table, Item: { ...key, v: { N: '3' } } });
        const streamArn = (await client.send(new DescribeTableCommand({ TableName: table }))).Table!.LatestStreamArn!;
        const streamsRaw = await callStreams(twin, 'DescribeStream', { StreamArn: streamArn });
        const records: Json[] = [];
        for (const shard of own(own(streamsRaw, 'StreamDescription'), 'Shards') as Json[]) {
          const iterator = await callStreams(twin, 'GetShardIterator', { StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' });
          records.push(...(own(await callStreams(twin, 'GetRecords', { ShardIterator: own(iterator, 'ShardIterator') }), 'Records') as Json[]));
        }
        assert.deepEqual(records.map((record) => own(own(record, 'dynamodb'), 'Keys')), [key]);
      } finally {
        await twin.close();
      }
    });

    test(`throttled batches on a 1-unit table named ${table} return Unprocessed* under its name`, async () => {
      const twin = await startManualTwin();
      try {
        await createTable(twin.client, table, lsi, 'tiny');
        const requests = Array.from({ length: 25 }, (_, index) => ({ PutRequest: { Item: item(`t${index}`, '1') } }));
        const written = await partlyThrottled(twin, 'BatchWriteItem', { RequestItems: { [table]: requests }, ReturnConsumedCapacity: 'TOTAL' }, 'UnprocessedItems');
        const unprocessedItems = own(own(written, 'UnprocessedItems'), table) as unknown[];
        assert.ok(unprocessedItems.length > 0 && unprocessedItems.length < 25, `some of 25 items unprocessed: ${unprocessedItems.length}`);
        assert.equal(own((own(written, 'ConsumedCapacity') as unknown[])[0], 'TableName'), table);
        if (SDK_KEEPS(table)) {
          twin.clock.advance(2000);
          const sdkWrite = await twin.client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
          assert.ok((sdkWrite.UnprocessedItems?.[table]?.length ?? 0) > 0, 'the SDK sees the unprocessed items under the name');
        }

        const keys = Array.from({ length: 100 }, (_, index) => ({ pk: { S: `t${index % 25}` }, sk: { S: String(index) } }));
        const read = await partlyThrottled(twin, 'BatchGetItem', { RequestItems: { [table]: { Keys: keys, ConsistentRead: true } }, ReturnConsumedCapacity: 'TOTAL' }, 'UnprocessedKeys');
        const unprocessedKeys = own(own(own(read, 'UnprocessedKeys'), table), 'Keys') as unknown[];
        assert.ok(unprocessedKeys.length > 0 && unprocessedKeys.length < 100, `some of 100 keys unprocessed: ${unprocessedKeys.length}`);
        assert.ok(Array.isArray(own(own(read, 'Responses'), table)));
        assert.equal(own((own(read, 'ConsumedCapacity') as unknown[])[0], 'TableName'), table);
      } finally {
        await twin.close();
      }
    });
  }

  test('a fault rule keyed on an attribute named __proto__ faults that key only', async () => {
    const twin = await startManualTwin();
    try {
      await twin.client.send(
        new CreateTableCommand({ TableName: 'faulted', AttributeDefinitions: [{ AttributeName: '__proto__', AttributeType: 'S' }], KeySchema: [{ AttributeName: '__proto__', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }),
      );
      const installed = await fetch(`${twin.twin.endpoint}/dynatwin/faults`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"operation":"GetItem","key":{"__proto__":{"S":"broken"}},"error":"InternalServerError"}',
      });
      assert.equal(installed.status, 201, await installed.text());
      assert.equal((await rawAnswer(twin, 'GetItem', { TableName: 'faulted', Key: JSON.parse('{"__proto__":{"S":"fine"}}') as Json })).status, 200);
      const broken = await callOperation(twin.twin.endpoint, 'GetItem', '{"TableName":"faulted","Key":{"__proto__":{"S":"broken"}}}');
      assert.equal(broken.status, 500, broken.text);
    } finally {
      await twin.close();
    }
  });

  test('simulate: a hot key on a table named constructor keyed by an attribute named __proto__ is named', async () => {
    const report = await simulate({
      name: 'prototype-names',
      client: { retries: 'none' },
      variants: [
        {
          name: 'counters',
          tables: [{ TableName: 'constructor', AttributeDefinitions: [{ AttributeName: '__proto__', AttributeType: 'S' }], KeySchema: [{ AttributeName: '__proto__', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }],
        },
      ],
      workload: {
        phases: [
          {
            durationSeconds: 20,
            operations: [
              {
                operation: 'UpdateItem',
                table: 'constructor',
                requestsPerSecond: 1500,
                key: JSON.parse('{"__proto__":{"choice":{"values":["page#home","page#about"],"weights":[95,5]}}}') as Record<string, unknown>,
                updateExpression: 'ADD hits :one',
                values: { ':one': { constant: 1 } },
              },
            ],
          },
        ],
      },
    });
    const [variant] = report.variants;
    assert.ok(variant!.totals.accepted > 0);
    const finding = variant!.findings.find((candidate) => candidate.code === 'HOT_KEY_AT_PARTITION_CEILING');
    assert.ok(finding, JSON.stringify(variant!.findings));
    assert.equal(finding.figures.key, 'page#home');
    assert.equal(finding.resource, 'constructor');
  });

  test('a scenario capacity setting named like a prototype member is refused as unknown', () => {
    for (const name of ['constructor', 'toString', '__proto__']) {
      const document = JSON.parse(readFileSync(new URL('../../examples/scenarios/status-gsi.json', import.meta.url), 'utf8')) as { server: Record<string, unknown> };
      document.server.capacitySettings = JSON.parse(`{"${name}": 1}`) as Record<string, unknown>;
      assert.throws(() => parseScenario(document), (error: unknown) => error instanceof ScenarioError && error.message.includes('is not a capacity setting'), name);
    }
  });

  test('dynatwin shards --values takes values named like prototype members', () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const status = runShardsCommand(['--partitions', '4', '--values', 'constructor=3,__proto__=2,toString=1'], { stdout, stderr });
    assert.equal(status, 0, String(stderr.read() ?? ''));
    const printed = String(stdout.read());
    for (const value of ['constructor', '__proto__', 'toString']) assert.match(printed, new RegExp(`${value}: \\d+ \\(${value}#1`), printed);
  });
});
