/**
 * Unit tests of auto scaling's pure rules (src/autoscaling/alarms.ts, model.ts): thresholds, the
 * capacity that meets the target, the datapoint window, alarm states, and how an activity reads
 * while its table is still being updated.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alarmStates, capacityForTarget, DatapointWindow, highThresholdSum, lowThresholdSum } from '../src/autoscaling/alarms.js';
import { activityAt, scalableResourceOf, type ActivityRecord } from '../src/autoscaling/model.js';

test('the capacity for the target: AWS’s example and exact multiples', () => {
  assert.equal(capacityForTarget(150 * 60, 70), 215);
  assert.equal(capacityForTarget(300 * 60, 70), 429);
  assert.equal(capacityForTarget(70 * 60, 70), 100, 'an exact multiple is not rounded up past it');
  assert.equal(capacityForTarget(0, 70), 1, 'never below 1');
  assert.equal(capacityForTarget(20 * 60, 20), 100);
});

test('thresholds: above T % for scale-out, below T − 20 % for scale-in', () => {
  assert.equal(highThresholdSum(70, 200), 8400);
  assert.equal(lowThresholdSum(70, 200), 6000);
  assert.equal(lowThresholdSum(20, 200), 0, 'a 20 % target never scales in on a sum below 0');
});

test('alarm states: 2 datapoints above for AlarmHigh, 15 below for AlarmLow', () => {
  const window = new DatapointWindow();
  assert.deepEqual(alarmStates(window, 70, 200, false), { high: 'INSUFFICIENT_DATA', low: 'INSUFFICIENT_DATA' });
  window.push(9000);
  assert.deepEqual(alarmStates(window, 70, 200, false), { high: 'OK', low: 'OK' });
  window.push(9000);
  assert.equal(alarmStates(window, 70, 200, false).high, 'ALARM');
  window.push(8400);
  assert.equal(alarmStates(window, 70, 200, false).high, 'OK', 'equal to the threshold is not above it');
  for (let minute = 0; minute < 14; minute++) window.push(1000);
  assert.equal(alarmStates(window, 70, 200, false).low, 'OK', '14 below are not 15');
  window.push(1000);
  assert.equal(alarmStates(window, 70, 200, false).low, 'ALARM');
  assert.equal(alarmStates(window, 70, 20, false).low, 'OK', 'the thresholds follow the capacity');
  assert.equal(alarmStates(window, 70, 200, true).low, undefined, 'DisableScaleIn: no low alarm');
});

test('resource ids and dimensions must agree', () => {
  assert.deepEqual(scalableResourceOf('table/orders', 'dynamodb:table:WriteCapacityUnits'), {
    resourceId: 'table/orders', dimension: 'dynamodb:table:WriteCapacityUnits', table: 'orders', index: undefined, direction: 'write',
  });
  assert.equal(scalableResourceOf('table/orders/index/byStatus', 'dynamodb:index:ReadCapacityUnits')?.index, 'byStatus');
  assert.equal(scalableResourceOf('table/orders', 'dynamodb:index:ReadCapacityUnits'), undefined);
  assert.equal(scalableResourceOf('table/orders/index/byStatus', 'dynamodb:table:ReadCapacityUnits'), undefined);
  assert.equal(scalableResourceOf('table/x', 'dynamodb:table:ReadCapacityUnits'), undefined, 'table names are 3 to 255 characters');
});

test('a successful change reads InProgress until its table has finished updating', () => {
  const activity: ActivityRecord = {
    id: 'a', resourceId: 'table/orders', dimension: 'dynamodb:table:WriteCapacityUnits', description: 'Setting write capacity units to 215.',
    cause: 'c', startMs: 1000, endMs: 61_000, statusCode: 'Successful',
    statusMessage: 'Successfully set write capacity units to 215. Change successfully fulfilled by dynamodb.',
  };
  const during = activityAt(activity, 30_000);
  assert.equal(during.statusCode, 'InProgress');
  assert.equal(during.statusMessage, 'Successfully set write capacity units to 215. Waiting for change to be fulfilled by dynamodb.');
  assert.equal(during.ended, false);
  const after = activityAt(activity, 61_000);
  assert.equal(after.statusCode, 'Successful');
  assert.equal(after.ended, true);
});
