/**
 * What the backup and restore operations share: their errors (texts and sources in
 * docs/CONFORMANCE.md), how a backup is described, and the restored table's definition with the
 * overrides RestoreTableFromBackup and RestoreTableToPointInTime accept.
 */
import { randomUUID } from 'node:crypto';
import type { BackupRecord } from '../engine/backups.js';
import { epochSeconds } from '../engine/describe.js';
import type { Engine } from '../engine/engine.js';
import type { IdAllocator } from '../engine/catalog.js';
import type { IndexRecord, KeySchemaElement, RestoreSummaryRecord, RestoringRecord, TableRecord } from '../engine/table.js';
import { coralServiceError, dynamoError, validationError, type DynamoError } from '../errors.js';
import {
  checkKeySchema,
  checkProjection,
  checkSseSpecification,
  checkThroughputBounds,
  globalKeySchemaMember,
  keySchemaMember,
  keySchemaOf,
  projectionMember,
  provisionedThroughputMember,
  sseSpecificationMember,
  throughputRecordOf,
  type KeySchemaElementInput,
  type ProjectionInput,
  type SseSpecificationInput,
  type ThroughputInput,
} from './control-plane-common.js';
import { shapes, type Member } from './shape.js';

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

export const tableNotFoundForBackup = (name: string): DynamoError => dynamoError('TableNotFoundException', `Table not found: ${name}`);
export const backupNotFound = (arn: string): DynamoError => dynamoError('BackupNotFoundException', `Backup not found: ${arn}`);
export const tableAlreadyExists = (name: string): DynamoError => dynamoError('TableAlreadyExistsException', `Table already exists: ${name}`);
export const backupInUse = (message: string): DynamoError => dynamoError('BackupInUseException', message);

/**
 * The backup a BackupArn names, looked up as DynamoDB does: the ARN must name a backup ('Invalid
 * Backup ARN'), of DynamoDB in the aws partition ('BackupArn is not valid'), of this account
 * (AccessDeniedException); its region is not compared (DynamoDB ignores it); then the backup, or
 * BackupNotFoundException.
 */
export function requireBackup(engine: Engine, arn: string): BackupRecord {
  const parts = /^arn:([^:]*):([^:]*):([^:]*):([^:]*):(table\/[^/]+\/backup\/[^/]+)$/.exec(arn);
  if (parts === null) throw validationError('Invalid Backup ARN');
  const [, partition, service, , account, resource] = parts;
  if (partition !== 'aws' || service !== 'dynamodb') throw validationError('BackupArn is not valid');
  if (account !== engine.settings.accountId) throw coralServiceError('AccessDeniedException', 'Access is denied');
  const record = engine.backups.get(`arn:aws:dynamodb:${engine.settings.region}:${account}:${resource}`);
  if (record === undefined) throw backupNotFound(arn);
  return record;
}

// ---------------------------------------------------------------------------------------------
// Members
// ---------------------------------------------------------------------------------------------

/** BackupArn: 37..1024 characters (the API reference's BackupArn type). */
export const backupArnMember: Member = shapes.string({ required: true, lengthMin: 37, lengthMax: 1024 });
export const backupNameMember: Member = shapes.string({ required: true, pattern: '[a-zA-Z0-9_.-]+', lengthMin: 3, lengthMax: 255 });
export const targetTableNameMember: Member = shapes.string({ required: true, pattern: '[a-zA-Z0-9_.-]+', lengthMin: 3, lengthMax: 255 });

const indexOverrideMember = (name: string, withThroughput: boolean): Member =>
  shapes.list(
    shapes.structure(
      name,
      {
        IndexName: shapes.string({ notNull: true, pattern: '[a-zA-Z0-9_.-]+', lengthMin: 3, lengthMax: 255 }),
        KeySchema: withThroughput ? globalKeySchemaMember : keySchemaMember(false),
        Projection: projectionMember,
        ...(withThroughput ? { ProvisionedThroughput: provisionedThroughputMember } : {}),
      },
      { notNull: true },
    ),
  );

