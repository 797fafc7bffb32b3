/**
 * What a write costs, as the response's ConsumedCapacity reports it (reference §1.4, §1.5). The
 * units are the plan's (write-pipeline.ts): the same figures admission consumed and the metrics
 * recorded, read here, never computed again. A write pays the table for the larger of its old and
 * new image (doubled in a transaction), and every index its entry writes — a GSI from its own
 * capacity, an LSI from the table's (reported under LocalSecondaryIndexes). Transactional index
 * writes cost what the same write costs outside a transaction (see docs/CAPACITY-MODEL.md).
 */
import { TableConsumption, type ConsumedCapacity, type ReturnConsumedCapacity } from '../capacity/consumption.js';
import type { WritePlan } from './write-pipeline.js';

/** Adds one planned (and applied) write's units to a request's consumption of its table. */
export function chargeWrite(consumption: TableConsumption, plan: WritePlan): void {
  consumption.table.write += plan.tableWriteUnits;
  for (const { index, change } of plan.indexWrites) {
    if (change.writeUnits > 0) consumption.index(index.kind, index.name).write += change.writeUnits;
  }
}

/** The ConsumedCapacity member of a single-item write (PutItem, UpdateItem, DeleteItem). */
export function writeConsumedCapacity(mode: ReturnConsumedCapacity | undefined, plan: WritePlan): ConsumedCapacity | undefined {
  if (mode === undefined || mode === 'NONE') return undefined;
  const consumption = new TableConsumption(plan.table.name);
  chargeWrite(consumption, plan);
  return consumption.toConsumedCapacity(mode, false);
}
