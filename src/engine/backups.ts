/**
 * On-demand backups and point-in-time recovery: backup records, their items, the history kept for
 * them (history.ts), and the background jobs that copy a table into a backup and a backup into a
 * new table.
 *
 * A backup is the table at one instant, the instant of its CreateBackup (or, for a restore to a
 * point in time, the instant asked for). It is never copied on the request path: CreateBackup
 * writes the backup's record and turns the table's history on, in one storage write, and answers
 * CREATING. A job then copies the table's items in chunks (one bounded storage write each, a turn
 * of the event loop between) while writes go on, and plays the history recorded since the backup's
 * instant backwards over the copy (history.ts says why that is exact); the backup is then
 * AVAILABLE. A restore creates the target table CREATING and loads the backup's items into it in
 * chunks through the write pipeline (commitPlans under RESTORE_LOAD: indexes, statistics, partitions and item
 * collections kept as for any write); a last step, once they are committed, makes the table ACTIVE. Every job keeps its progress in the
 * store with the chunk it wrote, and resumes from there after a restart.
 *
 * A point-in-time restore is a backup taken at the past instant (an internal one, never listed,
 * removed once restored) followed by a restore from it.
 *
 * Storage layout:
 *   0x00 'k' <backup id, u32 BE>                     → BackupRecord
 *   0x00 'j' <table id, u32 BE>                      → RestoreProgress: how far a restore got
 *   0x05 <backup id, u32 BE> <item key suffix>       → item of the backup
 *   0x06 ...                                         → table histories (history.ts)
 * Backup ids come from the catalog's id counter, so they never collide with table or index ids.
 */
import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import { assert } from '../errors.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { prefixUpperBound } from '../model/key-codec.js';
import type { Storage, WriteTransaction } from '../storage/storage.js';
import { IdAllocator } from './catalog.js';
import { keyAfter, readChunk } from './chunks.js';
import { historyKeyOf, historyPrefixOf, TableHistory, type HistoryRecord } from './history.js';
import type { PointInTimeRecoveryRecord, RestoringRecord, Table, TableRecord } from './table.js';
import type { Engine } from './engine.js';
import { commitPlans, planWrite, readOldImages, RESTORE_LOAD } from './write-pipeline.js';

const CATALOG_BYTE = 0x00;
const BACKUP_RECORD_TAG = 0x6b; // 'k'
const RESTORE_PROGRESS_TAG = 0x6a; // 'j'
const BACKUP_ITEMS_BYTE = 0x05;
const HISTORY_BYTE = 0x06;
/** History records played back per storage write. */
const UNDO_CHUNK_RECORDS = 256;
/** History records trimmed per storage write. */
const TRIM_CHUNK_RECORDS = 1024;

export const MS_PER_DAY = 86_400_000;
/** How long DynamoDB keeps the SYSTEM backup of a deleted PITR table. */
const SYSTEM_BACKUP_RETENTION_MS = 35 * 86_400_000;
/** DynamoDB's default and largest point-in-time recovery period. */
export const RECOVERY_PERIOD_DAYS_MAX = 35;

export type BackupStatus = 'CREATING' | 'AVAILABLE' | 'DELETED';

/**
 * What a backup's job still has to do. copy: read the table's items from `cursor` (an item key
 * suffix, base64) on; undo: play the history backwards from `cursor` (exclusive, a history key)
 * down to `from`; delete: remove the backup's items, then its record.
 */
export type BackupJob =
  | { readonly phase: 'copy'; readonly cursor: string }
  | { readonly phase: 'undo'; readonly cursor: string }
  | { readonly phase: 'delete' };

export interface BackupRecord {
  readonly id: number;
  readonly arn: string;
  readonly name: string;
  /**
   * USER: a CreateBackup's; SYSTEM: the one DynamoDB makes when a table with PITR is deleted
   * (kept 35 days, not deletable); POINT: the internal snapshot of a point-in-time restore, never
   * described or listed.
   */
  readonly type: 'USER' | 'SYSTEM' | 'POINT';
  /** SYSTEM backups expire (BackupExpiryDateTime). */
  readonly expiresAtMs?: number;
  readonly status: BackupStatus;
  readonly createdAtMs: number;
  /** The source table's definition at the backup's instant. */
  readonly table: TableRecord;
  /** The history key of the backup's instant (base64): changes from it on are not in the backup. */
  readonly from: string;
  readonly itemCount: number;
  readonly sizeBytes: number;
  readonly job?: BackupJob;
}

