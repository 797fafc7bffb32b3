/**
 * DynamoDB's TableDescription, built from a Table: the body of CreateTable, DescribeTable,
 * UpdateTable and DeleteTable answers. Everything time-dependent (status, decreases today) is
 * read on the injected clock, so a ManualClock drives table status in tests.
 */
import type {
  AttributeDefinition,
  IndexRecord,
  KeySchemaElement,
  OnDemandThroughputRecord,
  Projection,
  StreamSpecificationRecord,
  Table,
  TableRecord,
  ThroughputRecord,
} from './table.js';
import type { SecondaryIndex } from './indexes.js';
import type { ResourcePartitions } from './partition-tracker.js';

export type TableStatus = 'CREATING' | 'UPDATING' | 'DELETING' | 'ACTIVE';

export const MS_PER_DAY = 86_400_000;

/** Days since the epoch in UTC: DynamoDB counts throughput decreases per UTC day. */
export function utcDayOf(ms: number): number {
  return Math.floor(ms / MS_PER_DAY);
}

/** DynamoDB's timestamps are epoch seconds, fractional. */
export function epochSeconds(ms: number): number {
  return ms / 1000;
}

/**
 * A table is CREATING until its `activeAtMs` on the injected clock; DELETING once a delayed
 * DeleteTable marked it; UPDATING until its `updatingUntilMs`; else ACTIVE.
 */
export function tableStatusAt(record: TableRecord, nowMs: number): TableStatus {
  if (nowMs < record.activeAtMs || record.restoring !== undefined) return 'CREATING';
  if (record.deletingUntilMs !== undefined) return 'DELETING';
  if (record.updatingUntilMs !== undefined && nowMs < record.updatingUntilMs) return 'UPDATING';
  return 'ACTIVE';
}

/**
 * A GSI added by UpdateTable is CREATING while its backfill runs and, with a table update delay,
 * until its `activeAtMs`: DynamoDB's index stays unreadable for the whole creation.
 */
export function indexCreatingAt(index: IndexRecord, nowMs: number): boolean {
  return index.backfilling === true || (index.activeAtMs !== undefined && nowMs < index.activeAtMs);
}

/** Decreases made on an earlier UTC day no longer count. */
export function decreasesToday(throughput: ThroughputRecord, nowMs: number): number {
  return throughput.decreasesDay === utcDayOf(nowMs) ? throughput.decreasesToday : 0;
}

export interface ProvisionedThroughputDescription {
  readonly LastIncreaseDateTime?: number;
  readonly LastDecreaseDateTime?: number;
  readonly NumberOfDecreasesToday: number;
  readonly ReadCapacityUnits: number;
  readonly WriteCapacityUnits: number;
}

export interface GlobalSecondaryIndexDescription {
  readonly IndexName: string;
  readonly KeySchema: readonly KeySchemaElement[];
  readonly Projection: Projection;
  readonly IndexStatus: IndexRecord['status'];
  /** Only on a GSI added by UpdateTable while it is CREATING, as DynamoDB reports it. */
  readonly Backfilling?: boolean;
  readonly ProvisionedThroughput: ProvisionedThroughputDescription;
  readonly IndexSizeBytes: number;
  readonly ItemCount: number;
  readonly IndexArn: string;
  readonly OnDemandThroughput?: OnDemandThroughputRecord;
  readonly WarmThroughput?: WarmThroughputDescription & { readonly Status: IndexRecord['status'] };
}

/** What a table or GSI serves at once (reference §4.4). */
export interface WarmThroughputDescription {
  readonly ReadUnitsPerSecond: number;
  readonly WriteUnitsPerSecond: number;
}

export interface LocalSecondaryIndexDescription {
  readonly IndexName: string;
  readonly KeySchema: readonly KeySchemaElement[];
  readonly Projection: Projection;
  readonly IndexSizeBytes: number;
  readonly ItemCount: number;
  readonly IndexArn: string;
}

export interface TableDescription {
  readonly AttributeDefinitions: readonly AttributeDefinition[];
  readonly TableName: string;
  readonly KeySchema: readonly KeySchemaElement[];
  readonly TableStatus: TableStatus;
  readonly CreationDateTime: number;
  readonly ProvisionedThroughput: ProvisionedThroughputDescription;
  readonly TableSizeBytes: number;
  readonly ItemCount: number;
  readonly TableArn: string;
  readonly TableId: string;
  readonly BillingModeSummary: { readonly BillingMode: TableRecord['billingMode']; readonly LastUpdateToPayPerRequestDateTime?: number };
  readonly RestoreSummary?: RestoreSummaryDescription;
  readonly LocalSecondaryIndexes?: readonly LocalSecondaryIndexDescription[];
  readonly GlobalSecondaryIndexes?: readonly GlobalSecondaryIndexDescription[];
  readonly StreamSpecification?: StreamSpecificationRecord;
  readonly LatestStreamLabel?: string;
  readonly LatestStreamArn?: string;
  readonly TableClassSummary?: { readonly TableClass: TableRecord['tableClass']; readonly LastUpdateDateTime?: number };
  readonly DeletionProtectionEnabled: boolean;
  readonly OnDemandThroughput?: OnDemandThroughputRecord;
  readonly WarmThroughput?: WarmThroughputDescription & { readonly Status: TableStatus };
}

