/**
 * Members and rules shared by the control-plane operations (CreateTable, UpdateTable, tags, TTL
 * ...), so each DynamoDB rule and text is written once.
 */
import type { Engine } from '../engine/engine.js';
import { utcDayOf } from '../engine/describe.js';
import { KEY_ATTRIBUTES_PER_ROLE_MAX, type KeySchemaElement, type OnDemandThroughputRecord, type Projection, type Table, type Tag, type ThroughputRecord } from '../engine/table.js';
import { coralServiceError, resourceInUse, resourceNotFound, validationError, type DynamoError } from '../errors.js';
import { checkConstraints, shapes, TABLE_NAME_CONSTRAINTS, TABLE_NAME_OR_ARN_CONSTRAINTS, type Member } from './shape.js';

export const INVALID = 'One or more parameter values were invalid: ';

/** DynamoDB answers "out of bounds" above this many capacity units. */
export const THROUGHPUT_UNITS_MAX = 1_000_000_000_000;

export const TABLE_CLASSES = ['STANDARD', 'STANDARD_INFREQUENT_ACCESS'] as const;
export type TableClass = (typeof TABLE_CLASSES)[number];

export const STREAM_VIEW_TYPES = ['NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES', 'KEYS_ONLY'] as const;
export type StreamViewType = (typeof STREAM_VIEW_TYPES)[number];

// ---------------------------------------------------------------------------------------------
// Request members
// ---------------------------------------------------------------------------------------------

/** CreateTable and ListTables keep the classic name rules in the constraint phase. */
export const classicTableNameMember: Member = shapes.string({ required: true, ...TABLE_NAME_CONSTRAINTS });

/** Operations on an existing table also take its ARN; the name inside is checked in `validate`. */
export const tableNameOrArnMember: Member = shapes.string({ required: true, ...TABLE_NAME_OR_ARN_CONSTRAINTS });

/** dynalite's observations put WriteCapacityUnits first: that order decides the error order. */
export const provisionedThroughputMember: Member = shapes.structure('ProvisionedThroughput', {
  WriteCapacityUnits: shapes.long({ notNull: true, valueMin: 1 }),
  ReadCapacityUnits: shapes.long({ notNull: true, valueMin: 1 }),
});

const attributeNameConstraints = { notNull: true, lengthMin: 1, lengthMax: 255 } as const;

export const attributeDefinitionsMember: Member = shapes.list(
  shapes.structure(
    'AttributeDefinition',
    {
      AttributeName: shapes.string(attributeNameConstraints),
      AttributeType: shapes.string({ notNull: true, enumValues: ['B', 'N', 'S'] }),
    },
    { notNull: true },
  ),
  { notNull: true },
);

/**
 * A table's KeyType is an enum in the constraint phase; an index's is not (DynamoDB then answers
 * "The first KeySchemaElement is not a HASH key type"), as dynalite observed.
 */
export function keySchemaMember(keyTypeIsEnum: boolean): Member {
  return shapes.list(keySchemaElementMember(keyTypeIsEnum), { notNull: true, lengthMin: 1, lengthMax: 2 });
}

/**
 * A GSI's key schema may have up to four HASH and four RANGE elements (multi-attribute keys), so
 * its length is checked by checkKeySchema, per role, with DynamoDB's texts; table and LSI key
 * schemas keep the constraint "Member must have length less than or equal to 2".
 */
export const globalKeySchemaMember: Member = shapes.list(keySchemaElementMember(false), { notNull: true, lengthMin: 1 });

function keySchemaElementMember(keyTypeIsEnum: boolean): Member {
  return shapes.structure(
    'KeySchemaElement',
    {
      AttributeName: shapes.string(attributeNameConstraints),
      KeyType: shapes.string({ notNull: true, enumValues: keyTypeIsEnum ? ['HASH', 'RANGE'] : undefined }),
    },
    { notNull: true },
  );
}

export const projectionMember: Member = shapes.structure(
  'Projection',
  {
    ProjectionType: shapes.string({ enumValues: ['ALL', 'INCLUDE', 'KEYS_ONLY'] }),
    NonKeyAttributes: shapes.list(shapes.string(attributeNameConstraints), { lengthMin: 1, lengthMax: 20 }),
  },
  { notNull: true },
);

export const indexNameConstraints = { notNull: true, pattern: '[a-zA-Z0-9_.-]+', lengthMin: 3, lengthMax: 255 } as const;

export const onDemandThroughputMember: Member = shapes.structure('OnDemandThroughput', {
  MaxReadRequestUnits: shapes.long(),
  MaxWriteRequestUnits: shapes.long(),
});

