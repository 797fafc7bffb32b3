/**
 * BatchGetItem: up to 100 keys across several tables, read like GetItems. A response stops at
 * 16 MB of items; the keys not read come back in UnprocessedKeys, each table's entry shaped like
 * the request's. Items are returned in request order (DynamoDB promises no order).
 */
import type { ThrottleVerdict } from '../capacity/admission.js';
import { Consumption, type ReturnConsumedCapacity } from '../capacity/consumption.js';
import { throttleError } from '../capacity/throttle-errors.js';
import { readBatch, type BatchRead, type BatchReadOutcome } from '../engine/reads.js';
import { storageKeyOfKey } from '../engine/keys.js';
import { rejectEmptyKeyValues } from '../engine/lookup-keys.js';
import type { Table } from '../engine/table.js';
import { validationError } from '../errors.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { validateAttributeMap } from '../model/validate-item.js';
import {
  checkExpressionParameters,
  consumedCapacityMode,
  expressionAttributeNamesMember,
  parseExpressions,
  readProjectionOf,
  returnConsumedCapacityMember,
  type ReadProjection,
} from './common.js';
import { project } from './getItem.js';
import type { ValidationContext } from './operation.js';
import { defineOperation } from './operation.js';
import { shapes, TABLE_NAME_CONSTRAINTS } from './shape.js';
import { setOwn } from '../model/own-members.js';

/** BatchGetItem reads at most 100 keys per call, over all tables. */
export const BATCH_GET_KEYS_MAX = 100;

/** One table's entry of RequestItems as it arrives (and as UnprocessedKeys echoes it). */
interface KeysAndAttributes {
  readonly Keys: readonly AttributeMap[];
  readonly AttributesToGet?: readonly string[];
  readonly ConsistentRead?: boolean;
  readonly ProjectionExpression?: string;
  readonly ExpressionAttributeNames?: Readonly<Record<string, string>>;
}

interface TableReads {
  readonly tableName: string;
  readonly entry: KeysAndAttributes;
  readonly projection: ReadProjection;
}

interface BatchGetItemRequest {
  readonly tables: readonly TableReads[];
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
}

export const batchGetItemOperation = defineOperation<BatchGetItemRequest>({
  name: 'BatchGetItem',
  members: {
    RequestItems: shapes.map(
      'KeysAndAttributes',
      shapes.structure('KeysAndAttributes', {
        // Its length bounds are checked in validate, worded as DynamoDB's newer validation words them.
        Keys: shapes.list(shapes.attributeMap({ notNull: true }), { notNull: true }),
        AttributesToGet: shapes.list(shapes.string(), { lengthMin: 1, lengthMax: 255 }),
        ConsistentRead: shapes.boolean(),
        ProjectionExpression: shapes.string(),
        ExpressionAttributeNames: expressionAttributeNamesMember,
      }),
      { notNull: true, mapKeys: TABLE_NAME_CONSTRAINTS },
    ),
    ReturnConsumedCapacity: returnConsumedCapacityMember,
  },

  validate(input, context) {
    const requestItems = input.RequestItems as Readonly<Record<string, Record<string, unknown>>>;
    const tableNames = Object.keys(requestItems);
    // Texts of DynamoDB's newer request validation, which names the member path and not the value
    // (paritysuite/dynamodb-conformance tier3 batchGetItem, captured on AWS; since 2026-09 every
    // region but one answers the empty map so, the last one still with `The requestItems parameter
    // is required for BatchGetItem`).
    if (tableNames.length === 0) throw lengthFailure('RequestItems', 'greater than or equal to 1');
    for (const tableName of tableNames) {
      const count = (requestItems[tableName]!.Keys as readonly unknown[]).length;
      if (count === 0) throw lengthFailure(`RequestItems.${tableName}.member.Keys`, 'greater than or equal to 1');
      if (count > BATCH_GET_KEYS_MAX) throw lengthFailure(`RequestItems.${tableName}.member.Keys`, `less than or equal to ${BATCH_GET_KEYS_MAX}`);
    }
    const tables = tableNames.map((tableName) => validateTableReads(tableName, requestItems[tableName]!, context));
    checkOneProjectionStyle(tables);
    const keyCount = tables.reduce((total, table) => total + table.entry.Keys.length, 0);
    if (keyCount > BATCH_GET_KEYS_MAX) throw validationError('Too many items requested for the BatchGetItem call');
    return { tables, returnConsumedCapacity: consumedCapacityMode(input) };
  },

  tables(request) {
    return request.tables.map((reads) => reads.tableName);
  },

  execute(engine, request) {
    const tables = request.tables.map((reads) => engine.requireTable(reads.tableName));
    const reads = request.tables.flatMap((reads, index) => planTableReads(tables[index]!, reads));
    return respond(request, readBatch(engine, reads));
  },
});

