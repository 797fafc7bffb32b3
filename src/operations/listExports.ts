/** ListExports: the account's export jobs (of one table, with TableArn), oldest first, MaxResults a page. */
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';
import { pageOf } from './transfer-common.js';

interface ListExportsRequest {
  readonly tableArn: string | undefined;
  readonly size: number;
  readonly nextToken: string | undefined;
}

export const listExportsOperation = defineOperation<ListExportsRequest>({
  name: 'ListExports',
  members: {
    TableArn: shapes.string({ lengthMin: 1, lengthMax: 1024 }),
    MaxResults: shapes.integer({ valueMin: 1, valueMax: 25 }),
    NextToken: shapes.string(),
  },
  validate(input) {
    return { tableArn: input.TableArn as string | undefined, size: (input.MaxResults as number | undefined) ?? 25, nextToken: input.NextToken as string | undefined };
  },
  execute(engine, request) {
    const records = engine.transfers.list('export').filter((record) => request.tableArn === undefined || record.tableArn === request.tableArn);
    const { page, next } = pageOf(records, request.size, request.nextToken);
    return {
      ExportSummaries: page.map((record) => ({ ExportArn: record.arn, ExportStatus: 'FAILED', ...(record.request.ExportType === undefined ? {} : { ExportType: record.request.ExportType }) })),
      NextToken: next,
    };
  },
});
