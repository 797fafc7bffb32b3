/**
 * Import directions across src/: layers import downwards only (docs/ARCHITECTURE.md).
 *
 *   cli, index → options → server → operations → partiql → engine → {expressions, capacity, metrics, storage} → model → errors
 *
 * clock and errors are leaves every layer may use; the four layers under the engine know nothing
 * of each other. Reads the TypeScript sources (relative imports, `import type` included: a type
 * import is a dependency on the other layer's knowledge too).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** dist/test → the repository root. */
const root = [resolve(here, '..', '..'), resolve(here, '..')].find((candidate) => {
  try {
    return readdirSync(join(candidate, 'src')).includes('engine');
  } catch {
    return false;
  }
})!;
const src = join(root, 'src');

/** Imported from anywhere: time, errors, and where the package's shipped files are (package-files.ts). */
const LEAVES = ['clock', 'errors', 'package-files'];
const BELOW_ENGINE = ['expressions', 'capacity', 'metrics', 'storage', 'streams'];

/** What each layer may import (besides itself). */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  cli: ['config', 'apply-options', 'recover-command', 'options', 'server', 'cloudwatch', 'autoscaling', 'scenarios', 'index', 'operations', 'partiql', 'engine', ...BELOW_ENGINE, 'model', ...LEAVES],
  index: ['apply-options', 'options', 'server', 'cloudwatch', 'autoscaling', 'operations', 'partiql', 'engine', ...BELOW_ENGINE, 'model', ...LEAVES],
  /** `dynatwin/testing` (src/testing.ts): the library for test frameworks' global set-up. */
  testing: ['index', 'options', 'server', 'model', ...LEAVES],
  /** `dynatwin recover` (src/recover-command.ts): the log's survey and the catalog's key layout. */
  'recover-command': ['scenarios', 'server', 'engine', ...BELOW_ENGINE, 'model', ...LEAVES],
  /** Settings from the environment and a config file (src/config.ts), read against the options table. */
  config: ['options', ...LEAVES],
  /** Option values into the server's options (src/apply-options.ts). */
  'apply-options': ['options', 'server', 'capacity', 'model', ...LEAVES],
  /** The settings table shared by the CLI and the library (src/options.ts). */
  options: ['server', 'cloudwatch', 'autoscaling', 'operations', 'partiql', 'engine', ...BELOW_ENGINE, 'model', ...LEAVES],
  /** `dynatwin simulate` (src/scenarios/): above the operations and auto scaling (a variant's targets run by the server's own code), beside the server. */
  scenarios: ['autoscaling', 'operations', 'partiql', 'engine', ...BELOW_ENGINE, 'model', ...LEAVES],
  server: ['cloudwatch', 'autoscaling', 'operations', 'partiql', 'engine', ...BELOW_ENGINE, 'model', ...LEAVES],
  /** Application Auto Scaling (src/autoscaling/): above the operations (it scales through UpdateTable), below the server. */
  /** CloudWatch's API (src/cloudwatch/): the metrics and auto scaling's alarms, below the server. */
  cloudwatch: ['autoscaling', 'operations', 'partiql', 'engine', ...BELOW_ENGINE, 'model', ...LEAVES],
  autoscaling: ['operations', 'partiql', 'engine', ...BELOW_ENGINE, 'model', ...LEAVES],
  operations: ['partiql', 'engine', ...BELOW_ENGINE, 'model', ...LEAVES],
  partiql: ['engine', ...BELOW_ENGINE, 'model', ...LEAVES],
  engine: [...BELOW_ENGINE, 'model', ...LEAVES],
  expressions: ['model', ...LEAVES],
  capacity: ['model', ...LEAVES],
  metrics: ['model', ...LEAVES],
  storage: ['model', ...LEAVES],
  /** DynamoDB Streams: called by the engine, built on the store (src/streams/). */
  streams: ['storage', 'model', ...LEAVES],
  model: [...LEAVES],
  clock: [],
  errors: [],
  'package-files': [],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `src/engine/items.ts` → engine; `src/cli.ts` → cli. */
function layerOf(file: string): string {
  const [first] = relative(src, file).split(/[\\/]/);
  return first!.replace(/\.[jt]s$/, '');
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((match) => (match[1] ?? match[2])!);
}

test('every layer of src/ imports only the layers below it', () => {
  const files = sourceFiles(src);
  assert.ok(files.length > 50, 'the sources were found');
  const violations: string[] = [];
  for (const file of files) {
    const from = layerOf(file);
    const allowed = ALLOWED[from];
    assert.ok(allowed !== undefined, `${relative(root, file)} is in a layer the rules do not know: add it to ALLOWED`);
    for (const specifier of importsOf(file)) {
      const to = layerOf(resolve(dirname(file), specifier));
      if (to !== from && !allowed.includes(to)) violations.push(`${relative(root, file)} (${from}) imports ${specifier} (${to})`);
    }
  }
  assert.deepEqual(violations, []);
});

test('in particular: metrics never imports the engine, partiql never the operations', () => {
  const offenders = sourceFiles(src).flatMap((file) => {
    const from = layerOf(file);
    return importsOf(file)
      .map((specifier) => layerOf(resolve(dirname(file), specifier)))
      .filter((to) => (from === 'metrics' && to === 'engine') || (from === 'partiql' && to === 'operations'))
      .map((to) => `${relative(root, file)} → ${to}`);
  });
  assert.deepEqual(offenders, []);
});

/**
 * Operations decide what to read and write; the engine reads, sizes and admits (engine/reads.ts,
 * engine/write-pipeline.ts). An operation that imports the store, touches `engine.storage`, reads
 * a page itself or admits demands has bypassed that one path.
 */
test('operations never reach into storage nor size or admit a read themselves', () => {
  const operations = sourceFiles(join(src, 'operations'));
  assert.ok(operations.length > 30, 'the operations were found');
  const offenders: string[] = [];
  for (const file of operations) {
    const name = relative(root, file);
    for (const specifier of importsOf(file)) {
      const target = relative(src, resolve(dirname(file), specifier)).replace(/\\/g, '/');
      if (layerOf(resolve(dirname(file), specifier)) === 'storage') offenders.push(`${name} imports ${specifier} (storage)`);
      if (/^engine\/(admit|demands)\.[jt]s$/.test(target)) offenders.push(`${name} imports ${specifier} (admission is the engine's)`);
    }
    const text = readFileSync(file, 'utf8');
    if (/\.storage\b/.test(text.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, ''))) offenders.push(`${name} uses a store (.storage)`);
    if (/\breadPage\b/.test(text)) offenders.push(`${name} reads a page itself (readPage)`);
    if (/\breadUnits\s*\(/.test(text)) offenders.push(`${name} sizes a read itself (readUnits)`);
  }
  assert.deepEqual(offenders, []);
});
