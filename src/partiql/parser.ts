/**
 * The PartiQL parser: tokens → parse tree (syntax.ts). It follows the shape of the PartiQL
 * reference parser DynamoDB runs — a Pratt (top-down operator precedence) expression parser in
 * which SELECT, UPDATE, DELETE, INSERT INTO and FROM-first DML are terms — because DynamoDB's
 * syntax errors are that parser's messages, and which one a malformed statement gets depends on
 * where that parser gives up. Only the parts of PartiQL DynamoDB can run are modelled; other
 * PartiQL constructs (CASE, CAST, PIVOT ...) stop at their keyword.
 *
 * Every recursion passes through parseExpression, which bounds the nesting depth, so no
 * statement (at most 8 KB) can exhaust the stack.
 */
import { syntaxError, type SourceSpan } from './errors.js';
import { FUNCTION_KEYWORDS, TYPE_NAMES } from './keywords.js';
import type {
  BinaryOperator,
  DmlOperationSyntax,
  DmlSyntax,
  ExpressionSyntax,
  OrderItemSyntax,
  PathStepSyntax,
  ReturningMapping,
  ReturningSyntax,
  SelectItemSyntax,
  SelectSyntax,
  SourceSyntax,
} from './syntax.js';
import { tokenize, type Token } from './tokenizer.js';

/** Nested expressions (parentheses, NOT, lists, maps ...) deeper than this are refused. */
export const NESTING_DEPTH_MAX = 200;

const INFIX_PRECEDENCE: ReadonlyMap<string, number> = new Map([
  ['or', 10],
  ['and', 20],
  ['=', 40],
  ['<>', 40],
  ['is', 40],
  ['is_not', 40],
  ['in', 40],
  ['not_in', 40],
  ['<', 50],
  ['<=', 50],
  ['>', 50],
  ['>=', 50],
  ['between', 50],
  ['not_between', 50],
  ['like', 50],
  ['not_like', 50],
  ['+', 60],
  ['-', 60],
  ['||', 60],
  ['*', 70],
  ['/', 70],
  ['%', 70],
]);
const NOT_PRECEDENCE = 30;
/** Clauses of a SELECT stop at operators weaker than this (PartiQL's SELECT precedence group). */
const SELECT_PRECEDENCE = 6;
const DML_KEYWORDS: ReadonlySet<string> = new Set(['insert_into', 'set', 'remove']);
const JOIN_WORDS: ReadonlySet<string> = new Set(['join', 'cross', 'inner', 'left', 'right', 'full', 'outer']);
const RETURNING_MAPPINGS: ReadonlySet<string> = new Set(['all_old', 'all_new', 'modified_old', 'modified_new']);

export interface ParsedStatement {
  readonly syntax: ExpressionSyntax;
  /** How many `?` parameters the statement has. */
  readonly parameterCount: number;
}

/** Parses a whole statement: one expression, optionally followed by `;`. */
export function parseStatement(statement: string): ParsedStatement {
  const tokens = tokenize(statement);
  const syntax = new Parser(tokens).statement();
  return { syntax, parameterCount: tokens.filter((token) => token.kind === 'parameter').length };
}

class Parser {
  private position = 0;
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  statement(): ExpressionSyntax {
    const expression = this.expression(-1);
    const next = this.peek();
    if (next.kind === 'eof') return expression;
    if (this.isPunctuation(';')) {
      if (this.peek(1).kind === 'eof') return expression;
      throw syntaxError('Unexpected token after semicolon. (Only one query is allowed.)');
    }
    throw syntaxError('Unexpected token after expression');
  }

  // --- token access ---------------------------------------------------------------------------

