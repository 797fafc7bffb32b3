/** DescribeEndpoints: the regional endpoint an SDK with endpoint discovery would cache. */
import { defineOperation } from './operation.js';

/** DynamoDB tells clients to cache its answer for a day. */
const CACHE_PERIOD_MINUTES = 1440;

export const describeEndpointsOperation = defineOperation<Record<string, never>>({
  name: 'DescribeEndpoints',
  members: {},

  validate() {
    return {};
  },

  execute(engine) {
    return { Endpoints: [{ Address: `dynamodb.${engine.settings.region}.amazonaws.com`, CachePeriodInMinutes: CACHE_PERIOD_MINUTES }] };
  },
});
