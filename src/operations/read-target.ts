/**
 * What a Query or Scan reads: the table, or one of its secondary indexes (IndexName). An index read
 * is keyed by the index's key schema, walks the index's entries, pages with keys that hold the
 * index key and the table key, and returns what the projection holds; on an LSI, attributes the
 * projection lacks are fetched from the table, as DynamoDB does (and charged as it charges).
 *
 * Texts as DynamoDB (via dynalite's recorded tests and user reports) words them.
 */
import type { Engine } from '../engine/engine.js';
import { tableKeySuffixOf } from '../engine/index-keys.js';
import type { SecondaryIndex } from '../engine/indexes.js';
import type { ReadTarget, StartKeyPart } from '../engine/reads.js';
import { keyPartsOf, type KeyShape, type Table } from '../engine/table.js';
import { validationError } from '../errors.js';
import type { Condition } from '../expressions/ast.js';
import { ownMember, setMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import { encodeItemKey } from '../model/key-codec.js';
import type { ReadProjection } from './common.js';
import { conditionPaths, INVALID, type Select } from './read-common.js';

/**
 * The table or the named index. A DELETING index no longer exists for reads; a GSI refuses strong
 * consistency (it is updated asynchronously) and reads while it is being backfilled.
 */
export function readTargetOf(table: Table, indexName: string | undefined, consistentRead: boolean, nowMs: number): ReadTarget {
  const tableParts = table.keyParts;
  if (indexName === undefined) return { table, index: undefined, key: table.key, prefix: table.itemPrefix, startKeyParts: tableParts };
  const index = table.indexes.find(indexName);
  if (index === undefined || !index.live) throw validationError(`The table does not have the specified index: ${indexName}`);
  if (index.kind === 'global' && consistentRead) throw validationError('Consistent reads are not supported on global secondary indexes');
  if (index.backfilling || (index.record.activeAtMs !== undefined && nowMs < index.record.activeAtMs)) throw validationError(`Cannot read from backfilling global secondary index: ${indexName}`);
  const extra = keyParts(index.key).filter((part) => !tableParts.some((tablePart) => tablePart.attribute.name === part.attribute.name));
  return { table, index, key: index.key, prefix: index.prefix, startKeyParts: [...tableParts, ...extra] };
}

function keyParts(key: KeyShape): readonly StartKeyPart[] {
  return keyPartsOf(key);
}

/** GSI reads first apply the changes whose propagation lag has passed on the injected clock. */
export function propagationBefore(engine: Engine, target: ReadTarget): Promise<void> | undefined {
  return target.index?.kind === 'global' ? engine.propagateDueIndexChanges() : undefined;
}

/** The storage key of a (validated) start key: an item key, or an index entry key. */
export function storageKeyOfStartKey(target: ReadTarget, startKey: AttributeMap): Buffer {
  const { table, index } = target;
  const { hash, range } = table.key;
  const itemKey = encodeItemKey(table.itemPrefix, ownMember(startKey, hash.name)!, range === undefined ? undefined : ownMember(startKey, range.name));
  if (index === undefined) return itemKey;
  return index.entryKey(startKey, tableKeySuffixOf(itemKey, table.itemPrefix.length))!;
}

/**
 * A GSI gives only what it projects (it cannot fetch from the table, unlike an LSI): Select
 * ALL_ATTRIBUTES on one that does not project ALL is refused, and so is a ProjectionExpression or
 * AttributesToGet naming attributes it does not project, each with DynamoDB's text (the second
 * as a user recorded it from DynamoDB: the index, then the attributes in brackets).
 */
export function checkSelectOnIndex(target: ReadTarget, select: Select, projection: ReadProjection): void {
  const index = target.index;
  if (index === undefined || index.kind !== 'global' || index.projected === undefined) return;
  if (select === 'ALL_ATTRIBUTES') {
    throw validationError(INVALID + `Select type ALL_ATTRIBUTES is not supported for global secondary index ${index.name} because its projection type is not ALL`);
  }
  const missing = new Set(projectedNames(projection).filter((name) => !index.projects(name)));
  if (missing.size > 0) throw validationError(INVALID + `Global secondary index ${index.name} does not project [${[...missing].join(', ')}]`);
}

/** The top-level attribute names a read's projection asks for (none for all of the item). */
function projectedNames(projection: ReadProjection): readonly string[] {
  if (projection.kind === 'attributes') return projection.names;
  if (projection.kind === 'expression') return projection.projection.paths.map((path) => path[0] as string);
  return [];
}

/**
 * Whether an LSI read asks for (or filters on) attributes the index does not project, and so
 * reads each entry's item from the table (engine/reads.ts fetches and charges them).
 */
export function fetchesTableItems(target: ReadTarget, select: Select, projection: ReadProjection, filter: Condition | undefined): boolean {
  const index = target.index;
  return index !== undefined && index.kind === 'local' && needsTableItems(index, select, projection, filter);
}

function needsTableItems(index: SecondaryIndex, select: Select, projection: ReadProjection, filter: Condition | undefined): boolean {
  if (index.projected === undefined || select === 'COUNT') return conditionNeedsTable(index, filter);
  if (select === 'ALL_ATTRIBUTES') return true;
  return projectedNames(projection).some((name) => !index.projects(name)) || conditionNeedsTable(index, filter);
}

function conditionNeedsTable(index: SecondaryIndex, filter: Condition | undefined): boolean {
  if (index.projected === undefined) return false;
  return conditionPaths(filter).some((path) => !index.projects(path[0] as string));
}

/** The key attributes of the last entry read: where the next page starts. */
export function lastEvaluatedKey(target: ReadTarget, entry: AttributeMap | undefined): AttributeMap | undefined {
  if (entry === undefined) return undefined;
  const key: Record<string, AttributeValue> = {};
  for (const { attribute } of target.startKeyParts) {
    const value = ownMember(entry, attribute.name);
    if (value !== undefined) setMember(key, attribute.name, value);
  }
  return key;
}
