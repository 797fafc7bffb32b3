/**
 * ConsumedCapacity of the multi-table operations (BatchGetItem, BatchWriteItem, TransactGetItems,
 * TransactWriteItems): an array with one entry per table, in the order the request first names
 * each table, where the single-item operations return one object.
 */
import { consumedCapacity, type ConsumedCapacity, type ReturnConsumedCapacity } from './units.js';

/** Units summed per table name; insertion order is the order tables were first charged. */
export class TableUnits {
  readonly #units = new Map<string, number>();

  /** Names a table with nothing charged yet, so it still gets its (zero) entry. */
  touch(tableName: string): void {
    if (!this.#units.has(tableName)) this.#units.set(tableName, 0);
  }

  add(tableName: string, units: number): void {
    this.#units.set(tableName, (this.#units.get(tableName) ?? 0) + units);
  }

  /** The response member, or undefined for NONE (or no ReturnConsumedCapacity). */
  toConsumedCapacity(mode: ReturnConsumedCapacity | undefined): ConsumedCapacity[] | undefined {
    if (mode === undefined || mode === 'NONE') return undefined;
    return [...this.#units].map(([tableName, units]) => consumedCapacity(mode, tableName, units)!);
  }
}
