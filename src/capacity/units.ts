/**
 * Capacity-unit arithmetic as AWS charges it (reference: dynamodb-capacity-model.md §1.1, §1.6).
 * Pure functions; the request path calls them once per item touched.
 */

/** Read units are charged per started 4 KB. */
export const READ_UNIT_BYTES = 4 * 1024;
/** Write units are charged per started 1 KB. */
export const WRITE_UNIT_BYTES = 1024;

export type ReadConsistency = 'eventual' | 'strong' | 'transactional';

const READ_UNITS_PER_BLOCK: Readonly<Record<ReadConsistency, number>> = {
  eventual: 0.5,
  strong: 1,
  transactional: 2,
};

/** Units for reading `sizeBytes` in one request; a missing item (size 0) still costs one block. */
export function readUnits(sizeBytes: number, consistency: ReadConsistency): number {
  const blocks = Math.max(1, Math.ceil(sizeBytes / READ_UNIT_BYTES));
  return blocks * READ_UNITS_PER_BLOCK[consistency];
}

/** Units for writing an item of `sizeBytes`; every write costs at least one unit. */
export function writeUnits(sizeBytes: number, transactional = false): number {
  const blocks = Math.max(1, Math.ceil(sizeBytes / WRITE_UNIT_BYTES));
  return transactional ? blocks * 2 : blocks;
}

export type ReturnConsumedCapacity = 'NONE' | 'TOTAL' | 'INDEXES';

export interface ConsumedCapacity {
  readonly TableName: string;
  readonly CapacityUnits: number;
  readonly Table?: { readonly CapacityUnits: number };
  readonly GlobalSecondaryIndexes?: Readonly<Record<string, { readonly CapacityUnits: number }>>;
  readonly LocalSecondaryIndexes?: Readonly<Record<string, { readonly CapacityUnits: number }>>;
}

/** The ConsumedCapacity member of a single-table response, or undefined for NONE. */
export function consumedCapacity(
  mode: ReturnConsumedCapacity | undefined,
  tableName: string,
  units: number,
): ConsumedCapacity | undefined {
  if (mode === undefined || mode === 'NONE') return undefined;
  if (mode === 'TOTAL') return { TableName: tableName, CapacityUnits: units };
  return { TableName: tableName, CapacityUnits: units, Table: { CapacityUnits: units } };
}

/** The index a read went through, and what it cost there and in the table (LSI fetches). */
export interface IndexReadUnits {
  readonly indexName: string;
  readonly global: boolean;
  readonly indexUnits: number;
  readonly tableUnits: number;
}

/** ConsumedCapacity of a Query or Scan on an index: INDEXES splits the total between table and index. */
export function indexReadConsumedCapacity(
  mode: ReturnConsumedCapacity | undefined,
  tableName: string,
  read: IndexReadUnits,
): ConsumedCapacity | undefined {
  if (mode === undefined || mode === 'NONE') return undefined;
  const total = read.indexUnits + read.tableUnits;
  if (mode === 'TOTAL') return { TableName: tableName, CapacityUnits: total };
  const indexes = { [read.indexName]: { CapacityUnits: read.indexUnits } };
  return {
    TableName: tableName,
    CapacityUnits: total,
    Table: { CapacityUnits: read.tableUnits },
    ...(read.global ? { GlobalSecondaryIndexes: indexes } : { LocalSecondaryIndexes: indexes }),
  };
}
