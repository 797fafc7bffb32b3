/**
 * The CloudWatch API on the DynamoDB endpoint, through @aws-sdk/client-cloudwatch in its three
 * protocols (AWS JSON 1.0, its default here; Smithy RPC v2 CBOR; Query) and the AWS CLI when it is
 * installed: GetMetricStatistics, GetMetricData and ListMetrics answer what /dynatwin/metrics
 * answers, DescribeAlarms shows auto scaling's alarms with their state, and malformed bodies are
 * 4xx answers.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  CloudWatchClient,
  DescribeAlarmsCommand,
  GetMetricDataCommand,
  GetMetricStatisticsCommand,
  ListMetricsCommand,
  type CloudWatchClientConfig,
} from '@aws-sdk/client-cloudwatch';
import { AwsQueryProtocol, AwsSmithyRpcV2CborProtocol } from '@aws-sdk/core/protocols';
import { PutScalingPolicyCommand, RegisterScalableTargetCommand } from '@aws-sdk/client-application-auto-scaling';
import { DescribeTableCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import type { Dynatwin } from '../src/index.js';
import { encodeCbor } from '../src/cloudwatch/cbor.js';
import { autoScalingClient, provisionedTable } from './support/autoscaling.js';
import { rawRequest, SIGNED_HEADERS } from './support/raw.js';
import { startTwinWithClients, type TwinClients } from './support/twin.js';

const run = promisify(execFile);
const MINUTE_MS = 60_000;

type Protocol = 'json' | 'cbor' | 'query';

function cloudWatchClient(endpoint: string, protocol: Protocol): CloudWatchClient {
  const config: CloudWatchClientConfig = { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' }, maxAttempts: 1 };
  const settings = {
    defaultNamespace: 'com.amazonaws.cloudwatch',
    xmlNamespace: 'http://monitoring.amazonaws.com/doc/2010-08-01/',
    version: '2010-08-01',
    serviceTarget: 'GraniteServiceVersion20100801',
    awsQueryCompatible: true,
  };
  if (protocol === 'cbor') return new CloudWatchClient({ ...config, protocol: AwsSmithyRpcV2CborProtocol, protocolSettings: settings } as CloudWatchClientConfig);
  if (protocol === 'query') return new CloudWatchClient({ ...config, protocol: AwsQueryProtocol, protocolSettings: settings } as CloudWatchClientConfig);
  return new CloudWatchClient(config);
}

interface MetricsJson {
  readonly metrics: readonly { readonly metric: string; readonly datapoints: readonly { Timestamp: string; Sum: number; SampleCount: number; Maximum: number; Minimum: number; Average: number }[] }[];
}

describe('CloudWatch API', () => {
  let twinClients: TwinClients;
  let twin: Dynatwin<ManualClock>;
  let table: string;
  let startMs: number;
  let endMs: number;
  const clients = new Map<Protocol, CloudWatchClient>();

  before(async () => {
    twinClients = await startTwinWithClients({ clock: 'manual' });
    twin = twinClients.twin as Dynatwin<ManualClock>;
    for (const protocol of ['json', 'cbor', 'query'] as const) clients.set(protocol, cloudWatchClient(twin.endpoint, protocol));
    table = await provisionedTable(twinClients.client, 'cw', 10, 200);
    await twinClients.client.send(new PutItemCommand({ TableName: table, Item: { id: { S: 'a' }, n: { N: '0' }, payload: { S: 'x'.repeat(3000) } } }));
    twin.clock.advance(MINUTE_MS - (twin.clock.nowMs() % MINUTE_MS));
    startMs = twin.clock.nowMs();
    // Four minutes of writes, a different rate each minute (3 WCU per update).
    for (let minute = 0; minute < 4; minute++) {
      for (let second = 0; second < 60; second += 10) {
        for (let count = 0; count <= minute; count++) {
          await twinClients.client.send(new UpdateItemCommand({ TableName: table, Key: { id: { S: 'a' } }, UpdateExpression: 'SET n = n + :one', ExpressionAttributeValues: { ':one': { N: '1' } } }));
        }
        twin.clock.advance(10_000);
      }
    }
    endMs = twin.clock.nowMs();
    await twin.settled();
  });
  after(async () => {
    for (const client of clients.values()) client.destroy();
    await twinClients.close();
  });

  async function dynatwinMetrics(metric: string, period: number): Promise<MetricsJson> {
    const response = await fetch(`${twin.endpoint}/dynatwin/metrics?table=${table}&metric=${metric}&period=${period}&startMs=${startMs}&endMs=${endMs - 1}`);
    return (await response.json()) as MetricsJson;
  }

  for (const protocol of ['json', 'cbor', 'query'] as const) {
    test(`GetMetricStatistics (${protocol}) answers what /dynatwin/metrics answers`, async () => {
      const answer = await clients.get(protocol)!.send(
        new GetMetricStatisticsCommand({
          Namespace: 'AWS/DynamoDB',
          MetricName: 'ConsumedWriteCapacityUnits',
          Dimensions: [{ Name: 'TableName', Value: table }],
          StartTime: new Date(startMs),
          EndTime: new Date(endMs),
          Period: 60,
          Statistics: ['Sum', 'SampleCount', 'Maximum', 'Minimum', 'Average'],
        }),
      );
      const expected = (await dynatwinMetrics('ConsumedWriteCapacityUnits', 60)).metrics[0]!.datapoints;
      assert.equal(expected.length, 4);
      assert.deepEqual(expected.map((point) => point.Sum), [18, 36, 54, 72]);
      const got = [...(answer.Datapoints ?? [])].sort((a, b) => a.Timestamp!.getTime() - b.Timestamp!.getTime());
      assert.equal(answer.Label, 'ConsumedWriteCapacityUnits');
      assert.deepEqual(
        got.map((point) => [point.Timestamp!.toISOString(), point.Sum, point.SampleCount, point.Maximum, point.Minimum, point.Average, point.Unit]),
        expected.map((point) => [point.Timestamp, point.Sum, point.SampleCount, point.Maximum, point.Minimum, point.Average, 'Count']),
      );
    });

    test(`GetMetricData (${protocol}): a 120-second period sums two minutes, newest first`, async () => {
      const answer = await clients.get(protocol)!.send(
        new GetMetricDataCommand({
          StartTime: new Date(startMs),
          EndTime: new Date(endMs),
          MetricDataQueries: [
            { Id: 'writes', MetricStat: { Metric: { Namespace: 'AWS/DynamoDB', MetricName: 'ConsumedWriteCapacityUnits', Dimensions: [{ Name: 'TableName', Value: table }] }, Period: 120, Stat: 'Sum' } },
          ],
        }),
      );
      // Gauges are sampled when read: ask up to a minute past now.
      const gauges = await clients.get(protocol)!.send(
        new GetMetricDataCommand({
          StartTime: new Date(startMs),
          EndTime: new Date(twin.clock.nowMs() + MINUTE_MS),
          ScanBy: 'TimestampAscending',
          MetricDataQueries: [
            { Id: 'provisioned', MetricStat: { Metric: { Namespace: 'AWS/DynamoDB', MetricName: 'ProvisionedWriteCapacityUnits', Dimensions: [{ Name: 'TableName', Value: table }] }, Period: 60, Stat: 'Maximum' } },
          ],
        }),
      );
      const writes = answer.MetricDataResults!.find((result) => result.Id === 'writes')!;
      assert.deepEqual(writes.Values, [54 + 72, 18 + 36]);
      assert.deepEqual(writes.Timestamps!.map((time) => time.getTime()), [startMs + 2 * MINUTE_MS, startMs]);
      assert.equal(writes.StatusCode, 'Complete');
      const provisioned = gauges.MetricDataResults![0]!;
      assert.ok(provisioned.Values!.length > 0, 'the gauge was sampled');
      assert.equal(provisioned.Values!.at(-1), 200);
    });

    test(`ListMetrics (${protocol}) lists the table's series with CloudWatch's dimensions`, async () => {
      const answer = await clients.get(protocol)!.send(new ListMetricsCommand({ Namespace: 'AWS/DynamoDB', Dimensions: [{ Name: 'TableName', Value: table }] }));
      const names = new Set(answer.Metrics!.map((metric) => metric.MetricName));
      assert.ok(names.has('ConsumedWriteCapacityUnits') && names.has('ProvisionedWriteCapacityUnits'), [...names].join(', '));
      const perOperation = answer.Metrics!.filter((metric) => metric.MetricName === 'SuccessfulRequestLatency').map((metric) => metric.Dimensions);
      assert.deepEqual(perOperation, [
        [{ Name: 'TableName', Value: table }, { Name: 'Operation', Value: 'PutItem' }],
        [{ Name: 'TableName', Value: table }, { Name: 'Operation', Value: 'UpdateItem' }],
      ]);
      const consumed = answer.Metrics!.find((metric) => metric.MetricName === 'ConsumedWriteCapacityUnits');
      assert.deepEqual(consumed?.Dimensions, [{ Name: 'TableName', Value: table }]);
    });

    test(`bad input (${protocol}) gets CloudWatch's error`, async () => {
      let caught: unknown;
      try {
        await clients.get(protocol)!.send(
          new GetMetricStatisticsCommand({ Namespace: 'AWS/DynamoDB', MetricName: 'ConsumedWriteCapacityUnits', StartTime: new Date(endMs), EndTime: new Date(startMs), Period: 60, Statistics: ['Sum'] }),
        );
      } catch (error) {
        caught = error;
      }
      assert.ok(caught instanceof Error);
      assert.match(caught.name, /^InvalidParameterValue(Exception)?$/);
      assert.equal(caught.message, 'The parameter StartTime must be less than the parameter EndTime.');
      assert.equal((caught as unknown as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode, 400);
    });
  }

  test('DescribeAlarms shows the target-tracking alarms auto scaling made, with their state', async () => {
    const scaling = autoScalingClient(twin.endpoint);
    await scaling.send(new RegisterScalableTargetCommand({ ServiceNamespace: 'dynamodb', ResourceId: `table/${table}`, ScalableDimension: 'dynamodb:table:WriteCapacityUnits', MinCapacity: 1, MaxCapacity: 400 }));
    const policy = await scaling.send(
      new PutScalingPolicyCommand({
        PolicyName: 'cw-write',
        ServiceNamespace: 'dynamodb',
        ResourceId: `table/${table}`,
        ScalableDimension: 'dynamodb:table:WriteCapacityUnits',
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingScalingPolicyConfiguration: { TargetValue: 70, PredefinedMetricSpecification: { PredefinedMetricType: 'DynamoDBWriteCapacityUtilization' } },
      }),
    );
    scaling.destroy();
    const prefix = `TargetTracking-table/${table}-`;
    const before = await clients.get('cbor')!.send(new DescribeAlarmsCommand({ AlarmNamePrefix: prefix }));
    assert.deepEqual(before.MetricAlarms!.map((alarm) => alarm.StateValue), ['INSUFFICIENT_DATA', 'INSUFFICIENT_DATA']);
    twin.clock.advance(MINUTE_MS - (twin.clock.nowMs() % MINUTE_MS));
    twin.clock.advance(2 * MINUTE_MS);
    await twin.settled();
    for (const protocol of ['json', 'cbor', 'query'] as const) {
      const answer = await clients.get(protocol)!.send(new DescribeAlarmsCommand({ AlarmNamePrefix: prefix }));
      const [high, low] = answer.MetricAlarms!;
      assert.equal(high!.AlarmName, policy.Alarms![0]!.AlarmName);
      assert.equal(high!.StateValue, 'OK');
      assert.equal(high!.MetricName, 'ConsumedWriteCapacityUnits');
      assert.equal(high!.Namespace, 'AWS/DynamoDB');
      assert.equal(high!.Statistic, 'Sum');
      assert.equal(high!.Period, 60);
      assert.equal(high!.EvaluationPeriods, 2);
      assert.equal(high!.Threshold, 0.7 * 200 * 60);
      assert.equal(high!.ComparisonOperator, 'GreaterThanThreshold');
      assert.deepEqual(high!.Dimensions, [{ Name: 'TableName', Value: table }]);
      assert.deepEqual(high!.AlarmActions, [policy.PolicyARN]);
      assert.ok(high!.StateUpdatedTimestamp instanceof Date);
      assert.equal(low!.EvaluationPeriods, 15);
      assert.equal(low!.ComparisonOperator, 'LessThanThreshold');
      assert.equal(low!.Threshold, 0.5 * 200 * 60);
      assert.equal(low!.StateValue, 'OK', 'two idle datapoints are below, but not fifteen yet');
    }
    // Fifteen idle minutes: the low alarm fires and the table is scaled in to its minimum.
    twin.clock.advance(13 * MINUTE_MS);
    await twin.settled();
    const idle = await clients.get('json')!.send(new DescribeAlarmsCommand({ AlarmNamePrefix: prefix, StateValue: 'ALARM' }));
    assert.deepEqual(idle.MetricAlarms!.map((alarm) => alarm.AlarmName), [policy.Alarms![1]!.AlarmName]);
    const capacity = await twinClients.client.send(new DescribeTableCommand({ TableName: table }));
    assert.equal(capacity.Table!.ProvisionedThroughput!.WriteCapacityUnits, 1);
  });

  test('malformed CBOR and Query bodies get a 4xx, never a 500', async () => {
    const cborHeaders = { ...SIGNED_HEADERS, 'smithy-protocol': 'rpc-v2-cbor', 'Content-Type': 'application/cbor', Accept: 'application/cbor' };
    const path = '/service/GraniteServiceVersion20100801/operation/GetMetricStatistics';
    for (const body of [Buffer.from([0xbf]), Buffer.from([0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), Buffer.from([0xa1, 0x01, 0x02]), Buffer.from('not cbor'), encodeCbor([1, 2]), encodeCbor({ Namespace: 5 })]) {
      const response = await rawRequest(twin.endpoint, { path, headers: cborHeaders, body });
      assert.ok(response.status >= 400 && response.status < 500, `CBOR ${body.toString('hex')}: ${response.status}`);
      assert.equal(response.headers['smithy-protocol'], 'rpc-v2-cbor');
    }
    const unknown = await rawRequest(twin.endpoint, { path: '/service/GraniteServiceVersion20100801/operation/PutMetricAlarm', headers: cborHeaders, body: encodeCbor({}) });
    assert.equal(unknown.status, 400);
    const formHeaders = { ...SIGNED_HEADERS, 'Content-Type': 'application/x-www-form-urlencoded' };
    for (const body of ['', 'Version=2010-08-01', 'Action=GetMetricStatistics&Dimensions.member.0.Name=x', 'Action=ListMetrics&A.member.1=x&A.member.1.B=y', 'Action=DescribeAlarms&MaxRecords=abc', '%%%&&==', 'Action=GetMetricStatistics&Namespace=AWS%2FDynamoDB']) {
      const response = await rawRequest(twin.endpoint, { headers: formHeaders, body });
      assert.ok(response.status >= 400 && response.status < 500, `Query ${JSON.stringify(body)}: ${response.status} ${response.text}`);
      assert.match(response.text, /^<ErrorResponse xmlns="http:\/\/monitoring\.amazonaws\.com\/doc\/2010-08-01\/"><Error><Type>Sender<\/Type><Code>/);
    }
  });

  test('the server’s safety rules hold: a foreign Host or a foreign page’s Origin is refused', async () => {
    const headers = { ...SIGNED_HEADERS, 'smithy-protocol': 'rpc-v2-cbor', 'Content-Type': 'application/cbor' };
    const path = '/service/GraniteServiceVersion20100801/operation/ListMetrics';
    const foreignHost = await rawRequest(twin.endpoint, { path, headers: { ...headers, Host: 'attacker.example' }, body: encodeCbor({}) });
    assert.equal(foreignHost.status, 403);
    const foreignOrigin = await rawRequest(twin.endpoint, { path, headers: { ...headers, Origin: 'https://attacker.example' }, body: encodeCbor({}) });
    assert.equal(foreignOrigin.status, 403);
    const form = await rawRequest(twin.endpoint, { headers: { ...SIGNED_HEADERS, 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://attacker.example' }, body: 'Action=ListMetrics' });
    assert.equal(form.status, 403, 'a cross-site form post never reaches CloudWatch');
    const unsigned = await rawRequest(twin.endpoint, { path, headers: { 'smithy-protocol': 'rpc-v2-cbor', 'Content-Type': 'application/cbor' }, body: encodeCbor({}) });
    assert.equal(unsigned.status, 400, 'unsigned requests are refused as DynamoDB refuses them');
  });

  test('the AWS CLI: aws cloudwatch get-metric-statistics --endpoint-url works unchanged', async (context) => {
    const cli = await run('aws', ['--version']).catch(() => undefined);
    if (cli === undefined) {
      context.skip('the aws CLI is not on PATH');
      return;
    }
    const env = { ...process.env, AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'secret', AWS_DEFAULT_REGION: 'us-east-1', AWS_PAGER: '' };
    const { stdout } = await run(
      'aws',
      [
        'cloudwatch', 'get-metric-statistics', '--endpoint-url', twin.endpoint, '--output', 'json',
        '--namespace', 'AWS/DynamoDB', '--metric-name', 'ConsumedWriteCapacityUnits', '--dimensions', `Name=TableName,Value=${table}`,
        '--start-time', new Date(startMs).toISOString(), '--end-time', new Date(endMs).toISOString(), '--period', '60', '--statistics', 'Sum', 'SampleCount',
      ],
      { env },
    );
    const answer = JSON.parse(stdout) as { Label: string; Datapoints: { Timestamp: string | number; Sum: number; SampleCount: number }[] };
    const expected = (await dynatwinMetrics('ConsumedWriteCapacityUnits', 60)).metrics[0]!.datapoints;
    // AWS CLI v1 prints the wire's epoch seconds as they are; v2 prints ISO 8601.
    const msOf = (time: string | number): number => (typeof time === 'number' ? time * 1000 : Date.parse(time));
    const got = answer.Datapoints.map((point) => [msOf(point.Timestamp), point.Sum, point.SampleCount]).sort((a, b) => a[0]! - b[0]!);
    assert.deepEqual(got, expected.map((point) => [Date.parse(point.Timestamp), point.Sum, point.SampleCount]));
  });
});