/** Pre-warming (reference §4.4): checked in warm-throughput.ts. */
export const warmThroughputMember: Member = shapes.structure('WarmThroughput', {
  ReadUnitsPerSecond: shapes.long(),
  WriteUnitsPerSecond: shapes.long(),
});

export const streamSpecificationMember: Member = shapes.structure('StreamSpecification', {
  StreamEnabled: shapes.boolean({ notNull: true }),
  StreamViewType: shapes.string({ enumValues: STREAM_VIEW_TYPES }),
});

/** Checked and accepted; encryption at rest is not modelled (every table reads as AWS-owned-key encrypted). */
export const sseSpecificationMember: Member = shapes.structure('SSESpecification', {
  Enabled: shapes.boolean(),
  SSEType: shapes.string({ enumValues: ['AES256', 'KMS'] }),
  KMSMasterKeyId: shapes.string(),
});

/** A missing Value has its own message (see checkTags), so only Key is notNull here. */
export const tagsMember: Member = shapes.list(
  shapes.structure(
    'Tag',
    {
      Key: shapes.string({ notNull: true, lengthMin: 1, lengthMax: 128 }),
      Value: shapes.string({ lengthMin: 0, lengthMax: 256 }),
    },
    { notNull: true },
  ),
);

// ---------------------------------------------------------------------------------------------
// Wire shapes of checked input (what `validate` may assume after the constraint phase)
// ---------------------------------------------------------------------------------------------

export interface ThroughputInput {
  readonly ReadCapacityUnits: number;
  readonly WriteCapacityUnits: number;
}

export interface StreamSpecificationInput {
  readonly StreamEnabled: boolean;
  readonly StreamViewType?: StreamViewType;
}

export interface SseSpecificationInput {
  readonly Enabled?: boolean;
  readonly SSEType?: 'AES256' | 'KMS';
  readonly KMSMasterKeyId?: string;
}

export interface TagInput {
  readonly Key: string;
  readonly Value?: string;
}

// ---------------------------------------------------------------------------------------------
// Table references: a name or the table's ARN
// ---------------------------------------------------------------------------------------------

export interface TableReference {
  readonly name: string;
  /** Set when the request named the table by ARN; it must then be exactly the table's ARN. */
  readonly arn: string | undefined;
}

const TABLE_ARN_MARKER = ':table/';
const CLASSIC_NAME_MEMBERS: Readonly<Record<string, Member>> = {
  TableName: shapes.string(TABLE_NAME_CONSTRAINTS),
};

/**
 * DynamoDB accepts a table ARN wherever an existing table is named (TableName is then 1..1024
 * characters). An ARN names the table after ':table/'; whatever names the table, ARN or not,
 * must then pass the classic name rules (3..255 characters of [a-zA-Z0-9_.-]), reported in the
 * constraint wording ("Value 'ab' at 'tableName' failed to satisfy constraint: ...") that
 * DynamoDB uses for plain names. A string starting with 'arn:' without ':table/' is checked
 * whole, and so fails the pattern.
 */
export function tableReferenceOf(value: string): TableReference {
  const isArn = value.startsWith('arn:');
  const marker = value.indexOf(TABLE_ARN_MARKER);
  const name = isArn && marker >= 0 ? value.slice(marker + TABLE_ARN_MARKER.length) : value;
  checkConstraints({ TableName: name }, CLASSIC_NAME_MEMBERS);
  return { name, arn: isArn ? value : undefined };
}

/** The control plane's not-found text names the table, unlike the item operations'. */
export function tableNotFound(name: string): DynamoError {
  return resourceNotFound(`Requested resource not found: Table: ${name} not found`);
}

/** The referenced table; an ARN of another region or account names no table here. */
function findTable(engine: Engine, reference: TableReference): Table | undefined {
  if (reference.arn !== undefined && reference.arn !== engine.tableArn(reference.name)) return undefined;
  return engine.catalog.get(reference.name);
}

export function requireTable(engine: Engine, reference: TableReference): Table {
  const table = findTable(engine, reference);
  if (table === undefined) throw tableNotFound(reference.name);
  return table;
}

export function tableBeingCreated(name: string): DynamoError {
  return resourceInUse(`Attempt to change a resource which is still in use: Table is being created: ${name}`);
}

/**
 * A change asked of a table that is UPDATING or DELETING (the texts of DynamoDB's answers to an
 * UpdateTable or DeleteTable then, as SDK and Terraform sources quote them).
 */
export function tableInTransition(name: string, status: 'UPDATING' | 'DELETING'): DynamoError {
  return resourceInUse(`Attempt to change a resource which is still in use: Table is being ${status === 'UPDATING' ? 'updated' : 'deleted'}: ${name}`);
}

