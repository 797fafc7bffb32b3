/**
 * The load generator: raw node:http POSTs over a keep-alive agent, one request loop per
 * connection. The AWS SDK is deliberately not used: its per-call middleware costs more CPU than
 * a fast server spends answering, so it would measure the client instead of the server.
 */
import http from 'node:http';
import { LatencyHistogram, type LatencySummary } from './histogram.js';
import { buildRequest, RawConnection } from './raw-connection.js';

/** One DynamoDB call on the wire: the operation (X-Amz-Target suffix) and its JSON body. */
export interface RequestSpec {
  readonly target: string;
  readonly body: string;
}

export type MakeRequest = (i: number) => RequestSpec;

/** Every run ends either after a wall-clock duration or after a fixed number of requests. */
export type RunLimit = { readonly durationMs: number } | { readonly count: number };

export interface ErrorSample {
  readonly operation: string;
  readonly status: number | null;
  readonly detail: string;
}

export interface RunResult {
  readonly ok: number;
  readonly errors: number;
  readonly errorSamples: readonly ErrorSample[];
  readonly elapsedMs: number;
  readonly opsPerSec: number;
  readonly latency: LatencySummary;
  /** CPU this (load-generator) process burnt, in % of one core; ~100 means the loader is the limit. */
  readonly loaderCpuPercent: number;
  readonly loaderCpuSeconds: number;
}

const API_VERSION = 'DynamoDB_20120810';
const AMZ_DATE = '20260101T000000Z';
// Shaped like SigV4 so servers that validate the header's structure accept it; nobody checks the
// signature itself, and computing a real one would add client CPU to every request.
const AUTHORIZATION =
  'AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, ' +
  'SignedHeaders=host;x-amz-date;x-amz-target, Signature=' + '0123456789abcdef'.repeat(4);
const MAX_ERROR_SAMPLES = 5;

function headersFor(spec: RequestSpec): http.OutgoingHttpHeaders {
  return {
    'Content-Type': 'application/x-amz-json-1.0',
    'X-Amz-Target': `${API_VERSION}.${spec.target}`,
    'X-Amz-Date': AMZ_DATE,
    Authorization: AUTHORIZATION,
    'Content-Length': Buffer.byteLength(spec.body),
  };
}

function headersForRaw(spec: RequestSpec): Record<string, string> {
  return {
    'Content-Type': 'application/x-amz-json-1.0',
    'X-Amz-Target': `${API_VERSION}.${spec.target}`,
    'X-Amz-Date': AMZ_DATE,
    Authorization: AUTHORIZATION,
  };
}

/** One run's mutable tallies; the histogram is the only per-request write. */
class Tally {
  readonly histogram = new LatencyHistogram();
  ok = 0;
  errors = 0;
  readonly samples: ErrorSample[] = [];

  fail(sample: ErrorSample): void {
    this.errors++;
    if (this.samples.length < MAX_ERROR_SAMPLES) this.samples.push(sample);
  }
}

export class LoadClient {
  private readonly agent: http.Agent;

  constructor(
    private readonly port: number,
    readonly connections: number,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  }

  /**
   * Drives `connections` concurrent request loops until the limit is reached. Latency is measured
   * from just before the request is written until its response body has been fully read.
   */
  async run(limit: RunLimit, make: MakeRequest): Promise<RunResult> {
    const tally = new Tally();
    let issued = 0;
    let stopped = false;
    const maxCount = 'count' in limit ? limit.count : Infinity;
    const loops = Math.min(this.connections, maxCount);
    const connections = await Promise.all(Array.from({ length: loops }, () => RawConnection.open(this.port)));
    // A timer flag, not a clock read per request, decides when a duration-limited run stops.
    const timer = 'durationMs' in limit ? setTimeout(() => (stopped = true), limit.durationMs) : undefined;
    const cpuBefore = process.cpuUsage();
    const startNs = process.hrtime.bigint();

    return new Promise((resolve) => {
      let activeLoops = loops;
      const finishLoop = (): void => {
        if (--activeLoops > 0) return;
        if (timer !== undefined) clearTimeout(timer);
        for (const connection of connections) connection.close();
        resolve(this.summarise(tally, startNs, cpuBefore));
      };
      const loop = (connection: RawConnection): void => {
        if (stopped || issued >= maxCount) return finishLoop();
        const spec = make(issued++);
        const start = process.hrtime.bigint();
        connection.send(this.encode(spec), (reply) => {
          if (reply instanceof Error) {
            tally.fail({ operation: spec.target, status: null, detail: reply.message });
            return finishLoop();
          }
          if (reply.status === 200) {
            tally.ok++;
            tally.histogram.record(Number(process.hrtime.bigint() - start));
          } else {
            tally.fail({ operation: spec.target, status: reply.status, detail: reply.body.slice(0, 300) });
          }
          loop(connection);
        });
      };
      if (loops === 0) return resolve(this.summarise(tally, startNs, cpuBefore));
      for (const connection of connections) loop(connection);
    });
  }

  /** The request bytes for a spec; built per request because bodies differ (random keys). */
  private encode(spec: RequestSpec): Buffer {
    return buildRequest(this.port, headersForRaw(spec), spec.body);
  }

  /** A single call whose parsed response the caller needs (setup steps); throws on non-200. */
  async call(spec: RequestSpec): Promise<unknown> {
    const { status, body } = await this.exchange(spec);
    if (status !== 200) throw new Error(`${spec.target} answered HTTP ${status}: ${body.slice(0, 300)}`);
    return body === '' ? {} : (JSON.parse(body) as unknown);
  }

  /** Many calls at full concurrency, for bulk setup such as pre-loading items; throws on any error. */
  async callMany(count: number, make: MakeRequest): Promise<void> {
    const result = await this.run({ count }, make);
    if (result.errors > 0) {
      const first = result.errorSamples[0];
      throw new Error(`${result.errors}/${count} setup requests failed; first: ${describeSample(first)}`);
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private exchange(spec: RequestSpec): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(this.requestOptions(spec), (res) => {
        res.on('error', reject);
        readBody(res, (body) => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end(spec.body);
    });
  }

  private requestOptions(spec: RequestSpec): http.RequestOptions {
    return {
      agent: this.agent,
      host: '127.0.0.1',
      port: this.port,
      method: 'POST',
      path: '/',
      headers: headersFor(spec),
    };
  }

  private summarise(tally: Tally, startNs: bigint, cpuBefore: NodeJS.CpuUsage): RunResult {
    const elapsedMs = Number(process.hrtime.bigint() - startNs) / 1e6;
    const cpu = process.cpuUsage(cpuBefore);
    const loaderCpuSeconds = (cpu.user + cpu.system) / 1e6;
    return {
      ok: tally.ok,
      errors: tally.errors,
      errorSamples: tally.samples,
      elapsedMs,
      opsPerSec: elapsedMs > 0 ? (tally.ok * 1000) / elapsedMs : 0,
      latency: tally.histogram.summary(),
      loaderCpuPercent: elapsedMs > 0 ? ((loaderCpuSeconds * 1000) / elapsedMs) * 100 : 0,
      loaderCpuSeconds,
    };
  }
}

function readBody(res: http.IncomingMessage, done: (body: string) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
}

export function describeSample(sample: ErrorSample | undefined): string {
  if (sample === undefined) return '(no sample)';
  const status = sample.status === null ? 'network error' : `HTTP ${sample.status}`;
  return `${sample.operation} → ${status}: ${sample.detail}`;
}
