/**
 * Test support: dynatwin's request handler over an Engine on a Storage the test supplies, behind a
 * real HTTP server, with SDK clients for DynamoDB and CloudWatch. For behaviour that depends on
 * what the store does (a commit the test holds open, another process's locks) where the CLI's and
 * startDynatwin's stores cannot be steered.
 *
 * Also two such stores over the memory store: HeldCommitStorage, whose next write's promise settles
 * only when the test releases it (a commit in flight, for as long as the test likes, without a
 * timer), and LockingStorage, whose transactions offer getLocked as a store other processes write
 * does (storage.ts), with the keys of items marked `lockedElsewhere` held by "another process".
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AutoScaling } from '../../src/autoscaling/service.js';
import { ManualClock } from '../../src/clock.js';
import { Engine } from '../../src/engine/engine.js';
import { createOperationRegistry } from '../../src/operations/index.js';
import { createRequestHandler } from '../../src/server/http.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { KeyConflictError, type Entry, type LockMode, type RangeOptions, type Storage, type StoredValue, type ValueWithJson, type WriteTransaction } from '../../src/storage/storage.js';
import { sdkClient } from './twin.js';

export interface StorageTwin {
  readonly engine: Engine;
  readonly clock: ManualClock;
  readonly client: DynamoDBClient;
  readonly cloudWatch: CloudWatchClient;
  /** Errors the handler reported as dynatwin's own bugs (a test expects none). */
  readonly internalErrors: unknown[];
  close(): Promise<void>;
}

/** Serves DynamoDB and CloudWatch requests from an Engine opened on `storage`, on a manual clock. */
export async function startStorageTwin(storage: Storage): Promise<StorageTwin> {
  const clock = new ManualClock();
  const engine = Engine.open(storage, { clock, region: 'us-east-1', accountId: '123456789012', tableCreateDelayMs: 0 });
  const autoScaling = AutoScaling.open(engine);
  const internalErrors: unknown[] = [];
  const handlers = createRequestHandler({
    engine,
    operations: createOperationRegistry(),
    cloudWatch: { engine, autoScaling },
    onInternalError: (error) => internalErrors.push(error),
  });
  const server: Server = createServer(handlers.node);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = sdkClient(endpoint);
  const cloudWatch = new CloudWatchClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' }, maxAttempts: 1 });
  return {
    engine,
    clock,
    client,
    cloudWatch,
    internalErrors,
    async close() {
      client.destroy();
      cloudWatch.destroy();
      server.closeAllConnections();
      server.close();
      await autoScaling.stop();
      await engine.close();
    },
  };
}

/** A write the test holds: `reached` once its function ran, its promise settled only after `release()`. */
export interface HeldWrite {
  readonly reached: Promise<void>;
  release(): void;
}

/** The memory store, but the next write after holdNextWrite() stays in flight until released. */
export class HeldCommitStorage implements Storage {
  readonly kind = 'memory';
  readonly location = '(memory, commits held by the test)';
  readonly #inner = new MemoryStorage();
  #armed: { readonly reach: () => void; readonly released: Promise<void> } | undefined;

  holdNextWrite(): HeldWrite {
    let reach!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((resolve) => (reach = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.#armed = { reach, released };
    return { reached, release };
  }

  get(key: Uint8Array): StoredValue | undefined {
    return this.#inner.get(key);
  }

  range(options: RangeOptions): Iterable<Entry> {
    return this.#inner.range(options);
  }

  getWithJson(key: Uint8Array): ValueWithJson | undefined {
    return this.#inner.getWithJson(key);
  }

  write<T>(fn: (txn: WriteTransaction) => T): Promise<T> {
    const armed = this.#armed;
    const written = this.#inner.write(fn);
    if (armed === undefined) return written;
    this.#armed = undefined;
    armed.reach();
    return written.then(
      (value) => armed.released.then(() => value),
      (error: unknown) => armed.released.then(() => Promise.reject(error)),
    );
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

/** What getLocked was asked: the mode, and whether any key was held elsewhere. */
export interface LockRequest {
  readonly mode: LockMode;
  readonly keyCount: number;
  readonly metHeldKey: boolean;
}

/**
 * The memory store with getLocked, standing in for a store other processes write: an item whose
 * stored value has `lockedElsewhere` is held by another process's write. 'fail' throws
 * KeyConflictError for it; 'wait' "waits" (the other write is taken to have committed without
 * changing it) and reads it. Every call is recorded in `lockRequests`.
 */
export class LockingStorage implements Storage {
  readonly kind = 'memory';
  readonly location = '(memory, with locks held elsewhere)';
  readonly lockRequests: LockRequest[] = [];
  readonly #inner = new MemoryStorage();

  get(key: Uint8Array): StoredValue | undefined {
    return this.#inner.get(key);
  }

  range(options: RangeOptions): Iterable<Entry> {
    return this.#inner.range(options);
  }

  getWithJson(key: Uint8Array): ValueWithJson | undefined {
    return this.#inner.getWithJson(key);
  }

  write<T>(fn: (txn: WriteTransaction) => T): Promise<T> {
    return this.#inner.write((txn) => fn(this.#locking(txn)));
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #locking(txn: WriteTransaction): WriteTransaction {
    const requests = this.lockRequests;
    return {
      get: (key) => txn.get(key),
      range: (options) => txn.range(options),
      put: (key, value) => txn.put(key, value),
      remove: (key) => txn.remove(key),
      getLocked(keys, mode) {
        const values = keys.map((key) => txn.get(key));
        const heldAt = values.findIndex((value) => value !== undefined && 'lockedElsewhere' in value);
        requests.push({ mode, keyCount: keys.length, metHeldKey: heldAt >= 0 });
        if (heldAt >= 0 && mode === 'fail') throw new KeyConflictError(keys[heldAt]!);
        return values;
      },
    };
  }
}
