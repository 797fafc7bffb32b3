/**
 * The engine's one read path: every read of the store is made, sized and admitted here — GetItem,
 * BatchGetItem, TransactGetItems (inside its snapshot write) and the pages of Query and Scan (with
 * their LSI fetches) — so operations never reach into the store nor size or admit a read. They
 * decide what to read (keys, ranges, filters, whether an LSI read needs the table's items) and
 * shape the answer from what comes back.
 *
 * A read is sized on the whole stored item, before any projection (reference §1.2): a missing item
 * costs the minimum. It is admitted on the partition owning its key; refused, it throws DynamoDB's
 * throttle error (GetItem) or is reported back (BatchGetItem, whose refused keys are unprocessed).
 */
import type { ThrottleVerdict } from '../capacity/admission.js';
import { TableConsumption } from '../capacity/consumption.js';
import type { PartitionMap } from '../capacity/partitions.js';
import { throttleCancellationReason } from '../capacity/throttle-errors.js';
import { READ_UNIT_BYTES, readUnits, type ReadConsistency } from '../capacity/units.js';
import { ownMember, type AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { decodeItemKeyHash, encodeItemKey } from '../model/key-codec.js';
import { admitOrThrow, admitRead, asOneRequest, requestUnitsOf, settle } from './admit.js';
import type { Engine } from './engine.js';
import { RESOURCE_PREFIX_BYTES } from './index-keys.js';
import type { SecondaryIndex } from './indexes.js';
import { readPage, type KeyRange, type Page } from './read-range.js';
import type { KeyAttribute, KeyShape, Table } from './table.js';
import { heldItemsCancellation, NO_REASON, requireCurrentTables, transactionCanceled } from './transactions.js';
import type { ValueWithJson } from '../storage/storage.js';

/** BatchGetItem returns at most 16 MB of items per call. */
export const BATCH_GET_RESPONSE_BYTES_MAX = 16 * 1024 * 1024;

/** An admitted read: the committed item (or none), its JSON text as stored, and its units. */
export interface ItemRead {
  readonly item: AttributeMap | undefined;
  /** The item with `JSON.stringify(item)` as the store has it, for answering with it as is. */
  readonly stored: ValueWithJson | undefined;
  readonly units: number;
}

/**
 * GetItem's read: the committed item under `storageKey`, sized and admitted on its partition
 * (Contributor Insights counts it under `key`). Throws the throttle error when refused.
 */
export function readItem(engine: Engine, table: Table, storageKey: Uint8Array, key: AttributeMap, consistency: ReadConsistency): ItemRead {
  const read = engine.storage.getWithJson(storageKey);
  const item = read === undefined ? undefined : (read.value as AttributeMap);
  const units = readUnits(item === undefined || fitsOneReadBlock(read!.json) ? 0 : itemSize(item), consistency);
  admitRead(engine, table.partitions, storageKey, units, key, table.key);
  return { item, stored: read, units };
}

/**
 * True when an item is surely at most one read block (4 KB) by its JSON text alone, so its read
 * units are the minimum without sizing it: an item's size (names and values in UTF-8, numbers
 * and binaries smaller than their text) never exceeds the UTF-8 bytes of its JSON text, which are
 * at most 3 per UTF-16 unit. Most items read are this small; sizing walks every attribute.
 */
export function fitsOneReadBlock(json: string): boolean {
  return json.length * UTF8_BYTES_PER_UTF16_UNIT_MAX <= READ_UNIT_BYTES;
}

const UTF8_BYTES_PER_UTF16_UNIT_MAX = 3;

/** One key of a batch read. */
export interface BatchRead {
  readonly table: Table;
  readonly storageKey: Uint8Array;
  /** The key as the request gave it (Contributor Insights counts the read under it). */
  readonly key: AttributeMap;
  readonly consistency: ReadConsistency;
}

/** A batch key read (with its units), or the verdict that refused it. */
export type BatchReadOutcome =
  | { readonly refused: undefined; readonly item: AttributeMap | undefined; readonly units: number }
  | { readonly refused: ThrottleVerdict };

/**
 * Reads `reads` in order, each admitted on its own as the GetItem it stands for, until the next
 * item would take the items read past `limitBytes`; one outcome per key processed, the keys after
 * them are left for the caller to return as unprocessed. The limit counts whole items as stored,
 * before any projection, as capacity does, so a projection never changes which keys are
 * processed; a refused key counts nothing. A batch read is a series of committed reads, with no
 * snapshot across the keys (DynamoDB gives none either). The metrics get one Consumed* sample
 * per request and resource (asOneRequest).
 */
export function readBatch(engine: Engine, reads: readonly BatchRead[], limitBytes = BATCH_GET_RESPONSE_BYTES_MAX): BatchReadOutcome[] {
  const outcomes: BatchReadOutcome[] = [];
  let totalBytes = 0;
  // Each item is read once, when first needed. What the batch asks if every key up to the limit is
  // served decides whether it is a large request (each key is still admitted on its own).
  const items: (AttributeMap | undefined)[] = [];
  const sizes: number[] = [];
  const readUpTo = (at: number): void => {
    while (items.length <= at) {
      const item = engine.storage.get(reads[items.length]!.storageKey) as AttributeMap | undefined;
      items.push(item);
      sizes.push(item === undefined ? 0 : itemSize(item));
    }
  };
  asOneRequest(engine, () => {
    const request = requestUnitsOf(engine, (demands) => {
      let bytes = 0;
      for (const [at, read] of reads.entries()) {
        readUpTo(at);
        if (bytes + sizes[at]! > limitBytes) break;
        bytes += sizes[at]!;
        demands.read(read.table.partitions, read.storageKey, readUnits(sizes[at]!, read.consistency));
      }
    });
    for (const [at, read] of reads.entries()) {
      readUpTo(at);
      const item = items[at];
      const sizeBytes = sizes[at]!;
      if (totalBytes + sizeBytes > limitBytes) break;
      const units = readUnits(sizeBytes, read.consistency);
      const table = read.table;
      const refused = settle(engine, (demands) => demands.read(table.partitions, read.storageKey, units, read.key, table.key), request);
      if (refused !== undefined) {
        outcomes.push({ refused });
        continue;
      }
      totalBytes += sizeBytes;
      outcomes.push({ refused: undefined, item, units });
    }
  });
  return outcomes;
}

// ---------------------------------------------------------------------------------------------
// TransactGetItems

/** One Get of a TransactGetItems: the table and the item's storage key. */
export interface TransactGetAction {
  readonly table: Table;
  readonly storageKey: Uint8Array;
}

/** A transactional read: the item (or none) and the units it consumed. */
export interface TransactRead {
  readonly item: AttributeMap | undefined;
  readonly units: number;
}

/**
 * Reads every item inside one storage write: its function is exclusive and sees every earlier
 * write, so all items come from one state of the store — a snapshot no write can split. It puts
 * nothing; its promise resolves once the writes it saw are durable. An item a TransactWriteItems in
 * flight holds cancels it with TransactionConflict at that item (transaction-holds.ts), as DynamoDB
 * cancels a read transaction that meets a write in progress. The reads are admitted together, 2
 * units per 4 KB each (a missing item too); one throttled item cancels them all.
 */
export function transactRead(engine: Engine, actions: readonly TransactGetAction[]): Promise<TransactRead[]> {
  return engine.storage.write((txn) => {
    requireCurrentTables(engine, actions);
    if (engine.transactionHolds.active) {
      const conflict = heldItemsCancellation(engine, actions, actions.map((action) => action.storageKey));
      if (conflict !== undefined) throw conflict;
    }
    const reads = actions.map((action): TransactRead => {
      const item = txn.get(action.storageKey) as AttributeMap | undefined;
      return { item, units: readUnits(item === undefined ? 0 : itemSize(item), 'transactional') };
    });
    const verdict = settle(engine, (demands) => {
      reads.forEach(({ item, units }, index) => {
        const action = actions[index]!;
        demands.read(action.table.partitions, action.storageKey, units, item, action.table.key);
        if (demands.count !== index + 1) throw new Error('assertion failed: one demand per transactional read');
      });
    });
    if (verdict !== undefined) throw transactionCanceled(actions.map((_, index) => (index === verdict.demandIndex ? throttleCancellationReason(verdict) : NO_REASON)));
    return reads;
  });
}

// ---------------------------------------------------------------------------------------------
// Query and Scan pages

/** A key attribute of a start key or LastEvaluatedKey, and whether it is a partition key. */
export interface StartKeyPart {
  readonly attribute: KeyAttribute;
  readonly isHash: boolean;
}

/** What a Query or Scan reads: the table, or one of its secondary indexes. */
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

/** One page of a Query or Scan, as the operation decided it. */
export interface PageRead {
  readonly target: ReadTarget;
  readonly range: KeyRange;
  readonly reverse: boolean;
  /** Limit: at most this many items read (before any filter). */
  readonly itemLimit: number | undefined;
  /** The filter: what the page returns among what it read. */
  readonly accept: (item: AttributeMap) => boolean;
  /** For a range wider than its key condition (over-long bounds): whether an entry is really in it. */
  readonly inRange?: (stored: AttributeMap) => boolean;
  /**
   * An LSI read asking for (or filtering on) attributes the index does not project: each entry's
   * item is fetched from the table, and the filter and the page see that item.
   */
  readonly fetchTableItems: boolean;
  readonly consistentRead: boolean;
  /**
   * A Scan page spans the partitions between its first and last item, each costing at least one
   * read; a Query reads one item collection, which stays on one partition.
   */
  readonly spansPartitions: boolean;
}

/** A page read and admitted, with what it consumed. */
export interface AdmittedPage {
  readonly page: Page;
  readonly consumption: TableConsumption;
}

/**
 * Reads one page synchronously (read-range.ts), sizes it and admits it on the partition it read.
 * Throws the throttle error when refused: the page is then not answered, as DynamoDB answers a
 * throttled Query with the exception alone.
 */
export function readRangePage(engine: Engine, read: PageRead): AdmittedPage {
  const { target } = read;
  if (read.fetchTableItems && target.index?.kind !== 'local') throw new Error('assertion failed: only an LSI read fetches table items');
  const fetchedSizes: number[] = [];
  const page = readPage(engine.storage, {
    range: read.range,
    reverse: read.reverse,
    itemLimit: read.itemLimit,
    accept: read.accept,
    resolve: read.fetchTableItems ? (entry) => tableItemOf(engine, target.table, entry, fetchedSizes) : undefined,
    inRange: read.inRange,
  });
  const searched = read.spansPartitions ? partitionsSearched(partitionMapOf(target), page) : 1;
  const consumption = pageConsumption(target, page, fetchedSizes, read.consistentRead, searched);
  admitPage(engine, target, page, read.range.start, consumption);
  return { page, consumption };
}

/** The table's item for an LSI entry, its size noted in read order (each is charged as a read). */
function tableItemOf(engine: Engine, table: Table, entry: AttributeMap, fetchedSizes: number[]): AttributeMap {
  const { hash, range } = table.key;
  const storageKey = encodeItemKey(table.itemPrefix, ownMember(entry, hash.name)!, range === undefined ? undefined : ownMember(entry, range.name));
  const item = engine.storage.get(storageKey) as AttributeMap | undefined;
  // LSIs change with their items, so the item is there; the entry stands in should it not be.
  if (item === undefined) {
    fetchedSizes.push(itemSize(entry));
    return entry;
  }
  fetchedSizes.push(itemSize(item));
  return item;
}

/**
 * What a page of a Query or Scan costs (§1.3): the sizes of everything read, summed and rounded up
 * once, but at least one 4 KB read for each partition the page searched; on an LSI, each item
 * fetched from the table for non-projected attributes costs its own read, charged to the table.
 * A GSI read is charged to the GSI (and always eventually consistent); an LSI read to the table,
 * reported under LocalSecondaryIndexes.
 */
function pageConsumption(target: ReadTarget, page: Page, fetchedSizes: readonly number[], consistentRead: boolean, partitionsSearched: number): TableConsumption {
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
 * table or LSI read (LSI fetches included).
 */
function admitPage(engine: Engine, target: ReadTarget, page: Page, rangeStart: Uint8Array, consumption: TableConsumption): void {
  const index = target.index;
  const global = index !== undefined && index.kind === 'global';
  const partitions = global ? index.state.partitions : target.table.partitions;
  if (partitions === undefined) return;
  const units = consumption.read;
  const first = page.items[0];
  const shape = global ? index.key : target.table.key;
  const at = page.firstKey ?? rangeStart;
  if (at.length < RESOURCE_PREFIX_BYTES + 4) admitOrThrow(engine, (demands) => demands.readAtHash(partitions, 0, units, first, shape));
  else admitRead(engine, partitions, at, units, first, shape);
}

/** The partition map a read of the target is served by: a GSI's own, else (table, LSI) the table's. */
function partitionMapOf(target: ReadTarget): PartitionMap | undefined {
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
function partitionsSearched(map: PartitionMap | undefined, page: Page): number {
  if (map === undefined || map.count === 1 || page.firstKey === undefined || page.lastKey === undefined) return 1;
  const first = map.positionOf(decodeItemKeyHash(page.firstKey, RESOURCE_PREFIX_BYTES));
  const last = map.positionOf(decodeItemKeyHash(page.lastKey, RESOURCE_PREFIX_BYTES));
  return Math.abs(last - first) + 1;
}

