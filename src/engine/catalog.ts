/**
 * The catalog: every table's definition, persisted in the store beside the items and cached in
 * memory, so resolving a table on the request path is one Map lookup.
 *
 * Storage layout (byte prefixes keep the kinds apart and in a fixed order):
 *   0x00 't' <table name UTF-8>    → TableRecord
 *   0x00 'n'                       → { nextTableId }: the next id for a table or an index
 *   0x00 'f' <index id, u32 BE>    → { cursor }: how far the backfill of a new GSI got
 *   0x00 'p' <table or index id>   → PartitionLayout: the partition map's splits (partition-tracker.ts)
 *   0x00 'c' <table or index id> <partition id> → a partition's counts (partition-tracker.ts)
 *   0x00 'l' <table id>            → statistics of a table with LSIs (table-statistics.ts)
 *   0x01 <table id, u32 BE> <item key from src/model/key-codec.ts>   → item
 *   0x02 <index id, u32 BE> <entry key from src/engine/index-keys.ts> → index entry
 *   0x03 <sequence>                → a GSI change waiting for its propagation lag (gsi-propagation.ts)
 *   0x00 's' <stream id>, 0x04 ... → DynamoDB streams and their records (streams/records.ts)
 *   0x00 'a' ...                   → Application Auto Scaling's targets, policies, activities (autoscaling/store.ts)
 */
import { assert, resourceNotFound } from '../errors.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { prefixUpperBound } from '../model/key-codec.js';
import type { ReadView, Storage, WriteTransaction } from '../storage/storage.js';
import { gaugeReadingOf } from './gauge-readings.js';
import type { TableGaugeReading } from '../metrics/gauges.js';
import { TableIndexRuntime, type IndexEnvironment, type IndexStatistics } from './indexes.js';
import { INDEX_ENTRIES_BYTE, indexPrefixOf, RESOURCE_PREFIX_BYTES } from './index-keys.js';
import { ResourcePartitions } from './partition-tracker.js';
import type { StreamStore } from '../streams/stream-store.js';
import { attachTableStream, detachTableStream, syncTableStream } from './table-stream.js';
import { Table, type IndexRecord, type TableRecord } from './table.js';
import { openIndexPartitions, removePartitions, syncPartitions, tableThroughput } from './table-partitions.js';
import { persistsStatistics, readSavedStatistics, removeStatistics, restoreSavedStatistics, saveStatistics, type SavedStatistics } from './table-statistics.js';

const CATALOG_BYTE = 0x00;
const ITEMS_BYTE = 0x01;
const TABLE_RECORD_TAG = 0x74; // 't'
const COUNTER_TAG = 0x6e; // 'n'
const BACKFILL_TAG = 0x66; // 'f'

const COUNTER_KEY = Buffer.from([CATALOG_BYTE, COUNTER_TAG]);
const TABLE_RECORDS_START = Buffer.from([CATALOG_BYTE, TABLE_RECORD_TAG]);
const TABLE_RECORDS_END = Buffer.from([CATALOG_BYTE, TABLE_RECORD_TAG + 1]);

interface CounterRecord {
  readonly nextTableId: number;
}

interface BackfillProgress {
  /** The first table storage key not yet indexed, base64. */
  readonly cursor: string;
}

function tableRecordKey(name: string): Buffer {
  return Buffer.concat([TABLE_RECORDS_START, Buffer.from(name, 'utf8')]);
}

function backfillProgressKey(indexId: number): Buffer {
  const key = Buffer.allocUnsafe(6);
  key[0] = CATALOG_BYTE;
  key[1] = BACKFILL_TAG;
  key.writeUInt32BE(indexId, 2);
  return key;
}

export function itemPrefixOf(tableId: number): Buffer {
  const prefix = Buffer.allocUnsafe(RESOURCE_PREFIX_BYTES);
  prefix[0] = ITEMS_BYTE;
  prefix.writeUInt32BE(tableId, 1);
  return prefix;
}

/**
 * Whose a raw stored key is: a table's item (0x01 <table id>) or an index's entry (0x02 <index
 * id>). For tools that read keys without a catalog at hand (`dynatwin recover`); undefined for
 * the catalog's own keys, streams and the rest.
 */
export function ownerOfKey(key: Uint8Array): { readonly kind: 'table' | 'index'; readonly id: number } | undefined {
  if (key.byteLength < RESOURCE_PREFIX_BYTES) return undefined;
  const id = ((key[1]! << 24) | (key[2]! << 16) | (key[3]! << 8) | key[4]!) >>> 0;
  if (key[0] === ITEMS_BYTE) return { kind: 'table', id };
  if (key[0] === INDEX_ENTRIES_BYTE) return { kind: 'index', id };
  return undefined;
}

