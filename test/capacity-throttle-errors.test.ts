/**
 * Throttle verdicts on the wire (reference §3.2, §3.3, §3.6): exception, message, the
 * ThrottlingReasons member under each exception's own spelling, transaction cancellation reasons;
 * and the AWS SDK for JavaScript v3 reading those bodies as throttling errors it retries.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  DynamoDBClient,
  GetItemCommand,
  ProvisionedThroughputExceededException,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import { ConfiguredRetryStrategy, isThrottlingError } from '@smithy/core/retry';
import { throttleReason, type BillingMode, type Direction, type LimitType, type ResourceKind, type ThrottleVerdict } from '../src/capacity/admission.js';
import {
  MAX_ON_DEMAND_MESSAGE,
  ON_DEMAND_INDEX_MESSAGE,
  ON_DEMAND_TABLE_MESSAGE,
  PROVISIONED_INDEX_MESSAGE,
  PROVISIONED_TABLE_MESSAGE,
  throttleCancellationReason,
  throttleError,
} from '../src/capacity/throttle-errors.js';
import { indexArn, tableArn } from './support/capacity.js';

function verdict(kind: ResourceKind, direction: Direction, limit: LimitType, billing: BillingMode): ThrottleVerdict {
  return {
    reason: throttleReason(kind, direction, limit),
    kind,
    direction,
    limit,
    billing,
    resourceArn: kind === 'Table' ? tableArn('orders') : indexArn('orders', 'by-status'),
    partitionId: 0,
    demandIndex: 0,
    backPressure: false,
  };
}

describe('throttle errors', () => {
  test('provisioned: ProvisionedThroughputExceededException with ThrottlingReasons, table and GSI messages', () => {
    const table = throttleError(verdict('Table', 'write', 'ProvisionedThroughputExceeded', 'provisioned'));
    assert.deepEqual(table.toBody(), {
      __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message: PROVISIONED_TABLE_MESSAGE,
      ThrottlingReasons: [{ reason: 'TableWriteProvisionedThroughputExceeded', resource: tableArn('orders') }],
    });
    assert.equal(table.statusCode, 400);
    const index = throttleError(verdict('Index', 'read', 'KeyRangeThroughputExceeded', 'provisioned'));
    assert.equal(index.code, 'ProvisionedThroughputExceededException');
    assert.equal(index.message, PROVISIONED_INDEX_MESSAGE);
    assert.deepEqual(index.toBody()['ThrottlingReasons'], [{ reason: 'IndexReadKeyRangeThroughputExceeded', resource: indexArn('orders', 'by-status') }]);
    assert.ok(PROVISIONED_TABLE_MESSAGE.endsWith('UpdateTable API.'));
    assert.ok(PROVISIONED_INDEX_MESSAGE.endsWith('UpdateTable API'));
  });

  test('on-demand: ThrottlingException with lower-case throttlingReasons, table and GSI messages', () => {
    const table = throttleError(verdict('Table', 'read', 'KeyRangeThroughputExceeded', 'on-demand'));
    assert.deepEqual(table.toBody(), {
      __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
      message: ON_DEMAND_TABLE_MESSAGE,
      throttlingReasons: [{ reason: 'TableReadKeyRangeThroughputExceeded', resource: tableArn('orders') }],
    });
    const account = throttleError(verdict('Index', 'write', 'AccountLimitExceeded', 'on-demand'));
    assert.equal(account.code, 'ThrottlingException');
    assert.equal(account.message, ON_DEMAND_INDEX_MESSAGE);
    assert.deepEqual(account.toBody()['throttlingReasons'], [{ reason: 'IndexWriteAccountLimitExceeded', resource: indexArn('orders', 'by-status') }]);
  });

  test('maximum on-demand throughput: ThrottlingException with its own message, table or index', () => {
    for (const kind of ['Table', 'Index'] as const) {
      const error = throttleError(verdict(kind, 'write', 'MaxOnDemandThroughputExceeded', 'on-demand'));
      assert.equal(error.code, 'ThrottlingException');
      assert.equal(error.message, MAX_ON_DEMAND_MESSAGE);
      assert.equal((error.toBody()['throttlingReasons'] as { reason: string }[])[0]!.reason, `${kind}WriteMaxOnDemandThroughputExceeded`);
    }
  });

  test('key-range throttles on provisioned tables can be configured as ThrottlingException', () => {
    const keyRange = verdict('Table', 'write', 'KeyRangeThroughputExceeded', 'provisioned');
    assert.equal(throttleError(keyRange).code, 'ProvisionedThroughputExceededException');
    const configured = throttleError(keyRange, { keyRangeOnProvisioned: 'ThrottlingException' });
    assert.equal(configured.code, 'ThrottlingException');
    assert.equal(configured.message, ON_DEMAND_TABLE_MESSAGE);
    assert.equal(throttleError(verdict('Table', 'write', 'ProvisionedThroughputExceeded', 'provisioned'), { keyRangeOnProvisioned: 'ThrottlingException' }).code, 'ProvisionedThroughputExceededException');
  });

  test('transaction cancellation reasons', () => {
    assert.deepEqual(throttleCancellationReason(verdict('Table', 'write', 'ProvisionedThroughputExceeded', 'provisioned')), {
      Code: 'ProvisionedThroughputExceeded',
      Message: PROVISIONED_TABLE_MESSAGE,
    });
    assert.deepEqual(throttleCancellationReason(verdict('Index', 'write', 'KeyRangeThroughputExceeded', 'provisioned')), {
      Code: 'ProvisionedThroughputExceeded',
      Message: PROVISIONED_INDEX_MESSAGE,
    });
    assert.deepEqual(throttleCancellationReason(verdict('Table', 'read', 'KeyRangeThroughputExceeded', 'on-demand')), {
      Code: 'ThrottlingError',
      Message: ON_DEMAND_TABLE_MESSAGE,
    });
    assert.deepEqual(throttleCancellationReason(verdict('Index', 'write', 'AccountLimitExceeded', 'on-demand')), {
      Code: 'ThrottlingError',
      Message: ON_DEMAND_INDEX_MESSAGE,
    });
  });
});

describe('the AWS SDK reads both exceptions as retryable throttling', () => {
  // A stub endpoint answering every request with one error body, counting the attempts.
  let server: Server;
  let endpoint = '';
  let body = '';
  let attempts = 0;

  before(async () => {
    server = createServer((request, response) => {
      attempts++;
      request.resume();
      request.on('end', () => {
        response.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0', 'Content-Length': Buffer.byteLength(body) });
        response.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function callWith(errorBody: Record<string, unknown>): Promise<unknown> {
    body = JSON.stringify(errorBody);
    attempts = 0;
    const client = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
      // Three attempts without waiting between them.
      retryStrategy: new ConfiguredRetryStrategy(3, () => 0),
    });
    try {
      await client.send(new GetItemCommand({ TableName: 'orders', Key: { id: { S: '1' } } }));
    } catch (error) {
      return error;
    } finally {
      client.destroy();
    }
    assert.fail('the call succeeded');
  }

  test('ProvisionedThroughputExceededException', async () => {
    const error = await callWith(throttleError(verdict('Table', 'read', 'ProvisionedThroughputExceeded', 'provisioned')).toBody());
    assert.ok(error instanceof ProvisionedThroughputExceededException);
    assert.equal(error.message, PROVISIONED_TABLE_MESSAGE);
    assert.deepEqual(error.ThrottlingReasons, [{ reason: 'TableReadProvisionedThroughputExceeded', resource: tableArn('orders') }]);
    assert.ok(isThrottlingError(error as Parameters<typeof isThrottlingError>[0]));
    assert.equal(attempts, 3, 'retried as a throttle');
  });

  test('ThrottlingException', async () => {
    const error = await callWith(throttleError(verdict('Index', 'write', 'KeyRangeThroughputExceeded', 'on-demand')).toBody());
    assert.ok(error instanceof ThrottlingException);
    assert.equal(error.message, ON_DEMAND_INDEX_MESSAGE);
    assert.deepEqual(error.throttlingReasons, [{ reason: 'IndexWriteKeyRangeThroughputExceeded', resource: indexArn('orders', 'by-status') }]);
    assert.ok(isThrottlingError(error as Parameters<typeof isThrottlingError>[0]));
    assert.equal(attempts, 3, 'retried as a throttle');
  });
});
