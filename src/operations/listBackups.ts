/**
 * ListBackups: the account's backups, oldest first, filtered by table, creation time range and
 * type, a page at a time (LastEvaluatedBackupArn when more remain).
 */
import { backupSummaryOf } from './backup-common.js';
import { validationError } from '../errors.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';
import { tableReferenceOf } from './control-plane-common.js';

const PAGE_SIZE_MAX = 100;

interface ListBackupsRequest {
  readonly tableName: string | undefined;
  readonly limit: number;
  readonly lowerMs: number | undefined;
  readonly upperMs: number | undefined;
  readonly exclusiveStartArn: string | undefined;
  readonly types: ReadonlySet<string>;
}

export const listBackupsOperation = defineOperation<ListBackupsRequest>({
  name: 'ListBackups',
  members: {
    TableName: shapes.string({ lengthMin: 1, lengthMax: 1024 }),
    Limit: shapes.integer({ valueMin: 1, valueMax: PAGE_SIZE_MAX }),
    TimeRangeLowerBound: shapes.timestamp(),
    TimeRangeUpperBound: shapes.timestamp(),
    ExclusiveStartBackupArn: shapes.string({ lengthMin: 37, lengthMax: 1024 }),
    BackupType: shapes.string({ enumValues: ['USER', 'SYSTEM', 'AWS_BACKUP', 'ALL'] }),
  },

  validate(input) {
    const seconds = (value: unknown): number | undefined => (value === undefined ? undefined : (value as number) * 1000);
    const type = (input.BackupType as string | undefined) ?? 'USER';
    const lowerMs = seconds(input.TimeRangeLowerBound);
    const upperMs = seconds(input.TimeRangeUpperBound);
    if (lowerMs !== undefined && upperMs !== undefined && lowerMs > upperMs) throw validationError('Time range lower bound must be less than or equal to upper bound');
    return {
      tableName: input.TableName === undefined ? undefined : tableReferenceOf(input.TableName as string).name,
      limit: (input.Limit as number | undefined) ?? PAGE_SIZE_MAX,
      lowerMs,
      upperMs,
      exclusiveStartArn: input.ExclusiveStartBackupArn as string | undefined,
      // USER by default; dynatwin makes no AWS_BACKUP backups.
      types: new Set(type === 'ALL' ? ['USER', 'SYSTEM'] : [type]),
    };
  },

  execute(engine, request) {
    const { lowerMs, upperMs, tableName } = request;
    let backups = engine.backups.list().filter((record) => request.types.has(record.type));
    // The lower bound is inclusive, the upper exclusive (the API reference's wording).
    backups = backups.filter(
      (record) =>
        (tableName === undefined || record.table.name === tableName) &&
        (lowerMs === undefined || record.createdAtMs >= lowerMs) &&
        (upperMs === undefined || record.createdAtMs < upperMs),
    );
    const start = request.exclusiveStartArn;
    if (start !== undefined) {
      // A pure cursor: the page resumes after where that ARN sorts (creation time in it, then the
      // ARN), whether or not the backup still exists.
      const startMs = Number(/\/backup\/(\d+)-/.exec(start)?.[1] ?? 0);
      backups = backups.filter((record) => record.createdAtMs > startMs || (record.createdAtMs === startMs && record.arn > start));
    }
    const page = backups.slice(0, request.limit);
    const more = backups.length > request.limit;
    return { BackupSummaries: page.map(backupSummaryOf), LastEvaluatedBackupArn: more ? page.at(-1)!.arn : undefined };
  },
});
