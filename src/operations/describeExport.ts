/** DescribeExport: an export job (dynatwin's have all FAILED for want of S3: exportTableToPointInTime.ts). */
import { dynamoError } from '../errors.js';
import { exportDescriptionOf } from './exportTableToPointInTime.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';
import { findJob } from './transfer-common.js';

export const describeExportOperation = defineOperation<string>({
  name: 'DescribeExport',
  members: { ExportArn: shapes.string({ required: true, lengthMin: 37, lengthMax: 1024 }) },
  validate(input) {
    return input.ExportArn as string;
  },
  execute(engine, arn) {
    const record = findJob(engine, arn, 'export');
    if (record === undefined) throw dynamoError('ExportNotFoundException', `Export not found: ${arn}`);
    return { ExportDescription: exportDescriptionOf(record, false) };
  },
});
