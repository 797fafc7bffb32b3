/**
 * Point-in-time recovery through the SDK on the manual clock: the window (EarliestRestorable /
 * LatestRestorable) on the server's clock, RestoreTableToPointInTime at many instants of random
 * writes equal to the table as it was then (items and index answers), the window's trimming, and
 * DynamoDB's errors for instants outside it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  DeleteBackupCommand,
  DeleteItemCommand,
  DeleteTableCommand,
  DescribeBackupCommand,
  ListBackupsCommand,
  RestoreTableFromBackupCommand,
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  PutItemCommand,
  RestoreTableToPointInTimeCommand,
  UpdateContinuousBackupsCommand,
  UpdateItemCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import { CONTINUOUS_BACKUPS_DELAY_MS } from '../src/operations/describeContinuousBackups.js';
import { historyPrefixOf, historyTimeOf } from '../src/engine/history.js';
import { prefixUpperBound } from '../src/model/key-codec.js';
import { DEFAULT_SERVER_OPTIONS, startServer, type RunningServer } from '../src/server/server.js';
import { contentsOf, createIndexedTable, indexAnswersOf, itemOf, seededRandom, waitActive } from './support/backup-tables.js';
import { expectDynamoError, sdkClient, uniqueTableName, withTwin } from './support/twin.js';
import { scratchDirectories } from './support/scratch.js';
import { testServerOptions } from './support/test-store.js';

const DAY_MS = 86_400_000;
const PARTITIONS = 6;

describe('point-in-time recovery', () => {
  let server: RunningServer;
  let client: DynamoDBClient;
  let clock: ManualClock;
  before(async () => {
    server = await startServer(testServerOptions({ ...DEFAULT_SERVER_OPTIONS, port: 0, inMemory: true, clock: 'manual' }));
    client = sdkClient(server.endpoint);
    clock = server.clock as ManualClock;
  });
  after(async () => {
    client.destroy();
    await server.close();
  });

  const restore = async (source: string, atMs: number | 'latest'): Promise<string> => {
    const target = uniqueTableName('pitr-dst');
    const sourceArn = (await client.send(new DescribeTableCommand({ TableName: source }))).Table!.TableArn;
    const answer = await client.send(
      new RestoreTableToPointInTimeCommand({
        SourceTableName: source,
        TargetTableName: target,
        ...(atMs === 'latest' ? { UseLatestRestorableTime: true } : { RestoreDateTime: new Date(atMs) }),
      }),
    );
    assert.equal(answer.TableDescription?.TableStatus, 'CREATING');
    const summary = answer.TableDescription?.RestoreSummary;
    assert.deepEqual(summary, { SourceTableArn: sourceArn, RestoreDateTime: new Date(atMs === 'latest' ? clock.nowMs() : atMs), RestoreInProgress: true });
    await server.engine.settled();
    await waitActive(client, target);
    return target;
  };

  const randomWrite = async (table: string, random: () => number, step: number): Promise<void> => {
    const at = Math.floor(random() * 30);
    const key = { pk: { S: `p${at % PARTITIONS}` }, sk: { N: String(at) } };
    const choice = random();
    if (choice < 0.45) await client.send(new PutItemCommand({ TableName: table, Item: itemOf(at % PARTITIONS, at, step) }));
    else if (choice < 0.7) await client.send(new DeleteItemCommand({ TableName: table, Key: key }));
    else {
      await client.send(
        new UpdateItemCommand({ TableName: table, Key: key, UpdateExpression: 'SET v = :v, g = :g ADD n :one', ExpressionAttributeValues: { ':v': { N: String(step) }, ':g': { S: `g${step % 3}` }, ':one': { N: '1' } } }),
      );
    }
  };

  test('disabled by default; enabling opens the window on the server clock', async () => {
    const table = uniqueTableName('pitr-status');
    await createIndexedTable(client, table);
    // Continuous backups come on by themselves a few seconds after creation (CONFORMANCE.md).
    const initial = await client.send(new DescribeContinuousBackupsCommand({ TableName: table }));
    assert.deepEqual(initial.ContinuousBackupsDescription, { ContinuousBackupsStatus: 'DISABLED', PointInTimeRecoveryDescription: { PointInTimeRecoveryStatus: 'DISABLED' } });
    clock.advance(CONTINUOUS_BACKUPS_DELAY_MS - 1);
    assert.equal((await client.send(new DescribeContinuousBackupsCommand({ TableName: table }))).ContinuousBackupsDescription?.ContinuousBackupsStatus, 'DISABLED');
    clock.advance(1);
    const settled = await client.send(new DescribeContinuousBackupsCommand({ TableName: table }));
    assert.deepEqual(settled.ContinuousBackupsDescription, { ContinuousBackupsStatus: 'ENABLED', PointInTimeRecoveryDescription: { PointInTimeRecoveryStatus: 'DISABLED' } });
    await expectDynamoError(
      client.send(new RestoreTableToPointInTimeCommand({ SourceTableName: table, TargetTableName: uniqueTableName('x'), UseLatestRestorableTime: true })),
      'PointInTimeRecoveryUnavailableException',
      `Point in time recovery is not enabled for table '${table}'`,
    );
    const enabledAtMs = clock.nowMs();
    const enabled = await client.send(new UpdateContinuousBackupsCommand({ TableName: table, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }));
    const description = enabled.ContinuousBackupsDescription?.PointInTimeRecoveryDescription;
    assert.equal(description?.PointInTimeRecoveryStatus, 'ENABLED');
    assert.equal(description?.RecoveryPeriodInDays, 35);
    assert.equal(description?.EarliestRestorableDateTime?.getTime(), enabledAtMs);
    clock.advance(5000);
    const later = (await client.send(new DescribeContinuousBackupsCommand({ TableName: table }))).ContinuousBackupsDescription?.PointInTimeRecoveryDescription;
    assert.equal(later?.EarliestRestorableDateTime?.getTime(), enabledAtMs);
    assert.equal(later?.LatestRestorableDateTime?.getTime(), enabledAtMs + 5000);
    await expectDynamoError(
      client.send(new UpdateContinuousBackupsCommand({ TableName: table, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 36 } })),
      'ValidationException',
      "1 validation error detected: Value '36' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 35",
    );
    await expectDynamoError(
      client.send(new DescribeContinuousBackupsCommand({ TableName: 'no-such-table' })),
      'TableNotFoundException',
      'Table not found: no-such-table',
    );
    const disabled = await client.send(new UpdateContinuousBackupsCommand({ TableName: table, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false } }));
    assert.equal(disabled.ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus, 'DISABLED');
  });

  test('random writes over time: a restore to any instant of the window is the table as it was then', async () => {
    const random = seededRandom(35);
    const table = uniqueTableName('pitr-prop');
    await createIndexedTable(client, table);
    for (let at = 0; at < 8; at++) await client.send(new PutItemCommand({ TableName: table, Item: itemOf(at % PARTITIONS, at, 0) }));
    await client.send(new UpdateContinuousBackupsCommand({ TableName: table, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 1 } }));
    const moments: { atMs: number; items: string[] }[] = [{ atMs: clock.nowMs(), items: await contentsOf(client, table) }];
    for (let step = 1; step <= 24; step++) {
      clock.advance(1 + Math.floor(random() * 60_000));
      const writes = Math.floor(random() * 6);
      for (let write = 0; write < writes; write++) await randomWrite(table, random, step);
      moments.push({ atMs: clock.nowMs(), items: await contentsOf(client, table) });
    }
    // Every few instants, and one just after an instant (before the next writes).
    for (let at = 0; at < moments.length; at += 4) {
      const moment = moments[at]!;
      const target = await restore(table, moment.atMs);
      assert.deepEqual(await contentsOf(client, target), moment.items, `restore to step ${at}`);
    }
    const third = moments[3]!;
    assert.deepEqual(await contentsOf(client, await restore(table, third.atMs + 1)), third.items);
    // The latest restorable time is now; the indexes of a restored table answer as the source's.
    const latest = await restore(table, 'latest');
    assert.deepEqual(await contentsOf(client, latest), moments.at(-1)!.items);
    assert.deepEqual(await indexAnswersOf(client, latest, PARTITIONS), await indexAnswersOf(client, table, PARTITIONS));
    assert.equal((await client.send(new DescribeTableCommand({ TableName: latest }))).Table?.RestoreSummary, undefined, 'no RestoreSummary once ACTIVE');

    // Outside the window: before it opened, and in the future.
    await expectDynamoError(
      client.send(new RestoreTableToPointInTimeCommand({ SourceTableName: table, TargetTableName: uniqueTableName('x'), RestoreDateTime: new Date(moments[0]!.atMs - 1000) })),
      'InvalidRestoreTimeException',
    );
    await expectDynamoError(
      client.send(new RestoreTableToPointInTimeCommand({ SourceTableName: table, TargetTableName: uniqueTableName('x'), RestoreDateTime: new Date(clock.nowMs() + 60_000) })),
      'InvalidRestoreTimeException',
    );

    // A day and a half later the window (1 day) has moved: old instants are gone and so is their history.
    const tableId = server.engine.catalog.get(table)!.record.id;
    const prefix = historyPrefixOf(tableId);
    const historyTimes = (): number[] => [...server.engine.storage.range({ start: prefix, end: prefixUpperBound(prefix) })].map((entry) => historyTimeOf(entry.key));
    assert.ok(historyTimes().length > 20, 'the writes left history records');
    clock.advance(DAY_MS + DAY_MS / 2);
    await server.engine.settled();
    const window = (await client.send(new DescribeContinuousBackupsCommand({ TableName: table }))).ContinuousBackupsDescription!.PointInTimeRecoveryDescription!;
    const earliestMs = window.EarliestRestorableDateTime!.getTime();
    assert.equal(earliestMs, clock.nowMs() - DAY_MS);
    await expectDynamoError(
      client.send(new RestoreTableToPointInTimeCommand({ SourceTableName: table, TargetTableName: uniqueTableName('x'), RestoreDateTime: new Date(moments[5]!.atMs) })),
      'InvalidRestoreTimeException',
    );
    assert.deepEqual(historyTimes().filter((timeMs) => timeMs <= earliestMs), [], 'records older than the window are trimmed');
    // After the trim, an instant of the window still restores exactly.
    const beforeMs = clock.nowMs();
    const before = await contentsOf(client, table);
    clock.advance(1000);
    for (let write = 0; write < 10; write++) await randomWrite(table, random, 100 + write);
    assert.deepEqual(await contentsOf(client, await restore(table, beforeMs)), before);
  });

  test('deleting a table with PITR leaves a SYSTEM backup, listed only on request, kept 35 days, restorable', async () => {
    const table = uniqueTableName('pitr-del');
    await createIndexedTable(client, table);
    for (let at = 0; at < 5; at++) await client.send(new PutItemCommand({ TableName: table, Item: itemOf(at % 2, at, 1) }));
    const expected = await contentsOf(client, table);
    await client.send(new UpdateContinuousBackupsCommand({ TableName: table, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }));
    await client.send(new DeleteTableCommand({ TableName: table }));
    await server.engine.settled();
    assert.deepEqual((await client.send(new ListBackupsCommand({ TableName: table }))).BackupSummaries, []);
    const [summary] = (await client.send(new ListBackupsCommand({ TableName: table, BackupType: 'SYSTEM' }))).BackupSummaries ?? [];
    assert.equal(summary?.BackupName, `${table}$DeletedTableBackup`);
    assert.equal(summary?.BackupType, 'SYSTEM');
    assert.match(summary?.BackupArn ?? '', /\/backup\/\d{14}-00000000$/);
    assert.equal(summary?.BackupExpiryDateTime?.getTime(), clock.nowMs() + 35 * DAY_MS);
    assert.equal((await client.send(new ListBackupsCommand({ TableName: table, BackupType: 'ALL' }))).BackupSummaries?.length, 1);
    const described = (await client.send(new DescribeBackupCommand({ BackupArn: summary!.BackupArn }))).BackupDescription!;
    assert.deepEqual(described.SourceTableFeatureDetails, {});
    await expectDynamoError(client.send(new DeleteBackupCommand({ BackupArn: summary!.BackupArn })), 'ValidationException');
    const target = uniqueTableName('pitr-del-dst');
    await client.send(new RestoreTableFromBackupCommand({ BackupArn: summary!.BackupArn, TargetTableName: target }));
    await server.engine.settled();
    await waitActive(client, target);
    assert.deepEqual(await contentsOf(client, target), expected);
    // Expired after 35 days of the server's clock.
    clock.advance(35 * DAY_MS + 1000);
    await server.engine.settled();
    await expectDynamoError(client.send(new DescribeBackupCommand({ BackupArn: summary!.BackupArn })), 'BackupNotFoundException');
  });

  test("errors: source and target tables, the time's members", async () => {
    const table = uniqueTableName('pitr-err');
    await createIndexedTable(client, table);
    await client.send(new UpdateContinuousBackupsCommand({ TableName: table, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }));
    await expectDynamoError(
      client.send(new RestoreTableToPointInTimeCommand({ SourceTableName: 'no-such-source', TargetTableName: uniqueTableName('x'), UseLatestRestorableTime: true })),
      'TableNotFoundException',
      'Table not found: no-such-source',
    );
    await expectDynamoError(
      client.send(new RestoreTableToPointInTimeCommand({ SourceTableName: table, TargetTableName: table, UseLatestRestorableTime: true })),
      'TableAlreadyExistsException',
      `Table already exists: ${table}`,
    );
    await expectDynamoError(client.send(new RestoreTableToPointInTimeCommand({ TargetTableName: uniqueTableName('x'), UseLatestRestorableTime: true })), 'ValidationException', "The parameter 'TableName' is required");
    const tableArn = (await client.send(new DescribeTableCommand({ TableName: table }))).Table!.TableArn!;
    await expectDynamoError(
      client.send(new RestoreTableToPointInTimeCommand({ SourceTableName: table, SourceTableArn: tableArn, TargetTableName: uniqueTableName('x'), UseLatestRestorableTime: true })),
      'ValidationException',
      'Must provide exactly one of: sourceTableArn, sourceTableName',
    );
    await expectDynamoError(
      client.send(new RestoreTableToPointInTimeCommand({ SourceTableArn: 'not-an-arn', TargetTableName: uniqueTableName('x'), UseLatestRestorableTime: true })),
      'ValidationException',
      'sourceTableArn is not a valid ARN',
    );
    await expectDynamoError(
      client.send(new RestoreTableToPointInTimeCommand({ SourceTableArn: tableArn.replace(/:\d{12}:/, ':123456789012:'), TargetTableName: uniqueTableName('x'), UseLatestRestorableTime: true })),
      'ValidationException',
      "This action is only supported by accounts that match the resource owner's account",
    );
    await expectDynamoError(
      client.send(new RestoreTableToPointInTimeCommand({ SourceTableName: table, TargetTableName: uniqueTableName('x') })),
      'ValidationException',
      'Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be specified, but not both',
    );
    await expectDynamoError(
      client.send(new RestoreTableToPointInTimeCommand({ SourceTableName: table, TargetTableName: table, UseLatestRestorableTime: true, RestoreDateTime: new Date() })),
      'ValidationException',
      /^Invalid Request: Both RestoreDateTime and UseLatestRestorableTime cannot be set for point-in-time restore request\./,
    );
    // PITR is checked before the time, the time before the target.
    const plain = uniqueTableName('pitr-off');
    await createIndexedTable(client, plain);
    await expectDynamoError(
      client.send(new RestoreTableToPointInTimeCommand({ SourceTableName: plain, TargetTableName: table, RestoreDateTime: new Date(0) })),
      'PointInTimeRecoveryUnavailableException',
      `Point in time recovery is not enabled for table '${plain}'`,
    );
    await expectDynamoError(
      client.send(new RestoreTableToPointInTimeCommand({ SourceTableName: table, TargetTableName: table, RestoreDateTime: new Date(Date.UTC(2020, 0, 2, 3, 4, 5)) })),
      'InvalidRestoreTimeException',
      new RegExp(`^RestoreDateTime '2020-01-02T03:04:05Z' must be within EarliestRestorableDateTime '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ' and LatestRestorableDateTime`),
    );
    // By ARN.
    const arn = (await client.send(new DescribeTableCommand({ TableName: table }))).Table!.TableArn!;
    const target = uniqueTableName('pitr-arn');
    await client.send(new RestoreTableToPointInTimeCommand({ SourceTableArn: arn, TargetTableName: target, UseLatestRestorableTime: true }));
    await server.engine.settled();
    await waitActive(client, target);
  });
});

describe('point-in-time recovery on the persistent store', () => {
  const scratch = scratchDirectories('dynatwin-pitr-');
  after(() => scratch.removeAll());

  test('the history survives a restart: an instant before it restores exactly after it', async () => {
    const dataDir = scratch.fresh();
    const table = uniqueTableName('pitr-disk');
    const { atMs, expected } = await withTwin({ dataDir }, async ({ client }) => {
      await createIndexedTable(client, table);
      for (let at = 0; at < 12; at++) await client.send(new PutItemCommand({ TableName: table, Item: itemOf(at % 3, at, 1) }));
      await client.send(new UpdateContinuousBackupsCommand({ TableName: table, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }));
      await client.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: 'p0' }, sk: { N: '0' } } }));
      await client.send(new PutItemCommand({ TableName: table, Item: itemOf(1, 1, 2) }));
      const expected = await contentsOf(client, table);
      const atMs = Date.now();
      // The server's (real) clock moves past the instant before anything else is written.
      while (Date.now() <= atMs + 2) await new Promise((resolve) => setImmediate(resolve));
      await client.send(new PutItemCommand({ TableName: table, Item: itemOf(2, 2, 3) }));
      return { atMs, expected };
    });
    await withTwin({ dataDir }, async ({ client, twin }) => {
      await client.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: 'p1' }, sk: { N: '1' } } }));
      await client.send(new PutItemCommand({ TableName: table, Item: itemOf(0, 50, 4) }));
      const window = (await client.send(new DescribeContinuousBackupsCommand({ TableName: table }))).ContinuousBackupsDescription?.PointInTimeRecoveryDescription;
      assert.equal(window?.PointInTimeRecoveryStatus, 'ENABLED');
      const target = uniqueTableName('pitr-disk-dst');
      await client.send(new RestoreTableToPointInTimeCommand({ SourceTableName: table, TargetTableName: target, RestoreDateTime: new Date(atMs) }));
      await twin.settled();
      await waitActive(client, target);
      assert.deepEqual(await contentsOf(client, target), expected);
    });
  });
});
