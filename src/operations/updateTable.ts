/**
 * UpdateTable: provisioned throughput (table and global indexes), billing mode switches, streams,
 * table class, deletion protection, on-demand limits, and online global secondary index changes.
 * Changes apply at once; the answer says UPDATING for capacity, stream, class and index changes,
 * as DynamoDB's does, and with an update delay (`--table-update-delay`) the table stays UPDATING
 * that long on the injected clock (a second UpdateTable or a DeleteTable meanwhile is refused as
 * DynamoDB refuses them), a new GSI CREATING at least as long.
 *
 * A GSI Create adds the index as CREATING with Backfilling true and starts its backfill in the
 * background (engine/backfill.ts); it becomes ACTIVE once every existing item is indexed. A Delete
 * marks the index DELETING; its entries are removed in the background, then the index itself.
 * DynamoDB allows one such change at a time per table.
 */
import type { IdAllocator } from '../engine/catalog.js';
import { decreasesToday, describeTable, MS_PER_DAY, tableStatusAt, utcDayOf, type TableStatus } from '../engine/describe.js';
import type { Engine } from '../engine/engine.js';
import type {
  AttributeDefinition,
  IndexRecord,
  OnDemandThroughputRecord,
  WarmThroughputRecord,
  Projection,
  StreamSpecificationRecord,
  Table,
  TableRecord,
  ThroughputRecord,
} from '../engine/table.js';
import { limitExceeded, resourceNotFound, validationError } from '../errors.js';
import {
  checkKeySchema,
  checkProjectedAttributeTotal,
  checkProjection,
  checkSseSpecification,
  checkThroughputBounds,
  GLOBAL_INDEXES_MAX,
  indexNameConstraints,
  INVALID,
  globalKeySchemaMember,
  keySchemaOf,
  onDemandThroughputMember,
  onDemandThroughputOf,
  projectionMember,
  provisionedThroughputMember,
  rejectOnDemandThroughputWhenProvisioned,
  requireTable,
  sseSpecificationMember,
  streamLabelAt,
  streamSpecificationMember,
  tableBeingCreated,
  tableClassOf,
  tableInTransition,
  tableNameOrArnMember,
  tableReferenceOf,
  throughputRecordOf,
  THROUGHPUT_UNITS_MAX,
  warmThroughputMember,
  type KeySchemaElementInput,
  type ProjectionInput,
  type SseSpecificationInput,
  type StreamSpecificationInput,
  type TableClass,
  type TableReference,
  type ThroughputInput,
} from './control-plane-common.js';
import { checkWarmMaximum, checkWarmNotLower, indexWarmUpdateOf, raisedWarmThroughput, warmThroughputOf, WARM_UNITS_PER_SECOND_MAX, type UnitsPerDirection } from './warm-throughput.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';

/** LimitExceededException texts (a third-party catalogue of messages probed from DynamoDB). */
const ONE_ONLINE_INDEX = 'Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table';
const TOO_MANY_GLOBAL_INDEXES = `Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of ${GLOBAL_INDEXES_MAX}`;

type BillingMode = TableRecord['billingMode'];

/** Throughput, on-demand limits or warm throughput for one existing global secondary index. */
interface IndexThroughputUpdate {
  readonly name: string;
  readonly throughput: ThroughputInput | undefined;
  readonly onDemandThroughput: OnDemandThroughputRecord | undefined;
  readonly warmThroughput: WarmThroughputRecord | undefined;
}

/** A GSI to add, as checked without the table. */
interface IndexCreate {
  readonly name: string;
  readonly keySchema: readonly KeySchemaElementInput[];
  readonly projection: Projection;
  readonly throughput: ThroughputInput | undefined;
  readonly onDemandThroughput: OnDemandThroughputRecord | undefined;
}

interface UpdateTableRequest {
  readonly reference: TableReference;
  readonly billingMode: BillingMode | undefined;
  readonly throughput: ThroughputInput | undefined;
  readonly indexUpdates: readonly IndexThroughputUpdate[];
  readonly indexCreates: readonly IndexCreate[];
  readonly indexDeletes: readonly string[];
  /** Only consulted for the key attributes of an index being created. */
  readonly attributeDefinitions: readonly AttributeDefinition[];
  readonly streamSpecification: StreamSpecificationInput | undefined;
  readonly tableClass: TableClass | undefined;
  readonly deletionProtectionEnabled: boolean | undefined;
  readonly onDemandThroughput: OnDemandThroughputRecord | undefined;
  readonly warmThroughput: WarmThroughputRecord | undefined;
}

interface GlobalIndexUpdateInput {
  readonly Update?: {
    readonly IndexName: string;
    readonly ProvisionedThroughput?: ThroughputInput;
    readonly OnDemandThroughput?: OnDemandThroughputRecord;
    readonly WarmThroughput?: WarmThroughputRecord;
  };
  readonly Create?: {
    readonly IndexName: string;
    readonly KeySchema: readonly KeySchemaElementInput[];
    readonly Projection: ProjectionInput;
    readonly ProvisionedThroughput?: ThroughputInput;
    readonly OnDemandThroughput?: OnDemandThroughputRecord;
  };
  readonly Delete?: { readonly IndexName: string };
}

