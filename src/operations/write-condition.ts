/**
 * Conditional writes, shared by PutItem, UpdateItem and DeleteItem (and later transactions): the
 * condition comes from ConditionExpression or the legacy Expected map, is evaluated against the
 * item's current image inside the write transaction, and fails with
 * ConditionalCheckFailedException, carrying the old item when the request asked for it.
 */
import { conditionalCheckFailed } from '../errors.js';
import type { Condition } from '../expressions/ast.js';
import { evaluateCondition } from '../expressions/evaluate.js';
import { checkConditionalOperator, conditionFromExpected, type ConditionalOperator, type ExpectedAttributeValue } from '../expressions/legacy.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { validateAttributeValue } from '../model/validate-item.js';

export interface WriteCondition {
  readonly condition: Condition | undefined;
  /** ReturnValuesOnConditionCheckFailure = ALL_OLD. */
  readonly returnOldItemOnFailure: boolean;
}

/** The legacy Expected parameter. */
export type ExpectedMap = Readonly<Record<string, ExpectedAttributeValue>>;

export const UNCONDITIONAL: WriteCondition = { condition: undefined, returnOldItemOnFailure: false };

/** Throws ConditionalCheckFailedException unless the condition holds for `oldItem`. */
export function requireCondition(writeCondition: WriteCondition, oldItem: AttributeMap | undefined): void {
  const condition = writeCondition.condition;
  if (condition === undefined || evaluateCondition(condition, oldItem)) return;
  const extra = writeCondition.returnOldItemOnFailure && oldItem !== undefined ? { Item: oldItem } : undefined;
  throw conditionalCheckFailed(extra);
}

/** The legacy Expected map's values are attribute values: the item rules apply to them first. */
export function validateExpectedValues(expected: ExpectedMap | undefined, conditionalOperator: unknown): void {
  checkConditionalOperator(conditionalOperator, expected);
  if (expected === undefined) return;
  for (const name in expected) {
    const expectation = expected[name]!;
    if (expectation.Value !== undefined) validateAttributeValue(expectation.Value, 0);
    for (const value of expectation.AttributeValueList ?? []) validateAttributeValue(value, 0);
  }
}

/** The request's condition, from ConditionExpression (already parsed) or from Expected. */
export function writeConditionOf(input: Record<string, unknown>, parsedCondition: Condition | undefined): WriteCondition {
  const expected = input.Expected as ExpectedMap | undefined;
  const condition =
    parsedCondition ??
    (expected === undefined ? undefined : conditionFromExpected(expected, input.ConditionalOperator as ConditionalOperator | undefined));
  return { condition, returnOldItemOnFailure: input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' };
}
