/**
 * The bench's side of the in-server probe (server-probe.ts): what it reports, the pure arithmetic
 * that turns the GC profiler's records into allocation and pause figures, and the signal dance
 * that opens and closes a window around the fixed-rate phase.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LogWindowSummary } from './log-stats.js';

/** One collection as v8.GCProfiler records it, reduced to what the report needs. */
export interface GcRecord {
  /** 'Scavenge', 'MarkSweepCompact', 'IncrementalMarking', 'ProcessWeakCallbacks', ... */
  readonly type: string;
  readonly pauseUs: number;
  readonly usedBeforeBytes: number;
  readonly usedAfterBytes: number;
  /** A scavenge's survivors, kept or promoted: what its pause grows with (meaningless for other kinds). */
  readonly copiedBytes?: number;
}

export interface GcKindSummary {
  readonly count: number;
  readonly pauseMs: number;
  readonly maxPauseMs: number;
  readonly copiedBytes: number;
}

export interface ProbeReport {
  readonly windowMs: number;
  /** JavaScript heap bytes allocated during the window (what the collections freed plus the growth). */
  readonly allocatedBytes: number;
  readonly gc: Readonly<Record<string, GcKindSummary>>;
  /** Ticks of a 1 ms timer that fired more than 1 ms late: turns that held every queued answer up. */
  readonly loopStallsOver1Ms: number;
  /** Of those, the stalls during which a collection paused the loop: the rest are long turns of our own code (or the OS's). */
  readonly loopStallsWithGc: number;
  readonly loopDelayMaxMs: number;
  readonly rssBytes: number;
  /** The write-ahead log's frames and the event loop's busy share (log-stats.ts); absent from older probes. */
  readonly log?: LogWindowSummary;
}

/**
 * 'full': every figure above (the fixed-rate phase); 'log': the log's frames and the event loop's
 * busy share only, which cost the server nothing measurable (the closed-loop phase).
 */
export type ProbeMode = 'full' | 'log';

/** What a 'log' window reports. */
export interface LogProbeReport {
  readonly windowMs: number;
  readonly log: LogWindowSummary;
}

/**
 * Allocation over a window, from the heap's used size: between two collections the heap only
 * grows by what was allocated, so the allocation is the sum of each collection's "before" less the
 * previous one's "after" (the window's start size for the first), plus the growth since the last.
 */
export function summariseGcs(
  gcs: readonly GcRecord[],
  usedAtStartBytes: number,
  usedAtEndBytes: number,
): { allocatedBytes: number; gc: Record<string, GcKindSummary> } {
  let allocatedBytes = 0;
  let previousAfter = usedAtStartBytes;
  const gc: Record<string, GcKindSummary> = {};
  for (const record of gcs) {
    allocatedBytes += Math.max(0, record.usedBeforeBytes - previousAfter);
    previousAfter = record.usedAfterBytes;
    const kind = gc[record.type] ?? { count: 0, pauseMs: 0, maxPauseMs: 0, copiedBytes: 0 };
    const pauseMs = record.pauseUs / 1000;
    gc[record.type] = {
      count: kind.count + 1,
      pauseMs: kind.pauseMs + pauseMs,
      maxPauseMs: Math.max(kind.maxPauseMs, pauseMs),
      copiedBytes: kind.copiedBytes + (record.copiedBytes ?? 0),
    };
  }
  allocatedBytes += Math.max(0, usedAtEndBytes - previousAfter);
  return { allocatedBytes, gc };
}

/** A stretch of time on performance.now()'s clock, in ms. */
export interface Span {
  readonly startMs: number;
  readonly endMs: number;
}

/**
 * How many of the `stalls` overlap at least one of the `pauses` (both in any order): the stalls a
 * garbage collection explains, at least in part.
 */
export function stallsDuring(stalls: readonly Span[], pauses: readonly Span[]): number {
  const sorted = [...pauses].sort((a, b) => a.startMs - b.startMs);
  // The latest end among pauses starting at or before each index, so one binary search answers each stall.
  const endsSoFar: number[] = [];
  let latestEnd = -Infinity;
  for (const pause of sorted) endsSoFar.push((latestEnd = Math.max(latestEnd, pause.endMs)));
  let count = 0;
  for (const stall of stalls) {
    // The last pause that starts before the stall ends; it or an earlier one overlaps if one ends after the stall starts.
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sorted[middle]!.startMs < stall.endMs) low = middle + 1;
      else high = middle;
    }
    if (low > 0 && endsSoFar[low - 1]! > stall.startMs) count++;
  }
  return count;
}