/** GlobalSecondaryIndexUpdates sorted by action. */
interface IndexChanges {
  readonly updates: IndexThroughputUpdate[];
  readonly creates: IndexCreate[];
  readonly deletes: string[];
}

/** The members that ask for a change; AttributeDefinitions only accompanies an index creation. */
const CHANGE_MEMBERS = [
  'ProvisionedThroughput',
  'BillingMode',
  'GlobalSecondaryIndexUpdates',
  'StreamSpecification',
  'SSESpecification',
  'ReplicaUpdates',
  'TableClass',
  'DeletionProtectionEnabled',
  'OnDemandThroughput',
  'WarmThroughput',
] as const;
type ChangeMember = (typeof CHANGE_MEMBERS)[number];

const NOTHING_TO_UPDATE =
  'At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, ' +
  'ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, DeletionProtectionEnabled, ' +
  'OnDemandThroughput, WarmThroughput or TableClass is required';

/** Changes DynamoDB only accepts alone in a request, with the text it refuses company with. */
const SOLE_CHANGES: readonly (readonly [ChangeMember, string])[] = [
  ['SSESpecification', INVALID + 'Server-Side Encryption modification must be the only operation in the request'],
  ['TableClass', INVALID + 'TableClass modification must be the only operation in the request'],
  ['DeletionProtectionEnabled', INVALID + 'DeletionProtection modification must be the only operation in the request'],
  ['WarmThroughput', INVALID + 'WarmThroughput must be the only operation in the request'],
];

const indexThroughputMembers = {
  IndexName: shapes.string(indexNameConstraints),
  ProvisionedThroughput: provisionedThroughputMember,
  OnDemandThroughput: onDemandThroughputMember,
  WarmThroughput: warmThroughputMember,
};

const globalIndexUpdateMember = shapes.structure(
  'GlobalSecondaryIndexUpdate',
  {
    Update: shapes.structure('UpdateGlobalSecondaryIndexAction', indexThroughputMembers),
    Create: shapes.structure('CreateGlobalSecondaryIndexAction', {
      Projection: projectionMember,
      ...indexThroughputMembers,
      KeySchema: globalKeySchemaMember,
    }),
    Delete: shapes.structure('DeleteGlobalSecondaryIndexAction', { IndexName: shapes.string(indexNameConstraints) }),
  },
  { notNull: true },
);

export const updateTableOperation = defineOperation<UpdateTableRequest>({
  name: 'UpdateTable',
  members: {
    TableName: tableNameOrArnMember,
    ProvisionedThroughput: provisionedThroughputMember,
    BillingMode: shapes.string({ enumValues: ['PROVISIONED', 'PAY_PER_REQUEST'] }),
    GlobalSecondaryIndexUpdates: shapes.list(globalIndexUpdateMember),
    AttributeDefinitions: shapes.list(
      shapes.structure(
        'AttributeDefinition',
        {
          AttributeName: shapes.string({ notNull: true, lengthMin: 1, lengthMax: 255 }),
          AttributeType: shapes.string({ notNull: true, enumValues: ['B', 'N', 'S'] }),
        },
        { notNull: true },
      ),
    ),
    StreamSpecification: streamSpecificationMember,
    SSESpecification: sseSpecificationMember,
    // Replicas (global tables) are not modelled; the member is known so the refusal can name it.
    ReplicaUpdates: shapes.list(shapes.structure('ReplicationGroupUpdate', {}), { lengthMin: 1 }),
    TableClass: shapes.string(),
    DeletionProtectionEnabled: shapes.boolean(),
    OnDemandThroughput: onDemandThroughputMember,
    WarmThroughput: warmThroughputMember,
  },

  validate(input) {
    const reference = tableReferenceOf(input.TableName as string);
    const changes = changesIn(input);
    if (changes.length === 0) throw validationError(NOTHING_TO_UPDATE);
    const throughput = input.ProvisionedThroughput as ThroughputInput | undefined;
    if (input.BillingMode === 'PROVISIONED' && throughput === undefined) {
      throw validationError(INVALID + 'ProvisionedThroughput must be specified when BillingMode is PROVISIONED');
    }
    if (throughput !== undefined) checkThroughputBounds(throughput);
    const attributeDefinitions = input.AttributeDefinitions as readonly AttributeDefinition[] | undefined;
    const indexChanges = checkGlobalIndexUpdates(input.GlobalSecondaryIndexUpdates as readonly GlobalIndexUpdateInput[] | undefined, attributeDefinitions);
    checkCombination(changes, indexChanges);
    if (input.ReplicaUpdates !== undefined) throw validationError('dynatwin does not support ReplicaUpdates (global tables) yet');
    const streamSpecification = checkStreamUpdate(input.StreamSpecification as StreamSpecificationInput | undefined);
    checkSseSpecification(input.SSESpecification as SseSpecificationInput | undefined);
    checkOnlineIndexChange(indexChanges, throughput, streamSpecification);
    return {
      reference,
      billingMode: input.BillingMode as BillingMode | undefined,
      throughput,
      indexUpdates: indexChanges.updates,
      indexCreates: indexChanges.creates,
      indexDeletes: indexChanges.deletes,
      attributeDefinitions: attributeDefinitions ?? [],
      streamSpecification,
      tableClass: tableClassOf(input.TableClass),
      deletionProtectionEnabled: input.DeletionProtectionEnabled as boolean | undefined,
      onDemandThroughput: onDemandThroughputOf(input.OnDemandThroughput as OnDemandThroughputRecord | undefined, true),
      warmThroughput: warmThroughputOf(input.WarmThroughput as WarmThroughputRecord | undefined),
    };
  },

  async execute(engine, request) {
    const nowMs = engine.clock.nowMs();
    requireTable(engine, request.reference);
    checkOnDemandMaximum(request, engine.settings.region);
    const delayMs = engine.settings.tableUpdateDelayMs ?? 0;
    const updated = await engine.catalog.update(request.reference.name, (current, ids) => {
      const record = updatedRecord(current.record, request, nowMs, delayMs, ids);
      // Against the warm throughput the table reports now (the new record is not applied yet).
      checkWarmUpdates(current, request, engine.settings.region);
      return record;
    });
    startIndexWork(engine, updated, request);
    // A deleted GSI's metrics, heat-map history and Contributor Insights rule go with it, as a
    // deleted table's do: a GSI created later under the same name starts from nothing.
    for (const name of request.indexDeletes) engine.telemetry.dropIndex(updated.name, name);
    return {
      TableDescription: describeTable(updated, nowMs, { status: answeredStatus(updated.record, request, nowMs), warmUpdating: warmUpdating(request) }),
    };
  },
});