// ---------------------------------------------------------------------------------------------
// Shared rules
// ---------------------------------------------------------------------------------------------

/** The shape allows any long >= 1; DynamoDB then refuses more than 10^12 units, reads first. */
export function checkThroughputBounds(throughput: ThroughputInput): void {
  for (const member of ['ReadCapacityUnits', 'WriteCapacityUnits'] as const) {
    if (throughput[member] > THROUGHPUT_UNITS_MAX) {
      throw validationError(`Given value ${throughput[member]} for ${member} is out of bounds`);
    }
  }
}

/** TableClass is no enum in DynamoDB's constraint phase; its own message comes later. */
export function tableClassOf(value: unknown): TableClass | undefined {
  if (value === undefined) return undefined;
  if (!(TABLE_CLASSES as readonly unknown[]).includes(value)) {
    throw validationError(
      `Invalid table-class parameter provided. Please try again with a valid table-class value: [${TABLE_CLASSES.join(', ')}].`,
    );
  }
  return value as TableClass;
}

export function checkSseSpecification(sse: SseSpecificationInput | undefined): void {
  if (sse === undefined) return;
  if (sse.Enabled !== true) {
    if (sse.SSEType !== undefined) throw validationError(INVALID + 'SSEType can not be specified if Enabled is false');
    if (sse.KMSMasterKeyId !== undefined) throw validationError(INVALID + 'KMSMasterKeyId can not be specified if Enabled is false');
    return;
  }
  if (sse.SSEType === 'AES256') throw validationError(INVALID + 'SSEType AES256 is not supported');
  if (sse.KMSMasterKeyId !== undefined && sse.SSEType !== 'KMS') {
    throw validationError(INVALID + 'SSEType KMS is required if KMSMasterKeyId is specified');
  }
}

/**
 * Request units must be positive; UpdateTable may also send -1, which removes the limit.
 * Returns the record to store (undefined when nothing is limited).
 */
export function onDemandThroughputOf(
  value: OnDemandThroughputRecord | undefined,
  allowRemoval: boolean,
): OnDemandThroughputRecord | undefined {
  if (value === undefined) return undefined;
  for (const member of ['MaxReadRequestUnits', 'MaxWriteRequestUnits'] as const) {
    const units = value[member];
    if (units === undefined || units >= 1 || (allowRemoval && units === -1)) continue;
    throw validationError(INVALID + `Requested ${member} for OnDemandThroughput for table is outside of valid range`);
  }
  return value;
}

/** On-demand limits belong to PAY_PER_REQUEST tables. */
export function rejectOnDemandThroughputWhenProvisioned(value: OnDemandThroughputRecord | undefined): void {
  if (value === undefined) return;
  const member = value.MaxReadRequestUnits !== undefined ? 'MaxReadRequestUnits' : 'MaxWriteRequestUnits';
  if (value[member] === undefined) return;
  throw validationError(INVALID + `${member} for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED`);
}

export const TAGS_PER_RESOURCE_MAX = 50;
/** AWS's tag character set: letters, digits, white space and _ . : / = + - @ */
const TAG_TEXT_PATTERN = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;

/** Checks the tags of one request (CreateTable, TagResource) in DynamoDB's order. */
export function checkTags(tags: readonly TagInput[]): Tag[] {
  const seen = new Set<string>();
  const result: Tag[] = [];
  for (const tag of tags) {
    if (!TAG_TEXT_PATTERN.test(tag.Key)) throw validationError(`The Tag Key provided is invalid, Key: ${tag.Key}`);
    if (tag.Key.toLowerCase().startsWith('aws:')) throw validationError(`Tag Key cannot be prefixed with aws:, Key: ${tag.Key}`);
    if (tag.Value === undefined || !TAG_TEXT_PATTERN.test(tag.Value)) {
      throw validationError(`The Tag Value provided is invalid, Value: ${tag.Value ?? 'null'}`);
    }
    if (seen.has(tag.Key)) throw validationError(`Duplicate Tag Keys provided as input: Duplicate Tag Key found ${tag.Key}`);
    seen.add(tag.Key);
    result.push({ Key: tag.Key, Value: tag.Value });
  }
  return result;
}

/** Adds or overwrites tags (in place, keeping first-set order); fails past the per-resource limit. */
export function mergeTags(current: readonly Tag[], added: readonly Tag[]): Tag[] {
  const merged = new Map(current.map((tag) => [tag.Key, tag.Value]));
  for (const tag of added) merged.set(tag.Key, tag.Value);
  if (merged.size > TAGS_PER_RESOURCE_MAX) {
    throw validationError('Number of Tags exceed the current limit for the provided ResourceArn');
  }
  return [...merged].map(([Key, Value]) => ({ Key, Value }));
}

