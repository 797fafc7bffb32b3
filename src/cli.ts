/**
 * The `dynatwin` command: parse flags, start the server, print a one-line banner, and shut down
 * cleanly (in-flight writes committed, store closed) on SIGINT or SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { applyOptionValues } from './apply-options.js';
import { CONFIG_FILE_VARIABLE, DEFAULT_CONFIG_FILE, formatConfiguration, resolveConfiguration, type Configuration, type FlagValues } from './config.js';
import { cliSpecs, OptionError, optionsHelp, type OptionValues } from './options.js';
import { shippedPath } from './package-files.js';
import { InitError } from './server/init-tables.js';
import { BrowserAccess } from './server/browser-access.js';
import { StartupError } from './server/data-dir.js';
import { DEFAULT_SERVER_OPTIONS, startServer, StoreStartupError, type ServerOptions } from './server/server.js';
import { redactStoreUrl } from './storage/postgres-url.js';

/** --help; the paths it names are where this installation keeps them. */
function help(): string {
  return `Usage: dynatwin [options]
       dynatwin simulate <scenario.json> | --example <name> [--json <file>] [--report <file>.html]   (${shippedPath('docs/SCENARIOS.md')})
       dynatwin examples [<name>]   (list the shipped scenarios; copy one here)
       dynatwin shards --partitions <N> [--values v=w,...]   (random shards a GSI key needs)
       dynatwin analyze --endpoint <url> --table <name>   (findings for a running twin's table)
       dynatwin recover --data-dir <dir> [--dry-run]   (a damaged write-ahead log: keep the intact prefix, move the rest aside)
       dynatwin config [options]   (the effective settings and where each came from)

A DynamoDB-compatible server that models partitions, capacity and throttling.

Every option is also an environment variable (DYNATWIN_ and the flag in capitals: DYNATWIN_PORT,
DYNATWIN_DATA_DIR) and a key of a config file (--config <file>, or ${DEFAULT_CONFIG_FILE} in the
working directory; YAML or JSON; keys as the flags without dashes: "port: 8000"). Precedence:
flag > environment > config file > default.

Options:
  --config <file>
        read settings from this YAML or JSON file (also ${CONFIG_FILE_VARIABLE}) [default
        ${DEFAULT_CONFIG_FILE} in the working directory, when there is one]
${optionsHelp()}
  --version
        print the version and exit
  --help
        print this help and exit
`;
}

export function packageVersion(): string {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return packageJson.version;
}

export class UsageError extends Error {}

