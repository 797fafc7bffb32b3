/**
 * DynamoDB's expression parser: ConditionExpression, FilterExpression, KeyConditionExpression,
 * UpdateExpression and ProjectionExpression, with DynamoDB's validation rules, their order, and
 * their exact error texts.
 *
 * Parsing runs in two phases, because DynamoDB's errors fall into two groups:
 * 1. Text-only: syntax, redundant parentheses, function names, functions used out of place,
 *    reserved words, list index range, repeated update clauses. These depend on the text alone,
 *    so their outcome (a syntax tree or an error) is what ExpressionCache keeps.
 * 2. Per request: `#name` / `:value` placeholders, operand counts, operand types known from the
 *    values, BETWEEN bounds, overlapping update paths. These run on every call, over the cached
 *    tree, and produce the resolved forms of ast.ts.
 *
 * The order of checks follows what DynamoDB was observed to report when an expression has several
 * faults (dynalite's test suite, which was run against DynamoDB, is the main record):
 * - conditions: syntax > redundant parentheses > function name > function out of place >
 *   reserved word > then each comparison / function condition in text order reports its first of
 *   undefined placeholder > operand count > identical operands > operand types;
 * - updates: syntax > reserved word > function name > repeated clause > undefined name >
 *   undefined value > overlapping paths > conflicting paths > ADD/DELETE operand type > function
 *   operand count and types;
 * - projections: syntax > reserved word > undefined name > overlapping > conflicting paths.
 * Within one category the first fault in reading order wins (inner function before outer).
 *
 * Syntax errors name the first token at which the text stops being the start of any valid
 * expression — where an LL parser such as DynamoDB's must stop — and `near` is the text from the
 * token before it to the token after it (tokenizer.ts).
 */
import { validationError } from '../errors.js';
import type { AttributeValue, ScalarType } from '../model/attribute-value.js';
import { typeOf } from '../model/attribute-value.js';
import { compareScalars } from '../model/compare.js';
import { checkAttributeName } from '../model/validate-item.js';
import type { Comparator, Condition, KeyCondition, Operand, SetValue, UpdateActions } from './ast.js';
import type { ExpressionCache, ParsedText } from './cache.js';
import { sizeOf } from './evaluate.js';
import type { DocumentPath, PathElement } from './projection.js';
import { isReservedWord } from './reserved-words.js';
import { syntaxErrorText, tokenize, type Token, type TokenKind } from './tokenizer.js';

// ---------------------------------------------------------------------------------------------
// Public types and limits

export type ExpressionKind =
  | 'ConditionExpression'
  | 'FilterExpression'
  | 'KeyConditionExpression'
  | 'UpdateExpression'
  | 'ProjectionExpression';

/**
 * The placeholders of one request. Every expression of the request is parsed with the same
 * context, so `usedNames` / `usedValues` end up holding what all of them used; the operation then
 * calls checkUnusedPlaceholders.
 */
export interface ExpressionContext {
  readonly names?: Readonly<Record<string, string>> | undefined;
  readonly values?: Readonly<Record<string, AttributeValue>> | undefined;
  readonly usedNames: Set<string>;
  readonly usedValues: Set<string>;
}

/** Expressions may be at most 4 KB (UTF-8 bytes). */
export const EXPRESSION_BYTES_MAX = 4096;
/** Document paths have at most 32 elements. */
export const PATH_DEPTH_MAX = 32;
/** IN takes at most 100 candidates. */
export const IN_OPERANDS_MAX = 100;
/** List indexes are Java ints. */
const INDEX_MAX = 2147483647;

// ---------------------------------------------------------------------------------------------
// Syntax trees: the text's structure, placeholders unresolved (so they can be cached per text)

export type StepSyntax =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'ref'; readonly ref: string }
  | { readonly kind: 'index'; readonly digits: string };

export interface PathSyntax {
  readonly kind: 'path';
  readonly steps: readonly StepSyntax[];
}

export interface ValueSyntax {
  readonly kind: 'value';
  readonly ref: string;
}

export interface CallSyntax {
  readonly kind: 'call';
  readonly name: string;
  readonly args: readonly OperandSyntax[];
}

export type OperandSyntax = PathSyntax | ValueSyntax | CallSyntax;

/** A comparison, BETWEEN, IN or a function used as a condition: what DynamoDB validates as a unit. */
export type LeafSyntax<O> =
  | { readonly kind: 'compare'; readonly comparator: Comparator; readonly left: O; readonly right: O }
  | { readonly kind: 'between'; readonly subject: O; readonly low: O; readonly high: O }
  | { readonly kind: 'in'; readonly subject: O; readonly candidates: readonly O[] }
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly O[] };

export type TreeOf<L> =
  | L
  | { readonly kind: 'and' | 'or'; readonly left: TreeOf<L>; readonly right: TreeOf<L> }
  | { readonly kind: 'not'; readonly operand: TreeOf<L> };

export type ConditionSyntax = TreeOf<LeafSyntax<OperandSyntax>>;

export type SetValueSyntax =
  | OperandSyntax
  | { readonly kind: 'arithmetic'; readonly operator: '+' | '-'; readonly left: OperandSyntax; readonly right: OperandSyntax };

export type ClauseKeyword = 'SET' | 'REMOVE' | 'ADD' | 'DELETE';

export type UpdateActionSyntax =
  | { readonly clause: 'SET'; readonly path: PathSyntax; readonly value: SetValueSyntax }
  | { readonly clause: 'REMOVE'; readonly path: PathSyntax }
  | { readonly clause: 'ADD' | 'DELETE'; readonly path: PathSyntax; readonly value: ValueSyntax };

export interface ClauseSyntax {
  readonly keyword: ClauseKeyword;
  readonly actions: readonly UpdateActionSyntax[];
}

export interface UpdateSyntax {
  readonly clauses: readonly ClauseSyntax[];
}

export type Grammar = 'condition' | 'update' | 'projection';

/** A failure whose message still lacks the `Invalid <kind>: ` prefix. */
class ExpressionFailure extends Error {}

function failWith(message: string): never {
  throw new ExpressionFailure(message);
}

function redundantParentheses(): never {
  return failWith('The expression has redundant parentheses;');
}

// ---------------------------------------------------------------------------------------------
// Phase 1a: the recursive-descent parser

const COMPARATORS: ReadonlySet<TokenKind> = new Set<TokenKind>(['=', '<>', '<', '<=', '>', '>=']);
const CLAUSE_KEYWORDS: ReadonlySet<TokenKind> = new Set<TokenKind>(['SET', 'REMOVE', 'ADD', 'DELETE']);

/** What a parenthesised group of a condition holds: a condition, or (only directly) an operand. */
type GroupItem = ConditionSyntax | { readonly kind: 'bare'; readonly operand: PathSyntax | ValueSyntax };

/** One open parenthesis level of a condition (or the whole expression). */
interface Frame {
  readonly parenthesised: boolean;
  readonly items: GroupItem[];
  readonly operators: ('AND' | 'OR' | 'NOT')[];
}

class Parser {
  private position = 0;
  /** Nodes that a pair of parentheses directly encloses; a second pair around one is redundant. */
  private readonly enclosed = new Set<object>();

  constructor(
    private readonly text: string,
    private readonly tokens: readonly Token[],
  ) {}

  // --- token access -------------------------------------------------------------------------

  private peek(offset = 0): TokenKind {
    return this.tokens[Math.min(this.position + offset, this.tokens.length - 1)]!.kind;
  }

  private advance(): Token {
    return this.tokens[this.position++]!;
  }

  private expect(kind: TokenKind): Token {
    if (this.peek() !== kind) this.syntaxError();
    return this.advance();
  }

  private syntaxError(): never {
    return failWith(syntaxErrorText(this.text, this.tokens, this.position));
  }

  expectEnd(): void {
    if (this.peek() !== 'eof') this.syntaxError();
  }

  // --- operands -----------------------------------------------------------------------------

  /**
   * A document path: a name or `#name`, then `.name` / `.#name` / `[index]` steps. A path never
   * continues after a closing parenthesis or a function call (`(a).b`, `size(a).b` are errors).
   */
  parsePath(): PathSyntax {
    const steps: StepSyntax[] = [this.pathName()];
    for (;;) {
      const kind = this.peek();
      if (kind === '.') {
        this.advance();
        steps.push(this.pathName());
      } else if (kind === '[') {
        this.advance();
        steps.push({ kind: 'index', digits: this.expect('int').text });
        this.expect(']');
      } else {
        return { kind: 'path', steps };
      }
    }
  }

