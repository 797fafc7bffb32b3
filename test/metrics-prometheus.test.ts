/**
 * The Prometheus text exposition of the metrics store (src/metrics/prometheus.ts): family names,
 * HELP and TYPE lines, labels, the values shown (last complete minute, latest gauge sample) and
 * escaping, checked against the 0.0.4 text format's grammar.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { METRICS, snakeCase } from '../src/metrics/catalog.js';
import { escapeHelp, escapeLabelValue, formatValue } from '../src/metrics/prometheus.js';
import { MetricsRegistry } from '../src/metrics/registry.js';

const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

/** One sample line of the text format: name, optional {labels}, a Go float. */
const SAMPLE_LINE = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\[\\"n]|[^\\"\n])*",?)*\})? (NaN|[+-]Inf|-?\d+(\.\d+)?(e[+-]?\d+)?)$/;

function samples(text: string, family: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(family + ' ') || line.startsWith(family + '{'));
}

describe('Prometheus exposition', () => {
  const metrics = new MetricsRegistry();
  const read = metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders' });
  read.record(1.5, T0 + 1_000);
  read.record(2.5, T0 + 2_000);
  read.record(100, T0 + MINUTE + 1_000); // the minute in progress at scrape time
  metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'orders', index: 'by-day' }).record(3, T0 + 5_000);
  metrics.series({ metric: 'ConsumedWriteCapacityUnits', table: 'idle' });
  const latency = metrics.series({ metric: 'SuccessfulRequestLatency', table: 'orders', operation: 'GetItem' });
  latency.record(2, T0 + 1_000);
  latency.record(6, T0 + 2_000);
  metrics.series({ metric: 'SuccessfulRequestLatency', table: 'orders', operation: 'Query' }).record(9, T0 + MINUTE + 1);
  const provisioned = metrics.series({ metric: 'ProvisionedReadCapacityUnits', table: 'orders' });
  provisioned.record(5, T0 + 1_000);
  provisioned.record(25, T0 + MINUTE + 500);
  metrics.series({ metric: 'UserErrors' });
  const text = metrics.prometheus(T0 + MINUTE + 30_000);

  test('one family per CloudWatch metric, dynamodb_<snake_case>, with HELP and TYPE', () => {
    for (const metric of METRICS) {
      const name = 'dynamodb_' + snakeCase(metric.name);
      assert.match(name, /^dynamodb_[a-z]+(_[a-z]+)*$/);
      assert.ok(text.includes(`# TYPE ${name} gauge\n`), name);
      assert.ok(text.includes(`# HELP ${name} `), name);
    }
    assert.ok(text.includes('# TYPE dynamodb_consumed_write_capacity_units gauge'));
    assert.ok(text.includes('# TYPE dynamodb_read_key_range_throughput_throttle_events gauge'));
    assert.ok(text.includes('# TYPE dynamodb_online_index_percentage_progress gauge'));
    assert.ok(text.endsWith('\n'));
  });

  test('counts show the Sum of the last complete minute, 0 for a series without samples there', () => {
    assert.deepEqual(samples(text, 'dynamodb_consumed_read_capacity_units'), [
      'dynamodb_consumed_read_capacity_units{table="orders"} 4',
      'dynamodb_consumed_read_capacity_units{table="orders",index="by-day"} 3',
    ]);
    assert.deepEqual(samples(text, 'dynamodb_consumed_write_capacity_units'), ['dynamodb_consumed_write_capacity_units{table="idle"} 0']);
    assert.deepEqual(samples(text, 'dynamodb_user_errors'), ['dynamodb_user_errors 0'], 'account-level: no labels');
  });

  test('latency shows the Average of the last complete minute, and no line without requests in it', () => {
    assert.deepEqual(samples(text, 'dynamodb_successful_request_latency'), [
      'dynamodb_successful_request_latency{table="orders",operation="GetItem"} 4',
    ]);
  });

  test('provisioned capacity is a gauge showing its latest sample', () => {
    assert.deepEqual(samples(text, 'dynamodb_provisioned_read_capacity_units'), ['dynamodb_provisioned_read_capacity_units{table="orders"} 25']);
    const later = metrics.prometheus(T0 + 4 * 3_600_000);
    assert.deepEqual(samples(later, 'dynamodb_provisioned_read_capacity_units'), [], 'a sample older than the retention is not shown');
  });

  test('dynatwin reports its own series count and refusals', () => {
    assert.ok(text.includes('\ndynatwin_metrics_series 7\n'));
    assert.ok(text.includes('# TYPE dynatwin_metrics_series_rejected_total counter\ndynatwin_metrics_series_rejected_total 0\n'));
  });

  test('every line is a comment or a valid sample line', () => {
    for (const line of text.trimEnd().split('\n')) {
      if (line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
      assert.match(line, SAMPLE_LINE);
    }
  });
});

describe('Prometheus escaping', () => {
  test('label values escape backslash, double quote and line feed', () => {
    assert.equal(escapeLabelValue('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
    assert.equal(escapeLabelValue('plain-name_1.x'), 'plain-name_1.x');
  });

  test('HELP escapes backslash and line feed, not quotes', () => {
    assert.equal(escapeHelp('say "hi"\\\n'), 'say "hi"\\\\\\n');
  });

  test('a label value with every special character survives the page', () => {
    const metrics = new MetricsRegistry();
    metrics.series({ metric: 'ConditionalCheckFailedRequests', table: 'we"ird\\na\nme' }).record(2, T0);
    const text = metrics.prometheus(T0 + MINUTE);
    const lines = samples(text, 'dynamodb_conditional_check_failed_requests');
    assert.deepEqual(lines, ['dynamodb_conditional_check_failed_requests{table="we\\"ird\\\\na\\nme"} 2']);
    assert.match(lines[0]!, SAMPLE_LINE);
  });

  test('special float values use Go syntax', () => {
    assert.equal(formatValue(Number.NaN), 'NaN');
    assert.equal(formatValue(Infinity), '+Inf');
    assert.equal(formatValue(-Infinity), '-Inf');
    assert.equal(formatValue(0.5), '0.5');
  });
});