/** A created index is backfilled, a deleted one emptied, in the background. */
function startIndexWork(engine: Engine, table: Table, request: UpdateTableRequest): void {
  for (const name of [...request.indexCreates.map((create) => create.name), ...request.indexDeletes]) {
    const index = table.indexes.find(name);
    if (index !== undefined) engine.indexTasks.resume(table, index);
  }
}

// ---------------------------------------------------------------------------------------------
// Validation (pure)
// ---------------------------------------------------------------------------------------------

function changesIn(input: Record<string, unknown>): ChangeMember[] {
  return CHANGE_MEMBERS.filter((member) => {
    const value = input[member];
    // An empty index update list asks for nothing; nor does an empty WarmThroughput (warm-throughput.ts).
    if (member === 'WarmThroughput') return warmThroughputOf(value as WarmThroughputRecord | undefined) !== undefined;
    return value !== undefined && !(member === 'GlobalSecondaryIndexUpdates' && (value as unknown[]).length === 0);
  });
}

function checkGlobalIndexUpdates(
  updates: readonly GlobalIndexUpdateInput[] | undefined,
  attributeDefinitions: readonly AttributeDefinition[] | undefined,
): IndexChanges {
  const changes: IndexChanges = { updates: [], creates: [], deletes: [] };
  if (updates === undefined) return changes;
  if (updates.length === 0) throw validationError(INVALID + 'List of GlobalSecondaryIndexUpdates is empty');
  const names = new Set<string>();
  for (const update of updates) {
    const actions = [update.Update, update.Create, update.Delete].filter((action) => action !== undefined);
    if (actions.length === 0) {
      throw validationError(
        INVALID +
          'One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null',
      );
    }
    if (actions.length > 1) {
      throw validationError(INVALID + 'Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object');
    }
    const name = actions[0]!.IndexName;
    if (names.has(name)) {
      throw validationError(INVALID + `Only one global secondary index update per index is allowed simultaneously. Index: ${name}`);
    }
    names.add(name);
    if (update.Update !== undefined) changes.updates.push(indexThroughputUpdateOf(update.Update));
    if (update.Create !== undefined) changes.creates.push(indexCreateOf(update.Create, attributeDefinitions));
    if (update.Delete !== undefined) changes.deletes.push(name);
  }
  return changes;
}

/** The parts of a Create that need no table: projection, definitions given, throughput bounds. */
function indexCreateOf(create: NonNullable<GlobalIndexUpdateInput['Create']>, attributeDefinitions: readonly AttributeDefinition[] | undefined): IndexCreate {
  const projection = checkProjection(create.Projection);
  if (attributeDefinitions === undefined) {
    throw validationError(INVALID + `AttributeDefinitions is not specified for index: ${create.IndexName}`);
  }
  if (create.ProvisionedThroughput !== undefined) checkThroughputBounds(create.ProvisionedThroughput);
  return {
    name: create.IndexName,
    keySchema: create.KeySchema,
    projection,
    throughput: create.ProvisionedThroughput,
    onDemandThroughput: onDemandThroughputOf(create.OnDemandThroughput, false),
  };
}

/**
 * One index may be created or deleted per request, and not alongside a table capacity or stream
 * change (DynamoDB answers the former with LimitExceededException).
 */
function checkOnlineIndexChange(changes: IndexChanges, throughput: ThroughputInput | undefined, stream: StreamSpecificationInput | undefined): void {
  const online = changes.creates.length + changes.deletes.length;
  if (online === 0) return;
  if (throughput !== undefined) throw validationError('You cannot create or delete index while updating table IOPS');
  if (stream !== undefined) throw validationError('You cannot create or delete index while changing stream status');
  if (online > 1) throw limitExceeded(ONE_ONLINE_INDEX);
}

