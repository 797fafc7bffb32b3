/**
 * Starting and stopping a dynatwin server: store, engine, HTTP listener. Used by the CLI and by
 * `startDynatwin` for in-process test suites.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { Server as NetServer, type AddressInfo } from 'node:net';
import type { CapacitySettings } from '../capacity/admission.js';
import { DEFAULT_PARTITION_SIZE_LIMIT_BYTES, type PartitionModel } from '../capacity/partitions.js';
import { ManualClock, RealClock, type Clock } from '../clock.js';
import { Engine, type EngineSettings } from '../engine/engine.js';
import { ITEM_COLLECTION_SIZE_LIMIT_BYTES } from '../engine/item-collections.js';
import { UnimplementedOperations } from '../operations/aws-operations.js';
import { createOperationRegistry } from '../operations/index.js';
import type { AnyOperation } from '../operations/operation.js';
import { createStreamsOperationRegistry } from '../operations/streams/index.js';
import { AutoScaling } from '../autoscaling/service.js';
import { createAutoScalingOperationRegistry } from '../autoscaling/operations/index.js';
import { codeOf, DamagedFileError } from '../storage/directory.js';
import { redactStoreUrl } from '../storage/postgres-url.js';
import { storeFaultsFromSpec } from '../storage/fault-injection.js';
import { openStorage, type Storage } from '../storage/index.js';
import { CHECKPOINT_LOG_BYTES_DEFAULT, LogDamagedError } from '../storage/wal.js';
import type { Durability } from '../storage/lmdb.js';
import { BrowserAccess, DEFAULT_BROWSER_ACCESS, type BrowserAccessOptions } from './browser-access.js';
import { registerClockRoutes } from './clock-routes.js';
import { claimDataDir, dataDirError, StartupError, type DataDirClaim } from './data-dir.js';
import { registerFaultRoutes } from './fault-routes.js';
import { FaultRegistry, serviceUnavailable } from './faults.js';
import { answerClientError, createRequestHandler, type RequestHandlers } from './http.js';
import { FastLane, type FastHandler } from './fast-lane.js';
import { RequestGate } from './request-gate.js';
import type { Duplex } from 'node:stream';
import { loadCredentials } from './credentials.js';
import { SignatureVerifier } from './sigv4.js';
import { InspectionRouter } from './inspection.js';
import { InspectionAuth, inspectionTokenProblem, newInspectionToken } from './inspection-auth.js';
import { registerDashboardRoutes } from './dashboard-routes.js';
import { createInitTables, readInitFile, type InitDocument } from './init-tables.js';
import { registerInsightsRoutes } from './insights-routes.js';
import { registerMetricsRoutes } from './metrics-routes.js';
import { registerPartitionRoutes } from './partition-routes.js';
import { registerScalingRoutes } from './scaling-routes.js';
import { saveCertificate, tlsFor, type ServedTls } from './tls-files.js';

export interface ServerOptions {
  /** Port to listen on; 0 picks a free one. */
  readonly port: number;
  readonly host: string;
  /** LMDB data directory; ignored when `inMemory` or `store`. */
  readonly dataDir: string;
  readonly inMemory: boolean;
  /**
   * A PostgreSQL URL (`--store`, storage/postgres-url.ts): everything is kept in that database
   * (storage/postgres.ts) and no data directory is claimed (the database is what several servers
   * may share; it keeps them apart itself).
   */
  readonly store?: string | undefined;
  /**
   * When a write to the data directory is acknowledged (`--durability`): 'flush' once its
   * write-ahead log group is on disk (survives power loss, the default), 'commit' once the OS has
   * it (survives a crash of the process); 'none' only for the benchmark's store ceiling (plain
   * LMDB, never flushed; see storage/lmdb.ts).
   */
  readonly durability: Durability;
  /** Write-ahead log written after which a background checkpoint starts (`--checkpoint-log-size`; storage/logged.ts). */
  readonly checkpointLogBytes: number;
  readonly clock: 'real' | 'manual';
  /** Serve HTTPS with a self-signed certificate (`--https`; see tls.ts). */
  readonly https: boolean;
  /**
   * Serve every request through node:http (`--node-http`), without the fast lane that reads the
   * common DynamoDB request straight off the socket (fast-lane.ts). HTTPS always uses node's.
   */
  readonly nodeHttp: boolean;
  /** Serve HTTPS with this PEM certificate file (`--tls-cert`, with `tlsKey`). */
  readonly tlsCert?: string | undefined;
  /** The PEM private key file of `tlsCert` (`--tls-key`). */
  readonly tlsKey?: string | undefined;
  /** any: any credentials of the right shape; verify: SigV4 signatures checked (`--auth`, sigv4.ts). */
  readonly auth: 'any' | 'verify';
  /** The AWS shared-credentials file `--auth verify` accepts the keys of (`--credentials-file`). */
  readonly credentialsFile?: string | undefined;
  /**
   * `--auth verify`: the token dynatwin's own routes take (`--inspection-token`,
   * inspection-auth.ts); a random one when absent.
   */
  readonly inspectionToken?: string | undefined;
  readonly region: string;
  readonly accountId: string;
  /** Tables made at start-up, before a request is served, unless they exist (`--init`; init-tables.ts). */
  readonly init?: string | undefined;
  readonly tableCreateDelayMs: number;
  /** How long UpdateTable leaves the table UPDATING (`--table-update-delay`). */
  readonly tableUpdateDelayMs: number;
  /** How long DeleteTable leaves the table DELETING before it is gone (`--table-delete-delay`). */
  readonly tableDeleteDelayMs: number;
  /** GSI propagation delay on the clock (`--gsi-lag`); 0 updates GSIs with the item. */
  readonly gsiLagMs: number;
  /** LSI item collection limit (`--item-collection-size-limit`); DynamoDB's is 10 GB. */
  readonly itemCollectionSizeLimitBytes: number;
  /** How tables and GSIs are partitioned (`--partition-model`). */
  readonly partitionModel: PartitionModel;
  /** A partition holding more bytes splits (`--partition-size-limit`; DynamoDB's 10 GB). */
  readonly partitionSizeLimitBytes: number;
  /**
   * Keep partition maps current on every write. Always on for users; the bench turns it off to
   * measure what the accounting costs.
   */
  readonly capacityAccounting: boolean;
  /** enforce: throttle as DynamoDB does; off: count units, throttle nothing (`--capacity`). */
  readonly capacity: 'enforce' | 'off';
  /** Record metrics, heat-map history and Contributor Insights (always on for users; the bench turns it off to measure its cost). */
  readonly metrics: boolean;
  /** Admission tunables (burst seconds, GSI backlog bound ...); DynamoDB's model by default. */
  readonly capacitySettings?: Partial<CapacitySettings>;
  /** Host names (`--allow-host`) and page origins (`--cors-origin`) served beyond loopback ones. */
  readonly browserAccess: BrowserAccessOptions;
  /**
   * On close (SIGINT, SIGTERM, close()): how long requests already taken may still run to their
   * answers (`--shutdown-wait`); those still running then are answered ServiceUnavailable.
   */
  readonly shutdownWaitMs: number;
  /** Where bugs (500s) are reported. */
  readonly log: (message: string) => void;
  /**
   * Tests only: disk faults to inject into the logged store, a storage/fault-injection.ts spec.
   * Set by the CLI from DYNATWIN_STORE_FAULTS at start-up; no flag, no request can set it.
   */
  readonly storeFaults?: string | undefined;
}

