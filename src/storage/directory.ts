/**
 * Creating a data directory and its missing parents, one level at a time.
 *
 * Not `mkdir(path, { recursive: true })`: Node's recursive mkdir (libuv's mkdirp) loops forever
 * where a file system answers ENOENT for a name whose parent exists, as /proc does (`/proc/x`):
 * it takes ENOENT to mean "parent missing", creates the parent (EEXIST), and tries the child again
 * without end, at full CPU, in a thread pool thread that no signal handler can stop.
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';

/** No real path is deeper; a deeper walk means a bug, not a path. */
const PATH_DEPTH_MAX = 4096;

/** The path's deepest existing ancestor (the path itself if it exists) and the names below it, top first. */
export interface PathSplit {
  readonly existing: string;
  readonly missing: readonly string[];
}

/** Splits an absolute or relative path into what exists and what mkdir would have to create. */
export async function splitExisting(path: string): Promise<PathSplit> {
  const missing: string[] = [];
  let current = resolvePath(path);
  for (let depth = 0; depth < PATH_DEPTH_MAX; depth++) {
    if (await exists(current)) return { existing: current, missing: missing.reverse() };
    const parent = dirname(current);
    // The root always exists; reaching it here means stat failed for it, which exists() reports.
    if (parent === current) break;
    missing.push(current);
    current = parent;
  }
  throw new Error(`no existing ancestor found for ${path}`);
}

/**
 * Creates `path` and its missing parents; answers the directories it created, top first. Throws
 * the first failing call's error (ENOENT, EROFS, EACCES, ENOTDIR ...) with its code.
 */
export async function makeDirectory(path: string): Promise<readonly string[]> {
  const { existing, missing } = await splitExisting(path);
  const info = await stat(existing);
  if (!info.isDirectory()) throw notADirectory(existing);
  const created: string[] = [];
  for (const directory of missing) {
    try {
      await mkdir(directory);
      created.push(directory);
    } catch (error) {
      // Another process may have created it in between; a directory there is all we need.
      if (codeOf(error) === 'EEXIST' && (await stat(directory)).isDirectory()) continue;
      throw error;
    }
  }
  return created;
}

/**
 * A file of the data directory is damaged (the write-ahead log, its checkpoint mark, LMDB's data
 * file): start-up refuses with this one-line message, which names the file, having changed nothing.
 */
export class DamagedFileError extends Error {}

/** The errno code of a Node system error ('ENOENT' ...), or undefined. */
export function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code: unknown = Reflect.get(error, 'code');
  return typeof code === 'string' ? code : undefined;
}

/** ENOENT answers "not there"; any other failure (ENOTDIR, EACCES, ELOOP ...) is the caller's to report. */
async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return false;
    throw error;
  }
}

function notADirectory(path: string): Error {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: 'ENOTDIR', path });
}
