/**
 * Members and rules shared by the item operations, so each DynamoDB rule is written once.
 */
import { DynamoError, validationError } from '../errors.js';
import type { Condition, UpdateActions } from '../expressions/ast.js';
import type { ExpressionCache } from '../expressions/cache.js';
import {
  checkExpressionAttributeNames,
  checkExpressionAttributeValues,
  checkUnusedPlaceholders,
  parseCondition,
  parseKeyConditionExpression,
  parseProjectionPaths,
  parseUpdate,
  type ExpressionContext,
  type ParsedKeyCondition,
} from '../expressions/parser.js';
import type { ParsedProjection } from '../expressions/projection.js';
import { ownMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import { ItemCollections, itemCollectionMetricsOf, type ItemCollectionMetrics } from '../engine/item-collections.js';
import type { Table } from '../engine/table.js';
import type { Engine } from '../engine/engine.js';
import { itemCollectionSizeAfterWrite } from '../engine/index-maintenance.js';
import { ATTRIBUTE_NAME_TOO_LARGE, checkAttributeName, validateAttributeValue } from '../model/validate-item.js';
import type { ReturnConsumedCapacity } from '../capacity/units.js';
import { shapes, TABLE_NAME_CONSTRAINTS, type Member } from './shape.js';
import { recordOf } from '../model/own-members.js';

export const returnConsumedCapacityMember: Member = shapes.string({ enumValues: ['INDEXES', 'TOTAL', 'NONE'] });
/** The item operations' TableName: a name or an ARN; '' fails the ARN form's length 1 alone (docs/CONFORMANCE.md). */
export const tableNameMember: Member = shapes.string({ notNull: true, ...TABLE_NAME_CONSTRAINTS, emptyLengthMin: 1 });
export const returnItemCollectionMetricsMember: Member = shapes.string({ enumValues: ['SIZE', 'NONE'] });
export const expressionAttributeNamesMember: Member = shapes.map('java.lang.String', shapes.string());
export const expressionAttributeValuesMember: Member = shapes.map('AttributeValue', shapes.attributeValue());

export const returnValuesMember: Member = shapes.string({
  enumValues: ['ALL_NEW', 'UPDATED_OLD', 'ALL_OLD', 'NONE', 'UPDATED_NEW'],
});
export const conditionalOperatorMember: Member = shapes.string({ enumValues: ['OR', 'AND'] });
export const returnValuesOnConditionCheckFailureMember: Member = shapes.string({ enumValues: ['ALL_OLD', 'NONE'] });

/** PutItem and DeleteItem can only return the old image; true when they should. */
export function returnsOldItemOnly(input: Record<string, unknown>): boolean {
  const returnValues = input.ReturnValues as string | undefined;
  if (returnValues !== undefined && returnValues !== 'ALL_OLD' && returnValues !== 'NONE') {
    throw validationError('ReturnValues can only be ALL_OLD or NONE');
  }
  return returnValues === 'ALL_OLD';
}

export const expectedMember: Member = shapes.map(
  'ExpectedAttributeValue',
  shapes.structure('ExpectedAttributeValue', {
    AttributeValueList: shapes.list(shapes.attributeValue()),
    ComparisonOperator: shapes.string({
      enumValues: ['IN', 'NULL', 'BETWEEN', 'LT', 'NOT_CONTAINS', 'EQ', 'GT', 'NOT_NULL', 'NE', 'LE', 'BEGINS_WITH', 'GE', 'CONTAINS'],
    }),
    Exists: shapes.boolean(),
    Value: shapes.attributeValue(),
  }),
);

/**
 * A request may use expressions or the legacy parameters, never both; names and values need an
 * expression that can use them. Texts as DynamoDB words them.
 */
export function checkExpressionParameters(
  input: Record<string, unknown>,
  expressionParameters: readonly string[],
  legacyParameters: readonly string[],
): void {
  // The common request has none of these: no list is built to find that out.
  if (input.ExpressionAttributeNames === undefined && input.ExpressionAttributeValues === undefined && noneGiven(input, expressionParameters)) return;
  // Lists are built only for an error's text: a request with expressions is checked without them.
  const expressionsUsed = !noneGiven(input, expressionParameters);
  if (expressionsUsed && !noneGiven(input, legacyParameters)) {
    const usedExpressions = expressionParameters.filter((name) => input[name] !== undefined);
    const usedLegacy = legacyParameters.filter((name) => input[name] !== undefined);
    throw validationError(
      'Can not use both expression and non-expression parameters in the same request: ' +
        `Non-expression parameters: {${usedLegacy.join(', ')}} Expression parameters: {${usedExpressions.join(', ')}}`,
    );
  }
  if (input.ExpressionAttributeNames !== undefined && !expressionsUsed) {
    throw validationError('ExpressionAttributeNames can only be specified when using expressions');
  }
  if (input.ExpressionAttributeValues !== undefined && hasValueExpressions(expressionParameters) && noValueExpressionGiven(input, expressionParameters)) {
    const valueExpressions = expressionParameters.filter(isValueExpression);
    const verb = valueExpressions.length > 1 ? 'are' : 'is';
    throw validationError(
      `ExpressionAttributeValues can only be specified when using expressions: ${valueExpressions.join(' and ')} ${verb} null`,
    );
  }
}

function noneGiven(input: Record<string, unknown>, parameters: readonly string[]): boolean {
  for (let at = 0; at < parameters.length; at++) if (input[parameters[at]!] !== undefined) return false;
  return true;
}

/** Expressions that may use `:values` (a ProjectionExpression may not). */
function isValueExpression(name: string): boolean {
  return name !== 'ProjectionExpression';
}

function hasValueExpressions(parameters: readonly string[]): boolean {
  for (let at = 0; at < parameters.length; at++) if (isValueExpression(parameters[at]!)) return true;
  return false;
}

function noValueExpressionGiven(input: Record<string, unknown>, parameters: readonly string[]): boolean {
  for (let at = 0; at < parameters.length; at++) {
    const name = parameters[at]!;
    if (isValueExpression(name) && input[name] !== undefined) return false;
  }
  return true;
}

/** Which expressions of a request to parse. */
export interface ExpressionParameters {
  readonly UpdateExpression?: string | undefined;
  readonly ConditionExpression?: string | undefined;
  readonly KeyConditionExpression?: string | undefined;
  readonly FilterExpression?: string | undefined;
  readonly ProjectionExpression?: string | undefined;
  readonly ExpressionAttributeNames?: Readonly<Record<string, string>> | undefined;
  readonly ExpressionAttributeValues?: Readonly<Record<string, AttributeValue>> | undefined;
}

export interface ParsedExpressions {
  readonly update: UpdateActions | undefined;
  readonly condition: Condition | undefined;
  /** Parsed but not yet held against a key schema (the operation does that, after these checks). */
  readonly keyCondition: ParsedKeyCondition | undefined;
  readonly filter: Condition | undefined;
  readonly projection: ParsedProjection | undefined;
}

const NO_EXPRESSIONS: ParsedExpressions = Object.freeze({
  update: undefined,
  condition: undefined,
  keyCondition: undefined,
  filter: undefined,
  projection: undefined,
});

/**
 * Checks the placeholder maps, parses every expression of a request in DynamoDB's order (update,
 * condition, key condition, filter, projection) and then requires every placeholder to have
 * been used.
 */
export function parseExpressions(parameters: ExpressionParameters, cache: ExpressionCache): ParsedExpressions {
  const names = parameters.ExpressionAttributeNames;
  const values = parameters.ExpressionAttributeValues;
  // Most GetItems and PutItems carry none: nothing to check or parse, and no context to allocate.
  if (
    names === undefined &&
    values === undefined &&
    parameters.UpdateExpression === undefined &&
    parameters.ConditionExpression === undefined &&
    parameters.KeyConditionExpression === undefined &&
    parameters.FilterExpression === undefined &&
    parameters.ProjectionExpression === undefined
  ) {
    return NO_EXPRESSIONS;
  }
  checkExpressionAttributeNames(names);
  checkExpressionAttributeValues(values);
  validateExpressionValues(values);
  const context: ExpressionContext = { names, values, usedNames: new Set(), usedValues: new Set() };
  const update = parameters.UpdateExpression === undefined ? undefined : parseUpdate(parameters.UpdateExpression, context, cache);
  const condition =
    parameters.ConditionExpression === undefined
      ? undefined
      : parseCondition(parameters.ConditionExpression, context, 'ConditionExpression', cache);
  const keyCondition =
    parameters.KeyConditionExpression === undefined
      ? undefined
      : parseKeyConditionExpression(parameters.KeyConditionExpression, context, cache);
  const filter =
    parameters.FilterExpression === undefined ? undefined : parseCondition(parameters.FilterExpression, context, 'FilterExpression', cache);
  const projection =
    parameters.ProjectionExpression === undefined
      ? undefined
      : { paths: parseProjectionPaths(parameters.ProjectionExpression, context, cache) };
  checkUnusedPlaceholders(context);
  return { update, condition, keyCondition, filter, projection };
}

/** Expression values are attribute values: the item rules apply, reported with their key. */
function validateExpressionValues(values: Readonly<Record<string, AttributeValue>> | undefined): void {
  if (values === undefined) return;
  for (const key in values) {
    try {
      validateAttributeValue(values[key]!, 0);
    } catch (error) {
      if (error instanceof DynamoError && error.message !== ATTRIBUTE_NAME_TOO_LARGE) {
        throw validationError(`ExpressionAttributeValues contains invalid value: ${error.message} for key ${key}`);
      }
      throw error;
    }
  }
}

/** Which attributes a read returns: everything, a legacy list, or a parsed projection. */
export type ReadProjection =
  | { readonly kind: 'all' }
  | { readonly kind: 'attributes'; readonly names: readonly string[] }
  | { readonly kind: 'expression'; readonly projection: ParsedProjection };

export function readProjectionOf(
  projection: ParsedProjection | undefined,
  attributesToGet: readonly string[] | undefined,
): ReadProjection {
  if (projection !== undefined) return { kind: 'expression', projection };
  if (attributesToGet !== undefined) {
    const seen = new Set<string>();
    for (const name of attributesToGet) {
      checkAttributeName(name);
      if (seen.has(name)) {
        throw validationError('One or more parameter values were invalid: Duplicate value in attribute name: ' + name);
      }
      seen.add(name);
    }
    return { kind: 'attributes', names: attributesToGet };
  }
  return ALL_ATTRIBUTES;
}

/** Most reads project nothing: one answer for all of them. */
const ALL_ATTRIBUTES: ReadProjection = Object.freeze({ kind: 'all' });

export function consumedCapacityMode(input: Record<string, unknown>): ReturnConsumedCapacity | undefined {
  return input.ReturnConsumedCapacity as ReturnConsumedCapacity | undefined;
}

export function asAttributeMap(value: unknown): AttributeMap {
  return value as AttributeMap;
}

/** ReturnItemCollectionMetrics = SIZE: item collection sizes are reported for tables with LSIs. */
export function returnsItemCollectionMetrics(input: Record<string, unknown>): boolean {
  return input.ReturnItemCollectionMetrics === 'SIZE';
}

/**
 * The size estimate of the item collection a written item (or key) belongs to, after the write;
 * undefined for a table without LSIs, which has no item collections to report.
 */
export function itemCollectionMetrics(engine: Engine, table: Table, keyOrItem: AttributeMap): ItemCollectionMetrics | undefined {
  const collections = table.indexRuntime.collections;
  if (collections === undefined) return undefined;
  const hash = table.key.hash;
  const partitionKey = ownMember(keyOrItem, hash.name)!;
  const key = ItemCollections.keyOfPartition(table.itemPrefix, partitionKey);
  return itemCollectionMetricsOf(hash.name, partitionKey, itemCollectionSizeAfterWrite(engine, table, collections, key));
}

/** BatchWriteItem's and TransactWriteItems' ItemCollectionMetrics: per table, one entry per write. */
export function itemCollectionMetricsByTable(engine: Engine, writes: readonly { readonly table: Table; readonly keyOrItem: AttributeMap }[]): Record<string, ItemCollectionMetrics[]> | undefined {
  // A Map, not `{}`: `constructor` and `__proto__` are table names like any other.
  const byTable = new Map<string, ItemCollectionMetrics[]>();
  for (const write of writes) {
    const metrics = itemCollectionMetrics(engine, write.table, write.keyOrItem);
    if (metrics === undefined) continue;
    const list = byTable.get(write.table.name);
    if (list === undefined) byTable.set(write.table.name, [metrics]);
    else list.push(metrics);
  }
  return byTable.size > 0 ? recordOf(byTable) : undefined;
}