/** On-demand tables keep a zero record, so a later switch to PROVISIONED starts from a clean count. */
export function throughputRecordOf(throughput: ThroughputInput | undefined, nowMs: number): ThroughputRecord {
  return {
    readCapacityUnits: throughput?.ReadCapacityUnits ?? 0,
    writeCapacityUnits: throughput?.WriteCapacityUnits ?? 0,
    decreasesToday: 0,
    decreasesDay: utcDayOf(nowMs),
  };
}

/** DynamoDB labels a stream with its creation time, ISO 8601 without the zone: 2024-04-08T02:42:49.123. */
export function streamLabelAt(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, -1);
}

// ---------------------------------------------------------------------------------------------
// Key schemas and projections (CreateTable, and index creation in UpdateTable)
// ---------------------------------------------------------------------------------------------

export const GLOBAL_INDEXES_MAX = 20;
const PROJECTED_ATTRIBUTES_MAX = 100;

export interface KeySchemaElementInput {
  readonly AttributeName: string;
  readonly KeyType: string;
}

export interface ProjectionInput {
  readonly ProjectionType?: Projection['ProjectionType'];
  readonly NonKeyAttributes?: readonly string[];
}

/**
 * The rules a table's and every index's key schema share: defined, distinct, HASH then RANGE. A
 * GSI's (`multiAttribute`) may have up to four HASH elements followed by up to four RANGE ones
 * (DynamoDB's multi-attribute keys, November 2025); texts as recorded against DynamoDB
 * (docs/CONFORMANCE.md lists the two that are not).
 */
export function checkKeySchema(keySchema: readonly KeySchemaElementInput[], definitionNames: readonly string[], multiAttribute = false): void {
  const keyNames = keySchema.map((element) => element.AttributeName);
  // A GSI's key schema has no length constraint: a Set keeps a long one's check linear.
  const defined = new Set(definitionNames);
  if (keyNames.some((name) => !defined.has(name))) {
    throw validationError(
      INVALID +
        'Some index key attributes are not defined in AttributeDefinitions. ' +
        `Keys: [${keyNames.join(', ')}], AttributeDefinitions: [${definitionNames.join(', ')}]`,
    );
  }
  const hashAndRange = keySchema.length === 2 && keySchema[1]!.KeyType !== 'HASH';
  if (keyNames.length === 2 && keyNames[0] === keyNames[1] && (hashAndRange || !multiAttribute)) {
    throw validationError('Both the Hash Key and the Range Key element in the KeySchema have the same name');
  }
  if (multiAttribute && new Set(keyNames).size !== keyNames.length) {
    throw validationError('The KeySchema contains multiple key attributes with the same name');
  }
  if (keySchema[0]!.KeyType !== 'HASH') throw validationError('Invalid KeySchema: The first KeySchemaElement is not a HASH key type');
  if (!multiAttribute) {
    if (keySchema.length === 2 && keySchema[1]!.KeyType !== 'RANGE') {
      throw validationError('Invalid KeySchema: The second KeySchemaElement is not a RANGE key type');
    }
    return;
  }
  checkMultiAttributeRoles(keySchema);
}

/** HASH elements first, then RANGE ones, at most four of each. */
function checkMultiAttributeRoles(keySchema: readonly KeySchemaElementInput[]): void {
  let hashes = 0;
  let ranges = 0;
  for (let at = 0; at < keySchema.length; at++) {
    const type = keySchema[at]!.KeyType;
    if (type === 'HASH') {
      if (ranges > 0) throw validationError(INVALID + 'All HASH key attributes must precede RANGE key attributes in the KeySchema');
      hashes++;
    } else if (type === 'RANGE') {
      ranges++;
    } else {
      // The index KeyType is no enum in the constraint phase (keySchemaMember): a text of ours.
      throw validationError(`Invalid KeySchema: KeySchemaElement ${at + 1} is neither a HASH nor a RANGE key type`);
    }
  }
  if (hashes > KEY_ATTRIBUTES_PER_ROLE_MAX) throw validationError(INVALID + 'The KeySchema exceeds the maximum allowed number of HASH key attributes');
  if (ranges > KEY_ATTRIBUTES_PER_ROLE_MAX) throw validationError(INVALID + 'The KeySchema exceeds the maximum allowed number of RANGE key attributes');
}

