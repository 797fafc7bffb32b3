/**
 * RestoreTableToPointInTime: a new table holding the source table's items as they were at an
 * instant of its point-in-time recovery window (RestoreDateTime, or the latest restorable time).
 * An internal snapshot of the source at that instant is taken from the source's history
 * (engine/history.ts) and restored like a backup, then dropped (engine/backups.ts).
 */
import { earliestRestorableMs } from '../engine/backups.js';
import { describeTable } from '../engine/describe.js';
import type { Engine } from '../engine/engine.js';
import type { Table } from '../engine/table.js';
import { dynamoError, validationError } from '../errors.js';
import {
  restoredTableRecord,
  restoreOverrideMembers,
  tableNotFoundForBackup,
  restoreOverridesOf,
  tableAlreadyExists,
  targetTableNameMember,
  type RestoreOverrides,
} from './backup-common.js';
import { tableReferenceOf, type TableReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';

interface RestoreToPointInTimeRequest {
  readonly source: TableReference;
  readonly target: string;
  /** Undefined: the latest restorable time. */
  readonly restoreAtMs: number | undefined;
  readonly overrides: RestoreOverrides;
}


export const restoreTableToPointInTimeOperation = defineOperation<RestoreToPointInTimeRequest>({
  name: 'RestoreTableToPointInTime',
  members: {
    SourceTableArn: shapes.string({ lengthMin: 1, lengthMax: 1024 }),
    SourceTableName: shapes.string({ pattern: '[a-zA-Z0-9_.-]+', lengthMin: 3, lengthMax: 255 }),
    TargetTableName: targetTableNameMember,
    UseLatestRestorableTime: shapes.boolean(),
    RestoreDateTime: shapes.timestamp(),
    ...restoreOverrideMembers,
  },

  validate(input) {
    const arn = input.SourceTableArn as string | undefined;
    const name = input.SourceTableName as string | undefined;
    const latest = input.UseLatestRestorableTime === true;
    const at = input.RestoreDateTime as number | undefined;
    // Checked before anything else, as DynamoDB does.
    if (latest && at !== undefined) {
      throw validationError('Invalid Request: Both RestoreDateTime and UseLatestRestorableTime cannot be set for point-in-time restore request. Please specify only one.');
    }
    if (!latest && at === undefined) throw validationError('Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be specified, but not both');
    if (arn === undefined && name === undefined) throw validationError("The parameter 'TableName' is required");
    if (arn !== undefined && name !== undefined) throw validationError('Must provide exactly one of: sourceTableArn, sourceTableName');
    return {
      source: arn !== undefined ? sourceArnReference(arn) : { name: name!, arn: undefined },
      target: input.TargetTableName as string,
      restoreAtMs: at === undefined ? undefined : Math.floor(at * 1000),
      overrides: restoreOverridesOf(input),
    };
  },

  async execute(engine, request) {
    const nowMs = engine.clock.nowMs();
    const sourceAccount = request.source.arn?.split(':')[4];
    if (sourceAccount !== undefined && sourceAccount !== engine.settings.accountId) {
      throw validationError("This action is only supported by accounts that match the resource owner's account");
    }
    const atMs = request.restoreAtMs ?? nowMs;
    const checkSource = (table: Table): void => checkRestorable(engine, table, atMs);
    const source = engine.catalog.get(request.source.name);
    if (source === undefined || (request.source.arn !== undefined && request.source.arn !== source.record.arn)) throw tableNotFoundForBackup(request.source.name);
    checkSource(source);
    if (engine.catalog.get(request.target) !== undefined) throw tableAlreadyExists(request.target);
    const snapshot = await engine.backups.create(source.name, `restore-${request.target}`, 'POINT', atMs, checkSource);
    let table: Table;
    try {
      table = await engine.catalog.create(
        (ids) =>
          restoredTableRecord(engine, snapshot.table, request.target, request.overrides, ids, nowMs, { backupId: snapshot.id, dropBackup: true }, {
            sourceTableArn: snapshot.table.arn,
            restoreDateTimeMs: atMs,
            inProgress: true,
          }),
        () => {
          if (engine.catalog.get(request.target) !== undefined) throw tableAlreadyExists(request.target);
        },
      );
    } catch (error) {
      await engine.backups.discard(snapshot.id);
      throw error;
    }
    engine.backups.restoreStarted(table);
    return { TableDescription: describeTable(table, nowMs) };
  },
});

/** A SourceTableArn: a table ARN ('sourceTableArn is not a valid ARN' otherwise), the name in it checked as a name. */
function sourceArnReference(arn: string): TableReference {
  if (!/^arn:[^:]+:dynamodb:[^:]*:[^:]*:table\/[^/]+$/.test(arn)) throw validationError('sourceTableArn is not a valid ARN');
  return tableReferenceOf(arn);
}

/** PITR must be on, and the instant inside its window on the server's clock. */
function checkRestorable(engine: Engine, table: Table, atMs: number): void {
  const pitr = table.record.pointInTimeRecovery;
  if (pitr === undefined) throw dynamoError('PointInTimeRecoveryUnavailableException', `Point in time recovery is not enabled for table '${table.name}'`);
  const nowMs = engine.clock.nowMs();
  const earliestMs = earliestRestorableMs(pitr, nowMs);
  if (atMs < earliestMs || atMs > nowMs) {
    throw dynamoError(
      'InvalidRestoreTimeException',
      `RestoreDateTime '${isoOf(atMs)}' must be within EarliestRestorableDateTime '${isoOf(earliestMs)}' and LatestRestorableDateTime '${isoOf(nowMs)}'`,
    );
  }
}

/** DynamoDB's form in these texts: ISO 8601 to the second, UTC. Any number a request carries, even one no Date holds. */
function isoOf(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : String(ms / 1000);
}
