/** DescribeImport: an import job (dynatwin's have all FAILED for want of S3: importTable.ts). */
import { dynamoError } from '../errors.js';
import { importDescriptionOf } from './importTable.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';
import { findJob } from './transfer-common.js';

export const describeImportOperation = defineOperation<string>({
  name: 'DescribeImport',
  members: { ImportArn: shapes.string({ required: true, lengthMin: 37, lengthMax: 1024 }) },
  validate(input) {
    return input.ImportArn as string;
  },
  execute(engine, arn) {
    const record = findJob(engine, arn, 'import');
    if (record === undefined) throw dynamoError('ImportNotFoundException', `Import not found: ${arn}`);
    return { ImportTableDescription: importDescriptionOf(record, false) };
  },
});
