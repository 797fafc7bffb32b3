/**
 * Turns measured runs into the console tables, the per-workload verdicts and the JSON document.
 */
import type { RateResult, RunResult } from './load.js';
import { describeSample } from './load.js';
import type { DiskSyncResult } from './disk-sync.js';
import { RSS_PER_ITEM_GOAL_BYTES, type RssPerItem } from './rss.js';
import type { TargetId, VariantId } from './targets.js';
import { perRequest, type ProbeReport } from './probe.js';
import { lockStepModel, type LogWindowSummary } from './log-stats.js';

export interface MeasuredOutcome {
  readonly status: 'measured';
  readonly target: TargetId;
  readonly label: string;
  readonly result: RunResult;
  readonly warmupErrors: number;
  /** Server CPU during the measured phase in % of one core; ~100 means the server was the limit. */
  readonly serverCpuPercent: number | null;
  /** CPU used by other processes on the host during the measured phase, in % of one core. */
  readonly otherCpuPercent: number | null;
  /** The fixed-rate phase that followed, on the same server; null when the run had none. */
  readonly fixedRate: FixedRateOutcome | null;
  /** With BENCH_ROUNDS > 1: every round's ops/s, in round order; this outcome is the median one. */
  readonly roundOpsPerSec?: readonly number[];
  /**
   * The in-server probe's 'log' window over the measured phase (log-stats.ts): the write-ahead
   * log's frames (durable dynatwin rows) and the event loop's busy share; null without the probe.
   */
  readonly log?: LogWindowSummary | null;
  /**
   * A target on a database server (dynatwin-postgres): the CPU the database's processes used over
   * the measured phase ÷ the phase's requests, in ms; null when /proc could not tell. Absent for
   * the embedded stores, whose work is all in serverCpuPercent.
   */
  readonly databaseCpuMsPerRequest?: number | null;
}

/** The open-loop phase of a run (BENCH_RATE requests/s), CPU shares as in MeasuredOutcome. */
export interface FixedRateOutcome {
  readonly result: RateResult;
  readonly serverCpuPercent: number | null;
  readonly otherCpuPercent: number | null;
  /** What the in-server probe (server-probe.ts) counted during the phase; null without it. */
  readonly probe?: ProbeReport | null;
}

export interface SkippedOutcome {
  readonly status: 'skipped';
  readonly target: TargetId;
  readonly label: string;
  /** Where it gave up: a target that cannot start is not retried for later workloads. */
  readonly stage: 'start' | 'setup';
  readonly reason: string;
}

export type Outcome = MeasuredOutcome | SkippedOutcome;

export interface Verdict {
  readonly pass: boolean | null;
  readonly line: string;
}

export interface WorkloadReport {
  readonly workload: string;
  readonly outcomes: readonly Outcome[];
  /** Feature on vs off (the workload's `compareWith`); empty for most workloads. */
  readonly comparisons: readonly Comparison[];
  /** This workload against its baseline workload on the same target (the workload's `pairedWith`). */
  readonly pairs?: readonly PairedRatio[];
  /** dynatwin (memory) against the baseline build (BENCH_BASELINE_DIR), when both ran it. */
  readonly baselineBuild?: BuildRatio;
  readonly verdict: Verdict;
}

/** Issue 16: no workload may run more than 5% slower than the build before the change. */
export const BASELINE_BUILD_GOAL_RATIO = 0.95;

/** This build's dynatwin (memory) against the same target built at another commit, in one run. */
export interface BuildRatio {
  readonly current: string;
  readonly baseline: string;
  /** current ÷ baseline ops/s: with several rounds the median of the rounds' own ratios (speedOf). */
  readonly ratio: number;
  readonly rounds: number;
  readonly goalRatio: number;
}

/** The build ratio of a workload's outcomes, when both dynatwin (memory) and the baseline build were measured. */
export function buildRatioOf(outcomes: readonly Outcome[], currentId: TargetId, baselineId: TargetId): BuildRatio | undefined {
  const current = outcomes.find((o): o is MeasuredOutcome => o.status === 'measured' && o.target === currentId);
  const baseline = outcomes.find((o): o is MeasuredOutcome => o.status === 'measured' && o.target === baselineId);
  if (current === undefined || baseline === undefined || baseline.result.opsPerSec === 0) return undefined;
  return {
    current: current.label,
    baseline: baseline.label,
    ratio: speedOf(current, baseline),
    rounds: Math.min(current.roundOpsPerSec?.length ?? 1, baseline.roundOpsPerSec?.length ?? 1),
    goalRatio: BASELINE_BUILD_GOAL_RATIO,
  };
}

export function formatBuildRatio(workload: string, build: BuildRatio): string {
  const verdict = build.ratio >= build.goalRatio ? 'met' : 'MISSED';
  const method = build.rounds > 1 ? `median of ${build.rounds} interleaved rounds' own ratios` : 'one round: set BENCH_ROUNDS for interleaved rounds';
  return (
    `${workload}: ${build.current} ÷ ${build.baseline} = ${(build.ratio * 100).toFixed(1)}% of its ops/s ` +
    `(goal >= ${(build.goalRatio * 100).toFixed(0)}%: ${verdict}; ${method})`
  );
}

