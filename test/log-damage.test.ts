/**
 * Damage in the write-ahead log is never repaired silently (issue 31), through the real CLI and
 * the SDK: items written to a server that is then killed with SIGKILL, one bit flipped in a frame
 * in the middle of the log. Start-up refuses with one line (file, offset, the intact frames that
 * follow) and changes no file; `dynatwin recover` moves the damaged log aside (kept, byte for
 * byte), prints what was dropped, and the server then serves exactly the writes before the bad
 * frame. A torn tail (the last frame cut short; a hole before one whole frame in flight) still
 * starts, cut, and the cut is logged.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CreateTableCommand, GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynatwin } from '../src/index.js';
import { rebuiltMark } from '../src/storage/log-recovery.js';
import { scanFrames } from '../src/storage/wal.js';
import { runCli, startServerProcess, type ServerProcess } from './support/process.js';
import { scratchDirectories } from './support/scratch.js';
import { sdkClient } from './support/client.js';

const scratch = scratchDirectories('dynatwin-damage-');
const started = new Set<ServerProcess>();
after(() => {
  for (const server of started) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  scratch.removeAll();
});

const TABLE = 'orders';
/** No checkpoint by size while the items are written: they stay in the log for the test to damage. */
const LARGE_LOG = ['--checkpoint-log-size', '1GB'];

async function start(dir: string, extra: readonly string[] = []): Promise<ServerProcess> {
  const server = await startServerProcess(['--data-dir', dir, ...extra]);
  started.add(server);
  return server;
}

function itemId(n: number): string {
  return `item-${String(n).padStart(4, '0')}`;
}

/** Puts items from..to-1 one at a time (each acknowledged before the next: one log frame each). */
async function putItems(client: DynamoDBClient, from: number, to: number): Promise<void> {
  for (let n = from; n < to; n++) {
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: itemId(n) }, n: { N: String(n) } } }));
  }
}

async function killed(server: ServerProcess): Promise<void> {
  server.child.kill('SIGKILL');
  assert.equal(await server.exited, 'SIGKILL');
}

async function stopped(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
}

function segmentNames(dir: string): string[] {
  return readdirSync(dir).filter((name) => /^wal-\d{12}\.log$/.test(name)).sort();
}

/** Every file of dir, recursively (path → bytes and mtime): what "changes nothing" is checked against. */
function snapshot(dir: string): Map<string, { bytes: Buffer; mtimeMs: number }> {
  const files = new Map<string, { bytes: Buffer; mtimeMs: number }>();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path, { bytes: readFileSync(path), mtimeMs: statSync(path).mtimeMs });
  }
  return files;
}

/** The whole frames of a segment file: their first byte, their bytes, and the items they hold. */
interface FrameAt {
  readonly start: number;
  readonly end: number;
  readonly items: readonly number[];
}

function framesOf(path: string, items: number): FrameAt[] {
  const data = readFileSync(path);
  return scanFrames(data).frames.map((payload) => {
    const start = payload.byteOffset - data.byteOffset - 8;
    const held = Array.from({ length: items }, (_, n) => n).filter((n) => Buffer.from(payload).includes(itemId(n)));
    return { start, end: start + 8 + payload.byteLength, items: held };
  });
}

async function readable(client: DynamoDBClient, items: number): Promise<number[]> {
  const present: number[] = [];
  for (let n = 0; n < items; n++) {
    const { Item } = await client.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: itemId(n) } }, ConsistentRead: true }));
    if (Item !== undefined) present.push(n);
  }
  return present;
}

/**
 * A data directory as a crash leaves it: a checkpointed table with items 0..before-1 (LMDB and
 * the checkpoint mark), then items before..total-1 in the log only, the server killed.
 */
async function crashedDirectory(before: number, total: number): Promise<string> {
  const dir = scratch.fresh();
  const first = await start(dir);
  const client = sdkClient(first.endpoint);
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  await putItems(client, 0, before);
  client.destroy();
  // A clean stop: LMDB holds the table and the first items, and wal-checkpoint says so.
  await stopped(first);
  const second = await start(dir, LARGE_LOG);
  const writer = sdkClient(second.endpoint);
  await putItems(writer, before, total);
  writer.destroy();
  await killed(second);
  return dir;
}

