/** DescribeStream: a stream's status, view type, key schema and shards (100 a page). */
import { epochSeconds } from '../../engine/describe.js';
import { describeShard, streamNotFound, visibleShards } from '../../streams/stream-reader.js';
import { defineOperation } from '../operation.js';
import { checkStreamArn, optionalShardIdMember, pageLimitMember, streamArnMember, STREAMS_PAGE_MAX } from './common.js';

interface DescribeStreamRequest {
  readonly streamArn: string;
  readonly limit: number;
  readonly exclusiveStartShardId: string | undefined;
}

export const describeStreamOperation = defineOperation<DescribeStreamRequest>({
  name: 'DescribeStream',
  members: {
    StreamArn: streamArnMember,
    Limit: pageLimitMember,
    ExclusiveStartShardId: optionalShardIdMember,
  },

  validate(input) {
    checkStreamArn(input.StreamArn as string);
    return {
      streamArn: input.StreamArn as string,
      limit: (input.Limit as number | undefined) ?? STREAMS_PAGE_MAX,
      exclusiveStartShardId: input.ExclusiveStartShardId as string | undefined,
    };
  },

  execute(engine, request) {
    const nowMs = engine.clock.nowMs();
    const stream = engine.streams.byArn(request.streamArn);
    if (stream === undefined) throw streamNotFound(request.streamArn);
    let shards = visibleShards(stream, nowMs);
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
