/** EnableKinesisStreamingDestination: the named Kinesis stream cannot exist in dynatwin, so it is not found. */
import { resourceNotFound } from '../errors.js';
import { kinesisMembers, kinesisRequestOf, requireKinesisTable, type KinesisRequest } from './kinesis-common.js';
import { defineOperation } from './operation.js';

export const enableKinesisStreamingDestinationOperation = defineOperation<KinesisRequest>({
  name: 'EnableKinesisStreamingDestination',
  members: kinesisMembers,

  validate(input) {
    return kinesisRequestOf(input);
  },

  execute(engine, request) {
    requireKinesisTable(engine, request.reference);
    throw resourceNotFound(`Requested resource not found: Stream: ${request.streamArn} not found`);
  },
});
