/**
 * DescribeContinuousBackups: DynamoDB turns continuous backups on by itself a few seconds after a
 * table is created, so a new table reports DISABLED at first and ENABLED from then on (or at once
 * when point-in-time recovery is enabled, which needs them); point-in-time recovery is ENABLED or
 * DISABLED, and when enabled its window is read on the server's clock (engine/backups.ts
 * earliestRestorableMs; the latest restorable time is now).
 */
import { earliestRestorableMs } from '../engine/backups.js';
import { epochSeconds } from '../engine/describe.js';
import type { Engine } from '../engine/engine.js';
import type { Table } from '../engine/table.js';
import { requireBackupSource } from './createBackup.js';
import { tableNameOrArnMember, tableReferenceOf, type TableReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';

/**
 * How long after a table turns ACTIVE its continuous backups stay DISABLED, on the injected clock.
 * Observed as "a few seconds" (docs/CONFORMANCE.md); the exact figure is our choice.
 */
export const CONTINUOUS_BACKUPS_DELAY_MS = 5_000;

export function continuousBackupsDescription(engine: Engine, table: Table): Record<string, unknown> {
  const pitr = table.record.pointInTimeRecovery;
  const nowMs = engine.clock.nowMs();
  const enabled = pitr !== undefined || nowMs >= table.record.activeAtMs + CONTINUOUS_BACKUPS_DELAY_MS;
  return {
    ContinuousBackupsStatus: enabled ? 'ENABLED' : 'DISABLED',
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