function indexThroughputUpdateOf(update: NonNullable<GlobalIndexUpdateInput['Update']>): IndexThroughputUpdate {
  const throughput = update.ProvisionedThroughput;
  if (throughput !== undefined && (throughput.ReadCapacityUnits > THROUGHPUT_UNITS_MAX || throughput.WriteCapacityUnits > THROUGHPUT_UNITS_MAX)) {
    throw validationError(
      'This operation cannot be performed with given input values. Please contact DynamoDB service team for more info: Action Blocked: IndexUpdate',
    );
  }
  return {
    name: update.IndexName,
    throughput,
    onDemandThroughput: onDemandThroughputOf(update.OnDemandThroughput, true),
    warmThroughput: indexWarmUpdateOf(update.WarmThroughput, update.IndexName),
  };
}

/**
 * Some changes must come alone; on-demand limits may only come with a billing mode. The table's
 * WarmThroughput may come with GSI updates (pre-warming a table and its GSIs in one request, as
 * AWS's guide does), not with a GSI creation; ⚠ a GSI deletion beside it is refused with the
 * sole-change text (no text seen for it).
 */
function checkCombination(changes: readonly ChangeMember[], indexChanges: IndexChanges): void {
  if (changes.includes('WarmThroughput') && indexChanges.creates.length > 0) {
    throw validationError(INVALID + 'Create global secondary index cannot be specified when updating WarmThroughput');
  }
  for (const [member, message] of SOLE_CHANGES) {
    const others = changes.filter(
      (change) => change !== member && !(member === 'WarmThroughput' && change === 'GlobalSecondaryIndexUpdates' && indexChanges.deletes.length === 0),
    );
    if (changes.includes(member) && others.length > 0) throw validationError(message);
  }
  if (changes.includes('OnDemandThroughput') && changes.some((change) => change !== 'OnDemandThroughput' && change !== 'BillingMode')) {
    throw validationError(INVALID + 'OnDemandThroughput can only be combined with BillingMode in an UpdateTable request');
  }
  if (changes.includes('StreamSpecification') && changes.includes('ProvisionedThroughput')) {
    throw validationError(INVALID + 'You cannot modify stream status while updating table IOPS');
  }
}

/** Enabling needs a view type, disabling takes none. */
function checkStreamUpdate(specification: StreamSpecificationInput | undefined): StreamSpecificationInput | undefined {
  if (specification === undefined) return undefined;
  if (specification.StreamEnabled && specification.StreamViewType === undefined) {
    throw validationError(INVALID + 'If stream is being enabled then UpdateViewType is required');
  }
  if (!specification.StreamEnabled && specification.StreamViewType !== undefined) {
    throw validationError(INVALID + 'If stream is being disabled, then UpdateViewType must not be specified');
  }
  return specification;
}

// ---------------------------------------------------------------------------------------------
// Planning against the current table (inside the catalog's write transaction)
// ---------------------------------------------------------------------------------------------

function updatedRecord(record: TableRecord, request: UpdateTableRequest, nowMs: number, delayMs: number, ids: IdAllocator): TableRecord {
  const status = tableStatusAt(record, nowMs);
  if (status === 'CREATING') throw tableBeingCreated(record.name);
  if (status === 'UPDATING' || status === 'DELETING') throw tableInTransition(record.name, status);
  // A slow change leaves the table UPDATING (and a new GSI CREATING) for the update delay.
  const updatingUntilMs = delayMs > 0 && isSlowChange(request) ? nowMs + delayMs : undefined;
  const billingMode = request.billingMode ?? record.billingMode;
  if (billingMode === 'PAY_PER_REQUEST' && request.throughput !== undefined) {
    throw validationError(
      INVALID + 'Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST',
    );
  }
  if (billingMode === 'PROVISIONED') rejectOnDemandThroughputWhenProvisioned(request.onDemandThroughput);
  checkOnlineIndexesIdle(record, request);
  for (const name of request.indexDeletes) checkIndexDelete(record, name);
  const created = request.indexCreates.map((create) => createdIndex(record, request, create, billingMode, nowMs, updatingUntilMs, ids));
  const globalSecondaryIndexes = [
    ...updatedGlobalIndexes(record, request, billingMode, nowMs).map((index) => (request.indexDeletes.includes(index.name) ? deleting(index) : index)),
    ...created.map((entry) => entry.index),
  ];
  const attributeDefinitions = [...record.attributeDefinitions, ...created.flatMap((entry) => entry.newDefinitions)];
  const onDemandThroughput =
    billingMode === 'PROVISIONED' ? undefined : mergedOnDemand(record.onDemandThroughput, request.onDemandThroughput);
  // Members that may disappear are rebuilt, never spread over: stored records carry no undefined.
  const { onDemandThroughput: _onDemand, streamSpecification: _stream, updatingUntilMs: _updating, ...kept } = record;
  return {
    ...kept,
    ...optional('updatingUntilMs', updatingUntilMs),
    attributeDefinitions,
    ...billingChange(record, billingMode, nowMs),
    throughput: updatedTableThroughput(record, request.throughput, billingMode, nowMs),
    ...optional('onDemandThroughput', onDemandThroughput),
    ...optional('warmThroughput', raisedWarmThroughput(record.warmThroughput, request.warmThroughput)),
    globalSecondaryIndexes,
    ...streamState(record, request.streamSpecification, nowMs),
    ...tableClassChange(record, request.tableClass, nowMs),
    deletionProtectionEnabled: request.deletionProtectionEnabled ?? record.deletionProtectionEnabled,
  };
}

