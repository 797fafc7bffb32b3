/** GetRecords: up to 1,000 records (and 1 MB) of a shard from an iterator, and the iterator after them. */
import { GET_RECORDS_LIMIT_MAX, getRecords } from '../../streams/stream-reader.js';
import { defineOperation } from '../operation.js';
import { shapes } from '../shape.js';

interface GetRecordsRequest {
  readonly shardIterator: string;
  readonly limit: number;
}

export const getRecordsOperation = defineOperation<GetRecordsRequest>({
  name: 'GetRecords',
  members: {
    ShardIterator: shapes.string({ notNull: true, lengthMin: 1, lengthMax: 2048 }),
    Limit: shapes.integer({ valueMin: 1, valueMax: GET_RECORDS_LIMIT_MAX }),
  },

  validate(input) {
    return { shardIterator: input.ShardIterator as string, limit: (input.Limit as number | undefined) ?? GET_RECORDS_LIMIT_MAX };
  },

  execute(engine, request) {
    return getRecords(engine.streams, request.shardIterator, request.limit, engine.clock.nowMs(), engine.settings.region);
  },
});
