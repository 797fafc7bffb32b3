/**
 * `npm run profile`: where dynatwin's CPU goes per request, as flame graphs (bench/flame.ts).
 *
 *   npm run profile                      # GetItem and PutItem, 10 s each after 2 s of warm-up
 *   npm run profile -- GetItem --seconds 20 --out-dir /tmp/flames
 *   node dist/bench/profile.js [WORKLOAD...] [--seconds S] [--warmup-seconds S] [--connections N]
 *        [--interval-us US] [--out-dir DIR] [--keep-profile]
 *
 * For each workload named (any of `npm run bench`'s, by name; default GetItem and PutItem), it
 * starts dynatwin as the bench's dynatwin-memory row does (bin/dynatwin.js --in-memory --capacity
 * off) under `node --cpu-prof`, runs the workload's own setup (the table; GetItem preloads 10,000
 * 1 KB items), a warm-up, then the measured closed loop with the bench's raw-socket client (64
 * connections by default), and stops the server with SIGINT, on which it closes and exits and
 * Node writes the profile. Only the samples taken during the measured loop count (the window is
 * read on process.hrtime's clock, which is the profile's own monotonic clock), so the set-up and
 * the warm-up are not in the picture, and the requests the client had answered in that window
 * give the µs per request. Writes DIR/flame-<workload>.svg and DIR/flame-<workload>.txt (the text
 * summary it also prints); DIR defaults to bench/results. --keep-profile also copies the
 * .cpuprofile there (several MB: not for committing).
 *
 * The server gets no in-server probe (BENCH_PROBE's); BENCH_SERVER_FLAGS and BENCH_PIN apply as
 * in `npm run bench`. The figures are only as quiet as the machine: take them with nothing else
 * running.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildFlameProfile, formatSummary, readCpuProfile, renderFlameSvg, type ProfileWindow } from './flame.js';
import { describeSample, LoadClient, type RunResult } from './load.js';
import { installCleanup, launch, pinLoadGenerator, REPO_ROOT, TARGETS, type TargetSpec } from './targets.js';
import { WORKLOADS, type TargetInfo, type Workload } from './workloads.js';

export interface ProfileConfig {
  readonly workloads: readonly string[];
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  /** V8's sampling interval (node --cpu-prof-interval); Node's default is 1000. */
  readonly intervalUs: number;
  readonly outDir: string;
  readonly keepProfile: boolean;
}

export interface ProfileOutcome {
  readonly workload: string;
  readonly svgFile: string;
  readonly summaryFile: string;
  readonly profileFile: string | null;
  /** Requests answered during the measured window (the per-request divisor). */
  readonly requests: number;
  readonly errors: number;
  readonly busySamples: number;
  readonly summary: string;
}

const DEFAULT_WORKLOADS = ['GetItem', 'PutItem'];
const MEMORY_TARGET_ID = 'dynatwin-memory';
/** Writing a profile of a few hundred thousand samples takes a moment after SIGINT. */
const EXIT_TIMEOUT_MS = 60_000;
const USAGE =
  'usage: node dist/bench/profile.js [WORKLOAD...] [--seconds S] [--warmup-seconds S] [--connections N] ' +
  '[--interval-us US] [--out-dir DIR] [--keep-profile]';

export function parseProfileArgs(argv: readonly string[]): ProfileConfig {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      seconds: { type: 'string', default: '10' },
      'warmup-seconds': { type: 'string', default: '2' },
      connections: { type: 'string', default: '64' },
      'interval-us': { type: 'string', default: '1000' },
      'out-dir': { type: 'string', default: path.join(REPO_ROOT, 'bench', 'results') },
      'keep-profile': { type: 'boolean', default: false },
    },
  });
  const known = WORKLOADS.map((make) => make().name);
  const unknown = positionals.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new Error(`unknown workload ${unknown.map((u) => `"${u}"`).join(', ')}; known: ${known.join(', ')}\n${USAGE}`);
  return {
    workloads: positionals.length > 0 ? positionals : DEFAULT_WORKLOADS,
    seconds: numberIn(values.seconds, 'seconds', 0.1, 3600),
    warmupSeconds: numberIn(values['warmup-seconds'], 'warmup-seconds', 0, 3600),
    connections: Math.round(numberIn(values.connections, 'connections', 1, 1024)),
    intervalUs: Math.round(numberIn(values['interval-us'], 'interval-us', 10, 100_000)),
    outDir: path.resolve(values['out-dir']),
    keepProfile: values['keep-profile'],
  };
}

function numberIn(text: string, name: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || value > max) throw new Error(`--${name} must be a number from ${min} to ${max}, got "${text}"\n${USAGE}`);
  return value;
}

/** The bench's dynatwin (memory) row, launched under the CPU profiler. */
function profiledTarget(profileDir: string, intervalUs: number): TargetSpec {
  const memory = TARGETS.find((target) => target.id === MEMORY_TARGET_ID);
  if (memory === undefined) throw new Error(`assertion failed: no ${MEMORY_TARGET_ID} target in targets.ts`);
  const profilerFlags = ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-interval=${intervalUs}`];
  return { ...memory, args: (port, scratchDir, databaseUrl) => [...profilerFlags, ...memory.args(port, scratchDir, databaseUrl)] };
}

/** Now on the monotonic clock V8 stamps its samples with (CLOCK_MONOTONIC on Linux), in µs. */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** SIGINT, as a user's Ctrl-C: dynatwin closes and exits, and Node writes the profile on the way out. */
async function interrupt(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the profiled server died early (exit ${child.exitCode ?? child.signalCode})`);
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  child.kill('SIGINT');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), EXIT_TIMEOUT_MS)));
  const outcome = await Promise.race([exited, timeout]);
  clearTimeout(timer);
  if (outcome === 'timeout') throw new Error(`the profiled server did not exit within ${EXIT_TIMEOUT_MS / 1000} s of SIGINT`);
  if (outcome !== 0) throw new Error(`the profiled server exited with ${outcome} after SIGINT`);
}

