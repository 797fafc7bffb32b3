/**
 * test/support/test-store.ts, the choice of the suite's store: on the embedded pass options are
 * left alone; on the PostgreSQL pass a twin in memory gets a fresh schema of the runner's cluster,
 * a twin given a data directory the schema named after it (the same directory, the same schema),
 * and a test that cannot apply there is skipped saying why.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SERVER_OPTIONS } from '../src/server/server.js';
import { embeddedStoreOnly, TEST_POSTGRES_URL_VARIABLE, TEST_STORE_VARIABLE, testServerOptions, testTwinOptions } from './support/test-store.js';

const CLUSTER_URL = 'postgres://postgres@127.0.0.1:5999/postgres';

/** Runs `check` with the two variables set as given, restoring them after (this file's own process only). */
function withVariables(store: string | undefined, url: string | undefined, check: () => void): void {
  const saved = [process.env[TEST_STORE_VARIABLE], process.env[TEST_POSTGRES_URL_VARIABLE]];
  const set = (name: string, value: string | undefined): void => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  set(TEST_STORE_VARIABLE, store);
  set(TEST_POSTGRES_URL_VARIABLE, url);
  try {
    check();
  } finally {
    set(TEST_STORE_VARIABLE, saved[0]);
    set(TEST_POSTGRES_URL_VARIABLE, saved[1]);
  }
}

function schemaOf(url: string | undefined): string {
  assert.ok(url !== undefined);
  const parsed = new URL(url);
  assert.equal(`${parsed.protocol}//${parsed.username}@${parsed.host}${parsed.pathname}`, CLUSTER_URL);
  return parsed.searchParams.get('schema') ?? '';
}

test('the embedded pass leaves every option as the test gave it', () => {
  withVariables('embedded', undefined, () => {
    const options = { clock: 'manual' as const };
    assert.equal(testTwinOptions(options), options);
    const server = { ...DEFAULT_SERVER_OPTIONS, inMemory: true };
    assert.equal(testServerOptions(server), server);
    assert.equal(embeddedStoreOnly('why'), false);
  });
});

test('the PostgreSQL pass: a fresh schema per twin in memory, the same schema for the same data directory', () => {
  withVariables('postgres', CLUSTER_URL, () => {
    const first = schemaOf(testTwinOptions({ clock: 'manual' }).store);
    const second = schemaOf(testTwinOptions({}).store);
    assert.match(first, /^t_[0-9a-f]{32}$/);
    assert.notEqual(first, second);

    const persisted = testTwinOptions({ dataDir: '/tmp/some-twin', gsiLagMs: 5 });
    assert.equal(persisted.dataDir, undefined);
    assert.equal(persisted.gsiLagMs, 5);
    const schema = schemaOf(persisted.store);
    assert.match(schema, /^d_[0-9a-f]{32}$/);
    assert.equal(schemaOf(testTwinOptions({ dataDir: '/tmp/some-twin/' }).store), schema, 'the same directory, however written');
    assert.notEqual(schemaOf(testTwinOptions({ dataDir: '/tmp/other-twin' }).store), schema);

    const explicit = { store: 'postgres://elsewhere/db' };
    assert.equal(testTwinOptions(explicit), explicit);
    const server = testServerOptions({ ...DEFAULT_SERVER_OPTIONS, inMemory: true });
    assert.equal(server.inMemory, false);
    assert.match(schemaOf(server.store), /^t_[0-9a-f]{32}$/);
    const onDisk = { ...DEFAULT_SERVER_OPTIONS, inMemory: false };
    assert.equal(testServerOptions(onDisk), onDisk);

    assert.equal(embeddedStoreOnly("the log's own"), "embedded store only: the log's own");
  });
});

test('the PostgreSQL pass without the cluster URL, or an unknown store, says what to do', () => {
  withVariables('postgres', undefined, () => {
    assert.throws(() => testTwinOptions({}), /DYNATWIN_TEST_STORE=postgres needs the test cluster's URL in DYNATWIN_TEST_POSTGRES_URL; run the tests through scripts\/run-tests\.mjs/);
  });
  withVariables('mysql', undefined, () => {
    assert.throws(() => testTwinOptions({}), /^Error: DYNATWIN_TEST_STORE must be 'embedded' or 'postgres', got 'mysql'$/);
  });
});
