/**
 * Faults of the database while dynatwin serves (issue #32 item 4), through a dynatwin CLI child on
 * a private PostgreSQL cluster:
 *   - PostgreSQL restarted (pg_ctl restart -m fast) under a write load of two kinds of clients: the
 *     SDK with its normal retries, and a counting client that tries once (maxAttempts 1). Every
 *     failed request was answered InternalServerError 500 (never another error, never a hang: each
 *     request has a bound); dynatwin stays up and, without being restarted, takes writes again once
 *     the database is back; every acknowledged write is there afterwards.
 *   - PostgreSQL down while dynatwin serves reads: GetItem, Query and Scan answer
 *     InternalServerError 500 while it is down, and the items once it is back.
 * Outcomes only: how many requests met the outage depends on the machine, and is reported.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { postgresAvailability, startPrivatePostgres, type PrivatePostgres } from './support/postgres.js';
import { ServerProcesses, type ServerProcess } from './support/process.js';

const TABLE = 'restarts';
/** Writers of each kind. */
const WRITERS_PER_KIND = 2;
/** Acknowledged writes before the restart, and the writes each writer must get acknowledged after it. */
const ACKNOWLEDGED_BEFORE_RESTART = 40;
const ACKNOWLEDGED_AFTER_RESTART_PER_WRITER = 10;
/** A bound on one request, so that a hang fails the test instead of stalling it (not a speed expectation). */
const REQUEST_TIMEOUT_MS = 60_000;
/** A bound on how long writes may keep failing after the database is back (a reconnect, a new engine). */
const RECOVERY_DEADLINE_MS = 120_000;
/** A writer's pause after a failed request, so a refusing server is not hammered. */
const FAILURE_PAUSE_MS = 50;

const servers = new ServerProcesses();
const clusters: PrivatePostgres[] = [];
after(async () => {
  await servers.killAll();
  for (const cluster of clusters) await cluster.stop();
});

function client(endpoint: string, maxAttempts: number | undefined): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    ...(maxAttempts === undefined ? {} : { maxAttempts }),
    requestHandler: { requestTimeout: REQUEST_TIMEOUT_MS, connectionTimeout: REQUEST_TIMEOUT_MS },
  });
}

/** What a failed request was answered: the error's name and HTTP status. */
function answer(error: unknown): string {
  const name = error instanceof Error ? error.name : String(error);
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return `${name} ${status ?? 'no status'}`;
}

const INTERNAL_ERROR = 'InternalServerError 500';

/**
 * While the engine is reopened from the database after a cut commit (until PostgreSQL is back),
 * writes are refused with the retryable 503 the embedded store answers for a disk fault.
 */
const WRITES_REFUSED = 'ServiceUnavailable 503';

/** A failure a client may see while the database is away: both are retried by the SDKs. */
function isRetryableOutage(key: string): boolean {
  return key.endsWith(INTERNAL_ERROR) || key.endsWith(WRITES_REFUSED);
}

