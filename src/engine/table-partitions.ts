/**
 * Partition maps of a table and of each of its GSIs, attached when the catalog loads, creates or
 * updates a table. LSIs have none of their own: their entries live with the table's items, on the
 * table's partitions (an item collection never leaves its partition when a table has an LSI).
 *
 * Throughput of a resource: a provisioned table's own; a GSI of a provisioned table its own
 * ProvisionedThroughput; anything of an on-demand table is on-demand.
 */
import { ResourceCapacity, type CapacitySettings, type ResourceBilling } from '../capacity/admission.js';
import type { Throughput } from '../capacity/partitions.js';
import type { Clock } from '../clock.js';
import type { ReadView, WriteTransaction } from '../storage/storage.js';
import type { SecondaryIndex } from './indexes.js';
import { ResourcePartitions, type BackgroundWrite, type PartitionSettings } from './partition-tracker.js';
import type { IndexRecord, Table, TableRecord, WarmThroughputRecord } from './table.js';

export function tableThroughput(record: TableRecord): Throughput {
  if (record.billingMode === 'PAY_PER_REQUEST') return { mode: 'on-demand' };
  return { mode: 'provisioned', readUnitsPerSecond: record.throughput.readCapacityUnits, writeUnitsPerSecond: record.throughput.writeCapacityUnits };
}

export function globalIndexThroughput(record: TableRecord, index: IndexRecord): Throughput {
  if (record.billingMode === 'PAY_PER_REQUEST' || index.throughput === undefined) return { mode: 'on-demand' };
  return { mode: 'provisioned', readUnitsPerSecond: index.throughput.readCapacityUnits, writeUnitsPerSecond: index.throughput.writeCapacityUnits };
}

/** What the partition maps and their admission state need from the engine. */
export interface PartitionEnvironment {
  readonly clock: Clock;
  readonly partitionSettings: PartitionSettings;
  /** Where a split due outside a write (a read found the on-demand peak needs more partitions) is run. */
  readonly backgroundWrite?: BackgroundWrite;
}

/** Start-up: every GSI's map from its saved layout (the table's is opened with the table). */
export function openIndexPartitions(view: ReadView, table: Table, env: PartitionEnvironment): void {
  const settings = env.partitionSettings;
  for (const index of globalIndexes(table)) {
    index.state.partitions ??= ResourcePartitions.open(view, index.id, index.prefix, settings, globalIndexThroughput(table.record, index.record));
  }
  syncCapacity(table, env);
}

export function tableBilling(record: TableRecord): ResourceBilling {
  if (record.billingMode === 'PAY_PER_REQUEST') return onDemandBilling(record.onDemandThroughput);
  return { mode: 'provisioned', readUnitsPerSecond: record.throughput.readCapacityUnits, writeUnitsPerSecond: record.throughput.writeCapacityUnits };
}

export function globalIndexBilling(record: TableRecord, index: IndexRecord): ResourceBilling {
  if (record.billingMode === 'PAY_PER_REQUEST' || index.throughput === undefined) return onDemandBilling(index.onDemandThroughput);
  return { mode: 'provisioned', readUnitsPerSecond: index.throughput.readCapacityUnits, writeUnitsPerSecond: index.throughput.writeCapacityUnits };
}

function onDemandBilling(maxima: TableRecord['onDemandThroughput']): ResourceBilling {
  return { mode: 'on-demand', maxReadRequestUnits: maxima?.MaxReadRequestUnits, maxWriteRequestUnits: maxima?.MaxWriteRequestUnits };
}

/**
 * Gives the table and each live GSI its admission state (created on first sight, else told its
 * current billing) and ties the GSIs to the table, whose writes their back-pressure can refuse.
 */
function syncCapacity(table: Table, env: PartitionEnvironment): void {
  const nowMs = env.clock.nowMs();
  const tableCapacity = capacityOf(table.partitions, table.record.arn, 'Table', tableBilling(table.record), env, nowMs);
  prewarmCapacity(tableCapacity, table.record.warmThroughput, nowMs);
  const live = new Set<ResourceCapacity>();
  for (const index of globalIndexes(table)) {
    const partitions = index.state.partitions;
    if (partitions === undefined) continue;
    const arn = `${table.record.arn}/index/${index.name}`;
    const indexCapacity = capacityOf(partitions, arn, 'Index', globalIndexBilling(table.record, index.record), env, nowMs);
    prewarmCapacity(indexCapacity, index.record.warmThroughput, nowMs);
    tableCapacity.attachIndex(indexCapacity);
    live.add(indexCapacity);
  }
  for (const attached of [...tableCapacity.indexes]) if (!live.has(attached)) tableCapacity.detachIndex(attached);
}

