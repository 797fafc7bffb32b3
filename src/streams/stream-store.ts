/**
 * DynamoDB Streams: every stream of every table, its shards and its records.
 *
 * A stream begins when a table's stream is enabled (CreateTable, UpdateTable) and is labelled with
 * that time; disabling it (or deleting the table) closes every shard and leaves it DISABLED, still
 * readable until its records are 24 hours old. Enabling again starts a new stream.
 *
 * Shards follow the table's partitions: an enabled stream has one open shard per partition. When a
 * partition splits (size, throughput, on-demand growth), its shard closes — its
 * EndingSequenceNumber is its last record's — and one shard opens per child partition with the
 * closed shard as ParentShardId. Every change of a key goes to the open shard of the key's
 * partition, so a reader that finishes a parent before its children sees each key's changes in
 * order. Shards are brought in step with the partition map when the catalog changes a table (in
 * that write), and otherwise by the first change that finds its partition without a shard (the
 * split happened in this very write).
 *
 * Sequence numbers come from one counter per stream: increasing in commit order (writes are
 * serialised), so within a shard, and across a parent and its children. A new shard reserves one
 * as its StartingSequenceNumber, below each of its records. The counter restarts above everything
 * persisted (shard bounds, last records).
 *
 * Retention: a record older than 24 hours of the injected clock is trimmed — invisible to reads at
 * once, deleted in bounded steps: by later appends to its stream (TRIM_STEP_RECORDS every
 * TRIM_EVERY_APPENDS, O(1) amortised on the write path), and for streams nobody writes to any more
 * (idle tables, disabled streams, deleted tables) by the engine's clock-driven housekeeping, which
 * asks `trimDue` (O(streams), no store read) and runs `trimStep`s, each one short write. Each
 * stream knows when its oldest kept record turns 24 hours old, so a step visits only streams that
 * have something to delete. A disabled stream whose last record and shard are gone is forgotten,
 * its description deleted too.
 */
