/**
 * `npm run bench`: every workload against every target, one server at a time, side by side.
 *
 * Environment: BENCH_SECONDS (measured phase, default 5), BENCH_WARMUP_SECONDS (default 2),
 * BENCH_ROUNDS (default 1: run every target of a workload this many times, interleaved, and show
 * each target's median round: this VM's speed drifts in ways no CPU counter shows),
 * BENCH_CONNECTIONS (concurrent in-flight requests, default 64), BENCH_NOISE_RETRIES (re-runs of a
 * measurement that other processes disturbed, default 2), and optional comma-separated
 * filters BENCH_TARGETS (bare,bare-net,dynalite,dynalite-leveldb,dynatwin-memory,dynatwin-node-http,dynatwin-lmdb,dynatwin-baseline,
 * dynatwin-lmdb-noflush,dynatwin-postgres) and BENCH_WORKLOADS (PutItem,GetItem). A target may run only some
 * workloads (its `workloads` in targets.ts). Results also go to bench/results/latest.json. Exit
 * code 1 if any request failed.
 *
 * Workloads with `fixedRatePhase` (PutItem, GetItem) add an open-loop phase after the closed-loop
 * one, on the same server: BENCH_RATE requests/s (default 10000, issue 21's rate; 0 turns the phase off) for
 * BENCH_RATE_SECONDS (default 3), with latency counted from each request's intended send time.
 * The closed loop says how fast a server can go; at saturation its latency is 64 in flight ÷
 * throughput (Little's law) for any server, so the latency a caller sees at a given load needs
 * this second phase. Every request of the phase is built before its clock starts (the generator's
 * hot path is then one socket write per request), and a probe preloaded into every server
 * (server-probe.ts; BENCH_PROBE=0 leaves it out) counts inside it, during the phase, the heap bytes
 * allocated per answer, the scavenges and mark-compacts with their pauses, and event-loop stalls;
 * over both phases' measured windows it also reads the write-ahead log's frames of a durable
 * dynatwin (frames/s, writes per frame, frame write times) and the event loop's busy share
 * (log-stats.ts), which the report prints under the tables with a lock-step model beside them.
 * BENCH_PIN=1 pins the generator to CPU 0 and every server to CPU 1 (taskset; off by default);
 * BENCH_SERVER_FLAGS gives every server the same extra Node/V8 flags (a heap setting to try).
 *
 * A workload with `compareWith` (e.g. PutItem INDEXES 2 GSIs: ['accounting-off']) also measures
 * what a feature costs: dynatwin (memory) with startDynatwin's defaults against the variant that
 * switches the feature off, in BENCH_NOISE_RETRIES + 1 interleaved rounds (see runComparison).
 * Those rounds run when BENCH_TARGETS is unset or names dynatwin-memory or the variant's own id
 * (dynatwin-memory:accounting-off).
 *
 * Issue 21's figures: before any server starts, the disk's own append + fdatasync latency is timed
 * for BENCH_FSYNC_SECONDS (default 2; 0 skips it) in the directory the LMDB stores use, the floor
 * of an acknowledged write that the durable PutItem p99 at the fixed rate is held against; after
 * the workloads, when dynatwin-memory is part of the run, dynatwin and dynalite (both in memory,
 * started with --expose-gc) each store BENCH_RSS_ITEMS 1 KB items (default 100000; 0 skips it)
 * and report their RSS growth per item, each reading taken after full collections at rest (6 s
 * idle; the reading right after the load is shown beside it, see rss.ts REST_MS). The verdict
 * adds a section with the share of the bare server (GetItem, PutItem), the fixed-rate p99s (each
 * beside the bare server's p99 at the same rate, the floor), the disk floor and RSS per item, each
 * against its goal.
 * The scenario simulator's speed comes last (bench/simulate.ts): the status-GSI example for
 * BENCH_SIMULATE_SECONDS simulated seconds (default 600; 0 leaves it out), in simulated items
 * per wall second. `npm run bench:simulate` runs it alone.
 *
 * dynatwin-postgres (PutItem, GetItem, Query, BatchWriteItem) runs dynatwin --store on a private
 * PostgreSQL cluster started for each of its runs (fsync on; targets.ts startDatabase) and adds the
 * database's own CPU per request: the postmaster's process tree's utime + stime (cpu.ts
 * processTreeCpuMs) over the measured phase ÷ its requests. Without PostgreSQL installed its rows
 * are skipped, the note saying what to install.
 *
 * Where the CPU goes, rather than how fast: `npm run profile` (bench/profile.ts) runs the
 * GetItem and PutItem workloads against dynatwin (memory) under `node --cpu-prof` and draws
 * bench/results/flame-<workload>.svg with bench/flame.ts (µs per request per frame).
 *
 * BENCH_BASELINE_DIR adds the target `dynatwin-baseline`: dynatwin (memory) as built at another
 * commit, launched with dynatwin-memory's flags, on every workload that commit can run; each
 * workload then reports this build's ops/s ÷ the baseline's (goal >= 95%, issue 16: no workload
 * slower by more than 5% than before it). With BENCH_ROUNDS > 1 the targets of a workload take
 * turns round after round and the ratio is the median of the rounds' own ratios. The directory is
 * a built checkout of the baseline commit, beside this one, sharing its node_modules:
 *   git worktree add ../dynatwin-baseline 8343082
 *   cp -al node_modules ../dynatwin-baseline/
 *   (cd ../dynatwin-baseline && npm run build)
 *   BENCH_BASELINE_DIR=../dynatwin-baseline BENCH_ROUNDS=5 BENCH_TARGETS=dynatwin-memory,dynatwin-baseline npm run bench
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuShares, processTreeCpuMs, sampleCpu } from './cpu.js';
import { formatDiskSync, measureFdatasync, type DiskSyncResult } from './disk-sync.js';
import { LoadClient, type MakeRequest, type RequestSpec } from './load.js';
import {
  buildRatioOf,
  comparisonRound,
  errorsIn,
  formatBuildRatio,
  formatPair,
  formatRateTable,
  formatTable,
  issue21Lines,
  summarisePair,
  GOALS,
  rateErrorsIn,
  runDisturbed,
  summariseComparison,
  verdictFor,
  type Comparison,
  type ComparisonRound,
  type MeasuredOutcome,
  type FixedRateOutcome,
  type Outcome,
  type PairedRatio,
  type WorkloadReport,
} from './report.js';
import {
  BASELINE_ID,
  cpuPinning,
  pinLoadGenerator,
  serverNodeFlags,
  DYNATWIN_BIN,
  installCleanup,
  killAllSync,
  launch,
  REFERENCE_TARGET,
  REPO_ROOT,
  TARGETS,
  VARIANT_IDS,
  VARIANTS,
  variantTarget,
  variantTargetId,
  type RunningTarget,
  type TargetId,
  type TargetSpec,
  type VariantId,
} from './targets.js';
import { formatRss, measureRssPerItem, type RssPerItem } from './rss.js';
import { benchSimulation, formatSimulationBench, simulateSecondsFromEnv } from './simulate.js';
import { WORKLOADS, type Workload } from './workloads.js';

interface Config {
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly noiseRetries: number;
  readonly targets: readonly TargetSpec[];
  /** Variants whose comparisons run (for the workloads that name them). */
  readonly variants: ReadonlySet<VariantId>;
  /** Interleaved on/off rounds per comparison: the first measurement plus one per noise retry. */
  readonly comparisonRounds: number;
  readonly workloads: readonly (() => Workload)[];
  /** BENCH_ROUNDS: each workload runs every target this many times, interleaved; rows show the median. */
  readonly rounds: number;
  /** The fixed-rate phase's offered load; 0 means no such phase. */
  readonly ratePerSecond: number;
  readonly rateSeconds: number;
  /** BENCH_FSYNC_SECONDS: how long the disk's own append + fdatasync is timed; 0 skips it. */
  readonly fsyncSeconds: number;
  /** BENCH_RSS_ITEMS: items stored for the RSS-per-item figure; 0 skips it. */
  readonly rssItems: number;
}

function numberFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  return value;
}

function listFromEnv(name: string): Set<string> | null {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return null;
  return new Set(raw.split(',').map((s) => s.trim()).filter((s) => s !== ''));
}

function readConfig(): Config {
  const targetFilter = listFromEnv('BENCH_TARGETS');
  const workloadFilter = listFromEnv('BENCH_WORKLOADS');
  const targets = TARGETS.filter((t) => targetFilter === null || targetFilter.has(t.id));
  const variants = new Set(
    VARIANT_IDS.filter((v) => targetFilter === null || targetFilter.has('dynatwin-memory') || targetFilter.has(variantTargetId(v))),
  );
  const workloadNames = WORKLOADS.map((make) => make().name);
  const workloads = WORKLOADS.filter((_, i) => workloadFilter === null || workloadFilter.has(workloadNames[i]!));
  // A misspelt name would otherwise silently drop a target or workload from the run.
  const targetNames = [...TARGETS.map((t) => t.id), ...VARIANT_IDS.map(variantTargetId)];
  rejectUnknown('BENCH_TARGETS', targetFilter, targetNames);
  rejectUnknown('BENCH_WORKLOADS', workloadFilter, workloadNames);
  // Likewise a misspelt name in a target's own `workloads` list would silently drop its rows.
  for (const t of TARGETS) rejectUnknown(`targets.ts ${t.id}.workloads`, t.workloads === undefined ? null : new Set(t.workloads), workloadNames);
  if (targets.length === 0 && variants.size === 0) throw new Error(`BENCH_TARGETS matched none of: ${targetNames.join(', ')}`);
  if (workloads.length === 0) throw new Error('BENCH_WORKLOADS matched no workload');
  const noiseRetries = Math.floor(numberFromEnv('BENCH_NOISE_RETRIES', 2, 0));
  return {
    seconds: numberFromEnv('BENCH_SECONDS', 5, 0.1),
    warmupSeconds: numberFromEnv('BENCH_WARMUP_SECONDS', 2, 0),
    connections: Math.floor(numberFromEnv('BENCH_CONNECTIONS', 64, 1)),
    noiseRetries,
    targets,
    variants,
    comparisonRounds: noiseRetries + 1,
    workloads,
    rounds: Math.floor(numberFromEnv('BENCH_ROUNDS', 1, 1)),
    ratePerSecond: numberFromEnv('BENCH_RATE', 10_000, 0),
    rateSeconds: numberFromEnv('BENCH_RATE_SECONDS', 3, 0.1),
    fsyncSeconds: numberFromEnv('BENCH_FSYNC_SECONDS', 2, 0),
    // Only when dynatwin (memory) is part of the run: the figure is about it (dynalite beside it).
    rssItems: targets.some((t) => t.id === 'dynatwin-memory') ? Math.floor(numberFromEnv('BENCH_RSS_ITEMS', 100_000, 0)) : 0,
  };
}