interface RestoreProgress {
  /** The first backup item key suffix not yet loaded, base64. */
  readonly cursor: string;
}

function u32Key(first: number, second: number | undefined, id: number): Buffer {
  const key = Buffer.allocUnsafe(second === undefined ? 5 : 6);
  key[0] = first;
  if (second !== undefined) key[1] = second;
  key.writeUInt32BE(id, second === undefined ? 1 : 2);
  return key;
}

const backupRecordKey = (id: number): Buffer => u32Key(CATALOG_BYTE, BACKUP_RECORD_TAG, id);
const restoreProgressKey = (tableId: number): Buffer => u32Key(CATALOG_BYTE, RESTORE_PROGRESS_TAG, tableId);
const backupItemsPrefix = (id: number): Buffer => u32Key(BACKUP_ITEMS_BYTE, undefined, id);
const BACKUP_RECORDS_START = Buffer.from([CATALOG_BYTE, BACKUP_RECORD_TAG]);
const BACKUP_RECORDS_END = Buffer.from([CATALOG_BYTE, BACKUP_RECORD_TAG + 1]);

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
const fromB64 = (text: string): Buffer => Buffer.from(text, 'base64');
const suffixOf = (key: Uint8Array, prefixLength: number): Buffer => Buffer.from(key.buffer, key.byteOffset + prefixLength, key.byteLength - prefixLength);

/** The earliest instant a table can be restored to (PITR enabled), on the clock's `nowMs`. */
export function earliestRestorableMs(pitr: PointInTimeRecoveryRecord, nowMs: number): number {
  return Math.max(pitr.enabledAtMs, nowMs - pitr.recoveryPeriodInDays * MS_PER_DAY);
}

export interface BackupSettings {
  readonly storage: Storage;
  /** The engine whose tables are backed up, and whose write pipeline loads a restore's items. */
  readonly engine: Engine;
  readonly clock: Clock;
  readonly region: string;
  readonly accountId: string;
  readonly log: (message: string) => void;
}

/** One step of a job inside a storage write: true when the job is finished. */
type Step = (txn: WriteTransaction) => boolean;

export class Backups {
  readonly #settings: BackupSettings;
  /** Every backup record by id, those being deleted included (they are not described). */
  readonly #byId = new Map<number, BackupRecord>();
  readonly #idByArn = new Map<string, number>();
  readonly #running = new Map<string, Promise<void>>();
  /**
   * Every history made since start-up, by table id, kept when its slot is emptied: its next key
   * must keep growing, and the records it wrote may not be committed yet when it is needed again.
   */
  readonly #histories = new Map<number, TableHistory>();
  #stopped = false;

  constructor(settings: BackupSettings) {
    this.#settings = settings;
    for (const entry of settings.storage.range({ start: BACKUP_RECORDS_START, end: BACKUP_RECORDS_END })) {
      const record = entry.value as BackupRecord;
      this.#byId.set(record.id, record);
      this.#idByArn.set(record.arn, record.id);
    }
    // Histories: tables with PITR on, and the sources of backups still copying.
    for (const table of settings.engine.catalog.all()) {
      if (table.record.pointInTimeRecovery !== undefined) this.#historyOf(table).needs.pointInTimeRecovery = true;
    }
    for (const record of this.#byId.values()) {
      if (record.job?.phase === 'copy' || record.job?.phase === 'undo') {
        const table = this.#sourceOf(record);
        if (table !== undefined) this.#historyOf(table).needs.backupsCopying++;
      }
    }
  }

