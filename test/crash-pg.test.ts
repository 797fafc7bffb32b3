/**
 * Crash safety on the PostgreSQL store (issue #32 item 6), modelled on crash-wal.test.ts: a dynatwin
 * CLI child on a private cluster with fsync on, under a write load of PutItem and
 * TransactWriteItems (two items that must be both or none) on a table with a GSI and a stream, is
 * killed with SIGKILL once a random count of writes was acknowledged, then started again on the same
 * schema, ROUNDS times. After every restart:
 *   - every acknowledged write is there (an item is exactly its last acknowledged state), unless a
 *     write to it was in flight at the kill, in which case it is one of the two states;
 *   - a transaction in flight at the kill is all or nothing;
 *   - the GSI is exactly what the table's items project (Query every group vs a Scan);
 *   - the stream (GetRecords over all shards) has a record of each acknowledged write and of each
 *     in-flight write that turned out applied, and no record of anything else.
 * Each writer owns its keys, so the only uncertainty is what was in flight at the kill.
 *
 * Rounds: DYNATWIN_PG_CRASH_ROUNDS (default 2, what `npm test` runs); a longer proof is
 *   DYNATWIN_PG_CRASH_ROUNDS=30 node --test dist/test/crash-pg.test.js
 * Kills come after a count of acknowledged writes, never after a time.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { DescribeTableCommand, PutItemCommand, TransactWriteItemsCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createCrashTable, queryGroup, scanTable } from './support/crash-reads.js';
import { sdkClient } from './support/client.js';
import { postgresAvailability, startPrivatePostgres, type PrivatePostgres } from './support/postgres.js';
import { ServerProcesses, type ServerProcess } from './support/process.js';
import { seededRandom } from './support/random.js';
import { readStream, streamsClient } from './support/streams.js';

const ROUNDS = roundsFrom('DYNATWIN_PG_CRASH_ROUNDS', 2);
const SEED = 32;
const TABLE = 'crash';
const INDEX = 'by-group';
const GROUPS = ['g0', 'g1', 'g2'];
const WRITERS = 6;
const KEYS_PER_WRITER = 8;
const ACKNOWLEDGED_BEFORE_KILL_MIN = 40;
const ACKNOWLEDGED_BEFORE_KILL_MAX = 200;
/** The share of requests that are two-item transactions (the rest are PutItem). */
const TRANSACTION_SHARE = 0.4;

function roundsFrom(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const rounds = Number(text);
  if (!Number.isSafeInteger(rounds) || rounds < 1 || rounds > 10_000) throw new Error(`${name} must be a whole number from 1 to 10000, got '${text}'`);
  return rounds;
}

type Item = Record<string, AttributeValue>;

/** A write request: the items it puts (one, or two for a transaction), all or none. */
interface Request {
  readonly items: readonly Item[];
}

/** What the clients were told. */
class Model {
  /** Every item's last acknowledged state. */
  readonly acknowledged = new Map<string, Item>();
  /** Requests sent and not answered when the server was killed. */
  readonly inFlight = new Set<Request>();
  /** `id@version` of every write that must have its stream record: acknowledged, or found applied after a kill. */
  readonly streamed = new Set<string>();
  writes = 0;
  transactions = 0;
}

function writeName(item: Item): string {
  return `${item['id']!.S!}@${item['version']!.N!}`;
}

const servers = new ServerProcesses();
let cluster: PrivatePostgres | undefined;
after(async () => {
  await servers.killAll();
  await cluster?.stop();
});