function rejectUnknown(name: string, filter: Set<string> | null, known: readonly string[]): void {
  const unknown = [...(filter ?? [])].filter((entry) => !known.includes(entry));
  if (unknown.length > 0) throw new Error(`${name}: unknown ${unknown.map((u) => `"${u}"`).join(', ')}; known: ${known.join(', ')}`);
}

const progress = (text: string): boolean => process.stdout.write(text);
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function skip(spec: TargetSpec, stage: 'start' | 'setup', reason: string): Outcome {
  progress(' FAILED\n');
  return { status: 'skipped', target: spec.id, label: spec.label, stage, reason };
}

/**
 * One workload against one target on a fresh server: start, setup, warm-up, measure (and, with
 * `atFixedRate`, the fixed-rate phase), stop. A fresh server per run keeps workloads independent
 * (GetItem never reads a table PutItem bloated).
 */
async function runOne(spec: TargetSpec, workload: Workload, config: Config, atFixedRate = false): Promise<Outcome> {
  progress(`  ${workload.name} × ${spec.label}: start`);
  let server: RunningTarget;
  try {
    server = await launch(spec);
  } catch (error) {
    return skip(spec, 'start', `failed to start: ${message(error)}`);
  }
  const client = new LoadClient(server.port, config.connections);
  try {
    progress(', setup');
    try {
      await workload.setup(client, spec);
    } catch (error) {
      return skip(spec, 'setup', `setup failed: ${message(error)}`);
    }
    return await warmUpAndMeasure(spec, workload, client, server, config, atFixedRate);
  } finally {
    client.close();
    await server.stop();
  }
}

