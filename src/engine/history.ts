/**
 * A table's item history: one record per applied item change, holding the item's image from
 * before the change, written by the write pipeline in the same storage write as the change
 * (table-stream.ts hands it over with the stream's). It is kept only while someone needs it: a
 * table with point-in-time recovery enabled, or a backup of the table being copied (backups.ts).
 * Tables without either have no history slot, and their writes pay nothing for it.
 *
 * What it makes possible: the table as it was at any instant since capture began. Reading the
 * table's current items in chunks (while writes go on) gives a "fuzzy" copy: each item as it was
 * at the moment its chunk was read. Then playing the history backwards, newest record first, down
 * to the instant wanted, and putting each record's old image in place, leaves every item that
 * changed since that instant at the old image of its first change after it — its value at that
 * instant — and every item that did not change at the value the copy read, which was its value
 * then too. So the result is exact without ever holding the store still (see ARCHITECTURE.md,
 * "Backups and point-in-time recovery").
 *
 * Storage layout:
 *   0x06 <table id, u32 BE> <time ms, u64 BE> <sequence, u32 BE> → HistoryRecord
 * in time order per table, so the records after an instant T start at key (table, T + 1, 0).
 * Times come from the injected clock, never decreasing per table (a clock set back records at the
 * last time used), so key order is apply order.
 */
import type { AttributeMap } from '../model/attribute-value.js';
import { prefixUpperBound } from '../model/key-codec.js';
import type { ReadView, WriteTransaction } from '../storage/storage.js';
import { assert } from '../errors.js';
import type { ChangeRecord } from './write-pipeline.js';

const HISTORY_BYTE = 0x06;
const PREFIX_BYTES = 5;
const KEY_BYTES = PREFIX_BYTES + 8 + 4;

/** One change: the item's key (its storage key after the table prefix) and its image before. */
export interface HistoryRecord {
  /** The item key suffix (partition-key hash and key bytes), base64. */
  readonly k: string;
  /** The item before the change; null when the change created it. */
  readonly o: AttributeMap | null;
}

export function historyPrefixOf(tableId: number): Buffer {
  const prefix = Buffer.allocUnsafe(PREFIX_BYTES);
  prefix[0] = HISTORY_BYTE;
  prefix.writeUInt32BE(tableId, 1);
  return prefix;
}

/** The key of the record at (time, sequence); (T + 1, 0) is where the changes after T begin. */
export function historyKeyOf(tableId: number, timeMs: number, sequence: number): Buffer {
  const key = Buffer.allocUnsafe(KEY_BYTES);
  key[0] = HISTORY_BYTE;
  key.writeUInt32BE(tableId, 1);
  key.writeBigUInt64BE(BigInt(Math.max(0, Math.floor(timeMs))), PREFIX_BYTES);
  key.writeUInt32BE(sequence, PREFIX_BYTES + 8);
  return key;
}

export function historyTimeOf(key: Uint8Array): number {
  return Number(Buffer.from(key.buffer, key.byteOffset, key.byteLength).readBigUInt64BE(PREFIX_BYTES));
}

/** Why a table's history is kept: point-in-time recovery, and the backups being copied. */
export interface HistoryNeeds {
  /** Point-in-time recovery is enabled. */
  pointInTimeRecovery: boolean;
  /** Backups of the table whose copy is running. */
  backupsCopying: number;
}

/**
 * The in-memory side of one table's history, shared by every version of the table (it lives in
 * the table's ChangeSlot while capture is on): where the next record goes.
 */
export class TableHistory {
  readonly tableId: number;
  readonly #itemPrefixLength: number;
  readonly #nowMs: () => number;
  readonly needs: HistoryNeeds = { pointInTimeRecovery: false, backupsCopying: 0 };
  #lastTimeMs: number;
  #nextSequence: number;

  constructor(view: ReadView, tableId: number, itemPrefixLength: number, nowMs: () => number) {
    this.tableId = tableId;
    this.#itemPrefixLength = itemPrefixLength;
    this.#nowMs = nowMs;
    // Continue after the newest record kept, so keys keep growing across restarts.
    const prefix = historyPrefixOf(tableId);
    const [last] = view.range({ start: prefix, end: prefixUpperBound(prefix), reverse: true, limit: 1 });
    this.#lastTimeMs = last === undefined ? 0 : historyTimeOf(last.key);
    this.#nextSequence = last === undefined ? 0 : Buffer.from(last.key).readUInt32BE(PREFIX_BYTES + 8) + 1;
  }

  get needed(): boolean {
    return this.needs.pointInTimeRecovery || this.needs.backupsCopying > 0;
  }

  /**
   * The key the next record will have: every change committed after this call sorts at or after
   * it. Called inside a storage write, it marks an instant between two writes exactly.
   */
  nextKey(): Buffer {
    const timeMs = Math.max(this.#lastTimeMs, this.#nowMs());
    if (timeMs > this.#lastTimeMs) return historyKeyOf(this.tableId, timeMs, 0);
    return historyKeyOf(this.tableId, timeMs, this.#nextSequence);
  }

  /** Inside the change's storage write (the pipeline's ChangeSink). */
  record(txn: WriteTransaction, change: ChangeRecord): void {
    const timeMs = Math.max(this.#lastTimeMs, this.#nowMs());
    if (timeMs > this.#lastTimeMs) {
      this.#lastTimeMs = timeMs;
      this.#nextSequence = 0;
    }
    assert(this.#nextSequence <= 0xffffffff, 'fewer than 2^32 changes per millisecond');
    const key = historyKeyOf(this.tableId, timeMs, this.#nextSequence++);
    const suffix = Buffer.from(change.storageKey.buffer, change.storageKey.byteOffset + this.#itemPrefixLength, change.storageKey.byteLength - this.#itemPrefixLength);
    txn.put(key, { k: suffix.toString('base64'), o: change.oldImage ?? null } satisfies HistoryRecord);
  }
}
