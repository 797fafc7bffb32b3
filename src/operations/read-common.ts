/**
 * What Query and Scan share: their extra request members, the legacy filter maps (QueryFilter,
 * ScanFilter, KeyConditions), ExclusiveStartKey rules, Select, the key-attribute rules for
 * filters and projections, and the response page with its consumed capacity.
 *
 * Texts are DynamoDB's as dynalite's tests (run against DynamoDB) recorded them; where dynalite is
 * silent, DynamoDB Local's (the Select rules, EQ/NE accepting every type).
 */
import { consumedCapacityOf, type ReturnConsumedCapacity, type TableConsumption } from '../capacity/consumption.js';
import type { Page } from '../engine/read-range.js';
import type { ReadTarget } from '../engine/reads.js';
import type { Table } from '../engine/table.js';
import { DynamoError, validationError } from '../errors.js';
import type { Condition, DocumentPath, Operand } from '../expressions/ast.js';
import { combine, comparisonCondition, type ConditionalOperator } from '../expressions/legacy.js';
import type { AttributeMap, AttributeValue } from '../model/attribute-value.js';
import { validateAttributeValue } from '../model/validate-item.js';
import type { ReadProjection } from './common.js';
import { project } from './getItem.js';
import { lastEvaluatedKey } from './read-target.js';
import { shapes, type Member } from './shape.js';

export const INVALID = 'One or more parameter values were invalid: ';
export const START_KEY_INVALID = 'The provided starting key is invalid';

// ---------------------------------------------------------------------------------------------
// Members

const COMPARISON_OPERATORS = ['IN', 'NULL', 'BETWEEN', 'LT', 'NOT_CONTAINS', 'EQ', 'GT', 'NOT_NULL', 'NE', 'LE', 'BEGINS_WITH', 'GE', 'CONTAINS'];

export const selectMember: Member = shapes.string({
  enumValues: ['SPECIFIC_ATTRIBUTES', 'COUNT', 'ALL_ATTRIBUTES', 'ALL_PROJECTED_ATTRIBUTES'],
});
export const indexNameMember: Member = shapes.string({ pattern: '[a-zA-Z0-9_.-]+', lengthMin: 3, lengthMax: 255 });
export const limitMember: Member = shapes.integer({ valueMin: 1 });
export const attributesToGetMember: Member = shapes.list(shapes.string(), { lengthMin: 1 });
export const conditionalOperatorMember: Member = shapes.string({ enumValues: ['OR', 'AND'] });
/** QueryFilter, ScanFilter and KeyConditions: attribute name → Condition. */
export const conditionMapMember: Member = shapes.map(
  'Condition',
  shapes.structure('Condition', {
    AttributeValueList: shapes.list(shapes.attributeValue()),
    ComparisonOperator: shapes.string({ notNull: true, enumValues: COMPARISON_OPERATORS }),
  }),
);

// ---------------------------------------------------------------------------------------------
// Legacy conditions (QueryFilter, ScanFilter, KeyConditions)

export interface LegacyCondition {
  readonly ComparisonOperator: string;
  readonly AttributeValueList?: readonly AttributeValue[];
}

export type ConditionMap = Readonly<Record<string, LegacyCondition>>;

const OPERAND_COUNTS: Readonly<Record<string, number | 'many'>> = {
  EQ: 1, NE: 1, LE: 1, LT: 1, GE: 1, GT: 1, CONTAINS: 1, NOT_CONTAINS: 1, BEGINS_WITH: 1,
  NULL: 0, NOT_NULL: 0, IN: 'many', BETWEEN: 2,
};

/**
 * Checks each condition of a filter map in DynamoDB's order: its values as attribute values, the
 * number of values, one type for all of them, a type the operator accepts, BETWEEN's bounds.
 */
export function validateConditionMap(conditions: ConditionMap | undefined): void {
  for (const name in conditions) {
    const { ComparisonOperator: operator, AttributeValueList: values = [] } = conditions[name]!;
    for (const value of values) validateAttributeValue(value, 0);
    const count = OPERAND_COUNTS[operator];
    if (count === 'many' ? values.length === 0 : values.length !== count) {
      throw validationError(INVALID + `Invalid number of argument(s) for the ${operator} ComparisonOperator`);
    }
    // One type for all values, a type the operator takes, BETWEEN's bounds: the translation's rules.
    comparisonCondition(name, operator, values);
  }
}

/** A validated filter map as one Condition (AND by default), or undefined when it is absent or empty. */
export function conditionOfMap(conditions: ConditionMap | undefined, operator: ConditionalOperator | undefined): Condition | undefined {
  if (conditions === undefined) return undefined;
  const parts = Object.keys(conditions).map((name) => {
    const condition = conditions[name]!;
    return comparisonCondition(name, condition.ComparisonOperator, condition.AttributeValueList ?? []);
  });
  return combine(parts, operator ?? 'AND');
}

// ---------------------------------------------------------------------------------------------
// ExclusiveStartKey

/** Texts DynamoDB passes through without the "starting key is invalid" prefix (dynalite's record). */
const UNPREFIXED_VALUE_ERRORS = /contains duplicates|number set|numeric value|significant digits|number with magnitude/;

