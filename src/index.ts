/**
 * Library entry point: start a dynatwin server inside the current process, e.g. for a test suite.
 *
 *   import { startDynatwin } from 'dynatwin';
 *   const twin = await startDynatwin();          // in-memory, free port
 *   const client = new DynamoDBClient({ endpoint: twin.endpoint, ... });
 *   await twin.close();
 */
import type { Clock, ManualClock, RealClock } from './clock.js';
import { applyOptionValues } from './apply-options.js';
import { libraryOptionValues, OptionError, type TableOptions } from './options.js';
import type { Faults } from './server/faults.js';
import { DEFAULT_SERVER_OPTIONS, settledWork, startServer } from './server/server.js';

/**
 * startDynatwin's options: the settings of the CLI's flags under their library names, generated
 * from one table (src/options.ts, which has each one's units, bounds, default and meaning; `dynatwin
 * --help` prints it), e.g. `gsiLagMs` for `--gsi-lag`, `capacitySettings.gsiBacklogWriteUnitsMax`
 * for `--gsi-backlog-write-units-max`. Without `dataDir` or `store` (a PostgreSQL URL,
 * docs/POSTGRES.md) everything stays in memory; `port`
 * defaults to 0, a free port. A value outside its bounds is an OptionError.
 */
export interface DynatwinOptions extends TableOptions {
  /** Keep partition maps current (default true; false only to measure what it costs). */
  readonly capacityAccounting?: boolean;
  /** Record metrics (default true; false only to measure what recording costs). */
  readonly metrics?: boolean;
}

/** A running dynatwin; `clock` is a ManualClock when started with `clock: 'manual'`. */
export interface Dynatwin<TClock extends Clock = Clock> {
  /** http://127.0.0.1:<port>, or https://... with `https` or `tlsCert`. */
  readonly endpoint: string;
  readonly port: number;
  /**
   * With `https: true`: the self-signed certificate (PEM) a client must trust, e.g.
   * `new NodeHttpHandler({ httpsAgent: new https.Agent({ ca: twin.certificate }) })`.
   */
  readonly certificate: string | undefined;
  /**
   * With `auth: 'verify'`: the token dynatwin's own routes (`/dynatwin/...`, `/metrics`) take as
   * `Authorization: Bearer <token>` (or open the dashboard at `${endpoint}/dynatwin/#token=<token>`);
   * `inspectionToken` in the options fixes it. Undefined otherwise: the routes are open.
   */
  readonly inspectionToken: string | undefined;
  readonly clock: TClock;
  /**
   * Resolves once the background work due at the clock's current time has finished: the TTL
   * sweeps, table removals and the auto scaling evaluations (with the capacity changes they make)
   * a `clock.advance()` made due. (POST /dynatwin/clock waits for it by itself.)
   */
  settled(): Promise<void>;
  /** Fault injection for retry logic (the same rules as POST /dynatwin/faults; README). */
  readonly faults: Faults;
  /**
   * Deletes every table with its items and indexes, and forgets metrics, Contributor Insights and
   * idempotency tokens: the same endpoint, as if freshly started (the clock keeps its time, fault
   * rules stay; the `init` tables are made again, from the file as it was read at start-up). For a test suite's `beforeEach`/`afterEach`; call it when no request is in flight.
   */
  reset(): Promise<void>;
  /**
   * Closes in order: new requests are refused (ServiceUnavailable), those already taken are
   * answered (waiting at most `shutdownWaitMs`, 5 s by default), then the store closes (README,
   * "Stopping the server").
   */
  close(): Promise<void>;
}

export function startDynatwin(options: DynatwinOptions & { readonly clock: 'manual' }): Promise<Dynatwin<ManualClock>>;
export function startDynatwin(options?: DynatwinOptions & { readonly clock?: 'real' }): Promise<Dynatwin<RealClock>>;
export function startDynatwin(options?: DynatwinOptions): Promise<Dynatwin>;
export async function startDynatwin(options: DynatwinOptions = {}): Promise<Dynatwin> {
  // Where the data lives is one choice (as the CLI's --data-dir and --store exclude each other).
  if (options.dataDir !== undefined && options.store !== undefined) {
    throw new OptionError('dataDir and store: store keeps everything in the PostgreSQL database, so dataDir has no use with it; give one or the other');
  }
  const serverOptions = {
    ...applyOptionValues({ ...DEFAULT_SERVER_OPTIONS, port: 0 }, libraryOptionValues(options)),
    inMemory: options.dataDir === undefined && options.store === undefined,
    ...(options.capacityAccounting === undefined ? {} : { capacityAccounting: options.capacityAccounting }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
  };
  const server = await startServer(serverOptions);
  return {
    endpoint: server.endpoint,
    port: server.port,
    certificate: server.certificate,
    inspectionToken: server.inspectionToken,
    clock: server.clock,
    settled: () => settledWork(server.engine, server.autoScaling),
    faults: server.faults,
    reset: () => server.reset(),
    close: () => server.close(),
  };
}

export { ManualClock, RealClock, type Clock } from './clock.js';
export type { Faults, FaultRuleView } from './server/faults.js';
export type { FaultErrorName, FaultKeyValue, FaultRuleInput } from './server/fault-rules.js';
export { OPTION_TABLE } from './options.js';
export { OptionError };
export { StartupError } from './server/data-dir.js';
