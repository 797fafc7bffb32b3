/**
 * dynatwin as a dependency of someone else's project: `npm pack` holds what a user needs and
 * nothing else, and the packed tarball, installed into a scratch project, runs as a command, from
 * ES modules and CommonJS, and type-checks the README's examples.
 *
 * The scratch project's node_modules is seeded with copies of this project's installed runtime
 * dependencies (lmdb, decimal.js and what they need, with their .bin links) before
 * `npm install --offline <tarball>`: the npm cache that `npm ci` fills holds their tarballs but not
 * the registry metadata an offline install needs to resolve a version range, so npm would
 * otherwise refuse (ENOTCACHED). npm keeps dependencies it finds installed and satisfying, so only
 * dynatwin comes from the tarball, and the install runs on an empty cache of its own: it needs
 * neither the network nor the machine's cache.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const COMMAND_TIMEOUT_MS = 180_000;
const SIGNED_HEADERS = {
  Authorization: 'AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=' + 'a'.repeat(64),
  'X-Amz-Date': '20260101T000000Z',
};

interface PackedFile {
  readonly path: string;
}

/** The installed packages `names` need at run time, from this project's lock file. */
function runtimeClosure(names: readonly string[]): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }>;
  };
  const seen = new Set<string>();
  const queue = [...names];
  while (queue.length > 0) {
    const name = queue.pop()!;
    const entry = lock.packages[`node_modules/${name}`];
    // Optional platform packages of other platforms are in the lock but not installed.
    if (seen.has(name) || entry === undefined || !existsSync(join(ROOT, 'node_modules', name))) continue;
    seen.add(name);
    queue.push(...Object.keys({ ...entry.dependencies, ...entry.optionalDependencies }));
  }
  return [...seen];
}

/**
 * The node_modules/.bin links npm would have made for a copied package: without them npm takes the
 * copy for incomplete and fetches it again, which offline it cannot.
 */
function linkBins(project: string, name: string): void {
  const manifest = JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8')) as { name: string; bin?: string | Record<string, string> };
  const bins = typeof manifest.bin === 'string' ? { [manifest.name.split('/').at(-1)!]: manifest.bin } : (manifest.bin ?? {});
  for (const [bin, target] of Object.entries(bins)) {
    mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(join('..', name, target), join(project, 'node_modules', '.bin', bin));
  }
}

