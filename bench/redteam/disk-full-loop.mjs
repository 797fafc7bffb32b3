// Red-team disk-full loop (by hand, as root, after npm run build):
//   node bench/redteam/disk-full-loop.mjs [rounds=6] [seed=1]
// A 32 MB tmpfs is mounted; per round the CLI serves a data directory on it while concurrent
// writers of every kind (PutItem, UpdateItem ADD, BatchWriteItem, TransactWriteItems with a
// ClientRequestToken, all on a table with a GSI, a stream and TTL) run and a filler fills the
// disk and frees it again and again; the server is killed with SIGKILL at a random moment and
// restarted (some rounds on a full disk). After each restart: every acknowledged write present,
// every refused (503) write absent, no half-applied transaction, ItemCount and the GSI equal to
// a Scan's count, counters within [acknowledged, acknowledged + unknown]; any 500, any other
// error, or the process exiting by itself is reported.
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, openSync, writeSync, closeSync, unlinkSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, DescribeBackupCommand, DeleteTableCommand, CreateBackupCommand, RestoreTableFromBackupCommand, UpdateTableCommand, ListTablesCommand, CreateTableCommand, PutItemCommand, UpdateItemCommand, BatchWriteItemCommand, TransactWriteItemsCommand, ScanCommand, DescribeTableCommand, UpdateTimeToLiveCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';

