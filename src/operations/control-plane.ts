/** The control-plane operations (tables, tags, TTL, limits, endpoints), one file each. */
import { createTableOperation } from './createTable.js';
import { deleteTableOperation } from './deleteTable.js';
import { describeEndpointsOperation } from './describeEndpoints.js';
import { describeLimitsOperation } from './describeLimits.js';
import { describeTableOperation } from './describeTable.js';
import { describeTimeToLiveOperation } from './describeTimeToLive.js';
import { listTablesOperation } from './listTables.js';
import { listTagsOfResourceOperation } from './listTagsOfResource.js';
import type { AnyOperation } from './operation.js';
import { tagResourceOperation } from './tagResource.js';
import { untagResourceOperation } from './untagResource.js';
import { updateTableOperation } from './updateTable.js';
import { updateTimeToLiveOperation } from './updateTimeToLive.js';

export const controlPlaneOperations: readonly AnyOperation[] = [
  createTableOperation,
  describeTableOperation,
  listTablesOperation,
  deleteTableOperation,
  updateTableOperation,
  tagResourceOperation,
  untagResourceOperation,
  listTagsOfResourceOperation,
  describeTimeToLiveOperation,
  updateTimeToLiveOperation,
  describeLimitsOperation,
  describeEndpointsOperation,
];
