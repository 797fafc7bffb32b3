/**
 * The default durable Storage: writes go to a write-ahead log (wal.ts) and an in-memory overlay;
 * LMDB (lmdb.ts) is the ordered store underneath, brought up to date in the background.
 *
 * Why. LMDB fdatasyncs random B-tree pages inside every commit (about 1.8 per put, keys being
 * hash-ordered), and even without any sync its per-put CPU cost holds PutItem to ~1.5x dynalite.
 * Here an acknowledged write costs one sequential append, synced once for every write of its
 * group, and a B-tree insert in memory; LMDB sees each key once per checkpoint, in key order, in
 * large batches that lmdb's own write thread applies.
 *
 * Layers, newest first (layers.ts reads through them):
 *   gathering  the group of writes being gathered (this event-loop turn, or while syncs run;
 *              a hash index of slots, ordered only if a write callback ranges over it)
 *   in flight  the groups whose frames are being written and synced (up to FRAMES_IN_FLIGHT_MAX)
 *   memtable   every durable write since the last checkpoint began (a B-tree of slots: the
 *              value and where its JSON is in the log, or a tombstone; no JSON text is kept;
 *              with a hash index for point reads, layers.ts Layer)
 *   frozen     the memtable a running checkpoint is copying into LMDB (immutable)
 *   LMDB       everything up to the last finished checkpoint; a filter of its keys (key-filter.ts)
 *              answers most lookups of a key it does not hold without descending its B-tree
 * write() callbacks see them all, so they see every earlier write, durable or not; reads outside
 * write() see the last three only, so they never return a write that is not yet durable (and so
 * could be lost by a crash after the reader acted on it). A group moves into the memtable, and
 * its writes' promises resolve, once its frame and every earlier group's frame are durable.
 *
 * Group commit. The first write into an idle store schedules the flush with setImmediate, so
 * every write of the same event-loop turn (every request that arrived in one poll) joins one
 * group. Up to FRAMES_IN_FLIGHT_MAX frames are written at once, each at the position fixed when
 * it is sent (the segment's end then). While each turn of the event loop brings new writes, a
 * group keeps gathering behind a frame in flight, and after it (a few turns at most) until it is
 * as large as the last group sent (#belowTarget); once a turn brings none (every client waits: the event loop would
 * idle) it goes out at any size. So a busy event loop sends fewer, larger frames (each costs it a
 * pool-thread wake-up and a completion, and the pool thread the sync's own CPU), and an idle one
 * overlaps two syncs. One group is one positional write of one frame, on libuv's
 * thread pool, off the event loop; under durability 'flush' the segment is opened O_DSYNC, so
 * that write returns once the frame is on the disk (wal.ts NODE_LOG_IO). Frames may reach the
 * disk out of order, but groups are acknowledged (moved into the memtable, their promises
 * resolved) strictly in order: a group whose frame is written waits for every earlier one. So
 * after a crash the log on the disk holds every acknowledged group and possibly a later frame
 * past a hole, which recovery drops (wal.ts). The frames in flight are drained (all written)
 * before the log moves to another segment and before the memtable freezes for a checkpoint, so a
 * segment is complete before the next one gets a frame, and a frozen memtable has every group
 * whose frame is in the segments its checkpoint covers. Under 'commit' a group is acknowledged once the
 * OS has its frame, without a sync: it survives a crash of the process, not of the machine (the
 * log then ends at its last whole frame, or start-up finds what looks like damage: see wal.ts).
 *
 * Checkpoints. When the log written since the memtable began passes `checkpointLogBytes`, or on
 * checkpoint() (tests, close, start-up after a replay), the next group boundary freezes the
 * memtable, starts a new one and a new log segment, and copies the frozen memtable into LMDB in
 * chunks of CHECKPOINT_CHUNK_ENTRIES (or CHECKPOINT_CHUNK_BYTES_MAX), one per event-loop turn,
 * so a checkpoint never holds the loop for more than about a millisecond. The chunks go to lmdb's write thread without
 * waiting for each one's commit (up to CHECKPOINT_CHUNKS_UNCOMMITTED_MAX): it commits what is
 * queued when it gets to it, so a checkpoint is a few LMDB commits, each synced in the background
 * (overlapping sync), rather than one per chunk; the checkpoint waits for that sync once, after
 * its last chunk. The values' JSON bytes are the ones the memtable's slots keep (PutSlot.source:
 * a copy of the frame as written, or the segment replayed at open), not encoded again nor read
 * back from the log's files. A spliced put (a stream record carrying the item its write put,
 * putSpliced) is never encoded whole: its frame op refers to the item's bytes, and the checkpoint
 * assembles its JSON around them.
 * Then it records the last segment it covers in `wal-checkpoint` and deletes those segments. A
 * crash in between is harmless: replaying a segment whose changes LMDB already has writes the
 * same values again. Reads stay right throughout, since the frozen memtable is read
 * before LMDB until LMDB has all of it. There is no timer: size is what bounds the memtable's
 * memory and the replay at start-up, and close() checkpoints everything. Should writes outrun a
 * checkpoint, a group waits for it once the memtable's log reaches CHECKPOINT_BACKLOG_FACTOR
 * times the bound.
 *
 * Segments. A segment is normally prepared: written as zeros and synced in the background before
 * the log moves into it (wal.ts PREPARED_SEGMENT), so a group's sync commits no file metadata.
 * The first segment after open is a plain one, left for a prepared one once that is ready; a
 * segment that fills up moves on to the next, so a memtable may span several segments.
 *
 * Recovery (open). Surveys the log after the recorded checkpoint before anything is opened or
 * changed (wal.ts surveyLog): zeros from a segment's last frame to its end are its prepared,
 * unused end; a break (a frame cut short, failing its crc, a hole with anything but zeros after
 * it) is a torn tail when no more than the frames that were in flight with it follow it (wal.ts
 * isTornTail), and damage otherwise, as is a prepared segment shorter than its prepared record
 * says (wal.ts PREPARED RECORDS: written with the zeros, removed before any cut or removal):
 * open then refuses, naming the file, the offset and the intact frames that follow (or its size
 * and prepared size), with nothing on the disk changed (`dynatwin recover` repairs it). Else it
 * replays the segments into the memtable, and only then cuts a torn tail (the file truncated
 * there, later segments removed, the cut logged), so what is kept is always a prefix of the
 * acknowledged history; then it opens a new segment and starts a checkpoint in the background.
 * Nothing reads LMDB's data at open.
 *
 * The filter of LMDB's keys. A write of a new key (most PutItems and BatchWriteItems) reads the
 * key through every layer and then LMDB, where a miss cost 4.5-9.7 us on the bench VM. A Bloom
 * filter of LMDB's keys rules most such lookups out. It is built at open from a scan of LMDB's
 * keys (values unread), a chunk per event-loop turn; until the scan is done every lookup goes to
 * LMDB. A checkpoint adds each key before queueing it to LMDB, to the filter in use and to one
 * being built, so no filter ever rules out a key LMDB holds (removed keys stay in it: a lookup
 * then goes to LMDB and finds nothing). A scan starts only while no checkpoint runs, as its
 * snapshot must not miss a key queued before the scan began; a filter past its capacity is
 * replaced by a bigger one the same way.
 *
 * DISK FAULTS. A full disk (ENOSPC) or an I/O error (EIO) is a state, not a crash: writes are
 * refused with a retryable 503 ServiceUnavailable whose text names the fault, the data directory
 * and the room needed (errors.ts writesRefused); reads go on; background work writes through
 * waitingWrites() and waits; and writes resume by themselves. A refusal comes BEFORE a write's fn
 * runs whenever the store can see it coming, so none of the caller's in-memory state moves:
 *   - a spare segment cannot be prepared (zeros written ahead are where ENOSPC shows first) and
 *     the current prepared segment has less than its headroom left (a quarter, at most 8 MB), or
 *     the current one is the plain segment of open (#logHasRoom);
 *   - at open, the disk has less room than a prepared segment (statfs);
 *   - a checkpoint failed (an LMDB commit, the mark): the frozen memtable and its segments stay,
 *     the durable copy of what LMDB may lack; no covered segment is deleted.
 * A frame that fails AFTER its writes ran (EIO, or ENOSPC in a plain segment's growing append or
 * on a filesystem that does not honour the zeros) fails every unacknowledged group, as a later
 * one may have read the failed writes; the log takes no more frames (#logBroken); once no frame
 * write is outstanding it is cut back to the end of its last acknowledged frame and synced, and
 * only then are those writes answered (503: not applied, even should the process die next). The
 * writes' callbacks had moved the caller's in-memory state, so the refusal is marked lostWrites:
 * before writes resume, onWritesLost's handler runs (server.ts opens a new engine on this store,
 * which holds exactly the acknowledged writes); background writes queued through views handed out
 * before are refused (they were decided on the old state), those of views handed out after wait.
 * Resuming (#resume) is tried on a timer, 100 ms after the refusal and then backing off to every
 * 2 s: wait for frame writes; cut back if still needed; run a failed checkpoint again; move the log
 * to a freshly prepared segment (its zeros written and synced prove the room is back) when the
 * log broke or lacked room; run onWritesLost if writes were lost; then take writes again and run
 * the background writes that waited. Each step that succeeded stays done. lmdb reports a full
 * tmpfs as EIO: a fault on a disk without room for a segment is reported as ENOSPC (#faultCode).
 *
 * Diagnostics. While anything subscribes to wal-channel.ts's channel, every frame is published
 * once written (its writes, bytes, send and write times, the frames ahead of it, a checkpoint
 * running, time held for a checkpoint's backlog); without a subscriber no clock is read.
 *
 * The stream change log is not merged into this log: see wal.ts.
 */