  private pathName(): StepSyntax {
    const kind = this.peek();
    if (kind === 'name') return { kind: 'name', name: this.advance().text };
    if (kind === 'nameRef') return { kind: 'ref', ref: this.advance().text };
    return this.syntaxError();
  }

  /**
   * An operand: a path, a `:value`, a function call, or one of those in parentheses. Leading
   * parentheses are counted rather than recursed into, and a call's arguments cost two stack
   * frames per level, so the deepest nesting 4 KB allows (~1,365 calls) fits the stack easily.
   */
  parseOperand(): OperandSyntax {
    let opened = 0;
    while (this.peek() === '(') {
      this.advance();
      opened++;
    }
    const operand = this.operandCore();
    for (let closed = 0; closed < opened; closed++) {
      this.expect(')');
      // Reported when the outer of two parentheses around one operand is read, as DynamoDB does.
      if (closed > 0) redundantParentheses();
    }
    return operand;
  }

  private operandCore(): OperandSyntax {
    const kind = this.peek();
    if (kind === 'valueRef') return { kind: 'value', ref: this.advance().text };
    if (kind === 'name' && this.peek(1) === '(') {
      const name = this.advance().text;
      this.advance();
      const args: OperandSyntax[] = [this.parseOperand()];
      while (this.peek() === ',') {
        this.advance();
        args.push(this.parseOperand());
      }
      this.expect(')');
      return { kind: 'call', name, args };
    }
    if (kind === 'name' || kind === 'nameRef') return this.parsePath();
    return this.syntaxError();
  }

  private parseOperandList(): OperandSyntax[] {
    const operands = [this.parseOperand()];
    while (this.peek() === ',') {
      this.advance();
      operands.push(this.parseOperand());
    }
    return operands;
  }

  // --- conditions ---------------------------------------------------------------------------

  /**
   * A condition: OR of ANDs of NOT-prefixed primaries, where a primary is a comparison, BETWEEN,
   * IN, a function call, or a parenthesised condition. Precedence NOT > AND > OR, both binary
   * operators left-associative.
   *
   * Parenthesised conditions are handled with an explicit stack of frames rather than recursion:
   * an expression may hold ~4,000 open parentheses, deeper than the JavaScript stack allows. A
   * `(` here may also open a parenthesised *operand* (`(a) = b`), which is only known once the
   * group closes; a group whose whole content is one operand comes back as a 'bare' item.
   */
  parseCondition(): ConditionSyntax {
    const frames: Frame[] = [{ parenthesised: false, items: [], operators: [] }];
    for (;;) {
      const frame = frames[frames.length - 1]!;
      const kind = this.peek();
      if (kind === 'NOT') {
        this.advance();
        frame.operators.push('NOT');
        continue;
      }
      if (kind === '(') {
        this.advance();
        frames.push({ parenthesised: true, items: [], operators: [] });
        continue;
      }
      const leaf = this.leafAfter(this.parseOperand(), frame);
      const done = this.afterItem(frames, leaf);
      if (done !== undefined) return done;
    }
  }

  /**
   * Everything after an item of the current frame: binary operators, closing parentheses (which
   * complete items of the enclosing frames), or the end. Returns the condition at the end of the
   * text, or undefined when another item is expected.
   */
  private afterItem(frames: Frame[], first: GroupItem): ConditionSyntax | undefined {
    let item = first;
    for (;;) {
      const frame = frames[frames.length - 1]!;
      attach(frame, item);
      const kind = this.peek();
      if (kind === 'AND' || kind === 'OR') {
        this.advance();
        reduceBefore(frame, kind);
        frame.operators.push(kind);
        return undefined;
      }
      if (kind === ')' && frame.parenthesised) {
        this.advance();
        frames.pop();
        item = this.closeGroup(finish(frame), frames[frames.length - 1]!);
        continue;
      }
      if (kind === 'eof' && !frame.parenthesised) {
        const result = finish(frame);
        // A top-level operand never reaches here: leafAfter refuses it outside parentheses.
        return result as ConditionSyntax;
      }
      return this.syntaxError();
    }
  }

  /** A group just closed: check redundancy, then let an operand group continue as an operand. */
  private closeGroup(content: GroupItem, parent: Frame): GroupItem {
    const node = content.kind === 'bare' ? content.operand : content;
    if (this.enclosed.has(node)) redundantParentheses();
    this.enclosed.add(node);
    if (content.kind === 'bare') return this.leafAfter(content.operand, parent);
    // `(size(a)) > :n`: a parenthesised call is an operand when a comparison follows.
    const next = this.peek();
    if (content.kind === 'call' && (COMPARATORS.has(next) || next === 'BETWEEN' || next === 'IN')) {
      return this.leafAfter(content, parent);
    }
    return content;
  }

  /** What follows a condition's first operand: a comparator, BETWEEN or IN — or nothing. */
  private leafAfter(operand: OperandSyntax, frame: Frame): GroupItem {
    const kind = this.peek();
    if (COMPARATORS.has(kind)) {
      this.advance();
      return { kind: 'compare', comparator: kind as Comparator, left: operand, right: this.parseOperand() };
    }
    if (kind === 'BETWEEN') {
      this.advance();
      const low = this.parseOperand();
      this.expect('AND');
      return { kind: 'between', subject: operand, low, high: this.parseOperand() };
    }
    if (kind === 'IN') {
      this.advance();
      this.expect('(');
      const candidates = this.parseOperandList();
      this.expect(')');
      return { kind: 'in', subject: operand, candidates };
    }
    if (operand.kind === 'call') return operand;
    // An operand alone is only viable as the whole content of parentheses: `(a) = b`.
    if (kind === ')' && frame.parenthesised && frame.items.length === 0 && frame.operators.length === 0) {
      return { kind: 'bare', operand };
    }
    return this.syntaxError();
  }

  // --- updates ------------------------------------------------------------------------------

  /** Clauses `SET …`, `REMOVE …`, `ADD …`, `DELETE …`, each a comma-separated list of actions. */
  parseUpdate(): UpdateSyntax {
    const clauses: ClauseSyntax[] = [];
    do {
      const kind = this.peek();
      if (!CLAUSE_KEYWORDS.has(kind)) this.syntaxError();
      this.advance();
      const keyword = kind as ClauseKeyword;
      const actions = [this.updateAction(keyword)];
      while (this.peek() === ',') {
        this.advance();
        actions.push(this.updateAction(keyword));
      }
      clauses.push({ keyword, actions });
    } while (this.peek() !== 'eof');
    return { clauses };
  }

  private updateAction(keyword: ClauseKeyword): UpdateActionSyntax {
    const path = this.parsePath();
    if (keyword === 'REMOVE') return { clause: 'REMOVE', path };
    if (keyword === 'SET') {
      this.expect('=');
      return { clause: 'SET', path, value: this.parseSetValue() };
    }
    return { clause: keyword, path, value: { kind: 'value', ref: this.expect('valueRef').text } };
  }

  /**
   * `operand`, `operand + operand` or `operand - operand`, the whole or its left operand possibly
   * in parentheses: `(b + c)`, `(b) + c`. One level of arithmetic only (`a + b + c` is an error).
   * Leading parentheses are counted rather than recursed into, for the same reason as conditions.
   */
  parseSetValue(): SetValueSyntax {
    let opened = 0;
    while (this.peek() === '(') {
      this.advance();
      opened++;
    }
    let value: SetValueSyntax = this.parseOperand();
    let closed = 0;
    let closedAroundValue = 0;
    for (;;) {
      const kind = this.peek();
      if (kind === ')' && closed < opened) {
        this.advance();
        closed++;
        if (++closedAroundValue > 1) redundantParentheses();
      } else if ((kind === '+' || kind === '-') && value.kind !== 'arithmetic') {
        this.advance();
        value = { kind: 'arithmetic', operator: kind, left: value, right: this.parseOperand() };
        closedAroundValue = 0;
      } else {
        break;
      }
    }
    if (closed < opened) this.syntaxError();
    return value;
  }

