/**
 * The rest of DynamoDB's API reference that a local twin can honour: resource-based policies
 * (stored and returned), Kinesis destinations, global tables and replica auto scaling, exports and
 * imports — each answering as DynamoDB does when what it needs (Kinesis, other Regions, S3) is not
 * there. docs/CONFORMANCE.md lists what each does and the sources of its texts.
 */
import { deleteResourcePolicyOperation } from './deleteResourcePolicy.js';
import { describeExportOperation } from './describeExport.js';
import { describeImportOperation } from './describeImport.js';
import { describeKinesisStreamingDestinationOperation } from './describeKinesisStreamingDestination.js';
import { disableKinesisStreamingDestinationOperation } from './disableKinesisStreamingDestination.js';
import { enableKinesisStreamingDestinationOperation } from './enableKinesisStreamingDestination.js';
import { exportTableToPointInTimeOperation } from './exportTableToPointInTime.js';
import { getResourcePolicyOperation } from './getResourcePolicy.js';
import { globalTableOperations } from './global-tables.js';
import { importTableOperation } from './importTable.js';
import { listExportsOperation } from './listExports.js';
import { listImportsOperation } from './listImports.js';
import type { AnyOperation } from './operation.js';
import { putResourcePolicyOperation } from './putResourcePolicy.js';
import { updateKinesisStreamingDestinationOperation } from './updateKinesisStreamingDestination.js';

export const accountOperations: readonly AnyOperation[] = [
  putResourcePolicyOperation,
  getResourcePolicyOperation,
  deleteResourcePolicyOperation,
  describeKinesisStreamingDestinationOperation,
  enableKinesisStreamingDestinationOperation,
  disableKinesisStreamingDestinationOperation,
  updateKinesisStreamingDestinationOperation,
  ...globalTableOperations,
  exportTableToPointInTimeOperation,
  describeExportOperation,
  listExportsOperation,
  importTableOperation,
  describeImportOperation,
  listImportsOperation,
];
