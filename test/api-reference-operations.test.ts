/**
 * The rest of DynamoDB's API reference through the SDK: resource-based policies stored with their
 * revisions (DynamoDB's recorded texts for every refusal), Kinesis destinations, global tables and
 * replica auto scaling, exports and imports answering as DynamoDB does without Kinesis, other
 * Regions or S3.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CreateGlobalTableCommand,
  CreateTableCommand,
  DeleteResourcePolicyCommand,
  DescribeExportCommand,
  DescribeGlobalTableCommand,
  DescribeGlobalTableSettingsCommand,
  DescribeImportCommand,
  DescribeKinesisStreamingDestinationCommand,
  DescribeTableCommand,
  DescribeTableReplicaAutoScalingCommand,
  DisableKinesisStreamingDestinationCommand,
  EnableKinesisStreamingDestinationCommand,
  ExportTableToPointInTimeCommand,
  GetResourcePolicyCommand,
  ImportTableCommand,
  ListExportsCommand,
  ListGlobalTablesCommand,
  ListImportsCommand,
  PutResourcePolicyCommand,
  UpdateContinuousBackupsCommand,
  UpdateGlobalTableCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import { expectDynamoError, startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

const policyOf = (action: string): string =>
  JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { AWS: '111122223333' }, Action: [action], Resource: '*' }] });

async function createTable(client: DynamoDBClient, name: string, withStream = false): Promise<string> {
  const answer = await client.send(
    new CreateTableCommand({
      TableName: name,
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      ...(withStream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' } } : {}),
    }),
  );
  return answer.TableDescription!.TableArn!;
}

describe('the rest of the API reference', () => {
  let twin: TwinClients;
  let clock: ManualClock;
  let client: DynamoDBClient;
  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual' });
    clock = twin.twin.clock as ManualClock;
    client = twin.client;
  });
  after(() => twin.close());

  test('resource policies: stored with revisions, same document same revision, DynamoDB texts for stale revisions', async () => {
    const name = uniqueTableName('policy');
    const arn = await createTable(client, name, true);
    await expectDynamoError(client.send(new GetResourcePolicyCommand({ ResourceArn: arn })), 'PolicyNotFoundException', `Resource-based policy not found for the provided ResourceArn: ${arn}`);
    const first = (await client.send(new PutResourcePolicyCommand({ ResourceArn: arn, Policy: policyOf('dynamodb:*') }))).RevisionId!;
    const got = await client.send(new GetResourcePolicyCommand({ ResourceArn: arn }));
    assert.equal(got.RevisionId, first);
    assert.equal(got.Policy, policyOf('dynamodb:*'));
    assert.equal((await client.send(new PutResourcePolicyCommand({ ResourceArn: arn, Policy: policyOf('dynamodb:*') }))).RevisionId, first, 'the same document keeps its revision');
    clock.advance(10);
    const second = (await client.send(new PutResourcePolicyCommand({ ResourceArn: arn, Policy: policyOf('dynamodb:PutItem'), ExpectedRevisionId: first }))).RevisionId!;
    assert.ok(Number(second) > Number(first), 'revision ids grow');
    await expectDynamoError(
      client.send(new PutResourcePolicyCommand({ ResourceArn: arn, Policy: policyOf('dynamodb:GetItem'), ExpectedRevisionId: first })),
      'PolicyNotFoundException',
      `Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id ${first}, but the policy associated to target table ${name} has revision id ${second}.`,
    );
    await expectDynamoError(
      client.send(new PutResourcePolicyCommand({ ResourceArn: arn, Policy: policyOf('dynamodb:GetItem'), ExpectedRevisionId: 'NO_POLICY' })),
      'PolicyNotFoundException',
      `Resource-based policy not found for the provided ResourceArn: Requested policy update expecting none to be present for table ${name}, but a policy exists with revision id ${second}.`,
    );
    await expectDynamoError(
      client.send(new DeleteResourcePolicyCommand({ ResourceArn: arn, ExpectedRevisionId: 'unknown' })),
      'PolicyNotFoundException',
      `Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id unknown, but the policy associated to target table ${name} has revision id ${second}.`,
    );
    assert.equal((await client.send(new DeleteResourcePolicyCommand({ ResourceArn: arn, ExpectedRevisionId: second }))).RevisionId, second);
    await expectDynamoError(client.send(new GetResourcePolicyCommand({ ResourceArn: arn })), 'PolicyNotFoundException');
    await expectDynamoError(client.send(new DeleteResourcePolicyCommand({ ResourceArn: arn })), 'PolicyNotFoundException', `Resource-based policy not found for the provided ResourceArn: ${arn}`);
    // NO_POLICY when none exists is accepted.
    await client.send(new PutResourcePolicyCommand({ ResourceArn: arn, Policy: policyOf('dynamodb:Query'), ExpectedRevisionId: 'NO_POLICY' }));

    // The stream has a policy of its own.
    const streamArn = (await client.send(new DescribeTableCommand({ TableName: name }))).Table!.LatestStreamArn!;
    await expectDynamoError(client.send(new GetResourcePolicyCommand({ ResourceArn: streamArn })), 'PolicyNotFoundException', `Resource-based policy not found for the provided ResourceArn: ${streamArn}`);
    const streamRevision = (await client.send(new PutResourcePolicyCommand({ ResourceArn: streamArn, Policy: policyOf('dynamodb:GetRecords') }))).RevisionId;
    assert.equal((await client.send(new GetResourcePolicyCommand({ ResourceArn: streamArn }))).RevisionId, streamRevision);
    assert.equal((await client.send(new GetResourcePolicyCommand({ ResourceArn: arn }))).Policy, policyOf('dynamodb:Query'));

    for (const call of [
      client.send(new GetResourcePolicyCommand({ ResourceArn: arn + 'unknown' })),
      client.send(new PutResourcePolicyCommand({ ResourceArn: arn + 'unknown', Policy: policyOf('dynamodb:*') })),
      client.send(new DeleteResourcePolicyCommand({ ResourceArn: arn + 'unknown' })),
    ]) {
      await expectDynamoError(call, 'ResourceNotFoundException', `Requested resource not found: Table: ${name}unknown not found`);
    }
    await expectDynamoError(client.send(new PutResourcePolicyCommand({ ResourceArn: arn, Policy: '{not json' })), 'ValidationException');

    // CreateTable's ResourcePolicy is the new table's policy.
    const withPolicy = uniqueTableName('policy-create');
    const created = await client.send(
      new CreateTableCommand({
        TableName: withPolicy,
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
        ResourcePolicy: policyOf('dynamodb:GetItem'),
      }),
    );
    const initial = await client.send(new GetResourcePolicyCommand({ ResourceArn: created.TableDescription!.TableArn }));
    assert.equal(initial.Policy, policyOf('dynamodb:GetItem'));
    assert.match(initial.RevisionId ?? '', /^\d+$/);
    await expectDynamoError(
      client.send(new CreateTableCommand({ TableName: uniqueTableName('policy-bad'), AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST', ResourcePolicy: '[1]' })),
      'ValidationException',
    );
  });

  test('Kinesis destinations: none, and no stream to enable', async () => {
    const name = uniqueTableName('kinesis');
    await createTable(client, name);
    assert.deepEqual(await client.send(new DescribeKinesisStreamingDestinationCommand({ TableName: name })).then((answer) => [answer.TableName, answer.KinesisDataStreamDestinations]), [name, []]);
    const streamArn = 'arn:aws:kinesis:us-east-1:000000000000:stream/dynatwin-test';
    await expectDynamoError(client.send(new EnableKinesisStreamingDestinationCommand({ TableName: name, StreamArn: streamArn })), 'ResourceNotFoundException', `Requested resource not found: Stream: ${streamArn} not found`);
    await expectDynamoError(client.send(new DisableKinesisStreamingDestinationCommand({ TableName: name, StreamArn: streamArn })), 'ValidationException', /must be ACTIVE to perform DISABLE operation/);
    await expectDynamoError(client.send(new DescribeKinesisStreamingDestinationCommand({ TableName: 'no-such-table' })), 'ResourceNotFoundException', 'Requested resource not found: Table: no-such-table not found');
  });

  test('global tables: none exist, none can be made with the legacy API', async () => {
    assert.deepEqual((await client.send(new ListGlobalTablesCommand({}))).GlobalTables, []);
    const name = uniqueTableName('global');
    await createTable(client, name);
    await expectDynamoError(client.send(new DescribeGlobalTableCommand({ GlobalTableName: name })), 'GlobalTableNotFoundException', `Global table not found: Global table with name: '${name}' does not exist.`);
    await expectDynamoError(client.send(new DescribeGlobalTableSettingsCommand({ GlobalTableName: name })), 'GlobalTableNotFoundException', `Global table with name: '${name}' does not exist.`);
    await expectDynamoError(
      client.send(new CreateGlobalTableCommand({ GlobalTableName: name, ReplicationGroup: [{ RegionName: 'us-east-1' }] })),
      'ValidationException',
      /^DynamoDB global tables version 2017\.11\.29 is not supported\./,
    );
    await expectDynamoError(client.send(new UpdateGlobalTableCommand({ GlobalTableName: name, ReplicaUpdates: [] })), 'ValidationException', 'One or more parameter values were invalid');
    await expectDynamoError(client.send(new UpdateGlobalTableCommand({ GlobalTableName: name, ReplicaUpdates: [{ Delete: { RegionName: 'us-west-2' } }] })), 'GlobalTableNotFoundException');
    await expectDynamoError(client.send(new DescribeTableReplicaAutoScalingCommand({ TableName: name })), 'ResourceNotFoundException', `Global table with name: '${name}' does not exist.`);
  });

  test('exports need PITR, are accepted, and fail for want of S3; imports likewise create no table', async () => {
    const name = uniqueTableName('export');
    const arn = await createTable(client, name);
    await expectDynamoError(client.send(new ExportTableToPointInTimeCommand({ TableArn: arn, S3Bucket: 'my-bucket' })), 'PointInTimeRecoveryUnavailableException', `Point in time recovery is not enabled for table '${name}'`);
    await client.send(new UpdateContinuousBackupsCommand({ TableName: name, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }));
    const started = (await client.send(new ExportTableToPointInTimeCommand({ TableArn: arn, S3Bucket: 'my-bucket', ClientToken: 'token-1' }))).ExportDescription!;
    assert.equal(started.ExportStatus, 'IN_PROGRESS');
    assert.match(started.ExportArn!, new RegExp(`^${arn}/export/\\d{14}-[0-9a-f]{8}$`));
    assert.equal(started.ExportFormat, 'DYNAMODB_JSON');
    const described = (await client.send(new DescribeExportCommand({ ExportArn: started.ExportArn }))).ExportDescription!;
    assert.equal(described.ExportStatus, 'FAILED');
    assert.equal(described.FailureCode, 'S3NoSuchBucket');
    assert.equal(described.S3Bucket, 'my-bucket');
    // The same ClientToken and request: the same export.
    assert.equal((await client.send(new ExportTableToPointInTimeCommand({ TableArn: arn, S3Bucket: 'my-bucket', ClientToken: 'token-1' }))).ExportDescription?.ExportArn, started.ExportArn);
    assert.deepEqual((await client.send(new ListExportsCommand({ TableArn: arn }))).ExportSummaries?.map((summary) => [summary.ExportArn, summary.ExportStatus]), [[started.ExportArn, 'FAILED']]);
    await expectDynamoError(client.send(new DescribeExportCommand({ ExportArn: `${arn}/export/01700000000000-abcdef01` })), 'ExportNotFoundException');
    await expectDynamoError(
      client.send(new ExportTableToPointInTimeCommand({ TableArn: arn, S3Bucket: 'my-bucket', ExportType: 'INCREMENTAL_EXPORT' })),
      'ValidationException',
      'Invalid Request: Incremental Export Specification expected when export type is set as Incremental Export',
    );

    const target = uniqueTableName('import');
    const imported = (
      await client.send(
        new ImportTableCommand({
          S3BucketSource: { S3Bucket: 'my-bucket' },
          InputFormat: 'DYNAMODB_JSON',
          TableCreationParameters: { TableName: target, AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' },
        }),
      )
    ).ImportTableDescription!;
    assert.equal(imported.ImportStatus, 'IN_PROGRESS');
    const importDescription = (await client.send(new DescribeImportCommand({ ImportArn: imported.ImportArn }))).ImportTableDescription!;
    assert.equal(importDescription.ImportStatus, 'FAILED');
    assert.equal(importDescription.FailureCode, 'S3NoSuchBucket');
    await expectDynamoError(client.send(new DescribeTableCommand({ TableName: target })), 'ResourceNotFoundException');
    assert.deepEqual((await client.send(new ListImportsCommand({}))).ImportSummaryList?.map((summary) => summary.ImportArn), [imported.ImportArn]);
    await expectDynamoError(
      client.send(
        new ImportTableCommand({
          S3BucketSource: { S3Bucket: 'my-bucket' },
          InputFormat: 'CSV',
          TableCreationParameters: { TableName: name, AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' },
        }),
      ),
      'ResourceInUseException',
    );
  });
});
