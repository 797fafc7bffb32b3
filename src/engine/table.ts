/**
 * A table as the engine knows it: its persisted definition (TableRecord) plus what is derived
 * from it once (key schema lookups, the storage prefix of its items) and its live statistics.
 */
import type { ScalarType } from '../model/attribute-value.js';
import type { StreamWriter } from '../streams/stream-writer.js';
import type { TableIndexes, TableIndexRuntime } from './indexes.js';
import type { ResourcePartitions } from './partition-tracker.js';
import type { TableHistory } from './history.js';

export interface AttributeDefinition {
  readonly AttributeName: string;
  readonly AttributeType: ScalarType;
}

export interface KeySchemaElement {
  readonly AttributeName: string;
  readonly KeyType: 'HASH' | 'RANGE';
}

export interface Projection {
  readonly ProjectionType: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  readonly NonKeyAttributes?: readonly string[];
}

export interface ThroughputRecord {
  readonly readCapacityUnits: number;
  readonly writeCapacityUnits: number;
  readonly lastIncreaseMs?: number;
  readonly lastDecreaseMs?: number;
  /** Decreases made on the UTC day `decreasesDay` (days since the epoch). */
  readonly decreasesToday: number;
  readonly decreasesDay: number;
}

export interface OnDemandThroughputRecord {
  readonly MaxReadRequestUnits?: number;
  readonly MaxWriteRequestUnits?: number;
}

/** What a table or GSI was pre-warmed to (CreateTable/UpdateTable WarmThroughput, reference §4.4); it never falls. */
export interface WarmThroughputRecord {
  readonly ReadUnitsPerSecond?: number;
  readonly WriteUnitsPerSecond?: number;
}

export interface IndexRecord {
  /** Internal numeric id: the storage prefix of the index's entries. Never reused, like table ids. */
  readonly id: number;
  readonly name: string;
  readonly keySchema: readonly KeySchemaElement[];
  readonly projection: Projection;
  /** Provisioned tables only; GSIs carry their own throughput, LSIs share the table's. */
  readonly throughput?: ThroughputRecord;
  readonly onDemandThroughput?: OnDemandThroughputRecord;
  readonly warmThroughput?: WarmThroughputRecord;
  readonly status: 'CREATING' | 'UPDATING' | 'DELETING' | 'ACTIVE';
  /**
   * A GSI added by UpdateTable, CREATING until its backfill has indexed every existing item
   * (DynamoDB's Backfilling member); GSIs created with their table are never backfilled.
   */
  readonly backfilling?: boolean;
  /**
   * A GSI added by UpdateTable stays CREATING at least until then on the injected clock (the
   * table's update delay), even when its backfill finished sooner.
   */
  readonly activeAtMs?: number;
}

export interface TimeToLiveRecord {
  readonly status: 'ENABLED' | 'DISABLED';
  readonly attributeName?: string;
}

export interface StreamSpecificationRecord {
  readonly StreamEnabled: boolean;
  readonly StreamViewType?: 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES' | 'KEYS_ONLY';
}

export interface Tag {
  readonly Key: string;
  readonly Value: string;
}

