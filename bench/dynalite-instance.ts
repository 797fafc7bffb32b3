/**
 * dynalite as every bench child starts it: zero state-transition delays (CreateTable must not eat
 * into a measurement), in memory or on its LevelDB store under `path`.
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';

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

export function createDynalite(path?: string): Server {
  return dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(path === undefined ? {} : { path }) });
}
