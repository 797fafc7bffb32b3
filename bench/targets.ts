/**
 * The servers under test, each launched in its own child process so that the load generator (this
 * process) and the server each get one of the machine's two cores.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DynatwinOptions } from '../src/index.js';
// The cluster helper the PostgreSQL test pass uses: a self-contained module (node built-ins only,
// nothing of node:test), imported rather than moved so that one helper starts every private
// cluster of the project; see startDatabase below.
import { startPrivatePostgres, type PrivatePostgres } from '../test/support/postgres.js';
import { ProbeControl } from './probe.js';
import { WORKLOADS, type TargetInfo } from './workloads.js';

export type TargetId =
  | 'bare'
  | 'bare-net'
  | 'dynalite'
  | 'dynalite-leveldb'
  | 'dynatwin-memory'
  | 'dynatwin-node-http'
  | 'dynatwin-lmdb'
  | 'dynatwin-lmdb-noflush'
  | 'dynatwin-postgres'
  | typeof BASELINE_ID
  | typeof REFERENCE_ID
  | VariantTargetId;

export interface TargetSpec extends TargetInfo {
  readonly id: TargetId;
  /**
   * The workloads (by name) this target runs; absent means every workload. A target outside a
   * workload's list is simply not part of its table, which keeps evidence rows that only one
   * argument needs (issue #3's) from adding minutes to every other workload.
   */
  readonly workloads?: readonly string[];
  /**
   * Node arguments (script first) for a server on `port`, given a fresh scratch dir if it asked
   * for one, and the URL of a fresh private PostgreSQL cluster if it asked for one (`database`).
   */
  args(port: number, scratchDir: string | null, databaseUrl: string | null): string[];
  readonly needsScratchDir: boolean;
  /**
   * 'postgres': launch() first starts a private PostgreSQL cluster for this server alone (with
   * fsync on), hands its URL to `args`, and stops it with the server; RunningTarget.databasePid
   * is its postmaster, whose process tree the report holds the database's CPU against.
   */
  readonly database?: 'postgres';
  /**
   * False: no fixed-rate phase for this target even on a workload that has one. For a server far
   * below BENCH_RATE the open loop only measures its queue (every request late by the whole
   * backlog) and adds seconds of draining to the run.
   */
  readonly fixedRatePhase?: false;
  /** Our own child entry points watch stdin to die with us; dynatwin gets no stdin at all. */
  readonly watchesStdin: boolean;
}

export interface RunningTarget {
  readonly port: number;
  readonly pid: number | undefined;
  /** The in-server probe (server-probe.ts), preloaded into every target alike; null with BENCH_PROBE=0. */
  readonly probe: ProbeControl | null;
  /** The server's process (its stdin is a pipe when the target `watchesStdin`). */
  readonly child: ChildProcess;
  /** The private database cluster's postmaster (a target with `database`); null otherwise. */
  readonly databasePid: number | null;
  stop(): Promise<void>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
/** dist/bench/ → repository root, where bin/dynatwin.js lives. */
export const REPO_ROOT = path.resolve(here, '..', '..');
export const DYNATWIN_BIN = path.join(REPO_ROOT, 'bin', 'dynatwin.js');

const START_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 3_000;
const OUTPUT_TAIL_CHARS = 4_000;

/** dynatwin (memory) as built at another commit (BENCH_BASELINE_DIR): the row current builds are held against. */
export const BASELINE_ID = 'dynatwin-baseline';
/** Workloads the baseline commit (8343082, before issue 16) cannot run: it had no DynamoDB Streams. */
const BASELINE_LACKS: readonly string[] = ['PutItem stream'];

/** The flags of every CLI-launched dynatwin (memory) row, so current and baseline differ in their build alone. */
function memoryArgs(bin: string, port: number): string[] {
  // The cross-emulator rows compare the same work: dynalite never throttles, so neither does
  // dynatwin here (a bench load above a partition's 1,000 WCU would be refused, as on DynamoDB).
  // What enforcement costs is measured by the capacity-off variant on PutItem.
  return [bin, '--port', String(port), '--host', '127.0.0.1', '--in-memory', '--capacity', 'off'];
}

/**
 * With BENCH_BASELINE_DIR set, the `dynatwin-baseline` target: that directory's bin/dynatwin.js,
 * launched exactly as dynatwin-memory is. The directory is a built checkout of the commit to hold
 * this one against (see run.ts's header); every workload the baseline can run gets its row, and
 * the report gives current ÷ baseline ops/s per workload.
 */
function baselineTargets(workloadNames: readonly string[]): TargetSpec[] {
  const dir = process.env['BENCH_BASELINE_DIR'];
  if (dir === undefined || dir.trim() === '') return [];
  const bin = path.resolve(dir, 'bin', 'dynatwin.js');
  if (!existsSync(bin) || !existsSync(path.resolve(dir, 'dist', 'src', 'cli.js'))) {
    throw new Error(
      `BENCH_BASELINE_DIR=${dir} holds no built dynatwin (${bin} and dist/src/cli.js): ` +
        'git worktree add <dir> <commit> && cp -al node_modules <dir>/ && (cd <dir> && npm run build)',
    );
  }
  return [
    {
      id: BASELINE_ID,
      label: `dynatwin (memory) @ ${commitOf(dir)}`,
      workloads: workloadNames.filter((name) => !BASELINE_LACKS.includes(name)),
      speaksDynamo: true,
      reportsIndexCapacity: true,
      needsScratchDir: false,
      watchesStdin: false,
      args: (port) => memoryArgs(bin, port),
    },
  ];
}

/** The short commit of a checkout, for the row's label ('baseline' when git cannot tell). */
function commitOf(dir: string): string {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'baseline';
  }
}

