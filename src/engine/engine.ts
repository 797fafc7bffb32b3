/**
 * The engine: the catalog of tables and the item store behind it, plus the settings every
 * operation needs (clock, region, account, index behaviour). One Engine serves one server;
 * nothing is global.
 */
import { DEFAULT_PARTITION_SIZE_LIMIT_BYTES } from '../capacity/partitions.js';
import type { Clock } from '../clock.js';
import { resourceNotFound } from '../errors.js';
import { ExpressionCache } from '../expressions/cache.js';
import { Telemetry } from '../metrics/telemetry.js';
import { CapacityRecorder } from './capacity-recorder.js';
import { DemandsPool } from './demands.js';
import type { Storage, WriteTransaction } from '../storage/storage.js';
import { StreamStore } from '../streams/stream-store.js';
import { tableStreamsSink, trimIdleStreams } from './table-stream.js';
import { IndexTasks } from './backfill.js';
import { Backups } from './backups.js';
import { Transfers } from './exports.js';
import { Catalog } from './catalog.js';
import { tableStatusAt } from './describe.js';
import { GsiPropagation } from './gsi-propagation.js';
import { IdempotencyTokens } from './idempotency.js';
import type { IndexEnvironment } from './indexes.js';
import { ITEM_COLLECTION_SIZE_LIMIT_BYTES } from './item-collections.js';
import type { PartitionSettings } from './partition-tracker.js';
import type { Table } from './table.js';
import { TableDeletions } from './table-deletions.js';
import { TransactionHolds } from './transaction-holds.js';
import { TtlSweeper } from './ttl.js';
import type { ChangeSink } from './write-pipeline.js';

export const DEFAULT_PARTITION_SETTINGS: PartitionSettings = {
  policy: { model: 'modern', sizeLimitBytes: DEFAULT_PARTITION_SIZE_LIMIT_BYTES },
  accounting: true,
};

export interface EngineSettings {
  readonly clock: Clock;
  readonly region: string;
  readonly accountId: string;
  /** How long a new table stays CREATING (on the injected clock); 0 makes it usable at once. */
  readonly tableCreateDelayMs: number;
  /** How long UpdateTable leaves a table UPDATING (on the injected clock); 0 or absent: at once ACTIVE. */
  readonly tableUpdateDelayMs?: number;
  /** How long DeleteTable leaves a table DELETING before removing it; 0 or absent: removed at once. */
  readonly tableDeleteDelayMs?: number;
  /** How long a write takes to reach GSIs (on the injected clock); 0 updates them with the item. */
  readonly gsiLagMs?: number;
  /** The LSI item collection limit; DynamoDB's is 10 GB (item-collections.ts). */
  readonly itemCollectionSizeLimitBytes?: number;
  /** How tables and GSIs are partitioned; default modern, 10 GB per partition, accounting on. */
  readonly partitions?: PartitionSettings;
  /**
   * enforce (default): requests over their partitions' capacity are throttled; off: units are
   * counted and recorded, nothing is throttled (`--capacity`).
   */
  readonly capacity?: 'enforce' | 'off';
  /** Record metrics, the heat map's history and Contributor Insights (default true; false only to measure their cost). */
  readonly metrics?: boolean;
  /** Where failures of background work (index backfills, TTL sweeps) are reported. */
  readonly log?: (message: string) => void;
}