/**
 * A table builds or drops one index at a time: while one is CREATING or DELETING, no other may
 * start. The index being backfilled may itself be deleted, as DynamoDB allows during backfilling.
 */
function checkOnlineIndexesIdle(record: TableRecord, request: UpdateTableRequest): void {
  if (request.indexCreates.length + request.indexDeletes.length === 0) return;
  const busy = record.globalSecondaryIndexes.some(
    (index) => index.status === 'DELETING' || (index.backfilling === true && !request.indexDeletes.includes(index.name)),
  );
  if (busy) throw limitExceeded(ONE_ONLINE_INDEX);
}

/**
 * Only a GSI can be deleted: an LSI's name is a ValidationException (third-party catalogue), a
 * name the table lacks a ResourceNotFoundException (nubo-db/dynamodb-conformance, run against
 * DynamoDB; the text follows DynamoDB's other index-not-found texts).
 */
function checkIndexDelete(record: TableRecord, name: string): void {
  if (record.globalSecondaryIndexes.some((index) => index.name === name)) return;
  if (record.localSecondaryIndexes.some((index) => index.name === name)) {
    throw validationError(`Cannot delete an index that is not a GlobalSecondaryIndex: ${name}`);
  }
  throw resourceNotFound(`Requested resource not found: Index: ${name} not found for table: ${record.name}`);
}

/** A DELETING index has no backfill left to report. */
function deleting(index: IndexRecord): IndexRecord {
  const { backfilling: _backfilling, ...rest } = index;
  return { ...rest, status: 'DELETING' };
}

/**
 * The new GSI's record, checked against the table in DynamoDB's order (an existing name first),
 * with the attribute definitions it adds: only those of its own key attributes the table lacks.
 */
function createdIndex(
  record: TableRecord,
  request: UpdateTableRequest,
  create: IndexCreate,
  billingMode: BillingMode,
  nowMs: number,
  activeAtMs: number | undefined,
  ids: IdAllocator,
): { index: IndexRecord; newDefinitions: AttributeDefinition[] } {
  const existing = [...record.globalSecondaryIndexes, ...record.localSecondaryIndexes];
  if (existing.some((index) => index.name === create.name)) throw validationError('Attempting to create an index which already exists');
  if (record.globalSecondaryIndexes.length >= GLOBAL_INDEXES_MAX) throw limitExceeded(TOO_MANY_GLOBAL_INDEXES);
  const definitions = [...record.attributeDefinitions];
  for (const definition of request.attributeDefinitions) {
    if (!definitions.some((known) => known.AttributeName === definition.AttributeName)) definitions.push(definition);
  }
  checkKeySchema(create.keySchema, definitions.map((definition) => definition.AttributeName), true);
  checkNoRedefinition(record, request.attributeDefinitions, create);
  checkCreatedIndexThroughput(create, billingMode);
  checkProjectedAttributeTotal([...existing.map((index) => index.projection), create.projection]);
  const keyNames = create.keySchema.map((element) => element.AttributeName);
  const newDefinitions = definitions.filter(
    (definition) => keyNames.includes(definition.AttributeName) && !record.attributeDefinitions.some((known) => known.AttributeName === definition.AttributeName),
  );
  const index: IndexRecord = {
    id: ids.next(),
    name: create.name,
    keySchema: keySchemaOf(create.keySchema),
    projection: create.projection,
    ...(billingMode === 'PROVISIONED' ? { throughput: throughputRecordOf(create.throughput, nowMs) } : {}),
    ...optional('onDemandThroughput', create.onDemandThroughput),
    status: 'CREATING',
    backfilling: true,
    ...optional('activeAtMs', activeAtMs),
  };
  return { index, newDefinitions: newDefinitions.map((definition) => ({ AttributeName: definition.AttributeName, AttributeType: definition.AttributeType })) };
}

/**
 * A new index's key attribute that is already a key attribute (of the table or another index) keeps
 * its type: DynamoDB refuses a definition of another type, naming the key element that has the
 * attribute already and the new one (text recorded from DynamoDB in Alternator's
 * test_gsi_updatetable.py, test_gsi_key_type_conflict_on_update).
 */
function checkNoRedefinition(record: TableRecord, requested: readonly AttributeDefinition[], create: IndexCreate): void {
  for (const element of create.keySchema) {
    const name = element.AttributeName;
    const known = record.attributeDefinitions.find((definition) => definition.AttributeName === name);
    const wanted = requested.find((definition) => definition.AttributeName === name);
    if (known === undefined || wanted === undefined || known.AttributeType === wanted.AttributeType) continue;
    const existing = [record.keySchema, ...record.globalSecondaryIndexes.map((index) => index.keySchema), ...record.localSecondaryIndexes.map((index) => index.keySchema)]
      .flat()
      .find((schemaElement) => schemaElement.AttributeName === name);
    throw validationError(
      INVALID +
        'Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. ' +
        `Existing schema: Schema:[SchemaElement: key{${name}:${known.AttributeType}:${existing?.KeyType ?? element.KeyType}}] ` +
        `New schema: Schema:[SchemaElement: key{${name}:${wanted.AttributeType}:${element.KeyType}}]`,
    );
  }
}

