/**
 * A private PostgreSQL cluster for tests: its own data directory in a temporary directory, trust
 * authentication, a free port on 127.0.0.1 and its unix socket in the same temporary directory, so
 * it touches nothing of the machine's own clusters and goes away whole at stop().
 *
 * PostgreSQL refuses to run as root, so when the tests run as root (CI does) initdb, pg_ctl and the
 * server run as the `postgres` OS user (runuser), which then owns the temporary directory.
 *
 * scripts/run-tests.mjs starts one of these for the whole PostgreSQL pass and hands its URL to the
 * test processes (test/support/test-store.ts); the unit test of this file starts its own.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivatePostgresOptions {
  /**
   * Whether the cluster flushes its writes to disk (fsync, full page writes, synchronous commit).
   * Off makes the functional suite faster and is safe there: a lost machine loses a throw-away
   * cluster. It must stay on for a crash test, which asks what a committed transaction promises.
   */
  readonly fsync?: boolean;
  /** PostgreSQL's max_connections: every twin of a test run holds a pool of connections at once. */
  readonly maxConnections?: number;
}

export interface PrivatePostgres {
  /** A URL of the cluster's `postgres` database as the superuser `postgres` (trust: no password); `schema` adds dynatwin's ?schema=. */
  url(schema?: string): string;
  readonly port: number;
  /** The temporary directory holding the data directory, the socket and the server's log. */
  readonly directory: string;
  /**
   * Restarts the server on the same port and data (pg_ctl restart -m fast: open connections are
   * cut, committed transactions kept): PostgreSQL restarted under a running dynatwin.
   */
  restart(): Promise<void>;
  /** Stops the server (pg_ctl stop -m fast) but keeps its data for resume(): PostgreSQL down. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port and data. */
  resume(): Promise<void>;
  /** Stops the server (immediately: nothing in it is kept) and removes the temporary directory. */
  stop(): Promise<void>;
}

/** A bound on every PostgreSQL program we run, not a speed expectation: initdb on a loaded 2-core machine takes seconds. */
const COMMAND_TIMEOUT_MS = 120_000;
/** pg_ctl's own wait for the server to accept connections (its -t), in seconds; below COMMAND_TIMEOUT_MS. */
const START_WAIT_SECONDS = 90;
/** A free port can be taken by someone else between our probe and the server's bind: tries before giving up. */
const START_ATTEMPTS_MAX = 3;
const MAX_CONNECTIONS_DEFAULT = 300;
/** The server's log lines kept in an error message. */
const LOG_LINES_SHOWN_MAX = 20;

const OS_USER = 'postgres';

/** Starts a private cluster; throws an Error saying what to install when PostgreSQL is missing. */
export async function startPrivatePostgres(options: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
  const binDirectory = postgresBinDirectory();
  const owner = clusterOwner();
  const directory = mkdtempSync(join(tmpdir(), 'dynatwin-pg-'));
  const dataDirectory = join(directory, 'data');
  const socketDirectory = join(directory, 'socket');
  mkdirSync(socketDirectory);
  try {
    if (owner !== undefined) {
      chownSync(directory, owner.uid, owner.gid);
      chownSync(socketDirectory, owner.uid, owner.gid);
    }
    const fsync = options.fsync ?? true;
    await run(owner, join(binDirectory, 'initdb'), ['-D', dataDirectory, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', ...(fsync ? [] : ['--no-sync'])]);
    const port = await startServer(owner, binDirectory, dataDirectory, socketDirectory, directory, fsync, options.maxConnections ?? MAX_CONNECTIONS_DEFAULT);
    let stopping: Promise<void> | undefined;
    const pgCtl = join(binDirectory, 'pg_ctl');
    const log = join(directory, 'server.log');
    const settings = serverSettings(port, socketDirectory, fsync, options.maxConnections ?? MAX_CONNECTIONS_DEFAULT);
    const wait = ['-w', '-t', String(START_WAIT_SECONDS)];
    return {
      port,
      directory,
      url: (schema) => `postgres://postgres@127.0.0.1:${port}/postgres${schema === undefined ? '' : `?schema=${encodeURIComponent(schema)}`}`,
      // The port stays ours while the server is down only by luck; a test that halts it resumes it within seconds.
      restart: () => run(owner, pgCtl, ['-D', dataDirectory, '-l', log, ...wait, '-m', 'fast', '-o', settings, 'restart']),
      halt: () => run(owner, pgCtl, ['-D', dataDirectory, ...wait, '-m', 'fast', 'stop']),
      resume: () => run(owner, pgCtl, ['-D', dataDirectory, '-l', log, ...wait, '-o', settings, 'start']),
      stop: () => (stopping ??= stopCluster(owner, binDirectory, dataDirectory, directory)),
    };
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Where initdb, pg_ctl and postgres are: `pg_config --bindir` when it names a directory holding
 * them (Debian's pg_config may belong to libpq-dev and name /usr/bin, which has no initdb), else
 * the newest /usr/lib/postgresql/<version>/bin (Debian's layout).
 */
export function postgresBinDirectory(): string {
  const candidates: string[] = [];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    // No pg_config: look where Debian puts the server.
  }
  const debianRoot = '/usr/lib/postgresql';
  if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot).filter((name) => /^\d+(\.\d+)?$/.test(name)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => join(debianRoot, version, 'bin')));
  }
  const found = candidates.find((candidate) => ['initdb', 'pg_ctl', 'postgres'].every((program) => existsSync(join(candidate, program))));
  if (found === undefined) {
    throw new Error(`PostgreSQL's server programs (initdb, pg_ctl, postgres) are not installed (looked in ${candidates.join(', ') || 'pg_config --bindir and /usr/lib/postgresql/*/bin'}); install Debian's postgresql package: npm run setup:postgres`);
  }
  return found;
}

/** The environment variable that lets a machine without PostgreSQL skip what needs it (as DYNATWIN_SKIP_BROWSER does Chromium). */
export const SKIP_POSTGRES_VARIABLE = 'DYNATWIN_SKIP_POSTGRES';

/**
 * For a test's `skip`: false when PostgreSQL is installed; a reason when it is not and
 * DYNATWIN_SKIP_POSTGRES=1 says to skip; otherwise false too, so that the test runs and fails with
 * startPrivatePostgres's message saying what to install.
 */
export function postgresAvailability(): false | string {
  try {
    postgresBinDirectory();
    return false;
  } catch (error) {
    if (process.env[SKIP_POSTGRES_VARIABLE] !== '1') return false;
    return `skipped: ${error instanceof Error ? error.message : String(error)} (${SKIP_POSTGRES_VARIABLE}=1)`;
  }
}

interface OsUser {
  readonly uid: number;
  readonly gid: number;
}

/** The `postgres` OS user when we run as root (PostgreSQL will not run as root); undefined otherwise: we run it ourselves. */
function clusterOwner(): OsUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', OS_USER], { encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS }).trim());
    const gid = Number(execFileSync('id', ['-g', OS_USER], { encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS }).trim());
    return { uid, gid };
  } catch {
    throw new Error(`running as root, PostgreSQL must run as another user, and there is no '${OS_USER}' user (Debian's postgresql package makes it: npm run setup:postgres)`);
  }
}

