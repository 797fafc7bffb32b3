import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BTree } from '../src/storage/btree.js';
import { openStorage } from '../src/storage/index.js';
import type { Durability } from '../src/storage/index.js';
import { MAX_KEY_BYTES, UndoLog } from '../src/storage/memory.js';
import type { RangeOptions, Storage, StoredValue, WriteTransaction } from '../src/storage/storage.js';
import { seededRandom as prng } from './support/random.js';

// ---------------------------------------------------------------------------------------------
// Helpers

/** A key from a string of byte-valued chars ('\x00'..'\xff'). */
function k(bytes: string): Uint8Array {
  return new Uint8Array(Buffer.from(bytes, 'latin1'));
}

function str(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}

/** Long keys shortened, so that a failing assertion prints a readable diff. */
function abbreviate(key: string): string {
  return key.length <= 16 ? key : `${key.slice(0, 4)}…(${key.length} bytes)`;
}

function keysOf(entries: Iterable<{ readonly key: Uint8Array }>): string[] {
  return Array.from(entries, (entry) => abbreviate(str(entry.key)));
}

/** What range() must return, computed from a plain sorted list of byte strings. */
function expectedRange(sortedKeys: readonly string[], options: RangeOptions): string[] {
  const start = options.start === undefined ? undefined : str(options.start);
  const end = options.end === undefined ? undefined : str(options.end);
  const inRange = sortedKeys.filter((key) => (start === undefined || key >= start) && (end === undefined || key < end));
  const ordered = options.reverse === true ? inRange.reverse() : inRange;
  return ordered.slice(0, Math.max(0, options.limit ?? Infinity)).map(abbreviate);
}


interface Backend {
  readonly name: string;
  /** Runs body against a fresh, empty store and always releases it afterwards. */
  with(body: (storage: Storage) => Promise<void>): Promise<void>;
}

async function withTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'dynatwin-storage-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function withStore(storage: Storage, body: (storage: Storage) => Promise<void>): Promise<void> {
  try {
    await body(storage);
  } finally {
    await storage.close();
  }
}

const backends: readonly Backend[] = [
  {
    name: 'memory',
    with: async (body) => withStore(await openStorage({ kind: 'memory' }), body),
  },
  {
    name: 'lmdb',
    with: (body) => withTempDir(async (dir) => withStore(await openStorage({ kind: 'lmdb', path: dir }), body)),
  },
  {
    // The write-ahead log over LMDB (the default durable store), run once with its layers as the
    // writes leave them and once checkpointed into LMDB after every write, so that reads go
    // through memtable, frozen memtable and LMDB alike.
    name: 'logged',
    with: (body) => withTempDir(async (dir) => withStore(await openStorage({ kind: 'logged', path: dir }), body)),
  },
  {
    name: 'logged (tiny checkpoints)',
    with: (body) => withTempDir(async (dir) => withStore(await openStorage({ kind: 'logged', path: dir, checkpointLogBytes: 1 }), body)),
  },
];

async function putAll(storage: Storage, keys: readonly string[]): Promise<void> {
  await storage.write((txn) => {
    for (const key of keys) txn.put(k(key), { key });
  });
}

// Keys that are prefixes of one another, and keys with 0x00 and 0xff bytes in every position.
const RANGE_KEYS = ['\x00', '\x00\x00', '\x00\xff', 'a', 'a\x00', 'a\xff', 'ab', 'abc', 'b', 'ba', 'c', '\xff', '\xff\xff'];
const LONGEST_KEY = 'a' + '\xff'.repeat(MAX_KEY_BYTES - 1);
// Bounds: present keys, absent keys between them, the extremes, and bounds longer than any key.
const RANGE_BOUNDS = [
  '',
  '\x00',
  '\x00\x00\x00',
  '\x00\x01',
  'a',
  'a\x00\x00',
  'aa',
  'ab',
  'abd',
  'bb',
  'c',
  'c\x00',
  '\xfe',
  '\xff',
  '\xff\xff',
  '\xff\xff\xff',
  LONGEST_KEY,
  LONGEST_KEY + '\x00',
  'a' + '\x00'.repeat(MAX_KEY_BYTES + 10),
];

