/**
 * Asynchronous GSI propagation (`--gsi-lag <ms>`). DynamoDB updates global secondary indexes
 * after the write is acknowledged, so a GSI read can miss a fresh write; with a lag configured,
 * each write logs its GSI changes with a due time instead of applying them, and they are applied,
 * in write order, once the injected clock has passed that time.
 *
 * Nothing runs on a timer: pending changes are applied lazily by the next write or GSI read that
 * finds one due. A test on a ManualClock therefore decides exactly when a change becomes visible.
 *
 * The log is stored beside the data (0x03 <sequence>, written in the same storage write as the
 * item), so an acknowledged write's GSI changes survive a restart; an in-memory queue mirrors it.
 */
import type { AttributeMap } from '../model/attribute-value.js';
import type { ReadView, WriteTransaction } from '../storage/storage.js';
import { applyEntryChange, type EntryChange } from './index-maintenance.js';
import type { IndexState } from './indexes.js';

const LOG_BYTE = 0x03;
const SEQUENCE_BYTES = 6;
const LOG_START = Buffer.from([LOG_BYTE]);
const LOG_END = Buffer.from([LOG_BYTE + 1]);
/** Consumed queue slots are compacted away once this many have piled up. */
const COMPACT_AFTER = 1024;

/** A logged change as stored: keys as base64, so the value is plain JSON in every store. */
interface StoredChange {
  readonly due: number;
  readonly index: number;
  readonly remove?: string;
  readonly put?: string;
  readonly entry?: AttributeMap;
  readonly count: number;
  readonly bytes: number;
  /** The entry's size before the change (absent in logs written by older versions). */
  readonly old?: number;
}

interface PendingChange {
  readonly logKey: Buffer;
  readonly dueMs: number;
  readonly indexId: number;
  readonly change: EntryChange;
}

export class GsiPropagation {
  readonly #queue: PendingChange[] = [];
  #head = 0;
  #nextSequence: number;

  private constructor(nextSequence: number) {
    this.#nextSequence = nextSequence;
  }

  /** Loads the changes still pending when the store was last closed. */
  static load(view: ReadView): GsiPropagation {
    const pending: PendingChange[] = [];
    for (const entry of view.range({ start: LOG_START, end: LOG_END })) {
      const logKey = Buffer.from(entry.key);
      pending.push(pendingOf(logKey, entry.value as StoredChange));
    }
    const last = pending.at(-1);
    const propagation = new GsiPropagation(last === undefined ? 0 : sequenceOf(last.logKey) + 1);
    propagation.#queue.push(...pending);
    return propagation;
  }

  get pendingCount(): number {
    return this.#queue.length - this.#head;
  }

  /** Logs a change to apply at `dueMs`; due times only grow, so the queue stays in due order. */
  enqueue(txn: WriteTransaction, indexId: number, change: EntryChange, dueMs: number): void {
    const logKey = Buffer.allocUnsafe(1 + SEQUENCE_BYTES);
    logKey[0] = LOG_BYTE;
    logKey.writeUIntBE(this.#nextSequence++, 1, SEQUENCE_BYTES);
    txn.put(logKey, storedOf(indexId, change, dueMs));
    this.#queue.push({ logKey, dueMs, indexId, change });
  }

  hasDue(horizonMs: number): boolean {
    const next = this.#queue[this.#head];
    return next !== undefined && next.dueMs <= horizonMs;
  }

  /** Applies every change due by `horizonMs`, oldest first; changes for dropped indexes are discarded. */
  applyDue(txn: WriteTransaction, horizonMs: number, states: ReadonlyMap<number, IndexState>): void {
    while (this.hasDue(horizonMs)) {
      const pending = this.#queue[this.#head++]!;
      const state = states.get(pending.indexId);
      if (state !== undefined && !state.dropped) applyEntryChange(txn, state, pending.change);
      txn.remove(pending.logKey);
    }
    if (this.#head >= COMPACT_AFTER && this.#head * 2 >= this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
  }
}

function storedOf(indexId: number, change: EntryChange, dueMs: number): StoredChange {
  return {
    due: dueMs,
    index: indexId,
    ...(change.removeKey === undefined ? {} : { remove: change.removeKey.toString('base64') }),
    ...(change.putKey === undefined ? {} : { put: change.putKey.toString('base64'), entry: change.entry }),
    count: change.countDelta,
    bytes: change.bytesDelta,
    old: change.oldBytes,
  };
}

function pendingOf(logKey: Buffer, stored: StoredChange): PendingChange {
  const change: EntryChange = {
    removeKey: stored.remove === undefined ? undefined : Buffer.from(stored.remove, 'base64'),
    putKey: stored.put === undefined ? undefined : Buffer.from(stored.put, 'base64'),
    entry: stored.entry,
    countDelta: stored.count,
    bytesDelta: stored.bytes,
    // Logs written before partitions were tracked lack it; only a moved entry's partition figures need it.
    oldBytes: stored.old ?? 0,
    writeUnits: 0,
  };
  return { logKey, dueMs: stored.due, indexId: stored.index, change };
}

function sequenceOf(logKey: Buffer): number {
  return logKey.readUIntBE(1, SEQUENCE_BYTES);
}