async function startServer(owner: OsUser | undefined, binDirectory: string, dataDirectory: string, socketDirectory: string, directory: string, fsync: boolean, maxConnections: number): Promise<number> {
  const log = join(directory, 'server.log');
  let lastError: unknown;
  for (let attempt = 0; attempt < START_ATTEMPTS_MAX; attempt++) {
    const port = await freePort();
    const settings = serverSettings(port, socketDirectory, fsync, maxConnections);
    try {
      await run(owner, join(binDirectory, 'pg_ctl'), ['-D', dataDirectory, '-l', log, '-w', '-t', String(START_WAIT_SECONDS), '-o', settings, 'start']);
      return port;
    } catch (error) {
      lastError = error;
    }
  }
  throw new Error(`the private PostgreSQL cluster did not start (${START_ATTEMPTS_MAX} tries): ${lastError instanceof Error ? lastError.message : String(lastError)}\n${logTail(log)}`);
}

/** The server's command-line settings (pg_ctl -o), the same at every start of one cluster. */
function serverSettings(port: number, socketDirectory: string, fsync: boolean, maxConnections: number): string {
  return [
    `-p ${port}`,
    `-k ${socketDirectory}`,
    '-c listen_addresses=127.0.0.1',
    `-c max_connections=${maxConnections}`,
    ...(fsync ? [] : ['-c fsync=off', '-c full_page_writes=off', '-c synchronous_commit=off']),
  ].join(' ');
}

async function stopCluster(owner: OsUser | undefined, binDirectory: string, dataDirectory: string, directory: string): Promise<void> {
  try {
    // immediate: nothing of this cluster is kept, so there is nothing to checkpoint.
    await run(owner, join(binDirectory, 'pg_ctl'), ['-D', dataDirectory, '-m', 'immediate', '-w', '-t', String(START_WAIT_SECONDS), 'stop']);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** A port free now on 127.0.0.1 (the server binds it a moment later; see START_ATTEMPTS_MAX). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL program (as `owner` when given), bounded; rejects with its output. */
function run(owner: OsUser | undefined, program: string, args: readonly string[]): Promise<void> {
  const [file, fileArgs] = owner === undefined ? [program, [...args]] : ['runuser', ['-u', OS_USER, '--', program, ...args]];
  return new Promise((resolve, reject) => {
    execFile(file, fileArgs, { timeout: COMMAND_TIMEOUT_MS, cwd: tmpdir(), maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) resolve();
      else reject(new Error(`${program.split('/').pop()} failed (${error.message.split('\n')[0]}): ${`${stdout}${stderr}`.trim().split('\n').slice(-LOG_LINES_SHOWN_MAX).join('\n')}`));
    });
  });
}

function logTail(log: string): string {
  try {
    return `server log (last lines):\n${readFileSync(log, 'utf8').trim().split('\n').slice(-LOG_LINES_SHOWN_MAX).join('\n')}`;
  } catch {
    return 'no server log';
  }
}
