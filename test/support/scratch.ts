/**
 * Data directories for tests that persist to LMDB: fresh temporary directories, all removed when
 * the suite is done.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ScratchDirectories {
  /** A new, empty directory under the system's temporary directory. */
  fresh(): string;
  /** Removes every directory handed out (for the suite's `after`). */
  removeAll(): void;
}

export function scratchDirectories(prefix: string): ScratchDirectories {
  const directories: string[] = [];
  return {
    fresh() {
      const directory = mkdtempSync(join(tmpdir(), prefix));
      directories.push(directory);
      return directory;
    },
    removeAll() {
      for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
    },
  };
}
