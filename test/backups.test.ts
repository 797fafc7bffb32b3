/**
 * On-demand backups through the SDK: a backup holds the table as it was at CreateBackup (items,
 * GSI and LSI query results after a restore), even when writes change the table while the backup
 * is copied; list, describe and delete with DynamoDB's errors; backups outlive their source table
 * and a restart of the persistent store.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import {
  CreateBackupCommand,
  DeleteBackupCommand,
  DeleteItemCommand,
  DeleteTableCommand,
  DescribeBackupCommand,
  DescribeTableCommand,
  ListBackupsCommand,
  PutItemCommand,
  RestoreTableFromBackupCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import { createBackupOperation } from '../src/operations/createBackup.js';
import { deleteBackupOperation } from '../src/operations/deleteBackup.js';
import { restoreTableFromBackupOperation } from '../src/operations/restoreTableFromBackup.js';
import { deleteItemOperation } from '../src/operations/deleteItem.js';
import { invokeOperation } from '../src/operations/invoke.js';
import { putItemOperation } from '../src/operations/putItem.js';
import { updateItemOperation } from '../src/operations/updateItem.js';
import { DEFAULT_SERVER_OPTIONS, startServer, type RunningServer } from '../src/server/server.js';
import { expectDynamoError, sdkClient, startTwinWithClients, uniqueTableName, withTwin, type TwinClients } from './support/twin.js';
import { scratchDirectories } from './support/scratch.js';
import { contentsOf, createIndexedTable, indexAnswersOf, itemOf, putAll, seededRandom, statusOf, waitActive } from './support/backup-tables.js';
import { testServerOptions } from './support/test-store.js';

describe('on-demand backups', () => {
  let twin: TwinClients;
  let clock: ManualClock;
  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual' });
    clock = twin.twin.clock as ManualClock;
  });
  after(() => twin.close());

  test('backup, change the items, restore: the restored table and its indexes are the table at backup time', async () => {
    const { client } = twin;
    const source = uniqueTableName('bk-src');
    await createIndexedTable(client, source);
    const original = Array.from({ length: 40 }, (_, at) => itemOf(at % 8, at, 1));
    await putAll(client, source, original);
    const expectedItems = await contentsOf(client, source);
    const expectedIndexes = await indexAnswersOf(client, source, 8);
    const expectedGsi = await contentsOf(client, source, 'byG');

    const created = await client.send(new CreateBackupCommand({ TableName: source, BackupName: 'first' }));
    const details = created.BackupDetails!;
    assert.equal(details.BackupStatus, 'CREATING');
    assert.equal(details.BackupType, 'USER');
    assert.equal(details.BackupName, 'first');
    assert.match(details.BackupArn!, new RegExp(`^arn:aws:dynamodb:us-east-1:\\d{12}:table/${source}/backup/\\d{14}-[0-9a-f]{8}$`));
    assert.equal(details.BackupCreationDateTime!.getTime(), clock.nowMs());

    // Change everything the backup holds, in every way.
    await client.send(new UpdateItemCommand({ TableName: source, Key: { pk: { S: 'p0' }, sk: { N: '0' } }, UpdateExpression: 'SET v = :v, g = :g', ExpressionAttributeValues: { ':v': { N: '9' }, ':g': { S: 'g9' } } }));
    await client.send(new DeleteItemCommand({ TableName: source, Key: { pk: { S: 'p1' }, sk: { N: '1' } } }));
    await client.send(new PutItemCommand({ TableName: source, Item: itemOf(9, 99, 7) }));
    await twin.twin.settled();

    const described = await client.send(new DescribeBackupCommand({ BackupArn: details.BackupArn }));
    const description = described.BackupDescription!;
    assert.equal(description.BackupDetails?.BackupStatus, 'AVAILABLE');
    assert.ok(description.BackupDetails!.BackupSizeBytes! > 0);
    assert.equal(description.SourceTableDetails?.ItemCount, 40);
    assert.equal(description.SourceTableDetails?.TableName, source);
    assert.equal(description.SourceTableDetails?.BillingMode, 'PAY_PER_REQUEST');
    assert.deepEqual(description.SourceTableFeatureDetails?.GlobalSecondaryIndexes?.map((index) => index.IndexName), ['byG']);
    assert.deepEqual(description.SourceTableFeatureDetails?.LocalSecondaryIndexes?.map((index) => index.IndexName), ['byL']);

    const target = uniqueTableName('bk-dst');
    const restored = await client.send(new RestoreTableFromBackupCommand({ BackupArn: details.BackupArn, TargetTableName: target }));
    assert.equal(restored.TableDescription?.TableStatus, 'CREATING');
    const summary = restored.TableDescription?.RestoreSummary;
    assert.equal(summary?.RestoreInProgress, true);
    assert.equal(summary?.SourceBackupArn, details.BackupArn);
    assert.equal(summary?.RestoreDateTime?.getTime(), details.BackupCreationDateTime!.getTime());
    await twin.twin.settled();
    const table = (await client.send(new DescribeTableCommand({ TableName: target }))).Table!;
    assert.equal(table.TableStatus, 'ACTIVE');
    assert.equal(table.ItemCount, 40);
    // DynamoDB drops RestoreSummary once the restored table is ACTIVE.
    assert.equal(table.RestoreSummary, undefined);
    assert.equal(table.GlobalSecondaryIndexes?.[0]?.IndexStatus, 'ACTIVE');
    assert.deepEqual(await contentsOf(client, target), expectedItems);
    assert.deepEqual(await contentsOf(client, target, 'byG'), expectedGsi);
    assert.deepEqual(await indexAnswersOf(client, target, 8), expectedIndexes);
    // The source did change.
    assert.notDeepEqual(await contentsOf(client, source), expectedItems);
  });

  test('writes made after CreateBackup answered do not reach the backup of a large table', async () => {
    const { client } = twin;
    const source = uniqueTableName('bk-race');
    await createIndexedTable(client, source);
    // More items than one copy chunk, so the copy takes several turns while the writes below run.
    const count = 700;
    await putAll(client, source, Array.from({ length: count }, (_, at) => itemOf(at % 50, at, 1)));
    const expected = await contentsOf(client, source);
    const created = await client.send(new CreateBackupCommand({ TableName: source, BackupName: 'race' }));
    // Rewrite, delete and add items while the copy runs, without waiting for it.
    const writes: Promise<unknown>[] = [];
    for (let at = 0; at < count; at += 7) {
      writes.push(client.send(new PutItemCommand({ TableName: source, Item: itemOf(at % 50, at, 2) })));
      writes.push(client.send(new DeleteItemCommand({ TableName: source, Key: { pk: { S: `p${(at + 3) % 50}` }, sk: { N: String(at + 3) } } })));
      writes.push(client.send(new PutItemCommand({ TableName: source, Item: itemOf(at % 50, count + at, 3) })));
    }
    await Promise.all(writes);
    await twin.twin.settled();
    const backup = (await client.send(new DescribeBackupCommand({ BackupArn: created.BackupDetails!.BackupArn }))).BackupDescription!;
    assert.equal(backup.BackupDetails?.BackupStatus, 'AVAILABLE');
    assert.equal(backup.SourceTableDetails?.ItemCount, count);
    const target = uniqueTableName('bk-race-dst');
    await client.send(new RestoreTableFromBackupCommand({ BackupArn: created.BackupDetails!.BackupArn, TargetTableName: target }));
    await twin.twin.settled();
    assert.deepEqual(await contentsOf(client, target), expected);
  });

  test('ListBackups filters by table, time range and type, and pages', async () => {
    const { client } = twin;
    const table = uniqueTableName('bk-list');
    const other = uniqueTableName('bk-other');
    await createIndexedTable(client, table);
    await createIndexedTable(client, other);
    const startMs = clock.nowMs();
    const arns: string[] = [];
    for (let at = 0; at < 5; at++) {
      clock.advance(1000);
      arns.push((await client.send(new CreateBackupCommand({ TableName: table, BackupName: `bk${at}` }))).BackupDetails!.BackupArn!);
    }
    await client.send(new CreateBackupCommand({ TableName: other, BackupName: 'elsewhere' }));
    await twin.twin.settled();

    const all = await client.send(new ListBackupsCommand({ TableName: table }));
    assert.deepEqual(all.BackupSummaries?.map((summary) => summary.BackupArn), arns);
    assert.equal(all.LastEvaluatedBackupArn, undefined);
    assert.equal(all.BackupSummaries?.[0]?.BackupStatus, 'AVAILABLE');
    assert.equal(all.BackupSummaries?.[0]?.TableName, table);

    const pages: string[] = [];
    let start: string | undefined;
    do {
      const page = await client.send(new ListBackupsCommand({ TableName: table, Limit: 2, ExclusiveStartBackupArn: start }));
      assert.ok((page.BackupSummaries?.length ?? 0) <= 2);
      pages.push(...(page.BackupSummaries ?? []).map((summary) => summary.BackupArn!));
      start = page.LastEvaluatedBackupArn;
    } while (start !== undefined);
    assert.deepEqual(pages, arns);

    // Lower bound inclusive, upper exclusive: the backups made at +2 s and +3 s.
    const ranged = await client.send(
      new ListBackupsCommand({ TableName: table, TimeRangeLowerBound: new Date(startMs + 2000), TimeRangeUpperBound: new Date(startMs + 4000) }),
    );
    assert.deepEqual(ranged.BackupSummaries?.map((summary) => summary.BackupArn), arns.slice(1, 3));
    assert.deepEqual((await client.send(new ListBackupsCommand({ TableName: table, BackupType: 'SYSTEM' }))).BackupSummaries, []);
    assert.equal((await client.send(new ListBackupsCommand({ TableName: table, BackupType: 'ALL' }))).BackupSummaries?.length, 5);
    assert.ok(((await client.send(new ListBackupsCommand({}))).BackupSummaries?.length ?? 0) >= 6);
  });

  test('DeleteBackup answers DELETED, then the backup is gone; deleting the source table keeps its backups', async () => {
    const { client } = twin;
    const table = uniqueTableName('bk-del');
    await createIndexedTable(client, table);
    await putAll(client, table, [itemOf(1, 1, 1), itemOf(2, 2, 1)]);
    const first = (await client.send(new CreateBackupCommand({ TableName: table, BackupName: 'one' }))).BackupDetails!.BackupArn!;
    const second = (await client.send(new CreateBackupCommand({ TableName: table, BackupName: 'two' }))).BackupDetails!.BackupArn!;
    await twin.twin.settled();
    const deleted = await client.send(new DeleteBackupCommand({ BackupArn: first }));
    assert.equal(deleted.BackupDescription?.BackupDetails?.BackupStatus, 'DELETED');
    await expectDynamoError(client.send(new DescribeBackupCommand({ BackupArn: first })), 'BackupNotFoundException', `Backup not found: ${first}`);
    await expectDynamoError(client.send(new DeleteBackupCommand({ BackupArn: first })), 'BackupNotFoundException', `Backup not found: ${first}`);
    assert.deepEqual((await client.send(new ListBackupsCommand({ TableName: table }))).BackupSummaries?.map((summary) => summary.BackupArn), [second]);
    // ExclusiveStartBackupArn is a cursor: a deleted backup's ARN still says where to resume.
    assert.deepEqual((await client.send(new ListBackupsCommand({ TableName: table, ExclusiveStartBackupArn: first }))).BackupSummaries?.map((summary) => summary.BackupArn), first < second ? [second] : []);

    await client.send(new DeleteTableCommand({ TableName: table }));
    await twin.twin.settled();
    assert.equal((await client.send(new DescribeBackupCommand({ BackupArn: second }))).BackupDescription?.BackupDetails?.BackupStatus, 'AVAILABLE');
    // The name is free again, and the backup restores under it.
    await client.send(new RestoreTableFromBackupCommand({ BackupArn: second, TargetTableName: table }));
    await twin.twin.settled();
    assert.equal(await statusOf(client, table), 'ACTIVE');
    assert.equal((await contentsOf(client, table)).length, 2);
  });

  test("DynamoDB's errors: unknown table and backup, a target that exists, bad names, overrides", async () => {
    const { client } = twin;
    const table = uniqueTableName('bk-err');
    await createIndexedTable(client, table);
    const missing = uniqueTableName('bk-none');
    await expectDynamoError(client.send(new CreateBackupCommand({ TableName: missing, BackupName: 'b' + 'x'.repeat(3) })), 'TableNotFoundException', `Table not found: ${missing}`);
    // The region of a backup ARN is not compared (DynamoDB ignores it).
    const real = (await client.send(new CreateBackupCommand({ TableName: table, BackupName: 'region' }))).BackupDetails!.BackupArn!;
    await twin.twin.settled();
    const elsewhere = real.replace(':us-east-1:', ':eu-west-1:');
    assert.equal((await client.send(new DescribeBackupCommand({ BackupArn: elsewhere }))).BackupDescription?.BackupDetails?.BackupArn, real);
    await expectDynamoError(
      client.send(new CreateBackupCommand({ TableName: table, BackupName: 'bad name' })),
      'ValidationException',
      "1 validation error detected: Value 'bad name' at 'backupName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
    );
    await expectDynamoError(
      client.send(new CreateBackupCommand({ TableName: table, BackupName: 'ab' })),
      'ValidationException',
      "1 validation error detected: Value 'ab' at 'backupName' failed to satisfy constraint: Member must have length greater than or equal to 3",
    );
    const account = (await client.send(new DescribeTableCommand({ TableName: table }))).Table!.TableArn!.split(':')[4]!;
    const unknownArn = `arn:aws:dynamodb:us-east-1:${account}:table/${table}/backup/01700000000000-abcdef01`;
    await expectDynamoError(client.send(new DescribeBackupCommand({ BackupArn: `arn:aws:dynamodb:us-east-1:${account}:table/${table}` + 'x'.repeat(20) })), 'ValidationException', 'Invalid Backup ARN');
    await expectDynamoError(client.send(new DescribeBackupCommand({ BackupArn: unknownArn.replace(':dynamodb:', ':s3:') })), 'ValidationException', 'BackupArn is not valid');
    await expectDynamoError(client.send(new DescribeBackupCommand({ BackupArn: unknownArn.replace(`:${account}:`, ':123456789012:') })), 'AccessDeniedException', 'Access is denied');
    await expectDynamoError(
      client.send(new ListBackupsCommand({ TimeRangeLowerBound: new Date(2000), TimeRangeUpperBound: new Date(1000) })),
      'ValidationException',
      'Time range lower bound must be less than or equal to upper bound',
    );
    await expectDynamoError(client.send(new DescribeBackupCommand({ BackupArn: unknownArn })), 'BackupNotFoundException', `Backup not found: ${unknownArn}`);
    await expectDynamoError(client.send(new RestoreTableFromBackupCommand({ BackupArn: unknownArn, TargetTableName: 'whatever' })), 'BackupNotFoundException', `Backup not found: ${unknownArn}`);
    await expectDynamoError(client.send(new DescribeBackupCommand({ BackupArn: 'too-short' })), 'ValidationException', /at 'backupArn' failed to satisfy constraint: Member must have length greater than or equal to 37/);

    const arn = (await client.send(new CreateBackupCommand({ TableName: table, BackupName: 'errs' }))).BackupDetails!.BackupArn!;
    await twin.twin.settled();
    await expectDynamoError(client.send(new RestoreTableFromBackupCommand({ BackupArn: arn, TargetTableName: table })), 'TableAlreadyExistsException', `Table already exists: ${table}`);
    await expectDynamoError(
      client.send(new RestoreTableFromBackupCommand({ BackupArn: arn, TargetTableName: 'x' })),
      'ValidationException',
      "1 validation error detected: Value 'x' at 'targetTableName' failed to satisfy constraint: Member must have length greater than or equal to 3",
    );

    await expectDynamoError(
      client.send(new RestoreTableFromBackupCommand({ BackupArn: arn, TargetTableName: uniqueTableName('bk-o'), ProvisionedThroughputOverride: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } })),
      'ValidationException',
      'Cannot override ProvisionedThroughput unless BillingMode is PROVISIONED',
    );
    await expectDynamoError(
      client.send(new RestoreTableFromBackupCommand({ BackupArn: arn, TargetTableName: uniqueTableName('bk-o'), BillingModeOverride: 'PROVISIONED' })),
      'ValidationException',
      'Must override ProvisionedThroughput if BillingMode is overridden to PROVISIONED',
    );
    await expectDynamoError(
      client.send(
        new RestoreTableFromBackupCommand({
          BackupArn: arn,
          TargetTableName: uniqueTableName('bk-o'),
          GlobalSecondaryIndexOverride: [{ IndexName: 'newIndex', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
        }),
      ),
      'ValidationException',
      'Index newIndex does not match a secondary index that existed in the source table and cannot be created during the restore operation',
    );
    // Overrides: provisioned billing, and only the GSI.
    const target = uniqueTableName('bk-over');
    const restored = await client.send(
      new RestoreTableFromBackupCommand({
        BackupArn: arn,
        TargetTableName: target,
        BillingModeOverride: 'PROVISIONED',
        ProvisionedThroughputOverride: { ReadCapacityUnits: 7, WriteCapacityUnits: 3 },
        GlobalSecondaryIndexOverride: [
          { IndexName: 'byG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' }, ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 2 } },
        ],
        LocalSecondaryIndexOverride: [],
      }),
    );
    const description = restored.TableDescription!;
    assert.equal(description.BillingModeSummary?.BillingMode, 'PROVISIONED');
    assert.equal(description.ProvisionedThroughput?.ReadCapacityUnits, 7);
    assert.equal(description.GlobalSecondaryIndexes?.[0]?.Projection?.ProjectionType, 'KEYS_ONLY');
    assert.equal(description.LocalSecondaryIndexes, undefined);
    await twin.twin.settled();
    assert.equal(await statusOf(client, target), 'ACTIVE');
  });
});

describe('backups on the persistent store', () => {
  const scratch = scratchDirectories('dynatwin-backups-');
  after(() => scratch.removeAll());

  test('a backup survives a restart and restores afterwards', async () => {
    const dataDir = scratch.fresh();
    const table = uniqueTableName('bk-disk');
    const { arn, expected } = await withTwin({ dataDir }, async ({ client, twin }) => {
      await createIndexedTable(client, table);
      await putAll(client, table, Array.from({ length: 30 }, (_, at) => itemOf(at % 4, at, 1)));
      const expected = await contentsOf(client, table);
      const arn = (await client.send(new CreateBackupCommand({ TableName: table, BackupName: 'disk' }))).BackupDetails!.BackupArn!;
      await twin.settled();
      await client.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: 'p0' }, sk: { N: '0' } } }));
      return { arn, expected };
    });
    await withTwin({ dataDir }, async ({ client, twin }) => {
      const described = await client.send(new DescribeBackupCommand({ BackupArn: arn }));
      assert.equal(described.BackupDescription?.BackupDetails?.BackupStatus, 'AVAILABLE');
      assert.equal(described.BackupDescription?.SourceTableDetails?.ItemCount, 30);
      const target = uniqueTableName('bk-disk-dst');
      await client.send(new RestoreTableFromBackupCommand({ BackupArn: arn, TargetTableName: target }));
      await twin.settled();
      assert.deepEqual(await contentsOf(client, target), expected);
      assert.deepEqual(await indexAnswersOf(client, target, 4), await indexAnswersOfExpected(client, table, expected));
    });
  });
});

/** The restored table's index answers must be the source's at backup time: rebuild them from a fresh table holding `expected`. */
async function indexAnswersOfExpected(client: DynamoDBClient, _source: string, expected: readonly string[]): Promise<unknown[]> {
  const scratchTable = uniqueTableName('bk-expected');
  await createIndexedTable(client, scratchTable);
  const items = expected.map((text) => Object.fromEntries(JSON.parse(text) as [string, AttributeValue][]));
  await putAll(client, scratchTable, items);
  return indexAnswersOf(client, scratchTable, 4);
}

