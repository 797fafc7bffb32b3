/**
 * A small tmpfs for the tests of a full disk: mounted as root (CI runs as root); a machine where it
 * cannot be (not root, a container without CAP_SYS_ADMIN) gets the reason, for the tests' `skip`,
 * so they are skipped saying why instead of failing for want of a privilege.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Tmpfs {
  readonly path: string;
  unmount(): void;
}

/** Mounts a tmpfs of `sizeBytes` in a fresh temporary directory; the mount, or why it could not be made. */
export function mountTmpfs(sizeBytes: number, stem: string): Tmpfs | string {
  if (process.getuid?.() !== 0) return 'needs root to mount a tmpfs (CI runs as root)';
  const path = mkdtempSync(join(tmpdir(), `${stem}-`));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (error) {
    rmdirSync(path);
    return `mounting a tmpfs failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
  return {
    path,
    unmount: () => {
      execFileSync('umount', [path]);
      rmdirSync(path);
    },
  };
}
