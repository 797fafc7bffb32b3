/**
 * The write-ahead log's frames over a probe window (server-probe.ts subscribes to the logged
 * store's `dynatwin:wal-frame` channel, src/storage/wal-channel.ts), reduced to what says whether
 * the log's sync or the main thread's CPU holds a durable store's throughput: frames/s, writes per
 * frame, how long a frame takes to be written (durable), how much of the window at least one frame
 * was in flight, and how busy the event loop was. Pure: the probe feeds it messages and the event
 * loop's figures; the report turns a summary into lines (report.ts) and into the model below.
 */
import type { WalFrameMessage } from '../src/storage/wal-channel.js';
import { LatencyHistogram } from './histogram.js';

/** What the aggregation reads of one frame message. */
export type FrameRecord = Omit<WalFrameMessage, 'location' | 'durability'>;

export interface LogWindowSummary {
  readonly windowMs: number;
  /** Frames written (their write returned) during the window, and their writes and bytes. */
  readonly frames: number;
  readonly writes: number;
  readonly frameBytes: number;
  readonly framesPerSecond: number;
  /** Mean over the window's frames; 0 without frames. */
  readonly writesPerFrame: number;
  /** From send to written (durable under 'flush'), in ms. */
  readonly frameWriteMeanMs: number;
  readonly frameWriteP50Ms: number;
  readonly frameWriteP99Ms: number;
  readonly frameWriteMaxMs: number;
  /** Share of the window (0..1) with at least one frame in flight. */
  readonly inFlightShare: number;
  /** Frames sent while another was in flight (the two overlapped). */
  readonly framesBehindAnother: number;
  /** Frames sent while a checkpoint was copying into LMDB. */
  readonly framesDuringCheckpoint: number;
  /** Time groups were held back for a checkpoint's backlog, in ms. */
  readonly backlogWaitMs: number;
  /** The event loop's busy share over the window (performance.eventLoopUtilization), 0..1. */
  readonly eventLoopBusyShare: number;
  /** Its busy time in ms: the main thread's CPU, more or less (not the thread pool's). */
  readonly eventLoopBusyMs: number;
  /** In-flight spans not kept (past MAX_SPANS): inFlightShare is then a lower bound. */
  readonly spansDropped: number;
}

/** Frames whose in-flight span is kept for the union (at ~1,000 frames/s, 17 minutes). */
const MAX_SPANS = 1 << 20;

/** Accumulates the frames of one window; `summarise` once it ends. */
export class LogFrameStats {
  readonly #writeTimes = new LatencyHistogram();
  #frames = 0;
  #writes = 0;
  #bytes = 0;
  #writeMsSum = 0;
  #framesBehindAnother = 0;
  #framesDuringCheckpoint = 0;
  #backlogWaitMs = 0;
  #starts = new Float64Array(1024);
  #ends = new Float64Array(1024);
  #spans = 0;
  #spansDropped = 0;

  constructor(readonly windowStartMs: number) {}

  /** One frame, counted if its write returned during the window (from windowStartMs on). */
  add(frame: FrameRecord): void {
    if (frame.writtenMs < this.windowStartMs) return;
    const writeMs = Math.max(0, frame.writtenMs - frame.sentMs);
    this.#frames++;
    this.#writes += frame.writes;
    this.#bytes += frame.bytes;
    this.#writeMsSum += writeMs;
    this.#writeTimes.record(writeMs * 1e6);
    if (frame.framesAhead > 0) this.#framesBehindAnother++;
    if (frame.checkpointing) this.#framesDuringCheckpoint++;
    this.#backlogWaitMs += frame.backlogWaitMs;
    this.#keepSpan(frame.sentMs, frame.writtenMs);
  }

  #keepSpan(startMs: number, endMs: number): void {
    if (this.#spans >= MAX_SPANS) {
      this.#spansDropped++;
      return;
    }
    if (this.#spans === this.#starts.length) {
      const grow = (old: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> => {
        const grown = new Float64Array(old.length * 2);
        grown.set(old);
        return grown;
      };
      this.#starts = grow(this.#starts);
      this.#ends = grow(this.#ends);
    }
    this.#starts[this.#spans] = startMs;
    this.#ends[this.#spans] = endMs;
    this.#spans++;
  }

