/**
 * Starting and stopping a dynatwin server: store, engine, HTTP listener. Used by the CLI and by
 * `startDynatwin` for in-process test suites.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CapacitySettings } from '../capacity/admission.js';
import { DEFAULT_PARTITION_SIZE_LIMIT_BYTES, type PartitionModel } from '../capacity/partitions.js';
import { ManualClock, RealClock, type Clock } from '../clock.js';
import { Engine } from '../engine/engine.js';
import { ITEM_COLLECTION_SIZE_LIMIT_BYTES } from '../engine/item-collections.js';
import { createOperationRegistry } from '../operations/index.js';
import { openStorage } from '../storage/index.js';
import type { Durability } from '../storage/lmdb.js';
import { BrowserAccess, DEFAULT_BROWSER_ACCESS, type BrowserAccessOptions } from './browser-access.js';
import { registerClockRoutes } from './clock-routes.js';
import { createRequestHandler } from './http.js';
import { InspectionRouter } from './inspection.js';
import { registerDashboardRoutes } from './dashboard-routes.js';
import { registerInsightsRoutes } from './insights-routes.js';
import { registerMetricsRoutes } from './metrics-routes.js';
import { registerPartitionRoutes } from './partition-routes.js';

export interface ServerOptions {
  /** Port to listen on; 0 picks a free one. */
  readonly port: number;
  readonly host: string;
  /** LMDB data directory; ignored when `inMemory`. */
  readonly dataDir: string;
  readonly inMemory: boolean;
  /**
   * When an LMDB write is acknowledged (`--durability`): 'flush' once it is on disk (survives
   * power loss, the default), 'commit' once the OS has it (survives a crash of the process);
   * 'none' only for the benchmark's store ceiling (never flushed; see storage/lmdb.ts).
   */
  readonly durability: Durability;
  readonly clock: 'real' | 'manual';
  readonly region: string;
  readonly accountId: string;
  readonly tableCreateDelayMs: number;
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
  /** Where bugs (500s) are reported. */
  readonly log: (message: string) => void;
}

export const DEFAULT_SERVER_OPTIONS: ServerOptions = {
  port: 8000,
  host: '127.0.0.1',
  dataDir: './dynatwin-data',
  inMemory: false,
  durability: 'flush',
  clock: 'real',
  region: 'us-east-1',
  accountId: '000000000000',
  tableCreateDelayMs: 0,
  gsiLagMs: 0,
  itemCollectionSizeLimitBytes: ITEM_COLLECTION_SIZE_LIMIT_BYTES,
  partitionModel: 'modern',
  partitionSizeLimitBytes: DEFAULT_PARTITION_SIZE_LIMIT_BYTES,
  capacityAccounting: true,
  capacity: 'enforce',
  metrics: true,
  browserAccess: DEFAULT_BROWSER_ACCESS,
  log: (message) => console.error(message),
};

export interface RunningServer {
  /** e.g. http://127.0.0.1:8000 */
  readonly endpoint: string;
  readonly port: number;
  readonly engine: Engine;
  readonly clock: Clock;
  /** Stops accepting connections, waits for in-flight requests, then closes the store. */
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const clock = options.clock === 'manual' ? new ManualClock() : new RealClock();
  const storage = await openStorage(options.inMemory ? { kind: 'memory' } : { kind: 'lmdb', path: options.dataDir, durability: options.durability });
  const engine = Engine.open(storage, {
    clock,
    region: options.region,
    accountId: options.accountId,
    tableCreateDelayMs: options.tableCreateDelayMs,
    gsiLagMs: options.gsiLagMs,
    itemCollectionSizeLimitBytes: options.itemCollectionSizeLimitBytes,
    partitions: {
      policy: { model: options.partitionModel, sizeLimitBytes: options.partitionSizeLimitBytes },
      accounting: options.capacityAccounting,
      ...(options.capacitySettings === undefined ? {} : { capacity: options.capacitySettings }),
    },
    capacity: options.capacity,
    metrics: options.metrics,
    log: options.log,
  });
  const onInternalError = (error: unknown): void => options.log('dynatwin internal error: ' + (error instanceof Error ? error.stack : String(error)));
  const browserAccess = new BrowserAccess(options.host, options.browserAccess);
  const inspection = new InspectionRouter(onInternalError, browserAccess);
  registerClockRoutes(inspection, clock, () => engine.ttl.settled());
  registerPartitionRoutes(inspection, engine);
  registerMetricsRoutes(inspection, engine.telemetry.metrics, clock, { beforeRead: (nowMs) => engine.telemetry.sampleGauges(engine.catalog, nowMs) });
  registerInsightsRoutes(inspection, engine);
  registerDashboardRoutes(inspection, engine);
  const handler = createRequestHandler({ engine, operations: createOperationRegistry(), inspection, onInternalError, browserAccess });
  const server = createServer({ keepAliveTimeout: 60_000 }, handler);
  try {
    await listen(server, options.port, options.host);
  } catch (error) {
    await engine.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    endpoint: `http://${formatHost(options.host)}:${port}`,
    port,
    engine,
    clock,
    close: () => (closing ??= stop(server, engine)),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function stop(server: Server, engine: Engine): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    // Idle keep-alive connections would hold close() open; in-flight requests still finish.
    server.closeIdleConnections();
  });
  await engine.close();
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
