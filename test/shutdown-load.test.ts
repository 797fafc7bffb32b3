/**
 * Stopping under load (issues 31 and 34): SIGINT / SIGTERM reach a CLI child while keep-alive
 * clients (raw sockets, and the SDK with a keep-alive agent) send back to back and other clients
 * open new connections. Every request on a connection the server had accepted gets its answer —
 * 200, or 503 ServiceUnavailable with `Connection: close` — never a reset and never a connection
 * closed under it (the clients count every outcome). A new connection attempted once the listener
 * closed is refused; one the operating system completed but the server never accepted is reset by
 * the OS before any byte of it is read (counted apart: the one outcome node gives no way to avoid).
 * Both doors (the fast lane and `--node-http`), in memory (answers in the same turn) and on disk
 * (writes waiting for the log while the stop begins).
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { SERVICE_UNAVAILABLE_MESSAGE } from '../src/server/faults.js';
import { dynamoRequest } from './support/http-wire.js';
import { startServerProcess, type ServerProcess } from './support/process.js';
import { scratchDirectories } from './support/scratch.js';
import { onDemandTable } from './support/tables.js';

const scratch = scratchDirectories('dynatwin-shutdown-load-');
after(() => scratch.removeAll());

const TABLE = 'load';
const RAW_KEEP_ALIVE_CLIENTS = 16;
const SDK_LOOPS = 12;
const NEW_CONNECTION_CLIENTS = 6;
/** Load after every client has been answered once, before the signal. */
const WARM_UP_MS = 300;
/** A bound on a hang, not a speed test. */
const EXIT_BOUND_MS = 30_000;

/** What one request (or connection attempt) came to. */
type Outcome = '200' | '200, closing' | '503 ServiceUnavailable' | 'refused' | 'reset before any answer' | `unexpected: ${string}`;

class Tally {
  readonly counts = new Map<string, number>();
  add(outcome: Outcome): void {
    this.counts.set(outcome, (this.counts.get(outcome) ?? 0) + 1);
  }
  get(outcome: Outcome): number {
    return this.counts.get(outcome) ?? 0;
  }
  unexpected(): string[] {
    return [...this.counts.keys()].filter((outcome) => outcome.startsWith('unexpected'));
  }
  toString(): string {
    return JSON.stringify(Object.fromEntries(this.counts));
  }
}

interface RawAnswer {
  readonly status: number;
  readonly body: string;
  readonly closes: boolean;
}

/** Sends one request on `socket` and reads its answer, or how the connection failed. */
function exchange(socket: Socket, bytes: string): Promise<RawAnswer | { readonly failure: string }> {
  return new Promise((resolve) => {
    let buffered = Buffer.alloc(0);
    const done = (result: RawAnswer | { readonly failure: string }): void => {
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const headEnd = buffered.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = buffered.toString('latin1', 0, headEnd);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < headEnd + 4 + length) return;
      done({ status: Number(head.split(' ')[1]), body: buffered.toString('utf8', headEnd + 4, headEnd + 4 + length), closes: /\r\nconnection: *close/i.test(head) });
    };
    const onError = (error: NodeJS.ErrnoException): void => done({ failure: buffered.length === 0 ? `error ${error.code ?? error.message}` : `error ${error.code ?? error.message} mid-answer` });
    const onClose = (): void => done({ failure: buffered.length === 0 ? 'closed without an answer' : 'closed mid-answer' });
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', onClose);
    socket.write(bytes);
  });
}

function open(port: number): Promise<Socket | { readonly failure: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(socket));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve({ failure: error.code ?? error.message }));
  });
}

function putBody(id: string): string {
  return JSON.stringify({ TableName: TABLE, Item: { id: { S: id }, padding: { S: 'p'.repeat(200) } } });
}

/** An answer's outcome: 200, or DynamoDB's ServiceUnavailable with `Connection: close`. */
function answerOutcome(answer: RawAnswer): Outcome {
  if (answer.status === 200) return '200';
  const refused = answer.status === 503 && answer.closes && answer.body.includes('ServiceUnavailable') && answer.body.includes(SERVICE_UNAVAILABLE_MESSAGE);
  return refused ? '503 ServiceUnavailable' : `unexpected: ${answer.status} ${answer.body.slice(0, 120)} (closes: ${answer.closes})`;
}

