/**
 * dynatwin started through the library entry point, startDynatwin, with the options the parent
 * passes as JSON: how the bench runs the same server with one feature switched off (the variants
 * of targets.ts) and, with no options, the reference those variants are compared with. With
 * --data-dir it runs on LMDB in that (scratch) directory, which the parent only knows at launch
 * and so cannot put in the JSON; that is how the no-flush LMDB target (durability 'none', which
 * the CLI does not accept) is started.
 * Child-process entry point:
 *   node dist/bench/dynatwin-server.js --port N [--data-dir <dir>] --options '{"capacityAccounting":false}'
 */
import { parseArgs } from 'node:util';
import { startDynatwin, type DynatwinOptions } from '../src/index.js';
import { checkedPort, exitWithParent } from './child-support.js';

const { values } = parseArgs({ options: { port: { type: 'string' }, 'data-dir': { type: 'string' }, options: { type: 'string' } } });
const options = JSON.parse(values.options ?? '{}') as DynatwinOptions;
const dataDir = values['data-dir'];

exitWithParent();
// In memory unless --data-dir is given; a start-up failure exits non-zero, which the parent
// reports with this output.
await startDynatwin({ ...options, ...(dataDir === undefined ? {} : { dataDir }), port: checkedPort(values.port), host: '127.0.0.1' });
