/**
 * UpdateContinuousBackups: turns point-in-time recovery on (with a recovery period of 1 to 35
 * days, 35 by default) or off. Turning it on starts the table's history in the same storage write
 * (engine/history.ts), so the window opens exactly then; turning it off lets the history go.
 * Changing only the period of an enabled table keeps the history and its start.
 */
import { RECOVERY_PERIOD_DAYS_MAX } from '../engine/backups.js';
import type { PointInTimeRecoveryRecord, TableRecord } from '../engine/table.js';
import { validationError } from '../errors.js';
import { requireBackupSource } from './createBackup.js';
import { continuousBackupsDescription } from './describeContinuousBackups.js';
import { tableNameOrArnMember, tableReferenceOf, type TableReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';

interface UpdateContinuousBackupsRequest {
  readonly reference: TableReference;
  readonly enabled: boolean;
  readonly recoveryPeriodInDays: number | undefined;
}

export const updateContinuousBackupsOperation = defineOperation<UpdateContinuousBackupsRequest>({
  name: 'UpdateContinuousBackups',
  members: {
    TableName: tableNameOrArnMember,
    PointInTimeRecoverySpecification: shapes.structure(
      'PointInTimeRecoverySpecification',
      {
        PointInTimeRecoveryEnabled: shapes.boolean({ notNull: true }),
        RecoveryPeriodInDays: shapes.integer({ valueMin: 1, valueMax: RECOVERY_PERIOD_DAYS_MAX }),
      },
      { notNull: true },
    ),
  },

  validate(input) {
    const specification = input.PointInTimeRecoverySpecification as { PointInTimeRecoveryEnabled: boolean; RecoveryPeriodInDays?: number };
    const enabled = specification.PointInTimeRecoveryEnabled;
    if (!enabled && specification.RecoveryPeriodInDays !== undefined) {
      throw validationError('RecoveryPeriodInDays can only be specified when PointInTimeRecoveryEnabled is true');
    }
    return { reference: tableReferenceOf(input.TableName as string), enabled, recoveryPeriodInDays: specification.RecoveryPeriodInDays };
  },

  async execute(engine, request) {
    const found = requireBackupSource(engine, request.reference);
    const nowMs = engine.clock.nowMs();
    const table = await engine.catalog.update(found.name, (current) => {
      const next = nextRecovery(current.record, request, nowMs);
      const { pointInTimeRecovery: _previous, ...rest } = current.record;
      // Inside the record's write: the history starts (or is let go) with it.
      engine.backups.pointInTimeRecoveryChanged(current, next !== undefined);
      return next === undefined ? (rest as TableRecord) : { ...rest, pointInTimeRecovery: next };
    });
    return { ContinuousBackupsDescription: continuousBackupsDescription(engine, table) };
  },
});

function nextRecovery(record: TableRecord, request: UpdateContinuousBackupsRequest, nowMs: number): PointInTimeRecoveryRecord | undefined {
  if (!request.enabled) return undefined;
  const current = record.pointInTimeRecovery;
  const recoveryPeriodInDays = request.recoveryPeriodInDays ?? current?.recoveryPeriodInDays ?? RECOVERY_PERIOD_DAYS_MAX;
  return { enabledAtMs: current?.enabledAtMs ?? nowMs, recoveryPeriodInDays };
}
