/**
 * A server whose memory the bench measures (issue 21: RSS per stored 1 KB item in memory mode):
 * dynatwin in memory (startDynatwin, capacity off like the bench's other dynatwin rows) or
 * dynalite in memory, in a process started with --expose-gc. Each line `gc` on stdin runs full
 * collections and answers `rss <bytes>` on stdout; the end of stdin (the parent gone) stops it.
 * Child-process entry point: node --expose-gc dist/bench/rss-server.js --port N --server dynatwin|dynalite
 */
import { createInterface } from 'node:readline';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startDynatwin } from '../src/index.js';
import { checkedPort } from './child-support.js';
import { createDynalite } from './dynalite-instance.js';

const { values } = parseArgs({ options: { port: { type: 'string' }, server: { type: 'string' } } });
const port = checkedPort(values.port);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

/** Full collections until the heap stops shrinking (at most a few), then the process's RSS. */
async function collectedRss(collect: () => void): Promise<number> {
  let previous = Infinity;
  for (let pass = 0; pass < 5; pass++) {
    collect();
    await nextTurn();
    const used = process.memoryUsage().heapUsed;
    if (used >= previous * 0.99) break;
    previous = used;
  }
  return process.memoryUsage.rss();
}

if (values.server === 'dynatwin') await startDynatwin({ port, host: '127.0.0.1', capacity: 'off' });
else if (values.server === 'dynalite') createDynalite().listen(port, '127.0.0.1');
else throw new Error('--server dynatwin|dynalite');

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() !== 'gc') return;
  void collectedRss(gc).then((rss) => process.stdout.write(`rss ${rss}\n`));
});
lines.on('close', () => process.exit(0));