// ---------------------------------------------------------------------------------------------
// Cases run against every Storage implementation

for (const backend of backends) {
  test(`${backend.name}: put, get, overwrite, remove`, () =>
    backend.with(async (storage) => {
      assert.equal(storage.get(k('missing')), undefined);
      const item: StoredValue = { id: { S: 'x' }, tags: { L: [{ N: '1' }, { NULL: true }] }, m: { M: {} }, u: { S: 'é€😀' } };
      await storage.write((txn) => txn.put(k('key'), item));
      assert.deepEqual(storage.get(k('key')), item);
      await storage.write((txn) => txn.put(k('key'), { v: 2 }));
      assert.deepEqual(storage.get(k('key')), { v: 2 });
      await storage.write((txn) => txn.remove(k('key')));
      assert.equal(storage.get(k('key')), undefined);
      await storage.write((txn) => txn.remove(k('never-there')));
      assert.deepEqual(keysOf(storage.range({})), []);
    }));

  test(`${backend.name}: values keep an attribute named __proto__ as an own property`, () =>
    backend.with(async (storage) => {
      const item = JSON.parse('{"__proto__":{"S":"p"},"constructor":{"S":"c"}}') as StoredValue;
      await storage.write((txn) => txn.put(k('p'), item));
      const got = storage.get(k('p'));
      assert.deepEqual(got === undefined ? [] : Object.keys(got), ['__proto__', 'constructor']);
      assert.equal(JSON.stringify(got), JSON.stringify(item));
    }));

  test(`${backend.name}: the store keeps its own copy of a key buffer the caller reuses`, () =>
    backend.with(async (storage) => {
      const buffer = Buffer.from('k1', 'latin1');
      await storage.write((txn) => txn.put(buffer, { n: 1 }));
      buffer[1] = 0x32; // now 'k2'
      assert.deepEqual(keysOf(storage.range({})), ['k1']);
    }));

  test(`${backend.name}: rejects empty and oversized keys, treats them as absent on reads`, () =>
    backend.with(async (storage) => {
      const tooLong = new Uint8Array(MAX_KEY_BYTES + 1).fill(0x61);
      await assert.rejects(storage.write((txn) => txn.put(new Uint8Array(0), {})), /empty/);
      await assert.rejects(storage.write((txn) => txn.put(tooLong, {})), /bytes/);
      await storage.write((txn) => txn.put(k(LONGEST_KEY), { longest: true }));
      assert.deepEqual(storage.get(k(LONGEST_KEY)), { longest: true });
      assert.equal(storage.get(new Uint8Array(0)), undefined);
      assert.equal(storage.get(tooLong), undefined);
      await storage.write((txn) => {
        txn.remove(tooLong);
        txn.remove(new Uint8Array(0));
      });
    }));

  test(`${backend.name}: range obeys start (inclusive), end (exclusive), reverse and limit`, () =>
    backend.with(async (storage) => {
      const stored = [...RANGE_KEYS, LONGEST_KEY];
      await putAll(storage, stored);
      const sorted = [...stored].sort();
      // Spot checks that read as documentation.
      const longest = abbreviate(LONGEST_KEY);
      assert.deepEqual(keysOf(storage.range({ start: k('a'), end: k('b') })), ['a', 'a\x00', 'ab', 'abc', 'a\xff', longest]);
      assert.deepEqual(keysOf(storage.range({ start: k('a'), end: k('b'), reverse: true, limit: 3 })), [longest, 'a\xff', 'abc']);
      assert.deepEqual(keysOf(storage.range({ start: k('aa'), end: k('bb') })), ['ab', 'abc', 'a\xff', longest, 'b', 'ba']);
      assert.deepEqual(keysOf(storage.range({ start: k('c'), end: k('c') })), []);
      assert.deepEqual(keysOf(storage.range({ start: k('c'), end: k('b') })), []);
      assert.deepEqual(keysOf(storage.range({ end: k('\x00\x00'), reverse: true })), ['\x00']);
      // Every combination of bounds, direction and limit against the sorted-array model.
      const bounds = [undefined, ...RANGE_BOUNDS];
      for (const start of bounds) {
        for (const end of bounds) {
          for (const reverse of [false, true]) {
            for (const limit of [undefined, 0, 1, 2, 100]) {
              const options: RangeOptions = {
                ...(start === undefined ? {} : { start: k(start) }),
                ...(end === undefined ? {} : { end: k(end) }),
                reverse,
                ...(limit === undefined ? {} : { limit }),
              };
              const label = JSON.stringify({ start: start?.slice(0, 8), end: end?.slice(0, 8), reverse, limit });
              assert.deepEqual(keysOf(storage.range(options)), expectedRange(sorted, options), label);
            }
          }
        }
      }
    }));

  test(`${backend.name}: range is lazy and yields the stored values`, () =>
    backend.with(async (storage) => {
      await putAll(storage, ['a', 'b', 'c', 'd']);
      const seen: string[] = [];
      for (const entry of storage.range({ start: k('b') })) {
        assert.deepEqual(entry.value, { key: str(entry.key) });
        seen.push(str(entry.key));
        if (seen.length === 2) break;
      }
      assert.deepEqual(seen, ['b', 'c']);
      // A second pass after the early exit starts afresh.
      assert.deepEqual(keysOf(storage.range({ reverse: true })), ['d', 'c', 'b', 'a']);
    }));

  test(`${backend.name}: reads inside write() see that write's puts and removes`, () =>
    backend.with(async (storage) => {
      await putAll(storage, ['a', 'b', 'c']);
      const seen = await storage.write((txn) => {
        txn.put(k('bb'), { key: 'bb' });
        txn.remove(k('c'));
        return { bb: txn.get(k('bb')), c: txn.get(k('c')), keys: keysOf(txn.range({})), back: keysOf(txn.range({ reverse: true, limit: 2 })) };
      });
      assert.deepEqual(seen, { bb: { key: 'bb' }, c: undefined, keys: ['a', 'b', 'bb'], back: ['bb', 'b'] });
      // And once the write has resolved, plain reads see it too.
      assert.deepEqual(keysOf(storage.range({})), ['a', 'b', 'bb']);
    }));

  test(`${backend.name}: a range inside write() stays correct while the same fn writes`, () =>
    backend.with(async (storage) => {
      const key = (n: number): Uint8Array => k(String(n).padStart(5, '0'));
      // Big enough for a multi-level lmdb tree: a plain lmdb cursor fails this at that size.
      const initial = Array.from({ length: 10_000 }, (_, i) => str(key(i * 2)));
      await putAll(storage, initial);
      for (const reverse of [false, true]) {
        const random = prng(reverse ? 2 : 1);
        const problems = await storage.write((txn) => {
          const present = new Set(keysOf(txn.range({})));
          const untouched = new Set(present); // never removed during the scan: must be yielded
          const yielded: string[] = [];
          for (const entry of txn.range({ reverse })) {
            const name = str(entry.key);
            assert.ok(present.has(name), `yielded ${name}, which was removed`);
            yielded.push(name);
            for (let j = 0; j < 3; j++) {
              const other = key(Math.floor(random() * 20_000));
              if (random() < 0.5) {
                txn.remove(other);
                present.delete(str(other));
                untouched.delete(str(other));
              } else {
                txn.put(other, { key: str(other) });
                present.add(str(other));
              }
            }
          }
          const inOrder = [...yielded].sort();
          if (reverse) inOrder.reverse();
          const yieldedSet = new Set(yielded);
          return { ordered: yielded.join() === inOrder.join(), missed: [...untouched].filter((name) => !yieldedSet.has(name)) };
        });
        assert.deepEqual(problems, { ordered: true, missed: [] }, reverse ? 'reverse' : 'forward');
      }
    }));

  test(`${backend.name}: write() resolves to fn's result and rejects with fn's error`, () =>
    backend.with(async (storage) => {
      assert.equal(await storage.write(() => 42), 42);
      const boom = new Error('boom');
      const failed = storage.write(() => {
        throw boom;
      });
      const next = storage.write((txn) => {
        txn.put(k('after'), { ok: true });
        return 'ok';
      });
      await assert.rejects(failed, (error) => error === boom);
      assert.equal(await next, 'ok');
      assert.deepEqual(storage.get(k('after')), { ok: true });
    }));

  test(`${backend.name}: a write that throws after its puts leaves nothing changed`, () =>
    backend.with(async (storage) => {
      await putAll(storage, ['a', 'b', 'c']);
      const before = [...storage.range({})].map((entry) => [str(entry.key), entry.value]);
      const boom = new Error('boom');
      // Queued in one event turn, so lmdb runs all three callbacks in one batched transaction.
      const first = storage.write((txn) => txn.put(k('first'), { n: 1 }));
      const failed = storage.write((txn) => {
        txn.put(k('new'), { n: 1 });
        txn.put(k('a'), { replaced: true });
        txn.remove(k('b'));
        txn.put(k('b'), { again: true });
        txn.remove(k('c'));
        txn.put(k('new'), { n: 2 });
        assert.deepEqual(txn.get(k('a')), { replaced: true });
        assert.equal(txn.get(k('c')), undefined);
        throw boom;
      });
      const last = storage.write((txn) => {
        // The failed write's changes are gone before the next write runs.
        assert.equal(txn.get(k('new')), undefined);
        assert.deepEqual(txn.get(k('a')), { key: 'a' });
        txn.put(k('last'), { n: 3 });
      });
      await assert.rejects(failed, (error) => error === boom);
      await first;
      await last;
      const after = [...storage.range({})].map((entry) => [str(entry.key), entry.value]);
      assert.deepEqual(after, [...before, ['first', { n: 1 }], ['last', { n: 3 }]].sort((x, y) => ((x[0] as string) < (y[0] as string) ? -1 : 1)));
      assert.deepEqual(storage.get(k('b')), { key: 'b' });
      assert.equal(storage.get(k('new')), undefined);
    }));

  test(`${backend.name}: concurrent read-increment-write on one counter is serialisable`, () =>
    backend.with(async (storage) => {
      const counter = k('counter');
      const writes = Array.from({ length: 1000 }, () =>
        storage.write((txn) => {
          const current = txn.get(counter) as { n: number } | undefined;
          const n = (current?.n ?? 0) + 1;
          txn.put(counter, { n });
          return n;
        }),
      );
      const results = await Promise.all(writes);
      assert.deepEqual(storage.get(counter), { n: 1000 });
      // Each write saw every earlier one: results are exactly 1..1000 in call order.
      assert.deepEqual(results, Array.from({ length: 1000 }, (_, i) => i + 1));
    }));

  test(`${backend.name}: a write started inside a write runs after it`, () =>
    backend.with(async (storage) => {
      const order: string[] = [];
      let inner: Promise<unknown> | undefined;
      await storage.write((txn) => {
        order.push('outer');
        txn.put(k('x'), { by: 'outer' });
        inner = storage.write((innerTxn) => {
          order.push('inner');
          return innerTxn.get(k('x'));
        });
        order.push('outer end');
      });
      assert.deepEqual(await inner, { by: 'outer' });
      assert.deepEqual(order, ['outer', 'outer end', 'inner']);
    }));

  test(`${backend.name}: a transaction cannot be used after its fn returned`, () =>
    backend.with(async (storage) => {
      await putAll(storage, ['a', 'b']);
      let leaked: { txn: WriteTransaction; range: Iterable<unknown> } | undefined;
      await storage.write((txn) => {
        leaked = { txn, range: txn.range({}) };
      });
      assert.ok(leaked !== undefined);
      const { txn, range } = leaked;
      assert.throws(() => txn.put(k('late'), {}), /after its write\(\) callback/);
      assert.throws(() => txn.get(k('a')), /after its write\(\) callback/);
      assert.throws(() => [...range], /after its write\(\) callback/);
      assert.equal(storage.get(k('late')), undefined);
    }));

  test(`${backend.name}: asynchronous write callbacks are refused`, () =>
    backend.with(async (storage) => {
      await assert.rejects(
        storage.write(async () => 1),
        /must be synchronous/,
      );
      assert.equal(await storage.write(() => 'still usable'), 'still usable');
    }));

  test(`${backend.name}: close waits for pending writes, is idempotent, then refuses work`, () =>
    backend.with(async (storage) => {
      const pending = storage.write((txn) => txn.put(k('last'), { v: 1 }));
      const closing = storage.close();
      await assert.rejects(storage.write(() => 1), /closed/);
      await Promise.all([closing, storage.close()]);
      await pending; // already settled by now
      assert.throws(() => storage.get(k('last')), /closed/);
    }));
}

