/**
 * Fault injection (POST /dynatwin/faults, `twin.faults`): rules installed over HTTP and through the
 * library, answered to real AWS SDK clients with retries off and on, on a manual clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BatchWriteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  type DynamoDBServiceException,
} from '@aws-sdk/client-dynamodb';
import { ManualClock } from '../src/clock.js';
import { FAULT_ERROR_NAMES, parseFaultRule } from '../src/server/fault-rules.js';
import { InspectionError } from '../src/server/inspection.js';
import { seededRandom } from './support/random.js';
import { callOperation, rawRequest } from './support/raw.js';
import { createUniqueTable as createTable, keySchema, attributes } from './support/tables.js';
import { startTwinWithClients, type TwinClients } from './support/twin.js';

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

async function faultsRequest(endpoint: string, method: 'GET' | 'POST' | 'DELETE', path = '/dynatwin/faults', body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = body === undefined ? {} : { 'Content-Type': 'application/json' };
  const response = await rawRequest(endpoint, { method, path, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, body: JSON.parse(response.text) as Record<string, unknown> };
}

/** The outcome of an SDK call: 'ok' or the error's name. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    return (error as Error).name;
  }
}

async function caught(call: Promise<unknown>): Promise<DynamoDBServiceException> {
  try {
    await call;
  } catch (error) {
    return error as DynamoDBServiceException;
  }
  assert.fail('expected the call to fail');
}

function getItem(table: string, id: string, consistent = false): GetItemCommand {
  return new GetItemCommand({ TableName: table, Key: { id: { S: id } }, ConsistentRead: consistent });
}

/** Datapoint sums of one metric (all periods of the last minutes), through GET /dynatwin/metrics. */
async function metricSum(endpoint: string, query: string): Promise<number> {
  const response = await rawRequest(endpoint, { method: 'GET', path: `/dynatwin/metrics?${query}&period=60&startMs=0` });
  assert.equal(response.status, 200, response.text);
  const body = JSON.parse(response.text) as { metrics: { datapoints: { Sum: number }[] }[] };
  return body.metrics.reduce((total, metric) => total + metric.datapoints.reduce((sum, point) => sum + point.Sum, 0), 0);
}

/** An on-demand table keyed by `id` (S) under a unique name. */
function createUniqueTable(client: DynamoDBClient, stem: string): Promise<string> {
  return createTable(client, stem, { AttributeDefinitions: attributes({ id: 'S' }), KeySchema: keySchema('id') });
}

describe('fault rule parsing (fuzz)', () => {
  test('10,000 generated bodies install a rule or answer a 400 naming a member, never anything else', () => {
    const random = seededRandom(17);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const values: unknown[] = [null, true, false, 0, -1, 1, 0.5, 2, 1e308, Number.MAX_SAFE_INTEGER, '', 'x', 'GetItem', 'InternalServerError', [], ['GetItem'], [1], {}, { S: 'a' }, { N: '1.50' }, { N: 'x' }, { id: { S: 'a' } }, { id: { N: '-0' } }, { id: { SS: ['a'] } }, 'consistent-read-500s'];
    const members = ['preset', 'operation', 'table', 'index', 'consistentRead', 'key', 'everyNth', 'probability', 'maxFaults', 'fromMs', 'untilMs', 'error', 'latencyMs', 'seed', 'bogus', '__proto__', 'constructor'];
    const operations = new Set(['GetItem', 'PutItem']);
    let installed = 0;
    for (let run = 0; run < 10_000; run++) {
      const body: Record<string, unknown> = {};
      const count = Math.floor(random() * 5);
      if (random() < 0.7) body['error'] = pick(['InternalServerError', 'ThrottlingException', 'Nope']);
      for (let at = 0; at < count; at++) body[pick(members)] = pick(values);
      const input = random() < 0.05 ? pick(values) : body;
      try {
        const spec = parseFaultRule(JSON.parse(JSON.stringify(input ?? null)) as unknown, operations, 1);
        assert.ok(spec.error !== undefined || spec.latencyMs !== undefined, 'a rule does something');
        assert.ok(spec.probability > 0 && spec.probability <= 1 && spec.everyNth >= 1);
        installed++;
      } catch (error) {
        assert.ok(error instanceof InspectionError, `only 400s: ${String(error)} for ${JSON.stringify(input)}`);
        assert.equal(error.status, 400);
        assert.ok(error.message.length > 0);
      }
    }
    assert.ok(installed > 100, `some generated rules were valid (${installed})`);
  });
});