/** A workload against its baseline on one target: ops/s of each round's pair, and the median ratio. */
export interface PairedRatio {
  readonly target: string;
  readonly baseline: string;
  readonly goalRatio: number;
  readonly rounds: readonly { readonly opsPerSec: number; readonly baselineOpsPerSec: number }[];
  /** Median of the rounds' own ratios; null when no round measured both. */
  readonly ratio: number | null;
}

export function summarisePair(target: string, baseline: string, goalRatio: number, rounds: readonly Outcome[][]): PairedRatio {
  const measured = rounds.flatMap(([ours, theirs]) =>
    ours?.status === 'measured' && theirs?.status === 'measured' ? [{ opsPerSec: ours.result.opsPerSec, baselineOpsPerSec: theirs.result.opsPerSec }] : [],
  );
  return { target, baseline, goalRatio, rounds: measured, ratio: median(measured.map((round) => round.opsPerSec / round.baselineOpsPerSec)) };
}

export function formatPair(workload: string, pair: PairedRatio): string {
  const verdict = pair.ratio === null ? 'not measured' : pair.ratio >= pair.goalRatio ? 'met' : 'MISSED';
  const ratio = pair.ratio === null ? '-' : `${(pair.ratio * 100).toFixed(0)}%`;
  const rounds = pair.rounds.map((round) => `${fmtInt(round.opsPerSec)}/${fmtInt(round.baselineOpsPerSec)}`).join(' · ');
  return `${workload} vs ${pair.baseline} on ${pair.target}: ${ratio} of its ops/s (goal >= ${(pair.goalRatio * 100).toFixed(0)}%: ${verdict}); median of ${pair.rounds.length} interleaved rounds, ops/s ${rounds}`;
}

/** One round of a comparison: the reference (feature on) and the variant (off), back to back. */
export interface ComparisonRound {
  /** The order alternates from round to round: on then off, off then on, on then off... */
  readonly onFirst: boolean;
  readonly on: Outcome;
  readonly off: Outcome;
  /** 1 − on ÷ off ops/s, in %: the share of throughput the feature costs (negative: noise). */
  readonly overheadPercent: number | null;
  /** The same from server CPU per request, 1 − off ÷ on µs/op: less sensitive to neighbours. */
  readonly cpuOverheadPercent: number | null;
  /** Other processes disturbed either run: the round counts only when no round is clean. */
  readonly disturbed: boolean;
}

export interface Comparison {
  readonly variant: VariantId;
  readonly feature: string;
  readonly goalMaxOverheadPercent: number;
  readonly rounds: readonly ComparisonRound[];
  /** Rounds the medians are taken over: the undisturbed ones, or all measured ones if none is. */
  readonly roundsUsed: number;
  readonly medianOnOpsPerSec: number | null;
  readonly medianOffOpsPerSec: number | null;
  /** The headline: median over the rounds used of each round's overhead. */
  readonly overheadPercent: number | null;
  readonly cpuOverheadPercent: number | null;
  /** Against the goal; null when no round was measured cleanly (errors, a server that did not start). */
  readonly met: boolean | null;
  /** False when every round was disturbed by other processes. */
  readonly reliable: boolean;
}

/** The goals dynatwin is held to (the issues' targets); per workload where they differ. */
export const GOALS = { minSpeedupOverDynalite: 2, maxP99Ms: 2 } as const;
/** BatchWriteItem is where dynalite is slowest, so the bar is higher there (issue 5). */
const SPEEDUP_GOAL_BY_WORKLOAD: Readonly<Record<string, number>> = { BatchWriteItem: 4 };
/** The p99 goal was set for the single-item PutItem and GetItem (issue 3). */
const P99_GOAL_WORKLOADS = new Set(['PutItem', 'GetItem']);

function measured(outcomes: readonly Outcome[], id: TargetId): MeasuredOutcome | undefined {
  return outcomes.find((o): o is MeasuredOutcome => o.status === 'measured' && o.target === id);
}

export function errorsIn(outcome: MeasuredOutcome): number {
  return outcome.result.errors + outcome.warmupErrors;
}

/** Failed requests of the fixed-rate phase, kept apart from the closed loop's table column. */
export function rateErrorsIn(outcome: MeasuredOutcome): number {
  return outcome.fixedRate?.result.errors ?? 0;
}

