/**
 * Scenario files in YAML: the same document as JSON, the same validation and the same one-line
 * errors (exit code 2), plus YAML's own hazards (duplicate keys, alias bombs) refused.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { parseScenario, ScenarioError } from '../src/scenarios/schema.js';
import { parseScenarioText, scenarioTextError } from '../src/scenarios/scenario-text.js';
import { runCli } from './support/process.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/scenarios/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'dynatwin-scenario-yaml-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function shortExample(): Record<string, unknown> {
  const document = JSON.parse(readFileSync(join(EXAMPLES, 'status-gsi.json'), 'utf8')) as { workload: { phases: { durationSeconds: number }[] } };
  document.workload.phases[0]!.durationSeconds = 3;
  return document as unknown as Record<string, unknown>;
}

describe('YAML scenario files', () => {
  test('examples/scenarios/status-gsi.yaml is the same scenario as status-gsi.json', () => {
    const fromYaml = parseScenarioText('status-gsi.yaml', readFileSync(join(EXAMPLES, 'status-gsi.yaml'), 'utf8'));
    const fromJson = JSON.parse(readFileSync(join(EXAMPLES, 'status-gsi.json'), 'utf8')) as unknown;
    assert.deepEqual(fromYaml, fromJson);
    assert.deepEqual(parseScenario(fromYaml), parseScenario(fromJson));
  });

  test('YAML 1.2 scalars: no and 010 are what JSON would make of them', () => {
    assert.deepEqual(parseScenarioText('a.yml', 'answer: no\ncount: 010\nflag: true\n'), { answer: 'no', count: 10, flag: true });
  });

  test('duplicate keys and alias bombs are refused, in one line naming the place', () => {
    const duplicate = captured(() => parseScenarioText('a.yaml', 'seed: 1\nseed: 2\n'));
    assert.match(scenarioTextError(duplicate), /^not valid YAML: Map keys must be unique at line 2, column 1/);
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let level = 1; level <= 9; level++) levels.push(`${String.fromCharCode(97 + level)}: &${String.fromCharCode(97 + level)} [${new Array(10).fill('*' + String.fromCharCode(96 + level)).join(',')}]`);
    const bomb = captured(() => parseScenarioText('bomb.yaml', levels.join('\n') + '\n'));
    assert.match(scenarioTextError(bomb), /^not valid YAML: .*alias/i);
  });

  test('the CLI runs a YAML file as it runs the JSON one', async () => {
    const yamlFile = join(scratch, 'short.yaml');
    const jsonFile = join(scratch, 'short.json');
    writeFileSync(yamlFile, stringify(shortExample()));
    writeFileSync(jsonFile, JSON.stringify(shortExample()));
    const yamlOut = join(scratch, 'yaml-out.json');
    const jsonOut = join(scratch, 'json-out.json');
    const fromYaml = await runCli(['simulate', yamlFile, '--json', yamlOut, '--quiet'], { timeoutMs: 180_000 });
    const fromJson = await runCli(['simulate', jsonFile, '--json', jsonOut, '--quiet'], { timeoutMs: 180_000 });
    assert.equal(fromYaml.status, 0, fromYaml.stderr);
    assert.equal(fromJson.status, 0, fromJson.stderr);
    const totals = (file: string): unknown => (JSON.parse(readFileSync(file, 'utf8')) as { variants: { totals: unknown }[] }).variants.map((variant) => variant.totals);
    assert.deepEqual(totals(yamlOut), totals(jsonOut));
    assert.equal((totals(yamlOut) as { offered: number }[])[0]!.offered, 6_000);
  });

  test('bad YAML and a bad field in a YAML file: one line, exit code 2', async () => {
    const broken = join(scratch, 'broken.yaml');
    writeFileSync(broken, 'name: x\n  variants: [\n');
    const outcome = await runCli(['simulate', broken], { timeoutMs: 120_000 });
    assert.equal(outcome.status, 2);
    assert.equal(outcome.stdout, '');
    assert.equal(outcome.stderr.trimEnd().split('\n').length, 1, outcome.stderr);
    assert.match(outcome.stderr, /^dynatwin simulate: \S+broken\.yaml: not valid YAML: .* at line \d+, column \d+/);

    const document = shortExample();
    (document.workload as { phases: { operations: Record<string, unknown>[] }[] }).phases[0]!.operations[0]!.itemsPerSecond = -5;
    const badField = join(scratch, 'bad-field.yml');
    writeFileSync(badField, stringify(document));
    assert.throws(() => parseScenario(parseScenarioText(badField, readFileSync(badField, 'utf8'))), ScenarioError);
    const refused = await runCli(['simulate', badField], { timeoutMs: 120_000 });
    assert.equal(refused.status, 2);
    assert.equal(refused.stderr.trimEnd().split('\n').length, 1, refused.stderr);
    assert.match(refused.stderr, /bad-field\.yml: workload\.phases\[0\]\.operations\[0\]\.itemsPerSecond: must not be negative/);
  });
});

function captured(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  assert.fail('expected an error');
}