  /** Resumes the jobs a restart interrupted; removes internal snapshots no restore refers to. */
  resumeAll(): void {
    const referenced = new Set<number>();
    for (const table of this.#settings.engine.catalog.all()) {
      const restoring = table.record.restoring;
      if (restoring === undefined) continue;
      referenced.add(restoring.backupId);
      this.#startRestore(table.record.name, table.record.id);
    }
    for (const record of this.#byId.values()) {
      if (record.type === 'POINT' && !referenced.has(record.id) && record.job?.phase !== 'delete') {
        void this.#settings.storage.write((txn) => this.#markDeleted(txn, record.id)).then(() => this.#startJob(record.id));
      } else if (record.job !== undefined) this.#startJob(record.id);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#running.values());
  }

  /** Resolves when no job is running (tests and inspection; jobs run on their own). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }

  /** The backup, unless unknown or deleted. */
  get(arn: string): BackupRecord | undefined {
    const id = this.#idByArn.get(arn);
    const record = id === undefined ? undefined : this.#byId.get(id);
    return record === undefined || record.status === 'DELETED' || record.type === 'POINT' ? undefined : record;
  }

  /** Every described backup (USER and SYSTEM, not deleted), oldest first. */
  list(): BackupRecord[] {
    const records = [...this.#byId.values()].filter((record) => record.type !== 'POINT' && record.status !== 'DELETED');
    return records.sort((a, b) => a.createdAtMs - b.createdAtMs || (a.arn < b.arn ? -1 : a.arn > b.arn ? 1 : 0));
  }

  /** A table's backups are being copied (DeleteTable waits for them). */
  async copiesOf(tableId: number): Promise<void> {
    for (;;) {
      const copying = [...this.#byId.values()].filter((record) => record.table.id === tableId && (record.job?.phase === 'copy' || record.job?.phase === 'undo'));
      // Only running copies are waited for: a job that failed (logged) will not finish.
      const running = copying.map((record) => this.#running.get(`backup/${record.id}`)).filter((task) => task !== undefined);
      if (running.length === 0 || this.#stopped) return;
      await Promise.all(running);
    }
  }

  /** Whether a restore is reading the backup (it cannot be deleted meanwhile). */
  restoring(backupId: number): boolean {
    for (const table of this.#settings.engine.catalog.all()) if (table.record.restoring?.backupId === backupId) return true;
    return false;
  }

  /**
   * Starts a backup of `table` at this instant (or, for a point-in-time restore, at `atMs`, whose
   * history must still be kept: `check` runs inside the write against the table as it is then).
   */
  async create(tableName: string, name: string, type: BackupRecord['type'], atMs: number | undefined, check: (table: Table) => void): Promise<BackupRecord> {
    const nowMs = this.#settings.clock.nowMs();
    const record = await this.#settings.storage.write((txn) => {
      const table = this.#settings.engine.catalog.get(tableName);
      assert(table !== undefined, 'the caller checked the table');
      check(table);
      const ids = new IdAllocator(txn);
      const id = ids.next();
      ids.persist(txn);
      const history = this.#historyOf(table);
      history.needs.backupsCopying++;
      const from = atMs === undefined ? history.nextKey() : historyKeyOf(table.record.id, atMs + 1, 0);
      const created: BackupRecord = {
        id,
        arn: this.#arnOf(table.name, nowMs, type === 'SYSTEM'),
        name,
        type,
        ...(type === 'SYSTEM' ? { expiresAtMs: nowMs + SYSTEM_BACKUP_RETENTION_MS } : {}),
        status: 'CREATING',
        createdAtMs: nowMs,
        table: table.record,
        from: b64(from),
        itemCount: 0,
        sizeBytes: 0,
        job: { phase: 'copy', cursor: '' },
      };
      this.#put(txn, created);
      return created;
    });
    this.#startJob(record.id);
    return record;
  }

  /** Marks the backup DELETED and starts removing its items; the caller checked it may go. */
  async delete(arn: string, check: (record: BackupRecord) => void): Promise<BackupRecord> {
    const deleted = await this.#settings.storage.write((txn) => {
      const record = this.get(arn);
      assert(record !== undefined, 'the caller checked the backup');
      check(record);
      return this.#markDeleted(txn, record.id);
    });
    this.#startJob(deleted.id);
    return deleted;
  }

  /** Removes an internal snapshot no restore will read (its restore could not start). */
  async discard(id: number): Promise<void> {
    await this.#settings.storage.write((txn) => this.#markDeleted(txn, id));
    this.#startJob(id);
  }

  /** After the write that created the restored table: loads the backup into it. */
  restoreStarted(table: Table): void {
    this.#startRestore(table.name, table.record.id);
  }

  /** Inside the write of an UpdateContinuousBackups: the table's history follows its PITR setting. */
  pointInTimeRecoveryChanged(table: Table, enabled: boolean): void {
    this.#historyOf(table).needs.pointInTimeRecovery = enabled;
    this.#releaseIfUnneeded(table);
  }

  /**
   * Trims the histories on the clock: records older than a table's recovery window, and every
   * record no one needs any more (PITR off, no backup copying, deleted tables). One bounded chunk
   * per storage write.
   */
  async trimHistories(stopped: () => boolean): Promise<void> {
    const storage = this.#settings.storage;
    // SYSTEM backups past their expiry go first (their removal is a job like DeleteBackup's).
    const nowMs = this.#settings.clock.nowMs();
    for (const record of [...this.#byId.values()]) {
      if (record.expiresAtMs === undefined || record.expiresAtMs > nowMs || record.status !== 'AVAILABLE' || this.restoring(record.id)) continue;
      await storage.write((txn) => this.#markDeleted(txn, record.id));
      this.#startJob(record.id);
    }
    let tableId = 0;
    while (!stopped() && !this.#stopped) {
      const [first] = storage.range({ start: historyPrefixOf(tableId), end: Buffer.from([HISTORY_BYTE + 1]), limit: 1 });
      if (first === undefined) return;
      tableId = Buffer.from(first.key).readUInt32BE(1);
      const trimmed = tableId;
      const more = await storage.write((txn) => {
        // The bound is taken inside the write: a restore pinning older history commits before or after it, never between.
        const end = this.#keepFrom(trimmed) ?? prefixUpperBound(historyPrefixOf(trimmed));
        const keys: Uint8Array[] = [];
        for (const entry of txn.range({ start: historyPrefixOf(trimmed), end, limit: TRIM_CHUNK_RECORDS })) keys.push(entry.key);
        for (const key of keys) txn.remove(key);
        return keys.length === TRIM_CHUNK_RECORDS;
      });
      if (!more) tableId++;
      await nextTurn();
    }
  }

  // -------------------------------------------------------------------------------------------

  /** The first history key of a table still needed, or undefined when none is (all may go). */
  #keepFrom(tableId: number): Buffer | undefined {
    const table = this.#tableById(tableId);
    let bound: Buffer | undefined;
    const lower = (key: Buffer): void => {
      if (bound === undefined || Buffer.compare(key, bound) < 0) bound = key;
    };
    for (const record of this.#byId.values()) {
      if (record.table.id === tableId && (record.job?.phase === 'copy' || record.job?.phase === 'undo')) lower(fromB64(record.from));
    }
    const pitr = table?.record.pointInTimeRecovery;
    if (pitr !== undefined) lower(historyKeyOf(tableId, earliestRestorableMs(pitr, this.#settings.clock.nowMs()) + 1, 0));
    if (bound === undefined && table?.changes.history !== undefined) return table.changes.history.nextKey();
    return bound;
  }

  #tableById(tableId: number): Table | undefined {
    for (const table of this.#settings.engine.catalog.all()) if (table.record.id === tableId) return table;
    return undefined;
  }

  #sourceOf(record: BackupRecord): Table | undefined {
    return this.#settings.engine.catalog.sameTable(record.table.name, record.table.id);
  }

  /** The table's history, installing it in its change slot (capture starts with the next write). */
  #historyOf(table: Table): TableHistory {
    let history = table.changes.history ?? this.#histories.get(table.record.id);
    if (history === undefined) {
      // Only ever reads the committed store for a table without a history since start-up.
      history = new TableHistory(this.#settings.storage, table.record.id, table.itemPrefix.length, () => this.#settings.clock.nowMs());
      this.#histories.set(table.record.id, history);
    }
    table.changes.history = history;
    return history;
  }

  #releaseIfUnneeded(table: Table): void {
    if (table.changes.history !== undefined && !table.changes.history.needed) table.changes.history = undefined;
  }

  /**
   * DynamoDB's backup ARN: the table's, then /backup/ and the creation time (ms, 14 digits) and 8
   * hex digits (all zero for a SYSTEM backup).
   */
  #arnOf(tableName: string, nowMs: number, system: boolean): string {
    for (let bump = 0; ; bump++) {
      const suffix = system ? '00000000' : randomBytes(4).toString('hex');
      const arn = `arn:aws:dynamodb:${this.#settings.region}:${this.#settings.accountId}:table/${tableName}/backup/${String(Math.floor(nowMs) + (system ? bump : 0)).padStart(14, '0')}-${suffix}`;
      if (!this.#idByArn.has(arn)) return arn;
    }
  }

  #put(txn: WriteTransaction, record: BackupRecord): BackupRecord {
    txn.put(backupRecordKey(record.id), record);
    this.#byId.set(record.id, record);
    this.#idByArn.set(record.arn, record.id);
    return record;
  }

  #markDeleted(txn: WriteTransaction, id: number): BackupRecord {
    const record = this.#byId.get(id)!;
    const copying = record.job?.phase === 'copy' || record.job?.phase === 'undo';
    const deleted = this.#put(txn, { ...record, status: 'DELETED', job: { phase: 'delete' } });
    if (copying) this.#copyEnded(record);
    return deleted;
  }

  #copyEnded(record: BackupRecord): void {
    const table = this.#sourceOf(record);
    if (table === undefined || table.changes.history === undefined) return;
    table.changes.history.needs.backupsCopying--;
    this.#releaseIfUnneeded(table);
  }

  #startJob(id: number): void {
    this.#run(`backup/${id}`, (txn) => this.#backupStep(txn, id));
  }