const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');
const fmtMs = (n: number): string => n.toFixed(2);
const fmtPct = (n: number | null): string => (n === null ? '-' : `${n.toFixed(0)}%`);
const fmtRatio = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}x` : '-');

export function formatTable(report: WorkloadReport, connections: number, seconds: number): string {
  const bare = measured(report.outcomes, 'bare');
  const dynalite = measured(report.outcomes, 'dynalite');
  const header = ['target', 'ops/s', 'p50 ms', 'p99 ms', '% of bare', 'vs dynalite', 'server CPU', 'loader CPU', 'other CPU', 'errors'];
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const o of report.outcomes) {
    if (o.status === 'skipped') {
      rows.push([o.label, 'skipped']);
      notes.push(`  ${o.label} skipped: ${o.reason}`);
      continue;
    }
    const r = o.result;
    rows.push([
      o.label,
      fmtInt(r.opsPerSec),
      fmtMs(r.latency.p50Ms),
      fmtMs(r.latency.p99Ms),
      bare && bare.result.opsPerSec > 0 ? `${(speedOf(o, bare) * 100).toFixed(1)}%` : '-',
      dynalite ? fmtRatio(speedOf(o, dynalite)) : '-',
      fmtPct(o.serverCpuPercent),
      fmtPct(r.loaderCpuPercent),
      fmtPct(o.otherCpuPercent),
      errorsIn(o) === 0 ? '0' : `${errorsIn(o)} !!`,
    ]);
    notes.push(...rowNotes(o));
  }
  for (const o of report.outcomes) {
    if (o.status === 'measured') notes.push(...logLines(o.label, o.log, o.result.opsPerSec), ...databaseCpuLines(o));
  }
  notes.push(...roundNotes(report.outcomes));
  const title = `${report.workload} — ${connections} connections, ${seconds} s measured`;
  const comparisons = report.comparisons.flatMap(formatComparison);
  return [title, ...alignColumns([header, ...rows]), ...notes, ...comparisons].join('\n');
}

/**
 * How many times `baseline`'s throughput `target` reached. With several rounds, the median of the
 * per-round ratios: two targets of one round ran minutes apart at most, so a round's ratio is a
 * paired comparison that a slow spell of the host (which moves whole rounds, up to 2x on this VM)
 * largely cancels out of, where the ratio of the two medians would mix rounds.
 */
export function speedOf(target: MeasuredOutcome, baseline: MeasuredOutcome): number {
  const ours = target.roundOpsPerSec;
  const theirs = baseline.roundOpsPerSec;
  if (ours === undefined || theirs === undefined || ours.length !== theirs.length || ours.length < 2) {
    return target.result.opsPerSec / baseline.result.opsPerSec;
  }
  return median(ours.map((opsPerSec, round) => opsPerSec / theirs[round]!))!;
}

/** With several rounds: each row is its median round; the spread is shown beside it. */
function roundNotes(outcomes: readonly Outcome[]): string[] {
  const withRounds = outcomes.filter((o): o is MeasuredOutcome => o.status === 'measured' && (o.roundOpsPerSec?.length ?? 0) > 1);
  if (withRounds.length === 0) return [];
  const width = Math.max(...withRounds.map((o) => o.label.length));
  return [
    `  each row is the median of ${withRounds[0]!.roundOpsPerSec!.length} rounds, targets interleaved ("vs dynalite": the median of the rounds' own ratios); ops/s per round:`,
    ...withRounds.map((o) => `    ${o.label.padEnd(width)}  ${o.roundOpsPerSec!.map(fmtInt).join(' · ')}`),
  ];
}

/**
 * The fixed-rate phase's table, or null when no run of this workload had one: what each server
 * answered at the offered rate, and the latency from each request's intended send time.
 */
export function formatRateTable(report: WorkloadReport, connections: number, seconds: number): string | null {
  const runs = report.outcomes.flatMap((o) => (o.status === 'measured' && o.fixedRate !== null ? [{ o, rate: o.fixedRate }] : []));
  const first = runs[0];
  if (first === undefined) return null;
  const header = ['target', 'achieved req/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'send lag p99 ms', 'server CPU', 'loader µs/req', 'other CPU', 'errors'];
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const { o, rate } of runs) {
    const r = rate.result;
    const loaderUsPerRequest = r.ok + r.errors > 0 ? (r.loaderCpuSeconds * 1e6) / (r.ok + r.errors) : 0;
    rows.push([
      o.label,
      fmtInt(r.achievedPerSecond),
      fmtMs(r.latency.p50Ms),
      fmtMs(r.latency.p99Ms),
      fmtMs(r.latency.p999Ms),
      fmtMs(r.latency.maxMs),
      fmtMs(r.sendLag.p99Ms),
      fmtPct(rate.serverCpuPercent),
      loaderUsPerRequest.toFixed(1),
      fmtPct(rate.otherCpuPercent),
      r.errors === 0 ? '0' : `${r.errors} !!`,
    ]);
    notes.push(...rateRowNotes(o.label, rate));
  }
  // No lock-step model here: the offered rate, not the log, sets the pace of this phase.
  for (const { o, rate } of runs) notes.push(...logLines(o.label, rate.probe?.log, null));
  const title = `${report.workload} — fixed rate ${fmtInt(first.rate.result.ratePerSecond)} req/s over ${connections} connections, ${seconds} s`;
  const legend =
    "  latency counts from each request's intended send time, so waiting for a free connection counts; " +
    'send lag: how late the generator itself sent; loader µs/req: the generator\'s CPU per request';
  return [title, ...alignColumns([header, ...rows]), legend, ...notes, ...formatProbeTable(runs)].join('\n');
}

/**
 * Inside each server during the fixed-rate phase (server-probe.ts), per 10,000 answers: counts
 * that hardly depend on how busy the machine was, and that say where a tail comes from.
 */
