/**
 * The bench's reading of /proc/<pid>/stat (bench/cpu.ts) for the database's CPU per request of the
 * dynatwin-postgres rows: pure parsing of made-up stat lines and the process-tree sum, plus the
 * report's line for it (bench/report.ts databaseCpuLines). No /proc, no timing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseProcStat, processTreeTicks, type ProcStat } from '../bench/cpu.js';
import { databaseCpuLines, type MeasuredOutcome } from '../bench/report.js';

/** A stat line shaped as proc(5) gives it: utime, stime, cutime, cstime are fields 14 to 17. */
function statLine(pid: number, comm: string, parentPid: number, utime: number, stime: number, cutime: number, cstime: number): string {
  return `${pid} (${comm}) S ${parentPid} ${pid} ${pid} 0 -1 4194560 1285 0 0 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 1 0 8311 223387648 5041 18446744073709551615 1 1 0 0 0 0 0 16781312 16390 0 0 0 17 1 0 0 0 0 0\n`;
}

test('parseProcStat reads pid, parent, own and reaped children ticks', () => {
  assert.deepEqual(parseProcStat(statLine(4242, 'postgres', 1, 120, 30, 7, 3)), { pid: 4242, parentPid: 1, ownTicks: 150, reapedChildrenTicks: 10 });
});

test('parseProcStat counts fields after the last parenthesis: a command name may hold spaces and ")"', () => {
  // PostgreSQL's backends keep "postgres" as their name; any process may rename itself, though.
  assert.deepEqual(parseProcStat(statLine(17, 'a) b (c) S 9', 16, 5, 6, 0, 0)), { pid: 17, parentPid: 16, ownTicks: 11, reapedChildrenTicks: 0 });
});

test('parseProcStat answers null for what is not a stat line', () => {
  assert.equal(parseProcStat(''), null);
  assert.equal(parseProcStat('not a stat line'), null);
  assert.equal(parseProcStat('12 (cut) S 1 2 3'), null);
  assert.equal(parseProcStat(statLine(12, 'neg', 1, -1, 0, 0, 0)), null);
});

test('processTreeTicks sums the parent, its exited children and its live children, nothing else', () => {
  const postmaster: ProcStat = { pid: 100, parentPid: 1, ownTicks: 40, reapedChildrenTicks: 25 };
  const processes: ProcStat[] = [
    postmaster,
    { pid: 101, parentPid: 100, ownTicks: 300, reapedChildrenTicks: 0 }, // a backend
    { pid: 102, parentPid: 100, ownTicks: 12, reapedChildrenTicks: 0 }, // the WAL writer
    { pid: 200, parentPid: 1, ownTicks: 5000, reapedChildrenTicks: 0 }, // another server
    { pid: 201, parentPid: 101, ownTicks: 9, reapedChildrenTicks: 0 }, // not a child of the postmaster
  ];
  assert.equal(processTreeTicks(postmaster, processes), 40 + 25 + 300 + 12);
});

test('processTreeTicks: a child that exits between two readings stays counted (in the parent\'s reaped ticks)', () => {
  const before = processTreeTicks({ pid: 100, parentPid: 1, ownTicks: 10, reapedChildrenTicks: 0 }, [{ pid: 101, parentPid: 100, ownTicks: 50, reapedChildrenTicks: 0 }]);
  const after = processTreeTicks({ pid: 100, parentPid: 1, ownTicks: 10, reapedChildrenTicks: 50 }, []);
  assert.equal(after - before, 0);
});

function outcome(extra: Partial<MeasuredOutcome>): MeasuredOutcome {
  return {
    status: 'measured',
    target: 'dynatwin-postgres',
    label: 'dynatwin (postgres)',
    result: { ok: 1000, errors: 0, errorSamples: [], elapsedMs: 1000, opsPerSec: 1000, latency: { count: 1000, p50Ms: 1, p90Ms: 2, p99Ms: 3, p999Ms: 4, maxMs: 5, meanMs: 1 }, loaderCpuPercent: 10, loaderCpuSeconds: 0.1 },
    warmupErrors: 0,
    serverCpuPercent: 50,
    otherCpuPercent: 0,
    fixedRate: null,
    ...extra,
  };
}

test('databaseCpuLines prints the database\'s CPU per request beside dynatwin\'s, only for a database row', () => {
  // 50 % of a core at 1,000 requests/s is 0.5 ms of dynatwin's CPU per request.
  assert.deepEqual(databaseCpuLines(outcome({ databaseCpuMsPerRequest: 0.8125 })), [
    "  dynatwin (postgres): database CPU 0.813 ms per request (postmaster and its children, user + system), dynatwin's own 0.500 ms",
  ]);
  assert.match(databaseCpuLines(outcome({ databaseCpuMsPerRequest: null }))[0]!, /database CPU - \(unreadable\) per request/);
  assert.deepEqual(databaseCpuLines(outcome({})), []);
});