  // --- projections --------------------------------------------------------------------------

  parseProjection(): PathSyntax[] {
    const paths = [this.parsePath()];
    while (this.peek() === ',') {
      this.advance();
      paths.push(this.parsePath());
    }
    return paths;
  }
}

/** Adds a completed item to its frame, applying the NOTs written just before it. */
function attach(frame: Frame, item: GroupItem): void {
  let current = item;
  while (frame.operators[frame.operators.length - 1] === 'NOT') {
    frame.operators.pop();
    current = { kind: 'not', operand: current as ConditionSyntax };
  }
  frame.items.push(current);
}

const PRECEDENCE = { OR: 1, AND: 2 } as const;

/** Applies the pending binary operators that bind at least as tightly as `operator`. */
function reduceBefore(frame: Frame, operator: 'AND' | 'OR'): void {
  for (;;) {
    const top = frame.operators[frame.operators.length - 1];
    if (top === undefined || top === 'NOT' || PRECEDENCE[top] < PRECEDENCE[operator]) return;
    combineTop(frame);
  }
}

function combineTop(frame: Frame): void {
  const operator = frame.operators.pop() as 'AND' | 'OR';
  const right = frame.items.pop() as ConditionSyntax;
  const left = frame.items.pop() as ConditionSyntax;
  frame.items.push({ kind: operator === 'AND' ? 'and' : 'or', left, right });
}

function finish(frame: Frame): GroupItem {
  while (frame.operators.length > 0) combineTop(frame);
  return frame.items[0]!;
}

// ---------------------------------------------------------------------------------------------
// Phase 1b: text-only checks over the syntax tree

const CONDITION_FUNCTIONS: ReadonlyMap<string, number> = new Map([
  ['attribute_exists', 1],
  ['attribute_not_exists', 1],
  ['attribute_type', 2],
  ['begins_with', 2],
  ['contains', 2],
  ['size', 1],
]);

const UPDATE_FUNCTIONS: ReadonlyMap<string, number> = new Map([
  ['if_not_exists', 2],
  ['list_append', 2],
]);

/** Calls of an operand, innermost first — the order DynamoDB reports function faults in. */
function callsPostOrder(operand: OperandSyntax, visit: (call: CallSyntax) => void): void {
  if (operand.kind !== 'call') return;
  for (const argument of operand.args) callsPostOrder(argument, visit);
  visit(operand);
}

/** The operands of a condition leaf, in reading order. */
function leafOperands<O>(leaf: LeafSyntax<O>): readonly O[] {
  switch (leaf.kind) {
    case 'compare':
      return [leaf.left, leaf.right];
    case 'between':
      return [leaf.subject, leaf.low, leaf.high];
    case 'in':
      return [leaf.subject, ...leaf.candidates];
    case 'call':
      return leaf.args;
  }
}

/** The leaves of a condition tree in reading order. */
function forEachLeaf(tree: ConditionSyntax, visit: (leaf: LeafSyntax<OperandSyntax>) => void): void {
  switch (tree.kind) {
    case 'and':
    case 'or':
      forEachLeaf(tree.left, visit);
      forEachLeaf(tree.right, visit);
      return;
    case 'not':
      forEachLeaf(tree.operand, visit);
      return;
    default:
      visit(tree);
  }
}

function conditionFunctionName(call: CallSyntax): void {
  if (UPDATE_FUNCTIONS.has(call.name)) {
    failWith(`The function is not allowed in a condition expression; function: ${call.name}`);
  }
  if (!CONDITION_FUNCTIONS.has(call.name)) failWith(`Invalid function name; function: ${call.name}`);
}

function updateFunctionName(call: CallSyntax): void {
  if (CONDITION_FUNCTIONS.has(call.name)) {
    failWith(`The function is not allowed in an update expression; function: ${call.name}`);
  }
  if (!UPDATE_FUNCTIONS.has(call.name)) failWith(`Invalid function name; function: ${call.name}`);
}

/**
 * `list_append(list_append(a, b), c)` parses but DynamoDB refuses it (Alternator's
 * test_update_expression.py, recorded from DynamoDB); `list_append(if_not_exists(a, :e), b)` is fine.
 */
function refuseNestedListAppend(call: CallSyntax): void {
  if (call.name !== 'list_append') return;
  for (const argument of call.args) if (argument.kind === 'call' && argument.name === 'list_append') misusedFunction('list_append');
}

function misusedFunction(name: string): never {
  return failWith(`The function is not allowed to be used this way in an expression; function: ${name}`);
}

/** Condition functions may not be operands; size() may only be one. Children before parents. */
function checkMisuse(tree: ConditionSyntax): void {
  const node = tree;
  switch (node.kind) {
    case 'and':
    case 'or':
      checkMisuse(node.left);
      checkMisuse(node.right);
      refuseSizeAsCondition(node.left);
      refuseSizeAsCondition(node.right);
      return;
    case 'not':
      checkMisuse(node.operand);
      refuseSizeAsCondition(node.operand);
      return;
    default:
      for (const operand of leafOperands(node)) checkOperandMisuse(operand);
      refuseFunctionOperands(leafOperands(node));
  }
}

function checkOperandMisuse(operand: OperandSyntax): void {
  if (operand.kind !== 'call') return;
  for (const argument of operand.args) checkOperandMisuse(argument);
  refuseFunctionOperands(operand.args);
}

function refuseFunctionOperands(operands: readonly OperandSyntax[]): void {
  for (const operand of operands) {
    if (operand.kind === 'call' && operand.name !== 'size') misusedFunction(operand.name);
  }
}

function refuseSizeAsCondition(tree: ConditionSyntax): void {
  if (tree.kind === 'call' && tree.name === 'size') misusedFunction('size');
}

/** Reserved words written as names, and list indexes beyond a Java int, in reading order. */
function checkPathText(path: PathSyntax): void {
  for (const step of path.steps) {
    if (step.kind === 'name' && isReservedWord(step.name)) {
      failWith(`Attribute name is a reserved keyword; reserved keyword: ${step.name}`);
    }
    if (step.kind === 'index' && (step.digits.length > 10 || Number(step.digits) > INDEX_MAX)) {
      failWith(`List index is not within the allowable range; index: [${step.digits}]`);
    }
  }
}

function checkOperandText(operand: OperandSyntax): void {
  if (operand.kind === 'path') checkPathText(operand);
  else if (operand.kind === 'call') for (const argument of operand.args) checkOperandText(argument);
}

/** DynamoDB's limit on the operators of one expression (AWS's documented quota). */
export const EXPRESSION_OPERATORS_MAX = 300;

/**
 * Comparisons, BETWEEN, IN, AND, OR and NOT count as operators; function calls and parentheses do
 * not. DynamoDB reports the count at which it stopped, `operator count: 301`, whatever the total
 * (Alternator's test_limits.py, recorded from DynamoDB). Iterative: NOTs may nest ~1,000 deep.
 */
function checkOperatorCount(tree: ConditionSyntax): void {
  let count = 0;
  const pending: ConditionSyntax[] = [tree];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.kind !== 'call') count++;
    if (count > EXPRESSION_OPERATORS_MAX) failWith(`The expression contains too many operators; operator count: ${count}`);
    if (node.kind === 'and' || node.kind === 'or') pending.push(node.left, node.right);
    else if (node.kind === 'not') pending.push(node.operand);
  }
}

function checkConditionText(tree: ConditionSyntax): void {
  checkOperatorCount(tree);
  forEachLeaf(tree, (leaf) => {
    for (const operand of leafOperands(leaf)) callsPostOrder(operand, conditionFunctionName);
    if (leaf.kind === 'call') conditionFunctionName(leaf);
  });
  checkMisuse(tree);
  refuseSizeAsCondition(tree);
  forEachLeaf(tree, (leaf) => {
    for (const operand of leafOperands(leaf)) checkOperandText(operand);
  });
}

function setValueOperands(value: SetValueSyntax): readonly OperandSyntax[] {
  return value.kind === 'arithmetic' ? [value.left, value.right] : [value];
}

