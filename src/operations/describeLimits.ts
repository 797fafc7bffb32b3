/** DescribeLimits: DynamoDB's default capacity quotas for an account and a table. */
import { defineOperation } from './operation.js';

const ACCOUNT_MAX_UNITS = 80_000;
const TABLE_MAX_UNITS = 40_000;

export const describeLimitsOperation = defineOperation<Record<string, never>>({
  name: 'DescribeLimits',
  members: {},

  validate() {
    return {};
  },

  execute() {
    return {
      AccountMaxReadCapacityUnits: ACCOUNT_MAX_UNITS,
      AccountMaxWriteCapacityUnits: ACCOUNT_MAX_UNITS,
      TableMaxReadCapacityUnits: TABLE_MAX_UNITS,
      TableMaxWriteCapacityUnits: TABLE_MAX_UNITS,
    };
  },
});
