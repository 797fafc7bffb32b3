/**
 * Partition maps of a table and of each of its GSIs, attached when the catalog loads, creates or
 * updates a table. LSIs have none of their own: their entries live with the table's items, on the
 * table's partitions (an item collection never leaves its partition when a table has an LSI).
 *
 * Throughput of a resource: a provisioned table's own; a GSI of a provisioned table its own
 * ProvisionedThroughput; anything of an on-demand table is on-demand.
 */
import type { Throughput } from '../capacity/partitions.js';
import type { ReadView, WriteTransaction } from '../storage/storage.js';
import type { SecondaryIndex } from './indexes.js';
import { ResourcePartitions, type PartitionSettings } from './partition-tracker.js';
import type { IndexRecord, Table, TableRecord } from './table.js';

export function tableThroughput(record: TableRecord): Throughput {
  if (record.billingMode === 'PAY_PER_REQUEST') return { mode: 'on-demand' };
  return { mode: 'provisioned', readUnitsPerSecond: record.throughput.readCapacityUnits, writeUnitsPerSecond: record.throughput.writeCapacityUnits };
}

export function globalIndexThroughput(record: TableRecord, index: IndexRecord): Throughput {
  if (record.billingMode === 'PAY_PER_REQUEST' || index.throughput === undefined) return { mode: 'on-demand' };
  return { mode: 'provisioned', readUnitsPerSecond: index.throughput.readCapacityUnits, writeUnitsPerSecond: index.throughput.writeCapacityUnits };
}

/** Start-up: every GSI's map from its saved layout (the table's is opened with the table). */
export function openIndexPartitions(view: ReadView, table: Table, settings: PartitionSettings): void {
  for (const index of globalIndexes(table)) {
    index.state.partitions ??= ResourcePartitions.open(view, index.id, index.prefix, settings, globalIndexThroughput(table.record, index.record));
  }
}

/**
 * After a table's record changed (or was created) inside `txn`: new GSIs get a map, the table and
 * existing GSIs take their new throughput (splitting when it needs more partitions), and the maps
 * of indexes that are gone are forgotten.
 */
export function syncPartitions(txn: WriteTransaction, previous: Table | undefined, table: Table, settings: PartitionSettings): void {
  table.partitions.setThroughput(txn, tableThroughput(table.record));
  for (const index of globalIndexes(table)) {
    const throughput = globalIndexThroughput(table.record, index.record);
    const partitions = index.state.partitions;
    if (partitions === undefined) index.state.partitions = ResourcePartitions.create(txn, index.id, index.prefix, settings, throughput);
    else partitions.setThroughput(txn, throughput);
  }
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
