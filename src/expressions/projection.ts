/**
 * ProjectionExpression: a comma-separated list of document paths (`a.b[2].c`, `#name`), parsed
 * by the shared expression parser (parser.ts: one tokenizer, reserved words and error texts for
 * every expression) and applied to items here.
 */
import { ownMember, setMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import type { ExpressionCache } from './cache.js';
import { parseProjectionPaths } from './parser.js';

export { EXPRESSION_BYTES_MAX, PATH_DEPTH_MAX } from './parser.js';

/** One step of a document path: a map member name or a list index. */
export type PathElement = string | number;
export type DocumentPath = readonly PathElement[];

export interface ParsedProjection {
  readonly paths: readonly DocumentPath[];
}

/**
 * Parses a ProjectionExpression, resolving `#name` placeholders. `usedNames` collects the
 * placeholders seen, so the caller can report unused ones as DynamoDB does. Paths that overlap
 * (`a, a.b`) or conflict (`a[0], a.b`) are refused, as DynamoDB refuses them.
 */
export function parseProjection(
  expression: string,
  names: Readonly<Record<string, string>> | undefined,
  usedNames: Set<string>,
  cache?: ExpressionCache,
): ParsedProjection {
  return { paths: parseProjectionPaths(expression, { names, usedNames, usedValues: new Set() }, cache) };
}

/** The part of `item` that the paths select, shaped like the item (DynamoDB's projection rule). */
export function applyProjection(item: AttributeMap, projection: ParsedProjection): AttributeMap {
  // Attribute names are arbitrary strings: reads take own members only, writes define data
  // properties (so a member named `__proto__` is stored, not taken as the prototype).
  const result: Record<string, AttributeValue> = {};
  for (const path of projection.paths) {
    const first = path[0] as string;
    const value = ownMember(item, first);
    if (value === undefined) continue;
    if (path.length === 1) {
      setMember(result, first, value);
      continue;
    }
    const projected = projectValue(value, path, 1, ownMember(result, first));
    if (projected !== undefined) setMember(result, first, projected);
  }
  return result;
}

/** Projects `path[depth..]` of `value`, merged into what earlier paths already projected. */
function projectValue(
  value: AttributeValue,
  path: DocumentPath,
  depth: number,
  existing: AttributeValue | undefined,
): AttributeValue | undefined {
  if (depth === path.length) return value;
  const step = path[depth]!;
  if (typeof step === 'number') {
    if (!('L' in value) || step >= value.L.length) return existing;
    const existingList = existing !== undefined && 'L' in existing ? existing.L : [];
    const projected = projectValue(value.L[step]!, path, depth + 1, undefined);
    return projected === undefined ? existing : { L: [...existingList, projected] };
  }
  if (!('M' in value)) return existing;
  const member = ownMember(value.M, step);
  if (member === undefined) return existing;
  const existingMap = existing !== undefined && 'M' in existing ? existing.M : {};
  const projected = projectValue(member, path, depth + 1, ownMember(existingMap, step));
  return projected === undefined ? existing : { M: { ...existingMap, [step]: projected } };
}