describe('the packed package in a scratch project', { timeout: 10 * COMMAND_TIMEOUT_MS }, () => {
  let scratch: string;
  let project: string;
  let tarball: string;
  let files: string[];
  const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'dynatwin-package-'));
    // The build is npm test's; --ignore-scripts keeps npm pack from rebuilding under the running suite.
    const packed = await run(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], { cwd: ROOT, timeout: COMMAND_TIMEOUT_MS });
    const [report] = JSON.parse(packed.stdout) as [{ filename: string; files: PackedFile[] }];
    tarball = join(scratch, report.filename);
    files = report.files.map((file) => file.path);

    project = join(scratch, 'project');
    for (const name of runtimeClosure(Object.keys(packageJson.dependencies))) {
      cpSync(join(ROOT, 'node_modules', name), join(project, 'node_modules', name), { recursive: true });
      linkBins(project, name);
    }
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'scratch-project', version: '1.0.0', private: true }));
    const cache = join(scratch, 'npm-cache');
    await run(NPM, ['install', '--offline', '--no-audit', '--no-fund', '--cache', cache, tarball], { cwd: project, timeout: COMMAND_TIMEOUT_MS });
  });
  after(() => {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  test('npm pack holds the server, the library with its types, the dashboard, the examples and docs, README and LICENSE, and nothing else', () => {
    const needed = ['package.json', 'README.md', 'LICENSE', 'bin/dynatwin.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/testing.js', 'dist/src/testing.d.ts', 'dist/src/cli.js', 'dist/src/clock.d.ts', 'static/dashboard/index.html', 'docs/SCENARIOS.md', 'docs/HOT-PARTITIONS.md', 'examples/scenarios/status-gsi.json'];
    for (const path of needed) assert.ok(files.includes(path), `${path} is packed`);
    const unexpected = files.filter(
      (path) =>
        !['package.json', 'README.md', 'LICENSE', 'bin/dynatwin.js'].includes(path) &&
        !/^dist\/src\/.+\.(js|d\.ts)$/.test(path) &&
        !path.startsWith('static/dashboard/') &&
        !/^docs\/[^/]+\.md$|^docs\/images\/[^/]+\.png$/.test(path) &&
        !/^examples\/scenarios\/[^/]+\.(json|yaml)$/.test(path),
    );
    assert.deepEqual(unexpected, []);
    // Every compiled module has its declarations.
    for (const path of files.filter((file) => file.endsWith('.js') && file.startsWith('dist/'))) {
      assert.ok(files.includes(path.replace(/\.js$/, '.d.ts')), `${path} has types`);
    }
  });

  test('the installed command starts the server, which answers DynamoDB and serves the dashboard', async () => {
    const bin = join(project, 'node_modules', '.bin', 'dynatwin');
    const version = await run(bin, ['--version'], { cwd: project });
    assert.equal(version.stdout.trim(), packageJson.version);
    const child = spawn(bin, ['--port', '0', '--in-memory'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const endpoint = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString('utf8');
          const match = /listening on (http:\/\/\S+)/.exec(output);
          if (match !== null) resolve(match[1]!);
        });
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
        child.once('exit', () => reject(new Error('dynatwin exited: ' + output)));
      });
      const tables = await fetch(endpoint, {
        method: 'POST',
        headers: { ...SIGNED_HEADERS, 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.ListTables' },
        body: '{}',
      });
      assert.deepEqual(await tables.json(), { TableNames: [] });
      const page = await fetch(`${endpoint}/dynatwin/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<html/i);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });

  /** A script in the scratch project that starts dynatwin, uses it, and prints what it saw. */
  const USE_TWIN = `
  const twin = await startDynatwin({ clock: 'manual' });
  const call = async (operation, body) => {
    const response = await fetch(twin.endpoint, {
      method: 'POST',
      headers: { ...${JSON.stringify(SIGNED_HEADERS)}, 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.' + operation },
      body: JSON.stringify(body),
    });
    return response.json();
  };
  await call('CreateTable', { TableName: 'things', AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' });
  const before = (await call('ListTables', {})).TableNames;
  const startMs = twin.clock.nowMs();
  const advancedMs = twin.clock.advance(1000) - startMs;
  await twin.reset();
  const afterReset = (await call('ListTables', {})).TableNames;
  await twin.close();
  console.log(JSON.stringify({ before, advancedMs, afterReset }));
`;
  const EXPECTED = { before: ['things'], advancedMs: 1000, afterReset: [] };

  const runScript = async (name: string, text: string): Promise<unknown> => {
    writeFileSync(join(project, name), text);
    const { stdout } = await run(process.execPath, [name], { cwd: project, timeout: COMMAND_TIMEOUT_MS });
    return JSON.parse(stdout.trim().split('\n').at(-1)!);
  };

  test('startDynatwin() from an ES module', async () => {
    assert.deepEqual(await runScript('esm.mjs', `import { startDynatwin } from 'dynatwin';\n${USE_TWIN}`), EXPECTED);
  });

  test('startDynatwin() from CommonJS, through import()', async () => {
    assert.deepEqual(await runScript('import.cjs', `(async () => {\n  const { startDynatwin } = await import('dynatwin');\n${USE_TWIN}\n})();`), EXPECTED);
  });

  test('startDynatwin() from CommonJS, through require(), where this Node loads ES modules with require', async (context) => {
    if (process.features.require_module !== true) return context.skip(`Node ${process.version} cannot require() an ES module; import() is the way`);
    assert.deepEqual(await runScript('require.cjs', `const { startDynatwin } = require('dynatwin');\n(async () => {\n${USE_TWIN}\n})();`), EXPECTED);
  });

  test("the README's TypeScript examples type-check against the installed package", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    assert.ok(blocks.length >= 3, `found ${blocks.length} ts blocks`);
    blocks.forEach((block, index) => writeFileSync(join(project, `readme-${index}.mts`), block));
    // The examples import the AWS SDK and Node's types, which a user's project has: linked from here.
    for (const name of ['@aws-sdk', '@types']) symlinkSync(join(ROOT, 'node_modules', name), join(project, 'node_modules', name), 'dir');
    // Vitest and Jest are not linked into this project (test-frameworks.test.ts runs them): their
    // hooks are declared, so what is checked is dynatwin's side of those examples.
    const hooks = `export function beforeAll(fn: () => unknown): void;
      export function afterAll(fn: () => unknown): void;
      export function afterEach(fn: () => unknown): void;
      export function beforeEach(fn: () => unknown): void;
      export function test(name: string, fn: () => unknown): void;
      export function expect(value: unknown): { toEqual(expected: unknown): void };`;
    writeFileSync(join(project, 'test-runners.d.ts'), `declare module 'vitest' {\n${hooks}\n}\ndeclare module '@jest/globals' {\n${hooks}\n}\n`);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'], skipLibCheck: true },
        include: ['*.mts', '*.d.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', project], { cwd: project, timeout: COMMAND_TIMEOUT_MS }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error), failed: true }));
    assert.ok(!('failed' in result), `tsc found errors:\n${result.stdout}`);
  });
  const npx = (args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ stdout: string; stderr: string }> =>
    run(join(project, 'node_modules', '.bin', 'dynatwin'), [...args], { cwd: project, timeout: COMMAND_TIMEOUT_MS, env: { ...process.env, ...env } });

  test('every docs/ and examples/ path that --help, a subcommand\'s help, a report or an error names exists in the installed package', async () => {
    const outputs = [
      (await npx(['--help'])).stdout,
      (await npx(['simulate', '--help'])).stdout,
      (await npx(['analyze', '--help'])).stdout,
      (await npx(['examples'])).stdout,
      await npx(['simulate', 'missing.json']).then(
        () => assert.fail('a missing scenario file is an error'),
        (error: { stderr: string }) => error.stderr,
      ),
    ];
    const named = outputs.flatMap((text) => [...text.matchAll(/(?:[\w./-]*\/)?(?:docs|examples)\/[\w./-]+\.(?:md|json|yaml)/g)].map((match) => match[0]));
    assert.ok(named.some((path) => path.endsWith('docs/SCENARIOS.md')), `--help names docs/SCENARIOS.md: ${named.join(', ')}`);
    for (const path of named) assert.ok(existsSync(join(project, path)) || existsSync(path), `${path} exists in the installed project`);
    assert.ok(named.every((path) => !path.startsWith('docs/') && !path.startsWith('examples/')), `paths are followable from the project: ${named.join(', ')}`);
  });

  test('npx dynatwin simulate --example status-gsi --report r.html runs a shipped example and says where it wrote', async () => {
    // --duration keeps it short: the first throttle of the status GSI comes at about 81 s.
    const { stdout } = await npx(['simulate', '--example', 'status-gsi', '--duration', '100', '--quiet', '--report', 'r.html', '--json', 'r.json']);
    assert.match(stdout, /Variant status-gsi/);
    assert.match(stdout, /first throttle: 8\d\.\d s/);
    assert.ok(stdout.includes(`HTML report written to ${join(project, 'r.html')}\n`), stdout);
    assert.ok(stdout.includes(`JSON written to ${join(project, 'r.json')}\n`), stdout);
    const page = readFileSync(join(project, 'r.html'), 'utf8');
    assert.match(page, /<html/i);
    // The report's footer names the scenario guide as the reader in this project can follow it.
    const named = [...page.matchAll(/(?:[\w./-]*\/)?(?:docs|examples)\/[\w./-]+\.(?:md|json|yaml)/g)].map((match) => match[0]);
    assert.deepEqual(named, ['node_modules/dynatwin/docs/SCENARIOS.md'], `paths the report names: ${named.join(', ')}`);
    assert.ok(existsSync(join(project, named[0]!)));
    const listed = (await npx(['examples'])).stdout;
    for (const name of ['status-gsi', 'gsi-sharding', 'delivery-lists', 'date-keyed-log']) assert.match(listed, new RegExp(`^${name} `, 'm'));
    const copied = await npx(['examples', 'gsi-sharding']);
    assert.match(copied.stdout, /wrote .*gsi-sharding\.json/);
    assert.deepEqual(JSON.parse(readFileSync(join(project, 'gsi-sharding.json'), 'utf8')), JSON.parse(readFileSync(join(ROOT, 'examples', 'scenarios', 'gsi-sharding.json'), 'utf8')));
    await assert.rejects(npx(['examples', 'gsi-sharding']), (error: { code: number; stderr: string }) => error.code === 2 && /exists; --force overwrites it/.test(error.stderr));
  });

  test('a config file, environment variables and --init work from the installed command', async () => {
    writeFileSync(join(project, 'tables.yaml'), 'tables:\n  - TableName: seeded\n    AttributeDefinitions: [{ AttributeName: id, AttributeType: S }]\n    KeySchema: [{ AttributeName: id, KeyType: HASH }]\n    BillingMode: PAY_PER_REQUEST\n    Items: [{ id: { S: one } }]\n');
    writeFileSync(join(project, 'dynatwin.yaml'), 'init: tables.yaml\nclock: manual\nport: 8000\n');
    const shown = (await npx(['config'], { DYNATWIN_IN_MEMORY: 'true', DYNATWIN_PORT: '0' })).stdout;
    assert.match(shown, /^port +0 +environment DYNATWIN_PORT$/m);
    assert.match(shown, /^clock +manual +file .*dynatwin\.yaml$/m);
    const child = spawn(join(project, 'node_modules', '.bin', 'dynatwin'), [], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DYNATWIN_IN_MEMORY: 'true', DYNATWIN_PORT: '0' } });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const banner = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Uint8Array) => {
          output += chunk.toString();
          if (output.includes('\n')) resolve(output);
        });
        child.stderr.on('data', (chunk: Uint8Array) => (output += chunk.toString()));
        child.once('exit', () => reject(new Error('dynatwin exited: ' + output)));
      });
      assert.match(banner, /store: memory .* clock: manual/);
      const endpoint = /listening on (http:\/\/\S+)/.exec(banner)![1]!;
      const scan = await fetch(endpoint, {
        method: 'POST',
        headers: { ...SIGNED_HEADERS, 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.Scan' },
        body: JSON.stringify({ TableName: 'seeded' }),
      });
      assert.deepEqual(((await scan.json()) as { Items: unknown[] }).Items, [{ id: { S: 'one' } }]);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
    rmSync(join(project, 'dynatwin.yaml'));
  });

  test('the types compile in a project with only typescript: no @types/node; the manual clock typed without annotations; dynatwin/testing', async () => {
    const typesProject = join(scratch, 'types-only');
    mkdirSync(join(typesProject, 'node_modules'), { recursive: true });
    symlinkSync(join(project, 'node_modules', 'dynatwin'), join(typesProject, 'node_modules', 'dynatwin'), 'dir');
    writeFileSync(
      join(typesProject, 'use.mts'),
      `import { startDynatwin, type Dynatwin, type ManualClock } from 'dynatwin';
import { dynatwinEndpoint, globalSetup, resetTables, setup, teardown } from 'dynatwin/testing';
const twin = await startDynatwin({ clock: 'manual', init: 'tables.yaml' });
const movedMs: number = twin.clock.advance(1000);
let later: Dynatwin<ManualClock>;
later = await startDynatwin({ clock: 'manual' });
later.clock.advance(movedMs);
let plain: Dynatwin;
plain = await startDynatwin();
await Promise.all([twin.close(), later.close(), plain.close()]);
export default globalSetup({ clock: 'manual' });
export { setup, teardown };
const endpoint: string = dynatwinEndpoint();
await resetTables(endpoint);
`,
    );
    writeFileSync(join(typesProject, 'package.json'), JSON.stringify({ name: 'types-only', private: true, type: 'module' }));
    writeFileSync(
      join(typesProject, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: [], skipLibCheck: false }, include: ['*.mts'] }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', typesProject], { cwd: typesProject, timeout: COMMAND_TIMEOUT_MS }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error), failed: true }));
    assert.ok(!('failed' in result), `tsc found errors:\n${result.stdout}`);
  });
});