/** Everything about a table that is persisted. Immutable: updates write a new record. */
export interface TableRecord {
  /** Internal numeric id: the storage prefix of the table's items. Never reused. */
  readonly id: number;
  readonly name: string;
  /** DynamoDB's TableId (a UUID). */
  readonly tableId: string;
  readonly arn: string;
  readonly createdAtMs: number;
  readonly attributeDefinitions: readonly AttributeDefinition[];
  readonly keySchema: readonly KeySchemaElement[];
  readonly billingMode: 'PROVISIONED' | 'PAY_PER_REQUEST';
  /** The last switch to PAY_PER_REQUEST, creation included (LastUpdateToPayPerRequestDateTime). */
  readonly billingModeChangedAtMs?: number;
  readonly throughput: ThroughputRecord;
  readonly onDemandThroughput?: OnDemandThroughputRecord;
  readonly warmThroughput?: WarmThroughputRecord;
  readonly globalSecondaryIndexes: readonly IndexRecord[];
  readonly localSecondaryIndexes: readonly IndexRecord[];
  readonly streamSpecification?: StreamSpecificationRecord;
  /** Set when a stream was ever enabled; DynamoDB keeps reporting the latest stream. */
  readonly latestStreamLabel?: string;
  readonly tags: readonly Tag[];
  readonly timeToLive: TimeToLiveRecord;
  readonly deletionProtectionEnabled: boolean;
  readonly tableClass: 'STANDARD' | 'STANDARD_INFREQUENT_ACCESS';
  /** When an UpdateTable last changed the table class (DynamoDB's TableClassSummary.LastUpdateDateTime). */
  readonly tableClassChangedAtMs?: number;
  /** Status changes are timed on the injected clock: ACTIVE from `activeAtMs` on. */
  readonly activeAtMs: number;
  /** After an UpdateTable with a delay, the table is UPDATING until then (`--table-update-delay`). */
  readonly updatingUntilMs?: number;
  /**
   * Set by a DeleteTable with a delay (`--table-delete-delay`): the table is DELETING, refuses
   * item operations, and is removed from the store at that time (engine/table-deletions.ts).
   */
  readonly deletingUntilMs?: number;
  /** Point-in-time recovery is enabled (engine/backups.ts); absent: disabled. */
  readonly pointInTimeRecovery?: PointInTimeRecoveryRecord;
  /** A restored table whose items are still loading (it is CREATING until then). */
  readonly restoring?: RestoringRecord;
  /** A restored table's origin (DescribeTable's RestoreSummary). */
  readonly restoreSummary?: RestoreSummaryRecord;
  /** Resource-based policies: the table's under '', its streams' under their labels. */
  readonly resourcePolicies?: Readonly<Record<string, ResourcePolicyRecord>>;
}

export interface ResourcePolicyRecord {
  readonly policy: string;
  /** DynamoDB's revision ids are times in ms, as text: a later revision compares greater. */
  readonly revisionId: string;
}

export interface PointInTimeRecoveryRecord {
  readonly enabledAtMs: number;
  readonly recoveryPeriodInDays: number;
}

/** Where a restored table's items come from, kept on its record while they load. */
export interface RestoringRecord {
  readonly backupId: number;
  /** Remove the backup once restored (a point-in-time restore's internal snapshot). */
  readonly dropBackup: boolean;
}

export interface RestoreSummaryRecord {
  readonly sourceBackupArn?: string;
  readonly sourceTableArn?: string;
  readonly restoreDateTimeMs: number;
  readonly inProgress: boolean;
}

export interface KeyAttribute {
  readonly name: string;
  readonly type: ScalarType;
}

/**
 * A table's or an index's key, resolved against its attribute definitions. `hash` and `range` are
 * the first HASH and RANGE elements; a GSI with a multi-attribute key (several HASH or RANGE
 * elements, DynamoDB since November 2025) also has `multi`. Every other key is one HASH and at most
 * one RANGE, and code on its path never looks past `hash` and `range`.
 */
export interface KeyShape {
  readonly hash: KeyAttribute;
  readonly range: KeyAttribute | undefined;
  readonly multi?: MultiAttributeKey;
}

/** Every partition key and sort key attribute of a multi-attribute GSI key, in key schema order. */
export interface MultiAttributeKey {
  /** 1 to 4 attributes whose values together are the partition key (hashed together). */
  readonly hashes: readonly KeyAttribute[];
  /** 0 to 4 attributes whose values together are the sort key, compared left to right. */
  readonly ranges: readonly KeyAttribute[];
}

/** Up to four HASH and four RANGE attributes in a GSI's key schema (DynamoDB's limit). */
export const KEY_ATTRIBUTES_PER_ROLE_MAX = 4;

/** A key attribute with its role: a partition key (hash) attribute or a sort key (range) one. */
export interface KeyPart {
  readonly attribute: KeyAttribute;
  readonly isHash: boolean;
}

/** Every attribute of a key, partition key attributes first, in key schema order. */
export function keyPartsOf(key: KeyShape): KeyPart[] {
  if (key.multi !== undefined) {
    return [...key.multi.hashes.map((attribute) => ({ attribute, isHash: true })), ...key.multi.ranges.map((attribute) => ({ attribute, isHash: false }))];
  }
  const parts: KeyPart[] = [{ attribute: key.hash, isHash: true }];
  if (key.range !== undefined) parts.push({ attribute: key.range, isHash: false });
  return parts;
}

/** The live statistics of a table, kept by every write (DynamoDB refreshes them every ~6 hours). */
export interface TableStatistics {
  itemCount: number;
  sizeBytes: number;
}

/** An attribute that keys a secondary index, for type checks on every write. */
export interface IndexKeyAttribute {
  readonly indexName: string;
  readonly attribute: KeyAttribute;
  /** The index's partition key (values up to 2,048 bytes), else its sort key (1,024 bytes). */
  readonly isHash: boolean;
}

