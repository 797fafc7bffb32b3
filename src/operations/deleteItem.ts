/** DeleteItem: removes one item by its key. */
import { consumedCapacity, writeUnits, type ReturnConsumedCapacity } from '../capacity/units.js';
import { DELETED, writeItem } from '../engine/items.js';
import { storageKeyOfKey } from '../engine/keys.js';
import { validationError } from '../errors.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { validateAttributeMap } from '../model/validate-item.js';
import {
  checkExpressionParameters,
  consumedCapacityMode,
  expectedMember,
  expressionAttributeNamesMember,
  expressionAttributeValuesMember,
  parseExpressions,
  returnConsumedCapacityMember,
  returnItemCollectionMetricsMember,
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
}

export const deleteItemOperation = defineOperation<DeleteItemRequest>({
  name: 'DeleteItem',
  members: {
    ReturnConsumedCapacity: returnConsumedCapacityMember,
    TableName: tableNameMember,
    ReturnValues: shapes.string({ enumValues: ['ALL_NEW', 'UPDATED_OLD', 'ALL_OLD', 'NONE', 'UPDATED_NEW'] }),
    ReturnItemCollectionMetrics: returnItemCollectionMetricsMember,
    Key: shapes.attributeMap({ notNull: true }),
    ConditionalOperator: shapes.string({ enumValues: ['OR', 'AND'] }),
    Expected: expectedMember,
    ConditionExpression: shapes.string(),
    ExpressionAttributeValues: expressionAttributeValuesMember,
    ExpressionAttributeNames: expressionAttributeNamesMember,
    ReturnValuesOnConditionCheckFailure: shapes.string({ enumValues: ['ALL_OLD', 'NONE'] }),
  },

  validate(input, context) {
    checkExpressionParameters(input, ['ConditionExpression'], ['Expected']);
    const key = input.Key as AttributeMap;
    validateAttributeMap(key);
    const returnValues = input.ReturnValues as string | undefined;
    if (returnValues !== undefined && returnValues !== 'ALL_OLD' && returnValues !== 'NONE') {
      throw validationError('ReturnValues can only be ALL_OLD or NONE');
    }
    validateExpectedValues(input.Expected as ExpectedMap | undefined);
    const parsed = parseExpressions(input, context.expressions);
    return {
      tableName: input.TableName as string,
      key,
      condition: writeConditionOf(input, parsed.condition),
      returnOldItem: returnValues === 'ALL_OLD',
      returnConsumedCapacity: consumedCapacityMode(input),
    };
  },

  async execute(engine, request) {
    const table = engine.requireTable(request.tableName);
    const storageKey = storageKeyOfKey(table, request.key);
    const outcome = await writeItem(engine, table, storageKey, (oldItem) => {
      requireCondition(request.condition, oldItem);
      return DELETED;
    });
    return {
      Attributes: request.returnOldItem ? outcome.oldItem : undefined,
      ConsumedCapacity: consumedCapacity(request.returnConsumedCapacity, request.tableName, writeUnits(outcome.oldSizeBytes)),
    };
  },
});