import { assert } from '../errors.js';
import type { Clock } from '../clock.js';
import { ownMember, setMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import type { ReadView, WriteTransaction } from '../storage/storage.js';
import type { StreamWriter } from './stream-writer.js';
import {
  EVENT_INSERT,
  EVENT_MODIFY,
  EVENT_REMOVE,
  recordKey,
  sequenceOfKey,
  shardEndKey,
  STREAM_METAS_END,
  STREAM_METAS_START,
  streamMetaKey,
  type EventKind,
  type StoredRecord,
  type StreamViewType,
} from './records.js';

/** DynamoDB Streams keeps records for 24 hours. */
export const STREAM_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Every this many appends to a stream, one trimming step runs in the appending write. */
const TRIM_EVERY_APPENDS = 256;
/** At most this many expired records are deleted per trimming step (more than are appended between steps). */
export const TRIM_STEP_RECORDS = 1024;
/** Seconds of records-per-second history kept per stream (the dashboard's rate). */
const RATE_SECONDS = 64;
/** The dashboard's rate is the mean over this many seconds, the current one included. */
const RATE_WINDOW_SECONDS = 10;

export interface StreamKeyElement {
  readonly AttributeName: string;
  readonly KeyType: 'HASH' | 'RANGE';
}

/** A partition as the stream needs it: its id and hash range [start, end). */
export interface PartitionRange {
  readonly id: number;
  readonly start: number;
  readonly end: number;
}

/** The live partition map of a table (capacity/partitions.ts's PartitionMap fits). */
export interface PartitionSource {
  list(): readonly PartitionRange[];
  partitionOf(hash: number): PartitionRange;
}

/** What the stream store needs to know about a table, from the engine. */
export interface StreamedTable {
  /** The table's storage id (never reused). */
  readonly tableId: number;
  readonly name: string;
  readonly arn: string;
  readonly keySchema: readonly StreamKeyElement[];
  /** The table is CREATING until then; its new stream is ENABLING meanwhile. */
  readonly activeAtMs: number;
  /** The enabled stream of the table's record, or undefined. */
  readonly stream: { readonly label: string; readonly viewType: StreamViewType } | undefined;
  readonly partitions: PartitionSource;
}

interface ShardMeta {
  /** Internal: the shard's part of its record keys. */
  readonly number: number;
  readonly shardId: string;
  readonly parentShardId?: string;
  /** The partition it follows, and that partition's hash range. */
  readonly partitionId: number;
  readonly hashStart: number;
  readonly hashEnd: number;
  readonly startSequence: number;
  readonly endSequence?: number;
  readonly closedAtMs?: number;
  /** Records up to this sequence have been deleted by trimming. */
  readonly trimmedThrough?: number;
}

/** A stream as persisted: 0x00 's' <id> (records.ts). Rewritten whenever its shards change. */
interface StreamMeta {
  readonly id: number;
  readonly tableId: number;
  readonly tableName: string;
  readonly tableArn: string;
  readonly label: string;
  readonly viewType: StreamViewType;
  readonly keySchema: readonly StreamKeyElement[];
  readonly createdAtMs: number;
  readonly activeAtMs: number;
  readonly disabledAtMs?: number;
  readonly nextShardNumber: number;
  readonly shards: readonly ShardMeta[];
}

/** A shard in memory: its persisted bounds plus the last sequence appended to it. */
export class Shard {
  readonly number: number;
  readonly shardId: string;
  readonly parentShardId: string | undefined;
  readonly partitionId: number;
  readonly hashStart: number;
  readonly hashEnd: number;
  readonly startSequence: number;
  endSequence: number | undefined;
  closedAtMs: number | undefined;
  trimmedThrough: number | undefined;
  /** The last sequence appended (committed or not); the start when none. */
  lastSequence: number;

  constructor(meta: ShardMeta, lastSequence: number) {
    this.number = meta.number;
    this.shardId = meta.shardId;
    this.parentShardId = meta.parentShardId;
    this.partitionId = meta.partitionId;
    this.hashStart = meta.hashStart;
    this.hashEnd = meta.hashEnd;
    this.startSequence = meta.startSequence;
    this.endSequence = meta.endSequence;
    this.closedAtMs = meta.closedAtMs;
    this.trimmedThrough = meta.trimmedThrough;
    this.lastSequence = lastSequence;
  }

  get open(): boolean {
    return this.endSequence === undefined;
  }

  toMeta(): ShardMeta {
    return {
      number: this.number,
      shardId: this.shardId,
      ...(this.parentShardId === undefined ? {} : { parentShardId: this.parentShardId }),
      partitionId: this.partitionId,
      hashStart: this.hashStart,
      hashEnd: this.hashEnd,
      startSequence: this.startSequence,
      ...(this.endSequence === undefined ? {} : { endSequence: this.endSequence }),
      ...(this.closedAtMs === undefined ? {} : { closedAtMs: this.closedAtMs }),
      ...(this.trimmedThrough === undefined ? {} : { trimmedThrough: this.trimmedThrough }),
    };
  }
}

export type StreamStatus = 'ENABLING' | 'ENABLED' | 'DISABLED';

/** One stream: its description, its shards, and (while enabled) the writer its table's writes call. */
export class Stream implements StreamWriter {
  readonly id: number;
  readonly tableId: number;
  readonly tableName: string;
  readonly tableArn: string;
  readonly label: string;
  readonly arn: string;
  readonly viewType: StreamViewType;
  readonly keySchema: readonly StreamKeyElement[];
  /** The key schema's attribute names, hash first: where a record's key is in its image. */
  readonly keyNames: readonly string[];
  readonly createdAtMs: number;
  readonly activeAtMs: number;
  disabledAtMs: number | undefined;
  /** In creation order: a parent always precedes its children. */
  shards: Shard[];
  readonly #openByPartition = new Map<number, Shard>();
  #nextShardNumber: number;
  #nextSequence: number;
  #partitions: PartitionSource | undefined;
  readonly #clock: Clock;
  readonly #hashName: string;
  readonly #rangeName: string | undefined;
  readonly #keepOld: boolean;
  readonly #keepNew: boolean;
  #appendsSinceTrim = 0;
  /**
   * When trimming next has work: the oldest kept record's (or closed shard's) time plus the
   * retention. -Infinity until a step has looked (after a restart); Infinity with nothing kept.
   */
  #trimDueMs: number;
  readonly #rateSeconds = new Float64Array(RATE_SECONDS).fill(-1);
  readonly #rateCounts = new Uint32Array(RATE_SECONDS);

  constructor(meta: StreamMeta, shards: Shard[], nextSequence: number, clock: Clock) {
    this.id = meta.id;
    this.tableId = meta.tableId;
    this.tableName = meta.tableName;
    this.tableArn = meta.tableArn;
    this.label = meta.label;
    this.arn = `${meta.tableArn}/stream/${meta.label}`;
    this.viewType = meta.viewType;
    this.keySchema = meta.keySchema;
    this.createdAtMs = meta.createdAtMs;
    this.activeAtMs = meta.activeAtMs;
    this.disabledAtMs = meta.disabledAtMs;
    this.shards = shards;
    this.#nextShardNumber = meta.nextShardNumber;
    this.#nextSequence = nextSequence;
    this.#clock = clock;
    this.#hashName = meta.keySchema.find((element) => element.KeyType === 'HASH')!.AttributeName;
    this.#rangeName = meta.keySchema.find((element) => element.KeyType === 'RANGE')?.AttributeName;
    this.keyNames = this.#rangeName === undefined ? [this.#hashName] : [this.#hashName, this.#rangeName];
    this.#keepOld = meta.viewType === 'OLD_IMAGE' || meta.viewType === 'NEW_AND_OLD_IMAGES';
    this.#keepNew = meta.viewType === 'NEW_IMAGE' || meta.viewType === 'NEW_AND_OLD_IMAGES';
    for (const shard of shards) if (shard.open) this.#openByPartition.set(shard.partitionId, shard);
    this.#trimDueMs = shards.length === 0 ? Infinity : -Infinity;
  }

  get enabled(): boolean {
    return this.disabledAtMs === undefined;
  }

  status(nowMs: number): StreamStatus {
    if (!this.enabled) return 'DISABLED';
    return nowMs < this.activeAtMs ? 'ENABLING' : 'ENABLED';
  }

  /** The shard with this id, if the stream still has it. */
  shard(shardId: string): Shard | undefined {
    return this.shards.find((shard) => shard.shardId === shardId);
  }

  onChange(txn: WriteTransaction, keyHash: number, oldItem: AttributeMap | undefined, newItem: AttributeMap | undefined, systemDelete: boolean): void {
    let kind: EventKind;
    if (oldItem === undefined) {
      if (newItem === undefined) return;
      kind = EVENT_INSERT;
    } else if (newItem === undefined) {
      kind = EVENT_REMOVE;
    } else {
      // Only changes reach here: the pipeline gives an unchanged item no change record.
      kind = EVENT_MODIFY;
    }
    const partitions = this.#partitions;
    assert(partitions !== undefined && this.enabled, 'a change reaches only an enabled stream');
    const partitionId = partitions.partitionOf(keyHash).id;
    let shard = this.#openByPartition.get(partitionId);
    if (shard === undefined) {
      // The partition split in this write (or since the shards were last brought in step).
      this.reshard(txn);
      shard = this.#openByPartition.get(partitionId);
      assert(shard !== undefined, 'every partition has an open shard after resharding');
    }
    const nowMs = this.#clock.nowMs();
    const sequence = this.#nextSequence++;
    const o = this.#keepOld ? oldItem : undefined;
    const n = this.#keepNew ? newItem : undefined;
    // One object shape for every record (absent members are undefined, which JSON leaves out);
    // the key only when no image holds it (recordKeys reads it from the image).
    const record: StoredRecord = {
      e: kind,
      t: nowMs,
      k: o === undefined && n === undefined ? this.#keyOf(newItem ?? oldItem!) : undefined,
      o,
      n,
      u: systemDelete ? 1 : undefined,
    };
    const key = recordKey(this.id, shard.number, sequence);
    if (record.n !== undefined && record.u === undefined && txn.putSpliced !== undefined) {
      // The new image is the item this write just put: a store that encoded it reuses its bytes.
      txn.putSpliced(key, record, recordHead(record), record.n, '}');
    } else {
      txn.put(key, record);
    }
    shard.lastSequence = sequence;
    this.#countRate(nowMs);
    if (this.#trimDueMs === Infinity) this.#trimDueMs = nowMs + STREAM_RETENTION_MS;
    if (++this.#appendsSinceTrim >= TRIM_EVERY_APPENDS) {
      this.#appendsSinceTrim = 0;
      this.trim(txn, nowMs);
    }
  }

  #keyOf(image: AttributeMap): AttributeMap {
    const rangeName = this.#rangeName;
    // A computed key is an own member even for `__proto__`; the range key is set as one too.
    const keys: Record<string, AttributeValue> = { [this.#hashName]: ownMember(image, this.#hashName)! };
    if (rangeName !== undefined) setMember(keys, rangeName, ownMember(image, rangeName)!);
    return keys;
  }

  #countRate(nowMs: number): void {
    const second = Math.floor(nowMs / 1000);
    const slot = second % RATE_SECONDS;
    if (this.#rateSeconds[slot] !== second) {
      this.#rateSeconds[slot] = second;
      this.#rateCounts[slot] = 0;
    }
    this.#rateCounts[slot]!++;
  }

  /** Records appended per second over the last RATE_WINDOW_SECONDS of the clock. */
  recordsPerSecond(nowMs: number): number {
    const current = Math.floor(nowMs / 1000);
    let total = 0;
    for (let slot = 0; slot < RATE_SECONDS; slot++) {
      const second = this.#rateSeconds[slot]!;
      if (second > current - RATE_WINDOW_SECONDS && second <= current) total += this.#rateCounts[slot]!;
    }
    return total / RATE_WINDOW_SECONDS;
  }

  /** Ties the stream to its table's live partition map (at open and whenever the table changes). */
  attach(partitions: PartitionSource): void {
    this.#partitions = partitions;
  }

  /**
   * Brings the shards in step with the partition map, inside `txn`: shards of partitions that are
   * gone close, and each partition without an open shard gets one, whose parent is the closed
   * shard whose hash range held it. Saves the stream when anything changed.
   */
  reshard(txn: WriteTransaction): void {
    const partitions = this.#partitions;
    if (partitions === undefined || !this.enabled) return;
    const nowMs = this.#clock.nowMs();
    const live = partitions.list();
    const liveIds = new Set(live.map((partition) => partition.id));
    let changed = false;
    const closed: Shard[] = [];
    for (const shard of [...this.#openByPartition.values()]) {
      if (liveIds.has(shard.partitionId)) continue;
      this.#close(shard, nowMs);
      closed.push(shard);
      changed = true;
    }
    for (const partition of live) {
      if (this.#openByPartition.has(partition.id)) continue;
      const parent = findParent(closed.length > 0 ? closed : this.shards, partition);
      this.#openShard(partition, parent, nowMs);
      changed = true;
    }
    if (changed) this.save(txn);
  }

  #openShard(partition: PartitionRange, parent: Shard | undefined, nowMs: number): void {
    const number = this.#nextShardNumber++;
    const startSequence = this.#nextSequence++;
    const meta: ShardMeta = {
      number,
      shardId: `shardId-${String(nowMs).padStart(20, '0')}-${number.toString(16).padStart(8, '0')}`,
      ...(parent === undefined ? {} : { parentShardId: parent.shardId }),
      partitionId: partition.id,
      hashStart: partition.start,
      hashEnd: partition.end,
      startSequence,
    };
    const shard = new Shard(meta, startSequence);
    this.shards.push(shard);
    this.#openByPartition.set(partition.id, shard);
  }

  #close(shard: Shard, nowMs: number): void {
    shard.endSequence = shard.lastSequence;
    shard.closedAtMs = nowMs;
    this.#openByPartition.delete(shard.partitionId);
  }

  /** Disables the stream: every shard closes; it stays readable until its records are trimmed. */
  disable(txn: WriteTransaction): void {
    if (!this.enabled) return;
    const nowMs = this.#clock.nowMs();
    for (const shard of [...this.#openByPartition.values()]) this.#close(shard, nowMs);
    this.disabledAtMs = nowMs;
    this.#partitions = undefined;
    this.save(txn);
  }

  /** Whether trimming at `nowMs` would delete a record or forget a shard. O(1), no store read. */
  trimDue(nowMs: number): boolean {
    return nowMs > this.#trimDueMs;
  }

  /**
   * One trimming step: deletes up to `budget` records older than the retention, oldest shard
   * first, and forgets closed shards left with nothing to read; answers how many it deleted.
   */
  trim(txn: WriteTransaction, nowMs: number, budget: number = TRIM_STEP_RECORDS): number {
    assert(budget > 0, 'a trimming step may delete something');
    const cutoffMs = nowMs - STREAM_RETENTION_MS;
    let left = budget;
    let changed = false;
    /** The oldest time trimming must wait for, over the shards looked at to their end. */
    let keptFromMs = Infinity;
    let complete = true;
    for (const shard of [...this.shards]) {
      if (left === 0) {
        complete = false;
        break;
      }
      const expired: Uint8Array[] = [];
      let drained = true;
      for (const entry of txn.range({ start: recordKey(this.id, shard.number, 0), end: shardEndKey(this.id, shard.number), limit: left + 1 })) {
        const timeMs = (entry.value as StoredRecord).t;
        if (timeMs >= cutoffMs) {
          keptFromMs = Math.min(keptFromMs, timeMs);
          drained = false;
          break;
        }
        if (expired.length === left) {
          complete = false;
          drained = false;
          break;
        }
        expired.push(entry.key);
      }
      if (expired.length > 0) {
        shard.trimmedThrough = sequenceOfKey(expired[expired.length - 1]!);
        for (const key of expired) txn.remove(key);
        left -= expired.length;
        changed = true;
      }
      if (drained && !shard.open) {
        if (shard.closedAtMs! < cutoffMs) {
          this.shards = this.shards.filter((candidate) => candidate !== shard);
          changed = true;
        } else {
          keptFromMs = Math.min(keptFromMs, shard.closedAtMs!);
        }
      }
    }
    // Appends since this write began are newer than anything looked at, and move the time only when nothing was kept.
    this.#trimDueMs = complete ? (keptFromMs === Infinity ? Infinity : keptFromMs + STREAM_RETENTION_MS) : -Infinity;
    if (changed) this.save(txn);
    return budget - left;
  }

  /** A disabled stream with no shard left (all trimmed and forgotten): nothing of it can be read. */
  get forgettable(): boolean {
    return !this.enabled && this.shards.length === 0;
  }

  save(txn: WriteTransaction): void {
    const meta: StreamMeta = {
      id: this.id,
      tableId: this.tableId,
      tableName: this.tableName,
      tableArn: this.tableArn,
      label: this.label,
      viewType: this.viewType,
      keySchema: this.keySchema,
      createdAtMs: this.createdAtMs,
      activeAtMs: this.activeAtMs,
      ...(this.disabledAtMs === undefined ? {} : { disabledAtMs: this.disabledAtMs }),
      nextShardNumber: this.#nextShardNumber,
      shards: this.shards.map((shard) => shard.toMeta()),
    };
    txn.put(streamMetaKey(this.id), meta);
  }
}

/**
 * A record's JSON up to its new image: JSON.stringify(record) is exactly this + JSON.stringify(n)
 * + '}' for a record with a new image and no `u` (the members in StoredRecord's order, undefined
 * ones left out, as JSON.stringify does).
 */
export function recordHead(record: StoredRecord): string {
  const key = record.k === undefined ? '' : `,"k":${JSON.stringify(record.k)}`;
  const old = record.o === undefined ? '' : `,"o":${JSON.stringify(record.o)}`;
  return `{"e":${record.e},"t":${JSON.stringify(record.t)}${key}${old},"n":`;
}

/** The closed shard whose hash range holds `partition` (the latest, if several did). */
function findParent(candidates: readonly Shard[], partition: PartitionRange): Shard | undefined {
  let parent: Shard | undefined;
  for (const shard of candidates) {
    if (!shard.open && shard.hashStart <= partition.start && partition.end <= shard.hashEnd) parent = shard;
  }
  return parent;
}

/**
 * Every stream of an engine, persisted beside the catalog. The catalog calls `sync` in every write
 * that creates, changes or deletes a table; reads (the Streams API) use the rest.
 */
export class StreamStore {
  readonly #view: ReadView;
  readonly #clock: Clock;
  /** By storage id, in creation order. */
  readonly #streams = new Map<number, Stream>();
  readonly #byArn = new Map<string, Stream>();
  /** The enabled stream of each table, by table storage id. */
  readonly #enabled = new Map<number, Stream>();
  #nextStreamId: number;

  private constructor(view: ReadView, clock: Clock) {
    this.#view = view;
    this.#clock = clock;
    this.#nextStreamId = 1;
  }

  /** Loads every stream; each sequence counter restarts above what is persisted. */
  static open(view: ReadView, clock: Clock): StreamStore {
    const store = new StreamStore(view, clock);
    for (const entry of view.range({ start: STREAM_METAS_START, end: STREAM_METAS_END })) {
      const meta = entry.value as StreamMeta;
      let highest = 0;
      const shards = meta.shards.map((shardMeta) => {
        const last = lastStoredSequence(view, meta.id, shardMeta.number) ?? shardMeta.startSequence;
        highest = Math.max(highest, last, shardMeta.startSequence, shardMeta.endSequence ?? 0, shardMeta.trimmedThrough ?? 0);
        return new Shard(shardMeta, last);
      });
      store.#add(new Stream(meta, shards, highest + 1, clock));
      store.#nextStreamId = Math.max(store.#nextStreamId, meta.id + 1);
    }
    return store;
  }

  #add(stream: Stream): void {
    this.#streams.set(stream.id, stream);
    this.#byArn.set(stream.arn, stream);
    if (stream.enabled) this.#enabled.set(stream.tableId, stream);
  }

  /** At start-up: the writer of the table's enabled stream, tied to its partition map (nothing written). */
  attach(table: StreamedTable): StreamWriter | undefined {
    const stream = this.#enabled.get(table.tableId);
    if (stream === undefined || table.stream === undefined || stream.label !== table.stream.label) return undefined;
    stream.attach(table.partitions);
    return stream;
  }

  /**
   * Inside the write that created or changed a table: starts, ends or reshards its stream as its
   * record now says, and answers the writer its writes must call (undefined without a stream).
   */
  sync(txn: WriteTransaction, table: StreamedTable): StreamWriter | undefined {
    const current = this.#enabled.get(table.tableId);
    const wanted = table.stream;
    if (current !== undefined && (wanted === undefined || wanted.label !== current.label)) {
      current.disable(txn);
      this.#enabled.delete(table.tableId);
    }
    if (wanted === undefined) return undefined;
    let stream = this.#enabled.get(table.tableId);
    if (stream === undefined) {
      stream = this.#create(txn, table, wanted.label, wanted.viewType);
    }
    stream.attach(table.partitions);
    stream.reshard(txn);
    return stream;
  }

  /** DeleteTable: the table's stream is disabled, readable for its retention. */
  tableDeleted(txn: WriteTransaction, tableId: number): void {
    const stream = this.#enabled.get(tableId);
    if (stream === undefined) return;
    stream.disable(txn);
    this.#enabled.delete(tableId);
  }

  #create(txn: WriteTransaction, table: StreamedTable, label: string, viewType: StreamViewType): Stream {
    const nowMs = this.#clock.nowMs();
    const meta: StreamMeta = {
      id: this.#nextStreamId++,
      tableId: table.tableId,
      tableName: table.name,
      tableArn: table.arn,
      label,
      viewType,
      keySchema: table.keySchema,
      createdAtMs: nowMs,
      activeAtMs: table.activeAtMs,
      nextShardNumber: 1,
      shards: [],
    };
    const stream = new Stream(meta, [], 1, this.#clock);
    this.#add(stream);
    stream.save(txn);
    return stream;
  }

  /** Whether some stream has records past the retention (or shards to forget) at `nowMs`. O(streams), no store read. */
  trimDue(nowMs: number): boolean {
    for (const stream of this.#streams.values()) if (stream.trimDue(nowMs)) return true;
    return false;
  }

  /**
   * One bounded trimming step inside `txn` (at most TRIM_STEP_RECORDS records deleted) over the
   * streams that are due, oldest first; a disabled stream left with nothing is forgotten and its
   * description deleted. The caller repeats it, one write at a time, while `trimDue` says so.
   */
  trimStep(txn: WriteTransaction, nowMs: number): void {
    let budget = TRIM_STEP_RECORDS;
    for (const stream of [...this.#streams.values()]) {
      if (!stream.trimDue(nowMs)) continue;
      budget -= stream.trim(txn, nowMs, budget);
      if (stream.forgettable) this.#forget(txn, stream);
      if (budget === 0) return;
    }
  }

  #forget(txn: WriteTransaction, stream: Stream): void {
    assert(!stream.enabled && this.#enabled.get(stream.tableId) !== stream, 'only a disabled stream is forgotten');
    txn.remove(streamMetaKey(stream.id));
    this.#streams.delete(stream.id);
    this.#byArn.delete(stream.arn);
  }

  /** Streams still listed: enabled ones, and disabled ones whose records may still be read. */
  list(nowMs: number): Stream[] {
    const cutoffMs = nowMs - STREAM_RETENTION_MS;
    return [...this.#streams.values()].filter((stream) => stream.disabledAtMs === undefined || stream.disabledAtMs >= cutoffMs);
  }

  byArn(arn: string): Stream | undefined {
    const stream = this.#byArn.get(arn);
    if (stream === undefined) return undefined;
    return this.list(this.#clock.nowMs()).includes(stream) ? stream : undefined;
  }

  /** The enabled stream of a table (by storage id), if it has one. */
  enabledFor(tableId: number): Stream | undefined {
    return this.#enabled.get(tableId);
  }

  byId(id: number): Stream | undefined {
    return this.#streams.get(id);
  }

  /** The committed store, for reads. */
  get view(): ReadView {
    return this.#view;
  }
}

/** The sequence of the last record stored in a shard, if any. */
export function lastStoredSequence(view: ReadView, streamId: number, shardNumber: number): number | undefined {
  for (const entry of view.range({ start: recordKey(streamId, shardNumber, 0), end: shardEndKey(streamId, shardNumber), reverse: true, limit: 1 })) {
    return sequenceOfKey(entry.key);
  }
  return undefined;
}

