/**
 * TransactWriteItems: up to 100 Put / Update / Delete / ConditionCheck actions over several
 * tables, applied all or nothing in one storage write (engine/transactions.ts).
 *
 * Where DynamoDB reports a fault (captured against DynamoDB by paritysuite/dynamodb-conformance):
 * - top-level ValidationException: member constraints, then each action's own rules in request
 *   order (expressions, item contents, a Put item over 400 KB), the 4 MB aggregate, empty key
 *   values, two actions on one item; ResourceNotFoundException for a missing table;
 * - a TransactionCanceledException reason: a key that does not fit the schema (ValidationError),
 *   a failed condition (ConditionalCheckFailed), an update that cannot apply to the stored item
 *   (ValidationError, e.g. "Item size to update has exceeded the maximum allowed size").
 *
 * ClientRequestToken makes the call idempotent for 10 minutes (engine/idempotency.ts).
 */
import { Consumption, type ReturnConsumedCapacity } from '../capacity/consumption.js';
import { chargeWrite } from '../engine/charges.js';
import type { Engine } from '../engine/engine.js';
import { requestFingerprint } from '../engine/idempotency.js';
import { DELETED, type NewImage } from '../engine/write-pipeline.js';
import { checkUpdatedPaths, storageKeyOfItem, storageKeyOfKey } from '../engine/keys.js';
import { rejectEmptyIndexKeyValues, rejectEmptyKeyValues } from '../engine/lookup-keys.js';
import {
  requireDistinctTargets,
  targetOf,
  transactWrite,
  type IdempotencyKey,
  type TransactWriteAction,
  type TransactWriteResult,
} from '../engine/transactions.js';
import { validationError } from '../errors.js';
import type { UpdateActions } from '../expressions/ast.js';
import { updatedPaths } from '../expressions/update.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { ITEM_SIZE_MAX_BYTES, itemSize } from '../model/item-size.js';
import { validateAttributeMap } from '../model/validate-item.js';
import {
  checkExpressionParameters,
  consumedCapacityMode,
  expressionAttributeNamesMember,
  expressionAttributeValuesMember,
  parseExpressions,
  returnConsumedCapacityMember,
  returnItemCollectionMetricsMember,
  itemCollectionMetricsByTable,
  returnsItemCollectionMetrics,
  tableNameMember,
} from './common.js';
import { defineOperation, distinctTables, type ValidationContext } from './operation.js';
import { shapes, type Member } from './shape.js';
import { updatedImage } from './updateItem.js';
import { writeConditionOf, type WriteCondition } from './write-condition.js';

/** At most 100 actions per transaction. */
export const TRANSACT_ITEMS_MAX = 100;
/** The items of one transaction may total at most 4 MB. */
export const TRANSACTION_BYTES_MAX = 4 * 1024 * 1024;

type ActionKind = 'ConditionCheck' | 'Put' | 'Delete' | 'Update';
const ACTION_KINDS: readonly ActionKind[] = ['ConditionCheck', 'Put', 'Delete', 'Update'];

/** One action after validation; keys and items are checked against their table in execute. */
type ValidatedAction =
  | { readonly kind: 'Put'; readonly tableName: string; readonly item: AttributeMap; readonly sizeBytes: number; readonly condition: WriteCondition }
  | { readonly kind: 'Update'; readonly tableName: string; readonly key: AttributeMap; readonly actions: UpdateActions; readonly condition: WriteCondition }
  | { readonly kind: 'Delete' | 'ConditionCheck'; readonly tableName: string; readonly key: AttributeMap; readonly condition: WriteCondition };

interface TransactWriteItemsRequest {
  readonly actions: readonly ValidatedAction[];
  readonly idempotency: IdempotencyKey | undefined;
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
  readonly returnItemCollectionMetrics: boolean;
}

