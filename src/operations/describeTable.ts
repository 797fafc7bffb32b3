/** DescribeTable: the table's definition, status and live statistics, by name or ARN. */
import { describeTable } from '../engine/describe.js';
import { requireTable, tableNameOrArnMember, tableReferenceOf, type TableReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';

export const describeTableOperation = defineOperation<TableReference>({
  name: 'DescribeTable',
  members: {
    TableName: tableNameOrArnMember,
  },

  validate(input) {
    return tableReferenceOf(input.TableName as string);
  },

  execute(engine, reference) {
    const table = requireTable(engine, reference);
    return { Table: describeTable(table, engine.clock.nowMs()) };
  },
});
