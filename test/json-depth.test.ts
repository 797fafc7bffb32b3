/**
 * The request body's nesting-depth scan (server/json-depth.ts) against a byte-by-byte reference:
 * the fast scanner skips string contents with a native search and counts backslash runs, so every
 * verdict is checked on random bodies dense in quotes, backslashes and brackets, split into random
 * chunks (escapes and strings that straddle chunk boundaries).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonDepthScanner, nestsDeeperThan } from '../src/server/json-depth.js';
import { seededRandom } from './support/random.js';

/** The obvious state machine, one byte at a time: the definition the scanner must agree with. */
function referenceDeeperThan(bytes: Uint8Array, depthMax: number): boolean {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (const byte of bytes) {
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === 0x5c) escaped = true;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > depthMax) return true;
    } else if ((byte === 0x5d || byte === 0x7d) && depth > 0) depth--;
  }
  return false;
}

const ALPHABET = ['"', '\\', '[', ']', '{', '}', 'x', 'é', ':', ','];

function randomBody(random: () => number): Buffer {
  const parts: string[] = [];
  const length = Math.floor(random() * 120);
  for (let index = 0; index < length; index++) {
    const roll = random();
    // Now and then a long run of one character, past the short-string fast path.
    if (roll < 0.05) parts.push(ALPHABET[Math.floor(random() * ALPHABET.length)]!.repeat(1 + Math.floor(random() * 40)));
    else parts.push(ALPHABET[Math.floor(random() * ALPHABET.length)]!);
  }
  return Buffer.from(parts.join(''));
}

function scanInChunks(bytes: Buffer, depthMax: number, random: () => number): boolean {
  const scanner = new JsonDepthScanner(depthMax);
  let offset = 0;
  let verdict = false;
  while (offset < bytes.length) {
    const size = random() < 0.3 ? 1 : 1 + Math.floor(random() * 30);
    verdict = scanner.feed(bytes.subarray(offset, offset + size));
    offset += size;
  }
  assert.equal(scanner.exceeded, verdict);
  return verdict;
}

test('the depth scan agrees with a byte-by-byte reference on random bodies and random chunk splits', () => {
  const seed = 160_021;
  const random = seededRandom(seed);
  let deep = 0;
  for (let round = 0; round < 20_000; round++) {
    const body = randomBody(random);
    const depthMax = Math.floor(random() * 6);
    const expected = referenceDeeperThan(body, depthMax);
    if (expected) deep++;
    assert.equal(nestsDeeperThan(body, depthMax), expected, `seed ${seed} round ${round}: ${body.toString()}`);
    assert.equal(scanInChunks(body, depthMax, random), expected, `seed ${seed} round ${round} (chunks): ${body.toString()}`);
  }
  // Both verdicts occur often enough for the comparison to mean something.
  assert.ok(deep > 2_000 && deep < 18_000, `deep verdicts: ${deep}`);
});

test('escapes: a quote after an odd run of backslashes stays inside the string, after an even run it ends it', () => {
  const long = 'x'.repeat(40);
  for (const prefix of ['', long]) {
    assert.equal(nestsDeeperThan(Buffer.from(`"${prefix}\\"[["`), 1), false);
    assert.equal(nestsDeeperThan(Buffer.from(`"${prefix}\\\\"[[`), 1), true);
    assert.equal(nestsDeeperThan(Buffer.from(`"${prefix}\\\\\\"[["`), 1), false);
  }
  // The escaping backslash at the very end of one chunk escapes the next chunk's first byte.
  const scanner = new JsonDepthScanner(1);
  assert.equal(scanner.feed(Buffer.from(`"${long}\\`)), false);
  assert.equal(scanner.feed(Buffer.from('"[[')), false);
  assert.equal(scanner.feed(Buffer.from('"[[')), true);
});
