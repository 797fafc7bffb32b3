/**
 * test/support/postgres.ts: a private PostgreSQL cluster starts in a temporary directory, answers
 * through `pg` (the driver the store uses), and is gone, directory and all, after stop().
 */
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { test } from 'node:test';
import pg from 'pg';
import { postgresAvailability, startPrivatePostgres } from './support/postgres.js';

test('a private cluster answers SELECT 1 through pg, and stop() leaves nothing', { skip: postgresAvailability() }, async () => {
  const cluster = await startPrivatePostgres({ fsync: false });
  let stopped = false;
  try {
    assert.ok(statSync(cluster.directory).isDirectory());
    assert.equal(cluster.url('t_private'), `postgres://postgres@127.0.0.1:${cluster.port}/postgres?schema=t_private`);
    const client = new pg.Client({ connectionString: cluster.url() });
    await client.connect();
    try {
      const answer = await client.query<{ one: number; fsync: string }>("SELECT 1 AS one, current_setting('fsync') AS fsync");
      assert.deepEqual(answer.rows, [{ one: 1, fsync: 'off' }]);
    } finally {
      await client.end();
    }
    await cluster.stop();
    stopped = true;
    assert.equal(existsSync(cluster.directory), false);
    // Nothing listens there any more.
    const late = new pg.Client({ connectionString: cluster.url(), connectionTimeoutMillis: 10_000 });
    await assert.rejects(late.connect(), /ECONNREFUSED|connect/);
  } finally {
    if (!stopped) await cluster.stop();
  }
});