async function startTwin(cluster: PrivatePostgres, schema: string): Promise<ServerProcess> {
  const server = await servers.start(['--store', cluster.url(schema)]);
  const setup = client(server.endpoint, 1);
  try {
    await setup.send(
      new CreateTableCommand({
        TableName: TABLE,
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'id', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'id', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  } finally {
    setup.destroy();
  }
  return server;
}

function alive(server: ServerProcess): boolean {
  return server.child.exitCode === null && server.child.signalCode === null;
}

interface Load {
  readonly acknowledged: string[];
  /** Every failure's answer, by kind of client. */
  readonly failures: Map<string, number>;
  /** Set once the database is back: from then on each writer needs its writes after the restart. */
  restarted: boolean;
}

async function writer(endpoint: string, maxAttempts: number | undefined, name: string, load: Load, reachedBeforeRestart: () => void): Promise<void> {
  const sdk = client(endpoint, maxAttempts);
  let afterRestart = 0;
  let recoveryDeadlineMs = Infinity;
  try {
    for (let sequence = 0; afterRestart < ACKNOWLEDGED_AFTER_RESTART_PER_WRITER; sequence++) {
      const id = `${name}-${sequence}`;
      const restartedAtStart = load.restarted;
      if (restartedAtStart && recoveryDeadlineMs === Infinity) recoveryDeadlineMs = performance.now() + RECOVERY_DEADLINE_MS;
      try {
        await sdk.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'load' }, id: { S: id }, payload: { S: 'x'.repeat(100) } } }));
        load.acknowledged.push(id);
        if (load.acknowledged.length === ACKNOWLEDGED_BEFORE_RESTART) reachedBeforeRestart();
        if (restartedAtStart) afterRestart++;
      } catch (error) {
        const key = `${maxAttempts === 1 ? 'once' : 'sdk-retries'}: ${answer(error)}`;
        load.failures.set(key, (load.failures.get(key) ?? 0) + 1);
        if (performance.now() > recoveryDeadlineMs) throw new Error(`${name}: writes still fail ${RECOVERY_DEADLINE_MS} ms after the database came back: ${answer(error)}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, FAILURE_PAUSE_MS));
      }
    }
  } finally {
    sdk.destroy();
  }
}

async function loadIds(endpoint: string, pk: string): Promise<Set<string>> {
  const sdk = client(endpoint, 1);
  const ids = new Set<string>();
  try {
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await sdk.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: pk } }, ConsistentRead: true, ExclusiveStartKey: start }));
      for (const item of page.Items ?? []) ids.add(item['id']!.S!);
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return ids;
  } finally {
    sdk.destroy();
  }
}

test('PostgreSQL restarted under writes: failures are InternalServerError 500 or ServiceUnavailable 503, dynatwin takes writes again by itself, no acknowledged write lost', { skip: postgresAvailability(), timeout: 600_000 }, async (t) => {
  const cluster = await startPrivatePostgres();
  clusters.push(cluster);
  const server = await startTwin(cluster, 'restart');
  const load: Load = { acknowledged: [], failures: new Map(), restarted: false };
  let reached!: () => void;
  const enoughBeforeRestart = new Promise<void>((resolve) => (reached = resolve));
  const writers = [
    ...Array.from({ length: WRITERS_PER_KIND }, (_, index) => writer(server.endpoint, undefined, `retrying${index}`, load, reached)),
    ...Array.from({ length: WRITERS_PER_KIND }, (_, index) => writer(server.endpoint, 1, `once${index}`, load, reached)),
  ];
  const finished = Promise.all(writers);
  await Promise.race([enoughBeforeRestart, finished]);
  await cluster.restart();
  load.restarted = true;
  await finished;
  assert.ok(alive(server), `dynatwin stayed up; output: ${server.output()}`);
  const unexpected = [...load.failures].filter(([key]) => !isRetryableOutage(key));
  assert.deepEqual(unexpected, [], 'every failed request was answered InternalServerError 500 or ServiceUnavailable 503');
  const present = await loadIds(server.endpoint, 'load');
  const lost = load.acknowledged.filter((id) => !present.has(id));
  assert.deepEqual(lost, [], 'every acknowledged write is there');
  // A write whose commit was cut moved in-memory statistics for an unknown outcome: the engine is
  // reopened on the store (storage.onWritesLost), which then counts exactly what is there.
  const describer = client(server.endpoint, 1);
  const { Table } = await describer.send(new DescribeTableCommand({ TableName: TABLE }));
  describer.destroy();
  await t.test('ItemCount is the number of items after the restart', () => {
    assert.equal(Table?.ItemCount, present.size, `dynatwin's log: ${server.output().split('\n').filter((line) => !line.includes('a write failed')).join('\n')}`);
  });
  t.diagnostic(`${load.acknowledged.length} writes acknowledged, 0 lost; failed requests: ${[...load.failures].map(([key, count]) => `${count} ${key}`).join(', ') || 'none'}`);
});

test('PostgreSQL down while dynatwin serves reads and writes: InternalServerError 500, then the items once it is back', { skip: postgresAvailability(), timeout: 600_000 }, async () => {
  const cluster = await startPrivatePostgres();
  clusters.push(cluster);
  const server = await startTwin(cluster, 'down');
  const sdk = client(server.endpoint, 1);
  try {
    const item = { pk: { S: 'read' }, id: { S: 'one' }, value: { N: '1' } };
    await sdk.send(new PutItemCommand({ TableName: TABLE, Item: item }));
    await cluster.halt();
    const whileDown = [
      sdk.send(new GetItemCommand({ TableName: TABLE, Key: { pk: item.pk, id: item.id }, ConsistentRead: true })),
      sdk.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': item.pk } })),
      sdk.send(new ScanCommand({ TableName: TABLE })),
      sdk.send(new PutItemCommand({ TableName: TABLE, Item: { ...item, id: { S: 'two' } } })),
    ];
    for (const [index, request] of whileDown.entries()) {
      await assert.rejects(request, (error) => answer(error) === INTERNAL_ERROR || assert.fail(`request ${index} while down: ${answer(error)}`));
    }
    assert.ok(alive(server), `dynatwin stayed up; output: ${server.output()}`);
    await cluster.resume();
    const got = await untilOk(() => sdk.send(new GetItemCommand({ TableName: TABLE, Key: { pk: item.pk, id: item.id }, ConsistentRead: true })));
    assert.deepEqual(got.Item, item);
    await untilOk(() => sdk.send(new PutItemCommand({ TableName: TABLE, Item: { ...item, id: { S: 'three' } } })));
    assert.deepEqual([...(await loadIds(server.endpoint, 'read'))].filter((id) => id !== 'two'), ['one', 'three']);
  } finally {
    sdk.destroy();
  }
});

/** Sends until the request succeeds (each failure must be a 500), within RECOVERY_DEADLINE_MS. */
async function untilOk<T>(send: () => Promise<T>): Promise<T> {
  const deadlineMs = performance.now() + RECOVERY_DEADLINE_MS;
  for (;;) {
    try {
      return await send();
    } catch (error) {
      assert.ok(isRetryableOutage(answer(error)), `a failure after the database is back is a 500 or 503 too: ${answer(error)}`);
      if (performance.now() > deadlineMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, FAILURE_PAUSE_MS));
    }
  }
}
