/**
 * RestoreTableFromBackup: a new table from a backup, with the backup's keys, indexes and items
 * (and the overrides the request gives). Answers CREATING; the items load in the background in
 * chunks through the write pipeline, and the table is ACTIVE once all are in (engine/backups.ts).
 * DescribeTable reports the RestoreSummary for as long as the table lives.
 */
import { describeTable } from '../engine/describe.js';
import {
  backupArnMember,
  backupInUse,
  backupNotFound,
  requireBackup,
  restoredTableRecord,
  restoreOverrideMembers,
  restoreOverridesOf,
  tableAlreadyExists,
  targetTableNameMember,
  type RestoreOverrides,
} from './backup-common.js';
import { defineOperation } from './operation.js';

interface RestoreTableFromBackupRequest {
  readonly target: string;
  readonly backupArn: string;
  readonly overrides: RestoreOverrides;
}

export const restoreTableFromBackupOperation = defineOperation<RestoreTableFromBackupRequest>({
  name: 'RestoreTableFromBackup',
  members: {
    TargetTableName: targetTableNameMember,
    BackupArn: backupArnMember,
    ...restoreOverrideMembers,
  },

  validate(input) {
    return { target: input.TargetTableName as string, backupArn: input.BackupArn as string, overrides: restoreOverridesOf(input) };
  },

  async execute(engine, request) {
    const nowMs = engine.clock.nowMs();
    const backup = requireBackup(engine, request.backupArn);
    const check = (): void => {
      if (engine.backups.get(backup.arn) === undefined) throw backupNotFound(request.backupArn);
      if (backup.status !== 'AVAILABLE') throw backupInUse(`Backup is being created: ${request.backupArn}`);
      // One restore at a time per backup, as DynamoDB.
      if (engine.backups.restoring(backup.id)) throw backupInUse(`Backup is being used to restore another table: ${request.backupArn}`);
      if (engine.catalog.get(request.target) !== undefined) throw tableAlreadyExists(request.target);
    };
    check();
    const table = await engine.catalog.create(
      (ids) =>
        restoredTableRecord(engine, backup.table, request.target, request.overrides, ids, nowMs, { backupId: backup.id, dropBackup: false }, {
          sourceBackupArn: backup.arn,
          sourceTableArn: backup.table.arn,
          restoreDateTimeMs: backup.createdAtMs,
          inProgress: true,
        }),
      check,
    );
    engine.backups.restoreStarted(table);
    return { TableDescription: describeTable(table, nowMs) };
  },
});
