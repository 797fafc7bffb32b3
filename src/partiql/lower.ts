/**
 * Parse tree → statement model (statement.ts), with the `?` parameters bound and every rule that
 * needs no table applied: which PartiQL constructs DynamoDB supports, how paths, values, IS, IN
 * and the update functions map to DynamoDB's, and DynamoDB's texts for the ones it refuses.
 * Pure: the table-dependent rules (the key in WHERE, key types) are translator.ts's.
 */
import { validationError } from '../errors.js';
import type { Comparator, DocumentPath } from '../expressions/ast.js';
import type { AttributeMap, AttributeValue } from '../model/attribute-value.js';
import { setMember } from '../model/attribute-value.js';
import { MESSAGES, unsupported } from './errors.js';
import { TYPE_NAMES } from './keywords.js';
import { parseStatement } from './parser.js';
import type {
  DeleteStatement,
  ExistsStatement,
  InsertStatement,
  Operand,
  Predicate,
  ReturnValues,
  SelectStatement,
  Statement,
  UpdateAction,
  UpdateStatement,
} from './statement.js';
import type { DmlOperationSyntax, DmlSyntax, ExpressionSyntax, ReturningSyntax, SelectSyntax, SourceSyntax } from './syntax.js';
import { identifierOf, isValueSyntax, validateParameters, valueOf, type ValueSource } from './values.js';

const CONDITION_FUNCTIONS: ReadonlySet<string> = new Set([
  'attribute_exists',
  'attribute_not_exists',
  'attribute_type',
  'begins_with',
  'contains',
]);
/** Functions DynamoDB's expressions know as values; where one is out of place the expression checks say so. */
const VALUE_FUNCTIONS: ReadonlySet<string> = new Set(['size', 'list_append', 'if_not_exists']);
const COMPARATORS: ReadonlySet<string> = new Set(['=', '<>', '<', '<=', '>', '>=']);
const TABLE_NAME = /^[a-zA-Z0-9_.-]{3,255}$/;
const INDEX_MAX = 2147483647;
const IS_TYPES: ReadonlyMap<string, string> = new Map([
  ['BOOLEAN', 'BOOL'],
  ['NUMERIC', 'N'],
  ['STRING', 'S'],
  ['BLOB', 'B'],
  ['STRUCT', 'M'],
  ['TUPLE', 'M'],
  ['LIST', 'L'],
]);
const RETURN_VALUES: Readonly<Record<string, ReturnValues>> = {
  all_old: 'ALL_OLD',
  all_new: 'ALL_NEW',
  modified_old: 'UPDATED_OLD',
  modified_new: 'UPDATED_NEW',
};

/**
 * Parses a statement, checks and binds its parameters and builds its model, in DynamoDB's order:
 * syntax, then the parameter count, then the parameter values, then the statement's own rules.
 */
export function compileStatement(text: string, parameters: readonly AttributeValue[], wrap: ErrorWrapper = (error) => error): Statement {
  const { syntax, parameterCount } = wrapped(() => parseStatement(text), wrap);
  if (parameterCount !== parameters.length) throw wrap(validationError(MESSAGES.parameterCount));
  // Parameter faults are reported as they are, even inside ExecuteTransaction (captured).
  validateParameters(parameters);
  return wrapped(() => lowerStatement(syntax, { parameters }), wrap);
}

/** How a caller rewords a statement's own faults (ExecuteTransaction names the statement). */
export type ErrorWrapper = (error: unknown) => unknown;

function wrapped<T>(step: () => T, wrap: ErrorWrapper): T {
  try {
    return step();
  } catch (error) {
    throw wrap(error);
  }
}

export function lowerStatement(syntax: ExpressionSyntax, source: ValueSource): Statement {
  if (syntax.kind === 'select') return lowerSelect(syntax, source);
  if (syntax.kind === 'dml') return lowerDml(syntax, source);
  if (syntax.kind === 'call' && syntax.name === 'exists' && syntax.args.length === 1 && syntax.args[0]!.kind === 'select') {
    const exists: ExistsStatement = { kind: 'exists', select: lowerSelect(syntax.args[0]! as SelectSyntax, source) };
    return exists;
  }
  throw validationError(`Unsupported operation: ${astClassName(syntax)}`);
}

// ---------------------------------------------------------------------------------------------
// SELECT

