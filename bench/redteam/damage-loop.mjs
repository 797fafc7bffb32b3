// Red-team damage loop (by hand, after npm run build):
//   node bench/redteam/damage-loop.mjs [trials=100] [seed=1]
// Builds a history once (a table with a GSI, N sequential acknowledged PutItems through the CLI,
// small checkpoints so the directory holds LMDB data, a wal-checkpoint mark and several log
// segments, then kill -9), then per trial copies it, damages one file (a flipped bit, a zeroed
// 512-byte sector, or a truncation, at a random position of a log segment, wal-checkpoint or
// data.mdb) and starts the server on it. Outcomes:
//   - refused: the message must be one line, no stack, exit non-zero, every file unchanged; then
//     `dynatwin recover` runs and the server must start and serve a prefix of the history;
//   - started: it must serve a prefix of the history; fewer than N items is only acceptable when
//     the damage hit the log's last two frames (indistinguishable from a torn tail, wal.ts).
// A crash (signal, stack trace), a non-prefix, or items lost with no refusal are reported as BAD.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, truncateSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { DynamoDBClient, CreateTableCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';

const TRIALS = Number(process.argv[2] ?? 100);
let seed = Number(process.argv[3] ?? 1);
const N = Number(process.env.ITEMS ?? 3000);
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const CLI = 'bin/dynatwin.js';
const root = mkdtempSync(join(tmpdir(), 'rt-damage-'));

