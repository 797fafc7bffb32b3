/**
 * TTL expiry: the background deletion of items whose TTL attribute has passed, as DynamoDB's
 * Time to Live does it.
 *
 * An item is expired when the table's TTL is ENABLED and the item's TTL attribute is a Number of
 * epoch seconds before the current time, but not more than five years before it (DynamoDB leaves
 * such items alone: the value was most likely written in milliseconds or microseconds). Other
 * types, and items without the attribute, never expire. Until a sweep deletes it, an expired item
 * is read like any other.
 *
 * Sweeps fall due on the injected clock, every TTL_SWEEP_INTERVAL_MS: a ManualClock starts them
 * from its advance() (onAdvance), a real clock from an unref'd timer that only asks whether one is
 * due. A sweep is one pass over every TTL-enabled table, however much time passed since the last
 * one (time that jumps a year still makes one pass). A pass reads a table in chunks from the
 * committed store, bounded by items (TTL_CHUNK_ITEMS) and bytes, and deletes a chunk's expired
 * items in one short storage write, with a turn of the event loop between chunks (like the index
 * tasks of backfill.ts), so requests never wait behind more than one chunk (about 1 ms).
 *
 * A TTL deletion is a system delete: it is planned and committed by the write pipeline
 * (write-pipeline.ts: planWrite, commitPlans under SYSTEM_DELETE) like any delete, so statistics,
 * partitions, GSI and LSI entries, item collections and the stream follow, but it is never admitted
 * or charged (no capacity consumed, no Consumed* metrics, never throttled). TimeToLiveDeletedItemCount counts
 * the deletions. Nothing is persisted: a restart simply sweeps again.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import { ownMember, type AttributeMap } from '../model/attribute-value.js';
import { prefixUpperBound } from '../model/key-codec.js';
import type { ReadView, Storage, WriteTransaction } from '../storage/storage.js';
import type { Catalog } from './catalog.js';
import type { Engine } from './engine.js';
import { keyAfter, readChunk } from './chunks.js';
import { DueWork } from './due-work.js';
import { commitPlans, DELETED, planWrite, readOldImages, SYSTEM_DELETE, type WritePlan } from './write-pipeline.js';
import type { Table } from './table.js';

/** How often (on the injected clock) a sweep falls due. DynamoDB takes up to days; a test should not. */
export const TTL_SWEEP_INTERVAL_MS = 10_000;
/** On a real clock, a pass of N ms is followed by at least this many times N ms of rest (≤ 5% duty). */
const REAL_CLOCK_REST_FACTOR = 19;
/**
 * Items a sweep reads, and at most deletes, per turn of the event loop. Measured in memory with
 * 1 KB items (one table, no index; /tmp script, a loaded 2-core VM): reading and checking costs
 * ~5 us an item and deleting ~17 us more, so the 256-item chunks of chunks.ts held the event loop
 * for 17-28 ms per chunk while requests waited behind it; 64 keeps a turn near 1 ms (more with
 * indexes or a stream, which each delete also updates).
 */
export const TTL_CHUNK_ITEMS = 64;
/** TTL values further back than this are never deleted (DynamoDB's five years, counted as 5 × 365 days). */
export const TTL_HORIZON_MS = 5 * 365 * 24 * 60 * 60 * 1000;

/** Whether `item` is expired at `nowMs` under TTL on `attributeName`. */
export function isExpired(item: AttributeMap, attributeName: string, nowMs: number): boolean {
  const value = ownMember(item, attributeName);
  if (value === undefined || !('N' in value)) return false;
  const expiryMs = Number(value.N) * 1000;
  return expiryMs < nowMs && expiryMs >= nowMs - TTL_HORIZON_MS;
}

/** One table's part of a pass: the table and TTL attribute as found when the pass began. */
export interface SweepTarget {
  readonly tableName: string;
  /** The storage id: a table deleted and created again under the same name is another table. */
  readonly tableId: number;
  readonly itemPrefix: Buffer;
  readonly attributeName: string;
}