/** The overrides both restores take, as the API reference lists them. */
export const restoreOverrideMembers: Readonly<Record<string, Member>> = {
  BillingModeOverride: shapes.string({ enumValues: ['PROVISIONED', 'PAY_PER_REQUEST'] }),
  GlobalSecondaryIndexOverride: indexOverrideMember('GlobalSecondaryIndex', true),
  LocalSecondaryIndexOverride: indexOverrideMember('LocalSecondaryIndex', false),
  ProvisionedThroughputOverride: provisionedThroughputMember,
  OnDemandThroughputOverride: shapes.structure('OnDemandThroughput', {
    MaxReadRequestUnits: shapes.long(),
    MaxWriteRequestUnits: shapes.long(),
  }),
  SSESpecificationOverride: sseSpecificationMember,
};

interface IndexOverrideInput {
  readonly IndexName: string;
  readonly KeySchema: readonly KeySchemaElementInput[];
  readonly Projection: ProjectionInput;
  readonly ProvisionedThroughput?: ThroughputInput;
}

/** A restore's overrides as validated (pure: no table looked at). */
export interface RestoreOverrides {
  readonly billingMode: TableRecord['billingMode'] | undefined;
  readonly throughput: ThroughputInput | undefined;
  readonly globalIndexes: readonly IndexOverrideInput[] | undefined;
  readonly localIndexes: readonly IndexOverrideInput[] | undefined;
}

export function restoreOverridesOf(input: Record<string, unknown>): RestoreOverrides {
  const throughput = input.ProvisionedThroughputOverride as ThroughputInput | undefined;
  if (throughput !== undefined) checkThroughputBounds(throughput);
  checkSseSpecification(input.SSESpecificationOverride as SseSpecificationInput | undefined);
  const globalIndexes = input.GlobalSecondaryIndexOverride as IndexOverrideInput[] | undefined;
  const localIndexes = input.LocalSecondaryIndexOverride as IndexOverrideInput[] | undefined;
  for (const index of [...(globalIndexes ?? []), ...(localIndexes ?? [])]) {
    checkProjection(index.Projection);
    if (index.ProvisionedThroughput !== undefined) checkThroughputBounds(index.ProvisionedThroughput);
  }
  return { billingMode: input.BillingModeOverride as TableRecord['billingMode'] | undefined, throughput, globalIndexes, localIndexes };
}

// ---------------------------------------------------------------------------------------------
// Descriptions
// ---------------------------------------------------------------------------------------------

export function backupDetailsOf(record: BackupRecord): Record<string, unknown> {
  return {
    BackupArn: record.arn,
    BackupName: record.name,
    BackupSizeBytes: record.sizeBytes,
    BackupStatus: record.status,
    BackupType: record.type,
    BackupCreationDateTime: epochSeconds(record.createdAtMs),
    ...(record.expiresAtMs === undefined ? {} : { BackupExpiryDateTime: epochSeconds(record.expiresAtMs) }),
  };
}

export function backupSummaryOf(record: BackupRecord): Record<string, unknown> {
  return {
    TableName: record.table.name,
    TableId: record.table.tableId,
    TableArn: record.table.arn,
    BackupArn: record.arn,
    BackupName: record.name,
    BackupCreationDateTime: epochSeconds(record.createdAtMs),
    ...(record.expiresAtMs === undefined ? {} : { BackupExpiryDateTime: epochSeconds(record.expiresAtMs) }),
    BackupStatus: record.status,
    BackupType: record.type,
    BackupSizeBytes: record.sizeBytes,
  };
}