function checkCreatedIndexThroughput(create: IndexCreate, billingMode: BillingMode): void {
  if (billingMode === 'PAY_PER_REQUEST' && create.throughput !== undefined) {
    throw validationError(INVALID + `ProvisionedThroughput should not be specified for index: ${create.name} when BillingMode is PAY_PER_REQUEST`);
  }
  if (billingMode === 'PROVISIONED') {
    rejectOnDemandThroughputWhenProvisioned(create.onDemandThroughput);
    if (create.throughput === undefined) {
      throw validationError(INVALID + `Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: ${create.name}`);
    }
  }
}

/** Switching to PAY_PER_REQUEST is remembered for BillingModeSummary. */
function billingChange(record: TableRecord, billingMode: BillingMode, nowMs: number): Partial<TableRecord> {
  if (billingMode === record.billingMode) return {};
  if (billingMode === 'PAY_PER_REQUEST') return { billingMode, billingModeChangedAtMs: nowMs };
  return { billingMode };
}

function updatedTableThroughput(
  record: TableRecord,
  requested: ThroughputInput | undefined,
  billingMode: BillingMode,
  nowMs: number,
): ThroughputRecord {
  if (billingMode === 'PAY_PER_REQUEST') return zeroedThroughput(record.throughput);
  if (requested === undefined) return record.throughput;
  // A switch from on-demand starts from zero units, so it is an increase, never "no change".
  if (record.billingMode === 'PROVISIONED') checkThroughputChanges(record.throughput, requested, 'table', 'table');
  return appliedThroughput(record.billingMode === 'PROVISIONED' ? record.throughput : zeroedThroughput(record.throughput), requested, nowMs);
}

function updatedGlobalIndexes(record: TableRecord, request: UpdateTableRequest, billingMode: BillingMode, nowMs: number): IndexRecord[] {
  const updates = new Map(request.indexUpdates.map((update) => [update.name, update]));
  for (const update of request.indexUpdates) checkIndexUpdate(record, update, billingMode);
  if (billingMode === 'PROVISIONED' && record.billingMode === 'PAY_PER_REQUEST') {
    const missing = record.globalSecondaryIndexes.filter((index) => updates.get(index.name)?.throughput === undefined);
    if (missing.length > 0) {
      throw validationError(INVALID + `ProvisionedThroughput must be specified for index: ${missing.map((index) => index.name).join(',')}`);
    }
  }
  return record.globalSecondaryIndexes.map((index) => updatedGlobalIndex(record, index, updates.get(index.name), billingMode, nowMs));
}

function checkIndexUpdate(record: TableRecord, update: IndexThroughputUpdate, billingMode: BillingMode): void {
  const index = record.globalSecondaryIndexes.find((candidate) => candidate.name === update.name);
  if (index === undefined) throw validationError(`Cannot update an index that is not a GlobalSecondaryIndex: ${update.name}`);
  if (billingMode === 'PAY_PER_REQUEST') {
    if (update.throughput !== undefined) {
      throw validationError(
        INVALID + `Neither ReadCapacityUnits nor WriteCapacityUnits can be specified for index: ${update.name} when BillingMode is PAY_PER_REQUEST`,
      );
    }
    // An empty OnDemandThroughput counts as absent, as DynamoDB treats it.
    const onDemand = update.onDemandThroughput;
    if ((onDemand === undefined || Object.keys(onDemand).length === 0) && update.warmThroughput === undefined) {
      throw validationError(
        INVALID + `The only Updates for index: ${update.name} when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput`,
      );
    }
    return;
  }
  rejectOnDemandThroughputWhenProvisioned(update.onDemandThroughput);
  // ⚠ Pre-warming alone is an update of its own on a provisioned table too (no text seen either way).
  if (update.throughput === undefined && update.warmThroughput !== undefined && record.billingMode === 'PROVISIONED') return;
  if (update.throughput === undefined) {
    throw validationError(INVALID + `Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: ${update.name}`);
  }
  if (record.billingMode === 'PROVISIONED' && index.throughput !== undefined) {
    checkThroughputChanges(index.throughput, update.throughput, `index ${update.name}`, 'index');
  }
}

function updatedGlobalIndex(
  record: TableRecord,
  index: IndexRecord,
  update: IndexThroughputUpdate | undefined,
  billingMode: BillingMode,
  nowMs: number,
): IndexRecord {
  const { throughput: _previous, onDemandThroughput: _previousOnDemand, warmThroughput: _previousWarm, ...kept } = index;
  // Pre-warmed GSIs keep what they were warmed to, raised by this update's WarmThroughput.
  const rest = { ...kept, ...optional('warmThroughput', raisedWarmThroughput(index.warmThroughput, update?.warmThroughput)) };
  if (billingMode === 'PAY_PER_REQUEST') {
    return { ...rest, ...optional('onDemandThroughput', mergedOnDemand(index.onDemandThroughput, update?.onDemandThroughput)) };
  }
  const current = record.billingMode === 'PROVISIONED' ? index.throughput : undefined;
  if (update?.throughput === undefined) return { ...rest, ...optional('throughput', current) };
  const base = current ?? { readCapacityUnits: 0, writeCapacityUnits: 0, decreasesToday: 0, decreasesDay: utcDayOf(nowMs) };
  return { ...rest, throughput: appliedThroughput(base, update.throughput, nowMs) };
}