export const DEFAULT_SERVER_OPTIONS: ServerOptions = {
  port: 8000,
  host: '127.0.0.1',
  dataDir: './dynatwin-data',
  inMemory: false,
  durability: 'flush',
  checkpointLogBytes: CHECKPOINT_LOG_BYTES_DEFAULT,
  clock: 'real',
  https: false,
  nodeHttp: false,
  auth: 'any',
  region: 'us-east-1',
  accountId: '000000000000',
  tableCreateDelayMs: 0,
  tableUpdateDelayMs: 0,
  tableDeleteDelayMs: 0,
  gsiLagMs: 0,
  itemCollectionSizeLimitBytes: ITEM_COLLECTION_SIZE_LIMIT_BYTES,
  partitionModel: 'modern',
  partitionSizeLimitBytes: DEFAULT_PARTITION_SIZE_LIMIT_BYTES,
  capacityAccounting: true,
  capacity: 'enforce',
  metrics: true,
  browserAccess: DEFAULT_BROWSER_ACCESS,
  shutdownWaitMs: 5000,
  log: (message) => console.error(message),
};

export interface RunningServer {
  /** e.g. http://127.0.0.1:8000, or https://... when serving TLS */
  readonly endpoint: string;
  /** The self-signed certificate (PEM) clients must trust, with `https`; else undefined. */
  readonly certificate: string | undefined;
  /** The file holding `certificate` (in the data directory, or a temporary one in memory). */
  readonly certificatePath: string | undefined;
  readonly port: number;
  readonly engine: Engine;
  readonly clock: Clock;
  /** Fault rules (POST /dynatwin/faults). */
  readonly faults: FaultRegistry;
  /** Application Auto Scaling: targets, policies, and the evaluator on the clock. */
  readonly autoScaling: AutoScaling;
  /**
   * Closes in order: stops listening and refuses new requests (ServiceUnavailable), lets those
   * already taken finish and be answered (at most `shutdownWaitMs`, then answers those left with
   * ServiceUnavailable), stops background work, closes the store; connections still open a moment
   * later are cut. See `stop` below.
   */
  close(): Promise<void>;
  /** Connections the fast lane serves now (fast-lane.ts); 0 without it (HTTPS, `--node-http`). Diagnostics and tests. */
  readonly fastLaneConnections: number;
  /** `--auth verify`: the token of dynatwin's own routes (inspection-auth.ts); undefined otherwise. */
  readonly inspectionToken: string | undefined;
  /**
   * Deletes every table (items, indexes, TTL settings, tags) and forgets metrics, Contributor
   * Insights and idempotency tokens, on the same endpoint and clock: a fresh server for the next
   * test. Call it when no request is in flight.
   */
  reset(): Promise<void>;
}