function lowerSelect(syntax: SelectSyntax, source: ValueSource): SelectStatement {
  if (syntax.items === undefined) throw validationError(MESSAGES.selectValue);
  if (syntax.distinct) throw validationError('Unsupported token in expression: DISTINCT');
  if (syntax.unsupportedClause !== undefined) throw validationError(`Unsupported clause: ${syntax.unsupportedClause}`);
  const { table, index } = sourceTable(syntax.from, true);
  const projection = projectionOf(syntax.items);
  const where = syntax.where === undefined ? undefined : wherePredicate(syntax.where, source);
  if (syntax.orderBy !== undefined && where === undefined) throw validationError(MESSAGES.orderByWhere);
  const orderBy = syntax.orderBy?.map((item) => {
    if (item.expression.kind !== 'name') {
      throw validationError(`Argument to ORDER BY must be of type VariableReference. Type: ${astClassName(item.expression)}`);
    }
    return { name: item.expression.name, descending: item.descending };
  });
  return { kind: 'select', table, index, projection, where, orderBy };
}

function projectionOf(items: SelectSyntax['items'] & object): DocumentPath[] | undefined {
  if (items.some((item) => item.kind === 'star')) {
    if (items.length > 1) throw validationError(MESSAGES.starAndOthers);
    return undefined;
  }
  const paths: DocumentPath[] = [];
  const names = new Set<string>();
  for (const item of items) {
    if (item.kind === 'projectAll') throw validationError(MESSAGES.projectAll);
    if (item.kind !== 'expression') continue;
    if (item.alias !== undefined) throw validationError(MESSAGES.aliasing);
    const expression = item.expression;
    if (expression.kind !== 'name' && expression.kind !== 'path') {
      throw unsupported(MESSAGES.unexpectedPathComponent, expression.span);
    }
    const path = lowerPath(expression);
    const name = resultName(path);
    if (names.has(name)) throw validationError(`Duplicate identifiers in select clause: ${name}`);
    names.add(name);
    paths.push(path);
  }
  return paths;
}

/**
 * The name a projected path's value is returned under: DynamoDB "unnests" a projection, keying
 * each value by the last map member of its path plus any list indexes after it (`a.b[1]` → `b[1]`).
 */
export function resultName(path: DocumentPath): string {
  let name = '';
  for (const element of path) name = typeof element === 'number' ? `${name}[${element}]` : element;
  return name;
}

// ---------------------------------------------------------------------------------------------
// Tables

function sourceTable(source: SourceSyntax, allowIndex: boolean): { table: string; index: string | undefined } {
  if (source.alias !== undefined) throw validationError(MESSAGES.aliasing);
  if (source.joined) throw validationError(MESSAGES.singleSource);
  return tableOf(source.expression, allowIndex);
}

function tableOf(expression: ExpressionSyntax, allowIndex: boolean): { table: string; index: string | undefined } {
  if (expression.kind === 'name') return { table: checkedTableName(expression.name), index: undefined };
  if (expression.kind !== 'path' || expression.root.kind !== 'name') throw validationError(MESSAGES.fromSource);
  if (expression.steps.length > 1) throw validationError(MESSAGES.fromPathComponents);
  const step = expression.steps[0]!;
  if (step.kind !== 'dot') throw validationError(MESSAGES.fromSource);
  if (!allowIndex) throw unsupported(MESSAGES.dmlFrom, expression.root.span);
  if (step.name === '') throw validationError(MESSAGES.emptyPathComponent);
  return { table: checkedTableName(expression.root.name), index: step.name };
}

function checkedTableName(name: string): string {
  if (name === '') throw validationError(MESSAGES.emptyPathComponent);
  if (!TABLE_NAME.test(name)) throw validationError(MESSAGES.tableName);
  return name;
}

// ---------------------------------------------------------------------------------------------
// INSERT, UPDATE, DELETE

function lowerDml(syntax: DmlSyntax, source: ValueSource): Statement {
  const operations = syntax.operations;
  const first = operations[0]!;
  if (first.kind === 'insertValue' || first.kind === 'insert') return lowerInsert(syntax, first, source);
  if (first.kind === 'delete') return lowerDelete(syntax, source);
  return lowerUpdate(syntax, source);
}

function lowerInsert(syntax: DmlSyntax, operation: DmlOperationSyntax, source: ValueSource): InsertStatement {
  if (syntax.operations.length > 1) throw validationError(MESSAGES.onlySetRemove);
  if (operation.kind === 'insert') throw validationError(MESSAGES.insertMultiple);
  if (operation.kind !== 'insertValue') throw validationError(MESSAGES.onlySetRemove);
  if (syntax.source !== undefined && syntax.where !== undefined) throw validationError(MESSAGES.insertFromWhere);
  if (operation.position !== undefined) throw validationError(MESSAGES.insertAt);
  if (syntax.returning !== undefined) throw validationError(MESSAGES.insertReturning);
  const { table } = tableOf(operation.target, false);
  return { kind: 'insert', table, item: insertItem(operation.value, source) };
}

