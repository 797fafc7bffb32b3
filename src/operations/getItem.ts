/** GetItem: reads one item by its key, optionally projected. */
import { consumedCapacity, type ReturnConsumedCapacity } from '../capacity/consumption.js';
import { readItem } from '../engine/reads.js';
import { storageKeyOfKey } from '../engine/keys.js';
import { applyProjection } from '../expressions/projection.js';
import { ownMember, setMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import { validateAttributeMap } from '../model/validate-item.js';
import {
  checkExpressionParameters,
  consumedCapacityMode,
  expressionAttributeNamesMember,
  parseExpressions,
  readProjectionOf,
  returnConsumedCapacityMember,
  tableNameMember,
  type ReadProjection,
} from './common.js';
import { defineOperation, encodeText, JsonText } from './operation.js';
import { shapes } from './shape.js';

interface GetItemRequest {
  readonly tableName: string;
  readonly key: AttributeMap;
  readonly consistentRead: boolean;
  readonly projection: ReadProjection;
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
}

export const getItemOperation = defineOperation<GetItemRequest>({
  name: 'GetItem',
  members: {
    AttributesToGet: shapes.list(shapes.string(), { lengthMin: 1 }),
    TableName: tableNameMember,
    Key: shapes.attributeMap({ notNull: true }),
    ConsistentRead: shapes.boolean(),
    ReturnConsumedCapacity: returnConsumedCapacityMember,
    ProjectionExpression: shapes.string(),
    ExpressionAttributeNames: expressionAttributeNamesMember,
  },

  validate(input, context) {
    checkExpressionParameters(input, ['ProjectionExpression'], ['AttributesToGet']);
    const key = input.Key as AttributeMap;
    validateAttributeMap(key);
    const projection = readProjectionOf(
      parseExpressions(input, context.expressions).projection,
      input.AttributesToGet as string[] | undefined,
    );
    return {
      tableName: input.TableName as string,
      key,
      consistentRead: input.ConsistentRead === true,
      projection,
      returnConsumedCapacity: consumedCapacityMode(input),
    };
  },

  tables(request) {
    return request.tableName;
  },

  execute(engine, request) {
    const table = engine.requireTable(request.tableName);
    const storageKey = storageKeyOfKey(table, request.key);
    const read = readItem(engine, table, storageKey, request.key, request.consistentRead ? 'strong' : 'eventual');
    const item = read.item;
    const capacity = consumedCapacity(request.returnConsumedCapacity, request.tableName, read.units);
    const stored = read.stored;
    if (item !== undefined && stored !== undefined && request.projection.kind === 'all') {
      // The whole item as stored: its JSON text goes out as it is, which is exactly what encoding
      // the body object would give (same members, same order), without encoding the item again
      // (~2 us for 1 KB; ~7% of a GetItem).
      if (capacity !== undefined) {
        return new JsonText('{"Item":' + stored.json + ',"ConsumedCapacity":' + JSON.stringify(capacity) + '}', { Item: item, ConsumedCapacity: capacity });
      }
      // The common answer is the same every time the item is read: built and encoded once, kept
      // with the store's entry for this committed value (a new value gets a new entry), so a
      // repeated GetItem allocates no answer (its text, body and JsonText were ~0.15 KB).
      return (stored.answer ??= wholeItemAnswer(item, stored.json));
    }
    return {
      Item: item === undefined ? undefined : project(item, request.projection),
      ConsumedCapacity: capacity,
    };
  },
});

/** GetItem's answer with the whole item and no ConsumedCapacity; frozen, as every reader of the item shares it. */
function wholeItemAnswer(item: AttributeMap, json: string): JsonText {
  const text = '{"Item":' + json + '}';
  return new JsonText(text, Object.freeze({ Item: item, ConsumedCapacity: undefined }), encodeText(text));
}

/** A read's item as the request projects it (shared by GetItem, BatchGetItem, TransactGetItems). */
export function project(item: AttributeMap, projection: ReadProjection): AttributeMap {
  switch (projection.kind) {
    case 'all':
      return item;
    case 'expression':
      return applyProjection(item, projection.projection);
    case 'attributes': {
      // Own members only, defined as data properties: `__proto__` and `constructor` are legal names.
      const result: Record<string, AttributeValue> = {};
      for (const name of projection.names) {
        const value = ownMember(item, name);
        if (value !== undefined) setMember(result, name, value);
      }
      return result;
    }
  }
}