// ---------------------------------------------------------------------------------------------
// lmdb only

async function reopen(dir: string, durability: Durability | undefined, body: (storage: Storage) => Promise<void>): Promise<void> {
  const options = durability === undefined ? { kind: 'lmdb' as const, path: dir } : { kind: 'lmdb' as const, path: dir, durability };
  await withStore(await openStorage(options), body);
}

test('lmdb: data survives close and reopen, in either durability mode', () =>
  withTempDir(async (dir) => {
    const path = join(dir, 'nested', 'db'); // also checks that missing directories are created
    await reopen(path, undefined, async (storage) => {
      assert.equal(storage.kind, 'lmdb');
      assert.equal(storage.location, path);
      await putAll(storage, ['a', 'b', '\x00\xff']);
      // Not awaited: close() must wait for it.
      void storage.write((txn) => txn.remove(k('a')));
    });
    await reopen(path, 'commit', async (storage) => {
      assert.deepEqual(keysOf(storage.range({})), ['\x00\xff', 'b']);
      assert.deepEqual(storage.get(k('b')), { key: 'b' });
      await storage.write((txn) => txn.put(k('c'), { key: 'c' }));
    });
    await reopen(path, 'flush', async (storage) => {
      assert.deepEqual(keysOf(storage.range({})), ['\x00\xff', 'b', 'c']);
    });
  }));