function checkUpdateText(tree: UpdateSyntax): void {
  const actions = tree.clauses.flatMap((clause) => clause.actions);
  for (const action of actions) {
    checkPathText(action.path);
    if (action.clause === 'SET') for (const operand of setValueOperands(action.value)) checkOperandText(operand);
  }
  for (const action of actions) {
    if (action.clause !== 'SET') continue;
    for (const operand of setValueOperands(action.value)) callsPostOrder(operand, updateFunctionName);
  }
  for (const action of actions) {
    if (action.clause !== 'SET') continue;
    for (const operand of setValueOperands(action.value)) callsPostOrder(operand, refuseNestedListAppend);
  }
  const seen = new Set<ClauseKeyword>();
  for (const clause of tree.clauses) {
    if (seen.has(clause.keyword)) {
      failWith(`The "${clause.keyword}" section can only be used once in an update expression;`);
    }
    seen.add(clause.keyword);
  }
}

// ---------------------------------------------------------------------------------------------
// Phase 1 entry: text → syntax tree or text-level error, through the cache

function parseText(grammar: Grammar, text: string): ParsedText {
  const tokens = tokenize(text);
  const parser = new Parser(text, tokens);
  try {
    if (grammar === 'condition') {
      const tree = parser.parseCondition();
      checkConditionText(tree);
      return { grammar, tree };
    }
    if (grammar === 'update') {
      const tree = parser.parseUpdate();
      checkUpdateText(tree);
      return { grammar, tree };
    }
    const tree = parser.parseProjection();
    parser.expectEnd();
    for (const path of tree) checkPathText(path);
    return { grammar, tree };
  } catch (error) {
    if (error instanceof ExpressionFailure) return { grammar, error: error.message };
    throw error;
  }
}

function parsedText(grammar: Grammar, text: string, cache: ExpressionCache | undefined): ParsedText {
  const cached = cache?.get(grammar, text);
  if (cached !== undefined) return cached;
  const parsed = parseText(grammar, text);
  cache?.set(grammar, text, parsed);
  return parsed;
}

/** Empty and oversized expressions are refused before any parsing. */
function checkSize(text: string): void {
  if (text.length === 0) failWith('The expression can not be empty;');
  // A UTF-16 code unit never takes more than 3 UTF-8 bytes, so short texts need no counting.
  if (text.length * 3 <= EXPRESSION_BYTES_MAX) return;
  const size = Buffer.byteLength(text, 'utf8');
  if (size > EXPRESSION_BYTES_MAX) {
    failWith(`Expression size has exceeded the maximum allowed size; expression size: ${size}`);
  }
}

/** Runs `body`, turning internal failures into DynamoDB's ValidationException for `kind`. */
function withKind<T>(kind: ExpressionKind, body: () => T): T {
  try {
    return body();
  } catch (error) {
    if (error instanceof ExpressionFailure) throw validationError(`Invalid ${kind}: ${error.message}`);
    throw error;
  }
}

/** The syntax tree of `text`, from the cache when it has it; throws the text's own error. */
function syntaxFor(grammar: Grammar, text: string, cache: ExpressionCache | undefined): Exclude<ParsedText, { error: string }> {
  checkSize(text);
  const parsed = parsedText(grammar, text, cache);
  if ('error' in parsed) return failWith(parsed.error);
  if (parsed.grammar !== grammar) throw new Error('assertion failed: cache answered for another grammar');
  return parsed;
}

function conditionSyntax(text: string, cache: ExpressionCache | undefined): ConditionSyntax {
  const parsed = syntaxFor('condition', text, cache);
  if (parsed.grammar !== 'condition') throw new Error('assertion failed: condition grammar expected');
  return parsed.tree;
}

function updateSyntax(text: string, cache: ExpressionCache | undefined): UpdateSyntax {
  const parsed = syntaxFor('update', text, cache);
  if (parsed.grammar !== 'update') throw new Error('assertion failed: update grammar expected');
  return parsed.tree;
}

function projectionSyntax(text: string, cache: ExpressionCache | undefined): readonly PathSyntax[] {
  const parsed = syntaxFor('projection', text, cache);
  if (parsed.grammar !== 'projection') throw new Error('assertion failed: projection grammar expected');
  return parsed.tree;
}

// ---------------------------------------------------------------------------------------------
// Phase 2: placeholders and value-dependent checks

/** An operand with its placeholders resolved; calls kept until all checks have run. */
export type ResolvedOperand =
  | { readonly kind: 'path'; readonly path: DocumentPath }
  | { readonly kind: 'value'; readonly value: AttributeValue }
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly ResolvedOperand[] };

export type ResolvedCondition = TreeOf<LeafSyntax<ResolvedOperand>>;

class Resolver {
  constructor(private readonly context: ExpressionContext) {}

  name(reference: string): string {
    const names = this.context.names;
    if (names === undefined || !Object.hasOwn(names, reference)) {
      failWith(`An expression attribute name used in the document path is not defined; attribute name: ${reference}`);
    }
    this.context.usedNames.add(reference);
    return names[reference]!;
  }

  value(reference: string): AttributeValue {
    const values = this.context.values;
    if (values === undefined || !Object.hasOwn(values, reference)) {
      failWith(`An expression attribute value used in expression is not defined; attribute value: ${reference}`);
    }
    this.context.usedValues.add(reference);
    return values[reference]!;
  }

  path(syntax: PathSyntax): DocumentPath {
    const path: PathElement[] = syntax.steps.map((step) => {
      if (step.kind === 'name') return step.name;
      if (step.kind === 'ref') return this.name(step.ref);
      return Number(step.digits);
    });
    if (path.length > PATH_DEPTH_MAX) {
      failWith(`The document path has too many nesting levels; nesting levels: ${path.length}`);
    }
    return path;
  }

  operand(syntax: OperandSyntax): ResolvedOperand {
    if (syntax.kind === 'path') return { kind: 'path', path: this.path(syntax) };
    if (syntax.kind === 'value') return { kind: 'value', value: this.value(syntax.ref) };
    return { kind: 'call', name: syntax.name, args: syntax.args.map((argument) => this.operand(argument)) };
  }

  /** Only the `#names` of an operand, for updates, which check every name before any value. */
  namesOf(syntax: OperandSyntax): void {
    if (syntax.kind === 'path') this.checkPathNames(syntax);
    else if (syntax.kind === 'call') for (const argument of syntax.args) this.namesOf(argument);
  }

  /** What path() checks (its `#names`, then its depth), in its order, without building the path. */
  checkPathNames(syntax: PathSyntax): void {
    const steps = syntax.steps;
    for (let at = 0; at < steps.length; at++) {
      const step = steps[at]!;
      if (step.kind === 'ref') this.name(step.ref);
    }
    if (steps.length > PATH_DEPTH_MAX) {
      failWith(`The document path has too many nesting levels; nesting levels: ${steps.length}`);
    }
  }
}

/** `[a, b, [1]]`: how DynamoDB prints a document path in messages. */
function pathText(path: DocumentPath): string {
  return `[${path.map((element) => (typeof element === 'number' ? `[${element}]` : element)).join(', ')}]`;
}

function samePath(left: DocumentPath, right: DocumentPath): boolean {
  return left.length === right.length && left.every((element, index) => element === right[index]);
}

/** The type an operand is known to have before any item is read: a value's, or N for size(). */
function staticType(operand: ResolvedOperand): string | undefined {
  if (operand.kind === 'value') return typeOf(operand.value);
  if (operand.kind === 'call' && operand.name === 'size') return 'N';
  return undefined;
}

function wrongOperandType(name: string, type: string): never {
  return failWith(`Incorrect operand type for operator or function; operator or function: ${name}, operand type: ${type}`);
}

function requireDocumentPath(call: { name: string; args: readonly ResolvedOperand[] }): void {
  if (call.args[0]!.kind !== 'path') {
    failWith(`Operator or function requires a document path; operator or function: ${call.name}`);
  }
}

function checkDistinct(operator: string, first: ResolvedOperand, rest: readonly ResolvedOperand[]): void {
  if (first.kind !== 'path') return;
  for (const other of rest) {
    if (other.kind === 'path' && samePath(first.path, other.path)) {
      failWith(
        'The first operand must be distinct from the remaining operands for this operator or function; ' +
          `operator: ${operator}, first operand: ${pathText(first.path)}`,
      );
    }
  }
}

