/**
 * CreateTable: checks a table definition as DynamoDB does (key schema against attribute
 * definitions, billing mode against throughput, index rules, streams, tags) and creates the table,
 * CREATING until `tableCreateDelayMs` has passed on the injected clock.
 */
import { randomUUID } from 'node:crypto';
import { describeTable } from '../engine/describe.js';
import type { Engine } from '../engine/engine.js';
import type {
  AttributeDefinition,
  IndexRecord,
  KeySchemaElement,
  OnDemandThroughputRecord,
  WarmThroughputRecord,
  Projection,
  StreamSpecificationRecord,
  TableRecord,
  Tag,
} from '../engine/table.js';
import { limitExceeded, resourceInUse, validationError } from '../errors.js';
import {
  attributeDefinitionsMember,
  checkSseSpecification,
  checkTags,
  checkKeySchema,
  checkProjectedAttributeTotal,
  checkProjection,
  checkThroughputBounds,
  classicTableNameMember,
  GLOBAL_INDEXES_MAX,
  indexNameConstraints,
  INVALID,
  globalKeySchemaMember,
  keySchemaMember,
  keySchemaOf,
  mergeTags,
  onDemandThroughputMember,
  onDemandThroughputOf,
  projectionMember,
  provisionedThroughputMember,
  rejectOnDemandThroughputWhenProvisioned,
  sseSpecificationMember,
  streamLabelAt,
  streamSpecificationMember,
  tableClassOf,
  tagsMember,
  throughputRecordOf,
  warmThroughputMember,
  type KeySchemaElementInput,
  type ProjectionInput,
  type SseSpecificationInput,
  type StreamSpecificationInput,
  type TableClass,
  type TagInput,
  type ThroughputInput,
} from './control-plane-common.js';
import type { IdAllocator } from '../engine/catalog.js';
import { checkWarmAtCreation, checkWarmMaximum, warmThroughputOf, type UnitsPerDirection } from './warm-throughput.js';
import { defineOperation } from './operation.js';
import { checkPolicyDocument } from './resource-policy-common.js';
import { shapes } from './shape.js';

/** DynamoDB's default quota of tables per account and Region (a soft quota of 2,500). */
export const TABLES_PER_REGION_MAX = 2500;

const LOCAL_INDEXES_MAX = 5;

type BillingMode = TableRecord['billingMode'];

interface IndexInput {
  readonly IndexName: string;
  readonly KeySchema: readonly KeySchemaElementInput[];
  readonly Projection: ProjectionInput;
  readonly ProvisionedThroughput?: ThroughputInput;
  readonly OnDemandThroughput?: OnDemandThroughputRecord;
  readonly WarmThroughput?: WarmThroughputRecord;
}

/** An index as validated: everything its record needs but the clock. */
interface IndexDefinition {
  readonly name: string;
  readonly keySchema: readonly KeySchemaElement[];
  readonly projection: Projection;
  readonly throughput: ThroughputInput | undefined;
  readonly onDemandThroughput: OnDemandThroughputRecord | undefined;
  readonly warmThroughput: WarmThroughputRecord | undefined;
}

interface CreateTableRequest {
  readonly name: string;
  readonly attributeDefinitions: readonly AttributeDefinition[];
  readonly keySchema: readonly KeySchemaElement[];
  readonly billingMode: BillingMode;
  readonly throughput: ThroughputInput | undefined;
  readonly onDemandThroughput: OnDemandThroughputRecord | undefined;
  readonly warmThroughput: WarmThroughputRecord | undefined;
  readonly localSecondaryIndexes: readonly IndexDefinition[];
  readonly globalSecondaryIndexes: readonly IndexDefinition[];
  readonly streamSpecification: StreamSpecificationRecord | undefined;
  readonly tags: readonly Tag[];
  readonly tableClass: TableClass;
  readonly deletionProtectionEnabled: boolean;
  /** ResourcePolicy: stored as the table's resource-based policy (resource-policy-common.ts). */
  readonly resourcePolicy: string | undefined;
}

