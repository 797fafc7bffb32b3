/**
 * What the `dynatwin <command>` subcommands (simulate, analyze, shards) share: strict flag
 * parsing, `--help`, and bad input as one line on stderr with exit code 2, never a stack trace.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Parsed<O extends FlagOptions> = ReturnType<typeof parseArgs<{ args: string[]; strict: true; allowPositionals: boolean; options: O }>>;

export type CommandIo = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };

/** The exit code of bad input (a flag, a file); 1 is a failure of the work itself. */
export const EXIT_USAGE = 2;

/** Reports bad input as `dynatwin <command>: <message>`; answers the exit code. */
export function usageError(io: CommandIo, command: string, message: string): number {
  io.stderr.write(`dynatwin ${command}: ${message}\n`);
  return EXIT_USAGE;
}

type FlagOptions = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses the flags of `dynatwin <command>` (strict: an unknown flag is an error). Answers the
 * parsed flags, or the exit code when the command is done already: 0 once `--help` printed
 * `help`, EXIT_USAGE once a bad flag was reported.
 */
export function parseSubcommand<O extends FlagOptions>(
  command: string,
  argv: readonly string[],
  spec: { readonly options: O; readonly help: string; readonly positionals?: boolean },
  io: CommandIo,
): Parsed<O> | number {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], strict: true, allowPositionals: spec.positionals ?? false, options: spec.options });
  } catch (error) {
    return usageError(io, command, `${(error instanceof Error ? error.message : String(error)).split('\n')[0]} (dynatwin ${command} --help lists the flags)`);
  }
  if ((parsed.values as Record<string, unknown>)['help'] === true) {
    io.stdout.write(spec.help);
    return 0;
  }
  return parsed;
}