/** Calls of a resolved operand, innermost first. */
function resolvedCallsPostOrder(
  operand: ResolvedOperand,
  visit: (call: { name: string; args: readonly ResolvedOperand[] }) => void,
): void {
  if (operand.kind !== 'call') return;
  for (const argument of operand.args) resolvedCallsPostOrder(argument, visit);
  visit(operand);
}

/** Every call of a leaf (the leaf itself last when it is one), innermost first. */
function leafCalls(
  leaf: LeafSyntax<ResolvedOperand>,
  visit: (call: { name: string; args: readonly ResolvedOperand[] }) => void,
): void {
  for (const operand of leafOperands(leaf)) resolvedCallsPostOrder(operand, visit);
  if (leaf.kind === 'call') visit(leaf);
}

function incorrectOperandCount(name: string, count: number): never {
  return failWith(
    `Incorrect number of operands for operator or function; operator or function: ${name}, number of operands: ${count}`,
  );
}

function checkConditionArity(call: { name: string; args: readonly ResolvedOperand[] }): void {
  const expected = CONDITION_FUNCTIONS.get(call.name)!;
  if (call.args.length !== expected) incorrectOperandCount(call.name, call.args.length);
}

/** `attribute_type`'s type names; the order is the one DynamoDB Local prints. */
const TYPE_NAMES = ['N', 'BS', 'L', 'B', 'NULL', 'M', 'S', 'SS', 'NS', 'BOOL'];
/** What DynamoDB Local prints as the "operand type" of a document path given to attribute_type. */
const ANY_TYPE = '{SS,M,DECIMAL,DOUBLESET,HDS,N,B,DICT,INTSET,BOOL,HD,BS,INT,DECIMALSET,NULL,FLOAT,FS,S,L,NS,DOUBLE}';
const ORDERED_TYPES: ReadonlySet<string> = new Set(['S', 'N', 'B']);

function checkConditionFunction(call: { name: string; args: readonly ResolvedOperand[] }): void {
  switch (call.name) {
    case 'attribute_exists':
    case 'attribute_not_exists':
      requireDocumentPath(call);
      return;
    case 'attribute_type':
      // Unlike attribute_exists, a value as first operand is accepted (Alternator's
      // test_condition_expression.py, recorded from DynamoDB): its own type is tested.
      checkTypeName(call.args[1]!);
      return;
    case 'begins_with':
      for (const argument of call.args) {
        const type = staticType(argument);
        if (type !== undefined && type !== 'S' && type !== 'B') wrongOperandType('begins_with', type);
      }
      return;
    case 'size': {
      const type = staticType(call.args[0]!);
      if (type === 'N' || type === 'BOOL' || type === 'NULL') wrongOperandType('size', type);
      return;
    }
  }
}

function checkTypeName(operand: ResolvedOperand): void {
  if (operand.kind !== 'value') wrongOperandType('attribute_type', staticType(operand) ?? ANY_TYPE);
  const value = operand.value;
  if (!('S' in value)) return wrongOperandType('attribute_type', typeOf(value));
  if (!TYPE_NAMES.includes(value.S)) {
    failWith(`Invalid attribute type name found; type: ${value.S}, valid types: {${TYPE_NAMES.join(',')}}`);
  }
}

/** `AttributeValue: {N:5}` — how DynamoDB prints a BETWEEN bound. */
function boundText(value: AttributeValue): string {
  if ('S' in value) return `AttributeValue: {S:${value.S}}`;
  if ('N' in value) return `AttributeValue: {N:${value.N}}`;
  if ('B' in value) {
    // DynamoDB prints the Java ByteBuffer holding the bytes, not the bytes themselves.
    const length = Buffer.from(value.B, 'base64').length;
    return `AttributeValue: {B:java.nio.HeapByteBuffer[pos=0 lim=${length} cap=${length}]}`;
  }
  return `AttributeValue: {${typeOf(value)}:${JSON.stringify(value)}}`;
}

function checkOrderedOperands(operator: string, operands: readonly ResolvedOperand[]): void {
  for (const operand of operands) {
    const type = staticType(operand);
    if (type !== undefined && !ORDERED_TYPES.has(type)) wrongOperandType(operator, type);
  }
}

function checkBetweenBounds(low: ResolvedOperand, high: ResolvedOperand): void {
  if (low.kind !== 'value' || high.kind !== 'value') return;
  const bounds = `lower bound operand: ${boundText(low.value)}, upper bound operand: ${boundText(high.value)}`;
  if (typeOf(low.value) !== typeOf(high.value)) {
    failWith(`The BETWEEN operator requires same data type for lower and upper bounds; ${bounds}`);
  }
  if (compareScalars(low.value, high.value) > 0) {
    failWith(`The BETWEEN operator requires upper bound to be greater than or equal to lower bound; ${bounds}`);
  }
}

/** A leaf's checks after placeholders: operand counts, identical operands, operand types. */
function checkLeaf(leaf: LeafSyntax<ResolvedOperand>): void {
  leafCalls(leaf, checkConditionArity);
  if (leaf.kind === 'in' && leaf.candidates.length > IN_OPERANDS_MAX) {
    failWith(`The IN operator is provided with too many operands; number of operands: ${leaf.candidates.length}`);
  }
  // Two-operand functions (attribute_type, begins_with, contains) compare their operands too.
  leafCalls(leaf, (call) => {
    if (call.args.length === 2) checkDistinct(call.name, call.args[0]!, [call.args[1]!]);
  });
  if (leaf.kind === 'compare') checkDistinct(leaf.comparator, leaf.left, [leaf.right]);
  if (leaf.kind === 'between') checkDistinct('BETWEEN', leaf.subject, [leaf.low, leaf.high]);
  if (leaf.kind === 'in') checkDistinct('IN', leaf.subject, leaf.candidates);
  leafCalls(leaf, checkConditionFunction);
  if (leaf.kind === 'compare' && leaf.comparator !== '=' && leaf.comparator !== '<>') {
    checkOrderedOperands(leaf.comparator, [leaf.left, leaf.right]);
  }
  if (leaf.kind === 'between') {
    checkOrderedOperands('BETWEEN', [leaf.subject, leaf.low, leaf.high]);
    checkBetweenBounds(leaf.low, leaf.high);
  }
}

function resolveLeaf(leaf: LeafSyntax<OperandSyntax>, resolver: Resolver): LeafSyntax<ResolvedOperand> {
  const operand = (syntax: OperandSyntax): ResolvedOperand => resolver.operand(syntax);
  switch (leaf.kind) {
    case 'compare':
      return { kind: 'compare', comparator: leaf.comparator, left: operand(leaf.left), right: operand(leaf.right) };
    case 'between': {
      const subject = operand(leaf.subject);
      const low = operand(leaf.low);
      return { kind: 'between', subject, low, high: operand(leaf.high) };
    }
    case 'in': {
      const subject = operand(leaf.subject);
      return { kind: 'in', subject, candidates: leaf.candidates.map(operand) };
    }
    case 'call':
      return { kind: 'call', name: leaf.name, args: leaf.args.map(operand) };
  }
}

/** Resolves a condition leaf by leaf, in reading order, each leaf fully checked before the next. */
function resolveCondition(tree: ConditionSyntax, resolver: Resolver): ResolvedCondition {
  switch (tree.kind) {
    case 'and':
    case 'or': {
      const left = resolveCondition(tree.left, resolver);
      return { kind: tree.kind, left, right: resolveCondition(tree.right, resolver) };
    }
    case 'not':
      return { kind: 'not', operand: resolveCondition(tree.operand, resolver) };
    default: {
      const leaf = resolveLeaf(tree, resolver);
      checkLeaf(leaf);
      return leaf;
    }
  }
}

// --- resolved forms → ast.ts ---------------------------------------------------------------------

function toOperand(operand: ResolvedOperand): Operand {
  if (operand.kind === 'path') return { kind: 'path', path: operand.path };
  if (operand.kind === 'value') return { kind: 'value', value: operand.value };
  // Validation leaves size() of a path or of a sized value; the latter is known now.
  const target = operand.args[0]!;
  if (target.kind === 'path') return { kind: 'size', path: target.path };
  if (target.kind === 'value') return { kind: 'value', value: { N: String(sizeOf(target.value)) } };
  throw new Error('assertion failed: size() of a function survived validation');
}

