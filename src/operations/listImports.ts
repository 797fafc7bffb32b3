/** ListImports: the account's import jobs (of one table, with TableArn), oldest first, PageSize a page. */
import { epochSeconds } from '../engine/describe.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';
import { pageOf } from './transfer-common.js';

interface ListImportsRequest {
  readonly tableArn: string | undefined;
  readonly size: number;
  readonly nextToken: string | undefined;
}

export const listImportsOperation = defineOperation<ListImportsRequest>({
  name: 'ListImports',
  members: {
    TableArn: shapes.string({ lengthMin: 1, lengthMax: 1024 }),
    PageSize: shapes.integer({ valueMin: 1, valueMax: 25 }),
    NextToken: shapes.string(),
  },
  validate(input) {
    return { tableArn: input.TableArn as string | undefined, size: (input.PageSize as number | undefined) ?? 25, nextToken: input.NextToken as string | undefined };
  },
  execute(engine, request) {
    const records = engine.transfers.list('import').filter((record) => request.tableArn === undefined || record.tableArn === request.tableArn);
    const { page, next } = pageOf(records, request.size, request.nextToken);
    return {
      ImportSummaryList: page.map((record) => ({
        ImportArn: record.arn,
        ImportStatus: 'FAILED',
        TableArn: record.tableArn,
        S3BucketSource: record.request.S3BucketSource,
        InputFormat: record.request.InputFormat,
        StartTime: epochSeconds(record.startMs),
        EndTime: epochSeconds(record.endMs),
      })),
      NextToken: next,
    };
  },
});
