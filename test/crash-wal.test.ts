/**
 * Crash safety of the default durable store (storage/logged.ts), proven through the SDK: a real
 * server process under a mixed write load — PutItem, UpdateItem (read-modify-write: ADD), DeleteItem,
 * TransactWriteItems, a table with a GSI and a stream, TTL deletions on the manual clock — is
 * killed with SIGKILL once a random count of writes was acknowledged, then restarted on the same
 * data directory, ROUNDS times. After every restart:
 *   - every acknowledged write is there (an item is exactly its last acknowledged state), unless
 *     a write to it was in flight at the kill, in which case it is exactly one of the two states;
 *   - a transaction in flight at the kill is all or nothing;
 *   - the GSI is exactly what the table's items project (Query every group vs a Scan);
 *   - nothing else is there.
 * A small --checkpoint-log-size makes checkpoints run all the time, so kills also land in them.
 *
 * Rounds: DYNATWIN_CRASH_ROUNDS (default 3, what `npm test` runs); the full proof is
 *   DYNATWIN_CRASH_ROUNDS=50 node --test dist/test/crash-wal.test.js
 * Kills come after a count of acknowledged writes, never after a time.
 *
 * The second test does the same with disk faults injected (issue 31; storage/fault-injection.ts,
 * through DYNATWIN_STORE_FAULTS, a new seed each round): ENOSPC and EIO at random frame writes
 * (after a random part of the frame reached the file), segment preparations, checkpoint marks and
 * LMDB commits. The server must stay up; a write refused with 503 ServiceUnavailable must be
 * absent (not applied, even after the kill); every acknowledged write must be there. Rounds:
 * DYNATWIN_CRASH_FAULT_ROUNDS (default 2).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { after, test } from 'node:test';
import {
  
  DeleteItemCommand,
  DescribeTableCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTimeToLiveCommand,
  type AttributeValue,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { createCrashTable, queryGroup, scanTable } from './support/crash-reads.js';
import { startServerProcess, type ServerProcess } from './support/process.js';
import { seededRandom } from './support/random.js';
import { scratchDirectories } from './support/scratch.js';
import { sdkClient } from './support/client.js';

const ROUNDS = roundsFrom('DYNATWIN_CRASH_ROUNDS', 3);
const FAULT_ROUNDS = roundsFrom('DYNATWIN_CRASH_FAULT_ROUNDS', 2);
/** Probability that an injected stage (a frame write, a preparation, a mark, an LMDB commit) fails. */
const FAULT_RATE = 0.05;
const SEED = 21;
const TABLE = 'crash';
const INDEX = 'by-group';
const GROUPS = ['g0', 'g1', 'g2', 'g3'];
const WRITERS = 6;
const KEYS_PER_WRITER = 8;
/** Kills come after this many acknowledged writes (uniform in the range), across all writers. */
const ACKNOWLEDGED_BEFORE_KILL_MIN = 40;
const ACKNOWLEDGED_BEFORE_KILL_MAX = 300;
/** The TTL writer advances the clock after this many expired items (a sweep falls due every 10 s of clock). */
const TTL_PUTS_PER_SWEEP = 4;
const SWEEP_ADVANCE_MS = 11_000;
// Throttling stays on (as everywhere but the capacity-off tests): a new on-demand table's burst covers a round's writes, and the TTL writer's clock advances refill it.
const SERVER_ARGS = ['--clock', 'manual', '--checkpoint-log-size', '8KB'];
/** How long a writer waits after a 503 before its next request. */
const REFUSED_PAUSE_MS = 20;

function roundsFrom(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const rounds = Number(text);
  if (!Number.isSafeInteger(rounds) || rounds < 1 || rounds > 10_000) throw new Error(`${name} must be a whole number from 1 to 10000, got '${text}'`);
  return rounds;
}

type Item = Record<string, AttributeValue>;
type State = Item | undefined;

/** A change one request makes to one item, as a function of the item before it. */
interface Change {
  readonly id: string;
  after(before: State): State;
}

/** A request in flight: its changes, and whether they apply all or none (a transaction). */
interface InFlight {
  readonly changes: readonly Change[];
  readonly atomic: boolean;
}

/** What the clients were told: every item's last acknowledged state, and what may still be moving. */
class Model {
  readonly acknowledged = new Map<string, State>();
  readonly inFlight = new Set<InFlight>();
  writes = 0;
  /** Writes refused with 503 ServiceUnavailable (disk faults): not applied. */
  refused = 0;
  /** Whether disk faults are injected: a 503 is then an answer, and TTL sweeps stay uncertain. */
  constructor(readonly faults: boolean) {}

