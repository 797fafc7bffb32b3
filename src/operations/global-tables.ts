/**
 * Global tables. The legacy API (version 2017.11.29: CreateGlobalTable, UpdateGlobalTable,
 * Describe/UpdateGlobalTableSettings, DescribeGlobalTable, ListGlobalTables) answers as DynamoDB
 * does today, where no legacy global table can be created: creating is refused, none is found,
 * none is listed. Replica auto scaling (Describe/UpdateTableReplicaAutoScaling) belongs to
 * version 2019.11.21 replicas, which need other Regions: dynatwin, one Region, has no global table
 * to describe. Texts and sources: docs/CONFORMANCE.md.
 */
import { dynamoError, resourceNotFound, validationError } from '../errors.js';
import { defineOperation, type AnyOperation } from './operation.js';
import { shapes, type Member } from './shape.js';

const LEGACY_UNSUPPORTED =
  'DynamoDB global tables version 2017.11.29 is not supported. We recommend using DynamoDB global tables version 2019.11.21, instead of version 2017.11.29 (Legacy).';

const globalTableNameMember: Member = shapes.string({ required: true, pattern: '[a-zA-Z0-9_.-]+', lengthMin: 3, lengthMax: 255 });
const replicaMember: Member = shapes.structure('Replica', { RegionName: shapes.string() }, { notNull: true });
const replicaUpdateMember: Member = shapes.structure(
  'ReplicaUpdate',
  {
    Create: shapes.structure('CreateReplicaAction', { RegionName: shapes.string({ notNull: true }) }),
    Delete: shapes.structure('DeleteReplicaAction', { RegionName: shapes.string({ notNull: true }) }),
  },
  { notNull: true },
);

const notFound = (name: string): Error => dynamoError('GlobalTableNotFoundException', `Global table with name: '${name}' does not exist.`);

export const createGlobalTableOperation = defineOperation<string>({
  name: 'CreateGlobalTable',
  members: { GlobalTableName: globalTableNameMember, ReplicationGroup: shapes.list(replicaMember, { required: true }) },
  validate(input) {
    return input.GlobalTableName as string;
  },
  execute() {
    throw validationError(LEGACY_UNSUPPORTED);
  },
});

interface UpdateGlobalTableRequest {
  readonly name: string;
  readonly updates: readonly { readonly Create?: object; readonly Delete?: object }[];
}

export const updateGlobalTableOperation = defineOperation<UpdateGlobalTableRequest>({
  name: 'UpdateGlobalTable',
  members: { GlobalTableName: globalTableNameMember, ReplicaUpdates: shapes.list(replicaUpdateMember, { required: true }) },
  validate(input) {
    const updates = input.ReplicaUpdates as UpdateGlobalTableRequest['updates'];
    if (updates.length === 0) throw validationError('One or more parameter values were invalid');
    // A Create is refused before the global table is looked for.
    if (updates.some((update) => update.Create !== undefined)) throw validationError(LEGACY_UNSUPPORTED);
    return { name: input.GlobalTableName as string, updates };
  },
  execute(_engine, request) {
    throw notFound(request.name);
  },
});

export const describeGlobalTableOperation = defineOperation<string>({
  name: 'DescribeGlobalTable',
  members: { GlobalTableName: globalTableNameMember },
  validate(input) {
    return input.GlobalTableName as string;
  },
  execute(_engine, name) {
    throw dynamoError('GlobalTableNotFoundException', `Global table not found: Global table with name: '${name}' does not exist.`);
  },
});

export const describeGlobalTableSettingsOperation = defineOperation<string>({
  name: 'DescribeGlobalTableSettings',
  members: { GlobalTableName: globalTableNameMember },
  validate(input) {
    return input.GlobalTableName as string;
  },
  execute(_engine, name) {
    throw notFound(name);
  },
});

export const updateGlobalTableSettingsOperation = defineOperation<string>({
  name: 'UpdateGlobalTableSettings',
  members: {
    GlobalTableName: globalTableNameMember,
    GlobalTableBillingMode: shapes.string({ enumValues: ['PROVISIONED', 'PAY_PER_REQUEST'] }),
    GlobalTableProvisionedWriteCapacityUnits: shapes.long({ valueMin: 1 }),
  },
  validate(input) {
    return input.GlobalTableName as string;
  },
  execute(_engine, name) {
    throw notFound(name);
  },
});

export const listGlobalTablesOperation = defineOperation<Record<string, never>>({
  name: 'ListGlobalTables',
  members: {
    ExclusiveStartGlobalTableName: shapes.string({ pattern: '[a-zA-Z0-9_.-]+', lengthMin: 3, lengthMax: 255 }),
    Limit: shapes.integer({ valueMin: 1 }),
    RegionName: shapes.string(),
  },
  validate() {
    return {};
  },
  execute() {
    return { GlobalTables: [] };
  },
});

const replicaAutoScalingNotFound = (name: string): Error => resourceNotFound(`Global table with name: '${name}' does not exist.`);

export const describeTableReplicaAutoScalingOperation = defineOperation<string>({
  name: 'DescribeTableReplicaAutoScaling',
  members: { TableName: shapes.string({ required: true, lengthMin: 1, lengthMax: 1024 }) },
  validate(input) {
    return input.TableName as string;
  },
  execute(_engine, name) {
    throw replicaAutoScalingNotFound(name);
  },
});

export const updateTableReplicaAutoScalingOperation = defineOperation<string>({
  name: 'UpdateTableReplicaAutoScaling',
  members: {
    TableName: shapes.string({ required: true, lengthMin: 1, lengthMax: 1024 }),
    GlobalSecondaryIndexUpdates: shapes.list(shapes.structure('GlobalSecondaryIndexAutoScalingUpdate', { IndexName: shapes.string() })),
    ReplicaUpdates: shapes.list(shapes.structure('ReplicaAutoScalingUpdate', { RegionName: shapes.string({ notNull: true }) })),
  },
  validate(input) {
    return input.TableName as string;
  },
  execute(_engine, name) {
    throw replicaAutoScalingNotFound(name);
  },
});

export const globalTableOperations: readonly AnyOperation[] = [
  createGlobalTableOperation,
  updateGlobalTableOperation,
  describeGlobalTableOperation,
  describeGlobalTableSettingsOperation,
  updateGlobalTableSettingsOperation,
  listGlobalTablesOperation,
  describeTableReplicaAutoScalingOperation,
  updateTableReplicaAutoScalingOperation,
];
