/**
 * The primitives under the admission model: the token bucket, the per-second consumption ring and
 * the on-demand peak tracker.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OnDemandPeak } from '../src/capacity/on-demand.js';
import { SecondRing } from '../src/capacity/second-ring.js';
import { TokenBucket } from '../src/capacity/token-bucket.js';
import { MINUTE_MS, SECOND_MS, START_MS } from './support/capacity.js';

describe('TokenBucket', () => {
  test('refills continuously up to its capacity', () => {
    const bucket = new TokenBucket(100, 1000, 0, START_MS);
    bucket.refill(START_MS + 250);
    assert.equal(bucket.tokens, 25);
    bucket.refill(START_MS + 60_000);
    assert.equal(bucket.tokens, 1000);
    assert.equal(bucket.accrued(START_MS + 61_000), 1100, 'accrued ignores the cap');
  });

  test('covers, take, debt for an oversized demand, clamped draws', () => {
    const half = new TokenBucket(10, 20, 10, START_MS);
    assert.ok(half.covers(10));
    assert.ok(!half.covers(10.5), 'more than held but not more than the capacity');
    assert.ok(!half.covers(25), 'larger than the bucket, but the bucket is not full');
    const bucket = new TokenBucket(10, 10, 10, START_MS);
    assert.ok(bucket.covers(25), 'larger than the whole bucket: allowed when full');
    bucket.take(25);
    assert.equal(bucket.tokens, -15);
    assert.ok(!bucket.covers(25), 'not full any more');
    bucket.refill(START_MS + 2500);
    assert.equal(bucket.tokens, 10, 'the debt is paid back at the rate');
    bucket.drawClamped(15);
    assert.equal(bucket.tokens, 0);
    const lender = new TokenBucket(4, 4, 4, START_MS);
    assert.ok(lender.covers(100) && !lender.holds(100), 'holds has no oversized allowance');
    assert.ok(lender.holds(4));
    const empty = new TokenBucket(0, 0, 0, START_MS);
    assert.ok(!empty.covers(1), 'a zero bucket admits nothing, oversized or not');
    assert.ok(empty.covers(0));
  });

  test('reconfigure keeps earned tokens up to the new capacity', () => {
    const bucket = new TokenBucket(10, 3000, 3000, START_MS);
    bucket.reconfigure(1, 300, START_MS + 1000);
    assert.equal(bucket.tokens, 300);
    assert.equal(bucket.ratePerSecond, 1);
    bucket.reconfigure(100, 30_000, START_MS + 2000);
    assert.equal(bucket.tokens, 300, 'the second before was earned at the old rate, into the old capacity');
    bucket.refill(START_MS + 3000);
    assert.equal(bucket.tokens, 400);
  });

  test('settle ends a continuous drain', () => {
    const bucket = new TokenBucket(1000, 1000, 1000, START_MS);
    const accrued = bucket.accrued(START_MS + 5000);
    assert.equal(accrued, 6000);
    bucket.settle(accrued - 5800, START_MS + 5000);
    assert.equal(bucket.tokens, 200);
    bucket.settle(5000, START_MS + 5000);
    assert.equal(bucket.tokens, 1000, 'capped');
  });

  test('time never goes back; rates are finite', () => {
    const bucket = new TokenBucket(1, 1, 1, START_MS);
    assert.throws(() => bucket.refill(START_MS - 1), /time never goes back/);
    assert.throws(() => bucket.accrued(Number.NaN), /finite/);
    assert.throws(() => new TokenBucket(Infinity, 1, 1, START_MS), /finite/);
    assert.throws(() => new TokenBucket(1, -1, 1, START_MS), />= 0/);
  });
});

describe('SecondRing', () => {
  test('last second and last minute over gaps', () => {
    const ring = new SecondRing(START_MS);
    for (let second = 0; second < 120; second++) {
      ring.advance(START_MS + second * SECOND_MS + 500);
      ring.add(second);
    }
    ring.advance(START_MS + 120 * SECOND_MS);
    assert.equal(ring.lastSecondUnits(), 119);
    // Seconds 60..119.
    assert.equal(ring.lastMinuteUnits(), ((60 + 119) * 60) / 2);
    ring.advance(START_MS + 150 * SECOND_MS);
    assert.equal(ring.lastSecondUnits(), 0);
    assert.equal(ring.lastMinuteUnits(), ((90 + 119) * 30) / 2);
    ring.advance(START_MS + 1000 * SECOND_MS);
    assert.equal(ring.lastMinuteUnits(), 0);
    assert.throws(() => ring.advance(START_MS), /time never goes back/);
  });

  test('floorOver: the level held through every second of a stretch', () => {
    const ring = new SecondRing(START_MS);
    const levels = [5, 7, 6, 9, 8];
    levels.forEach((level, second) => {
      ring.advance(START_MS + second * SECOND_MS);
      ring.add(level);
    });
    const last = ring.second;
    assert.equal(ring.floorOver(last, 2), 8);
    assert.equal(ring.floorOver(last, 3), 6);
    assert.equal(ring.floorOver(last, 5), 5);
    assert.equal(ring.floorOver(last, 6), 0, 'a second before the ring began had nothing');
    assert.throws(() => ring.floorOver(last, 61), /1 to 60/);
  });
});

describe('OnDemandPeak', () => {
  const settings = { sustainSeconds: 60, promotionDelayMs: 30 * MINUTE_MS };

  test('a sustained level becomes the peak 30 minutes after its stretch began', () => {
    const peak = new OnDemandPeak(2000, settings);
    const startSecond = START_MS / SECOND_MS;
    // Held 3,000 from startSecond; known sustained at startSecond + 59.
    peak.recordSustained(startSecond + 59, 3000);
    assert.equal(peak.promote(START_MS + 29 * MINUTE_MS), false);
    assert.equal(peak.previousPeakUnitsPerSecond, 2000);
    assert.equal(peak.promote(START_MS + 30 * MINUTE_MS), true);
    assert.equal(peak.previousPeakUnitsPerSecond, 3000);
  });

  test('levels at or below the peak change nothing; raiseTo never lowers', () => {
    const peak = new OnDemandPeak(2000, settings);
    peak.recordSustained(START_MS / SECOND_MS + 59, 1500);
    assert.equal(peak.promote(START_MS + 10 * 60 * MINUTE_MS), false);
    peak.raiseTo(1000);
    assert.equal(peak.previousPeakUnitsPerSecond, 2000);
    peak.raiseTo(4000);
    assert.equal(peak.previousPeakUnitsPerSecond, 4000);
  });

  test('a pending level per minute, promoted in order, with a ring that never wraps', () => {
    const peak = new OnDemandPeak(100, settings);
    const startSecond = START_MS / SECOND_MS;
    // One recording per second for 3 hours, the level rising by 1 each second and promoted as it goes.
    for (let second = 59; second < 3 * 3600; second++) {
      const nowMs = (startSecond + second + 1) * SECOND_MS;
      peak.promote(nowMs);
      peak.recordSustained(startSecond + second, 200 + second);
    }
    const nowMs = START_MS + 3 * 3600 * SECOND_MS;
    peak.promote(nowMs);
    // Stretches that began up to 30 min ago are promoted; the last began at second 3h − 60.
    const promotedStart = 3 * 3600 - 30 * 60;
    const level = peak.previousPeakUnitsPerSecond;
    assert.ok(level >= 200 + promotedStart - 1 && level <= 200 + promotedStart + 59 + 60, `peak ${level}`);
  });
});