/** The condition members every action shares. */
function conditionMembers(conditionRequired: boolean): Record<string, Member> {
  return {
    ConditionExpression: shapes.string(conditionRequired ? { notNull: true } : undefined),
    ExpressionAttributeNames: expressionAttributeNamesMember,
    ExpressionAttributeValues: expressionAttributeValuesMember,
    ReturnValuesOnConditionCheckFailure: shapes.string({ enumValues: ['ALL_OLD', 'NONE'] }),
  };
}

const transactWriteItemMember = shapes.structure(
  'TransactWriteItem',
  {
    ConditionCheck: shapes.structure('ConditionCheck', {
      Key: shapes.attributeMap({ notNull: true }),
      TableName: tableNameMember,
      ...conditionMembers(true),
    }),
    Put: shapes.structure('Put', { Item: shapes.attributeMap({ notNull: true }), TableName: tableNameMember, ...conditionMembers(false) }),
    Delete: shapes.structure('Delete', { Key: shapes.attributeMap({ notNull: true }), TableName: tableNameMember, ...conditionMembers(false) }),
    Update: shapes.structure('Update', {
      Key: shapes.attributeMap({ notNull: true }),
      UpdateExpression: shapes.string({ notNull: true }),
      TableName: tableNameMember,
      ...conditionMembers(false),
    }),
  },
  { notNull: true },
);

export const transactWriteItemsOperation = defineOperation<TransactWriteItemsRequest>({
  name: 'TransactWriteItems',
  members: {
    TransactItems: shapes.list(transactWriteItemMember, { notNull: true, lengthMin: 1, lengthMax: TRANSACT_ITEMS_MAX }),
    // DynamoDB reports a bad token ahead of a bad ReturnConsumedCapacity (captured).
    ClientRequestToken: shapes.string({ lengthMin: 1, lengthMax: 36 }),
    ReturnConsumedCapacity: returnConsumedCapacityMember,
    ReturnItemCollectionMetrics: returnItemCollectionMetricsMember,
  },

  validate(input, context) {
    const transactItems = input.TransactItems as readonly Record<string, unknown>[];
    const actions = transactItems.map((item) => validateAction(item, context));
    const totalBytes = actions.reduce((total, action) => total + (action.kind === 'Put' ? action.sizeBytes : 0), 0);
    if (totalBytes > TRANSACTION_BYTES_MAX) {
      throw validationError(
        'Collection size of items exceeded, which can also be caused by the aggregate size of the items in the transaction exceeding the 4MB limit',
      );
    }
    const token = input.ClientRequestToken as string | undefined;
    // Fingerprinted after validation, so numbers are canonical: 1.0 and 1 are one request.
    const idempotency = token === undefined ? undefined : { token, fingerprint: requestFingerprint(transactItems) };
    return {
      actions,
      idempotency,
      returnConsumedCapacity: consumedCapacityMode(input),
      returnItemCollectionMetrics: returnsItemCollectionMetrics(input),
    };
  },

  tables(request) {
    return distinctTables(request.actions.map((action) => action.tableName));
  },

  async execute(engine, request) {
    const planned = request.actions.map((action) => planAction(engine, action));
    requireDistinctTargets(planned.map((action) => action.target));
    const result = await transactWrite(engine, planned, request.idempotency);
    return {
      ConsumedCapacity: consumedCapacityOf(planned, result).toConsumedCapacities(request.returnConsumedCapacity, true),
      ItemCollectionMetrics: request.returnItemCollectionMetrics ? collectionMetricsOf(engine, request.actions, planned) : undefined,
    };
  },
});

/** Every action but a ConditionCheck wrote to its item's collection. */
function collectionMetricsOf(engine: Engine, actions: readonly ValidatedAction[], planned: readonly TransactWriteAction[]): ReturnType<typeof itemCollectionMetricsByTable> {
  const writes = actions.flatMap((action, index) =>
    action.kind === 'ConditionCheck' ? [] : [{ table: planned[index]!.table, keyOrItem: action.kind === 'Put' ? action.item : action.key }],
  );
  return itemCollectionMetricsByTable(engine, writes);
}

