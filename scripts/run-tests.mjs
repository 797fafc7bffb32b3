#!/usr/bin/env node
// The test runner behind `npm test` (after the build): the whole suite on the embedded stores and,
// beside it, the tests that start twins through the test support again with every such twin on PostgreSQL,
// a fresh schema each, of ONE private cluster started here for the pass (test/support/postgres.ts)
// and removed at its end. Its URL reaches the test processes in DYNATWIN_TEST_POSTGRES_URL and
// DYNATWIN_TEST_STORE=postgres tells test/support/test-store.ts to use it.
//
//   node scripts/run-tests.mjs [--store both|embedded|postgres] [--concurrency <n>] [--list] [files...]
//
// Files (dist/test/...js) run those only, on the pass(es) asked; without them every
// dist/test/**/*.test.js runs on the embedded pass, and on the PostgreSQL pass those that import
// test/support/test-store.js (directly or through other support modules): the files that can start
// a twin on the suite's store. Tests there that cannot apply to PostgreSQL skip themselves, saying
// why (embeddedStoreOnly). Without PostgreSQL installed the PostgreSQL pass fails saying what to
// install, unless DYNATWIN_SKIP_POSTGRES=1 (then it is skipped, loudly). --list prints each pass's
// files and runs nothing.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TEST_DIRECTORY = join(ROOT, 'dist', 'test');
const STORE_SUPPORT = join(TEST_DIRECTORY, 'support', 'test-store.js');
const CONCURRENCY_DEFAULT = 2;
/**
 * The PostgreSQL pass beside the embedded one: one file more at a time, since its test processes
 * spend much of their time asleep waiting for the database (measured: the two passes used about
 * 1.3 of the 2 cores at 2 and 2).
 */
const POSTGRES_EXTRA_CONCURRENCY = 1;
const PASSES = ['both', 'embedded', 'postgres'];

function parseArguments(argv) {
  const options = { store: 'both', concurrency: CONCURRENCY_DEFAULT, list: false, files: [] };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    if (argument === '--store') {
      options.store = argv[++index];
      if (!PASSES.includes(options.store)) usage(`--store must be ${PASSES.join(', ')}; got ${options.store}`);
    } else if (argument === '--concurrency') {
      options.concurrency = Number(argv[++index]);
      if (!Number.isInteger(options.concurrency) || options.concurrency < 1 || options.concurrency > 64) usage('--concurrency must be a whole number from 1 to 64');
    } else if (argument === '--list') {
      options.list = true;
    } else if (argument.startsWith('--')) {
      usage(`unknown option ${argument}`);
    } else {
      options.files.push(resolve(argument));
    }
  }
  return options;
}

function usage(problem) {
  process.stderr.write(`run-tests: ${problem}\nusage: node scripts/run-tests.mjs [--store both|embedded|postgres] [--concurrency <n>] [--list] [files...]\n`);
  process.exit(2);
}

function testFiles(directory) {
  return readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return testFiles(path);
      return entry.name.endsWith('.test.js') ? [path] : [];
    })
    .sort();
}

/** The relative modules a compiled file imports (static and dynamic imports, re-exports). */
function relativeImports(file) {
  const text = readFileSync(file, 'utf8');
  const found = [];
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+\.js)['"]/g)) found.push(resolve(dirname(file), match[1]));
  return found;
}

/** Whether `file` reaches test-store.js through relative imports inside dist/test. */
function startsTwinsOnTheSuiteStore(file, reaching = new Map()) {
  if (file === STORE_SUPPORT) return true;
  if (reaching.has(file)) return reaching.get(file);
  reaching.set(file, false);
  const inside = (path) => path.startsWith(TEST_DIRECTORY) && existsSync(path);
  const result = relativeImports(file).filter(inside).some((imported) => startsTwinsOnTheSuiteStore(imported, reaching));
  reaching.set(file, result);
  return result;
}

/**
 * Runs node --test on `files`; resolves with its exit code. `output` undefined: the child writes to
 * ours; otherwise what it writes is collected there (a pass run beside another is printed whole
 * after it, not interleaved line by line).
 */
