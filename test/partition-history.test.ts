/**
 * The partition history (src/metrics/partition-history.ts): buckets on the injected clock, the
 * retention of each resolution, spans, throttles, forget and the bounds.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PartitionHistories } from '../src/metrics/partition-history.js';
import { Telemetry } from '../src/metrics/telemetry.js';

const T0 = Date.UTC(2026, 0, 1);
const SECOND = 1000;
const MINUTE = 60_000;

describe('PartitionHistory', () => {
  test('units and throttles land in their 1-second and 1-minute buckets, columnar, zeros included', () => {
    const history = new PartitionHistories().resource('orders');
    history.record(3, 'read', 2.5, T0 + 100);
    history.record(3, 'read', 1, T0 + 900);
    history.record(3, 'write', 4, T0 + 2 * SECOND);
    history.recordThrottle(3, 'write', T0 + 2 * SECOND + 5);
    history.recordThrottle(3, 'read', T0 + 2 * SECOND + 6, 3);
    history.record(1, 'write', 1, T0 + 61 * SECOND);

    const seconds = history.query(1, T0, T0 + 3 * SECOND);
    assert.equal(seconds.startMs, T0);
    assert.equal(seconds.bucketCount, 4);
    assert.deepEqual(
      seconds.partitions.map((partition) => partition.id),
      [1, 3],
      'partitions with history, by id',
    );
    assert.deepEqual(seconds.partitions[1], {
      id: 3,
      readUnits: [3.5, 0, 0, 0],
      writeUnits: [0, 0, 4, 0],
      readThrottles: [0, 0, 3, 0],
      writeThrottles: [0, 0, 1, 0],
    });
    assert.deepEqual(seconds.partitions[0]!.writeUnits, [0, 0, 0, 0]);

    const minutes = history.query(60, T0, T0 + MINUTE);
    assert.equal(minutes.bucketCount, 2);
    assert.deepEqual(minutes.partitions.find((partition) => partition.id === 3)!.writeUnits, [4, 0]);
    assert.deepEqual(minutes.partitions.find((partition) => partition.id === 1)!.writeUnits, [0, 1]);

    const some = history.query(1, T0, T0, [3, 7]);
    assert.deepEqual(
      some.partitions.map((partition) => partition.id),
      [3],
      'only the ids asked for that have history',
    );
  });

  test('a bucket reused after the retention starts from zero; older samples are dropped', () => {
    const history = new PartitionHistories({ secondRetentionMs: MINUTE, minuteRetentionMs: 2 * MINUTE }).resource('orders');
    history.record(0, 'write', 5, T0);
    history.record(0, 'write', 7, T0 + MINUTE); // same slot of the 60-slot ring, a newer bucket
    history.record(0, 'write', 100, T0 + 1); // older than the slot's bucket now: nowhere to go
    const seconds = history.query(1, T0, T0 + MINUTE);
    assert.equal(seconds.bucketCount, 60, 'at most the retention: the latest 60 buckets');
    assert.equal(seconds.startMs, T0 + SECOND);
    assert.equal(seconds.partitions[0]!.writeUnits.at(-1), 7);
    assert.equal(
      seconds.partitions[0]!.writeUnits.reduce((a, b) => a + b, 0),
      7,
    );
    assert.deepEqual(history.query(60, T0, T0 + MINUTE).partitions[0]!.writeUnits, [105, 7]);
    // An hour later the ring's old buckets read as zeros, without any sweep.
    assert.deepEqual(history.query(1, T0 + 60 * MINUTE, T0 + 60 * MINUTE + 2 * SECOND).partitions[0]!.writeUnits, [0, 0, 0]);
  });

  test('recordSpan spreads units evenly over the buckets of the span', () => {
    const history = new PartitionHistories().resource('orders', 'by-status');
    history.recordSpan(2, 'write', 3000, T0 + 500, T0 + 3 * SECOND + 500);
    const seconds = history.query(1, T0, T0 + 3 * SECOND);
    assert.deepEqual(seconds.partitions[0]!.writeUnits, [500, 1000, 1000, 500]);
    history.recordSpan(2, 'read', 10, T0 + 5 * SECOND, T0 + 5 * SECOND);
    assert.equal(history.query(1, T0 + 5 * SECOND, T0 + 5 * SECOND).partitions[0]!.readUnits[0], 10, 'an empty span is a point');
    // A span longer than the 1-second retention keeps its last hour in seconds, all of it in minutes.
    const long = new PartitionHistories().resource('orders');
    long.recordSpan(0, 'write', 7200, T0, T0 + 2 * 60 * MINUTE);
    const end = T0 + 2 * 60 * MINUTE - SECOND;
    const lastHour = long.query(1, end - 60 * MINUTE, end).partitions[0]!.writeUnits;
    assert.equal(lastHour.length, 3600);
    assert.ok(lastHour.every((value) => Math.abs(value - 1) < 1e-6));
    const minutes = long.query(60, T0, end).partitions[0]!.writeUnits;
    assert.equal(minutes.length, 120);
    assert.ok(minutes.every((value) => Math.abs(value - 60) < 1e-3));
  });

  test('forget releases a partition (a split) and its rings are reused', () => {
    const histories = new PartitionHistories({ partitionsMax: 2 });
    const history = histories.resource('orders');
    history.record(0, 'write', 1, T0);
    history.record(1, 'write', 1, T0);
    history.record(2, 'write', 1, T0);
    assert.equal(histories.partitionCount, 2);
    assert.equal(histories.rejectedSamples, 1, 'a third partition is past partitionsMax');
    assert.deepEqual(history.partitionIds(), [0, 1]);
    const bytes = histories.bytes;
    history.forget(0);
    assert.equal(history.has(0), false);
    history.record(3, 'write', 2, T0 + SECOND);
    assert.deepEqual(history.partitionIds(), [1, 3]);
    assert.equal(histories.bytes, bytes, 'the forgotten rings were reused, not new ones allocated');
    assert.deepEqual(history.query(1, T0, T0 + SECOND).partitions[1]!.writeUnits, [0, 2], 'a reused ring starts empty');
  });

  test('bounds: partitions per resource and in all; memory bound', () => {
    const histories = new PartitionHistories({ partitionsMaxPerResource: 3, partitionsMax: 4 });
    const a = histories.resource('a');
    for (let id = 0; id < 5; id++) a.record(id, 'read', 1, T0);
    assert.deepEqual(a.partitionIds(), [0, 1, 2]);
    const b = histories.resource('b');
    b.record(0, 'read', 1, T0);
    b.record(1, 'read', 1, T0);
    assert.deepEqual(b.partitionIds(), [0]);
    assert.equal(histories.partitionCount, 4);
    assert.equal(histories.rejectedSamples, 3);
    const perPartition = (3600 + 180) * 20;
    assert.equal(histories.bytes, 4 * perPartition);
    assert.equal(histories.memoryBoundBytes, 4 * perPartition);
    assert.equal(new PartitionHistories().memoryBoundBytes, 1024 * perPartition, 'default bound ≈ 77 MB');
  });

  test('dropTable and dropIndex release the resources; Telemetry drops with its metrics', () => {
    const telemetry = new Telemetry();
    const histories = telemetry.partitionHistory;
    const table = histories.resource('orders');
    const index = histories.resource('orders', 'by-status');
    table.record(0, 'read', 1, T0);
    index.record(0, 'write', 1, T0);
    assert.equal(histories.find('orders', 'by-status'), index);
    telemetry.dropIndex('orders', 'by-status');
    assert.equal(histories.find('orders', 'by-status'), undefined);
    assert.equal(histories.partitionCount, 1);
    index.record(1, 'write', 1, T0);
    assert.equal(histories.partitionCount, 1, 'a dropped handle discards samples');
    telemetry.dropTable('orders');
    assert.equal(histories.find('orders'), undefined);
    assert.equal(histories.partitionCount, 0);
    assert.notEqual(histories.resource('orders'), table, 'a recreated table starts afresh');
  });

  test('bad samples and options are refused', () => {
    const history = new PartitionHistories().resource('orders');
    assert.throws(() => history.record(0, 'read', -1, T0), RangeError);
    assert.throws(() => history.record(0, 'read', Number.NaN, T0), RangeError);
    assert.throws(() => history.record(0, 'read', Infinity, T0), RangeError);
    assert.throws(() => history.record(-1, 'read', 1, T0), RangeError);
    history.record(0, 'read', 0, T0);
    assert.deepEqual(history.partitionIds(), [], 'zero units create nothing');
    assert.throws(() => history.query(5 as 1, T0, T0), RangeError);
    assert.throws(() => new PartitionHistories({ secondRetentionMs: 1500 }), RangeError);
    assert.throws(() => new PartitionHistories({ minuteRetentionMs: 30 * SECOND }), RangeError);
    assert.throws(() => new PartitionHistories({ partitionsMax: 0 }), RangeError);
  });
});