export const TARGETS: readonly TargetSpec[] = [
  {
    id: 'bare',
    label: 'bare node:http',
    speaksDynamo: false,
    reportsIndexCapacity: false,
    needsScratchDir: false,
    watchesStdin: true,
    args: (port) => [path.join(here, 'bare-server.js'), '--port', String(port)],
  },
  {
    // What no server reading requests straight off the socket (as the fast lane does) can pass.
    id: 'bare-net',
    label: 'bare net (socket)',
    speaksDynamo: false,
    reportsIndexCapacity: false,
    needsScratchDir: false,
    watchesStdin: true,
    args: (port) => [path.join(here, 'bare-net-server.js'), '--port', String(port)],
  },
  {
    id: 'dynalite',
    label: 'dynalite (memory)',
    speaksDynamo: true,
    reportsIndexCapacity: false,
    needsScratchDir: false,
    watchesStdin: true,
    args: (port) => [path.join(here, 'dynalite-server.js'), '--port', String(port)],
  },
  {
    // The like-for-like comparison for dynatwin (lmdb): both persist. Not quite the same work,
    // though: LevelDB writes with its default `sync: false`, so dynalite hands each write to the
    // OS and never fsyncs it, whereas dynatwin (lmdb) fdatasyncs its write-ahead log (one sync per
    // group of writes) before acknowledging.
    id: 'dynalite-leveldb',
    label: 'dynalite (LevelDB)',
    workloads: ['PutItem', 'GetItem'],
    speaksDynamo: true,
    reportsIndexCapacity: false,
    needsScratchDir: true,
    watchesStdin: true,
    args: (port, dir) => [path.join(here, 'dynalite-server.js'), '--port', String(port), '--path', dir ?? ''],
  },
  {
    id: 'dynatwin-memory',
    label: 'dynatwin (memory)',
    speaksDynamo: true,
    reportsIndexCapacity: true,
    needsScratchDir: false,
    watchesStdin: false,
    args: (port) => memoryArgs(DYNATWIN_BIN, port),
  },
  {
    // dynatwin (memory) with every request through node:http (--node-http): what the fast lane
    // (src/server/fast-lane.ts) saves, in the same run.
    id: 'dynatwin-node-http',
    label: 'dynatwin (memory, node:http)',
    workloads: ['GetItem', 'PutItem'],
    speaksDynamo: true,
    reportsIndexCapacity: true,
    needsScratchDir: false,
    watchesStdin: false,
    args: (port) => [...memoryArgs(DYNATWIN_BIN, port), '--node-http'],
  },
  {
    // The default persistent store: the write-ahead log over LMDB (src/storage/logged.ts).
    id: 'dynatwin-lmdb',
    label: 'dynatwin (lmdb)',
    speaksDynamo: true,
    reportsIndexCapacity: true,
    needsScratchDir: true,
    watchesStdin: false,
    args: (port, dir) => [DYNATWIN_BIN, '--port', String(port), '--host', '127.0.0.1', '--data-dir', dir ?? '', '--capacity', 'off'],
  },
  {
    // The ceiling of the LMDB store on this machine whatever the durability design: every flush
    // switched off (durability 'none', which only startDynatwin accepts, hence dynatwin-server.js
    // rather than the CLI). Issue #3's evidence that 2x dynalite on a durable LMDB store is out of
    // reach: if even this row stays below 2x, no choice of when to flush can get there.
    id: 'dynatwin-lmdb-noflush',
    label: 'dynatwin (lmdb, no flush)',
    workloads: ['PutItem'],
    speaksDynamo: true,
    reportsIndexCapacity: true,
    needsScratchDir: true,
    watchesStdin: true,
    args: (port, dir) => [
      path.join(here, 'dynatwin-server.js'),
      '--port',
      String(port),
      '--data-dir',
      dir ?? '',
      '--options',
      // capacity 'off' like the other cross-emulator dynatwin rows (see dynatwin-memory).
      JSON.stringify({ durability: 'none', capacity: 'off' } satisfies DynatwinOptions),
    ],
  },
  {
    // dynatwin on PostgreSQL (--store, src/storage/postgres.ts), on a private cluster of its own
    // with fsync, synchronous_commit and full_page_writes at PostgreSQL's defaults (on): the
    // durable setting a real deployment runs, as dynatwin (lmdb) fdatasyncs its log. The workloads
    // the issue asks of it (#32); the report adds the database's own CPU per request.
    id: 'dynatwin-postgres',
    label: 'dynatwin (postgres)',
    workloads: ['PutItem', 'GetItem', 'Query', 'BatchWriteItem'],
    speaksDynamo: true,
    reportsIndexCapacity: true,
    needsScratchDir: false,
    watchesStdin: false,
    database: 'postgres',
    fixedRatePhase: false,
    args: (port, _dir, databaseUrl) => [DYNATWIN_BIN, '--port', String(port), '--host', '127.0.0.1', '--store', databaseUrl ?? '', '--capacity', 'off'],
  },
  ...baselineTargets(WORKLOADS.map((make) => make().name)),
];

