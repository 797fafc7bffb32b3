/**
 * ExportTableToPointInTime: DynamoDB checks the table, its point-in-time recovery and the export
 * time at once, accepts the request (IN_PROGRESS) and later reports the export FAILED when the
 * bucket cannot be written. dynatwin has no S3, so an accepted export is FAILED (S3NoSuchBucket)
 * from the first DescribeExport on; nothing is ever written. See engine/exports.ts.
 */
import { earliestRestorableMs } from '../engine/backups.js';
import { epochSeconds } from '../engine/describe.js';
import { coralServiceError, dynamoError, validationError } from '../errors.js';
import { tableNotFoundForBackup } from './backup-common.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';
import { jobArnOf, NO_SUCH_BUCKET, statusMembers } from './transfer-common.js';
import type { TransferRecord } from '../engine/exports.js';

interface ExportRequest {
  readonly tableArn: string;
  readonly account: string;
  readonly tableName: string;
  readonly exportTimeMs: number | undefined;
  readonly clientToken: string | undefined;
  readonly echoed: Readonly<Record<string, unknown>>;
}

export const exportTableToPointInTimeOperation = defineOperation<ExportRequest>({
  name: 'ExportTableToPointInTime',
  members: {
    TableArn: shapes.string({ required: true, lengthMin: 1, lengthMax: 1024 }),
    ExportTime: shapes.timestamp(),
    ClientToken: shapes.string({ pattern: '^[^\\$]+$' }),
    S3Bucket: shapes.string({ required: true, lengthMax: 255, pattern: '^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$' }),
    S3BucketOwner: shapes.string({ pattern: '[0-9]{12}' }),
    S3Prefix: shapes.string({ lengthMax: 1024 }),
    S3SseAlgorithm: shapes.string({ enumValues: ['AES256', 'KMS'] }),
    S3SseKmsKeyId: shapes.string({ lengthMin: 1, lengthMax: 2048 }),
    ExportFormat: shapes.string({ enumValues: ['DYNAMODB_JSON', 'ION'] }),
    ExportType: shapes.string({ enumValues: ['FULL_EXPORT', 'INCREMENTAL_EXPORT'] }),
    IncrementalExportSpecification: shapes.structure('IncrementalExportSpecification', {
      ExportFromTime: shapes.timestamp(),
      ExportToTime: shapes.timestamp(),
      ExportViewType: shapes.string({ enumValues: ['NEW_IMAGE', 'NEW_AND_OLD_IMAGES'] }),
    }),
  },

  validate(input) {
    const tableArn = input.TableArn as string;
    const parts = /^arn:aws:dynamodb:[^:]*:([^:]*):table\/([a-zA-Z0-9_.-]{3,255})$/.exec(tableArn);
    if (parts === null) throw validationError(`Invalid TableArn: Invalid ResourceArn provided as input ${tableArn}`);
    const incremental = input.IncrementalExportSpecification as { ExportFromTime?: number } | undefined;
    if (input.ExportType === 'INCREMENTAL_EXPORT') {
      if (incremental === undefined) throw validationError('Invalid Request: Incremental Export Specification expected when export type is set as Incremental Export');
      if (incremental.ExportFromTime === undefined) throw validationError('Invalid Request: ExportFromTime must be provided in IncrementalExportSpecification');
    }
    const exportTime = input.ExportTime as number | undefined;
    return {
      tableArn,
      account: parts[1]!,
      tableName: parts[2]!,
      exportTimeMs: exportTime === undefined ? undefined : Math.floor(exportTime * 1000),
      clientToken: input.ClientToken as string | undefined,
      echoed: {
        S3Bucket: input.S3Bucket,
        ...(input.S3BucketOwner === undefined ? {} : { S3BucketOwner: input.S3BucketOwner }),
        ...(input.S3Prefix === undefined ? {} : { S3Prefix: input.S3Prefix }),
        S3SseAlgorithm: input.S3SseAlgorithm ?? 'AES256',
        ...(input.S3SseKmsKeyId === undefined ? {} : { S3SseKmsKeyId: input.S3SseKmsKeyId }),
        ExportFormat: input.ExportFormat ?? 'DYNAMODB_JSON',
        ...(input.ExportType === undefined ? {} : { ExportType: input.ExportType }),
        ...(input.IncrementalExportSpecification === undefined ? {} : { IncrementalExportSpecification: input.IncrementalExportSpecification }),
      },
    };
  },

  async execute(engine, request) {
    if (request.account !== engine.settings.accountId) throw coralServiceError('AccessDeniedException', 'Access is denied');
    const table = engine.catalog.get(request.tableName);
    if (table === undefined) throw tableNotFoundForBackup(request.tableArn);
    const pitr = table.record.pointInTimeRecovery;
    if (pitr === undefined) throw dynamoError('PointInTimeRecoveryUnavailableException', `Point in time recovery is not enabled for table '${table.name}'`);
    const nowMs = engine.clock.nowMs();
    const exportTimeMs = request.exportTimeMs ?? nowMs;
    if (exportTimeMs < earliestRestorableMs(pitr, nowMs) || exportTimeMs > nowMs) {
      throw dynamoError('InvalidExportTimeException', 'The specified ExportTime is outside of the point in time recovery window');
    }
    const echoed = { ...request.echoed, ExportTime: epochSeconds(exportTimeMs) };
    if (request.clientToken !== undefined) {
      const previous = engine.transfers.byClientToken('export', request.clientToken);
      if (previous !== undefined) {
        if (previous.tableArn !== table.record.arn || JSON.stringify({ ...previous.request, ExportTime: undefined }) !== JSON.stringify({ ...echoed, ExportTime: undefined })) {
          throw dynamoError('ExportConflictException', 'There was a conflict when writing to the specified S3 bucket.');
        }
        return { ExportDescription: exportDescriptionOf(previous, false) };
      }
    }
    const record: TransferRecord = {
      kind: 'export',
      arn: jobArnOf(engine, table.name, 'export', nowMs),
      tableArn: table.record.arn,
      tableId: table.record.tableId,
      startMs: nowMs,
      endMs: nowMs,
      ...(request.clientToken === undefined ? {} : { clientToken: request.clientToken }),
      request: echoed,
      ...NO_SUCH_BUCKET,
    };
    await engine.transfers.add(record);
    return { ExportDescription: exportDescriptionOf(record, true) };
  },
});

export function exportDescriptionOf(record: TransferRecord, running: boolean): Record<string, unknown> {
  return {
    ExportArn: record.arn,
    ExportStatus: running ? 'IN_PROGRESS' : 'FAILED',
    ...statusMembers(record, running),
    TableArn: record.tableArn,
    ...(record.tableId === undefined ? {} : { TableId: record.tableId }),
    ...(record.clientToken === undefined ? {} : { ClientToken: record.clientToken }),
    ...record.request,
  };
}
