/**
 * DeleteTable: removes a table, its items and its index entries. The answer is the table's last description with
 * TableStatus DELETING; the table is gone as soon as the call returns.
 */
import { describeTable, tableStatusAt } from '../engine/describe.js';
import { resourceInUse, validationError } from '../errors.js';
import {
  requireTable,
  tableBeingCreated,
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
    requireTable(engine, reference);
    // The checks run inside the delete's transaction, against the table as it is then.
    const deleted = await engine.catalog.delete(reference.name, (current) => {
      if (tableStatusAt(current.record, nowMs) === 'CREATING') throw tableBeingCreated(reference.name);
      if (current.record.globalSecondaryIndexes.some((index) => index.status === 'DELETING' || index.backfilling === true)) {
        throw resourceInUse('Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, updated, or deleted.');
      }
      if (current.record.deletionProtectionEnabled) {
        throw validationError(
          'Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.',
        );
      }
    });
    // Its metrics, heat-map history and Contributor Insights rules go with it.
    engine.telemetry.dropTable(deleted.name);
    return { TableDescription: describeTable(deleted, nowMs, { status: 'DELETING', omitGlobalIndexes: true }) };
  },
});