/** DynamoDB refuses an update that changes nothing, quoting both values. */
function checkThroughputChanges(current: ThroughputRecord, requested: ThroughputInput, subject: string, noun: string): void {
  if (current.readCapacityUnits !== requested.ReadCapacityUnits || current.writeCapacityUnits !== requested.WriteCapacityUnits) return;
  throw validationError(
    `The provisioned throughput for the ${subject} will not change. The requested value equals the current value. ` +
      `Current ReadCapacityUnits provisioned for the ${noun}: ${current.readCapacityUnits}. Requested ReadCapacityUnits: ${requested.ReadCapacityUnits}. ` +
      `Current WriteCapacityUnits provisioned for the ${noun}: ${current.writeCapacityUnits}. Requested WriteCapacityUnits: ${requested.WriteCapacityUnits}. ` +
      'Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.',
  );
}

/** New units, with the increase/decrease times and today's decrease count (per UTC day) moved on. */
function appliedThroughput(current: ThroughputRecord, requested: ThroughputInput, nowMs: number): ThroughputRecord {
  const read = requested.ReadCapacityUnits;
  const write = requested.WriteCapacityUnits;
  const increased = read > current.readCapacityUnits || write > current.writeCapacityUnits;
  const decreased = read < current.readCapacityUnits || write < current.writeCapacityUnits;
  const countSoFar = decreasesToday(current, nowMs);
  if (decreased) checkDecreaseQuota(current, countSoFar, nowMs);
  return {
    readCapacityUnits: read,
    writeCapacityUnits: write,
    ...optional('lastIncreaseMs', increased ? nowMs : current.lastIncreaseMs),
    ...optional('lastDecreaseMs', decreased ? nowMs : current.lastDecreaseMs),
    decreasesToday: decreased ? countSoFar + 1 : countSoFar,
    decreasesDay: utcDayOf(nowMs),
  };
}

/** Decreases a UTC day allows at any time; after them, one per DECREASE_INTERVAL_MS. */
const FREE_DECREASES_PER_DAY = 4;
const DECREASE_INTERVAL_MS = 3_600_000;

/**
 * DynamoDB's decrease quota, per table and per GSI: the first 4 decreases of a UTC day are free,
 * each later one must come at least 3,600 s after the previous one (not at the top of an hour),
 * and midnight UTC restores all 4. A refused decrease moves no counter. A request that lowers one
 * of RCU and WCU and raises the other is a decrease. Planning throws before anything is written,
 * so a request that decreases a table and a GSI is refused whole if either is over its quota.
 */
