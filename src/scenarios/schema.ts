/**
 * The scenario file (docs/SCENARIOS.md): server settings, design variants (CreateTable inputs) and
 * a workload of timed phases. `parseScenario` is pure: it checks every field and answers the typed
 * scenario, or throws a ScenarioError whose message names the path of the first bad field
 * (`workload.phases[0].operations[1].rate`), so a user fixes the file from one line.
 */
import type { CapacitySettings } from '../capacity/admission.js';
import { DEFAULT_CAPACITY_SETTINGS } from '../capacity/admission.js';
import type { PartitionModel } from '../capacity/partitions.js';
import { DEFAULT_PARTITION_SIZE_LIMIT_BYTES } from '../capacity/partitions.js';
import { parseGenerator, SHARDS_MAX, type GeneratorSpec } from './generators.js';
import { BATCH_WRITE_REQUESTS_MAX } from '../operations/batchWriteItem.js';
import { setOwn } from '../model/own-members.js';

/** A bad scenario file; the message is the one line the user sees. */
export class ScenarioError extends Error {}

/** Limits that keep a scenario's run bounded (a typo must not ask for a year of simulation). */
export const PHASE_SECONDS_MAX = 24 * 3600;
export const RATE_PER_SECOND_MAX = 1_000_000;
export const VARIANTS_MAX = 16;
export const OPERATIONS_PER_PHASE_MAX = 32;
export const TICK_MS_CHOICES = [10, 20, 50, 100, 200, 250, 500, 1000] as const;

export type OperationKind = 'PutItem' | 'BatchWriteItem' | 'UpdateItem' | 'DeleteItem' | 'GetItem' | 'Query' | 'Scan' | 'TransactWriteItems' | 'ShardedQuery';
export const OPERATION_KINDS: readonly OperationKind[] = ['PutItem', 'BatchWriteItem', 'UpdateItem', 'DeleteItem', 'GetItem', 'Query', 'Scan', 'TransactWriteItems', 'ShardedQuery'];
/** Actions of one TransactWriteItems request, at most (DynamoDB's limit is 100). */
export const TRANSACT_ACTIONS_MAX = 100;
/** Pages a Scan or a shard's Query follows at most per request (a bound on one request's work). */
export const PAGES_MAX = 10_000;

/** Items (writes, reads) or requests per second, constant or ramped linearly over the phase. */
export interface Rate {
  readonly unit: 'items' | 'requests';
  readonly fromPerSecond: number;
  readonly toPerSecond: number;
}

export type AttributeGenerators = Readonly<Record<string, GeneratorSpec>>;

export interface OperationSpec {
  readonly kind: OperationKind;
  /** Where this operation sits in the file, for messages. */
  readonly path: string;
  readonly table: string;
  readonly index: string | undefined;
  readonly rate: Rate;
  /** BatchWriteItem: items per request (1..25). */
  readonly batchSize: number;
  /** PutItem, BatchWriteItem: the item's attributes. */
  readonly item: AttributeGenerators | undefined;
  /** UpdateItem, DeleteItem, GetItem: the key's attributes. */
  readonly key: AttributeGenerators | undefined;
  /** Expression values (`:name`) drawn per request. */
  readonly values: AttributeGenerators | undefined;
  readonly names: Readonly<Record<string, string>> | undefined;
  readonly updateExpression: string | undefined;
  readonly conditionExpression: string | undefined;
  readonly keyConditionExpression: string | undefined;
  readonly limit: number | undefined;
  readonly consistentRead: boolean;
  /** Scan and ShardedQuery: follow LastEvaluatedKey until the end (one request is the whole read). */
  readonly allPages: boolean;
  /** ShardedQuery: K queries, the placeholder taking `prefix` + 1..K. */
  readonly shards: { readonly k: number; readonly prefix: string; readonly placeholder: string } | undefined;
  /** TransactWriteItems: its actions. */
  readonly actions: readonly TransactActionSpec[] | undefined;
  /** The unit of work this operation's accepted requests count (a "delivery"), if any. */
  readonly countsAs: string | undefined;
  /** A name for the per-operation figures (default: the kind and the table). */
  readonly name: string;
}

