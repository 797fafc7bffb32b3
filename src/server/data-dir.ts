/**
 * The data directory, before the store opens it: checked without creating anything, and claimed
 * for this process alone.
 *
 * Why a lock: the engine keeps the catalog and partition state in memory, so two servers on one
 * LMDB directory (LMDB itself allows many processes) would each serve their own view of it and
 * drift apart. The lock is a listening local socket whose name is derived from the directory's
 * real path: the kernel frees it the instant its process ends, kill -9 included, so a crash never
 * leaves a stale lock behind, and it answers whoever connects with the holder's pid, so the second
 * server can name the first. On Linux the socket is in the abstract namespace (no file at all);
 * on Windows it is a named pipe; elsewhere a socket file in the temporary directory, removed when
 * found stale. It is per machine (per network namespace): containers sharing a volume do not see
 * each other's locks.
 */
import { createHash } from 'node:crypto';
import { access, constants, realpath, stat, unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { codeOf, splitExisting } from '../storage/directory.js';

/** Start-up failed for a reason the user can fix; the message is one line saying what to do. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

export interface DataDirClaim {
  /** The directory, absolute. */
  readonly path: string;
  /** Frees the directory for another server. */
  release(): Promise<void>;
}

/** How long a second server waits for the first to say who it is. */
const HOLDER_REPLY_TIMEOUT_MS = 1000;
/** The holder's reply is one short JSON line; anything longer is not a dynatwin. */
const HOLDER_REPLY_BYTES_MAX = 4096;

/**
 * Checks that `dataDir` is, or can become, a writable directory (creating nothing), then takes the
 * lock on it. Throws StartupError with a one-line reason.
 */
export async function claimDataDir(dataDir: string): Promise<DataDirClaim> {
  const path = resolvePath(dataDir);
  const lockName = await checkDataDir(path);
  const server = await takeLock(path, lockName);
  return {
    path,
    release: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

/** Answers the name of the directory's lock. */
async function checkDataDir(path: string): Promise<string> {
  let split;
  try {
    split = await splitExisting(path);
  } catch (error) {
    throw dataDirError(path, error);
  }
  const info = await stat(split.existing);
  if (!info.isDirectory()) {
    throw new StartupError(
      split.missing.length === 0
        ? `--data-dir ${path} is a file, not a directory; pick a directory (it is created if missing)`
        : `--data-dir ${path} cannot be created: ${split.existing} is a file, not a directory`,
    );
  }
  try {
    // What exists must take new files: the store's (data.mdb, lock.mdb) or the missing directories.
    await access(split.existing, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw dataDirError(path, error);
  }
  // Two spellings of one directory (a symlink, ./x and x) must meet on one lock.
  const real = join(await realpath(split.existing), ...split.missing.map((missing) => missing.slice(split.existing.length + 1)));
  return lockName(real);
}

/** The message for a failure to check, create or open the data directory. */
export function dataDirError(path: string, error: unknown): StartupError {
  const code = codeOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  switch (code) {
    case 'EROFS':
      return new StartupError(`--data-dir ${path} is on a read-only file system; pick a writable directory, or run with --in-memory`);
    case 'EACCES':
    case 'EPERM':
      return new StartupError(`no permission to write in --data-dir ${path} (${code}); pick a directory this user can write, or run with --in-memory`);
    case 'ENOTDIR':
    case 'EEXIST':
      return new StartupError(`--data-dir ${path} cannot be a directory: part of the path is a file (${code}); pick another path`);
    case 'ENOENT':
      return new StartupError(`--data-dir ${path} cannot be created here (ENOENT: this file system does not allow new directories); pick a directory on a writable disk`);
    case 'ENOSPC':
      return new StartupError(`no space left on the device of --data-dir ${path}; free some space or pick another directory`);
    case 'ELOOP':
    case 'ENAMETOOLONG':
      return new StartupError(`--data-dir ${path} is not a usable path (${code}); pick a shorter path without symlink loops`);
    default:
      return new StartupError(`cannot use --data-dir ${path}: ${detail.split('\n')[0]}`);
  }
}

function lockName(realPath: string): string {
  const digest = createHash('sha256').update(realPath).digest('hex').slice(0, 32);
  if (process.platform === 'linux') return `\0dynatwin-data-dir-${digest}`;
  if (process.platform === 'win32') return `\\\\.\\pipe\\dynatwin-data-dir-${digest}`;
  return join(tmpdir(), `dynatwin-${digest}.sock`);
}

/** The lock's server: answers every connection with who holds the directory. */
async function takeLock(path: string, name: string): Promise<Server> {
  const reply = JSON.stringify({ pid: process.pid, dataDir: path }) + '\n';
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.end(reply);
  });
  // The lock must not keep a process alive on its own (a library user's test run).
  server.unref();
  const outcome = await listenOn(server, name);
  if (outcome === 'listening') return server;
  const holder = await askHolder(name);
  if (holder === 'nobody' && !name.startsWith('\0') && !name.startsWith('\\\\')) {
    // A socket file left by a process that died: nobody listens on it any more.
    await unlink(name).catch(() => undefined);
    if ((await listenOn(server, name)) === 'listening') return server;
  }
  const who = typeof holder === 'number' ? `another dynatwin (pid ${holder})` : 'another dynatwin';
  throw new StartupError(`--data-dir ${path} is in use by ${who}; stop it, or give this server another --data-dir`);
}

function listenOn(server: Server, name: string): Promise<'listening' | 'in use'> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => {
      if (codeOf(error) === 'EADDRINUSE') resolve('in use');
      else reject(new StartupError(`cannot lock --data-dir (${error.message})`));
    };
    server.once('error', onError);
    server.listen(name, () => {
      server.off('error', onError);
      resolve('listening');
    });
  });
}

/** The holder's pid; 'nobody' when nothing listens; 'unknown' when something does but does not say. */
function askHolder(name: string): Promise<number | 'nobody' | 'unknown'> {
  return new Promise((resolve) => {
    const socket = createConnection(name);
    let text = '';
    const finish = (answer: number | 'nobody' | 'unknown'): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish('unknown'), HOLDER_REPLY_TIMEOUT_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > HOLDER_REPLY_BYTES_MAX) finish('unknown');
    });
    socket.on('end', () => finish(pidIn(text)));
    socket.on('error', (error) => finish(codeOf(error) === 'ECONNREFUSED' || codeOf(error) === 'ENOENT' ? 'nobody' : 'unknown'));
  });
}

function pidIn(text: string): number | 'unknown' {
  try {
    const pid: unknown = (JSON.parse(text) as { pid?: unknown }).pid;
    return typeof pid === 'number' && Number.isSafeInteger(pid) ? pid : 'unknown';
  } catch {
    return 'unknown';
  }
}
