/**
 * Statement model + table → the DynamoDB requests that run it, so PartiQL keeps one engine:
 * - INSERT → PutItem with `attribute_not_exists(<hash key>)` (a duplicate is DuplicateItemException);
 * - UPDATE → UpdateItem of the key the WHERE pins, under `attribute_exists(<hash key>) AND <rest>`
 *   (an UPDATE never creates an item);
 * - DELETE → DeleteItem under `attribute_not_exists(<hash key>) OR <rest>` (no item: success;
 *   an item the rest of the WHERE rejects: ConditionalCheckFailedException);
 * - SELECT → GetItem when the WHERE is exactly the full primary key; Query (one per partition key
 *   value, for `pk = v`, `pk IN [...]` or `pk = a OR pk = b`) when it pins the partition key;
 *   a full Scan otherwise. DynamoDB's rule, as documented for PartiQL.
 *
 * The key rules are DynamoDB's: only `key = value` conjuncts of the top-level AND chain name the
 * key; the rest of the WHERE is a condition (or filter).
 */
import { validationError } from '../errors.js';
import type { Comparator, DocumentPath } from '../expressions/ast.js';
import { valuesEqual } from '../expressions/evaluate.js';
import type { KeyShape, Table } from '../engine/table.js';
import { resolveKeyShape } from '../engine/table.js';
import { ownMember, setMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import { compareScalars } from '../model/compare.js';
import { MESSAGES } from './errors.js';
import { ExpressionWriter } from './expression-text.js';
import type { DeleteStatement, InsertStatement, Operand, Predicate, SelectStatement, UpdateStatement } from './statement.js';

/** Decomposing a SELECT into more reads than this is refused, as DynamoDB refuses it. */
export const DECOMPOSED_READS_MAX = 100;

export interface TranslationOptions {
  readonly consistentRead: boolean;
  readonly returnConsumedCapacity: string | undefined;
  readonly returnValuesOnConditionCheckFailure: string | undefined;
}

/** A single-item request: the operation to run and its input, as a client would send it. */
export interface ItemRequest {
  readonly operation: 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem';
  readonly table: string;
  /** The item's primary key (what a transaction needs to detect two statements on one item). */
  readonly key: AttributeMap;
  readonly input: Record<string, unknown>;
  /** SELECT: the projected paths, to unnest the result; undefined for `*`. */
  readonly projection?: readonly DocumentPath[] | undefined;
  /** UPDATE/DELETE with RETURNING: the statement answers with the returned attributes. */
  readonly returnsItem?: boolean;
}

/** A multi-item SELECT: one Query per partition key value, or one Scan. */
export interface ReadRequest {
  readonly operation: 'Query' | 'Scan';
  readonly table: string;
  readonly inputs: readonly Record<string, unknown>[];
  readonly projection: readonly DocumentPath[] | undefined;
}

export type SelectPlan = ({ readonly operation: 'GetItem' } & ItemRequest) | ReadRequest;

// ---------------------------------------------------------------------------------------------
// Writes

export function translateInsert(statement: InsertStatement, table: Table, options: TranslationOptions): ItemRequest {
  const writer = new ExpressionWriter();
  const condition = `attribute_not_exists(${writer.name(table.key.hash.name)})`;
  return {
    operation: 'PutItem',
    table: statement.table,
    key: keyOfItem(statement.item, table.key),
    input: {
      TableName: statement.table,
      Item: statement.item,
      ConditionExpression: condition,
      ...writer.parameters(),
      ...capacity(options),
    },
  };
}

export function translateUpdate(statement: UpdateStatement, table: Table, options: TranslationOptions): ItemRequest {
  const { key, rest } = extractKey(statement.where, table.key);
  const writer = new ExpressionWriter();
  const updateExpression = writer.update(statement.actions);
  const exists = `attribute_exists(${writer.name(table.key.hash.name)})`;
  const condition = rest === undefined ? exists : `${exists} AND ${writer.condition(rest, 2)}`;
  return {
    operation: 'UpdateItem',
    table: statement.table,
    key,
    returnsItem: statement.returning !== undefined,
    input: {
      TableName: statement.table,
      Key: key,
      UpdateExpression: updateExpression,
      ConditionExpression: condition,
      ...writer.parameters(),
      ...(statement.returning === undefined ? {} : { ReturnValues: statement.returning }),
      ...conditionFailure(options),
      ...capacity(options),
    },
  };
}

export function translateDelete(statement: DeleteStatement, table: Table, options: TranslationOptions): ItemRequest {
  const { key, rest } = extractKey(statement.where, table.key);
  const writer = new ExpressionWriter();
  const condition =
    rest === undefined ? undefined : `attribute_not_exists(${writer.name(table.key.hash.name)}) OR ${writer.condition(rest, 1)}`;
  return {
    operation: 'DeleteItem',
    table: statement.table,
    key,
    returnsItem: statement.returning !== undefined,
    input: {
      TableName: statement.table,
      Key: key,
      ...(condition === undefined ? {} : { ConditionExpression: condition }),
      ...writer.parameters(),
      ...(statement.returning === undefined ? {} : { ReturnValues: statement.returning }),
      ...conditionFailure(options),
      ...capacity(options),
    },
  };
}

/** `EXISTS(SELECT ...)` in a transaction: the item's key plus the condition the rest of the WHERE states. */
export function translateConditionCheck(
  statement: SelectStatement,
  table: Table,
): { readonly table: string; readonly key: AttributeMap; readonly input: Record<string, unknown> } {
  if (statement.index !== undefined) throw validationError('Operations on indices are not supported in transactions');
  const extracted = statement.where === undefined ? undefined : tryExtractKey(statement.where, table.key);
  if (extracted === undefined || extracted.rest === undefined) throw validationError(MESSAGES.existsKey);
  checkKeyTypes(extracted.key, table.key);
  const writer = new ExpressionWriter();
  const condition = writer.condition(extracted.rest);
  return {
    table: statement.table,
    key: extracted.key,
    input: { TableName: statement.table, Key: extracted.key, ConditionExpression: condition, ...writer.parameters() },
  };
}

/**
 * The ProjectionExpression of a SELECT: the top-level attributes its paths start from. The
 * statement's own paths are resolved on those (runner.ts `unnest`), because projecting `a.b[1]`
 * in DynamoDB's way would renumber the list and lose the index the result is keyed by.
 */
function projectionText(writer: ExpressionWriter, paths: readonly DocumentPath[] | undefined): string | undefined {
  if (paths === undefined) return undefined;
  const names = [...new Set(paths.map((path) => path[0] as string))];
  return writer.projection(names.map((name) => [name]));
}

function capacity(options: TranslationOptions): { ReturnConsumedCapacity?: string } {
  return options.returnConsumedCapacity === undefined ? {} : { ReturnConsumedCapacity: options.returnConsumedCapacity };
}

function conditionFailure(options: TranslationOptions): { ReturnValuesOnConditionCheckFailure?: string } {
  const mode = options.returnValuesOnConditionCheckFailure;
  return mode === undefined ? {} : { ReturnValuesOnConditionCheckFailure: mode };
}

function keyOfItem(item: AttributeMap, key: KeyShape): AttributeMap {
  const result: Record<string, AttributeValue> = {};
  for (const attribute of [key.hash, key.range]) {
    const value = attribute === undefined ? undefined : item[attribute.name];
    if (attribute !== undefined && value !== undefined && Object.hasOwn(item, attribute.name)) setMember(result, attribute.name, value);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Keys in WHERE

/** The full primary key a DML statement's WHERE pins, and what remains of the WHERE. */
function extractKey(where: Predicate | undefined, key: KeyShape): { key: AttributeMap; rest: Predicate | undefined } {
  const extracted = where === undefined ? undefined : tryExtractKey(where, key);
  if (extracted === undefined) throw validationError(MESSAGES.incompleteKey);
  checkKeyTypes(extracted.key, key);
  return extracted;
}

/** Like extractKey, but undefined when the WHERE does not pin the whole key. */
function tryExtractKey(where: Predicate, key: KeyShape): { key: AttributeMap; rest: Predicate | undefined } | undefined {
  const names = [key.hash.name, ...(key.range === undefined ? [] : [key.range.name])];
  const found: Record<string, AttributeValue> = {};
  const rest = extractFrom(where, names, found);
  if (!names.every((name) => Object.hasOwn(found, name))) return undefined;
  return { key: found, rest };
}

/** Walks the top-level AND chain, taking `key = value` conjuncts out; returns what is left. */
function extractFrom(predicate: Predicate, names: readonly string[], found: Record<string, AttributeValue>): Predicate | undefined {
  if (predicate.kind === 'and') {
    const left = extractFrom(predicate.left, names, found);
    const right = extractFrom(predicate.right, names, found);
    if (left === undefined) return right;
    if (right === undefined) return left;
    return { kind: 'and', left, right };
  }
  const equality = keyEquality(predicate, names);
  if (equality === undefined) return predicate;
  // Own members only: a key attribute may be named `constructor` or `__proto__`.
  const existing = ownMember(found, equality.name);
  if (existing !== undefined && !valuesEqual(existing, equality.value)) {
    throw validationError(`Multiple conditions on same key ${equality.name}. Only single item Update/Insert/Delete are supported`);
  }
  setMember(found, equality.name, equality.value);
  return undefined;
}

/** `name = value` or `value = name` on a key attribute. */
function keyEquality(predicate: Predicate, names: readonly string[]): { name: string; value: AttributeValue } | undefined {
  if (predicate.kind !== 'compare' || predicate.comparator !== '=') return undefined;
  const pair = pathAndValue(predicate.left, predicate.right) ?? pathAndValue(predicate.right, predicate.left);
  if (pair === undefined || !names.includes(pair.name)) return undefined;
  return pair;
}

function pathAndValue(path: Operand, value: Operand): { name: string; value: AttributeValue } | undefined {
  if (path.kind !== 'path' || path.path.length !== 1 || value.kind !== 'value') return undefined;
  return { name: path.path[0] as string, value: value.value };
}

/** Key values must be scalars of the schema's type (DynamoDB's PartiQL texts). */
function checkKeyTypes(found: AttributeMap, key: KeyShape): void {
  for (const attribute of [key.hash, key.range]) {
    if (attribute === undefined || !Object.hasOwn(found, attribute.name)) continue;
    checkKeyType(attribute.name, found[attribute.name]!, attribute.type);
  }
}

function checkKeyType(name: string, value: AttributeValue, type: string): void {
  const actual = Object.keys(value)[0]!;
  if (actual !== 'S' && actual !== 'N' && actual !== 'B') {
    throw validationError(`Key value must be of type S, N, or B. Key name: ${name}, Key type: ${actual}`);
  }
  if (actual !== type) throw validationError(`Key attribute's data type should match its data type in table's schema: Key ${name}`);
}

// ---------------------------------------------------------------------------------------------
// SELECT

/** The key shape a SELECT reads through: the table's, or its index's (undefined: no such index). */
export function readKeyShape(table: Table, index: string | undefined): KeyShape | undefined {
  if (index === undefined) return table.key;
  const record = [...table.record.globalSecondaryIndexes, ...table.record.localSecondaryIndexes].find(
    (candidate) => candidate.name === index,
  );
  return record === undefined ? undefined : resolveKeyShape(record.keySchema, table.record.attributeDefinitions);
}

export function isGlobalIndex(table: Table, index: string | undefined): boolean {
  return index !== undefined && table.record.globalSecondaryIndexes.some((candidate) => candidate.name === index);
}

/** The GetItem a SELECT is when its WHERE is exactly the table's full primary key; else undefined. */
export function singleItemSelect(statement: SelectStatement, table: Table, options: TranslationOptions): ItemRequest | undefined {
  if (statement.index !== undefined || statement.where === undefined) return undefined;
  const extracted = tryExtractKey(statement.where, table.key);
  if (extracted === undefined || extracted.rest !== undefined) return undefined;
  checkKeyTypes(extracted.key, table.key);
  const writer = new ExpressionWriter();
  const projection = projectionText(writer, statement.projection);
  return {
    operation: 'GetItem',
    table: statement.table,
    key: extracted.key,
    projection: statement.projection,
    input: {
      TableName: statement.table,
      Key: extracted.key,
      ...(projection === undefined ? {} : { ProjectionExpression: projection }),
      ...writer.parameters(),
      ...(options.consistentRead ? { ConsistentRead: true } : {}),
      ...capacity(options),
    },
  };
}

/** One partition's read: the partition key value, an optional sort key condition, the filter. */
interface QueryPart {
  readonly hash: AttributeValue;
  readonly range: Predicate | undefined;
  readonly filter: Predicate | undefined;
}

/** Query (pinned partition keys) or Scan; the caller pages through `inputs` in order. */
export function multiItemSelect(statement: SelectStatement, table: Table, options: TranslationOptions): ReadRequest {
  const keyShape = readKeyShape(table, statement.index) ?? table.key;
  // A multi-attribute GSI key is read by a Scan of the index with the WHERE as its filter: the
  // key extraction below knows one partition key and one sort key (docs/CONFORMANCE.md).
  const parts = statement.where === undefined || keyShape.multi !== undefined ? undefined : queryParts(statement.where, keyShape);
  if (statement.orderBy !== undefined) checkOrderBy(statement, keyShape, parts);
  if (parts === undefined) return scanRequest(statement, options);
  if (parts.length > DECOMPOSED_READS_MAX) throw validationError(MESSAGES.tooManyReads);
  const ordered = orderParts(parts, statement, keyShape);
  return {
    operation: 'Query',
    table: statement.table,
    projection: statement.projection,
    inputs: ordered.map((part) => queryInput(statement, keyShape, part, options)),
  };
}

function scanRequest(statement: SelectStatement, options: TranslationOptions): ReadRequest {
  const writer = new ExpressionWriter();
  const filter = statement.where === undefined ? undefined : writer.condition(statement.where);
  const projection = projectionText(writer, statement.projection);
  return {
    operation: 'Scan',
    table: statement.table,
    projection: statement.projection,
    inputs: [
      {
        TableName: statement.table,
        ...(statement.index === undefined ? {} : { IndexName: statement.index }),
        ...(filter === undefined ? {} : { FilterExpression: filter }),
        ...(projection === undefined ? {} : { ProjectionExpression: projection }),
        ...writer.parameters(),
        ...(options.consistentRead ? { ConsistentRead: true } : {}),
        ...capacity(options),
      },
    ],
  };
}

function queryInput(statement: SelectStatement, keyShape: KeyShape, part: QueryPart, options: TranslationOptions): Record<string, unknown> {
  const writer = new ExpressionWriter();
  let keyCondition = `${writer.name(keyShape.hash.name)}=${writer.value(part.hash)}`;
  if (part.range !== undefined) keyCondition += ` AND ${writer.condition(part.range, 2)}`;
  const filter = part.filter === undefined ? undefined : writer.condition(part.filter);
  const projection = projectionText(writer, statement.projection);
  const descending = statement.orderBy?.find((item) => item.name === keyShape.range?.name)?.descending === true;
  return {
    TableName: statement.table,
    ...(statement.index === undefined ? {} : { IndexName: statement.index }),
    KeyConditionExpression: keyCondition,
    ...(filter === undefined ? {} : { FilterExpression: filter }),
    ...(projection === undefined ? {} : { ProjectionExpression: projection }),
    ...writer.parameters(),
    ...(options.consistentRead ? { ConsistentRead: true } : {}),
    ...(descending ? { ScanIndexForward: false } : {}),
    ...capacity(options),
  };
}

/**
 * The Query parts a WHERE decomposes into, or undefined when it must be a Scan: every OR branch
 * (and every `pk IN [...]` value) must pin the partition key with equality, each branch to a
 * different value, and what is left beside the key conditions must not name a key attribute
 * (a Query filter may not). A Scan then evaluates the whole WHERE as its filter.
 */
function queryParts(where: Predicate, keyShape: KeyShape): QueryPart[] | undefined {
  const parts: QueryPart[] = [];
  for (const branch of orBranches(where)) {
    const branchParts = branchQueryParts(conjuncts(branch), keyShape);
    if (branchParts === undefined) return undefined;
    parts.push(...branchParts);
  }
  for (let index = 0; index < parts.length; index++) {
    if (parts.slice(0, index).some((earlier) => valuesEqual(earlier.hash, parts[index]!.hash))) return undefined;
  }
  return parts;
}

function branchQueryParts(terms: readonly Predicate[], keyShape: KeyShape): QueryPart[] | undefined {
  const hashIndex = terms.findIndex((term) => hashValues(term, keyShape.hash.name) !== undefined);
  if (hashIndex < 0) return undefined;
  const hashes = hashValues(terms[hashIndex]!, keyShape.hash.name)!;
  const others = terms.filter((_, index) => index !== hashIndex);
  const rangeIndex = keyShape.range === undefined ? -1 : others.findIndex((term) => isRangeCondition(term, keyShape.range!.name));
  const range = rangeIndex < 0 ? undefined : others[rangeIndex];
  const rest = others.filter((_, index) => index !== rangeIndex);
  const keyNames = [keyShape.hash.name, ...(keyShape.range === undefined ? [] : [keyShape.range.name])];
  if (rest.some((term) => mentionsAttribute(term, keyNames))) return undefined;
  for (const hash of hashes) checkKeyType(keyShape.hash.name, hash, keyShape.hash.type);
  if (range !== undefined) checkRangeType(range, keyShape);
  const filter = rest.reduce<Predicate | undefined>(
    (left, right) => (left === undefined ? right : { kind: 'and', left, right }),
    undefined,
  );
  return hashes.map((hash) => ({ hash, range, filter }));
}

/** `pk = v` gives [v]; `pk IN [a, b]` (all values) gives [a, b]. */
function hashValues(term: Predicate, hash: string): AttributeValue[] | undefined {
  const equality = keyEquality(term, [hash]);
  if (equality !== undefined) return [equality.value];
  if (term.kind !== 'in' || !isAttribute(term.subject, hash)) return undefined;
  const values: AttributeValue[] = [];
  for (const candidate of term.candidates) {
    if (candidate.kind !== 'value') return undefined;
    if (!values.some((value) => valuesEqual(value, candidate.value))) values.push(candidate.value);
  }
  return values;
}

const RANGE_COMPARATORS: ReadonlySet<Comparator> = new Set(['=', '<', '<=', '>', '>=']);

/** A condition a KeyConditionExpression can hold on the sort key. */
function isRangeCondition(term: Predicate, range: string): boolean {
  if (term.kind === 'compare') {
    return RANGE_COMPARATORS.has(term.comparator) && isAttribute(term.left, range) && term.right.kind === 'value';
  }
  if (term.kind === 'between') return isAttribute(term.subject, range) && term.low.kind === 'value' && term.high.kind === 'value';
  if (term.kind === 'function' && term.name === 'begins_with') {
    return term.args.length === 2 && isAttribute(term.args[0]!, range) && term.args[1]!.kind === 'value';
  }
  return false;
}

function checkRangeType(range: Predicate, keyShape: KeyShape): void {
  let operands: Operand[] = [];
  if (range.kind === 'compare') operands = [range.right];
  else if (range.kind === 'between') operands = [range.low, range.high];
  else if (range.kind === 'function') operands = [range.args[1]!];
  for (const operand of operands) {
    if (operand.kind === 'value') checkKeyType(keyShape.range!.name, operand.value, keyShape.range!.type);
  }
}

function isAttribute(operand: Operand, name: string): boolean {
  return operand.kind === 'path' && operand.path.length === 1 && operand.path[0] === name;
}

function mentionsAttribute(predicate: Predicate, names: readonly string[]): boolean {
  const operands: Operand[] = [];
  collectOperands(predicate, operands);
  return operands.some((operand) => operandMentions(operand, names));
}

function collectOperands(predicate: Predicate, into: Operand[]): void {
  switch (predicate.kind) {
    case 'and':
    case 'or':
      collectOperands(predicate.left, into);
      collectOperands(predicate.right, into);
      return;
    case 'not':
      collectOperands(predicate.operand, into);
      return;
    case 'compare':
      into.push(predicate.left, predicate.right);
      return;
    case 'between':
      into.push(predicate.subject, predicate.low, predicate.high);
      return;
    case 'in':
      into.push(predicate.subject, ...predicate.candidates);
      return;
    case 'function':
      into.push(...predicate.args);
  }
}

function operandMentions(operand: Operand, names: readonly string[]): boolean {
  switch (operand.kind) {
    case 'path':
      return names.includes(operand.path[0] as string);
    case 'value':
      return false;
    case 'call':
      return operand.args.some((argument) => operandMentions(argument, names));
    case 'arithmetic':
      return operandMentions(operand.left, names) || operandMentions(operand.right, names);
  }
}

function orBranches(predicate: Predicate): Predicate[] {
  return predicate.kind === 'or' ? [...orBranches(predicate.left), ...orBranches(predicate.right)] : [predicate];
}

function conjuncts(predicate: Predicate): Predicate[] {
  return predicate.kind === 'and' ? [...conjuncts(predicate.left), ...conjuncts(predicate.right)] : [predicate];
}

/** ORDER BY: key attributes only, and only where the read is a Query. */
function checkOrderBy(statement: SelectStatement, keyShape: KeyShape, parts: QueryPart[] | undefined): void {
  const keyNames = [keyShape.hash.name, ...(keyShape.range === undefined ? [] : [keyShape.range.name])];
  for (const item of statement.orderBy ?? []) {
    if (!keyNames.includes(item.name)) {
      throw validationError(`Variable reference ${item.name} in ORDER BY clause must be part of the primary key`);
    }
  }
  if (parts === undefined) throw validationError(MESSAGES.orderByHash);
  const hashOrdered = statement.orderBy?.some((item) => item.name === keyShape.hash.name) === true;
  if (parts.length > 1 && !hashOrdered) {
    throw validationError('Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause.');
  }
}

/** With ORDER BY on the partition key, the partitions are read in that order. */
function orderParts(parts: QueryPart[], statement: SelectStatement, keyShape: KeyShape): QueryPart[] {
  const hashOrder = statement.orderBy?.find((item) => item.name === keyShape.hash.name);
  if (hashOrder === undefined) return parts;
  const sign = hashOrder.descending ? -1 : 1;
  return [...parts].sort((left, right) => sign * compareScalars(left.hash, right.hash));
}
