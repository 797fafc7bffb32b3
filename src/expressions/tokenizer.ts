/**
 * The one lexer of every DynamoDB expression (condition, filter, key condition, update,
 * projection). DynamoDB uses a single grammar's tokens for all of them, which is why `SET` in a
 * condition or `AND` in an update is a syntax error rather than a reserved-word error.
 *
 * Token rules, as DynamoDB's error messages reveal them:
 * - a name starts with an ASCII letter and continues with letters, digits and `_`
 *   (`_x` fails with `token: "_"`: an underscore cannot start a name);
 * - `#` / `:` followed by at least one of `[A-Za-z0-9_]` is a name / value placeholder;
 *   a lone `#` or `:` is a token of its own that nothing accepts;
 * - list indexes are `0` or a digit string without leading zero (`[01]` reads `0` then `1`);
 * - the operators `= <> < <= > >=`, punctuation `( ) [ ] , .` and `+ -`;
 * - space, tab, CR and LF separate tokens; any other character is a one-character token that no
 *   rule accepts, so the parser reports it as the offending token.
 */

export type KeywordKind = 'AND' | 'OR' | 'NOT' | 'BETWEEN' | 'IN' | 'SET' | 'REMOVE' | 'ADD' | 'DELETE';
export type ComparatorKind = '=' | '<>' | '<' | '<=' | '>' | '>=';
export type PunctuationKind = '(' | ')' | '[' | ']' | ',' | '.' | '+' | '-';

export type TokenKind =
  | 'name'
  | 'nameRef'
  | 'valueRef'
  | 'int'
  | KeywordKind
  | ComparatorKind
  | PunctuationKind
  | 'invalid'
  | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** The text as written; `<EOF>` for the end, as DynamoDB names it in messages. */
  readonly text: string;
  /** UTF-16 offsets into the expression: [start, end). */
  readonly start: number;
  readonly end: number;
}

const KEYWORDS: ReadonlyMap<string, KeywordKind> = new Map<string, KeywordKind>([
  ['AND', 'AND'],
  ['OR', 'OR'],
  ['NOT', 'NOT'],
  ['BETWEEN', 'BETWEEN'],
  ['IN', 'IN'],
  ['SET', 'SET'],
  ['REMOVE', 'REMOVE'],
  ['ADD', 'ADD'],
  ['DELETE', 'DELETE'],
]);

const SINGLE_CHARACTER: ReadonlyMap<string, TokenKind> = new Map<string, TokenKind>([
  ['(', '('],
  [')', ')'],
  ['[', '['],
  [']', ']'],
  [',', ','],
  ['.', '.'],
  ['+', '+'],
  ['-', '-'],
  ['=', '='],
]);

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isWordCharacter(code: number): boolean {
  return isLetter(code) || isDigit(code) || code === 95;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** Splits an expression into tokens; always ends with one `eof` token. Never throws. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  while (position < text.length) {
    const code = text.charCodeAt(position);
    if (isSpace(code)) {
      position++;
      continue;
    }
    const token = readToken(text, position, code);
    tokens.push(token);
    position = token.end;
  }
  tokens.push({ kind: 'eof', text: '<EOF>', start: text.length, end: text.length });
  return tokens;
}

function readToken(text: string, start: number, code: number): Token {
  if (isLetter(code)) return readName(text, start);
  if (code === 35 || code === 58) return readPlaceholder(text, start, code === 35 ? 'nameRef' : 'valueRef');
  if (isDigit(code)) return readInteger(text, start, code);
  if (code === 60 || code === 62) return readAngle(text, start, code);
  const character = text[start]!;
  const kind = SINGLE_CHARACTER.get(character);
  if (kind !== undefined) return { kind, text: character, start, end: start + 1 };
  // One code point, so an astral character is reported whole rather than as half a surrogate pair.
  const point = String.fromCodePoint(text.codePointAt(start)!);
  return { kind: 'invalid', text: point, start, end: start + point.length };
}

function wordEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && isWordCharacter(text.charCodeAt(end))) end++;
  return end;
}

function readName(text: string, start: number): Token {
  const end = wordEnd(text, start + 1);
  const word = text.slice(start, end);
  return { kind: KEYWORDS.get(word.toUpperCase()) ?? 'name', text: word, start, end };
}

function readPlaceholder(text: string, start: number, kind: 'nameRef' | 'valueRef'): Token {
  const end = wordEnd(text, start + 1);
  if (end === start + 1) return { kind: 'invalid', text: text[start]!, start, end: start + 1 };
  return { kind, text: text.slice(start, end), start, end };
}

function readInteger(text: string, start: number, code: number): Token {
  let end = start + 1;
  // `0` is a whole integer token: DynamoDB reads `[01]` as `0` followed by `1`.
  if (code !== 48) while (end < text.length && isDigit(text.charCodeAt(end))) end++;
  return { kind: 'int', text: text.slice(start, end), start, end };
}

function readAngle(text: string, start: number, code: number): Token {
  const next = text.charCodeAt(start + 1);
  if (code === 60 && next === 62) return { kind: '<>', text: '<>', start, end: start + 2 };
  if (next === 61) {
    const kind = code === 60 ? '<=' : '>=';
    return { kind, text: kind, start, end: start + 2 };
  }
  const kind = code === 60 ? '<' : '>';
  return { kind, text: kind, start, end: start + 1 };
}

/**
 * DynamoDB's syntax error text for the token at `index`: the offending token, and the expression
 * text from the start of the token before it to the end of the token after it (so `near` keeps
 * the original spacing: `SET numx = numx * :v` gives `token: "*", near: "numx * :v"`, and a
 * missing end gives `token: "<EOF>", near: "numx"`).
 */
export function syntaxErrorText(text: string, tokens: readonly Token[], index: number): string {
  const token = tokens[index]!;
  const from = index > 0 ? tokens[index - 1]!.start : 0;
  const to = index + 1 < tokens.length ? tokens[index + 1]!.end : token.end;
  return `Syntax error; token: "${token.text}", near: "${text.slice(from, to)}"`;
}
