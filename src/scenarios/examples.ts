/**
 * The example scenarios the package ships (examples/scenarios/): listed by `dynatwin examples`,
 * run by `dynatwin simulate --example <name>`, and copied into the working directory by
 * `dynatwin examples <name>` to be edited.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { shippedFile } from '../package-files.js';

/** At most this many shipped examples are read; the package ships a handful. */
const EXAMPLES_MAX = 100;

export interface ShippedExample {
  /** The file name without its extension: `status-gsi`. */
  readonly name: string;
  /** The JSON file's absolute path (a YAML twin of the same name may sit beside it). */
  readonly path: string;
  readonly description: string;
}

export function examplesDirectory(): string {
  return shippedFile('examples/scenarios');
}

/** The shipped examples, by name; the JSON file of each (the YAML copies say the same). */
export function shippedExamples(): ShippedExample[] {
  const directory = examplesDirectory();
  return readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .slice(0, EXAMPLES_MAX)
    .map((file) => {
      const path = join(directory, file);
      return { name: file.slice(0, -'.json'.length), path, description: descriptionOf(path) };
    });
}

/** The example named `name`, or undefined. */
export function findExample(name: string): ShippedExample | undefined {
  return shippedExamples().find((example) => example.name === name);
}

function descriptionOf(path: string): string {
  try {
    const document: unknown = JSON.parse(readFileSync(path, 'utf8'));
    const description = typeof document === 'object' && document !== null ? Reflect.get(document, 'description') : undefined;
    return typeof description === 'string' ? description : '';
  } catch {
    return '';
  }
}
