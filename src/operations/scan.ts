/**
 * Scan: every item of a table in the store's order — by the 32-bit hash of the partition key, as
 * DynamoDB returns them in an order unrelated to the key values — one page at a time, filtered
 * after the read. A parallel scan (Segment / TotalSegments) reads one contiguous range of the
 * hash space, so every item belongs to exactly one segment.
 */
import type { ReturnConsumedCapacity } from '../capacity/units.js';
import { hashSegment, rangeAfter, tableRange, type HashSegment, type KeyRange } from '../engine/read-range.js';
import { readRangePage, type ReadTarget } from '../engine/reads.js';
import type { Engine } from '../engine/engine.js';
import { checkKeyValue, storageKeyOfKey } from '../engine/keys.js';
import { DynamoError, validationError } from '../errors.js';
import type { Condition, DocumentPath } from '../expressions/ast.js';
import { evaluateCondition } from '../expressions/evaluate.js';
import { checkConditionalOperator, type ConditionalOperator } from '../expressions/legacy.js';
import { ownMember, type AttributeMap } from '../model/attribute-value.js';
import { decodeItemKeyHash } from '../model/key-codec.js';
import {
  checkExpressionParameters,
  consumedCapacityMode,
  expressionAttributeNamesMember,
  expressionAttributeValuesMember,
  parseExpressions,
  readProjectionOf,
  returnConsumedCapacityMember,
  tableNameMember,
  type ReadProjection,
} from './common.js';
import { defineOperation } from './operation.js';
import {
  attributesToGetMember,
  checkScalarKeyPaths,
  conditionalOperatorMember,
  conditionMapMember,
  conditionOfMap,
  conditionPaths,
  indexNameMember,
  limitMember,
  pageResponse,
  resolveSelect,
  selectMember,
  START_KEY_INVALID,
  validateConditionMap,
  validateStartKeyValues,
  type ConditionMap,
  type Select,
} from './read-common.js';
import { checkSelectOnIndex, fetchesTableItems, propagationBefore, readTargetOf, storageKeyOfStartKey } from './read-target.js';
import { shapes } from './shape.js';

/** DynamoDB's limit on TotalSegments (so Segment is at most 999,999). */
const TOTAL_SEGMENTS_MAX = 1_000_000;

interface ScanSegment {
  readonly segment: number;
  readonly totalSegments: number;
}

interface ScanRequest {
  readonly tableName: string;
  readonly indexName: string | undefined;
  readonly filter: Condition | undefined;
  readonly projection: ReadProjection;
  readonly projectionPaths: readonly DocumentPath[];
  readonly select: Select;
  readonly limit: number | undefined;
  readonly segment: ScanSegment | undefined;
  readonly consistentRead: boolean;
  readonly exclusiveStartKey: AttributeMap | undefined;
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
}

export const scanOperation = defineOperation<ScanRequest>({
  name: 'Scan',
  // Declared in the order DynamoDB lists constraint failures.
  members: {
    Select: selectMember,
    IndexName: indexNameMember,
    TotalSegments: shapes.integer({ valueMin: 1, valueMax: TOTAL_SEGMENTS_MAX }),
    ReturnConsumedCapacity: returnConsumedCapacityMember,
    TableName: tableNameMember,
    ConditionalOperator: conditionalOperatorMember,
    ScanFilter: conditionMapMember,
    Segment: shapes.integer({ valueMin: 0, valueMax: TOTAL_SEGMENTS_MAX - 1 }),
    Limit: limitMember,
    AttributesToGet: attributesToGetMember,
    ExclusiveStartKey: shapes.attributeMap(),
    ConsistentRead: shapes.boolean(),
    FilterExpression: shapes.string(),
    ProjectionExpression: shapes.string(),
    ExpressionAttributeValues: expressionAttributeValuesMember,
    ExpressionAttributeNames: expressionAttributeNamesMember,
  },

  validate(input, context) {
    checkExpressionParameters(input, ['ProjectionExpression', 'FilterExpression'], ['AttributesToGet', 'ScanFilter', 'ConditionalOperator']);
    const attributes = readProjectionOf(undefined, input.AttributesToGet as string[] | undefined);
    const scanFilter = input.ScanFilter as ConditionMap | undefined;
    checkConditionalOperator(input.ConditionalOperator, scanFilter);
    validateConditionMap(scanFilter);
    const exclusiveStartKey = input.ExclusiveStartKey as AttributeMap | undefined;
    validateStartKeyValues(exclusiveStartKey);
    const segment = segmentOf(input);
    const parsed = parseExpressions(input, context.expressions);
    return {
      tableName: input.TableName as string,
      indexName: input.IndexName as string | undefined,
      filter: parsed.filter ?? conditionOfMap(scanFilter, input.ConditionalOperator as ConditionalOperator | undefined),
      projection: parsed.projection === undefined ? attributes : { kind: 'expression', projection: parsed.projection },
      projectionPaths: parsed.projection?.paths ?? [],
      select: resolveSelect(input),
      limit: input.Limit as number | undefined,
      segment,
      consistentRead: input.ConsistentRead === true,
      exclusiveStartKey,
      returnConsumedCapacity: consumedCapacityMode(input),
    };
  },

  tables(request) {
    return request.tableName;
  },

  execute(engine, request) {
    const table = engine.requireTable(request.tableName);
    const target = readTargetOf(table, request.indexName, request.consistentRead, engine.clock.nowMs());
    const hashes = request.segment === undefined ? undefined : hashSegment(request.segment.segment, request.segment.totalSegments);
    const range = scanRange(target, hashes, request);
    checkScalarKeyPaths(table, request.projectionPaths);
    checkScalarKeyPaths(table, conditionPaths(request.filter));
    checkSelectOnIndex(target, request.select, request.projection);
    const propagation = propagationBefore(engine, target);
    if (propagation === undefined) return readScanPage(engine, target, range, request);
    return propagation.then(() => readScanPage(engine, target, range, request));
  },
});

