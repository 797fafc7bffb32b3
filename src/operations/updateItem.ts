/**
 * UpdateItem: edits one item in place (creating it when absent, as DynamoDB does) with an
 * UpdateExpression or the legacy AttributeUpdates, optionally under a condition.
 */
import type { ReturnConsumedCapacity } from '../capacity/consumption.js';
import { writeConsumedCapacity } from '../engine/charges.js';
import { DELETED, writeItem, type NewImage } from '../engine/items.js';
import { checkIndexKeyTypes, checkUpdatedPaths, storageKeyOfKey } from '../engine/keys.js';
import type { Table } from '../engine/table.js';
import { DynamoError, validationError } from '../errors.js';
import type { UpdateActions } from '../expressions/ast.js';
import { updateActionsFromAttributeUpdates, type AttributeValueUpdate } from '../expressions/legacy.js';
import { applyUpdate, INCORRECT_TYPE, projectUpdated, updatedPaths } from '../expressions/update.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { ITEM_SIZE_MAX_BYTES, itemSize } from '../model/item-size.js';
import { checkAttributeName, checkNestingDepth, EMPTY_ATTRIBUTE_NAME, validateAttributeMap, validateAttributeValue } from '../model/validate-item.js';
import {
  checkExpressionParameters,
  conditionalOperatorMember,
  consumedCapacityMode,
  expectedMember,
  expressionAttributeNamesMember,
  expressionAttributeValuesMember,
  parseExpressions,
  returnConsumedCapacityMember,
  returnValuesMember,
  returnValuesOnConditionCheckFailureMember,
  returnItemCollectionMetricsMember,
  itemCollectionMetrics,
  returnsItemCollectionMetrics,
  tableNameMember,
} from './common.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';
import { requireCondition, validateExpectedValues, writeConditionOf, type ExpectedMap, type WriteCondition } from './write-condition.js';

type ReturnValues = 'NONE' | 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' | 'UPDATED_NEW';

interface UpdateItemRequest {
  readonly tableName: string;
  readonly key: AttributeMap;
  readonly actions: UpdateActions;
  /** From AttributeUpdates: a stored value of another type has the legacy parameter's text. */
  readonly legacyActions: boolean;
  readonly condition: WriteCondition;
  readonly returnValues: ReturnValues;
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
  readonly returnItemCollectionMetrics: boolean;
}

const NO_ACTIONS: UpdateActions = { set: [], remove: [], add: [], delete: [] };

