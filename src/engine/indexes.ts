/**
 * Secondary indexes as the engine runs them: each IndexRecord resolved once into its key shape,
 * storage prefix and projection (SecondaryIndex), the indexes of one table (TableIndexes), and the
 * state that outlives a table's record versions — live statistics, backfill progress, LSI item
 * collection sizes — kept in TableIndexRuntime, one per table, like the table's own statistics.
 *
 * Maintenance itself (what a write does to each index) is in index-maintenance.ts; the lagged
 * propagation of GSI changes in gsi-propagation.ts; backfill and removal in backfill.ts.
 */
import type { Clock } from '../clock.js';
import { ownMember, setMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import type { GsiPropagation } from './gsi-propagation.js';
import type { BackgroundWrite, PartitionSettings, ResourcePartitions } from './partition-tracker.js';
import { encodeEntryKey, indexPrefixOf } from './index-keys.js';
import { ItemCollections } from './item-collections.js';
import { keyPartsOf, resolveKeyShape, type IndexRecord, type KeyShape, type TableRecord } from './table.js';

/** Live ItemCount and IndexSizeBytes of one index, kept by every change to it. */
export interface IndexStatistics {
  itemCount: number;
  sizeBytes: number;
}

/** What belongs to an index rather than to one version of its table's record. */
export interface IndexState {
  readonly statistics: IndexStatistics;
  /**
   * While a GSI is backfilled: every table item whose storage key sorts below the cursor is
   * indexed, and writes maintain the index for those items only; the backfill picks up the rest
   * as it advances. Undefined once every item is indexed.
   */
  backfillCursor: Buffer | undefined;
  /** Set when the index (or its table) is gone, so work still pending for it is discarded. */
  dropped: boolean;
  /** A GSI's partition map (table-partitions.ts); LSIs live on the table's partitions. */
  partitions: ResourcePartitions | undefined;
}

/** What index maintenance needs from the engine; one per engine, shared by all its tables. */
export interface IndexEnvironment {
  readonly clock: Clock;
  /** How long a change takes to reach a GSI (0: in the same write as the item). */
  readonly gsiLagMs: number;
  /** An LSI table's item collection (items of one partition key, with their LSI entries) may not grow past this. */
  readonly itemCollectionSizeLimitBytes: number;
  /** Every live index's state, by index id. */
  readonly states: Map<number, IndexState>;
  readonly propagation: GsiPropagation;
  /** How tables and GSIs are partitioned (`--partition-model`, `--partition-size-limit`). */
  readonly partitionSettings: PartitionSettings;
  /** Runs partition splits due outside a write (partition-tracker.ts splitWhenDue). */
  readonly backgroundWrite?: BackgroundWrite;
}

export type IndexKind = 'global' | 'local';

export class SecondaryIndex {
  readonly record: IndexRecord;
  readonly kind: IndexKind;
  /** Storage prefix of the index's entries. */
  readonly prefix: Buffer;
  readonly key: KeyShape;
  readonly state: IndexState;
  /** Attribute names an entry holds; undefined for ALL (the entry is the item). */
  readonly projected: ReadonlySet<string> | undefined;
  readonly keysOnly: boolean;

  constructor(record: IndexRecord, kind: IndexKind, table: TableRecord, tableKey: KeyShape, state: IndexState) {
    this.record = record;
    this.kind = kind;
    this.prefix = indexPrefixOf(record.id);
    this.key = resolveKeyShape(record.keySchema, table.attributeDefinitions);
    this.state = state;
    this.keysOnly = record.projection.ProjectionType === 'KEYS_ONLY';
    this.projected = record.projection.ProjectionType === 'ALL' ? undefined : projectedNames(record, tableKey, this.key);
  }

  get id(): number {
    return this.record.id;
  }

  get name(): string {
    return this.record.name;
  }

  /** A DELETING index is no longer written to or read from. */
  get live(): boolean {
    return this.record.status !== 'DELETING';
  }

  get backfilling(): boolean {
    return this.state.backfillCursor !== undefined;
  }

  /** Whether an entry carries the attribute (key attributes are always projected). */
  projects(name: string): boolean {
    return this.projected === undefined || this.projected.has(name);
  }

  /** The entry key of an item, or undefined when the item lacks an index key (sparse index). */
  entryKey(item: AttributeMap, tableKeySuffix: Uint8Array): Buffer | undefined {
    return encodeEntryKey(this.prefix, this.key, item, tableKeySuffix);
  }

  /** What the index stores for an item: the item itself for ALL, else its projected attributes. */
  entryOf(item: AttributeMap): AttributeMap {
    if (this.projected === undefined) return item;
    const entry: Record<string, AttributeValue> = {};
    for (const name of this.projected) {
      const value = ownMember(item, name);
      if (value !== undefined) setMember(entry, name, value);
    }
    return entry;
  }

  /** The size of an entry made by entryOf(item), given the item's own size. */
  entrySize(entry: AttributeMap, itemSizeBytes: number): number {
    return this.projected === undefined ? itemSizeBytes : itemSize(entry);
  }

  /** False while a backfill has not reached the item yet: the backfill will index it. */
  covers(storageKey: Uint8Array): boolean {
    const cursor = this.state.backfillCursor;
    return cursor === undefined || Buffer.compare(storageKey, cursor) < 0;
  }
}

/** Table keys, index keys and, for INCLUDE, the non-key attributes: DynamoDB's projections. */
function projectedNames(record: IndexRecord, tableKey: KeyShape, indexKey: KeyShape): Set<string> {
  const names = new Set<string>();
  for (const { attribute } of [...keyPartsOf(tableKey), ...keyPartsOf(indexKey)]) names.add(attribute.name);
  for (const name of record.projection.NonKeyAttributes ?? []) names.add(name);
  return names;
}

/** The indexes of one version of a table's record. */
export class TableIndexes {
  readonly all: readonly SecondaryIndex[];
  /** The indexes every write keeps in step (all but DELETING ones). */
  readonly live: readonly SecondaryIndex[];
  readonly locals: readonly SecondaryIndex[];

  constructor(all: readonly SecondaryIndex[]) {
    this.all = all;
    this.live = all.filter((index) => index.live);
    this.locals = all.filter((index) => index.kind === 'local');
  }

  find(name: string): SecondaryIndex | undefined {
    return this.all.find((index) => index.name === name);
  }

  byId(id: number): SecondaryIndex | undefined {
    return this.all.find((index) => index.id === id);
  }
}

/**
 * The index state of one table across its record versions. Writes read `current`, not the indexes
 * of the Table they were planned against, so a write that raced an UpdateTable still maintains
 * every index the table has when it commits.
 */
export class TableIndexRuntime {
  readonly env: IndexEnvironment;
  /** LSIs are fixed at creation, so a table tracks item collections for life or never. */
  readonly collections: ItemCollections | undefined;
  #current = new TableIndexes([]);

  constructor(env: IndexEnvironment, record: TableRecord) {
    this.env = env;
    this.collections = record.localSecondaryIndexes.length > 0 ? new ItemCollections() : undefined;
  }

  get current(): TableIndexes {
    return this.#current;
  }

  /** Resolves a record's indexes, creating state for new ones and dropping that of removed ones. */
  install(record: TableRecord, tableKey: KeyShape, itemPrefix: Buffer): TableIndexes {
    const resolve = (kind: IndexKind) => (index: IndexRecord) =>
      new SecondaryIndex(index, kind, record, tableKey, this.#stateOf(index, itemPrefix));
    const indexes = new TableIndexes([...record.globalSecondaryIndexes.map(resolve('global')), ...record.localSecondaryIndexes.map(resolve('local'))]);
    for (const previous of this.#current.all) {
      if (indexes.byId(previous.id) === undefined) this.#drop(previous.id);
    }
    this.#current = indexes;
    return indexes;
  }

  /** The table is gone: so is every index of it. */
  dropAll(): void {
    for (const index of this.#current.all) this.#drop(index.id);
    this.#current = new TableIndexes([]);
  }

  #stateOf(index: IndexRecord, itemPrefix: Buffer): IndexState {
    const existing = this.env.states.get(index.id);
    if (existing !== undefined) return existing;
    // A GSI added by UpdateTable starts empty, its backfill at the table's first item.
    const state: IndexState = {
      statistics: { itemCount: 0, sizeBytes: 0 },
      backfillCursor: index.backfilling === true ? itemPrefix : undefined,
      dropped: false,
      partitions: undefined,
    };
    this.env.states.set(index.id, state);
    return state;
  }

  #drop(indexId: number): void {
    const state = this.env.states.get(indexId);
    if (state !== undefined) state.dropped = true;
    this.env.states.delete(indexId);
  }
}