/** The item of `INSERT ... VALUE {...}`: each attribute's value converted on its own (`root`). */
function insertItem(value: ExpressionSyntax, source: ValueSource): AttributeMap {
  if (value.kind === 'parameter') {
    const parameter = valueOf(value, source);
    if ('M' in parameter) return parameter.M;
    throw validationError(MESSAGES.insertFormat);
  }
  if (value.kind !== 'struct') throw validationError(MESSAGES.insertFormat);
  const item: Record<string, AttributeValue> = {};
  for (const field of value.fields) {
    const key = field.key;
    if (key.kind !== 'literal' || key.literal.type !== 'string') {
      // The same check and text as any other tuple.
      valueOf({ kind: 'struct', fields: [field], span: value.span }, source);
      continue;
    }
    const name = key.literal.value;
    if (Object.hasOwn(item, name)) throw validationError(`Duplicate keys in tuple. Key: ${name} under root`);
    setMember(item, name, valueOf(field.value, source));
  }
  return item;
}

function lowerDelete(syntax: DmlSyntax, source: ValueSource): DeleteStatement {
  if (syntax.operations.length > 1) throw validationError(MESSAGES.onlySetRemove);
  const table = dmlTable(syntax);
  const where = dmlWhere(syntax, source);
  const returning = returnValuesOf(syntax.returning);
  if (returning !== undefined && returning !== 'ALL_OLD') {
    const written = syntax.returning!.mapping.replace('_', ' ').toUpperCase();
    throw validationError(`Invalid returning clause: RETURNING ${written} *. Only RETURNING ALL OLD * is allowed in DELETE statements.`);
  }
  return { kind: 'delete', table, where, returning };
}

function lowerUpdate(syntax: DmlSyntax, source: ValueSource): UpdateStatement {
  const where = dmlWhere(syntax, source);
  const actions: UpdateAction[] = [];
  for (const operation of syntax.operations) actions.push(...updateActions(operation, source));
  const table = dmlTable(syntax);
  return { kind: 'update', table, where, actions, returning: returnValuesOf(syntax.returning) };
}

function dmlTable(syntax: DmlSyntax): string {
  if (syntax.source === undefined) throw validationError(MESSAGES.fromSource);
  return sourceTableForDml(syntax.source);
}

function sourceTableForDml(source: SourceSyntax): string {
  if (source.alias !== undefined) throw validationError(MESSAGES.aliasing);
  if (source.joined) throw validationError(MESSAGES.dmlFrom);
  return tableOf(source.expression, false).table;
}

/** UPDATE and DELETE need a WHERE naming the item; without one no key can be found. */
function dmlWhere(syntax: DmlSyntax, source: ValueSource): Predicate {
  if (syntax.where === undefined) throw validationError(MESSAGES.incompleteKey);
  return wherePredicate(syntax.where, source);
}

function returnValuesOf(returning: ReturningSyntax | undefined): ReturnValues | undefined {
  if (returning === undefined) return undefined;
  if (returning.multiple) throw validationError(MESSAGES.returningMultiple);
  if (!returning.star) throw validationError(MESSAGES.returningStar);
  return RETURN_VALUES[returning.mapping];
}

function updateActions(operation: DmlOperationSyntax, source: ValueSource): UpdateAction[] {
  switch (operation.kind) {
    case 'remove':
      return [{ kind: 'remove', path: lowerPath(operation.target) }];
    case 'set':
      return operation.assignments.map((assignment) => assignmentAction(assignment.target, assignment.value, source));
    default:
      throw validationError(MESSAGES.onlySetRemove);
  }
}

function assignmentAction(target: ExpressionSyntax, value: ExpressionSyntax, source: ValueSource): UpdateAction {
  const path = lowerPath(target);
  if (value.kind === 'call' && (value.name === 'set_add' || value.name === 'set_delete')) {
    return setFunctionAction(value, path, source);
  }
  return { kind: 'set', path, value: updateOperand(value, source) };
}

