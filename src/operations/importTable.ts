/**
 * ImportTable: DynamoDB accepts the request, creates the table and loads it from S3; when the bucket
 * cannot be read the import FAILS and the table is not kept. dynatwin has no S3: the import is
 * accepted (IN_PROGRESS), FAILED (S3NoSuchBucket) from the first DescribeImport on, and no table
 * is created. A table of that name already there is refused as DynamoDB refuses it.
 */
import type { TransferRecord } from '../engine/exports.js';
import { resourceInUse } from '../errors.js';
import { attributeDefinitionsMember, classicTableNameMember, keySchemaMember, provisionedThroughputMember, sseSpecificationMember } from './control-plane-common.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';
import { jobArnOf, NO_SUCH_BUCKET, statusMembers } from './transfer-common.js';

interface ImportRequest {
  readonly tableName: string;
  readonly clientToken: string | undefined;
  readonly echoed: Readonly<Record<string, unknown>>;
}

export const importTableOperation = defineOperation<ImportRequest>({
  name: 'ImportTable',
  members: {
    ClientToken: shapes.string({ pattern: '^[^\\$]+$' }),
    S3BucketSource: shapes.structure(
      'S3BucketSource',
      {
        S3BucketOwner: shapes.string({ pattern: '[0-9]{12}' }),
        S3Bucket: shapes.string({ notNull: true, lengthMax: 255 }),
        S3KeyPrefix: shapes.string({ lengthMax: 1024 }),
      },
      { required: true },
    ),
    InputFormat: shapes.string({ required: true, enumValues: ['DYNAMODB_JSON', 'ION', 'CSV'] }),
    InputFormatOptions: shapes.structure('InputFormatOptions', {
      Csv: shapes.structure('CsvOptions', { Delimiter: shapes.string({ lengthMin: 1, lengthMax: 1 }), HeaderList: shapes.list(shapes.string()) }),
    }),
    InputCompressionType: shapes.string({ enumValues: ['GZIP', 'ZSTD', 'NONE'] }),
    TableCreationParameters: shapes.structure(
      'TableCreationParameters',
      {
        TableName: classicTableNameMember,
        AttributeDefinitions: attributeDefinitionsMember,
        KeySchema: keySchemaMember(true),
        BillingMode: shapes.string({ enumValues: ['PROVISIONED', 'PAY_PER_REQUEST'] }),
        ProvisionedThroughput: provisionedThroughputMember,
        SSESpecification: sseSpecificationMember,
      },
      { required: true },
    ),
  },
  validate(input) {
    const parameters = input.TableCreationParameters as { TableName: string };
    return {
      tableName: parameters.TableName,
      clientToken: input.ClientToken as string | undefined,
      echoed: {
        S3BucketSource: input.S3BucketSource,
        InputFormat: input.InputFormat,
        InputCompressionType: input.InputCompressionType ?? 'NONE',
        ...(input.InputFormatOptions === undefined ? {} : { InputFormatOptions: input.InputFormatOptions }),
        TableCreationParameters: input.TableCreationParameters,
      },
    };
  },
  async execute(engine, request) {
    if (engine.catalog.get(request.tableName) !== undefined) throw resourceInUse(`Table already exists: ${request.tableName}`);
    const nowMs = engine.clock.nowMs();
    const record: TransferRecord = {
      kind: 'import',
      arn: jobArnOf(engine, request.tableName, 'import', nowMs),
      tableArn: engine.tableArn(request.tableName),
      startMs: nowMs,
      endMs: nowMs,
      ...(request.clientToken === undefined ? {} : { clientToken: request.clientToken }),
      request: request.echoed,
      ...NO_SUCH_BUCKET,
    };
    await engine.transfers.add(record);
    return { ImportTableDescription: importDescriptionOf(record, true) };
  },
});

export function importDescriptionOf(record: TransferRecord, running: boolean): Record<string, unknown> {
  return {
    ImportArn: record.arn,
    ImportStatus: running ? 'IN_PROGRESS' : 'FAILED',
    TableArn: record.tableArn,
    ...(record.clientToken === undefined ? {} : { ClientToken: record.clientToken }),
    ...record.request,
    ...statusMembers(record, running),
    ...(running ? {} : { ProcessedSizeBytes: 0, ProcessedItemCount: 0, ImportedItemCount: 0, ErrorCount: 0 }),
  };
}
