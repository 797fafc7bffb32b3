/** UpdateKinesisStreamingDestination: no table streams to Kinesis in dynatwin, so there is nothing ACTIVE to update. */
import { validationError } from '../errors.js';
import { tableNameOrArnMember } from './control-plane-common.js';
import { kinesisRequestOf, requireKinesisTable, type KinesisRequest } from './kinesis-common.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';

export const updateKinesisStreamingDestinationOperation = defineOperation<KinesisRequest>({
  name: 'UpdateKinesisStreamingDestination',
  members: {
    TableName: tableNameOrArnMember,
    StreamArn: shapes.string({ required: true, lengthMin: 37, lengthMax: 1024 }),
    UpdateKinesisStreamingConfiguration: shapes.structure('UpdateKinesisStreamingConfiguration', {
      ApproximateCreationDateTimePrecision: shapes.string({ enumValues: ['MILLISECOND', 'MICROSECOND'] }),
    }),
  },

  validate(input) {
    return kinesisRequestOf(input);
  },

  execute(engine, request) {
    requireKinesisTable(engine, request.reference);
    throw validationError('Table is not in a valid state to enable Kinesis Streaming Destination: Kinesis streaming is not in ACTIVE state. Updates are only allowed in ACTIVE state.');
  },
});