export interface TransactActionSpec {
  readonly kind: 'Put' | 'Update' | 'Delete' | 'ConditionCheck';
  readonly table: string;
  readonly item: AttributeGenerators | undefined;
  readonly key: AttributeGenerators | undefined;
  readonly updateExpression: string | undefined;
  readonly conditionExpression: string | undefined;
}

export interface PhaseSpec {
  readonly name: string;
  readonly durationSeconds: number;
  /** UpdateTable inputs run when the phase starts (e.g. lowering last month's table). */
  readonly updateTables: readonly Record<string, unknown>[];
  readonly operations: readonly OperationSpec[];
}

export interface VariantSpec {
  readonly name: string;
  readonly description: string;
  /** CreateTable inputs, exactly as `aws dynamodb create-table --cli-input-json` takes them. */
  readonly tables: readonly Record<string, unknown>[];
  /** Attributes this variant generates differently: a generator, or null to leave one out. */
  readonly attributes: Readonly<Record<string, GeneratorSpec | null>>;
  /** The server settings this variant runs on (the scenario's, with the variant's changes). */
  readonly server: ServerSettings;
  /** The phases this variant runs: its own workload, or the scenario's. */
  readonly phases: readonly PhaseSpec[];
  /** Auto scaling of its provisioned tables and GSIs, run by src/autoscaling as the server runs it. */
  readonly autoScaling: readonly AutoScalingSpec[];
}

/** `variants[].autoScaling[]`: a scalable target with its target-tracking policy. */
export interface AutoScalingSpec {
  readonly path: string;
  readonly resourceId: string;
  readonly scalableDimension: string;
  readonly minCapacity: number;
  readonly maxCapacity: number;
  /** Target utilisation, percent. */
  readonly targetValue: number;
  readonly scaleInCooldownSeconds: number | undefined;
  readonly scaleOutCooldownSeconds: number | undefined;
}

/** Scalable targets a variant may declare (two per table and GSI of a few tables). */
export const AUTO_SCALING_TARGETS_MAX = 32;

export interface ServerSettings {
  readonly partitionModel: PartitionModel;
  readonly partitionSizeLimitBytes: number;
  readonly capacitySettings: Partial<CapacitySettings>;
}

export type ClientBehaviour =
  | { readonly retries: 'none' }
  | { readonly retries: 'sdk'; readonly maxAttempts: number; readonly baseDelayMs: number; readonly maxDelayMs: number };

/** How a run applies the workload: request by request, or as flows over the hash space. */
export type Fidelity = 'items' | 'flow';

export interface Scenario {
  readonly name: string;
  readonly description: string;
  readonly seed: number;
  readonly tickMs: number;
  readonly fidelity: Fidelity;
  readonly server: ServerSettings;
  readonly client: ClientBehaviour;
  readonly variants: readonly VariantSpec[];
}

/** Simulated seconds of a variant's phases. */
export function variantSeconds(variant: VariantSpec): number {
  return variant.phases.reduce((total, phase) => total + phase.durationSeconds, 0);
}

/** Checks a parsed JSON document; throws ScenarioError naming the first bad field. */
export function parseScenario(document: unknown): Scenario {
  const root = object(document, '(scenario)');
  allowOnly(root, '', ['name', 'description', 'seed', 'tickMs', 'fidelity', 'server', 'client', 'variants', 'workload']);
  const server = parseServer(root.server, 'server', undefined);
  const phases = root.workload === undefined ? undefined : parseWorkload(root.workload, 'workload');
  const variantList = array(root.variants, 'variants', 1, VARIANTS_MAX);
  const variants = variantList.map((variant, index) => parseVariant(variant, `variants[${index}]`, server, phases));
  const names = new Set<string>();
  variants.forEach((variant, index) => {
    if (names.has(variant.name)) fail(`variants[${index}].name`, `'${variant.name}' names two variants; give each its own name`);
    names.add(variant.name);
  });
  for (const variant of variants) {
    for (const phase of variant.phases) {
      for (const operation of phase.operations) checkTablesExist(operation, variant);
    }
  }
  const tickMs = root.tickMs === undefined ? 100 : number(root.tickMs, 'tickMs');
  if (!(TICK_MS_CHOICES as readonly number[]).includes(tickMs)) fail('tickMs', `must be one of ${TICK_MS_CHOICES.join(', ')}`);
  return {
    name: root.name === undefined ? 'scenario' : string(root.name, 'name'),
    description: root.description === undefined ? '' : string(root.description, 'description'),
    seed: root.seed === undefined ? 1 : integer(root.seed, 'seed', 0, 2 ** 31),
    tickMs,
    fidelity: parseFidelity(root.fidelity, 'fidelity'),
    server,
    client: parseClient(root.client),
    variants,
  };
}

