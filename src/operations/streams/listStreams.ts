/** ListStreams: the account's streams (or one table's), oldest first, 100 a page. */
import { summaryOf, type StreamSummary } from '../../streams/stream-reader.js';
import { defineOperation } from '../operation.js';
import { checkStreamArn, optionalStreamArnMember, optionalTableNameMember, pageLimitMember, STREAMS_PAGE_MAX } from './common.js';

interface ListStreamsRequest {
  readonly tableName: string | undefined;
  readonly limit: number;
  readonly exclusiveStartStreamArn: string | undefined;
}

export const listStreamsOperation = defineOperation<ListStreamsRequest>({
  name: 'ListStreams',
  members: {
    TableName: optionalTableNameMember,
    Limit: pageLimitMember,
    ExclusiveStartStreamArn: optionalStreamArnMember,
  },

  validate(input) {
    checkStreamArn(input.ExclusiveStartStreamArn as string | undefined);
    return {
      tableName: input.TableName as string | undefined,
      limit: (input.Limit as number | undefined) ?? STREAMS_PAGE_MAX,
      exclusiveStartStreamArn: input.ExclusiveStartStreamArn as string | undefined,
    };
  },

  execute(engine, request) {
    let streams = engine.streams.list(engine.clock.nowMs());
    if (request.tableName !== undefined) streams = streams.filter((stream) => stream.tableName === request.tableName);
    if (request.exclusiveStartStreamArn !== undefined) {
      const after = streams.findIndex((stream) => stream.arn === request.exclusiveStartStreamArn);
      streams = after < 0 ? [] : streams.slice(after + 1);
    }
    const page = streams.slice(0, request.limit);
    const body: { Streams: StreamSummary[]; LastEvaluatedStreamArn?: string } = { Streams: page.map(summaryOf) };
    if (streams.length > page.length) body.LastEvaluatedStreamArn = page[page.length - 1]!.arn;
    return body;
  },
});
