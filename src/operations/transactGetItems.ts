/**
 * TransactGetItems: up to 100 Gets over several tables, read from one snapshot of the store
 * (engine/reads.ts transactRead reads, sizes and admits them all inside one exclusive storage write). Responses follow
 * the request order: {Item} for a found item, {} for a missing one.
 *
 * As with TransactWriteItems, a key that does not fit its table's schema cancels the transaction
 * with a ValidationError reason (captured against DynamoDB), while an empty key value, a missing
 * table and two Gets of one item are top-level errors.
 */
import { Consumption, type ReturnConsumedCapacity } from '../capacity/consumption.js';
import type { Engine } from '../engine/engine.js';
import { storageKeyOfKey } from '../engine/keys.js';
import { rejectEmptyKeyValues } from '../engine/lookup-keys.js';
import type { Table } from '../engine/table.js';
import {
  NO_REASON,
  requireDistinctTargets,
  targetOf,
  transactionCanceled,
  validationReason,
  type ActionTarget,
} from '../engine/transactions.js';
import { transactRead, type TransactGetAction } from '../engine/reads.js';
import type { AttributeMap } from '../model/attribute-value.js';
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
import { project } from './getItem.js';
import { defineOperation, distinctTables } from './operation.js';
import { shapes } from './shape.js';
import { TRANSACT_ITEMS_MAX } from './transactWriteItems.js';

interface ValidatedGet {
  readonly tableName: string;
  readonly key: AttributeMap;
  readonly projection: ReadProjection;
}

interface TransactGetItemsRequest {
  readonly gets: readonly ValidatedGet[];
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
}

const transactGetItemMember = shapes.structure(
  'TransactGetItem',
  {
    Get: shapes.structure(
      'Get',
      {
        Key: shapes.attributeMap({ notNull: true }),
        TableName: tableNameMember,
        ProjectionExpression: shapes.string(),
        ExpressionAttributeNames: expressionAttributeNamesMember,
      },
      { notNull: true },
    ),
  },
  { notNull: true },
);

export const transactGetItemsOperation = defineOperation<TransactGetItemsRequest>({
  name: 'TransactGetItems',
  members: {
    TransactItems: shapes.list(transactGetItemMember, { notNull: true, lengthMin: 1, lengthMax: TRANSACT_ITEMS_MAX }),
    ReturnConsumedCapacity: returnConsumedCapacityMember,
  },

  validate(input, context) {
    const gets = (input.TransactItems as readonly { readonly Get: Record<string, unknown> }[]).map(({ Get: get }) => {
      checkExpressionParameters(get, ['ProjectionExpression'], []);
      const key = get.Key as AttributeMap;
      validateAttributeMap(key);
      const projection = readProjectionOf(parseExpressions(get, context.expressions).projection, undefined);
      return { tableName: get.TableName as string, key, projection };
    });
    return { gets, returnConsumedCapacity: consumedCapacityMode(input) };
  },

  tables(request) {
    return distinctTables(request.gets.map((get) => get.tableName));
  },

  async execute(engine, request) {
    const planned = request.gets.map((get) => planGet(engine, get));
    requireDistinctTargets(planned.map((get) => get.target));
    const reads = await transactRead(engine, readsOrCancel(planned));
    const consumption = new Consumption();
    const responses = reads.map(({ item, units }, index) => {
      const get = request.gets[index]!;
      consumption.of(get.tableName).table.read += units;
      return item === undefined ? {} : { Item: project(item, get.projection) };
    });
    return { Responses: responses, ConsumedCapacity: consumption.toConsumedCapacities(request.returnConsumedCapacity, true) };
  },
});

/** The reads, once every key fits its table; otherwise the transaction is cancelled before reading. */
function readsOrCancel(planned: readonly PlannedGet[]): TransactGetAction[] {
  const reads = planned.flatMap((get) => (get.target.kind === 'key' ? [{ table: get.table, storageKey: get.target.storageKey }] : []));
  if (reads.length < planned.length) {
    throw transactionCanceled(planned.map((get) => (get.target.kind === 'invalid' ? validationReason(get.target.message) : NO_REASON)));
  }
  return reads;
}

interface PlannedGet {
  readonly table: Table;
  readonly target: ActionTarget;
}

function planGet(engine: Engine, get: ValidatedGet): PlannedGet {
  const table = engine.requireTable(get.tableName);
  rejectEmptyKeyValues(table, get.key);
  return { table, target: targetOf(() => storageKeyOfKey(table, get.key)) };
}