test(`crash on PostgreSQL: ${ROUNDS} kill -9 rounds under PutItem and TransactWriteItems lose no acknowledged write, apply none by half, keep the GSI and the stream whole`, { skip: postgresAvailability(), timeout: 120_000 + ROUNDS * 180_000 }, async (t) => {
  cluster = await startPrivatePostgres({ fsync: true });
  const store = cluster.url('crash');
  const random = seededRandom(SEED);
  const model = new Model();
  let server = await servers.start(['--store', store]);
  await createTable(server.endpoint);
  let applied = 0;
  let notApplied = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const killAfter = ACKNOWLEDGED_BEFORE_KILL_MIN + Math.floor(random() * (ACKNOWLEDGED_BEFORE_KILL_MAX - ACKNOWLEDGED_BEFORE_KILL_MIN + 1));
    await writeUntilKilled(server, model, random, killAfter, round);
    server = await servers.start(['--store', store]);
    const outcome = await verify(server.endpoint, model, `round ${round}`);
    applied += outcome.applied;
    notApplied += outcome.notApplied;
  }
  t.diagnostic(`${ROUNDS} rounds, ${model.writes} acknowledged writes (${model.transactions} transactions), 0 lost, 0 half applied; in flight at a kill: ${applied} applied whole, ${notApplied} not at all; ${model.streamed.size} stream records checked`);
});