  private peek(ahead = 0): Token {
    return this.tokens[Math.min(this.position + ahead, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.position++;
    return token;
  }

  private isPunctuation(symbol: string, ahead = 0): boolean {
    const token = this.peek(ahead);
    return token.kind === 'punctuation' && token.text === symbol;
  }

  private isKeyword(word: string, ahead = 0): boolean {
    const token = this.peek(ahead);
    return token.kind === 'keyword' && token.text === word;
  }

  private isOperator(symbol: string, ahead = 0): boolean {
    const token = this.peek(ahead);
    return token.kind === 'operator' && token.text === symbol;
  }

  /** Consumes `symbol` when it is next. */
  private accept(symbol: string): boolean {
    if (!this.isPunctuation(symbol)) return false;
    this.next();
    return true;
  }

  /** Only `EOF` or `; EOF` remain. */
  private atEndOfStatement(): boolean {
    return this.peek().kind === 'eof' || (this.isPunctuation(';') && this.peek(1).kind === 'eof');
  }

  /** PartiQL names a missing token by its token type (`Expected RIGHT_PAREN`). */
  private expectPunctuation(symbol: string, typeName: string): Token {
    if (!this.isPunctuation(symbol)) throw syntaxError(`Expected ${typeName}`);
    return this.next();
  }

  private expectKeyword(word: string): void {
    if (!this.isKeyword(word) && !this.isOperator(word)) throw syntaxError(`Expected ${word.toUpperCase()} keyword`);
    this.next();
  }

  // --- expressions ----------------------------------------------------------------------------

  private expression(precedence: number): ExpressionSyntax {
    if (++this.depth > NESTING_DEPTH_MAX) throw syntaxError('Expression is nested too deeply');
    try {
      let left = this.unary();
      for (;;) {
        const operator = this.infixOperator();
        if (operator === undefined || precedence >= INFIX_PRECEDENCE.get(operator)!) return left;
        left = this.infix(left, operator);
      }
    } finally {
      this.depth--;
    }
  }

  private infixOperator(): string | undefined {
    const token = this.peek();
    if (token.kind === 'operator' && INFIX_PRECEDENCE.has(token.text)) return token.text;
    if (token.kind === 'punctuation' && token.text === '*') return '*';
    return undefined;
  }

  private infix(left: ExpressionSyntax, operator: string): ExpressionSyntax {
    const operatorToken = this.peek();
    const span = operatorToken.span;
    const precedence = INFIX_PRECEDENCE.get(operator)!;
    if (operator === 'is' || operator === 'is_not') {
      this.next();
      return { kind: 'is', negated: operator === 'is_not', subject: left, type: this.typeName(), span };
    }
    if ((operator === 'in' || operator === 'not_in') && this.isPunctuation('(', 1) && !this.isSubqueryStart(2)) {
      this.next();
      const open = this.next();
      const items = this.argumentList();
      this.expectPunctuation(')', 'RIGHT_PAREN');
      return { kind: 'binary', operator, left, right: { kind: 'list', items, span: open.span }, span };
    }
    const right = this.rightOperand(precedence);
    if (operator === 'between' || operator === 'not_between') {
      return this.betweenTail(left, right, operator === 'not_between', span);
    }
    if ((operator === 'like' || operator === 'not_like') && this.isKeyword('escape')) {
      this.next();
      this.expression(precedence);
    }
    return { kind: 'binary', operator: operator as BinaryOperator, left, right, span };
  }

  private isSubqueryStart(ahead: number): boolean {
    return this.isKeyword('select', ahead) || this.isKeyword('values', ahead);
  }

  private rightOperand(precedence: number): ExpressionSyntax {
    if (this.peek(1).kind === 'eof') throw syntaxError('Missing right-hand side expression of infix operator');
    this.next();
    return this.expression(precedence);
  }

  private betweenTail(
    subject: ExpressionSyntax,
    low: ExpressionSyntax,
    negated: boolean,
    span: SourceSpan,
  ): ExpressionSyntax {
    this.expectKeyword('and');
    if (this.atEndOfStatement()) throw syntaxError('Expected expression after AND');
    const high = this.expression(INFIX_PRECEDENCE.get('between')!);
    return { kind: 'between', negated, subject, low, high, span };
  }

  /** The type after IS: a PartiQL type keyword, with optional `(n[, m])` parameters. */
  private typeName(): string {
    const token = this.peek();
    const word = token.kind === 'keyword' || token.kind === 'null' || token.kind === 'missing' ? token.text : '';
    if (!TYPE_NAMES.has(word)) throw syntaxError('Expected type name');
    this.next();
    if (this.isPunctuation('(')) {
      this.next();
      this.argumentList();
      this.expectPunctuation(')', 'RIGHT_PAREN');
    }
    return word;
  }

  private unary(): ExpressionSyntax {
    const token = this.peek();
    if (token.kind !== 'operator' || (token.text !== '+' && token.text !== '-' && token.text !== 'not')) {
      return this.pathTerm(false);
    }
    this.next();
    if (token.text === 'not') {
      return { kind: 'unary', operator: 'not', operand: this.expression(NOT_PRECEDENCE), span: token.span };
    }
    const operand = this.nested(() => this.unary());
    if (operand.kind === 'literal' && operand.literal.type === 'number') {
      // PartiQL folds a sign into a number literal.
      if (token.text === '+') return operand;
      const text = operand.literal.text.startsWith('-') ? operand.literal.text.slice(1) : '-' + operand.literal.text;
      return { kind: 'literal', literal: { type: 'number', text }, span: token.span };
    }
    return { kind: 'unary', operator: token.text, operand, span: token.span };
  }

  /** Runs a recursive step under the depth bound (for recursions that skip parseExpression). */
  private nested<T>(step: () => T): T {
    if (++this.depth > NESTING_DEPTH_MAX) throw syntaxError('Expression is nested too deeply');
    try {
      return step();
    } finally {
      this.depth--;
    }
  }

  /** A term followed by `.name`, `."name"`, `.*`, `[expression]` and `[*]` steps. */
  private pathTerm(simple: boolean): ExpressionSyntax {
    const root = simple ? this.simplePathRoot() : this.term();
    const steps: PathStepSyntax[] = [];
    for (;;) {
      if (this.isPunctuation('.')) {
        this.next();
        steps.push(this.dotStep(simple));
      } else if (this.isPunctuation('[')) {
        steps.push(this.bracketStep(simple));
      } else {
        break;
      }
    }
    return steps.length === 0 ? root : { kind: 'path', root, steps, span: root.span };
  }

  private simplePathRoot(): ExpressionSyntax {
    const token = this.peek();
    if (token.kind !== 'identifier' && token.kind !== 'quoted') throw syntaxError('Expected identifier for simple path');
    this.next();
    return { kind: 'name', name: token.text, span: token.span };
  }

  private dotStep(simple: boolean): PathStepSyntax {
    const token = this.peek();
    if (token.kind === 'identifier' || token.kind === 'quoted') {
      this.next();
      return { kind: 'dot', name: token.text, span: token.span };
    }
    if (token.kind === 'punctuation' && token.text === '*') {
      if (simple) throw syntaxError('Invalid path dot component for simple path');
      this.next();
      return { kind: 'unpivot', span: token.span };
    }
    throw syntaxError('Invalid path dot component');
  }

  private bracketStep(simple: boolean): PathStepSyntax {
    const open = this.next();
    if (this.isPunctuation('*')) {
      this.next();
      this.expectPunctuation(']', 'RIGHT_BRACKET');
      return { kind: 'wildcard', span: open.span };
    }
    const expression = this.expression(-1);
    this.expectPunctuation(']', 'RIGHT_BRACKET');
    if (simple && expression.kind !== 'literal') throw syntaxError('Invalid path component for simple path');
    return { kind: 'index', expression, span: open.span };
  }

  private term(): ExpressionSyntax {
    const token = this.peek();
    switch (token.kind) {
      case 'operator':
        throw syntaxError('Unexpected operator');
      case 'keyword':
        return this.keywordTerm(token);
      case 'punctuation':
        return this.punctuationTerm(token);
      case 'identifier':
      case 'quoted':
        this.next();
        if (this.isPunctuation('(')) return this.call(token);
        return { kind: 'name', name: token.text, span: token.span };
      case 'parameter':
        this.next();
        return { kind: 'parameter', ordinal: token.ordinal!, span: token.span };
      case 'string':
        this.next();
        return { kind: 'literal', literal: { type: 'string', value: token.text }, span: token.span };
      case 'number':
        this.next();
        return { kind: 'literal', literal: { type: 'number', text: token.text }, span: token.span };
      case 'boolean':
        this.next();
        return { kind: 'literal', literal: { type: 'boolean', value: token.text === 'true' }, span: token.span };
      case 'null':
        this.next();
        return { kind: 'literal', literal: { type: 'null' }, span: token.span };
      case 'missing':
        this.next();
        return { kind: 'literal', literal: { type: 'missing' }, span: token.span };
      case 'ion':
        this.next();
        return { kind: 'literal', literal: { type: 'ion', text: token.text }, span: token.span };
      case 'eof':
        throw syntaxError('Unexpected term');
    }
  }

  private keywordTerm(token: Token): ExpressionSyntax {
    const word = token.text;
    if (DML_KEYWORDS.has(word)) return this.dml(undefined, token.span);
    if (word === 'select') return this.select();
    if (word === 'update') return this.update();
    if (word === 'delete') return this.delete();
    if (word === 'from') return this.fromFirst();
    if (FUNCTION_KEYWORDS.has(word) && this.isPunctuation('(', 1)) {
      this.next();
      return this.call(token);
    }
    throw syntaxError('Unexpected keyword');
  }

  private punctuationTerm(token: Token): ExpressionSyntax {
    switch (token.text) {
      case '(': {
        this.next();
        const items = this.argumentList();
        this.expectPunctuation(')', 'RIGHT_PAREN');
        if (items.length === 1) return items[0]!;
        // A row value constructor is a list in PartiQL.
        return { kind: 'list', items, span: token.span };
      }
      case '[':
        this.next();
        return { kind: 'list', items: this.collection(']', 'RIGHT_BRACKET'), span: token.span };
      case '<<':
        this.next();
        return { kind: 'bag', items: this.collection('>>', 'RIGHT_DOUBLE_ANGLE_BRACKET'), span: token.span };
      case '{':
        this.next();
        return this.struct(token.span);
      default:
        throw syntaxError('Unexpected term');
    }
  }

  /** The items of `[...]` or `<<...>>` after the opening symbol, through the closing one. */
  private collection(close: string, closeName: string): ExpressionSyntax[] {
    if (this.isPunctuation(close)) {
      this.next();
      return [];
    }
    const items = this.argumentList();
    this.expectPunctuation(close, closeName);
    return items;
  }

  private struct(span: SourceSpan): ExpressionSyntax {
    const fields: { key: ExpressionSyntax; value: ExpressionSyntax }[] = [];
    if (this.isPunctuation('}')) {
      this.next();
      return { kind: 'struct', fields, span };
    }
    do {
      const key = this.expression(-1);
      this.expectPunctuation(':', 'COLON');
      fields.push({ key, value: this.expression(-1) });
    } while (this.accept(','));
    this.expectPunctuation('}', 'RIGHT_CURLY');
    return { kind: 'struct', fields, span };
  }

  /** Comma-separated expressions (at least one). */
  private argumentList(): ExpressionSyntax[] {
    const items = [this.expression(-1)];
    while (this.isPunctuation(',')) {
      this.next();
      items.push(this.expression(-1));
    }
    return items;
  }

  /** A call; the current token is the `(` after the name. */
  private call(name: Token): ExpressionSyntax {
    this.next();
    const callName = name.text.toLowerCase();
    if (this.isPunctuation('*')) {
      if (callName !== 'count') throw syntaxError(`${name.text}(*) is not allowed`);
      this.next();
      this.expectPunctuation(')', 'RIGHT_PAREN');
      return { kind: 'call', name: callName, args: [], star: true, span: name.span };
    }
    if (this.isPunctuation(')')) {
      this.next();
      return { kind: 'call', name: callName, args: [], star: false, span: name.span };
    }
    if (this.isKeyword('distinct') || this.isKeyword('all')) this.next();
    const args = this.argumentList();
    this.expectPunctuation(')', 'RIGHT_PAREN');
    return { kind: 'call', name: callName, args, star: false, span: name.span };
  }

  // --- SELECT ---------------------------------------------------------------------------------

  private select(): SelectSyntax {
    const selectToken = this.next();
    let distinct = false;
    if (this.isKeyword('distinct')) {
      distinct = true;
      this.next();
    } else if (this.isKeyword('all')) {
      this.next();
    }
    let items: SelectItemSyntax[] | undefined;
    if (this.isKeyword('value')) {
      this.next();
      this.expression(-1);
    } else {
      items = this.selectList();
    }
    if (!this.isKeyword('from')) throw syntaxError('Expected FROM after SELECT list');
    this.next();
    const from = this.source(SELECT_PRECEDENCE, false);
    const where = this.optionalWhere(SELECT_PRECEDENCE);
    const unsupportedClause = this.unsupportedSelectClauses();
    const orderBy = this.optionalOrderBy();
    const trailing = this.limitAndOffset();
    return {
      kind: 'select',
      items,
      distinct,
      from,
      where,
      unsupportedClause: unsupportedClause ?? trailing,
      orderBy,
      span: selectToken.span,
    };
  }

  private selectList(): SelectItemSyntax[] {
    const items: SelectItemSyntax[] = [];
    do {
      items.push(this.selectItem());
    } while (this.accept(','));
    return items;
  }

  private selectItem(): SelectItemSyntax {
    const token = this.peek();
    if (token.kind === 'punctuation' && token.text === '*') {
      this.next();
      return { kind: 'star', span: token.span };
    }
    const expression = this.expression(-1);
    if (expression.kind === 'path' && expression.steps.at(-1)?.kind === 'unpivot') {
      return { kind: 'projectAll', expression, span: expression.span };
    }
    return { kind: 'expression', expression, alias: this.optionalAlias(true) };
  }

  /** `AS name`, or (when `bareAllowed`) a bare name; returns where the alias was written. */
  private optionalAlias(bareAllowed: boolean): SourceSpan | undefined {
    const token = this.peek();
    if (token.kind === 'keyword' && (token.text === 'as' || token.text === 'at' || token.text === 'by')) {
      this.next();
      const name = this.peek();
      if (name.kind !== 'identifier' && name.kind !== 'quoted') {
        throw syntaxError(`Expected identifier for ${token.text.toUpperCase()}-alias`);
      }
      this.next();
      return token.span;
    }
    if (bareAllowed && (token.kind === 'identifier' || token.kind === 'quoted')) {
      this.next();
      return token.span;
    }
    return undefined;
  }

  /** One FROM source with its aliases, then any further sources joined to it. */
  private source(precedence: number, simple: boolean): SourceSyntax {
    const expression = simple ? this.pathTerm(true) : this.expression(precedence);
    let alias = this.optionalAlias(true);
    for (const keyword of ['at', 'by']) {
      if (this.isKeyword(keyword)) alias = alias ?? this.optionalAlias(false);
    }
    let joined = false;
    while (this.isPunctuation(',') || this.isJoinWord()) {
      joined = true;
      this.joinedSource(precedence);
    }
    return { expression, alias, joined };
  }

  private isJoinWord(): boolean {
    const token = this.peek();
    return token.kind === 'keyword' && JOIN_WORDS.has(token.text);
  }

  /** Parses (and discards) a joined source: DynamoDB refuses any join by the mere presence of one. */
  private joinedSource(precedence: number): void {
    if (!this.accept(',')) {
      while (this.isJoinWord()) this.next();
    }
    this.expression(precedence);
    this.optionalAlias(true);
    if (this.isKeyword('on')) {
      this.next();
      this.expression(precedence);
    }
  }

  private optionalWhere(precedence: number): ExpressionSyntax | undefined {
    if (!this.isKeyword('where')) return undefined;
    this.next();
    return this.expression(precedence);
  }

  /** GROUP BY and HAVING parse, and are then refused by name. */
  private unsupportedSelectClauses(): string | undefined {
    let clause: string | undefined;
    if (this.isKeyword('group')) {
      this.next();
      if (this.peek().kind === 'identifier' && this.peek().text.toLowerCase() === 'partial') this.next();
      this.expectKeyword('by');
      this.argumentList();
      clause = 'GROUP BY';
    }
    if (this.isKeyword('having')) {
      this.next();
      this.expression(SELECT_PRECEDENCE);
      clause = clause ?? 'HAVING';
    }
    return clause;
  }

  private optionalOrderBy(): OrderItemSyntax[] | undefined {
    if (!this.isKeyword('order')) return undefined;
    this.next();
    this.expectKeyword('by');
    const items: OrderItemSyntax[] = [];
    do {
      const expression = this.expression(SELECT_PRECEDENCE);
      let descending = false;
      if (this.isKeyword('asc') || this.isKeyword('desc')) descending = this.next().text === 'desc';
      items.push({ expression, descending });
    } while (this.accept(','));
    return items;
  }

  private limitAndOffset(): string | undefined {
    let clause: string | undefined;
    for (const keyword of ['limit', 'offset']) {
      if (!this.isKeyword(keyword)) continue;
      this.next();
      this.expression(SELECT_PRECEDENCE);
      clause = clause ?? keyword.toUpperCase();
    }
    return clause;
  }

  // --- DML ------------------------------------------------------------------------------------

  private update(): DmlSyntax {
    const keyword = this.next();
    const source = this.source(-1, true);
    return this.dml(source, keyword.span);
  }

  private delete(): DmlSyntax {
    const keyword = this.next();
    if (!this.isKeyword('from')) throw syntaxError('Expected FROM after DELETE');
    this.next();
    const source = this.source(-1, true);
    const where = this.optionalWhere(-1);
    const operations: DmlOperationSyntax[] = [{ kind: 'delete', span: keyword.span }];
    return { kind: 'dml', source, operations, where, returning: this.optionalReturning(), span: keyword.span };
  }

  /** `FROM source [WHERE ...] <operations>`: PartiQL's FROM-first DML. */
  private fromFirst(): DmlSyntax {
    const keyword = this.next();
    const source = this.source(-1, false);
    const where = this.optionalWhere(-1);
    const operations = this.operations();
    return { kind: 'dml', source, operations, where, returning: this.optionalReturning(), span: keyword.span };
  }

  /** Operations, then WHERE and RETURNING: UPDATE's shape, and a bare `INSERT INTO`/`SET`. */
  private dml(source: SourceSyntax | undefined, span: SourceSpan): DmlSyntax {
    const operations = this.operations();
    const where = this.optionalWhere(-1);
    return { kind: 'dml', source, operations, where, returning: this.optionalReturning(), span };
  }

  private operations(): DmlOperationSyntax[] {
    const operations: DmlOperationSyntax[] = [];
    while (this.peek().kind === 'keyword' && DML_KEYWORDS.has(this.peek().text)) operations.push(this.operation());
    if (operations.length === 0) throw syntaxError('Expected data manipulation');
    return operations;
  }

  private operation(): DmlOperationSyntax {
    const keyword = this.next();
    if (keyword.text === 'remove') return { kind: 'remove', target: this.pathTerm(true), span: keyword.span };
    if (keyword.text === 'set') return { kind: 'set', assignments: this.assignments(), span: keyword.span };
    const target = this.pathTerm(true);
    if (!this.isKeyword('value')) return { kind: 'insert', target, values: this.expression(-1), span: keyword.span };
    this.next();
    const value = this.expression(-1);
    let position: ExpressionSyntax | undefined;
    if (this.isKeyword('at')) {
      this.next();
      position = this.expression(-1);
    }
    return { kind: 'insertValue', target, value, position, span: keyword.span };
  }

  private assignments(): { target: ExpressionSyntax; value: ExpressionSyntax }[] {
    const assignments: { target: ExpressionSyntax; value: ExpressionSyntax }[] = [];
    do {
      const target = this.pathTerm(true);
      if (!this.isOperator('=')) throw syntaxError("Expected '='");
      this.next();
      assignments.push({ target, value: this.expression(-1) });
    } while (this.accept(','));
    return assignments;
  }

  private optionalReturning(): ReturningSyntax | undefined {
    if (!this.isKeyword('returning')) return undefined;
    this.next();
    const first = this.returningElement();
    let multiple = false;
    while (this.isPunctuation(',')) {
      this.next();
      this.returningElement();
      multiple = true;
    }
    return { ...first, multiple };
  }

  private returningElement(): { mapping: ReturningMapping; star: boolean } {
    const token = this.peek();
    if (token.kind !== 'keyword' || !RETURNING_MAPPINGS.has(token.text)) {
      throw syntaxError('Expected ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause');
    }
    this.next();
    if (this.isPunctuation('*')) {
      this.next();
      return { mapping: token.text as ReturningMapping, star: true };
    }
    this.expression(-1);
    return { mapping: token.text as ReturningMapping, star: false };
  }
}
