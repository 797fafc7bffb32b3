/**
 * The `dynatwin` command: parse flags, start the server, print a one-line banner, and shut down
 * cleanly (in-flight writes committed, store closed) on SIGINT or SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_SERVER_OPTIONS, startServer, type ServerOptions } from './server/server.js';

const HELP = `Usage: dynatwin [options]

A DynamoDB-compatible server that models partitions, capacity and throttling.

Options:
  --port <n>          port to listen on (default 8000; 0 picks a free port)
  --host <address>    address to bind (default 127.0.0.1)
  --data-dir <path>   LMDB data directory (default ./dynatwin-data)
  --in-memory         keep everything in memory; nothing is persisted
  --gsi-lag <ms>      delay before a write reaches global secondary indexes (default 0)
  --item-collection-size-limit <bytes>
                      item collection limit of tables with local secondary indexes
                      (default 10737418240, DynamoDB's 10 GB)
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
        'gsi-lag': { type: 'string' },
        'item-collection-size-limit': { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error instanceof Error ? error.message : String(error)) + '\n\n' + HELP);
  }
  const values = parsed.values;
  if (values.help) return 'help';
  if (values.version) return 'version';
  return {
    ...DEFAULT_SERVER_OPTIONS,
    port: values.port === undefined ? DEFAULT_SERVER_OPTIONS.port : parsePort(values.port),
    host: values.host ?? DEFAULT_SERVER_OPTIONS.host,
    dataDir: values['data-dir'] ?? DEFAULT_SERVER_OPTIONS.dataDir,
    inMemory: values['in-memory'] ?? false,
    gsiLagMs: values['gsi-lag'] === undefined ? DEFAULT_SERVER_OPTIONS.gsiLagMs : parseCount('--gsi-lag', values['gsi-lag'], 0),
    itemCollectionSizeLimitBytes:
      values['item-collection-size-limit'] === undefined
        ? DEFAULT_SERVER_OPTIONS.itemCollectionSizeLimitBytes
        : parseCount('--item-collection-size-limit', values['item-collection-size-limit'], 1),
  };
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
      process.stderr.write(error.message + '\n');
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
          process.stderr.write(`dynatwin: error while closing: ${String(error)}\n`);
          process.exit(1);
        },
      );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  const server = await starting;
  const store = options.inMemory ? 'memory (not persisted)' : `lmdb at ${options.dataDir}`;
  process.stdout.write(`dynatwin ${packageVersion()} listening on ${server.endpoint} — store: ${store}\n`);
}
