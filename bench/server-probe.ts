/**
 * Preloaded into every benchmark server (node --import, see targets.ts launch) when the bench
 * asks for it: counts, taken inside the server during the fixed-rate phase, that say where a
 * latency tail comes from and that hardly depend on how busy the shared machine is:
 * - bytes the JavaScript heap allocated (per request, once divided by the answers);
 * - garbage collections by kind (scavenge, mark-compact, incremental marking steps...), with
 *   their count and total and longest pause: each pause delays every request waiting behind it;
 * - event-loop stalls: how often a 1 ms timer fired more than 1 ms late (a turn that long holds
 *   up every answer queued behind it), and the longest delay.
 * - the write-ahead log's frames (durable dynatwin only: the logged store's `dynatwin:wal-frame`
 *   channel, src/storage/wal-channel.ts) and the event loop's busy share (log-stats.ts).
 * The bench drives it with signals: the first SIGUSR2 starts a window, the second ends it and
 * writes the window's ProbeReport as JSON to BENCH_PROBE_FILE; each step also writes that file,
 * so the bench knows when the signal was handled (waitForProbe in probe.ts). A window is 'full'
 * (everything above) or 'log' (the log's frames and the event loop's busy share only: no timer,
 * no GC profiler, nothing that costs the server anything while the bench's closed loop runs);
 * the bench asks for one by writing `{"mode":"log"}` to the file before the first signal.
 * Inert (no handler, no timer) unless BENCH_PROBE_FILE is set. Its own cost, the same for every
 * target: the 1 ms timer wakes an idle server (measured ~80 us of CPU per idle wake-up on this
 * VM), but at 10,000 req/s a request arrives every 0.1 ms and the ticks ride on turns the loop
 * makes anyway; the GC profiler reads heap statistics around each collection.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { performance, PerformanceObserver, type EventLoopUtilization } from 'node:perf_hooks';
import v8 from 'node:v8';
import { WAL_FRAME_CHANNEL, type WalFrameMessage } from '../src/storage/wal-channel.js';
import { LogFrameStats, type LogWindowSummary } from './log-stats.js';
import { stallsDuring, summariseGcs, type GcRecord, type LogProbeReport, type ProbeMode, type ProbeReport, type Span } from './probe.js';

const file = process.env['BENCH_PROBE_FILE'];

interface Window {
  readonly profiler: v8.GCProfiler;
  readonly loop: StallCounter;
  readonly usedHeapBytes: number;
  readonly startNs: bigint;
}

/**
 * The log's frames over a window, from the logged store's channel, and the event loop's
 * utilisation. Subscribed only while the window is open, so the store reads no clock otherwise.
 */
class LogWindow {
  readonly #stats = new LogFrameStats(performance.now());
  readonly #loopAtStart: EventLoopUtilization = performance.eventLoopUtilization();
  readonly #onFrame = (message: unknown): void => this.#stats.add(message as WalFrameMessage);

  constructor() {
    diagnosticsChannel.subscribe(WAL_FRAME_CHANNEL, this.#onFrame);
  }

  end(): LogWindowSummary {
    diagnosticsChannel.unsubscribe(WAL_FRAME_CHANNEL, this.#onFrame);
    const loop = performance.eventLoopUtilization(this.#loopAtStart);
    return this.#stats.summarise(performance.now(), { busyShare: loop.utilization, busyMs: loop.active });
  }
}

/** The stall counter's timer period: a turn longer than this delays one of its ticks. */
const LOOP_RESOLUTION_MS = 1;
/**
 * A tick that comes this long after the previous one means the loop was held about 1 ms beyond
 * the timer's own cadence (libuv's timers are millisecond-grained, so an idle loop's ticks come
 * 1-2 ms apart).
 */
const STALL_GAP_NS = (LOOP_RESOLUTION_MS + 1) * 1e6;

/**
 * Counts the turns that held the event loop: a 1 ms timer notes each gap between its ticks.
 * (perf_hooks' monitorEventLoopDelay gives only power-of-two percentiles, too coarse to count.)
 */
class StallCounter {
  stalls = 0;
  maxGapNs = 0;
  /** Each stall's span on performance.now()'s clock (ms), to match with the collections' (at most MAX_SPANS). */
  readonly spans: Span[] = [];
  readonly gcSpans: Span[] = [];
  #lastMs = performance.now();
  readonly #timer = setInterval(() => this.#tick(), LOOP_RESOLUTION_MS);
  // Collections arrive after the fact (buffered), with their start and duration on the same clock.
  readonly #gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (this.gcSpans.length < MAX_SPANS) this.gcSpans.push({ startMs: entry.startTime, endMs: entry.startTime + entry.duration });
    }
  });

