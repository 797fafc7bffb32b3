/**
 * The logged store's diagnostics: one message per write-ahead log frame on the
 * `node:diagnostics_channel` channel `dynatwin:wal-frame` (WAL_FRAME_CHANNEL), published once the
 * frame's write returned (durable under 'flush') and before its group is acknowledged, so a
 * subscriber has a write's frame before the write's promise resolves.
 *
 * Why. Under a closed loop of clients a durable store's throughput is about the writes of one
 * frame over the time it takes to process them plus the time the frame takes to reach the disk;
 * the bench's in-server probe (bench/server-probe.ts) subscribes and reports frames/s, writes per
 * frame, frame write times and how much of the time a frame was in flight.
 *
 * Zero cost without a subscriber: the store checks `hasSubscribers` before it reads a clock or
 * builds a message. Nothing here imports the store, so a subscriber loads no storage code.
 */
import diagnosticsChannel from 'node:diagnostics_channel';

export const WAL_FRAME_CHANNEL = 'dynatwin:wal-frame';

/** One log frame: one group commit. Times are performance.now() milliseconds of the publishing process. */
export interface WalFrameMessage {
  /** The store's data directory (several stores may share a process, as in tests). */
  readonly location: string;
  readonly durability: 'flush' | 'commit';
  /** storage.write() calls in the frame's group (a request is usually one: a batch is one). */
  readonly writes: number;
  /** The frame's bytes, header included. */
  readonly bytes: number;
  /** When the frame was handed to libuv's thread pool to be written. */
  readonly sentMs: number;
  /** When its write returned: on the disk under 'flush' (O_DSYNC), with the OS under 'commit'. */
  readonly writtenMs: number;
  /** Frames already in flight when this one was sent (they overlap it). */
  readonly framesAhead: number;
  /** A checkpoint was copying a frozen memtable into LMDB when the frame was sent. */
  readonly checkpointing: boolean;
  /**
   * How long the store held groups back, before this frame, because a checkpoint's backlog was
   * full (CHECKPOINT_BACKLOG_FACTOR in logged.ts); 0 nearly always. Timed only while subscribed.
   */
  readonly backlogWaitMs: number;
}

/** The channel (diagnostics_channel hands out one object per name). */
export const walFrameChannel = diagnosticsChannel.channel(WAL_FRAME_CHANNEL);