export interface RestoreSummaryDescription {
  readonly SourceBackupArn?: string;
  readonly SourceTableArn?: string;
  readonly RestoreDateTime: number;
  readonly RestoreInProgress: boolean;
}

export interface DescribeOptions {
  /** Overrides the clock-derived status (UPDATING after UpdateTable, DELETING after DeleteTable). */
  readonly status?: TableStatus;
  /** UpdateTable's answer to pre-warming: these WarmThroughput members say UPDATING (the table's status does not change). */
  readonly warmUpdating?: { readonly table: boolean; readonly indexes: ReadonlySet<string> };
}

export function describeTable(table: Table, nowMs: number, options: DescribeOptions = {}): TableDescription {
  const record = table.record;
  const status = options.status ?? tableStatusAt(record, nowMs);
  const streamLabel = record.latestStreamLabel;
  return {
    AttributeDefinitions: record.attributeDefinitions,
    TableName: record.name,
    KeySchema: record.keySchema,
    TableStatus: status,
    CreationDateTime: epochSeconds(record.createdAtMs),
    ProvisionedThroughput: describeThroughput(record.billingMode === 'PROVISIONED' ? record.throughput : undefined, nowMs),
    TableSizeBytes: table.statistics.sizeBytes,
    ItemCount: table.statistics.itemCount,
    TableArn: record.arn,
    TableId: record.tableId,
    BillingModeSummary: describeBillingMode(record, status),
    RestoreSummary: describeRestore(record),
    LocalSecondaryIndexes: nonEmpty(indexesOf(table, 'local').map((index) => describeLocalIndex(record, index))),
    GlobalSecondaryIndexes: nonEmpty(indexesOf(table, 'global').map((index) => describeGlobalIndex(record, index, status, nowMs, options.warmUpdating?.indexes.has(index.name) === true))),
    StreamSpecification: record.streamSpecification,
    LatestStreamLabel: streamLabel,
    LatestStreamArn: streamLabel === undefined ? undefined : `${record.arn}/stream/${streamLabel}`,
    TableClassSummary: describeTableClass(record),
    DeletionProtectionEnabled: record.deletionProtectionEnabled,
    OnDemandThroughput: record.onDemandThroughput,
    WarmThroughput: withStatus(warmThroughputOf(table.partitions), options.warmUpdating?.table === true ? 'UPDATING' : status),
  };
}

/** A restored table's origin, reported while its restore runs (DynamoDB drops it once ACTIVE). */
function describeRestore(record: TableRecord): RestoreSummaryDescription | undefined {
  const summary = record.restoreSummary;
  if (summary === undefined || !summary.inProgress) return undefined;
  return {
    ...(summary.sourceBackupArn === undefined ? {} : { SourceBackupArn: summary.sourceBackupArn }),
    ...(summary.sourceTableArn === undefined ? {} : { SourceTableArn: summary.sourceTableArn }),
    RestoreDateTime: epochSeconds(summary.restoreDateTimeMs),
    RestoreInProgress: summary.inProgress,
  };
}

/** What DeleteTable answers: a few members of the description, no schema and no indexes. */
export type DeletedTableDescription = Pick<
  TableDescription,
  'TableName' | 'TableStatus' | 'ProvisionedThroughput' | 'TableSizeBytes' | 'ItemCount' | 'TableArn' | 'TableId' | 'BillingModeSummary'
>;

/**
 * DeleteTable's TableDescription: DynamoDB leaves out CreationDateTime, KeySchema,
 * AttributeDefinitions and both index lists (Alternator's test_table.py, recorded from DynamoDB;
 * a capture in architect/dynalite#60 shows the same few members). Members neither source shows
 * (stream, table class, deletion protection, warm throughput) are left out too.
 */
export function describeDeletedTable(table: Table, nowMs: number): DeletedTableDescription {
  const record = table.record;
  return {
    TableName: record.name,
    TableStatus: 'DELETING',
    ProvisionedThroughput: describeThroughput(record.billingMode === 'PROVISIONED' ? record.throughput : undefined, nowMs),
    TableSizeBytes: table.statistics.sizeBytes,
    ItemCount: table.statistics.itemCount,
    TableArn: record.arn,
    TableId: record.tableId,
    BillingModeSummary: describeBillingMode(record, 'DELETING'),
  };
}

/**
 * Warm throughput as the admission state knows it (ResourceCapacity.warmUnitsPerSecond: twice the
 * on-demand peak, the provisioned rate, or the pre-warmed value, the largest). Undefined before the
 * catalog has attached the state.
 */