function start(dir) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, '--data-dir', dir, '--port', '0', '--checkpoint-log-size', '256KB'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); resolve({ kind: 'timeout', out }); }, 60000);
    const on = (c) => { out += c; const m = /(http:\/\/[^\s]+:\d+)/.exec(out); if (m) { clearTimeout(timer); resolve({ kind: 'started', child, endpoint: m[1], out: () => out }); } };
    child.stdout.on('data', on); child.stderr.on('data', on);
    child.on('exit', (code, signal) => { clearTimeout(timer); resolve({ kind: 'exited', code, signal, out }); });
  });
}
const client = (endpoint) => new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, maxAttempts: 1 });
async function scanAll(c) {
  const items = new Map(); let start;
  do {
    const page = await c.send(new ScanCommand({ TableName: 'damage', ExclusiveStartKey: start, ConsistentRead: true }));
    for (const item of page.Items ?? []) items.set(item.pk.S, item);
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
/** The number m when the items are exactly k0..k(m-1) with their values; -1 otherwise. */
function prefixLength(items) {
  for (let i = 0; i < items.size; i++) {
    const item = items.get('k' + i);
    if (!item || item.n.N !== String(i) || item.pad.S !== pad(i)) return -1;
  }
  return items.size;
}
const pad = (i) => ('p' + i).repeat(40).slice(0, 200);
function hashes(dir) {
  const out = {};
  for (const name of readdirSync(dir, { recursive: true })) {
    const path = join(dir, name);
    if (statSync(path).isFile()) out[name] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return out;
}

// The history.
const pristine = join(root, 'pristine');
{
  const s = await start(pristine);
  if (s.kind !== 'started') throw new Error(JSON.stringify(s));
  const c = client(s.endpoint);
  await c.send(new CreateTableCommand({ TableName: 'damage', BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'g', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], GlobalSecondaryIndexes: [{ IndexName: 'byG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }] }));
  for (let i = 0; i < N; i++) await c.send(new PutItemCommand({ TableName: 'damage', Item: { pk: { S: 'k' + i }, n: { N: String(i) }, g: { S: 'g' + (i % 7) }, pad: { S: pad(i) } } }));
  s.child.kill('SIGKILL');
  await new Promise((r) => s.child.on('exit', r));
}
const files = readdirSync(pristine).filter((name) => /^wal-\d+\.log$|^wal-checkpoint$|^data\.mdb$/.test(name));
console.log('history:', N, 'items; files', readdirSync(pristine).map((n) => `${n}=${statSync(join(pristine, n)).size}`).join(' '));

const tally = {}; const bad = [];
const note = (k) => { tally[k] = (tally[k] ?? 0) + 1; };
for (let trial = 0; trial < TRIALS; trial++) {
  const dir = join(root, 't' + trial);
  rmSync(dir, { recursive: true, force: true });
  cpSync(pristine, dir, { recursive: true });
  const file = files[Math.floor(rand() * files.length)];
  const path = join(dir, file);
  const bytes = readFileSync(path);
  // Damage lands where the file has content: within its non-zero extent for a log segment.
  let end = bytes.length; while (end > 0 && bytes[end - 1] === 0) end--;
  const span = file.endsWith('.log') ? Math.max(1, end) : bytes.length;
  const position = Math.floor(rand() * span);
  const kind = ['flip', 'zero', 'truncate'][Math.floor(rand() * 3)];
  if (kind === 'flip') { bytes[position] ^= 1 << Math.floor(rand() * 8); writeFileSync(path, bytes); }
  else if (kind === 'zero') { const at = position - (position % 512); bytes.fill(0, at, Math.min(bytes.length, at + 512)); writeFileSync(path, bytes); }
  else truncateSync(path, position);
  const label = `#${trial} ${kind} ${file}@${position}/${bytes.length} (content ${end})`;
  const before = hashes(dir);
  const s = await start(dir);
  if (s.kind === 'timeout') { bad.push(`${label}: start timed out`); note('BAD'); continue; }
  if (s.kind === 'exited') {
    const lines = s.out.trim().split('\n').filter((l) => !/NodeVersionSupportWarning|node >=22|upgrade to node|a\.co\/|trace-warnings|versions published|To continue receiving|security updates/.test(l) && l.trim() !== '');
    const unchanged = JSON.stringify(hashes(dir)) === JSON.stringify(before);
    if (s.signal || s.code === 0 || lines.length !== 1 || /\n\s+at /.test(s.out) || !unchanged) { bad.push(`${label}: refused badly code=${s.code} signal=${s.signal} unchanged=${unchanged}: ${s.out.slice(0, 600)}`); note('BAD'); continue; }
    note(`refused:${file.replace(/\d+/, 'N')}`);
    const r = spawnSync(process.execPath, [CLI, 'recover', '--data-dir', dir], { encoding: 'utf8', timeout: 60000 });
    const again = await start(dir);
    if (again.kind !== 'started') { note(`unrecoverable:${file.replace(/\d+/, 'N')}`); if (!/data\.mdb|wal-checkpoint/.test(file) || again.signal || /\n\s+at /.test(again.out)) bad.push(`${label}: after recover (rc ${r.status}: ${(r.stdout + r.stderr).slice(0, 300)}) start ${again.kind} ${again.code} ${again.signal}: ${String(again.out).slice(0, 400)}`); continue; }
    try {
      const m = prefixLength(await scanAll(client(again.endpoint)));
      if (m < 0) { bad.push(`${label}: after recover a NON-PREFIX is served`); note('BAD'); }
      else note(m === N ? 'recovered:all' : 'recovered:prefix');
    } catch (error) { bad.push(`${label}: after recover scan failed ${error}`); note('BAD'); }
    again.child.kill('SIGKILL'); await new Promise((r2) => again.child.on('exit', r2));
  } else {
    try {
      const m = prefixLength(await scanAll(client(s.endpoint)));
      if (m < 0) { bad.push(`${label}: started and serves a NON-PREFIX`); note('BAD'); }
      else if (m === N) note('started:all');
      else { note(`started:lost ${N - m}`); if (N - m > 2) { bad.push(`${label}: started and silently serves ${m} of ${N}: ${s.out().split('\n').filter((l) => /torn|cut/.test(l)).join(' | ').slice(0, 300)}`); } }
    } catch (error) { bad.push(`${label}: started but scan failed: ${error}`); note('BAD'); }
    s.child.kill('SIGKILL'); await new Promise((r) => s.child.on('exit', r));
  }
  rmSync(dir, { recursive: true, force: true });
}
console.log(`trials ${TRIALS}:`, JSON.stringify(tally));
for (const b of bad) console.log('BAD ' + b);
rmSync(root, { recursive: true, force: true });
