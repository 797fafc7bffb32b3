/**
 * The logged store (src/storage/logged.ts, wal.ts, layers.ts) beyond the Storage contract that
 * test/storage.test.ts runs on every store: group commit (syncs counted through the log's file
 * seam, never timed), what outside reads may see, checkpoints, recovery after a crash (a child
 * process that dies by SIGKILL) and a torn log tail.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, cpSync, existsSync, openSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Layer, TOMBSTONE, type Slot } from '../src/storage/layers.js';
import { CHECKPOINT_CHUNK_BYTES_MAX, CHECKPOINT_CHUNK_ENTRIES, LoggedStorage, type LoggedStorageOptions } from '../src/storage/logged.js';
import type { StoredValue } from '../src/storage/storage.js';
import { logState, moveDamagedLogAside } from '../src/storage/log-recovery.js';
import { crc32, decodeFrame, findIntactFrames, FrameBuilder, NODE_LOG_IO, preparedRecordPath, readCheckpointMark, readPreparedRecord, scanFrames, segmentPath, surveyLog, type LogFile, type LogIo } from '../src/storage/wal.js';
import { runCli } from './support/process.js';
import { seededRandom } from './support/random.js';
import { scratchDirectories } from './support/scratch.js';

const scratch = scratchDirectories('dynatwin-wal-');
after(() => scratch.removeAll());

const CHILD_PATH = fileURLToPath(new URL('./support/wal-child.js', import.meta.url));

function k(name: string): Uint8Array {
  return Buffer.from(name, 'latin1');
}

function names(entries: Iterable<{ readonly key: Uint8Array }>): string[] {
  return Array.from(entries, (entry) => Buffer.from(entry.key).toString('latin1'));
}

/** Holds whoever awaits `passed` from hold() until release(). */
class Gate {
  #passed: Promise<void> = Promise.resolve();
  #open: (() => void) | undefined;

  get passed(): Promise<void> {
    return this.#passed;
  }

  hold(): void {
    this.#passed = new Promise((resolve) => (this.#open = resolve));
  }

  release(): void {
    this.#open?.();
    this.#passed = Promise.resolve();
  }
}

/** The log's file seam with its appends and syncs counted, and syncs held while its gate is held. */
class CountingIo implements LogIo {
  syncs = 0;
  appends = 0;
  /** Segments prepared (written as zeros ahead of use). */
  prepared = 0;
  readonly #gate = new Gate();

  hold(): void {
    this.#gate.hold();
  }

  release(): void {
    this.#gate.release();
  }

  /** Turns the event loop until `count` syncs have begun (a bounded count of turns, not a time). */
  async untilSyncs(count: number): Promise<void> {
    for (let turn = 0; turn < 100_000 && this.syncs < count; turn++) await nextTurn();
    assert.equal(this.syncs, count);
  }

  create(path: string, durable: boolean): Promise<LogFile> {
    return NODE_LOG_IO.create(path, durable).then((file) => this.#counted(file, durable));
  }

  prepare(path: string, bytes: number, durable: boolean): Promise<LogFile> {
    this.prepared++;
    return NODE_LOG_IO.prepare(path, bytes, durable).then((file) => this.#counted(file, durable));
  }

  /** A durable file's append is a sync (O_DSYNC): counted as both, and held at the gate. */
  #counted(file: LogFile, durable: boolean): LogFile {
    return {
      preparedBytes: file.preparedBytes,
      write: async (data, position) => {
        this.appends++;
        if (durable) {
          this.syncs++;
          await this.#gate.passed;
        }
        await file.write(data, position);
      },
      close: () => file.close(),
    };
  }
}

async function withLogged(options: Partial<LoggedStorageOptions>, body: (store: LoggedStorage, dir: string) => Promise<void>, dir = scratch.fresh()): Promise<void> {
  const store = await LoggedStorage.open({ path: dir, ...options });
  try {
    await body(store, dir);
  } finally {
    // A failed assertion must not leave a held sync behind for close() to wait on.
    if (options.io instanceof CountingIo) options.io.release();
    await store.close();
  }
}

/** Waits for one turn of the event loop, so a scheduled group goes out. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs the crashing child (support/wal-child.ts) on `dir`; answers the groups it acknowledged. */
function crashAfter(dir: string, groups: readonly (readonly string[])[], checkpointLogBytes?: number): Promise<string[]> {
  const extra = checkpointLogBytes === undefined ? [] : [String(checkpointLogBytes)];
  const child = spawn(process.execPath, [CHILD_PATH, dir, JSON.stringify(groups), ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.once('close', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`the child ended with ${String(code ?? signal)}, not SIGKILL: ${stderr}`));
      else resolve(stdout.split('\n').filter((line) => line !== ''));
    });
  });
}

/** A fresh directory with the log the crashing child left after `groups` (one segment, one frame per group). */
async function crashedLog(groups: readonly (readonly string[])[]): Promise<{ dir: string; segment: string; path: string; data: Buffer; frames: readonly Uint8Array[] }> {
  const dir = scratch.fresh();
  await crashAfter(dir, groups);
  const [segment, ...others] = segmentFiles(dir);
  assert.ok(segment !== undefined && others.length === 0, `one segment, not ${segmentFiles(dir).join(', ')}`);
  const path = `${dir}/${segment}`;
  const data = readFileSync(path);
  const { frames } = scanFrames(data);
  assert.equal(frames.length, groups.length, 'one frame per group');
  return { dir, segment, path, data, frames };
}

function segmentFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => /^wal-\d{12}\.log$/.test(name)).sort();
}

/**
 * Every prepared record in dir speaks the truth (wal.ts PREPARED RECORDS): its segment is there
 * and no shorter than the size recorded. Answers how many records there are.
 */
async function assertRecordsTruthful(dir: string, label: string): Promise<number> {
  const records = readdirSync(dir).filter((name) => /^wal-\d{12}\.prepared$/.test(name));
  for (const name of records) {
    const segment = Number(name.slice(4, 16));
    const bytes = await readPreparedRecord(dir, segment);
    assert.ok(bytes !== undefined, `${label}: ${name} reads whole`);
    assert.ok(existsSync(segmentPath(dir, segment)), `${label}: ${name} without its segment`);
    assert.ok(statSync(segmentPath(dir, segment)).size >= bytes, `${label}: ${name} says ${bytes} bytes, its segment has ${statSync(segmentPath(dir, segment)).size}`);
  }
  return records.length;
}

// ---------------------------------------------------------------------------------------------
// The log format

test('wal: a frame round-trips its puts and removes; a cut or a flipped byte ends the log there', () => {
  const builder = new FrameBuilder();
  builder.put(k('a'), '{"x":"é€😀"}');
  builder.remove(k('b'));
  const mark = builder.mark();
  builder.put(k('dropped'), '{}');
  builder.reset(mark); // a write that threw after this put
  const first = Buffer.from(builder.seal());
  builder.clear();
  builder.put(k('c'), '{"n":1}');
  const second = Buffer.from(builder.seal());
  const log = Buffer.concat([first, second]);

  const whole = scanFrames(log);
  assert.equal(whole.validBytes, log.byteLength);
  assert.deepEqual(
    whole.frames.map((frame) => decodeFrame(frame).map((op) => [Buffer.from(op.key).toString('latin1'), op.json])),
    [
      [
        ['a', '{"x":"é€😀"}'],
        ['b', undefined],
      ],
      [['c', '{"n":1}']],
    ],
  );
  for (let cut = first.byteLength; cut < log.byteLength; cut++) {
    assert.equal(scanFrames(log.subarray(0, cut)).validBytes, first.byteLength, `cut at ${cut}`);
  }
  for (let at = first.byteLength; at < log.byteLength; at++) {
    const flipped = Buffer.from(log);
    flipped[at] = flipped[at]! ^ 0x01;
    assert.equal(scanFrames(flipped).frames.length, 1, `byte ${at} flipped`);
  }
  // Zeroes after the last frame (a preallocated or torn file) end it too.
  assert.equal(scanFrames(Buffer.concat([log, Buffer.alloc(64)])).validBytes, log.byteLength);
});