/** `items` (each item a request through the engine) or `flow` (demand applied as flows, flow.ts). */
export function parseFidelity(value: unknown, path: string): Fidelity {
  if (value === undefined) return 'items';
  if (value !== 'items' && value !== 'flow') fail(path, `must be 'items' or 'flow', got ${show(value)}`);
  return value;
}

function parseWorkload(value: unknown, path: string): PhaseSpec[] {
  const workload = object(value, path);
  allowOnly(workload, path, ['phases']);
  return array(workload.phases, `${path}.phases`, 1, 64).map((phase, index) => parsePhase(phase, `${path}.phases[${index}]`));
}

/** The server settings; a variant's `server` changes the scenario's (`base`) field by field. */
function parseServer(value: unknown, path: string, base: ServerSettings | undefined): ServerSettings {
  const defaults: ServerSettings = base ?? { partitionModel: 'modern', partitionSizeLimitBytes: DEFAULT_PARTITION_SIZE_LIMIT_BYTES, capacitySettings: {} };
  if (value === undefined) return defaults;
  const server = object(value, path);
  allowOnly(server, path, ['partitionModel', 'partitionSizeLimit', 'capacitySettings']);
  const model = server.partitionModel ?? defaults.partitionModel;
  if (model !== 'modern' && model !== 'classic') fail(`${path}.partitionModel`, `must be 'modern' or 'classic', got ${show(model)}`);
  const capacitySettings: Record<string, number | string> = { ...defaults.capacitySettings };
  if (server.capacitySettings !== undefined) {
    const settings = object(server.capacitySettings, `${path}.capacitySettings`);
    for (const [name, setting] of Object.entries(settings)) {
      const at = `${path}.capacitySettings.${name}`;
      // Own members only: `constructor` or `toString` are not capacity settings.
      if (!Object.hasOwn(DEFAULT_CAPACITY_SETTINGS, name)) fail(at, `is not a capacity setting; known: ${Object.keys(DEFAULT_CAPACITY_SETTINGS).join(', ')}`);
      if (name === 'partitionCeilingMode') {
        if (setting !== 'independent' && setting !== 'combined') fail(at, `must be 'independent' or 'combined', got ${show(setting)}`);
        capacitySettings[name] = setting;
      } else if (name === 'adaptiveCapacity') {
        if (setting !== 'auto' && setting !== 'on' && setting !== 'off') fail(at, `must be 'auto', 'on' or 'off', got ${show(setting)}`);
        capacitySettings[name] = setting;
      } else {
        capacitySettings[name] = nonNegative(setting, at);
      }
    }
  }
  return {
    partitionModel: model,
    partitionSizeLimitBytes: server.partitionSizeLimit === undefined ? defaults.partitionSizeLimitBytes : size(server.partitionSizeLimit, `${path}.partitionSizeLimit`),
    capacitySettings: capacitySettings as Partial<CapacitySettings>,
  };
}