  #startRestore(tableName: string, tableId: number): void {
    this.#run(`restore/${tableId}`, (txn) => this.#restoreStep(txn, tableName, tableId));
  }

  #run(key: string, step: Step): void {
    if (this.#stopped || this.#running.has(key)) return;
    const task = (async () => {
      while (!this.#stopped) {
        if (await this.#settings.storage.write(step)) return;
        await nextTurn();
      }
    })().catch((error: unknown) => this.#settings.log(`dynatwin: ${key}: ${error instanceof Error ? error.stack : String(error)}`));
    this.#running.set(key, task);
    void task.finally(() => this.#running.delete(key));
  }

  /** One chunk of a backup's job. */
  #backupStep(txn: WriteTransaction, id: number): boolean {
    const record = this.#byId.get(id);
    const job = record?.job;
    if (record === undefined || job === undefined) return true;
    if (job.phase === 'delete') return this.#deleteStep(txn, record);
    const table = this.#sourceOf(record);
    if (table === undefined) {
      // The source went away mid-copy (DeleteTable waits for copies, so only a crash gets here):
      // the backup cannot be completed.
      this.#settings.log(`dynatwin: backup ${record.arn} lost its source table; removed`);
      this.#markDeleted(txn, id);
      return false;
    }
    return job.phase === 'copy' ? this.#copyStep(txn, record, table, job.cursor) : this.#undoStep(txn, record, table, job.cursor);
  }

  /** Copies the next chunk of the table's current items into the backup. */
  #copyStep(txn: WriteTransaction, record: BackupRecord, table: Table, cursor: string): boolean {
    const prefix = table.itemPrefix;
    const chunk = readChunk(txn, Buffer.concat([prefix, fromB64(cursor)]), prefixUpperBound(prefix));
    const itemsPrefix = backupItemsPrefix(record.id);
    let { itemCount, sizeBytes } = record;
    for (const { key, value } of chunk.entries) {
      const backupKey = Buffer.concat([itemsPrefix, suffixOf(key, prefix.length)]);
      // A resumed chunk may meet items it already copied.
      const previous = txn.get(backupKey) as AttributeMap | undefined;
      if (previous !== undefined) {
        itemCount--;
        sizeBytes -= itemSize(previous);
      }
      txn.put(backupKey, value);
      itemCount++;
      sizeBytes += itemSize(value as AttributeMap);
    }
    const last = chunk.entries.at(-1);
    const job: BackupJob =
      chunk.complete || last === undefined
        ? // Every change up to now is behind this key; later ones need no undoing (history.ts).
          { phase: 'undo', cursor: b64(table.changes.history!.nextKey()) }
        : { phase: 'copy', cursor: b64(keyAfter(suffixOf(last.key, prefix.length))) };
    this.#put(txn, { ...record, itemCount, sizeBytes, job });
    return false;
  }

  /** Plays the next chunk of history backwards over the copy; the last makes the backup AVAILABLE. */
  #undoStep(txn: WriteTransaction, record: BackupRecord, table: Table, cursor: string): boolean {
    const itemsPrefix = backupItemsPrefix(record.id);
    const from = fromB64(record.from);
    let { itemCount, sizeBytes } = record;
    const entries = [...txn.range({ start: from, end: fromB64(cursor), reverse: true, limit: UNDO_CHUNK_RECORDS })];
    for (const { value } of entries) {
      const change = value as HistoryRecord;
      const backupKey = Buffer.concat([itemsPrefix, fromB64(change.k)]);
      const current = txn.get(backupKey) as AttributeMap | undefined;
      if (current !== undefined) {
        itemCount--;
        sizeBytes -= itemSize(current);
      }
      if (change.o === null) {
        if (current !== undefined) txn.remove(backupKey);
      } else {
        txn.put(backupKey, change.o);
        itemCount++;
        sizeBytes += itemSize(change.o);
      }
    }
    const last = entries.at(-1);
    if (entries.length === UNDO_CHUNK_RECORDS && last !== undefined) {
      this.#put(txn, { ...record, itemCount, sizeBytes, job: { phase: 'undo', cursor: b64(last.key) } });
      return false;
    }
    const { job: _job, ...rest } = record;
    this.#put(txn, { ...rest, itemCount, sizeBytes, status: 'AVAILABLE' });
    this.#copyEnded(record);
    void table;
    return true;
  }

  /** Removes the next chunk of a deleted backup's items; the last removes its record. */
  #deleteStep(txn: WriteTransaction, record: BackupRecord): boolean {
    const prefix = backupItemsPrefix(record.id);
    const chunk = readChunk(txn, prefix, prefixUpperBound(prefix));
    for (const { key } of chunk.entries) txn.remove(key);
    if (!chunk.complete) return false;
    txn.remove(backupRecordKey(record.id));
    this.#byId.delete(record.id);
    this.#idByArn.delete(record.arn);
    return true;
  }

  /** Loads the next chunk of the backup into the restored table; the last makes the table ACTIVE. */
  #restoreStep(txn: WriteTransaction, tableName: string, tableId: number): boolean {
    const table = this.#settings.engine.catalog.sameTable(tableName, tableId);
    const restoring = table?.record.restoring;
    if (table === undefined || restoring === undefined) return true;
    const backup = this.#byId.get(restoring.backupId);
    if (backup === undefined) {
      this.#settings.log(`dynatwin: the backup of restored table ${tableName} is gone; the table stays empty`);
      this.#finishRestore(txn, table, restoring);
      return true;
    }
    // A point-in-time restore waits for its snapshot.
    if (backup.status !== 'AVAILABLE') return false;
    const progress = txn.get(restoreProgressKey(tableId)) as RestoreProgress | undefined;
    const itemsPrefix = backupItemsPrefix(backup.id);
    const chunk = readChunk(txn, Buffer.concat([itemsPrefix, fromB64(progress?.cursor ?? '')]), prefixUpperBound(itemsPrefix));
    // The read phase (every old image), then the plans, before the first put; RESTORE_LOAD passes
    // the item-collection check (the source kept the same items within the limit) and hands no
    // change record to the sink.
    const storageKeys = chunk.entries.map(({ key }) => Buffer.concat([table.itemPrefix, suffixOf(key, itemsPrefix.length)]));
    const images = readOldImages(txn, storageKeys);
    const plans = chunk.entries.map(({ value }, index) => {
      const item = value as AttributeMap;
      return planWrite(table, storageKeys[index]!, images[index]!, { item, sizeBytes: itemSize(item) }, 'system');
    });
    commitPlans(this.#settings.engine, txn, plans, RESTORE_LOAD);
    const last = chunk.entries.at(-1);
    // The table turns ACTIVE in a step of its own, once every chunk is committed: the catalog shows
    // a record as soon as the write that replaces it runs, so flipping it in the last chunk's write
    // answered ACTIVE (on a data directory) before that chunk's items could be read.
    if (last !== undefined) {
      txn.put(restoreProgressKey(tableId), { cursor: b64(keyAfter(suffixOf(last.key, itemsPrefix.length))) } satisfies RestoreProgress);
      return false;
    }
    this.#finishRestore(txn, table, restoring);
    if (restoring.dropBackup) {
      this.#markDeleted(txn, backup.id);
      queueMicrotask(() => this.#startJob(backup.id));
    }
    return true;
  }

  #finishRestore(txn: WriteTransaction, table: Table, restoring: RestoringRecord): void {
    txn.remove(restoreProgressKey(table.record.id));
    // Once loaded the table is ACTIVE and, as on DynamoDB, no longer says where it came from.
    const { restoring: _restoring, restoreSummary: _summary, ...rest } = table.record;
    this.#settings.engine.catalog.replaceInTransaction(txn, table, { ...rest, activeAtMs: this.#settings.clock.nowMs() });
    void restoring;
  }
}
