/**
 * Members and rules shared by the item operations, so each DynamoDB rule is written once.
 */
import { validationError } from '../errors.js';
import { parseProjection, type ParsedProjection } from '../expressions/projection.js';
import type { AttributeMap } from '../model/attribute-value.js';
import type { ReturnConsumedCapacity } from '../capacity/units.js';
import { shapes, TABLE_NAME_CONSTRAINTS, type Member } from './shape.js';

export const returnConsumedCapacityMember: Member = shapes.string({ enumValues: ['INDEXES', 'TOTAL', 'NONE'] });
export const tableNameMember: Member = shapes.string({ notNull: true, ...TABLE_NAME_CONSTRAINTS });
export const returnItemCollectionMetricsMember: Member = shapes.string({ enumValues: ['SIZE', 'NONE'] });
export const expressionAttributeNamesMember: Member = shapes.map('java.lang.String', shapes.string());
export const expressionAttributeValuesMember: Member = shapes.map('AttributeValue', shapes.attributeValue());

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
  const usedExpressions = expressionParameters.filter((name) => input[name] !== undefined);
  if (usedExpressions.length > 0) {
    const usedLegacy = legacyParameters.filter((name) => input[name] !== undefined);
    if (usedLegacy.length > 0) {
      throw validationError(
        'Can not use both expression and non-expression parameters in the same request: ' +
          `Non-expression parameters: {${usedLegacy.join(', ')}} Expression parameters: {${usedExpressions.join(', ')}}`,
      );
    }
  }
  if (input.ExpressionAttributeNames !== undefined && usedExpressions.length === 0) {
    throw validationError('ExpressionAttributeNames can only be specified when using expressions');
  }
  const valueExpressions = expressionParameters.filter((name) => name !== 'ProjectionExpression');
  if (
    valueExpressions.length > 0 &&
    input.ExpressionAttributeValues !== undefined &&
    valueExpressions.every((name) => input[name] === undefined)
  ) {
    const verb = valueExpressions.length > 1 ? 'are' : 'is';
    throw validationError(
      `ExpressionAttributeValues can only be specified when using expressions: ${valueExpressions.join(' and ')} ${verb} null`,
    );
  }
}

const NAME_PLACEHOLDER = /^#[0-9A-Za-z_]+$/;

/** Checks ExpressionAttributeNames' own form (non-empty, `#` keys). */
export function checkExpressionAttributeNames(names: Readonly<Record<string, string>> | undefined): void {
  if (names === undefined) return;
  const keys = Object.keys(names);
  if (keys.length === 0) throw validationError('ExpressionAttributeNames must not be empty');
  for (const key of keys) {
    if (!NAME_PLACEHOLDER.test(key)) {
      throw validationError(`ExpressionAttributeNames contains invalid key: Syntax error; key: "${key}"`);
    }
  }
}

/** Every name placeholder must be used by some expression of the request. */
export function checkAllNamesUsed(names: Readonly<Record<string, string>> | undefined, used: ReadonlySet<string>): void {
  if (names === undefined) return;
  const unused = Object.keys(names).filter((key) => !used.has(key));
  if (unused.length > 0) {
    throw validationError(`Value provided in ExpressionAttributeNames unused in expressions: keys: {${unused.join(', ')}}`);
  }
}

/** Which attributes a read returns: everything, a legacy list, or a parsed projection. */
export type ReadProjection =
  | { readonly kind: 'all' }
  | { readonly kind: 'attributes'; readonly names: readonly string[] }
  | { readonly kind: 'expression'; readonly projection: ParsedProjection };

export function readProjectionOf(
  projectionExpression: string | undefined,
  attributesToGet: readonly string[] | undefined,
  names: Readonly<Record<string, string>> | undefined,
): ReadProjection {
  checkExpressionAttributeNames(names);
  if (projectionExpression !== undefined) {
    const used = new Set<string>();
    const projection = parseProjection(projectionExpression, names, used);
    checkAllNamesUsed(names, used);
    return { kind: 'expression', projection };
  }
  if (attributesToGet !== undefined) {
    const seen = new Set<string>();
    for (const name of attributesToGet) {
      if (seen.has(name)) {
        throw validationError('One or more parameter values were invalid: Duplicate value in attribute name: ' + name);
      }
      seen.add(name);
    }
    return { kind: 'attributes', names: attributesToGet };
  }
  return { kind: 'all' };
}

export function consumedCapacityMode(input: Record<string, unknown>): ReturnConsumedCapacity | undefined {
  return input.ReturnConsumedCapacity as ReturnConsumedCapacity | undefined;
}

/** Expressions beyond projections arrive with the expression engine; say so instead of ignoring them. */
export function rejectUnsupported(input: Record<string, unknown>, parameters: readonly string[]): void {
  for (const name of parameters) {
    if (input[name] !== undefined) {
      throw validationError(`dynatwin does not support ${name} yet`);
    }
  }
}

export function asAttributeMap(value: unknown): AttributeMap {
  return value as AttributeMap;
}
