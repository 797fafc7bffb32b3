/** PutItem: creates or replaces one item, optionally under a condition. */
import type { ReturnConsumedCapacity } from '../capacity/consumption.js';
import { writeConsumedCapacity } from '../engine/charges.js';
import { writeItem } from '../engine/items.js';
import { storageKeyOfItem } from '../engine/keys.js';
import { validationError } from '../errors.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { ITEM_SIZE_MAX_BYTES, itemSize } from '../model/item-size.js';
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

interface PutItemRequest {
  readonly tableName: string;
  readonly item: AttributeMap;
  readonly sizeBytes: number;
  readonly condition: WriteCondition;
  readonly returnOldItem: boolean;
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
  readonly returnItemCollectionMetrics: boolean;
}

export const putItemOperation = defineOperation<PutItemRequest>({
  name: 'PutItem',
  members: {
    ReturnConsumedCapacity: returnConsumedCapacityMember,
    TableName: tableNameMember,
    Item: shapes.attributeMap({ notNull: true }),
    ConditionalOperator: conditionalOperatorMember,
    Expected: expectedMember,
    ReturnValues: returnValuesMember,
    ReturnItemCollectionMetrics: returnItemCollectionMetricsMember,
    ConditionExpression: shapes.string(),
    ExpressionAttributeValues: expressionAttributeValuesMember,
    ExpressionAttributeNames: expressionAttributeNamesMember,
    ReturnValuesOnConditionCheckFailure: returnValuesOnConditionCheckFailureMember,
  },

  validate(input, context) {
    checkExpressionParameters(input, ['ConditionExpression'], ['Expected', 'ConditionalOperator']);
    const item = input.Item as AttributeMap;
    validateAttributeMap(item);
    const returnOldItem = returnsOldItemOnly(input);
    const sizeBytes = itemSize(item);
    if (sizeBytes > ITEM_SIZE_MAX_BYTES) throw validationError('Item size has exceeded the maximum allowed size');
    validateExpectedValues(input.Expected as ExpectedMap | undefined, input.ConditionalOperator);
    const parsed = parseExpressions(input, context.expressions);
    return {
      tableName: input.TableName as string,
      item,
      sizeBytes,
      condition: writeConditionOf(input, parsed.condition),
      returnOldItem,
      returnConsumedCapacity: consumedCapacityMode(input),
      returnItemCollectionMetrics: returnsItemCollectionMetrics(input),
    };
  },

  tables(request) {
    return request.tableName;
  },

  // Not async: the answer is the write's own promise, continued once, with no promise and
  // microtask hops of an async function's around it on every PutItem.
  execute(engine, request) {
    const table = engine.requireTable(request.tableName);
    const storageKey = storageKeyOfItem(table, request.item);
    const image = { item: request.item, sizeBytes: request.sizeBytes };
    const written = writeItem(engine, table, storageKey, (oldItem) => {
      requireCondition(request.condition, oldItem);
      return image;
    });
    return written.then((outcome) => ({
      Attributes: request.returnOldItem ? outcome.old.item : undefined,
      ConsumedCapacity: writeConsumedCapacity(request.returnConsumedCapacity, outcome),
      ItemCollectionMetrics: request.returnItemCollectionMetrics ? itemCollectionMetrics(engine, table, request.item) : undefined,
    }));
  },
});