/** The start key's values are attribute values: the item rules apply, mostly reported as an invalid start key. */
export function validateStartKeyValues(startKey: AttributeMap | undefined): void {
  for (const name in startKey) {
    try {
      validateAttributeValue(startKey[name]!, 0);
    } catch (error) {
      if (error instanceof DynamoError && !UNPREFIXED_VALUE_ERRORS.test(error.message)) {
        throw validationError(`${START_KEY_INVALID}: ${error.message}`);
      }
      throw error;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Select

export type Select = 'ALL_ATTRIBUTES' | 'ALL_PROJECTED_ATTRIBUTES' | 'SPECIFIC_ATTRIBUTES' | 'COUNT';

/**
 * Select's rules as DynamoDB Local words them; without Select, attributes asked for mean
 * SPECIFIC_ATTRIBUTES, an index means ALL_PROJECTED_ATTRIBUTES, anything else ALL_ATTRIBUTES.
 */
export function resolveSelect(input: Record<string, unknown>): Select {
  const select = input.Select as Select | undefined;
  const named = input.AttributesToGet !== undefined ? 'AttributesToGet' : input.ProjectionExpression !== undefined ? 'ProjectionExpression' : undefined;
  const hasIndex = input.IndexName !== undefined;
  if (select === undefined) return named !== undefined ? 'SPECIFIC_ATTRIBUTES' : hasIndex ? 'ALL_PROJECTED_ATTRIBUTES' : 'ALL_ATTRIBUTES';
  switch (select) {
    case 'ALL_ATTRIBUTES':
      if (named !== undefined) throw validationError(`Cannot specify the ${named} when choosing to get ALL_ATTRIBUTES`);
      return select;
    case 'ALL_PROJECTED_ATTRIBUTES':
      if (named !== undefined) throw validationError(`Cannot specify the ${named} when choosing to get ALL_PROJECTED_ATTRIBUTES`);
      if (!hasIndex) throw validationError('ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName');
      return select;
    case 'COUNT':
      if (named !== undefined) throw validationError(`Cannot specify the ${named} when choosing to get only the Count`);
      return select;
    case 'SPECIFIC_ATTRIBUTES':
      if (named === undefined) {
        throw validationError('Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES');
      }
      return select;
  }
}

// ---------------------------------------------------------------------------------------------
// Key attributes in filters and projections

/** Every document path a condition reads, in reading order. */
export function conditionPaths(condition: Condition | undefined): DocumentPath[] {
  const paths: DocumentPath[] = [];
  const operand = (value: Operand): void => {
    if (value.kind !== 'value') paths.push(value.path);
  };
  const walk = (node: Condition): void => {
    switch (node.kind) {
      case 'compare':
        return [node.left, node.right].forEach(operand);
      case 'between':
        return [node.subject, node.low, node.high].forEach(operand);
      case 'in':
        return [node.subject, ...node.candidates].forEach(operand);
      case 'and':
      case 'or':
        walk(node.left);
        return walk(node.right);
      case 'not':
        return walk(node.operand);
      case 'attribute_exists':
      case 'attribute_not_exists':
        paths.push(node.path);
        return;
      case 'attribute_type':
        return [node.subject, node.type].forEach(operand);
      case 'begins_with':
        return [node.subject, node.prefix].forEach(operand);
      case 'contains':
        return [node.subject, node.operand].forEach(operand);
    }
  };
  if (condition !== undefined) walk(condition);
  return paths;
}

/**
 * Key attributes are scalars: a path reaching inside one (`pk.a`, `pk[0]`) is refused, table keys
 * first, then index keys, as DynamoDB reports them.
 */
export function checkScalarKeyPaths(table: Table, paths: readonly DocumentPath[]): void {
  // Most reads reach inside nothing: no set is made to find that out (two per Query, ~0.3 KB).
  if (!paths.some((path) => path.length > 1)) return;
  const nested = new Set<string>();
  for (const path of paths) if (path.length > 1) nested.add(path[0] as string);
  const scalarsOnly = "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: ";
  for (const attribute of [table.key.hash, table.key.range]) {
    if (attribute !== undefined && nested.has(attribute.name)) throw validationError(`${scalarsOnly}Key: ${attribute.name}`);
  }
  for (const index of table.indexKeys) {
    if (nested.has(index.attribute.name)) throw validationError(`${scalarsOnly}IndexKey: ${index.attribute.name}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The response page

export interface PageShape {
  readonly target: ReadTarget;
  readonly select: Select;
  readonly projection: ReadProjection;
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
  /** What the page consumed (engine/reads.ts readRangePage), already admitted. */
  readonly consumption: TableConsumption;
}

/**
 * Count / ScannedCount / Items / LastEvaluatedKey / ConsumedCapacity of a page. The read costs the
 * sum of the sizes of every item (or index entry) read, filtered out or not, rounded up once per
 * page, plus the items an LSI read fetched from the table.
 */
export function pageResponse(page: Page, shape: PageShape): object {
  return {
    Items: shape.select === 'COUNT' ? undefined : page.items.map((item) => project(item, shape.projection)),
    Count: page.items.length,
    ScannedCount: page.scannedCount,
    LastEvaluatedKey: lastEvaluatedKey(shape.target, page.stoppedAt),
    ConsumedCapacity: consumedCapacityOf(shape.returnConsumedCapacity, shape.consumption),
  };
}