test('memory: kind and location', async () => {
  const storage = await openStorage({ kind: 'memory' });
  assert.equal(storage.kind, 'memory');
  assert.equal(storage.location, '(memory)');
  await storage.close();
});

test('undo log: entries in change order, emptied by clear and reused after it', () => {
  const log = new UndoLog<string, { v: number }>();
  assert.equal(log.count, 0);
  log.record('a', undefined);
  log.record('b', { v: 1 });
  assert.equal(log.count, 2);
  assert.deepEqual([log.keyAt(0), log.displacedAt(0), log.keyAt(1), log.displacedAt(1)], ['a', undefined, 'b', { v: 1 }]);
  assert.throws(() => log.keyAt(2), /undo log entry 2 of 2/);
  log.clear();
  assert.equal(log.count, 0);
  assert.throws(() => log.displacedAt(0), /undo log entry 0 of 0/);
  // Reused slots hold the new write's changes, not the old ones.
  log.record('c', { v: 2 });
  assert.deepEqual([log.count, log.keyAt(0), log.displacedAt(0)], [1, 'c', { v: 2 }]);
  // A large write's log (past the room kept between writes) is whole, and clears like any other.
  log.clear();
  for (let at = 0; at < 1000; at++) log.record(`k${at}`, at % 2 === 0 ? undefined : { v: at });
  assert.equal(log.count, 1000);
  assert.deepEqual([log.keyAt(999), log.displacedAt(999), log.keyAt(500), log.displacedAt(500)], ['k999', { v: 999 }, 'k500', undefined]);
  log.clear();
  log.record('d', undefined);
  assert.deepEqual([log.count, log.keyAt(0)], [1, 'd']);
});

