/** DescribeKinesisStreamingDestination: a table's Kinesis destinations — none in dynatwin (kinesis-common.ts). */
import { requireKinesisTable } from './kinesis-common.js';
import { tableNameOrArnMember, tableReferenceOf, type TableReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';

export const describeKinesisStreamingDestinationOperation = defineOperation<TableReference>({
  name: 'DescribeKinesisStreamingDestination',
  members: { TableName: tableNameOrArnMember },

  validate(input) {
    return tableReferenceOf(input.TableName as string);
  },

  execute(engine, reference) {
    const table = requireKinesisTable(engine, reference);
    return { TableName: table.name, KinesisDataStreamDestinations: [] };
  },
});