const localIndexMember = shapes.structure(
  'LocalSecondaryIndex',
  {
    IndexName: shapes.string(indexNameConstraints),
    KeySchema: keySchemaMember(false),
    Projection: projectionMember,
  },
  { notNull: true },
);

const globalIndexMember = shapes.structure(
  'GlobalSecondaryIndex',
  {
    IndexName: shapes.string(indexNameConstraints),
    KeySchema: globalKeySchemaMember,
    Projection: projectionMember,
    ProvisionedThroughput: provisionedThroughputMember,
    OnDemandThroughput: onDemandThroughputMember,
    WarmThroughput: warmThroughputMember,
  },
  { notNull: true },
);

export const createTableOperation = defineOperation<CreateTableRequest>({
  name: 'CreateTable',
  // Member order decides the order of "N validation errors detected" (dynalite's observations).
  members: {
    AttributeDefinitions: attributeDefinitionsMember,
    TableName: classicTableNameMember,
    BillingMode: shapes.string({ enumValues: ['PROVISIONED', 'PAY_PER_REQUEST'] }),
    ProvisionedThroughput: provisionedThroughputMember,
    KeySchema: keySchemaMember(true),
    LocalSecondaryIndexes: shapes.list(localIndexMember),
    GlobalSecondaryIndexes: shapes.list(globalIndexMember),
    StreamSpecification: streamSpecificationMember,
    SSESpecification: sseSpecificationMember,
    Tags: tagsMember,
    TableClass: shapes.string(),
    DeletionProtectionEnabled: shapes.boolean(),
    OnDemandThroughput: onDemandThroughputMember,
    WarmThroughput: warmThroughputMember,
    ResourcePolicy: shapes.string(),
  },

  validate(input) {
    const billingMode: BillingMode = input.BillingMode === 'PAY_PER_REQUEST' ? 'PAY_PER_REQUEST' : 'PROVISIONED';
    const throughput = checkBilling(billingMode, input.ProvisionedThroughput as ThroughputInput | undefined);
    const definitions = input.AttributeDefinitions as readonly AttributeDefinition[];
    const keySchema = input.KeySchema as readonly KeySchemaElementInput[];
    const localInputs = input.LocalSecondaryIndexes as readonly IndexInput[] | undefined;
    const globalInputs = input.GlobalSecondaryIndexes as readonly IndexInput[] | undefined;
    const hasIndexes = localInputs !== undefined || globalInputs !== undefined;
    const definitionNames = checkTableKey(definitions, keySchema, hasIndexes);
    const indexNames = new Set<string>();
    const localIndexes = checkLocalIndexes(localInputs, keySchema, definitionNames, indexNames);
    const globalIndexes = checkGlobalIndexes(globalInputs, billingMode, definitionNames, indexNames);
    checkProjectedAttributeTotal([...localIndexes, ...globalIndexes].map((index) => index.projection));
    if (hasIndexes) {
      checkAllDefinitionsUsed(definitionNames, [keySchema, ...[...localIndexes, ...globalIndexes].map((index) => index.keySchema)]);
    }
    return {
      name: input.TableName as string,
      attributeDefinitions: definitions.map((definition) => ({ AttributeName: definition.AttributeName, AttributeType: definition.AttributeType })),
      keySchema: keySchemaOf(keySchema),
      billingMode,
      throughput,
      localSecondaryIndexes: localIndexes,
      globalSecondaryIndexes: globalIndexes,
      ...checkTableSettings(input, billingMode),
      resourcePolicy: resourcePolicyOf(input.ResourcePolicy as string | undefined),
    };
  },

  async execute(engine, request) {
    const nowMs = engine.clock.nowMs();
    checkWarmMaximum(request.warmThroughput, 'table', engine.settings.region);
    for (const index of request.globalSecondaryIndexes) checkWarmMaximum(index.warmThroughput, { index: index.name }, engine.settings.region);
    const table = await engine.catalog.create(
      (ids) => tableRecordOf(engine, request, ids, nowMs),
      () => {
        if (engine.catalog.get(request.name) !== undefined) throw resourceInUse(`Table already exists: ${request.name}`);
        // DynamoDB's default tables-per-Region quota, with its wording.
        if (engine.catalog.size >= TABLES_PER_REGION_MAX) throw limitExceeded(`Subscriber limit exceeded: There is a limit of ${TABLES_PER_REGION_MAX} tables per subscriber`);
      },
    );
    // DynamoDB answers CREATING even when the table becomes usable at once.
    return { TableDescription: describeTable(table, nowMs, { status: 'CREATING' }) };
  },
});

