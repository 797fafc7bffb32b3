/**
 * BatchWriteItem: up to 25 PutRequests / DeleteRequests across several tables, without
 * conditions. Items are validated as PutItem validates them, keys as DeleteItem does; the whole
 * batch is applied in one storage write (engine/batch.ts); UnprocessedItems holds the items
 * capacity refused and those a transaction in flight holds (engine/transaction-holds.ts).
 */
import type { ThrottleVerdict } from '../capacity/admission.js';
import { Consumption, type ReturnConsumedCapacity } from '../capacity/consumption.js';
import { throttleError } from '../capacity/throttle-errors.js';
import { chargeWrite } from '../engine/charges.js';
import { HELD_BY_TRANSACTION, writeBatch, type BatchWrite } from '../engine/batch.js';
import type { Engine } from '../engine/engine.js';
import { DELETED } from '../engine/write-pipeline.js';
import { storageKeyOfItem, storageKeyOfKey } from '../engine/keys.js';
import { rejectEmptyKeyValues, requireItemKeyAttributes } from '../engine/lookup-keys.js';
import type { Table } from '../engine/table.js';
import { validationError } from '../errors.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { ITEM_SIZE_MAX_BYTES, itemSize } from '../model/item-size.js';
import { validateAttributeMap } from '../model/validate-item.js';
import {
  consumedCapacityMode,
  itemCollectionMetricsByTable,
  returnConsumedCapacityMember,
  returnItemCollectionMetricsMember,
  returnsItemCollectionMetrics,
} from './common.js';
import { defineOperation } from './operation.js';
import { shapes, TABLE_NAME_CONSTRAINTS } from './shape.js';
import { recordOf } from '../model/own-members.js';

/** BatchWriteItem takes at most 25 requests per call, over all tables. */
export const BATCH_WRITE_REQUESTS_MAX = 25;

interface WriteRequest {
  readonly PutRequest?: { readonly Item: AttributeMap };
  readonly DeleteRequest?: { readonly Key: AttributeMap };
}

/** One validated request: an item to put (with its size) or a key to delete. */
type PlannedRequest =
  | { readonly kind: 'put'; readonly item: AttributeMap; readonly sizeBytes: number }
  | { readonly kind: 'delete'; readonly key: AttributeMap };

interface TableWrites {
  readonly tableName: string;
  readonly requests: readonly PlannedRequest[];
}

interface BatchWriteItemRequest {
  readonly tables: readonly TableWrites[];
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
  readonly returnItemCollectionMetrics: boolean;
}

export const batchWriteItemOperation = defineOperation<BatchWriteItemRequest>({
  name: 'BatchWriteItem',
  members: {
    RequestItems: shapes.map(
      'java.util.List<com.amazonaws.dynamodb.v20120810.WriteRequest>',
      shapes.list(
        shapes.structure('WriteRequest', {
          PutRequest: shapes.structure('PutRequest', { Item: shapes.attributeMap({ notNull: true }) }),
          DeleteRequest: shapes.structure('DeleteRequest', { Key: shapes.attributeMap({ notNull: true }) }),
        }, { notNull: true }),
      ),
      {
        notNull: true,
        mapKeys: TABLE_NAME_CONSTRAINTS,
        mapValues: { lengthMin: 1, lengthMax: BATCH_WRITE_REQUESTS_MAX },
      },
    ),
    ReturnConsumedCapacity: returnConsumedCapacityMember,
    ReturnItemCollectionMetrics: returnItemCollectionMetricsMember,
  },

  validate(input) {
    const requestItems = input.RequestItems as Readonly<Record<string, readonly WriteRequest[]>>;
    const tableNames = Object.keys(requestItems);
    if (tableNames.length === 0) throw validationError('The requestItems parameter is required for BatchWriteItem');
    const requestCount = tableNames.reduce((total, name) => total + requestItems[name]!.length, 0);
    if (requestCount > BATCH_WRITE_REQUESTS_MAX) throw validationError('Too many items requested for the BatchWriteItem call');
    const tables = tableNames.map((tableName) => ({ tableName, requests: requestItems[tableName]!.map(validateWriteRequest) }));
    return { tables, returnConsumedCapacity: consumedCapacityMode(input), returnItemCollectionMetrics: returnsItemCollectionMetrics(input) };
  },

  tables(request) {
    return request.tables.map((writes) => writes.tableName);
  },

  async execute(engine, request) {
    const writes = planWrites(engine, request.tables);
    const outcomes = await writeBatch(engine, writes);
    const consumption = new Consumption();
    for (const tableWrites of request.tables) consumption.of(tableWrites.tableName);
    // Keyed by table name in a Map: `constructor` or `__proto__` are table names like any other.
    const unprocessed = new Map<string, WriteRequest[]>();
    const processed: PlannedWrite[] = [];
    let firstThrottle: ThrottleVerdict | undefined;
    writes.forEach((write, index) => {
      const outcome = outcomes[index]!;
      // An item a transaction in flight holds, or one admission refused: sent back to be retried.
      if (outcome === HELD_BY_TRANSACTION || outcome.refusal !== undefined) {
        if (outcome !== HELD_BY_TRANSACTION) firstThrottle ??= outcome.refusal;
        const refused = unprocessed.get(write.table.name);
        if (refused === undefined) unprocessed.set(write.table.name, [unprocessedRequest(write)]);
        else refused.push(unprocessedRequest(write));
        return;
      }
      // Each request is charged on its own, like the PutItem or DeleteItem it stands for.
      chargeWrite(consumption.of(write.table.name), outcome);
      processed.push(write);
    });
    // Only a batch of which nothing could be written fails as a whole (reference §3.4).
    if (firstThrottle !== undefined && processed.length === 0) throw throttleError(firstThrottle);
    return {
      UnprocessedItems: recordOf(unprocessed),
      ConsumedCapacity: consumption.toConsumedCapacities(request.returnConsumedCapacity),
      ItemCollectionMetrics: request.returnItemCollectionMetrics ? itemCollectionMetricsByTable(engine, processed) : undefined,
    };
  },
});

