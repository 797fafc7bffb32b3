/**
 * The `dynatwin` command: parse flags, start the server, print a one-line banner, and shut down
 * cleanly (in-flight writes committed, store closed) on SIGINT or SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { applyOptionValues, cliSpecs, OptionError, optionsHelp, parseFlagValue, type OptionValues } from './options.js';
import { BrowserAccess } from './server/browser-access.js';
import { StartupError } from './server/data-dir.js';
import { DEFAULT_SERVER_OPTIONS, startServer, type ServerOptions } from './server/server.js';

const HELP = `Usage: dynatwin [options]
       dynatwin simulate <scenario.json> [--json <file>] [--report <file>.html]   (docs/SCENARIOS.md)
       dynatwin shards --partitions <N> [--values v=w,...]   (random shards a GSI key needs)
       dynatwin analyze --endpoint <url> --table <name>   (findings for a running twin's table)
       dynatwin recover --data-dir <dir> [--dry-run]   (a damaged write-ahead log: keep the intact prefix, move the rest aside)

A DynamoDB-compatible server that models partitions, capacity and throttling.

Options:
${optionsHelp()}
  --version
        print the version and exit
  --help
        print this help and exit
`;

export function packageVersion(): string {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return packageJson.version;
}

export class UsageError extends Error {}

export function parseCommandLine(argv: readonly string[]): ServerOptions | 'help' | 'version' {
  const specs = cliSpecs();
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        ...Object.fromEntries(specs.map((spec) => [spec.flag, spec.kind === 'boolean' ? { type: 'boolean' as const } : { type: 'string' as const, multiple: spec.kind === 'strings' }])),
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    // One line: Node's message names the flag; --help lists them all.
    throw new UsageError(`${(error instanceof Error ? error.message : String(error)).split('\n')[0]} (dynatwin --help lists the flags)`);
  }
  const flags: Record<string, string | boolean | (string | boolean)[] | undefined> = parsed.values;
  if (flags.help === true) return 'help';
  if (flags.version === true) return 'version';
  if (flags['in-memory'] === true && flags['data-dir'] !== undefined) {
    throw new UsageError('--in-memory keeps nothing on disk, so --data-dir has no use with it; give one or the other');
  }
  const values: OptionValues = { top: new Map(), capacitySettings: new Map() };
  try {
    for (const spec of specs) {
      const raw = flags[spec.flag];
      if (raw === undefined) continue;
      const value = typeof raw === 'boolean' ? raw : Array.isArray(raw) ? raw.map((text) => parseFlagValue(spec, String(text)) as string) : parseFlagValue(spec, raw);
      (spec.group === 'capacitySettings' ? values.capacitySettings : values.top).set(spec.name, value);
    }
  } catch (error) {
    if (error instanceof OptionError) throw new UsageError(error.message);
    throw error;
  }
  return { ...applyOptionValues(DEFAULT_SERVER_OPTIONS, values), inMemory: flags['in-memory'] === true };
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
    process.stdout.write(HELP);
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
          if (!(error instanceof StartupError)) process.stderr.write(`dynatwin: error while closing: ${String(error)}\n`);
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