  constructor() {
    this.#gcObserver.observe({ entryTypes: ['gc'] });
  }

  #tick(): void {
    const nowMs = performance.now();
    const gapNs = (nowMs - this.#lastMs) * 1e6;
    if (gapNs > STALL_GAP_NS) {
      this.stalls++;
      if (this.spans.length < MAX_SPANS) this.spans.push({ startMs: this.#lastMs, endMs: nowMs });
    }
    if (gapNs > this.maxGapNs) this.maxGapNs = gapNs;
    this.#lastMs = nowMs;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#gcObserver.disconnect();
  }
}

/** Spans kept for matching stalls with collections; beyond these, stalls are only counted. */
const MAX_SPANS = 100_000;

if (file !== undefined && file !== '') {
  let window: { readonly full: Window | undefined; readonly log: LogWindow; readonly startNs: bigint } | undefined;
  process.on('SIGUSR2', () => {
    if (window === undefined) {
      const full = modeAsked(file) === 'full' ? begin() : undefined;
      window = { full, log: new LogWindow(), startNs: process.hrtime.bigint() };
      publish(file, { state: 'started' });
      return;
    }
    const { full, log, startNs } = window;
    window = undefined;
    const logSummary = log.end();
    const report: ProbeReport | LogProbeReport =
      full === undefined ? { windowMs: Number(process.hrtime.bigint() - startNs) / 1e6, log: logSummary } : { ...end(full), log: logSummary };
    publish(file, { state: 'stopped', report });
  });
}

/** The window the bench asked for (the file's `mode`, written before its signal); 'full' by default. */
function modeAsked(file: string): ProbeMode {
  try {
    const asked: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof asked === 'object' && asked !== null && Reflect.get(asked, 'mode') === 'log' ? 'log' : 'full';
  } catch {
    return 'full';
  }
}

/** Written aside and renamed, so the bench never reads half a file. */
function publish(file: string, state: object): void {
  writeFileSync(`${file}.tmp`, JSON.stringify(state));
  renameSync(`${file}.tmp`, file);
}

function begin(): Window {
  const profiler = new v8.GCProfiler();
  profiler.start();
  const loop = new StallCounter();
  return { profiler, loop, usedHeapBytes: v8.getHeapStatistics().used_heap_size, startNs: process.hrtime.bigint() };
}

function end(window: Window): ProbeReport {
  const usedHeapBytes = v8.getHeapStatistics().used_heap_size;
  const statistics = window.profiler.stop()?.statistics ?? [];
  window.loop.stop();
  const gcs: GcRecord[] = statistics.map((gc) => ({
    type: gc.gcType,
    pauseUs: gc.cost,
    usedBeforeBytes: gc.beforeGC.heapStatistics.usedHeapSize,
    usedAfterBytes: gc.afterGC.heapStatistics.usedHeapSize,
    copiedBytes: copiedBytes(gc.beforeGC.heapSpaceStatistics, gc.afterGC.heapSpaceStatistics),
  }));
  const loop = window.loop;
  return {
    windowMs: Number(process.hrtime.bigint() - window.startNs) / 1e6,
    ...summariseGcs(gcs, window.usedHeapBytes, usedHeapBytes),
    loopStallsOver1Ms: loop.stalls,
    loopStallsWithGc: stallsDuring(loop.spans, loop.gcSpans),
    loopDelayMaxMs: Math.max(0, loop.maxGapNs / 1e6 - LOOP_RESOLUTION_MS),
    rssBytes: process.memoryUsage.rss(),
  };
}

type SpaceStatistics = readonly { readonly spaceName: string; readonly spaceUsedSize: number }[];

/**
 * What a scavenge copied: the young objects it kept (new space after it) plus those it promoted
 * (old space growth). A scavenge's pause grows with this, whatever the machine's load.
 */
function copiedBytes(before: SpaceStatistics, after: SpaceStatistics): number {
  const used = (spaces: SpaceStatistics, name: string): number => spaces.find((space) => space.spaceName === name)?.spaceUsedSize ?? 0;
  return used(after, 'new_space') + Math.max(0, used(after, 'old_space') - used(before, 'old_space'));
}