/** NonKeyAttributes belong to INCLUDE projections, and only there. */
export function checkProjection(projection: ProjectionInput): Projection {
  const type = projection.ProjectionType;
  if (type === undefined) throw validationError(INVALID + 'Unknown ProjectionType: null');
  const nonKeyAttributes = projection.NonKeyAttributes;
  if (nonKeyAttributes !== undefined && type !== 'INCLUDE') {
    throw validationError(INVALID + `ProjectionType is ${type}, but NonKeyAttributes is specified`);
  }
  if (type !== 'INCLUDE') return { ProjectionType: type };
  if (nonKeyAttributes === undefined) {
    throw validationError(INVALID + 'ProjectionType is INCLUDE, but NonKeyAttributes is not specified');
  }
  const seen = new Set<string>();
  for (const name of nonKeyAttributes) {
    if (seen.has(name)) throw validationError(INVALID + `Duplicate element in NonKeyAttributes: ${name}`);
    seen.add(name);
  }
  return { ProjectionType: type, NonKeyAttributes: [...nonKeyAttributes] };
}

/** The same attribute projected into two indexes counts twice. */
export function checkProjectedAttributeTotal(projections: readonly Projection[]): void {
  let total = 0;
  for (const projection of projections) total += projection.NonKeyAttributes?.length ?? 0;
  if (total > PROJECTED_ATTRIBUTES_MAX) {
    throw validationError(INVALID + `Number of projected attributes in all indexes exceeds limit of ${PROJECTED_ATTRIBUTES_MAX}`);
  }
}

export function keySchemaOf(keySchema: readonly KeySchemaElementInput[]): KeySchemaElement[] {
  return keySchema.map((element) => ({ AttributeName: element.AttributeName, KeyType: element.KeyType as KeySchemaElement['KeyType'] }));
}

// ---------------------------------------------------------------------------------------------
// Resource ARNs (the tagging operations)
// ---------------------------------------------------------------------------------------------

/** DynamoDB's ResourceArnString: 1..1283 characters. */
export const resourceArnMember: Member = shapes.string({ lengthMin: 1, lengthMax: 1283 });

export interface ResourceReference {
  readonly arn: string;
  readonly region: string;
  readonly accountId: string;
  readonly tableName: string;
  /** A stream ARN is a valid resource, but dynatwin keeps no tags on streams. */
  readonly isStream: boolean;
}

/** Checks a ResourceArn's form (no engine needed), in DynamoDB's order and wording. */
export function resourceReferenceOf(value: string | undefined): ResourceReference {
  if (value === undefined) throw validationError('Invalid TableArn');
  if (!value.startsWith('arn:')) throw validationError(INVALID + `ARNs must start with 'arn:': ${value}`);
  const parts = value.split(':');
  if (parts.length < 6 || parts[2] !== 'dynamodb') throw validationError(INVALID + `Provided Arn is not a DynamoDB resource arn: ${value}`);
  const resource = parts.slice(5).join(':');
  const segments = resource.startsWith('table/') ? resource.slice('table/'.length).split('/') : [];
  const isTable = segments.length === 1;
  const isStream = segments.length === 3 && segments[1] === 'stream';
  if (!isTable && !isStream) {
    throw validationError(INVALID + `Invalid resource arn provided, only table or stream is accepted. Provided resource arn: ${value}`);
  }
  const tableName = segments[0]!;
  if (!/^[a-zA-Z0-9_.-]{3,255}$/.test(tableName)) throw invalidTableArn(value);
  return { arn: value, region: parts[3]!, accountId: parts[4]!, tableName, isStream };
}

function invalidTableArn(arn: string): DynamoError {
  return validationError(`Invalid TableArn: Invalid ResourceArn provided as input ${arn}`);
}

/**
 * The tagged table. Checked as DynamoDB checks (verified against it by ExtendDB/extenddb#227): an
 * ARN of another account is AccessDeniedException (before the region is looked at), another region
 * an invalid TableArn, an unknown table not found.
 */
export function requireResourceTable(engine: Engine, reference: ResourceReference, notFoundMessage: string, action: string): Table {
  if (reference.accountId !== engine.settings.accountId) {
    throw coralServiceError(
      'AccessDeniedException',
      `User: arn:aws:iam::${engine.settings.accountId}:root is not authorized to perform: dynamodb:${action} on resource: ${reference.arn} because no resource-based policy allows the dynamodb:${action} action`,
    );
  }
  if (reference.region !== engine.settings.region) throw invalidTableArn(reference.arn);
  const table = reference.isStream ? undefined : engine.catalog.get(reference.tableName);
  if (table === undefined) throw resourceNotFound(notFoundMessage);
  return table;
}
