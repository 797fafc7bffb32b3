/**
 * The bench's aggregation of the write-ahead log's frames (bench/log-stats.ts) and the report's
 * lines for it (bench/report.ts logLines): pure arithmetic on made-up frames, no timing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coveredMs, lockStepModel, LogFrameStats, type FrameRecord, type LogWindowSummary } from '../bench/log-stats.js';
import { logLines } from '../bench/report.js';

const frame = (sentMs: number, writtenMs: number, writes: number, extra: Partial<FrameRecord> = {}): FrameRecord => ({
  writes,
  bytes: writes * 1000,
  sentMs,
  writtenMs,
  framesAhead: 0,
  checkpointing: false,
  backlogWaitMs: 0,
  ...extra,
});

test('the time covered by spans is their union, clipped to the window, whatever their order', () => {
  assert.equal(coveredMs([], [], 0, 10), 0);
  // [1,3] and [2,5] overlap (union 4), [7,8] stands alone: 5 in all.
  assert.equal(coveredMs([7, 2, 1], [8, 5, 3], 0, 10), 5);
  // Clipped to [2, 7.5]: [2,5] and [7,7.5].
  assert.equal(coveredMs([1, 2, 7], [3, 5, 8], 2, 7.5), 3.5);
  // One span inside another adds nothing; touching spans join.
  assert.equal(coveredMs([0, 1, 4], [4, 2, 6], 0, 10), 6);
  // Spans outside the window count for nothing.
  assert.equal(coveredMs([-5, 20], [-1, 30], 0, 10), 0);
  assert.throws(() => coveredMs([1], [], 0, 1), /1 starts but 0 ends/);
});

test('a window counts the frames written in it: writes, bytes, write times, overlap, checkpoints, backlog', () => {
  const stats = new LogFrameStats(100);
  // Written before the window opened: not counted.
  stats.add(frame(95, 99, 7));
  stats.add(frame(98, 101, 10));
  stats.add(frame(100, 102, 30, { framesAhead: 1 }));
  stats.add(frame(104, 106, 20, { checkpointing: true, backlogWaitMs: 1.5 }));
  stats.add(frame(106, 110, 40));
  const summary = stats.summarise(120, { busyShare: 0.75, busyMs: 15 });
  assert.equal(summary.windowMs, 20);
  assert.equal(summary.frames, 4);
  assert.equal(summary.writes, 100);
  assert.equal(summary.frameBytes, 100_000);
  assert.equal(summary.framesPerSecond, 200);
  assert.equal(summary.writesPerFrame, 25);
  assert.equal(summary.frameWriteMeanMs, (3 + 2 + 2 + 4) / 4);
  // The histogram's buckets are within 1% of the value.
  assert.ok(Math.abs(summary.frameWriteP50Ms - 2) < 0.02, `p50 ${summary.frameWriteP50Ms}`);
  assert.ok(Math.abs(summary.frameWriteP99Ms - 4) < 0.04, `p99 ${summary.frameWriteP99Ms}`);
  assert.ok(Math.abs(summary.frameWriteMaxMs - 4) < 1e-9);
  // In flight over [100,102] (the first frame's part in the window, joined with the second) and [104,110]: 8 of 20 ms.
  assert.equal(summary.inFlightShare, 0.4);
  assert.equal(summary.framesBehindAnother, 1);
  assert.equal(summary.framesDuringCheckpoint, 1);
  assert.equal(summary.backlogWaitMs, 1.5);
  assert.equal(summary.eventLoopBusyShare, 0.75);
  assert.equal(summary.eventLoopBusyMs, 15);
  assert.equal(summary.spansDropped, 0);
});

test('an empty window is all zeros, and has no model', () => {
  const summary = new LogFrameStats(0).summarise(1000, { busyShare: 0.1, busyMs: 100 });
  assert.equal(summary.frames, 0);
  assert.equal(summary.writesPerFrame, 0);
  assert.equal(summary.frameWriteMeanMs, 0);
  assert.equal(summary.inFlightShare, 0);
  assert.equal(lockStepModel(summary), null);
  assert.deepEqual(logLines('dynatwin (memory)', summary, 1000), []);
  assert.deepEqual(logLines('dynatwin (memory)', null, 1000), []);
});

function summaryOf(overrides: Partial<LogWindowSummary>): LogWindowSummary {
  return {
    windowMs: 1000,
    frames: 300,
    writes: 12_000,
    frameBytes: 300 * 40 * 1024,
    framesPerSecond: 300,
    writesPerFrame: 40,
    frameWriteMeanMs: 1.5,
    frameWriteP50Ms: 1.4,
    frameWriteP99Ms: 3.1,
    frameWriteMaxMs: 4,
    inFlightShare: 0.62,
    framesBehindAnother: 30,
    framesDuringCheckpoint: 0,
    backlogWaitMs: 0,
    eventLoopBusyShare: 0.71,
    eventLoopBusyMs: 600,
    spansDropped: 0,
    ...overrides,
  };
}

test('the lock-step model: writes per frame over the frame write plus their processing', () => {
  // 600 ms busy over 12,000 writes = 50 us a write; a cycle is 1.5 ms + 40 x 0.05 ms = 3.5 ms.
  const model = lockStepModel(summaryOf({}))!;
  assert.equal(model.busyMsPerWrite, 0.05);
  assert.ok(Math.abs(model.writesPerSecond - 40_000 / 3.5) < 1e-6);
  assert.ok(Math.abs(model.syncShare - 1.5 / 3.5) < 1e-12);
  assert.equal(model.cpuOnlyWritesPerSecond, 20_000);
});

test('a durable row gets its log line, and on the closed loop the model beside the measured rate', () => {
  const [line, model, ...rest] = logLines('dynatwin (lmdb)', summaryOf({ framesDuringCheckpoint: 12, backlogWaitMs: 2.25 }), 11_500);
  assert.equal(rest.length, 0);
  assert.equal(
    line,
    '  dynatwin (lmdb) log: 300 frames/s, 40.0 writes/frame (40.0 KB), frame write p50 1.40 ms p99 3.10 ms mean 1.50 ms, ' +
      'a frame in flight 62% of the time (10% of frames sent behind another), event loop busy 71% (50.0 µs per write); ' +
      "12 frames sent during a checkpoint, groups held 2.3 ms for a checkpoint's backlog",
  );
  assert.equal(
    model,
    '  dynatwin (lmdb) lock-step model (a model, not a measurement): 11,429 writes/s = 40.0 writes/frame ÷ (1.50 ms frame write + 40.0 × 50.0 µs main-thread busy per write), ' +
      "the frame's write 43% of that cycle; the main thread alone (always busy) <= 20,000 writes/s; measured 12,000 writes/s, 11,500 ops/s",
  );
  assert.match(logLines('dynatwin (lmdb)', summaryOf({ framesDuringCheckpoint: 1 }), null)[0]!, /; 1 frame sent during a checkpoint$/);
  // The fixed-rate phase: the log line only (the offered rate sets the pace, not the log).
  assert.equal(logLines('dynatwin (lmdb)', summaryOf({}), null).length, 1);
});