/** `SET s = set_add(s, <<...>>)`: DynamoDB's ADD (set_delete: DELETE) of set members. */
function setFunctionAction(
  call: Extract<ExpressionSyntax, { kind: 'call' }>,
  path: DocumentPath,
  source: ValueSource,
): UpdateAction {
  const kind = call.name === 'set_add' ? 'add' : 'delete';
  const label = kind === 'add' ? 'SET_ADD' : 'SET_DELETE';
  if (call.args.length !== 2) throw unsupported(`${label} must have exactly two arguments`, call.span);
  const [first, second] = call.args.map((argument) => updateOperand(argument, source)) as [Operand, Operand];
  if (first.kind !== 'path' || !samePath(first.path, path)) {
    throw unsupported(`The first argument to ${label} must equal the assignment value`, call.span);
  }
  if (second.kind !== 'value' || !('SS' in second.value || 'NS' in second.value || 'BS' in second.value)) {
    throw unsupported(`The second argument to ${label} must be a value with type SET`, call.args[0]!.span);
  }
  return { kind, path, value: second.value };
}

function samePath(left: DocumentPath, right: DocumentPath): boolean {
  return left.length === right.length && left.every((element, index) => element === right[index]);
}

/** The right-hand side of a SET: a value, a path, `a + b`, `a - b`, or a value function. */
function updateOperand(syntax: ExpressionSyntax, source: ValueSource): Operand {
  if (isValueSyntax(syntax)) return { kind: 'value', value: valueOf(syntax, source) };
  switch (syntax.kind) {
    case 'literal':
      throw validationError(MESSAGES.missingLiteral);
    case 'name':
    case 'path':
      return { kind: 'path', path: lowerPath(syntax) };
    case 'is':
      throw validationError(MESSAGES.isInUpdate);
    case 'call':
      return { kind: 'call', name: knownFunction(syntax), args: syntax.args.map((argument) => updateOperand(argument, source)) };
    case 'binary':
      if (syntax.operator !== '+' && syntax.operator !== '-') throw unsupportedOperator('Update', syntax.operator);
      return {
        kind: 'arithmetic',
        operator: syntax.operator,
        left: updateOperand(syntax.left, source),
        right: updateOperand(syntax.right, source),
      };
    case 'unary':
      throw unsupportedOperator('Update', syntax.operator);
    default:
      throw validationError(`Unsupported token in expression: ${identifierOf(syntax)}`);
  }
}

function knownFunction(call: Extract<ExpressionSyntax, { kind: 'call' }>): string {
  if (!CONDITION_FUNCTIONS.has(call.name) && !VALUE_FUNCTIONS.has(call.name)) {
    throw unsupported(`Unrecognized function: ${call.name}`, call.span);
  }
  return call.name;
}

function unsupportedOperator(kind: 'Condition' | 'Update', operator: string): Error {
  const symbol = operator === 'not_like' ? 'like' : operator === 'not_in' ? 'in' : operator;
  return validationError(`Unsupported operator in ${kind} Expression. Operator: ${symbol}`);
}

// ---------------------------------------------------------------------------------------------
// Conditions

type Term = { readonly kind: 'predicate'; readonly predicate: Predicate } | { readonly kind: 'operand'; readonly operand: Operand };

function wherePredicate(syntax: ExpressionSyntax, source: ValueSource): Predicate {
  const term = conditionTerm(syntax, source);
  if (term.kind !== 'predicate' || isSizeCall(term)) throw validationError(MESSAGES.booleanWhere);
  return term.predicate;
}

function isSizeCall(term: Term): boolean {
  return term.kind === 'operand' && term.operand.kind === 'call' && term.operand.name === 'size';
}

function conditionTerm(syntax: ExpressionSyntax, source: ValueSource): Term {
  if (isValueSyntax(syntax)) return operandTerm({ kind: 'value', value: valueOf(syntax, source) });
  switch (syntax.kind) {
    case 'literal':
      throw validationError(MESSAGES.missingLiteral);
    case 'name':
    case 'path':
      return operandTerm({ kind: 'path', path: lowerPath(syntax) });
    case 'call':
      return conditionCall(syntax, source);
    case 'unary':
      return unaryCondition(syntax, source);
    case 'binary':
      return binaryCondition(syntax, source);
    case 'between':
      return predicateTerm(
        {
          kind: 'between',
          subject: conditionOperand(syntax.subject, source),
          low: conditionOperand(syntax.low, source),
          high: conditionOperand(syntax.high, source),
        },
        syntax.negated,
      );
    case 'is':
      return predicateTerm(isPredicate(syntax, source), syntax.negated);
    default:
      throw validationError(`Unsupported token in expression: ${identifierOf(syntax)}`);
  }
}