  summarise(windowEndMs: number, loop: { readonly busyShare: number; readonly busyMs: number }): LogWindowSummary {
    const windowMs = Math.max(0, windowEndMs - this.windowStartMs);
    const frames = this.#frames;
    const times = this.#writeTimes.summary();
    const spans = this.#spans;
    const covered = coveredMs(this.#starts.subarray(0, spans), this.#ends.subarray(0, spans), this.windowStartMs, windowEndMs);
    return {
      windowMs,
      frames,
      writes: this.#writes,
      frameBytes: this.#bytes,
      framesPerSecond: windowMs > 0 ? (frames * 1000) / windowMs : 0,
      writesPerFrame: frames > 0 ? this.#writes / frames : 0,
      frameWriteMeanMs: frames > 0 ? this.#writeMsSum / frames : 0,
      frameWriteP50Ms: times.p50Ms,
      frameWriteP99Ms: times.p99Ms,
      frameWriteMaxMs: times.maxMs,
      inFlightShare: windowMs > 0 ? covered / windowMs : 0,
      framesBehindAnother: this.#framesBehindAnother,
      framesDuringCheckpoint: this.#framesDuringCheckpoint,
      backlogWaitMs: this.#backlogWaitMs,
      eventLoopBusyShare: loop.busyShare,
      eventLoopBusyMs: loop.busyMs,
      spansDropped: this.#spansDropped,
    };
  }
}

/**
 * The length of the union of the spans [starts[i], ends[i]] within [fromMs, toMs]: the time at
 * least one of them covered. Spans may overlap and come in any order (frames finish out of order).
 */
export function coveredMs(starts: ArrayLike<number>, ends: ArrayLike<number>, fromMs: number, toMs: number): number {
  if (starts.length !== ends.length) throw new Error(`coveredMs: ${starts.length} starts but ${ends.length} ends`);
  const order = Array.from({ length: starts.length }, (_, i) => i).sort((a, b) => starts[a]! - starts[b]!);
  let total = 0;
  let runStart = 0;
  let runEnd = -Infinity;
  for (const i of order) {
    const start = Math.max(starts[i]!, fromMs);
    const end = Math.min(ends[i]!, toMs);
    if (end <= start) continue;
    if (start > runEnd) {
      if (runEnd > runStart) total += runEnd - runStart;
      runStart = start;
      runEnd = end;
    } else if (end > runEnd) {
      runEnd = end;
    }
  }
  if (runEnd > runStart) total += runEnd - runStart;
  return total;
}

/**
 * A model, not a measurement: the closed loop's clients move in lock-step with the log's frames,
 * so a frame's writes are answered once per (their processing on the main thread + the frame's
 * write), and the writes/s this allows is
 *   writes per frame ÷ (frame write mean + writes per frame × main-thread busy time per write).
 * Beside the measured rate it says which term holds the store back: the sync (frame write large
 * beside the processing) or the CPU. It leaves out overlap: with two frames in flight, groups are
 * processed while the frame ahead is written, so the measured rate can exceed it; the main
 * thread's own bound (cpuOnlyWritesPerSecond) it cannot. Null without writes.
 */
export interface LockStepModel {
  readonly writesPerSecond: number;
  readonly writesPerFrame: number;
  readonly frameWriteMeanMs: number;
  readonly busyMsPerWrite: number;
  /** The share of a frame's cycle that is the frame's own write (the rest is processing). */
  readonly syncShare: number;
  /**
   * What the main thread alone would allow, busy all the time (1 ÷ busy time per write): the
   * bound once frames overlap processing completely (two may be in flight).
   */
  readonly cpuOnlyWritesPerSecond: number;
}

export function lockStepModel(summary: LogWindowSummary): LockStepModel | null {
  if (summary.frames === 0 || summary.writes === 0) return null;
  const busyMsPerWrite = summary.eventLoopBusyMs / summary.writes;
  const cycleMs = summary.frameWriteMeanMs + summary.writesPerFrame * busyMsPerWrite;
  if (!(cycleMs > 0)) return null;
  return {
    writesPerSecond: (summary.writesPerFrame * 1000) / cycleMs,
    writesPerFrame: summary.writesPerFrame,
    frameWriteMeanMs: summary.frameWriteMeanMs,
    busyMsPerWrite,
    syncShare: summary.frameWriteMeanMs / cycleMs,
    cpuOnlyWritesPerSecond: busyMsPerWrite > 0 ? 1000 / busyMsPerWrite : Infinity,
  };
}
