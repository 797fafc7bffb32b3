/**
 * The request gate (server/request-gate.ts) on its own: admitted requests counted and listed,
 * released once, a drain that ends at the last release or at its bound, answering those left.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GATE_OUT, GATE_REFUSED, RequestGate, type GateEntry } from '../src/server/request-gate.js';

class Entry implements GateEntry {
  gateState = GATE_OUT;
  gatePrevious: GateEntry | undefined = undefined;
  gateNext: GateEntry | undefined = undefined;
  refused = 0;
  refuse(): void {
    this.refused++;
  }
}

describe('request gate', () => {
  test('admits once, releases in any order, and a released entry may be admitted again', () => {
    const gate = new RequestGate();
    const [a, b, c] = [new Entry(), new Entry(), new Entry()];
    gate.admit(a);
    gate.admit(b);
    gate.admit(b);
    gate.admit(c);
    assert.equal(gate.count, 3);
    assert.equal(gate.release(b), true);
    assert.equal(gate.release(a), true);
    assert.equal(gate.count, 1);
    // Never admitted (answered in its own turn): free to answer.
    assert.equal(gate.release(new Entry()), true);
    assert.equal(gate.release(c), true);
    assert.equal(gate.count, 0);
    gate.admit(a);
    assert.equal(gate.count, 1);
  });

  test('a drain with nothing admitted resolves at once; one with requests left answers them at its bound', async () => {
    const gate = new RequestGate();
    assert.throws(() => gate.drain(10), /drain\(\) after close\(\)/);
    const [a, b] = [new Entry(), new Entry()];
    gate.admit(a);
    gate.admit(b);
    gate.close();
    assert.equal(gate.closing, true);
    const drained = gate.drain(20);
    assert.equal(gate.release(a), true);
    assert.equal(await drained, 1);
    assert.equal(a.refused, 0);
    assert.equal(b.refused, 1);
    assert.equal(b.gateState, GATE_REFUSED);
    // Its operation's outcome, when it comes, is dropped.
    assert.equal(gate.release(b), false);
    assert.equal(gate.count, 0);
    assert.equal(await gate.drain(20), 0);
  });

  test('a drain ends with the last release, before its bound', async () => {
    const gate = new RequestGate();
    const entry = new Entry();
    gate.admit(entry);
    gate.close();
    // A bound no test waits for: the release ends the drain.
    const drained = gate.drain(600_000);
    setImmediate(() => gate.release(entry));
    assert.equal(await drained, 0);
    assert.equal(entry.refused, 0);
  });
});