  /** A refused request: it was not applied, so what the clients know is unchanged. */
  refuse(request: InFlight): void {
    this.inFlight.delete(request);
    this.refused++;
  }

  begin(changes: readonly Change[], atomic: boolean): InFlight {
    const request = { changes, atomic };
    this.inFlight.add(request);
    return request;
  }

  acknowledge(request: InFlight): void {
    for (const change of request.changes) this.acknowledged.set(change.id, change.after(this.acknowledged.get(change.id)));
    this.inFlight.delete(request);
  }
}

interface RoundOutcome {
  /** Requests in flight at the kill that turned out applied, and not applied. */
  readonly applied: number;
  readonly notApplied: number;
}

const scratch = scratchDirectories('dynatwin-crash-');
/** Every server started, so that a failed or timed-out test leaves none running (the process would never end). */
const started = new Set<ServerProcess>();
after(() => {
  for (const server of started) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  scratch.removeAll();
});

async function startServer(dir: string, faultSeed?: number): Promise<ServerProcess> {
  const env: Record<string, string> = faultSeed === undefined ? {} : { DYNATWIN_STORE_FAULTS: `seed=${faultSeed},rate=${FAULT_RATE}` };
  const server = await startServerProcess(['--data-dir', dir, ...SERVER_ARGS], env);
  started.add(server);
  return server;
}