function parseClient(value: unknown): ClientBehaviour {
  if (value === undefined) return { retries: 'none' };
  const client = object(value, 'client');
  allowOnly(client, 'client', ['retries', 'maxAttempts', 'baseDelayMs', 'maxDelayMs']);
  if (client.retries === 'none' || client.retries === undefined) {
    for (const field of ['maxAttempts', 'baseDelayMs', 'maxDelayMs']) {
      if (client[field] !== undefined) fail(`client.${field}`, `applies only with "retries": "sdk"`);
    }
    return { retries: 'none' };
  }
  if (client.retries !== 'sdk') fail('client.retries', `must be 'none' or 'sdk', got ${show(client.retries)}`);
  // The AWS SDK for JavaScript v3's standard mode: 3 attempts, 100 ms base, 20 s cap, full jitter.
  const baseDelayMs = client.baseDelayMs === undefined ? 100 : integer(client.baseDelayMs, 'client.baseDelayMs', 1, 60_000);
  return {
    retries: 'sdk',
    maxAttempts: client.maxAttempts === undefined ? 3 : integer(client.maxAttempts, 'client.maxAttempts', 1, 50),
    baseDelayMs,
    maxDelayMs: client.maxDelayMs === undefined ? 20_000 : integer(client.maxDelayMs, 'client.maxDelayMs', baseDelayMs, 600_000),
  };
}

function parseVariant(value: unknown, path: string, server: ServerSettings, phases: PhaseSpec[] | undefined): VariantSpec {
  const variant = object(value, path);
  allowOnly(variant, path, ['name', 'description', 'tables', 'attributes', 'server', 'workload', 'autoScaling']);
  const tables = array(variant.tables, `${path}.tables`, 1, 16).map((table, index) => {
    const tablePath = `${path}.tables[${index}]`;
    const definition = object(table, tablePath);
    string(definition.TableName, `${tablePath}.TableName`);
    return definition;
  });
  const attributes: Record<string, GeneratorSpec | null> = {};
  if (variant.attributes !== undefined) {
    for (const [name, generator] of Object.entries(object(variant.attributes, `${path}.attributes`))) {
      setOwn(attributes, name, generator === null ? null : parseGenerator(generator, `${path}.attributes.${name}`, fail));
    }
  }
  const ownPhases = variant.workload === undefined ? undefined : parseWorkload(variant.workload, `${path}.workload`);
  const variantPhases = ownPhases ?? phases;
  if (variantPhases === undefined) fail(`${path}.workload`, 'is required when the scenario has no workload of its own');
  return {
    name: string(variant.name, `${path}.name`),
    description: variant.description === undefined ? '' : string(variant.description, `${path}.description`),
    tables,
    attributes,
    server: parseServer(variant.server, `${path}.server`, server),
    phases: variantPhases,
    autoScaling: variant.autoScaling === undefined ? [] : array(variant.autoScaling, `${path}.autoScaling`, 0, AUTO_SCALING_TARGETS_MAX).map((target, index) => parseAutoScaling(target, `${path}.autoScaling[${index}]`)),
  };
}

/**
 * A scalable target and its target-tracking policy, with the fields of RegisterScalableTarget and
 * PutScalingPolicy. Their own validation (the resource, the dimension, the bounds) is the
 * operations' when the run registers them (runner.ts), with AWS's messages.
 */
function parseAutoScaling(value: unknown, path: string): AutoScalingSpec {
  const target = object(value, path);
  allowOnly(target, path, ['ResourceId', 'ScalableDimension', 'MinCapacity', 'MaxCapacity', 'TargetValue', 'ScaleInCooldown', 'ScaleOutCooldown']);
  const cooldown = (field: 'ScaleInCooldown' | 'ScaleOutCooldown'): number | undefined => (target[field] === undefined ? undefined : integer(target[field], `${path}.${field}`, 0, 86_400));
  return {
    path,
    resourceId: string(target.ResourceId, `${path}.ResourceId`),
    scalableDimension: string(target.ScalableDimension, `${path}.ScalableDimension`),
    minCapacity: integer(target.MinCapacity, `${path}.MinCapacity`, 1, 40_000_000),
    maxCapacity: integer(target.MaxCapacity, `${path}.MaxCapacity`, 1, 40_000_000),
    targetValue: number(target.TargetValue, `${path}.TargetValue`),
    scaleInCooldownSeconds: cooldown('ScaleInCooldown'),
    scaleOutCooldownSeconds: cooldown('ScaleOutCooldown'),
  };
}

