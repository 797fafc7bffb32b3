/**
 * ProjectionExpression: a comma-separated list of document paths (`a.b[2].c`, `#name`), parsed
 * once and applied to items. This is the projection part of the expression engine; conditions,
 * filters and updates share its path grammar.
 */
import { validationError } from '../errors.js';
import type { AttributeMap, AttributeValue } from '../model/attribute-value.js';

/** One step of a document path: a map member name or a list index. */
export type PathElement = string | number;
export type DocumentPath = readonly PathElement[];

export interface ParsedProjection {
  readonly paths: readonly DocumentPath[];
}

/** Expressions may be at most 4 KB long. */
export const EXPRESSION_BYTES_MAX = 4096;
/** Document paths nest at most 32 levels. */
export const PATH_DEPTH_MAX = 32;

class ExpressionSyntaxError extends Error {}

/**
 * Parses a ProjectionExpression, resolving `#name` placeholders. `usedNames` collects the
 * placeholders seen, so the caller can report unused ones as DynamoDB does.
 */
export function parseProjection(
  expression: string,
  names: Readonly<Record<string, string>> | undefined,
  usedNames: Set<string>,
): ParsedProjection {
  if (expression.length === 0) {
    throw validationError('Invalid ProjectionExpression: The expression can not be empty;');
  }
  if (Buffer.byteLength(expression, 'utf8') > EXPRESSION_BYTES_MAX) {
    throw validationError(
      `Invalid ProjectionExpression: Expression size has exceeded the maximum allowed size; expression size: ${Buffer.byteLength(expression, 'utf8')}`,
    );
  }
  const parser = new PathListParser(expression, names, usedNames);
  try {
    return { paths: parser.parseList() };
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) {
      throw validationError('Invalid ProjectionExpression: ' + error.message);
    }
    throw error;
  }
}

const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_]/;

class PathListParser {
  private position = 0;

  constructor(
    private readonly text: string,
    private readonly names: Readonly<Record<string, string>> | undefined,
    private readonly usedNames: Set<string>,
  ) {}

  parseList(): DocumentPath[] {
    const paths: DocumentPath[] = [this.parsePath()];
    this.skipSpace();
    while (this.peek() === ',') {
      this.position++;
      paths.push(this.parsePath());
      this.skipSpace();
    }
    if (this.position < this.text.length) this.syntaxError(this.tokenAt(this.position));
    return paths;
  }

  private parsePath(): DocumentPath {
    const path: PathElement[] = [this.parseName()];
    for (;;) {
      this.skipSpace();
      const next = this.peek();
      if (next === '.') {
        this.position++;
        path.push(this.parseName());
      } else if (next === '[') {
        this.position++;
        path.push(this.parseIndex());
      } else {
        break;
      }
      if (path.length > PATH_DEPTH_MAX) {
        throw validationError(
          `Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: ${path.length}`,
        );
      }
    }
    return path;
  }

  private parseName(): string {
    this.skipSpace();
    const start = this.position;
    const first = this.peek();
    if (first === '#') {
      this.position++;
      while (this.position < this.text.length && NAME_PART.test(this.text[this.position]!)) this.position++;
      const placeholder = this.text.slice(start, this.position);
      if (placeholder.length === 1) this.syntaxError(this.tokenAt(start));
      const resolved = this.names?.[placeholder];
      if (resolved === undefined) {
        throw validationError(
          `Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: ${placeholder}`,
        );
      }
      this.usedNames.add(placeholder);
      return resolved;
    }
    if (first === undefined || !NAME_START.test(first)) this.syntaxError(this.tokenAt(start));
    while (this.position < this.text.length && NAME_PART.test(this.text[this.position]!)) this.position++;
    return this.text.slice(start, this.position);
  }

  private parseIndex(): number {
    this.skipSpace();
    const start = this.position;
    while (this.position < this.text.length && /[0-9]/.test(this.text[this.position]!)) this.position++;
    if (start === this.position) this.syntaxError(this.tokenAt(start));
    const digits = this.text.slice(start, this.position);
    const index = Number(digits);
    if (!Number.isSafeInteger(index)) this.syntaxError(digits);
    this.skipSpace();
    if (this.peek() !== ']') this.syntaxError(this.tokenAt(this.position));
    this.position++;
    return index;
  }

  private skipSpace(): void {
    while (this.position < this.text.length && /\s/.test(this.text[this.position]!)) this.position++;
  }

  private peek(): string | undefined {
    return this.text[this.position];
  }

  /** The token at `at`, as DynamoDB names it in syntax errors. */
  private tokenAt(at: number): string {
    if (at >= this.text.length) return '<EOF>';
    const match = /^(#?[A-Za-z0-9_]+|.)/s.exec(this.text.slice(at));
    return match![0];
  }

  private syntaxError(token: string): never {
    const near = this.text.slice(Math.max(0, this.position - 1), Math.min(this.text.length, this.position + 1));
    throw new ExpressionSyntaxError(`Syntax error; token: "${token}", near: "${near}"`);
  }
}

/** The part of `item` that the paths select, shaped like the item (DynamoDB's projection rule). */
export function applyProjection(item: AttributeMap, projection: ParsedProjection): AttributeMap {
  const result: Record<string, AttributeValue> = {};
  for (const path of projection.paths) {
    const first = path[0] as string;
    const value = item[first];
    if (value === undefined) continue;
    if (path.length === 1) {
      result[first] = value;
      continue;
    }
    const projected = projectValue(value, path, 1, result[first]);
    if (projected !== undefined) result[first] = projected;
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
  const member = value.M[step];
  if (member === undefined) return existing;
  const existingMap = existing !== undefined && 'M' in existing ? existing.M : {};
  const projected = projectValue(member, path, depth + 1, existingMap[step]);
  return projected === undefined ? existing : { M: { ...existingMap, [step]: projected } };
}
