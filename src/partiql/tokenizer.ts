/**
 * The PartiQL lexer: statement text → tokens, with each token's position for the messages that
 * name one (`... at 1:15:7`). Bare words are keywords (lower-cased) when PartiQL reserves them,
 * identifiers otherwise; `"quoted"` names keep their case; `'text'` is a string; numbers keep
 * their source text (converted, with DynamoDB's number rules, only when used as values).
 *
 * Any lexical failure (an unterminated string, comment or quoted name, a character PartiQL does
 * not know, an exponent beyond a 32-bit integer) is reported as DynamoDB reports it: the
 * not-well-formed message with nothing after the colon.
 */
import { syntaxError, type SourceSpan } from './errors.js';
import { FUSED_WORDS, KEYWORDS, WORD_OPERATORS } from './keywords.js';

export type TokenKind =
  | 'identifier'
  | 'quoted'
  | 'keyword'
  | 'operator'
  | 'string'
  | 'number'
  | 'boolean'
  | 'null'
  | 'missing'
  | 'ion'
  | 'parameter'
  | 'punctuation'
  | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /**
   * identifier/quoted: the name; keyword/operator: lower-case word or symbol (fused words joined
   * with `_`); string: its content; number: its source text; punctuation: the symbol.
   */
  readonly text: string;
  readonly span: SourceSpan;
  /** 1-based ordinal of a `?` parameter in the statement. */
  readonly ordinal?: number;
}

/** Longest first, so `<<` is not read as two `<`. */
const SYMBOLS = ['<<', '>>', '<=', '>=', '<>', '!=', '||', ...'()[]{},.:;*+-/%<>=@'];
const PUNCTUATION: ReadonlySet<string> = new Set(['<<', '>>', '(', ')', '[', ']', '{', '}', ',', '.', ':', ';', '*']);
const INT32_MAX = 2147483647;

/** A cursor over the statement text that tracks line and column. */
class Cursor {
  offset = 0;
  line = 1;
  column = 1;

  constructor(readonly text: string) {}

  get done(): boolean {
    return this.offset >= this.text.length;
  }

  peek(ahead = 0): string {
    return this.text.charAt(this.offset + ahead);
  }

  startsWith(prefix: string): boolean {
    return this.text.startsWith(prefix, this.offset);
  }

  advance(count = 1): void {
    for (let index = 0; index < count; index++) {
      if (this.text.charCodeAt(this.offset) === 10) {
        this.line++;
        this.column = 1;
      } else {
        this.column++;
      }
      this.offset++;
    }
  }
}

export function tokenize(statement: string): Token[] {
  const cursor = new Cursor(statement);
  const tokens: Token[] = [];
  let parameters = 0;
  for (;;) {
    skipBlanksAndComments(cursor);
    if (cursor.done) break;
    const token = readToken(cursor, () => ++parameters);
    tokens.push(token);
  }
  tokens.push({ kind: 'eof', text: '', span: { line: cursor.line, column: cursor.column, length: 0 } });
  return fuseWords(tokens);
}

function skipBlanksAndComments(cursor: Cursor): void {
  while (!cursor.done) {
    if (/\s/.test(cursor.peek())) {
      cursor.advance();
    } else if (cursor.startsWith('--')) {
      while (!cursor.done && cursor.peek() !== '\n') cursor.advance();
    } else if (cursor.startsWith('/*')) {
      const end = cursor.text.indexOf('*/', cursor.offset + 2);
      if (end < 0) throw syntaxError('');
      cursor.advance(end + 2 - cursor.offset);
    } else {
      return;
    }
  }
}

function readToken(cursor: Cursor, nextParameter: () => number): Token {
  const start = { line: cursor.line, column: cursor.column };
  const offset = cursor.offset;
  const finish = (kind: TokenKind, text: string, ordinal?: number): Token => ({
    kind,
    text,
    span: { ...start, length: cursor.offset - offset },
    ...(ordinal === undefined ? {} : { ordinal }),
  });
  const char = cursor.peek();
  if (char === "'") return finish('string', readQuoted(cursor, "'"));
  if (char === '"') return finish('quoted', readQuoted(cursor, '"'));
  if (char === '`') return finish('ion', readIon(cursor));
  if (char === '?') {
    cursor.advance();
    return finish('parameter', '?', nextParameter());
  }
  if (isDigit(char) || (char === '.' && isDigit(cursor.peek(1)))) return finish('number', readNumber(cursor));
  if (isWordStart(char)) return wordToken(readWord(cursor), finish);
  const symbol = SYMBOLS.find((candidate) => cursor.startsWith(candidate));
  if (symbol === undefined) throw syntaxError('');
  cursor.advance(symbol.length);
  if (PUNCTUATION.has(symbol)) return finish('punctuation', symbol);
  return finish('operator', symbol === '!=' ? '<>' : symbol);
}

