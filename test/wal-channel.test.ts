/**
 * The logged store's `dynatwin:wal-frame` diagnostics channel (src/storage/wal-channel.ts), which
 * the bench's in-server probe aggregates (bench/log-stats.ts): against a durable dynatwin written
 * through the AWS SDK, one message per log frame, their writes adding up to the writes made; and
 * the bench's in-server probe, preloaded into a durable server as the bench does, reporting them.
 * Counts only: no figure here depends on the machine.
 */
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { BatchWriteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { LogFrameStats } from '../bench/log-stats.js';
import { launch, TARGETS } from '../bench/targets.js';
import { WAL_FRAME_CHANNEL, type WalFrameMessage } from '../src/storage/wal-channel.js';
import { scratchDirectories } from './support/scratch.js';
import { createTables, onDemandTable } from './support/tables.js';
import { sdkClient, withTwin } from './support/twin.js';
import { embeddedStoreOnly } from './support/test-store.js';

const TABLE = 'frames';

/** Collects the frames of one store (its data directory) while subscribed. */
class FrameLog {
  readonly frames: WalFrameMessage[] = [];
  readonly #onMessage = (message: unknown): void => {
    const frame = message as WalFrameMessage;
    if (frame.location === this.location) this.frames.push(frame);
  };

  constructor(readonly location: string) {
    diagnosticsChannel.subscribe(WAL_FRAME_CHANNEL, this.#onMessage);
  }

  get writes(): number {
    return this.frames.reduce((sum, frame) => sum + frame.writes, 0);
  }

  stop(): void {
    diagnosticsChannel.unsubscribe(WAL_FRAME_CHANNEL, this.#onMessage);
  }
}

const put = (id: string, pad = 'x') => new PutItemCommand({ TableName: TABLE, Item: { id: { S: id }, pad: { S: pad } } });

describe('the write-ahead log frame channel', { skip: embeddedStoreOnly("the logged store's write-ahead log channel") }, () => {
  const scratch = scratchDirectories('dynatwin-wal-channel-');
  after(() => scratch.removeAll());

  test('one message per frame, published before its writes are acknowledged, whose writes add up to the writes made', async () => {
    const dataDir = scratch.fresh();
    await withTwin({ dataDir }, async (twin) => {
      await createTables(twin.client, onDemandTable(TABLE));
      const log = new FrameLog(resolve(dataDir));
      // The probe's aggregation, fed the same messages.
      const stats = new LogFrameStats(performance.now());
      const onMessage = (message: unknown): void => stats.add(message as WalFrameMessage);
      diagnosticsChannel.subscribe(WAL_FRAME_CHANNEL, onMessage);
      try {
        // One at a time: each put's frame is published before its answer comes back.
        for (let i = 0; i < 5; i++) {
          await twin.client.send(put(`one-${i}`));
          assert.equal(log.frames.length, i + 1, `frames after put ${i + 1}`);
          assert.equal(log.writes, i + 1);
        }
        // Together: they share frames (group commit), and every write is in exactly one.
        await Promise.all(Array.from({ length: 40 }, (_, i) => twin.client.send(put(`many-${i}`))));
        assert.equal(log.writes, 45);
        assert.ok(log.frames.length >= 6 && log.frames.length <= 45, `${log.frames.length} frames`);
        // A batch is one storage write: 25 items in one frame's group, all their bytes in it.
        const pad = 'b'.repeat(1000);
        const before = log.frames.length;
        await twin.client.send(
          new BatchWriteItemCommand({ RequestItems: { [TABLE]: Array.from({ length: 25 }, (_, i) => ({ PutRequest: { Item: { id: { S: `batch-${i}` }, pad: { S: pad } } } })) } }),
        );
        const batchFrames = log.frames.slice(before);
        assert.deepEqual(batchFrames.map((frame) => frame.writes), [1]);
        assert.ok(batchFrames[0]!.bytes > 25 * pad.length, `a ${batchFrames[0]!.bytes}-byte frame holds 25 items of ${pad.length} bytes`);
      } finally {
        diagnosticsChannel.unsubscribe(WAL_FRAME_CHANNEL, onMessage);
        log.stop();
      }
      for (const frame of log.frames) {
        assert.equal(frame.durability, 'flush');
        assert.ok(frame.writes >= 1 && frame.bytes > 8, `a frame of ${frame.writes} writes, ${frame.bytes} bytes`);
        assert.ok(frame.writtenMs >= frame.sentMs);
        assert.ok(frame.framesAhead >= 0 && frame.framesAhead <= 1, `${frame.framesAhead} frames ahead`);
        assert.ok(frame.backlogWaitMs >= 0);
      }
      const summary = stats.summarise(performance.now(), { busyShare: 0.5, busyMs: 1 });
      assert.equal(summary.frames, log.frames.length);
      assert.equal(summary.writes, 46);
      assert.equal(summary.frameBytes, log.frames.reduce((sum, frame) => sum + frame.bytes, 0));
      assert.ok(summary.inFlightShare > 0 && summary.inFlightShare <= 1);

    });
  });

  test('under durability commit the frames say so', async () => {
    const dataDir = scratch.fresh();
    await withTwin({ dataDir, durability: 'commit' }, async (twin) => {
      await createTables(twin.client, onDemandTable(TABLE));
      const log = new FrameLog(resolve(dataDir));
      try {
        await Promise.all(Array.from({ length: 10 }, (_, i) => twin.client.send(put(`c-${i}`))));
      } finally {
        log.stop();
      }
      assert.equal(log.writes, 10);
      assert.ok(log.frames.every((frame) => frame.durability === 'commit'));
    });
  });

  test('the bench’s in-server probe reports the frames of the durable server it was preloaded into', async () => {
    const server = await launch(TARGETS.find((target) => target.id === 'dynatwin-lmdb')!, { probe: true });
    const client = sdkClient(`http://127.0.0.1:${server.port}`);
    try {
      await createTables(client, onDemandTable(TABLE));
      const probe = server.probe!;
      // The closed loop's window: the log and the event loop only.
      assert.equal(await probe.open('log'), true);
      await Promise.all(Array.from({ length: 30 }, (_, i) => client.send(put(`loop-${i}`))));
      for (let i = 0; i < 5; i++) await client.send(put(`alone-${i}`));
      const log = (await probe.closeLog())!;
      assert.equal(log.writes, 35);
      assert.ok(log.frames >= 6 && log.frames <= 35, `${log.frames} frames`);
      assert.ok(log.frameWriteMaxMs >= log.frameWriteP50Ms && log.frameWriteP50Ms > 0);
      assert.ok(log.eventLoopBusyShare > 0 && log.eventLoopBusyShare <= 1 && log.eventLoopBusyMs > 0);
      assert.ok(log.inFlightShare > 0 && log.inFlightShare <= 1);
      // The fixed-rate phase's window: every figure, the log's among them.
      assert.equal(await probe.open(), true);
      for (let i = 0; i < 3; i++) await client.send(put(`full-${i}`));
      const report = (await probe.close())!;
      assert.equal(report.log?.writes, 3);
      assert.equal(report.log?.frames, 3);
      assert.equal(typeof report.allocatedBytes, 'number');
    } finally {
      client.destroy();
      await server.stop();
    }
  });
});