test('recover: a flipped bit mid-log with intact frames after it in the same and two later segments is refused unchanged, recovered aside, and the prefix served', { timeout: 300_000 }, async () => {
  const BEFORE = 5;
  const TOTAL = 45;
  const dir = await crashedDirectory(BEFORE, TOTAL);
  assert.ok(readdirSync(dir).includes('wal-checkpoint'));
  const [name, ...others] = segmentNames(dir);
  assert.ok(name !== undefined && others.length === 0, `one segment after the kill, not ${segmentNames(dir).join(', ')}`);
  const segment = Number(name.slice(4, 16));
  // The case, small: the log spans three segments (each filled up, then zeros as a
  // prepared segment's unused end), the items' frames spread over them, and one bit flips in a
  // frame in the middle of the first.
  const frames = framesOf(join(dir, name), TOTAL);
  assert.equal(frames[0]!.start, 0);
  const data = readFileSync(join(dir, name));
  const withItems = frames.filter((frame) => frame.items.length > 0);
  assert.ok(withItems.length >= TOTAL - BEFORE, `a frame per item, not ${withItems.length}`);
  const cuts = [0, frames.indexOf(withItems[15]!), frames.indexOf(withItems[28]!), frames.length];
  const paths = [0, 1, 2].map((at) => join(dir, `wal-${String(segment + at).padStart(12, '0')}.log`));
  for (let at = 0; at < 3; at++) {
    const body = data.subarray(frames[cuts[at]!]!.start, frames[cuts[at + 1]! - 1]!.end);
    writeFileSync(paths[at]!, Buffer.concat([body, Buffer.alloc(2048)]));
  }
  const damaged = frames.indexOf(withItems[6]!);
  const firstBody = readFileSync(paths[0]!);
  const badFrame = frames[damaged]!;
  firstBody[badFrame.start + 8 + 20] = firstBody[badFrame.start + 8 + 20]! ^ 0x10;
  writeFileSync(paths[0]!, firstBody);
  const before = snapshot(dir);
  const lost = frames.slice(damaged).flatMap((frame) => frame.items);
  const kept = frames.slice(0, damaged).flatMap((frame) => frame.items);

  // Start-up refuses: one line naming the file, the offset and what follows; nothing changes.
  const sameFile = cuts[1]! - damaged - 1;
  const later = frames.length - cuts[1]!;
  const refused = await runCli(['--port', '0', '--data-dir', dir]);
  assert.equal(refused.status, 1, refused.stdout + refused.stderr);
  const lines = refused.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, refused.stderr);
  assert.match(
    lines[0]!,
    new RegExp(
      `^dynatwin: the write-ahead log is damaged: ${paths[0]} has a bad frame at byte ${badFrame.start}, followed by ${sameFile + later} intact frames ` +
        `\\(\\d+ bytes: ${sameFile} in that file, ${later} in 2 later segments\\), more than a crash mid-write can leave; nothing on the disk was changed\\. ` +
        `\`dynatwin recover --data-dir ${dir}\` moves the damaged log aside`,
    ),
  );
  assert.deepEqual(snapshot(dir), before, 'start-up changed no file');
  // The library refuses with the same message.
  await assert.rejects(startDynatwin({ dataDir: dir }), (error: Error) => error.message === lines[0]!.slice('dynatwin: '.length));
  assert.deepEqual(snapshot(dir), before, 'the library changed no file');

  // A dry run says what it would drop and changes nothing.
  const dry = await runCli(['recover', '--data-dir', dir, '--dry-run']);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /dry run: nothing was changed/);
  assert.deepEqual(
    [...snapshot(dir)].filter(([path]) => !path.endsWith('lock.mdb')),
    [...before].filter(([path]) => !path.endsWith('lock.mdb')),
    'a dry run changed no file (LMDB may touch its lock file when read for table names)',
  );

  // recover: the log aside, kept byte for byte; the report names what was dropped.
  const recovered = await runCli(['recover', '--data-dir', dir]);
  assert.equal(recovered.status, 0, recovered.stderr);
  const report = recovered.stdout;
  assert.match(report, new RegExp(`dropped: ${paths[0]} bytes ${badFrame.start}-${frames[damaged + 1]!.start}: the bad frame`));
  // Each PutItem is a frame of its own: its item, and its partition's counts (another key).
  const dropped = (count: number): string => `${count} frames, ${2 * count} key writes \\(${2 * count} puts, 0 removes\\); tables ${TABLE} \\(${count}\\); ${count} other keys`;
  assert.match(report, new RegExp(`dropped: ${paths[0]} bytes ${frames[damaged + 1]!.start}-\\d+: ${dropped(sameFile)}`));
  for (const at of [1, 2]) assert.match(report, new RegExp(`dropped: ${paths[at]} bytes 0-\\d+: ${dropped(cuts[at + 1]! - cuts[at]!)}`));
  const folders = readdirSync(dir).filter((entry) => entry.startsWith('damaged-log-'));
  assert.equal(folders.length, 1, readdirSync(dir).join(', '));
  const aside = join(dir, folders[0]!);
  assert.match(folders[0]!, /^damaged-log-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/);
  for (const path of [...paths, join(dir, 'wal-checkpoint')]) {
    const name = path.slice(dir.length + 1);
    assert.deepEqual(readFileSync(join(aside, name)), before.get(path)!.bytes, `${name} kept aside as it was`);
  }
  assert.match(readFileSync(join(aside, 'RECOVERY.txt'), 'utf8'), /damaged/);
  assert.deepEqual(segmentNames(dir), [paths[0]!.slice(dir.length + 1)], 'the later segments moved aside');
  assert.equal(statSync(paths[0]!).size, badFrame.start, 'the live log is cut at the bad frame');

  // The server starts and serves exactly the prefix.
  const server = await start(dir);
  const client = sdkClient(server.endpoint);
  const present = await readable(client, TOTAL);
  client.destroy();
  await stopped(server);
  const expected = [...Array.from({ length: BEFORE }, (_, n) => n), ...kept].sort((a, b) => a - b);
  assert.deepEqual(present, [...new Set(expected)]);
  assert.ok(lost.length > 0 && lost.every((n) => !present.includes(n)));

  // Sound now: a second recover has nothing to do.
  const again = await runCli(['recover', '--data-dir', dir]);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /nothing to recover/);
});

