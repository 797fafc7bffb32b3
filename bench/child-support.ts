/**
 * Shared plumbing for the benchmark's own child-process servers (bare, dynalite, dynatwin variants).
 */
import { parseArgs } from 'node:util';

/** The --port the parent chose; the parent then waits for the port to accept connections. */
export function portFromArgs(): number {
  const { values } = parseArgs({ options: { port: { type: 'string' } } });
  return checkedPort(values.port);
}

export function checkedPort(text: string | undefined): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error(`usage: node ${process.argv[1] ?? 'server.js'} --port <port>`);
  }
  return port;
}

/**
 * Exits when the parent's end of our stdin closes. The parent kills us explicitly, but if it is
 * itself SIGKILLed it cannot, and an orphaned server would skew every later benchmark run.
 */
export function exitWithParent(): void {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
}
