/**
 * The load generator: raw node:http POSTs over a keep-alive agent, one request loop per
 * connection (closed loop, `run`), or requests offered at a fixed rate (open loop, `runAtRate`).
 * The AWS SDK is deliberately not used: its per-call middleware costs more CPU than a fast server
 * spends answering, so it would measure the client instead of the server.
 */
import { once } from 'node:events';
import http from 'node:http';
import { Worker } from 'node:worker_threads';
import { LatencyHistogram, type LatencySummary } from './histogram.js';
import type { PacerData } from './pacer-worker.js';
import { buildRequest, RawConnection, type RawReply } from './raw-connection.js';
import { ClientQueueCount, dueBy, intendedNs, PACER_PING_PENDING, PACER_SEEN_DUE, PACER_STOP, PACER_WORDS } from './schedule.js';

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
/** After its schedule, a fixed-rate phase waits this long (or its own duration, if longer) for stragglers. */
const MIN_DRAIN_MS = 2_000;

/** A fixed-rate (open-loop) phase: what was offered, what came back, and how late. */
export interface RateResult {
  readonly ratePerSecond: number;
  /** Answers (HTTP 200) per second from the first intended send to the last answer. */
  readonly achievedPerSecond: number;
  readonly ok: number;
  readonly errors: number;
  readonly errorSamples: readonly ErrorSample[];
  /**
   * Requests whose intended send time had come but which were still queued or unanswered when
   * the drain time ran out; their latency so far (a lower bound) is in `latency`.
   */
  readonly unanswered: number;
  readonly elapsedMs: number;
  /**
   * From each request's intended send time to its full response, so time spent waiting for a
   * free connection (a stalled server) counts: no coordinated omission.
   */
  readonly latency: LatencySummary;
  /** From intended to actual send: the generator's own lateness plus waiting for a free connection. */
  readonly sendLag: LatencySummary;
  /**
   * Requests that fell due while every connection was busy and so waited client-side: none when
   * the connections suffice for the offered rate; otherwise the server stalled long enough to
   * hold them all (their latency still counts from the intended send time).
   */
  readonly waitedForConnection: number;
  /** Pings of the pacer thread the main thread handled (at most one per request; fewer when replies kept it pumping). */
  readonly pacerPings: number;
  readonly loaderCpuPercent: number;
  readonly loaderCpuSeconds: number;
}

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

  /**
   * Offers `ratePerSecond` requests a second for `durationMs`, spread over `connections`
   * keep-alive connections, one request in flight per connection. Request k is due at
   * k ÷ ratePerSecond s after the start; a due request that finds every connection busy waits in
   * a queue, and its latency still counts from when it was due. Unlike `run`, a slow answer does
   * not slow the offered load, so the percentiles show what callers arriving at that rate see.
   */
  async runAtRate(ratePerSecond: number, durationMs: number, make: MakeRequest): Promise<RateResult> {
    return (await this.prepareRate(ratePerSecond, durationMs, make)).run();
  }

  /**
   * Everything a fixed-rate phase needs before its clock starts: the connections, and every
   * request's bytes, built ahead (a few MB at 10,000/s for 3 s) so that the generator's hot path
   * is a socket write per request and nothing else: building a body and its buffer per send
   * took CPU beside the server's on this 2-core machine and delayed the sends and answer readings
   * behind it.
   */
  async prepareRate(ratePerSecond: number, durationMs: number, make: MakeRequest): Promise<{ run(): Promise<RateResult> }> {
    const connections = await Promise.all(Array.from({ length: this.connections }, () => RawConnection.open(this.port)));
    const total = Math.floor((ratePerSecond * durationMs) / 1000);
    const requests: EncodedRequest[] = [];
    for (let i = 0; i < total; i++) {
      const spec = make(i);
      requests.push({ target: spec.target, bytes: this.encode(spec) });
    }
    const phase = new FixedRatePhase(ratePerSecond, total, connections, requests);
    return { run: () => phase.run(durationMs + Math.max(MIN_DRAIN_MS, durationMs)) };
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
    const cpu = loaderCpu(cpuBefore, elapsedMs);
    return {
      ok: tally.ok,
      errors: tally.errors,
      errorSamples: tally.samples,
      elapsedMs,
      opsPerSec: elapsedMs > 0 ? (tally.ok * 1000) / elapsedMs : 0,
      latency: tally.histogram.summary(),
      ...cpu,
    };
  }
}