function parsePhase(value: unknown, path: string): PhaseSpec {
  const phase = object(value, path);
  allowOnly(phase, path, ['name', 'durationSeconds', 'updateTables', 'operations']);
  const updateTables =
    phase.updateTables === undefined
      ? []
      : array(phase.updateTables, `${path}.updateTables`, 0, 16).map((update, index) => {
          const definition = object(update, `${path}.updateTables[${index}]`);
          string(definition.TableName, `${path}.updateTables[${index}].TableName`);
          return definition;
        });
  return {
    name: phase.name === undefined ? path : string(phase.name, `${path}.name`),
    durationSeconds: integer(phase.durationSeconds, `${path}.durationSeconds`, 1, PHASE_SECONDS_MAX),
    updateTables,
    operations: array(phase.operations, `${path}.operations`, 0, OPERATIONS_PER_PHASE_MAX).map((operation, index) =>
      parseOperation(operation, `${path}.operations[${index}]`),
    ),
  };
}

const OPERATION_FIELDS: Readonly<Record<OperationKind, readonly string[]>> = {
  PutItem: ['item', 'conditionExpression', 'names', 'values'],
  BatchWriteItem: ['item', 'batchSize'],
  UpdateItem: ['key', 'updateExpression', 'conditionExpression', 'names', 'values'],
  DeleteItem: ['key', 'conditionExpression', 'names', 'values'],
  GetItem: ['key', 'consistentRead'],
  Query: ['index', 'keyConditionExpression', 'names', 'values', 'limit', 'consistentRead'],
  Scan: ['index', 'limit', 'consistentRead', 'allPages'],
  TransactWriteItems: ['actions', 'values', 'names'],
  ShardedQuery: ['index', 'keyConditionExpression', 'names', 'values', 'limit', 'shards', 'allPages'],
};

const TRANSACT_KINDS = ['Put', 'Update', 'Delete', 'ConditionCheck'] as const;

function parseOperation(value: unknown, path: string): OperationSpec {
  const operation = object(value, path);
  const kind = operation.operation;
  if (typeof kind !== 'string' || !(OPERATION_KINDS as readonly string[]).includes(kind)) {
    fail(`${path}.operation`, `must be one of ${OPERATION_KINDS.join(', ')}, got ${show(kind)}`);
  }
  const operationKind = kind as OperationKind;
  allowOnly(operation, path, ['operation', 'name', 'countsAs', 'table', 'rate', 'itemsPerSecond', 'requestsPerSecond', ...OPERATION_FIELDS[operationKind]]);
  const generators = (field: string): AttributeGenerators | undefined => generatorMap(operation[field], `${path}.${field}`);
  const required = (field: string): void => {
    if (operation[field] === undefined) fail(`${path}.${field}`, `is required for ${operationKind}`);
  };
  if (operationKind === 'PutItem' || operationKind === 'BatchWriteItem') required('item');
  if (operationKind === 'UpdateItem' || operationKind === 'DeleteItem' || operationKind === 'GetItem') required('key');
  if (operationKind === 'UpdateItem') required('updateExpression');
  if (operationKind === 'Query' || operationKind === 'ShardedQuery') required('keyConditionExpression');
  if (operationKind === 'ShardedQuery') required('shards');
  if (operationKind === 'TransactWriteItems') required('actions');
  let names: Record<string, string> | undefined;
  if (operation.names !== undefined) {
    names = {};
    for (const [placeholder, name] of Object.entries(object(operation.names, `${path}.names`))) names[placeholder] = string(name, `${path}.names.${placeholder}`);
  }
  const batchSize = operation.batchSize === undefined ? BATCH_WRITE_REQUESTS_MAX : integer(operation.batchSize, `${path}.batchSize`, 1, BATCH_WRITE_REQUESTS_MAX);
  const table = string(operation.table, `${path}.table`);
  return {
    kind: operationKind,
    path,
    name: operation.name === undefined ? `${operationKind} ${table}` : string(operation.name, `${path}.name`),
    countsAs: optionalString(operation.countsAs, `${path}.countsAs`),
    allPages: operation.allPages === undefined ? false : boolean(operation.allPages, `${path}.allPages`),
    shards: operation.shards === undefined ? undefined : parseShards(operation.shards, `${path}.shards`),
    actions: operation.actions === undefined ? undefined : parseActions(operation.actions, `${path}.actions`),
    table,
    index: operation.index === undefined ? undefined : string(operation.index, `${path}.index`),
    rate: parseRate(operation, path),
    batchSize: operationKind === 'BatchWriteItem' ? batchSize : 1,
    item: generators('item'),
    key: generators('key'),
    values: generators('values'),
    names,
    updateExpression: optionalString(operation.updateExpression, `${path}.updateExpression`),
    conditionExpression: optionalString(operation.conditionExpression, `${path}.conditionExpression`),
    keyConditionExpression: optionalString(operation.keyConditionExpression, `${path}.keyConditionExpression`),
    limit: operation.limit === undefined ? undefined : integer(operation.limit, `${path}.limit`, 1, 1_000_000),
    consistentRead: operation.consistentRead === undefined ? false : boolean(operation.consistentRead, `${path}.consistentRead`),
  };
}