function onlyProfileIn(dir: string): string {
  const files = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'));
  if (files.length !== 1) throw new Error(`expected one .cpuprofile in ${dir}, found ${files.length}`);
  return path.join(dir, files[0]!);
}

function workloadNamed(name: string): Workload {
  for (const make of WORKLOADS) {
    const workload = make();
    if (workload.name === name) return workload;
  }
  throw new Error(`unknown workload "${name}"`);
}

/** Set-up, warm-up and the measured loop; returns the loop's result and its window on the profile's clock. */
async function drive(port: number, workload: Workload, target: TargetInfo, config: ProfileConfig): Promise<{ result: RunResult; window: ProfileWindow }> {
  const client = new LoadClient(port, config.connections);
  const make = (i: number) => workload.makeRequest(i);
  try {
    await workload.setup(client, target);
    if (config.warmupSeconds > 0) await client.run({ durationMs: config.warmupSeconds * 1000 }, make);
    // Every warm-up request was answered before run() resolved, and every measured one is
    // answered before it resolves: the window holds the measured requests' work and no other's.
    const fromUs = monotonicUs();
    const result = await client.run({ durationMs: config.seconds * 1000 }, make);
    return { result, window: { fromUs, toUs: monotonicUs() } };
  } finally {
    client.close();
  }
}

function commitLabel(): string {
  try {
    const commit = execFileSync('git', ['-C', REPO_ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['-C', REPO_ROOT, 'status', '--porcelain', '--untracked-files=no', '--', 'src', 'bin'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return dirty.trim() === '' ? commit : `${commit} + uncommitted changes`;
  } catch {
    return 'unknown commit';
  }
}

/** File names for a workload: "PutItem stream" → flame-PutItem-stream.svg. */
export function outputStem(workload: string): string {
  return `flame-${workload.replace(/[^A-Za-z0-9]+/g, '-')}`;
}

/** One workload end to end: server under the profiler, load, SIGINT, flame graph and summary. */
export async function profileWorkload(name: string, config: ProfileConfig): Promise<ProfileOutcome> {
  const workload = workloadNamed(name);
  const profileDir = mkdtempSync(path.join(tmpdir(), 'dynatwin-profile-'));
  try {
    const spec = profiledTarget(profileDir, config.intervalUs);
    const server = await launch(spec, { probe: false });
    let measured: { result: RunResult; window: ProfileWindow };
    try {
      measured = await drive(server.port, workload, spec, config);
      await interrupt(server.child);
    } finally {
      await server.stop();
    }
    const { result, window } = measured;
    const profileFile = onlyProfileIn(profileDir);
    const cpuProfile = readCpuProfile(profileFile);
    if (window.fromUs < cpuProfile.startTime || window.toUs > cpuProfile.endTime) {
      throw new Error(
        `the measured window (${window.fromUs}-${window.toUs} µs) is not inside the profile (${cpuProfile.startTime}-${cpuProfile.endTime} µs): ` +
          'this platform stamps samples on another clock than process.hrtime',
      );
    }
    const flame = buildFlameProfile(cpuProfile, window);
    if (flame.busySamples === 0) throw new Error(`no busy sample in the measured window of ${name}: was the server answering?`);
    const requests = result.ok + result.errors;
    const stem = outputStem(name);
    mkdirSync(config.outDir, { recursive: true });
    const svgFile = path.join(config.outDir, `${stem}.svg`);
    const summaryFile = path.join(config.outDir, `${stem}.txt`);
    const title = `dynatwin (memory, --capacity off): ${name}, closed loop over ${config.connections} connections`;
    const subtitle =
      `${config.seconds} s measured after ${config.warmupSeconds} s of warm-up; ${Math.round(result.opsPerSec)} requests/s on this machine; ` +
      `commit ${commitLabel()}; node ${process.version}; sampled every ${config.intervalUs} µs`;
    writeFileSync(svgFile, renderFlameSvg(flame, { title, subtitle, requests }));
    const summary = `${title}\n${subtitle}\n\n${formatSummary(flame, { requests })}\n`;
    writeFileSync(summaryFile, summary);
    let keptProfile: string | null = null;
    if (config.keepProfile) {
      keptProfile = path.join(config.outDir, `${stem}.cpuprofile`);
      copyFileSync(profileFile, keptProfile);
    }
    if (result.errors > 0) process.stderr.write(`${name}: ${result.errors} requests failed; first: ${describeSample(result.errorSamples[0])}\n`);
    return { workload: name, svgFile, summaryFile, profileFile: keptProfile, requests, errors: result.errors, busySamples: flame.busySamples, summary };
  } finally {
    rmSync(profileDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const config = parseProfileArgs(process.argv.slice(2));
  installCleanup();
  pinLoadGenerator();
  let failed = 0;
  for (const name of config.workloads) {
    process.stdout.write(`Profiling ${name} (${config.seconds} s, ${config.connections} connections)...\n`);
    const outcome = await profileWorkload(name, config);
    failed += outcome.errors;
    process.stdout.write(`${outcome.summary}\nflame graph: ${path.relative(process.cwd(), outcome.svgFile)}\n`);
    if (outcome.profileFile !== null) process.stdout.write(`profile: ${path.relative(process.cwd(), outcome.profileFile)}\n`);
    process.stdout.write('\n');
  }
  if (failed > 0) {
    process.stderr.write(`${failed} requests failed: the profiles include their error handling.\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    process.stderr.write(`profile failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
