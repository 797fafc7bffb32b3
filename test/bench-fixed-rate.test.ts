/**
 * The fixed-rate phase's pure parts (issue 21): the schedule arithmetic the generator and its
 * pacer share, the client-side queue count, the answer-head parsing of the raw client, and the
 * in-server probe's allocation and GC arithmetic. No timing is asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientQueueCount, dueBy, intendedNs, nextWakeNs, shouldPing } from '../bench/schedule.js';
import { contentLengthOf, statusOf } from '../bench/raw-connection.js';
import { perRequest, stallsDuring, summariseGcs, type ProbeReport } from '../bench/probe.js';
import { seededRandom } from './support/random.js';

test('requests fall due one per interval from the start, request 0 at once, never more than the total', () => {
  const ns = 100_000; // 10,000 requests/s
  assert.equal(dueBy(-1, ns, 30), 0);
  assert.equal(dueBy(0, ns, 30), 1);
  assert.equal(dueBy(ns - 1, ns, 30), 1);
  assert.equal(dueBy(ns, ns, 30), 2);
  assert.equal(dueBy(29 * ns, ns, 30), 30);
  assert.equal(dueBy(1e12, ns, 30), 30);
  assert.equal(intendedNs(7, ns), 700_000);
  // Every request is due exactly at its intended time, whatever the rate.
  for (const rate of [1, 3, 7_000, 10_000, 123_456]) {
    const per = 1e9 / rate;
    for (const k of [0, 1, 2, 99, 1000]) assert.equal(dueBy(intendedNs(k, per), per, 10_000), k + 1, `rate ${rate}, request ${k}`);
  }
});

test('the pacer wakes at the next due time, or after its minimum interval, and always later than now', () => {
  const ns = 100_000;
  assert.equal(nextWakeNs(0, ns, 20_000), ns);
  assert.equal(nextWakeNs(ns, ns, 20_000), 2 * ns, 'woken exactly on a due time: the next one');
  assert.equal(nextWakeNs(150_000, ns, 20_000), 200_000);
  assert.equal(nextWakeNs(195_000, ns, 20_000), 215_000, 'the minimum interval wins over a due time just ahead');
  // At a rate above 1 / min interval, one wake covers several requests.
  assert.equal(nextWakeNs(1_000, 1_000, 20_000), 21_000);
  for (let now = 0; now < 1e6; now += 37_123) assert.ok(nextWakeNs(now, ns, 0) > now);
});

test('the pacer pings only for requests the main thread does not know are due, one ping at a time', () => {
  assert.equal(shouldPing(5, 4, false), true, 'request 4 fell due since the last pump');
  assert.equal(shouldPing(5, 5, false), false, 'a reply made the main thread pump after it fell due');
  assert.equal(shouldPing(5, 7, false), false);
  assert.equal(shouldPing(6, 4, true), false, 'the pending ping’s pump sends everything due by then');
});

test('requests that waited for a free connection are counted once each, however many pumps they wait', () => {
  const count = new ClientQueueCount();
  count.note(5, 5); // everything due was sent
  assert.equal(count.waited, 0);
  count.note(5, 8); // 3 due requests found every connection busy
  assert.equal(count.waited, 3);
  count.note(5, 9); // still stuck: only request 8 is new
  assert.equal(count.waited, 4);
  count.note(7, 9); // two sent on replies, none new
  assert.equal(count.waited, 4);
  count.note(9, 9);
  count.note(9, 12); // a later burst
  assert.equal(count.waited, 7);
});

test('the raw client reads status and Content-Length from the bytes of an answer head', () => {
  const head = (text: string): Buffer => Buffer.from(text, 'latin1');
  const node = head('HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: 2\r\nDate: x\r\n\r\n{}');
  assert.equal(statusOf(node), 200);
  assert.equal(contentLengthOf(node, node.indexOf('\r\n\r\n')), 2);
  const lower = head('HTTP/1.1 400 Bad Request\r\ncontent-length:   123\r\nx-amzn-requestid: r\r\n\r\n');
  assert.equal(statusOf(lower), 400);
  assert.equal(contentLengthOf(lower, lower.indexOf('\r\n\r\n')), 123);
  const none = head('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\nContent-Length: 5');
  assert.equal(contentLengthOf(none, none.indexOf('\r\n\r\n')), -1, 'a Content-Length in the body does not count');
  const empty = head('HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n');
  assert.equal(contentLengthOf(empty, empty.indexOf('\r\n\r\n')), -1);
});

test('the probe counts allocation from the heap sizes around each collection', () => {
  const gcs = [
    { type: 'Scavenge', pauseUs: 500, usedBeforeBytes: 30_000_000, usedAfterBytes: 12_000_000, copiedBytes: 1_000_000 },
    { type: 'Scavenge', pauseUs: 700, usedBeforeBytes: 28_000_000, usedAfterBytes: 13_000_000, copiedBytes: 3_000_000 },
    { type: 'IncrementalMarking', pauseUs: 100, usedBeforeBytes: 14_000_000, usedAfterBytes: 14_000_000 },
    { type: 'MarkSweepCompact', pauseUs: 4_000, usedBeforeBytes: 15_000_000, usedAfterBytes: 9_000_000 },
  ];
  const { allocatedBytes, gc } = summariseGcs(gcs, 10_000_000, 11_000_000);
  // 20 M before the first, 16 M, 1 M, 1 M between the others, 2 M after the last.
  assert.equal(allocatedBytes, 40_000_000);
  assert.deepEqual(gc['Scavenge'], { count: 2, pauseMs: 1.2, maxPauseMs: 0.7, copiedBytes: 4_000_000 });
  assert.equal(gc['MarkSweepCompact']!.count, 1);
  assert.equal(summariseGcs([], 5_000_000, 7_000_000).allocatedBytes, 2_000_000);
  assert.equal(summariseGcs([], 5_000_000, 4_000_000).allocatedBytes, 0, 'a heap that shrank without a collection allocated nothing we can see');

  const report: ProbeReport = { windowMs: 1000, allocatedBytes, gc, loopStallsOver1Ms: 3, loopStallsWithGc: 2, loopDelayMaxMs: 4.5, rssBytes: 1 };
  const per = perRequest(report, 5_000)!;
  assert.equal(per.allocatedBytesPerRequest, 8_000);
  assert.equal(per.scavengesPer10k, 4);
  assert.ok(Math.abs(per.scavengePauseMsPer10k - 2.4) < 1e-9);
  assert.equal(per.copiedBytesPerScavenge, 2_000_000);
  assert.equal(per.majorGcsPer10k, 2, 'incremental marking steps are pauses, not collections of their own');
  assert.ok(Math.abs(per.majorPauseMsPer10k - 8.2) < 1e-9);
  assert.equal(per.longestPauseMs, 4);
  assert.equal(per.loopStallsOver1MsPer10k, 6);
  assert.equal(per.loopStallsWithGcPer10k, 4);
  assert.equal(perRequest(report, 0), null);
});

test('a stall counts as a collection’s when some pause overlaps it, whatever the order they come in', () => {
  const span = (startMs: number, endMs: number): { startMs: number; endMs: number } => ({ startMs, endMs });
  const pauses = [span(50, 52), span(10, 40), span(12, 13), span(100, 101)];
  assert.equal(stallsDuring([], pauses), 0);
  assert.equal(stallsDuring([span(0, 5)], pauses), 0, 'before every pause');
  assert.equal(stallsDuring([span(0, 11)], pauses), 1, 'overlapping the start of one');
  assert.equal(stallsDuring([span(30, 45)], pauses), 1, 'inside a long pause that began earlier, past a short one');
  assert.equal(stallsDuring([span(41, 49)], pauses), 0, 'between pauses');
  assert.equal(stallsDuring([span(52, 60)], pauses), 0, 'touching the end of one only');
  assert.equal(stallsDuring([span(51, 51.5), span(200, 300), span(99, 100.5)], pauses), 2);
  assert.equal(stallsDuring([span(1, 2)], []), 0);
  // Against a brute-force overlap check on random spans.
  const unit = seededRandom(7);
  const random = (): number => unit() * 1000;
  for (let round = 0; round < 50; round++) {
    const ps = Array.from({ length: 20 }, () => { const a = random(); return span(a, a + random() / 20); });
    const ss = Array.from({ length: 20 }, () => { const a = random(); return span(a, a + random() / 20); });
    const expected = ss.filter((s) => ps.some((p) => p.startMs < s.endMs && p.endMs > s.startMs)).length;
    assert.equal(stallsDuring(ss, ps), expected);
  }
});