export class Engine {
  readonly storage: Storage;
  readonly catalog: Catalog;
  readonly settings: EngineSettings;
  /** Parsed expressions by text, so a repeated expression is not parsed again. */
  readonly expressions = new ExpressionCache();
  /** TransactWriteItems' ClientRequestTokens, bounded and expiring, kept in the store (idempotency.ts). */
  readonly transactionTokens: IdempotencyTokens;
  /** Index maintenance state shared by every table (lag, pending GSI changes, index states). */
  readonly indexEnvironment: IndexEnvironment;
  /** Index backfills and removals running in the background. */
  readonly indexTasks: IndexTasks;
  /** TTL expiry: sweeps deleting expired items, due on the clock (ttl.ts). */
  readonly ttl: TtlSweeper;
  /** Removals of tables a delayed DeleteTable left DELETING, due on the clock (table-deletions.ts). */
  readonly tableDeletions: TableDeletions;
  /** CloudWatch-style metrics and Contributor Insights, in memory (src/metrics/telemetry.ts). */
  readonly telemetry = new Telemetry();
  /** DynamoDB Streams: every table's streams, shards and records (src/streams/). */
  readonly streams: StreamStore;
  /** On-demand backups, point-in-time recovery and restores, with their background jobs (backups.ts). */
  readonly backups: Backups;
  /** Export and import jobs, which fail for want of S3 (exports.ts). */
  readonly transfers: Transfers;
  /** Where admitted and throttled demands are recorded (metrics, heat map, Contributor Insights). */
  readonly capacityRecorder = new CapacityRecorder(this.telemetry);
  /** The items of TransactWriteItems requests in flight, which other requests conflict with (transaction-holds.ts). */
  readonly transactionHolds = new TransactionHolds();
  /** The admit step's demand lists, reused from request to request (admit.ts settle). */
  readonly demandsPool = new DemandsPool();
  /**
   * Where applied item changes go (write-pipeline.ts ChangeSink): called inside each write's storage
   * transaction with the change record of every item the write changed, TTL deletions included.
   * By default each table's DynamoDB stream (table-stream.ts); `setChangeSink` replaces it.
   */
  #changeSink: ChangeSink | undefined = tableStreamsSink;
  /** Set once stopBackgroundWork began: a background write decided from then on is not run (see backgroundWrite). */
  #backgroundStopped = false;
  /** The store as background work writes to it: a write waits while the store refuses writes (Storage.waitingWrites). */
  readonly #backgroundStorage: Storage;

  private constructor(storage: Storage, settings: EngineSettings, indexEnvironment: IndexEnvironment) {
    this.storage = storage;
    this.settings = settings;
    this.indexEnvironment = indexEnvironment;
    this.transactionTokens = IdempotencyTokens.load(storage, settings.clock.nowMs());
    this.streams = StreamStore.open(storage, settings.clock);
    this.catalog = Catalog.open(storage, indexEnvironment, this.streams);
    const log = settings.log ?? ((message: string) => console.error(message));
    // Background work waits while the store refuses writes for a disk fault, instead of failing.
    const background = storage.waitingWrites?.() ?? storage;
    this.#backgroundStorage = background;
    this.indexTasks = new IndexTasks(background, this.catalog, log);
    this.transfers = new Transfers(storage);
    this.backups = new Backups({ storage: background, engine: this, clock: settings.clock, region: settings.region, accountId: settings.accountId, log });
    this.ttl = new TtlSweeper({
      storage: background,
      engine: this,
      clock: settings.clock,
      log,
      recordDeleted: (table, count, nowMs) => this.#recordTtlDeletes(table, count, nowMs),
      afterPass: async (stopped) => {
        await trimIdleStreams(background, this.streams, settings.clock, stopped);
        await this.backups.trimHistories(stopped);
      },
    });
    this.tableDeletions = new TableDeletions({
      catalog: this.catalog,
      clock: settings.clock,
      log,
      removed: (name) => this.telemetry.dropTable(name),
    });
  }

  /** Opens the catalog (recounting statistics), resumes index work a restart interrupted and starts the TTL sweeps. */
  static open(storage: Storage, settings: EngineSettings): Engine {
    const indexEnvironment: IndexEnvironment = {
      clock: settings.clock,
      gsiLagMs: settings.gsiLagMs ?? 0,
      itemCollectionSizeLimitBytes: settings.itemCollectionSizeLimitBytes ?? ITEM_COLLECTION_SIZE_LIMIT_BYTES,
      states: new Map(),
      propagation: GsiPropagation.load(storage),
      partitionSettings: settings.partitions ?? DEFAULT_PARTITION_SETTINGS,
      // The engine exists by the time a read decides a split (never during open).
      backgroundWrite: (work) => engine.backgroundWrite(work),
    };
    const engine = new Engine(storage, settings, indexEnvironment);
    engine.indexTasks.resumeAll();
    engine.backups.resumeAll();
    engine.ttl.start();
    engine.tableDeletions.start();
    return engine;
  }

  /** The engine's ChangeSink (write-pipeline.ts), or undefined. */
  get changeSink(): ChangeSink | undefined {
    return this.#changeSink;
  }

