/**
 * The PostgreSQL store (`--store postgres://...`). Being written: the coordinator fills this in.
 */
import type { Storage } from './storage.js';
import { parsePostgresUrl } from './postgres-url.js';

export interface PostgresStoreOptions {
  /** Where the store reports what it does on its own (reconnects). */
  readonly log?: (message: string) => void;
}

/**
 * The database at `url` could not be reached or used at start-up; the message is one line that
 * names the URL without its password and says why.
 */
export class StoreOpenError extends Error {}

/** Opens (creating or migrating its schema) the PostgreSQL store at `url`. */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Storage> {
  const target = parsePostgresUrl(url);
  void options;
  throw new StoreOpenError(`dynatwin: cannot use the PostgreSQL store at ${target.redacted}: not built yet`);
}