function formatProbeTable(runs: readonly { o: MeasuredOutcome; rate: FixedRateOutcome }[]): string[] {
  const header = ['inside the server', 'alloc KB/req', 'scavenges', 'scavenge ms', 'KB copied/scavenge', 'major GCs', 'major ms', 'longest GC ms', 'loop stalls > 1 ms', 'of them in a GC', 'max loop delay ms'];
  const rows: string[][] = [];
  for (const { o, rate } of runs) {
    const probe = rate.probe ?? null;
    const figures = probe === null ? null : perRequest(probe, rate.result.ok + rate.result.errors);
    if (probe === null || figures === null) continue;
    rows.push([
      o.label,
      (figures.allocatedBytesPerRequest / 1024).toFixed(2),
      figures.scavengesPer10k.toFixed(1),
      figures.scavengePauseMsPer10k.toFixed(1),
      (figures.copiedBytesPerScavenge / 1024).toFixed(0),
      figures.majorGcsPer10k.toFixed(1),
      figures.majorPauseMsPer10k.toFixed(1),
      figures.longestPauseMs.toFixed(2),
      figures.loopStallsOver1MsPer10k.toFixed(1),
      figures.loopStallsWithGcPer10k.toFixed(1),
      probe.loopDelayMaxMs.toFixed(2),
    ]);
  }
  if (rows.length === 0) return [];
  return ['', ...alignColumns([header, ...rows]), '  per 10,000 answers (alloc per answer): JavaScript heap allocation, collections and their pauses, event-loop turns over 1 ms ' +
      '(those overlapping a collection; the rest are long turns of the server’s own code, or the OS taking its core)'];
}

/**
 * A durable row's write-ahead log over the phase (log-stats.ts, from the in-server probe), and,
 * for the closed loop (`opsPerSec` given), the lock-step model and the main thread's own bound
 * beside the measured rate: nothing for a row whose store wrote no frame (memory, reads). The
 * model assumes no overlap; with two frames in flight a group's processing partly overlaps the
 * frame ahead, so the measured rate may pass the model (never, for long, the main thread's bound).
 */
export function logLines(label: string, log: LogWindowSummary | null | undefined, opsPerSec: number | null): string[] {
  if (log === null || log === undefined || log.frames === 0) return [];
  const busyUsPerWrite = log.writes > 0 ? (log.eventLoopBusyMs * 1000) / log.writes : 0;
  const extras = [
    log.framesDuringCheckpoint > 0 ? `${fmtInt(log.framesDuringCheckpoint)} frame${log.framesDuringCheckpoint === 1 ? '' : 's'} sent during a checkpoint` : '',
    log.backlogWaitMs > 0 ? `groups held ${log.backlogWaitMs.toFixed(1)} ms for a checkpoint's backlog` : '',
    log.spansDropped > 0 ? `in-flight share from the first ${fmtInt(log.frames - log.spansDropped)} frames only` : '',
  ].filter((extra) => extra !== '');
  const lines = [
    `  ${label} log: ${fmtInt(log.framesPerSecond)} frames/s, ${log.writesPerFrame.toFixed(1)} writes/frame ` +
      `(${(log.frameBytes / log.frames / 1024).toFixed(1)} KB), frame write p50 ${fmtMs(log.frameWriteP50Ms)} ms p99 ${fmtMs(log.frameWriteP99Ms)} ms ` +
      `mean ${fmtMs(log.frameWriteMeanMs)} ms, a frame in flight ${fmtShare(log.inFlightShare)} of the time ` +
      `(${fmtShare(log.framesBehindAnother / log.frames)} of frames sent behind another), event loop busy ${fmtShare(log.eventLoopBusyShare)} ` +
      `(${busyUsPerWrite.toFixed(1)} µs per write)${extras.length > 0 ? `; ${extras.join(', ')}` : ''}`,
  ];
  const model = opsPerSec === null ? null : lockStepModel(log);
  if (model !== null && opsPerSec !== null) {
    const measuredWritesPerSecond = log.windowMs > 0 ? (log.writes * 1000) / log.windowMs : 0;
    lines.push(
      `  ${label} lock-step model (a model, not a measurement): ${fmtInt(model.writesPerSecond)} writes/s = ` +
        `${model.writesPerFrame.toFixed(1)} writes/frame ÷ (${fmtMs(model.frameWriteMeanMs)} ms frame write + ` +
        `${model.writesPerFrame.toFixed(1)} × ${(model.busyMsPerWrite * 1000).toFixed(1)} µs main-thread busy per write), ` +
        `the frame's write ${fmtShare(model.syncShare)} of that cycle; the main thread alone (always busy) <= ${fmtInt(model.cpuOnlyWritesPerSecond)} writes/s; ` +
        `measured ${fmtInt(measuredWritesPerSecond)} writes/s, ${fmtInt(opsPerSec)} ops/s`,
    );
  }
  return lines;
}

const fmtShare = (share: number): string => `${(share * 100).toFixed(0)}%`;

function rateRowNotes(label: string, rate: FixedRateOutcome): string[] {
  const r = rate.result;
  const notes: string[] = [];
  if (r.errors > 0) notes.push(`  ${label}: ${r.errors} ERRORS, e.g. ${describeSample(r.errorSamples[0])}`);
  if (r.unanswered > 0) {
    notes.push(
      `  ${label}: ${fmtInt(r.unanswered)} due requests still unanswered when the phase was cut off; ` +
        'their latency counts up to then, so the percentiles are lower bounds',
    );
  }
  if (r.waitedForConnection > 0) {
    notes.push(`  ${label}: ${fmtInt(r.waitedForConnection)} requests fell due while all connections were busy and waited client-side (counted from their due time)`);
  }
  if (rateDisturbed(rate)) {
    notes.push(`  ${label}: WARNING other processes used ${fmtPct(rate.otherCpuPercent)} of a core meanwhile; figures unreliable`);
  }
  return notes;
}