import { resolve as resolvePath } from 'node:path';
import { statfsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { internalError, writesRefused, type DynamoError } from '../errors.js';
import { codeOf } from './directory.js';
import { injectingLogIo, type StoreFaultInjector } from './fault-injection.js';
import { JsonCache } from './json-cache.js';
import { KeyFilter } from './key-filter.js';
import { Layer, mergedRange, readThrough, slotIn, slotValue, TOMBSTONE, type BaseLayer, type PutSlot, type Slot } from './layers.js';
import type { EncodedChange } from './lmdb.js';
import { LmdbStorage } from './lmdb.js';
import { assertStorableKey, callSynchronously, guardIteration, UndoLog } from './memory.js';
import { walFrameChannel, type WalFrameMessage } from './wal-channel.js';
import type { Entry, RangeOptions, RefusalStage, Storage, StoredValue, ValueWithJson, WriteRefusal, WriteTransaction } from './storage.js';
import {
  CHECKPOINT_LOG_BYTES_DEFAULT,
  clearPreparedRecord,
  decodeFrame,
  FRAME_HEADER_BYTES,
  FrameBuilder,
  isTornTail,
  listSegments,
  logDamagedError,
  NODE_LOG_IO,
  removeSegment,
  segmentPath,
  surveyLog,
  syncDirectory,
  truncateSegment,
  writeCheckpointMark,
  writePreparedRecord,
  type LogBreak,
  type LogFile,
  type LogIo,
  type LogSurvey,
  type ValueSpan,
} from './wal.js';

export type LoggedDurability = 'flush' | 'commit';

/**
 * Entries a checkpoint queues to LMDB per event-loop turn. Queuing one costs ~1.2 us of
 * main-thread CPU now that its bytes are the slot's own (measured on an idle 2-core VM: 128
 * entries of ~1 KB in 0.14-0.19 ms, p50 over 210 chunks; it was 9-13 us when each chunk waited
 * for the previous one's commit and the bytes were read back from the log's files), so a chunk is
 * well under a millisecond's work and requests get a turn between chunks. Each turn's chunk is at
 * most one LMDB commit (lmdb's write thread starts on a turn's writes once the turn ends, and
 * commits once it has caught up with what is queued), so this also bounds the commits of a
 * checkpoint from above: a 32 MB one (~27,000 entries of ~1 KB) takes at most ~53.
 */
export const CHECKPOINT_CHUNK_ENTRIES = 512;
/**
 * A chunk also ends once its values reach this many bytes. lmdb queues a value by reference (the
 * slot's bytes: no copy), but a spliced put's JSON is assembled into a new buffer (a copy on the
 * main thread, held until written), and lmdb starts writing a turn's batch before the turn ends
 * once it passes ~1,000 units of one write plus one per 4 KB: 512 writes and 1 MB stay under it,
 * so a chunk of large items is still one commit and a bounded copy.
 */
export const CHECKPOINT_CHUNK_BYTES_MAX = 1024 * 1024;
/**
 * Chunks a checkpoint queues to LMDB before it waits for the oldest one's commit. Not waiting for
 * each is what makes commits few: lmdb's write thread commits whatever is queued when it gets to
 * it, so one commit (and one LMDB sync of its pages, competing with the log's syncs for the disk)
 * takes in every chunk queued meanwhile (measured, 27,000 entries of ~1 KB: 199-211 commits
 * when each 128-entry chunk waited for the one before, 4-18 without waiting, 10-23 with writes
 * going on). The bound keeps what lmdb holds queued (a view of each value's bytes, its key, a
 * resolution; a spliced value's assembled copy) to 8,192 entries and ~16-22 MB of values should its
 * write thread fall behind.
 */
const CHECKPOINT_CHUNKS_UNCOMMITTED_MAX = 16;
/**
 * Frames written at once, each at its own position. With one, the event loop idles while a frame
 * syncs once every connection's write waits in it or in the group gathering behind it; with more,
 * the group gathered meanwhile goes out at once. Groups are acknowledged strictly in order, so a
 * crash leaves a prefix of the acknowledged history (a hole ends the log, wal.ts).
 */
export const FRAMES_IN_FLIGHT_MAX = 2;
/**
 * The most writes, and frame bytes, a busy event loop holds a group for (see #belowTarget): a
 * bound on what waiting adds to a write's latency; past them the group goes out once the frame
 * ahead is done, as any group would.
 */
const GROUP_TARGET_WRITES_MAX = 256;
const GROUP_TARGET_BYTES_MAX = 256 * 1024;
/**
 * The most turns a group is held for its target once no frame is in flight: a loop kept busy by
 * other work, with a write trickling in every turn, would otherwise hold each group for as many
 * turns as the last one had writes (and keep that target, no turn being quiet). Under a closed
 * loop of clients, the ones just answered are back within a few turns.
 */
const GROUP_HOLD_TURNS_MAX = 4;
/** Keys a scan of LMDB's keys (for the key filter) adds per event-loop turn: about a millisecond. */
const KEY_SCAN_CHUNK_KEYS = 1024;
/** While a checkpoint runs, the new memtable may reach this many times the bound before groups wait. */
const CHECKPOINT_BACKLOG_FACTOR = 2;
/**
 * A prepared segment (wal.ts PREPARED_SEGMENT) holds this much more than the checkpoint bound, so
 * the memtable's log usually fits one segment; a segment that fills up moves on to the next.
 */
const SEGMENT_PREPARED_FACTOR = 1.25;
/** The most zeros written ahead for one segment, whatever the checkpoint bound. */
const SEGMENT_PREPARED_BYTES_MAX = 64 * 1024 * 1024;
/**
 * A plain segment (the first after open) has a prepared one made to follow it only once it holds
 * this much (or a quarter of a prepared segment, if less): a store that is written little, such as
 * most tests' and a developer's, never writes megabytes of zeros. A prepared segment has the next
 * one made once it is half full, early enough for the next freeze (at ~80% of it) to find it ready.
 */
const PREPARE_AFTER_BYTES = 1024 * 1024;

export interface LoggedStorageOptions {
  /** The data directory: LMDB's files and the log's. Created if missing. */
  readonly path: string;
  readonly durability?: LoggedDurability;
  readonly checkpointLogBytes?: number;
  /** How the log's files are opened; tests wrap it to count syncs. */
  readonly io?: LogIo;
  /** Where start-up reports what it did to the log (a torn tail cut); nowhere if absent. */
  readonly log?: (message: string) => void;
  /**
   * Tests only (the crash test, through an environment variable the CLI reads at start-up):
   * ENOSPC / EIO injected into frame writes, segment preparation, the checkpoint mark and LMDB
   * commits (fault-injection.ts). Never set from a request.
   */
  readonly faults?: StoreFaultInjector;
}


const REFUSAL_STAGES: Readonly<Record<RefusalStage, string>> = {
  log: 'writing the write-ahead log',
  segment: 'preparing a write-ahead log segment',
  checkpoint: 'copying a checkpoint into LMDB',
  space: 'checking the free space at start-up',
};

/**
 * DISK FAULTS. Back-off between attempts to take writes again after a refusal: the first retry
 * comes soon (a filler file deleted, a burst of log drained), later ones every few seconds at
 * most, so a disk that stays full costs a segment's worth of zeros written and removed per
 * attempt, not a busy loop.
 */
const RESUME_DELAY_MIN_MS = 100;
const RESUME_DELAY_MAX_MS = 2000;
/** A spare segment that failed to prepare is tried again no sooner than this. */
const SPARE_RETRY_MS = 1000;
/**
 * Once no next segment can be prepared, writes are refused (before they run) while the current
 * prepared segment has less room than this left: a fraction of it, so the groups already
 * gathered, and a large transaction, still fit in blocks the file has.
 */
const SEGMENT_HEADROOM_FRACTION = 0.25;
const SEGMENT_HEADROOM_BYTES_MAX = 8 * 1024 * 1024;
/** Background writes (TTL, backfills, restores, splits) held while writes are refused; more are refused. */
const WAITING_WRITES_MAX = 4096;

/** The writes of one flush window. */
class Group {
  readonly tree = new Layer('on demand');
  writes = 0;
  /** Where its frame went (set when it is sent): the segment, and the frame's first byte in it. */
  segment = 0;
  frameStart = 0;
  /** Its frame is written (durable under 'flush'); it is acknowledged once every earlier one is too. */
  written = false;
  /** The frame's bytes as sent (a view of the reused builder's buffer, valid until acknowledged). */
  sealed: Buffer | undefined;
  readonly durable: Promise<void>;
  resolve!: () => void;
  reject!: (error: Error) => void;

  constructor(readonly frame: FrameBuilder) {
    this.durable = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // A group's failure reaches its writes through their own promises; this one is never awaited bare.
    this.durable.catch(() => undefined);
  }
}

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

/** The next segment, being written as zeros ahead of use (wal.ts PREPARED_SEGMENT). */
interface Spare {
  readonly segment: number;
  /** Resolves to the file once prepared and its name durable; undefined if preparing failed (it is then removed). */
  readonly file: Promise<LogFile | undefined>;
  /** The file, once prepared. */
  ready: LogFile | undefined;
}

/** What a running write callback's transaction works on. */
interface WriteContext {
  readonly group: Group;
  /**
   * Key, slot it displaced in the group's tree (undefined: none), in order of the changes. An
   * UndoLog, emptied by its count: an array emptied with `length = 0` drops its backing store, so
   * every write allocated it again (~170 bytes, measured).
   */
  readonly undo: UndoLog<Uint8Array, Slot>;
  /** Where in the group's frame the running write put each value (for putSpliced); emptied after it. */
  readonly encoded: UndoLog<StoredValue, ValueSpan>;
  readonly maxKeySize: number;
  layers(): readonly Layer[];
  readonly base: BaseLayer;
  changed(): void;
  changes(): number;
}

export class LoggedStorage implements Storage {
  readonly kind = 'lmdb+wal';
  readonly location: string;
  readonly #base: LmdbStorage;
  /** LMDB as the layers read it: a key the key filter rules out is not looked up. */
  readonly #filteredBase: BaseLayer;
  /**
   * The keys LMDB holds (key-filter.ts), once a scan of them finished: a key it rules out is not
   * in LMDB. Undefined until then: every lookup goes to LMDB. Checkpoints add every key they put.
   */
  #lmdbKeys: KeyFilter | undefined;
  /** A filter being built by #lmdbKeysScan; checkpoints add their keys to it too. */
  #lmdbKeysBuilding: KeyFilter | undefined;
  #lmdbKeysScan: Promise<void> | undefined;
  readonly #durability: LoggedDurability;
  readonly #checkpointLogBytes: number;
  readonly #io: LogIo;
  #log: LogFile;
  #segment: number;
  /** Bytes appended to the current segment: where the next frame starts. */
  #segmentBytes = 0;
  #spare: Spare | undefined;
  readonly #segmentPreparedBytes: number;
  /** Frame bytes in the log since the memtable began (replayed ones included). */
  #memtableLogBytes: number;
  #memtable: Layer;
  #frozen: Layer | undefined;
  #gathering: Group;
  /** Groups sent and not yet acknowledged, oldest first (at most FRAMES_IN_FLIGHT_MAX). */
  readonly #inFlight: Group[] = [];
  /** The gathering group's writes when the pump last let a turn pass before sending it (see #pump). */
  #writesAtLastTurn = 0;
  /** Writes of the last group sent: the size a busy loop lets the next one reach (see #belowTarget). */
  #lastSentWrites = 0;
  /** Turns the gathering group was held for its target with no frame in flight (see #belowTarget). */
  #turnsHeld = 0;
  readonly #spareFrames: FrameBuilder[] = [];
  /** The JSON text (and answer) of upper-layer values read through getWithJson (the memtable keeps none, see PutSlot), within a budget (json-cache.ts). */
  readonly #json = new JsonCache();
  /** Layers outside reads see, and layers write callbacks see; rebuilt when a layer comes or goes. */
  #readLayers: readonly Layer[] = [];
  #writeLayers: readonly Layer[] = [];
  /** Bumped by every change to any layer, so lazy merged ranges know to re-seek. */
  #changes = 0;
  #pumping = false;
  #writing = false;
  readonly #queued: Array<() => void> = [];
  readonly #undo = new UndoLog<Uint8Array, Slot>();
  readonly #encoded = new UndoLog<StoredValue, ValueSpan>();
  readonly #context: WriteContext;
  #checkpointWanted = false;
  #checkpointWaiters: Waiter[] = [];
  #checkpointRunning: Promise<void> | undefined;
  /** Why writes are refused now (DISK FAULTS), and the 503 they get; undefined while they are taken. */
  #refusal: WriteRefusal | undefined;
  #refusalError: DynamoError | undefined;
  /**
   * A frame failed after its writes ran (or a group could not be sent): no frame goes out until
   * the log is repaired (#resume): cut back to #cutBack and moved on to a fresh prepared segment.
   */
  #logBroken = false;
  /** Where the log is cut back to before it takes frames again: the first unacknowledged frame. */
  #cutBack: { readonly segment: number; readonly bytes: number } | undefined;
  /** The cut back of a failed frame under way (#cutLogBackNow), answering whether it succeeded. */
  #cutting: Promise<boolean> | undefined;
  /** Frame writes not settled yet; the repair waits for none to be left (#framesIdle). */
  #framesWriting = 0;
  #framesSettled: (() => void) | undefined;
  #resumeTimer: NodeJS.Timeout | undefined;
  #resuming: Promise<void> | undefined;
  #resumeDelayMs = RESUME_DELAY_MIN_MS;
  /** Writes are taken again only once the log moved to a freshly prepared segment (no room at open). */
  #needsPreparedSegment = false;
  /** The checkpoint of #frozen failed; #resume runs it again. */
  #checkpointFailed = false;
  /** The last segment the frozen memtable covers (for a checkpoint run again). */
  #frozenCovered = 0;
  /** The last failure to prepare a spare segment, and when (a new one is tried after SPARE_RETRY_MS). */
  #spareFailure: { readonly error: Error; readonly atMs: number } | undefined;
  /** Called before writes resume after a refusal that lost written-to-memory writes (the server reopens its engine). */
  #onWritesLost: (() => Promise<void>) | undefined;
  /** Background writes waiting for writes to resume (waitingWrites). */
  readonly #waiting: Array<{ run(): void; reject(error: Error): void }> = [];
  /** Bumped when a refusal lost writes: waitingWrites views handed out before it no longer wait. */
  #waitingGeneration = 0;
  readonly #faults: StoreFaultInjector | undefined;
  /** Groups held back for a checkpoint's backlog since the last frame event, in ms (timed only while wal-channel.ts has a subscriber). */
  #backlogWaitMs = 0;
  #closing: Promise<void> | undefined;
  #released = false;

  private constructor(base: LmdbStorage, options: LoggedStorageOptions, log: LogFile, segment: number, memtable: Layer, replayedBytes: number) {
    this.#base = base;
    this.#filteredBase = {
      get: (key) => (this.#lmdbMayHave(key) ? base.get(key) : undefined),
      range: (options) => base.range(options),
    };
    this.location = base.location;
    this.#durability = options.durability ?? 'flush';
    this.#checkpointLogBytes = options.checkpointLogBytes ?? CHECKPOINT_LOG_BYTES_DEFAULT;
    this.#segmentPreparedBytes = Math.min(SEGMENT_PREPARED_BYTES_MAX, Math.ceil(this.#checkpointLogBytes * SEGMENT_PREPARED_FACTOR));
    this.#faults = options.faults;
    this.#io = injectingLogIo(options.io ?? NODE_LOG_IO, options.faults);
    this.#log = log;
    this.#segment = segment;
    this.#memtable = memtable;
    this.#memtableLogBytes = replayedBytes;
    this.#gathering = new Group(new FrameBuilder());
    const store = this;
    this.#context = {
      get group() {
        return store.#gathering;
      },
      undo: this.#undo,
      encoded: this.#encoded,
      maxKeySize: base.maxKeySize,
      layers: () => this.#writeLayers,
      base: this.#filteredBase,
      changed: () => {
        this.#changes++;
      },
      changes: () => this.#changes,
    };
    this.#rebuildLayers();
    // Before any checkpoint can queue a key to LMDB (see #buildKeyFilter).
    this.#buildKeyFilter();
  }

  static async open(options: LoggedStorageOptions): Promise<LoggedStorage> {
    if (options.checkpointLogBytes !== undefined && !(options.checkpointLogBytes > 0)) throw new Error('checkpointLogBytes must be positive');
    // The log is read before LMDB opens, and a damaged one refuses the start with nothing on the
    // disk changed (LMDB's lock file included).
    const survey = await surveyLog(resolvePath(options.path));
    if (survey.break !== undefined && !isTornTail(survey.break, FRAMES_IN_FLIGHT_MAX)) throw logDamagedError(survey.break);
    // LMDB commits without waiting for its own sync ('commit': overlapping sync): nothing reads its
    // durability but the checkpoint, which waits for flushed() before the log it copied may go.
    const base = await LmdbStorage.open({ path: options.path, durability: 'commit' });
    try {
      const directory = base.location;
      const { memtable, replayedBytes, lastSegment } = await recover(directory, survey, options.log);
      const segment = lastSegment + 1;
      // A record of this number left behind would make the plain segment read as cut short.
      await clearPreparedRecord(directory, segment);
      const log = await injectingLogIo(options.io ?? NODE_LOG_IO, options.faults).create(segmentPath(directory, segment), (options.durability ?? 'flush') === 'flush');
      await syncDirectory(directory);
      // Read before the store exists: nothing may wait between its construction (which starts
      // the key filter's scan) and its return, or background work races ahead of the caller.
      const freeBytes = await freeBytesOf(directory);
      const store = new LoggedStorage(base, options, log, segment, memtable, replayedBytes);
      // A disk without room for a prepared segment: writes are refused from the start, before
      // any runs, rather than failing in the first segment's growing appends.
      store.#refuseWithoutRoom(freeBytes);
      // What was replayed goes to LMDB in the background, so a crash loop does not pile up log
      // (even while writes are refused for want of room: it frees the log it covers).
      if (memtable.size > 0) store.checkpoint().catch(() => undefined);
      return store;
    } catch (error) {
      await base.close();
      throw error;
    }
  }

  /** False only for a key LMDB surely does not hold (the key filter rules it out); true without a filter. */
  #lmdbMayHave(key: Uint8Array): boolean {
    return this.#lmdbKeys === undefined || this.#lmdbKeys.mayHave(key);
  }

  /** The filter of LMDB's keys (diagnostics and tests): whether one is in use, and whether one is being built. */
  get keyFilter(): { readonly ready: boolean; readonly building: boolean } {
    return { ready: this.#lmdbKeys !== undefined, building: this.#lmdbKeysScan !== undefined };
  }

  /** LMDB write transactions committed since open (diagnostics and tests: checkpoints are its only writer). */
  get lmdbCommits(): number {
    return this.#base.commits;
  }

  /** A checkpoint is copying a frozen memtable into LMDB (diagnostics and tests). */
  get checkpointing(): boolean {
    return this.#frozen !== undefined;
  }

  /** Why writes are refused now (a disk fault), or undefined while they are taken. */
  get writeRefusal(): WriteRefusal | undefined {
    return this.#refusal;
  }

  /**
   * Installs what runs before writes resume after a refusal that failed writes whose callbacks had
   * run (their effects on the caller's in-memory state are not undone; the server reopens its
   * engine on this store). Writes stay refused until it settles.
   */
  onWritesLost(handler: (() => Promise<void>) | undefined): void {
    this.#onWritesLost = handler;
  }

  /**
   * This store, but a write made while writes are refused waits until they are taken again
   * instead of failing: for background work (TTL sweeps, backfills, restores, splits). A waiting
   * write is refused after all if the store closes, or if the refusal lost writes (the engine that
   * made it is being replaced).
   */
  waitingWrites(): Storage {
    const store = this;
    const generation = this.#waitingGeneration;
    return {
      kind: this.kind,
      location: this.location,
      get: (key) => this.get(key),
      getWithJson: (key) => this.getWithJson(key),
      range: (options) => this.range(options),
      write: (fn) => store.#writeWhenTaken(fn, generation),
      close: () => this.close(),
    };
  }

  #writeWhenTaken<T>(fn: (txn: WriteTransaction) => T, generation: number): Promise<T> {
    if (this.#refusal === undefined || this.#closing !== undefined) return this.write(fn);
    if (generation !== this.#waitingGeneration || this.#waiting.length >= WAITING_WRITES_MAX) return Promise.reject(this.#refusalError!);
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ run: () => this.#writeWhenTaken(fn, generation).then(resolve, reject), reject });
    });
  }

  get(key: Uint8Array): StoredValue | undefined {
    this.#assertOpen();
    return readThrough(this.#readLayers, this.#filteredBase, key);
  }

  getWithJson(key: Uint8Array): ValueWithJson | undefined {
    this.#assertOpen();
    const slot = slotIn(this.#readLayers, key);
    if (slot === undefined) return this.#lmdbMayHave(key) ? this.#base.getWithJson(key) : undefined;
    if (slot === TOMBSTONE) return undefined;
    return this.#json.entry(slotValue(slot));
  }

  range(options: RangeOptions): Iterable<Entry> {
    this.#assertOpen();
    if (this.#memtable.size === 0 && this.#frozen === undefined) return this.#base.range(options);
    return mergedRange(() => this.#readLayers, this.#base, options, () => this.#changes);
  }

  write<T>(fn: (txn: WriteTransaction) => T): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(new Error('storage is closed'));
    // Before fn runs, so nothing of the caller's state moves for a refused write.
    if (this.#refusal !== undefined) return Promise.reject(this.#refusalError!);
    if (this.#writing) {
      // As with LMDB: a write started inside a write runs after it, not nested in it.
      return new Promise<T>((resolve, reject) => {
        this.#queued.push(() => {
          try {
            resolve(this.#runAndLog(fn));
          } catch (error) {
            reject(error);
          }
        });
      });
    }
    let done: Promise<T>;
    try {
      done = this.#runAndLog(fn);
    } catch (error) {
      this.#drainQueue();
      return Promise.reject(error);
    }
    this.#drainQueue();
    return done;
  }

  /**
   * Resolves once a checkpoint that began after this call has finished: every write durable
   * before the call is then in LMDB and its log segments are gone. For tests and close().
   */
  checkpoint(): Promise<void> {
    if (this.#released) return Promise.reject(new Error('storage is closed'));
    // A refusal for room or a failed checkpoint leaves the log whole: a checkpoint may still run.
    if (this.#logBroken) return Promise.reject(this.#refusalError!);
    return new Promise<void>((resolve, reject) => {
      this.#checkpointWaiters.push({ resolve, reject });
      this.#checkpointWanted = true;
      this.#schedulePump();
    });
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  /** Runs fn on the gathering group; answers the promise of its group's durability. */
  #runAndLog<T>(fn: (txn: WriteTransaction) => T): Promise<T> {
    const group = this.#gathering;
    const result = this.#runExclusive(fn, group);
    group.writes++;
    this.#schedulePump();
    return group.durable.then(() => result);
  }

  #runExclusive<T>(fn: (txn: WriteTransaction) => T, group: Group): T {
    const mark = group.frame.mark();
    const txn = new LoggedTransaction(this.#context);
    this.#writing = true;
    try {
      return callSynchronously(fn, txn);
    } catch (error) {
      this.#rollBack(group, mark);
      throw error;
    } finally {
      this.#writing = false;
      this.#undo.clear();
      this.#encoded.clear();
      txn.end();
    }
  }

  /** Undoes the running write's changes to its group, newest first, and cuts its ops from the frame. */
  #rollBack(group: Group, mark: number): void {
    const undo = this.#undo;
    for (let at = undo.count - 1; at >= 0; at--) {
      const key = undo.keyAt(at);
      const previous = undo.displacedAt(at);
      if (previous === undefined) group.tree.delete(key);
      else group.tree.set(key, previous);
    }
    group.frame.reset(mark);
    this.#changes++;
  }

  #drainQueue(): void {
    for (let next = this.#queued.shift(); next !== undefined; next = this.#queued.shift()) next();
  }

  #schedulePump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    // setImmediate, not a microtask: every request of this poll phase joins the group first.
    setImmediate(() => void this.#pump());
  }

  /**
   * Sends the groups out, up to FRAMES_IN_FLIGHT_MAX frames at once; drains them before the log
   * moves to another segment and before the memtable freezes for a checkpoint.
   */
  async #pump(): Promise<void> {
    try {
      for (;;) {
        if (this.#logBroken) return;
        if (this.#frozen !== undefined && this.#memtableLogBytes >= CHECKPOINT_BACKLOG_FACTOR * this.#checkpointLogBytes) {
          const waitStartMs = walFrameChannel.hasSubscribers ? performance.now() : undefined;
          await this.#checkpointRunning?.catch(() => undefined);
          if (waitStartMs !== undefined) this.#backlogWaitMs += performance.now() - waitStartMs;
        }
        // Not while a failed checkpoint's frozen memtable waits to be copied again (#resume).
        if (this.#checkpointWanted && this.#checkpointRunning === undefined && this.#frozen === undefined) {
          // Every frame sent belongs to the memtable being frozen and to the segments it covers.
          if (this.#inFlight.length > 0) {
            await this.#drain();
            continue;
          }
          await this.#freeze();
        }
        const group = this.#gathering;
        if (group.writes === 0) return;
        if (this.#inFlight.length >= FRAMES_IN_FLIGHT_MAX) {
          await this.#inFlight[0]!.durable.catch(() => undefined);
          continue;
        }
        if (group.writes !== this.#writesAtLastTurn && (this.#inFlight.length > 0 || this.#belowTarget(group))) {
          if (this.#inFlight.length === 0) this.#turnsHeld++;
          // A group grows while requests still arrive: each frame costs a wake-up of a pool
          // thread and a completion (measured on the bench VM: a 3 KB write through the pool
          // cost ~25 us of event-loop CPU and ~20 us of the pool thread's, against 4 us written
          // in place; an 8 KB O_DSYNC one 160-190 us in all), so it goes out only once a turn
          // brought no new write (every client is waiting), or once the frame ahead is done and
          // the group is as large as the last one sent (see #belowTarget).
          this.#writesAtLastTurn = group.writes;
          // After the event loop's next poll: requests that arrived meanwhile have joined the group.
          await nextTurn();
          continue;
        }
        // Into the prepared segment once it is ready, when this one is a plain one or full; a
        // segment's frames are all written before the next segment gets any.
        const frame = group.frame;
        if (frame.payloadBytes > 0 && this.#spare?.ready !== undefined && (this.#log.preparedBytes === 0 || this.#segmentBytes + FRAME_HEADER_BYTES + frame.payloadBytes > this.#log.preparedBytes)) {
          if (this.#inFlight.length > 0) await this.#drain();
          else await this.#moveTo((await this.#takeSpare())!);
          continue;
        }
        this.#send(group);
      }
    } catch (error) {
      // A segment could not be created or moved to: the gathering group's writes ran, so they fail.
      this.#fail(error, 'segment');
    } finally {
      this.#pumping = false;
    }
  }

  /**
   * A busy event loop (every turn brings new writes) holds a group that is smaller than the last
   * one sent, up to GROUP_TARGET_WRITES_MAX writes and GROUP_TARGET_BYTES_MAX bytes, for at most
   * GROUP_HOLD_TURNS_MAX turns once nothing is in flight: without it a saturated loop sends a
   * frame each time the one ahead is done, i.e. one per sync time, whatever the load, and under a
   * closed loop of clients (each waits for its answer) the groups stay as small as they started.
   * The last group's size stands for the clients that took part in one round; a turn without a
   * new write sends the group whatever its size, so the target follows a falling load down, and
   * an idle loop never waits.
   */
  #belowTarget(group: Group): boolean {
    return (
      this.#turnsHeld < GROUP_HOLD_TURNS_MAX &&
      group.writes < Math.min(this.#lastSentWrites, GROUP_TARGET_WRITES_MAX) &&
      group.frame.payloadBytes < GROUP_TARGET_BYTES_MAX
    );
  }

  /** Resolves once every group sent so far is acknowledged (or failed). */
  async #drain(): Promise<void> {
    const newest = this.#inFlight.at(-1);
    await newest?.durable.catch(() => undefined);
  }

  /**
   * Writes (and under 'flush' syncs) one group's frame at the log's end, without waiting for it;
   * the next group starts gathering. The group is acknowledged in #acknowledge.
   */
  #send(group: Group): void {
    this.#writesAtLastTurn = 0;
    this.#turnsHeld = 0;
    this.#lastSentWrites = group.writes;
    this.#gathering = new Group(this.#spareFrames.pop() ?? new FrameBuilder());
    this.#inFlight.push(group);
    this.#rebuildLayers();
    const frame = group.frame;
    if (frame.payloadBytes === 0) {
      // Writes that changed nothing: acknowledged in order, without I/O.
      group.written = true;
      this.#acknowledge();
      return;
    }
    const bytes = frame.seal();
    group.sealed = bytes;
    group.segment = this.#segment;
    group.frameStart = this.#segmentBytes;
    this.#segmentBytes += bytes.byteLength;
    this.#memtableLogBytes += bytes.byteLength;
    // Only with a subscriber (wal-channel.ts): no clock read, no message otherwise.
    const event = walFrameChannel.hasSubscribers ? this.#frameEvent(group, bytes.byteLength) : undefined;
    // Durable when it resolves under 'flush' (the segment is opened durable).
    this.#framesWriting++;
    this.#log.write(bytes, group.frameStart).then(
      () => {
        this.#frameSettled();
        group.written = true;
        if (event !== undefined) {
          event.writtenMs = performance.now();
          walFrameChannel.publish(event);
        }
        this.#acknowledge();
      },
      (error: unknown) => {
        this.#frameSettled();
        this.#fail(error, 'log');
      },
    );
    const prepared = this.#log.preparedBytes;
    if (this.#segmentBytes >= (prepared > 0 ? prepared / 2 : Math.min(PREPARE_AFTER_BYTES, this.#segmentPreparedBytes / 4))) this.#prepareSpare();
    if (this.#spareFailure !== undefined && !this.#logHasRoom()) this.#refuse(this.#spareFailure.error, 'segment', false);
    if (this.#memtableLogBytes >= this.#checkpointLogBytes) this.#checkpointWanted = true;
  }

  /** The frame event of a group being sent (#send, already in the in-flight queue); its writtenMs is set once written. */
  #frameEvent(group: Group, bytes: number): { -readonly [K in keyof WalFrameMessage]: WalFrameMessage[K] } {
    const backlogWaitMs = this.#backlogWaitMs;
    this.#backlogWaitMs = 0;
    return {
      location: this.location,
      durability: this.#durability,
      writes: group.writes,
      bytes,
      sentMs: performance.now(),
      writtenMs: 0,
      framesAhead: this.#inFlight.length - 1,
      checkpointing: this.#checkpointRunning !== undefined,
      backlogWaitMs,
    };
  }

  /**
   * Acknowledges the written groups at the head of the in-flight queue, oldest first: a group
   * whose frame is written but follows one still in flight waits for it, so what has been
   * acknowledged is always a prefix of the log on the disk. Each moves into the memtable.
   */
  #acknowledge(): void {
    const inFlight = this.#inFlight;
    if (inFlight.length === 0 || !inFlight[0]!.written) return;
    const memtable = this.#memtable;
    const done: Group[] = [];
    while (inFlight.length > 0 && inFlight[0]!.written) {
      const group = inFlight.shift()!;
      const { segment, frameStart } = group;
      // The memtable keeps the frame's bytes, not its values (see PutSlot); a copy, the builder being reused.
      const kept = group.sealed === undefined ? undefined : Buffer.from(group.sealed);
      group.sealed = undefined;
      for (const [binaryKey, slot] of group.tree.unordered()) {
        if (slot !== TOMBSTONE) {
          if (kept !== undefined) {
            slot.source = kept;
            slot.sourceOffset = slot.offset;
            slot.value = undefined;
          }
          // From a place in the frame to a place in the file.
          slot.segment = segment;
          slot.offset += frameStart;
        }
        memtable.setByBinary(binaryKey, slot);
      }
      done.push(group);
    }
    this.#changes++;
    this.#rebuildLayers();
    for (const group of done) {
      group.frame.clear();
      this.#spareFrames.push(group.frame);
      group.resolve();
    }
    if (this.#checkpointWanted) this.#schedulePump();
  }

  /** Starts preparing the segment after the current one, unless one is already under way. */
  #prepareSpare(): void {
    // Under 'commit' no group is synced, so there is no metadata commit per group to save.
    if (this.#durability !== 'flush' || this.#spare !== undefined || this.#closing !== undefined || this.#logBroken) return;
    if (this.#spareFailure !== undefined && Date.now() - this.#spareFailure.atMs < SPARE_RETRY_MS) return;
    const segment = this.#segment + 1;
    const spare: Spare = {
      segment,
      ready: undefined,
      file: this.#prepareSegment(segment).then(
        (file) => {
          spare.ready = file;
          this.#spareFailure = undefined;
          return file;
        },
        // Half-written zeros do not stay under the name a plain segment would then take
        // (#prepareSegment removed them). The log goes on in the current segment; once that has
        // too little room left, writes are refused before they run (#logHasRoom), until a
        // segment can be prepared again.
        (error: unknown) => {
          if (this.#spare === spare) this.#spare = undefined;
          this.#spareFailure = { error: asError(error), atMs: Date.now() };
          if (!this.#logHasRoom()) this.#refuse(error, 'segment', false);
          return undefined;
        },
      ),
    };
    this.#spare = spare;
  }

  /**
   * Whether the log can take more groups without a growing append: a next segment is ready or
   * being prepared, or the current prepared one has at least its headroom left. A plain segment
   * (the first after open) has room only while its spare is not known to fail.
   */
  #logHasRoom(): boolean {
    if (this.#spare !== undefined || this.#spareFailure === undefined) return true;
    const prepared = this.#log.preparedBytes;
    const headroom = Math.min(SEGMENT_HEADROOM_BYTES_MAX, prepared * SEGMENT_HEADROOM_FRACTION);
    return prepared > 0 && prepared - this.#segmentBytes >= headroom;
  }

  /**
   * At open: refuses writes from the start when the disk has no room for a prepared segment
   * (`freeBytes` undefined: no statfs here, and the first segment's appends will tell).
   */
  #refuseWithoutRoom(freeBytes: number | undefined): void {
    if (freeBytes === undefined) return;
    if (freeBytes >= this.#segmentPreparedBytes) return;
    const error = Object.assign(new Error(`${freeBytes} bytes free, a log segment takes ${this.#segmentPreparedBytes}`), { code: 'ENOSPC' });
    this.#needsPreparedSegment = true;
    this.#refuse(error, 'space', false);
  }

  /** The prepared next segment (waiting for it if under way), now taken; undefined if there is none. */
  async #takeSpare(): Promise<LogFile | undefined> {
    const spare = this.#spare;
    if (spare === undefined) return undefined;
    const file = await spare.file;
    this.#spare = undefined;
    if (spare.segment !== this.#segment + 1) throw new Error(`the prepared log segment ${spare.segment} does not follow segment ${this.#segment}`);
    return file;
  }

  /** The log goes on in `log`, the segment after the current one; the next one starts being prepared. */
  async #moveTo(log: LogFile): Promise<void> {
    const previous = this.#log;
    this.#log = log;
    this.#segment++;
    this.#segmentBytes = 0;
    await previous.close();
  }

  /** At a group boundary: the memtable becomes the frozen layer and the log moves to a new segment. */
  async #freeze(): Promise<void> {
    const covered = this.#segment;
    const directory = this.location;
    // The new segment first: if it cannot be created, nothing has changed.
    let log = await this.#takeSpare();
    if (log === undefined) {
      await clearPreparedRecord(directory, covered + 1);
      log = await this.#io.create(segmentPath(directory, covered + 1), this.#durability === 'flush');
      await syncDirectory(directory);
    }
    await this.#moveTo(log);
    const frozen = this.#memtable;
    const waiters = this.#checkpointWaiters;
    this.#checkpointWaiters = [];
    this.#checkpointWanted = false;
    this.#frozen = frozen;
    this.#frozenCovered = covered;
    this.#memtable = new Layer();
    this.#memtableLogBytes = 0;
    this.#changes++;
    this.#rebuildLayers();
    this.#startCheckpoint(frozen, covered, waiters);
  }

  #startCheckpoint(frozen: Layer, covered: number, waiters: readonly Waiter[]): Promise<void> {
    const running = this.#copyToBase(frozen, covered).then(
      () => this.#checkpointDone(waiters, undefined),
      (error: unknown) => this.#checkpointDone(waiters, asError(error)),
    );
    this.#checkpointRunning = running;
    return running;
  }

  /** Copies a frozen memtable into LMDB, records the segments it covers, removes them. */
  async #copyToBase(frozen: Layer, covered: number): Promise<void> {
    // Chunks queued without waiting for their commits: lmdb's write thread commits whatever is
    // queued when it gets to it, so a commit takes in several chunks (see CHECKPOINT_CHUNKS_UNCOMMITTED_MAX).
    const queued: Promise<void>[] = [];
    // The first commit that failed; every queued commit is waited for (none rejects unhandled).
    let failure: unknown;
    const noteFailure = (error: unknown): void => {
      failure ??= error;
    };
    const faults = this.#faults;
    let chunk: EncodedChange[] = [];
    let chunkBytes = 0;
    for (const entry of frozen.range()) {
      const slot = entry.value;
      const json = slot === TOMBSTONE ? undefined : keptJson(slot, covered);
      if (json !== undefined) {
        // Before LMDB can have it: a filter must never rule out a key LMDB holds.
        const key = entry.key;
        this.#lmdbKeys?.add(key);
        this.#lmdbKeysBuilding?.add(key);
        chunkBytes += json.byteLength;
      }
      chunk.push({ key: entry.key, json });
      if (chunk.length >= CHECKPOINT_CHUNK_ENTRIES || chunkBytes >= CHECKPOINT_CHUNK_BYTES_MAX) {
        queued.push(this.#applyChunk(chunk).catch(noteFailure));
        chunk = [];
        chunkBytes = 0;
        if (queued.length >= CHECKPOINT_CHUNKS_UNCOMMITTED_MAX) await queued.shift();
        if (failure !== undefined) break;
        // A turn of the event loop between chunks.
        await nextTurn();
      }
    }
    if (failure === undefined) queued.push(this.#applyChunk(chunk).catch(noteFailure));
    await Promise.all(queued);
    // The frozen memtable and its segments stay, the durable copy of what LMDB may lack (#resume retries).
    if (failure !== undefined) throw failure;
    // Only once LMDB has synced every chunk may the mark say the log before it is no longer needed.
    await this.#base.flushed();
    const directory = this.location;
    const markFault = faults?.fault('mark');
    if (markFault !== undefined) throw markFault;
    await writeCheckpointMark(directory, covered);
    for (const segment of await listSegments(directory)) {
      // A segment left behind is removed by the next start-up (it is covered by the mark).
      if (segment <= covered) await removeSegment(directory, segment).catch(() => undefined);
    }
  }

  /** One checkpoint chunk to LMDB (or the injected commit failure of a test, fault-injection.ts). */
  #applyChunk(chunk: readonly EncodedChange[]): Promise<void> {
    const fault = this.#faults?.fault('lmdb');
    if (fault === undefined) return this.#base.applyEncoded(chunk);
    // As a failed commit may: part of the chunk committed, the rest not.
    return this.#base.applyEncoded(chunk.slice(0, this.#faults!.prefix(chunk.length))).then(() => Promise.reject(fault));
  }

  #checkpointDone(waiters: readonly Waiter[], error: Error | undefined): void {
    this.#checkpointRunning = undefined;
    if (error === undefined) {
      // A filter past its capacity lets more and more lookups through: scan for a bigger one.
      const filter = this.#lmdbKeys;
      if (filter !== undefined && filter.added > filter.capacity) this.#buildKeyFilter();
      // LMDB now holds everything the frozen layer did.
      this.#frozen = undefined;
      this.#changes++;
      this.#rebuildLayers();
      for (const waiter of waiters) waiter.resolve();
    } else {
      // The frozen layer stays (reads remain right) and the log keeps its segments, the durable
      // copy of what LMDB may lack; writes are refused before they run until a retry succeeds.
      this.#checkpointFailed = true;
      if (this.#refusal === undefined) this.#refuse(error, 'checkpoint', false);
      else this.#noteFault(error, 'checkpoint');
      for (const waiter of waiters) waiter.reject(this.#refusalError ?? error);
    }
    if (this.#checkpointWanted) this.#schedulePump();
  }

  /**
   * A frame failed after its writes ran, or a group could not be sent: nothing more is
   * acknowledged, every unacknowledged group fails (a later one may have read the failed writes),
   * the log takes no frame until it is repaired, and writes are refused (DISK FAULTS).
   */
  #fail(cause: unknown, stage: RefusalStage): void {
    if (!this.#logBroken) {
      this.#logBroken = true;
      // Every frame in flight is in the current segment (drained before the log moves on).
      const first = this.#inFlight.find((group) => group.segment !== 0);
      if (first !== undefined) this.#cutBack = { segment: first.segment, bytes: first.frameStart };
    }
    this.#refuse(cause, stage, true);
    const failure = this.#refusalError!;
    // A later frame may be written already; none is acknowledged once an earlier one failed. They
    // leave the layers now (no write callback may read them), and their writes are answered once
    // the log is cut back, so a refusal always means "not applied", a crash after it included.
    const failed = this.#inFlight.splice(0);
    failed.push(this.#gathering);
    this.#gathering = new Group(new FrameBuilder());
    this.#writesAtLastTurn = 0;
    this.#turnsHeld = 0;
    this.#rebuildLayers();
    for (const waiter of this.#checkpointWaiters.splice(0)) waiter.reject(failure);
    const cut = (this.#cutting = (this.#cutting ?? Promise.resolve(true)).then(() => this.#cutLogBackNow()));
    void cut.then((done) => {
      // A log that could not be cut may still hold their frames: their outcome is unknown (500).
      const answer = done ? failure : internalError();
      for (const group of failed) group.reject(answer);
    });
  }

  /**
   * Cuts the log back to its last acknowledged frame once no frame write is outstanding (the
   * first step of the repair, run at once); answers whether the log is now free of every
   * unacknowledged frame. A failure is retried by #resume.
   */
  async #cutLogBackNow(): Promise<boolean> {
    await this.#framesIdle();
    const cutBack = this.#cutBack;
    if (cutBack === undefined) return true;
    try {
      await this.#cutLogBack(cutBack);
    } catch (error) {
      this.#noteFault(error, 'log');
      return false;
    }
    if (this.#cutBack === cutBack) this.#cutBack = undefined;
    return true;
  }

  /** The refusal in force now says `error` (the latest fault stopping a retry); its start and lost writes stay. */
  #noteFault(error: unknown, stage: RefusalStage): void {
    const refusal = this.#refusal;
    if (refusal === undefined) return;
    this.#refusal = { ...refusal, code: this.#faultCode(asError(error)), stage, detail: asError(error).message };
    this.#refusalError = writesRefused(refusalMessage(this.#refusal));
  }

  /** Writes are refused from now on (a refusal already in force keeps its cause, gaining lost writes). */
  #refuse(cause: unknown, stage: RefusalStage, lostWrites: boolean): void {
    const current = this.#refusal;
    if (current !== undefined) {
      if (lostWrites && !current.lostWrites) this.#refusal = { ...current, lostWrites };
      return;
    }
    const error = asError(cause);
    const refusal: WriteRefusal = {
      code: this.#faultCode(error),
      stage,
      path: this.location,
      sinceMs: Date.now(),
      neededBytes: this.#segmentPreparedBytes,
      detail: error.message,
      lostWrites,
    };
    this.#refusal = refusal;
    this.#refusalError = writesRefused(refusalMessage(refusal));
    this.#scheduleResume();
  }

  /**
   * The fault's code; an EIO (or no code) on a disk without room for a segment is called ENOSPC,
   * which is what it is: LMDB reports a full tmpfs as EIO.
   */
  #faultCode(error: Error): string {
    const code = codeOf(error) ?? 'ERROR';
    if (code !== 'EIO' && code !== 'ERROR') return code;
    try {
      const stats = statfsSync(this.location);
      return stats.bavail * stats.bsize < this.#segmentPreparedBytes ? 'ENOSPC' : code;
    } catch {
      return code;
    }
  }

  /** The next attempt to take writes again, after the back-off (DISK FAULTS). */
  #scheduleResume(): void {
    if (this.#resumeTimer !== undefined || this.#resuming !== undefined || this.#closing !== undefined) return;
    this.#resumeTimer = setTimeout(() => {
      this.#resumeTimer = undefined;
      this.#resuming = this.#resume().then(
        (resumed) => this.#resumeSettled(resumed),
        () => this.#resumeSettled(false),
      );
    }, this.#resumeDelayMs);
    // A refusing store does not keep the process alive.
    this.#resumeTimer.unref();
  }

  #resumeSettled(resumed: boolean): void {
    this.#resuming = undefined;
    if (this.#closing !== undefined) return;
    if (resumed) {
      this.#resumeDelayMs = RESUME_DELAY_MIN_MS;
      this.#refusal = undefined;
      this.#refusalError = undefined;
      for (const waiting of this.#waiting.splice(0)) waiting.run();
      this.#schedulePump();
      return;
    }
    this.#resumeDelayMs = Math.min(RESUME_DELAY_MAX_MS, this.#resumeDelayMs * 2);
    this.#scheduleResume();
  }

  /**
   * One attempt to take writes again; answers whether it succeeded. In order: wait for every
   * frame write to settle; cut the log back to its last acknowledged frame (a failed frame's bytes
   * and any later frame's must never be replayed, nor look like damage followed by intact frames),
   * synced; copy a frozen memtable whose checkpoint failed into LMDB again; move the log on to a
   * freshly prepared segment (which is what proves the room is back); if writes that had run were
   * lost, let the owner rebuild its in-memory state (onWritesLost). Each step done stays done, so
   * a failed attempt resumes where it stopped.
   */
  async #resume(): Promise<boolean> {
    await this.#cutting;
    await this.#framesIdle();
    if (this.#closing !== undefined) return false;
    const refusal = this.#refusal;
    if (refusal === undefined) return true;
    const stageError = (stage: RefusalStage) => (error: unknown): false => {
      this.#noteFault(error, stage);
      return false;
    };
    const cutBack = this.#cutBack;
    if (cutBack !== undefined) {
      const cut = await this.#cutLogBack(cutBack).then(() => true, stageError('log'));
      if (!cut) return false;
      this.#cutBack = undefined;
    }
    if (this.#checkpointFailed && this.#frozen !== undefined && this.#checkpointRunning === undefined) {
      this.#checkpointFailed = false;
      // #checkpointDone marks it failed again if it fails (the refusal in force stays).
      await this.#startCheckpoint(this.#frozen, this.#frozenCovered, []);
      if (this.#checkpointFailed) return false;
    }
    if (this.#logBroken || this.#needsPreparedSegment || !this.#logHasRoom()) {
      const moved = await this.#moveToPreparedSegment().then(() => true, stageError('segment'));
      if (!moved) return false;
      this.#logBroken = false;
      this.#needsPreparedSegment = false;
    }
    if (this.#refusal!.lostWrites) {
      // Writes queued in the background through the views handed out so far were decided on the
      // state being rebuilt: refused, as are their later ones; views handed out from now on (the
      // new engine's) wait as usual.
      this.#waitingGeneration++;
      for (const waiting of this.#waiting.splice(0)) waiting.reject(this.#refusalError!);
      await this.#onWritesLost?.();
    }
    return this.#closing === undefined;
  }

  /** Resolves once no frame write is outstanding. */
  async #framesIdle(): Promise<void> {
    while (this.#framesWriting > 0) await new Promise<void>((resolve) => (this.#framesSettled = resolve));
  }

  #frameSettled(): void {
    this.#framesWriting--;
    if (this.#framesWriting === 0 && this.#framesSettled !== undefined) {
      const settled = this.#framesSettled;
      this.#framesSettled = undefined;
      settled();
    }
  }

  /** Truncates the broken segment back to its last acknowledged frame, synced; the log's handle on it is closed. */
  async #cutLogBack(cutBack: { readonly segment: number; readonly bytes: number }): Promise<void> {
    if (cutBack.segment === this.#segment) await this.#log.close().catch(() => undefined);
    await truncateSegment(this.location, cutBack.segment, cutBack.bytes);
  }

  /**
   * Prepares segment `segment` (its zeros written and synced), then records the size it was
   * prepared to (wal.ts PREPARED RECORDS) and syncs the directory: only then may it be used. On
   * failure nothing of it stays: the file is closed, it and its record removed.
   */
  async #prepareSegment(segment: number): Promise<LogFile> {
    const directory = this.location;
    let file: LogFile | undefined;
    try {
      await clearPreparedRecord(directory, segment);
      file = await this.#io.prepare(segmentPath(directory, segment), this.#segmentPreparedBytes, this.#durability === 'flush');
      if (file.preparedBytes > 0) await writePreparedRecord(directory, segment, file.preparedBytes);
      await syncDirectory(directory);
      return file;
    } catch (error) {
      await file?.close().catch(() => undefined);
      await removeSegment(directory, segment).catch(() => undefined);
      throw error;
    }
  }

  /** The log goes on in a new segment, prepared (zeros written and synced) so its room is real. */
  async #moveToPreparedSegment(): Promise<void> {
    let file = this.#spare?.ready;
    if (file !== undefined) {
      this.#spare = undefined;
    } else {
      if (this.#spare !== undefined) await this.#spare.file;
      this.#spare = undefined;
      file = await this.#prepareSegment(this.#segment + 1);
    }
    this.#spareFailure = undefined;
    const previous = this.#log;
    this.#log = file;
    this.#segment++;
    this.#segmentBytes = 0;
    // Closed already if the log was cut back; a second close only fails, which does not matter.
    await previous.close().catch(() => undefined);
  }

  /**
   * Starts building a filter of LMDB's keys from a scan of them, a chunk per event-loop turn; it
   * replaces the current filter once complete. Only while no checkpoint runs: the scan reads the
   * snapshot of its first step, so a key a checkpoint queued before the build began but LMDB
   * committed after that snapshot would be in neither (from the build on, checkpoints add theirs).
   */
  #buildKeyFilter(): void {
    if (this.#lmdbKeysScan !== undefined || this.#checkpointRunning !== undefined || this.#closing !== undefined || this.#refusal !== undefined) return;
    const building = new KeyFilter(2 * Math.max(this.#base.entryCount, this.#lmdbKeys?.added ?? 0));
    this.#lmdbKeysBuilding = building;
    this.#lmdbKeysScan = this.#scanKeysInto(building).then(
      (complete) => {
        if (complete) this.#lmdbKeys = building;
      },
      // A failed scan leaves the filter as it was: lookups go to LMDB, as they would without one.
      () => undefined,
    );
    void this.#lmdbKeysScan.finally(() => {
      this.#lmdbKeysBuilding = undefined;
      this.#lmdbKeysScan = undefined;
    });
  }

  /** Adds every key of LMDB to filter; answers false if the store began closing first. */
  async #scanKeysInto(filter: KeyFilter): Promise<boolean> {
    // The first step, now: its snapshot is taken before any later checkpoint commits.
    const keys = this.#base.keys()[Symbol.iterator]();
    try {
      for (;;) {
        for (let i = 0; i < KEY_SCAN_CHUNK_KEYS; i++) {
          const step = keys.next();
          if (step.done === true) return true;
          filter.add(step.value);
        }
        await nextTurn();
        if (this.#closing !== undefined) return false;
      }
    } finally {
      // Lets go of the snapshot the scan pinned.
      keys.return?.();
    }
  }

  #rebuildLayers(): void {
    const frozen = this.#frozen === undefined ? [] : [this.#frozen];
    this.#readLayers = [this.#memtable, ...frozen];
    const inFlight = this.#inFlight.map((group) => group.tree).reverse();
    this.#writeLayers = [this.#gathering.tree, ...inFlight, ...this.#readLayers];
  }

  async #shutDown(): Promise<void> {
    // Every group in order, then one last checkpoint, so LMDB alone holds everything.
    const last = this.#gathering.writes > 0 ? this.#gathering : this.#inFlight.at(-1);
    await last?.durable.catch(() => undefined);
    clearTimeout(this.#resumeTimer);
    this.#resumeTimer = undefined;
    await this.#resuming;
    for (const waiting of this.#waiting.splice(0)) waiting.reject(new Error('storage is closed'));
    await this.#checkpointRunning;
    await this.#framesIdle();
    await this.#cutting;
    // A refusing store keeps its log as it is: the next start-up replays it.
    if (this.#refusal === undefined) await this.checkpoint().catch(() => undefined);
    await this.#log.close().catch(() => undefined);
    // Segments holding no frame (the spare; the current one, if a checkpoint left it empty) go,
    // so the next start does not read their zeros.
    const spare = this.#spare;
    this.#spare = undefined;
    if (spare !== undefined) {
      await (await spare.file)?.close().catch(() => undefined);
      await removeSegment(this.location, spare.segment).catch(() => undefined);
    }
    if (this.#refusal === undefined && this.#segmentBytes === 0 && !this.checkpointing) await removeSegment(this.location, this.#segment).catch(() => undefined);
    this.#released = true;
    await this.#lmdbKeysScan;
    await this.#base.close();
  }

  #assertOpen(): void {
    if (this.#released) throw new Error('storage is closed');
  }
}

/**
 * The running write's puts, newest last, searched back at most this far for the value a spliced
 * put embeds (a stream record follows the item it carries within a few changes). A value not
 * found is simply encoded again: the frame is larger, the record the same.
 */
const SPLICE_SEARCH_MAX = 64;

/** Where in the group's frame the running write put `value` (its latest put), if among its last SPLICE_SEARCH_MAX. */
function spanOf(encoded: UndoLog<StoredValue, ValueSpan>, value: StoredValue): ValueSpan | undefined {
  for (let at = encoded.count - 1, end = Math.max(0, encoded.count - SPLICE_SEARCH_MAX); at >= end; at--) {
    if (encoded.keyAt(at) === value) return encoded.displacedAt(at);
  }
  return undefined;
}

/** The view handed to one write fn; it refuses use after fn returned, when it would bypass write(). */
class LoggedTransaction implements WriteTransaction {
  readonly #context: WriteContext;
  #active = true;

  constructor(context: WriteContext) {
    this.#context = context;
  }

  end(): void {
    this.#active = false;
  }

  get(key: Uint8Array): StoredValue | undefined {
    this.#assertActive();
    return readThrough(this.#context.layers(), this.#context.base, key);
  }

  range(options: RangeOptions): Iterable<Entry> {
    this.#assertActive();
    const context = this.#context;
    return guardIteration(mergedRange(context.layers, context.base, options, context.changes), () => this.#active);
  }

  put(key: Uint8Array, value: StoredValue): void {
    this.#assertActive();
    const context = this.#context;
    assertStorableKey(key, context.maxKeySize);
    const json = JSON.stringify(value);
    const group = context.group;
    // The frame first: when it refuses (size limit), the tree is untouched.
    const span = group.frame.put(key, json);
    context.encoded.record(value, span);
    context.undo.record(key, group.tree.set(key, { value, segment: 0, offset: span.offset, bytes: span.bytes, head: undefined, tail: undefined, source: undefined, sourceOffset: 0 }));
    context.changed();
  }

  /** When this write put `inner`, the frame refers to its bytes instead of holding them twice. */
  putSpliced(key: Uint8Array, value: StoredValue, head: string, inner: StoredValue, tail: string): void {
    this.#assertActive();
    const context = this.#context;
    const span = spanOf(context.encoded, inner);
    if (span === undefined) {
      this.put(key, value);
      return;
    }
    assertStorableKey(key, context.maxKeySize);
    const group = context.group;
    group.frame.putSpliced(key, head, span, tail);
    context.undo.record(key, group.tree.set(key, { value, segment: 0, offset: span.offset, bytes: span.bytes, head, tail, source: undefined, sourceOffset: 0 }));
    context.changed();
  }

  remove(key: Uint8Array): void {
    this.#assertActive();
    const context = this.#context;
    // A key no store could hold is simply absent (as in LMDB and memory).
    if (key.byteLength === 0 || key.byteLength > context.maxKeySize) return;
    const group = context.group;
    group.frame.remove(key);
    context.undo.record(key, group.tree.set(key, TOMBSTONE));
    context.changed();
  }

  #assertActive(): void {
    if (!this.#active) throw new Error('write transaction used after its write() callback returned');
  }
}

interface Recovered {
  readonly memtable: Layer;
  readonly replayedBytes: number;
  /** The highest segment number in use (or recorded by the checkpoint mark). */
  readonly lastSegment: number;
}

/**
 * Replays the surveyed log (surveyLog: read before anything changed) into a memtable; then, and
 * only then, tidies the disk: segments the mark covers go, and a torn tail (isTornTail: the
 * caller refused anything else) is cut, its file truncated at the bad frame and later segments
 * (holding only zeros) removed, and that is logged. What is kept is a prefix of the acknowledged
 * history. A frame whose crc matches but whose ops do not decode throws before any change.
 */
async function recover(directory: string, survey: LogSurvey, log: ((message: string) => void) | undefined): Promise<Recovered> {
  const memtable = new Layer();
  let replayedBytes = 0;
  for (const { segment, data, frames, validBytes } of survey.replayed) {
    for (const frame of frames) {
      const payloadOffset = frame.byteOffset - data.byteOffset;
      for (const op of decodeFrame(frame)) {
        const slot: Slot =
          op.json === undefined
            ? TOMBSTONE
            : // Parsed only if read (slotValue): the replayed segment's bytes stand for it.
              { value: undefined, segment, offset: payloadOffset + op.valueOffset, bytes: op.valueBytes, head: op.head, tail: op.tail, source: data, sourceOffset: payloadOffset + op.valueOffset };
        memtable.set(op.key, slot);
      }
    }
    replayedBytes += validBytes;
  }
  // Covered by the checkpoint: a removal a crash interrupted.
  for (const segment of survey.covered) await removeSegment(directory, segment);
  const torn = survey.break;
  if (torn !== undefined) {
    await truncateSegment(directory, torn.segment, torn.offset);
    for (const segment of torn.laterSegments) await removeSegment(directory, segment);
    await syncDirectory(directory);
    log?.(tornTailNote(torn));
  }
  return { memtable, replayedBytes, lastSegment: survey.lastSegment };
}

/** The line start-up logs for a torn tail it cut. */
function tornTailNote(torn: LogBreak): string {
  const frames = torn.runs.reduce((count, run) => count + run.frames.length, 0);
  const whole = frames === 0 ? '' : `, ${frames} whole frame${frames === 1 ? '' : 's'} after a hole among them (in flight, never acknowledged)`;
  const later = torn.laterSegments.length === 0 ? '' : `; removed ${torn.laterSegments.length} later segment${torn.laterSegments.length === 1 ? '' : 's'} holding only zeros`;
  return `dynatwin: the write-ahead log ended in a torn tail (a crash while a frame was being written): cut ${torn.path} at byte ${torn.offset}, dropping ${torn.fileBytes - torn.offset} bytes${whole}${later}`;
}

/**
 * The JSON bytes of a frozen memtable's put, from the bytes the slot keeps (its frame's, or the
 * segment replayed at open: the very bytes in the log), not read back from the log's files.
 */
function keptJson(slot: PutSlot, covered: number): Uint8Array {
  const source = slot.source;
  const start = slot.sourceOffset;
  const json = source?.subarray(start, start + slot.bytes);
  // Every stored value is a JSON object or array: anything else here is a position gone wrong.
  if (json === undefined || slot.segment > covered || json.byteLength !== slot.bytes || (json[0] !== 0x7b && json[0] !== 0x5b)) {
    throw new Error(`a checkpoint found no value at ${slot.offset} (+${slot.bytes}) of log segment ${slot.segment}`);
  }
  return slot.head === undefined ? json : splicedJson(slot.head, json, slot.tail!);
}

/** head + inner + tail as one buffer (lmdb keeps a reference to it until its write thread has put it). */
function splicedJson(head: string, inner: Uint8Array, tail: string): Uint8Array {
  const headBytes = Buffer.byteLength(head);
  const json = Buffer.allocUnsafe(headBytes + inner.byteLength + Buffer.byteLength(tail));
  json.write(head, 0, 'utf8');
  json.set(inner, headBytes);
  json.write(tail, headBytes + inner.byteLength, 'utf8');
  return json;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** The 503's text: the fault, the data directory, the room needed, and that writes resume by themselves. */
function refusalMessage(refusal: WriteRefusal): string {
  const neededMb = Math.ceil(refusal.neededBytes / (1024 * 1024));
  const doing = REFUSAL_STAGES[refusal.stage];
  const fault =
    refusal.code === 'ENOSPC' || refusal.code === 'EDQUOT'
      ? `the disk holding the data directory ${refusal.path} is full (${refusal.code} ${doing})`
      : `the disk holding the data directory ${refusal.path} failed (${refusal.code} ${doing}: ${refusal.detail})`;
  return `Writes are refused: ${fault}; they resume by themselves once ${neededMb} MB there are free and writable. Reads go on.`;
}

/** Bytes free to an unprivileged writer on the disk holding `directory`; undefined without statfs. */
async function freeBytesOf(directory: string): Promise<number | undefined> {
  try {
    const stats = await statfs(directory);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}
