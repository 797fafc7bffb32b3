/**
 * CPU accounting from /proc (Linux), to tell who limited a run: the server (near 100 % of a core),
 * the load generator, or somebody else on this shared two-core machine, which would make the
 * figures unreliable. Every reader returns null where /proc is unavailable.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface CpuSample {
  readonly atNs: bigint;
  /** CPU seconds (user + system) used so far by the server process. */
  readonly serverSeconds: number | null;
  /** CPU seconds spent by the whole host in user, nice, system and steal time. */
  readonly hostSeconds: number | null;
}

export interface CpuShares {
  /** In % of one core over the interval. */
  readonly serverPercent: number | null;
  /** Host CPU used by neither the server nor this process (other engineers' builds, tests...). */
  readonly otherPercent: number | null;
}

let clockTicksPerSecond: number | null = null;

function ticksPerSecond(): number {
  if (clockTicksPerSecond === null) {
    try {
      clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicksPerSecond = 100; // USER_HZ on every mainstream Linux architecture.
    }
  }
  return clockTicksPerSecond;
}

/** The fields of a /proc/<pid>/stat line the bench reads; CPU times in clock ticks (CLK_TCK). */
export interface ProcStat {
  readonly pid: number;
  readonly parentPid: number;
  /** utime + stime: the process's own CPU so far. */
  readonly ownTicks: number;
  /** cutime + cstime: CPU of its children that exited and that it waited for. */
  readonly reapedChildrenTicks: number;
}

/**
 * Parses one /proc/<pid>/stat line (proc(5)); null when it is not one. The command name (field 2)
 * is in parentheses and may itself hold spaces and ')', so fields are counted after the last ')'.
 */
export function parseProcStat(line: string): ProcStat | null {
  const open = line.indexOf(' (');
  const close = line.lastIndexOf(')');
  if (open <= 0 || close < open) return null;
  const pid = Number(line.slice(0, open));
  // After ') ': state (field 3), ppid (4), ..., utime (14), stime (15), cutime (16), cstime (17).
  const fields = line.slice(close + 2).trim().split(' ');
  const [parentPid, utime, stime, cutime, cstime] = [fields[1], fields[11], fields[12], fields[13], fields[14]].map(Number);
  const numbers = [pid, parentPid, utime, stime, cutime, cstime];
  if (!numbers.every((n) => n !== undefined && Number.isInteger(n) && n >= 0)) return null;
  return { pid, parentPid: parentPid!, ownTicks: utime! + stime!, reapedChildrenTicks: cutime! + cstime! };
}

function readProcStat(pid: number | 'self'): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** utime + stime of one process, from /proc/<pid>/stat. */
function processSeconds(pid: number | 'self'): number | null {
  const stat = readProcStat(pid);
  return stat === null ? null : stat.ownTicks / ticksPerSecond();
}

/**
 * CPU ticks of a process tree one level deep, as a database server is (PostgreSQL's postmaster
 * forks every backend and helper itself): the parent's own ticks, those of its children that
 * exited (a backend whose connection closed, an autovacuum worker), and those of its live
 * children. Counting the exited ones keeps a child that ends between two readings in both.
 */
export function processTreeTicks(parent: ProcStat, processes: readonly ProcStat[]): number {
  let ticks = parent.ownTicks + parent.reapedChildrenTicks;
  for (const child of processes) if (child.parentPid === parent.pid) ticks += child.ownTicks;
  return ticks;
}

/**
 * CPU milliseconds used so far by `parentPid` and its children (processTreeTicks), from /proc;
 * null when the parent is gone or /proc cannot be read. Reads every /proc/<pid>/stat of the host:
 * a few hundred small files, done before and after a measured phase, not during it.
 */
export function processTreeCpuMs(parentPid: number): number | null {
  const parent = readProcStat(parentPid);
  if (parent === null) return null;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const processes = pids.map((pid) => readProcStat(Number(pid))).filter((stat): stat is ProcStat => stat !== null);
  return (processTreeTicks(parent, processes) * 1000) / ticksPerSecond();
}

/** Host-wide busy time from the first line of /proc/stat: user, nice, system and steal. */
function hostSeconds(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    const [, user, nice, system, , , , , steal] = line.trim().split(/\s+/).map(Number);
    const ticks = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (steal ?? 0);
    return Number.isFinite(ticks) ? ticks / ticksPerSecond() : null;
  } catch {
    return null;
  }
}

export function sampleCpu(serverPid: number | undefined): CpuSample {
  return {
    atNs: process.hrtime.bigint(),
    serverSeconds: serverPid === undefined ? null : processSeconds(serverPid),
    hostSeconds: hostSeconds(),
  };
}

/** Shares of one core between two samples; `loaderSeconds` is this process's CPU over the interval. */
export function cpuShares(before: CpuSample, after: CpuSample, loaderSeconds: number): CpuShares {
  const wallSeconds = Number(after.atNs - before.atNs) / 1e9;
  const percent = (seconds: number): number => (wallSeconds > 0 ? (seconds / wallSeconds) * 100 : 0);
  const server =
    before.serverSeconds === null || after.serverSeconds === null ? null : after.serverSeconds - before.serverSeconds;
  const host = before.hostSeconds === null || after.hostSeconds === null ? null : after.hostSeconds - before.hostSeconds;
  return {
    serverPercent: server === null ? null : percent(server),
    // Tick granularity (10 ms) can push this slightly below zero on an idle host.
    otherPercent: server === null || host === null ? null : Math.max(0, percent(host - server - loaderSeconds)),
  };
}
