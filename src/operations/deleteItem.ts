/** DeleteItem: removes one item by its key. */
import type { ReturnConsumedCapacity } from '../capacity/consumption.js';
import { writeConsumedCapacity } from '../engine/charges.js';
import { DELETED, writeItem } from '../engine/items.js';
import { storageKeyOfKey } from '../engine/keys.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { validateAttributeMap } from '../model/validate-item.js';
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
  returnsOldItemOnly,
  returnItemCollectionMetricsMember,
  itemCollectionMetrics,
  returnsItemCollectionMetrics,
  tableNameMember,
} from './common.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';
import { requireCondition, validateExpectedValues, writeConditionOf, type ExpectedMap, type WriteCondition } from './write-condition.js';

interface DeleteItemRequest {
  readonly tableName: string;
  readonly key: AttributeMap;
  readonly condition: WriteCondition;
  readonly returnOldItem: boolean;
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
  readonly returnItemCollectionMetrics: boolean;
}

export const deleteItemOperation = defineOperation<DeleteItemRequest>({
  name: 'DeleteItem',
  members: {
    ReturnConsumedCapacity: returnConsumedCapacityMember,
    TableName: tableNameMember,
    ReturnValues: returnValuesMember,
    ReturnItemCollectionMetrics: returnItemCollectionMetricsMember,
    Key: shapes.attributeMap({ notNull: true }),
    ConditionalOperator: conditionalOperatorMember,
    Expected: expectedMember,
    ConditionExpression: shapes.string(),
    ExpressionAttributeValues: expressionAttributeValuesMember,
    ExpressionAttributeNames: expressionAttributeNamesMember,
    ReturnValuesOnConditionCheckFailure: returnValuesOnConditionCheckFailureMember,
  },

  validate(input, context) {
    checkExpressionParameters(input, ['ConditionExpression'], ['Expected', 'ConditionalOperator']);
    const key = input.Key as AttributeMap;
    validateAttributeMap(key);
    const returnOldItem = returnsOldItemOnly(input);
    validateExpectedValues(input.Expected as ExpectedMap | undefined, input.ConditionalOperator);
    const parsed = parseExpressions(input, context.expressions);
    return {
      tableName: input.TableName as string,
      key,
      condition: writeConditionOf(input, parsed.condition),
      returnOldItem,
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
    const outcome = await writeItem(engine, table, storageKey, (oldItem) => {
      requireCondition(request.condition, oldItem);
      return DELETED;
    });
    return {
      Attributes: request.returnOldItem ? outcome.old.item : undefined,
      ConsumedCapacity: writeConsumedCapacity(request.returnConsumedCapacity, outcome),
      ItemCollectionMetrics: request.returnItemCollectionMetrics ? itemCollectionMetrics(engine, table, request.key) : undefined,
    };
  },
});