describe('fault rules over HTTP', () => {
  let twin: TwinClients;
  let table: string;
  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual' });
    table = await createUniqueTable(twin.client, 'faults');
    await twin.client.send(new PutItemCommand({ TableName: table, Item: { id: { S: 'a' }, n: { N: '1' } } }));
  });
  after(() => twin.close());

  test('bad rules are refused with a 400 naming the member', async () => {
    const cases: [unknown, RegExp][] = [
      ['[]', /JSON object/],
      [{}, /needs error .* or latencyMs/],
      [{ error: 'Boom' }, /^error must be one of: InternalServerError, ServiceUnavailable/],
      [{ error: 'InternalServerError', probability: 0 }, /^probability must be/],
      [{ error: 'InternalServerError', probability: 1.5 }, /^probability must be/],
      [{ error: 'InternalServerError', everyNth: 0 }, /^everyNth must be an integer from 1/],
      [{ error: 'InternalServerError', operation: 'GetItems' }, /^operation "GetItems" is not an operation dynatwin serves/],
      [{ error: 'InternalServerError', operation: [] }, /^operation must be/],
      [{ error: 'InternalServerError', key: { id: { SS: ['a'] } } }, /^key\.id must be an AttributeValue of type S, N or B/],
      [{ error: 'InternalServerError', key: { id: { N: 'x' } } }, /^key\.id\.N must be a number/],
      [{ error: 'InternalServerError', fromMs: 10, untilMs: 5 }, /^untilMs must be after fromMs/],
      [{ error: 'InternalServerError', latencyMs: 60_000 }, /^latencyMs must be an integer from 1 to 10000/],
      [{ error: 'InternalServerError', consistentRead: 'yes' }, /^consistentRead must be true or false/],
      [{ error: 'InternalServerError', seed: -1 }, /^seed must be/],
      [{ error: 'InternalServerError', tabel: 'x' }, /^unknown member "tabel"/],
      [{ preset: 'chaos' }, /^preset must be one of: consistent-read-500s/],
    ];
    for (const [body, message] of cases) {
      const answer = await faultsRequest(twin.twin.endpoint, 'POST', '/dynatwin/faults', body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.match(String(answer.body['error']), message, JSON.stringify(body));
    }
    const broken = await faultsRequest(twin.twin.endpoint, 'POST', '/dynatwin/faults', '{"error":');
    assert.equal(broken.status, 400);
    assert.deepEqual((await faultsRequest(twin.twin.endpoint, 'GET')).body, { rules: [] });
  });

  test('a page from another origin cannot install a rule: text/plain and foreign Origins are refused', async () => {
    const rule = JSON.stringify({ error: 'InternalServerError' });
    const crossSite = await rawRequest(twin.twin.endpoint, {
      method: 'POST',
      path: '/dynatwin/faults',
      headers: { 'Content-Type': 'text/plain', Origin: 'http://attacker.example' },
      body: rule,
    });
    assert.ok(crossSite.status === 403 || crossSite.status === 415, `refused (${crossSite.status} ${crossSite.text})`);
    const plain = await rawRequest(twin.twin.endpoint, { method: 'POST', path: '/dynatwin/faults', headers: { 'Content-Type': 'text/plain' }, body: rule });
    assert.equal(plain.status, 415, plain.text);
    const foreignJson = await rawRequest(twin.twin.endpoint, {
      method: 'POST',
      path: '/dynatwin/faults',
      headers: { 'Content-Type': 'application/json', Origin: 'http://attacker.example' },
      body: rule,
    });
    assert.equal(foreignJson.status, 403, foreignJson.text);
    assert.deepEqual(twin.twin.faults.list(), [], 'no rule was installed');
  });

  test('each error is DynamoDB’s: status, __type and message, and a faulted request changes nothing', async () => {
    const expected: Record<string, { status: number; type: string; message: string }> = {
      InternalServerError: { status: 500, type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' },
      ServiceUnavailable: { status: 503, type: 'com.amazonaws.dynamodb.v20120810#ServiceUnavailable', message: 'The service is currently unavailable or busy.' },
      ThrottlingException: { status: 400, type: 'com.amazon.coral.availability#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' },
      RequestLimitExceeded: {
        status: 400,
        type: 'com.amazonaws.dynamodb.v20120810#RequestLimitExceeded',
        message: 'Throughput exceeds the current throughput limit for your account. Please contact AWS Support at https://aws.amazon.com/support request a limit increase',
      },
      ProvisionedThroughputExceededException: {
        status: 400,
        type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
        message: 'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
      },
      TransactionConflictException: { status: 400, type: 'com.amazonaws.dynamodb.v20120810#TransactionConflictException', message: 'Transaction is ongoing for the item' },
    };
    assert.deepEqual(Object.keys(expected).sort(), [...FAULT_ERROR_NAMES].sort());
    for (const [error, wire] of Object.entries(expected)) {
      const installed = await faultsRequest(twin.twin.endpoint, 'POST', '/dynatwin/faults', { operation: 'PutItem', table, error });
      assert.equal(installed.status, 201);
      const response = await callOperation(twin.twin.endpoint, 'PutItem', JSON.stringify({ TableName: table, Item: { id: { S: 'a' }, n: { N: '2' } } }));
      assert.equal(response.status, wire.status, error);
      assert.deepEqual(JSON.parse(response.text), { __type: wire.type, message: wire.message }, error);
      // The SDK reads the same error by name.
      const sdkError = await caught(twin.client.send(new PutItemCommand({ TableName: table, Item: { id: { S: 'a' }, n: { N: '3' } } })));
      assert.equal(sdkError.name, error);
      assert.equal(sdkError.$metadata.httpStatusCode, wire.status);
      assert.equal(sdkError.$fault, wire.status >= 500 ? 'server' : 'client');
      await faultsRequest(twin.twin.endpoint, 'DELETE', `/dynatwin/faults/${String(installed.body['id'])}`);
    }
    const item = await twin.client.send(getItem(table, 'a', true));
    assert.deepEqual(item.Item, { id: { S: 'a' }, n: { N: '1' } }, 'no faulted PutItem wrote');
  });

  test('faulted requests count as SystemErrors, ThrottledRequests or UserErrors and consume nothing', async () => {
    const fresh = await createUniqueTable(twin.client, 'faults-metrics');
    for (const error of ['InternalServerError', 'ServiceUnavailable', 'ThrottlingException', 'TransactionConflictException'] as const) {
      const installed = await twin.twin.faults.add({ operation: 'PutItem', table: fresh, error, maxFaults: 1 });
      await outcome(twin.client.send(new PutItemCommand({ TableName: fresh, Item: { id: { S: 'x' } } })));
      assert.equal(twin.twin.faults.remove(installed.id)?.faulted, 1);
    }
    const endpoint = twin.twin.endpoint;
    assert.equal(await metricSum(endpoint, `table=${fresh}&metric=SystemErrors&operation=PutItem`), 2);
    assert.equal(await metricSum(endpoint, `table=${fresh}&metric=ThrottledRequests&operation=PutItem`), 1);
    assert.ok((await metricSum(endpoint, 'metric=UserErrors')) >= 1);
    assert.equal(await metricSum(endpoint, `table=${fresh}&metric=ConsumedWriteCapacityUnits`), 0);
    assert.equal((await twin.client.send(getItem(fresh, 'x', true))).Item, undefined);
  });

  test('GET lists rules with their counters; DELETE removes one, then all', async () => {
    const first = await faultsRequest(twin.twin.endpoint, 'POST', '/dynatwin/faults', { operation: 'GetItem', table, key: { id: { S: 'nobody' } }, error: 'InternalServerError' });
    const second = await faultsRequest(twin.twin.endpoint, 'POST', '/dynatwin/faults', { preset: 'consistent-read-500s', table: 'elsewhere' });
    assert.equal(first.status, 201);
    assert.match(String(first.body['id']), /^fault-\d+$/);
    const { seed, ...presetRule } = second.body['rule'] as Record<string, unknown>;
    assert.deepEqual(presetRule, { preset: 'consistent-read-500s', table: 'elsewhere', consistentRead: true, everyNth: 1, probability: 0.05, error: 'InternalServerError' });
    assert.equal(typeof seed, 'number', 'a seed is chosen when none is given, and listed');
    assert.equal(await outcome(twin.client.send(getItem(table, 'nobody'))), 'InternalServerError');
    assert.equal(await outcome(twin.client.send(getItem(table, 'a'))), 'ok');
    const listed = await faultsRequest(twin.twin.endpoint, 'GET');
    const rules = listed.body['rules'] as { id: string; matched: number; faulted: number }[];
    assert.deepEqual(rules.map((rule) => [rule.id, rule.matched, rule.faulted]), [
      [first.body['id'], 1, 1],
      [second.body['id'], 0, 0],
    ]);
    const one = await faultsRequest(twin.twin.endpoint, 'GET', `/dynatwin/faults/${String(first.body['id'])}`);
    assert.equal(one.body['id'], first.body['id']);
    const removed = await faultsRequest(twin.twin.endpoint, 'DELETE', `/dynatwin/faults/${String(first.body['id'])}`);
    assert.equal(removed.status, 200);
    assert.equal((await faultsRequest(twin.twin.endpoint, 'DELETE', `/dynatwin/faults/${String(first.body['id'])}`)).status, 404);
    assert.deepEqual((await faultsRequest(twin.twin.endpoint, 'DELETE')).body, { removed: 1 });
    assert.deepEqual((await faultsRequest(twin.twin.endpoint, 'GET')).body, { rules: [] });
  });
});

