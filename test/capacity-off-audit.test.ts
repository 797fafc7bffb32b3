/**
 * The whole of test/ runs against servers with throttling on (issue 14): no test may start
 * dynatwin with `capacity: 'off'` / `--capacity off` unless it is about capacity-off itself.
 * This test is the audit, kept true: it finds every test source that mentions capacity "off" and
 * checks it against the list below, with the reason each one needs it. A new use fails here until
 * it is switched to throttling on or added with its reason (docs/CAPACITY-MODEL.md §11).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** dist/test → the repository root (or test/ run from sources). */
const root = [resolve(here, '..', '..'), resolve(here, '..')].find((candidate) => {
  try {
    return readdirSync(join(candidate, 'test')).includes('support');
  } catch {
    return false;
  }
})!;

/** The test sources allowed to run with capacity off, and why. */
const ALLOWED: Readonly<Record<string, string>> = {
  'test/throttling.test.ts': "the test of `capacity: 'off'` itself: the seed loads are not throttled and their consumption is still reported",
  'test/units-property.test.ts': 'units admitted = ConsumedCapacity = Consumed* metrics must hold in both modes, so the property runs with throttling on and off',
};

/** A line that turns capacity off: `capacity: 'off'`, `'--capacity', 'off'`, `--capacity off`, or a capacity variable taking 'off'. */
const CAPACITY_OFF = /capacity['"]?\s*[:=,]\s*['"]off['"]|--capacity[\s=]+off|capacity\b.*['"]off['"]/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('only tests about capacity-off itself start dynatwin with capacity off; every other test runs with throttling on', () => {
  const found = new Map<string, number[]>();
  for (const path of sources(join(root, 'test'))) {
    const name = relative(root, path).split('\\').join('/');
    if (name === 'test/capacity-off-audit.test.ts') continue;
    const lines = readFileSync(path, 'utf8').split('\n');
    lines.forEach((line, at) => {
      if (CAPACITY_OFF.test(line)) found.set(name, [...(found.get(name) ?? []), at + 1]);
    });
  }
  for (const [name, lines] of found) {
    assert.ok(name in ALLOWED, `${name} (lines ${lines.join(', ')}) turns capacity off: run it with throttling on, or list it here with why it is about capacity-off`);
  }
  for (const name of Object.keys(ALLOWED)) assert.ok(found.has(name), `${name} no longer uses capacity off: remove it from the list`);
});
