/**
 * The persisted statistics of a table with local secondary indexes, so that start-up reads one
 * record instead of the table's items and LSI entries.
 *
 * A table without LSIs needs none: its item count and bytes are the sums of its partitions'
 * persisted counts (partition-tracker.ts). A table with LSIs cannot take its bytes from there,
 * since its partitions also hold its LSI entries (a partition's size counts them), and its LSIs
 * have no partitions of their own. So one record per such table holds what DescribeTable reports:
 *
 *   0x00 'l' <table id, u32 BE> → SavedStatistics
 *
 * It is put by the write pipeline (applyPlans) in the same storage write as the items it counts,
 * once per table per request, so a crash can never leave it apart from the data; created with the
 * table, removed with it.
 *
 * It is also the marker that the table's persisted partition counts include its LSI entries' bytes
 * (stores written before that counted items only): partition-tracker.ts trusts an LSI table's
 * saved counts only when this record exists, and every writer of this record writes those counts
 * with it. A store without it (written before it existed) is measured once at start-up, and the
 * measured counts and this record are saved together (Catalog.open).
 */
import type { ReadView, WriteTransaction } from '../storage/storage.js';
import { catalogKey } from './partition-tracker.js';
import type { IndexRecord, Table, TableRecord } from './table.js';

const STATISTICS_TAG = 0x6c; // 'l' (tables with LSIs)
/** Bumped when what the record means changes; a record of another format is recounted. */
const STATISTICS_FORMAT = 1;

/** [index id, item count, bytes] of one LSI. */
type SavedIndexFigures = readonly [number, number, number];

export interface SavedStatistics {
  /** STATISTICS_FORMAT: the figures below, and partition counts that include LSI entry bytes. */
  readonly format: number;
  readonly itemCount: number;
  readonly sizeBytes: number;
  readonly localIndexes: readonly SavedIndexFigures[];
}

function statisticsKey(tableId: number): Buffer {
  return catalogKey(STATISTICS_TAG, tableId);
}

/** Only tables with LSIs persist statistics of their own. */
export function persistsStatistics(record: TableRecord): boolean {
  return record.localSecondaryIndexes.length > 0;
}

/**
 * An LSI still being backfilled (a store from before indexes had ids, catalog.ts upgradedRecord)
 * moves its statistics outside the write pipeline: its table is recounted at start-up until the
 * backfill is over, and saves nothing meanwhile.
 */
function backfillingLocal(indexes: readonly IndexRecord[]): boolean {
  return indexes.some((index) => index.backfilling === true);
}

/**
 * The table's saved statistics, if it persists them and they can be used: present, of this
 * format, with figures for each of its LSIs, none of them being backfilled. O(1).
 */
export function readSavedStatistics(view: ReadView, record: TableRecord): SavedStatistics | undefined {
  if (!persistsStatistics(record) || backfillingLocal(record.localSecondaryIndexes)) return undefined;
  const saved = view.get(statisticsKey(record.id)) as SavedStatistics | undefined;
  if (saved === undefined || saved.format !== STATISTICS_FORMAT) return undefined;
  const ids = new Set(saved.localIndexes.map(([id]) => id));
  return record.localSecondaryIndexes.every((index) => ids.has(index.id)) ? saved : undefined;
}

/** Gives the table and its LSIs their saved figures. */
export function restoreSavedStatistics(table: Table, saved: SavedStatistics): void {
  table.statistics.itemCount = saved.itemCount;
  table.statistics.sizeBytes = saved.sizeBytes;
  const figures = new Map(saved.localIndexes.map((entry) => [entry[0], entry]));
  for (const index of table.indexRuntime.current.locals) {
    const [, itemCount, sizeBytes] = figures.get(index.id)!;
    index.state.statistics.itemCount = itemCount;
    index.state.statistics.sizeBytes = sizeBytes;
  }
}

/** Puts the table's current statistics (a table with LSIs; a no-op for others). */
export function saveStatistics(txn: WriteTransaction, table: Table): void {
  if (!persistsStatistics(table.record)) return;
  const locals = table.indexRuntime.current.locals;
  if (locals.some((index) => index.backfilling)) return;
  const saved: SavedStatistics = {
    format: STATISTICS_FORMAT,
    itemCount: table.statistics.itemCount,
    sizeBytes: table.statistics.sizeBytes,
    localIndexes: locals.map((index) => [index.id, index.state.statistics.itemCount, index.state.statistics.sizeBytes] as const),
  };
  txn.put(statisticsKey(table.record.id), saved);
}

/** The table is gone (DeleteTable). */
export function removeStatistics(txn: WriteTransaction, tableId: number): void {
  txn.remove(statisticsKey(tableId));
}
