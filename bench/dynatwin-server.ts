/**
 * dynatwin (memory) started through the library entry point, startDynatwin, with the options the
 * parent passes as JSON: how the bench runs the same server with one feature switched off (the
 * variants of targets.ts) and, with no options, the reference those variants are compared with.
 * Child-process entry point:
 *   node dist/bench/dynatwin-server.js --port N --options '{"capacityAccounting":false}'
 */
import { parseArgs } from 'node:util';
import { startDynatwin, type DynatwinOptions } from '../src/index.js';
import { checkedPort, exitWithParent } from './child-support.js';

const { values } = parseArgs({ options: { port: { type: 'string' }, options: { type: 'string' } } });
const options = JSON.parse(values.options ?? '{}') as DynatwinOptions;

exitWithParent();
// In memory (no dataDir), like the dynatwin-memory target; a start-up failure exits non-zero,
// which the parent reports with this output.
await startDynatwin({ ...options, port: checkedPort(values.port), host: '127.0.0.1' });