async function warmUpAndMeasure(
  spec: TargetSpec,
  workload: Workload,
  client: LoadClient,
  server: RunningTarget,
  config: Config,
  atFixedRate: boolean,
): Promise<Outcome> {
  const serverPid = server.pid;
  // Bound call rather than the bare method, so class-based workloads keep their `this`.
  const make = (i: number): RequestSpec => workload.makeRequest(i);
  progress(`, warm-up ${config.warmupSeconds} s`);
  const warmup = await client.run({ durationMs: config.warmupSeconds * 1000 }, make);
  progress(`, measure ${config.seconds} s`);
  // The probe's 'log' window (the write-ahead log's frames, the event loop's busy share) costs the
  // server nothing while the closed loop runs; it spans the measured phase alone.
  const logging = server.probe !== null && (await server.probe.open('log'));
  const cpuBefore = sampleCpu(serverPid);
  const databaseCpuBeforeMs = server.databasePid === null ? null : processTreeCpuMs(server.databasePid);
  const result = await client.run({ durationMs: config.seconds * 1000 }, make);
  const databaseCpuAfterMs = server.databasePid === null ? null : processTreeCpuMs(server.databasePid);
  const databaseCpuMs = databaseCpuBeforeMs === null || databaseCpuAfterMs === null ? null : databaseCpuAfterMs - databaseCpuBeforeMs;
  // The database's processes work for this run: not "other processes" that disturbed it.
  const cpu = cpuShares(cpuBefore, sampleCpu(serverPid), result.loaderCpuSeconds + (databaseCpuMs ?? 0) / 1000);
  const requests = result.ok + result.errors;
  const log = logging ? await server.probe!.closeLog() : null;
  const errors = result.errors + warmup.errors;
  progress(`: ${Math.round(result.opsPerSec).toLocaleString('en-US')} ops/s${errors > 0 ? `, ${errors} ERRORS` : ''}`);
  const fixedRate = atFixedRate ? await measureAtFixedRate(client, server, make, config) : null;
  progress('\n');
  return {
    status: 'measured',
    target: spec.id,
    label: spec.label,
    result,
    warmupErrors: warmup.errors,
    serverCpuPercent: cpu.serverPercent,
    otherCpuPercent: cpu.otherPercent,
    fixedRate,
    log,
    ...(server.databasePid === null
      ? {}
      : {
          databaseCpuMsPerRequest: databaseCpuMs === null || requests === 0 ? null : databaseCpuMs / requests,
        }),
  };
}

/** The open-loop phase, right after the closed loop on the same (warm) server. */
async function measureAtFixedRate(client: LoadClient, server: RunningTarget, make: MakeRequest, config: Config): Promise<FixedRateOutcome> {
  progress(`; fixed rate ${config.ratePerSecond.toLocaleString('en-US')}/s for ${config.rateSeconds} s`);
  // The requests are built before the window opens (runAtRate prepares, then starts the clock),
  // and the probe's window spans the phase alone.
  const phase = await client.prepareRate(config.ratePerSecond, config.rateSeconds * 1000, make);
  const probing = server.probe !== null && (await server.probe.open());
  const cpuBefore = sampleCpu(server.pid);
  const result = await phase.run();
  const cpu = cpuShares(cpuBefore, sampleCpu(server.pid), result.loaderCpuSeconds);
  const probe = probing ? await server.probe!.close() : null;
  progress(`: p99 ${result.latency.p99Ms.toFixed(2)} ms${result.errors > 0 ? `, ${result.errors} ERRORS` : ''}`);
  return { result, serverCpuPercent: cpu.serverPercent, otherCpuPercent: cpu.otherPercent, probe };
}

/**
 * Other engineers' builds and tests share this machine; a run they disturbed is repeated (on a
 * fresh server) up to BENCH_NOISE_RETRIES times, keeping the least disturbed attempt.
 */
async function runUndisturbed(spec: TargetSpec, makeWorkload: () => Workload, config: Config, atFixedRate: boolean): Promise<Outcome> {
  // A fresh workload instance per run, so no state (keys, caches) carries over.
  let best = await runOne(spec, makeWorkload(), config, atFixedRate);
  for (let retry = 0; retry < config.noiseRetries && best.status === 'measured' && runDisturbed(best); retry++) {
    progress(`    disturbed: other processes used ${Math.round(otherCpu(best))}% of a core; running it again\n`);
    const again = await runOne(spec, makeWorkload(), config, atFixedRate);
    if (otherCpu(again) < otherCpu(best)) best = again;
  }
  return best;
}

