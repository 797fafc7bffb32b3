/**
 * The data directory through the real CLI: one server per directory, and every way a directory
 * can be unusable ends start-up at once with one `dynatwin:` line, a non-zero exit and nothing
 * created.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { startDynatwin } from '../src/index.js';
import { dataDirError, StartupError } from '../src/server/data-dir.js';
import { runCli, startServerProcess, type CliOutcome } from './support/process.js';
import { scratchDirectories } from './support/scratch.js';

/** The failure is one `dynatwin:` line on stderr, nothing on stdout, and the given exit code. */
function assertOneLineFailure(outcome: CliOutcome, status: number, pattern: RegExp): void {
  assert.equal(outcome.status, status, `exit status; stderr: ${outcome.stderr}`);
  assert.equal(outcome.stdout, '');
  const lines = outcome.stderr.split('\n').filter((line) => line !== '');
  assert.equal(lines.length, 1, `one line on stderr, got: ${outcome.stderr}`);
  assert.match(lines[0]!, /^dynatwin: /);
  assert.match(lines[0]!, pattern);
}

describe('data directory', () => {
  const scratch = scratchDirectories('dynatwin-data-dir-');
  after(() => scratch.removeAll());

  test('a second server on the same directory exits at once, naming the directory and the first server', async () => {
    const parent = scratch.fresh();
    const dataDir = join(parent, 'store');
    const first = await startServerProcess(['--data-dir', dataDir]);
    try {
      symlinkSync(dataDir, join(parent, 'link'));
      // The same directory under three spellings: as given, through a symlink, relative.
      // The same directory under three spellings: as given, through a symlink, relative. The
      // message names it as this server was given it, made absolute.
      for (const [spelling, cwd, named] of [
        [dataDir, undefined, dataDir],
        [join(parent, 'link'), undefined, join(parent, 'link')],
        [relative(parent, dataDir), parent, dataDir],
      ] as const) {
        const second = await runCli(['--port', '0', '--data-dir', spelling], { cwd });
        assertOneLineFailure(second, 1, /is in use by another dynatwin/);
        assert.ok(second.stderr.includes(`--data-dir ${named} is in use by another dynatwin (pid ${first.child.pid})`), second.stderr);
      }
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
    // Stopped cleanly, the directory is free again.
    const next = await startServerProcess(['--data-dir', dataDir]);
    next.child.kill('SIGTERM');
    assert.equal(await next.exited, 0);
  });

  test('a server killed with kill -9 leaves no stale lock behind', async () => {
    const dataDir = scratch.fresh();
    const first = await startServerProcess(['--data-dir', dataDir]);
    first.child.kill('SIGKILL');
    assert.equal(await first.exited, 'SIGKILL');
    const second = await startServerProcess(['--data-dir', dataDir]);
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });

  test('the library takes the same lock: a second startDynatwin on a directory is refused', async () => {
    const dataDir = scratch.fresh();
    const twin = await startDynatwin({ dataDir });
    try {
      await assert.rejects(startDynatwin({ dataDir }), (error: unknown) => {
        assert.ok(error instanceof StartupError);
        assert.match(error.message, new RegExp(`in use by another dynatwin \\(pid ${process.pid}\\)`));
        return true;
      });
    } finally {
      await twin.close();
    }
    const again = await startDynatwin({ dataDir });
    await again.close();
  });

  test('a path where mkdir fails with ENOENT (/proc/x) ends start-up instead of looping', { skip: !existsSync('/proc/self') }, async () => {
    const outcome = await runCli(['--port', '0', '--data-dir', '/proc/dynatwin-test/x']);
    assertOneLineFailure(outcome, 1, /--data-dir \/proc\/dynatwin-test\/x cannot be created/);
  });

  test('a file in the way: the path itself, or one of its parents', async () => {
    const parent = scratch.fresh();
    const file = join(parent, 'a-file');
    writeFileSync(file, 'not a directory');
    assertOneLineFailure(await runCli(['--port', '0', '--data-dir', file]), 1, /is a file, not a directory/);
    assertOneLineFailure(await runCli(['--port', '0', '--data-dir', join(file, 'below')]), 1, /part of the path is a file/);
    assert.deepEqual(readdirSync(parent), ['a-file']);
  });

  test('a directory this user cannot write in', async (context) => {
    // root writes anywhere on a writable file system; sysfs refuses even root.
    const isRoot = process.getuid?.() === 0;
    if (isRoot && !existsSync('/sys/kernel')) return context.skip('running as root without /sys');
    let dataDir = '/sys/dynatwin-test';
    if (!isRoot) {
      const locked = join(scratch.fresh(), 'locked');
      mkdirSync(locked);
      chmodSync(locked, 0o555);
      dataDir = join(locked, 'store');
    }
    assertOneLineFailure(await runCli(['--port', '0', '--data-dir', dataDir]), 1, /no permission to write in --data-dir .* \((EACCES|EPERM)\)/);
  });

  test('a read-only file system is named as such (the message for EROFS)', () => {
    const error = dataDirError('/mnt/ro/data', Object.assign(new Error("EROFS: read-only file system, mkdir '/mnt/ro/data'"), { code: 'EROFS' }));
    assert.ok(error instanceof StartupError);
    assert.equal(error.message, '--data-dir /mnt/ro/data is on a read-only file system; pick a writable directory, or run with --in-memory');
  });

  test('a port in use ends start-up without creating the data directory or any store file', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const parent = scratch.fresh();
      const missing = join(parent, 'new', 'store');
      assertOneLineFailure(await runCli(['--port', String(port), '--data-dir', missing]), 1, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use`));
      assert.deepEqual(readdirSync(parent), [], 'no directory created');
      const empty = scratch.fresh();
      assertOneLineFailure(await runCli(['--port', String(port), '--data-dir', empty]), 1, /is in use/);
      assert.deepEqual(readdirSync(empty), [], 'no LMDB files created');
    } finally {
      blocker.close();
    }
  });

  test('--in-memory with --data-dir is a usage error', async () => {
    const parent = scratch.fresh();
    const outcome = await runCli(['--in-memory', '--data-dir', join(parent, 'x')]);
    assertOneLineFailure(outcome, 2, /--in-memory .* --data-dir/);
    assert.deepEqual(readdirSync(parent), []);
  });
});