/**
 * A variant is dynatwin (memory) started with other startDynatwin options, to measure what one
 * feature costs: a workload that lists it in `compareWith` is run, in interleaved rounds, on the
 * reference (startDynatwin defaults) and on the variant, and the report gives the throughput lost
 * to the feature, 1 − on ÷ off, against `maxOverheadPercent` (the goal).
 *
 * Adding one is one line here, e.g. (once those options exist in DynatwinOptions):
 *   'enforcement-off': { feature: 'throttling enforcement', options: { capacity: 'off' }, maxOverheadPercent: 10 },  // issue 8
 *   'metrics-off': { feature: 'metrics recording', options: { metrics: false }, maxOverheadPercent: 5 },  // issue 9
 * plus its name in the workload's `compareWith`. `options` is type-checked against DynatwinOptions
 * (`satisfies`), so an option startDynatwin does not know fails the build rather than being
 * silently ignored (which would measure a 0 % overhead).
 */
export interface VariantSpec {
  /** What the variant switches off, for the report: "capacity accounting overhead". */
  readonly feature: string;
  readonly options: DynatwinOptions;
  readonly maxOverheadPercent: number;
}

export const VARIANTS = {
  'accounting-off': { feature: 'capacity accounting', options: { capacityAccounting: false }, maxOverheadPercent: 10 }, // issue 7
  'capacity-off': { feature: 'throttling enforcement', options: { capacity: 'off' }, maxOverheadPercent: 10 }, // issue 8
  'metrics-off': { feature: 'metrics recording', options: { metrics: false }, maxOverheadPercent: 5 }, // issue 9
} as const satisfies Readonly<Record<string, VariantSpec>>;

export type VariantId = keyof typeof VARIANTS;
export type VariantTargetId = `dynatwin-memory:${VariantId}`;
const REFERENCE_ID = 'dynatwin-memory:defaults';

export const VARIANT_IDS = Object.keys(VARIANTS) as VariantId[];

export function variantTargetId(variant: VariantId): VariantTargetId {
  return `dynatwin-memory:${variant}`;
}

/**
 * dynatwin (memory) through startDynatwin in a child process (dynatwin-server.ts). The reference
 * is launched the same way as the variants, not through the CLI, so that the two sides of a
 * comparison differ in the one option and nothing else.
 */
function libraryDynatwin(id: TargetId, label: string, options: DynatwinOptions): TargetSpec {
  return {
    id,
    label,
    speaksDynamo: true,
    reportsIndexCapacity: true,
    needsScratchDir: false,
    watchesStdin: true,
    args: (port) => [path.join(here, 'dynatwin-server.js'), '--port', String(port), '--options', JSON.stringify(options)],
  };
}