/**
 * The round with the median throughput (the lower middle of an even count), carrying every
 * round's ops/s for the report; the first skip when no round was measured.
 */
function medianOutcome(rounds: readonly Outcome[]): Outcome {
  const measuredRounds = rounds.filter((o): o is MeasuredOutcome => o.status === 'measured');
  if (measuredRounds.length === 0) return rounds[0]!;
  const sorted = [...measuredRounds].sort((a, b) => a.result.opsPerSec - b.result.opsPerSec);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return rounds.length === 1 ? median : { ...median, roundOpsPerSec: measuredRounds.map((o) => o.result.opsPerSec) };
}

/** Outside CPU load during a measurement (its worse phase); a skipped run ranks below any measured one. */
function otherCpu(outcome: Outcome): number {
  if (outcome.status !== 'measured') return Infinity;
  return Math.max(outcome.otherCpuPercent ?? 0, outcome.fixedRate?.otherCpuPercent ?? 0);
}

/** `dead` maps a target that failed to start to the workload it failed for. */
async function runWorkload(makeWorkload: () => Workload, config: Config, dead: Map<TargetId, string>): Promise<WorkloadReport> {
  const workload = makeWorkload();
  const name = workload.name;
  // Only for the targets' own rows: the feature comparisons below measure throughput alone.
  const atFixedRate = workload.fixedRatePhase === true && config.ratePerSecond > 0;
  // A target that names its workloads is simply not part of the others' tables.
  const specs = config.targets.filter((t) => t.workloads === undefined || t.workloads.includes(name));
  // Per target, its outcome in each round. Rounds go through every target in turn, so a slow
  // spell of the host (which other CPU does not show on this VM) falls on all of them alike.
  const byTarget = specs.map((): Outcome[] => []);
  for (let round = 1; round <= config.rounds; round++) {
    if (config.rounds > 1) progress(`  ${name}: round ${round}/${config.rounds}\n`);
    for (const [at, spec] of specs.entries()) {
      const failedFor = dead.get(spec.id);
      if (failedFor !== undefined) {
        // It already failed to start for an earlier workload; retrying would only burn the time-out again.
        const reason = `failed to start (see ${failedFor})`;
        byTarget[at]!.push({ status: 'skipped', target: spec.id, label: spec.label, stage: 'start', reason });
        continue;
      }
      const outcome = await runUndisturbed(spec, makeWorkload, config, atFixedRate && spec.fixedRatePhase !== false);
      if (outcome.status === 'skipped' && outcome.stage === 'start') dead.set(spec.id, name);
      byTarget[at]!.push(outcome);
    }
  }
  const outcomes = byTarget.map(medianOutcome);
  const comparisons: Comparison[] = [];
  for (const variant of workload.compareWith ?? []) {
    if (config.variants.has(variant)) comparisons.push(await runComparison(variant, makeWorkload, config));
  }
  const pairs = await runPairs(workload, makeWorkload, config);
  const baselineBuild = buildRatioOf(outcomes, 'dynatwin-memory', BASELINE_ID);
  return {
    workload: name,
    outcomes,
    comparisons,
    ...(pairs.length === 0 ? {} : { pairs }),
    ...(baselineBuild === undefined ? {} : { baselineBuild }),
    verdict: verdictFor(name, outcomes, comparisons),
  };
}

/**
 * A workload against its baseline workload (`pairedWith`) on each of the named targets that this
 * run includes: BENCH_NOISE_RETRIES + 1 rounds on fresh servers, the order alternating, and the
 * median of the rounds' own ratios, as runComparison does for variants.
 */
async function runPairs(workload: Workload, makeWorkload: () => Workload, config: Config): Promise<PairedRatio[]> {
  const paired = workload.pairedWith;
  if (paired === undefined) return [];
  const pairs: PairedRatio[] = [];
  const baselineName = paired.baseline().name;
  for (const spec of config.targets.filter((t) => paired.targets.includes(t.id))) {
    const rounds: Outcome[][] = [];
    for (let round = 0; round < config.comparisonRounds; round++) {
      progress(`  ${workload.name} vs ${baselineName} on ${spec.label}, round ${round + 1}/${config.comparisonRounds}\n`);
      const oursFirst = round % 2 === 0;
      const first = await runOne(spec, oursFirst ? makeWorkload() : paired.baseline(), config);
      const second = await runOne(spec, oursFirst ? paired.baseline() : makeWorkload(), config);
      rounds.push(oursFirst ? [first, second] : [second, first]);
    }
    pairs.push(summarisePair(spec.label, baselineName, paired.goalRatio, rounds));
  }
  return pairs;
}