/** DescribeBackup's BackupDescription: the details, the source table and its features at backup time. */
export function backupDescriptionOf(record: BackupRecord): Record<string, unknown> {
  const table = record.table;
  const throughput = (units: { readCapacityUnits: number; writeCapacityUnits: number }): Record<string, number> => ({
    ReadCapacityUnits: units.readCapacityUnits,
    WriteCapacityUnits: units.writeCapacityUnits,
  });
  const provisioned = table.billingMode === 'PROVISIONED';
  const indexOf = (index: IndexRecord, global: boolean): Record<string, unknown> => ({
    IndexName: index.name,
    KeySchema: index.keySchema,
    Projection: index.projection,
    ...(global && provisioned && index.throughput !== undefined ? { ProvisionedThroughput: throughput(index.throughput) } : {}),
    ...(global && index.onDemandThroughput !== undefined ? { OnDemandThroughput: index.onDemandThroughput } : {}),
  });
  const features: Record<string, unknown> = {};
  // A SYSTEM backup's features are empty, as DynamoDB reports them.
  if (record.type === 'SYSTEM') return { BackupDetails: backupDetailsOf(record), SourceTableDetails: sourceTableDetailsOf(record), SourceTableFeatureDetails: features };
  if (table.localSecondaryIndexes.length > 0) features.LocalSecondaryIndexes = table.localSecondaryIndexes.map((index) => indexOf(index, false));
  if (table.globalSecondaryIndexes.length > 0) features.GlobalSecondaryIndexes = table.globalSecondaryIndexes.map((index) => indexOf(index, true));
  // Streams and TTL only when enabled: a plain table's features are an empty map.
  if (table.streamSpecification?.StreamEnabled === true) features.StreamDescription = table.streamSpecification;
  if (table.timeToLive.status === 'ENABLED') features.TimeToLiveDescription = { TimeToLiveStatus: 'ENABLED', AttributeName: table.timeToLive.attributeName };
  return { BackupDetails: backupDetailsOf(record), SourceTableDetails: sourceTableDetailsOf(record), SourceTableFeatureDetails: features };
}

function sourceTableDetailsOf(record: BackupRecord): Record<string, unknown> {
  const table = record.table;
  const provisioned = table.billingMode === 'PROVISIONED';
  return {
      TableName: table.name,
      TableId: table.tableId,
      TableArn: table.arn,
      TableSizeBytes: record.sizeBytes,
      KeySchema: table.keySchema,
      TableCreationDateTime: epochSeconds(table.createdAtMs),
      ProvisionedThroughput: provisioned
        ? { ReadCapacityUnits: table.throughput.readCapacityUnits, WriteCapacityUnits: table.throughput.writeCapacityUnits }
        : { ReadCapacityUnits: 0, WriteCapacityUnits: 0 },
      ...(table.onDemandThroughput === undefined ? {} : { OnDemandThroughput: table.onDemandThroughput }),
      ItemCount: record.itemCount,
      BillingMode: table.billingMode,
  };
}

// ---------------------------------------------------------------------------------------------
// The restored table
// ---------------------------------------------------------------------------------------------

/**
 * The restored table's record: the source's keys, indexes (or the overrides' subset), billing,
 * throughput and on-demand maxima (or the overrides'); not its tags, stream, TTL, deletion
 * protection, PITR or table class, which DynamoDB leaves to be set again on the restored table.
 * CREATING until its items are loaded.
 */