/** Pre-warmed (§4.4): enough partitions for the warm throughput, split in the request's write. */
function prewarmPartitions(txn: WriteTransaction, partitions: ResourcePartitions, warm: WarmThroughputRecord | undefined): void {
  if (warm !== undefined) partitions.prewarm(txn, warm.ReadUnitsPerSecond ?? 0, warm.WriteUnitsPerSecond ?? 0);
}

/** Pre-warmed (§4.4): the resource admits its warm throughput at once (again after a restart). */
function prewarmCapacity(capacity: ResourceCapacity, warm: WarmThroughputRecord | undefined, nowMs: number): void {
  if (warm === undefined) return;
  capacity.prewarm('read', warm.ReadUnitsPerSecond ?? 0, nowMs);
  capacity.prewarm('write', warm.WriteUnitsPerSecond ?? 0, nowMs);
}

function sameBilling(capacity: ResourceCapacity, billing: ResourceBilling): boolean {
  const current = capacity.billing;
  if (current.mode === 'provisioned' && billing.mode === 'provisioned') {
    return current.readUnitsPerSecond === billing.readUnitsPerSecond && current.writeUnitsPerSecond === billing.writeUnitsPerSecond;
  }
  if (current.mode === 'on-demand' && billing.mode === 'on-demand') {
    return current.maxReadRequestUnits === billing.maxReadRequestUnits && current.maxWriteRequestUnits === billing.maxWriteRequestUnits;
  }
  return false;
}

/** `adaptiveCapacity: 'auto'` is off under the classic (pre-adaptive) partition model, on otherwise. */
function resolvedSettings(settings: PartitionSettings): Partial<CapacitySettings> {
  const capacity = settings.capacity ?? {};
  if ((capacity.adaptiveCapacity ?? 'auto') !== 'auto') return capacity;
  return { ...capacity, adaptiveCapacity: settings.policy.model === 'classic' ? 'off' : 'on' };
}

function capacityOf(partitions: ResourcePartitions, arn: string, kind: 'Table' | 'Index', billing: ResourceBilling, env: PartitionEnvironment, nowMs: number): ResourceCapacity {
  if (!partitions.hasCapacity) {
    const capacity = new ResourceCapacity({ arn, kind, billing, settings: resolvedSettings(env.partitionSettings), nowMs });
    partitions.attachCapacity(capacity, env.clock, env.backgroundWrite);
    return capacity;
  }
  const capacity = partitions.capacity;
  if (!sameBilling(capacity, billing)) capacity.setBilling(billing, nowMs);
  return capacity;
}

/**
 * After a table's record changed (or was created) inside `txn`: new GSIs get a map, the table and
 * existing GSIs take their new throughput (splitting when it needs more partitions), and the maps
 * of indexes that are gone are forgotten.
 */
export function syncPartitions(txn: WriteTransaction, previous: Table | undefined, table: Table, env: PartitionEnvironment): void {
  const settings = env.partitionSettings;
  table.partitions.setThroughput(txn, tableThroughput(table.record));
  prewarmPartitions(txn, table.partitions, table.record.warmThroughput);
  for (const index of globalIndexes(table)) {
    const throughput = globalIndexThroughput(table.record, index.record);
    const partitions = index.state.partitions;
    if (partitions === undefined) index.state.partitions = ResourcePartitions.create(txn, index.id, index.prefix, settings, throughput);
    else partitions.setThroughput(txn, throughput);
    prewarmPartitions(txn, index.state.partitions!, index.record.warmThroughput);
  }
  syncCapacity(table, env);
  if (previous === undefined) return;
  for (const index of previous.indexes.all) {
    if (table.indexes.byId(index.id) === undefined) ResourcePartitions.remove(txn, index.id);
  }
}

/** DeleteTable: the table's and its indexes' layouts go with it. */
export function removePartitions(txn: WriteTransaction, table: Table): void {
  ResourcePartitions.remove(txn, table.record.id);
  for (const index of table.indexes.all) ResourcePartitions.remove(txn, index.id);
}

function globalIndexes(table: Table): SecondaryIndex[] {
  return table.indexes.all.filter((index) => index.kind === 'global' && index.live);
}