export const updateItemOperation = defineOperation<UpdateItemRequest>({
  name: 'UpdateItem',
  members: {
    ReturnConsumedCapacity: returnConsumedCapacityMember,
    TableName: tableNameMember,
    ReturnValues: returnValuesMember,
    ReturnItemCollectionMetrics: returnItemCollectionMetricsMember,
    Key: shapes.attributeMap({ notNull: true }),
    ConditionalOperator: conditionalOperatorMember,
    AttributeUpdates: shapes.map(
      'AttributeValueUpdate',
      shapes.structure('AttributeValueUpdate', {
        Value: shapes.attributeValue(),
        Action: shapes.string({ enumValues: ['ADD', 'PUT', 'DELETE'] }),
      }),
    ),
    Expected: expectedMember,
    UpdateExpression: shapes.string(),
    ConditionExpression: shapes.string(),
    ExpressionAttributeValues: expressionAttributeValuesMember,
    ExpressionAttributeNames: expressionAttributeNamesMember,
    ReturnValuesOnConditionCheckFailure: returnValuesOnConditionCheckFailureMember,
  },

  validate(input, context) {
    checkExpressionParameters(input, ['UpdateExpression', 'ConditionExpression'], ['AttributeUpdates', 'Expected', 'ConditionalOperator']);
    const key = input.Key as AttributeMap;
    validateAttributeMap(key);
    const attributeUpdates = input.AttributeUpdates as Readonly<Record<string, AttributeValueUpdate>> | undefined;
    for (const name in attributeUpdates) {
      if (name === '') throw validationError(EMPTY_ATTRIBUTE_NAME);
      checkAttributeName(name);
      const value = attributeUpdates[name]!.Value;
      if (value !== undefined) validateAttributeValue(value, 0);
    }
    const legacyActions = attributeUpdates === undefined ? undefined : updateActionsFromAttributeUpdates(attributeUpdates);
    validateExpectedValues(input.Expected as ExpectedMap | undefined, input.ConditionalOperator);
    const parsed = parseExpressions(input, context.expressions);
    return {
      tableName: input.TableName as string,
      key,
      actions: parsed.update ?? legacyActions ?? NO_ACTIONS,
      legacyActions: legacyActions !== undefined,
      condition: writeConditionOf(input, parsed.condition),
      returnValues: (input.ReturnValues as ReturnValues | undefined) ?? 'NONE',
      returnConsumedCapacity: consumedCapacityMode(input),
      returnItemCollectionMetrics: returnsItemCollectionMetrics(input),
    };
  },

  tables(request) {
    return request.tableName;
  },

  async execute(engine, request) {
    const table = engine.requireTable(request.tableName);
    const storageKey = storageKeyOfKey(table, request.key);
    checkUpdatedPaths(table, updatedPaths(request.actions));
    const outcome = await writeItem(engine, table, storageKey, (oldItem) => {
      requireCondition(request.condition, oldItem);
      if (!request.legacyActions) return updatedImage(table, request.key, request.actions, oldItem);
      try {
        return updatedImage(table, request.key, request.actions, oldItem);
      } catch (error) {
        // AttributeUpdates' ADD / DELETE on a value of another type (dynalite's record of DynamoDB).
        if (error instanceof DynamoError && error.message === INCORRECT_TYPE) throw validationError('Type mismatch for attribute to update');
        throw error;
      }
    });
    return {
      Attributes: returnedAttributes(request, outcome.old.item, outcome.next.item),
      ConsumedCapacity: writeConsumedCapacity(request.returnConsumedCapacity, outcome),
      ItemCollectionMetrics: request.returnItemCollectionMetrics ? itemCollectionMetrics(engine, table, request.key) : undefined,
    };
  },
});

/**
 * The item after an update, for UpdateItem and TransactWriteItems' Update (and PartiQL's UPDATE
 * through them): an absent item starts as its key, as DynamoDB's upsert does. Throws the
 * ValidationExceptions of the result: index key types, nesting depth, item size.
 */
export function updatedImage(table: Table, key: AttributeMap, actions: UpdateActions, oldItem: AttributeMap | undefined): NewImage {
  // An update that only takes away (REMOVE, DELETE) creates no item where there is none, as on
  // DynamoDB (scylladb/scylladb#5862); one with no action at all still creates the key's item.
  if (oldItem === undefined && actions.set.length === 0 && actions.add.length === 0 && actions.remove.length + actions.delete.length > 0) return DELETED;
  // Removing attributes of an item that does not exist yet has nothing to act on.
  const effective = oldItem === undefined ? { ...actions, remove: [] } : actions;
  const item = applyUpdate(oldItem ?? key, effective);
  checkIndexKeyTypes(table, item);
  // Only SET can deepen an item (a document set at a path, list_append); ADD and DELETE act on
  // numbers and sets, REMOVE takes away.
  if (effective.set.length > 0) checkNestingDepth(item);
  const sizeBytes = itemSize(item);
  if (sizeBytes > ITEM_SIZE_MAX_BYTES) throw validationError('Item size to update has exceeded the maximum allowed size');
  return { item, sizeBytes };
}

function returnedAttributes(
  request: UpdateItemRequest,
  oldItem: AttributeMap | undefined,
  newItem: AttributeMap | undefined,
): AttributeMap | undefined {
  switch (request.returnValues) {
    case 'NONE':
      return undefined;
    case 'ALL_OLD':
      return oldItem;
    case 'ALL_NEW':
      return newItem;
    case 'UPDATED_OLD':
      return projectUpdated(oldItem, request.actions);
    case 'UPDATED_NEW':
      return projectUpdated(newItem, request.actions);
  }
}