test('memory: failed writes roll back whatever size they were, one after another', async () => {
  const storage = await openStorage({ kind: 'memory' });
  await storage.write((txn) => txn.put(k('kept'), { n: 0 }));
  for (const changes of [3, 600, 1, 300]) {
    const failed = storage.write((txn) => {
      for (let at = 0; at < changes; at++) txn.put(k(`w${at}`), { at });
      txn.put(k('kept'), { n: changes });
      txn.remove(k('kept'));
      throw new Error('boom');
    });
    await assert.rejects(failed, /boom/);
    assert.deepEqual(keysOf(storage.range({})), ['kept']);
    assert.deepEqual(storage.get(k('kept')), { n: 0 });
  }
  await storage.close();
});

// ---------------------------------------------------------------------------------------------
// B+tree

test('btree: randomized operations agree with a sorted-array model', () => {
  const random = prng(20240611);
  const alphabet = [0x00, 0x01, 0x61, 0x62, 0xfe, 0xff];
  const randomKey = (): string => {
    const length = 1 + Math.floor(random() * 6);
    let key = '';
    for (let i = 0; i < length; i++) key += String.fromCharCode(alphabet[Math.floor(random() * alphabet.length)]!);
    return key;
  };
  const tree = new BTree<number>();
  const model = new Map<string, number>();
  let sorted: string[] | undefined; // cache of model's keys, sorted; dropped on change
  const sortedKeys = (): string[] => (sorted ??= [...model.keys()].sort());

  for (let op = 0; op < 20_000; op++) {
    const key = randomKey();
    const roll = random();
    if (roll < 0.5) {
      tree.set(k(key), op);
      if (!model.has(key)) sorted = undefined;
      model.set(key, op);
    } else if (roll < 0.8) {
      assert.equal(tree.delete(k(key)), model.delete(key));
      sorted = undefined;
    } else if (roll < 0.95) {
      assert.equal(tree.get(k(key)), model.get(key));
      assert.equal(tree.has(k(key)), model.has(key));
    } else {
      const other = randomKey();
      const [start, end] = key < other ? [key, other] : [other, key];
      const options: RangeOptions = {
        ...(random() < 0.8 ? { start: k(start) } : {}),
        ...(random() < 0.8 ? { end: k(end) } : {}),
        reverse: random() < 0.5,
        ...(random() < 0.5 ? { limit: Math.floor(random() * 50) } : {}),
      };
      const got = [...tree.range(options)];
      assert.deepEqual(keysOf(got), expectedRange(sortedKeys(), options));
      for (const entry of got) assert.equal(entry.value, model.get(str(entry.key)));
    }
    assert.equal(tree.size, model.size);
    if (op % 1000 === 0) tree.checkInvariants();
  }
  tree.checkInvariants();
  // Drain it completely: merges all the way up to an empty root.
  for (const key of sortedKeys()) assert.equal(tree.delete(k(key)), true);
  assert.equal(tree.size, 0);
  tree.checkInvariants();
  assert.deepEqual([...tree.range({})], []);
});

