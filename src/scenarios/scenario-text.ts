/**
 * A scenario file's text to the document schema.ts validates: JSON, or YAML for files named
 * `.yaml` / `.yml` (the same document, written the way people write CI and infrastructure files).
 *
 * YAML is read with the `yaml` package's settings that matter here: YAML 1.2's core schema (so
 * `no` stays a string and `010` a number, as in JSON), duplicate keys refused, and at most 100
 * alias expansions, so a "billion laughs" file fails instead of growing without bound.
 */
import { parse as parseYaml } from 'yaml';

/** The text is not the JSON or YAML it claims to be; the message is one line with its place. */
export class ScenarioTextError extends Error {
  override readonly name = 'ScenarioTextError';
}

/** The parsed document; throws ScenarioTextError for malformed text. */
export function parseScenarioText(fileName: string, text: string): unknown {
  const yaml = /\.ya?ml$/i.test(fileName);
  try {
    return yaml ? parseYaml(text, { uniqueKeys: true, maxAliasCount: 100 }) : JSON.parse(text);
  } catch (error) {
    // Any failure of the parser is the text's fault (the alias limit throws a ReferenceError); its
    // first line names the problem and, for YAML, the line and column.
    const detail = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw new ScenarioTextError(`not valid ${yaml ? 'YAML' : 'JSON'}: ${detail}`);
  }
}

/** One line saying why a scenario file could not be read or parsed. */
export function scenarioTextError(error: unknown): string {
  if (error instanceof ScenarioTextError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  return `cannot read it: ${code ?? String(error)}`;
}