  /**
   * Installs the one ChangeSink every applied item change is handed to (undefined removes it). The
   * sink serves every table; it picks the tables it records (e.g. those with a stream enabled).
   */
  setChangeSink(sink: ChangeSink | undefined): void {
    this.#changeSink = sink;
  }

  /** Whether requests are recorded in the metrics (off only in the bench's comparison). */
  get metricsEnabled(): boolean {
    return this.settings.metrics !== false;
  }

  /** Whether admission may refuse requests (`--capacity enforce`). */
  get capacityEnforced(): boolean {
    return this.settings.capacity !== 'off';
  }

  get clock(): Clock {
    return this.settings.clock;
  }

  /**
   * The table named in an item request, or DynamoDB's ResourceNotFoundException, which is also
   * the answer while the table is CREATING (a create delay, a restore loading its items) or
   * DELETING: the API reference's ResourceNotFoundException covers a table whose status "might
   * not be ACTIVE". UPDATING tables serve items.
   */
  requireTable(name: string): Table {
    const table = this.catalog.get(name);
    if (table === undefined) throw resourceNotFound();
    const status = tableStatusAt(table.record, this.clock.nowMs());
    if (status === 'CREATING' || status === 'DELETING') throw resourceNotFound();
    return table;
  }

  tableArn(name: string): string {
    return `arn:aws:dynamodb:${this.settings.region}:${this.settings.accountId}:table/${name}`;
  }

  /**
   * Applies the GSI changes whose propagation lag has passed, in a write of their own; reads of a
   * GSI call it first so that what they see depends only on the injected clock.
   */
  propagateDueIndexChanges(): Promise<void> | undefined {
    const env = this.indexEnvironment;
    const horizonMs = env.gsiLagMs === 0 ? Infinity : this.clock.nowMs();
    // Undefined when nothing is due, so a read without pending changes stays synchronous.
    if (!env.propagation.hasDue(horizonMs)) return undefined;
    return this.storage.write((txn) => env.propagation.applyDue(txn, horizonMs, env.states));
  }

  #recordTtlDeletes(table: string, count: number, nowMs: number): void {
    if (this.metricsEnabled) this.telemetry.metrics.series({ metric: 'TimeToLiveDeletedItemCount', table }).record(count, nowMs);
  }

  /** Resolves once the background work due at the clock's current time has finished (TTL sweeps, table removals). */
  async settled(): Promise<void> {
    await Promise.all([this.ttl.settled(), this.tableDeletions.finishDue(), this.backups.settled()]);
  }

  /**
   * Brings every GSI backlog to `nowMs` (admission drains them lazily), so that what GSIs served
   * until now is in their metrics before they are read. O(GSI partitions); for inspection only.
   */
  drainIndexBacklogs(nowMs: number): void {
    for (const table of this.catalog.all()) {
      for (const index of table.indexes.all) {
        const partitions = index.state.partitions;
        if (index.kind === 'global' && partitions !== undefined && partitions.hasCapacity) partitions.capacity.drainBacklogs(nowMs);
      }
    }
  }

  /**
   * A storage write nobody waits for: a partition split a read decided (partition-tracker.ts
   * splitWhenDue). Once background work has stopped the store is about to close (or to be handed to
   * a new Engine on a reset), so the write is not started: it would fail on a closed store, and this
   * engine's partition maps are going away with it. The split is decided again by the next engine
   * when its reads reach the same peak. Returns whether the write was started.
   */
  backgroundWrite(work: (txn: WriteTransaction) => void): boolean {
    if (this.#backgroundStopped) return false;
    this.#backgroundStorage.write(work).catch((error: unknown) => (this.settings.log ?? console.error)(`dynatwin: a partition split failed: ${String(error)}`));
    return true;
  }

  /** Finishes the current chunk of background work (index tasks, TTL sweeps), then closes the store. */
  async close(): Promise<void> {
    await this.stopBackgroundWork();
    await this.storage.close();
  }

  /**
   * Stops index tasks and TTL sweeps after their current chunk and detaches them from the clock,
   * leaving the store open (for close(), or for a reset that opens a new Engine on the store).
   */
  async stopBackgroundWork(): Promise<void> {
    this.#backgroundStopped = true;
    await Promise.all([this.indexTasks.stop(), this.ttl.stop(), this.tableDeletions.stop(), this.backups.stop()]);
    await this.catalog.settled;
  }
}