function operandTerm(operand: Operand): Term {
  return { kind: 'operand', operand };
}

function predicateTerm(predicate: Predicate, negated = false): Term {
  return { kind: 'predicate', predicate: negated ? { kind: 'not', operand: predicate } : predicate };
}

function conditionOperand(syntax: ExpressionSyntax, source: ValueSource): Operand {
  const term = conditionTerm(syntax, source);
  if (term.kind === 'operand') return term.operand;
  throw validationError(`Unsupported token in expression: ${identifierOf(syntax)}`);
}

function conditionPredicate(syntax: ExpressionSyntax, source: ValueSource, message: string): Predicate {
  const term = conditionTerm(syntax, source);
  if (term.kind === 'predicate') return term.predicate;
  throw validationError(message);
}

function conditionCall(syntax: Extract<ExpressionSyntax, { kind: 'call' }>, source: ValueSource): Term {
  const name = knownFunction(syntax);
  const args = syntax.args.map((argument) => conditionOperand(argument, source));
  if (CONDITION_FUNCTIONS.has(name)) return predicateTerm({ kind: 'function', name, args });
  return operandTerm({ kind: 'call', name, args });
}

function unaryCondition(syntax: Extract<ExpressionSyntax, { kind: 'unary' }>, source: ValueSource): Term {
  if (syntax.operator !== 'not') throw unsupportedOperator('Condition', syntax.operator);
  return predicateTerm({ kind: 'not', operand: conditionPredicate(syntax.operand, source, MESSAGES.notOperand) });
}

function binaryCondition(syntax: Extract<ExpressionSyntax, { kind: 'binary' }>, source: ValueSource): Term {
  const operator = syntax.operator;
  if (operator === 'and' || operator === 'or') {
    const left = conditionPredicate(syntax.left, source, MESSAGES.andOrOperands);
    const right = conditionPredicate(syntax.right, source, MESSAGES.andOrOperands);
    return predicateTerm({ kind: operator, left, right });
  }
  if (operator === 'in' || operator === 'not_in') return predicateTerm(inPredicate(syntax, source), operator === 'not_in');
  if (!COMPARATORS.has(operator)) throw unsupportedOperator('Condition', operator);
  return comparison(operator as Comparator, syntax, source);
}

/**
 * `left <op> right`. DynamoDB also accepts a condition function compared with a boolean
 * (`attribute_exists(a) = true`), which means the function itself (or its negation).
 */
function comparison(comparator: Comparator, syntax: Extract<ExpressionSyntax, { kind: 'binary' }>, source: ValueSource): Term {
  const left = conditionTerm(syntax.left, source);
  const right = conditionTerm(syntax.right, source);
  const booleanTest = functionAgainstBoolean(comparator, left, right) ?? functionAgainstBoolean(comparator, right, left);
  if (booleanTest !== undefined) return booleanTest;
  if (left.kind !== 'operand') throw validationError(`Unsupported token in expression: ${identifierOf(syntax.left)}`);
  if (right.kind !== 'operand') throw validationError(`Unsupported token in expression: ${identifierOf(syntax.right)}`);
  return predicateTerm({ kind: 'compare', comparator, left: left.operand, right: right.operand });
}

function functionAgainstBoolean(comparator: Comparator, test: Term, other: Term): Term | undefined {
  if (test.kind !== 'predicate' || test.predicate.kind !== 'function') return undefined;
  if (other.kind !== 'operand' || other.operand.kind !== 'value' || !('BOOL' in other.operand.value)) return undefined;
  if (comparator !== '=' && comparator !== '<>') return undefined;
  const holds = other.operand.value.BOOL === (comparator === '=');
  return predicateTerm(test.predicate, !holds);
}

function inPredicate(syntax: Extract<ExpressionSyntax, { kind: 'binary' }>, source: ValueSource): Predicate {
  const right = syntax.right;
  if ((right.kind !== 'list' && right.kind !== 'bag') || right.items.length === 0) throw validationError(MESSAGES.inOperands);
  return {
    kind: 'in',
    subject: conditionOperand(syntax.left, source),
    candidates: right.items.map((item) => conditionOperand(item, source)),
  };
}

