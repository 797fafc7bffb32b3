/**
 * DescribeEndpoints: the endpoint an SDK with endpoint discovery would cache. DynamoDB names its
 * own regional address (`dynamodb.<region>.amazonaws.com`); a twin names the address the client
 * used, its Host header, so that discovery keeps the client on the twin. Without a Host (HTTP/1.0,
 * or a call from inside the server) the regional name stands.
 */
import { defineOperation } from './operation.js';

/** DynamoDB tells clients to cache its answer for a day. */
const CACHE_PERIOD_MINUTES = 1440;

interface DescribeEndpointsRequest {
  readonly host: string | undefined;
}

export const describeEndpointsOperation = defineOperation<DescribeEndpointsRequest>({
  name: 'DescribeEndpoints',
  members: {},

  validate(_input, context) {
    return { host: context.host === '' ? undefined : context.host };
  },

  execute(engine, request) {
    const address = request.host ?? `dynamodb.${engine.settings.region}.amazonaws.com`;
    return { Endpoints: [{ Address: address, CachePeriodInMinutes: CACHE_PERIOD_MINUTES }] };
  },
});