/** One page of the scan, read and admitted by the engine (engine/reads.ts). */
function readScanPage(engine: Engine, target: ReadTarget, range: KeyRange, request: ScanRequest): object {
  const filter = request.filter;
  const { page, consumption } = readRangePage(engine, {
    target,
    range,
    reverse: false,
    itemLimit: request.limit,
    accept: filter === undefined ? () => true : (item) => evaluateCondition(filter, item),
    fetchTableItems: fetchesTableItems(target, request.select, request.projection, filter),
    consistentRead: request.consistentRead,
    spansPartitions: true,
  });
  return pageResponse(page, {
    target,
    select: request.select,
    projection: request.projection,
    returnConsumedCapacity: request.returnConsumedCapacity,
    consumption,
  });
}

/** Segment and TotalSegments come together, Segment below TotalSegments. */
function segmentOf(input: Record<string, unknown>): ScanSegment | undefined {
  const segment = input.Segment as number | undefined;
  const totalSegments = input.TotalSegments as number | undefined;
  if (segment === undefined && totalSegments === undefined) return undefined;
  if (totalSegments === undefined) {
    throw validationError('The TotalSegments parameter is required but was not present in the request when Segment parameter is present');
  }
  if (segment === undefined) {
    throw validationError('The Segment parameter is required but was not present in the request when parameter TotalSegments is present');
  }
  if (segment >= totalSegments) {
    throw validationError(
      'The Segment parameter is zero-based and must be less than parameter TotalSegments: ' +
        `Segment: ${segment} is not less than TotalSegments: ${totalSegments}`,
    );
  }
  return { segment, totalSegments };
}

/**
 * The table or index (or the segment's part of it), after the start key. The start key must be a
 * key of what is scanned and, in a parallel scan, one of the segment's own keys.
 */
function scanRange(target: ReadTarget, hashes: HashSegment | undefined, request: ScanRequest): KeyRange {
  const range = tableRange(target.prefix, hashes);
  const startKey = request.exclusiveStartKey;
  if (startKey === undefined) return range;
  const startStorageKey = startKeyOf(target, startKey);
  if (hashes !== undefined && request.segment !== undefined) {
    const hash = decodeItemKeyHash(startStorageKey, target.prefix.length);
    if (hash < hashes.lowHash || hash > hashes.highHash) {
      throw validationError(
        `${START_KEY_INVALID}: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. ` +
          `TotalSegments: ${request.segment.totalSegments} Segment: ${request.segment.segment}`,
      );
    }
  }
  return rangeAfter(range, startStorageKey, false);
}

/**
 * The start key checked as a Key parameter is, every failure reported as an invalid start key with
 * its reason; on an index it must hold the table's and the index's key attributes, with their types.
 */
function startKeyOf(target: ReadTarget, startKey: AttributeMap): Buffer {
  if (target.index !== undefined) checkIndexStartKey(target, startKey);
  try {
    return target.index === undefined ? storageKeyOfKey(target.table, startKey) : storageKeyOfStartKey(target, startKey);
  } catch (error) {
    if (error instanceof DynamoError) throw validationError(`${START_KEY_INVALID}: ${error.message}`);
    throw error;
  }
}

/**
 * An index's start key that does not fit its shape is only "invalid", without the table's reason
 * (an emulator checked against DynamoDB; Alternator's suite matches `start.*key`); a value over its
 * key limits keeps its reason.
 */
function checkIndexStartKey(target: ReadTarget, startKey: AttributeMap): void {
  if (Object.keys(startKey).length !== target.startKeyParts.length) throw validationError(START_KEY_INVALID);
  for (const { attribute, isHash } of target.startKeyParts) {
    const value = ownMember(startKey, attribute.name);
    if (value === undefined || !(attribute.type in value)) throw validationError(START_KEY_INVALID);
    try {
      checkKeyValue(value, attribute, isHash);
    } catch (error) {
      if (error instanceof DynamoError) throw validationError(`${START_KEY_INVALID}: ${error.message}`);
      throw error;
    }
  }
}