describe('fault rules select requests', () => {
  let twin: TwinClients;
  let table: string;
  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual' });
    table = await createUniqueTable(twin.client, 'select');
    for (const id of ['hot', 'cold']) await twin.client.send(new PutItemCommand({ TableName: table, Item: { id: { S: id } } }));
  });
  after(() => twin.close());

  test('every Nth matching request, by operation and table', async () => {
    const rule = twin.twin.faults.add({ operation: 'GetItem', table, everyNth: 3, error: 'InternalServerError' });
    const outcomes: string[] = [];
    for (let i = 0; i < 7; i++) outcomes.push(await outcome(twin.client.send(getItem(table, 'hot'))));
    // Another operation and another table are not selected, and not counted.
    assert.equal(await outcome(twin.client.send(new PutItemCommand({ TableName: table, Item: { id: { S: 'other' } } }))), 'ok');
    assert.deepEqual(outcomes, ['ok', 'ok', 'InternalServerError', 'ok', 'ok', 'InternalServerError', 'ok']);
    assert.deepEqual(twin.twin.faults.list().map((view) => [view.matched, view.faulted]), [[7, 2]]);
    twin.twin.faults.remove(rule.id);
  });

  test('by key: single items, batches and a Query’s key condition', async () => {
    twin.twin.faults.add({ table, key: { id: { S: 'hot' } }, error: 'ThrottlingException' });
    assert.equal(await outcome(twin.client.send(getItem(table, 'hot'))), 'ThrottlingException');
    assert.equal(await outcome(twin.client.send(getItem(table, 'cold'))), 'ok');
    const batch = (ids: string[]): BatchWriteItemCommand =>
      new BatchWriteItemCommand({ RequestItems: { [table]: ids.map((id) => ({ PutRequest: { Item: { id: { S: id } } } })) } });
    assert.equal(await outcome(twin.client.send(batch(['cold', 'hot']))), 'ThrottlingException');
    assert.equal(await outcome(twin.client.send(batch(['cold', 'warm']))), 'ok');
    const query = (id: string): QueryCommand =>
      new QueryCommand({ TableName: table, KeyConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': { S: id } } });
    assert.equal(await outcome(twin.client.send(query('hot'))), 'ThrottlingException');
    assert.equal(await outcome(twin.client.send(query('cold'))), 'ok');
    twin.twin.faults.clear();
  });

  test('within a window on the server clock, which the manual clock moves', async () => {
    const clock = twin.twin.clock as ManualClock;
    const nowMs = clock.nowMs();
    twin.twin.faults.add({ operation: 'GetItem', fromMs: nowMs + 1000, untilMs: nowMs + 2000, error: 'ServiceUnavailable' });
    assert.equal(await outcome(twin.client.send(getItem(table, 'hot'))), 'ok');
    clock.advance(1000);
    assert.equal(await outcome(twin.client.send(getItem(table, 'hot'))), 'ServiceUnavailable');
    clock.advance(999);
    assert.equal(await outcome(twin.client.send(getItem(table, 'hot'))), 'ServiceUnavailable');
    clock.advance(1);
    assert.equal(await outcome(twin.client.send(getItem(table, 'hot'))), 'ok');
    twin.twin.faults.clear();
  });

  test('the consistent-read-500s preset fails strongly consistent reads only', async () => {
    twin.twin.faults.add({ preset: 'consistent-read-500s', probability: 1 });
    assert.equal(await outcome(twin.client.send(getItem(table, 'hot', true))), 'InternalServerError');
    assert.equal(await outcome(twin.client.send(getItem(table, 'hot', false))), 'ok');
    const query = (consistent: boolean): QueryCommand =>
      new QueryCommand({ TableName: table, KeyConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': { S: 'hot' } }, ConsistentRead: consistent });
    assert.equal(await outcome(twin.client.send(query(true))), 'InternalServerError');
    assert.equal(await outcome(twin.client.send(query(false))), 'ok');
    twin.twin.faults.clear();
  });

  test('a probability with a seed faults the same requests on every run', async () => {
    const run = async (): Promise<string> => {
      twin.twin.faults.clear();
      twin.twin.faults.add({ operation: 'GetItem', probability: 0.3, seed: 42, error: 'InternalServerError' });
      let pattern = '';
      for (let i = 0; i < 40; i++) pattern += (await outcome(twin.client.send(getItem(table, 'hot')))) === 'ok' ? '.' : 'x';
      return pattern;
    };
    const first = await run();
    const second = await run();
    assert.equal(second, first);
    const faulted = [...first].filter((mark) => mark === 'x').length;
    assert.ok(faulted > 0 && faulted < 40, `some but not all faulted: ${first}`);
    twin.twin.faults.clear();
    twin.twin.faults.add({ operation: 'GetItem', probability: 0.3, seed: 7, error: 'InternalServerError' });
    let other = '';
    for (let i = 0; i < 40; i++) other += (await outcome(twin.client.send(getItem(table, 'hot')))) === 'ok' ? '.' : 'x';
    assert.notEqual(other, first, 'another seed, another pattern');
    twin.twin.faults.clear();
  });

  test('TransactionConflict cancels a transaction with the item’s reason', async () => {
    twin.twin.faults.add({ operation: 'TransactWriteItems', error: 'TransactionConflictException' });
    const error = await caught(
      twin.client.send(
        new TransactWriteItemsCommand({
          TransactItems: [{ Put: { TableName: table, Item: { id: { S: 't1' } } } }, { Put: { TableName: table, Item: { id: { S: 't2' } } } }],
        }),
      ),
    );
    assert.equal(error.name, 'TransactionCanceledException');
    assert.equal(error.message, 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None]');
    assert.deepEqual((error as unknown as { CancellationReasons: unknown }).CancellationReasons, [
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
      { Code: 'None' },
    ]);
    assert.equal((await twin.client.send(getItem(table, 't1', true))).Item, undefined);
    twin.twin.faults.clear();
  });

  test('latency holds the request for real time, then runs it', async () => {
    twin.twin.faults.add({ operation: 'GetItem', latencyMs: 150 });
    const started = performance.now();
    const answer = await twin.client.send(getItem(table, 'hot'));
    // A lower bound only: a busy machine makes the wait longer, never shorter.
    assert.ok(performance.now() - started >= 140, 'held at least the latency');
    assert.deepEqual(answer.Item, { id: { S: 'hot' } });
    twin.twin.faults.clear();
  });
});

describe('fault rules and the SDK’s retries', () => {
  let twin: TwinClients;
  let table: string;
  let retrying: DynamoDBClient;
  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual' });
    table = await createUniqueTable(twin.client, 'retries');
    retrying = new DynamoDBClient({
      endpoint: twin.twin.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
      maxAttempts: 3,
    });
  });
  after(async () => {
    retrying.destroy();
    await twin.close();
  });

  for (const error of ['InternalServerError', 'ServiceUnavailable', 'ThrottlingException', 'RequestLimitExceeded'] as const) {
    test(`${error} is retried: two faults, then the third attempt succeeds`, async () => {
      const rule = twin.twin.faults.add({ operation: 'PutItem', table, error, maxFaults: 2 });
      const answer = await retrying.send(new PutItemCommand({ TableName: table, Item: { id: { S: error } } }));
      assert.equal(answer.$metadata.attempts, 3);
      assert.equal(twin.twin.faults.remove(rule.id)?.faulted, 2);
      assert.ok((await twin.client.send(getItem(table, error, true))).Item !== undefined, 'the third attempt wrote');
    });
  }

  test('with retries off the first fault reaches the caller', async () => {
    twin.twin.faults.add({ operation: 'PutItem', table, error: 'ServiceUnavailable', maxFaults: 1 });
    const error = await caught(twin.client.send(new PutItemCommand({ TableName: table, Item: { id: { S: 'once' } } })));
    assert.equal(error.name, 'ServiceUnavailable');
    assert.equal(error.$metadata.attempts, 1);
    twin.twin.faults.clear();
  });

  test('TransactionConflictException is not retried by the SDK', async () => {
    twin.twin.faults.add({ operation: 'PutItem', table, error: 'TransactionConflictException' });
    const error = await caught(retrying.send(new PutItemCommand({ TableName: table, Item: { id: { S: 'conflict' } } })));
    assert.equal(error.name, 'TransactionConflictException');
    assert.equal(error.$metadata.attempts, 1);
    twin.twin.faults.clear();
  });
});