function runNodeTest(files, concurrency, environment, output) {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...files], {
      cwd: ROOT,
      stdio: output === undefined ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...environment },
    });
    if (output !== undefined) {
      child.stdout.on('data', (chunk) => output.push(chunk));
      child.stderr.on('data', (chunk) => output.push(chunk));
    }
    child.once('exit', (code, signal) => resolveRun(signal === null ? (code ?? 1) : 1));
  });
}

function seconds(startMs) {
  return `${((performance.now() - startMs) / 1000).toFixed(1)} s`;
}

async function embeddedPass(files, concurrency) {
  process.stdout.write(`\nrun-tests: embedded pass: ${files.length} files\n`);
  const startMs = performance.now();
  const code = await runNodeTest(files, concurrency, { DYNATWIN_TEST_STORE: 'embedded' });
  process.stdout.write(`run-tests: embedded pass ${code === 0 ? 'passed' : 'FAILED'} in ${seconds(startMs)}\n`);
  return code;
}

async function postgresPass(files, concurrency, output) {
  const { postgresAvailability, startPrivatePostgres } = await import(join(TEST_DIRECTORY, 'support', 'postgres.js'));
  const skipped = postgresAvailability();
  if (skipped !== false) {
    process.stdout.write(`\nrun-tests: PostgreSQL pass ${skipped}\n`);
    return 0;
  }
  process.stdout.write(`\nrun-tests: PostgreSQL pass: ${files.length} files, each twin in its own schema of one private cluster\n`);
  const startMs = performance.now();
  // fsync off: a throw-away cluster; the functional suite asks nothing of power loss.
  const cluster = await startPrivatePostgres({ fsync: false });
  process.stdout.write(`run-tests: private PostgreSQL cluster on 127.0.0.1:${cluster.port} (${cluster.directory}), started in ${seconds(startMs)}\n`);
  // A signal to the runner stops the cluster before we go (node --test's children get it too).
  const onSignal = (signal) => {
    cluster.stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const code = await runNodeTest(files, concurrency, { DYNATWIN_TEST_STORE: 'postgres', DYNATWIN_TEST_POSTGRES_URL: cluster.url() }, output);
    if (output !== undefined) process.stdout.write(`\nrun-tests: the PostgreSQL pass's output:\n${Buffer.concat(output).toString()}`);
    process.stdout.write(`run-tests: PostgreSQL pass ${code === 0 ? 'passed' : 'FAILED'} in ${seconds(startMs)}\n`);
    return code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cluster.stop();
  }
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const explicit = options.files.length > 0;
  const all = explicit ? options.files : testFiles(TEST_DIRECTORY);
  const missing = all.filter((file) => !existsSync(file));
  if (missing.length > 0) usage(`no such file: ${missing.map((file) => relative(ROOT, file)).join(', ')} (npm run build first?)`);
  // Files named by hand run as asked; otherwise only those that can put a twin on the store.
  const postgresFiles = explicit ? all : all.filter((file) => startsTwinsOnTheSuiteStore(file));
  if (options.list) {
    const show = (name, files) => process.stdout.write(`${name} (${files.length}):\n${files.map((file) => `  ${relative(ROOT, file)}\n`).join('')}`);
    if (options.store !== 'postgres') show('embedded pass', all);
    if (options.store !== 'embedded') show('PostgreSQL pass', postgresFiles);
    return;
  }
  const startMs = performance.now();
  let codes;
  if (options.store === 'both') {
    // Side by side: the PostgreSQL pass spends much of its time waiting for the database, so the
    // two passes together take little more than the longer one (npm test stays within its
    // 10 minutes on 2 cores). The embedded pass prints as it goes; the other is printed at its end.
    const postgresOutput = [];
    const postgres = postgresPass(postgresFiles, options.concurrency + POSTGRES_EXTRA_CONCURRENCY, postgresOutput);
    const embedded = await embeddedPass(all, options.concurrency);
    codes = [embedded, await postgres];
  } else {
    codes = [options.store === 'embedded' ? await embeddedPass(all, options.concurrency) : await postgresPass(postgresFiles, options.concurrency)];
  }
  const failed = codes.some((code) => code !== 0);
  process.stdout.write(`run-tests: ${failed ? 'FAILED' : 'passed'} (${codes.length} pass${codes.length === 1 ? '' : 'es'}) in ${seconds(startMs)}\n`);
  process.exitCode = failed ? 1 : 0;
}

await main();
