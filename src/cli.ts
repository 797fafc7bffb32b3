/**
 * The `dynatwin` command: parse flags, start the server, print a one-line banner, and shut down
 * cleanly (in-flight writes committed, store closed) on SIGINT or SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BrowserAccess } from './server/browser-access.js';
import { StartupError } from './server/data-dir.js';
import { DEFAULT_SERVER_OPTIONS, startServer, type ServerOptions } from './server/server.js';

const HELP = `Usage: dynatwin [options]

A DynamoDB-compatible server that models partitions, capacity and throttling.

Options:
  --port <n>          port to listen on (default 8000; 0 picks a free port)
  --host <address>    address to bind (default 127.0.0.1)
  --data-dir <path>   LMDB data directory (default ./dynatwin-data)
  --in-memory         keep everything in memory; nothing is persisted
  --durability flush|commit
                      flush: acknowledge a write once it is on disk, surviving power loss
                      (default); commit: once the OS has it, surviving a crash of dynatwin
                      but not of the machine (faster where disk flushes are slow)
  --gsi-lag <ms>      delay before a write reaches global secondary indexes (default 0)
  --item-collection-size-limit <bytes>
                      item collection limit of tables with local secondary indexes
                      (default 10737418240, DynamoDB's 10 GB)
  --partition-model modern|classic
                      modern: today's DynamoDB (default); classic: the 2017 partition
                      formula, ceil(max(RCU/3000 + WCU/1000, size/limit))
  --partition-size-limit <size>
                      a partition holding more splits in two (default 10GB; units B, KB,
                      MB, GB are binary, e.g. 10MB to see size splits on a laptop)
  --capacity enforce|off
                      enforce: throttle as DynamoDB does (default); off: count capacity
                      units and record metrics, but never throttle
  --clock real|manual real: wall-clock time (default); manual: starts at the real time and
                      moves only when POST /dynatwin/clock {"advanceMs": n} advances it
  --allow-host <name> also serve requests whose Host header names <name> (repeatable); by
                      default only loopback names and addresses and the bound address are
                      served, which stops web pages from reaching dynatwin by DNS rebinding;
                      '*' serves any Host
  --cors-origin <origin>
                      also let the web page at <origin> (e.g. http://app.test:3000) use
                      dynatwin from a browser (repeatable); by default only pages served from
                      loopback (localhost, 127.0.0.1, [::1]) may; '*' lets any web page in
  --version           print the version and exit
  --help              print this help and exit
`;

export function packageVersion(): string {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return packageJson.version;
}

export class UsageError extends Error {}

export function parseCommandLine(argv: readonly string[]): ServerOptions | 'help' | 'version' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        'in-memory': { type: 'boolean' },
        durability: { type: 'string' },
        'gsi-lag': { type: 'string' },
        'partition-model': { type: 'string' },
        capacity: { type: 'string' },
        'partition-size-limit': { type: 'string' },
        'item-collection-size-limit': { type: 'string' },
        clock: { type: 'string' },
        'allow-host': { type: 'string', multiple: true },
        'cors-origin': { type: 'string', multiple: true },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    // One line: Node's message names the flag; --help lists them all.
    throw new UsageError(`${(error instanceof Error ? error.message : String(error)).split('\n')[0]} (dynatwin --help lists the flags)`);
  }
  const values = parsed.values;
  if (values.help) return 'help';
  if (values.version) return 'version';
  if (values['in-memory'] === true && values['data-dir'] !== undefined) {
    throw new UsageError('--in-memory keeps nothing on disk, so --data-dir has no use with it; give one or the other');
  }
  return {
    ...DEFAULT_SERVER_OPTIONS,
    port: values.port === undefined ? DEFAULT_SERVER_OPTIONS.port : parsePort(values.port),
    host: values.host ?? DEFAULT_SERVER_OPTIONS.host,
    dataDir: values['data-dir'] ?? DEFAULT_SERVER_OPTIONS.dataDir,
    inMemory: values['in-memory'] ?? false,
    durability: values.durability === undefined ? DEFAULT_SERVER_OPTIONS.durability : parseDurability(values.durability),
    gsiLagMs: values['gsi-lag'] === undefined ? DEFAULT_SERVER_OPTIONS.gsiLagMs : parseCount('--gsi-lag', values['gsi-lag'], 0),
    itemCollectionSizeLimitBytes:
      values['item-collection-size-limit'] === undefined
        ? DEFAULT_SERVER_OPTIONS.itemCollectionSizeLimitBytes
        : parseCount('--item-collection-size-limit', values['item-collection-size-limit'], 1),
    partitionModel: values['partition-model'] === undefined ? DEFAULT_SERVER_OPTIONS.partitionModel : parsePartitionModel(values['partition-model']),
    partitionSizeLimitBytes:
      values['partition-size-limit'] === undefined
        ? DEFAULT_SERVER_OPTIONS.partitionSizeLimitBytes
        : parseSize('--partition-size-limit', values['partition-size-limit']),
    capacity: values.capacity === undefined ? DEFAULT_SERVER_OPTIONS.capacity : parseCapacityMode(values.capacity),
    clock: values.clock === undefined ? DEFAULT_SERVER_OPTIONS.clock : parseClockMode(values.clock),
    browserAccess: { allowHosts: values['allow-host'] ?? [], corsOrigins: (values['cors-origin'] ?? []).map(parseCorsOrigin) },
  };
}

/** `*`, `null` (file:// and sandboxed pages) or an http(s) origin: scheme, host and optional port, no path. */
function parseCorsOrigin(text: string): string {
  if (text === '*' || text === 'null') return text;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '') {
    throw new UsageError(`--cors-origin must be an origin such as http://localhost:3000 (scheme, host, optional port; no path) or '*', got '${text}'`);
  }
  return url.origin;
}

