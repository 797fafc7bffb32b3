/**
 * Closing a server (close(), SIGINT/SIGTERM): requests already taken get their real answers and
 * their writes are durable; a client gone meanwhile costs no internal error; close() keeps its
 * bound when a request would outlast it; a request arriving during the close is refused (a new
 * connection is refused, one on an open connection gets ServiceUnavailable). Through both doors:
 * the fast lane and node:http (`--node-http`).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateTableCommand, GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SERVICE_UNAVAILABLE_MESSAGE } from '../src/server/faults.js';
import { DEFAULT_SERVER_OPTIONS, startServer, type RunningServer, type ServerOptions } from '../src/server/server.js';
import { dynamoRequest, WireClient } from './support/http-wire.js';
import { scratchDirectories } from './support/scratch.js';
import { onDemandTable } from './support/tables.js';
import { sdkClient } from './support/client.js';

const scratch = scratchDirectories('dynatwin-shutdown-');
after(() => scratch.removeAll());

interface Started {
  readonly server: RunningServer;
  readonly client: DynamoDBClient;
  /** Everything the server logged. */
  readonly log: string[];
}

async function start(dataDir: string, overrides: Partial<ServerOptions> = {}): Promise<Started> {
  const log: string[] = [];
  const server = await startServer({ ...DEFAULT_SERVER_OPTIONS, port: 0, dataDir, inMemory: false, log: (message) => log.push(message), ...overrides });
  return { server, client: sdkClient(server.endpoint), log };
}

/** Resolves once the fault rule has held (faulted) `count` requests. */
async function held(server: RunningServer, count: number): Promise<void> {
  while ((server.faults.list()[0]?.faulted ?? 0) < count) await sleep(5);
}

function put(table: string, id: string): PutItemCommand {
  return new PutItemCommand({ TableName: table, Item: { id: { S: id }, note: { S: 'written while closing' } } });
}

async function itemAfterRestart(dataDir: string, nodeHttp: boolean, table: string, id: string): Promise<unknown> {
  const { server, client, log } = await start(dataDir, { nodeHttp });
  try {
    const answer = await client.send(new GetItemCommand({ TableName: table, Key: { id: { S: id } }, ConsistentRead: true }));
    assert.deepEqual(log, []);
    return answer.Item;
  } finally {
    client.destroy();
    await server.close();
  }
}

function noInternalError(log: readonly string[]): void {
  assert.ok(!log.some((line) => line.includes('internal error')), `no internal error logged: ${log.join('\n')}`);
}