/** The stored key is a table's catalog record (its value a TableRecord). */
export function isTableRecordKey(key: Uint8Array): boolean {
  return key.byteLength > TABLE_RECORDS_START.byteLength && key[0] === CATALOG_BYTE && key[1] === TABLE_RECORD_TAG;
}

/** The range of every table's catalog record. */
export const TABLE_RECORDS_RANGE = { start: TABLE_RECORDS_START, end: TABLE_RECORDS_END } as const;

/** Hands out table and index ids from the one persisted counter, inside a write transaction. */
export class IdAllocator {
  #next: number;
  #used = false;

  constructor(view: ReadView) {
    this.#next = (view.get(COUNTER_KEY) as CounterRecord | undefined)?.nextTableId ?? 1;
  }

  next(): number {
    this.#used = true;
    return this.#next++;
  }

  persist(txn: WriteTransaction): void {
    if (this.#used) txn.put(COUNTER_KEY, { nextTableId: this.#next } satisfies CounterRecord);
  }
}

/** Records written before indexes had storage ids, upgraded at start-up (see Catalog.open). */
interface LegacyUpgrade {
  readonly records: TableRecord[];
  readonly ids: IdAllocator;
}

export class Catalog {
  private readonly storage: Storage;
  private readonly env: IndexEnvironment;
  private readonly streams: StreamStore;
  private readonly tables = new Map<string, Table>();
  /** The write persisting upgraded legacy records, if start-up needed one. */
  readonly upgraded: Promise<void> | undefined;
  /** The write persisting what start-up recounted for tables with LSIs (a store without their statistics). */
  #recountSaved: Promise<void> | undefined;

  private constructor(storage: Storage, env: IndexEnvironment, streams: StreamStore, upgrade: LegacyUpgrade) {
    this.storage = storage;
    this.env = env;
    this.streams = streams;
    this.upgraded = upgrade.records.length === 0 ? undefined : this.persistUpgrade(upgrade);
  }

  /**
   * Loads every table definition with its statistics, restores the progress of interrupted
   * backfills. Item counts and bytes of a table and of its live GSIs come from their partitions'
   * persisted counts (partition-tracker.ts), those of a table with LSIs and of its LSIs from its
   * statistics record (table-statistics.ts), in time independent of the data; what has neither is
   * recounted from the data: stores written before they were kept, indexes being backfilled or
   * removed. A table with LSIs recounted here has its figures saved at once, so it is recounted
   * once. LSI item collection sizes are not loaded: writes read them as they need them
   * (item-collections.ts).
   */
  static open(storage: Storage, env: IndexEnvironment, streams: StreamStore): Catalog {
    const upgrade: LegacyUpgrade = { records: [], ids: new IdAllocator(storage) };
    const records: TableRecord[] = [];
    for (const entry of storage.range({ start: TABLE_RECORDS_START, end: TABLE_RECORDS_END })) {
      records.push(upgradedRecord(entry.value as TableRecord, upgrade));
    }
    const catalog = new Catalog(storage, env, streams, upgrade);
    const recounted: Table[] = [];
    for (const record of records) {
      const prefix = itemPrefixOf(record.id);
      const saved = readSavedStatistics(storage, record);
      const partitions = ResourcePartitions.open(storage, record.id, prefix, env.partitionSettings, tableThroughput(record), localIndexPrefixesOf(record), saved !== undefined);
      const table = new Table(record, prefix, { itemCount: 0, sizeBytes: 0 }, new TableIndexRuntime(env, record), partitions);
      restoreBackfillProgress(storage, table);
      openIndexPartitions(storage, table, env);
      restoreStatistics(storage, table, saved);
      if (saved === undefined && persistsStatistics(record)) recounted.push(table);
      attachTableStream(streams, table);
      catalog.tables.set(record.name, table);
    }
    if (recounted.length > 0) catalog.#recountSaved = catalog.saveRecounted(recounted);
    return catalog;
  }