interface Load {
  readonly signalled: { value: boolean };
  readonly keepAlive: Tally;
  readonly newConnections: Tally;
  readonly sdk: Tally;
  readonly running: Promise<unknown>;
  /** Resolves once every client has had an answer (its keep-alive connection is open and accepted). */
  readonly warm: Promise<void>;
}

/**
 * Keep-alive clients send back to back on one connection each until the server refuses them (a
 * 503 that closes, or a failure); new-connection clients open one per request until refused.
 */
function startLoad(server: ServerProcess, port: number): Load {
  const signalled = { value: false };
  const clientCount = RAW_KEEP_ALIVE_CLIENTS + SDK_LOOPS + NEW_CONNECTION_CLIENTS;
  let warmClients = 0;
  let onWarm: () => void = () => undefined;
  const warm = new Promise<void>((resolve) => (onWarm = resolve));
  const answered = (first: boolean): void => {
    if (first && ++warmClients === clientCount) onWarm();
  };
  const keepAlive = new Tally();
  const newConnections = new Tally();
  const sdk = new Tally();
  let sequence = 0;
  const rawKeepAlive = async (): Promise<void> => {
    const socket = await open(port);
    if (!('write' in socket)) throw new Error(`a keep-alive client could not connect before the signal: ${socket.failure}`);
    socket.on('error', () => undefined);
    try {
      for (let first = true; ; first = false) {
        const answer = await exchange(socket, dynamoRequest(port, 'PutItem', putBody(`k${sequence++}`)));
        answered(first);
        if ('failure' in answer) {
          // Every request on this connection was sent after the server accepted it.
          keepAlive.add(`unexpected: ${answer.failure}${signalled.value ? '' : ' (before the signal)'}`);
          return;
        }
        const outcome = answerOutcome(answer);
        // A request taken before the stop gets its real answer, which closes the connection.
        if (signalled.value || outcome !== '200') keepAlive.add(outcome === '200' && answer.closes ? '200, closing' : outcome);
        if (answer.closes) return;
      }
    } finally {
      socket.destroy();
    }
  };
  const newConnection = async (): Promise<void> => {
    for (let first = true; ; first = false) {
      const socket = await open(port);
      if (!('write' in socket)) {
        // A connection attempted once the listener closed is refused; one the OS was completing
        // when it closed is reset before the client saw it connected.
        const outcome: Outcome = socket.failure === 'ECONNREFUSED' ? 'refused' : socket.failure === 'ECONNRESET' ? 'reset before any answer' : `unexpected: connect ${socket.failure}`;
        newConnections.add(signalled.value ? outcome : `unexpected: connect ${socket.failure} before the signal`);
        return;
      }
      socket.on('error', () => undefined);
      const answer = await exchange(socket, dynamoRequest(port, 'PutItem', putBody(`n${sequence++}`)));
      socket.destroy();
      answered(first);
      if ('failure' in answer) {
        // Completed by the OS, never accepted by the server: reset before any byte of an answer.
        const unaccepted = signalled.value && (answer.failure === 'error ECONNRESET' || answer.failure === 'error EPIPE');
        newConnections.add(unaccepted ? 'reset before any answer' : `unexpected: ${answer.failure}`);
        return;
      }
      const outcome = answerOutcome(answer);
      if (signalled.value || outcome !== '200') newConnections.add(outcome);
      if (outcome !== '200') return;
    }
  };
  // Each loop has its client and one keep-alive socket (maxSockets 1), opened during the warm-up:
  // after the signal its requests go on a connection the server accepted and answered before,
  // until an answer says `Connection: close` (read by a middleware), where the loop ends.
  const sdkLoop = async (): Promise<void> => {
    const client = new DynamoDBClient({
      endpoint: server.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
      maxAttempts: 1,
      requestHandler: { httpAgent: new Agent({ keepAlive: true, maxSockets: 1 }) },
    });
    let closes = false;
    client.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        closes = (result.response as { headers?: Record<string, string> }).headers?.['connection'] === 'close';
        return result;
      },
      { step: 'deserialize', name: 'connectionHeader' },
    );
    try {
      for (let first = true; ; first = false) {
        try {
          await client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: `s${sequence++}` } } }));
          answered(first);
          if (signalled.value) sdk.add(closes ? '200, closing' : '200');
          if (closes) return;
        } catch (error) {
          const name = error instanceof Error ? error.name : String(error);
          const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
          sdk.add(name === 'ServiceUnavailable' && status === 503 ? '503 ServiceUnavailable' : `unexpected: ${name} ${(error as NodeJS.ErrnoException).code ?? ''} ${error instanceof Error ? error.message : ''}`);
          return;
        }
      }
    } finally {
      client.destroy();
    }
  };
  const running = Promise.all([
    ...Array.from({ length: RAW_KEEP_ALIVE_CLIENTS }, rawKeepAlive),
    ...Array.from({ length: NEW_CONNECTION_CLIENTS }, newConnection),
    ...Array.from({ length: SDK_LOOPS }, sdkLoop),
  ]);
  return { signalled, keepAlive, newConnections, sdk, running, warm };
}

