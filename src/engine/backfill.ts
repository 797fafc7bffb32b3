/**
 * Background work on secondary indexes: the backfill of a GSI added by UpdateTable, and the removal
 * of a deleted GSI's entries.
 *
 * Each task is a series of short storage writes — one chunk of items (or entries) each — with a
 * turn of the event loop between them, so requests keep being served while it runs and none waits
 * behind more than one chunk. A backfill walks the table in storage-key order; its cursor (kept in
 * the index state and persisted with every chunk) splits the table in two: writes below it keep the
 * index in step themselves, writes above it are left for the backfill to read later (see
 * SecondaryIndex.covers). A last, empty chunk flips the index to ACTIVE, once every entry is committed.
 *
 * Tasks resume at start-up from the persisted cursor (or from scratch for a removal), and stop
 * between chunks when the engine closes.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { prefixUpperBound } from '../model/key-codec.js';
import type { Storage, WriteTransaction } from '../storage/storage.js';
import { keyAfter, readChunk } from './chunks.js';
import { clearBackfillProgress, saveBackfillProgress, type Catalog } from './catalog.js';
import { tableKeySuffixOf } from './index-keys.js';
import { applyEntryChange, entryChange, entryRemoval } from './index-maintenance.js';
import type { SecondaryIndex } from './indexes.js';
import type { IndexRecord, Table, TableRecord } from './table.js';

const ABSENT = { item: undefined, sizeBytes: 0 } as const;
/**
 * Items a backfill chunk indexes per turn of the event loop. Measured in memory (1 KB items, a
 * GSI with ALL projected, a loaded 2-core VM): ~17 us of CPU per item indexed, so chunks.ts's
 * 256-item chunks held the event loop ~4 ms each while requests waited; 64 keeps a turn near 1 ms.
 * (A removal only deletes entries, a few us each: it keeps the full chunks.)
 */
const BACKFILL_CHUNK_ITEMS = 64;

/** One step of a task inside a storage write; true when the task is finished. */
type Step = (txn: WriteTransaction) => boolean;

export class IndexTasks {
  readonly #storage: Storage;
  readonly #catalog: Catalog;
  readonly #log: (message: string) => void;
  /**
   * Running tasks by index id and kind. A GSI deleted while it is backfilled has both for a moment:
   * the backfill stops at its next chunk, finding the index DELETING.
   */
  readonly #running = new Map<string, Promise<void>>();
  #stopped = false;

  constructor(storage: Storage, catalog: Catalog, log: (message: string) => void) {
    this.#storage = storage;
    this.#catalog = catalog;
    this.#log = log;
  }

  /** Starts whatever every index of every table still needs: after a restart, unfinished work. */
  resumeAll(): void {
    for (const name of this.#catalog.names()) {
      const table = this.#catalog.get(name)!;
      for (const index of table.indexes.all) this.resume(table, index);
    }
  }