/** `x IS [NOT] type`: MISSING, NULL, or a DynamoDB type test. */
function isPredicate(syntax: Extract<ExpressionSyntax, { kind: 'is' }>, source: ValueSource): Predicate {
  const subject = syntax.subject;
  if (subject.kind !== 'name' && subject.kind !== 'path' && subject.kind !== 'literal') throw validationError(MESSAGES.isOperand);
  const operand = conditionOperand(subject, source);
  const dataType = TYPE_NAMES.get(syntax.type)!;
  if (dataType === 'MISSING') return { kind: 'function', name: 'attribute_not_exists', args: [operand] };
  if (dataType === 'NULL') return { kind: 'compare', comparator: '=', left: operand, right: { kind: 'value', value: { NULL: true } } };
  const dynamoType = IS_TYPES.get(dataType);
  if (dynamoType === undefined) {
    throw validationError(
      `Unsupported data type for IS operator: ${dataType}. ` +
        'Supported data types are [MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]',
    );
  }
  return { kind: 'function', name: 'attribute_type', args: [operand, { kind: 'value', value: { S: dynamoType } }] };
}

// ---------------------------------------------------------------------------------------------
// Paths

export function lowerPath(syntax: ExpressionSyntax): DocumentPath {
  if (syntax.kind === 'name') return [pathName(syntax.name)];
  if (syntax.kind !== 'path') throw unsupported(MESSAGES.unexpectedPathComponent, syntax.span);
  const root = syntax.root;
  if (root.kind === 'list' || root.kind === 'bag') throw unsupported(MESSAGES.pathStartsWithIndex, root.span);
  if (root.kind !== 'name') throw unsupported(MESSAGES.unexpectedPathComponent, root.span);
  const path: (string | number)[] = [pathName(root.name)];
  for (const step of syntax.steps) {
    if (step.kind === 'unpivot') throw unsupported(MESSAGES.unpivotPath, step.span);
    if (step.kind === 'wildcard') throw unsupported(MESSAGES.wildcardPath, step.span);
    path.push(step.kind === 'dot' ? pathName(step.name) : indexElement(step.expression));
  }
  return path;
}

function pathName(name: string): string {
  if (name === '') throw validationError(MESSAGES.emptyPathComponent);
  return name;
}

/** `[n]` is a list index; `['x']` and `[x]` name a map member. */
function indexElement(expression: ExpressionSyntax): string | number {
  if (expression.kind === 'name') return pathName(expression.name);
  if (expression.kind === 'literal' && expression.literal.type === 'string') return pathName(expression.literal.value);
  if (expression.kind === 'literal' && expression.literal.type === 'number' && /^-?\d+$/.test(expression.literal.text)) {
    const index = Number(expression.literal.text);
    if (index < 0 || index > INDEX_MAX) {
      throw unsupported(`List index is not within the allowable range; index: [${BigInt(expression.literal.text)}]`, expression.span);
    }
    return index;
  }
  throw unsupported(MESSAGES.unexpectedPathComponent, expression.span);
}

// ---------------------------------------------------------------------------------------------

/** The class name DynamoDB's "Unsupported operation: X" gives a top-level expression. */
function astClassName(syntax: ExpressionSyntax): string {
  switch (syntax.kind) {
    case 'name':
      return 'Id';
    case 'literal':
      return syntax.literal.type === 'missing' ? 'Missing' : 'Lit';
    case 'parameter':
      return 'Parameter';
    case 'path':
      return 'Path';
    case 'call':
      return ['count', 'avg', 'min', 'max', 'sum'].includes(syntax.name) ? 'CallAgg' : 'Call';
    case 'unary':
      return syntax.operator === 'not' ? 'Not' : syntax.operator === '-' ? 'Neg' : 'Pos';
    case 'binary':
      return BINARY_CLASS_NAMES[syntax.operator];
    case 'between':
      return syntax.negated ? 'Not' : 'Between';
    case 'is':
      return syntax.negated ? 'Not' : 'IsType';
    case 'list':
      return 'List';
    case 'bag':
      return 'Bag';
    case 'struct':
      return 'Struct';
    case 'select':
      return 'Select';
    case 'dml':
      return 'Dml';
  }
}

const BINARY_CLASS_NAMES: Readonly<Record<Extract<ExpressionSyntax, { kind: 'binary' }>['operator'], string>> = {
  or: 'Or',
  and: 'And',
  '=': 'Eq',
  '<>': 'Ne',
  in: 'InCollection',
  not_in: 'Not',
  '<': 'Lt',
  '<=': 'Lte',
  '>': 'Gt',
  '>=': 'Gte',
  like: 'Like',
  not_like: 'Not',
  '+': 'Plus',
  '-': 'Minus',
  '||': 'Concat',
  '*': 'Times',
  '/': 'Divide',
  '%': 'Modulo',
};