/**
 * Where a table's item changes go besides the store: the writer of its enabled stream, or none.
 * One slot is shared by every version of a table, so a write planned against an older version
 * still reaches the stream enabled since (set by the catalog, table-stream.ts).
 */
export interface ChangeSlot {
  stream: StreamWriter | undefined;
  /** The table's item history, while point-in-time recovery or a backup needs it (history.ts). */
  history?: TableHistory;
}

export class Table {
  readonly record: TableRecord;
  readonly key: KeyShape;
  /** keyPartsOf(key), made once: every Query and Scan of the table pages with them. */
  readonly keyParts: readonly KeyPart[];
  /** Attributes that key a GSI or LSI but not the table itself. */
  readonly indexKeys: readonly IndexKeyAttribute[];
  /** Storage prefix under which this table's items live. */
  readonly itemPrefix: Buffer;
  readonly statistics: TableStatistics;
  /** Index state shared by every version of this table (statistics, backfill, item collections). */
  readonly indexRuntime: TableIndexRuntime;
  /** The secondary indexes of this version of the record. */
  readonly indexes: TableIndexes;
  /** The table's partition map (GSIs have theirs in their IndexState); shared by every version. */
  readonly partitions: ResourcePartitions;
  /** The stream its changes are published on (shared by every version). */
  readonly changes: ChangeSlot;

  constructor(
    record: TableRecord,
    itemPrefix: Buffer,
    statistics: TableStatistics,
    indexRuntime: TableIndexRuntime,
    partitions: ResourcePartitions,
    changes: ChangeSlot = { stream: undefined },
  ) {
    this.record = record;
    this.changes = changes;
    this.partitions = partitions;
    this.key = resolveKeyShape(record.keySchema, record.attributeDefinitions);
    this.keyParts = keyPartsOf(this.key);
    this.indexKeys = resolveIndexKeys(record);
    this.itemPrefix = itemPrefix;
    this.statistics = statistics;
    this.indexRuntime = indexRuntime;
    this.indexes = indexRuntime.install(record, this.key, itemPrefix);
  }

  get name(): string {
    return this.record.name;
  }

  /** The same table (prefix, statistics, index state, partitions) under a new definition. */
  withRecord(record: TableRecord): Table {
    return new Table(record, this.itemPrefix, this.statistics, this.indexRuntime, this.partitions, this.changes);
  }
}

export function resolveKeyShape(
  keySchema: readonly KeySchemaElement[],
  attributeDefinitions: readonly AttributeDefinition[],
): KeyShape {
  const typeOf = (name: string): ScalarType => {
    const definition = attributeDefinitions.find((candidate) => candidate.AttributeName === name);
    if (definition === undefined) throw new Error(`assertion failed: key attribute ${name} has no definition`);
    return definition.AttributeType;
  };
  const attributeOf = (element: KeySchemaElement): KeyAttribute => ({ name: element.AttributeName, type: typeOf(element.AttributeName) });
  const hashes = keySchema.filter((element) => element.KeyType === 'HASH').map(attributeOf);
  const ranges = keySchema.filter((element) => element.KeyType === 'RANGE').map(attributeOf);
  if (hashes.length === 0) throw new Error('assertion failed: a key schema has a HASH element');
  const shape = { hash: hashes[0]!, range: ranges[0] };
  return hashes.length > 1 || ranges.length > 1 ? { ...shape, multi: { hashes, ranges } } : shape;
}

function resolveIndexKeys(record: TableRecord): IndexKeyAttribute[] {
  const result: IndexKeyAttribute[] = [];
  for (const index of [...record.globalSecondaryIndexes, ...record.localSecondaryIndexes]) {
    // A DELETING index no longer constrains what items may hold.
    if (index.status === 'DELETING') continue;
    const shape = resolveKeyShape(index.keySchema, record.attributeDefinitions);
    for (const { attribute, isHash } of keyPartsOf(shape)) {
      const tableRole = record.keySchema.find((element) => element.AttributeName === attribute.name)?.KeyType;
      // The table's own key rules cover its key attributes, except the table's partition key as an
      // index sort key: the index allows only 1,024 of its 2,048 bytes.
      if (tableRole === undefined || (tableRole === 'HASH' && !isHash)) result.push({ indexName: index.name, attribute, isHash });
    }
  }
  return result;
}