function wordToken(word: string, finish: (kind: TokenKind, text: string) => Token): Token {
  const lower = word.toLowerCase();
  if (!KEYWORDS.has(lower)) return finish('identifier', word);
  if (lower === 'true' || lower === 'false') return finish('boolean', lower);
  if (lower === 'null') return finish('null', lower);
  if (lower === 'missing') return finish('missing', lower);
  if (WORD_OPERATORS.has(lower)) return finish('operator', lower);
  return finish('keyword', lower);
}

/** A `'string'` or `"name"`; the quote doubled inside stands for itself. */
function readQuoted(cursor: Cursor, quote: string): string {
  cursor.advance();
  let value = '';
  for (;;) {
    if (cursor.done) throw syntaxError('');
    const char = cursor.peek();
    cursor.advance();
    if (char !== quote) {
      value += char;
    } else if (cursor.peek() === quote) {
      value += quote;
      cursor.advance();
    } else {
      return value;
    }
  }
}

function readIon(cursor: Cursor): string {
  cursor.advance();
  const end = cursor.text.indexOf('`', cursor.offset);
  if (end < 0) throw syntaxError('');
  const text = cursor.text.slice(cursor.offset, end);
  cursor.advance(end + 1 - cursor.offset);
  return text;
}

/**
 * Digits, an optional fraction and an optional exponent. PartiQL reads the literal as a decimal
 * whose exponent and scale are 32-bit integers; beyond that the lexer fails.
 */
function readNumber(cursor: Cursor): string {
  const start = cursor.offset;
  while (isDigit(cursor.peek())) cursor.advance();
  let fractionDigits = 0;
  if (cursor.peek() === '.') {
    cursor.advance();
    while (isDigit(cursor.peek())) {
      cursor.advance();
      fractionDigits++;
    }
  }
  let exponent = 0;
  const marker = cursor.peek();
  const sign = cursor.peek(1);
  if ((marker === 'e' || marker === 'E') && (isDigit(sign) || ((sign === '+' || sign === '-') && isDigit(cursor.peek(2))))) {
    cursor.advance(isDigit(sign) ? 1 : 2);
    const digitsStart = cursor.offset;
    while (isDigit(cursor.peek())) cursor.advance();
    exponent = Number(cursor.text.slice(digitsStart, cursor.offset)) * (sign === '-' ? -1 : 1);
    if (Math.abs(exponent) > INT32_MAX || Math.abs(fractionDigits - exponent) > INT32_MAX) throw syntaxError('');
  }
  return cursor.text.slice(start, cursor.offset);
}

function readWord(cursor: Cursor): string {
  const start = cursor.offset;
  while (isWordPart(cursor.peek())) cursor.advance();
  return cursor.text.slice(start, cursor.offset);
}

function isDigit(char: string): boolean {
  return char >= '0' && char <= '9';
}

function isWordStart(char: string): boolean {
  return (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || char === '_' || char === '$';
}

function isWordPart(char: string): boolean {
  return isWordStart(char) || isDigit(char);
}

/** Fuses `NOT IN`, `IS NOT`, `INSERT INTO`, `ALL OLD` ... into single tokens, as PartiQL does. */
function fuseWords(tokens: Token[]): Token[] {
  const result: Token[] = [];
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    const next = tokens[index + 1];
    const fused = next === undefined ? undefined : FUSED_WORDS.get(`${wordOf(token)} ${wordOf(next)}`);
    if (fused === undefined || next === undefined) {
      result.push(token);
      continue;
    }
    const kind: TokenKind = fused.startsWith('not_') || fused === 'is_not' ? 'operator' : 'keyword';
    const length = next.span.line === token.span.line ? next.span.column + next.span.length - token.span.column : token.span.length;
    result.push({ kind, text: fused, span: { ...token.span, length } });
    index++;
  }
  return result;
}

function wordOf(token: Token): string {
  return token.kind === 'keyword' || token.kind === 'operator' || token.kind === 'null' || token.kind === 'missing' ? token.text : '';
}
