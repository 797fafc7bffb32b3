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
    requireTable(engine, reference);
    // GSI changes whose lag has passed are in the index by now: its counts include them.
    const propagation = engine.propagateDueIndexChanges();
    const describe = () => ({ Table: describeTable(requireTable(engine, reference), engine.clock.nowMs()) });
    return propagation === undefined ? describe() : propagation.then(describe);
  },
});
