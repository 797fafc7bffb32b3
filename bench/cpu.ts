/**
 * CPU accounting from /proc (Linux), to tell who limited a run: the server (near 100 % of a core),
 * the load generator, or somebody else on this shared two-core machine, which would make the
 * figures unreliable. Every reader returns null where /proc is unavailable.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

/** utime + stime of one process, from /proc/<pid>/stat. */
function processSeconds(pid: number | 'self'): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; count fields after its closing ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
  } catch {
    return null;
  }
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
