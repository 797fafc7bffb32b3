/**
 * What a write or read costs, charged where AWS charges it (reference §1.4, §1.5): a write pays the
 * table for the larger of its old and new image, and every index its entry writes — a GSI from its
 * own capacity, an LSI from the table's (reported under LocalSecondaryIndexes). Transactions pay
 * double on the table; their index writes cost what the same write costs outside a transaction
 * (as DynamoDB reports them; see docs/CAPACITY-MODEL.md).
 */
import { TableConsumption, type ConsumedCapacity, type ReturnConsumedCapacity } from '../capacity/consumption.js';
import { writeUnits } from '../capacity/units.js';
import type { IndexWrite } from './index-maintenance.js';

/** The sizes and index changes of one applied write (every write outcome carries them). */
export interface WriteCharge {
  readonly oldSizeBytes: number;
  readonly newSizeBytes: number;
  readonly indexWrites: readonly IndexWrite[];
}

/** The table's part of a write: the larger image, rounded up to 1 KB (doubled in a transaction). */
export function tableWriteUnits(oldSizeBytes: number, newSizeBytes: number, transactional: boolean): number {
  return writeUnits(Math.max(oldSizeBytes, newSizeBytes), transactional);
}

export function chargeWrite(consumption: TableConsumption, write: WriteCharge, transactional = false): void {
  consumption.table.write += tableWriteUnits(write.oldSizeBytes, write.newSizeBytes, transactional);
  for (const { index, change } of write.indexWrites) {
    if (change.writeUnits > 0) consumption.index(index.kind, index.name).write += change.writeUnits;
  }
}


/** The ConsumedCapacity member of a single-item write (PutItem, UpdateItem, DeleteItem). */
export function writeConsumedCapacity(mode: ReturnConsumedCapacity | undefined, tableName: string, write: WriteCharge): ConsumedCapacity | undefined {
  if (mode === undefined || mode === 'NONE') return undefined;
  const consumption = new TableConsumption(tableName);
  chargeWrite(consumption, write);
  return consumption.toConsumedCapacity(mode, false);
}