export function restoredTableRecord(
  engine: Engine,
  source: TableRecord,
  target: string,
  overrides: RestoreOverrides,
  ids: IdAllocator,
  nowMs: number,
  restoring: RestoringRecord,
  summary: RestoreSummaryRecord,
): TableRecord {
  const billingMode = overrides.billingMode ?? source.billingMode;
  const provisioned = billingMode === 'PROVISIONED';
  if (!provisioned && overrides.throughput !== undefined) throw validationError('Cannot override ProvisionedThroughput unless BillingMode is PROVISIONED');
  if (overrides.billingMode === 'PROVISIONED' && source.billingMode !== 'PROVISIONED' && overrides.throughput === undefined) {
    throw validationError('Must override ProvisionedThroughput if BillingMode is overridden to PROVISIONED');
  }
  const tableThroughput = overrides.throughput ?? (source.billingMode === 'PROVISIONED' ? unitsOf(source.throughput) : undefined);
  const definitionNames = source.attributeDefinitions.map((definition) => definition.AttributeName);
  const globalIndexes = chosenIndexes(source.globalSecondaryIndexes, overrides.globalIndexes, definitionNames, true).map((index) => {
    const throughput = index.override?.ProvisionedThroughput ?? (index.source.throughput === undefined ? undefined : unitsOf(index.source.throughput));
    if (provisioned && throughput === undefined) throw validationError(`Must override ProvisionedThroughput for index ${index.source.name} if BillingMode is overridden to PROVISIONED`);
    return indexRecordOf(index, ids.next(), provisioned ? throughputRecordOf(throughput, nowMs) : undefined);
  });
  const localIndexes = chosenIndexes(source.localSecondaryIndexes, overrides.localIndexes, definitionNames, false).map((index) => indexRecordOf(index, ids.next(), undefined));
  const used = new Set<string>();
  for (const keySchema of [source.keySchema, ...[...globalIndexes, ...localIndexes].map((index) => index.keySchema)]) {
    for (const element of keySchema) used.add(element.AttributeName);
  }
  return {
    id: ids.next(),
    name: target,
    tableId: randomUUID(),
    arn: engine.tableArn(target),
    createdAtMs: nowMs,
    attributeDefinitions: source.attributeDefinitions.filter((definition) => used.has(definition.AttributeName)),
    keySchema: source.keySchema,
    billingMode,
    ...(provisioned ? {} : { billingModeChangedAtMs: nowMs }),
    throughput: throughputRecordOf(provisioned ? tableThroughput : undefined, nowMs),
    ...(!provisioned && source.onDemandThroughput !== undefined ? { onDemandThroughput: source.onDemandThroughput } : {}),
    globalSecondaryIndexes: globalIndexes,
    localSecondaryIndexes: localIndexes,
    tags: [],
    timeToLive: { status: 'DISABLED' },
    deletionProtectionEnabled: false,
    // DynamoDB restores to the STANDARD class whatever the source's.
    tableClass: 'STANDARD',
    // CREATING until the load ends (backups.ts sets the time then).
    activeAtMs: Number.MAX_SAFE_INTEGER,
    restoring,
    restoreSummary: summary,
  };
}

function unitsOf(throughput: { readCapacityUnits: number; writeCapacityUnits: number }): ThroughputInput {
  return { ReadCapacityUnits: throughput.readCapacityUnits, WriteCapacityUnits: throughput.writeCapacityUnits };
}

interface ChosenIndex {
  readonly source: IndexRecord;
  readonly override: IndexOverrideInput | undefined;
  readonly keySchema: readonly KeySchemaElement[];
}

/** The source's indexes, or those the override names (each must be one of the source's). */
function chosenIndexes(
  source: readonly IndexRecord[],
  overrides: readonly IndexOverrideInput[] | undefined,
  definitionNames: readonly string[],
  global: boolean,
): ChosenIndex[] {
  if (overrides === undefined) return source.map((index) => ({ source: index, override: undefined, keySchema: index.keySchema }));
  const seen = new Set<string>();
  return overrides.map((override) => {
    const match = source.find((index) => index.name === override.IndexName);
    if (match === undefined || seen.has(override.IndexName)) {
      throw validationError(`Index ${override.IndexName} does not match a secondary index that existed in the source table and cannot be created during the restore operation`);
    }
    seen.add(override.IndexName);
    checkKeySchema(override.KeySchema, definitionNames, global);
    return { source: match, override, keySchema: keySchemaOf(override.KeySchema) };
  });
}

function indexRecordOf(index: ChosenIndex, id: number, throughput: IndexRecord['throughput']): IndexRecord {
  return {
    id,
    name: index.source.name,
    keySchema: index.keySchema,
    projection: index.override === undefined ? index.source.projection : checkProjection(index.override.Projection),
    ...(throughput === undefined ? {} : { throughput }),
    status: 'ACTIVE',
  };
}
