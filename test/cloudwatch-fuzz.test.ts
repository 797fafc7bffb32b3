/**
 * Fuzz of what parses CloudWatch requests: the CBOR codec (random and mutated bytes decode to a
 * value or a CborError, never another exception; random values survive a round trip) and the
 * endpoint (random CBOR, JSON and form bodies are answered with a 4xx or a 200, never a 500 or a
 * hang). Seeded: a failure names its seed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { CborError, decodeCbor, encodeCbor, type CborValue } from '../src/cloudwatch/cbor.js';
import { startDynatwin, type Dynatwin } from '../src/index.js';
import { seededRandom } from './support/random.js';
import { rawRequest, SIGNED_HEADERS } from './support/raw.js';
import { testTwinOptions } from './support/test-store.js';

function randomValue(random: () => number, depth: number): CborValue {
  const kind = Math.floor(random() * (depth > 4 ? 7 : 9));
  switch (kind) {
    case 0:
      return Math.floor(random() * 2 ** (random() * 53)) * (random() < 0.3 ? -1 : 1);
    case 1:
      return (random() - 0.5) * 10 ** Math.floor(random() * 20);
    case 2:
      return String.fromCodePoint(...Array.from({ length: Math.floor(random() * 12) }, () => Math.floor(random() * 0xd7ff)));
    case 3:
      return random() < 0.5;
    case 4:
      return null;
    case 5:
      return new Uint8Array(Array.from({ length: Math.floor(random() * 8) }, () => Math.floor(random() * 256)));
    case 6:
      return new Date(Math.floor(random() * 4e12));
    case 7:
      return Array.from({ length: Math.floor(random() * 5) }, () => randomValue(random, depth + 1));
    default: {
      const map: Record<string, CborValue> = {};
      for (let index = Math.floor(random() * 5); index > 0; index--) map[`k${Math.floor(random() * 100)}`] = randomValue(random, depth + 1);
      return map;
    }
  }
}

describe('CBOR codec fuzz', () => {
  test('random values round-trip', () => {
    const random = seededRandom(19);
    for (let round = 0; round < 2000; round++) {
      const value = randomValue(random, 0);
      assert.deepEqual(decodeCbor(encodeCbor(value)), value, `round ${round}`);
    }
  });

  test('random and mutated bytes decode to a value or a CborError', () => {
    const random = seededRandom(2019);
    for (let round = 0; round < 5000; round++) {
      let bytes: Uint8Array;
      if (round % 2 === 0) {
        bytes = Uint8Array.from({ length: Math.floor(random() * 40) }, () => Math.floor(random() * 256));
      } else {
        bytes = Uint8Array.from(encodeCbor(randomValue(random, 0)));
        for (let flips = 1 + Math.floor(random() * 3); flips > 0 && bytes.length > 0; flips--) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
        if (random() < 0.3) bytes = bytes.slice(0, Math.floor(random() * bytes.length));
      }
      try {
        decodeCbor(bytes);
      } catch (error) {
        assert.ok(error instanceof CborError, `round ${round}: ${Buffer.from(bytes).toString('hex')} threw ${String(error)}`);
      }
    }
  });

  test('hostile lengths and nesting are refused before allocating', () => {
    assert.throws(() => decodeCbor(Uint8Array.from([0x9b, 0x00, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])), CborError);
    assert.throws(() => decodeCbor(Uint8Array.from([0xbb, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff])), CborError);
    assert.throws(() => decodeCbor(Uint8Array.from(new Array(10_000).fill(0x81))), CborError);
    assert.throws(() => decodeCbor(Uint8Array.from([0xa1, 0x01, 0x02])), /map keys must be text/);
    const proto = decodeCbor(Uint8Array.from(encodeCbor({ ['__proto__']: 1 } as unknown as CborValue))) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  });
});

describe('CloudWatch and Application Auto Scaling endpoint fuzz', () => {
  let twin: Dynatwin;
  const agent = new Agent({ keepAlive: true });
  before(async () => {
    twin = await startDynatwin(testTwinOptions({}));
  });
  after(async () => {
    agent.destroy();
    await twin.close();
  });

  test('random bodies in each protocol are answered with a 4xx or a 200', async () => {
    const random = seededRandom(1919);
    const operations = ['GetMetricStatistics', 'GetMetricData', 'ListMetrics', 'DescribeAlarms'];
    const members = ['Namespace', 'MetricName', 'Dimensions', 'StartTime', 'EndTime', 'Period', 'Statistics', 'MetricDataQueries', 'MaxRecords', 'NextToken', 'AlarmNames', 'StateValue', 'ScanBy'];
    for (let round = 0; round < 300; round++) {
      const operation = operations[round % operations.length]!;
      const input: Record<string, CborValue> = {};
      for (let count = Math.floor(random() * 5); count > 0; count--) input[members[Math.floor(random() * members.length)]!] = randomValue(random, 2);
      const protocol = round % 3;
      let response;
      if (protocol === 0) {
        let body = Uint8Array.from(encodeCbor(input));
        if (random() < 0.3 && body.length > 0) body[Math.floor(random() * body.length)] = Math.floor(random() * 256);
        response = await rawRequest(twin.endpoint, {
          path: `/service/GraniteServiceVersion20100801/operation/${operation}`,
          headers: { ...SIGNED_HEADERS, 'smithy-protocol': 'rpc-v2-cbor', 'Content-Type': 'application/cbor' },
          body: Buffer.from(body),
          agent,
        });
      } else if (protocol === 1) {
        response = await rawRequest(twin.endpoint, {
          headers: { ...SIGNED_HEADERS, 'X-Amz-Target': `GraniteServiceVersion20100801.${operation}`, 'Content-Type': 'application/x-amz-json-1.0' },
          body: JSON.stringify(input, (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value)),
          agent,
        });
      } else {
        const form = new URLSearchParams({ Action: operation, Version: '2010-08-01' });
        for (const [name, value] of Object.entries(input)) {
          const suffix = random() < 0.5 ? '' : `.member.${Math.floor(random() * 4)}${random() < 0.5 ? '.Name' : ''}`;
          form.append(name + suffix, typeof value === 'object' ? JSON.stringify(value) : String(value));
        }
        response = await rawRequest(twin.endpoint, { headers: { ...SIGNED_HEADERS, 'Content-Type': 'application/x-www-form-urlencoded' }, body: form.toString(), agent });
      }
      assert.ok(response.status === 200 || (response.status >= 400 && response.status < 500), `round ${round} (${['cbor', 'json', 'query'][protocol]} ${operation}): ${response.status} ${response.text.slice(0, 200)}`);
    }
  });

  test('random Application Auto Scaling bodies are answered with a 4xx or a 200', async () => {
    const random = seededRandom(191919);
    const operations = ['RegisterScalableTarget', 'DeregisterScalableTarget', 'DescribeScalableTargets', 'PutScalingPolicy', 'DescribeScalingPolicies', 'DeleteScalingPolicy', 'DescribeScalingActivities'];
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
    const members = ['ServiceNamespace', 'ResourceId', 'ScalableDimension', 'MinCapacity', 'MaxCapacity', 'PolicyName', 'PolicyType', 'TargetTrackingScalingPolicyConfiguration', 'ResourceIds', 'MaxResults', 'NextToken', 'SuspendedState', '__proto__', 'constructor'];
    const plausible: Record<string, () => unknown> = {
      ServiceNamespace: () => pick(['dynamodb', 'ecs', 'nope', null]),
      ResourceId: () => pick(['table/t1', 'table/t1/index/i1', 'table/', 'dynamo/x', '', 'table/__proto__']),
      ScalableDimension: () => pick(['dynamodb:table:WriteCapacityUnits', 'dynamodb:index:ReadCapacityUnits', 'ecs:service:DesiredCount', 'x']),
      TargetTrackingScalingPolicyConfiguration: () => ({ TargetValue: pick([50, 95, -1, 'x', null]), PredefinedMetricSpecification: pick([{ PredefinedMetricType: 'DynamoDBWriteCapacityUtilization' }, {}, null, 'x']), ScaleInCooldown: pick([0, -5, 1e12, 'x']) }),
    };
    for (let round = 0; round < 300; round++) {
      const input: Record<string, unknown> = {};
      for (let count = Math.floor(random() * 6); count > 0; count--) {
        const member = pick(members);
        Object.defineProperty(input, member, { value: Object.hasOwn(plausible, member) ? plausible[member]!() : randomValue(random, 3), enumerable: true, writable: true, configurable: true });
      }
      const body = JSON.stringify(input, (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value));
      const response = await rawRequest(twin.endpoint, {
        headers: { ...SIGNED_HEADERS, 'X-Amz-Target': `AnyScaleFrontendService.${pick(operations)}`, 'Content-Type': 'application/x-amz-json-1.1' },
        body,
        agent,
      });
      assert.ok(response.status === 200 || (response.status >= 400 && response.status < 500), `round ${round}: ${body} → ${response.status} ${response.text.slice(0, 200)}`);
    }
  });
});