/**
 * What a feature costs: dynatwin (memory) with it on (startDynatwin defaults) against the variant
 * with it off, each on a fresh server, both launched the same way so they differ in that option
 * alone.
 *
 * Method, because this machine is shared and a 10 % (or 5 %) effect is about the size of the noise
 * between two runs:
 * - the two run back to back, in BENCH_NOISE_RETRIES + 1 rounds, and a round that other processes
 *   disturbed (other CPU > 10 % in either run) earns one more, at most BENCH_NOISE_RETRIES more;
 * - the order alternates (on/off, off/on, on/off...), so a slow drift in outside load, or whatever
 *   favours the first or second run of a pair, falls on both sides equally;
 * - each round yields its own overhead, 1 − on ÷ off ops/s, from two runs that saw about the same
 *   machine, and the reported overhead is the median of those over the undisturbed rounds (all
 *   rounds, marked UNRELIABLE, if none is): one round a neighbour spoiled cannot move it much.
 * The same figure from server CPU per request, 1 − off ÷ on µs/op, is shown beside it as a
 * cross-check that still holds if the load generator rather than the server limits throughput.
 */
async function runComparison(variant: VariantId, makeWorkload: () => Workload, config: Config): Promise<Comparison> {
  const { feature, maxOverheadPercent } = VARIANTS[variant];
  const on = REFERENCE_TARGET;
  const off = variantTarget(variant);
  const rounds: ComparisonRound[] = [];
  let planned = config.comparisonRounds;
  let extraLeft = config.noiseRetries;
  for (let round = 0; round < planned; round++) {
    const onFirst = round % 2 === 0;
    progress(`  ${feature} on vs off, round ${round + 1}/${planned}\n`);
    const first = await runOne(onFirst ? on : off, makeWorkload(), config);
    const second = await runOne(onFirst ? off : on, makeWorkload(), config);
    const result = comparisonRound(onFirst, onFirst ? first : second, onFirst ? second : first);
    rounds.push(result);
    // As runUndisturbed does for a single run: a disturbed round earns another, up to BENCH_NOISE_RETRIES.
    if (result.disturbed && extraLeft > 0) {
      extraLeft--;
      planned++;
      progress('    disturbed by other processes: adding a round\n');
    }
  }
  return summariseComparison(variant, feature, maxOverheadPercent, rounds);
}

function writeJson(reports: readonly WorkloadReport[], config: Config, totalErrors: number, disk: DiskSyncResult | null, rss: readonly RssPerItem[]): string {
  const dir = path.join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'latest.json');
  const cpus = os.cpus();
  const document = {
    generatedAt: new Date().toISOString(),
    config: {
      seconds: config.seconds,
      warmupSeconds: config.warmupSeconds,
      connections: config.connections,
      noiseRetries: config.noiseRetries,
      comparisonRounds: config.comparisonRounds,
      rounds: config.rounds,
      ratePerSecond: config.ratePerSecond,
      rateSeconds: config.rateSeconds,
      fsyncSeconds: config.fsyncSeconds,
      rssItems: config.rssItems,
      pinned: cpuPinning(),
      serverFlags: serverNodeFlags(),
    },
    goals: { ...GOALS, maxOverheadPercentByVariant: Object.fromEntries(VARIANT_IDS.map((v) => [v, VARIANTS[v].maxOverheadPercent])) },
    machine: { cpus: cpus.length, cpuModel: cpus[0]?.model ?? 'unknown', node: process.version, platform: process.platform },
    totalErrors,
    disk,
    rss,
    workloads: reports,
  };
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  return file;
}