function pathOf(operand: ResolvedOperand): DocumentPath {
  if (operand.kind !== 'path') throw new Error('assertion failed: a document path was validated here');
  return operand.path;
}

function toCondition(tree: ResolvedCondition): Condition {
  switch (tree.kind) {
    case 'and':
    case 'or':
      return { kind: tree.kind, left: toCondition(tree.left), right: toCondition(tree.right) };
    case 'not':
      return { kind: 'not', operand: toCondition(tree.operand) };
    case 'compare':
      return { kind: 'compare', comparator: tree.comparator, left: toOperand(tree.left), right: toOperand(tree.right) };
    case 'between':
      return { kind: 'between', subject: toOperand(tree.subject), low: toOperand(tree.low), high: toOperand(tree.high) };
    case 'in':
      return { kind: 'in', subject: toOperand(tree.subject), candidates: tree.candidates.map(toOperand) };
    case 'call':
      return functionCondition(tree.name, tree.args);
  }
}

function functionCondition(name: string, args: readonly ResolvedOperand[]): Condition {
  switch (name) {
    case 'attribute_exists':
      return { kind: 'attribute_exists', path: pathOf(args[0]!) };
    case 'attribute_not_exists':
      return { kind: 'attribute_not_exists', path: pathOf(args[0]!) };
    case 'attribute_type':
      return { kind: 'attribute_type', subject: toOperand(args[0]!), type: toOperand(args[1]!) };
    case 'begins_with':
      return { kind: 'begins_with', subject: toOperand(args[0]!), prefix: toOperand(args[1]!) };
    case 'contains':
      return { kind: 'contains', subject: toOperand(args[0]!), operand: toOperand(args[1]!) };
  }
  throw new Error(`assertion failed: function ${name} survived validation as a condition`);
}

// ---------------------------------------------------------------------------------------------
// Public entry points

/** Parses a ConditionExpression or FilterExpression (or, unreduced, a KeyConditionExpression). */
export function parseCondition(
  text: string,
  context: ExpressionContext,
  which: 'ConditionExpression' | 'FilterExpression' | 'KeyConditionExpression',
  cache?: ExpressionCache,
): Condition {
  return withKind(which, () => toCondition(resolveCondition(conditionSyntax(text, cache), new Resolver(context))));
}

/** A KeyConditionExpression parsed and checked as a condition, not yet held against the key schema. */
export interface ParsedKeyCondition {
  readonly resolved: ResolvedCondition;
}

export interface KeySchemaNames {
  readonly hash: string;
  readonly range?: string | undefined;
  /** When given, a key condition value of another type is refused as DynamoDB refuses it. */
  readonly hashType?: ScalarType | undefined;
  readonly rangeType?: ScalarType | undefined;
}

/**
 * First half of parseKeyCondition. DynamoDB reports unused placeholders before the key-schema
 * rules, so an operation that wants that exact order calls this, then checkUnusedPlaceholders,
 * then keyConditionOf.
 */
export function parseKeyConditionExpression(
  text: string,
  context: ExpressionContext,
  cache?: ExpressionCache,
): ParsedKeyCondition {
  return withKind('KeyConditionExpression', () => ({
    resolved: resolveCondition(conditionSyntax(text, cache), new Resolver(context)),
  }));
}

/** Parses a KeyConditionExpression and reduces it to the key conditions a Query runs. */
export function parseKeyCondition(
  text: string,
  context: ExpressionContext,
  keySchema: KeySchemaNames,
  cache?: ExpressionCache,
): KeyCondition {
  return keyConditionOf(parseKeyConditionExpression(text, context, cache), keySchema);
}

/** Parses an UpdateExpression. */
export function parseUpdate(text: string, context: ExpressionContext, cache?: ExpressionCache): UpdateActions {
  return withKind('UpdateExpression', () => resolveUpdate(updateSyntax(text, cache), new Resolver(context)));
}

/** Parses a ProjectionExpression into its document paths. */
export function parseProjectionPaths(
  text: string,
  context: ExpressionContext,
  cache?: ExpressionCache,
): DocumentPath[] {
  return withKind('ProjectionExpression', () => {
    const resolver = new Resolver(context);
    const paths = projectionSyntax(text, cache).map((path) => resolver.path(path));
    checkPathClashes(paths);
    return paths;
  });
}

// ---------------------------------------------------------------------------------------------
// Updates, phase 2

/** Overlapping paths (one is, or is inside, the other) before conflicting ones (list vs map). */
function checkPathClashes(paths: readonly DocumentPath[]): void {
  const overlap = firstClash(paths, 'overlap');
  if (overlap !== undefined) failWith(clashText('overlap', overlap));
  const conflict = firstClash(paths, 'conflict');
  if (conflict !== undefined) failWith(clashText('conflict', conflict));
}

function clashText(kind: 'overlap' | 'conflict', [one, two]: readonly [DocumentPath, DocumentPath]): string {
  return (
    `Two document paths ${kind} with each other; must remove or rewrite one of these paths; ` +
    `path one: ${pathText(one)}, path two: ${pathText(two)}`
  );
}

/**
 * The first pair, in action order (each path against every earlier one), that overlaps or
 * conflicts. Paths are compared element by element up to the first difference: a difference in
 * kind (name vs index) is a conflict, reaching the end of the shorter path an overlap.
 */
function firstClash(paths: readonly DocumentPath[], kind: 'overlap' | 'conflict'): [DocumentPath, DocumentPath] | undefined {
  for (let later = 1; later < paths.length; later++) {
    for (let earlier = 0; earlier < later; earlier++) {
      if (clashOf(paths[earlier]!, paths[later]!) === kind) return [paths[earlier]!, paths[later]!];
    }
  }
  return undefined;
}

function clashOf(one: DocumentPath, two: DocumentPath): 'overlap' | 'conflict' | undefined {
  const length = Math.min(one.length, two.length);
  for (let index = 0; index < length; index++) {
    if (typeof one[index] !== typeof two[index]) return 'conflict';
    if (one[index] !== two[index]) return undefined;
  }
  return 'overlap';
}

/** DynamoDB's long type names in ADD / DELETE operand errors. */
const LONG_TYPE_NAMES: Readonly<Record<string, string>> = {
  S: 'STRING',
  N: 'NUMBER',
  B: 'BINARY',
  BOOL: 'BOOLEAN',
  NULL: 'NULL',
  L: 'LIST',
  M: 'MAP',
};

function checkAddDeleteOperand(clause: 'ADD' | 'DELETE', value: AttributeValue): void {
  const type = typeOf(value);
  if (clause === 'ADD' && type === 'N') return;
  const longName = LONG_TYPE_NAMES[type];
  if (longName === undefined) return;
  failWith(
    `Incorrect operand type for operator or function; operator: ${clause}, operand type: ${longName}, ` +
      `typeSet: ALLOWED_FOR_${clause}_OPERAND`,
  );
}

function checkUpdateFunction(call: { name: string; args: readonly ResolvedOperand[] }): void {
  if (call.args.length !== UPDATE_FUNCTIONS.get(call.name)) incorrectOperandCount(call.name, call.args.length);
  if (call.name === 'if_not_exists') requireDocumentPath(call);
  if (call.name === 'list_append') checkImmediateTypes('list_append', call.args, 'L');
}

/** Only literal values are checked: a function's result type is not known until evaluation. */
function checkImmediateTypes(operator: string, operands: readonly ResolvedOperand[], wanted: string): void {
  for (const operand of operands) {
    if (operand.kind === 'value' && typeOf(operand.value) !== wanted) wrongOperandType(operator, typeOf(operand.value));
  }
}

type ResolvedSetValue =
  | ResolvedOperand
  | { readonly kind: 'arithmetic'; readonly operator: '+' | '-'; readonly left: ResolvedOperand; readonly right: ResolvedOperand };

function resolveSetValue(value: SetValueSyntax, resolver: Resolver): ResolvedSetValue {
  if (value.kind !== 'arithmetic') return resolver.operand(value);
  const left = resolver.operand(value.left);
  return { kind: 'arithmetic', operator: value.operator, left, right: resolver.operand(value.right) };
}

