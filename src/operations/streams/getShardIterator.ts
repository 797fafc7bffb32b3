/** GetShardIterator: where in a shard the next GetRecords starts (TRIM_HORIZON, LATEST, AT/AFTER a sequence number). */
import { getShardIterator, type IteratorRequest, type ShardIteratorType } from '../../streams/stream-reader.js';
import { defineOperation } from '../operation.js';
import { shapes } from '../shape.js';
import { validationError } from '../../errors.js';
import { checkStreamArn, shardIdMember, streamArnMember } from './common.js';

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
    checkStreamArn(input.StreamArn as string);
    const type = input.ShardIteratorType as ShardIteratorType;
    const sequenceNumber = input.SequenceNumber as string | undefined;
    // DynamoDB refuses a SequenceNumber with the types that take none (the text is ours).
    if ((type === 'TRIM_HORIZON' || type === 'LATEST') && sequenceNumber !== undefined) {
      throw validationError(`Invalid SequenceNumber for ShardIteratorType ${type}: ${sequenceNumber}`);
    }
    return { streamArn: input.StreamArn as string, shardId: input.ShardId as string, type, sequenceNumber };
  },

  execute(engine, request) {
    return { ShardIterator: getShardIterator(engine.streams, request, engine.clock.nowMs()) };
  },
});