async function createTable(endpoint: string): Promise<void> {
  const client = sdkClient(endpoint);
  try {
    await createCrashTable(client, TABLE, INDEX);
  } finally {
    client.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// The load

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
  const seeds = Array.from({ length: WRITERS }, () => Math.floor(random() * 2 ** 31));
  const results = await Promise.allSettled(seeds.map((seed, writer) => itemWriter(server.endpoint, model, load, writer, seededRandom(seed), round)));
  const exit = await server.exited;
  assert.equal(exit, 'SIGKILL', `round ${round}: the server ended with ${String(exit)}, not by the kill`);
  for (const result of results) if (result.status === 'rejected') throw result.reason;
}

/** An item of `writer`'s key `key` at a version no other write uses, in a group or none (then it leaves the GSI). */
function newItem(writer: number, key: number, version: number, random: () => number): Item {
  const item: Item = { id: { S: `w${writer}-${key}` }, version: { N: String(version) }, payload: { S: `v${version}-${'p'.repeat(version % 89)}` } };
  if (random() >= 0.2) item['group'] = { S: GROUPS[Math.floor(random() * GROUPS.length)]! };
  return item;
}

async function itemWriter(endpoint: string, model: Model, load: Load, writer: number, random: () => number, round: number): Promise<void> {
  const client = sdkClient(endpoint);
  try {
    for (let sequence = 0; !load.killed; sequence++) {
      const version = round * 1_000_000 + writer * 10_000 + sequence;
      const first = Math.floor(random() * KEYS_PER_WRITER);
      const transaction = random() < TRANSACTION_SHARE;
      const items = transaction ? [newItem(writer, first, version, random), newItem(writer, (first + 1 + Math.floor(random() * (KEYS_PER_WRITER - 1))) % KEYS_PER_WRITER, version, random)] : [newItem(writer, first, version, random)];
      const request: Request = { items };
      model.inFlight.add(request);
      try {
        if (transaction) await client.send(new TransactWriteItemsCommand({ TransactItems: items.map((item) => ({ Put: { TableName: TABLE, Item: item } })) }));
        else await client.send(new PutItemCommand({ TableName: TABLE, Item: items[0]! }));
      } catch (error) {
        if (load.killed) return; // its outcome stays in flight: verify() finds out
        load.kill(); // the other writers stop too, rather than write on forever
        throw new Error(`${transaction ? 'TransactWriteItems' : 'PutItem'} ${items.map(writeName).join(', ')} failed before the kill: ${String(error)}`, { cause: error });
      }
      model.inFlight.delete(request);
      for (const item of items) {
        model.acknowledged.set(item['id']!.S!, item);
        model.streamed.add(writeName(item));
      }
      model.writes++;
      if (transaction) model.transactions++;
      if (++load.acknowledgedThisRound >= load.killAfter) load.kill();
    }
  } finally {
    client.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// Verification

function describe(item: Item | undefined): string {
  return item === undefined ? 'absent' : JSON.stringify(item);
}

function byId(a: Item, b: Item): number {
  return a['id']!.S! < b['id']!.S! ? -1 : 1;
}

/** Checks the restarted server against the model, then settles the model on what was found. */
async function verify(endpoint: string, model: Model, label: string): Promise<{ applied: number; notApplied: number }> {
  const client = sdkClient(endpoint);
  try {
    const actual = await scanTable(client, TABLE);
    const uncertain = new Set<string>();
    const appliedWrites = new Set<string>();
    const pendingWrites = new Set<string>();
    let applied = 0;
    let notApplied = 0;
    for (const request of model.inFlight) {
      const outcomes = new Set<'before' | 'after'>();
      for (const item of request.items) {
        const id = item['id']!.S!;
        uncertain.add(id);
        const before = model.acknowledged.get(id);
        const found = actual.get(id);
        const isAfter = isDeepStrictEqual(found, item);
        assert.ok(isAfter || isDeepStrictEqual(found, before), `${label}: ${id} is ${describe(found)}, neither its acknowledged state ${describe(before)} nor the in-flight one ${describe(item)}`);
        outcomes.add(isAfter ? 'after' : 'before');
        (isAfter ? appliedWrites : pendingWrites).add(writeName(item));
      }
      assert.ok(outcomes.size === 1, `${label}: a request in flight at the kill is half applied: ${request.items.map(writeName).join(', ')}`);
      if (outcomes.has('after')) applied++;
      else notApplied++;
    }
    const lost: string[] = [];
    for (const [id, item] of model.acknowledged) {
      if (!uncertain.has(id) && !isDeepStrictEqual(actual.get(id), item)) lost.push(`${id}: acknowledged ${describe(item)}, found ${describe(actual.get(id))}`);
    }
    assert.deepEqual(lost, [], `${label}: ${lost.length} acknowledged writes lost or changed`);
    const phantoms = [...actual.keys()].filter((id) => !model.acknowledged.has(id) && !uncertain.has(id));
    assert.deepEqual(phantoms, [], `${label}: items no request wrote`);
    for (const group of GROUPS) {
      const indexed = (await queryGroup(client, TABLE, INDEX, group)).sort(byId);
      const expected = [...actual.values()].filter((item) => item['group']?.S === group).sort(byId);
      assert.deepEqual(indexed, expected, `${label}: GSI ${INDEX} for ${group} differs from the table`);
    }
    await verifyStream(endpoint, client, model, appliedWrites, pendingWrites, label);
    // The table's statistics are those of its items (each write persists its partition's counts with it).
    const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    assert.equal(Table?.ItemCount, actual.size, `${label}: ItemCount is the number of items`);
    // What is there now is the acknowledged state of the next round.
    for (const request of model.inFlight) for (const item of request.items) if (appliedWrites.has(writeName(item))) model.acknowledged.set(item['id']!.S!, item);
    for (const name of appliedWrites) model.streamed.add(name);
    model.inFlight.clear();
    return { applied, notApplied };
  } finally {
    client.destroy();
  }
}

/** The stream holds a record of each acknowledged or applied write, of none that was not applied, and nothing else. */
async function verifyStream(endpoint: string, client: DynamoDBClient, model: Model, appliedWrites: ReadonlySet<string>, pendingWrites: ReadonlySet<string>, label: string): Promise<void> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
  const streams = streamsClient(endpoint);
  try {
    const records = await readStream(streams, Table!.LatestStreamArn!);
    const recorded = records.map((record) => writeName(record.dynamodb!.NewImage as Item));
    const recordedSet = new Set(recorded);
    assert.equal(recordedSet.size, recorded.length, `${label}: a write has more than one stream record`);
    const missing = [...model.streamed, ...appliedWrites].filter((name) => !recordedSet.has(name));
    assert.deepEqual(missing, [], `${label}: acknowledged or applied writes without a stream record`);
    const unexpected = recorded.filter((name) => !model.streamed.has(name) && !appliedWrites.has(name));
    assert.deepEqual(unexpected, [], `${label}: stream records of writes not applied (${[...pendingWrites].filter((name) => recordedSet.has(name)).length} of them were in flight)`);
  } finally {
    streams.destroy();
  }
}
