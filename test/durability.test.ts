/**
 * The embedded store keeps its promise: tables and items survive a clean restart, and every write
 * acknowledged before a kill -9 is there after the restart.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CreateTableCommand, DescribeTableCommand, GetItemCommand, ListTablesCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { parseCommandLine } from '../src/cli.js';
import { putUntilKilled, startServerProcess } from './support/process.js';
import { scratchDirectories } from './support/scratch.js';
import { sdkClient } from './support/client.js';

const WRITERS = 8;

function durabilityOf(argv: readonly string[]): string {
  const options = parseCommandLine(argv);
  assert.ok(typeof options === 'object', `${argv.join(' ')} parses to server options`);
  return options.durability;
}
/**
 * The kill comes once this many writes were acknowledged, however long that takes (a count, not
 * a time: a busy machine makes the test slower, never wrong), with WRITERS writes in flight.
 */
const ACKNOWLEDGED_BEFORE_KILL = 200;

describe('durability', () => {
  const scratch = scratchDirectories('dynatwin-durability-');
  const freshDirectory = (): string => scratch.fresh();
  after(() => scratch.removeAll());

  const createTable = async (endpoint: string, name: string): Promise<void> => {
    const client = sdkClient(endpoint);
    await client.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    client.destroy();
  };

  test('the banner names endpoint, store and version', async () => {
    const dataDir = freshDirectory();
    const server = await startServerProcess(['--data-dir', dataDir]);
    assert.match(server.banner, /^dynatwin \d+\.\d+\.\d+ listening on http:\/\/127\.0\.0\.1:\d+ — store: lmdb at /);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  });

  test('a data directory whose name has a dot in it is a directory, not a file', async () => {
    const dataDir = join(freshDirectory(), 'my.data');
    const server = await startServerProcess(['--data-dir', dataDir]);
    await createTable(server.endpoint, 'dotted');
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    assert.ok(statSync(dataDir).isDirectory());
    assert.ok(statSync(join(dataDir, 'data.mdb')).isFile());
  });

  test('tables and items survive a clean restart (SIGTERM)', async () => {
    const dataDir = freshDirectory();
    const first = await startServerProcess(['--data-dir', dataDir]);
    await createTable(first.endpoint, 'persisted');
    const client = sdkClient(first.endpoint);
    for (let index = 0; index < 50; index++) {
      await client.send(new PutItemCommand({ TableName: 'persisted', Item: { id: { S: 'item-' + index }, n: { N: String(index) } } }));
    }
    client.destroy();
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);

    const second = await startServerProcess(['--data-dir', dataDir]);
    const again = sdkClient(second.endpoint);
    try {
      const tables = await again.send(new ListTablesCommand({}));
      assert.deepEqual(tables.TableNames, ['persisted']);
      const description = await again.send(new DescribeTableCommand({ TableName: 'persisted' }));
      assert.equal(description.Table?.ItemCount, 50);
      for (let index = 0; index < 50; index++) {
        const got = await again.send(new GetItemCommand({ TableName: 'persisted', Key: { id: { S: 'item-' + index } } }));
        assert.deepEqual(got.Item, { id: { S: 'item-' + index }, n: { N: String(index) } });
      }
    } finally {
      again.destroy();
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  test('--durability commit is named in the banner; a bad value is a usage error', async () => {
    const server = await startServerProcess(['--data-dir', freshDirectory(), '--durability', 'commit']);
    assert.match(server.banner, / — store: lmdb at .* \(durability: commit\)$/);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    assert.equal(durabilityOf([]), 'flush');
    assert.equal(durabilityOf(['--durability', 'commit']), 'commit');
    assert.equal(durabilityOf(['--durability', 'flush']), 'flush');
    for (const bad of ['none', 'FLUSH', '']) {
      assert.throws(() => parseCommandLine(['--durability', bad]), /--durability must be 'flush' or 'commit'/);
    }
  });

  // 'commit' acknowledges before the disk flush, but a crash of the process alone loses nothing:
  // the committed pages are in the OS's cache, which outlives the process.
  for (const durability of ['flush', 'commit'] as const) {
    test(`every write acknowledged before kill -9 is found after restart (--durability ${durability})`, () => killDuringWritesAndRestart(durability));
  }

  const killDuringWritesAndRestart = async (durability: 'flush' | 'commit'): Promise<void> => {
    const dataDir = freshDirectory();
    const first = await startServerProcess(['--data-dir', dataDir, '--durability', durability]);
    await createTable(first.endpoint, 'crash');
    const acknowledged = await putUntilKilled(first, 'crash', WRITERS, ACKNOWLEDGED_BEFORE_KILL);
    assert.ok(acknowledged.length >= ACKNOWLEDGED_BEFORE_KILL);

    const second = await startServerProcess(['--data-dir', dataDir]);
    const client = sdkClient(second.endpoint);
    try {
      const missing: string[] = [];
      for (let start = 0; start < acknowledged.length; start += 64) {
        const slice = acknowledged.slice(start, start + 64);
        const results = await Promise.all(
          slice.map((id) => client.send(new GetItemCommand({ TableName: 'crash', Key: { id: { S: id } } }))),
        );
        results.forEach((result, index) => {
          if (result.Item === undefined) missing.push(slice[index]!);
        });
      }
      assert.deepEqual(missing, [], `${missing.length} of ${acknowledged.length} acknowledged writes were lost`);
    } finally {
      client.destroy();
      second.child.kill('SIGTERM');
      await second.exited;
    }
  };
});
