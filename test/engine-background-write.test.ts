/**
 * The engine's background writes (a partition split a read decided, partition-tracker.ts
 * splitWhenDue) during and after close: one decided while the engine runs is written; one decided
 * once its background work has stopped (the server's shutdown wait ran out while a read was still
 * running, or a reset) is not started, instead of failing on the closed store and logging
 * "a partition split failed: storage is closed".
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ManualClock } from '../src/clock.js';
import { Engine } from '../src/engine/engine.js';
import { openStorage } from '../src/storage/index.js';
import { scratchDirectories } from './support/scratch.js';

const scratch = scratchDirectories('dynatwin-background-write-');
after(() => scratch.removeAll());

const KEY = Buffer.from('background-write-test');

async function openEngine(dataDir: string, logged: string[]): Promise<Engine> {
  const storage = await openStorage({ kind: 'logged', path: dataDir, durability: 'flush' });
  return Engine.open(storage, { clock: new ManualClock(), region: 'us-east-1', accountId: '000000000000', tableCreateDelayMs: 0, metrics: false, log: (line) => logged.push(line) });
}

test('a background write decided while the engine runs is written; one decided after close is not started and logs nothing', async () => {
  const dataDir = scratch.fresh();
  const logged: string[] = [];
  const engine = await openEngine(dataDir, logged);
  assert.equal(engine.backgroundWrite((txn) => txn.put(KEY, { written: 'while running' })), true);
  await engine.close();

  let ranAfterClose = false;
  const started = engine.backgroundWrite((txn) => {
    ranAfterClose = true;
    txn.put(KEY, { written: 'after close' });
  });
  assert.equal(started, false);
  // A failed write would log in a later turn: give it several.
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(ranAfterClose, false);
  assert.deepEqual(logged, []);

  // The write made while running is on the disk; nothing after close is.
  const reopened = await openEngine(dataDir, logged);
  try {
    assert.deepEqual(reopened.storage.get(KEY), { written: 'while running' });
  } finally {
    await reopened.close();
  }
  assert.deepEqual(logged, []);
});

test('stopping background work for a reset leaves the store open but starts no background write', async () => {
  const dataDir = scratch.fresh();
  const logged: string[] = [];
  const engine = await openEngine(dataDir, logged);
  try {
    await engine.stopBackgroundWork();
    assert.equal(engine.backgroundWrite((txn) => txn.put(KEY, { written: 'after stop' })), false);
    await engine.storage.write(() => undefined);
    assert.equal(engine.storage.get(KEY), undefined);
  } finally {
    await engine.storage.close();
  }
  assert.deepEqual(logged, []);
});
