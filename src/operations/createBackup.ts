/**
 * CreateBackup: an on-demand backup of the table as it is at this instant (UPDATING and DELETING
 * tables too; a CREATING one is not found, as on DynamoDB). Answers CREATING at
 * once; the copy runs in the background in chunks while the table keeps serving writes, and the
 * backup turns AVAILABLE when it holds exactly the items of that instant (engine/backups.ts).
 */
import { tableStatusAt } from '../engine/describe.js';
import type { Engine } from '../engine/engine.js';
import type { Table } from '../engine/table.js';
import { backupDetailsOf, backupNameMember, tableNotFoundForBackup } from './backup-common.js';
import { tableNameOrArnMember, tableReferenceOf, type TableReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';

interface CreateBackupRequest {
  readonly reference: TableReference;
  readonly backupName: string;
}

/** The table a backup operation names (by name or ARN of this account and region), or TableNotFoundException. */
export function requireBackupSource(engine: Engine, reference: TableReference): Table {
  const table = engine.catalog.get(reference.name);
  if (table === undefined || (reference.arn !== undefined && reference.arn !== table.record.arn)) throw tableNotFoundForBackup(reference.name);
  return table;
}

export const createBackupOperation = defineOperation<CreateBackupRequest>({
  name: 'CreateBackup',
  members: {
    TableName: tableNameOrArnMember,
    BackupName: backupNameMember,
  },

  validate(input) {
    return { reference: tableReferenceOf(input.TableName as string), backupName: input.BackupName as string };
  },

  async execute(engine, request) {
    requireBackupSource(engine, request.reference);
    const record = await engine.backups.create(request.reference.name, request.backupName, 'USER', undefined, (table) => {
      // DynamoDB answers a table still CREATING as if it did not exist; UPDATING and DELETING tables are backed up.
      if (tableStatusAt(table.record, engine.clock.nowMs()) === 'CREATING') throw tableNotFoundForBackup(table.name);
    });
    return { BackupDetails: backupDetailsOf(record) };
  },
});
