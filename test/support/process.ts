/**
 * A dynatwin server in a child process, started through the real CLI, so tests can restart it,
 * signal it or kill -9 it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI_PATH = fileURLToPath(new URL('../../../bin/dynatwin.js', import.meta.url));
const BANNER_PATTERN = /listening on (http:\/\/\S+)/;
// A bound on a hang, not a speed test: on a loaded machine (two suites on two cores) start-up took over 15 s.
const START_TIMEOUT_MS = 60_000;

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly endpoint: string;
  readonly banner: string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<number | NodeJS.Signals>;
}

export function startServerProcess(args: readonly string[]): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLI_PATH, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | NodeJS.Signals>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ?? code ?? -1));
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('dynatwin did not start in time; output: ' + output));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const match = BANNER_PATTERN.exec(output);
      if (match === null) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({ child, endpoint: match[1]!, banner: output.split('\n')[0]!, exited });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error('dynatwin exited before listening; output: ' + output));
    });
  });
}

export interface CliOutcome {
  /** The exit code, or the signal that ended the process. */
  readonly status: number | NodeJS.Signals;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI to its end (a command that should exit by itself, e.g. a failing start-up). */
export function runCli(args: readonly string[], options: { readonly cwd?: string; readonly timeoutMs?: number } = {}): Promise<CliOutcome> {
  const child = spawn(process.execPath, [CLI_PATH, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: options.cwd });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`dynatwin ${args.join(' ')} did not exit within ${options.timeoutMs ?? START_TIMEOUT_MS} ms; output: ${stdout}${stderr}`));
    }, options.timeoutMs ?? START_TIMEOUT_MS);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ status: signal ?? code ?? -1, stdout, stderr });
    });
  });
}
