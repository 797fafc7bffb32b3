/**
 * What a Query or Scan reads: the table, or one of its secondary indexes (IndexName). An index read
 * is keyed by the index's key schema, walks the index's entries, pages with keys that hold the
 * index key and the table key, and returns what the projection holds; on an LSI, attributes the
 * projection lacks are fetched from the table, as DynamoDB does (and charged as it charges).
 *
 * Texts as DynamoDB (via dynalite's recorded tests and user reports) words them.
 */
import { TableConsumption } from '../capacity/consumption.js';
import type { PartitionMap } from '../capacity/partitions.js';
import { READ_UNIT_BYTES, readUnits } from '../capacity/units.js';
import { admitOrThrow, admitRead } from '../engine/admit.js';
import type { Engine } from '../engine/engine.js';
import { fetchItem } from '../engine/reads.js';
import { RESOURCE_PREFIX_BYTES, tableKeySuffixOf } from '../engine/index-keys.js';
import type { SecondaryIndex } from '../engine/indexes.js';
import type { Page } from '../engine/read-range.js';
import type { KeyAttribute, KeyShape, Table } from '../engine/table.js';
import { validationError } from '../errors.js';
import type { Condition } from '../expressions/ast.js';
import { ownMember, setMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { decodeItemKeyHash, encodeItemKey } from '../model/key-codec.js';
import type { ReadProjection } from './common.js';
import { conditionPaths, INVALID, type Select } from './read-common.js';

/** A key attribute of a start key or LastEvaluatedKey, and whether it is a partition key. */
export interface StartKeyPart {
  readonly attribute: KeyAttribute;
  readonly isHash: boolean;
}

export interface ReadTarget {
  readonly table: Table;
  /** Undefined when the read is on the table itself. */
  readonly index: SecondaryIndex | undefined;
  /** The key schema the read is keyed by: the index's, or the table's. */
  readonly key: KeyShape;
  /** The storage prefix of what is read: table items or index entries. */
  readonly prefix: Buffer;
  /** A page's key: the table key, then the index key attributes the table key lacks. */
  readonly startKeyParts: readonly StartKeyPart[];
}

/**
 * The table or the named index. A DELETING index no longer exists for reads; a GSI refuses strong
 * consistency (it is updated asynchronously) and reads while it is being backfilled.
 */
export function readTargetOf(table: Table, indexName: string | undefined, consistentRead: boolean): ReadTarget {
  const tableParts = keyParts(table.key);
  if (indexName === undefined) return { table, index: undefined, key: table.key, prefix: table.itemPrefix, startKeyParts: tableParts };
  const index = table.indexes.find(indexName);
  if (index === undefined || !index.live) throw validationError(`The table does not have the specified index: ${indexName}`);
  if (index.kind === 'global' && consistentRead) throw validationError('Consistent reads are not supported on global secondary indexes');
  if (index.backfilling) throw validationError(`Cannot read from backfilling global secondary index: ${indexName}`);
  const extra = keyParts(index.key).filter((part) => !tableParts.some((tablePart) => tablePart.attribute.name === part.attribute.name));
  return { table, index, key: index.key, prefix: index.prefix, startKeyParts: [...tableParts, ...extra] };
}

function keyParts(key: KeyShape): StartKeyPart[] {
  const parts: StartKeyPart[] = [{ attribute: key.hash, isHash: true }];
  if (key.range !== undefined) parts.push({ attribute: key.range, isHash: false });
  return parts;
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

/** Select ALL_ATTRIBUTES needs the whole item, which a GSI that does not project ALL cannot give. */
export function checkSelectOnIndex(target: ReadTarget, select: Select): void {
  const index = target.index;
  if (index === undefined || select !== 'ALL_ATTRIBUTES' || index.kind !== 'global' || index.projected === undefined) return;
  throw validationError(
    INVALID + `Select type ALL_ATTRIBUTES is not supported for global secondary index ${index.name} because its projection type is not ALL`,
  );
}

/** What a page's read needs beyond the entries, decided once per request. */
export interface EntryReads {
  /** The item a filter and the response see for an entry (the table's item for LSI fetches). */
  readonly itemOf: (entry: AttributeMap) => AttributeMap;
  /** Sizes of the items fetched from the table, in read order. */
  readonly fetchedSizes: number[];
}

/**
 * An LSI read that asks for (or filters on) attributes the index does not project reads each
 * entry's item from the table; everything else uses the entries as they are.
 */
export function entryReadsOf(
  engine: Engine,
  target: ReadTarget,
  select: Select,
  projection: ReadProjection,
  filter: Condition | undefined,
): EntryReads {
  const fetchedSizes: number[] = [];
  const index = target.index;
  if (index === undefined || index.kind !== 'local' || !needsTableItems(index, select, projection, filter)) {
    return { itemOf: (entry) => entry, fetchedSizes };
  }
  const table = target.table;
  const itemOf = (entry: AttributeMap): AttributeMap => {
    const { hash, range } = table.key;
    const storageKey = encodeItemKey(table.itemPrefix, ownMember(entry, hash.name)!, range === undefined ? undefined : ownMember(entry, range.name));
    // LSIs change with their items, so the item is there; the entry stands in should it not be.
    const fetched = fetchItem(engine, storageKey);
    if (fetched.item === undefined) {
      fetchedSizes.push(itemSize(entry));
      return entry;
    }
    fetchedSizes.push(fetched.sizeBytes);
    return fetched.item;
  };
  return { itemOf, fetchedSizes };
}

function needsTableItems(index: SecondaryIndex, select: Select, projection: ReadProjection, filter: Condition | undefined): boolean {
  if (index.projected === undefined || select === 'COUNT') return conditionNeedsTable(index, filter);
  if (select === 'ALL_ATTRIBUTES') return true;
  const names =
    projection.kind === 'attributes'
      ? projection.names
      : projection.kind === 'expression'
        ? projection.projection.paths.map((path) => path[0] as string)
        : [];
  return names.some((name) => !index.projects(name)) || conditionNeedsTable(index, filter);
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

/**
 * What a page of a Query or Scan costs (§1.3): the sizes of everything read, summed and rounded up
 * once, but at least one 4 KB read for each partition the page searched; on an LSI, each item
 * fetched from the table for non-projected attributes costs its own read, charged to the table.
 * A GSI read is charged to the GSI (and always eventually consistent); an LSI read to the table,
 * reported under LocalSecondaryIndexes.
 */
export function pageConsumption(target: ReadTarget, page: Page, fetchedSizes: readonly number[], consistentRead: boolean, partitionsSearched: number): TableConsumption {
  const consistency = consistentRead ? 'strong' : 'eventual';
  const units = readUnits(Math.max(page.bytesRead, (partitionsSearched - 1) * READ_UNIT_BYTES + 1), consistency);
  const consumption = new TableConsumption(target.table.name);
  const index = target.index;
  if (index === undefined) {
    consumption.table.read += units;
    return consumption;
  }
  consumption.index(index.kind, index.name).read += units;
  for (const size of fetchedSizes) consumption.table.read += readUnits(size, consistency);
  return consumption;
}


/**
 * Admits a page's read on the partition it read (the first item's, or where its range starts
 * when it found nothing): all of it on a GSI's partition for a GSI read, on the table's for a
 * table or LSI read (LSI fetches included). Throws the throttle error when refused; the page is
 * then not answered, as DynamoDB answers a throttled Query with the exception alone.
 */
export function admitPage(engine: Engine, target: ReadTarget, page: Page, rangeStart: Uint8Array, consumption: TableConsumption): void {
  const index = target.index;
  const global = index !== undefined && index.kind === 'global';
  const partitions = global ? index.state.partitions : target.table.partitions;
  if (partitions === undefined) return;
  const units = consumption.read;
  const first = page.items[0];
  const key = first === undefined ? undefined : { item: first, key: global ? index.key : target.table.key };
  const at = page.firstKey ?? rangeStart;
  if (at.length < RESOURCE_PREFIX_BYTES + 4) admitOrThrow(engine, (demands) => demands.readAtHash(partitions, 0, units, key));
  else admitRead(engine, partitions, at, units, key);
}

/** The partition map a read of the target is served by: a GSI's own, else (table, LSI) the table's. */
export function partitionMapOf(target: ReadTarget): PartitionMap | undefined {
  const index = target.index;
  if (index !== undefined && index.kind === 'global') return index.state.partitions?.map;
  return target.table.partitions.map;
}

/**
 * How many partitions a Scan page searched: from the first item's partition to the last item's,
 * empty ones between included. Each costs at least one read (§1.3). A page that found nothing
 * counts one: real DynamoDB answers a Scan of an empty on-demand table (4 partitions) with 0.5
 * units, not 2 (docs/CAPACITY-MODEL.md).
 */
export function partitionsSearched(map: PartitionMap | undefined, page: Page): number {
  if (map === undefined || map.count === 1 || page.firstKey === undefined || page.lastKey === undefined) return 1;
  const first = map.positionOf(decodeItemKeyHash(page.firstKey, RESOURCE_PREFIX_BYTES));
  const last = map.positionOf(decodeItemKeyHash(page.lastKey, RESOURCE_PREFIX_BYTES));
  return Math.abs(last - first) + 1;
}
