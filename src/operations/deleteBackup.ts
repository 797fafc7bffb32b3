/**
 * DeleteBackup: the backup is DELETED at once (no longer described or listed); its items leave the
 * store in chunks in the background. A backup still being created, or being restored from, is in use.
 */
import { backupArnMember, backupDescriptionOf, backupInUse, requireBackup } from './backup-common.js';
import { validationError } from '../errors.js';
import { defineOperation } from './operation.js';

export const deleteBackupOperation = defineOperation<string>({
  name: 'DeleteBackup',
  members: { BackupArn: backupArnMember },

  validate(input) {
    return input.BackupArn as string;
  },

  async execute(engine, arn) {
    const found = requireBackup(engine, arn);
    if (found.type === 'SYSTEM') throw validationError(`System backups cannot be deleted: ${arn}`);
    const deleted = await engine.backups.delete(found.arn, (record) => {
      if (record.status === 'CREATING') throw backupInUse(`Backup is being created: ${arn}`);
      if (engine.backups.restoring(record.id)) throw backupInUse(`Backup is being used to restore table: ${arn}`);
    });
    return { BackupDescription: backupDescriptionOf(deleted) };
  },
});