describe('a backup is one instant even when writes land between its copy chunks', () => {
  let server: RunningServer;
  let client: DynamoDBClient;
  before(async () => {
    server = await startServer(testServerOptions({ ...DEFAULT_SERVER_OPTIONS, port: 0, inMemory: true, clock: 'manual' }));
    client = sdkClient(server.endpoint);
  });
  after(async () => {
    client.destroy();
    await server.close();
  });

  test('random puts, updates and deletes between the chunks: the backup holds the table as it was at CreateBackup', async () => {
    const random = seededRandom(20);
    const table = uniqueTableName('bk-chunks');
    await createIndexedTable(client, table);
    const count = 1200;
    await putAll(client, table, Array.from({ length: count }, (_, at) => itemOf(at % 40, at, 1)));
    const expected = await contentsOf(client, table);
    const engine = server.engine;
    const created = (await invokeOperation(engine, createBackupOperation, { TableName: table, BackupName: 'chunks' })) as { BackupDetails: { BackupArn: string } };
    // The copy goes on a chunk per turn of the event loop; these writes are applied in between.
    let turns = 0;
    while (engine.backups.get(created.BackupDetails.BackupArn)?.status === 'CREATING') {
      for (let write = 0; write < 20; write++) {
        const at = Math.floor(random() * count * 1.2);
        const key = { pk: { S: `p${at % 40}` }, sk: { N: String(at) } };
        const choice = random();
        if (choice < 0.4) await invokeOperation(engine, putItemOperation, { TableName: table, Item: itemOf(at % 40, at, 2 + write) });
        else if (choice < 0.7) await invokeOperation(engine, deleteItemOperation, { TableName: table, Key: key });
        else await invokeOperation(engine, updateItemOperation, { TableName: table, Key: key, UpdateExpression: 'SET v = :v, g = :g', ExpressionAttributeValues: { ':v': { N: '5' }, ':g': { S: 'g4' } } });
      }
      turns++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(turns >= 3, `writes landed during ${turns} copy turns`);
    assert.notDeepEqual(await contentsOf(client, table), expected);
    const target = uniqueTableName('bk-chunks-dst');
    const arn = created.BackupDetails.BackupArn;
    await invokeOperation(engine, restoreTableFromBackupOperation, { BackupArn: arn, TargetTableName: target });
    // The load takes several chunks: meanwhile the backup feeds no second restore and cannot go.
    await assert.rejects(invokeOperation(engine, restoreTableFromBackupOperation, { BackupArn: arn, TargetTableName: `${target}-2` }), {
      message: `Backup is being used to restore another table: ${arn}`,
    });
    await assert.rejects(invokeOperation(engine, deleteBackupOperation, { BackupArn: arn }), { message: `Backup is being used to restore table: ${arn}` });
    assert.equal(await statusOf(client, target), 'CREATING');
    await server.engine.settled();
    await waitActive(client, target);
    assert.deepEqual(await contentsOf(client, target), expected);
    await invokeOperation(engine, deleteBackupOperation, { BackupArn: arn });
  });
});



describe('backups through the AWS CLI', () => {
  test('create-backup, describe-backup, list-backups, restore-table-from-backup, delete-backup', async (context) => {
    const run = promisify(execFile);
    const cli = await run('aws', ['--version']).catch(() => undefined);
    if (cli === undefined) {
      context.skip('the aws CLI is not on PATH');
      return;
    }
    await withTwin({}, async ({ client, twin }) => {
      const table = uniqueTableName('bk-cli');
      await createIndexedTable(client, table);
      await putAll(client, table, [itemOf(1, 1, 1), itemOf(2, 2, 1), itemOf(3, 3, 1)]);
      const env = { ...process.env, AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'secret', AWS_DEFAULT_REGION: 'us-east-1', AWS_PAGER: '' };
      const aws = async <T>(...args: string[]): Promise<T> => {
        const { stdout } = await run('aws', ['dynamodb', ...args, '--endpoint-url', twin.endpoint, '--output', 'json'], { env });
        return JSON.parse(stdout) as T;
      };
      type Described = { BackupDescription: { BackupDetails: { BackupStatus: string } } };
      const created = await aws<{ BackupDetails: { BackupArn: string } }>('create-backup', '--table-name', table, '--backup-name', 'cli-backup');
      const arn = created.BackupDetails.BackupArn;
      await twin.settled();
      assert.equal((await aws<Described>('describe-backup', '--backup-arn', arn)).BackupDescription.BackupDetails.BackupStatus, 'AVAILABLE');
      const listed = await aws<{ BackupSummaries: { BackupArn: string }[] }>('list-backups', '--table-name', table);
      assert.deepEqual(listed.BackupSummaries.map((summary) => summary.BackupArn), [arn]);
      const target = uniqueTableName('bk-cli-dst');
      const restored = await aws<{ TableDescription: { TableStatus: string } }>('restore-table-from-backup', '--backup-arn', arn, '--target-table-name', target);
      assert.equal(restored.TableDescription.TableStatus, 'CREATING');
      await twin.settled();
      assert.deepEqual(await contentsOf(client, target), await contentsOf(client, table));
      assert.equal((await aws<Described>('delete-backup', '--backup-arn', arn)).BackupDescription.BackupDetails.BackupStatus, 'DELETED');
    });
  });
});
