/**
 * Contributor Insights state and recording (src/metrics/insights.ts), without a server: statuses on
 * the injected clock, rule names and modes, the rule quota, and the per-minute top contributors.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ContributorInsights, ruleName, type InsightsTarget } from '../src/metrics/insights.js';

const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

const ORDERS: InsightsTarget = { table: 'orders', tableId: 7, hasSortKey: true };
const USERS: InsightsTarget = { table: 'users', tableId: 8, hasSortKey: false };
const BY_DAY: InsightsTarget = { table: 'orders', index: 'by-day', tableId: 7, indexId: 9, hasSortKey: false };

const s = (value: string) => ({ S: value });

describe('Contributor Insights: statuses and rules', () => {
  test('ENABLE answers ENABLING, settles after the transition delay; DISABLE likewise', () => {
    const insights = new ContributorInsights({ transitionDelayMs: 2_000 });
    assert.deepEqual(insights.describe(ORDERS, T0), { TableName: 'orders', ContributorInsightsStatus: 'DISABLED' });
    assert.deepEqual(insights.update(ORDERS, 'ENABLE', undefined, T0), { status: 'ENABLING', mode: 'ACCESSED_AND_THROTTLED_KEYS' });
    assert.equal(insights.describe(ORDERS, T0 + 1_999).ContributorInsightsStatus, 'ENABLING');
    assert.equal(insights.describe(ORDERS, T0 + 1_999).LastUpdateDateTime, T0 / 1000, 'while settling: the request time');
    const enabled = insights.describe(ORDERS, T0 + 2_000);
    assert.deepEqual(enabled, {
      TableName: 'orders',
      ContributorInsightsRuleList: [
        `DynamoDBContributorInsights-PKC-orders-${T0}`,
        `DynamoDBContributorInsights-SKC-orders-${T0}`,
        `DynamoDBContributorInsights-PKT-orders-${T0}`,
        `DynamoDBContributorInsights-SKT-orders-${T0}`,
      ],
      ContributorInsightsStatus: 'ENABLED',
      LastUpdateDateTime: (T0 + 2_000) / 1000,
      ContributorInsightsMode: 'ACCESSED_AND_THROTTLED_KEYS',
    });
    assert.deepEqual(insights.update(ORDERS, 'DISABLE', undefined, T0 + 5_000), { status: 'DISABLING', mode: 'ACCESSED_AND_THROTTLED_KEYS' });
    assert.deepEqual(insights.describe(ORDERS, T0 + 7_000), {
      TableName: 'orders',
      ContributorInsightsStatus: 'DISABLED',
      LastUpdateDateTime: (T0 + 7_000) / 1000,
      ContributorInsightsMode: 'ACCESSED_AND_THROTTLED_KEYS',
    });
  });

  test('re-enabling the current mode and disabling what is disabled change nothing', () => {
    const insights = new ContributorInsights();
    assert.deepEqual(insights.update(USERS, 'DISABLE', undefined, T0), { status: 'DISABLED', mode: undefined });
    assert.deepEqual(insights.describe(USERS, T0), { TableName: 'users', ContributorInsightsStatus: 'DISABLED' }, 'still never configured');
    insights.update(USERS, 'ENABLE', 'ACCESSED_AND_THROTTLED_KEYS', T0);
    const before = insights.describe(USERS, T0 + 1_000);
    assert.deepEqual(insights.update(USERS, 'ENABLE', undefined, T0 + 1_000), { status: 'ENABLED', mode: 'ACCESSED_AND_THROTTLED_KEYS' });
    assert.deepEqual(insights.describe(USERS, T0 + 1_000), before);
    insights.update(USERS, 'DISABLE', 'THROTTLED_KEYS', T0 + 2_000);
    assert.deepEqual(insights.update(USERS, 'DISABLE', undefined, T0 + 3_000), { status: 'DISABLED', mode: 'ACCESSED_AND_THROTTLED_KEYS' });
  });

  test('a hash-only table or GSI has PKC and PKT; GSI rules name <table>-<index>; THROTTLED_KEYS keeps only *T rules', () => {
    const insights = new ContributorInsights();
    insights.update(BY_DAY, 'ENABLE', undefined, T0);
    assert.deepEqual(insights.describe(BY_DAY, T0).ContributorInsightsRuleList, [
      `DynamoDBContributorInsights-PKC-orders-by-day-${T0}`,
      `DynamoDBContributorInsights-PKT-orders-by-day-${T0}`,
    ]);
    assert.equal(insights.describe(BY_DAY, T0).IndexName, 'by-day');
    insights.update(ORDERS, 'ENABLE', 'THROTTLED_KEYS', T0);
    assert.deepEqual(insights.describe(ORDERS, T0).ContributorInsightsRuleList, [
      `DynamoDBContributorInsights-PKT-orders-${T0}`,
      `DynamoDBContributorInsights-SKT-orders-${T0}`,
    ]);
    assert.equal(ruleName('SKC', { table: 't', index: 'i' }, 12.9), 'DynamoDBContributorInsights-SKC-t-i-12');
  });

  test('a mode change re-enters ENABLING and keeps the throttled-key rules; ENABLE without a mode reverts to ACCESSED_AND_THROTTLED_KEYS', () => {
    const insights = new ContributorInsights({ transitionDelayMs: 1_000 });
    insights.update(ORDERS, 'ENABLE', undefined, T0);
    assert.deepEqual(insights.update(ORDERS, 'ENABLE', 'THROTTLED_KEYS', T0 + 5_000), { status: 'ENABLING', mode: 'THROTTLED_KEYS' });
    assert.deepEqual(insights.describe(ORDERS, T0 + 6_000).ContributorInsightsRuleList, [
      `DynamoDBContributorInsights-PKT-orders-${T0}`,
      `DynamoDBContributorInsights-SKT-orders-${T0}`,
    ]);
    assert.deepEqual(insights.update(ORDERS, 'ENABLE', undefined, T0 + 9_000), { status: 'ENABLING', mode: 'ACCESSED_AND_THROTTLED_KEYS' });
    assert.deepEqual(insights.describe(ORDERS, T0 + 10_000).ContributorInsightsRuleList, [
      `DynamoDBContributorInsights-PKC-orders-${T0 + 9_000}`,
      `DynamoDBContributorInsights-SKC-orders-${T0 + 9_000}`,
      `DynamoDBContributorInsights-PKT-orders-${T0}`,
      `DynamoDBContributorInsights-SKT-orders-${T0}`,
    ]);
  });

  test('re-enabling after DISABLED names new rules', () => {
    const insights = new ContributorInsights();
    insights.update(USERS, 'ENABLE', undefined, T0);
    insights.update(USERS, 'DISABLE', undefined, T0 + 1_000);
    insights.update(USERS, 'ENABLE', undefined, T0 + 2_000);
    assert.deepEqual(insights.describe(USERS, T0 + 2_000).ContributorInsightsRuleList, [
      `DynamoDBContributorInsights-PKC-users-${T0 + 2_000}`,
      `DynamoDBContributorInsights-PKT-users-${T0 + 2_000}`,
    ]);
  });

  test('past the rule quota an ENABLE ends FAILED with LimitExceededException; DISABLE clears it', () => {
    const insights = new ContributorInsights({ ruleQuota: 5, transitionDelayMs: 2_000 });
    insights.update(ORDERS, 'ENABLE', undefined, T0); // 4 rules
    assert.equal(insights.rulesInUse, 4);
    assert.deepEqual(insights.update(USERS, 'ENABLE', undefined, T0), { status: 'ENABLING', mode: 'ACCESSED_AND_THROTTLED_KEYS' });
    const failed = insights.describe(USERS, T0 + 2_000);
    assert.equal(failed.ContributorInsightsStatus, 'FAILED');
    assert.equal(failed.ContributorInsightsRuleList, undefined);
    assert.equal(failed.FailureException?.ExceptionName, 'LimitExceededException');
    assert.match(failed.FailureException!.ExceptionDescription, /^Amazon CloudWatch Contributor Insights rule limit reached\./);
    assert.equal(failed.ContributorInsightsMode, 'ACCESSED_AND_THROTTLED_KEYS');
    assert.equal(insights.rulesInUse, 4, 'a failed enable holds no rules');
    assert.deepEqual(insights.summary(USERS, T0 + 2_000), { TableName: 'users', ContributorInsightsStatus: 'FAILED', ContributorInsightsMode: 'ACCESSED_AND_THROTTLED_KEYS' });

    insights.update(USERS, 'DISABLE', undefined, T0 + 3_000);
    assert.equal(insights.describe(USERS, T0 + 3_000).FailureException?.ExceptionName, 'LimitExceededException', 'shown while DISABLING');
    assert.equal(insights.describe(USERS, T0 + 5_000).FailureException, undefined);
    assert.equal(insights.summary(USERS, T0 + 5_000), undefined, 'DISABLED is not listed');

    // Narrowing the big table frees quota; the retry then succeeds.
    insights.update(ORDERS, 'ENABLE', 'THROTTLED_KEYS', T0 + 6_000);
    insights.update(USERS, 'ENABLE', undefined, T0 + 6_000);
    assert.equal(insights.describe(USERS, T0 + 8_000).ContributorInsightsStatus, 'ENABLED');
    assert.equal(insights.rulesInUse, 4);
  });

  test('a dropped table releases its rules; a recreated table of the same name starts DISABLED', () => {
    const insights = new ContributorInsights({ ruleQuota: 4 });
    insights.update(ORDERS, 'ENABLE', undefined, T0);
    insights.dropTable('orders');
    assert.equal(insights.rulesInUse, 0);
    insights.update(ORDERS, 'ENABLE', undefined, T0);
    const recreated: InsightsTarget = { ...ORDERS, tableId: 70 };
    assert.deepEqual(insights.describe(recreated, T0), { TableName: 'orders', ContributorInsightsStatus: 'DISABLED' });
    assert.equal(insights.rulesInUse, 0);
  });

  test('options are bounded', () => {
    assert.throws(() => new ContributorInsights({ ruleQuota: 0 }), RangeError);
    assert.throws(() => new ContributorInsights({ retentionMinutes: 10_000 }), RangeError);
    assert.throws(() => new ContributorInsights({ transitionDelayMs: -1 }), RangeError);
  });
});

describe('Contributor Insights: top contributors', () => {
  test('accessed keys are measured in read units + 3 × write units, per partition key and per item', () => {
    const insights = new ContributorInsights();
    insights.update(ORDERS, 'ENABLE', undefined, T0);
    insights.recordAccess('orders', undefined, s('alice'), s('o-1'), 1, 0, T0 + 1_000);
    insights.recordAccess('orders', undefined, s('alice'), s('o-2'), 0, 2, T0 + 2_000);
    insights.recordAccess('orders', undefined, s('bob'), s('o-1'), 0.5, 0, T0 + 3_000);
    insights.recordAccess('orders', undefined, { N: '42' }, { B: 'AAE=' }, 0, 1, T0 + 4_000);
    const report = insights.report(ORDERS, T0 + MINUTE);
    const pkc = report.rules.find((rule) => rule.kind === 'PKC')!;
    assert.equal(pkc.measure, 'ConsumedThroughputUnits');
    assert.deepEqual(pkc.minutes, [
      {
        startMs: T0,
        Timestamp: '2026-01-01T00:00:00.000Z',
        complete: true,
        total: 10.5,
        contributors: [
          { keys: ['alice'], value: 7, maxOverestimate: 0 },
          { keys: ['42'], value: 3, maxOverestimate: 0 },
          { keys: ['bob'], value: 0.5, maxOverestimate: 0 },
        ],
      },
    ]);
    const skc = report.rules.find((rule) => rule.kind === 'SKC')!;
    assert.deepEqual(
      skc.minutes[0]!.contributors.map((contributor) => [contributor.keys, contributor.value]),
      [
        [['alice', 'o-2'], 6],
        [['42', 'AAE='], 3],
        [['alice', 'o-1'], 1],
        [['bob', 'o-1'], 0.5],
      ],
    );
    const pkt = report.rules.find((rule) => rule.kind === 'PKT')!;
    assert.deepEqual(pkt.minutes, [], 'nothing throttled');
  });

  test('throttles count per key; THROTTLED_KEYS mode ignores accesses', () => {
    const insights = new ContributorInsights();
    insights.update(USERS, 'ENABLE', 'THROTTLED_KEYS', T0);
    for (let i = 0; i < 5; i++) insights.recordThrottle('users', undefined, s('hot'), undefined, T0 + i);
    insights.recordThrottle('users', undefined, s('warm'), undefined, T0 + 10);
    insights.recordAccess('users', undefined, s('hot'), undefined, 100, 100, T0 + 20);
    const report = insights.report(USERS, T0 + 30);
    assert.deepEqual(
      report.rules.map((rule) => rule.kind),
      ['PKT'],
    );
    assert.deepEqual(report.rules[0]!.minutes[0], {
      startMs: T0,
      Timestamp: '2026-01-01T00:00:00.000Z',
      complete: false,
      total: 6,
      contributors: [
        { keys: ['hot'], value: 5, maxOverestimate: 0 },
        { keys: ['warm'], value: 1, maxOverestimate: 0 },
      ],
    });
  });

  test('one report per minute, kept for the retention; nothing recorded before ENABLED or for another resource', () => {
    const insights = new ContributorInsights({ retentionMinutes: 3, transitionDelayMs: 1_000 });
    insights.update(USERS, 'ENABLE', undefined, T0);
    insights.recordAccess('users', undefined, s('early'), undefined, 1, 0, T0 + 500); // still ENABLING
    insights.recordAccess('users', 'no-such-index', s('x'), undefined, 1, 0, T0 + 2_000);
    insights.recordAccess('orders', undefined, s('x'), s('y'), 1, 0, T0 + 2_000);
    for (let minute = 0; minute < 5; minute++) {
      insights.recordAccess('users', undefined, s(`m${minute}`), undefined, minute + 1, 0, T0 + 2_000 + minute * MINUTE);
    }
    const minutes = insights.report(USERS, T0 + 5 * MINUTE).rules[0]!.minutes;
    assert.deepEqual(
      minutes.map((minute) => [(minute.startMs - T0) / MINUTE, minute.contributors[0]!.keys[0], minute.complete]),
      [
        [2, 'm2', true],
        [3, 'm3', true],
        [4, 'm4', true],
      ],
    );
    assert.equal(insights.report(ORDERS, T0).status, 'DISABLED');
  });

  test('a skewed stream keeps bounded reports with the hot key on top', () => {
    const insights = new ContributorInsights({ sketchCapacity: 16, topContributors: 5 });
    insights.update(USERS, 'ENABLE', undefined, T0);
    for (let i = 0; i < 10_000; i++) {
      const key = i % 4 === 0 ? 'celebrity' : `fan-${i}`;
      insights.recordAccess('users', undefined, s(key), undefined, 1, 0, T0 + i);
    }
    const minute = insights.report(USERS, T0 + MINUTE).rules[0]!.minutes[0]!;
    assert.equal(minute.contributors.length, 5);
    assert.deepEqual(minute.contributors[0]!.keys, ['celebrity']);
    assert.ok(minute.contributors[0]!.value >= 2_500);
    assert.equal(minute.total, 10_000);
  });

  test('recording stops at DISABLE and the rules (and their reports) are gone', () => {
    const insights = new ContributorInsights();
    insights.update(BY_DAY, 'ENABLE', undefined, T0);
    insights.recordAccess('orders', 'by-day', s('2026-01-01'), undefined, 1, 0, T0);
    insights.update(BY_DAY, 'DISABLE', undefined, T0 + 1);
    insights.recordAccess('orders', 'by-day', s('2026-01-01'), undefined, 1, 0, T0 + 2);
    assert.deepEqual(insights.report(BY_DAY, T0 + MINUTE).rules, []);
  });
});