test('btree: a set or remove right after a get of the same key (a write reading its item first) agrees with a model', () => {
  const random = prng(20261126);
  // Four-byte big-endian keys over a narrow range: many hits, and leaves that fill, split and merge.
  const keyOf = (n: number): Uint8Array => {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setUint32(0, n);
    return bytes;
  };
  const tree = new BTree<number>();
  const model = new Map<number, number>();
  for (let op = 0; op < 30_000; op++) {
    const n = Math.floor(random() * 3000);
    // The write's own key, read first, as the write pipeline reads the old image.
    assert.equal(tree.get(keyOf(n)), model.get(n));
    const between = random();
    if (between < 0.3) {
      // Another key changes in between: an insert or delete moves leaves, a replace does not.
      const other = Math.floor(random() * 3000);
      if (random() < 0.5) {
        tree.set(keyOf(other), -op);
        model.set(other, -op);
      } else {
        assert.equal(tree.delete(keyOf(other)), model.delete(other));
      }
    } else if (between < 0.4) {
      // A get of another key moves the finger elsewhere.
      const other = Math.floor(random() * 3000);
      assert.equal(tree.get(keyOf(other)), model.get(other));
    }
    // A fresh key object with the same bytes, as a write builds its key once and passes it around.
    if (random() < 0.7) {
      assert.equal(tree.set(keyOf(n), op), model.get(n));
      model.set(n, op);
    } else {
      assert.equal(tree.remove(keyOf(n)), model.get(n));
      model.delete(n);
    }
    assert.equal(tree.size, model.size);
    if (op % 500 === 0) tree.checkInvariants();
  }
  tree.checkInvariants();
  assert.deepEqual(
    [...tree.range({})].map((entry) => new DataView(entry.key.buffer, entry.key.byteOffset).getUint32(0)),
    [...model.keys()].sort((x, y) => x - y),
  );
  for (const [n, value] of model) assert.equal(tree.get(keyOf(n)), value);
});

