/**
 * The metrics store (src/metrics/registry.ts, series.ts): bucketing on the injected clock,
 * CloudWatch's statistics, retention, the series bound and memory, series keys against the
 * metrics' dimensions, and queries.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '../src/clock.js';
import { METRICS, OPERATION_NAMES } from '../src/metrics/catalog.js';
import { backfillPercent } from '../src/engine/gauge-readings.js';
import { MetricsQueryError, MetricsRegistry, type MetricsQuery } from '../src/metrics/registry.js';
import { BucketRing } from '../src/metrics/series.js';

/** 2026-01-01T00:00:00Z: a minute boundary, so bucket arithmetic in tests is easy to read. */
const T0 = Date.UTC(2026, 0, 1);

function tableQuery(overrides: Partial<MetricsQuery> = {}): MetricsQuery {
  return { table: 'orders', metric: 'ConsumedReadCapacityUnits', periodSeconds: 60, ...overrides };
}

describe('metrics store: buckets and statistics', () => {
  test('samples land in 1-second and 1-minute buckets of the injected clock, with Sum/Average/Minimum/Maximum/SampleCount', () => {
    const clock = new ManualClock(T0);
    const metrics = new MetricsRegistry();
    const series = metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders' });
    series.record(3, clock.advance(100));
    series.record(5, clock.advance(800));
    series.record(1, clock.advance(600)); // T0 + 1.5 s
    series.record(10, clock.advance(59_500)); // T0 + 61 s

    const seconds = metrics.query(tableQuery({ periodSeconds: 1 }), clock.nowMs()).metrics[0]!.datapoints;
    assert.deepEqual(seconds, [
      { Timestamp: '2026-01-01T00:00:00.000Z', Sum: 8, Average: 4, Minimum: 3, Maximum: 5, SampleCount: 2 },
      { Timestamp: '2026-01-01T00:00:01.000Z', Sum: 1, Average: 1, Minimum: 1, Maximum: 1, SampleCount: 1 },
      { Timestamp: '2026-01-01T00:01:01.000Z', Sum: 10, Average: 10, Minimum: 10, Maximum: 10, SampleCount: 1 },
    ]);
    const minutes = metrics.query(tableQuery(), clock.nowMs()).metrics[0]!.datapoints;
    assert.deepEqual(minutes, [
      { Timestamp: '2026-01-01T00:00:00.000Z', Sum: 9, Average: 3, Minimum: 1, Maximum: 5, SampleCount: 3 },
      { Timestamp: '2026-01-01T00:01:00.000Z', Sum: 10, Average: 10, Minimum: 10, Maximum: 10, SampleCount: 1 },
    ]);
  });

  test('the same key resolves to the same handle; periods without samples are left out', () => {
    const metrics = new MetricsRegistry();
    const a = metrics.series({ metric: 'WriteThrottleEvents', table: 'orders', index: 'by-day' });
    const b = metrics.series({ metric: 'WriteThrottleEvents', table: 'orders', index: 'by-day' });
    assert.equal(a, b);
    a.record(1, T0);
    a.record(1, T0 + 3 * 60_000);
    const result = metrics.query({ table: 'orders', index: 'by-day', metric: 'WriteThrottleEvents', periodSeconds: 60 }, T0 + 3 * 60_000);
    assert.deepEqual(
      result.metrics[0]!.datapoints.map((point) => point.Timestamp),
      ['2026-01-01T00:00:00.000Z', '2026-01-01T00:03:00.000Z'],
    );
  });

  test('a sample that is not a finite number is a caller bug', () => {
    const series = new MetricsRegistry().series({ metric: 'ConsumedWriteCapacityUnits', table: 'orders' });
    assert.throws(() => series.record(Number.NaN, T0), RangeError);
    assert.throws(() => series.record(Infinity, T0), RangeError);
  });

  test('a late sample still in the ring counts in its own bucket; one older than the ring is dropped', () => {
    const ring = new BucketRing(1000, 5);
    ring.record(1, T0 + 5_000); // slot 0 now holds second 5
    ring.record(2, T0 + 4_000); // second 4: still retained
    ring.record(7, T0); // second 0 shares slot 0 with the newer second 5: dropped
    const now = T0 + 5_000;
    assert.deepEqual(
      ring.range(-Infinity, Infinity, now).map((bucket) => [bucket.startMs - T0, bucket.sum]),
      [
        [4_000, 2],
        [5_000, 1],
      ],
    );
  });
});

