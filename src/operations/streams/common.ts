/**
 * Members shared by the DynamoDB Streams operations (DynamoDBStreams_20120810.*), with the length
 * constraints of the Streams API reference.
 */
import { validationError } from '../../errors.js';
import { shapes, TABLE_NAME_CONSTRAINTS, type Member } from '../shape.js';

export const streamArnMember: Member = shapes.string({ notNull: true, lengthMin: 37, lengthMax: 1024 });
export const optionalStreamArnMember: Member = shapes.string({ lengthMin: 37, lengthMax: 1024 });
export const shardIdMember: Member = shapes.string({ notNull: true, lengthMin: 28, lengthMax: 65 });
export const optionalShardIdMember: Member = shapes.string({ lengthMin: 28, lengthMax: 65 });
export const optionalTableNameMember: Member = shapes.string(TABLE_NAME_CONSTRAINTS);

/** ListStreams and DescribeStream answer at most 100 entries a page. */
export const STREAMS_PAGE_MAX = 100;
export const pageLimitMember: Member = shapes.integer({ valueMin: 1, valueMax: STREAMS_PAGE_MAX });

/** `arn:<partition>:dynamodb:<region>:<account>:table/<table>/stream/<label>` */
const STREAM_ARN_FORM = /^arn:[^:]+:dynamodb:[^:]*:[^:]*:table\/[^/]+\/stream\/[^/]+$/;

/**
 * A StreamArn that is not a stream ARN at all is a ValidationException `Invalid StreamArn` (seen
 * from the service; docs/CONFORMANCE.md); a well-formed ARN naming no stream is ResourceNotFound.
 */
export function checkStreamArn(arn: string | undefined): void {
  if (arn !== undefined && !STREAM_ARN_FORM.test(arn)) throw validationError('Invalid StreamArn');
}