/** Adds the faults the server reports having injected (fault-injection.ts via server.ts's log line) to `counts`, by stage and code. */
function countInjected(server: ServerProcess, counts: Map<string, number>): void {
  for (const match of server.output().matchAll(/injected fault (ENOSPC|EIO) into (\w+)/g)) {
    const name = `${match[2]} ${match[1]}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
}


test(`crash: ${ROUNDS} kill -9 rounds under mixed writes lose no acknowledged write and leave nothing half done`, { timeout: 60_000 + ROUNDS * 180_000 }, async (t) => {
  await crashRounds(t, ROUNDS, false);
});

test(`crash with disk faults: ${FAULT_ROUNDS} kill -9 rounds with ENOSPC and EIO injected into the log, its segments and the checkpoint lose no acknowledged write, apply no refused one and leave nothing half done`, { timeout: 60_000 + FAULT_ROUNDS * 180_000 }, async (t) => {
  await crashRounds(t, FAULT_ROUNDS, true);
});

async function crashRounds(t: { diagnostic(message: string): void }, rounds: number, faults: boolean): Promise<void> {
  const dir = scratch.fresh();
  const random = seededRandom(faults ? SEED + 1 : SEED);
  const model = new Model(faults);
  const faultSeed = (round: number): number | undefined => (faults ? SEED * 1000 + round : undefined);
  let server = await startServer(dir, faultSeed(0));
  const marks: number[] = [];
  let applied = 0;
  let notApplied = 0;
  const injected = new Map<string, number>();
  await createTable(server.endpoint);
  for (let round = 0; round < rounds; round++) {
    const killAfter = ACKNOWLEDGED_BEFORE_KILL_MIN + Math.floor(random() * (ACKNOWLEDGED_BEFORE_KILL_MAX - ACKNOWLEDGED_BEFORE_KILL_MIN + 1));
    await writeUntilKilled(server, model, random, killAfter, round);
    countInjected(server, injected);
    server = await startServer(dir, faultSeed(round + 1));
    const outcome = await verify(server.endpoint, model, `round ${round}`);
    applied += outcome.applied;
    notApplied += outcome.notApplied;
    marks.push(checkpointMark(dir));
  }
  countInjected(server, injected);
  const injectedTotal = [...injected.values()].reduce((sum, count) => sum + count, 0);
  const injectedText = [...injected].sort().map(([name, count]) => `${count} ${name}`).join(', ');
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  // Checkpoints ran under the load (the mark moved), so kills also met them.
  assert.ok(marks[marks.length - 1]! > 0, `no checkpoint was ever recorded: ${marks.join(',')}`);
  if (faults) assert.ok(injectedTotal > 0 && model.refused > 0, `faults were injected (${injectedTotal}) and writes refused (${model.refused})`);
  t.diagnostic(
    `${rounds} rounds${faults ? ` with disk faults (${injectedTotal} injected: ${injectedText}; ${model.refused} writes refused with 503)` : ''}, ${model.writes} acknowledged writes, 0 lost, 0 half applied; ` +
      `in flight at a kill: ${applied} applied whole, ${notApplied} not at all; checkpoint marks ${marks.join(',')}`,
  );
}

function checkpointMark(dir: string): number {
  try {
    return (JSON.parse(readFileSync(join(dir, 'wal-checkpoint'), 'utf8')) as { segment: number }).segment;
  } catch {
    return 0;
  }
}

async function createTable(endpoint: string): Promise<void> {
  const client = sdkClient(endpoint);
  try {
    await createCrashTable(client, TABLE, INDEX);
    await client.send(new UpdateTimeToLiveCommand({ TableName: TABLE, TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } }));
  } finally {
    client.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// The load

/** A group to index the item under, or none (then a write removes it from the GSI). */
function pickGroup(random: () => number): string | undefined {
  return random() < 0.2 ? undefined : GROUPS[Math.floor(random() * GROUPS.length)];
}

function putChange(id: string, version: number, group: string | undefined): Change {
  const item: Item = { id: { S: id }, version: { N: String(version) }, payload: { S: `v${version}-${'p'.repeat(version % 97)}` } };
  if (group !== undefined) item['group'] = { S: group };
  return { id, after: () => item };
}

/** SET version and payload, SET or REMOVE the group, ADD 1 to n: the new item depends on the old. */
function updateChange(id: string, version: number, group: string | undefined): Change {
  return {
    id,
    after(before) {
      const item: Item = { ...(before ?? {}), id: { S: id }, version: { N: String(version) }, payload: { S: `u${version}` }, n: { N: String(Number(before?.['n']?.N ?? '0') + 1) } };
      if (group === undefined) delete item['group'];
      else item['group'] = { S: group };
      return item;
    },
  };
}

function deleteChange(id: string): Change {
  return { id, after: () => undefined };
}

function updateInput(id: string, version: number, group: string | undefined): NonNullable<TransactWriteItem['Update']> {
  return {
    TableName: TABLE,
    Key: { id: { S: id } },
    UpdateExpression: group === undefined ? 'SET version = :v, payload = :p REMOVE #g ADD n :one' : 'SET version = :v, payload = :p, #g = :g ADD n :one',
    ExpressionAttributeNames: { '#g': 'group' },
    ExpressionAttributeValues: { ':v': { N: String(version) }, ':p': { S: `u${version}` }, ':one': { N: '1' }, ...(group === undefined ? {} : { ':g': { S: group } }) },
  };
}

interface Load {
  killed: boolean;
  acknowledgedThisRound: number;
  readonly killAfter: number;
  kill(): void;
}

async function writeUntilKilled(server: ServerProcess, model: Model, random: () => number, killAfter: number, round: number): Promise<void> {
  const load: Load = {
    killed: false,
    acknowledgedThisRound: 0,
    killAfter,
    kill() {
      if (this.killed) return;
      this.killed = true;
      server.child.kill('SIGKILL');
    },
  };
  // Each writer gets its own seeded stream, so the run is the same whatever the interleaving.
  const seeds = Array.from({ length: WRITERS + 1 }, () => Math.floor(random() * 2 ** 31));
  const writers = Array.from({ length: WRITERS }, (_, writer) => itemWriter(server.endpoint, model, load, writer, seededRandom(seeds[writer]!), round));
  writers.push(ttlWriter(server.endpoint, model, load, seededRandom(seeds[WRITERS]!), round));
  const results = await Promise.allSettled(writers);
  const exit = await server.exited;
  assert.equal(exit, 'SIGKILL', `round ${round}: the server ended with ${String(exit)}, not by the kill`);
  for (const result of results) if (result.status === 'rejected') throw result.reason;
}

/** Acknowledges a request: counts it, and kills the server once the round's count is reached. */
function acknowledged(model: Model, load: Load, request: InFlight): void {
  model.acknowledge(request);
  model.writes++;
  if (++load.acknowledgedThisRound >= load.killAfter) load.kill();
}

/**
 * Sends one request; answers 'ok', 'refused' (503 ServiceUnavailable under injected disk faults:
 * not applied; the caller takes it out of the model's in-flight set), or 'gone' once the server
 * is (its outcome then stays in flight).
 */
async function attempt(model: Model, load: Load, send: () => Promise<unknown>, what: string): Promise<'ok' | 'refused' | 'gone'> {
  try {
    await send();
    return 'ok';
  } catch (error) {
    if (load.killed) return 'gone';
    if (model.faults && error instanceof Error && error.name === 'ServiceUnavailable') {
      // The store resumes after a back-off: no point asking again at once.
      await new Promise((resolve) => setTimeout(resolve, REFUSED_PAUSE_MS));
      return 'refused';
    }
    load.kill(); // the other writers stop too, rather than write on forever
    throw new Error(`${what} failed before the kill: ${String(error)}`, { cause: error });
  }
}

/** The answer to one write request, applied to the model; false once the server is gone. */
function settle(model: Model, load: Load, request: InFlight, outcome: 'ok' | 'refused' | 'gone'): boolean {
  if (outcome === 'ok') acknowledged(model, load, request);
  else if (outcome === 'refused') model.refuse(request);
  return outcome !== 'gone';
}

async function itemWriter(endpoint: string, model: Model, load: Load, writer: number, random: () => number, round: number): Promise<void> {
  const client = sdkClient(endpoint);
  const key = (): string => `w${writer}-${Math.floor(random() * KEYS_PER_WRITER)}`;
  try {
    for (let sequence = 0; !load.killed; sequence++) {
      const version = round * 1_000_000 + writer * 10_000 + sequence;
      const group = pickGroup(random);
      const choice = random();
      let ok: boolean;
      if (choice < 0.3) {
        const id = key();
        const request = model.begin([putChange(id, version, group)], true);
        const item = request.changes[0]!.after(undefined)!;
        ok = settle(model, load, request, await attempt(model, load, () => client.send(new PutItemCommand({ TableName: TABLE, Item: item })), `PutItem ${id}`));
      } else if (choice < 0.55) {
        const id = key();
        const request = model.begin([updateChange(id, version, group)], true);
        ok = settle(model, load, request, await attempt(model, load, () => client.send(new UpdateItemCommand(updateInput(id, version, group))), `UpdateItem ${id}`));
      } else if (choice < 0.7) {
        const id = key();
        const request = model.begin([deleteChange(id)], true);
        ok = settle(model, load, request, await attempt(model, load, () => client.send(new DeleteItemCommand({ TableName: TABLE, Key: { id: { S: id } } })), `DeleteItem ${id}`));
      } else {
        ok = await transaction(client, model, load, writer, random, version);
      }
      if (!ok) return;
    }
  } finally {
    client.destroy();
  }
}

/** A TransactWriteItems of 2 to 4 distinct keys of this writer: puts, updates, deletes. */
async function transaction(client: DynamoDBClient, model: Model, load: Load, writer: number, random: () => number, version: number): Promise<boolean> {
  const count = 2 + Math.floor(random() * 3);
  const ids = new Set<string>();
  while (ids.size < count) ids.add(`w${writer}-${Math.floor(random() * KEYS_PER_WRITER)}`);
  const changes: Change[] = [];
  const items: TransactWriteItem[] = [];
  for (const id of ids) {
    const group = pickGroup(random);
    const kind = random();
    if (kind < 0.4) {
      const change = putChange(id, version, group);
      changes.push(change);
      items.push({ Put: { TableName: TABLE, Item: change.after(undefined)! } });
    } else if (kind < 0.8) {
      changes.push(updateChange(id, version, group));
      items.push({ Update: updateInput(id, version, group) });
    } else {
      changes.push(deleteChange(id));
      items.push({ Delete: { TableName: TABLE, Key: { id: { S: id } } } });
    }
  }
  const request = model.begin(changes, true);
  return settle(model, load, request, await attempt(model, load, () => client.send(new TransactWriteItemsCommand({ TransactItems: items })), `TransactWriteItems ${[...ids].join(',')}`));
}

/**
 * Puts items whose TTL has passed on the server's clock, and every few of them advances the
 * manual clock, which answers once the TTL sweep it made due has deleted them. An advance in
 * flight at the kill leaves each of those items present or deleted (a sweep deletes in chunks,
 * not all at once): not atomic.
 */
async function ttlWriter(endpoint: string, model: Model, load: Load, random: () => number, round: number): Promise<void> {
  const client = sdkClient(endpoint);
  try {
    const clock = (await (await fetch(`${endpoint}/dynatwin/clock`)).json()) as { nowMs: number };
    const expiredSeconds = Math.floor(clock.nowMs / 1000) - 100;
    for (let sequence = 0; !load.killed; sequence++) {
      const id = `ttl-${round}-${sequence}`;
      const change = putChange(id, sequence, pickGroup(random));
      const item = { ...change.after(undefined)!, expires: { N: String(expiredSeconds) } };
      const request = model.begin([{ id, after: () => item }], true);
      const outcome = await attempt(model, load, () => client.send(new PutItemCommand({ TableName: TABLE, Item: item })), `PutItem ${id}`);
      if (!settle(model, load, request, outcome)) return;
      if (outcome === 'refused' || sequence % TTL_PUTS_PER_SWEEP !== TTL_PUTS_PER_SWEEP - 1) continue;
      const expired = [...model.acknowledged].filter(([name, state]) => name.startsWith('ttl-') && state !== undefined).map(([name]) => name);
      const sweep = model.begin(expired.map(deleteChange), false);
      const advanced = await attempt(
        model,
        load,
        async () => {
          const response = await fetch(`${endpoint}/dynatwin/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceMs: SWEEP_ADVANCE_MS }) });
          if (!response.ok) throw new Error(`POST /dynatwin/clock answered ${response.status}`);
          await response.arrayBuffer();
        },
        'advancing the clock',
      );
      if (advanced === 'gone') return;
      // Not a client write: the deletions are the server's, acknowledged by the clock's answer;
      // under disk faults a sweep's writes may be refused and its items swept later, so each
      // stays uncertain (present or deleted) until the next verification.
      if (!model.faults) model.acknowledge(sweep);
    }
  } finally {
    client.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// Verification

function describe(state: State): string {
  return state === undefined ? 'absent' : JSON.stringify(state);
}

/** Checks the restarted server against the model, then settles the model on what was found. */
async function verify(endpoint: string, model: Model, label: string): Promise<RoundOutcome> {
  const client = sdkClient(endpoint);
  try {
    const actual = await scanTable(client, TABLE);
    const uncertain = new Set<string>();
    let applied = 0;
    let notApplied = 0;
    for (const request of model.inFlight) {
      const outcomes = new Set<'before' | 'after'>();
      for (const change of request.changes) {
        uncertain.add(change.id);
        const before = model.acknowledged.get(change.id);
        const afterState = change.after(before);
        const found = actual.get(change.id);
        const isBefore = isDeepStrictEqual(found, before);
        const isAfter = isDeepStrictEqual(found, afterState);
        assert.ok(isBefore || isAfter, `${label}: ${change.id} is ${describe(found)}, neither its acknowledged state ${describe(before)} nor the in-flight one ${describe(afterState)}`);
        if (isBefore !== isAfter) outcomes.add(isAfter ? 'after' : 'before');
      }
      if (request.atomic) {
        assert.ok(outcomes.size <= 1, `${label}: a request in flight at the kill is half applied: ${request.changes.map((change) => change.id).join(', ')}`);
        if (outcomes.has('after')) applied++;
        else if (outcomes.has('before')) notApplied++;
      }
    }
    const lost: string[] = [];
    for (const [id, state] of model.acknowledged) {
      if (uncertain.has(id)) continue;
      if (!isDeepStrictEqual(actual.get(id), state)) lost.push(`${id}: acknowledged ${describe(state)}, found ${describe(actual.get(id))}`);
    }
    assert.deepEqual(lost, [], `${label}: ${lost.length} acknowledged writes lost or changed`);
    const phantoms = [...actual.keys()].filter((id) => !model.acknowledged.has(id) && !uncertain.has(id));
    assert.deepEqual(phantoms, [], `${label}: items no request wrote`);
    // The GSI is exactly the projection of the table's items.
    for (const group of GROUPS) {
      const indexed = (await queryGroup(client, TABLE, INDEX, group)).sort((a, b) => (a['id']!.S! < b['id']!.S! ? -1 : 1));
      const expected = [...actual.values()].filter((item) => item['group']?.S === group).sort((a, b) => (a['id']!.S! < b['id']!.S! ? -1 : 1));
      assert.deepEqual(indexed, expected, `${label}: GSI ${INDEX} for ${group} differs from the table`);
    }
    // The table's statistics are those of its items (each write persists its partition's counts with it).
    const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    assert.equal(Table?.ItemCount, actual.size, `${label}: ItemCount is the number of items`);
    // What is there now is the acknowledged state of the next round.
    for (const request of model.inFlight) for (const change of request.changes) model.acknowledged.set(change.id, actual.get(change.id));
    model.inFlight.clear();
    return { applied, notApplied };
  } finally {
    client.destroy();
  }
}
