/**
 * Which store the SDK-level suite runs on. `npm test` (scripts/run-tests.mjs) runs the suite twice:
 * on the embedded stores, and with DYNATWIN_TEST_STORE=postgres, where every twin the test support
 * starts gets a schema of the private PostgreSQL cluster whose URL the runner passes in
 * DYNATWIN_TEST_POSTGRES_URL (test/support/postgres.ts): a fresh one for a twin in memory, the one
 * named after its data directory for a twin given one (testTwinOptions).
 *
 * A test that cannot apply to PostgreSQL (the data directory's, the write-ahead log's) takes
 * `{ skip: embeddedStoreOnly('why') }`, so the PostgreSQL pass shows it skipped and why.
 */
import { createHash, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { DynatwinOptions } from '../../src/index.js';
import type { ServerOptions } from '../../src/server/server.js';

/** embedded (the default): memory or a data directory, as each test asks; postgres: see above. */
export const TEST_STORE_VARIABLE = 'DYNATWIN_TEST_STORE';
/** The cluster's URL (without ?schema=) on the postgres pass. */
export const TEST_POSTGRES_URL_VARIABLE = 'DYNATWIN_TEST_POSTGRES_URL';

export type TestStoreKind = 'embedded' | 'postgres';

/** The store of this pass, read from the environment (each test process is one pass). */
export function testStoreKind(): TestStoreKind {
  const text = process.env[TEST_STORE_VARIABLE];
  if (text === undefined || text === '' || text === 'embedded') return 'embedded';
  if (text === 'postgres') return 'postgres';
  throw new Error(`${TEST_STORE_VARIABLE} must be 'embedded' or 'postgres', got '${text}'`);
}

/** For a test's `skip` option: false on the embedded pass; on the PostgreSQL pass, why it does not apply there. */
export function embeddedStoreOnly(reason: string): false | string {
  return testStoreKind() === 'postgres' ? `embedded store only: ${reason}` : false;
}

/**
 * A twin's library options for this pass. On the PostgreSQL pass a twin that would keep everything
 * in memory gets a fresh schema of the test cluster, and one given a data directory gets the schema
 * named after that directory, so a test that restarts a twin on the same data restarts it on the
 * same schema: what survives a restart is asked of PostgreSQL too. An explicit store, and
 * everything on the embedded pass, is left as it is.
 */
export function testTwinOptions<T extends DynatwinOptions>(options: T): T & Pick<DynatwinOptions, 'store'> {
  if (options.store !== undefined || testStoreKind() !== 'postgres') return options;
  if (options.dataDir === undefined) return { ...options, store: schemaUrl(freshSchemaName()) };
  const { dataDir, ...rest } = options;
  // The options less dataDir: T's other members as given (the clock's literal type among them).
  return { ...rest, store: schemaUrl(schemaNameOf(dataDir)) } as T;
}

/** The same for a server started with startServer directly: an in-memory one moves to a fresh schema. */
export function testServerOptions(options: ServerOptions): ServerOptions {
  if (!options.inMemory || options.store !== undefined || testStoreKind() !== 'postgres') return options;
  return { ...options, inMemory: false, store: schemaUrl(freshSchemaName()) };
}

/** A schema no other twin uses (PostgreSQL identifiers: lower-case letters, digits, _). */
function freshSchemaName(): string {
  return `t_${randomUUID().replace(/-/g, '')}`;
}

/** The schema standing for a data directory: the same directory, the same schema, in every test process. */
function schemaNameOf(dataDir: string): string {
  return `d_${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 32)}`;
}

/**
 * The test cluster's URL with `schema`. Schemas are not dropped: the cluster goes away whole at
 * the end of the run.
 */
function schemaUrl(schema: string): string {
  const base = process.env[TEST_POSTGRES_URL_VARIABLE];
  if (base === undefined || base === '') {
    throw new Error(`${TEST_STORE_VARIABLE}=postgres needs the test cluster's URL in ${TEST_POSTGRES_URL_VARIABLE}; run the tests through scripts/run-tests.mjs (npm test -- --store postgres [files]), which starts one`);
  }
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return url.toString();
}
