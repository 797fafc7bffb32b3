/**
 * Query: the items of one partition, in sort key order (or reverse), narrowed by a sort key
 * condition, read with one range scan of the store, filtered after the read, one page at a time.
 *
 * Validation follows DynamoDB's order as dynalite's tests (recorded against DynamoDB) show it.
 * Request-only rules come first (legacy/expression mix, filters, start key values, expressions,
 * the key condition's form); the rules that need the table come after ResourceNotFound: the start
 * key's shape, the key condition against the key schema, the start key against the condition, and
 * key attributes in the filter and projection.
 */
import type { ReturnConsumedCapacity } from '../capacity/units.js';
import { checkKeyValue } from '../engine/keys.js';
import type { Engine } from '../engine/engine.js';
import { indexPartitionRange, multiIndexPartitionRange, type IndexKeyRange } from '../engine/index-keys.js';
import { partitionRange, rangeAfter } from '../engine/read-range.js';
import { readRangePage, type ReadTarget } from '../engine/reads.js';
import { keyPartsOf, type KeyAttribute, type KeyShape, type MultiAttributeKey } from '../engine/table.js';
import { DynamoError, validationError } from '../errors.js';
import type { Condition, DocumentPath, KeyCondition } from '../expressions/ast.js';
import { evaluateCondition, valuesEqual } from '../expressions/evaluate.js';
import { checkConditionalOperator, type ConditionalOperator } from '../expressions/legacy.js';
import {
  checkKeyConditionParts,
  keyConditionOf,
  multiKeyConditionOf,
  type ParsedKeyCondition,
  type ResolvedCondition,
  type ResolvedOperand,
} from '../expressions/parser.js';
import { ownMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import {
  checkExpressionParameters,
  consumedCapacityMode,
  expressionAttributeNamesMember,
  expressionAttributeValuesMember,
  parseExpressions,
  readProjectionOf,
  returnConsumedCapacityMember,
  tableNameMember,
  type ReadProjection,
} from './common.js';
import { defineOperation } from './operation.js';
import {
  attributesToGetMember,
  checkScalarKeyPaths,
  conditionalOperatorMember,
  conditionMapMember,
  conditionOfMap,
  conditionPaths,
  indexNameMember,
  INVALID,
  pageResponse,
  resolveSelect,
  selectMember,
  START_KEY_INVALID,
  validateConditionMap,
  validateStartKeyValues,
  type ConditionMap,
  type LegacyCondition,
  type Select,
} from './read-common.js';
import { checkSelectOnIndex, fetchesTableItems, propagationBefore, readTargetOf, storageKeyOfStartKey } from './read-target.js';
import { shapes } from './shape.js';

type KeyConditionSource =
  | { readonly kind: 'expression'; readonly parsed: ParsedKeyCondition }
  | { readonly kind: 'legacy'; readonly conditions: ConditionMap };

interface QueryFilter {
  readonly condition: Condition | undefined;
  /** How DynamoDB names the filter when it refuses a key attribute in it. */
  readonly label: 'QueryFilter' | 'Filter Expression';
}

interface QueryRequest {
  readonly tableName: string;
  readonly indexName: string | undefined;
  readonly keyCondition: KeyConditionSource;
  readonly filter: QueryFilter;
  readonly projection: ReadProjection;
  readonly projectionPaths: readonly DocumentPath[];
  readonly select: Select;
  readonly limit: number | undefined;
  readonly forward: boolean;
  readonly consistentRead: boolean;
  readonly exclusiveStartKey: AttributeMap | undefined;
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
}

export const queryOperation = defineOperation<QueryRequest>({
  name: 'Query',
  // Declared in the order DynamoDB lists constraint failures.
  members: {
    Select: selectMember,
    IndexName: indexNameMember,
    ReturnConsumedCapacity: returnConsumedCapacityMember,
    QueryFilter: conditionMapMember,
    TableName: tableNameMember,
    ConditionalOperator: conditionalOperatorMember,
    AttributesToGet: attributesToGetMember,
    // Checked in validate: Query words its bound as DynamoDB's newer validation does.
    Limit: shapes.integer(),
    KeyConditions: conditionMapMember,
    ExclusiveStartKey: shapes.attributeMap(),
    ConsistentRead: shapes.boolean(),
    ScanIndexForward: shapes.boolean(),
    KeyConditionExpression: shapes.string(),
    FilterExpression: shapes.string(),
    ProjectionExpression: shapes.string(),
    ExpressionAttributeValues: expressionAttributeValuesMember,
    ExpressionAttributeNames: expressionAttributeNamesMember,
  },

  validate(input, context) {
    // Query names the member `Limit` and echoes no value, where Scan still says `Value '0' at
    // 'limit'` (paritysuite/dynamodb-conformance's Query error-message test, captured on AWS).
    if (input.Limit !== undefined && (input.Limit as number) < 1) {
      throw validationError("1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1");
    }
    // KeyConditions may accompany expressions as long as KeyConditionExpression is absent.
    const legacyParameters = ['AttributesToGet', 'QueryFilter', 'ConditionalOperator'];
    if (input.KeyConditionExpression !== undefined) legacyParameters.push('KeyConditions');
    checkExpressionParameters(input, ['ProjectionExpression', 'FilterExpression', 'KeyConditionExpression'], legacyParameters);
    const queryFilter = input.QueryFilter as ConditionMap | undefined;
    checkConditionalOperator(input.ConditionalOperator, queryFilter);
    validateConditionMap(queryFilter);
    const attributes = readProjectionOf(undefined, input.AttributesToGet as string[] | undefined);
    const exclusiveStartKey = input.ExclusiveStartKey as AttributeMap | undefined;
    validateStartKeyValues(exclusiveStartKey);
    if (input.KeyConditions === undefined && input.KeyConditionExpression === undefined) {
      throw validationError('Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.');
    }
    const parsed = parseExpressions(input, context.expressions);
    const keyCondition = keyConditionSource(input, parsed.keyCondition, input.IndexName !== undefined);
    const projection: ReadProjection = parsed.projection === undefined ? attributes : { kind: 'expression', projection: parsed.projection };
    return {
      tableName: input.TableName as string,
      indexName: input.IndexName as string | undefined,
      keyCondition,
      filter: filterOf(parsed.filter, queryFilter, input.ConditionalOperator as ConditionalOperator | undefined),
      projection,
      projectionPaths: parsed.projection?.paths ?? [],
      select: resolveSelect(input),
      limit: input.Limit as number | undefined,
      forward: input.ScanIndexForward !== false,
      consistentRead: input.ConsistentRead === true,
      exclusiveStartKey,
      returnConsumedCapacity: consumedCapacityMode(input),
    };
  },

  tables(request) {
    return request.tableName;
  },

  execute(engine, request) {
    const table = engine.requireTable(request.tableName);
    const target = readTargetOf(table, request.indexName, request.consistentRead, engine.clock.nowMs());
    const keyCondition = resolveKeyCondition(target, request);
    checkScalarKeyPaths(table, request.projectionPaths);
    checkFilterSkipsKeys(target.key, request.filter);
    checkSelectOnIndex(target, request.select, request.projection);
    checkScalarKeyPaths(table, conditionPaths(request.filter.condition));
    const propagation = propagationBefore(engine, target);
    if (propagation === undefined) return readQueryPage(engine, target, keyCondition, request);
    return propagation.then(() => readQueryPage(engine, target, keyCondition, request));
  },
});

/** One page of the query, read and admitted by the engine (engine/reads.ts). */
function readQueryPage(engine: Engine, target: ReadTarget, keyCondition: KeyCondition, request: QueryRequest): object {
  const range = queryRange(target, keyCondition, request);
  const { page, consumption } = readRangePage(engine, {
    target,
    range,
    reverse: !request.forward,
    itemLimit: request.limit,
    accept: acceptor(request.filter.condition),
    // Bounds cut to the storable key length cover a little more than the condition: re-check it.
    inRange: range.exact ? undefined : acceptor(keyRangeFilter(keyCondition)),
    fetchTableItems: fetchesTableItems(target, request.select, request.projection, request.filter.condition),
    consistentRead: request.consistentRead,
    spansPartitions: false,
  });
  return pageResponse(page, {
    target,
    select: request.select,
    projection: request.projection,
    returnConsumedCapacity: request.returnConsumedCapacity,
    consumption,
  });
}

// ---------------------------------------------------------------------------------------------
// Validation: expressions and the key condition's form


function filterOf(expression: Condition | undefined, legacy: ConditionMap | undefined, operator: ConditionalOperator | undefined): QueryFilter {
  if (expression !== undefined) return { condition: expression, label: 'Filter Expression' };
  return { condition: conditionOfMap(legacy, operator), label: 'QueryFilter' };
}

function keyConditionSource(input: Record<string, unknown>, parsed: ParsedKeyCondition | undefined, onIndex: boolean): KeyConditionSource {
  if (parsed !== undefined) {
    checkKeyConditionForm(parsed, onIndex);
    return { kind: 'expression', parsed };
  }
  const conditions = input.KeyConditions as ConditionMap;
  validateConditionMap(conditions);
  const count = Object.keys(conditions).length;
  if (count < 1 || count > 2) throw validationError('Conditions can be of length 1 or 2 only');
  return { kind: 'legacy', conditions };
}

/** No attribute name can be empty, so no parsed key condition names this one. */
const NO_ATTRIBUTE = '';
const PROBE_FAILURE = `Query condition missed key schema element: ${NO_ATTRIBUTE}`;

/**
 * The schema-free rules of a KeyConditionExpression (only AND, one condition per attribute, at
 * most two conditions, no nested paths or functions ...) fail before the table is looked up.
 * keyConditionOf checks them first and only then the schema, so holding the condition against a
 * schema it satisfies whenever its form is valid runs exactly those rules: an attribute it compares
 * with `=` as partition key, the other attribute it names as sort key.
 */
function checkKeyConditionForm(parsed: ParsedKeyCondition, onIndex: boolean): void {
  const names = keyConditionNames(parsed.resolved);
  // More than two conditions can only fit a GSI's multi-attribute key: on an index, their count is
  // checked against its key schema; a table's key keeps DynamoDB's early "length 1 or 2" failure.
  if (onIndex && names.all.length > 2 && new Set(names.all).size > 2) {
    checkKeyConditionParts(parsed);
    return;
  }
  const hash = names.equality[0];
  try {
    keyConditionOf(parsed, { hash: hash ?? NO_ATTRIBUTE, range: names.all.find((name) => name !== hash) ?? NO_ATTRIBUTE });
  } catch (error) {
    // Without any `=` the form can still be valid; the schema step then fails, only on this path.
    if (error instanceof DynamoError && error.message === PROBE_FAILURE) return;
    throw error;
  }
}

/** Top-level attribute names a key condition reads, and those it compares with `=`. */
function keyConditionNames(tree: ResolvedCondition): { all: string[]; equality: string[] } {
  const all: string[] = [];
  const equality: string[] = [];
  const visit = (node: ResolvedCondition): void => {
    switch (node.kind) {
      case 'and':
      case 'or':
        visit(node.left);
        return visit(node.right);
      case 'not':
        return visit(node.operand);
      case 'compare':
        return record([node.left, node.right], node.comparator === '=');
      case 'between':
        return record([node.subject, node.low, node.high], false);
      case 'in':
        return record([node.subject, ...node.candidates], false);
      case 'call':
        return record(node.args, false);
    }
  };
  const record = (operands: readonly ResolvedOperand[], isEquality: boolean): void => {
    for (const operand of operands) {
      if (operand.kind !== 'path') continue;
      all.push(operand.path[0] as string);
      if (isEquality) equality.push(operand.path[0] as string);
    }
  };
  visit(tree);
  return { all, equality };
}

// ---------------------------------------------------------------------------------------------
// Execution: the key condition and the start key against the table

/**
 * The start key's shape and the key condition, in DynamoDB's order: the start key's attribute
 * count and partition key, the key condition against the schema, then the start key's sort key and
 * its place against the condition.
 */
function resolveKeyCondition(target: ReadTarget, request: QueryRequest): KeyCondition {
  const key = target.key;
  const startKey = request.exclusiveStartKey;
  // An index's start key that does not fit is only "invalid" (Alternator's suite and dynalite,
  // recorded from DynamoDB; an emulator checked against DynamoDB says the same), the table's keeps
  // the texts below.
  const onIndex = target.index !== undefined;
  if (startKey !== undefined) {
    // The count first, on its own text (quoted from DynamoDB by user test suites; an emulator checked
    // against DynamoDB words the same rule); then each attribute by name.
    if (Object.keys(startKey).length !== target.startKeyParts.length) throw validationError(onIndex ? START_KEY_INVALID : START_KEY_SIZE_MISMATCH);
    if (key.multi === undefined) checkStartKeyPart(startKey, key.hash, true, onIndex);
    else for (const attribute of key.multi.hashes) checkStartKeyPart(startKey, attribute, true, onIndex);
  }
  const keyCondition = keyConditionAgainst(key, request.keyCondition);
  checkKeyConditionValues(keyCondition, key);
  if (startKey !== undefined) {
    if (key.multi === undefined) {
      if (key.range !== undefined) checkStartKeyPart(startKey, key.range, false, onIndex);
    } else {
      for (const attribute of key.multi.ranges) checkStartKeyPart(startKey, attribute, false, onIndex);
    }
    // An index read's start key also holds the table key, which pins the entry among equal index keys.
    for (const part of target.startKeyParts) {
      if (!keysAttribute(key, part.attribute.name)) checkStartKeyPart(startKey, part.attribute, part.isHash, onIndex);
    }
    checkStartKeyInBounds(startKey, keyCondition);
  }
  return keyCondition;
}

/** Whether `name` is one of the key's attributes. */
function keysAttribute(key: KeyShape, name: string): boolean {
  if (key.multi === undefined) return name === key.hash.name || name === key.range?.name;
  return key.multi.hashes.some((attribute) => attribute.name === name) || key.multi.ranges.some((attribute) => attribute.name === name);
}

/** The key condition held against the key schema the read is keyed by. */
function keyConditionAgainst(key: KeyShape, source: KeyConditionSource): KeyCondition {
  if (key.multi !== undefined) {
    // KeyConditions name one condition per attribute but were made for one HASH and one RANGE key:
    // DynamoDB refuses them on such an index (docs/CONFORMANCE.md: the text is ours).
    if (source.kind === 'legacy') throw validationError('KeyConditions are not supported on global secondary indexes with multi-attribute keys; use KeyConditionExpression');
    return multiKeyConditionOf(source.parsed, key.multi);
  }
  return source.kind === 'expression'
    ? keyConditionOf(source.parsed, { hash: key.hash.name, range: key.range?.name, hashType: key.hash.type, rangeType: key.range?.type })
    : legacyKeyCondition(source.conditions, key);
}

const START_KEY_SIZE_MISMATCH = "Exclusive Start Key must have same size as table's key schema";

function checkStartKeyPart(startKey: AttributeMap, attribute: KeyAttribute, isHash: boolean, onIndex: boolean): void {
  const value = ownMember(startKey, attribute.name);
  if (value === undefined) throw validationError(START_KEY_INVALID);
  if (!(attribute.type in value)) throw validationError(onIndex ? START_KEY_INVALID : 'The provided key element does not match the schema');
  checkKeyValue(value, attribute, isHash);
}

/** A key condition value must be usable as a key value (DynamoDB Local's rule, with the key-attribute texts). */
function checkKeyConditionValues(keyCondition: KeyCondition, key: KeyShape): void {
  if (key.multi !== undefined) return checkMultiKeyConditionValues(keyCondition, key.multi);
  checkKeyValue(keyCondition.partitionKey.value, key.hash, true);
  const sort = keyCondition.sortKey?.condition;
  if (sort === undefined || key.range === undefined) return;
  checkSortConditionValues(sort, key.range);
}

function checkSortConditionValues(sort: NonNullable<KeyCondition['sortKey']>['condition'], attribute: KeyAttribute): void {
  const values = sort.kind === 'between' ? [sort.low, sort.high] : sort.kind === 'begins_with' ? [sort.prefix] : [sort.value];
  for (const value of values) checkKeyValue(value, attribute, false);
}

/** Each value within its attribute's limits: 2,048 bytes per partition key value, 1,024 per sort key value. */
function checkMultiKeyConditionValues(keyCondition: KeyCondition, key: MultiAttributeKey): void {
  const multi = keyCondition.multi!;
  multi.partition.forEach(({ value }, at) => checkKeyValue(value, key.hashes[at]!, true));
  multi.sortPrefix.forEach(({ value }, at) => checkKeyValue(value, key.ranges[at]!, false));
  const sort = keyCondition.sortKey;
  if (sort !== undefined) checkSortConditionValues(sort.condition, key.ranges[multi.sortPrefix.length]!);
}

/** The start key must lie inside what the query reads; the texts are DynamoDB's, odd as the last one is. */
function checkStartKeyInBounds(startKey: AttributeMap, keyCondition: KeyCondition): void {
  const { partitionKey, multi } = keyCondition;
  const samePartition =
    multi === undefined
      ? valuesEqual(ownMember(startKey, partitionKey.name)!, partitionKey.value)
      : multi.partition.every(({ name, value }) => valuesEqual(ownMember(startKey, name)!, value));
  const sortFilter = sortRangeFilter(keyCondition);
  if (sortFilter === undefined) {
    if (!samePartition) throw validationError('The provided starting key is outside query boundaries based on provided conditions');
    return;
  }
  if (!evaluateCondition(sortFilter, startKey)) {
    throw validationError('The provided starting key does not match the range key predicate');
  }
  if (!samePartition) throw validationError('The query can return at most one row and cannot be restarted');
}

/**
 * What the sort key part of a key condition asks of an item: the sort key condition, and on a
 * multi-attribute key the equalities on the sort key attributes before it.
 */
function sortRangeFilter(keyCondition: KeyCondition): Condition | undefined {
  const sortKey = keyCondition.sortKey;
  const sortPrefix = keyCondition.multi?.sortPrefix;
  if (sortPrefix === undefined || sortPrefix.length === 0) return sortKey === undefined ? undefined : sortKeyFilter(sortKey);
  return conjunction([...sortPrefix.map(equalityFilter), ...(sortKey === undefined ? [] : [sortKeyFilter(sortKey)])]);
}

/**
 * The whole key condition as a filter, for a range whose bounds were cut to the storable key length
 * (index-keys.ts): the partition key too, since a multi-attribute partition key can itself be cut.
 */
function keyRangeFilter(keyCondition: KeyCondition): Condition | undefined {
  const sortFilter = sortRangeFilter(keyCondition);
  const partition = keyCondition.multi?.partition;
  if (partition === undefined) return sortFilter;
  return conjunction([...partition.map(equalityFilter), ...(sortFilter === undefined ? [] : [sortFilter])]);
}

function equalityFilter({ name, value }: { readonly name: string; readonly value: AttributeValue }): Condition {
  return { kind: 'compare', comparator: '=', left: { kind: 'path', path: [name] }, right: { kind: 'value', value } };
}

function conjunction(conditions: readonly Condition[]): Condition {
  return conditions.reduce((left, right) => ({ kind: 'and', left, right }));
}

function sortKeyFilter(sortKey: NonNullable<KeyCondition['sortKey']>): Condition {
  const subject = { kind: 'path', path: [sortKey.name] } as const;
  const literal = (value: AttributeValue) => ({ kind: 'value', value }) as const;
  const condition = sortKey.condition;
  switch (condition.kind) {
    case 'compare':
      return { kind: 'compare', comparator: condition.comparator, left: subject, right: literal(condition.value) };
    case 'between':
      return { kind: 'between', subject, low: literal(condition.low), high: literal(condition.high) };
    case 'begins_with':
      return { kind: 'begins_with', subject, prefix: literal(condition.prefix) };
  }
}

const NON_INDEXABLE = new Set(['NULL', 'NOT_NULL', 'NE', 'CONTAINS', 'NOT_CONTAINS', 'IN']);

/** KeyConditions against the key schema, partition key first, with dynalite's recorded texts and order. */
function legacyKeyCondition(conditions: ConditionMap, key: KeyShape): KeyCondition {
  const count = Object.keys(conditions).length;
  if (key.range === undefined && count > 1) throw validationError('Query key condition not supported');
  const hash = legacyKeyPart(conditions, key.hash, true, count)!;
  if (hash.ComparisonOperator !== 'EQ') throw validationError('Query key condition not supported');
  const range = key.range === undefined ? undefined : legacyKeyPart(conditions, key.range, false, count);
  const partitionKey = { name: key.hash.name, value: hash.AttributeValueList![0]! };
  if (range === undefined || key.range === undefined) return { partitionKey };
  return { partitionKey, sortKey: { name: key.range.name, condition: legacySortCondition(range) } };
}

function legacyKeyPart(conditions: ConditionMap, attribute: KeyAttribute, isHash: boolean, count: number): LegacyCondition | undefined {
  const condition = Object.hasOwn(conditions, attribute.name) ? conditions[attribute.name] : undefined;
  if (condition === undefined) {
    if (isHash || count > 1) throw validationError(`Query condition missed key schema element: ${attribute.name}`);
    return undefined;
  }
  if (NON_INDEXABLE.has(condition.ComparisonOperator)) {
    throw validationError('Attempted conditional constraint is not an indexable operation');
  }
  if ((condition.AttributeValueList ?? []).some((value) => !(attribute.type in value))) {
    throw validationError(INVALID + 'Condition parameter type does not match schema type');
  }
  return condition;
}

const LEGACY_COMPARATORS = { EQ: '=', LT: '<', LE: '<=', GT: '>', GE: '>=' } as const;

function legacySortCondition(condition: LegacyCondition): NonNullable<KeyCondition['sortKey']>['condition'] {
  const values = condition.AttributeValueList!;
  const operator = condition.ComparisonOperator;
  if (operator === 'BETWEEN') return { kind: 'between', low: values[0]!, high: values[1]! };
  if (operator === 'BEGINS_WITH') return { kind: 'begins_with', prefix: values[0]! };
  return { kind: 'compare', comparator: LEGACY_COMPARATORS[operator as keyof typeof LEGACY_COMPARATORS], value: values[0]! };
}

/** A Query filter may not name the table's key attributes: they belong in the key condition. */
function checkFilterSkipsKeys(key: KeyShape, filter: QueryFilter): void {
  if (filter.condition === undefined) return;
  const heads = new Set(conditionPaths(filter.condition).map((path) => path[0] as string));
  for (const { attribute } of keyPartsOf(key)) {
    if (heads.has(attribute.name)) {
      throw validationError(`${filter.label} can only contain non-primary key attributes: Primary key attribute: ${attribute.name}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The read

/** One range of the partition (of the table or the index), continued after the start key in reading order. */
function queryRange(target: ReadTarget, keyCondition: KeyCondition, request: QueryRequest): IndexKeyRange {
  const sort = keyCondition.sortKey?.condition;
  const multi = keyCondition.multi;
  const range: IndexKeyRange =
    target.index === undefined
      ? { ...partitionRange(target.prefix, keyCondition.partitionKey.value, sort), exact: true }
      : multi !== undefined
        ? multiIndexPartitionRange(target.prefix, multi.partition.map((part) => part.value), multi.sortPrefix.map((part) => part.value), sort)
        : indexPartitionRange(target.prefix, keyCondition.partitionKey.value, sort);
  const startKey = request.exclusiveStartKey;
  if (startKey === undefined) return range;
  return { ...rangeAfter(range, storageKeyOfStartKey(target, startKey), !request.forward), exact: range.exact };
}

function acceptor(filter: Condition | undefined): (item: AttributeMap) => boolean {
  if (filter === undefined) return () => true;
  return (item) => evaluateCondition(filter, item);
}