describe('metrics store: units served over a span (a GSI backlog drained lazily)', () => {
  test('recordSpan spreads units over the buckets the span covers, in proportion, adding up exactly', () => {
    const ring = new BucketRing(60_000, 10);
    // 2.5 minutes of 1,000 units/s, from 30 s into minute 0 to the end of minute 2.
    ring.recordSpan(150_000, 30_000, 180_000);
    assert.deepEqual([0, 1, 2].map((bucket) => ring.read(bucket)?.sum), [30_000, 60_000, 60_000]);
    // Odd amounts: shares on a 1/1024 grid, the last taking the rest; the total is exact.
    const odd = new BucketRing(1000, 100);
    odd.recordSpan(10.3, 500, 3700);
    const shares = [0, 1, 2, 3].map((bucket) => odd.read(bucket)?.sum ?? 0);
    assert.equal(shares.reduce((sum, share) => sum + share, 0), 10.3);
    for (const share of shares.slice(1, 3)) assert.ok(Math.abs(share - 10.3 / 3.2) < 1 / 512, `a whole second's share (${share})`);
    // A span within one bucket is one sample at its end; beyond the retention, older shares go nowhere.
    const short = new BucketRing(1000, 3);
    short.recordSpan(5, 100, 900);
    assert.equal(short.read(0)?.sum, 5);
    const long = new BucketRing(1000, 3);
    long.recordSpan(100, 0, 10_500);
    // Buckets 8, 9 and 10 are kept (3 slots); the span's last half second is bucket 10's.
    const kept = [8, 9, 10].map((bucket) => long.read(bucket)?.sum ?? 0);
    for (const [at, expected] of [100 / 10.5, 100 / 10.5, 100 / 21].entries()) assert.ok(Math.abs(kept[at]! - expected) < 1 / 512, `bucket ${8 + at}: ${kept[at]}`);
    assert.equal(long.read(7), undefined);
  });
});

describe('metrics store: retention and memory', () => {
  test('buckets older than the retention are not reported, per period', () => {
    const metrics = new MetricsRegistry({ retentionMs: 2 * 60_000, secondRetentionMs: 5_000 });
    const series = metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders' });
    series.record(4, T0);
    const seconds = (nowMs: number) => metrics.query(tableQuery({ periodSeconds: 1 }), nowMs).metrics[0]!.datapoints.length;
    const minutes = (nowMs: number) => metrics.query(tableQuery(), nowMs).metrics[0]!.datapoints.length;
    assert.equal(seconds(T0 + 4_999), 1, 'the 5th second still covers T0');
    assert.equal(seconds(T0 + 5_000), 0, 'the 6th second does not');
    assert.equal(minutes(T0 + 119_999), 1);
    assert.equal(minutes(T0 + 120_000), 0);
    const result = metrics.query(tableQuery(), T0 + 120_000);
    assert.equal(result.startMs, T0 + 60_000, 'the answer says where the retained range starts');
  });

  test('a ring reuses its slots: recording for hours never grows a series', () => {
    const metrics = new MetricsRegistry({ retentionMs: 10 * 60_000, secondRetentionMs: 30_000 });
    const series = metrics.series({ metric: 'ConsumedWriteCapacityUnits', table: 'orders' });
    assert.equal(series.bytes, 0, 'no rings before the first sample');
    series.record(1, T0);
    const bytes = series.bytes;
    assert.equal(bytes, (30 + 10) * 5 * 8);
    for (let ms = 0; ms < 3 * 3_600_000; ms += 250) series.record(1, T0 + ms);
    assert.equal(series.bytes, bytes);
    const minutes = metrics.query(tableQuery({ metric: 'ConsumedWriteCapacityUnits' }), T0 + 3 * 3_600_000 - 1).metrics[0]!.datapoints;
    assert.equal(minutes.length, 10, 'the last 10 minutes, nothing older');
    assert.ok(minutes.every((point) => point.SampleCount === 240));
  });

  test('past seriesMax, series() hands out a handle that keeps nothing, and counts the refusal', () => {
    const metrics = new MetricsRegistry({ seriesMax: 3, retentionMs: 60_000, secondRetentionMs: 10_000 });
    const tables = ['a-1', 'b-2', 'c-3', 'd-4'];
    const handles = tables.map((table) => metrics.series({ metric: 'ConsumedReadCapacityUnits', table }));
    for (const handle of handles) handle.record(1, T0);
    assert.equal(metrics.seriesCount, 3);
    assert.equal(metrics.rejectedSeries, 1);
    assert.equal(handles[3]!.retained, false);
    assert.equal(handles[3]!.bytes, 0);
    assert.equal(metrics.find({ metric: 'ConsumedReadCapacityUnits', table: 'd-4' }), undefined);
    assert.equal(metrics.memoryBoundBytes, 3 * (10 + 1) * 40);
    assert.equal(metrics.bytes, metrics.memoryBoundBytes, 'full: every allowed series has both rings');
    // Dropping a table makes room again.
    metrics.dropTable('a-1');
    assert.equal(metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'd-4' }).retained, true);
  });

  test('options are checked', () => {
    assert.throws(() => new MetricsRegistry({ retentionMs: 90_000 }), /whole minutes/);
    assert.throws(() => new MetricsRegistry({ retentionMs: 25 * 3_600_000 }), /whole minutes/);
    assert.throws(() => new MetricsRegistry({ secondRetentionMs: 1500 }), /whole seconds/);
    assert.throws(() => new MetricsRegistry({ seriesMax: 0 }), /seriesMax/);
    const defaults = new MetricsRegistry().options;
    assert.equal(defaults.retentionMs, 3 * 3_600_000);
  });

  test('dropTable removes a table and its GSIs; dropIndex one GSI', () => {
    const metrics = new MetricsRegistry();
    metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders' });
    metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders', index: 'by-day' });
    metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders', index: 'by-customer' });
    metrics.series({ metric: 'ThrottledRequests', table: 'orders', operation: 'PutItem' });
    metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'users' });
    metrics.series({ metric: 'UserErrors' });
    metrics.dropIndex('orders', 'by-day');
    assert.equal(metrics.seriesCount, 5);
    assert.equal(metrics.find({ metric: 'ConsumedReadCapacityUnits', table: 'orders', index: 'by-day' }), undefined);
    metrics.dropTable('orders');
    assert.deepEqual(
      [...metrics.all()].map((series) => series.key),
      [{ metric: 'ConsumedReadCapacityUnits', table: 'users' }, { metric: 'UserErrors' }],
    );
  });
});