/** This process's CPU since `before`: seconds, and % of one core over `elapsedMs`. */
function loaderCpu(before: NodeJS.CpuUsage, elapsedMs: number): { loaderCpuPercent: number; loaderCpuSeconds: number } {
  const cpu = process.cpuUsage(before);
  const loaderCpuSeconds = (cpu.user + cpu.system) / 1e6;
  return { loaderCpuPercent: elapsedMs > 0 ? ((loaderCpuSeconds * 1000) / elapsedMs) * 100 : 0, loaderCpuSeconds };
}

/** A fixed-rate request, built before the phase: its operation (for error reports) and its bytes. */
type EncodedRequest = { readonly target: string; readonly bytes: Buffer };

/**
 * The fixed-rate phase's clock: a thread (pacer-worker.ts) that pings whenever a request falls
 * due, because Node's own timers are only good to about a millisecond.
 */
class Pacer {
  pings = 0;

  private constructor(
    private readonly worker: Worker,
    private readonly shared: Int32Array,
  ) {}

  /** Resolves once the thread runs, so its start-up is not counted as lag. */
  static async start(nsPerRequest: number, total: number, onDue: () => void, onError: (error: Error) => void): Promise<Pacer> {
    const buffer = new SharedArrayBuffer(PACER_WORDS * Int32Array.BYTES_PER_ELEMENT);
    const workerData: PacerData = { nsPerRequest, total, shared: buffer };
    const worker = new Worker(new URL('./pacer-worker.js', import.meta.url), { workerData });
    await once(worker, 'online');
    const pacer = new Pacer(worker, new Int32Array(buffer));
    worker.on('message', () => {
      pacer.pings++;
      // Cleared before the pump, so a request falling due meanwhile earns a ping of its own.
      Atomics.store(pacer.shared, PACER_PING_PENDING, 0);
      onDue();
    });
    worker.on('error', onError);
    return pacer;
  }

  begin(startNs: bigint): void {
    this.worker.postMessage(startNs);
  }

  /** After each pump: the requests due by then are the main thread's, and need no ping. */
  noteSeenDue(due: number): void {
    Atomics.store(this.shared, PACER_SEEN_DUE, due);
  }

  /** The thread then returns from its wait and exits on its own. */
  stop(): void {
    this.worker.removeAllListeners('message');
    Atomics.store(this.shared, PACER_STOP, 1);
    Atomics.notify(this.shared, PACER_STOP);
  }
}

/**
 * One fixed-rate phase (LoadClient.runAtRate). Requests are sent in schedule order, so the queue
 * of due-but-unsent requests is simply the indices from `sent` up to the number due by now.
 *
 * Pacing is by the clock, not by counting ticks: on every ping of the pacer and every reply,
 * pump() sends however many requests have come due since the start, so a late or missed ping
 * delays requests (which their latency then shows) but never lowers the rate.
 */
class FixedRatePhase {
  private readonly tally = new Tally();
  private readonly sendLag = new LatencyHistogram();
  private readonly nsPerRequest: number;
  private readonly idle: RawConnection[];
  /** Intended send time (ns since the start) of the request each busy connection carries. */
  private readonly inFlight = new Map<RawConnection, number>();
  private live: number;
  private sent = 0;
  private readonly waitedForConnection = new ClientQueueCount();
  private startNs = 0n;
  private cpuBefore: NodeJS.CpuUsage = process.cpuUsage();
  private pacer: Pacer | undefined;
  private deadline: NodeJS.Timeout | undefined;
  private done: ((result: RateResult) => void) | undefined;

  constructor(
    private readonly ratePerSecond: number,
    private readonly total: number,
    private readonly connections: readonly RawConnection[],
    private readonly requests: readonly EncodedRequest[],
  ) {
    if (requests.length !== total) throw new Error(`assertion failed: ${requests.length} requests built for ${total}`);
    this.nsPerRequest = 1e9 / ratePerSecond;
    this.idle = [...connections];
    this.live = connections.length;
  }

