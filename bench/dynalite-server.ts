/**
 * dynalite (in-memory) in its own process, so it gets a core of its own like every other target.
 * Child-process entry point: node dist/bench/dynalite-server.js --port N
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { exitWithParent, portFromArgs } from './child-support.js';

/** The slice of dynalite's (untyped, CommonJS) API this benchmark uses. */
interface DynaliteOptions {
  readonly createTableMs?: number;
  readonly deleteTableMs?: number;
  readonly updateTableMs?: number;
  /** On-disk LevelDB store; omitted means in-memory, which is what we compare against. */
  readonly path?: string;
}
type Dynalite = (options: DynaliteOptions) => Server;

const require = createRequire(import.meta.url);
const dynalite = require('dynalite') as Dynalite;

// Zero state-transition delays: CreateTable must not eat into the measured phase.
const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });

exitWithParent();
server.listen(portFromArgs(), '127.0.0.1');