/** A WriteRequest holds exactly one of PutRequest and DeleteRequest. */
function validateWriteRequest(request: WriteRequest): PlannedRequest {
  const put = request.PutRequest;
  const del = request.DeleteRequest;
  if ((put === undefined) === (del === undefined)) {
    // DynamoDB's (observed) wording for a WriteRequest with no request or both.
    throw validationError('Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes');
  }
  if (put !== undefined) {
    validateAttributeMap(put.Item);
    const sizeBytes = itemSize(put.Item);
    if (sizeBytes > ITEM_SIZE_MAX_BYTES) throw validationError('Item size has exceeded the maximum allowed size');
    return { kind: 'put', item: put.Item, sizeBytes };
  }
  validateAttributeMap(del!.Key);
  return { kind: 'delete', key: del!.Key };
}

/** A batch write with what names its item collection (the put item, or the deleted key). */
interface PlannedWrite extends BatchWrite {
  readonly storageKey: Buffer;
  readonly keyOrItem: AttributeMap;
}

/** Resolves every table and key before anything is written; the same item twice is refused. */
function planWrites(engine: Engine, tables: readonly TableWrites[]): PlannedWrite[] {
  const writes: PlannedWrite[] = [];
  const seen = new Set<string>();
  for (const tableWrites of tables) {
    const table = engine.requireTable(tableWrites.tableName);
    for (const request of tableWrites.requests) {
      const write = planWrite(table, request);
      // Storage keys carry the table id, so one set covers every table.
      const identity = write.storageKey.toString('latin1');
      if (seen.has(identity)) throw validationError('Provided list of item keys contains duplicates');
      seen.add(identity);
      writes.push(write);
    }
  }
  return writes;
}

/** A refused write, as the caller sent it, for UnprocessedItems. */
function unprocessedRequest(write: PlannedWrite): WriteRequest {
  return write.image.item !== undefined ? { PutRequest: { Item: write.keyOrItem } } : { DeleteRequest: { Key: write.keyOrItem } };
}

function planWrite(table: Table, request: PlannedRequest): PlannedWrite {
  if (request.kind === 'put') {
    // DynamoDB words a put item's missing or mistyped key as a Key map's mismatch here.
    requireItemKeyAttributes(table, request.item);
    const storageKey = storageKeyOfItem(table, request.item);
    return { table, storageKey, image: { item: request.item, sizeBytes: request.sizeBytes }, keyOrItem: request.item };
  }
  rejectEmptyKeyValues(table, request.key);
  return { table, storageKey: storageKeyOfKey(table, request.key), image: DELETED, keyOrItem: request.key };
}