// ---------------------------------------------------------------------------------------------
// Validation, in DynamoDB's order
// ---------------------------------------------------------------------------------------------

/** BillingMode and ProvisionedThroughput must agree; PROVISIONED is the default. */
function checkBilling(billingMode: BillingMode, throughput: ThroughputInput | undefined): ThroughputInput | undefined {
  if (billingMode === 'PAY_PER_REQUEST') {
    if (throughput !== undefined) {
      throw validationError(
        INVALID + 'Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST',
      );
    }
    return undefined;
  }
  if (throughput === undefined) {
    throw validationError(INVALID + 'ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED');
  }
  checkThroughputBounds(throughput);
  return throughput;
}

/** The table's own key against the definitions; returns the defined names, in request order. */
function checkTableKey(
  definitions: readonly AttributeDefinition[],
  keySchema: readonly KeySchemaElementInput[],
  hasIndexes: boolean,
): string[] {
  checkDuplicateDefinitions(definitions);
  const definitionNames = definitions.map((definition) => definition.AttributeName);
  if (keySchema.length > definitionNames.length) throw validationError('Invalid KeySchema: Some index key attribute have no definition');
  checkKeySchema(keySchema, definitionNames);
  // With indexes, unused definitions are reported later, naming them (checkAllDefinitionsUsed).
  if (!hasIndexes && keySchema.length !== definitions.length) {
    throw validationError(
      INVALID + 'Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions',
    );
  }
  return definitionNames;
}

function checkDuplicateDefinitions(definitions: readonly AttributeDefinition[]): void {
  const seen = new Set<string>();
  for (const definition of definitions) {
    if (seen.has(definition.AttributeName)) throw validationError(`Attribute Name is duplicated: ${definition.AttributeName}`);
    seen.add(definition.AttributeName);
  }
}

function checkLocalIndexes(
  inputs: readonly IndexInput[] | undefined,
  tableKeySchema: readonly KeySchemaElementInput[],
  definitionNames: readonly string[],
  indexNames: Set<string>,
): IndexDefinition[] {
  if (inputs === undefined) return [];
  if (inputs.length === 0) throw validationError(INVALID + 'List of LocalSecondaryIndexes is empty');
  if (tableKeySchema.length !== 2) {
    throw validationError(
      INVALID + 'Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex',
    );
  }
  const tableHash = tableKeySchema[0]!.AttributeName;
  const result = inputs.map((index) => {
    checkKeySchema(index.KeySchema, definitionNames);
    if (index.KeySchema.length !== 2) {
      throw validationError(INVALID + `Index KeySchema does not have a range key for index: ${index.IndexName}`);
    }
    const indexHash = index.KeySchema[0]!.AttributeName;
    if (indexHash !== tableHash) {
      throw validationError(
        INVALID +
          `Index KeySchema does not have the same leading hash key as table KeySchema for index: ${index.IndexName}. ` +
          `index hash key: ${indexHash}, table hash key: ${tableHash}`,
      );
    }
    const projection = checkProjection(index.Projection);
    claimIndexName(index.IndexName, indexNames);
    return indexDefinitionOf(index, projection, undefined);
  });
  if (inputs.length > LOCAL_INDEXES_MAX) {
    throw validationError(INVALID + `Number of LocalSecondaryIndexes exceeds per-table limit of ${LOCAL_INDEXES_MAX}`);
  }
  return result;
}

