/**
 * `npm run bench:safety`: the figures of issue 15, each against a dynatwin started as the user
 * starts it (`bin/dynatwin.js` in a child process):
 *
 * 1. the time to refuse a 16 MB body of nested brackets (request sent → answer received);
 * 2. the latency of a probe client (one PutItem after the other) while 16 such bodies arrive at
 *    once, sent from a worker thread so that their upload does not share the probe's event loop;
 * 3. the time from starting the process to its banner, on LMDB with SAFETY_ITEMS items (default
 *    1,000,000), against the same with an empty store;
 * 4. the RSS of the server with 1,000 empty tables (and without), and what GET /dynatwin/tables
 *    costs then.
 *
 * Environment: SAFETY_ITEMS (default 1000000), SAFETY_TABLES (default 1000), SAFETY_ROUNDS (default 3),
 * SAFETY_LSI=1 (the restart's table has a sort key and a local secondary index, whose statistics
 * and item collections start-up must not read either).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const ITEMS = Number(process.env['SAFETY_ITEMS'] ?? 1_000_000);
const TABLES = Number(process.env['SAFETY_TABLES'] ?? 1000);
const ROUNDS = Number(process.env['SAFETY_ROUNDS'] ?? 3);
const WITH_LSI = process.env['SAFETY_LSI'] === '1';
/** With SAFETY_LSI=1: items per partition key (item collection) of the restart's table. */
const ITEMS_PER_COLLECTION = 100;
const HOSTILE_BODIES = 16;
const BODY_BYTES = 16 * 1024 * 1024 - 64;

const CLI = fileURLToPath(new URL('../../bin/dynatwin.js', import.meta.url));
const HEADERS = {
  'Content-Type': 'application/x-amz-json-1.0',
  'X-Amz-Date': '20260101T000000Z',
  Authorization: 'AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=' + '0'.repeat(64),
};

interface Server {
  readonly child: ChildProcess;
  readonly endpoint: string;
  /** From spawn to the banner line. */
  readonly startMs: number;
}

/** Servers still running, stopped if the bench fails half-way (no orphan keeps a port or a store). */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function startServer(args: string[]): Promise<Server> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [CLI, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match !== null) resolve({ child, endpoint: match[1]!, startMs: performance.now() - startedAt });
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`dynatwin exited (${code}) before its banner: ${output}`)));
  });
}

function stopServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.child.removeAllListeners('exit');
    server.child.once('exit', () => {
      running.delete(server.child);
      resolve();
    });
    server.child.kill('SIGTERM');
  });
}

