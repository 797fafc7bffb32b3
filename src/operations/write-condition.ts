/**
 * Conditional writes, shared by PutItem, UpdateItem and DeleteItem (and later transactions): the
 * condition comes from ConditionExpression or the legacy Expected map, is evaluated against the
 * item's current image inside the write transaction, and fails with
 * ConditionalCheckFailedException, carrying the old item when the request asked for it.
 */
import { conditionalCheckFailed } from '../errors.js';
import type { Condition } from '../expressions/ast.js';
import { evaluateCondition } from '../expressions/evaluate.js';
import type { AttributeMap } from '../model/attribute-value.js';

export interface WriteCondition {
  readonly condition: Condition | undefined;
  /** ReturnValuesOnConditionCheckFailure = ALL_OLD. */
  readonly returnOldItemOnFailure: boolean;
}

export const UNCONDITIONAL: WriteCondition = { condition: undefined, returnOldItemOnFailure: false };

/** Throws ConditionalCheckFailedException unless the condition holds for `oldItem`. */
export function requireCondition(writeCondition: WriteCondition, oldItem: AttributeMap | undefined): void {
  const condition = writeCondition.condition;
  if (condition === undefined || evaluateCondition(condition, oldItem)) return;
  const extra = writeCondition.returnOldItemOnFailure && oldItem !== undefined ? { Item: oldItem } : undefined;
  throw conditionalCheckFailed(extra);
}
