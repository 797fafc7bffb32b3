/**
 * What the export and import operations share: job ARNs, the failure dynatwin's jobs end in (no S3:
 * the bucket does not exist), descriptions and paging. See engine/exports.ts.
 */
import { randomBytes } from 'node:crypto';
import { epochSeconds } from '../engine/describe.js';
import type { Engine } from '../engine/engine.js';
import type { TransferRecord } from '../engine/exports.js';
import { coralServiceError, validationError } from '../errors.js';

/** S3's own NoSuchBucket text, which DynamoDB passes on as the job's FailureMessage. */
export const NO_SUCH_BUCKET = { failureCode: 'S3NoSuchBucket', failureMessage: 'The specified bucket does not exist' } as const;

export function jobArnOf(engine: Engine, tableName: string, kind: 'export' | 'import', nowMs: number): string {
  return `${engine.tableArn(tableName)}/${kind}/${String(Math.floor(nowMs)).padStart(14, '0')}-${randomBytes(4).toString('hex')}`;
}

/** A job ARN of this account (region not compared, as for backups); the job or undefined. */
export function findJob(engine: Engine, arn: string, kind: 'export' | 'import'): TransferRecord | undefined {
  const parts = new RegExp(`^arn:aws:dynamodb:[^:]*:([^:]*):(table/[^/]+/${kind}/[^/]+)$`).exec(arn);
  if (parts === null) throw validationError(`Invalid ${kind === 'export' ? 'Export' : 'Import'}Arn: ${arn}`);
  if (parts[1] !== engine.settings.accountId) throw coralServiceError('AccessDeniedException', 'Access is denied');
  const record = engine.transfers.get(`arn:aws:dynamodb:${engine.settings.region}:${parts[1]}:${parts[2]}`);
  return record?.kind === kind ? record : undefined;
}

/** The job as DynamoDB describes it once it failed; `running` gives the answer of the request that started it. */
export function statusMembers(record: TransferRecord, running: boolean): Record<string, unknown> {
  if (running) return { StartTime: epochSeconds(record.startMs) };
  return { StartTime: epochSeconds(record.startMs), EndTime: epochSeconds(record.endMs), FailureCode: record.failureCode, FailureMessage: record.failureMessage };
}

/** A page of jobs after the one NextToken names (an ARN), and the token of the next page. */
export function pageOf(records: readonly TransferRecord[], size: number, nextToken: string | undefined): { page: TransferRecord[]; next: string | undefined } {
  const from = nextToken === undefined ? 0 : records.findIndex((record) => record.arn === nextToken) + 1;
  if (nextToken !== undefined && from === 0) throw validationError('Invalid NextToken');
  const page = records.slice(from, from + size);
  return { page, next: from + size < records.length ? page.at(-1)?.arn : undefined };
}