// Above these, a row says more about the machine or the generator than about the server.
// Server and generator together need ~190 % of this 2-core box, so even a little outside load bites.
const NOISY_NEIGHBOUR_PERCENT = 10;
const LOADER_SATURATED_PERCENT = 85;
const SERVER_SATURATED_PERCENT = 90;

/** True when other processes took enough CPU during the measured phase to skew it. */
export function disturbed(o: MeasuredOutcome): boolean {
  return o.otherCpuPercent !== null && o.otherCpuPercent > NOISY_NEIGHBOUR_PERCENT;
}

function rateDisturbed(rate: FixedRateOutcome): boolean {
  return rate.otherCpuPercent !== null && rate.otherCpuPercent > NOISY_NEIGHBOUR_PERCENT;
}

/** Either phase of the run was disturbed: what earns a run a repeat (run.ts runUndisturbed). */
export function runDisturbed(o: MeasuredOutcome): boolean {
  return disturbed(o) || (o.fixedRate !== null && rateDisturbed(o.fixedRate));
}

function rowNotes(o: MeasuredOutcome): string[] {
  const notes: string[] = [];
  if (errorsIn(o) > 0) notes.push(`  ${o.label}: ${errorsIn(o)} ERRORS, e.g. ${describeSample(o.result.errorSamples[0])}`);
  if (disturbed(o)) {
    notes.push(`  ${o.label}: WARNING other processes used ${fmtPct(o.otherCpuPercent)} of a core meanwhile; figures unreliable`);
  }
  // A saturated generator only caps the row when the server still had CPU to spare; a server at
  // ~100 % of its core is the limit whatever the generator does.
  const serverHadSpareCpu = o.serverCpuPercent === null || o.serverCpuPercent < SERVER_SATURATED_PERCENT;
  if (o.result.loaderCpuPercent > LOADER_SATURATED_PERCENT && serverHadSpareCpu) {
    notes.push(
      `  ${o.label}: load generator near saturation (${fmtPct(o.result.loaderCpuPercent)} CPU, server ` +
        `${fmtPct(o.serverCpuPercent)}): this row is bounded by the generator, not the server`,
    );
  }
  return notes;
}

function alignColumns(table: readonly string[][]): string[] {
  const widths = table[0]?.map((_, col) => Math.max(...table.map((row) => (row[col] ?? '').length))) ?? [];
  return table.map((row, r) => {
    const cells = row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col] ?? 0) : cell.padStart(widths[col] ?? 0)));
    const line = `  ${cells.join('  ')}`.trimEnd();
    return r === 0 ? `${line}\n  ${'-'.repeat(line.length - 2)}` : line;
  });
}

/**
 * The database's own CPU per request beside dynatwin's, for a row on a database server: what the
 * server CPU column leaves out, since the work there happens in other processes.
 */
export function databaseCpuLines(o: MeasuredOutcome): string[] {
  if (o.databaseCpuMsPerRequest === undefined) return [];
  const database = o.databaseCpuMsPerRequest === null ? '- (unreadable)' : `${o.databaseCpuMsPerRequest.toFixed(3)} ms`;
  const server = cpuMicrosPerOp(o);
  const dynatwin = server === null ? '-' : `${(server / 1000).toFixed(3)} ms`;
  return [`  ${o.label}: database CPU ${database} per request (postmaster and its children, user + system), dynatwin's own ${dynatwin}`];
}

/** Server CPU per request in µs, from the share of a core it used over the measured phase. */
function cpuMicrosPerOp(o: MeasuredOutcome): number | null {
  if (o.serverCpuPercent === null || o.result.opsPerSec <= 0) return null;
  return (o.serverCpuPercent * 10_000) / o.result.opsPerSec;
}

function cleanRun(o: Outcome): MeasuredOutcome | undefined {
  return o.status === 'measured' && errorsIn(o) === 0 && o.result.opsPerSec > 0 ? o : undefined;
}

