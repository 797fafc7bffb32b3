/**
 * The DynamoDB Streams operations, served on the same endpoint under the target prefix
 * DynamoDBStreams_20120810. (server/http.ts): operation name → operation.
 */
import type { AnyOperation } from '../operation.js';
import { describeStreamOperation } from './describeStream.js';
import { getRecordsOperation } from './getRecords.js';
import { getShardIteratorOperation } from './getShardIterator.js';
import { listStreamsOperation } from './listStreams.js';

export const STREAMS_TARGET_PREFIX = 'DynamoDBStreams_20120810.';

export function createStreamsOperationRegistry(): ReadonlyMap<string, AnyOperation> {
  const operations = [listStreamsOperation, describeStreamOperation, getShardIteratorOperation, getRecordsOperation];
  return new Map(operations.map((operation) => [operation.name, operation]));
}