export interface TtlSweeperOptions {
  readonly storage: Storage;
  /** The engine whose tables are swept, and whose write pipeline commits the deletions. */
  readonly engine: Engine;
  readonly clock: Clock;
  /**
   * Counts a chunk's deletions (TimeToLiveDeletedItemCount). Called inside the write that made
   * them, so it always precedes a DeleteTable's drop of the table's metrics.
   */
  readonly recordDeleted: (tableName: string, count: number, nowMs: number) => void;
  /** Where a failed sweep is reported; the next sweep tries again. */
  readonly log: (message: string) => void;
  /**
   * Other clock-driven clean-up run at the end of every pass, on the same cadence (the streams'
   * expired records, table-stream.ts trimIdleStreams); it stops between steps once `stopped`.
   */
  readonly afterPass?: (stopped: () => boolean) => Promise<void>;
}

export class TtlSweeper {
  readonly #options: TtlSweeperOptions;
  #nextSweepMs: number;
  /** Runs the passes as they fall due on the clock, one at a time (due-work.ts). */
  readonly #work: DueWork;

  constructor(options: TtlSweeperOptions) {
    this.#options = options;
    this.#nextSweepMs = options.clock.nowMs() + TTL_SWEEP_INTERVAL_MS;
    this.#work = new DueWork(
      () => this.#options.clock.nowMs() >= this.#nextSweepMs,
      () => this.#sweepPass(),
    );
  }

  /** Attaches the trigger: the manual clock's advances, or a real-time timer. */
  start(): void {
    this.#work.attach(this.#options.clock);
  }

  /** Starts a sweep if one is due on the clock; cheap when none is. */
  poke(): void {
    this.#work.poke();
  }

  /** Resolves once the sweeps due so far have finished (at once when none runs). Never rejects. */
  settled(): Promise<void> {
    return this.#work.settled();
  }

  /** Detaches the trigger and stops a running sweep after its current chunk. */
  stop(): Promise<void> {
    return this.#work.stop();
  }

  get #stopped(): boolean {
    return this.#work.stopped;
  }

  async #sweepPass(): Promise<void> {
    this.#nextSweepMs = this.#options.clock.nowMs() + TTL_SWEEP_INTERVAL_MS;
    // The pass starts after whoever poked (an advance(), the timer) has returned: poking stays O(1).
    await nextTurn();
    const passStartMs = this.#options.clock.nowMs();
    await this.#sweepTables();
    await this.#afterPass();
    this.#restAfterPass(passStartMs);
  }

  /**
   * On a real clock a pass over large tables can take seconds of CPU; the next one then waits
   * REAL_CLOCK_REST_FACTOR times as long as this one took, so sweeping uses at most ~5% of the
   * process however large the tables (DynamoDB itself takes days). A manual clock keeps the fixed
   * interval: its time moves only when a test says, and a pass takes none of it.
   */
  #restAfterPass(passStartMs: number): void {
    const { clock } = this.#options;
    if (clock.mode !== 'real') return;
    const nowMs = clock.nowMs();
    this.#nextSweepMs = Math.max(this.#nextSweepMs, nowMs + REAL_CLOCK_REST_FACTOR * (nowMs - passStartMs));
  }

  async #sweepTables(): Promise<void> {
    for (const target of sweepTargets(this.#options.engine.catalog)) {
      if (this.#stopped) return;
      try {
        await this.#sweepTable(target);
      } catch (error) {
        this.#options.log(`dynatwin: TTL sweep of ${target.tableName}: ${error instanceof Error ? error.stack : String(error)}`);
      }
    }
  }

  async #afterPass(): Promise<void> {
    const afterPass = this.#options.afterPass;
    if (afterPass === undefined || this.#stopped) return;
    try {
      await afterPass(() => this.#stopped);
    } catch (error) {
      this.#options.log(`dynatwin: background clean-up after a TTL sweep: ${error instanceof Error ? error.stack : String(error)}`);
    }
  }

  /** One pass over a table, chunk by chunk; it ends early when the table goes or its TTL is disabled. */
  async #sweepTable(target: SweepTarget): Promise<void> {
    const { storage, engine, clock } = this.#options;
    const end = prefixUpperBound(target.itemPrefix);
    let start: Uint8Array = target.itemPrefix;
    while (!this.#stopped && sweptTable(engine.catalog, target) !== undefined) {
      const chunk = scanChunk(storage, target.attributeName, start, end, clock.nowMs());
      if (chunk.expiredKeys.length > 0) await storage.write((txn) => this.#deleteChunk(txn, target, chunk.expiredKeys));
      if (chunk.nextStart === undefined) return;
      start = chunk.nextStart;
      await nextTurn();
    }
  }

  #deleteChunk(txn: WriteTransaction, target: SweepTarget, keys: readonly Uint8Array[]): void {
    const nowMs = this.#options.clock.nowMs();
    const deleted = deleteExpired(txn, this.#options.engine, target, keys, nowMs);
    if (deleted > 0) this.#options.recordDeleted(target.tableName, deleted, nowMs);
  }
}

/** The tables a pass visits: those with TTL enabled when it starts. */
function sweepTargets(catalog: Catalog): SweepTarget[] {
  const targets: SweepTarget[] = [];
  for (const name of catalog.names()) {
    const table = catalog.get(name)!;
    const ttl = table.record.timeToLive;
    if (ttl.status !== 'ENABLED' || ttl.attributeName === undefined) continue;
    targets.push({ tableName: name, tableId: table.record.id, itemPrefix: table.itemPrefix, attributeName: ttl.attributeName });
  }
  return targets;
}

/** The target's table as it is now, if it still exists and still has TTL on the same attribute. */
function sweptTable(catalog: Catalog, target: SweepTarget): Table | undefined {
  const table = catalog.sameTable(target.tableName, target.tableId);
  if (table === undefined) return undefined;
  const ttl = table.record.timeToLive;
  return ttl.status === 'ENABLED' && ttl.attributeName === target.attributeName ? table : undefined;
}

export interface ScannedChunk {
  /** Keys of the items that were expired when read. */
  readonly expiredKeys: readonly Uint8Array[];
  /** Where the next chunk starts; undefined when the table's range is exhausted. */
  readonly nextStart: Uint8Array | undefined;
}

/** Reads one chunk of a table from `start` (chunks.ts), finding the expired items. */
export function scanChunk(view: ReadView, attributeName: string, start: Uint8Array, end: Uint8Array, nowMs: number): ScannedChunk {
  const chunk = readChunk(view, start, end, TTL_CHUNK_ITEMS);
  const expiredKeys = chunk.entries.filter((entry) => isExpired(entry.value as AttributeMap, attributeName, nowMs)).map((entry) => entry.key);
  const last = chunk.entries.at(-1);
  return { expiredKeys, nextStart: chunk.complete || last === undefined ? undefined : keyAfter(last.key) };
}

/**
 * Deletes the items under `keys` that are still expired at `nowMs`, inside a storage write, and
 * answers how many it deleted. Each item is checked again against its current image: it may have
 * been updated (a later expiry, the attribute removed) or deleted since the scan read it. The
 * deletes are committed by the write pipeline under SYSTEM_DELETE: planned, checked, never
 * admitted or charged, applied (statistics, partitions, indexes, item collections, a change record
 * marked `system` for the engine's ChangeSink). Deletes nothing if the table is gone or its TTL
 * was disabled.
 */
export function deleteExpired(txn: WriteTransaction, engine: Engine, target: SweepTarget, keys: readonly Uint8Array[], nowMs: number): number {
  const table = sweptTable(engine.catalog, target);
  if (table === undefined) return 0;
  // The read phase, then the plans: every image is read and planned before the first remove.
  const images = readOldImages(txn, keys);
  const plans: WritePlan[] = [];
  keys.forEach((key, index) => {
    const old = images[index]!;
    if (old.item !== undefined && isExpired(old.item, target.attributeName, nowMs)) plans.push(planWrite(table, key, old, DELETED, 'system'));
  });
  commitPlans(engine, txn, plans, SYSTEM_DELETE);
  return plans.length;
}
