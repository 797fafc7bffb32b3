/** DescribeBackup: a backup's details, its source table and that table's features at backup time. */
import { backupArnMember, backupDescriptionOf, requireBackup } from './backup-common.js';
import { defineOperation } from './operation.js';

export const describeBackupOperation = defineOperation<string>({
  name: 'DescribeBackup',
  members: { BackupArn: backupArnMember },

  validate(input) {
    return input.BackupArn as string;
  },

  execute(engine, arn) {
    return { BackupDescription: backupDescriptionOf(requireBackup(engine, arn)) };
  },
});