for (const nodeHttp of [false, true]) {
  describe(`shutdown (${nodeHttp ? 'node:http' : 'fast lane'})`, () => {
    test('a request held by a latency fault when close() is called gets its real answer, and its write is durable', async () => {
      const dataDir = scratch.fresh();
      const { server, client, log } = await start(dataDir, { nodeHttp });
      await client.send(new CreateTableCommand(onDemandTable('closing')));
      server.faults.add({ operation: 'PutItem', latencyMs: 300 });
      const answer = client.send(put('closing', 'held'));
      await held(server, 1);
      const closed = server.close();
      const result = await answer;
      assert.equal(result.$metadata.httpStatusCode, 200);
      await closed;
      client.destroy();
      noInternalError(log);
      assert.deepEqual(log, []);
      assert.deepEqual(await itemAfterRestart(dataDir, nodeHttp, 'closing', 'held'), { id: { S: 'held' }, note: { S: 'written while closing' } });
    });

    test('a held request whose client went away runs to its end without an internal error', async () => {
      const dataDir = scratch.fresh();
      const { server, client, log } = await start(dataDir, { nodeHttp });
      await client.send(new CreateTableCommand(onDemandTable('gone')));
      client.destroy();
      server.faults.add({ operation: 'PutItem', latencyMs: 300 });
      const wire = await WireClient.open(server.port);
      await wire.write(dynamoRequest(server.port, 'PutItem', JSON.stringify({ TableName: 'gone', Item: { id: { S: 'abandoned' } } })));
      await held(server, 1);
      wire.reset();
      // The connection is gone before close() (the server saw the reset in a few turns): close
      // still waits for the request, whose write then meets an open store.
      await sleep(30);
      assert.equal(server.fastLaneConnections, 0);
      await server.close();
      // Past the fault's latency: whatever the request did, it has done.
      await sleep(400);
      noInternalError(log);
      assert.deepEqual(log, []);
      assert.deepEqual(await itemAfterRestart(dataDir, nodeHttp, 'gone', 'abandoned'), { id: { S: 'abandoned' } });
    });

    test('close() keeps its bound: a request still held then is answered ServiceUnavailable and never runs', async () => {
      const dataDir = scratch.fresh();
      const { server, client, log } = await start(dataDir, { nodeHttp, shutdownWaitMs: 100 });
      await client.send(new CreateTableCommand(onDemandTable('bounded')));
      // The longest latency a rule may have: far past the bound.
      server.faults.add({ operation: 'PutItem', latencyMs: 10_000 });
      const answer = client.send(put('bounded', 'late')).then(
        () => assert.fail('the held request was answered as if it ran'),
        (error: Error & { $metadata?: { httpStatusCode?: number } }) => error,
      );
      await held(server, 1);
      await server.close();
      const error = await answer;
      assert.equal(error.name, 'ServiceUnavailable');
      assert.equal(error.message, SERVICE_UNAVAILABLE_MESSAGE);
      assert.equal(error.$metadata?.httpStatusCode, 503);
      client.destroy();
      noInternalError(log);
      assert.deepEqual(log, ['dynatwin: 1 request(s) still running 100 ms into the shutdown were answered ServiceUnavailable']);
      // Closed while the request was still held: it never ran.
      assert.equal(await itemAfterRestart(dataDir, nodeHttp, 'bounded', 'late'), undefined);
    });

    test('during close a new connection is refused, and a request on an open connection gets ServiceUnavailable and is not run', async () => {
      const dataDir = scratch.fresh();
      const { server, client, log } = await start(dataDir, { nodeHttp });
      await client.send(new CreateTableCommand(onDemandTable('refused')));
      // A held request keeps the server closing (waiting for it) while the others arrive.
      server.faults.add({ operation: 'PutItem', table: 'refused', key: { id: { S: 'held' } }, latencyMs: 400 });
      const heldAnswer = client.send(put('refused', 'held'));
      await held(server, 1);
      // A request under way on its own connection: its head and half its body are in.
      const wire = await WireClient.open(server.port);
      const bytes = dynamoRequest(server.port, 'PutItem', JSON.stringify({ TableName: 'refused', Item: { id: { S: 'late' } } }));
      const split = bytes.length - 10;
      await wire.write(bytes.slice(0, split));
      // In this process: a few turns let the server read those bytes.
      await sleep(30);
      const closed = server.close();
      await wire.write(bytes.slice(split));
      const [refusal] = await wire.untilClosed();
      assert.ok(refusal !== undefined, 'the request on the open connection is answered');
      assert.equal(refusal.status, 503);
      assert.deepEqual(JSON.parse(refusal.body), { __type: 'com.amazonaws.dynamodb.v20120810#ServiceUnavailable', message: SERVICE_UNAVAILABLE_MESSAGE });
      assert.ok(refusal.headers.some(([name, value]) => name.toLowerCase() === 'connection' && value === 'close'), 'the refusal closes the connection');
      // A new connection: refused by the closed listener (the SDKs retry it, as a 503).
      const fresh = sdkClient(server.endpoint);
      const code = await fresh.send(put('refused', 'new')).then(
        () => 'answered',
        (error: Error & { code?: string }) => error.code ?? error.name,
      );
      fresh.destroy();
      assert.equal(code, 'ECONNREFUSED');
      assert.equal((await heldAnswer).$metadata.httpStatusCode, 200);
      await closed;
      client.destroy();
      noInternalError(log);
      assert.deepEqual(log, []);
      assert.ok((await itemAfterRestart(dataDir, nodeHttp, 'refused', 'held')) !== undefined, 'the held write is there');
      assert.equal(await itemAfterRestart(dataDir, nodeHttp, 'refused', 'late'), undefined, 'the refused request did not run');
    });

    test('a clock step whose body completes after close began is answered 503 and the clock does not move', async () => {
      const dataDir = scratch.fresh();
      const { server, client, log } = await start(dataDir, { nodeHttp, clock: 'manual' });
      await client.send(new CreateTableCommand(onDemandTable('clock-step')));
      server.faults.add({ operation: 'PutItem', table: 'clock-step', latencyMs: 400 });
      const heldAnswer = client.send(put('clock-step', 'held'));
      await held(server, 1);
      const before = server.clock.nowMs();
      const body = JSON.stringify({ advanceMs: 60_000 });
      const wire = await WireClient.open(server.port);
      await wire.write(
        `POST /dynatwin/clock HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n` + body.slice(0, 5),
      );
      await sleep(30);
      const closed = server.close();
      await wire.write(body.slice(5));
      const [refusal] = await wire.untilClosed();
      assert.ok(refusal !== undefined, 'the clock step is answered');
      assert.equal(refusal.status, 503);
      assert.deepEqual(JSON.parse(refusal.body), { __type: 'com.amazonaws.dynamodb.v20120810#ServiceUnavailable', message: SERVICE_UNAVAILABLE_MESSAGE });
      assert.equal(server.clock.nowMs(), before, 'the step was not made');
      assert.equal((await heldAnswer).$metadata.httpStatusCode, 200);
      await closed;
      client.destroy();
      noInternalError(log);
      assert.deepEqual(log, []);
    });
  });
}