function checkSetValueFunctions(value: ResolvedSetValue): void {
  if (value.kind !== 'arithmetic') {
    resolvedCallsPostOrder(value, checkUpdateFunction);
    return;
  }
  resolvedCallsPostOrder(value.left, checkUpdateFunction);
  resolvedCallsPostOrder(value.right, checkUpdateFunction);
  checkImmediateTypes(value.operator, [value.left, value.right], 'N');
}

function resolveUpdate(tree: UpdateSyntax, resolver: Resolver): UpdateActions {
  const actions = tree.clauses.flatMap((clause) => clause.actions);
  // Every `#name` first, before any `:value`: each action's path (kept, not resolved twice), then
  // its SET operands' paths (only checked here; resolved with the values below).
  const paths = actions.map((action) => {
    const path = resolver.path(action.path);
    if (action.clause === 'SET') {
      const value = action.value;
      if (value.kind === 'arithmetic') {
        resolver.namesOf(value.left);
        resolver.namesOf(value.right);
      } else {
        resolver.namesOf(value);
      }
    }
    return path;
  });
  const resolved = actions.map((action, index) => ({
    action,
    path: paths[index]!,
    value:
      action.clause === 'SET'
        ? resolveSetValue(action.value, resolver)
        : action.clause === 'REMOVE'
          ? undefined
          : resolver.operand(action.value),
  }));
  checkPathClashes(resolved.map((entry) => entry.path));
  for (const { action, value } of resolved) {
    if ((action.clause === 'ADD' || action.clause === 'DELETE') && value?.kind === 'value') {
      checkAddDeleteOperand(action.clause, value.value);
    }
  }
  for (const { action, value } of resolved) {
    if (action.clause === 'SET' && value !== undefined) checkSetValueFunctions(value);
  }
  return buildUpdateActions(resolved);
}

function buildUpdateActions(
  resolved: readonly { action: UpdateActionSyntax; path: DocumentPath; value: ResolvedSetValue | undefined }[],
): UpdateActions {
  const actions: {
    set: { path: DocumentPath; value: SetValue }[];
    remove: DocumentPath[];
    add: { path: DocumentPath; value: AttributeValue }[];
    delete: { path: DocumentPath; value: AttributeValue }[];
  } = { set: [], remove: [], add: [], delete: [] };
  for (const { action, path, value } of resolved) {
    if (action.clause === 'REMOVE') actions.remove.push(path);
    else if (action.clause === 'SET') actions.set.push({ path, value: toSetValue(value!) });
    else if (value?.kind === 'value') actions[action.clause === 'ADD' ? 'add' : 'delete'].push({ path, value: value.value });
  }
  return actions;
}

function toSetValue(value: ResolvedSetValue): SetValue {
  if (value.kind === 'arithmetic') {
    const left = toSetValue(value.left);
    return { kind: value.operator === '+' ? 'plus' : 'minus', left, right: toSetValue(value.right) };
  }
  if (value.kind !== 'call') return value;
  const [first, second] = value.args as [ResolvedOperand, ResolvedOperand];
  if (value.name === 'if_not_exists') return { kind: 'if_not_exists', path: pathOf(first), fallback: toSetValue(second) };
  return { kind: 'list_append', first: toSetValue(first), second: toSetValue(second) };
}

// ---------------------------------------------------------------------------------------------
// Key conditions

type KeyComparison = 'EQ' | 'LT' | 'LE' | 'GT' | 'GE' | 'BETWEEN' | 'BEGINS_WITH';

interface KeyPart {
  readonly name: string;
  readonly operator: KeyComparison;
  readonly values: readonly AttributeValue[];
}

const COMPARISON_OF: Readonly<Record<string, KeyComparison>> = { '=': 'EQ', '<': 'LT', '<=': 'LE', '>': 'GT', '>=': 'GE' };
/** `:v < key` is `key > :v`. */
const MIRRORED: Readonly<Record<string, KeyComparison>> = { '=': 'EQ', '<': 'GT', '<=': 'GE', '>': 'LT', '>=': 'LE' };

function keyFailure(message: string): never {
  throw validationError(message);
}

/**
 * Holds a parsed key condition against the key schema, with DynamoDB's messages: only AND, at
 * most one condition per key attribute, equality on the partition key, and each condition a
 * comparison, BETWEEN or begins_with between one top-level key attribute and values.
 */
export function keyConditionOf(parsed: ParsedKeyCondition, keySchema: KeySchemaNames): KeyCondition {
  const parts = new Map<string, KeyPart>();
  collectKeyParts(parsed.resolved, parts);
  if (parts.size > 2) keyFailure('Conditions can be of length 1 or 2 only');
  const hash = parts.get(keySchema.hash);
  if (keySchema.range === undefined && parts.size > 1) keyFailure('Query key condition not supported');
  if (hash === undefined) return keyFailure(`Query condition missed key schema element: ${keySchema.hash}`);
  checkKeyValueTypes(hash, keySchema.hashType);
  if (hash.operator !== 'EQ') keyFailure('Query key condition not supported');
  const range = keySchema.range === undefined ? undefined : parts.get(keySchema.range);
  if (keySchema.range !== undefined && range === undefined && parts.size > 1) {
    keyFailure(`Query condition missed key schema element: ${keySchema.range}`);
  }
  if (range !== undefined) checkKeyValueTypes(range, keySchema.rangeType);
  return {
    partitionKey: { name: hash.name, value: hash.values[0]! },
    ...(range === undefined ? {} : { sortKey: { name: range.name, condition: sortCondition(range) } }),
  };
}

/** A multi-attribute key's attributes, each with its type, in key schema order. */
export interface MultiKeySchema {
  readonly hashes: readonly { readonly name: string; readonly type: ScalarType }[];
  readonly ranges: readonly { readonly name: string; readonly type: ScalarType }[];
}

/** At most this many conditions before the key schema is known: four partition and four sort key attributes. */
export const KEY_CONDITIONS_MAX = 8;

/**
 * The schema-free rules of a key condition of more than two conditions (only a multi-attribute
 * key takes one): the form of each condition, one per attribute, and at most eight.
 */
export function checkKeyConditionParts(parsed: ParsedKeyCondition): number {
  const parts = new Map<string, KeyPart>();
  collectKeyParts(parsed.resolved, parts);
  if (parts.size > KEY_CONDITIONS_MAX) keyFailure('Conditions can be of length 1 or 2 only');
  return parts.size;
}

/**
 * A key condition against a multi-attribute GSI key: every partition key attribute compared by
 * equality; sort key attributes from the left with none skipped, each by equality but the last one
 * named, which may use any sort key comparison. A refusal names the HASH attributes that each need
 * an equality condition, or the RANGE attributes to give from the left (docs/CONFORMANCE.md).
 */
export function multiKeyConditionOf(parsed: ParsedKeyCondition, key: MultiKeySchema): KeyCondition {
  const parts = new Map<string, KeyPart>();
  collectKeyParts(parsed.resolved, parts);
  const partition: { name: string; value: AttributeValue }[] = [];
  for (const attribute of key.hashes) {
    const part = parts.get(attribute.name);
    if (part === undefined) return keyFailure(hashKeyRule(key));
    checkKeyValueTypes(part, attribute.type);
    if (part.operator !== 'EQ') keyFailure(hashKeyRule(key));
    partition.push({ name: attribute.name, value: part.values[0]! });
  }
  let given = 0;
  while (given < key.ranges.length && parts.has(key.ranges[given]!.name)) given++;
  if (parts.size > partition.length + given) {
    // A sort key attribute after a skipped one, or an attribute that keys nothing.
    if (key.ranges.slice(given + 1).some((attribute) => parts.has(attribute.name))) keyFailure(rangeKeyRule(key));
    keyFailure('Query key condition not supported');
  }
  const sortPrefix: { name: string; value: AttributeValue }[] = [];
  for (let at = 0; at < given; at++) {
    const attribute = key.ranges[at]!;
    const part = parts.get(attribute.name)!;
    checkKeyValueTypes(part, attribute.type);
    if (at === given - 1) break;
    // Only the last sort key attribute named may be a range: the entries it reads must be contiguous.
    if (part.operator !== 'EQ') keyFailure(rangeKeyRule(key));
    sortPrefix.push({ name: attribute.name, value: part.values[0]! });
  }
  const last = given === 0 ? undefined : parts.get(key.ranges[given - 1]!.name)!;
  return {
    partitionKey: partition[0]!,
    ...(last === undefined ? {} : { sortKey: { name: last.name, condition: sortCondition(last) } }),
    multi: { partition, sortPrefix },
  };
}

