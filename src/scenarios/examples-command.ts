/**
 * `dynatwin examples [<name>] [--force]`: lists the shipped example scenarios, or copies one into
 * the working directory (`<name>.json`) to be edited and run with `dynatwin simulate <name>.json`.
 * An existing file is not overwritten without --force: it may be the user's edited copy.
 */
import { copyFileSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { findExample, shippedExamples } from './examples.js';
import { parseSubcommand, usageError, type CommandIo } from './subcommand.js';

export const EXAMPLES_HELP = `Usage: dynatwin examples            list the example scenarios this package ships
       dynatwin examples <name>     copy one into the working directory as <name>.json

Options:
  --force   overwrite <name>.json if it exists
  --help    print this help and exit

An example runs as it is with dynatwin simulate --example <name>.
`;

export function runExamplesCommand(argv: readonly string[], io: CommandIo = process, cwd: string = process.cwd()): number {
  const parsed = parseSubcommand('examples', argv, { options: { force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, help: EXAMPLES_HELP, positionals: true }, io);
  if (typeof parsed === 'number') return parsed;
  const examples = shippedExamples();
  if (parsed.positionals.length === 0) {
    const width = Math.max(...examples.map((example) => example.name.length));
    for (const example of examples) io.stdout.write(`${example.name.padEnd(width)}  ${example.description}\n`);
    io.stdout.write(`\nRun one: dynatwin simulate --example <name>; copy one here to edit: dynatwin examples <name>\n`);
    return 0;
  }
  if (parsed.positionals.length > 1) return usageError(io, 'examples', 'give one example name at a time');
  const name = parsed.positionals[0]!;
  const example = findExample(name);
  if (example === undefined) return usageError(io, 'examples', `no example named '${name}'; the examples: ${examples.map((shipped) => shipped.name).join(', ')}`);
  const target = resolve(cwd, `${example.name}.json`);
  try {
    copyFileSync(example.path, target, parsed.values.force === true ? 0 : constants.COPYFILE_EXCL);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return usageError(io, 'examples', `${target} exists; --force overwrites it`);
    return usageError(io, 'examples', `${target}: cannot write it: ${code ?? String(error)}`);
  }
  io.stdout.write(`wrote ${target}; run it with: dynatwin simulate ${example.name}.json\n`);
  return 0;
}