function lengthFailure(path: string, bound: string): Error {
  return validationError(`1 validation error detected: Value at '${path}' failed to satisfy constraint: Member must have length ${bound}`);
}

function validateTableReads(tableName: string, input: Record<string, unknown>, context: ValidationContext): TableReads {
  checkExpressionParameters(input, ['ProjectionExpression'], ['AttributesToGet']);
  const entry = input as unknown as KeysAndAttributes;
  const projection = readProjectionOf(parseExpressions(entry, context.expressions).projection, entry.AttributesToGet);
  const seen = new Set<string>();
  for (const key of entry.Keys) {
    validateAttributeMap(key);
    const identity = keyIdentity(key);
    if (seen.has(identity)) throw validationError('Provided list of item keys contains duplicates');
    seen.add(identity);
  }
  return { tableName, entry, projection };
}

/** A key's identity before the schema is known: its attributes by name (numbers are canonical by now). */
function keyIdentity(key: AttributeMap): string {
  return JSON.stringify(Object.keys(key).sort().map((name) => [name, key[name]]));
}

/** Each table's entry may be consistent on its own and still mix the two styles across tables. */
function checkOneProjectionStyle(tables: readonly TableReads[]): void {
  const usesExpression = tables.some((table) => table.entry.ProjectionExpression !== undefined);
  const usesLegacy = tables.some((table) => table.entry.AttributesToGet !== undefined);
  if (usesExpression && usesLegacy) {
    throw validationError(
      'Can not use both expression and non-expression parameters in the same request: ' +
        'Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}',
    );
  }
}

/** Resolves the table and checks and encodes every key, before anything is read. */
function planTableReads(table: Table, reads: TableReads): BatchRead[] {
  const consistency = reads.entry.ConsistentRead === true ? 'strong' : 'eventual';
  return reads.entry.Keys.map((key) => {
    rejectEmptyKeyValues(table, key);
    return { table, storageKey: storageKeyOfKey(table, key), key, consistency };
  });
}

/**
 * Responses and UnprocessedKeys per table, and the units of the keys actually read. Each key was
 * admitted on its own, as the GetItem it stands for (engine/reads.ts): a throttled key goes back in
 * UnprocessedKeys (like the keys past the 16 MB response limit), and only a batch of which nothing
 * could be read fails whole (reference §3.4).
 */
function respond(request: BatchGetItemRequest, outcomes: readonly BatchReadOutcome[]): object {
  const responses: Record<string, AttributeMap[]> = {};
  const unprocessed: Record<string, KeysAndAttributes> = {};
  const consumption = new Consumption();
  let firstThrottle: ThrottleVerdict | undefined;
  let readCount = 0;
  let readIndex = 0;
  for (const tableReads of request.tables) {
    const found: AttributeMap[] = [];
    const refused: AttributeMap[] = [];
    const charged = consumption.of(tableReads.tableName).table;
    const keys = tableReads.entry.Keys;
    let keyIndex = 0;
    for (; keyIndex < keys.length && readIndex < outcomes.length; keyIndex++, readIndex++) {
      const outcome = outcomes[readIndex]!;
      if (outcome.refused !== undefined) {
        firstThrottle ??= outcome.refused;
        refused.push(keys[keyIndex]!);
        continue;
      }
      readCount++;
      if (outcome.item !== undefined) found.push(project(outcome.item, tableReads.projection));
      charged.read += outcome.units;
    }
    // Own members even for `__proto__`: table names are the user's.
    setOwn(responses, tableReads.tableName, found);
    const left = [...refused, ...keys.slice(keyIndex)];
    if (left.length > 0) setOwn(unprocessed, tableReads.tableName, { ...tableReads.entry, Keys: left });
  }
  if (firstThrottle !== undefined && readCount === 0) throw throttleError(firstThrottle);
  return {
    Responses: responses,
    UnprocessedKeys: unprocessed,
    ConsumedCapacity: consumption.toConsumedCapacities(request.returnConsumedCapacity),
  };
}