  /** Runs the schedule, then waits for the answers until `limitMs` after the start at most. */
  async run(limitMs: number): Promise<RateResult> {
    const onError = (error: Error): void => {
      this.tally.fail({ operation: 'pacer thread', status: null, detail: error.message });
      this.finish();
    };
    const pacer = await Pacer.start(this.nsPerRequest, this.total, () => this.pump(), onError);
    this.pacer = pacer;
    return new Promise((resolve) => {
      this.done = resolve;
      this.cpuBefore = process.cpuUsage();
      this.startNs = process.hrtime.bigint();
      pacer.begin(this.startNs);
      this.deadline = setTimeout(() => this.finish(), limitMs);
      this.pump();
    });
  }

  private elapsedNs(): number {
    return Number(process.hrtime.bigint() - this.startNs);
  }

  /** Requests whose intended send time has come, sent or not. */
  private dueBy(nowNs: number): number {
    return dueBy(nowNs, this.nsPerRequest, this.total);
  }

  /** Sends every due request a free connection can take; the rest wait for the next reply or ping. */
  private pump(): void {
    if (this.done === undefined) return;
    const nowNs = this.elapsedNs();
    const due = this.dueBy(nowNs);
    // First in, first out, so the load is spread over every connection, not the few a quick
    // server would otherwise keep reusing.
    while (this.sent < due && this.idle.length > 0) this.send(this.idle.shift()!, this.sent++, nowNs);
    // Every connection is busy if some due requests are left: they wait for the next reply.
    this.waitedForConnection.note(this.sent, due);
    this.pacer?.noteSeenDue(due);
    if (this.sent === this.total && this.inFlight.size === 0) this.finish();
  }

  private send(connection: RawConnection, index: number, nowNs: number): void {
    const intended = intendedNs(index, this.nsPerRequest);
    this.sendLag.record(nowNs - intended);
    const { target, bytes } = this.requests[index]!;
    this.inFlight.set(connection, intended);
    connection.send(bytes, (reply) => this.onReply(connection, target, intended, reply));
  }

  private onReply(connection: RawConnection, target: string, intended: number, reply: RawReply | Error): void {
    this.inFlight.delete(connection);
    if (reply instanceof Error) {
      // The connection is gone: it carries no more requests.
      this.tally.fail({ operation: target, status: null, detail: reply.message });
      if (--this.live === 0) return this.finish();
      return this.pump();
    }
    if (reply.status === 200) {
      this.tally.ok++;
      this.tally.histogram.record(this.elapsedNs() - intended);
    } else {
      this.tally.fail({ operation: target, status: reply.status, detail: reply.body.slice(0, 300) });
    }
    this.idle.push(connection);
    this.pump();
  }

  /**
   * Ends the phase: on schedule, at the deadline, or when every connection failed. Whatever was
   * due and not answered by then enters the latency at its age so far, so a server that stalled
   * near the end still shows up in the tail rather than vanishing from it.
   */
  private finish(): void {
    const resolve = this.done;
    if (resolve === undefined) return;
    this.done = undefined;
    this.pacer?.stop();
    clearTimeout(this.deadline);
    const nowNs = this.elapsedNs();
    const queued = this.dueBy(nowNs) - this.sent;
    for (let i = this.sent; i < this.sent + queued; i++) this.tally.histogram.record(nowNs - intendedNs(i, this.nsPerRequest));
    for (const intended of this.inFlight.values()) this.tally.histogram.record(nowNs - intended);
    const unanswered = queued + this.inFlight.size;
    for (const connection of this.connections) connection.close();
    resolve(this.summarise(nowNs / 1e6, unanswered));
  }

  private summarise(elapsedMs: number, unanswered: number): RateResult {
    return {
      ratePerSecond: this.ratePerSecond,
      achievedPerSecond: elapsedMs > 0 ? (this.tally.ok * 1000) / elapsedMs : 0,
      ok: this.tally.ok,
      errors: this.tally.errors,
      errorSamples: this.tally.samples,
      unanswered,
      elapsedMs,
      latency: this.tally.histogram.summary(),
      sendLag: this.sendLag.summary(),
      waitedForConnection: this.waitedForConnection.waited,
      pacerPings: this.pacer?.pings ?? 0,
      ...loaderCpu(this.cpuBefore, elapsedMs),
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