function warmThroughputOf(partitions: ResourcePartitions | undefined): WarmThroughputDescription | undefined {
  if (partitions === undefined || !partitions.hasCapacity) return undefined;
  const capacity = partitions.capacity;
  return { ReadUnitsPerSecond: capacity.warmUnitsPerSecond('read'), WriteUnitsPerSecond: capacity.warmUnitsPerSecond('write') };
}

function withStatus<Status extends string>(warm: WarmThroughputDescription | undefined, status: Status): (WarmThroughputDescription & { readonly Status: Status }) | undefined {
  return warm === undefined ? undefined : { ...warm, Status: status };
}

/** On-demand tables and indexes report zero provisioned units. */
function describeThroughput(throughput: ThroughputRecord | undefined, nowMs: number): ProvisionedThroughputDescription {
  if (throughput === undefined) return { NumberOfDecreasesToday: 0, ReadCapacityUnits: 0, WriteCapacityUnits: 0 };
  return {
    LastIncreaseDateTime: throughput.lastIncreaseMs === undefined ? undefined : epochSeconds(throughput.lastIncreaseMs),
    LastDecreaseDateTime: throughput.lastDecreaseMs === undefined ? undefined : epochSeconds(throughput.lastDecreaseMs),
    NumberOfDecreasesToday: decreasesToday(throughput, nowMs),
    ReadCapacityUnits: throughput.readCapacityUnits,
    WriteCapacityUnits: throughput.writeCapacityUnits,
  };
}

/**
 * `billingModeChangedAtMs` is the last switch to PAY_PER_REQUEST (creation included). DynamoDB
 * only reports it once the table has left CREATING.
 */
function describeBillingMode(record: TableRecord, status: TableStatus): TableDescription['BillingModeSummary'] {
  const changedAtMs = record.billingModeChangedAtMs;
  if (changedAtMs === undefined || status === 'CREATING') return { BillingMode: record.billingMode };
  return { BillingMode: record.billingMode, LastUpdateToPayPerRequestDateTime: epochSeconds(changedAtMs) };
}

function describeTableClass(record: TableRecord): TableDescription['TableClassSummary'] {
  const changedAtMs = record.tableClassChangedAtMs;
  if (record.tableClass === 'STANDARD' && changedAtMs === undefined) return undefined;
  return {
    TableClass: record.tableClass,
    LastUpdateDateTime: changedAtMs === undefined ? undefined : epochSeconds(changedAtMs),
  };
}

function indexArn(record: TableRecord, indexName: string): string {
  return `${record.arn}/index/${indexName}`;
}

function indexesOf(table: Table, kind: SecondaryIndex['kind']): SecondaryIndex[] {
  return table.indexes.all.filter((index) => index.kind === kind);
}

/** ItemCount and IndexSizeBytes are live (DynamoDB refreshes its own about every six hours). */
function describeGlobalIndex(
  record: TableRecord,
  index: SecondaryIndex,
  tableStatus: TableStatus,
  nowMs: number,
  warmUpdating: boolean,
): GlobalSecondaryIndexDescription {
  const indexRecord = index.record;
  // A table's indexes are created with it, so they share its CREATING phase; a GSI added by
  // UpdateTable stays CREATING (backfilling) until its backfill and the update delay are over.
  const creating = indexRecord.status !== 'DELETING' && indexCreatingAt(indexRecord, nowMs);
  const status = tableStatus === 'CREATING' || creating ? 'CREATING' : indexRecord.status;
  return {
    IndexName: indexRecord.name,
    KeySchema: indexRecord.keySchema,
    Projection: indexRecord.projection,
    IndexStatus: status,
    Backfilling: tableStatus !== 'CREATING' && creating ? true : undefined,
    ProvisionedThroughput: describeThroughput(record.billingMode === 'PROVISIONED' ? indexRecord.throughput : undefined, nowMs),
    IndexSizeBytes: index.state.statistics.sizeBytes,
    ItemCount: index.state.statistics.itemCount,
    IndexArn: indexArn(record, indexRecord.name),
    OnDemandThroughput: indexRecord.onDemandThroughput,
    WarmThroughput: withStatus(warmThroughputOf(index.state.partitions), warmUpdating ? 'UPDATING' : status),
  };
}

function describeLocalIndex(record: TableRecord, index: SecondaryIndex): LocalSecondaryIndexDescription {
  return {
    IndexName: index.name,
    KeySchema: index.record.keySchema,
    Projection: index.record.projection,
    IndexSizeBytes: index.state.statistics.sizeBytes,
    ItemCount: index.state.statistics.itemCount,
    IndexArn: indexArn(record, index.name),
  };
}

function nonEmpty<T>(list: readonly T[]): readonly T[] | undefined {
  return list.length === 0 ? undefined : list;
}