  /** Start-up's writes, if it made any (legacy records upgraded, recounted statistics saved). */
  get settled(): Promise<unknown> {
    return Promise.all([this.upgraded, this.#recountSaved]);
  }

  /**
   * The partition counts and statistics start-up measured for tables with LSIs, saved together
   * (the statistics record vouches for the counts, table-statistics.ts), before any request's
   * write. A table deleted or replaced meanwhile is skipped.
   */
  private saveRecounted(tables: readonly Table[]): Promise<void> {
    return this.storage.write((txn) => {
      for (const table of tables) {
        if (this.sameTable(table.name, table.record.id, 'due-too') === undefined) continue;
        table.partitions.saveMeasured(txn);
        saveStatistics(txn, table);
      }
    });
  }

  /** The table, unless a delayed DeleteTable's time has passed (its removal may still be queued). */
  get(name: string): Table | undefined {
    const table = this.tables.get(name);
    return table === undefined || this.gone(table) ? undefined : table;
  }

  /**
   * "Is this still the same table?", asked by every write and background job about a table it
   * found earlier: the table now under `name` if it is the one with storage id `tableId`, or
   * undefined when that one was deleted since (or deleted and created again under its name: another
   * table, another id). 'served' (default) sees the tables `get` sees; 'due-too' also one whose
   * delayed DeleteTable's time has passed (its removal itself, start-up's recount).
   */
  sameTable(name: string, tableId: number, scope: 'served' | 'due-too' = 'served'): Table | undefined {
    const table = scope === 'served' ? this.get(name) : this.tables.get(name);
    return table !== undefined && table.record.id === tableId ? table : undefined;
  }

  /** Table names in DynamoDB's ListTables order (ascending by UTF-16 code unit, as Java sorts). */
  names(): string[] {
    const names: string[] = [];
    for (const [name, table] of this.tables) if (!this.gone(table)) names.push(name);
    return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Every table in memory, those whose deletion is due included (for the deletion scheduler). */
  all(): Iterable<Table> {
    return this.tables.values();
  }

  private gone(table: Table): boolean {
    const dueMs = table.record.deletingUntilMs;
    return dueMs !== undefined && this.env.clock.nowMs() >= dueMs;
  }

  get size(): number {
    return this.tables.size;
  }

  /** Every table's gauges, in name order, for the metrics' sampling (metrics/gauges.ts GaugeSource). */
  *gaugeReadings(): Iterable<TableGaugeReading> {
    for (const name of this.names()) yield gaugeReadingOf(this.tables.get(name)!);
  }

  /**
   * Creates a table from a record whose table and index ids are drawn from `ids` (the table's
   * first). `check` runs inside the write transaction, so two concurrent CreateTable calls for one
   * name cannot both succeed.
   */
  create(makeRecord: (ids: IdAllocator) => TableRecord, check: () => void): Promise<Table> {
    return this.storage.write((txn) => {
      check();
      const ids = new IdAllocator(txn);
      const record = makeRecord(ids);
      // A table whose delayed deletion is due but not yet committed goes first.
      const stale = this.tables.get(record.name);
      if (stale !== undefined) {
        assert(this.gone(stale), 'CreateTable checked that the name is free');
        this.removeInTransaction(txn, stale);
      }
      ids.persist(txn);
      txn.put(tableRecordKey(record.name), record);
      const prefix = itemPrefixOf(record.id);
      const partitions = ResourcePartitions.create(txn, record.id, prefix, this.env.partitionSettings, tableThroughput(record), localIndexPrefixesOf(record));
      const table = new Table(record, prefix, { itemCount: 0, sizeBytes: 0 }, new TableIndexRuntime(this.env, record), partitions);
      syncPartitions(txn, undefined, table, this.env);
      saveStatistics(txn, table);
      syncTableStream(txn, this.streams, table);
      this.tables.set(record.name, table);
      return table;
    });
  }

  /** Replaces a table's record; `makeRecord` sees the current table inside the transaction. */
  update(name: string, makeRecord: (current: Table, ids: IdAllocator) => TableRecord): Promise<Table> {
    return this.storage.write((txn) => {
      const current = this.requireInTransaction(name);
      const ids = new IdAllocator(txn);
      const record = makeRecord(current, ids);
      ids.persist(txn);
      return this.replaceInTransaction(txn, current, record);
    });
  }

  /** Replaces a table's record inside a write the caller already holds (backfill, index removal). */
  replaceInTransaction(txn: WriteTransaction, current: Table, record: TableRecord): Table {
    assert(record.id === current.record.id && record.name === current.name, 'an update keeps the table identity');
    txn.put(tableRecordKey(record.name), record);
    const table = current.withRecord(record);
    syncPartitions(txn, current, table, this.env);
    syncTableStream(txn, this.streams, table);
    this.tables.set(record.name, table);
    return table;
  }

  /** Removes a table with its items and index entries; `check` runs first, inside the transaction. */
  delete(name: string, check: (current: Table) => void): Promise<Table> {
    return this.storage.write((txn) => {
      const current = this.requireInTransaction(name);
      check(current);
      this.removeInTransaction(txn, current);
      return current;
    });
  }

  /**
   * Removes a table a delayed DeleteTable marked, once its time has come; false when it is no
   * longer there (a CreateTable of the name removed it first).
   */
  removeDeleted(name: string, tableId: number): Promise<boolean> {
    return this.storage.write((txn) => {
      const current = this.sameTable(name, tableId, 'due-too');
      if (current === undefined) return false;
      assert(current.record.deletingUntilMs !== undefined, 'only a table marked DELETING is removed by its schedule');
      this.removeInTransaction(txn, current);
      return true;
    });
  }

  private removeInTransaction(txn: WriteTransaction, current: Table): void {
    removeRange(txn, current.itemPrefix);
    for (const index of current.indexes.all) {
      removeRange(txn, index.prefix);
      txn.remove(backfillProgressKey(index.id));
    }
    txn.remove(tableRecordKey(current.name));
    removeStatistics(txn, current.record.id);
    removePartitions(txn, current);
    detachTableStream(txn, this.streams, current);
    this.tables.delete(current.name);
    current.indexRuntime.dropAll();
  }

  private requireInTransaction(name: string): Table {
    const table = this.tables.get(name);
    // Callers check existence before writing; a table can still vanish in between when a
    // DeleteTable commits first, and then this request finds no table, as DynamoDB would.
    if (table === undefined) throw resourceNotFound();
    return table;
  }

  private persistUpgrade(upgrade: LegacyUpgrade): Promise<void> {
    return this.storage.write((txn) => {
      upgrade.ids.persist(txn);
      for (const record of upgrade.records) txn.put(tableRecordKey(record.name), record);
    });
  }
}

/** Saves how far a backfill got, in the same write as the entries it indexed. */
export function saveBackfillProgress(txn: WriteTransaction, indexId: number, cursor: Buffer): void {
  txn.put(backfillProgressKey(indexId), { cursor: cursor.toString('base64') } satisfies BackfillProgress);
}

export function clearBackfillProgress(txn: WriteTransaction, indexId: number): void {
  txn.remove(backfillProgressKey(indexId));
}

/**
 * Indexes stored before they had storage ids (and so before they were maintained) get an id now
 * and are rebuilt by a backfill, like a GSI added by UpdateTable.
 */
function upgradedRecord(record: TableRecord, upgrade: LegacyUpgrade): TableRecord {
  const hasId = (index: IndexRecord): boolean => typeof (index as { id?: unknown }).id === 'number';
  if ([...record.globalSecondaryIndexes, ...record.localSecondaryIndexes].every(hasId)) return record;
  const upgradeIndex = (index: IndexRecord): IndexRecord =>
    hasId(index) ? index : { ...index, id: upgrade.ids.next(), status: 'CREATING', backfilling: true };
  const upgraded = {
    ...record,
    globalSecondaryIndexes: record.globalSecondaryIndexes.map(upgradeIndex),
    localSecondaryIndexes: record.localSecondaryIndexes.map(upgradeIndex),
  };
  upgrade.records.push(upgraded);
  return upgraded;
}

/** Where a table's LSI entries are stored: with its items on its partitions (partition-tracker.ts). */
function localIndexPrefixesOf(record: TableRecord): Buffer[] {
  return record.localSecondaryIndexes.map((index) => indexPrefixOf(index.id));
}

function restoreStatistics(storage: Storage, table: Table, saved: SavedStatistics | undefined): void {
  if (saved !== undefined) restoreSavedStatistics(table, saved);
  else if (!persistsStatistics(table.record) && table.partitions.countsRestored) Object.assign(table.statistics, table.partitions.totals());
  else recountItems(storage, table);
  for (const index of table.indexes.all) {
    if (index.kind === 'local' && saved !== undefined) continue;
    const partitions = index.state.partitions;
    const restored = index.kind === 'global' && index.live && !index.backfilling && partitions !== undefined && partitions.countsRestored;
    if (restored) Object.assign(index.state.statistics, partitions.totals());
    else countEntries(storage, index.prefix, index.state.statistics);
  }
}

function recountItems(storage: Storage, table: Table): void {
  for (const entry of storage.range({ start: table.itemPrefix, end: prefixUpperBound(table.itemPrefix) })) {
    table.statistics.itemCount++;
    table.statistics.sizeBytes += itemSize(entry.value as AttributeMap);
  }
}

function countEntries(storage: Storage, prefix: Buffer, statistics: IndexStatistics): void {
  for (const entry of storage.range({ start: prefix, end: prefixUpperBound(prefix) })) {
    statistics.itemCount++;
    statistics.sizeBytes += itemSize(entry.value as AttributeMap);
  }
}

function restoreBackfillProgress(storage: Storage, table: Table): void {
  for (const index of table.indexes.all) {
    if (!index.backfilling) continue;
    const progress = storage.get(backfillProgressKey(index.id)) as BackfillProgress | undefined;
    if (progress !== undefined) index.state.backfillCursor = Buffer.from(progress.cursor, 'base64');
  }
}

function removeRange(txn: WriteTransaction, prefix: Buffer): void {
  // Collect first: removing while iterating a live range is not safe in every store.
  const keys: Uint8Array[] = [];
  for (const entry of txn.range({ start: prefix, end: prefixUpperBound(prefix) })) keys.push(entry.key);
  for (const key of keys) txn.remove(key);
}