/** The probe's figures per request answered: what the report prints, load-independent counts. */
export interface ProbePerRequest {
  readonly allocatedBytesPerRequest: number;
  /** Per 10,000 answers: collections of each kind, and their total pause. */
  readonly scavengesPer10k: number;
  readonly scavengePauseMsPer10k: number;
  /** What an average scavenge copied (kept or promoted), in bytes: its pause grows with it. */
  readonly copiedBytesPerScavenge: number;
  /** Full mark-compacts; their pause below also counts the incremental marking steps and weak callbacks. */
  readonly majorGcsPer10k: number;
  /** Every pause that is not a scavenge's. */
  readonly majorPauseMsPer10k: number;
  readonly longestPauseMs: number;
  readonly loopStallsOver1MsPer10k: number;
  readonly loopStallsWithGcPer10k: number;
}

export function perRequest(report: ProbeReport, requests: number): ProbePerRequest | null {
  if (requests <= 0) return null;
  const per10k = 10_000 / requests;
  let scavenges = 0;
  let scavengePauseMs = 0;
  let scavengeCopiedBytes = 0;
  let major = 0;
  let majorPauseMs = 0;
  let longestPauseMs = 0;
  for (const [type, kind] of Object.entries(report.gc)) {
    if (type === 'Scavenge' || type === 'MinorMarkCompact') {
      scavenges += kind.count;
      scavengePauseMs += kind.pauseMs;
      scavengeCopiedBytes += kind.copiedBytes;
    } else {
      if (type === 'MarkSweepCompact') major += kind.count;
      majorPauseMs += kind.pauseMs;
    }
    longestPauseMs = Math.max(longestPauseMs, kind.maxPauseMs);
  }
  return {
    allocatedBytesPerRequest: report.allocatedBytes / requests,
    scavengesPer10k: scavenges * per10k,
    scavengePauseMsPer10k: scavengePauseMs * per10k,
    copiedBytesPerScavenge: scavenges > 0 ? scavengeCopiedBytes / scavenges : 0,
    majorGcsPer10k: major * per10k,
    majorPauseMsPer10k: majorPauseMs * per10k,
    longestPauseMs,
    loopStallsOver1MsPer10k: report.loopStallsOver1Ms * per10k,
    loopStallsWithGcPer10k: report.loopStallsWithGc * per10k,
  };
}

const PROBE_WAIT_MS = 5_000;

/**
 * Controls the probe of one server process: `open()` before the phase, `close()` after it.
 * Both resolve once the server has handled the signal (it rewrites the file), or with null if it
 * never does (a server started without the probe, or one too stalled to answer in time).
 */
export class ProbeControl {
  constructor(
    private readonly pid: number,
    readonly file: string,
  ) {}

  /** Opens a window; `mode` says which figures it takes (see ProbeMode). */
  async open(mode: ProbeMode = 'full'): Promise<boolean> {
    // The probe reads the mode from the file when the signal comes.
    return (await this.#signal('started', { mode })) !== null;
  }

  /** Closes a 'full' window. */
  async close(): Promise<ProbeReport | null> {
    const state = await this.#signal('stopped');
    return (state?.report as ProbeReport | undefined) ?? null;
  }

  /** Closes a window, answering its log figures only (what a 'log' window has). */
  async closeLog(): Promise<LogWindowSummary | null> {
    const state = await this.#signal('stopped');
    return state?.report?.log ?? null;
  }

  async #signal(want: 'started' | 'stopped', request?: { mode: ProbeMode }): Promise<ProbeState | null> {
    if (request === undefined) rmSync(this.file, { force: true });
    else writeFileSync(this.file, JSON.stringify(request));
    try {
      process.kill(this.pid, 'SIGUSR2');
    } catch {
      return null;
    }
    const deadline = Date.now() + PROBE_WAIT_MS;
    while (Date.now() < deadline) {
      const state = readState(this.file);
      if (state?.state === want) return state;
      await sleep(5);
    }
    return null;
  }
}

interface ProbeState {
  readonly state: string;
  readonly report?: ProbeReport | LogProbeReport;
}

function readState(file: string): ProbeState | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ProbeState;
  } catch {
    // Not there yet, or caught half written.
    return null;
  }
}
