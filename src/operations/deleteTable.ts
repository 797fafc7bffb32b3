/**
 * DeleteTable: removes a table, its items and its index entries. The answer is a short description
 * with TableStatus DELETING (describeDeletedTable). With no delay (`--table-delete-delay`, default 0) the
 * table is gone as soon as the call returns; with one, it stays DELETING for that long on the
 * injected clock — item operations find no table, control-plane changes are refused as in use —
 * and is then removed (engine/table-deletions.ts).
 */
import { describeDeletedTable, tableStatusAt } from '../engine/describe.js';
import type { TableRecord } from '../engine/table.js';
import { resourceInUse, validationError } from '../errors.js';
import {
  requireTable,
  tableBeingCreated,
  tableInTransition,
  tableNameOrArnMember,
  tableReferenceOf,
  type TableReference,
} from './control-plane-common.js';
import { defineOperation } from './operation.js';

export const deleteTableOperation = defineOperation<TableReference>({
  name: 'DeleteTable',
  members: {
    TableName: tableNameOrArnMember,
  },

  validate(input) {
    return tableReferenceOf(input.TableName as string);
  },

  async execute(engine, reference) {
    const nowMs = engine.clock.nowMs();
    const table = requireTable(engine, reference);
    if (table.record.pointInTimeRecovery !== undefined) {
      // DynamoDB keeps a deleted PITR table as a SYSTEM backup for 35 days (engine/backups.ts).
      await engine.backups.create(table.name, `${table.name}$DeletedTableBackup`, 'SYSTEM', undefined, (current) => checkDeletable(current.record, nowMs));
    }
    // A backup being copied reads the table until it is complete; the table goes after it.
    await engine.backups.copiesOf(table.record.id);
    const delayMs = engine.settings.tableDeleteDelayMs ?? 0;
    // The checks run inside the delete's transaction, against the table as it is then.
    const check = (record: TableRecord): void => checkDeletable(record, nowMs);
    if (delayMs === 0) {
      const deleted = await engine.catalog.delete(reference.name, (current) => check(current.record));
      // Its metrics, heat-map history and Contributor Insights rules go with it.
      engine.telemetry.dropTable(deleted.name);
      return { TableDescription: describeDeletedTable(deleted, nowMs) };
    }
    const marked = await engine.catalog.update(reference.name, (current) => {
      check(current.record);
      return { ...current.record, deletingUntilMs: nowMs + delayMs };
    });
    engine.tableDeletions.schedule(marked);
    return { TableDescription: describeDeletedTable(marked, nowMs) };
  },
});

function checkDeletable(record: TableRecord, nowMs: number): void {
  const status = tableStatusAt(record, nowMs);
  if (status === 'CREATING') throw tableBeingCreated(record.name);
  if (status === 'UPDATING' || status === 'DELETING') throw tableInTransition(record.name, status);
  if (record.globalSecondaryIndexes.some((index) => index.status === 'DELETING' || index.backfilling === true)) {
    throw resourceInUse('Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, updated, or deleted.');
  }
  if (record.deletionProtectionEnabled) {
    throw validationError('Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.');
  }
}
