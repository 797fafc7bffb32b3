/**
 * Library entry point: start a dynatwin server inside the current process, e.g. for a test suite.
 *
 *   import { startDynatwin } from 'dynatwin';
 *   const twin = await startDynatwin();          // in-memory, free port
 *   const client = new DynamoDBClient({ endpoint: twin.endpoint, ... });
 *   await twin.close();
 */
import type { CapacitySettings } from './capacity/admission.js';
import type { PartitionModel } from './capacity/partitions.js';
import type { Clock, ManualClock, RealClock } from './clock.js';
import type { Faults } from './server/faults.js';
import type { Durability } from './storage/lmdb.js';
import { DEFAULT_SERVER_OPTIONS, startServer, type ServerOptions } from './server/server.js';

export interface DynatwinOptions {
  /** Default 0: a free port. */
  readonly port?: number;
  readonly host?: string;
  /** Persist to this LMDB directory instead of memory. */
  readonly dataDir?: string;
  /**
   * With dataDir: 'flush' (default) acknowledges a write once on disk, 'commit' once the OS has
   * it, 'none' (benchmarks only: no flush; a machine crash can corrupt the store).
   */
  readonly durability?: Durability;
  readonly clock?: 'real' | 'manual';
  readonly region?: string;
  readonly tableCreateDelayMs?: number;
  /** GSI propagation delay in ms on the server's clock (default 0: GSIs change with the item). */
  readonly gsiLagMs?: number;
  /** LSI item collection limit in bytes (default DynamoDB's 10 GB). */
  readonly itemCollectionSizeLimitBytes?: number;
  /** 'modern' (default) or 'classic' (the 2017 partition formula). */
  readonly partitionModel?: PartitionModel;
  /** A partition holding more bytes splits in two (default 10 GB). */
  readonly partitionSizeLimitBytes?: number;
  /** Keep partition maps current (default true; false only to measure what it costs). */
  readonly capacityAccounting?: boolean;
  /** 'enforce' (default): throttle as DynamoDB does; 'off': count units, throttle nothing. */
  readonly capacity?: 'enforce' | 'off';
  /** Record metrics (default true; false only to measure what recording costs). */
  readonly metrics?: boolean;
  /** Admission tunables, e.g. `{ gsiBacklogWriteUnitsMax: 1000 }` (docs/CAPACITY-MODEL.md). */
  readonly capacitySettings?: Partial<CapacitySettings>;
  /**
   * Host header names served beyond loopback names and the bound address (`--allow-host`), e.g.
   * `['dynatwin']` for a container network; `['*']` serves any Host.
   */
  readonly allowHosts?: readonly string[];
  /**
   * Web page origins answered with CORS beyond loopback pages (`--cors-origin`), e.g.
   * `['https://app.example.test']`; `['*']` lets any web page use the server.
   */
  readonly corsOrigins?: readonly string[];
}

/** A running dynatwin; `clock` is a ManualClock when started with `clock: 'manual'`. */
export interface Dynatwin<TClock extends Clock = Clock> {
  readonly endpoint: string;
  readonly port: number;
  readonly clock: TClock;
  /**
   * Resolves once the background work due at the clock's current time has finished: the TTL
   * sweeps a `clock.advance()` made due. (POST /dynatwin/clock waits for it by itself.)
   */
  settled(): Promise<void>;
  /** Fault injection for retry logic (the same rules as POST /dynatwin/faults; README). */
  readonly faults: Faults;
  /**
   * Deletes every table with its items and indexes, and forgets metrics, Contributor Insights and
   * idempotency tokens: the same endpoint, as if freshly started (the clock keeps its time, fault
   * rules stay). For a test suite's `beforeEach`/`afterEach`; call it when no request is in flight.
   */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export function startDynatwin(options: DynatwinOptions & { readonly clock: 'manual' }): Promise<Dynatwin<ManualClock>>;
export function startDynatwin(options?: DynatwinOptions & { readonly clock?: 'real' }): Promise<Dynatwin<RealClock>>;
export function startDynatwin(options?: DynatwinOptions): Promise<Dynatwin>;
export async function startDynatwin(options: DynatwinOptions = {}): Promise<Dynatwin> {
  const serverOptions: ServerOptions = {
    ...DEFAULT_SERVER_OPTIONS,
    port: options.port ?? 0,
    host: options.host ?? DEFAULT_SERVER_OPTIONS.host,
    inMemory: options.dataDir === undefined,
    dataDir: options.dataDir ?? DEFAULT_SERVER_OPTIONS.dataDir,
    durability: options.durability ?? DEFAULT_SERVER_OPTIONS.durability,
    clock: options.clock ?? 'real',
    region: options.region ?? DEFAULT_SERVER_OPTIONS.region,
    tableCreateDelayMs: options.tableCreateDelayMs ?? 0,
    gsiLagMs: options.gsiLagMs ?? DEFAULT_SERVER_OPTIONS.gsiLagMs,
    itemCollectionSizeLimitBytes: options.itemCollectionSizeLimitBytes ?? DEFAULT_SERVER_OPTIONS.itemCollectionSizeLimitBytes,
    partitionModel: options.partitionModel ?? DEFAULT_SERVER_OPTIONS.partitionModel,
    partitionSizeLimitBytes: options.partitionSizeLimitBytes ?? DEFAULT_SERVER_OPTIONS.partitionSizeLimitBytes,
    capacityAccounting: options.capacityAccounting ?? DEFAULT_SERVER_OPTIONS.capacityAccounting,
    capacity: options.capacity ?? DEFAULT_SERVER_OPTIONS.capacity,
    metrics: options.metrics ?? DEFAULT_SERVER_OPTIONS.metrics,
    browserAccess: { allowHosts: options.allowHosts ?? [], corsOrigins: options.corsOrigins ?? [] },
    ...(options.capacitySettings === undefined ? {} : { capacitySettings: options.capacitySettings }),
  };
  const server = await startServer(serverOptions);
  return {
    endpoint: server.endpoint,
    port: server.port,
    clock: server.clock,
    settled: () => server.engine.ttl.settled(),
    faults: server.faults,
    reset: () => server.reset(),
    close: () => server.close(),
  };
}

export { ManualClock, RealClock, type Clock } from './clock.js';
export type { Faults, FaultRuleView } from './server/faults.js';
export type { FaultErrorName, FaultKeyValue, FaultRuleInput } from './server/fault-rules.js';