export function comparisonRound(onFirst: boolean, on: Outcome, off: Outcome): ComparisonRound {
  const a = cleanRun(on);
  const b = cleanRun(off);
  if (a === undefined || b === undefined) return { onFirst, on, off, overheadPercent: null, cpuOverheadPercent: null, disturbed: false };
  const cpuOn = cpuMicrosPerOp(a);
  const cpuOff = cpuMicrosPerOp(b);
  return {
    onFirst,
    on,
    off,
    overheadPercent: (1 - a.result.opsPerSec / b.result.opsPerSec) * 100,
    cpuOverheadPercent: cpuOn === null || cpuOff === null || cpuOn <= 0 ? null : (1 - cpuOff / cpuOn) * 100,
    disturbed: disturbed(a) || disturbed(b),
  };
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The overhead of a feature from interleaved rounds (run.ts runs them). Each round's overhead is
 * taken between its own two runs, which ran back to back and so under about the same outside
 * load; the headline is the median of those, which one round a neighbour's build spoiled cannot
 * move much. Rounds that other processes disturbed are left out while any clean round remains.
 */
export function summariseComparison(
  variant: VariantId,
  feature: string,
  goalMaxOverheadPercent: number,
  rounds: readonly ComparisonRound[],
): Comparison {
  const measuredRounds = rounds.filter((r) => r.overheadPercent !== null);
  const clean = measuredRounds.filter((r) => !r.disturbed);
  const used = clean.length > 0 ? clean : measuredRounds;
  const ops = (o: Outcome): number => (o.status === 'measured' ? o.result.opsPerSec : 0);
  const overheadPercent = median(used.map((r) => r.overheadPercent!));
  return {
    variant,
    feature,
    goalMaxOverheadPercent,
    rounds,
    roundsUsed: used.length,
    medianOnOpsPerSec: median(used.map((r) => ops(r.on))),
    medianOffOpsPerSec: median(used.map((r) => ops(r.off))),
    overheadPercent,
    cpuOverheadPercent: median(used.flatMap((r) => (r.cpuOverheadPercent === null ? [] : [r.cpuOverheadPercent]))),
    met: overheadPercent === null ? null : overheadPercent <= goalMaxOverheadPercent,
    reliable: clean.length > 0,
  };
}

const fmtSignedPct = (n: number | null): string => (n === null ? '-' : `${n.toFixed(1)}%`);
const fmtOps = (o: Outcome): string => (o.status === 'measured' ? fmtInt(o.result.opsPerSec) : 'skipped');
const fmtCpuPerOp = (o: Outcome): string => {
  const micros = o.status === 'measured' ? cpuMicrosPerOp(o) : null;
  return micros === null ? '-' : micros.toFixed(1);
};
const fmtOther = (o: Outcome): string => (o.status === 'measured' ? fmtPct(o.otherCpuPercent) : '-');

/** "capacity accounting overhead 4.2% (goal <= 10%: met)", as the table and the verdict say it. */
function overheadLine(c: Comparison): string {
  if (c.overheadPercent === null) return `${c.feature} overhead NOT MEASURED (goal <= ${c.goalMaxOverheadPercent}%)`;
  const rounds = `median of ${c.roundsUsed} round${c.roundsUsed === 1 ? '' : 's'}`;
  const cpu = c.cpuOverheadPercent === null ? '' : `, by server CPU/op ${fmtSignedPct(c.cpuOverheadPercent)}`;
  const reliability = c.reliable ? '' : ', UNRELIABLE: every round was disturbed by other processes';
  return (
    `${c.feature} overhead ${fmtSignedPct(c.overheadPercent)} (goal <= ${c.goalMaxOverheadPercent}%: ${c.met ? 'met' : 'MISSED'}; ` +
    `${rounds}${cpu}${reliability})`
  );
}

/** Each round's two runs, their overhead, and the median against the goal, under the main table. */
function formatComparison(c: Comparison): string[] {
  const header = ['round', 'order', 'on ops/s', 'off ops/s', 'overhead', 'on CPU µs/op', 'off CPU µs/op', 'by CPU', 'other CPU on/off', 'errors'];
  const rows = c.rounds.map((r, i) => {
    const errors = [r.on, r.off].reduce((sum, o) => sum + (o.status === 'measured' ? errorsIn(o) : 0), 0);
    return [
      String(i + 1),
      r.onFirst ? 'on, off' : 'off, on',
      fmtOps(r.on),
      fmtOps(r.off),
      fmtSignedPct(r.overheadPercent),
      fmtCpuPerOp(r.on),
      fmtCpuPerOp(r.off),
      fmtSignedPct(r.cpuOverheadPercent),
      `${fmtOther(r.on)} / ${fmtOther(r.off)}${r.disturbed ? ' (disturbed)' : ''}`,
      errors === 0 ? '0' : `${errors} !!`,
    ];
  });
  const medians = [
    'median',
    '',
    c.medianOnOpsPerSec === null ? '-' : fmtInt(c.medianOnOpsPerSec),
    c.medianOffOpsPerSec === null ? '-' : fmtInt(c.medianOffOpsPerSec),
    fmtSignedPct(c.overheadPercent),
    '',
    '',
    fmtSignedPct(c.cpuOverheadPercent),
    '',
    '',
  ];
  const skips = c.rounds.flatMap((r) => [r.on, r.off]).flatMap((o) => (o.status === 'skipped' ? [`  ${o.label} skipped: ${o.reason}`] : []));
  return [
    '',
    `${c.feature}: dynatwin (memory) on (startDynatwin defaults) vs ${c.variant}, ${c.rounds.length} interleaved rounds`,
    ...alignColumns([header, ...rows, medians]),
    ...skips,
    `  => ${overheadLine(c)}`,
  ];
}

/** One line per workload: dynatwin (memory) against the 2x-dynalite and p99 goals, and any overhead goals. */
export function verdictFor(workload: string, outcomes: readonly Outcome[], comparisons: readonly Comparison[] = []): Verdict {
  const speed = speedVerdict(outcomes, workload);
  let pass = speed.pass;
  for (const c of comparisons) {
    // A missed overhead goal fails the workload; an unmeasured one leaves it undecided.
    if (c.met === false) pass = false;
    else if (c.met === null && pass === true) pass = null;
  }
  const parts = [...speed.parts, ...comparisons.map(overheadLine)];
  const word = pass === null ? 'NO VERDICT' : pass ? 'PASS' : 'FAIL';
  return { pass, line: `${workload}: ${word} — ${parts.join('; ')}` };
}

/** dynatwin (memory) against dynalite: the speed-up and p99 goals, as verdict parts. */
function speedVerdict(outcomes: readonly Outcome[], workload: string): { pass: boolean | null; parts: string[] } {
  const memory = measured(outcomes, 'dynatwin-memory');
  const dynalite = measured(outcomes, 'dynalite');
  if (!memory || !dynalite) {
    const missing = !memory ? 'dynatwin (memory)' : 'dynalite';
    return { pass: null, parts: [`${missing} was not measured`] };
  }
  if (errorsIn(dynalite) > 0 || dynalite.result.opsPerSec === 0) {
    return { pass: null, parts: [`the dynalite baseline run failed (${errorsIn(dynalite)} errors)`] };
  }
  const speedup = speedOf(memory, dynalite);
  const p99 = memory.result.latency.p99Ms;
  const speedupGoal = SPEEDUP_GOAL_BY_WORKLOAD[workload] ?? GOALS.minSpeedupOverDynalite;
  const hasTailGoal = P99_GOAL_WORKLOADS.has(workload);
  const fastEnough = speedup >= speedupGoal;
  const tailOk = !hasTailGoal || p99 < GOALS.maxP99Ms;
  const errors = errorsIn(memory) + rateErrorsIn(memory);
  const parts = [
    `dynatwin (memory) ${fmtRatio(speedup)} dynalite ops/s (goal >= ${speedupGoal}x: ${fastEnough ? 'met' : 'MISSED'})`,
    // The goal is judged on the closed loop, as issue #3 set it; the fixed-rate figure is context.
    hasTailGoal ? `closed-loop p99 ${fmtMs(p99)} ms (goal < ${GOALS.maxP99Ms} ms: ${tailOk ? 'met' : 'MISSED'})` : `p99 ${fmtMs(p99)} ms`,
  ];
  if (errors > 0) parts.push(`${errors} ERRORS`);
  parts.push(...fixedRateNote(outcomes), ...contextNotes(outcomes, dynalite, memory, speedupGoal));
  return { pass: fastEnough && tailOk && errors === 0, parts };
}

/** "p99 at 5,000 req/s: 0.61 ms (memory), 1.20 ms (lmdb)", from the fixed-rate phase. */
function fixedRateNote(outcomes: readonly Outcome[]): string[] {
  const runs = (['dynatwin-memory', 'dynatwin-lmdb'] as const).flatMap((id) => {
    const rate = measured(outcomes, id)?.fixedRate;
    return rate === null || rate === undefined ? [] : [{ store: id === 'dynatwin-memory' ? 'memory' : 'lmdb', r: rate.result }];
  });
  const first = runs[0];
  if (first === undefined) return [];
  // Unanswered requests entered at their age when the phase ended: then p99 is only a lower bound.
  const figures = runs.map(({ store, r }) => `${r.unanswered > 0 ? '>= ' : ''}${fmtMs(r.latency.p99Ms)} ms (${store})`);
  return [`p99 at ${fmtInt(first.r.ratePerSecond)} req/s: ${figures.join(', ')}`];
}

/** What the verdict needs beside the goals: the LMDB store against both dynalites and its ceiling, the bare tail, and noise. */
function contextNotes(outcomes: readonly Outcome[], dynalite: MeasuredOutcome, memory: MeasuredOutcome, speedupGoal: number): string[] {
  const notes: string[] = [];
  const lmdb = measured(outcomes, 'dynatwin-lmdb');
  if (lmdb) notes.push(lmdbNote(lmdb, dynalite, measured(outcomes, 'dynalite-leveldb')));
  const ceiling = measured(outcomes, 'dynatwin-lmdb-noflush');
  if (ceiling && errorsIn(ceiling) === 0) {
    // Without any flush, no durability design can beat this row: it bounds what LMDB can reach here.
    const ratio = speedOf(ceiling, dynalite);
    const side = ratio >= speedupGoal ? 'at or above' : 'below';
    notes.push(`the LMDB store's ceiling (no flush) is ${fmtRatio(ratio)} dynalite (memory), ${side} the ${speedupGoal}x goal`);
  }
  const bare = measured(outcomes, 'bare');
  if (bare && bare.result.latency.p99Ms >= GOALS.maxP99Ms) {
    // Little's law: with N requests always in flight, mean latency = N / throughput, so at high
    // concurrency the p99 goal can be out of reach for any server this generator can drive.
    notes.push(`note: even the bare ceiling has p99 ${fmtMs(bare.result.latency.p99Ms)} ms at this concurrency`);
  }
  const noisy = [dynalite, memory].filter(disturbed).map((o) => o.label);
  if (noisy.length > 0) notes.push(`UNRELIABLE: other processes loaded the machine during ${noisy.join(', ')}`);
  return notes;
}

/** "lmdb 1.00x dynalite (memory), 1.40x dynalite (LevelDB, ...), p99 5.10 ms". */
function lmdbNote(lmdb: MeasuredOutcome, dynalite: MeasuredOutcome, leveldb: MeasuredOutcome | undefined): string {
  const parts = [`lmdb ${fmtRatio(speedOf(lmdb, dynalite))} dynalite (memory)`];
  if (leveldb && errorsIn(leveldb) === 0 && leveldb.result.opsPerSec > 0) {
    // The persistent pair, though LevelDB acknowledges before any fsync and dynatwin (lmdb) after.
    parts.push(`${fmtRatio(speedOf(lmdb, leveldb))} dynalite (LevelDB, which does not fsync each write)`);
  } else if (leveldb) {
    parts.push(`dynalite (LevelDB) run failed (${errorsIn(leveldb)} errors)`);
  }
  return `${parts.join(', ')}, p99 ${fmtMs(lmdb.result.latency.p99Ms)} ms`;
}

/** "2.10 ms at 10,000 req/s", with ">=" when requests went unanswered and the rate achieved when short of it. */
function fixedRateP99(r: RateResult): string {
  const short = r.achievedPerSecond < r.ratePerSecond * ACHIEVED_RATE_SHORTFALL ? `, only ${fmtInt(r.achievedPerSecond)} answered/s` : '';
  return `${r.unanswered > 0 ? '>= ' : ''}${fmtMs(r.latency.p99Ms)} ms at ${fmtInt(r.ratePerSecond)} req/s${short}`;
}

/** "; floor (bare server, same run): p99 0.90 ms", or nothing when the bare server had no fixed-rate phase. */
function bareFloor(bare: MeasuredOutcome | undefined): string {
  const rate = bare?.fixedRate;
  if (rate === undefined || rate === null) return '';
  return `; floor (bare server, same run): p99 ${fixedRateP99(rate.result)}`;
}

/** Below this share of the offered rate, a fixed-rate line says how many answers came per second. */
const ACHIEVED_RATE_SHORTFALL = 0.98;

/** Issue 21's goals that this bench can judge today (the durable-speed goals are in each verdict). */
const BARE_SHARE_GOALS: Readonly<Record<string, number>> = { GetItem: 0.65, PutItem: 0.55 };
const FIXED_RATE_P99_GOAL_MS = 2;
/** The durable PutItem p99 at the fixed rate may exceed the disk's own fdatasync p99 by this much. */
const DURABLE_P99_MARGIN_MS = 1;

/**
 * Issue 21's figures, one line each, from the same run: dynatwin (memory)'s share of the bare
 * server on GetItem and PutItem, the fixed-rate p99 in memory, the durable PutItem fixed-rate p99
 * against the disk's fdatasync p99, and RSS per stored item beside dynalite's.
 */
export function issue21Lines(reports: readonly WorkloadReport[], disk: DiskSyncResult | null, rss: readonly RssPerItem[]): string[] {
  const lines: string[] = [];
  const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');
  for (const report of reports) {
    const memory = measured(report.outcomes, 'dynatwin-memory');
    const shareGoal = BARE_SHARE_GOALS[report.workload];
    const bare = measured(report.outcomes, 'bare');
    if (memory !== undefined && shareGoal !== undefined && bare !== undefined && bare.result.opsPerSec > 0) {
      const share = speedOf(memory, bare);
      lines.push(`${report.workload}: dynatwin (memory) ${(share * 100).toFixed(1)}% of the bare server's ops/s (goal >= ${(shareGoal * 100).toFixed(0)}%: ${verdict(share >= shareGoal)})`);
    }
    const rate = memory?.fixedRate;
    // The floor beside every fixed-rate p99: the bare server (answers `{}`) driven the same way in
    // the same run, i.e. what this generator and machine add to any server's latency.
    const floor = bareFloor(bare);
    if (shareGoal !== undefined && rate !== undefined && rate !== null) {
      const r = rate.result;
      const ok = r.unanswered === 0 && r.latency.p99Ms <= FIXED_RATE_P99_GOAL_MS;
      lines.push(`${report.workload}: dynatwin (memory) p99 ${fixedRateP99(r)} (goal <= ${FIXED_RATE_P99_GOAL_MS} ms: ${verdict(ok)})${floor}`);
    }
    const durable = measured(report.outcomes, 'dynatwin-lmdb')?.fixedRate;
    if (report.workload === 'PutItem' && durable !== undefined && durable !== null && disk !== null) {
      const r = durable.result;
      const limit = disk.latency.p99Ms + DURABLE_P99_MARGIN_MS;
      lines.push(
        `PutItem: dynatwin (lmdb) p99 ${fixedRateP99(r)}, the disk's fdatasync p99 ${disk.latency.p99Ms.toFixed(3)} ms ` +
          `(goal <= ${limit.toFixed(3)} ms: ${verdict(r.unanswered === 0 && r.latency.p99Ms <= limit)})${floor}`,
      );
    }
  }
  const ours = rss.find((r) => r.server === 'dynatwin');
  const theirs = rss.find((r) => r.server === 'dynalite');
  if (ours !== undefined) {
    const beside = theirs === undefined ? '' : ` beside dynalite's ${(theirs.bytesPerItem / 1024).toFixed(2)} KB`;
    lines.push(
      `RSS: dynatwin (memory) ${(ours.bytesPerItem / 1024).toFixed(2)} KB per stored 1 KB item at rest${beside} ` +
        `(goal <= ${(RSS_PER_ITEM_GOAL_BYTES / 1024).toFixed(1)} KB: ${verdict(ours.bytesPerItem <= RSS_PER_ITEM_GOAL_BYTES)}; ` +
        `right after the load ${(ours.bytesPerItemRightAfterLoad / 1024).toFixed(2)} KB, V8's young generation still at its peak)`,
    );
  }
  return lines;
}
