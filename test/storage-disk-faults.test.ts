/**
 * The logged store's DISK FAULTS rule (storage/logged.ts), on the store itself: writes are
 * refused before their callback runs when no next segment can be prepared and the current one
 * has no room, or when a checkpoint's LMDB commit fails (the frozen memtable and its segments
 * stay); reads go on; writes resume by themselves once the fault is gone; nothing acknowledged
 * is lost across a reopen. The faults come through the log's file seam and the store's injector.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { DynamoError } from '../src/errors.js';
import type { StoreFaultInjector } from '../src/storage/fault-injection.js';
import { LoggedStorage } from '../src/storage/logged.js';
import { listSegments, NODE_LOG_IO, type LogFile, type LogIo } from '../src/storage/wal.js';
import { scratchDirectories } from './support/scratch.js';

const scratch = scratchDirectories('dynatwin-disk-faults-');
after(() => scratch.removeAll());

/** A small bound: a prepared segment is 80 KB, and the first spare is prepared after 20 KB of log. */
const CHECKPOINT_LOG_BYTES = 64 * 1024;
const VALUE = { text: 'x'.repeat(1000) };
/** Writes tried before the refusal must have come (a bound, not a measurement). */
const WRITES_MAX = 2000;

function k(name: string): Uint8Array {
  return new TextEncoder().encode(name);
}

function enospc(): Error {
  return Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
}

/** The real files, with preparation failing (ENOSPC, after part of the zeros) while `full` is set. */
class FillableIo implements LogIo {
  full = false;

  create(path: string, durable: boolean): Promise<LogFile> {
    return NODE_LOG_IO.create(path, durable);
  }

  async prepare(path: string, bytes: number, durable: boolean): Promise<LogFile> {
    if (!this.full) return NODE_LOG_IO.prepare(path, bytes, durable);
    await (await NODE_LOG_IO.prepare(path, Math.floor(bytes / 3), durable)).close();
    throw enospc();
  }
}

/** Waits (10 ms a step, at most 20 s) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  for (let step = 0; step < 2000 && !condition(); step++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), 'condition never held');
}

test('logged: no room for the next segment refuses writes before they run, reads go on, and writes resume by themselves', async () => {
  const path = scratch.fresh();
  const io = new FillableIo();
  io.full = true;
  const store = await LoggedStorage.open({ path, io, checkpointLogBytes: CHECKPOINT_LOG_BYTES });
  const acknowledged: string[] = [];
  let refusal: Error | undefined;
  try {
    for (let i = 0; i < WRITES_MAX && refusal === undefined; i++) {
      let ran = false;
      try {
        await store.write((txn) => {
          ran = true;
          txn.put(k(`a${i}`), VALUE);
        });
        acknowledged.push(`a${i}`);
      } catch (error) {
        refusal = error as Error;
        assert.equal(ran, false, 'a refused write never ran');
      }
    }
    assert.ok(refusal !== undefined, 'writes were refused');
    assert.ok(refusal instanceof DynamoError);
    assert.equal(refusal.code, 'ServiceUnavailable');
    assert.equal(refusal.statusCode, 503);
    assert.match(refusal.message, new RegExp(`^Writes are refused: the disk holding the data directory ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is full \\(ENOSPC preparing a write-ahead log segment\\)`));
    assert.equal(store.writeRefusal?.stage, 'segment');
    assert.equal(store.writeRefusal?.lostWrites, false);
    assert.ok(acknowledged.length > 0);
    for (const key of acknowledged) assert.deepEqual(store.get(k(key)), VALUE, `${key} reads`);
    // Background writes wait instead of failing.
    const waiting = store.waitingWrites().write((txn) => txn.put(k('background'), VALUE));
    io.full = false;
    await until(() => store.writeRefusal === undefined);
    await waiting;
    await store.write((txn) => txn.put(k('after'), VALUE));
    acknowledged.push('background', 'after');
  } finally {
    await store.close();
  }
  const reopened = await LoggedStorage.open({ path });
  try {
    for (const key of acknowledged) assert.deepEqual(reopened.get(k(key)), VALUE, `${key} survives a reopen`);
  } finally {
    await reopened.close();
  }
});

test('logged: a failed LMDB commit keeps the frozen memtable and its segments, refuses writes, and the checkpoint is run again once LMDB commits', async () => {
  const path = scratch.fresh();
  let failing = false;
  const faults: StoreFaultInjector = {
    fault: (stage) => (failing && stage === 'lmdb' ? enospc() : undefined),
    prefix: (total) => Math.floor(total / 2),
  };
  const store = await LoggedStorage.open({ path, faults, checkpointLogBytes: CHECKPOINT_LOG_BYTES });
  const keys: string[] = [];
  try {
    for (let i = 0; i < 20; i++) {
      await store.write((txn) => txn.put(k(`c${i}`), VALUE));
      keys.push(`c${i}`);
    }
    failing = true;
    await assert.rejects(store.checkpoint(), /Writes are refused: .*\(ENOSPC copying a checkpoint into LMDB\)/);
    assert.equal(store.writeRefusal?.stage, 'checkpoint');
    assert.ok(store.checkpointing, 'the frozen memtable stays');
    assert.ok((await listSegments(path)).length >= 2, 'the covered segment stays');
    for (const key of keys) assert.deepEqual(store.get(k(key)), VALUE);
    await assert.rejects(store.write((txn) => txn.put(k('refused'), VALUE)), /Writes are refused/);
    failing = false;
    await until(() => store.writeRefusal === undefined && !store.checkpointing);
    await store.write((txn) => txn.put(k('after'), VALUE));
    keys.push('after');
  } finally {
    await store.close();
  }
  const reopened = await LoggedStorage.open({ path });
  try {
    for (const key of keys) assert.deepEqual(reopened.get(k(key)), VALUE, `${key} survives a reopen`);
    assert.equal(reopened.get(k('refused')), undefined);
  } finally {
    await reopened.close();
  }
});
