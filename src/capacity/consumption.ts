/**
 * What one request consumed, per table and per secondary index, and the ConsumedCapacity member
 * AWS answers with (reference: dynamodb-capacity-model.md §1.6).
 *
 * Where units are charged and where they are reported differ for LSIs: an LSI's reads and writes
 * come out of the table's throughput but are reported under LocalSecondaryIndexes. GSI units are
 * the GSI's own. CapacityUnits of an entry is the sum of its table, LSI and GSI units.
 *
 * Shapes, as real DynamoDB answers (§1.6, and captures quoted in the conformance suites):
 * - TOTAL: { TableName, CapacityUnits }.
 * - INDEXES: also Table: { CapacityUnits } and, for each index the request charged,
 *   GlobalSecondaryIndexes / LocalSecondaryIndexes: { name: { CapacityUnits } }.
 * - Transactional operations (TransactWriteItems, TransactGetItems, ExecuteTransaction) also
 *   split every figure into ReadCapacityUnits / WriteCapacityUnits (only the non-zero side).
 * - Single-table operations answer one object; batches and transactions an array, one entry per
 *   table in the order the request first named it.
 */
import { setOwn } from '../model/own-members.js';

export type ReturnConsumedCapacity = 'NONE' | 'TOTAL' | 'INDEXES';

/** AWS's Capacity shape. */
export interface Capacity {
  readonly CapacityUnits: number;
  readonly ReadCapacityUnits?: number;
  readonly WriteCapacityUnits?: number;
}

export interface ConsumedCapacity extends Capacity {
  readonly TableName: string;
  readonly Table?: Capacity;
  readonly GlobalSecondaryIndexes?: Readonly<Record<string, Capacity>>;
  readonly LocalSecondaryIndexes?: Readonly<Record<string, Capacity>>;
}

/** Read and write units of one table or index, within one request. */
export class Units {
  read = 0;
  write = 0;

  get total(): number {
    return this.read + this.write;
  }
}

export type IndexKind = 'global' | 'local';

/** Everything one request charged on one table: its own units and each index's. */
export class TableConsumption {
  readonly tableName: string;
  readonly table = new Units();
  #globals: Map<string, Units> | undefined;
  #locals: Map<string, Units> | undefined;

  constructor(tableName: string) {
    this.tableName = tableName;
  }

  /** The units of one index, created on first use (only charged indexes are reported). */
  index(kind: IndexKind, name: string): Units {
    const map = kind === 'global' ? (this.#globals ??= new Map()) : (this.#locals ??= new Map());
    let units = map.get(name);
    if (units === undefined) {
      units = new Units();
      map.set(name, units);
    }
    return units;
  }

  /** See Consumption.merge. Without a Table member (TOTAL), the total is the table's. */
  merge(capacity: ConsumedCapacity, side: 'read' | 'write'): void {
    this.table[side] += capacity.Table?.CapacityUnits ?? capacity.CapacityUnits;
    for (const [name, units] of Object.entries(capacity.GlobalSecondaryIndexes ?? {})) this.index('global', name)[side] += units.CapacityUnits;
    for (const [name, units] of Object.entries(capacity.LocalSecondaryIndexes ?? {})) this.index('local', name)[side] += units.CapacityUnits;
  }

  get read(): number {
    return this.table.read + sumOf(this.#globals, 'read') + sumOf(this.#locals, 'read');
  }

  get write(): number {
    return this.table.write + sumOf(this.#globals, 'write') + sumOf(this.#locals, 'write');
  }

  /** Units charged on a GSI (each GSI is its own capacity resource). */
  globalIndexes(): ReadonlyMap<string, Units> {
    return this.#globals ?? EMPTY;
  }

  localIndexes(): ReadonlyMap<string, Units> {
    return this.#locals ?? EMPTY;
  }

  /** The response member for this table; `split` adds Read/WriteCapacityUnits (transactions). */
  toConsumedCapacity(mode: 'TOTAL' | 'INDEXES', split: boolean): ConsumedCapacity {
    const total = capacityOf(this.read, this.write, split);
    if (mode === 'TOTAL') return { TableName: this.tableName, ...total };
    return {
      TableName: this.tableName,
      ...total,
      Table: capacityOf(this.table.read, this.table.write, split),
      ...(this.#globals === undefined ? {} : { GlobalSecondaryIndexes: capacities(this.#globals, split) }),
      ...(this.#locals === undefined ? {} : { LocalSecondaryIndexes: capacities(this.#locals, split) }),
    };
  }
}

const EMPTY: ReadonlyMap<string, Units> = new Map();

/** A request's consumption over every table it touched, in first-touch order. */
export class Consumption {
  readonly #tables: TableConsumption[] = [];

  /** The table's entry, created (with zero units) the first time the request names the table. */
  of(tableName: string): TableConsumption {
    // Requests touch few tables (at most 100 in a transaction): a scan beats a Map here.
    for (const table of this.#tables) if (table.tableName === tableName) return table;
    const table = new TableConsumption(tableName);
    this.#tables.push(table);
    return table;
  }

  /**
   * Adds what another operation reported (PartiQL statements run as DynamoDB operations). Its
   * figures are not split into reads and writes (it is not transactional), so `side` says which.
   */
  merge(capacity: ConsumedCapacity, side: 'read' | 'write'): void {
    const table = this.of(capacity.TableName);
    table.merge(capacity, side);
  }

  tables(): readonly TableConsumption[] {
    return this.#tables;
  }

  /** The array member of batches and transactions, or undefined for NONE. */
  toConsumedCapacities(mode: ReturnConsumedCapacity | undefined, split = false): ConsumedCapacity[] | undefined {
    if (mode === undefined || mode === 'NONE') return undefined;
    return this.#tables.map((table) => table.toConsumedCapacity(mode, split));
  }
}

/** The single-object member of one-table operations, or undefined for NONE. */
export function consumedCapacityOf(mode: ReturnConsumedCapacity | undefined, consumption: TableConsumption): ConsumedCapacity | undefined {
  if (mode === undefined || mode === 'NONE') return undefined;
  return consumption.toConsumedCapacity(mode, false);
}

/** ConsumedCapacity of a read or write that charged only the table (GetItem, writes without indexes). */
export function consumedCapacity(mode: ReturnConsumedCapacity | undefined, tableName: string, units: number): ConsumedCapacity | undefined {
  if (mode === undefined || mode === 'NONE') return undefined;
  if (mode === 'TOTAL') return { TableName: tableName, CapacityUnits: units };
  return { TableName: tableName, CapacityUnits: units, Table: { CapacityUnits: units } };
}

function capacityOf(read: number, write: number, split: boolean): Capacity {
  if (!split) return { CapacityUnits: read + write };
  return {
    CapacityUnits: read + write,
    ...(read > 0 ? { ReadCapacityUnits: read } : {}),
    ...(write > 0 ? { WriteCapacityUnits: write } : {}),
  };
}

function capacities(map: ReadonlyMap<string, Units>, split: boolean): Record<string, Capacity> {
  const result: Record<string, Capacity> = {};
  // Index names are the user's: `__proto__` must be a member, not the prototype.
  for (const [name, units] of map) setOwn(result, name, capacityOf(units.read, units.write, split));
  return result;
}

function sumOf(map: ReadonlyMap<string, Units> | undefined, side: 'read' | 'write'): number {
  if (map === undefined) return 0;
  let total = 0;
  for (const units of map.values()) total += units[side];
  return total;
}
