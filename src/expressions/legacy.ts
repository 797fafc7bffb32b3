/**
 * The legacy (pre-2014) parameters, translated into the expression forms of ast.ts so there is
 * one evaluator: Expected / QueryFilter / ScanFilter (+ ConditionalOperator) become a Condition,
 * AttributeUpdates becomes UpdateActions. Validation texts are DynamoDB's.
 */
import { validationError } from '../errors.js';
import type { AttributeValue } from '../model/attribute-value.js';
import type { Condition, Operand, SetValue, UpdateActions } from './ast.js';
import { compareScalars } from '../model/compare.js';

const INVALID = 'One or more parameter values were invalid: ';

export interface ExpectedAttributeValue {
  readonly Value?: AttributeValue;
  readonly Exists?: boolean;
  readonly ComparisonOperator?: string;
  readonly AttributeValueList?: readonly AttributeValue[];
}

export type ConditionalOperator = 'AND' | 'OR';

const ORDERED = ['S', 'N', 'B'];
/** The value types each operator accepts; EQ and NE take any type (DynamoDB Local). */
const OPERATOR_TYPES: Readonly<Record<string, readonly string[] | undefined>> = {
  LE: ORDERED, LT: ORDERED, GE: ORDERED, GT: ORDERED, IN: ORDERED, BETWEEN: ORDERED,
  CONTAINS: ORDERED, NOT_CONTAINS: ORDERED, BEGINS_WITH: ['S', 'B'],
};

/**
 * ConditionalOperator needs a legacy map (Expected, QueryFilter or ScanFilter) of two or more
 * conditions. Texts as DynamoDB answers them (ExtendDB's dual-target suite, run against DynamoDB:
 * tests/.../test_conditional_operator*.py).
 */
export function checkConditionalOperator(operator: unknown, conditions: object | undefined): void {
  if (operator === undefined) return;
  let count = 0;
  for (const _name in conditions) if (++count > 1) return;
  if (count === 0) throw validationError('ConditionalOperator cannot be used without Filter or Expected');
  throw validationError('ConditionalOperator can only be used when Filter or Expected has two or more elements');
}

/** How many values each legacy ComparisonOperator takes; IN takes one or more. */
const OPERAND_COUNTS: Readonly<Record<string, number | 'many'>> = {
  EQ: 1, NE: 1, LE: 1, LT: 1, GE: 1, GT: 1, CONTAINS: 1, NOT_CONTAINS: 1, BEGINS_WITH: 1,
  NULL: 0, NOT_NULL: 0, IN: 'many', BETWEEN: 2,
};

/** Validates an Expected map as DynamoDB does and returns its Condition (undefined when empty). */
export function conditionFromExpected(
  expected: Readonly<Record<string, ExpectedAttributeValue>>,
  operator: ConditionalOperator | undefined,
): Condition | undefined {
  const parts: Condition[] = [];
  for (const name in expected) parts.push(expectedCondition(name, expected[name]!));
  return combine(parts, operator ?? 'AND');
}

function expectedCondition(name: string, expectation: ExpectedAttributeValue): Condition {
  const { Value: value, Exists: exists, ComparisonOperator: comparison, AttributeValueList: list } = expectation;
  if (list !== undefined && value !== undefined) {
    throw validationError(INVALID + `Value and AttributeValueList cannot be used together for Attribute: ${name}`);
  }
  if (comparison !== undefined) {
    if (exists !== undefined) {
      throw validationError(INVALID + `Exists and ComparisonOperator cannot be used together for Attribute: ${name}`);
    }
    if (comparison !== 'NULL' && comparison !== 'NOT_NULL' && list === undefined && value === undefined) {
      throw validationError(
        INVALID + `Value or AttributeValueList must be used with ComparisonOperator: ${comparison} for Attribute: ${name}`,
      );
    }
    const condition = comparisonCondition(name, comparison, list ?? (value === undefined ? [] : [value]));
    // In Expected, NOT_CONTAINS is false on a missing attribute, unlike NE (Alternator's
    // test_expected.py, run against DynamoDB). Filters keep dynalite's record: true.
    return comparison === 'NOT_CONTAINS' ? { kind: 'and', left: { kind: 'attribute_exists', path: [name] }, right: condition } : condition;
  }
  if (list !== undefined) {
    throw validationError(INVALID + `AttributeValueList can only be used with a ComparisonOperator for Attribute: ${name}`);
  }
  const mustExist = exists === undefined || exists;
  if (mustExist && value === undefined) {
    throw validationError(INVALID + `Value must be provided when Exists is ${exists === undefined ? 'null' : exists} for Attribute: ${name}`);
  }
  if (!mustExist && value !== undefined) {
    throw validationError(INVALID + `Value cannot be used when Exists is false for Attribute: ${name}`);
  }
  return mustExist ? compare('=', name, value!) : { kind: 'attribute_not_exists', path: [name] };
}

