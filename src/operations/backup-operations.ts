/** The backup and point-in-time recovery operations, one file each (engine/backups.ts does the work). */
import { createBackupOperation } from './createBackup.js';
import { deleteBackupOperation } from './deleteBackup.js';
import { describeBackupOperation } from './describeBackup.js';
import { describeContinuousBackupsOperation } from './describeContinuousBackups.js';
import { listBackupsOperation } from './listBackups.js';
import type { AnyOperation } from './operation.js';
import { restoreTableFromBackupOperation } from './restoreTableFromBackup.js';
import { restoreTableToPointInTimeOperation } from './restoreTableToPointInTime.js';
import { updateContinuousBackupsOperation } from './updateContinuousBackups.js';

export const backupOperations: readonly AnyOperation[] = [
  createBackupOperation,
  describeBackupOperation,
  listBackupsOperation,
  deleteBackupOperation,
  restoreTableFromBackupOperation,
  describeContinuousBackupsOperation,
  updateContinuousBackupsOperation,
  restoreTableToPointInTimeOperation,
];