describe('metrics store: series keys follow CloudWatch dimensions', () => {
  const metrics = new MetricsRegistry();

  test('each metric accepts exactly its dimensions', () => {
    assert.ok(metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders' }));
    assert.ok(metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders', index: 'by-day' }));
    assert.ok(metrics.series({ metric: 'ThrottledRequests', table: 'orders', operation: 'BatchWriteItem' }));
    assert.ok(metrics.series({ metric: 'UserErrors' }));
    assert.ok(metrics.series({ metric: 'OnlineIndexPercentageProgress', table: 'orders', index: 'by-day' }));
    assert.ok(metrics.series({ metric: 'ConditionalCheckFailedRequests', table: 'orders' }));
  });

  test('dimensions a metric does not have are refused', () => {
    assert.throws(() => metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders', operation: 'GetItem' }), /no Operation/);
    assert.throws(() => metrics.series({ metric: 'ConsumedReadCapacityUnits' }), /needs a table/);
    assert.throws(() => metrics.series({ metric: 'ThrottledRequests', table: 'orders' }), /needs an Operation/);
    assert.throws(() => metrics.series({ metric: 'ThrottledRequests', table: 'orders', index: 'i', operation: 'GetItem' }), /no GlobalSecondaryIndexName/);
    assert.throws(() => metrics.series({ metric: 'UserErrors', table: 'orders' }), /no TableName/);
    assert.throws(() => metrics.series({ metric: 'OnlineIndexPercentageProgress', table: 'orders' }), /needs a index/);
    assert.throws(() => metrics.series({ metric: 'ConditionalCheckFailedRequests', table: 'orders', index: 'i' }), /no GlobalSecondaryIndexName/);
    assert.throws(() => metrics.series({ metric: 'Nope' as 'UserErrors' }), /unknown metric/);
    assert.throws(() => metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'x'.repeat(256) }), /1 to 255/);
  });

  test('the catalog holds the 21 metrics of the issue, TimeToLiveDeletedItemCount and TransactionConflict, the 8 per-reason throttle metrics among them', () => {
    assert.equal(METRICS.length, 23);
    assert.deepEqual(METRICS.slice(-2).map((metric) => [metric.name, metric.dimensions]), [
      ['TimeToLiveDeletedItemCount', 'table'],
      ['TransactionConflict', 'table'],
    ]);
    const perReason = /^(Read|Write)(KeyRangeThroughput|ProvisionedThroughput|AccountLimit|MaxOnDemandThroughput)ThrottleEvents$/;
    assert.equal(METRICS.filter((metric) => perReason.test(metric.name)).length, 8);
    assert.equal(OPERATION_NAMES.length, 13);
  });
});

describe('metrics store: queries', () => {
  const metrics = new MetricsRegistry();
  metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders' }).record(2, T0);
  metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders', index: 'by-day' }).record(7, T0);
  metrics.series({ metric: 'SuccessfulRequestLatency', table: 'orders', operation: 'Query' }).record(4, T0);
  metrics.series({ metric: 'SuccessfulRequestLatency', table: 'orders', operation: 'GetItem' }).record(1, T0);
  metrics.series({ metric: 'UserErrors' }).record(1, T0);
  const now = T0 + 1_000;

  test('without a metric: every metric of the table, per-operation ones for the operations that have series', () => {
    const result = metrics.query({ table: 'orders', periodSeconds: 60 }, now);
    const names = result.metrics.map((metric) => metric.metric + (metric.dimensions.Operation ? '/' + metric.dimensions.Operation : ''));
    assert.ok(names.includes('ConsumedReadCapacityUnits'));
    assert.ok(names.includes('WriteAccountLimitThrottleEvents'), 'metrics without samples are listed, with no datapoints');
    assert.ok(names.includes('SuccessfulRequestLatency/GetItem') && names.includes('SuccessfulRequestLatency/Query'));
    assert.ok(names.indexOf('SuccessfulRequestLatency/GetItem') < names.indexOf('SuccessfulRequestLatency/Query'), 'operations in CloudWatch order');
    assert.ok(!names.includes('UserErrors') && !names.includes('OnlineIndexPercentageProgress'));
    const read = result.metrics.find((metric) => metric.metric === 'ConsumedReadCapacityUnits')!;
    assert.deepEqual(read.dimensions, { TableName: 'orders' });
    assert.equal(read.datapoints[0]!.Sum, 2, "the table's series, not its GSI's");
  });

  test('with an index: the GSI metrics only', () => {
    const result = metrics.query({ table: 'orders', index: 'by-day', periodSeconds: 60 }, now);
    assert.ok(result.metrics.every((metric) => metric.dimensions.GlobalSecondaryIndexName === 'by-day'));
    assert.ok(result.metrics.some((metric) => metric.metric === 'OnlineIndexPercentageProgress'));
    assert.ok(!result.metrics.some((metric) => metric.metric === 'ThrottledRequests' || metric.metric === 'ConditionalCheckFailedRequests'));
    assert.equal(result.metrics.find((metric) => metric.metric === 'ConsumedReadCapacityUnits')!.datapoints[0]!.Sum, 7);
  });

  test('an operation filter and the account-level metric', () => {
    const query = metrics.query({ table: 'orders', operation: 'Query', periodSeconds: 60 }, now);
    assert.deepEqual(
      query.metrics.map((metric) => [metric.metric, metric.dimensions.Operation]),
      [['SuccessfulRequestLatency', 'Query']],
    );
    const userErrors = metrics.query({ metric: 'UserErrors', periodSeconds: 1 }, now);
    assert.deepEqual(userErrors.metrics[0]!.dimensions, {});
    assert.equal(userErrors.metrics[0]!.datapoints[0]!.SampleCount, 1);
  });

  test('startMs and endMs select buckets by their start', () => {
    const local = new MetricsRegistry();
    const series = local.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders' });
    for (let minute = 0; minute < 5; minute++) series.record(minute + 1, T0 + minute * 60_000);
    const result = local.query(tableQuery({ startMs: T0 + 60_000, endMs: T0 + 3 * 60_000 }), T0 + 5 * 60_000);
    assert.deepEqual(
      result.metrics[0]!.datapoints.map((point) => point.Sum),
      [2, 3, 4],
    );
  });

  test('combinations CloudWatch does not have are MetricsQueryErrors', () => {
    const bad: MetricsQuery[] = [
      { periodSeconds: 60 },
      { index: 'by-day', periodSeconds: 60 },
      { table: 'orders', metric: 'UserErrors', periodSeconds: 60 },
      { metric: 'ConsumedReadCapacityUnits', periodSeconds: 60 },
      { table: 'orders', index: 'by-day', metric: 'SuccessfulRequestLatency', periodSeconds: 60 },
      { table: 'orders', metric: 'OnlineIndexPercentageProgress', periodSeconds: 60 },
      { table: 'orders', metric: 'ConsumedReadCapacityUnits', operation: 'GetItem', periodSeconds: 60 },
    ];
    for (const query of bad) assert.throws(() => metrics.query(query, now), MetricsQueryError, JSON.stringify(query));
  });
});

describe('gauges', () => {
  test('backfill progress is the cursor hash as a share of the hash space', () => {
    const prefix = Buffer.from([1, 0, 0, 0, 7]);
    assert.equal(backfillPercent(prefix, 5), 0);
    assert.equal(backfillPercent(Buffer.concat([prefix, Buffer.from([0x80, 0, 0, 0, 9, 9])]), 5), 50);
    assert.equal(backfillPercent(Buffer.concat([prefix, Buffer.from([0x40, 0, 0, 0])]), 5), 25);
  });
});
