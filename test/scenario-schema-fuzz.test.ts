/**
 * Fuzz of the scenario parser (issue 18): the four examples, mutated at random paths (a value
 * replaced by a hostile one, a field removed, an unknown field added), must each parse or fail
 * with a ScenarioError of one line that names a path — never another exception.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { Random } from '../src/scenarios/generators.js';
import { parseScenario, ScenarioError } from '../src/scenarios/schema.js';

const DIRECTORY = fileURLToPath(new URL('../../examples/scenarios/', import.meta.url));
const EXAMPLES = readdirSync(DIRECTORY)
  .filter((name) => name.endsWith('.json'))
  .map((name) => JSON.parse(readFileSync(DIRECTORY + name, 'utf8')) as unknown);

const HOSTILE: readonly unknown[] = [null, -1, 0, 1.5, 1e308, -1e308, '', 'x', '__proto__', true, [], {}, [null], { constructor: 1 }, 'x'.repeat(10_000), { uuid: {} }, { zipf: { n: 1e9 } }];

/** Every path (list of keys) to a value inside `value`. */
function paths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((entry, index) => paths(entry, [...prefix, index], out));
  else if (typeof value === 'object' && value !== null) for (const [key, entry] of Object.entries(value)) paths(entry, [...prefix, key], out);
  return out;
}

function mutate(document: unknown, random: Random): unknown {
  const copy = structuredClone(document) as Record<string, unknown>;
  const all = paths(copy).filter((path) => path.length > 0);
  const mutations = 1 + Math.floor(random.next() * 3);
  for (let count = 0; count < mutations; count++) {
    const path = all[Math.floor(random.next() * all.length)]!;
    let parent: Record<string | number, unknown> = copy;
    for (const key of path.slice(0, -1)) {
      const next = parent[key];
      if (typeof next !== 'object' || next === null) break;
      parent = next as Record<string | number, unknown>;
    }
    const last = path.at(-1)!;
    const roll = random.next();
    if (roll < 0.6) parent[last] = HOSTILE[Math.floor(random.next() * HOSTILE.length)];
    else if (roll < 0.85 && !Array.isArray(parent)) delete parent[last];
    else if (!Array.isArray(parent)) parent[`unknown${count}`] = 1;
  }
  return copy;
}

test('mutated scenarios parse or fail with one line naming a path', () => {
  const random = new Random(18);
  let failed = 0;
  for (let round = 0; round < 3000; round++) {
    const document = mutate(EXAMPLES[round % EXAMPLES.length], random);
    try {
      parseScenario(document);
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw new Error(`not a ScenarioError for ${JSON.stringify(document).slice(0, 300)}: ${String(error)}`);
      assert.doesNotMatch(error.message, /\n/);
      assert.match(error.message, /^\S+: /, error.message);
      failed++;
    }
  }
  assert.ok(failed > 1000, `most mutations are errors: ${failed}`);
  for (const example of EXAMPLES) parseScenario(example);
});