test('wal: a spliced put refers to an earlier value of its frame and decodes whole; a reference outside the frame is refused', () => {
  const builder = new FrameBuilder();
  const item = '{"x":"é€😀"}';
  const span = builder.put(k('item'), item);
  builder.putSpliced(k('record'), '{"t":"ü","n":', span, ',"u":"😀"}');
  const payload = Buffer.from(builder.seal()).subarray(8);
  const ops = decodeFrame(payload);
  assert.deepEqual(
    ops.map((op) => [Buffer.from(op.key).toString('latin1'), op.json, op.head, op.tail]),
    [
      ['item', item, undefined, undefined],
      ['record', `{"t":"ü","n":${item},"u":"😀"}`, '{"t":"ü","n":', ',"u":"😀"}'],
    ],
  );
  // The record's bytes are the item's, where the item's op put them: logged once.
  assert.deepEqual([ops[1]!.valueOffset, ops[1]!.valueBytes], [ops[0]!.valueOffset, ops[0]!.valueBytes]);
  assert.equal(payload.toString('utf8').split('é€😀').length - 1, 1);
  // A reference past the op itself cannot come from a builder: the frame is refused as corrupt.
  const forward = Buffer.from(payload);
  forward.writeUInt32LE(payload.byteLength - 4, payload.byteLength - 8);
  assert.throws(() => decodeFrame(forward), /corrupt/);
  // Nor may a builder refer to bytes a reset dropped.
  builder.clear();
  const mark = builder.mark();
  const dropped = builder.put(k('dropped'), '{}');
  builder.reset(mark);
  assert.throws(() => builder.putSpliced(k('r'), '[', dropped, ']'), /outside the frame/);
});

test('wal: crc32 is the IEEE CRC-32', () => {
  assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
  assert.equal(crc32(Buffer.alloc(0)), 0);
});

// ---------------------------------------------------------------------------------------------
// Group commit and visibility

test('layers: a layer ordered on demand ranges like an ordered one, before and after its first range', () => {
  const lazy = new Layer('on demand');
  const eager = new Layer();
  const random = seededRandom(21);
  const slot = (n: number): Slot => ({ value: { n }, segment: 0, offset: n, bytes: 1, head: undefined, tail: undefined, source: undefined, sourceOffset: 0 });
  const view = (layer: Layer, options: { start?: Uint8Array; reverse?: boolean } = {}): string[] =>
    Array.from(layer.range(options), (entry) => `${Buffer.from(entry.key).toString('latin1')}=${entry.value === TOMBSTONE ? '-' : (entry.value.value as { n: number }).n}`);
  for (let step = 0; step < 400; step++) {
    const key = k(`key-${Math.floor(random() * 60)}`);
    const roll = random();
    if (roll < 0.6) {
      const value = roll < 0.5 ? slot(step) : TOMBSTONE;
      assert.equal(lazy.set(key, value), eager.set(key, value), 'the slot replaced');
    } else if (roll < 0.7) {
      lazy.delete(key);
      eager.delete(key);
    } else if (roll < 0.75) {
      assert.deepEqual(view(lazy, { start: key, reverse: roll < 0.72 }), view(eager, { start: key, reverse: roll < 0.72 }));
    }
    assert.equal(lazy.size, eager.size);
    assert.equal(lazy.get(key), eager.get(key));
  }
  assert.deepEqual(view(lazy), view(eager));
  assert.deepEqual(new Map(lazy.unordered()), new Map(eager.unordered()));
});

test('logged: every write of one event-loop turn goes out in one append and one sync', async () => {
  const io = new CountingIo();
  await withLogged({ io }, async (store) => {
    const writes = Array.from({ length: 100 }, (_, i) => store.write((txn) => txn.put(k(`key-${i}`), { i })));
    await Promise.all(writes);
    assert.equal(io.syncs, 1);
    assert.equal(io.appends, 1);
    // A second turn's writes: one more of each.
    await Promise.all([store.write((txn) => txn.put(k('x'), {})), store.write((txn) => txn.remove(k('key-1')))]);
    assert.deepEqual([io.appends, io.syncs], [2, 2]);
    // A write that changes nothing is acknowledged in order, without any I/O.
    assert.equal(await store.write(() => 'read only'), 'read only');
    assert.deepEqual([io.appends, io.syncs], [2, 2]);
  });
});

test('logged: two frames go out at once; while both sync, the next group gathers and goes out with one sync', async () => {
  const io = new CountingIo();
  await withLogged({ io }, async (store) => {
    io.hold();
    const first = store.write((txn) => txn.put(k('first'), { n: 1 }));
    await io.untilSyncs(1); // the first group's sync, held
    const second = store.write((txn) => txn.put(k('second'), { n: 2 }));
    await io.untilSyncs(2); // the second goes out beside it, also held
    const later: Promise<unknown>[] = [];
    for (let turn = 0; turn < 5; turn++) {
      later.push(store.write((txn) => txn.put(k(`later-${turn}`), { turn })));
      await nextTurn();
    }
    assert.equal(io.syncs, 2, 'no third frame while two are in flight');
    io.release();
    await Promise.all([first, second, ...later]);
    assert.equal(io.syncs, 3, 'the five later writes went out as one group');
    assert.equal(names(store.range({})).length, 7);
  });
});

/** The log's file seam with every durable write held until the test lets that one through. */
class HeldIo implements LogIo {
  readonly held: { readonly data: Uint8Array; release(): void; fail(error: Error): void }[] = [];

  create(path: string, durable: boolean): Promise<LogFile> {
    return NODE_LOG_IO.create(path, durable).then((file) => this.#held(file));
  }

  prepare(path: string, bytes: number, durable: boolean): Promise<LogFile> {
    return NODE_LOG_IO.prepare(path, bytes, durable).then((file) => this.#held(file));
  }

  async untilHeld(count: number): Promise<void> {
    for (let turn = 0; turn < 100_000 && this.held.length < count; turn++) await nextTurn();
    assert.equal(this.held.length, count);
  }

  releaseAll(): void {
    for (const write of this.held) write.release();
  }

  #held(file: LogFile): LogFile {
    return {
      preparedBytes: file.preparedBytes,
      write: async (data, position) => {
        await new Promise<void>((release, fail) => this.held.push({ data, release, fail }));
        await file.write(data, position);
      },
      close: () => file.close(),
    };
  }
}

test('logged: frames written out of order are acknowledged in order', async () => {
  const io = new HeldIo();
  const dir = scratch.fresh();
  const acknowledged: string[] = [];
  try {
    await withLogged(
      { io },
      async (store) => {
        const first = store.write((txn) => txn.put(k('first'), { n: 1 })).then(() => acknowledged.push('first'));
        await io.untilHeld(1);
        const second = store.write((txn) => txn.put(k('second'), { n: 2 })).then(() => acknowledged.push('second'));
        await io.untilHeld(2);
        // The later frame reaches the file first: its group waits for the earlier one.
        io.held[1]!.release();
        for (let turn = 0; turn < 50; turn++) await nextTurn();
        assert.deepEqual(acknowledged, []);
        assert.equal(store.get(k('second')), undefined, 'outside reads do not see it yet');
        // Write callbacks see it at once; their own group waits behind the two in flight.
        const seen = store.write((txn) => {
          txn.put(k('third'), { n: 3 });
          return txn.get(k('second'));
        });
        io.held[0]!.release();
        await Promise.all([first, second]);
        assert.deepEqual(acknowledged, ['first', 'second']);
        assert.deepEqual(store.get(k('second')), { n: 2 });
        await io.untilHeld(3);
        io.held[2]!.release();
        assert.deepEqual(await seen, { n: 2 });
      },
      dir,
    );
  } finally {
    io.releaseAll();
  }
});

test('logged: a frame that fails to be written fails the groups in flight around it; nothing after is acknowledged; writes resume by themselves', async () => {
  const io = new HeldIo();
  const path = scratch.fresh();
  // Small prepared segments (80 KB, not 40 MB): the repairs prepare two and the test copies them.
  const store = await LoggedStorage.open({ path, io, checkpointLogBytes: 64 * 1024 });
  try {
    const first = store.write((txn) => txn.put(k('first'), { n: 1 }));
    await io.untilHeld(1);
    const second = store.write((txn) => txn.put(k('second'), { n: 2 }));
    await io.untilHeld(2);
    // The later frame reaches the file whole; the earlier one fails: neither is acknowledged.
    io.held[1]!.release();
    io.held[0]!.fail(Object.assign(new Error('the disk said no'), { code: 'EIO' }));
    await assert.rejects(first, /Writes are refused: .*EIO writing the write-ahead log/);
    await assert.rejects(second, /Writes are refused: .*EIO writing the write-ahead log.*resume by themselves/);
    assert.equal(store.get(k('first')), undefined);
    assert.equal(store.get(k('second')), undefined);
    // Refused before the callback runs, so nothing of the caller's state moves.
    let ran = false;
    await assert.rejects(
      store.write(() => {
        ran = true;
      }),
      /Writes are refused/,
    );
    assert.equal(ran, false);
    assert.equal(store.writeRefusal?.code, 'EIO');
    assert.equal(store.writeRefusal?.lostWrites, true);
    // The repair: the log cut back to its last acknowledged frame, a fresh prepared segment.
    await until(() => store.writeRefusal === undefined);
    const later = store.write((txn) => txn.put(k('later'), { n: 3 }));
    await io.untilHeld(3);
    io.releaseAll();
    await later;
    assert.deepEqual(store.get(k('later')), { n: 3 });
    // Again, now in the prepared segment the repair moved to: its cut removes its record first.
    assert.equal(await assertRecordsTruthful(path, 'in the prepared segment'), 1);
    const failed = store.write((txn) => txn.put(k('failed'), { n: 4 }));
    await io.untilHeld(4);
    io.held[3]!.fail(Object.assign(new Error('the disk said no'), { code: 'EIO' }));
    await assert.rejects(failed, /Writes are refused/);
    await until(() => store.writeRefusal === undefined);
    await assertRecordsTruthful(path, 'after the second repair');
    // What a kill -9 now would leave (every acknowledged write is on the disk) starts, not refused as cut short.
    const copy = scratch.fresh();
    cpSync(path, copy, { recursive: true });
    await withLogged(
      {},
      async (reopened) => {
        assert.deepEqual(reopened.get(k('later')), { n: 3 });
        assert.equal(reopened.get(k('failed')), undefined);
      },
      copy,
    );
  } finally {
    io.releaseAll();
    await store.close();
  }
  // Neither failed frame is replayed, nor taken for damage: only the write made after the repair.
  await withLogged(
    {},
    async (reopened) => {
      assert.equal(reopened.get(k('first')), undefined);
      assert.equal(reopened.get(k('second')), undefined);
      assert.deepEqual(reopened.get(k('later')), { n: 3 });
    },
    path,
  );
});

/** Waits (a turn or a timer tick at a time, at most 20 s) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  for (let step = 0; step < 2000 && !condition(); step++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), 'condition never held');
}

/**
 * The log's file seam with each frame held until released, then written synchronously, so the
 * group it carries is acknowledged in the same turn as the release (no I/O time of its own).
 */
class SteppedIo implements LogIo {
  /** Frames sent, and the ops in each (read back from the frame). */
  readonly frames: number[] = [];
  readonly #gate = new Gate();