function checkGlobalIndexes(
  inputs: readonly IndexInput[] | undefined,
  billingMode: BillingMode,
  definitionNames: readonly string[],
  indexNames: Set<string>,
): IndexDefinition[] {
  if (inputs === undefined) return [];
  if (inputs.length === 0) throw validationError(INVALID + 'List of GlobalSecondaryIndexes is empty');
  const result = inputs.map((index) => {
    checkKeySchema(index.KeySchema, definitionNames, true);
    const projection = checkProjection(index.Projection);
    const throughput = index.ProvisionedThroughput;
    if (billingMode === 'PAY_PER_REQUEST' && throughput !== undefined) {
      throw validationError(
        INVALID + `ProvisionedThroughput should not be specified for index: ${index.IndexName} when BillingMode is PAY_PER_REQUEST`,
      );
    }
    if (billingMode === 'PROVISIONED' && throughput === undefined) {
      throw validationError(INVALID + `ProvisionedThroughput is not specified for index: ${index.IndexName}`);
    }
    claimIndexName(index.IndexName, indexNames);
    const definition = indexDefinitionOf(index, projection, throughput);
    checkWarmAtCreation(definition.warmThroughput, { index: index.IndexName }, provisionedUnits(throughput, billingMode));
    return definition;
  });
  if (inputs.length > GLOBAL_INDEXES_MAX) {
    throw validationError(INVALID + `GlobalSecondaryIndex count exceeds the per-table limit of ${GLOBAL_INDEXES_MAX}`);
  }
  return result;
}

/** LSI and GSI names share one namespace per table. */
function claimIndexName(name: string, indexNames: Set<string>): void {
  if (indexNames.has(name)) throw validationError(INVALID + `Duplicate index name: ${name}`);
  indexNames.add(name);
}

/** With indexes, every definition must key the table or some index. */
function checkAllDefinitionsUsed(definitionNames: readonly string[], keySchemas: readonly (readonly KeySchemaElementInput[])[]): void {
  const used: string[] = [];
  for (const keySchema of keySchemas) {
    for (const element of keySchema) if (!used.includes(element.AttributeName)) used.push(element.AttributeName);
  }
  if (definitionNames.every((name) => used.includes(name))) return;
  throw validationError(
    INVALID + `Some AttributeDefinitions are not used. AttributeDefinitions: [${definitionNames.join(', ')}], keys used: [${used.join(', ')}]`,
  );
}

/** A stream needs a view type exactly when it is enabled. */
function checkStreamSpecification(specification: StreamSpecificationInput | undefined): StreamSpecificationRecord | undefined {
  if (specification === undefined) return undefined;
  const viewType = specification.StreamViewType;
  if (specification.StreamEnabled) {
    if (viewType === undefined) {
      throw validationError(INVALID + 'Table is being created with a stream enabled, UpdateViewType is required');
    }
    return { StreamEnabled: true, StreamViewType: viewType };
  }
  if (viewType !== undefined) {
    throw validationError(INVALID + 'Table is being created with a stream disabled, UpdateViewType should not be specified');
  }
  // A disabled stream at creation is the same as none.
  return undefined;
}

type TableSettings = Pick<CreateTableRequest, 'streamSpecification' | 'tags' | 'tableClass' | 'deletionProtectionEnabled' | 'onDemandThroughput' | 'warmThroughput'>;

/** The members checked after the keys and indexes: stream, encryption, class, tags, on-demand limits. */
function checkTableSettings(input: Record<string, unknown>, billingMode: BillingMode): TableSettings {
  const streamSpecification = checkStreamSpecification(input.StreamSpecification as StreamSpecificationInput | undefined);
  checkSseSpecification(input.SSESpecification as SseSpecificationInput | undefined);
  const tableClass = tableClassOf(input.TableClass) ?? 'STANDARD';
  const tags = mergeTags([], checkTags((input.Tags as readonly TagInput[] | undefined) ?? []));
  const onDemandThroughput = onDemandThroughputOf(input.OnDemandThroughput as OnDemandThroughputRecord | undefined, false);
  if (billingMode === 'PROVISIONED') rejectOnDemandThroughputWhenProvisioned(onDemandThroughput);
  const warmThroughput = warmThroughputOf(input.WarmThroughput as WarmThroughputRecord | undefined);
  checkWarmAtCreation(warmThroughput, 'table', provisionedUnits(input.ProvisionedThroughput as ThroughputInput | undefined, billingMode));
  return { streamSpecification, tags, tableClass, deletionProtectionEnabled: input.DeletionProtectionEnabled === true, onDemandThroughput, warmThroughput };
}

