/**
 * The items TransactWriteItems requests in flight hold, and the TransactionConflict metric.
 *
 * A transaction holds every item it acts on (ConditionChecks too) from the moment its storage
 * write applied it until that write's promise settles: on the logged store, until its frame is
 * durable; on the memory store, a microtask. Other writes run meanwhile (the Storage contract lets
 * a write see an earlier one not yet committed), so without the hold they would act on an item
 * whose transaction is not done, where DynamoDB refuses them:
 *
 * - PutItem, UpdateItem, DeleteItem on a held item: TransactionConflictException (items.ts);
 * - TransactWriteItems or TransactGetItems with a held item: TransactionCanceledException, the
 *   reason TransactionConflict at each held item, None elsewhere (transactions.ts, reads.ts);
 * - BatchWriteItem: its held items come back in UnprocessedItems, the rest is written (batch.ts);
 *   DynamoDB documents no conflict answer for a batch (its individual writes are serialisable
 *   with transactions), and UnprocessedItems is how a batch says "not done, send it again";
 * - GetItem, BatchGetItem, Query, Scan read what is stored and never conflict (DynamoDB: a
 *   transaction and a concurrent GetItem both succeed).
 *
 * Only transactions hold: a single write's own commit is not a transaction DynamoDB would report.
 * The checks and the hold run inside storage writes, which are exclusive, so "held" is decided in
 * the same order the writes apply. No wall-clock timer: a hold ends with its write's promise.
 *
 * Cost: a request's check is one `size` comparison while no transaction is in flight (nothing
 * allocated); with one in flight, one string of the key's bytes and a set lookup.
 */
import type { Engine } from './engine.js';

/**
 * At most this many items held at once, over every transaction in flight (100 items each). A
 * transaction that would pass it is cancelled with TransactionConflict at every item, which the
 * client retries, instead of the set growing without bound behind a store that stopped committing.
 */
export const HELD_ITEMS_MAX = 100_000;

/** The held items' keys, as the latin1 text of their storage keys (one byte, one character). */
export type HeldKeys = readonly string[];

export class TransactionHolds {
  readonly #held = new Set<string>();

  /** Whether any transaction is in flight: the gate every check passes first. */
  get active(): boolean {
    return this.#held.size !== 0;
  }

  /** How many items are held now. */
  get size(): number {
    return this.#held.size;
  }

  /** Whether a transaction in flight holds the item; allocates nothing while none is in flight. */
  holds(storageKey: Uint8Array): boolean {
    return this.#held.size !== 0 && this.#held.has(identityOf(storageKey));
  }

  /** Whether `count` more items may be held (HELD_ITEMS_MAX). */
  hasRoomFor(count: number): boolean {
    return this.#held.size + count <= HELD_ITEMS_MAX;
  }

  /**
   * Holds a transaction's items; the caller releases them when its write settles. No item may be
   * held already: the transaction was checked against the holds in the same exclusive write.
   */
  hold(storageKeys: readonly Uint8Array[]): HeldKeys {
    const identities = storageKeys.map(identityOf);
    for (const identity of identities) {
      if (this.#held.has(identity)) throw new Error('assertion failed: a transaction holds an item another transaction holds');
    }
    for (const identity of identities) this.#held.add(identity);
    return identities;
  }

  release(identities: HeldKeys): void {
    for (const identity of identities) this.#held.delete(identity);
  }
}

function identityOf(storageKey: Uint8Array): string {
  return Buffer.from(storageKey.buffer, storageKey.byteOffset, storageKey.byteLength).toString('latin1');
}

/**
 * TransactionConflict (CloudWatch, per table): one sample per refused request and table, its
 * value the request's items refused there, so Sum counts refused item-level requests and
 * SampleCount refused requests, as DynamoDB documents the metric.
 */
export function recordTransactionConflicts(engine: Engine, tableName: string, itemCount: number): void {
  if (!engine.metricsEnabled || itemCount === 0) return;
  engine.telemetry.metrics.series({ metric: 'TransactionConflict', table: tableName }).record(itemCount, engine.clock.nowMs());
}

/** Records one sample per table of the refused items' tables (a transaction or batch across tables). */
export function recordConflictsByTable(engine: Engine, tableNames: readonly string[]): void {
  if (!engine.metricsEnabled || tableNames.length === 0) return;
  const counts = new Map<string, number>();
  for (const name of tableNames) counts.set(name, (counts.get(name) ?? 0) + 1);
  for (const [name, count] of counts) recordTransactionConflicts(engine, name, count);
}