  /** Starts the index's backfill (CREATING) or removal (DELETING), unless it runs already. */
  resume(table: Table, index: SecondaryIndex): void {
    const taskKey = `${index.id}/${index.live ? 'backfill' : 'removal'}`;
    if (this.#stopped || this.#running.has(taskKey)) return;
    const tableId = table.record.id;
    const step: Step | undefined = !index.live
      ? (txn) => removalStep(this.#catalog, txn, table.name, tableId, index.id)
      : index.backfilling
        ? (txn) => backfillStep(this.#catalog, txn, table.name, tableId, index.id)
        : undefined;
    if (step === undefined) return;
    const task = this.#run(step).then(
      () => undefined,
      (error: unknown) => this.#log(`dynatwin: index ${index.name} of ${table.name}: ${error instanceof Error ? error.stack : String(error)}`),
    );
    this.#running.set(taskKey, task);
    void task.finally(() => this.#running.delete(taskKey));
  }

  /** Stops every task after its current chunk. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#running.values());
  }

  async #run(step: Step): Promise<void> {
    while (!this.#stopped) {
      if (await this.#storage.write(step)) return;
      await nextTurn();
    }
  }
}

/** The table and index a task works on, if both still exist as they were. */
function taskTarget(catalog: Catalog, tableName: string, tableId: number, indexId: number): { table: Table; index: SecondaryIndex } | undefined {
  const table = catalog.sameTable(tableName, tableId);
  if (table === undefined) return undefined;
  const index = table.indexes.byId(indexId);
  return index === undefined ? undefined : { table, index };
}

/** Indexes the next chunk of items from the cursor on; the last chunk makes the index ACTIVE. */
function backfillStep(catalog: Catalog, txn: WriteTransaction, tableName: string, tableId: number, indexId: number): boolean {
  const target = taskTarget(catalog, tableName, tableId, indexId);
  const start = target?.index.state.backfillCursor;
  if (target === undefined || !target.index.live || start === undefined) return true;
  const { table, index } = target;
  const chunk = readChunk(txn, start, prefixUpperBound(table.itemPrefix), BACKFILL_CHUNK_ITEMS);
  for (const { key, value } of chunk.entries) {
    const item = value as AttributeMap;
    const change = entryChange(index, tableKeySuffixOf(key, table.itemPrefix.length), ABSENT, { item, sizeBytes: itemSize(item) });
    if (change !== undefined) applyEntryChange(txn, index.state, change);
  }
  const last = chunk.entries.at(-1);
  // Only a chunk that finds nothing left activates the index, never the chunk that wrote the last
  // entries: the in-memory state flips when this function runs, before its write has committed,
  // and a reader who saw ACTIVE and then queried the committed store would miss those entries.
  // Each step starts only after the previous one committed, so the entries are readable by then.
  if (last === undefined) {
    index.state.backfillCursor = undefined;
    clearBackfillProgress(txn, index.id);
    catalog.replaceInTransaction(txn, table, withIndex(table.record, index.id, activated));
    return true;
  }
  // The smallest key after the last one indexed: every key below it is now covered.
  const cursor = keyAfter(last.key);
  index.state.backfillCursor = cursor;
  saveBackfillProgress(txn, index.id, cursor);
  return false;
}

/** Removes the next chunk of a deleted index's entries; the last chunk removes the index itself. */
function removalStep(catalog: Catalog, txn: WriteTransaction, tableName: string, tableId: number, indexId: number): boolean {
  const target = taskTarget(catalog, tableName, tableId, indexId);
  if (target === undefined) return true;
  const { table, index } = target;
  const chunk = readChunk(txn, index.prefix, prefixUpperBound(index.prefix));
  // Through the one entry-change primitive, without the partition map (it goes with the index).
  for (const { key, value } of chunk.entries) applyEntryChange(txn, index.state, entryRemoval(key, value as AttributeMap), undefined);
  if (!chunk.complete) return false;
  clearBackfillProgress(txn, index.id);
  catalog.replaceInTransaction(txn, table, withoutIndex(table.record, index.id));
  return true;
}

function activated(index: IndexRecord): IndexRecord {
  const { backfilling: _backfilling, ...rest } = index;
  return { ...rest, status: 'ACTIVE' };
}

function withIndex(record: TableRecord, indexId: number, change: (index: IndexRecord) => IndexRecord): TableRecord {
  const apply = (index: IndexRecord): IndexRecord => (index.id === indexId ? change(index) : index);
  return { ...record, globalSecondaryIndexes: record.globalSecondaryIndexes.map(apply), localSecondaryIndexes: record.localSecondaryIndexes.map(apply) };
}

/** The record without the index; attribute definitions only it used go with it, as DynamoDB prunes them. */
function withoutIndex(record: TableRecord, indexId: number): TableRecord {
  const keep = (index: IndexRecord): boolean => index.id !== indexId;
  const globalSecondaryIndexes = record.globalSecondaryIndexes.filter(keep);
  const localSecondaryIndexes = record.localSecondaryIndexes.filter(keep);
  const used = new Set<string>();
  for (const keySchema of [record.keySchema, ...[...globalSecondaryIndexes, ...localSecondaryIndexes].map((index) => index.keySchema)]) {
    for (const element of keySchema) used.add(element.AttributeName);
  }
  const attributeDefinitions = record.attributeDefinitions.filter((definition) => used.has(definition.AttributeName));
  return { ...record, attributeDefinitions, globalSecondaryIndexes, localSecondaryIndexes };
}