test('recover: refuses while a server holds the directory; a missing directory and a missing flag are errors; --help; a sound log needs nothing', { timeout: 120_000 }, async () => {
  const dir = scratch.fresh();
  const server = await start(dir);
  const busy = await runCli(['recover', '--data-dir', dir]);
  assert.equal(busy.status, 1);
  assert.match(busy.stderr, new RegExp(`^dynatwin recover: --data-dir ${dir} is in use by another dynatwin \\(pid ${server.child.pid}\\)`));
  await stopped(server);
  const missing = await runCli(['recover', '--data-dir', join(dir, 'nope')]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /does not exist/);
  const noFlag = await runCli(['recover']);
  assert.equal(noFlag.status, 2);
  assert.match(noFlag.stderr, /--data-dir is required/);
  const help = await runCli(['recover', '--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Usage: dynatwin recover --data-dir <dir> \[--dry-run\]/);
  const main = await runCli(['--help']);
  assert.match(main.stdout, /dynatwin recover --data-dir <dir> \[--dry-run\]/);
  // A fresh directory's log is sound: nothing to do.
  const sound = await runCli(['recover', '--data-dir', dir]);
  assert.equal(sound.status, 0, sound.stderr);
  assert.match(sound.stdout, /^dynatwin recover: nothing to recover: the write-ahead log in .* is sound/);
});

test('start-up: a torn tail (the last frame cut short; a hole before one whole frame in flight) still starts, is cut, and the cut is logged', { timeout: 300_000 }, async () => {
  for (const damage of ['cut', 'hole'] as const) {
    const TOTAL = 8;
    const dir = await crashedDirectory(0, TOTAL);
    const [name] = segmentNames(dir);
    const path = join(dir, name!);
    const frames = framesOf(path, TOTAL);
    const last = frames.at(-1)!;
    const previous = frames.at(-2)!;
    let cutAt: number;
    let dropped: number;
    if (damage === 'cut') {
      truncateSync(path, last.end - 3);
      cutAt = last.start;
      dropped = last.end - 3 - last.start;
    } else {
      // The frame before the last never reached the disk; the last did (two were in flight).
      const data = readFileSync(path);
      writeFileSync(path, data.fill(0, previous.start, previous.end));
      cutAt = previous.start;
      dropped = statSync(path).size - previous.start;
    }
    const server = await start(dir);
    assert.match(server.startupOutput, new RegExp(`torn tail .*cut ${path} at byte ${cutAt}, dropping ${dropped} bytes`), damage);
    const client = sdkClient(server.endpoint);
    const present = await readable(client, TOTAL);
    client.destroy();
    await stopped(server);
    const intact = frames.slice(0, damage === 'cut' ? -1 : -2).flatMap((frame) => frame.items);
    assert.deepEqual(present, [...new Set(intact)].sort((a, b) => a - b), damage);
  }
});

test('start-up: a damaged LMDB data file (cut short, or its first page written over) is refused naming it, not a crash; nothing changes', { timeout: 120_000 }, async () => {
  for (const damage of ['cut', 'cut inside a page', 'overwritten'] as const) {
    const dir = await crashedDirectory(damage === 'cut inside a page' ? 300 : 3, damage === 'cut inside a page' ? 300 : 3);
    const path = join(dir, 'data.mdb');
    if (damage === 'cut') truncateSync(path, 100);
    // lmdb-js died of SIGBUS reading pages past the cut (exit 135, no message).
    else if (damage === 'cut inside a page') truncateSync(path, Math.floor(statSync(path).size * 0.6) + 100);
    else writeFileSync(path, Buffer.concat([Buffer.alloc(64, 0x5a), readFileSync(path).subarray(64)]));
    const before = snapshot(dir);
    const refused = await runCli(['--port', '0', '--data-dir', dir]);
    assert.equal(refused.status, 1, `${damage}: ${refused.stderr}`);
    assert.match(refused.stderr, new RegExp(`^dynatwin: the LMDB data file ${path} is damaged \\([^)]+\\); nothing on the disk was changed\\. Restore it from a copy of the data directory\\n$`), damage);
    assert.deepEqual(snapshot(dir), before, damage);
  }
});

test('start-up: a checkpoint mark with one bit flipped into another segment number is refused unchanged; recover rebuilds it and every item is served', { timeout: 300_000 }, async () => {
  const dir = await crashedDirectory(3, 40);
  const markPath = join(dir, 'wal-checkpoint');
  const mark = readFileSync(markPath);
  const segment = Number(/"segment":(\d+)/.exec(mark.toString('utf8'))![1]);
  // The last digit of the segment number, one bit flipped so that it reads as the next segment:
  // the live one, whose frames a start-up trusting the mark would skip and then delete.
  const digitAt = mark.indexOf(`"segment":${segment}`) + `"segment":${segment}`.length - 1;
  const flipped = Buffer.from(mark);
  flipped[digitAt] = mark[digitAt]! ^ (mark[digitAt]! ^ String((segment + 1) % 10).charCodeAt(0));
  assert.equal(segmentNames(dir).includes(`wal-${String(segment + 1).padStart(12, '0')}.log`), true, 'the live segment follows the mark');
  writeFileSync(markPath, flipped);
  const before = snapshot(dir);
  const refused = await runCli(['--port', '0', '--data-dir', dir]);
  assert.equal(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, /^dynatwin: the write-ahead log's checkpoint mark .*wal-checkpoint is damaged .*dynatwin recover/);
  assert.equal(refused.stderr.trim().split('\n').length, 1);
  assert.deepEqual(snapshot(dir), before, 'nothing changed');
  const dryRun = await runCli(['recover', '--data-dir', dir, '--dry-run']);
  assert.equal(dryRun.status, 0, dryRun.stderr);
  assert.match(dryRun.stdout, /checkpoint mark .* is damaged: rebuilt as segment \d+[^]*dry run: nothing was changed/);
  assert.deepEqual(snapshot(dir), before, 'a dry run changes nothing');
  const recovered = await runCli(['recover', '--data-dir', dir]);
  assert.equal(recovered.status, 0, recovered.stderr);
  assert.match(recovered.stdout, /checkpoint mark .* is damaged/);
  const aside = readdirSync(dir).find((name) => name.startsWith('damaged-log-'));
  assert.ok(aside !== undefined, 'the damaged mark is kept aside');
  assert.deepEqual(readFileSync(join(dir, aside, 'wal-checkpoint')), flipped);
  const server = await start(dir);
  const client = sdkClient(server.endpoint);
  assert.deepEqual(await readable(client, 40), Array.from({ length: 40 }, (_, n) => n));
  client.destroy();
  await stopped(server);
});

test('recover: a rebuilt checkpoint mark replays the last unbroken run of segments; one below a gap (covered, its removal failed) is left out', async () => {
  const dir = scratch.fresh();
  mkdirSync(dir, { recursive: true });
  for (const segment of [3, 5, 6]) writeFileSync(join(dir, `wal-${String(segment).padStart(12, '0')}.log`), '');
  assert.deepEqual(await rebuiltMark(dir), { segment: 4, segments: [5, 6], skipped: [3] });
  // The gap filled: every segment is replayed.
  writeFileSync(join(dir, `wal-${String(4).padStart(12, '0')}.log`), '');
  assert.deepEqual(await rebuiltMark(dir), { segment: 2, segments: [3, 4, 5, 6], skipped: [] });
  assert.deepEqual(await rebuiltMark(join(dir, 'none')), { segment: 0, segments: [], skipped: [] });
});