  hold(): void {
    this.#gate.hold();
  }

  release(): void {
    this.#gate.release();
  }

  create(path: string): Promise<LogFile> {
    return Promise.resolve(this.#file(openSync(path, 'wx'), 0));
  }

  prepare(path: string, bytes: number): Promise<LogFile> {
    const fd = openSync(path, 'w');
    writeSync(fd, Buffer.alloc(bytes), 0, bytes, 0);
    return Promise.resolve(this.#file(fd, bytes));
  }

  #file(fd: number, preparedBytes: number): LogFile {
    return {
      preparedBytes,
      write: async (data, position) => {
        const [frame] = scanFrames(data).frames;
        this.frames.push(decodeFrame(frame!).length);
        await this.#gate.passed;
        writeSync(fd, data, 0, data.byteLength, position);
      },
      close: () => Promise.resolve(closeSync(fd)),
    };
  }
}

test('logged: while every turn brings writes, a group grows to the size of the last one sent for a few turns at most; a quiet turn sends it at any size', async () => {
  const io = new SteppedIo();
  await withLogged({ io }, async (store) => {
    const writes: Promise<unknown>[] = [];
    const put = (name: string): void => void writes.push(store.write((txn) => txn.put(k(name), { name })));
    io.hold();
    for (let i = 0; i < 6; i++) put(`first-${i}`);
    for (let turn = 0; turn < 20 && io.frames.length === 0; turn++) await nextTurn();
    assert.deepEqual(io.frames, [6], 'one turn, one frame');
    // One write a turn: behind the frame in flight, and after it is written (its group is then
    // acknowledged at once), the group gathers until it has as many writes as the first.
    put('second-0');
    await nextTurn();
    put('second-1');
    await nextTurn();
    io.release();
    await Promise.all(writes.slice(0, 6));
    for (let i = 2; i < 6; i++) {
      assert.deepEqual(io.frames, [6], `no second frame at ${i} writes, though none is in flight`);
      put(`second-${i}`);
      await nextTurn();
    }
    for (let turn = 0; turn < 20 && io.frames.length === 1; turn++) await nextTurn();
    assert.deepEqual(io.frames, [6, 6]);
    // Fewer writes: a turn that brings none sends them, and the next group may be that small.
    put('third-0');
    put('third-1');
    await Promise.all(writes);
    put('fourth-0');
    await Promise.all(writes);
    assert.deepEqual(io.frames, [6, 6, 2, 1]);
    // A trickle of one write a turn on a loop kept busy: a group is held a few turns, not until
    // it has as many writes as a burst before it.
    for (let i = 0; i < 40; i++) put(`burst-${i}`);
    await Promise.all(writes);
    assert.deepEqual(io.frames.slice(4), [40]);
    for (let turn = 0; turn < 30 && io.frames.length === 5; turn++) {
      put(`trickle-${turn}`);
      await nextTurn();
    }
    const trickled = io.frames[5];
    assert.ok(trickled !== undefined && trickled < 10, `a trickle's group goes out within a few turns, not at 40 writes (${trickled})`);
    await Promise.all(writes);
    assert.equal(names(store.range({})).length, writes.length);
  });
});

test('logged: durability commit acknowledges without syncing each group', async () => {
  const io = new CountingIo();
  await withLogged({ io, durability: 'commit' }, async (store) => {
    for (let i = 0; i < 5; i++) await store.write((txn) => txn.put(k(`k${i}`), { i }));
    assert.equal(io.appends, 5);
    assert.equal(io.syncs, 0);
    assert.deepEqual(store.get(k('k4')), { i: 4 });
  });
});

test('logged: outside reads never see a write before it is durable; write callbacks see it at once', async () => {
  const io = new CountingIo();
  await withLogged({ io }, async (store) => {
    await store.write((txn) => {
      txn.put(k('a'), { v: 'old' });
      txn.put(k('gone'), { v: 'here' });
    });
    io.hold();
    const pending = store.write((txn) => {
      txn.put(k('a'), { v: 'new' });
      txn.put(k('b'), { v: 'new' });
      txn.remove(k('gone'));
    });
    await io.untilSyncs(2); // the group is now syncing (held)
    const next = store.write((txn) => ({ a: txn.get(k('a')), b: txn.get(k('b')), gone: txn.get(k('gone')), keys: names(txn.range({})) }));
    // Outside: the durable state only, by get, getWithJson and range alike.
    assert.deepEqual(store.get(k('a')), { v: 'old' });
    assert.equal(store.get(k('b')), undefined);
    assert.deepEqual(store.getWithJson(k('gone'))?.json, '{"v":"here"}');
    assert.deepEqual(names(store.range({})), ['a', 'gone']);
    io.release();
    await pending;
    assert.deepEqual(await next, { a: { v: 'new' }, b: { v: 'new' }, gone: undefined, keys: ['a', 'b'] });
    assert.deepEqual(store.get(k('a')), { v: 'new' });
    assert.deepEqual(names(store.range({})), ['a', 'b']);
  });
});

test('logged: a write that throws leaves nothing in the log either', async () => {
  const dir = scratch.fresh();
  await withLogged(
    {},
    async (store) => {
      const ok = store.write((txn) => txn.put(k('kept'), { n: 1 }));
      const failed = store.write((txn) => {
        txn.put(k('thrown'), { n: 2 });
        txn.remove(k('kept'));
        throw new Error('boom');
      });
      await assert.rejects(failed, /boom/);
      await ok;
      const frames = segmentFiles(dir).flatMap((name) => scanFrames(readFileSync(`${dir}/${name}`)).frames);
      const logged = frames.flatMap((frame) => decodeFrame(frame).map((op) => Buffer.from(op.key).toString('latin1')));
      assert.deepEqual(logged, ['kept']);
    },
    dir,
  );
});

// ---------------------------------------------------------------------------------------------
// Checkpoints

test('logged: a checkpoint moves the memtable into LMDB, removes the covered log, and survives reopen', async () => {
  const dir = scratch.fresh();
  await withLogged(
    {},
    async (store) => {
      await Promise.all(Array.from({ length: 50 }, (_, i) => store.write((txn) => txn.put(k(`item-${String(i).padStart(3, '0')}`), { i }))));
      // Multi-byte UTF-8 and an own "__proto__": the checkpoint copies the logged bytes as they are.
      await store.write((txn) => txn.put(k('z-unicode'), JSON.parse('{"__proto__":{"S":"é€😀"},"list":[1,"ü"]}') as StoredValue));
      await store.write((txn) => txn.remove(k('item-007')));
      const before = segmentFiles(dir);
      assert.equal(before.length, 1);
      await store.checkpoint();
      const after = segmentFiles(dir);
      assert.equal(after.length, 1);
      assert.notEqual(after[0], before[0], 'the log moved to a new segment and the old one is gone');
      assert.equal((JSON.parse(readFileSync(`${dir}/wal-checkpoint`, 'utf8')) as { segment: number }).segment, Number(before[0]!.slice(4, 16)));
      assert.equal(store.get(k('item-007')), undefined);
      assert.deepEqual(store.get(k('item-049')), { i: 49 });
      assert.equal(names(store.range({})).length, 50);
      assert.equal(JSON.stringify(store.get(k('z-unicode'))), '{"__proto__":{"S":"é€😀"},"list":[1,"ü"]}');
      // Writes after the checkpoint layer over LMDB: an update and a remove of checkpointed keys.
      await store.write((txn) => {
        txn.put(k('item-001'), { i: 'updated' });
        txn.remove(k('item-002'));
      });
      assert.deepEqual(names(store.range({ limit: 3 })), ['item-000', 'item-001', 'item-003']);
      assert.deepEqual(names(store.range({ reverse: true, limit: 2 })), ['z-unicode', 'item-049']);
    },
    dir,
  );
  await withLogged(
    {},
    async (store) => {
      assert.equal(names(store.range({})).length, 49);
      assert.equal(store.getWithJson(k('z-unicode'))?.json, '{"__proto__":{"S":"é€😀"},"list":[1,"ü"]}');
      assert.deepEqual(store.get(k('item-001')), { i: 'updated' });
      assert.equal(store.get(k('item-002')), undefined);
    },
    dir,
  );
});

test('logged: a checkpoint queues its chunks without waiting for each commit: at most one LMDB commit per chunk, and LMDB holds every value', async () => {
  const dir = scratch.fresh();
  const chunks = 6;
  const count = chunks * CHECKPOINT_CHUNK_ENTRIES - 7;
  const key = (i: number): Uint8Array => k(`item-${String((i * 7919) % count).padStart(6, '0')}`);
  await withLogged(
    {},
    async (store) => {
      for (let start = 0; start < count; start += 500) {
        await store.write((txn) => {
          for (let i = start; i < Math.min(count, start + 500); i++) txn.put(key(i), { i, pad: 'é'.repeat(i % 50) });
        });
      }
      const before = store.lmdbCommits;
      await store.checkpoint();
      const commits = store.lmdbCommits - before;
      // Each chunk waiting for the previous one's commit made exactly one commit per chunk; a
      // chunk per turn, queued without waiting, is at most one (lmdb commits a turn's writes once).
      assert.ok(commits >= 1 && commits <= chunks, `${commits} LMDB commits for ${chunks} chunks`);
      assert.equal(store.checkpointing, false);
    },
    dir,
  );
  // Only LMDB now: the log was cut at the checkpoint and close() checkpointed nothing more.
  await withLogged(
    {},
    async (store) => {
      for (let i = 0; i < count; i++) assert.deepEqual(store.get(key(i)), { i, pad: 'é'.repeat(i % 50) }, `get ${i}`);
      assert.equal(names(store.range({})).length, count);
    },
    dir,
  );
});

test('logged: a checkpoint of large items (plain and spliced) ends its chunks at a megabyte of values: still at most one LMDB commit per chunk', async () => {
  const dir = scratch.fresh();
  const items = 12;
  const item = (i: number): StoredValue => ({ id: { S: `item-${i}` }, pad: { S: String(i % 10).repeat(300_000) } });
  const record = (i: number): StoredValue => ({ e: i, n: item(i) });
  await withLogged(
    {},
    async (store) => {
      for (let i = 0; i < items; i++) {
        await store.write((txn) => {
          const value = item(i);
          txn.put(k(`item-${String(i).padStart(2, '0')}`), value);
          // Its frame refers to the item's bytes; the checkpoint assembles the record's JSON (a copy).
          txn.putSpliced!(k(`record-${String(i).padStart(2, '0')}`), { e: i, n: value }, `{"e":${i},"n":`, value, '}');
        });
      }
      const totalBytes = 2 * items * JSON.stringify(item(0)).length;
      const before = store.lmdbCommits;
      await store.checkpoint();
      const commits = store.lmdbCommits - before;
      // Every chunk but the last holds at least CHECKPOINT_CHUNK_BYTES_MAX of values.
      const chunksMax = Math.floor(totalBytes / CHECKPOINT_CHUNK_BYTES_MAX) + 1;
      assert.ok(commits >= 1 && commits <= chunksMax, `${commits} LMDB commits for at most ${chunksMax} chunks`);
    },
    dir,
  );
  await withLogged(
    {},
    async (store) => {
      for (let i = 0; i < items; i++) {
        assert.deepEqual(store.get(k(`item-${String(i).padStart(2, '0')}`)), item(i), `item ${i}`);
        assert.equal(store.getWithJson(k(`record-${String(i).padStart(2, '0')}`))?.json, JSON.stringify(record(i)), `record ${i}`);
      }
    },
    dir,
  );
});

test('logged: a checkpoint copies the bytes the memtable kept, not the log files, while writes go on; values equal after it and after reopen', async () => {
  const dir = scratch.fresh();
  // The log's files get every "x" turned into "y": a checkpoint that read them back would copy "y"s.
  const scrambled = (data: Uint8Array): Uint8Array => Buffer.from(Buffer.from(data).toString('latin1').replaceAll('x', 'y'), 'latin1');
  const io: LogIo = {
    async create(path, durable) {
      const file = await NODE_LOG_IO.create(path, durable);
      return { preparedBytes: 0, write: (data, position) => file.write(scrambled(data), position), close: () => file.close() };
    },
    prepare: (path, bytes, durable) => NODE_LOG_IO.prepare(path, bytes, durable),
  };
  const random = seededRandom(2121);
  const model = new Map<string, StoredValue>();
  const name = (): string => `key-${Math.floor(random() * 3000)}`;
  const writeSome = (round: number): Promise<unknown> =>
    store_.write((txn) => {
      for (let c = 0; c < 20; c++) {
        const key = name();
        if (random() < 0.2) {
          txn.remove(k(key));
          model.delete(key);
        } else {
          const value = { round, pad: 'x'.repeat(Math.floor(random() * 200)) };
          txn.put(k(key), value);
          model.set(key, value);
        }
      }
    });
  let store_!: LoggedStorage;
  await withLogged(
    { io },
    async (store) => {
      store_ = store;
      for (let round = 0; round < 200; round++) await writeSome(round);
      const checkpoint = store.checkpoint();
      let roundsDuring = 0;
      for (let round = 200; store.checkpointing || roundsDuring === 0; round++) {
        await writeSome(round);
        if (store.checkpointing) roundsDuring++;
        const probe = name();
        assert.deepEqual(store.get(k(probe)), model.get(probe), `get ${probe} in round ${round}`);
      }
      await checkpoint;
      assert.ok(roundsDuring > 0, 'writes went on while the checkpoint ran');
      // What the checkpoint covered now comes from LMDB; the rest from the memtable.
      assert.deepEqual(names(store.range({})), [...model.keys()].sort());
      for (const [key, value] of model) assert.deepEqual(store.get(k(key)), value, `get ${key} after the checkpoint`);
      // Nothing more in the log: reopening reads LMDB alone, never the scrambled log.
      await store.checkpoint();
    },
    dir,
  );
  await withLogged(
    {},
    async (store) => {
      assert.deepEqual(names(store.range({})), [...model.keys()].sort());
      for (const [key, value] of model) assert.deepEqual(store.get(k(key)), value, `get ${key} after reopen`);
    },
    dir,
  );
});

test('logged: a spliced put logs its embedded value once and reads back whole from the log, from LMDB after a checkpoint, and after reopen', async () => {
  const dir = scratch.fresh();
  const item = JSON.parse('{"id":{"S":"é€😀"},"__proto__":{"N":"1"}}') as StoredValue;
  const record = { e: 0, t: 1.5, n: item };
  const recordJson = JSON.stringify(record);
  await withLogged(
    {},
    async (store) => {
      await store.write((txn) => {
        txn.put(k('item'), item);
        txn.put(k('between'), { other: true });
        txn.putSpliced!(k('record'), record, '{"e":0,"t":1.5,"n":', item, '}');
        assert.deepEqual(txn.get(k('record')), record);
      });
      // A value this write did not put is simply encoded: the frame never refers to another write's.
      await store.write((txn) => txn.putSpliced!(k('record-2'), { n: item }, '{"n":', item, '}'));
      // A write that throws after a spliced put leaves nothing of it.
      await assert.rejects(
        store.write((txn) => {
          const other = { id: { S: 'thrown' } };
          txn.put(k('thrown'), other);
          txn.putSpliced!(k('record-thrown'), { n: other }, '{"n":', other, '}');
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal(store.get(k('record-thrown')), undefined);
      const log = readFileSync(`${dir}/${segmentFiles(dir)[0]!}`);
      const ops = scanFrames(log).frames.flatMap((frame) => decodeFrame(frame));
      assert.deepEqual(
        ops.map((op) => [Buffer.from(op.key).toString('latin1'), op.json, op.head !== undefined]),
        [
          ['item', JSON.stringify(item), false],
          ['between', '{"other":true}', false],
          ['record', recordJson, true],
          ['record-2', JSON.stringify({ n: item }), false],
        ],
      );
      assert.equal(log.toString('utf8').split('é€😀').length - 1, 2, 'the item once for "record", once more for "record-2"');
      assert.equal(store.getWithJson(k('record'))?.json, recordJson);
      await store.checkpoint();
      // LMDB now holds the assembled bytes: the very JSON of the value.
      assert.equal(store.getWithJson(k('record'))?.json, recordJson);
      assert.deepEqual(store.get(k('record-2')), { n: item });
    },
    dir,
  );
  await withLogged({}, async (store) => assert.equal(store.getWithJson(k('record'))?.json, recordJson), dir);
});

test('logged: the memtable keeps a put\'s logged bytes, not its value: read back equal (plain, spliced, non-ASCII), parsed once per value (replayed ones: the crash tests below)', async () => {
  const gc = forcedGc();
  const dir = scratch.fresh();
  const item = JSON.parse('{"id":{"S":"é€😀"},"n":{"N":"12.5"},"__proto__":{"S":"kept as data"}}') as StoredValue;
  const itemJson = JSON.stringify(item);
  const record = { e: 0, n: item };
  await withLogged(
    {},
    async (store) => {
      let dropped: WeakRef<object> | undefined;
      await store.write((txn) => {
        const big = { pad: 'x'.repeat(4096) };
        dropped = new WeakRef(big);
        txn.put(k('big'), big);
        txn.put(k('item'), item);
        txn.putSpliced!(k('record'), record, '{"e":0,"n":', item, '}');
        // Inside the write, its own values are read as they were put.
        assert.equal(txn.get(k('big')), big);
      });
      // Acknowledged: nothing keeps the put's object any more (the memtable holds its bytes).
      await collect(gc);
      assert.equal(dropped!.deref(), undefined, 'the memtable let the value go');
      const big = store.get(k('big'));
      assert.deepEqual(big, { pad: 'x'.repeat(4096) });
      assert.equal(store.get(k('big')), big, 'parsed once: a second read answers the same object');
      const itemRead = store.get(k('item'));
      assert.deepEqual(itemRead, item);
      assert.equal(Object.getPrototypeOf(itemRead), Object.prototype, '"__proto__" stays a key');
      assert.deepEqual(store.get(k('record')), record);
      assert.equal(store.getWithJson(k('item'))?.json, itemJson);
      // Through a write and through a range too.
      await store.write((txn) => assert.deepEqual(txn.get(k('record')), record));
      assert.deepEqual(
        Array.from(store.range({}), (entry) => [Buffer.from(entry.key).toString('latin1'), entry.value]),
        [
          ['big', big],
          ['item', itemRead],
          ['record', record],
        ],
      );
    },
    dir,
  );
});

/** The GC, for tests that prove a value is no longer held (node --expose-gc, set from here). */
function forcedGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** A full GC, then a turn, so WeakRefs to what it freed read undefined. */
async function collect(gc: () => void): Promise<void> {
  for (let round = 0; round < 3; round++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('logged: a spliced put refers to a value put among the write\'s last 64 puts; one put earlier is logged whole', async () => {
  const dir = scratch.fresh();
  await withLogged(
    {},
    async (store) => {
      const near = { id: { S: 'near' } };
      const far = { id: { S: 'far' } };
      await store.write((txn) => {
        txn.put(k('far'), far);
        for (let i = 0; i < 64; i++) txn.put(k(`filler-${i}`), { i });
        txn.put(k('near'), near);
        for (let i = 64; i < 126; i++) txn.put(k(`filler-${i}`), { i });
        txn.putSpliced!(k('record-near'), { n: near }, '{"n":', near, '}');
        txn.putSpliced!(k('record-far'), { n: far }, '{"n":', far, '}');
      });
      const ops = segmentFiles(dir).flatMap((name) => scanFrames(readFileSync(`${dir}/${name}`)).frames.flatMap((frame) => decodeFrame(frame)));
      const records = ops.filter((op) => Buffer.from(op.key).toString('latin1').startsWith('record-'));
      assert.deepEqual(
        records.map((op) => [Buffer.from(op.key).toString('latin1'), op.json, op.head !== undefined]),
        [
          ['record-near', '{"n":{"id":{"S":"near"}}}', true],
          ['record-far', '{"n":{"id":{"S":"far"}}}', false],
        ],
      );
      await store.checkpoint();
      assert.deepEqual(store.get(k('record-far')), { n: far });
      assert.equal(store.getWithJson(k('record-near'))?.json, '{"n":{"id":{"S":"near"}}}');
    },
    dir,
  );
});

test('logged: reads and writes stay right while checkpoints run under them (random operations against a model)', async () => {
  const random = seededRandom(21);
  const model = new Map<string, StoredValue>();
  const key = (): string => `k${Math.floor(random() * 400)}`;
  let probesDuringCheckpoints = 0;
  const modelRange = (start: string, end: string, reverse: boolean, limit: number): string[] => {
    const keys = [...model.keys()].filter((name) => name >= start && name < end).sort();
    return (reverse ? keys.reverse() : keys).slice(0, limit);
  };
  // A checkpoint after every ~2 KB of log: layers come and go all the time.
  await withLogged({ checkpointLogBytes: 2048 }, async (store) => {
    for (let round = 0; round < 300; round++) {
      const turn: Promise<unknown>[] = [];
      for (let w = Math.floor(random() * 4); w >= 0; w--) {
        const changes: [string, StoredValue | undefined][] = [];
        for (let c = 1 + Math.floor(random() * 3); c > 0; c--) changes.push([key(), random() < 0.3 ? undefined : { round, pad: 'x'.repeat(Math.floor(random() * 100)) }]);
        const rangeProbe = [key(), key()].sort() as [string, string];
        turn.push(
          store.write((txn) => {
            // Inside a write: every earlier write, durable or not, layered over whatever is checkpointed.
            assert.deepEqual(names(txn.range({ start: k(rangeProbe[0]), end: k(rangeProbe[1]) })), modelRange(rangeProbe[0], rangeProbe[1], false, Infinity));
            for (const [name, value] of changes) {
              assert.deepEqual(txn.get(k(name)), model.get(name), `txn.get ${name} in round ${round}`);
              if (value === undefined) {
                txn.remove(k(name));
                model.delete(name);
              } else {
                txn.put(k(name), value);
                model.set(name, value);
              }
            }
          }),
        );
      }
      if (random() < 0.05) turn.push(store.checkpoint());
      await Promise.all(turn);
      if (store.checkpointing) probesDuringCheckpoints++;
      for (let probe = 0; probe < 3; probe++) {
        const name = key();
        assert.deepEqual(store.get(k(name)), model.get(name), `get ${name} in round ${round}`);
        const [a, b] = [key(), key()].sort() as [string, string];
        const reverse = random() < 0.5;
        const limit = 1 + Math.floor(random() * 20);
        assert.deepEqual(names(store.range({ start: k(a), end: k(b), reverse, limit })), modelRange(a, b, reverse, limit), `range ${a}..${b} in round ${round}`);
      }
    }
    assert.deepEqual(names(store.range({})), [...model.keys()].sort());
  });
  assert.ok(probesDuringCheckpoints > 10, `only ${probesDuringCheckpoints} rounds read while a checkpoint ran`);
});

// ---------------------------------------------------------------------------------------------
// Recovery

test('logged: after a crash (SIGKILL, no close) reopening replays every acknowledged group', async () => {
  const dir = scratch.fresh();
  const groups = [['a1', 'a2', 'a3'], ['b1', '-a2'], ['c1', 'c2']];
  const acknowledged = await crashAfter(dir, groups);
  assert.equal(acknowledged.length, groups.length);
  assert.ok(!existsSync(`${dir}/wal-checkpoint`), 'nothing was checkpointed: this is replay alone');
  await withLogged(
    {},
    async (store) => {
      assert.deepEqual(names(store.range({})), ['a1', 'a3', 'b1', 'c1', 'c2']);
      assert.deepEqual(store.get(k('c2')), { name: 'c2' });
      await store.checkpoint();
    },
    dir,
  );
  // Replayed, checkpointed, closed: a second crash on top keeps everything.
  await crashAfter(dir, [['d1']]);
  await withLogged({}, async (store) => assert.deepEqual(names(store.range({})), ['a1', 'a3', 'b1', 'c1', 'c2', 'd1']), dir);
});

test('logged: after a crash, spliced puts replay whole and a checkpoint copies them into LMDB', async () => {
  const dir = scratch.fresh();
  const acknowledged = await crashAfter(dir, [['+a1', 'b1'], ['+c1', '+c2', '-b1']]);
  assert.equal(acknowledged.length, 2);
  const expected = ['a1', 'a1~r', 'c1', 'c1~r', 'c2', 'c2~r'];
  await withLogged(
    {},
    async (store) => {
      assert.deepEqual(names(store.range({})), expected);
      assert.deepEqual(store.get(k('c2~r')), { n: { name: 'c2' } });
      await store.checkpoint();
      assert.equal(store.getWithJson(k('a1~r'))?.json, '{"n":{"name":"a1"}}');
    },
    dir,
  );
  await withLogged({}, async (store) => assert.deepEqual(store.get(k('c1~r')), { n: { name: 'c1' } }), dir);
});

test('logged: a torn log tail (cut mid-frame, or a bad checksum) recovers to the last whole group', async () => {
  for (const damage of ['cut', 'flip'] as const) {
    const { dir, segment, path, data, frames } = await crashedLog([['a1', 'a2'], ['b1', 'b2', '-a1']]);
    // The first segment after open is a plain one (no prepared record): a crash can leave it ending mid-frame.
    assert.equal(await readPreparedRecord(dir, Number(segment.slice(4, 16))), undefined);
    const firstFrameBytes = data.byteLength - (frames[1]!.byteLength + 8);
    if (damage === 'cut') {
      truncateSync(path, data.byteLength - 3);
    } else {
      const flipped = Buffer.from(data);
      flipped[data.byteLength - 2] = flipped[data.byteLength - 2]! ^ 0xff;
      writeFileSync(path, flipped);
    }
    await withLogged(
      {},
      async (store) => {
        // The second group is gone whole (b1, b2 and the remove of a1); the first is whole.
        assert.deepEqual(names(store.range({})), ['a1', 'a2'], damage);
        // The file was cut back to its whole frames (or, once the start-up checkpoint is done, removed).
        assert.ok(!existsSync(path) || readFileSync(path).byteLength === firstFrameBytes, damage);
        await store.write((txn) => txn.put(k('after'), {}));
      },
      dir,
    );
    await withLogged({}, async (store) => assert.deepEqual(names(store.range({})), ['a1', 'a2', 'after'], damage), dir);
  }
});

test('logged: a hole (a frame never written, or half written) before one whole frame is a torn tail: cut there, later segments of zeros too, and logged', async () => {
  for (const hole of ['zeros', 'half'] as const) {
    for (const prepared of [false, true]) {
      const label = `${hole}${prepared ? ', prepared segment' : ''}`;
      const { dir, segment, path, data, frames } = await crashedLog([['a1'], ['b1', '-a1'], ['c1']]);
      const starts = frames.map((frame) => frame.byteOffset - data.byteOffset - 8);
      // The second frame did not reach the disk (two frames were in flight); the third did.
      const damaged = Buffer.from(data);
      damaged.fill(0, hole === 'zeros' ? starts[1] : starts[1]! + 8 + Math.floor(frames[1]!.byteLength / 2), starts[2]);
      const written = prepared ? Buffer.concat([damaged, Buffer.alloc(64 * 1024)]) : damaged;
      writeFileSync(path, written);
      // A later segment holding only zeros (prepared, never used) goes with the tail.
      const later = segmentPath(dir, Number(segment.slice(4, 16)) + 1);
      writeFileSync(later, Buffer.alloc(4096));
      const logged: string[] = [];
      await withLogged(
        { log: (line) => logged.push(line) },
        async (store) => {
          assert.deepEqual(names(store.range({})), ['a1'], label);
          assert.ok(!existsSync(later), label);
          assert.ok(!existsSync(path) || readFileSync(path).byteLength === starts[1], label);
          await store.write((txn) => txn.put(k('after'), {}));
        },
        dir,
      );
      assert.equal(logged.length, 1, label);
      assert.match(logged[0]!, new RegExp(`torn tail .*cut ${path} at byte ${starts[1]}, dropping ${written.byteLength - starts[1]!} bytes, 1 whole frame after a hole.*removed 1 later segment`), label);
      await withLogged({}, async (store) => assert.deepEqual(names(store.range({})), ['a1', 'after'], label), dir);
    }
  }
});

/** Every file of dir (name → bytes and mtime), to show start-up changed nothing. */
function snapshot(dir: string): Map<string, { bytes: Buffer; mtimeMs: number }> {
  return new Map(readdirSync(dir).map((name) => [name, { bytes: readFileSync(`${dir}/${name}`), mtimeMs: statSync(`${dir}/${name}`).mtimeMs }]));
}

test('logged: a bad frame followed by more whole frames than can be in flight, or by a later segment with a frame, is damage: open refuses, naming file, offset and counts, and changes nothing', async () => {
  // Two whole frames after a hole: more than the one in flight beside it.
  const many = await crashedLog([['a1'], ['b1'], ['c1'], ['d1']]);
  const manyStarts = many.frames.map((frame) => frame.byteOffset - many.data.byteOffset - 8);
  const flipped = Buffer.from(many.data);
  flipped[manyStarts[1]! + 10] = flipped[manyStarts[1]! + 10]! ^ 0x04;
  writeFileSync(many.path, flipped);
  // One whole frame after a hole, but another in a later segment: the log had moved on past it.
  const moved = await crashedLog([['a1'], ['b1'], ['c1']]);
  const movedStarts = moved.frames.map((frame) => frame.byteOffset - moved.data.byteOffset - 8);
  writeFileSync(moved.path, Buffer.from(moved.data).fill(0, movedStarts[1], movedStarts[2]));
  writeFileSync(segmentPath(moved.dir, Number(moved.segment.slice(4, 16)) + 1), Buffer.concat([moved.data.subarray(movedStarts[2]), Buffer.alloc(1000)]));
  // A hole before one whole frame, but a later segment holds bytes (no frame): nothing a crash writes.
  const dirty = await crashedLog([['a1'], ['b1'], ['c1']]);
  const dirtyStarts = dirty.frames.map((frame) => frame.byteOffset - dirty.data.byteOffset - 8);
  writeFileSync(dirty.path, Buffer.from(dirty.data).fill(0, dirtyStarts[1], dirtyStarts[2]));
  writeFileSync(segmentPath(dirty.dir, Number(dirty.segment.slice(4, 16)) + 1), Buffer.concat([Buffer.alloc(100), Buffer.from('not a frame'), Buffer.alloc(100)]));
  const cases = [
    { label: 'flipped bit', dir: many.dir, path: many.path, offset: manyStarts[1], counts: '2 intact frames \\(\\d+ bytes: 2 in that file, none in later segments\\)' },
    { label: 'later segment', dir: moved.dir, path: moved.path, offset: movedStarts[1], counts: '2 intact frames \\(\\d+ bytes: 1 in that file, 1 in 1 later segment\\)' },
    { label: 'later bytes', dir: dirty.dir, path: dirty.path, offset: dirtyStarts[1], counts: '1 intact frame \\(\\d+ bytes: 1 in that file, none in later segments\\), and 1 later segment holds bytes other than zeros but no frame' },
  ];
  for (const { label, dir, path, offset, counts } of cases) {
    const before = snapshot(dir);
    await assert.rejects(
      LoggedStorage.open({ path: dir }),
      (error: Error) => {
        assert.match(error.message, new RegExp(`^the write-ahead log is damaged: ${path} has a bad frame at byte ${offset}, followed by ${counts}.*nothing on the disk was changed$`), label);
        return true;
      },
      label,
    );
    assert.deepEqual(snapshot(dir), before, label);
  }
});

/**
 * A crash (the child, checkpoints every 1,024 bytes: the log moves through prepared segments)
 * whose last segment holding frames is a prepared one with two frames or more. Whether the log
 * had moved into a prepared spare or a plain segment when the child died depends on timing, so
 * a few crashes are tried.
 */
async function crashedWithPreparedTail(groups: readonly (readonly string[])[], label: string): Promise<{ dir: string; name: string }> {
  const ATTEMPTS = 8;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const dir = scratch.fresh();
    assert.equal((await crashAfter(dir, groups, 1024)).length, groups.length);
    await assertRecordsTruthful(dir, label);
    const mark = await readCheckpointMark(dir);
    const frameCount = (name: string): number => scanFrames(readFileSync(`${dir}/${name}`)).frames.length;
    const name = segmentFiles(dir)
      .filter((name) => Number(name.slice(4, 16)) > mark && frameCount(name) > 0)
      .at(-1);
    // Its size the prepared size: no frame went past it (a cut inside its frames is then below it).
    const prepared = name === undefined ? undefined : await readPreparedRecord(dir, Number(name.slice(4, 16)));
    if (name !== undefined && prepared === statSync(`${dir}/${name}`).size && frameCount(name) >= 2) return { dir, name };
  }
  assert.fail(`${label}: in ${ATTEMPTS} crashes the last segment with frames was never a prepared one with two`);
}

test('logged: a prepared segment cut short (mid-frame, or at a frame\'s end) is damage: open refuses naming the file, its size and its prepared size, changes nothing; recover keeps the prefix', async () => {
  const groupName = (g: number): string => `g${String(g).padStart(2, '0')}`;
  const groups = Array.from({ length: 60 }, (_, g) => [`${groupName(g)}-a`, `${groupName(g)}-b`, ...(g > 0 ? [`-${groupName(g - 1)}-b`] : [])]);
  /** What the store holds after groups 0..last: every -a, and the last group's -b. */
  const stateAfter = (last: number): string[] => [...Array.from({ length: last + 1 }, (_, g) => `${groupName(g)}-a`), `${groupName(last)}-b`].sort();
  for (const cut of ['mid-frame', 'frame end'] as const) {
    const { dir, name } = await crashedWithPreparedTail(groups, cut);
    const segment = Number(name.slice(4, 16));
    const path = `${dir}/${name}`;
    const data = readFileSync(path);
    const prepared = (await readPreparedRecord(dir, segment))!;
    assert.equal(data.byteLength, prepared);
    const { frames } = scanFrames(data);
    const last = frames[frames.length - 1]!;
    const lastStart = last.byteOffset - data.byteOffset - 8;
    // Cut inside the last frame, or exactly where it begins (the frame before it whole: no torn frame to see).
    const size = cut === 'mid-frame' ? lastStart + 8 + Math.floor(last.byteLength / 2) : lastStart;
    truncateSync(path, size);
    const before = snapshot(dir);
    await assert.rejects(
      LoggedStorage.open({ path: dir }),
      (error: Error) => {
        assert.match(error.message, new RegExp(`^the write-ahead log is damaged: ${path} is ${size} bytes, cut short of the ${prepared} bytes it was prepared to .*its whole frames end at byte ${lastStart}.*nothing on the disk was changed$`), cut);
        assert.ok(!error.message.includes('\n'), cut);
        return true;
      },
      cut,
    );
    assert.deepEqual(snapshot(dir), before, `${cut}: nothing changed`);
    // The groups kept: up to the last one whose frame is before the cut.
    const keptLast = Math.max(
      ...frames.slice(0, -1).flatMap((frame) => decodeFrame(frame).map((op) => Number(/^g(\d\d)-a$/.exec(Buffer.from(op.key).toString('latin1'))?.[1] ?? -1))),
    );
    assert.ok(keptLast >= 0 && keptLast < groups.length - 1, `${cut}: kept up to group ${keptLast}`);
    // Without its record (a directory from before records), or with one that does not read whole,
    // the same file is judged as a plain one: it starts, as today (the cut's loss unseen).
    for (const record of [undefined, '{"segment":']) {
      const copy = scratch.fresh();
      cpSync(dir, copy, { recursive: true });
      if (record === undefined) rmSync(preparedRecordPath(copy, segment));
      else writeFileSync(preparedRecordPath(copy, segment), record);
      await withLogged({}, async (store) => assert.deepEqual(names(store.range({})), stateAfter(keptLast), `${cut}, record ${record ?? 'absent'}`), copy);
    }

    // recover: the live log keeps the frames before the cut, the rest goes aside with its record
    // (through the command once, with its report; through the library once).
    const survey = await surveyLog(dir);
    assert.equal(logState(survey, 2).kind, 'damaged', cut);
    const record = `wal-${name.slice(4, 16)}.prepared`;
    if (cut === 'frame end') {
      const refused = await runCli(['--port', '0', '--data-dir', dir]);
      assert.equal(refused.status, 1, refused.stdout + refused.stderr);
      assert.match(refused.stderr.trim(), new RegExp(`^dynatwin: the write-ahead log is damaged: ${path} is ${size} bytes, cut short of the ${prepared} bytes it was prepared to [^\n]*dynatwin recover --data-dir ${dir}\` moves the damaged log aside[^\n]*$`));
      assert.deepEqual(snapshot(dir), before, `${cut}: the command changed nothing`);
      const recovered = await runCli(['recover', '--data-dir', dir]);
      assert.equal(recovered.status, 0, recovered.stderr);
      assert.match(recovered.stdout, new RegExp(`is damaged: ${path} is cut short: ${size} bytes of the ${prepared} it was prepared to \\(the rest was lost before recover ran\\); its whole frames end at byte ${lastStart}\n`));
      assert.match(recovered.stdout, new RegExp(`moved aside, kept: .*${record} \\(a copy, as found\\)`));
    } else {
      const aside = await moveDamagedLogAside(dir, survey.break!, new Date());
      assert.ok(aside.copied.includes(record), `${cut}: the record copied aside`);
    }
    assert.equal(existsSync(preparedRecordPath(dir, segment)), false, `${cut}: the live record went with the cut`);
    await assertRecordsTruthful(dir, `${cut} after recover`);
    await withLogged({}, async (store) => assert.deepEqual(names(store.range({})), stateAfter(keptLast), cut), dir);
  }
});

test('logged: a damaged checkpoint mark is refused naming its file, never read as no checkpoint; nothing changes', async () => {
  const { dir } = await crashedLog([['a1'], ['b1']]);
  // The last two: a number whose crc32 is another's (a flipped digit), and a flipped key.
  for (const text of ['garbage\n', '{"segment":-1}\n', '{"seg', '', '{"segment":3,"crc32":0}\n', '{"segment":2,"crc32":1,"x":1}\n']) {
    writeFileSync(`${dir}/wal-checkpoint`, text);
    const before = snapshot(dir);
    await assert.rejects(LoggedStorage.open({ path: dir }), new RegExp(`^Error: the write-ahead log's checkpoint mark ${dir}/wal-checkpoint is damaged .*nothing on the disk was changed\\. Run dynatwin recover --data-dir ${dir}: it rebuilds the mark`), JSON.stringify(text));
    assert.deepEqual(snapshot(dir), before, JSON.stringify(text));
  }
});

test('wal: the search for whole frames past a bad one finds them at any offset, not inside garbage, and chains runs', () => {
  const frame = (name: string): Buffer => {
    const builder = new FrameBuilder();
    builder.put(k(name), `{"name":"${name}"}`);
    return Buffer.from(builder.seal());
  };
  const random = seededRandom(5);
  const garbage = Buffer.from(Array.from({ length: 5000 }, () => Math.floor(random() * 256)));
  const log = Buffer.concat([frame('a'), garbage.subarray(0, 37), frame('b'), frame('c'), garbage, frame('d'), Buffer.alloc(3000)]);
  const found = findIntactFrames(log, frame('a').byteLength + 1);
  assert.deepEqual(
    found.map((run) => [run.start, run.frames.map((payload) => decodeFrame(payload)[0]!.json)]),
    [
      [frame('a').byteLength + 37, ['{"name":"b"}', '{"name":"c"}']],
      [frame('a').byteLength + 37 + 2 * frame('b').byteLength + garbage.byteLength, ['{"name":"d"}']],
    ],
  );
});

test('wal: zeros after the last whole frame are the end of the log (a prepared segment), anything else a torn tail', () => {
  const frame = new FrameBuilder();
  frame.put(k('a'), '{"n":1}');
  const sealed = Buffer.from(frame.seal());
  const zeros = scanFrames(Buffer.concat([sealed, Buffer.alloc(100_000)]));
  assert.deepEqual([zeros.frames.length, zeros.validBytes, zeros.torn], [1, sealed.byteLength, false]);
  assert.equal(scanFrames(sealed).torn, false);
  for (const at of [0, 7, 50, 99_999]) {
    const tail = Buffer.alloc(100_000);
    tail[at] = 1;
    const damaged = scanFrames(Buffer.concat([sealed, tail]));
    assert.deepEqual([damaged.frames.length, damaged.validBytes, damaged.torn], [1, sealed.byteLength, true], `byte ${at}`);
  }
});

test('logged: a busy log moves into prepared segments; a crash there keeps every acknowledged group', async () => {
  const dir = scratch.fresh();
  const groups = Array.from({ length: 60 }, (_, g) => [`g${String(g).padStart(2, '0')}-a`, `g${String(g).padStart(2, '0')}-b`, ...(g > 0 ? [`-g${String(g - 1).padStart(2, '0')}-b`] : [])]);
  const acknowledged = await crashAfter(dir, groups, 1024);
  assert.equal(acknowledged.length, groups.length);
  // Some segment ends in zeros it was prepared with, past its frames.
  const prepared = segmentFiles(dir).filter((name) => {
    const data = readFileSync(`${dir}/${name}`);
    const scanned = scanFrames(data);
    return !scanned.torn && scanned.validBytes < data.byteLength;
  });
  assert.ok(prepared.length > 0, `no prepared segment among ${segmentFiles(dir).join(', ')}`);
  const expected = groups.flatMap((_, g) => [`g${String(g).padStart(2, '0')}-a`]).concat('g59-b').sort();
  await withLogged({}, async (store) => assert.deepEqual(names(store.range({})), expected), dir);
  // Closed cleanly: nothing is left to replay, and no segment of zeros stays behind.
  assert.deepEqual(segmentFiles(dir), []);
  await withLogged({}, async (store) => assert.deepEqual(names(store.range({})), expected), dir);
});

test('logged: segments a finished checkpoint covers are skipped even if their removal was lost', async () => {
  const dir = scratch.fresh();
  await crashAfter(dir, [['old']]);
  const [segment] = segmentFiles(dir);
  const stale = readFileSync(`${dir}/${segment}`);
  await withLogged(
    {},
    async (store) => {
      await store.checkpoint();
      await store.write((txn) => txn.remove(k('old')));
      await store.checkpoint();
    },
    dir,
  );
  // Resurrect the first segment, as if its unlink never reached the disk.
  writeFileSync(`${dir}/${segment}`, stale);
  await withLogged({}, async (store) => assert.equal(store.get(k('old')), undefined), dir);
  assert.ok(!existsSync(`${dir}/${segment}`), 'the stale segment was removed at open');
  assert.equal(segmentPath(dir, 1), `${dir}/wal-000000000001.log`);
});

// ---------------------------------------------------------------------------------------------
// The filter of LMDB's keys

/** Turns the event loop until the store's key filter is built and no scan runs (a bounded count of turns). */
async function untilKeyFilterReady(store: LoggedStorage): Promise<void> {
  for (let turn = 0; turn < 100_000 && (!store.keyFilter.ready || store.keyFilter.building); turn++) await nextTurn();
  assert.deepEqual(store.keyFilter, { ready: true, building: false });
}

test('logged: the filter of LMDB keys never hides a key LMDB holds: during and after its scan, after checkpoints', async () => {
  const dir = scratch.fresh();
  const key = (i: number): Uint8Array => k(`item-${String(i).padStart(5, '0')}`);
  const count = 5000;
  await withLogged(
    {},
    async (store) => {
      for (let start = 0; start < count; start += 500) {
        await store.write((txn) => {
          for (let i = start; i < start + 500; i++) txn.put(key(i), { i });
        });
      }
      await store.checkpoint();
    },
    dir,
  );
  await withLogged(
    {},
    async (store) => {
      // 5,000 keys take several turns to scan: reads meanwhile go to LMDB.
      assert.deepEqual(store.keyFilter, { ready: false, building: true });
      const reads = (): void => {
        for (let i = 0; i < count; i += 7) assert.deepEqual(store.get(key(i)), { i }, `get ${i}`);
        assert.equal(store.getWithJson(key(4321))?.json, '{"i":4321}');
        assert.equal(store.get(k('absent')), undefined);
      };
      reads();
      assert.deepEqual(await store.write((txn) => txn.get(key(17))), { i: 17 });
      await untilKeyFilterReady(store);
      reads();
      // Keys a checkpoint puts into LMDB are in the filter once the frozen layer is gone.
      await store.write((txn) => {
        txn.put(k('new-1'), { n: 1 });
        txn.remove(key(3));
      });
      await store.checkpoint();
      assert.equal(store.checkpointing, false);
      assert.deepEqual(store.get(k('new-1')), { n: 1 });
      assert.equal(store.get(key(3)), undefined);
      assert.deepEqual(await store.write((txn) => txn.get(k('new-1'))), { n: 1 });
      assert.equal(names(store.range({ start: k('new'), end: k('new-2') })).length, 1);
    },
    dir,
  );
});

test('logged: a filter of LMDB keys past its capacity is rebuilt bigger while checkpoints go on', async () => {
  await withLogged({}, async (store) => {
    await untilKeyFilterReady(store);
    // The smallest filter holds about 104,857 keys; 110,000 pass it.
    const count = 110_000;
    const key = (i: number): Uint8Array => k(`key-${i}`);
    for (let start = 0; start < count; start += 5000) {
      await store.write((txn) => {
        for (let i = start; i < start + 5000; i++) txn.put(key(i), {});
      });
    }
    await store.checkpoint();
    assert.equal(store.keyFilter.building, true, 'a bigger filter is being built');
    // A checkpoint while it is built: its keys reach the new filter too.
    await store.write((txn) => txn.put(k('during-rebuild'), { n: 1 }));
    await store.checkpoint();
    await untilKeyFilterReady(store);
    assert.deepEqual(store.get(k('during-rebuild')), { n: 1 });
    for (let i = 0; i < count; i += 997) assert.deepEqual(store.get(key(i)), {}, `get ${i}`);
  });
});
