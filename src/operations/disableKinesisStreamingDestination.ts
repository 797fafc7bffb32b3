/** DisableKinesisStreamingDestination: no table streams to Kinesis in dynatwin, so there is nothing ACTIVE to disable. */
import { validationError } from '../errors.js';
import { kinesisMembers, kinesisRequestOf, requireKinesisTable, type KinesisRequest } from './kinesis-common.js';
import { defineOperation } from './operation.js';

export const disableKinesisStreamingDestinationOperation = defineOperation<KinesisRequest>({
  name: 'DisableKinesisStreamingDestination',
  members: kinesisMembers,

  validate(input) {
    return kinesisRequestOf(input);
  },

  execute(engine, request) {
    requireKinesisTable(engine, request.reference);
    throw validationError('Table is not in a valid state to enable Kinesis Streaming Destination: KinesisStreamingDestination must be ACTIVE to perform DISABLE operation.');
  },
});