function generatorMap(value: unknown, path: string): AttributeGenerators | undefined {
  if (value === undefined) return undefined;
  const map: Record<string, GeneratorSpec> = {};
  for (const [name, generator] of Object.entries(object(value, path))) setOwn(map, name, parseGenerator(generator, `${path}.${name}`, fail));
  return map;
}

/** `{"k": 10, "prefix": "UN_USED#", "placeholder": ":shard"}`: the K keys a sharded read queries. */
function parseShards(value: unknown, path: string): NonNullable<OperationSpec['shards']> {
  const shards = object(value, path);
  allowOnly(shards, path, ['k', 'prefix', 'placeholder']);
  const placeholder = string(shards.placeholder, `${path}.placeholder`);
  if (!placeholder.startsWith(':')) fail(`${path}.placeholder`, `must be an expression value such as ":shard", got ${show(placeholder)}`);
  return { k: integer(shards.k, `${path}.k`, 1, SHARDS_MAX), prefix: shards.prefix === undefined ? '' : stringOrEmpty(shards.prefix, `${path}.prefix`), placeholder };
}

/** TransactWriteItems actions: `{"Put": {"table": "t", "item": {...}}}`, Update, Delete, ConditionCheck. */
function parseActions(value: unknown, path: string): TransactActionSpec[] {
  return array(value, path, 1, TRANSACT_ACTIONS_MAX).map((entry, index) => {
    const at = `${path}[${index}]`;
    const action = object(entry, at);
    const kinds = Object.keys(action);
    const kind = kinds[0];
    if (kinds.length !== 1 || !(TRANSACT_KINDS as readonly string[]).includes(kind!)) fail(at, `must be one of ${TRANSACT_KINDS.map((k) => `{"${k}": {...}}`).join(', ')}`);
    const actionKind = kind as TransactActionSpec['kind'];
    const bodyPath = `${at}.${actionKind}`;
    const body = object(action[actionKind], bodyPath);
    const fields = actionKind === 'Put' ? ['table', 'item', 'conditionExpression'] : actionKind === 'Update' ? ['table', 'key', 'updateExpression', 'conditionExpression'] : ['table', 'key', 'conditionExpression'];
    allowOnly(body, bodyPath, fields);
    const needs = (field: string): void => {
      if (body[field] === undefined) fail(`${bodyPath}.${field}`, `is required for ${actionKind}`);
    };
    if (actionKind === 'Put') needs('item');
    else needs('key');
    if (actionKind === 'Update') needs('updateExpression');
    if (actionKind === 'ConditionCheck') needs('conditionExpression');
    return {
      kind: actionKind,
      table: string(body.table, `${bodyPath}.table`),
      item: generatorMap(body.item, `${bodyPath}.item`),
      key: generatorMap(body.key, `${bodyPath}.key`),
      updateExpression: optionalString(body.updateExpression, `${bodyPath}.updateExpression`),
      conditionExpression: optionalString(body.conditionExpression, `${bodyPath}.conditionExpression`),
    };
  });
}

