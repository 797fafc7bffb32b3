/** DescribeTimeToLive: whether TTL is on for a table (by name or ARN), and on which attribute. */
import { tableStatusAt } from '../engine/describe.js';
import { validationError } from '../errors.js';
import { requireTable, tableNameOrArnMember, tableReferenceOf, type TableReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';

export const describeTimeToLiveOperation = defineOperation<TableReference>({
  name: 'DescribeTimeToLive',
  members: {
    TableName: tableNameOrArnMember,
  },

  validate(input) {
    return tableReferenceOf(input.TableName as string);
  },

  execute(engine, reference) {
    const table = requireTable(engine, reference);
    if (tableStatusAt(table.record, engine.clock.nowMs()) === 'CREATING') {
      throw validationError('Cannot describe time to live while table is in CREATING state: Current table state is CREATING');
    }
    const { status, attributeName } = table.record.timeToLive;
    return { TimeToLiveDescription: { TimeToLiveStatus: status, AttributeName: attributeName } };
  },
});
