/**
 * A dynatwin server in a child process, started through the real CLI, so tests can restart it,
 * signal it or kill -9 it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { sdkClient } from './client.js';

const CLI_PATH = fileURLToPath(new URL('../../../bin/dynatwin.js', import.meta.url));
const BANNER_PATTERN = /listening on (https?:\/\/\S+)/;
// A bound on a hang, not a speed test: on a loaded machine (two suites on two cores) start-up took over 15 s.
const START_TIMEOUT_MS = 60_000;
/** A process's output kept for output() (a bound: what comes after is dropped). */
const OUTPUT_KEPT_MAX = 8 * 1024 * 1024;

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly endpoint: string;
  readonly banner: string;
  /** Everything it printed (stdout and stderr) up to the banner, the banner's line included: start-up's log lines. */
  readonly startupOutput: string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<number | NodeJS.Signals>;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
}

/** `env`: variables added to the child's environment (e.g. the crash test's DYNATWIN_STORE_FAULTS). */
export function startServerProcess(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLI_PATH, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
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
      // The banner's own line: a log line on stderr (a torn log tail cut) may come before it.
      const banner = output.split('\n').find((line) => BANNER_PATTERN.test(line))!;
      child.stdout!.on('data', (more: Buffer) => {
        if (output.length < OUTPUT_KEPT_MAX) output += more.toString('utf8');
      });
      resolve({ child, endpoint: match[1]!, banner, startupOutput: output, exited, output: () => output });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      if (output.length < OUTPUT_KEPT_MAX) output += chunk.toString('utf8');
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

/** The server processes a test file starts: each is killed (SIGKILL) by killAll, in the file's `after`. */
export class ServerProcesses {
  readonly #started: ServerProcess[] = [];

  async start(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<ServerProcess> {
    const server = await startServerProcess(args, env);
    this.#started.push(server);
    return server;
  }

  async killAll(): Promise<void> {
    for (const server of this.#started.splice(0)) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
  }
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

/**
 * The kill -9 harness: `writers` closed-loop PutItem writers of unique ids (`w<writer>-<n>`, a
 * 200-byte payload) against `server`'s `table`, and a SIGKILL once `acknowledgedBeforeKill` of
 * them were acknowledged (every writer is then inside a request, so the kill cuts writes off
 * mid-flight). Answers the acknowledged ids; writes cut off by the kill promise nothing. Writers
 * that all stop before the kill (an error) fail it rather than wait forever.
 */
export async function putUntilKilled(server: ServerProcess, table: string, writers: number, acknowledgedBeforeKill: number): Promise<string[]> {
  const acknowledged: string[] = [];
  let killed = false;
  let enoughAcknowledged!: () => void;
  const enough = new Promise<void>((resolve) => (enoughAcknowledged = resolve));
  const writer = async (writerIndex: number): Promise<void> => {
    const client = sdkClient(server.endpoint);
    for (let sequence = 0; !killed; sequence++) {
      const id = `w${writerIndex}-${sequence}`;
      try {
        await client.send(new PutItemCommand({ TableName: table, Item: { id: { S: id }, payload: { S: 'x'.repeat(200) } } }));
        acknowledged.push(id);
        if (acknowledged.length === acknowledgedBeforeKill) enoughAcknowledged();
      } catch {
        break;
      }
    }
    client.destroy();
  };
  const running = Array.from({ length: writers }, (_, index) => writer(index));
  const stoppedEarly = Promise.all(running).then(() => {
    if (!killed) throw new Error(`the writers stopped after ${acknowledged.length} acknowledged writes, before the kill`);
  });
  await Promise.race([enough, stoppedEarly]);
  server.child.kill('SIGKILL');
  killed = true;
  const exit = await server.exited;
  if (exit !== 'SIGKILL') throw new Error(`the server ended with ${String(exit)}, not SIGKILL`);
  await Promise.all(running);
  return acknowledged;
}