/** `itemsPerSecond` or `requestsPerSecond`: a number, or `{ "from": a, "to": b }` ramped over the phase. */
function parseRate(operation: Record<string, unknown>, path: string): Rate {
  const items = operation.itemsPerSecond;
  const requests = operation.requestsPerSecond;
  if ((items === undefined) === (requests === undefined)) fail(`${path}.itemsPerSecond`, 'give exactly one of itemsPerSecond and requestsPerSecond');
  const unit = items !== undefined ? 'items' : 'requests';
  const field = `${path}.${unit}PerSecond`;
  const value = items ?? requests;
  if (typeof value === 'number') {
    const perSecond = rateValue(value, field);
    return { unit, fromPerSecond: perSecond, toPerSecond: perSecond };
  }
  const ramp = object(value, field);
  allowOnly(ramp, field, ['from', 'to']);
  return { unit, fromPerSecond: rateValue(ramp.from, `${field}.from`), toPerSecond: rateValue(ramp.to, `${field}.to`) };
}

function rateValue(value: unknown, path: string): number {
  const rate = number(value, path);
  if (rate < 0) fail(path, `must not be negative, got ${rate}`);
  if (rate > RATE_PER_SECOND_MAX) fail(path, `must be at most ${RATE_PER_SECOND_MAX}, got ${rate}`);
  return rate;
}

function checkTablesExist(operation: OperationSpec, variant: VariantSpec): void {
  const tables = [operation.table, ...(operation.actions ?? []).map((action) => action.table)];
  for (const [index, table] of tables.entries()) {
    if (variant.tables.some((definition) => definition.TableName === table)) continue;
    const field = index === 0 ? `${operation.path}.table` : `${operation.path}.actions[${index - 1}]`;
    fail(field, `names table '${table}', which variant '${variant.name}' does not create`);
  }
}

// ---- field checks: each names its path and throws one line ----

export function fail(path: string, problem: string): never {
  throw new ScenarioError(`${path === '' ? '(scenario)' : path}: ${problem}`);
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'nothing' : text.length > 60 ? text.slice(0, 57) + '...' : text;
}

function object(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, `must be an object, got ${show(value)}`);
  return value as Record<string, unknown>;
}

function array(value: unknown, path: string, min: number, max: number): unknown[] {
  if (!Array.isArray(value)) fail(path, `must be a list, got ${show(value)}`);
  if (value.length < min || value.length > max) fail(path, `must hold ${min} to ${max} entries, got ${value.length}`);
  return value;
}

function string(value: unknown, path: string): string {
  if (typeof value !== 'string' || value === '') fail(path, `must be a non-empty string, got ${show(value)}`);
  return value;
}

function stringOrEmpty(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, `must be a string, got ${show(value)}`);
  return value;
}

function optionalString(value: unknown, path: string): string | undefined {
  return value === undefined ? undefined : string(value, path);
}

function boolean(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') fail(path, `must be true or false, got ${show(value)}`);
  return value;
}

function number(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(path, `must be a number, got ${show(value)}`);
  return value;
}

function nonNegative(value: unknown, path: string): number {
  const result = number(value, path);
  if (result < 0) fail(path, `must not be negative, got ${result}`);
  return result;
}

export function integer(value: unknown, path: string, min: number, max: number): number {
  const result = number(value, path);
  if (!Number.isInteger(result) || result < min || result > max) fail(path, `must be a whole number from ${min} to ${max}, got ${show(value)}`);
  return result;
}

const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/** Bytes, or a text such as "10GB" or "512KB" (binary units, as the CLI's --partition-size-limit). */
function size(value: unknown, path: string): number {
  if (typeof value === 'number') return integer(value, path, 1, Number.MAX_SAFE_INTEGER);
  const match = typeof value === 'string' ? /^(\d+(?:\.\d+)?)\s*([KMGT]?B)?$/i.exec(value.trim()) : null;
  const bytes = match === null ? NaN : Math.floor(Number(match[1]) * SIZE_UNITS[(match[2] ?? '').toUpperCase()]!);
  if (!Number.isSafeInteger(bytes) || bytes < 1) fail(path, `must be a size such as "10GB", "10MB" or 4096, got ${show(value)}`);
  return bytes;
}

function allowOnly(value: Record<string, unknown>, path: string, known: readonly string[]): void {
  for (const field of Object.keys(value)) {
    if (!known.includes(field)) fail(path === '' ? field : `${path}.${field}`, `is not a field here; known: ${known.join(', ')}`);
  }
}
