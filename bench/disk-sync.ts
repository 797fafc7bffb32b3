/**
 * The disk's own floor for an acknowledged write, measured in the same run as the servers: small
 * appends to a file in the directory the LMDB targets keep their stores in (the system's temporary
 * directory), each followed by fdatasync, timed one by one. No durable store can acknowledge a
 * write sooner than one such sync; issue 21 holds the durable PutItem p99 at a fixed rate against
 * this p99 (within 1 ms).
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LatencyHistogram, type LatencySummary } from './histogram.js';

/** One log append's worth: a 1 KB item and its framing fit. */
export const SYNC_APPEND_BYTES = 4096;
/** A bound on the samples, whatever the duration (a RAM disk syncs in microseconds). */
const SYNC_SAMPLES_MAX = 20_000;

export interface DiskSyncResult {
  readonly directory: string;
  readonly appendBytes: number;
  readonly latency: LatencySummary;
}

/** Appends and fdatasyncs for `durationMs` (at most SYNC_SAMPLES_MAX times), then removes the file. */
export function measureFdatasync(durationMs: number): DiskSyncResult {
  const directory = mkdtempSync(path.join(tmpdir(), 'dynatwin-bench-sync-'));
  const histogram = new LatencyHistogram();
  const block = Buffer.alloc(SYNC_APPEND_BYTES, 0x61);
  const fd = openSync(path.join(directory, 'log'), 'w');
  try {
    const deadline = process.hrtime.bigint() + BigInt(Math.round(durationMs * 1e6));
    for (let sample = 0; sample < SYNC_SAMPLES_MAX; sample++) {
      const start = process.hrtime.bigint();
      if (start >= deadline) break;
      writeSync(fd, block);
      fdatasyncSync(fd);
      histogram.record(Number(process.hrtime.bigint() - start));
    }
  } finally {
    closeSync(fd);
    rmSync(directory, { recursive: true, force: true });
  }
  return { directory: tmpdir(), appendBytes: SYNC_APPEND_BYTES, latency: histogram.summary() };
}

export function formatDiskSync(result: DiskSyncResult): string {
  const { latency } = result;
  const ms = (value: number): string => value.toFixed(3);
  return (
    `disk: ${result.appendBytes} B append + fdatasync in ${result.directory}, ${latency.count} times: ` +
    `p50 ${ms(latency.p50Ms)} ms, p99 ${ms(latency.p99Ms)} ms, p99.9 ${ms(latency.p999Ms)} ms, max ${ms(latency.maxMs)} ms`
  );
}
