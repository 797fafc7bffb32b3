/**
 * DescribeContinuousBackups: continuous backups are always ENABLED on DynamoDB; point-in-time
 * recovery is ENABLED or DISABLED, and when enabled its window is read on the server's clock
 * (engine/backups.ts earliestRestorableMs; the latest restorable time is now).
 */
import { earliestRestorableMs } from '../engine/backups.js';
import { epochSeconds } from '../engine/describe.js';
import type { Engine } from '../engine/engine.js';
import type { Table } from '../engine/table.js';
import { requireBackupSource } from './createBackup.js';
import { tableNameOrArnMember, tableReferenceOf, type TableReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';

export function continuousBackupsDescription(engine: Engine, table: Table): Record<string, unknown> {
  const pitr = table.record.pointInTimeRecovery;
  const nowMs = engine.clock.nowMs();
  return {
    ContinuousBackupsStatus: 'ENABLED',
    PointInTimeRecoveryDescription:
      pitr === undefined
        ? { PointInTimeRecoveryStatus: 'DISABLED' }
        : {
            PointInTimeRecoveryStatus: 'ENABLED',
            RecoveryPeriodInDays: pitr.recoveryPeriodInDays,
            EarliestRestorableDateTime: epochSeconds(earliestRestorableMs(pitr, nowMs)),
            LatestRestorableDateTime: epochSeconds(nowMs),
          },
  };
}

export const describeContinuousBackupsOperation = defineOperation<TableReference>({
  name: 'DescribeContinuousBackups',
  members: { TableName: tableNameOrArnMember },

  validate(input) {
    return tableReferenceOf(input.TableName as string);
  },

  execute(engine, reference) {
    return { ContinuousBackupsDescription: continuousBackupsDescription(engine, requireBackupSource(engine, reference)) };
  },
});