/** The partition rule of a multi-attribute key, naming its HASH attributes (our wording, ⚠ in CONFORMANCE.md). */
function hashKeyRule(key: MultiKeySchema): string {
  return `Query key condition not supported: every HASH key attribute needs an equality condition; HASH key attributes: [${key.hashes.map((attribute) => attribute.name).join(', ')}]`;
}

/** The sort rule of a multi-attribute key, naming its RANGE attributes in key schema order. */
function rangeKeyRule(key: MultiKeySchema): string {
  return (
    'Query key condition not supported: RANGE key attributes must be given from the left without a gap, each with an equality condition ' +
    `except the last one given; RANGE key attributes: [${key.ranges.map((attribute) => attribute.name).join(', ')}]`
  );
}

function checkKeyValueTypes(part: KeyPart, type: ScalarType | undefined): void {
  if (type === undefined) return;
  if (part.values.some((value) => !(type in value))) {
    keyFailure('One or more parameter values were invalid: Condition parameter type does not match schema type');
  }
}

function sortCondition(part: KeyPart): NonNullable<KeyCondition['sortKey']>['condition'] {
  if (part.operator === 'BETWEEN') return { kind: 'between', low: part.values[0]!, high: part.values[1]! };
  if (part.operator === 'BEGINS_WITH') return { kind: 'begins_with', prefix: part.values[0]! };
  const comparator = ({ EQ: '=', LT: '<', LE: '<=', GT: '>', GE: '>=' } as const)[part.operator];
  return { kind: 'compare', comparator, value: part.values[0]! };
}

function invalidKeyOperator(operator: string): never {
  return keyFailure(`Invalid operator used in KeyConditionExpression: ${operator}`);
}

/** Walks the key condition in reading order, as DynamoDB does, recording one part per key. */
function collectKeyParts(tree: ResolvedCondition, parts: Map<string, KeyPart>): void {
  switch (tree.kind) {
    case 'and':
      collectKeyParts(tree.left, parts);
      collectKeyParts(tree.right, parts);
      return;
    case 'or':
      return invalidKeyOperator('OR');
    case 'not':
      return invalidKeyOperator('NOT');
    case 'in':
      return invalidKeyOperator('IN');
    default:
      recordKeyPart(tree, parts);
  }
}

function recordKeyPart(leaf: Exclude<LeafSyntax<ResolvedOperand>, { kind: 'in' }>, parts: Map<string, KeyPart>): void {
  if (leaf.kind === 'compare' && leaf.comparator === '<>') invalidKeyOperator('<>');
  if (leaf.kind === 'call' && leaf.name !== 'begins_with') invalidKeyOperator(leaf.name);
  const operands = leafOperands(leaf);
  if ((leaf.kind === 'between' || leaf.kind === 'call') && operands[0]!.kind !== 'path') {
    const operator = leaf.kind === 'between' ? 'BETWEEN' : leaf.name;
    keyFailure(`Invalid condition in KeyConditionExpression: ${operator} operator must have the key attribute as its first operand`);
  }
  let name: string | undefined;
  let position = 0;
  operands.forEach((operand, index) => {
    if (operand.kind === 'call') keyFailure('KeyConditionExpressions cannot contain nested operations');
    if (operand.kind !== 'path') return;
    if (name !== undefined) keyFailure('Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition');
    if (operand.path.length > 1) keyFailure('KeyConditionExpressions cannot have conditions on nested attributes');
    name = operand.path[0] as string;
    position = index;
  });
  if (name === undefined) return keyFailure('Invalid condition in KeyConditionExpression: No key attribute specified');
  if (parts.has(name)) keyFailure('KeyConditionExpressions must only contain one condition per key');
  const values = operands.filter((_operand, index) => index !== position).map((operand) => (operand as { value: AttributeValue }).value);
  parts.set(name, { name, operator: keyOperator(leaf, position), values });
}

function keyOperator(leaf: Exclude<LeafSyntax<ResolvedOperand>, { kind: 'in' }>, position: number): KeyComparison {
  if (leaf.kind === 'between') return 'BETWEEN';
  if (leaf.kind === 'call') return 'BEGINS_WITH';
  return (position === 0 ? COMPARISON_OF : MIRRORED)[leaf.comparator]!;
}

// ---------------------------------------------------------------------------------------------
// The placeholder maps themselves

const NAME_KEY = /^#[0-9A-Za-z_]+$/;
const VALUE_KEY = /^:[0-9A-Za-z_]+$/;
/** Placeholder keys are limited to 255 bytes (DynamoDB Local's observed limit). */
const PLACEHOLDER_KEY_BYTES_MAX = 255;

/** ExpressionAttributeNames' own form: not empty, `#` keys, non-empty names. */
export function checkExpressionAttributeNames(names: Readonly<Record<string, string>> | undefined): void {
  if (names === undefined) return;
  const keys = Object.keys(names);
  if (keys.length === 0) throw validationError('ExpressionAttributeNames must not be empty');
  for (const key of keys) {
    const bytes = Buffer.byteLength(key, 'utf8');
    if (bytes > PLACEHOLDER_KEY_BYTES_MAX) {
      throw validationError(
        `ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: ${bytes}`,
      );
    }
    if (!NAME_KEY.test(key)) throw validationError(`ExpressionAttributeNames contains invalid key: Syntax error; key: "${key}"`);
  }
  for (const key of keys) {
    if (names[key] === '') {
      throw validationError(`ExpressionAttributeNames contains invalid value: Empty attribute name for key ${key}`);
    }
    checkAttributeName(names[key]!);
  }
}

/** ExpressionAttributeValues' own form: not empty, `:` keys (the values are validated as items are). */
export function checkExpressionAttributeValues(values: Readonly<Record<string, AttributeValue>> | undefined): void {
  if (values === undefined) return;
  const keys = Object.keys(values);
  if (keys.length === 0) throw validationError('ExpressionAttributeValues must not be empty');
  for (const key of keys) {
    if (Buffer.byteLength(key, 'utf8') > PLACEHOLDER_KEY_BYTES_MAX) {
      throw validationError(
        'ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;',
      );
    }
    if (!VALUE_KEY.test(key)) throw validationError(`ExpressionAttributeValues contains invalid key: Syntax error; key: "${key}"`);
  }
}

/**
 * After all of a request's expressions are parsed: every placeholder must have been used. The
 * keys are listed in the iteration order of a Java HashSet built from the whole map, which is how
 * DynamoDB (a Java service) happens to list them.
 */
export function checkUnusedPlaceholders(context: ExpressionContext): void {
  reportUnused('ExpressionAttributeNames', context.names, context.usedNames);
  reportUnused('ExpressionAttributeValues', context.values, context.usedValues);
}

function reportUnused(parameter: string, map: Readonly<Record<string, unknown>> | undefined, used: ReadonlySet<string>): void {
  if (map === undefined) return;
  const keys = Object.keys(map);
  const unused = keys.filter((key) => !used.has(key));
  if (unused.length === 0) return;
  throw validationError(
    `Value provided in ${parameter} unused in expressions: keys: {${javaHashSetOrder(unused, keys.length).join(', ')}}`,
  );
}

function javaStringHash(text: string): number {
  let hash = 0;
  for (let index = 0; index < text.length; index++) hash = (Math.imul(31, hash) + text.charCodeAt(index)) | 0;
  return hash;
}

/**
 * The order a `java.util.HashSet` created from `total` keys iterates `keys` in: by bucket
 * (spread hash masked to the table size), insertion order within a bucket.
 */
export function javaHashSetOrder(keys: readonly string[], total: number): string[] {
  let tableSize = 1;
  const wanted = Math.max(Math.floor(total / 0.75) + 1, 16);
  while (tableSize < wanted) tableSize *= 2;
  const bucketOf = (key: string): number => {
    const hash = javaStringHash(key);
    return (hash ^ (hash >>> 16)) & (tableSize - 1);
  };
  return keys
    .map((key, index) => ({ key, index, bucket: bucketOf(key) }))
    .sort((left, right) => left.bucket - right.bucket || left.index - right.index)
    .map((entry) => entry.key);
}
