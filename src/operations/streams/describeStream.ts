/**
 * DescribeStream: a stream's status, view type, key schema and shards (100 a page). A ShardFilter
 * of type CHILD_SHARDS narrows the shards to the children of one shard (a reader that finished a
 * closed shard finds what follows it without listing every shard again).
 */
import { epochSeconds } from '../../engine/describe.js';
import { validationError } from '../../errors.js';
import { describeShard, streamNotFound, visibleShards } from '../../streams/stream-reader.js';
import { defineOperation } from '../operation.js';
import { shapes } from '../shape.js';
import { checkStreamArn, optionalShardIdMember, pageLimitMember, streamArnMember, STREAMS_PAGE_MAX } from './common.js';

interface DescribeStreamRequest {
  readonly streamArn: string;
  readonly limit: number;
  readonly exclusiveStartShardId: string | undefined;
  /** The parent shard whose children are wanted (ShardFilter CHILD_SHARDS), if any. */
  readonly childrenOf: string | undefined;
}

const SHARD_FILTER_TYPES = ['CHILD_SHARDS'] as const;

/**
 * Both members are optional in the API reference, so a filter missing one passes the shape check
 * and is refused afterwards, naming the member as a null value would (our wording: no DynamoDB
 * answer for it is recorded; docs/CONFORMANCE.md).
 */
function childrenOf(filter: { Type?: string; ShardId?: string } | undefined): string | undefined {
  if (filter === undefined) return undefined;
  if (filter.Type === undefined) {
    throw validationError("1 validation error detected: Value null at 'shardFilter.type' failed to satisfy constraint: Member must not be null");
  }
  if (filter.ShardId === undefined) {
    throw validationError("1 validation error detected: Value null at 'shardFilter.shardId' failed to satisfy constraint: Member must not be null");
  }
  return filter.ShardId;
}

export const describeStreamOperation = defineOperation<DescribeStreamRequest>({
  name: 'DescribeStream',
  members: {
    StreamArn: streamArnMember,
    Limit: pageLimitMember,
    ExclusiveStartShardId: optionalShardIdMember,
    ShardFilter: shapes.structure('ShardFilter', {
      Type: shapes.string({ enumValues: SHARD_FILTER_TYPES }),
      ShardId: optionalShardIdMember,
    }),
  },

  validate(input) {
    checkStreamArn(input.StreamArn as string);
    return {
      streamArn: input.StreamArn as string,
      limit: (input.Limit as number | undefined) ?? STREAMS_PAGE_MAX,
      exclusiveStartShardId: input.ExclusiveStartShardId as string | undefined,
      childrenOf: childrenOf(input.ShardFilter as { Type?: string; ShardId?: string } | undefined),
    };
  },

  execute(engine, request) {
    const nowMs = engine.clock.nowMs();
    const stream = engine.streams.byArn(request.streamArn);
    if (stream === undefined) throw streamNotFound(request.streamArn);
    let shards = visibleShards(stream, nowMs);
    if (request.childrenOf !== undefined) shards = shards.filter((shard) => shard.parentShardId === request.childrenOf);
    if (request.exclusiveStartShardId !== undefined) {
      const after = shards.findIndex((shard) => shard.shardId === request.exclusiveStartShardId);
      shards = after < 0 ? [] : shards.slice(after + 1);
    }
    const page = shards.slice(0, request.limit);
    return {
      StreamDescription: {
        StreamArn: stream.arn,
        StreamLabel: stream.label,
        StreamStatus: stream.status(nowMs),
        StreamViewType: stream.viewType,
        CreationRequestDateTime: epochSeconds(stream.createdAtMs),
        TableName: stream.tableName,
        KeySchema: stream.keySchema,
        Shards: page.map(describeShard),
        ...(shards.length > page.length ? { LastEvaluatedShardId: page[page.length - 1]!.shardId } : {}),
      },
    };
  },
});