async function main(): Promise<void> {
  installCleanup();
  const config = readConfig();
  pinLoadGenerator();
  const rateWorkloads = config.workloads.map((make) => make()).filter((w) => w.fixedRatePhase === true).map((w) => w.name);
  const fixedRate =
    config.ratePerSecond > 0 && rateWorkloads.length > 0
      ? `, then ${config.ratePerSecond.toLocaleString('en-US')} req/s for ${config.rateSeconds} s (${rateWorkloads.join(', ')})`
      : '';
  console.log(
    `dynatwin bench: ${config.connections} connections, ${config.warmupSeconds} s warm-up + ${config.seconds} s measured${fixedRate}, ` +
      `${os.cpus().length} CPUs, node ${process.version}` +
      `${cpuPinning() === null ? '' : `, pinned: load generator on CPU ${cpuPinning()!.clientCpu}, servers on CPU ${cpuPinning()!.serverCpu}`}` +
      `${serverNodeFlags().length === 0 ? '' : `, every server started with ${serverNodeFlags().join(' ')}`}` +
      `\n(dynatwin launcher: ${DYNATWIN_BIN})\n`,
  );
  // The disk's floor for an acknowledged write, before any server runs (nothing else writes then).
  const disk = config.fsyncSeconds > 0 ? measureFdatasync(config.fsyncSeconds * 1000) : null;
  if (disk !== null) console.log(`${formatDiskSync(disk)}\n`);
  const reports: WorkloadReport[] = [];
  const dead = new Map<TargetId, string>();
  for (const makeWorkload of config.workloads) {
    const report = await runWorkload(makeWorkload, config, dead);
    reports.push(report);
    console.log(`\n${formatTable(report, config.connections, config.seconds)}\n`);
    const rateTable = formatRateTable(report, config.connections, config.rateSeconds);
    if (rateTable !== null) console.log(`${rateTable}\n`);
    for (const pair of report.pairs ?? []) console.log(`${formatPair(report.workload, pair)}\n`);
    if (report.baselineBuild !== undefined) console.log(`${formatBuildRatio(report.workload, report.baselineBuild)}\n`);
  }
  const rss: RssPerItem[] = [];
  if (config.rssItems > 0) {
    progress(`Memory: RSS per stored 1 KB item, ${config.rssItems.toLocaleString('en-US')} items, after full GC\n`);
    for (const server of ['dynatwin', 'dynalite'] as const) {
      progress(`  ${server}\n`);
      try {
        rss.push(await measureRssPerItem(server, config.rssItems, config.connections));
      } catch (error) {
        progress(`  ${server}: FAILED ${message(error)}\n`);
      }
    }
    for (const line of formatRss(rss)) console.log(line);
    console.log('');
  }
  const totalErrors = reports
    .flatMap((r) => [...r.outcomes, ...r.comparisons.flatMap((c) => c.rounds.flatMap((round) => [round.on, round.off]))])
    .reduce((sum, o) => sum + (o.status === 'measured' ? errorsIn(o) + rateErrorsIn(o) : 0), 0);
  console.log('Verdict');
  for (const report of reports) {
    console.log(`  ${report.verdict.line}`);
    for (const pair of report.pairs ?? []) console.log(`  ${formatPair(report.workload, pair)}`);
  }
  const durableAndLean = issue21Lines(reports, disk, rss);
  if (durableAndLean.length > 0) {
    console.log('Issue 21 (share of the bare server, latency at a fixed rate, the disk floor, memory)');
    for (const line of durableAndLean) console.log(`  ${line}`);
  }
  // The scenario simulator's speed (bench/simulate.ts; BENCH_SIMULATE_SECONDS=0 leaves it out).
  const simulateSeconds = simulateSecondsFromEnv();
  if (simulateSeconds > 0) {
    for (const fidelity of ['items', 'flow'] as const) console.log(`  ${formatSimulationBench(await benchSimulation(simulateSeconds, fidelity))}`);
  }
  const builds = reports.flatMap((report) => (report.baselineBuild === undefined ? [] : [formatBuildRatio(report.workload, report.baselineBuild)]));
  if (builds.length > 0) {
    console.log('Against the baseline build (BENCH_BASELINE_DIR)');
    for (const line of builds) console.log(`  ${line}`);
  }
  console.log(`\nResults written to ${path.relative(process.cwd(), writeJson(reports, config, totalErrors, disk, rss))}`);
  if (totalErrors > 0) {
    console.error(`\n${'!'.repeat(72)}\n!!! ${totalErrors} REQUESTS FAILED — these figures are NOT valid; see the errors above.\n${'!'.repeat(72)}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  killAllSync();
  process.exitCode = 1;
});