/** What every variant is compared with: startDynatwin's defaults, i.e. every feature on. */
export const REFERENCE_TARGET: TargetSpec = libraryDynatwin(REFERENCE_ID, 'dynatwin (memory) defaults', {});

export function variantTarget(variant: VariantId): TargetSpec {
  return libraryDynatwin(variantTargetId(variant), `dynatwin (memory) ${variant}`, VARIANTS[variant].options);
}

// Everything still alive, so an exit path that never reaches stop() (SIGINT, a crash) can clean up.
const liveChildren = new Set<ChildProcess>();
const liveScratchDirs = new Set<string>();
/** Private clusters still running: postmaster pid → the cluster's temporary directory. */
const liveClusters = new Map<number, string>();

/** Children must never outlive us: a stray server would steal the core from the next target. */
export function installCleanup(): void {
  process.on('exit', killAllSync);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      process.stderr.write(`\n${signal}: stopping benchmark servers\n`);
      killAllSync();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
}

/** Synchronous last-resort cleanup, safe to call from process 'exit' and signal handlers. */
export function killAllSync(): void {
  for (const child of liveChildren) child.kill('SIGKILL');
  liveChildren.clear();
  for (const dir of liveScratchDirs) rmSync(dir, { recursive: true, force: true });
  liveScratchDirs.clear();
  // SIGQUIT is PostgreSQL's immediate shutdown (pg_ctl -m immediate), which needs no await here.
  for (const [postmasterPid, dir] of liveClusters) {
    try {
      process.kill(postmasterPid, 'SIGQUIT');
    } catch {
      // Already gone.
    }
    rmSync(dir, { recursive: true, force: true });
  }
  liveClusters.clear();
}

/**
 * Starts the target and resolves once its port accepts connections; on failure nothing is left
 * running. `probe: false` leaves the in-server probe out whatever BENCH_PROBE says (a CPU profile
 * should hold the server's work alone).
 */
export async function launch(spec: TargetSpec, options: { readonly probe?: boolean } = {}): Promise<RunningTarget> {
  const database = spec.database === 'postgres' ? await startDatabase() : null;
  try {
    return await launchServer(spec, options, database);
  } catch (error) {
    await database?.stop();
    throw error;
  }
}

interface RunningDatabase {
  readonly url: string;
  readonly postmasterPid: number;
  stop(): Promise<void>;
}

/**
 * A fresh private PostgreSQL cluster (test/support/postgres.ts) with fsync on, one per server
 * launch as every other target gets a fresh server: no run reads or vacuums what an earlier one
 * wrote, and the process tree measured is this run's alone. Throws, saying what to install, when
 * PostgreSQL is not installed: the target is then skipped with that note.
 */
async function startDatabase(): Promise<RunningDatabase> {
  const cluster: PrivatePostgres = await startPrivatePostgres({ fsync: true });
  let postmasterPid: number;
  try {
    postmasterPid = postmasterPidOf(cluster.directory);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  liveClusters.set(postmasterPid, cluster.directory);
  return {
    url: cluster.url('bench'),
    postmasterPid,
    stop: async () => {
      liveClusters.delete(postmasterPid);
      await cluster.stop();
    },
  };
}

/** The first line of the data directory's postmaster.pid (the helper puts the data directory in `data`). */
function postmasterPidOf(clusterDirectory: string): number {
  const pidFile = path.join(clusterDirectory, 'data', 'postmaster.pid');
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n', 1)[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${pidFile} names no process`);
  return pid;
}

async function launchServer(spec: TargetSpec, options: { readonly probe?: boolean }, database: RunningDatabase | null): Promise<RunningTarget> {
  const port = await freePort();
  const scratchDir = spec.needsScratchDir ? mkdtempSync(path.join(tmpdir(), 'dynatwin-bench-')) : null;
  if (scratchDir !== null) liveScratchDirs.add(scratchDir);
  const probeFile = (options.probe ?? probeWanted()) ? path.join(tmpdir(), `dynatwin-bench-probe-${process.pid}-${port}.json`) : null;
  const probeArgs = probeFile === null ? [] : ['--import', pathToFileURL(path.join(here, 'server-probe.js')).href];
  const nodeArgs = [...serverNodeFlags(), ...probeArgs, ...spec.args(port, scratchDir, database?.url ?? null)];
  const pin = cpuPinning();
  // taskset execs node in place, so the child's pid is the server's (for /proc CPU readings and the probe's signals).
  const [command, args] = pin === null ? [process.execPath, nodeArgs] : ['taskset', ['-c', pin.serverCpu, process.execPath, ...nodeArgs]];
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    stdio: [spec.watchesStdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    env: probeFile === null ? process.env : { ...process.env, BENCH_PROBE_FILE: probeFile },
  });
  liveChildren.add(child);
  const output = captureOutput(child);
  // The server goes first: it commits what it holds before its database stops.
  const stop = async (): Promise<void> => {
    await stopChild(child, scratchDir);
    if (probeFile !== null) rmSync(probeFile, { force: true });
    await database?.stop();
  };
  try {
    await waitForPort(port, child, output);
  } catch (error) {
    await stopChild(child, scratchDir);
    if (probeFile !== null) rmSync(probeFile, { force: true });
    throw error;
  }
  const probe = probeFile !== null && child.pid !== undefined ? new ProbeControl(child.pid, probeFile) : null;
  return { port, pid: child.pid, probe, child, databasePid: database?.postmasterPid ?? null, stop };
}

