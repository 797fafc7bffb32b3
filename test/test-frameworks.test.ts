/**
 * dynatwin/testing under the real frameworks: Vitest and Jest each run a small project
 * (test/fixtures/vitest-project, test/fixtures/jest-project) whose global setup is the helpers and
 * whose test files reach the twin with an SDK client given no endpoint, reset the tables between
 * tests, and (Vitest) move the manual clock past an item's TTL. Each project is copied into a
 * scratch directory with a node_modules of symlinks: `dynatwin` to this package (built, its
 * `exports` as a user gets them), the framework and the SDK to this project's installed copies, so
 * nothing is fetched. The outcome is read from the framework's JSON report: every expected test by
 * name, passed. The README shows the fixtures' files as they are (checked here too).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { scratchDirectories } from './support/scratch.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = join(ROOT, 'test', 'fixtures');
/** A bound on a hang, not a speed test: each run takes about 6-8 s on the shared 2-core machine. */
const RUN_TIMEOUT_MS = 120_000;
const REPORT_FILE = 'report.json';

const scratch = scratchDirectories('dynatwin-frameworks-');
after(() => scratch.removeAll());

interface FrameworkRun {
  readonly project: string;
  /** node_modules entries linked to this project's installed copies (dynatwin is linked to the package itself). */
  readonly packages: readonly string[];
  /** The framework's command, relative to the scratch project. */
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** The report both frameworks write (Vitest's JSON reporter follows Jest's --json shape). */
interface JsonReport {
  readonly success: boolean;
  readonly numFailedTests: number;
  readonly testResults: readonly { readonly name: string; readonly status: string; readonly assertionResults: readonly { readonly title: string; readonly status: string; readonly failureMessages: readonly string[] }[] }[];
}

/** The project copied into a scratch directory whose node_modules links what it imports. */
function scratchProject(run: FrameworkRun): string {
  const directory = scratch.fresh();
  cpSync(join(FIXTURES, run.project), directory, { recursive: true });
  const link = (name: string, target: string): void => {
    mkdirSync(dirname(join(directory, 'node_modules', name)), { recursive: true });
    symlinkSync(target, join(directory, 'node_modules', name), 'dir');
  };
  link('dynatwin', ROOT);
  for (const name of run.packages) link(name, join(ROOT, 'node_modules', name));
  return directory;
}

/** The environment without the AWS and dynatwin settings of whoever runs the suite: the helpers set them. */
function cleanEnvironment(extra: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('AWS_') && !name.startsWith('DYNATWIN_') && name !== 'NODE_OPTIONS') env[name] = value;
  }
  return { ...env, CI: '1', ...extra };
}

/** Runs the framework on its project; answers its JSON report and what it printed. */
function runFramework(run: FrameworkRun): Promise<{ report: JsonReport; output: string }> {
  const directory = scratchProject(run);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, run.command, { cwd: directory, env: cleanEnvironment(run.env), timeout: RUN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const output = `${stdout}\n${stderr}`;
      try {
        resolve({ report: JSON.parse(readFileSync(join(directory, REPORT_FILE), 'utf8')) as JsonReport, output });
      } catch (cause) {
        reject(new Error(`no JSON report (${String(error ?? cause)}); output:\n${output}`));
      }
    });
  });
}

/** Every test of the report, `file › title: status`, sorted. */
function outcomes(report: JsonReport): string[] {
  return report.testResults.flatMap((file) => file.assertionResults.map((result) => `${file.name.split('/').at(-1)} › ${result.title}: ${result.status}`)).sort();
}

function failures(report: JsonReport): string {
  return report.testResults.flatMap((file) => file.assertionResults.flatMap((result) => result.failureMessages)).join('\n');
}

describe('dynatwin/testing in Vitest and Jest projects', { timeout: 3 * RUN_TIMEOUT_MS }, () => {
  test('Vitest: globalSetup with init tables and a manual clock; resetTables() and advanceClock() in the test file', async () => {
    const { report, output } = await runFramework({
      project: 'vitest-project',
      packages: ['vitest', '@aws-sdk/client-dynamodb'],
      command: ['node_modules/vitest/vitest.mjs', 'run', '--reporter=json', `--outputFile=${REPORT_FILE}`],
      env: {},
    });
    assert.equal(report.numFailedTests, 0, failures(report) + output);
    assert.deepEqual(outcomes(report), [
      'users.test.js › a test writes: passed',
      'users.test.js › an item expires when the manual clock passes its TTL: passed',
      'users.test.js › the next test sees the seeded items only: passed',
    ]);
    assert.equal(report.success, true, output);
  });

  test('Jest: globalSetup and globalTeardown modules, ES module test files, resetTables() in beforeEach', async () => {
    const { report, output } = await runFramework({
      project: 'jest-project',
      packages: ['jest', '@aws-sdk/client-dynamodb'],
      // Its cache in the scratch project, removed with it (the default is a jest_* directory in the system's tmp).
      command: ['node_modules/jest/bin/jest.js', '--ci', '--cacheDirectory=.jest-cache', '--json', `--outputFile=${REPORT_FILE}`],
      // Jest runs ES module test files only with node's VM modules (README says so).
      env: { NODE_OPTIONS: '--experimental-vm-modules' },
    });
    assert.equal(report.numFailedTests, 0, failures(report) + output);
    assert.deepEqual(outcomes(report), ['orders.test.js › a test makes a table and queries it: passed', 'orders.test.js › the next test starts with no tables: passed']);
    assert.equal(report.success, true, output);
    // The teardown closed the twin: Jest did not have to be forced out with a server still listening.
    assert.doesNotMatch(output, /did not exit one second after the test run/);
  });

  test("the README shows each project's files as they are", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((match) => match[1]!);
    for (const project of ['vitest-project', 'jest-project']) {
      for (const file of readdirSync(join(FIXTURES, project))) {
        if (file === 'package.json') continue;
        const comment = file.endsWith('.yaml') ? '#' : '//';
        const shown = `${comment} ${project.replace('-project', '')}: ${file}\n${readFileSync(join(FIXTURES, project, file), 'utf8')}`;
        assert.ok(blocks.includes(shown), `the README shows ${project}/${file} as it is:\n${shown}`);
      }
    }
  });
});