test('btree: sequential inserts and deletes in both directions keep the invariants', () => {
  const key = (i: number): Uint8Array => {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setUint32(0, i);
    return bytes;
  };
  const n = 20_000;
  for (const ascending of [true, false]) {
    const tree = new BTree<number>();
    for (let i = 0; i < n; i++) tree.set(key(ascending ? i : n - 1 - i), i);
    tree.checkInvariants();
    assert.equal(tree.size, n);
    let expected = 0;
    for (const entry of tree.range({})) assert.deepEqual(entry.key, key(expected++));
    assert.equal(expected, n);
    // Delete every other key, then the rest, from the opposite end.
    for (let i = 0; i < n; i += 2) tree.delete(key(ascending ? n - 1 - i : i));
    tree.checkInvariants();
    for (let i = 1; i < n; i += 2) tree.delete(key(ascending ? n - 1 - i : i));
    tree.checkInvariants();
    assert.equal(tree.size, 0);
  }
});

test('btree: a lazy scan continues correctly while the tree changes under it', () => {
  const random = prng(7);
  for (const reverse of [false, true]) {
    const tree = new BTree<number>();
    const present = new Set<string>();
    const add = (i: number): void => {
      const key = String(i).padStart(6, '0');
      tree.set(k(key), i);
      present.add(key);
    };
    for (let i = 0; i < 5000; i += 2) add(i);
    const untouched = new Set(present); // keys that this test never deletes
    const yielded: string[] = [];
    for (const entry of tree.range({ reverse })) {
      const key = str(entry.key);
      assert.ok(present.has(key), `yielded ${key}, which is not in the tree`);
      yielded.push(key);
      // Churn around the cursor: deletes force merges, inserts force splits.
      for (let j = 0; j < 3; j++) {
        const victim = String(Math.floor(random() * 5000)).padStart(6, '0');
        if (tree.delete(k(victim))) {
          present.delete(victim);
          untouched.delete(victim);
        }
        add(Math.floor(random() * 5000));
      }
    }
    const order = [...yielded].sort();
    assert.deepEqual(yielded, reverse ? order.reverse() : order, 'yielded in order without repeats');
    const yieldedSet = new Set(yielded);
    for (const key of untouched) assert.ok(yieldedSet.has(key), `never-deleted key ${key} was skipped`);
    tree.checkInvariants();
  }
});