/**
 * BENCH_PIN=1: the load generator (every thread of the bench process) on CPU 0 and every server
 * on CPU 1, with `taskset`, the same for every target. Off by default: pinned, a server's GC and
 * libuv helper threads compete with its main thread instead of using the other core's idle time,
 * and the generator's pacer thread with its main thread, so it changes what is measured rather
 * than only removing noise; it is there to tell the two apart on a quiet machine.
 */
export function cpuPinning(): { readonly clientCpu: string; readonly serverCpu: string } | null {
  const raw = process.env['BENCH_PIN'];
  if (raw === undefined || raw === '' || raw === '0') return null;
  if (raw !== '1') throw new Error(`BENCH_PIN must be 0 or 1, got "${raw}"`);
  return { clientCpu: '0', serverCpu: '1' };
}

/** Pins every thread of this process (and the threads it starts later) to the generator's CPU. */
export function pinLoadGenerator(): void {
  const pin = cpuPinning();
  if (pin === null) return;
  execFileSync('taskset', ['-a', '-cp', pin.clientCpu, String(process.pid)], { stdio: 'ignore' });
}

/**
 * BENCH_SERVER_FLAGS: Node/V8 flags given to every server alike (e.g. "--max-semi-space-size=32"),
 * to measure a heap setting against the same run's defaults before a launcher adopts it.
 */
export function serverNodeFlags(): string[] {
  return (process.env['BENCH_SERVER_FLAGS'] ?? '').split(/\s+/).filter((flag) => flag !== '');
}

/** BENCH_PROBE=0 launches the servers without the in-server probe. */
function probeWanted(): boolean {
  return process.env['BENCH_PROBE'] !== '0';
}

/** Keeps the tail of the child's stdout+stderr for error messages, and keeps its pipes drained. */
function captureOutput(child: ChildProcess): () => string {
  let tail = '';
  const append = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  return () => tail.trim();
}

async function stopChild(child: ChildProcess, scratchDir: string | null): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const grace = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(grace);
  }
  liveChildren.delete(child);
  if (scratchDir !== null) {
    rmSync(scratchDir, { recursive: true, force: true });
    liveScratchDirs.delete(scratchDir);
  }
}

/** The port the OS hands out for port 0 is free right now; the child binds it moments later. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('could not pick a free port'))));
    });
  });
}

/** Polls until the port accepts a TCP connection, failing fast if the child exits first. */
async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  // A holder object, because control-flow analysis cannot see the listeners assigning it.
  const exited: { note: string | null } = { note: null };
  child.once('exit', (code, signal) => (exited.note = signal !== null ? `signal ${signal}` : `code ${code}`));
  child.once('error', (error) => (exited.note = `spawn error: ${error.message}`));
  for (;;) {
    if (exited.note !== null) throw new Error(`exited during start-up (${exited.note})${formatOutput(output())}`);
    if (await canConnect(port)) return;
    if (Date.now() > deadline) {
      throw new Error(`port ${port} not accepting connections after ${START_TIMEOUT_MS / 1000} s${formatOutput(output())}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The child's last output lines, minus stack frames, which only bury the actual message. */
function formatOutput(text: string): string {
  const lines = text
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s+at /.test(line) && !/^Node\.js v/.test(line))
    .slice(-8);
  return lines.length === 0 ? '' : `; its output:\n      ${lines.join('\n      ')}`;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