function indexDefinitionOf(index: IndexInput, projection: Projection, throughput: ThroughputInput | undefined): IndexDefinition {
  return {
    name: index.IndexName,
    keySchema: keySchemaOf(index.KeySchema),
    projection,
    throughput,
    onDemandThroughput: index.OnDemandThroughput,
    warmThroughput: warmThroughputOf(index.WarmThroughput),
  };
}

/** What a provisioned table or GSI is warm to at creation (undefined: on-demand, warm to its initial throughput). */
function provisionedUnits(throughput: ThroughputInput | undefined, billingMode: BillingMode): UnitsPerDirection | undefined {
  if (billingMode === 'PAY_PER_REQUEST' || throughput === undefined) return undefined;
  return { read: throughput.ReadCapacityUnits, write: throughput.WriteCapacityUnits };
}

// ---------------------------------------------------------------------------------------------
// The new record
// ---------------------------------------------------------------------------------------------

function tableRecordOf(engine: Engine, request: CreateTableRequest, ids: IdAllocator, nowMs: number): TableRecord {
  const onDemand = request.billingMode === 'PAY_PER_REQUEST';
  return {
    id: ids.next(),
    name: request.name,
    tableId: randomUUID(),
    arn: engine.tableArn(request.name),
    createdAtMs: nowMs,
    attributeDefinitions: request.attributeDefinitions,
    keySchema: request.keySchema,
    billingMode: request.billingMode,
    ...(onDemand ? { billingModeChangedAtMs: nowMs } : {}),
    throughput: throughputRecordOf(request.throughput, nowMs),
    ...(request.onDemandThroughput === undefined ? {} : { onDemandThroughput: request.onDemandThroughput }),
    ...(request.warmThroughput === undefined ? {} : { warmThroughput: request.warmThroughput }),
    globalSecondaryIndexes: request.globalSecondaryIndexes.map((index) => indexRecordOf(index, ids.next(), nowMs)),
    localSecondaryIndexes: request.localSecondaryIndexes.map((index) => indexRecordOf(index, ids.next(), nowMs)),
    ...(request.streamSpecification === undefined
      ? {}
      : { streamSpecification: request.streamSpecification, latestStreamLabel: streamLabelAt(nowMs) }),
    tags: request.tags,
    timeToLive: { status: 'DISABLED' },
    deletionProtectionEnabled: request.deletionProtectionEnabled,
    tableClass: request.tableClass,
    activeAtMs: nowMs + engine.settings.tableCreateDelayMs,
    ...(request.resourcePolicy === undefined ? {} : { resourcePolicies: { '': { policy: request.resourcePolicy, revisionId: String(Math.floor(nowMs)) } } }),
  };
}

function resourcePolicyOf(policy: string | undefined): string | undefined {
  if (policy !== undefined) checkPolicyDocument(policy);
  return policy;
}

function indexRecordOf(index: IndexDefinition, id: number, nowMs: number): IndexRecord {
  return {
    id,
    name: index.name,
    keySchema: index.keySchema,
    projection: index.projection,
    ...(index.throughput === undefined ? {} : { throughput: throughputRecordOf(index.throughput, nowMs) }),
    ...(index.onDemandThroughput === undefined ? {} : { onDemandThroughput: index.onDemandThroughput }),
    ...(index.warmThroughput === undefined ? {} : { warmThroughput: index.warmThroughput }),
    status: 'ACTIVE',
  };
}
