/**
 * dynalite in its own process, so it gets a core of its own like every other target: in memory
 * (the reference of the goals), or with --path on its on-disk LevelDB store, the like-for-like
 * comparison for dynatwin (lmdb) since both persist.
 * Child-process entry point: node dist/bench/dynalite-server.js --port N [--path <dir>]
 */
import { parseArgs } from 'node:util';
import { checkedPort, exitWithParent } from './child-support.js';
import { createDynalite } from './dynalite-instance.js';

const { values } = parseArgs({ options: { port: { type: 'string' }, path: { type: 'string' } } });
const server = createDynalite(values.path);

exitWithParent();
server.listen(checkedPort(values.port), '127.0.0.1');
