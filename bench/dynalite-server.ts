/**
 * dynalite in its own process, so it gets a core of its own like every other target: in memory
 * (the reference of the goals), or with --path on its on-disk LevelDB store, the like-for-like
 * comparison for dynatwin (lmdb) since both persist.
 * Child-process entry point: node dist/bench/dynalite-server.js --port N [--path <dir>]
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { checkedPort, exitWithParent } from './child-support.js';

/** The slice of dynalite's (untyped, CommonJS) API this benchmark uses. */
interface DynaliteOptions {
  readonly createTableMs?: number;
  readonly deleteTableMs?: number;
  readonly updateTableMs?: number;
  /**
   * On-disk LevelDB store; omitted means in-memory. LevelDB writes with its default
   * `sync: false` (dynalite never asks otherwise): a write is handed to the OS and acknowledged,
   * never fsync'd, whereas dynatwin (lmdb) fsyncs every commit before acknowledging it.
   */
  readonly path?: string;
}
type Dynalite = (options: DynaliteOptions) => Server;

const require = createRequire(import.meta.url);
const dynalite = require('dynalite') as Dynalite;

const { values } = parseArgs({ options: { port: { type: 'string' }, path: { type: 'string' } } });

// Zero state-transition delays: CreateTable must not eat into the measured phase.
const server = dynalite({
  createTableMs: 0,
  deleteTableMs: 0,
  updateTableMs: 0,
  ...(values.path === undefined ? {} : { path: values.path }),
});

exitWithParent();
server.listen(checkedPort(values.port), '127.0.0.1');
