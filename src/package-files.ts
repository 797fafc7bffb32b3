/**
 * Files the package ships beside its code (examples/, docs/), found from this module's own place,
 * so that a path the CLI prints exists wherever dynatwin is installed: in a clone it reads
 * `docs/SCENARIOS.md`, in a project that installed it `node_modules/dynatwin/docs/SCENARIOS.md`.
 */
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's root directory (this file is dist/src/package-files.js once built). */
export function packageRoot(): string {
  return fileURLToPath(new URL('../../', import.meta.url));
}

/** The absolute path of a file the package ships, e.g. `docs/SCENARIOS.md`. */
export function shippedFile(packageRelativePath: string): string {
  return fileURLToPath(new URL(`../../${packageRelativePath}`, import.meta.url));
}

/**
 * A shipped file's path as a user in `cwd` can follow it: relative when the file is under `cwd`
 * (a clone, or node_modules of the project), absolute otherwise (a global install).
 */
export function shippedPathFrom(cwd: string, packageRelativePath: string): string {
  const absolute = shippedFile(packageRelativePath);
  const fromCwd = relative(cwd, absolute);
  return fromCwd === '' || fromCwd.startsWith('..') || isAbsolute(fromCwd) ? absolute : fromCwd;
}

/** The same, from the process's working directory. */
export function shippedPath(packageRelativePath: string): string {
  return shippedPathFrom(process.cwd(), packageRelativePath);
}