const ROUNDS = Number(process.argv[2] ?? 6);
let seed = Number(process.argv[3] ?? 1);
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const MOUNT = '/tmp/rt-tmpfs';
mkdirSync(MOUNT, { recursive: true });
try { execFileSync('umount', [MOUNT], { stdio: 'ignore' }); } catch {}
execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${process.env.TMPFS_SIZE ?? '32m'}`, 'tmpfs', MOUNT]);
const DATA = join(MOUNT, 'data');
const FILLER = join(MOUNT, 'filler');
const TABLE = 'fills';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function start() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/dynatwin.js', '--data-dir', DATA, '--port', '0', '--checkpoint-log-size', '2MB'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('no start: ' + out)), 60000);
    const on = (c) => { out += c; const m = /(http:\/\/[^\s]+:\d+)/.exec(out); if (m) { clearTimeout(timer); resolve({ child, endpoint: m[1], out: () => out, exited: new Promise((r) => child.on('exit', (code, signal) => r({ code, signal }))) }); } };
    child.stdout.on('data', on); child.stderr.on('data', on);
    child.on('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`exited ${code} ${signal}: ${out}`)); });
  });
}
const client = (endpoint) => new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, maxAttempts: 1, requestHandler: { requestTimeout: 20000 } });
function fill() {
  const fd = openSync(FILLER, 'w'); const chunk = Buffer.alloc(256 * 1024, 1); let bytes = 0;
  try { for (;;) { writeSync(fd, chunk); bytes += chunk.length; } } catch (e) { if (e.code !== 'ENOSPC') throw e; } finally { closeSync(fd); }
  return bytes;
}
const free = () => { if (existsSync(FILLER)) unlinkSync(FILLER); };

// Ledger: key → 'ack' | 'refused' | 'unknown'.
const puts = new Map(); const batches = new Map(); const txns = new Map(); const counters = new Map(); // counter key → {ack, unknown}
const errors = new Map(); const note = (name) => errors.set(name, (errors.get(name) ?? 0) + 1);
const isConnection = (e) => /ECONNRESET|ECONNREFUSED|socket hang up|EPIPE|aborted|TimeoutError|timeout/i.test(`${e.name} ${e.message} ${e.code}`);
function classify(e) {
  if (e.name === 'ServiceUnavailable' || e.$metadata?.httpStatusCode === 503) { note('503 ' + (e.message ?? '').slice(0, 60)); return 'refused'; }
  if (isConnection(e)) { note('connection'); return 'unknown'; }
  note(`${e.$metadata?.httpStatusCode ?? '?'} ${e.name}: ${(e.message ?? '').replace(/\d+/g, 'N').slice(0, 100)}`);
  return (e.$metadata?.httpStatusCode ?? 0) >= 500 ? 'unknown' : 'rejected';
}
let n = 0;
async function writer(c, kind, until) {
  while (Date.now() < until.at) {
    const id = `${kind}${n++}`;
    const ttl = { N: String(Math.floor(Date.now() / 1000) - (rand() < 0.1 ? 100 : -100000)) };
    try {
      if (kind === 'p') { puts.set(id, 'unknown'); await c.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: id }, g: { S: 'g' + (n % 5) }, pad: { S: 'x'.repeat(1 + Math.floor(rand() * 2000)) } } })); puts.set(id, 'ack'); }
      else if (kind === 'u') { const key = 'c' + (n % 8); const rec = counters.get(key) ?? { ack: 0, unknown: 0 }; counters.set(key, rec); rec.unknown++; try { await c.send(new UpdateItemCommand({ TableName: TABLE, Key: { pk: { S: key } }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } })); rec.unknown--; rec.ack++; } catch (e) { const k = classify(e); if (k !== 'unknown') rec.unknown--; throw Object.assign(e, { classified: true }); } }
      else if (kind === 'b') { batches.set(id, 'unknown'); const r = await c.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: Array.from({ length: 5 }, (_, i) => ({ PutRequest: { Item: { pk: { S: `${id}-${i}` }, g: { S: 'gb' }, ttl } } })) } })); batches.set(id, Object.keys(r.UnprocessedItems ?? {}).length === 0 ? 'ack' : 'partial'); }
      else if (kind === 't') { txns.set(id, 'unknown'); await c.send(new TransactWriteItemsCommand({ ClientRequestToken: id, TransactItems: [{ Put: { TableName: TABLE, Item: { pk: { S: `${id}-a` }, g: { S: 'gt' } } } }, { Put: { TableName: TABLE, Item: { pk: { S: `${id}-b` } } } }] })); txns.set(id, 'ack'); }
    } catch (e) {
      if (e.classified) continue;
      const k = classify(e);
      if (kind === 'p') puts.set(id, k); else if (kind === 'b') batches.set(id, k); else if (kind === 't') txns.set(id, k);
      if (k === 'refused') await sleep(20); else if (k === 'unknown') await sleep(100);
    }
  }
}
/** Control-plane work during a round: tables made and dropped, a backup restored, a GSI added (a backfill). */
async function control(c, round, until) {
  const step = async (name, send) => { try { await send(); note('control ok ' + name); } catch (e) { classify(e); } };
  await step('create', () => c.send(new CreateTableCommand({ TableName: `tmp-${round}`, BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] })));
  if (round > 0) await step('delete', () => c.send(new DeleteTableCommand({ TableName: `tmp-${round - 1}` })));
  await sleep(rand() * 2000);
  let backup;
  await step('backup', async () => { backup = (await c.send(new CreateBackupCommand({ TableName: TABLE, BackupName: `backup-${round}` }))).BackupDetails.BackupArn; });
  // A backup is restorable once AVAILABLE (BackupInUseException before).
  while (backup && Date.now() < until.at) { try { if ((await c.send(new DescribeBackupCommand({ BackupArn: backup }))).BackupDescription.BackupDetails.BackupStatus === 'AVAILABLE') break; } catch (e) { classify(e); } await sleep(200); }
  if (backup) await step('restore', () => c.send(new RestoreTableFromBackupCommand({ BackupArn: backup, TargetTableName: `restored-${round}` })));
  if (round === 1) await step('add gsi', () => c.send(new UpdateTableCommand({ TableName: TABLE, AttributeDefinitions: [{ AttributeName: 'pad', AttributeType: 'S' }], GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'byPad', KeySchema: [{ AttributeName: 'pad', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } } }] })));
  while (Date.now() < until.at) { await step('list', () => c.send(new ListTablesCommand({}))); await sleep(500); }
}

async function scanAll(c, index) {
  const items = new Map(); let start;
  do { const p = await c.send(new ScanCommand({ TableName: TABLE, IndexName: index, ExclusiveStartKey: start, ConsistentRead: index ? undefined : true })); for (const it of p.Items ?? []) items.set(it.pk.S, it); start = p.LastEvaluatedKey; } while (start);
  return items;
}
const problems = [];
async function verify(c, round) {
  const items = await scanAll(c);
  const has = (k) => items.has(k);
  const ttlGone = (k) => false;
  let checked = 0;
  for (const [id, s] of puts) { checked++; if (s === 'ack' && !has(id)) problems.push(`r${round}: acknowledged put ${id} missing`); if ((s === 'refused' || s === 'rejected') && has(id)) problems.push(`r${round}: refused put ${id} present`); }
  for (const [id, s] of batches) for (let i = 0; i < 5; i++) { const k = `${id}-${i}`; if (s === 'ack' && !has(k)) { /* TTL may have deleted an expired one */ } if ((s === 'refused' || s === 'rejected') && has(k)) problems.push(`r${round}: refused batch item ${k} present`); }
  for (const [id, s] of txns) { const a = has(`${id}-a`), b = has(`${id}-b`); if (a !== b) problems.push(`r${round}: HALF-APPLIED transaction ${id}`); if (s === 'ack' && !a) problems.push(`r${round}: acknowledged transaction ${id} missing`); if ((s === 'refused' || s === 'rejected') && a) problems.push(`r${round}: refused transaction ${id} present`); }
  for (const [key, rec] of counters) { const v = Number(items.get(key)?.n?.N ?? 0); if (v < rec.ack || v > rec.ack + rec.unknown) problems.push(`r${round}: counter ${key} = ${v}, acknowledged ${rec.ack}, unknown ${rec.unknown}`); rec.ack = v; rec.unknown = 0; }
  // Resolve unknowns to what is there, so later rounds judge from the truth.
  for (const [id, s] of puts) if (s === 'unknown') puts.set(id, has(id) ? 'ack' : 'gone');
  for (const [id, s] of txns) if (s === 'unknown') txns.set(id, has(`${id}-a`) ? 'ack' : 'gone');
  for (const [id, s] of batches) if (s === 'unknown' || s === 'partial') batches.set(id, 'settled');
  const { Table } = await c.send(new DescribeTableCommand({ TableName: TABLE }));
  if (Table.ItemCount !== items.size) problems.push(`r${round}: ItemCount ${Table.ItemCount} but Scan counts ${items.size}`);
  const gsi = await scanAll(c, 'byG');
  const withG = [...items.values()].filter((it) => it.g !== undefined).length;
  if (gsi.size !== withG) problems.push(`r${round}: GSI holds ${gsi.size}, base items with g ${withG}`);
  const gsiCount = Table.GlobalSecondaryIndexes?.[0]?.ItemCount;
  if (gsiCount !== withG) problems.push(`r${round}: GSI ItemCount ${gsiCount}, base items with g ${withG}`);
  // Restored tables and the added GSI: no 500 reading them, and a restored table, once ACTIVE, is countable.
  const tables = (await c.send(new ListTablesCommand({}))).TableNames;
  for (const name of tables.filter((t) => t.startsWith('restored-'))) {
    const d = (await c.send(new DescribeTableCommand({ TableName: name }))).Table;
    if (d.TableStatus === 'ACTIVE') { let count = 0, k; do { const p = await c.send(new ScanCommand({ TableName: name, Select: 'COUNT', ExclusiveStartKey: k })); count += p.Count; k = p.LastEvaluatedKey; } while (k); if (count !== d.ItemCount) problems.push(`r${round}: ${name} ItemCount ${d.ItemCount}, Scan ${count}`); }
  }
  const byPad = Table.GlobalSecondaryIndexes?.find((i) => i.IndexName === 'byPad');
  if (byPad?.IndexStatus === 'ACTIVE') { const idx = await scanAll(c, 'byPad'); const withPad = [...items.values()].filter((it) => it.pad !== undefined && Buffer.byteLength(it.pad.S) <= 2048).length; if (idx.size !== withPad) problems.push(`r${round}: byPad holds ${idx.size}, items with pad ${withPad}`); }
  return { items: items.size, checked, tables: tables.length, byPad: byPad?.IndexStatus };
}

free();
let server = await start();
let c = client(server.endpoint);
await c.send(new CreateTableCommand({ TableName: TABLE, BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'g', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], GlobalSecondaryIndexes: [{ IndexName: 'byG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } }], StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } }));
await c.send(new UpdateTimeToLiveCommand({ TableName: TABLE, TimeToLiveSpecification: { Enabled: true, AttributeName: 'ttl' } }));
for (let round = 0; round < ROUNDS; round++) {
  const until = { at: Date.now() + 4000 + rand() * 6000 };
  let exitedBySelf = false;
  server.exited.then((r) => { if (r.signal !== 'SIGKILL') exitedBySelf = true; });
  const fillerLoop = (async () => { while (Date.now() < until.at) { await sleep(200 + rand() * 800); const bytes = fill(); await sleep(300 + rand() * 1500); if (Date.now() < until.at || rand() < 0.5) free(); } })();
  const writers = [...['p', 'p', 'u', 'b', 't', 't'].map((kind) => writer(c, kind, until)), control(c, round, until)];
  await sleep(until.at - Date.now());
  server.child.kill('SIGKILL');
  await Promise.all(writers); await fillerLoop;
  await server.exited;
  if (exitedBySelf) problems.push(`r${round}: the server exited by itself: ${server.out().slice(-800)}`);
  const fullStart = existsSync(FILLER);
  server = await start().catch((e) => { problems.push(`r${round}: restart failed: ${e.message.slice(0, 600)}`); return undefined; });
  if (server === undefined) { free(); server = await start(); }
  c = client(server.endpoint);
  let fullRead = '';
  if (fullStart) { try { await scanAll(c); fullRead = 'reads ok on a full disk'; } catch (e) { problems.push(`r${round}: read on a full disk failed: ${e.name} ${e.message}`); } free(); await sleep(2500); }
  const v = await verify(c, round).catch((e) => { problems.push(`r${round}: verify failed ${e.name}: ${e.message}`); return {}; });
  console.log(`round ${round}: items ${v.items}; tables ${v.tables}; byPad ${v.byPad}; puts ${puts.size} txns ${txns.size} batches ${batches.size}; ${fullStart ? 'restarted on a full disk, ' + fullRead : 'restarted'}; problems so far ${problems.length}`);
}
server.child.kill('SIGKILL');
await server.exited;
console.log('outcomes:', JSON.stringify([...errors.entries()].sort((a, b) => b[1] - a[1])));
console.log('acknowledged: puts', [...puts.values()].filter((s) => s === 'ack').length, 'txns', [...txns.values()].filter((s) => s === 'ack').length);
console.log(`problems ${problems.length}`); for (const p of problems.slice(0, 60)) console.log('  ' + p);
execFileSync('umount', [MOUNT]);