function validateAction(transactItem: Record<string, unknown>, context: ValidationContext): ValidatedAction {
  const kinds = ACTION_KINDS.filter((kind) => transactItem[kind] !== undefined);
  if (kinds.length === 0) throw validationError('Invalid Request: TransactWriteRequest should contain Delete or Put or Update request');
  if (kinds.length > 1) throw validationError('TransactItems can only contain one of Check, Put, Update or Delete');
  const kind = kinds[0]!;
  const body = transactItem[kind] as Record<string, unknown>;
  const tableName = body.TableName as string;
  if (kind === 'Put') return validatePut(body, tableName, context);
  const expressionParameters = kind === 'Update' ? ['UpdateExpression', 'ConditionExpression'] : ['ConditionExpression'];
  checkExpressionParameters(body, expressionParameters, []);
  const key = body.Key as AttributeMap;
  validateAttributeMap(key);
  const parsed = parseExpressions(body, context.expressions);
  const condition = writeConditionOf(body, parsed.condition);
  if (kind === 'Update') return { kind, tableName, key, actions: parsed.update!, condition };
  return { kind, tableName, key, condition };
}

/** A Put is checked as PutItem checks it; its size is known here, so over 400 KB is top-level. */
function validatePut(body: Record<string, unknown>, tableName: string, context: ValidationContext): ValidatedAction {
  checkExpressionParameters(body, ['ConditionExpression'], []);
  const item = body.Item as AttributeMap;
  validateAttributeMap(item);
  const sizeBytes = itemSize(item);
  if (sizeBytes > ITEM_SIZE_MAX_BYTES) throw validationError('Item size has exceeded the maximum allowed size');
  const condition = writeConditionOf(body, parseExpressions(body, context.expressions).condition);
  return { kind: 'Put', tableName, item, sizeBytes, condition };
}

/** Resolves the table and the key; empty key values are top-level, other key faults reasons. */
function planAction(engine: Engine, action: ValidatedAction): TransactWriteAction {
  const table = engine.requireTable(action.tableName);
  const common = {
    table,
    condition: action.condition.condition,
    returnOldItemOnFailure: action.condition.returnOldItemOnFailure,
  };
  if (action.kind === 'Put') {
    rejectEmptyKeyValues(table, action.item);
    rejectEmptyIndexKeyValues(table, action.item);
    const image: NewImage = { item: action.item, sizeBytes: action.sizeBytes };
    return { ...common, target: targetOf(() => storageKeyOfItem(table, action.item)), decide: () => image };
  }
  rejectEmptyKeyValues(table, action.key);
  if (action.kind === 'Update') {
    const target = targetOf(() => {
      const storageKey = storageKeyOfKey(table, action.key);
      checkUpdatedPaths(table, updatedPaths(action.actions));
      return storageKey;
    });
    return { ...common, target, decide: (oldItem) => updatedImage(table, action.key, action.actions, oldItem) };
  }
  const target = targetOf(() => storageKeyOfKey(table, action.key));
  return { ...common, target, decide: action.kind === 'Delete' ? () => DELETED : undefined };
}


/**
 * Transactional writes cost the table 2 units per KB of the larger image, per action (a
 * ConditionCheck by the item it checked, as a write); index writes cost what they cost outside a
 * transaction (charges.ts). A replay writes nothing; DynamoDB then reports the transactional read
 * of each item instead (2 units per 4 KB), as its documentation of ClientRequestToken says.
 */
function consumedCapacityOf(actions: readonly TransactWriteAction[], result: TransactWriteResult): Consumption {
  const consumption = new Consumption();
  actions.forEach((action, index) => {
    const charged = consumption.of(action.table.name);
    if (result.kind === 'replayed') charged.table.read += result.readUnits[index]!;
    else chargeWrite(charged, result.outcomes[index]!);
  });
  return consumption;
}