/** One `ComparisonOperator` + `AttributeValueList` condition (Expected, QueryFilter, ScanFilter). */
export function comparisonCondition(name: string, comparison: string, values: readonly AttributeValue[]): Condition {
  const expectedCount = OPERAND_COUNTS[comparison];
  const countOk = expectedCount === 'many' ? values.length > 0 : values.length === expectedCount;
  if (!countOk) {
    throw validationError(INVALID + `Invalid number of argument(s) for the ${comparison} ComparisonOperator`);
  }
  if (values.length > 0) {
    const firstType = Object.keys(values[0]!)[0]!;
    if (values.some((value) => Object.keys(value)[0] !== firstType)) {
      throw validationError(INVALID + 'AttributeValues inside AttributeValueList must be of same type');
    }
    // A value the operator cannot take is a bad request, not a failed condition (Alternator's
    // test_expected.py, run against DynamoDB; the text is dynalite's record of DynamoDB's).
    const allowed = OPERATOR_TYPES[comparison];
    if (allowed !== undefined && !allowed.includes(firstType)) {
      throw validationError(INVALID + `ComparisonOperator ${comparison} is not valid for ${firstType} AttributeValue type`);
    }
  }
  if (comparison === 'BETWEEN' && isScalar(values[0]!) && compareScalars(values[0]!, values[1]!) > 0) {
    throw validationError('The BETWEEN condition was provided a range where the lower bound is greater than the upper bound');
  }
  const path = [name];
  const subject: Operand = { kind: 'path', path };
  switch (comparison) {
    case 'EQ': return compare('=', name, values[0]!);
    case 'NE': return compare('<>', name, values[0]!);
    case 'LE': return compare('<=', name, values[0]!);
    case 'LT': return compare('<', name, values[0]!);
    case 'GE': return compare('>=', name, values[0]!);
    case 'GT': return compare('>', name, values[0]!);
    case 'NULL': return { kind: 'attribute_not_exists', path };
    case 'NOT_NULL': return { kind: 'attribute_exists', path };
    case 'CONTAINS': return { kind: 'contains', subject, operand: literal(values[0]!) };
    case 'NOT_CONTAINS': return { kind: 'not', operand: { kind: 'contains', subject, operand: literal(values[0]!) } };
    case 'BEGINS_WITH': return { kind: 'begins_with', subject, prefix: literal(values[0]!) };
    case 'IN': return { kind: 'in', subject, candidates: values.map(literal) };
    default: // BETWEEN (the shape's enum admits nothing else)
      return { kind: 'between', subject, low: literal(values[0]!), high: literal(values[1]!) };
  }
}

function isScalar(value: AttributeValue): boolean {
  return 'S' in value || 'N' in value || 'B' in value;
}

function compare(comparator: '=' | '<>' | '<' | '<=' | '>' | '>=', name: string, value: AttributeValue): Condition {
  return { kind: 'compare', comparator, left: { kind: 'path', path: [name] }, right: literal(value) };
}

function literal(value: AttributeValue): Operand {
  return { kind: 'value', value };
}

/** AND/OR of the parts, left to right; undefined when there are none. */
export function combine(parts: readonly Condition[], operator: ConditionalOperator): Condition | undefined {
  if (parts.length === 0) return undefined;
  let result = parts[0]!;
  for (let index = 1; index < parts.length; index++) {
    result = operator === 'OR' ? { kind: 'or', left: result, right: parts[index]! } : { kind: 'and', left: result, right: parts[index]! };
  }
  return result;
}

export interface AttributeValueUpdate {
  readonly Value?: AttributeValue;
  readonly Action?: 'PUT' | 'DELETE' | 'ADD';
}

const SET_TYPES = new Set(['SS', 'NS', 'BS']);
const ADDABLE_TYPES = new Set(['L', 'SS', 'NS', 'BS', 'N']);

/** Validates AttributeUpdates as DynamoDB does and returns the equivalent UpdateActions. */
export function updateActionsFromAttributeUpdates(updates: Readonly<Record<string, AttributeValueUpdate>>): UpdateActions {
  const set: { path: string[]; value: SetValue }[] = [];
  const remove: string[][] = [];
  const add: { path: string[]; value: AttributeValue }[] = [];
  const remove_: { path: string[]; value: AttributeValue }[] = [];
  for (const name in updates) {
    const { Value: value, Action: action = 'PUT' } = updates[name]!;
    const type = value === undefined ? undefined : Object.keys(value)[0]!;
    if (value === undefined && action !== 'DELETE') {
      throw validationError(INVALID + 'Only DELETE action is allowed when no attribute value is specified');
    }
    if (action === 'DELETE' && type !== undefined && !SET_TYPES.has(type)) {
      throw validationError(INVALID + `DELETE action with value is not supported for the type ${type}`);
    }
    if (action === 'ADD' && !ADDABLE_TYPES.has(type!)) {
      throw validationError(INVALID + `ADD action is not supported for the type ${type}`);
    }
    const path = [name];
    if (action === 'PUT') set.push({ path, value: literal(value!) });
    else if (action === 'DELETE' && value === undefined) remove.push(path);
    else if (action === 'DELETE') remove_.push({ path, value: value! });
    else if (type === 'L') {
      // Legacy ADD appends to a list (expressions spell it list_append); a missing list starts empty.
      set.push({ path, value: { kind: 'list_append', first: { kind: 'if_not_exists', path, fallback: literal({ L: [] }) }, second: literal(value!) } });
    } else add.push({ path, value: value! });
  }
  return { set, remove, add, delete: remove_ };
}