function call(endpoint: string, operation: string, body: string | Buffer, agent?: Agent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(new URL('/', endpoint), { method: 'POST', agent, headers: { ...HEADERS, 'X-Amz-Target': 'DynamoDB_20120810.' + operation } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function mustCall(endpoint: string, operation: string, body: string, agent?: Agent): Promise<void> {
  const answer = await call(endpoint, operation, body, agent);
  if (answer.status !== 200) throw new Error(`${operation}: ${answer.status} ${answer.text}`);
}

function createTableBody(name: string): string {
  return JSON.stringify({ TableName: name, AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' });
}

/** The restart's table: hash key only, or (SAFETY_LSI=1) hash and sort key with an LSI. */
function restartTableBody(): string {
  if (!WITH_LSI) return createTableBody('restart');
  return JSON.stringify({
    TableName: 'restart',
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'N' },
      { AttributeName: 'v', AttributeType: 'N' },
    ],
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    LocalSecondaryIndexes: [{ IndexName: 'by-v', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'v', KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' } }],
    BillingMode: 'PAY_PER_REQUEST',
  });
}

function restartItem(index: number): object {
  if (!WITH_LSI) return { pk: { S: `item-${index}` }, v: { N: String(index) } };
  return { pk: { S: `c-${Math.floor(index / ITEMS_PER_COLLECTION)}` }, sk: { N: String(index) }, v: { N: String(ITEMS - index) } };
}

function nestedBody(): Buffer {
  const half = (BODY_BYTES - 40) / 2;
  return Buffer.from(`{"TableName":"probe","Item":{"pk":${'['.repeat(half)}${']'.repeat(half)}}}`);
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

function median(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 0.5);
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;

/** Sends `count` copies of a 16 MB nested body at once from a worker thread; resolves with their statuses. */
function hostileBurst(endpoint: string, count: number): Promise<number[]> {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const half = (workerData.bytes - 40) / 2;
    const body = Buffer.from('{"TableName":"probe","Item":{"pk":' + '['.repeat(half) + ']'.repeat(half) + '}}');
    const one = () => new Promise((resolve) => {
      const outgoing = http.request(new URL('/', workerData.endpoint), { method: 'POST', headers: { ...workerData.headers, 'X-Amz-Target': 'DynamoDB_20120810.PutItem' } }, (response) => { response.resume(); response.on('end', () => resolve(response.statusCode)); });
      outgoing.on('error', () => resolve(0));
      outgoing.end(body);
    });
    parentPort.postMessage('ready');
    parentPort.once('message', () => Promise.all(Array.from({ length: workerData.count }, one)).then((statuses) => parentPort.postMessage(statuses)));
  `;
  const worker = new Worker(source, { eval: true, workerData: { endpoint, count, bytes: BODY_BYTES, headers: HEADERS } });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', () => {
      worker.once('message', (statuses: number[]) => {
        void worker.terminate();
        resolve(statuses);
      });
      worker.postMessage('go');
    });
  });
}

async function nestedBodies(): Promise<void> {
  const server = await startServer(['--in-memory']);
  try {
    await mustCall(server.endpoint, 'CreateTable', createTableBody('probe'));
    const body = nestedBody();
    const refusals: number[] = [];
    for (let round = 0; round < 5; round++) {
      const startedAt = performance.now();
      const answer = await call(server.endpoint, 'PutItem', body);
      refusals.push(performance.now() - startedAt);
      if (answer.status !== 400 || !answer.text.includes('Nesting Levels')) throw new Error(`unexpected answer: ${answer.status} ${answer.text}`);
    }
    // The same request with a small nested body: what any answer costs on this machine right now.
    const small: number[] = [];
    for (let round = 0; round < 5; round++) {
      const startedAt = performance.now();
      await call(server.endpoint, 'PutItem', '{"TableName":"probe","Item":{"pk":' + '['.repeat(200) + ']'.repeat(200) + '}}');
      small.push(performance.now() - startedAt);
    }
    console.log(
      `16 MB nested body: refused (400 ValidationException) in ${ms(median(refusals))} median of 5, request sent → answer received (${refusals.map((value) => value.toFixed(0)).join(', ')} ms); ` +
        `the same refusal of a 400-byte body: ${ms(median(small))} median of 5`,
    );

    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const probeItem = (index: number): string => JSON.stringify({ TableName: 'probe', Item: { pk: { S: `probe-${index}` } } });
    for (let warm = 0; warm < 200; warm++) await mustCall(server.endpoint, 'PutItem', probeItem(warm), agent);
    const quiet: number[] = [];
    for (let index = 0; index < 500; index++) {
      const startedAt = performance.now();
      await mustCall(server.endpoint, 'PutItem', probeItem(index), agent);
      quiet.push(performance.now() - startedAt);
    }
    const during: number[] = [];
    let rssPeakBytes = 0;
    for (let round = 0; round < ROUNDS; round++) {
      let done = false;
      const burst = hostileBurst(server.endpoint, HOSTILE_BODIES).then((statuses) => {
        done = true;
        if (statuses.some((status) => status !== 400)) throw new Error(`hostile answers: ${statuses.join(',')}`);
      });
      for (let index = 0; !done; index++) {
        const startedAt = performance.now();
        await mustCall(server.endpoint, 'PutItem', probeItem(index), agent);
        during.push(performance.now() - startedAt);
        rssPeakBytes = Math.max(rssPeakBytes, rssOf(server.child.pid!));
      }
      await burst;
    }
    // Control: the same bursts to another process that only drains them, while the probe goes on
    // to dynatwin: what the machine (loopback copies, scheduling) costs the probe by itself.
    const drain = spawn(process.execPath, ['-e', "const s=require('node:http').createServer((q,r)=>{q.resume();q.on('end',()=>r.end('{}'))}).listen(0,'127.0.0.1',()=>console.log(s.address().port))"], { stdio: ['ignore', 'pipe', 'inherit'] });
    running.add(drain);
    const drainPort = await new Promise<number>((resolve) => drain.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
    const control: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let done = false;
      const burst = hostileBurst(`http://127.0.0.1:${drainPort}`, HOSTILE_BODIES).then(() => {
        done = true;
      });
      for (let index = 0; !done; index++) {
        const startedAt = performance.now();
        await mustCall(server.endpoint, 'PutItem', probeItem(index), agent);
        control.push(performance.now() - startedAt);
      }
      await burst;
    }
    drain.kill();
    agent.destroy();
    const sortedControl = [...control].sort((a, b) => a - b);
    const sortedQuiet = [...quiet].sort((a, b) => a - b);
    const sortedDuring = [...during].sort((a, b) => a - b);
    console.log(
      `probe PutItem, alone: p50 ${ms(percentile(sortedQuiet, 0.5))}, p99 ${ms(percentile(sortedQuiet, 0.99))} (${quiet.length} requests)\n` +
        `probe PutItem while ${HOSTILE_BODIES} such bodies arrive at once (${ROUNDS} rounds): p50 ${ms(percentile(sortedDuring, 0.5))}, p99 ${ms(percentile(sortedDuring, 0.99))}, max ${ms(sortedDuring.at(-1)!)} (${during.length} requests; target p99 < 50 ms); server RSS peak ${(rssPeakBytes / 2 ** 20).toFixed(0)} MB\n` +
        `control, the same bursts sent to a drain-only server meanwhile: p50 ${ms(percentile(sortedControl, 0.5))}, p99 ${ms(percentile(sortedControl, 0.99))}, max ${ms(sortedControl.at(-1)!)} (${control.length} requests)`,
    );
  } finally {
    await stopServer(server);
  }
}

function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match === null ? 0 : Number(match[1]) * 1024;
}

async function restartTime(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dynatwin-safety-'));
  try {
    const empty: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const server = await startServer(['--data-dir', join(dataDir, 'empty'), '--durability', 'commit']);
      empty.push(server.startMs);
      await stopServer(server);
    }
    // Loaded as fast as the machine allows: capacity off (an on-demand table would throttle the
    // load), no flush per batch.
    const loading = await startServer(['--data-dir', join(dataDir, 'full'), '--durability', 'commit', '--capacity', 'off']);
    const loadStartedAt = performance.now();
    await mustCall(loading.endpoint, 'CreateTable', restartTableBody());
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    let next = 0;
    const loader = async (): Promise<void> => {
      while (next < ITEMS) {
        const first = next;
        next += 25;
        const writes = [];
        for (let index = first; index < Math.min(first + 25, ITEMS); index++) writes.push({ PutRequest: { Item: restartItem(index) } });
        await mustCall(loading.endpoint, 'BatchWriteItem', JSON.stringify({ RequestItems: { restart: writes } }), agent);
      }
    };
    await Promise.all(Array.from({ length: 16 }, loader));
    agent.destroy();
    const loadSeconds = (performance.now() - loadStartedAt) / 1000;
    await stopServer(loading);
    const full: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const server = await startServer(['--data-dir', join(dataDir, 'full'), '--durability', 'commit']);
      full.push(server.startMs);
      const described = await call(server.endpoint, 'DescribeTable', '{"TableName":"restart"}');
      const itemCount = (JSON.parse(described.text) as { Table: { ItemCount: number } }).Table.ItemCount;
      if (itemCount !== ITEMS) throw new Error(`ItemCount after restart: ${itemCount}, expected ${ITEMS}`);
      await stopServer(server);
    }
    console.log(
      `restart on the default store: ${ITEMS.toLocaleString('en-US')} items${WITH_LSI ? ' in a table with an LSI' : ''} (loaded in ${loadSeconds.toFixed(0)} s) → banner in ${ms(median(full))} median of ${ROUNDS} (${full.map((value) => value.toFixed(0)).join(', ')} ms; target < 1 s); empty store ${ms(median(empty))}; ItemCount after restart ${ITEMS.toLocaleString('en-US')}`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function manyTables(): Promise<void> {
  const server = await startServer(['--in-memory']);
  try {
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    await mustCall(server.endpoint, 'ListTables', '{}', agent);
    const baseBytes = rssOf(server.child.pid!);
    let next = 0;
    const creator = async (): Promise<void> => {
      while (next < TABLES) await mustCall(server.endpoint, 'CreateTable', createTableBody(`table-${String(next++).padStart(5, '0')}`), agent);
    };
    await Promise.all(Array.from({ length: 8 }, creator));
    agent.destroy();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const withTablesBytes = rssOf(server.child.pid!);
    const times: number[] = [];
    let size = 0;
    for (let round = 0; round < 5; round++) {
      const startedAt = performance.now();
      const response = await fetch(`${server.endpoint}/dynatwin/tables`);
      size = (await response.arrayBuffer()).byteLength;
      times.push(performance.now() - startedAt);
    }
    const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MB`;
    console.log(
      `${TABLES} empty tables: server RSS ${mb(withTablesBytes)} (${mb(baseBytes)} before creating them: +${mb(withTablesBytes - baseBytes)}, ${((withTablesBytes - baseBytes) / TABLES / 1024).toFixed(1)} KB per table; target < 50 MB); GET /dynatwin/tables ${(size / 1024).toFixed(0)} KB in ${ms(median(times))} median of 5`,
    );
  } finally {
    await stopServer(server);
  }
}

const only = process.argv[2];
if (only === undefined || only === 'nesting') await nestedBodies();
if (only === undefined || only === 'tables') await manyTables();
if (only === undefined || only === 'restart') await restartTime();