/** The init file's tables; on failure the engine (and its store) closes before the error goes on. */
async function seedOrClose(engine: Engine, document: InitDocument): Promise<void> {
  try {
    await createInitTables(engine, document);
  } catch (error) {
    await engine.close();
    throw error;
  }
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const clock = options.clock === 'manual' ? new ManualClock() : new RealClock();
  // Read and checked first: a bad init file fails the start before anything is claimed.
  const initDocument = options.init === undefined ? undefined : readInitFile(options.init);
  // Nothing is created on disk before the port is ours: a start-up that fails leaves no trace.
  const claim = options.inMemory || options.store !== undefined ? undefined : await claimDataDir(options.dataDir);
  let tls: ServedTls | undefined;
  let signatureVerifier: SignatureVerifier | undefined;
  let inspectionAuth: InspectionAuth | undefined;
  try {
    // Wall-clock time: clients judge a certificate's validity by their own clocks.
    tls = await tlsFor(options, claim?.path, Date.now());
    signatureVerifier = await signatureVerifierFor(options, clock);
    inspectionAuth = inspectionAuthFor(options, signatureVerifier);
  } catch (error) {
    await claim?.release();
    throw error;
  }
  // requireHostHeader off: node:http would answer an HTTP/1.1 request without Host with a bare
  // 400 (no DynamoDB-shaped body); the handler treats it as it treats HTTP/1.0's, which no browser
  // sends (browser-access.ts), so the DNS-rebinding guard loses nothing.
  const serverOptions = { keepAliveTimeout: 60_000, requireHostHeader: false };
  const server: Server = tls === undefined ? createServer(serverOptions) : createHttpsServer({ ...serverOptions, ...tls.material });
  server.on('clientError', answerClientError);
  // A client that half-closes (FIN) behind its requests still gets every answer, then the end.
  // node:http's default ends the connection at the FIN, which drops the answers not written yet
  // (any request still in flight, and those pipelined behind it). Not in @types/node; read by
  // node:http's socketOnEnd since its first versions (and set by its own tests).
  Reflect.set(server, 'httpAllowHalfOpen', true);
  const operations = createOperationRegistry();
  const faults = new FaultRegistry(clock, operations.keys());
  // One per server, across resets: the requests a close still owes an answer.
  const gate = new RequestGate();
  let engine: Engine;
  let autoScaling: AutoScaling;
  let handlers: RequestHandlers;
  let lane: FastLane | undefined;
  let savedCertificate: { path: string; cleanUp(): Promise<void> } | undefined;
  try {
    await listen(server, options.port, options.host);
    const early = holdEarlyRequests(server);
    try {
      const storage = await openStore(options, claim);
      // After the store opened: the data directory exists now, and a failed start left nothing.
      if (tls?.selfSigned === true) savedCertificate = await saveCertificate(tls, claim?.path).catch(async (error: unknown) => {
        await storage.close();
        throw new StartupError(`cannot save the HTTPS certificate: ${error instanceof Error ? error.message : String(error)}`);
      });
      engine = Engine.open(storage, engineSettings(options, clock));
      // A fault that failed writes after they ran (storage/logged.ts DISK FAULTS; a failed commit in
      // storage/postgres.ts): the engine's in-memory state moved with them, so a new engine is opened
      // on the store, which holds exactly the acknowledged writes, before writes resume.
      storage.onWritesLost?.(async () => {
        options.log(`dynatwin: writes failed after they ran (${storage.writeRefusal?.code ?? `a fault of the ${storage.kind} store`}); reopening the engine on the store before writes resume`);
        await replaceEngine(storage, false);
      });
      if (initDocument !== undefined) await seedOrClose(engine, initDocument);
    } catch (error) {
      early.reject();
      await closeListener(server);
      throw error;
    }
    autoScaling = AutoScaling.open(engine);
    handlers = createHandler(engine, autoScaling, clock, options, operations, faults, signatureVerifier, inspectionAuth, gate);
    early.serveWith(handlers.node);
    // After the handler exists: connections accepted earlier stay with node:http.
    if (tls === undefined && !options.nodeHttp) lane = openFastLane(server, () => handlers.fast, options.log);
  } catch (error) {
    await claim?.release();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  /**
   * A new Engine (and auto scaling) on `storage`, serving every request from now on; the old
   * one's background work is stopped first (and, for a reset, the store emptied then). Its
   * metrics, Contributor Insights, idempotency tokens and GSI change log start afresh.
   */
  async function replaceEngine(storage: Storage, emptyStore: boolean): Promise<void> {
    await autoScaling.stop();
    await engine.stopBackgroundWork();
    if (emptyStore) await removeEverything(storage);
    engine = Engine.open(storage, engineSettings(options, clock));
    // As at start-up: the init tables of an emptied store, before a request reaches the new engine.
    if (emptyStore && initDocument !== undefined) await createInitTables(engine, initDocument);
    autoScaling = AutoScaling.open(engine);
    const next = createHandler(engine, autoScaling, clock, options, operations, faults, signatureVerifier, inspectionAuth, gate);
    server.off('request', handlers.node);
    server.on('request', next.node);
    // The fast lane asks for the handler per request: it serves `next` from now on.
    handlers = next;
  }
  return {
    endpoint: `${tls === undefined ? 'http' : 'https'}://${formatHost(options.host)}:${port}`,
    certificate: tls?.selfSigned === true ? tls.material.cert : undefined,
    certificatePath: savedCertificate?.path,
    port,
    get engine() {
      return engine;
    },
    get autoScaling() {
      return autoScaling;
    },
    get fastLaneConnections() {
      return lane?.connectionCount ?? 0;
    },
    inspectionToken: inspectionAuth?.token,
    clock,
    faults,
    close: () => (closing ??= stop(server, lane, gate, engine, autoScaling, claim, options).then(() => savedCertificate?.cleanUp())),
    async reset() {
      if (closing !== undefined) throw new Error('reset() after close()');
      // A new Engine on the emptied store: no tables but the init ones. Requests from now on reach it.
      await replaceEngine(engine.storage, true);
    },
  };
}

function engineSettings(options: ServerOptions, clock: Clock): EngineSettings {
  return {
    clock,
    region: options.region,
    accountId: options.accountId,
    tableCreateDelayMs: options.tableCreateDelayMs,
    tableUpdateDelayMs: options.tableUpdateDelayMs,
    tableDeleteDelayMs: options.tableDeleteDelayMs,
    gsiLagMs: options.gsiLagMs,
    itemCollectionSizeLimitBytes: options.itemCollectionSizeLimitBytes,
    partitions: {
      policy: { model: options.partitionModel, sizeLimitBytes: options.partitionSizeLimitBytes },
      accounting: options.capacityAccounting,
      persistCounts: !options.inMemory,
      ...(options.capacitySettings === undefined ? {} : { capacity: options.capacitySettings }),
    },
    capacity: options.capacity,
    metrics: options.metrics,
    log: options.log,
  };
}

/** Keys removed per write transaction by a reset: bounded, so no single commit grows without limit. */
const RESET_KEYS_PER_WRITE = 4096;

async function removeEverything(storage: Storage): Promise<void> {
  for (;;) {
    const removed = await storage.write((txn) => {
      let count = 0;
      for (const { key } of txn.range({ limit: RESET_KEYS_PER_WRITE })) {
        txn.remove(key);
        count++;
      }
      return count;
    });
    if (removed < RESET_KEYS_PER_WRITE) return;
  }
}

function createHandler(
  engine: Engine,
  autoScaling: AutoScaling,
  clock: Clock,
  options: ServerOptions,
  operations: ReadonlyMap<string, AnyOperation>,
  faults: FaultRegistry,
  signatureVerifier: SignatureVerifier | undefined,
  inspectionAuth: InspectionAuth | undefined,
  gate: RequestGate,
): RequestHandlers {
  const onInternalError = (error: unknown): void => options.log('dynatwin internal error: ' + (error instanceof Error ? error.stack : String(error)));
  const browserAccess = new BrowserAccess(options.host, options.browserAccess);
  // While closing, the answer every route gets (http.ts), so a client sees one kind of refusal.
  const inspection = new InspectionRouter(onInternalError, browserAccess, () => (gate.closing ? { status: 503, body: serviceUnavailable().toBody() } : undefined), inspectionAuth);
  registerClockRoutes(inspection, clock, () => settledWork(engine, autoScaling));
  registerPartitionRoutes(inspection, engine);
  registerMetricsRoutes(inspection, engine.telemetry.metrics, clock, {
    beforeRead: (nowMs) => {
      engine.drainIndexBacklogs(nowMs);
      engine.telemetry.sampleGauges(engine.catalog, nowMs);
    },
    storage: () => engine.storage,
  });
  registerInsightsRoutes(inspection, engine);
  registerDashboardRoutes(inspection, engine);
  registerScalingRoutes(inspection, () => autoScaling);
  registerFaultRoutes(inspection, faults);
  const unimplemented = new UnimplementedOperations(operations, options.log);
  return createRequestHandler({
    engine,
    operations,
    streamOperations: createStreamsOperationRegistry(),
    autoScalingOperations: createAutoScalingOperationRegistry(autoScaling),
    cloudWatch: { engine, autoScaling },
    inspection,
    faults,
    onInternalError,
    browserAccess,
    onUnimplementedOperation: (name) => unimplemented.requested(name),
    signatureVerifier,
    gate,
  });
}

/** `--auth verify`: the credentials to check signatures against (credentials.ts), read now. */
async function signatureVerifierFor(options: ServerOptions, clock: Clock): Promise<SignatureVerifier | undefined> {
  if (options.auth !== 'verify') {
    if (options.credentialsFile !== undefined) throw new StartupError('--credentials-file is read with --auth verify only');
    return undefined;
  }
  return new SignatureVerifier(await loadCredentials(options.credentialsFile, process.env), clock);
}

/** `--auth verify` covers dynatwin's own routes too: their token, the user's or a fresh one. */
function inspectionAuthFor(options: ServerOptions, verifier: SignatureVerifier | undefined): InspectionAuth | undefined {
  if (verifier === undefined) {
    if (options.inspectionToken !== undefined) throw new StartupError('--inspection-token is used with --auth verify only');
    return undefined;
  }
  const token = options.inspectionToken ?? newInspectionToken();
  const problem = inspectionTokenProblem(token);
  if (problem !== undefined) throw new StartupError(`--inspection-token ${problem}`);
  return new InspectionAuth(token, verifier);
}

async function openStore(options: ServerOptions, claim: DataDirClaim | undefined): Promise<Storage> {
  if (options.store !== undefined) return openPostgres(options.store, options.log);
  if (claim === undefined) return openStorage({ kind: 'memory' });
  try {
    // The write-ahead log over LMDB; plain LMDB only for the bench's never-flushed ceiling.
    if (options.durability === 'none') return await openStorage({ kind: 'lmdb', path: claim.path, durability: 'none' });
    const faults = options.storeFaults === undefined ? undefined : storeFaultsFromSpec(options.storeFaults, (stage, code) => options.log(`dynatwin: injected fault ${code} into ${stage}`));
    return await openStorage({ kind: 'logged', path: claim.path, durability: options.durability, checkpointLogBytes: options.checkpointLogBytes, log: options.log, faults });
  } catch (error) {
    // Damage is reported as found, with what to do about it; never repaired here.
    if (error instanceof LogDamagedError) throw new StartupError(`${error.message}. \`dynatwin recover --data-dir ${claim.path}\` moves the damaged log aside and keeps the writes before the damage`);
    if (error instanceof DamagedFileError) throw new StartupError(error.message);
    throw dataDirError(claim.path, error);
  }
}

/**
 * The store named by `--store` could not be opened at start-up (the database down, a wrong
 * password, no such database): bad input as a bad flag is, so the CLI exits 2.
 */
export class StoreStartupError extends StartupError {}

/**
 * The PostgreSQL store, loaded on demand (as lmdb is) so that other servers never load the
 * driver. Any failure becomes one line naming the URL without its password.
 */
async function openPostgres(url: string, log: (message: string) => void): Promise<Storage> {
  let postgres: typeof import('../storage/postgres.js');
  try {
    postgres = await import('../storage/postgres.js');
  } catch (error) {
    throw new StoreStartupError(storeOpenMessage(url, error, false));
  }
  try {
    return await postgres.openPostgresStore(url, { log });
  } catch (error) {
    throw new StoreStartupError(storeOpenMessage(url, error, error instanceof postgres.StoreOpenError));
  }
}

/** Below this length a password is not looked for in messages: replacing every "a" helps nobody. */
const PASSWORD_SEARCHED_LENGTH_MIN = 3;

/**
 * One line for a store that did not open: the store's own message when it made one for the user
 * (StoreOpenError), else ours around the driver's; the URL always without its password, and the
 * password itself nowhere, whatever a driver's message may have echoed.
 */
export function storeOpenMessage(url: string, error: unknown, fromStore: boolean): string {
  const cause = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();
  // The CLI puts `dynatwin: ` in front of every start-up error; the store's message may have it already.
  const line = fromStore ? cause.replace(/^dynatwin: /, '') : `cannot use the PostgreSQL store at ${redactStoreUrl(url)}: ${cause || 'unknown error'}`;
  return hidePassword(line, url);
}

function hidePassword(text: string, url: string): string {
  let password = '';
  try {
    password = new URL(url).password;
  } catch {
    return text;
  }
  let hidden = text.split(url).join(redactStoreUrl(url));
  for (const form of new Set([password, safeDecode(password)])) {
    if (form.length >= PASSWORD_SEARCHED_LENGTH_MIN) hidden = hidden.split(form).join('***');
  }
  return hidden;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Requests that arrive between listening and the engine being ready; more are refused. */
const EARLY_REQUESTS_MAX = 1024;

/**
 * The port is bound before the store opens (so a port in use creates nothing); the few requests
 * that arrive in between wait here and are handed to the real handler once it exists.
 */
function holdEarlyRequests(server: Server): { serveWith(handler: RequestListener): void; reject(): void } {
  const held: [IncomingMessage, ServerResponse][] = [];
  const hold: RequestListener = (request, response) => {
    if (held.length >= EARLY_REQUESTS_MAX) response.writeHead(503).end();
    else held.push([request, response]);
  };
  server.on('request', hold);
  return {
    serveWith(handler) {
      server.off('request', hold);
      server.on('request', handler);
      for (const [request, response] of held.splice(0)) handler(request, response);
    },
    reject() {
      server.off('request', hold);
      for (const [, response] of held.splice(0)) response.writeHead(503).end();
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(listenError(error, port, host));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function listenError(error: Error, port: number, host: string): Error {
  switch (codeOf(error)) {
    case 'EADDRINUSE':
      return new StartupError(`port ${port} on ${host} is in use; stop what listens there, or pick another --port (0 picks a free one)`);
    case 'EACCES':
      return new StartupError(`no permission to listen on port ${port} (ports below 1024 need privileges); pick another --port`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new StartupError(`cannot listen on --host ${host}: no such address on this machine; try 127.0.0.1`);
    default:
      return error;
  }
}

/** Stops listening; resolves once every connection is closed. */
function closeListener(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    // Idle keep-alive connections would hold close() open; busy ones end after their answer.
    server.closeIdleConnections();
  });
}

/**
 * Puts the fast lane (fast-lane.ts) in front of node:http: the server's connections go to the
 * lane, which hands node's own connection listener whatever it does not serve itself. Without
 * exactly one such listener (a Node that wires its server differently) the lane stays out.
 */
function openFastLane(server: Server, handler: () => FastHandler | undefined, log: (message: string) => void): FastLane | undefined {
  const listeners = server.listeners('connection');
  const nodeListener = listeners[0];
  if (listeners.length !== 1 || nodeListener === undefined) {
    log(`dynatwin: node:http has ${listeners.length} connection listeners; serving every request through node:http`);
    return undefined;
  }
  const lane = new FastLane({
    handOver: (socket: Duplex) => Reflect.apply(nodeListener, server, [socket]),
    clientError: (error, socket) => {
      if (!server.emit('clientError', error, socket)) socket.destroy();
    },
    handler,
    keepAliveTimeoutMs: server.keepAliveTimeout,
    headersTimeoutMs: server.headersTimeout,
    requestTimeoutMs: server.requestTimeout,
    onError: (error) => log('dynatwin internal error: ' + (error instanceof Error ? error.stack : String(error))),
  });
  server.removeAllListeners('connection');
  server.on('connection', lane.accept);
  return lane;
}

/** Resolves once the background work due at the clock's time is done: TTL sweeps, then auto scaling's evaluations. */
export async function settledWork(engine: Engine, autoScaling: AutoScaling): Promise<void> {
  // TTL sweeps and table removals first: what they change is what the scaling evaluations see.
  await engine.settled();
  await autoScaling.settled();
}

/**
 * How long connections may stay open once the store is closed: enough for answers just written
 * (each says `Connection: close`) to leave; a request still arriving, or a client not reading its
 * answer, is cut then.
 */
const CONNECTIONS_LINGER_MS = 1000;

/**
 * How long after close began idle keep-alive connections are ended (at the earliest; later if the
 * drain takes longer; sooner if every connection closed). A client between two requests sends its
 * next one within a round trip; in this time it arrives, is answered ServiceUnavailable with
 * `Connection: close`, and the client closes. Ending idle connections at once instead raced those
 * requests: the server's FIN crossed them and they got no answer (the SDKs report "socket hang
 * up", ECONNRESET). A second, as for the connections cut at the end (CONNECTIONS_LINGER_MS): with
 * a quarter of a second, clients on a machine busy enough to stall them that long (two suites on
 * two cores) still lost requests this way; only a connection quiet for a second is ended from our
 * side.
 */
const IDLE_CONNECTIONS_GRACE_MS = 1000;

/**
 * Closes the way a database is expected to:
 * 1. New connections are refused (the listener closes, one turn later: stopListening); a request
 *    arriving on a connection already open is answered ServiceUnavailable (503, DynamoDB's body,
 *    `Connection: close`) and not run: the client knows it was not applied, and the SDKs retry a
 *    503 as they retry a refused connection. Idle connections stay open for now (step 4).
 * 2. Requests already taken (a write waiting for the disk, one held by a latency fault) run to
 *    their answers, against the open store, for at most `shutdownWaitMs`; those still running
 *    then are answered ServiceUnavailable (what the store does with one already under way is as
 *    after a 5xx from DynamoDB: it may or may not be applied), and one not started never runs.
 * 3. Background work stops after its current step (TTL sweeps, index backfills, backups and
 *    restores, table removals, auto scaling), then the store closes: nothing writes after that,
 *    and a write refused for it belongs to a request already answered, so nothing reports it.
 * 4. Idle connections end (at least IDLE_CONNECTIONS_GRACE_MS after close began); connections
 *    still open CONNECTIONS_LINGER_MS later are cut.
 */
async function stop(
  server: Server,
  lane: FastLane | undefined,
  gate: RequestGate,
  engine: Engine,
  autoScaling: AutoScaling,
  claim: DataDirClaim | undefined,
  options: ServerOptions,
): Promise<void> {
  gate.close();
  lane?.beginClosing();
  const graceMs = performance.now() + IDLE_CONNECTIONS_GRACE_MS;
  const connectionsClosed = stopListening(server);
  const refused = await gate.drain(options.shutdownWaitMs);
  if (refused > 0) options.log(`dynatwin: ${refused} request(s) still running ${options.shutdownWaitMs} ms into the shutdown were answered ServiceUnavailable`);
  await autoScaling.stop();
  await engine.close();
  // Only once the store is closed may another server take the directory.
  await claim?.release();
  const graceLeftMs = graceMs - performance.now();
  if (graceLeftMs > 0 && (await connectionCount(server)) > 0) {
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([connectionsClosed, new Promise((resolve) => (grace = setTimeout(resolve, graceLeftMs)))]);
    clearTimeout(grace);
  }
  // Idle connections end now (node:http's with no unread request, the lane's with nothing held),
  // busy ones after their answer.
  server.closeIdleConnections();
  lane?.endIdleConnections();
  let linger: NodeJS.Timeout | undefined;
  const lingered = new Promise<void>((resolve) => (linger = setTimeout(resolve, CONNECTIONS_LINGER_MS)));
  await Promise.race([connectionsClosed, lingered]);
  clearTimeout(linger);
  server.closeAllConnections();
  lane?.destroyConnections();
  await connectionsClosed;
  // node:http's own close now: it only stops its connection-checking timer (the listener is
  // closed, the connections are gone), which would otherwise keep this server reachable.
  server.close();
}

/**
 * Stops listening, without node:http's close(), which also destroys idle keep-alive connections
 * at once (see IDLE_CONNECTIONS_GRACE_MS); resolves once the listener and every connection are
 * closed. A connection the operating system completed but node has not accepted yet is reset by
 * the OS when the listener closes (nothing of it was read; the SDKs retry it). So the listener
 * closes only after one more whole turn of the event loop, in the check phase right after a poll
 * in which libuv accepted everything queued then: what it accepts is answered (ServiceUnavailable,
 * `Connection: close`), and the queue is closed as nearly empty as node lets us close it.
 */
function stopListening(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    setImmediate(() => setImmediate(() => Reflect.apply(NetServer.prototype.close, server, [() => resolve()])));
  });
}

/** Connections open now: every socket the listener accepted, the lane's included. */
function connectionCount(server: Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((error, count) => resolve(error === null ? count : 0)));
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
