/**
 * The Application Auto Scaling API (AnyScaleFrontendService.*, AWS JSON 1.1) through
 * @aws-sdk/client-application-auto-scaling and, when it is installed, the AWS CLI: targets,
 * policies, activities, the service's errors, and persistence across a restart (LMDB).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  DeleteScalingPolicyCommand,
  DeregisterScalableTargetCommand,
  DescribeScalableTargetsCommand,
  DescribeScalingActivitiesCommand,
  DescribeScalingPoliciesCommand,
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
  type ApplicationAutoScalingClient,
} from '@aws-sdk/client-application-auto-scaling';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { autoScalingClient, provisionedTable } from './support/autoscaling.js';
import { scratchDirectories } from './support/scratch.js';
import { createUniqueTable } from './support/tables.js';
import { expectDynamoError, startTwinWithClients, withTwin, type TwinClients } from './support/twin.js';

const run = promisify(execFile);

function writeTarget(table: string, min = 5, max = 1000): RegisterScalableTargetCommand {
  return new RegisterScalableTargetCommand({
    ServiceNamespace: 'dynamodb',
    ResourceId: `table/${table}`,
    ScalableDimension: 'dynamodb:table:WriteCapacityUnits',
    MinCapacity: min,
    MaxCapacity: max,
  });
}

function writePolicy(table: string, targetValue = 70, extra: Record<string, unknown> = {}): PutScalingPolicyCommand {
  return new PutScalingPolicyCommand({
    PolicyName: `${table}-write`,
    ServiceNamespace: 'dynamodb',
    ResourceId: `table/${table}`,
    ScalableDimension: 'dynamodb:table:WriteCapacityUnits',
    PolicyType: 'TargetTrackingScaling',
    TargetTrackingScalingPolicyConfiguration: {
      TargetValue: targetValue,
      PredefinedMetricSpecification: { PredefinedMetricType: 'DynamoDBWriteCapacityUtilization' },
      ...extra,
    },
  });
}

describe('Application Auto Scaling API through the SDK', () => {
  let twin: TwinClients;
  let scaling: ApplicationAutoScalingClient;
  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual' });
    scaling = autoScalingClient(twin.twin.endpoint);
  });
  after(async () => {
    scaling.destroy();
    await twin.close();
  });

  test('a target is registered, described, updated and deregistered with its policies', async () => {
    const table = await provisionedTable(twin.client, 'as-target', 10, 200);
    const registered = await scaling.send(writeTarget(table, 5, 1000));
    assert.match(registered.ScalableTargetARN ?? '', /^arn:aws:application-autoscaling:us-east-1:000000000000:scalable-target\//);
    const described = await scaling.send(new DescribeScalableTargetsCommand({ ServiceNamespace: 'dynamodb', ResourceIds: [`table/${table}`] }));
    assert.equal(described.ScalableTargets?.length, 1);
    const target = described.ScalableTargets![0]!;
    assert.equal(target.MinCapacity, 5);
    assert.equal(target.MaxCapacity, 1000);
    assert.equal(target.ScalableDimension, 'dynamodb:table:WriteCapacityUnits');
    assert.ok(target.CreationTime instanceof Date);
    assert.match(target.RoleARN ?? '', /AWSServiceRoleForApplicationAutoScaling_DynamoDBTable$/);
    assert.deepEqual(target.SuspendedState, { DynamicScalingInSuspended: false, DynamicScalingOutSuspended: false, ScheduledScalingSuspended: false });

    // Re-registering changes only what it names.
    await scaling.send(new RegisterScalableTargetCommand({ ServiceNamespace: 'dynamodb', ResourceId: `table/${table}`, ScalableDimension: 'dynamodb:table:WriteCapacityUnits', MaxCapacity: 800 }));
    const updated = await scaling.send(new DescribeScalableTargetsCommand({ ServiceNamespace: 'dynamodb', ResourceIds: [`table/${table}`] }));
    assert.equal(updated.ScalableTargets![0]!.MinCapacity, 5);
    assert.equal(updated.ScalableTargets![0]!.MaxCapacity, 800);

    const policy = await scaling.send(writePolicy(table, 70, { ScaleInCooldown: 60, ScaleOutCooldown: 30 }));
    assert.match(policy.PolicyARN ?? '', /^arn:aws:autoscaling:us-east-1:000000000000:scalingPolicy:.+:resource\/dynamodb\/table\/.+:policyName\/.+-write$/);
    assert.deepEqual(
      policy.Alarms?.map((alarm) => alarm.AlarmName?.replace(/-[0-9a-f-]{36}$/, '')),
      [`TargetTracking-table/${table}-AlarmHigh`, `TargetTracking-table/${table}-AlarmLow`],
    );
    const policies = await scaling.send(new DescribeScalingPoliciesCommand({ ServiceNamespace: 'dynamodb', ResourceId: `table/${table}` }));
    assert.equal(policies.ScalingPolicies?.length, 1);
    assert.deepEqual(policies.ScalingPolicies![0]!.TargetTrackingScalingPolicyConfiguration, {
      TargetValue: 70,
      PredefinedMetricSpecification: { PredefinedMetricType: 'DynamoDBWriteCapacityUtilization' },
      ScaleOutCooldown: 30,
      ScaleInCooldown: 60,
      DisableScaleIn: false,
    });

    await scaling.send(new DeregisterScalableTargetCommand({ ServiceNamespace: 'dynamodb', ResourceId: `table/${table}`, ScalableDimension: 'dynamodb:table:WriteCapacityUnits' }));
    const gone = await scaling.send(new DescribeScalableTargetsCommand({ ServiceNamespace: 'dynamodb', ResourceIds: [`table/${table}`] }));
    assert.deepEqual(gone.ScalableTargets, []);
    const noPolicies = await scaling.send(new DescribeScalingPoliciesCommand({ ServiceNamespace: 'dynamodb', ResourceId: `table/${table}` }));
    assert.deepEqual(noPolicies.ScalingPolicies, [], 'deregistering deletes the policies');
  });

  test('DisableScaleIn leaves out the low alarm; DeleteScalingPolicy removes a policy', async () => {
    const table = await provisionedTable(twin.client, 'as-disable', 10, 200);
    await scaling.send(writeTarget(table));
    const policy = await scaling.send(writePolicy(table, 50, { DisableScaleIn: true }));
    assert.equal(policy.Alarms?.length, 1);
    assert.match(policy.Alarms![0]!.AlarmName ?? '', /-AlarmHigh-/);
    const name = `${table}-write`;
    await scaling.send(
      new DeleteScalingPolicyCommand({ PolicyName: name, ServiceNamespace: 'dynamodb', ResourceId: `table/${table}`, ScalableDimension: 'dynamodb:table:WriteCapacityUnits' }),
    );
    await expectDynamoError(
      scaling.send(
        new DeleteScalingPolicyCommand({ PolicyName: name, ServiceNamespace: 'dynamodb', ResourceId: `table/${table}`, ScalableDimension: 'dynamodb:table:WriteCapacityUnits' }),
      ),
      'ObjectNotFoundException',
      `No scaling policy found for service namespace: dynamodb, resource ID: table/${table}, scalable dimension: dynamodb:table:WriteCapacityUnits, policy name: ${name}`,
    );
  });

  test('a capacity below the new minimum is raised to it at once, through UpdateTable, as an activity', async () => {
    const table = await provisionedTable(twin.client, 'as-minimum', 10, 3);
    await scaling.send(writeTarget(table, 15, 100));
    const description = await twin.client.send(new DescribeTableCommand({ TableName: table }));
    assert.equal(description.Table?.ProvisionedThroughput?.WriteCapacityUnits, 15);
    assert.equal(description.Table?.ProvisionedThroughput?.ReadCapacityUnits, 10, 'the other dimension is kept');
    const activities = await scaling.send(new DescribeScalingActivitiesCommand({ ServiceNamespace: 'dynamodb', ResourceId: `table/${table}` }));
    assert.equal(activities.ScalingActivities?.length, 1);
    const activity = activities.ScalingActivities![0]!;
    assert.equal(activity.Description, 'Setting write capacity units to 15.');
    assert.equal(activity.Cause, 'minimum capacity was set to 15');
    assert.equal(activity.StatusCode, 'Successful');
    assert.equal(activity.StatusMessage, 'Successfully set write capacity units to 15. Change successfully fulfilled by dynamodb.');
    assert.ok(activity.StartTime instanceof Date);
  });

  test('a GSI is its own scalable target', async () => {
    const table = await provisionedTable(twin.client, 'as-gsi', 10, 10, { read: 5, write: 5 });
    await scaling.send(
      new RegisterScalableTargetCommand({
        ServiceNamespace: 'dynamodb',
        ResourceId: `table/${table}/index/byGroup`,
        ScalableDimension: 'dynamodb:index:ReadCapacityUnits',
        MinCapacity: 7,
        MaxCapacity: 50,
      }),
    );
    const description = await twin.client.send(new DescribeTableCommand({ TableName: table }));
    assert.equal(description.Table?.GlobalSecondaryIndexes?.[0]?.ProvisionedThroughput?.ReadCapacityUnits, 7);
    assert.equal(description.Table?.ProvisionedThroughput?.ReadCapacityUnits, 10, 'the table is untouched');
  });

  test('bad input gets the service’s ValidationException or ObjectNotFoundException', async () => {
    const table = await provisionedTable(twin.client, 'as-errors', 10, 200);
    await scaling.send(writeTarget(table));
    await expectDynamoError(scaling.send(writePolicy(table, 95)), 'ValidationException', 'The target value for DynamoDBWriteCapacityUtilization must be between 20 and 90');
    await expectDynamoError(scaling.send(writePolicy(table, 19.5)), 'ValidationException', /must be between 20 and 90/);
    await expectDynamoError(scaling.send(writeTarget('no-such-table')), 'ValidationException', 'DynamoDB table does not exist: table/no-such-table');
    await expectDynamoError(
      scaling.send(new RegisterScalableTargetCommand({ ServiceNamespace: 'dynamodb', ResourceId: `dynamo/${table}`, ScalableDimension: 'dynamodb:table:WriteCapacityUnits', MinCapacity: 1, MaxCapacity: 2 })),
      'ValidationException',
      'Unsupported service namespace, resource type or scalable dimension',
    );
    await expectDynamoError(
      scaling.send(new RegisterScalableTargetCommand({ ServiceNamespace: 'dynamodb', ResourceId: `table/${table}`, ScalableDimension: 'dynamodb:index:WriteCapacityUnits', MinCapacity: 1, MaxCapacity: 2 })),
      'ValidationException',
      'Unsupported service namespace, resource type or scalable dimension',
    );
    await expectDynamoError(scaling.send(writePolicy('unregistered-table')), 'ObjectNotFoundException',
      'No scalable target registered for service namespace: dynamodb, resource ID: table/unregistered-table, scalable dimension: dynamodb:table:WriteCapacityUnits');
    await expectDynamoError(
      scaling.send(new DeregisterScalableTargetCommand({ ServiceNamespace: 'dynamodb', ResourceId: 'table/unregistered-table', ScalableDimension: 'dynamodb:table:ReadCapacityUnits' })),
      'ObjectNotFoundException',
      'No scalable target registered for service namespace: dynamodb, resource ID: table/unregistered-table, scalable dimension: dynamodb:table:ReadCapacityUnits',
    );
    const onDemand = await createUniqueTable(twin.client, 'as-ondemand', { AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }] });
    await expectDynamoError(scaling.send(writeTarget(onDemand)), 'ValidationException', /not in provisioned capacity mode/);
    await expectDynamoError(
      scaling.send(new RegisterScalableTargetCommand({ ServiceNamespace: 'dynamodb', ResourceId: `table/${table}`, ScalableDimension: 'dynamodb:table:WriteCapacityUnits', MinCapacity: 10, MaxCapacity: 5 })),
      'ValidationException',
      'Minimum capacity cannot be greater than maximum capacity',
    );
    // Shape errors are the Coral framework's, as for DynamoDB.
    await expectDynamoError(
      scaling.send(new RegisterScalableTargetCommand({ ServiceNamespace: 'dynamo' as 'dynamodb', ResourceId: `table/${table}`, ScalableDimension: 'dynamodb:table:WriteCapacityUnits' })),
      'ValidationException',
      /^1 validation error detected: Value 'dynamo' at 'serviceNamespace' failed to satisfy constraint: Member must satisfy enum value set: \[ecs, /,
    );
  });

  test('Describe* page through 50 at a time with NextToken', async () => {
    const tables: string[] = [];
    for (let count = 0; count < 3; count++) tables.push(await provisionedTable(twin.client, 'as-page', 10, 10));
    for (const table of tables) await scaling.send(writeTarget(table, 1, 100));
    const seen: string[] = [];
    let nextToken: string | undefined;
    do {
      const page = await scaling.send(new DescribeScalableTargetsCommand({ ServiceNamespace: 'dynamodb', ResourceIds: tables.map((table) => `table/${table}`), MaxResults: 2, NextToken: nextToken }));
      assert.ok((page.ScalableTargets?.length ?? 0) <= 2);
      seen.push(...(page.ScalableTargets ?? []).map((target) => target.ResourceId!));
      nextToken = page.NextToken;
    } while (nextToken !== undefined);
    assert.deepEqual(seen.sort(), tables.map((table) => `table/${table}`).sort());
    await expectDynamoError(scaling.send(new DescribeScalableTargetsCommand({ ServiceNamespace: 'dynamodb', NextToken: 'nonsense' })), 'InvalidNextTokenException');
  });
});

describe('Application Auto Scaling state persists with the store', () => {
  const directories = scratchDirectories('dynatwin-autoscaling-');
  after(() => directories.removeAll());

  test('targets, policies and activities survive a restart on LMDB', async () => {
    const dataDir = directories.fresh();
    const table = await withTwin({ dataDir }, async (twin) => {
      const scaling = autoScalingClient(twin.twin.endpoint);
      const name = await provisionedTable(twin.client, 'as-persist', 10, 2);
      await scaling.send(writeTarget(name, 4, 400));
      await scaling.send(writePolicy(name, 60));
      scaling.destroy();
      return name;
    });
    await withTwin({ dataDir }, async (twin) => {
      const scaling = autoScalingClient(twin.twin.endpoint);
      const targets = await scaling.send(new DescribeScalableTargetsCommand({ ServiceNamespace: 'dynamodb', ResourceIds: [`table/${table}`] }));
      assert.equal(targets.ScalableTargets?.[0]?.MaxCapacity, 400);
      const policies = await scaling.send(new DescribeScalingPoliciesCommand({ ServiceNamespace: 'dynamodb', ResourceId: `table/${table}` }));
      assert.equal(policies.ScalingPolicies?.[0]?.TargetTrackingScalingPolicyConfiguration?.TargetValue, 60);
      const activities = await scaling.send(new DescribeScalingActivitiesCommand({ ServiceNamespace: 'dynamodb', ResourceId: `table/${table}` }));
      assert.equal(activities.ScalingActivities?.[0]?.Cause, 'minimum capacity was set to 4');
      scaling.destroy();
    });
  });
});

describe('Application Auto Scaling through the AWS CLI', () => {
  test('register-scalable-target, put-scaling-policy and describe-scalable-targets work unchanged', async (context) => {
    const cli = await run('aws', ['--version']).catch(() => undefined);
    if (cli === undefined) {
      context.skip('the aws CLI is not on PATH');
      return;
    }
    await withTwin({}, async (twin) => {
      const table = await provisionedTable(twin.client, 'as-cli', 10, 10);
      const env = { ...process.env, AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'secret', AWS_DEFAULT_REGION: 'us-east-1', AWS_PAGER: '' };
      const aws = (...args: string[]) => run('aws', ['application-autoscaling', ...args, '--endpoint-url', twin.twin.endpoint, '--output', 'json'], { env });
      await aws('register-scalable-target', '--service-namespace', 'dynamodb', '--resource-id', `table/${table}`, '--scalable-dimension', 'dynamodb:table:ReadCapacityUnits', '--min-capacity', '5', '--max-capacity', '50');
      const put = await aws(
        'put-scaling-policy', '--service-namespace', 'dynamodb', '--resource-id', `table/${table}`, '--scalable-dimension', 'dynamodb:table:ReadCapacityUnits',
        '--policy-name', 'cli-read', '--policy-type', 'TargetTrackingScaling',
        '--target-tracking-scaling-policy-configuration', JSON.stringify({ TargetValue: 50, PredefinedMetricSpecification: { PredefinedMetricType: 'DynamoDBReadCapacityUtilization' } }),
      );
      assert.equal((JSON.parse(put.stdout) as { Alarms: unknown[] }).Alarms.length, 2);
      const described = await aws('describe-scalable-targets', '--service-namespace', 'dynamodb', '--resource-ids', `table/${table}`);
      const targets = (JSON.parse(described.stdout) as { ScalableTargets: { MinCapacity: number; MaxCapacity: number }[] }).ScalableTargets;
      assert.deepEqual(targets.map((target) => [target.MinCapacity, target.MaxCapacity]), [[5, 50]]);
      const failed = await aws('put-scaling-policy', '--service-namespace', 'dynamodb', '--resource-id', `table/${table}`, '--scalable-dimension', 'dynamodb:table:ReadCapacityUnits',
        '--policy-name', 'cli-read', '--policy-type', 'TargetTrackingScaling',
        '--target-tracking-scaling-policy-configuration', JSON.stringify({ TargetValue: 95, PredefinedMetricSpecification: { PredefinedMetricType: 'DynamoDBReadCapacityUtilization' } }),
      ).then(() => undefined, (error: { stderr: string }) => error.stderr);
      assert.match(failed ?? '', /ValidationException.*must be between 20 and 90/);
    });
  });
});