function checkDecreaseQuota(current: ThroughputRecord, countToday: number, nowMs: number): void {
  const lastMs = current.lastDecreaseMs;
  if (countToday < FREE_DECREASES_PER_DAY || lastMs === undefined) return;
  const nextMs = Math.min(lastMs + DECREASE_INTERVAL_MS, (utcDayOf(nowMs) + 1) * MS_PER_DAY);
  if (nowMs >= nextMs) return;
  throw limitExceeded(
    'Subscriber limit exceeded: Provisioned throughput decreases are limited within a given UTC day. ' +
      `After the first ${FREE_DECREASES_PER_DAY} decreases, each subsequent decrease in the same UTC day can be performed at most once every ${DECREASE_INTERVAL_MS / 1000} seconds. ` +
      `Number of decreases today: ${countToday}. Last decrease at ${longUtcDate(lastMs)}. Next decrease can be made at ${longUtcDate(nextMs)}`,
  );
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * "Friday, October 9, 2026 at 1:21:34 AM Coordinated Universal Time", as DynamoDB's quota message
 * writes a time. Built by hand: Intl's en-US "full" style says the same, but recent ICU versions
 * put a narrow no-break space before AM/PM, which would differ from DynamoDB's text.
 */
export function longUtcDate(ms: number): string {
  const date = new Date(ms);
  const hours = date.getUTCHours();
  const twoDigits = (value: number): string => String(value).padStart(2, '0');
  const clock = `${hours % 12 === 0 ? 12 : hours % 12}:${twoDigits(date.getUTCMinutes())}:${twoDigits(date.getUTCSeconds())} ${hours < 12 ? 'AM' : 'PM'}`;
  return `${WEEKDAYS[date.getUTCDay()]}, ${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()} at ${clock} Coordinated Universal Time`;
}

/** On-demand tables keep their counters but no units. */
function zeroedThroughput(throughput: ThroughputRecord): ThroughputRecord {
  return { ...throughput, readCapacityUnits: 0, writeCapacityUnits: 0 };
}

/** Request limits merge into the current ones; -1 removes a limit. */
function mergedOnDemand(
  current: OnDemandThroughputRecord | undefined,
  requested: OnDemandThroughputRecord | undefined,
): OnDemandThroughputRecord | undefined {
  if (requested === undefined) return current;
  const merged: { MaxReadRequestUnits?: number; MaxWriteRequestUnits?: number } = { ...current };
  for (const member of ['MaxReadRequestUnits', 'MaxWriteRequestUnits'] as const) {
    const units = requested[member];
    if (units === -1) delete merged[member];
    else if (units !== undefined) merged[member] = units;
  }
  return Object.keys(merged).length === 0 ? undefined : merged;
}

/**
 * The stream members after the update. Enabling starts a new stream (a new label); disabling
 * keeps the label, as DynamoDB keeps reporting the latest stream.
 */
function streamState(record: TableRecord, requested: StreamSpecificationInput | undefined, nowMs: number): Partial<TableRecord> {
  const enabled = record.streamSpecification?.StreamEnabled === true;
  if (requested === undefined) return optional('streamSpecification', record.streamSpecification);
  if (requested.StreamEnabled) {
    if (enabled) throw validationError(`Table already has an enabled stream: TableName: ${record.name}`);
    const streamSpecification: StreamSpecificationRecord = { StreamEnabled: true, StreamViewType: requested.StreamViewType! };
    // A stream enabled again within the same millisecond (a manual clock) still gets its own label and ARN.
    const previousMs = record.latestStreamLabel === undefined ? -Infinity : Date.parse(record.latestStreamLabel + 'Z');
    return { streamSpecification, latestStreamLabel: streamLabelAt(Math.max(nowMs, previousMs + 1)) };
  }
  if (!enabled) throw validationError(`Table has no stream to disable: TableName: ${record.name}`);
  return {};
}

function tableClassChange(record: TableRecord, tableClass: TableClass | undefined, nowMs: number): Partial<TableRecord> {
  if (tableClass === undefined || tableClass === record.tableClass) return {};
  return { tableClass, tableClassChangedAtMs: nowMs };
}

/**
 * Capacity, billing, index, stream and class changes take DynamoDB a while. Pre-warming does not:
 * the table stays ACTIVE and only its WarmThroughput says UPDATING (warmUpdating).
 */
function isSlowChange(request: UpdateTableRequest): boolean {
  return (
    request.throughput !== undefined ||
    request.billingMode !== undefined ||
    request.indexUpdates.some((update) => update.throughput !== undefined || update.onDemandThroughput !== undefined) ||
    request.indexCreates.length + request.indexDeletes.length > 0 ||
    request.streamSpecification !== undefined ||
    request.tableClass !== undefined
  );
}

/** A slow change is answered UPDATING, even with no update delay, as DynamoDB's answer is. */
function answeredStatus(record: TableRecord, request: UpdateTableRequest, nowMs: number): TableStatus {
  return isSlowChange(request) ? 'UPDATING' : tableStatusAt(record, nowMs);
}

/** What the answer reports as pre-warming (WarmThroughput Status UPDATING): the table, and GSIs by name. */
function warmUpdating(request: UpdateTableRequest): { readonly table: boolean; readonly indexes: ReadonlySet<string> } | undefined {
  const indexes = new Set(request.indexUpdates.filter((update) => update.warmThroughput !== undefined).map((update) => update.name));
  if (request.warmThroughput === undefined && indexes.size === 0) return undefined;
  return { table: request.warmThroughput !== undefined, indexes };
}

/**
 * Pre-warming against the table as it is (inside the catalog's write): no value below what
 * DescribeTable reports now (equal is accepted), none above the per-table maximum.
 */
function checkWarmUpdates(table: Table, request: UpdateTableRequest, region: string): void {
  const warm = request.warmThroughput;
  if (warm !== undefined) {
    checkWarmNotLower(warm, 'table', currentWarm(table.partitions));
    checkWarmMaximum(warm, 'table', region);
  }
  for (const update of request.indexUpdates) {
    if (update.warmThroughput === undefined) continue;
    const index = table.indexes.find(update.name);
    if (index === undefined || index.kind !== 'global') continue; // refused with its own text in updatedRecord
    checkWarmNotLower(update.warmThroughput, { index: update.name }, currentWarm(index.state.partitions));
    checkWarmMaximum(update.warmThroughput, { index: update.name }, region);
  }
}

/**
 * On-demand maxima above the account's per-table maximum (40,000) are a LimitExceededException, as
 * DynamoDB answers UpdateTable (text observed for the read member; ⚠ the write member follows it).
 */
function checkOnDemandMaximum(request: UpdateTableRequest, region: string): void {
  const check = (limits: OnDemandThroughputRecord | undefined, subject: string): void => {
    for (const [member, quota] of [
      ['MaxReadRequestUnits', 'TableMaxReadCapacityUnits'],
      ['MaxWriteRequestUnits', 'TableMaxWriteCapacityUnits'],
    ] as const) {
      const units = limits?.[member];
      if (units === undefined || units <= WARM_UNITS_PER_SECOND_MAX) continue;
      throw limitExceeded(`Subscriber limit exceeded: Requested ${member} for OnDemandThroughput for ${subject} exceeds ${quota} of the account in region ${region}`);
    }
  };
  check(request.onDemandThroughput, 'table');
  for (const update of request.indexUpdates) check(update.onDemandThroughput, `index : ${update.name}`);
}

function currentWarm(partitions: Table['partitions'] | undefined): UnitsPerDirection {
  if (partitions === undefined || !partitions.hasCapacity) return { read: 0, write: 0 };
  return { read: partitions.capacity.warmUnitsPerSecond('read'), write: partitions.capacity.warmUnitsPerSecond('write') };
}

/** `{ key: value }`, or nothing when the value is undefined: stored records carry no undefined members. */
function optional<Key extends string, Value>(key: Key, value: Value | undefined): { [K in Key]?: Value } {
  return (value === undefined ? {} : { [key]: value }) as { [K in Key]?: Value };
}