async function createTable(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' } });
  try {
    await client.send(new CreateTableCommand(onDemandTable(TABLE)));
  } finally {
    client.destroy();
  }
}

const CASES: readonly (readonly [signal: NodeJS.Signals, door: 'fast lane' | 'node:http', store: 'memory' | 'disk'])[] = [
  ['SIGINT', 'fast lane', 'memory'],
  ['SIGTERM', 'fast lane', 'disk'],
  ['SIGTERM', 'node:http', 'memory'],
  ['SIGINT', 'node:http', 'disk'],
];

describe('stopping under load: every request the server read gets its answer or a 503', () => {
  for (const [signal, door, store] of CASES) {
    test(`${signal}, ${door}, ${store}: keep-alive clients get 200 or 503 ServiceUnavailable, never a reset; new connections are answered or refused`, async () => {
      const args = [...(store === 'memory' ? ['--in-memory'] : ['--data-dir', scratch.fresh()]), ...(door === 'node:http' ? ['--node-http'] : [])];
      const server = await startServerProcess(args);
      await createTable(server.endpoint);
      const port = Number(new URL(server.endpoint).port);
      const load = startLoad(server, port);
      await Promise.race([load.warm, sleep(EXIT_BOUND_MS).then(() => assert.fail('the clients were never all answered before the signal'))]);
      await sleep(WARM_UP_MS);
      load.signalled.value = true;
      server.child.kill(signal);
      const exited = await Promise.race([server.exited, sleep(EXIT_BOUND_MS).then(() => 'did not exit')]);
      assert.equal(exited, 0, `the server exits with status 0 after ${signal}`);
      await Promise.race([load.running, sleep(EXIT_BOUND_MS).then(() => assert.fail('a client never finished'))]);
      const report = `keep-alive ${load.keepAlive}, SDK ${load.sdk}, new connections ${load.newConnections}`;
      for (const tally of [load.keepAlive, load.sdk, load.newConnections]) assert.deepEqual(tally.unexpected(), [], report);
      // Each keep-alive client's last request was refused with a 503, or was taken before the
      // stop and got its real answer, which closed the connection; none was cut.
      assert.equal(load.keepAlive.get('503 ServiceUnavailable') + load.keepAlive.get('200, closing'), RAW_KEEP_ALIVE_CLIENTS, report);
      assert.equal(load.sdk.get('503 ServiceUnavailable') + load.sdk.get('200, closing'), SDK_LOOPS, report);
      const newOutcomes = load.newConnections.get('503 ServiceUnavailable') + load.newConnections.get('refused') + load.newConnections.get('reset before any answer');
      assert.equal(newOutcomes, NEW_CONNECTION_CLIENTS, report);
    });
  }
});