function parseDurability(text: string): ServerOptions['durability'] {
  if (text === 'flush' || text === 'commit') return text;
  throw new UsageError(`--durability must be 'flush' or 'commit', got '${text}'`);
}

function parseClockMode(text: string): ServerOptions['clock'] {
  if (text === 'real' || text === 'manual') return text;
  throw new UsageError(`--clock must be 'real' or 'manual', got '${text}'`);
}

function parseCapacityMode(text: string): ServerOptions['capacity'] {
  if (text === 'enforce' || text === 'off') return text;
  throw new UsageError(`--capacity must be 'enforce' or 'off', got '${text}'`);
}

function parsePartitionModel(text: string): ServerOptions['partitionModel'] {
  if (text === 'modern' || text === 'classic') return text;
  throw new UsageError(`--partition-model must be 'modern' or 'classic', got '${text}'`);
}

const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/** A size such as 10GB, 10MB, 512KB or 4096 (bytes); DynamoDB's size units are binary. */
export function parseSize(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([KMGT]?B)?$/i.exec(text.trim());
  const bytes = match === null ? NaN : Math.floor(Number(match[1]) * SIZE_UNITS[(match[2] ?? '').toUpperCase()]!);
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new UsageError(`${flag} must be a size such as 10GB, 10MB or 4096, got '${text}'`);
  return bytes;
}

/** A whole number of at least `min` (milliseconds, bytes). */
function parseCount(flag: string, text: string, min: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${flag} must be a whole number of at least ${min}, got '${text}'`);
  }
  return value;
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`--port must be a number from 0 to 65535, got '${text}'`);
  return port;
}

export async function main(argv: readonly string[]): Promise<void> {
  let options;
  try {
    options = parseCommandLine(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`dynatwin: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  if (options === 'help') {
    process.stdout.write(HELP);
    return;
  }
  if (options === 'version') {
    process.stdout.write(packageVersion() + '\n');
    return;
  }
  // Signal handlers come first: a supervisor may signal us the moment the banner appears (or
  // before), and the default action would skip closing the store.
  const starting = startServer(options);
  const shutdown = (signal: string): void => {
    process.stdout.write(`dynatwin: ${signal} received, closing\n`);
    starting
      .then((server) => server.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          // A failed start-up was reported by main already.
          if (!(error instanceof StartupError)) process.stderr.write(`dynatwin: error while closing: ${String(error)}\n`);
          process.exit(1);
        },
      );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  let server;
  try {
    server = await starting;
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    process.stderr.write(`dynatwin: ${error.message}\n`);
    process.exitCode = 1;
    return;
  }
  // 'flush' is the default and needs no mention; 'commit' trades power-loss safety for speed.
  const durabilityNote = options.durability === 'commit' ? ' (durability: commit)' : '';
  const store = options.inMemory ? 'memory (not persisted)' : `lmdb at ${options.dataDir}${durabilityNote}`;
  // Only a manual clock is worth a mention: time then stands still until someone advances it.
  const clockNote = options.clock === 'manual' ? ' — clock: manual' : '';
  // Widened browser access is the user's explicit choice, and stays visible.
  const access = new BrowserAccess(options.host, options.browserAccess).describeWidening();
  const accessNote = access === '' ? '' : ` — ${access}`;
  process.stdout.write(`dynatwin ${packageVersion()} listening on ${server.endpoint} — store: ${store}${clockNote}${accessNote}\n`);
}
