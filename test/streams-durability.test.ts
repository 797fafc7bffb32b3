/**
 * A stream record is written in the storage write of the change it describes: after a kill -9
 * under load (with partitions splitting meanwhile, so shards close and open), every acknowledged
 * write has its record, and every record's change is in the table — one record per item.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { CreateTableCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { putUntilKilled, startServerProcess } from './support/process.js';
import { scratchDirectories } from './support/scratch.js';
import { readStream, streamsClient } from './support/streams.js';
import { sdkClient } from './support/client.js';

const WRITERS = 8;
/** Enough writes for the 64 KB partitions to split under load before the kill. */
const ACKNOWLEDGED_BEFORE_KILL = 1500;

describe('stream durability', () => {
  const scratch = scratchDirectories('dynatwin-stream-durability-');
  after(() => scratch.removeAll());

  test('after kill -9, every acknowledged write has its record and no record lacks its write', async () => {
    const dataDir = scratch.fresh();
    const first = await startServerProcess(['--data-dir', dataDir, '--partition-size-limit', '65536']);
    const setup = sdkClient(first.endpoint);
    const created = await setup.send(
      new CreateTableCommand({
        TableName: 'crash',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
      }),
    );
    setup.destroy();
    const streamArn = created.TableDescription!.LatestStreamArn!;
    const acknowledged = await putUntilKilled(first, 'crash', WRITERS, ACKNOWLEDGED_BEFORE_KILL);
    assert.ok(acknowledged.length >= ACKNOWLEDGED_BEFORE_KILL);

    const second = await startServerProcess(['--data-dir', dataDir, '--partition-size-limit', '65536']);
    const client = sdkClient(second.endpoint);
    const streams = streamsClient(second.endpoint);
    try {
      const stored = new Set<string>();
      let start: Record<string, { S: string }> | undefined;
      do {
        const page = await client.send(new ScanCommand({ TableName: 'crash', ExclusiveStartKey: start }));
        for (const item of page.Items ?? []) stored.add(item.id!.S!);
        start = page.LastEvaluatedKey as typeof start;
      } while (start !== undefined);
      const records = await readStream(streams, streamArn);
      const recorded = records.map((record) => record.dynamodb!.Keys!.id!.S!);
      assert.equal(new Set(recorded).size, recorded.length, 'one record per item');
      for (const record of records) assert.equal(record.eventName, 'INSERT');
      const missingRecords = acknowledged.filter((id) => !recorded.includes(id));
      assert.deepEqual(missingRecords, [], 'every acknowledged write has its record');
      const recordsWithoutWrite = recorded.filter((id) => !stored.has(id));
      assert.deepEqual(recordsWithoutWrite, [], 'no record lacks its write');
      assert.equal(recorded.length, stored.size, 'every stored item has its record');
    } finally {
      client.destroy();
      streams.destroy();
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
