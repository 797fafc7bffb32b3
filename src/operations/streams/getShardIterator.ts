/** GetShardIterator: where in a shard the next GetRecords starts (TRIM_HORIZON, LATEST, AT/AFTER a sequence number). */
import { getShardIterator, type IteratorRequest, type ShardIteratorType } from '../../streams/stream-reader.js';
import { defineOperation } from '../operation.js';
import { shapes } from '../shape.js';
import { shardIdMember, streamArnMember } from './common.js';

const ITERATOR_TYPES = ['TRIM_HORIZON', 'LATEST', 'AT_SEQUENCE_NUMBER', 'AFTER_SEQUENCE_NUMBER'] as const;

export const getShardIteratorOperation = defineOperation<IteratorRequest>({
  name: 'GetShardIterator',
  members: {
    StreamArn: streamArnMember,
    ShardId: shardIdMember,
    ShardIteratorType: shapes.string({ notNull: true, enumValues: ITERATOR_TYPES }),
    SequenceNumber: shapes.string({ lengthMin: 21, lengthMax: 40 }),
  },

  validate(input) {
    return {
      streamArn: input.StreamArn as string,
      shardId: input.ShardId as string,
      type: input.ShardIteratorType as ShardIteratorType,
      sequenceNumber: input.SequenceNumber as string | undefined,
    };
  },

  execute(engine, request) {
    return { ShardIterator: getShardIterator(engine.streams, request, engine.clock.nowMs()) };
  },
});