/** The flags, parsed strictly against the option table; throws UsageError. */
function parseFlags(argv: readonly string[]): FlagValues {
  const specs = cliSpecs();
  try {
    return parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        ...Object.fromEntries(specs.map((spec) => [spec.flag, spec.kind === 'boolean' ? { type: 'boolean' as const } : { type: 'string' as const, multiple: spec.kind === 'strings' }])),
        config: { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    // One line: Node's message names the flag; --help lists them all.
    throw new UsageError(`${(error instanceof Error ? error.message : String(error)).split('\n')[0]} (dynatwin --help lists the flags)`);
  }
}

/** Every setting with its source (flag > environment > config file > default); throws UsageError. */
export function commandLineConfiguration(argv: readonly string[], environment: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Configuration {
  const flags = parseFlags(argv);
  try {
    return resolveConfiguration(flags, environment, cwd);
  } catch (error) {
    if (error instanceof OptionError) throw new UsageError(error.message);
    throw error;
  }
}

export function parseCommandLine(argv: readonly string[], environment: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): ServerOptions | 'help' | 'version' {
  const flags = parseFlags(argv);
  if (flags['help'] === true) return 'help';
  if (flags['version'] === true) return 'version';
  const configuration = commandLineConfiguration(argv, environment, cwd);
  const values: OptionValues = { top: new Map(), capacitySettings: new Map() };
  let inMemory = false;
  for (const setting of configuration.settings) {
    if (setting.spec.flag === 'in-memory') inMemory = setting.value === true;
    if (setting.kind === 'default' || setting.value === undefined) continue;
    (setting.spec.group === 'capacitySettings' ? values.capacitySettings : values.top).set(setting.spec.name, setting.value);
  }
  return { ...applyOptionValues(DEFAULT_SERVER_OPTIONS, values), inMemory };
}

export async function main(argv: readonly string[]): Promise<void> {
  // A verb of its own, with its own flags: nothing of the server starts.
  if (argv[0] === 'simulate') {
    const { runSimulateCommand } = await import('./scenarios/command.js');
    process.exitCode = await runSimulateCommand(argv.slice(1));
    return;
  }
  if (argv[0] === 'shards') {
    const { runShardsCommand } = await import('./scenarios/shards-command.js');
    process.exitCode = runShardsCommand(argv.slice(1));
    return;
  }
  if (argv[0] === 'examples') {
    const { runExamplesCommand } = await import('./scenarios/examples-command.js');
    process.exitCode = runExamplesCommand(argv.slice(1));
    return;
  }
  if (argv[0] === 'config') {
    process.exitCode = printConfiguration(argv.slice(1));
    return;
  }
  if (argv[0] === 'analyze') {
    const { runAnalyzeCommand } = await import('./scenarios/analyze-command.js');
    process.exitCode = await runAnalyzeCommand(argv.slice(1));
    return;
  }
  if (argv[0] === 'recover') {
    const { runRecoverCommand } = await import('./recover-command.js');
    process.exitCode = await runRecoverCommand(argv.slice(1));
    return;
  }
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
    process.stdout.write(help());
    return;
  }
  if (options === 'version') {
    process.stdout.write(packageVersion() + '\n');
    return;
  }
  // Signal handlers come first: a supervisor may signal us the moment the banner appears (or
  // before), and the default action would skip closing the store.
  // Tests only (the crash test): disk faults injected into the store (storage/fault-injection.ts).
  const storeFaults = process.env['DYNATWIN_STORE_FAULTS'];
  const starting = startServer(storeFaults === undefined || storeFaults === '' ? options : { ...options, storeFaults });
  const shutdown = (signal: string): void => {
    process.stdout.write(`dynatwin: ${signal} received, closing\n`);
    starting
      .then((server) => server.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          // A failed start-up was reported by main already.
          if (!(error instanceof StartupError) && !(error instanceof InitError)) process.stderr.write(`dynatwin: error while closing: ${String(error)}\n`);
          process.exit(1);
        },
      );
  };
  // Once: a second signal (either) takes the default action and ends the process at once, for
  // when the orderly close (up to --shutdown-wait for requests already taken) is not wanted.
  const onSigint = (): void => onSignal('SIGINT');
  const onSigterm = (): void => onSignal('SIGTERM');
  const onSignal = (signal: string): void => {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    shutdown(signal);
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  let server;
  try {
    server = await starting;
  } catch (error) {
    if (!(error instanceof StartupError) && !(error instanceof InitError)) throw error;
    process.stderr.write(`dynatwin: ${error.message}\n`);
    // A bad --init file, or a --store that cannot be used, is bad input, as a bad flag is.
    process.exitCode = error instanceof InitError || error instanceof StoreStartupError ? 2 : 1;
    return;
  }
  // 'flush' is the default and needs no mention; 'commit' trades power-loss safety for speed.
  const durabilityNote = options.durability === 'commit' ? ' (durability: commit)' : '';
  const store = options.store !== undefined ? `postgres at ${redactStoreUrl(options.store)}` : options.inMemory ? 'memory (not persisted)' : `lmdb at ${options.dataDir}${durabilityNote}`;
  // Only a manual clock is worth a mention: time then stands still until someone advances it.
  const clockNote = options.clock === 'manual' ? ' — clock: manual' : '';
  const authNote = options.auth === 'verify' ? ' — auth: SigV4 signatures verified' : '';
  // Widened browser access is the user's explicit choice, and stays visible.
  const access = new BrowserAccess(options.host, options.browserAccess).describeWidening();
  const accessNote = access === '' ? '' : ` — ${access}`;
  // A self-signed certificate is only useful once a client trusts it: say which file to trust.
  const tlsNote = server.certificatePath === undefined || server.certificate === undefined ? '' : ` — certificate: ${server.certificatePath}`;
  process.stdout.write(`dynatwin ${packageVersion()} listening on ${server.endpoint} — store: ${store}${clockNote}${authNote}${accessNote}${tlsNote}\n`);
  // Printed once: the routes beside the DynamoDB API take it (inspection-auth.ts). The dashboard's
  // link carries it after '#', which the browser never sends; the page keeps it for its fetches.
  if (server.inspectionToken !== undefined) {
    process.stdout.write(
      `dynatwin inspection token (--auth verify covers /dynatwin/... and /metrics): ${server.inspectionToken} — dashboard: ${server.endpoint}/dynatwin/#token=${encodeURIComponent(server.inspectionToken)} — other clients: Authorization: Bearer <token>\n`,
    );
  }
}

/** `dynatwin config [options]`: what a server started with these options would use, and why. */
function printConfiguration(argv: readonly string[]): number {
  try {
    if (argv.includes('--help') || argv.includes('-h')) {
      process.stdout.write('Usage: dynatwin config [options]\n\nPrints the settings a server started with these options (and this environment and config file)\nwould use, each with where it came from. The options are the server\'s: dynatwin --help.\n');
      return 0;
    }
    process.stdout.write(formatConfiguration(commandLineConfiguration(argv)));
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`dynatwin config: ${error.message}\n`);
    return 2;
  }
}
