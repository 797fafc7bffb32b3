/**
 * The read side of DynamoDB Streams: stream descriptions, shard iterators and GetRecords, on the
 * committed store and the injected clock. The operations in operations/streams/ call these after
 * their shape checks.
 *
 * A shard iterator is `<stream ARN>|1|<base64 of: stream id, shard number, position, issue time>`:
 * the position is the first sequence the next GetRecords may return. Iterators are not stored;
 * they expire 15 minutes of the server's clock after GetShardIterator or GetRecords issued them.
 *
 * Trimming: a record older than 24 hours is gone for reads whether or not a trimming step has
 * deleted it yet (stream-store.ts). An iterator or sequence number whose next record has been
 * trimmed gets TrimmedDataAccessException.
 */
import { dynamoError, resourceNotFound, validationError, type DynamoError } from '../errors.js';
import type { ReadView } from '../storage/storage.js';
import { parseSequence, recordKey, sequenceOfKey, sequenceText, shardEndKey, wireRecord, type StoredRecord, type WireRecord } from './records.js';
import { lastStoredSequence, STREAM_RETENTION_MS, type Shard, type Stream, type StreamStore } from './stream-store.js';

/** Shard iterators expire 15 minutes after they are issued. */
export const ITERATOR_LIFETIME_MS = 15 * 60 * 1000;
/** GetRecords answers at most 1,000 records and 1 MB. */
export const GET_RECORDS_LIMIT_MAX = 1000;
export const GET_RECORDS_BYTES_MAX = 1024 * 1024;
const ITERATOR_VERSION = '1';

export type ShardIteratorType = 'TRIM_HORIZON' | 'LATEST' | 'AT_SEQUENCE_NUMBER' | 'AFTER_SEQUENCE_NUMBER';

export function streamNotFound(arn: string): DynamoError {
  return resourceNotFound(`Requested resource not found: Stream: ${arn} not found`);
}

function trimmed(): DynamoError {
  return dynamoError('TrimmedDataAccessException', 'The data you are trying to access has been trimmed.');
}

export function invalidIterator(): DynamoError {
  return validationError('Invalid ShardIterator');
}

/** Java's Date.toString() in UTC, as DynamoDB's ExpiredIteratorException prints times. */
function javaDate(ms: number): string {
  const date = new Date(ms);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (value: number): string => String(value).padStart(2, '0');
  return (
    `${days[date.getUTCDay()]} ${months[date.getUTCMonth()]} ${two(date.getUTCDate())} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} UTC ${date.getUTCFullYear()}`
  );
}

function expired(issuedMs: number, nowMs: number): DynamoError {
  return dynamoError(
    'ExpiredIteratorException',
    `Iterator expired. The iterator was created at time ${javaDate(issuedMs)} while right now it is ${javaDate(nowMs)} ` +
      `which is further in the future than the tolerated delay of ${ITERATOR_LIFETIME_MS} milliseconds.`,
  );
}

// ---------------------------------------------------------------------------------------------
// Descriptions
// ---------------------------------------------------------------------------------------------

export interface StreamSummary {
  readonly StreamArn: string;
  readonly TableName: string;
  readonly StreamLabel: string;
}

export interface ShardDescription {
  readonly ShardId: string;
  readonly SequenceNumberRange: { readonly StartingSequenceNumber: string; readonly EndingSequenceNumber?: string };
  readonly ParentShardId?: string;
}

export function summaryOf(stream: Stream): StreamSummary {
  return { StreamArn: stream.arn, TableName: stream.tableName, StreamLabel: stream.label };
}

/** Shards a reader may still use: open ones, and closed ones with records inside the retention. */
export function visibleShards(stream: Stream, nowMs: number): Shard[] {
  const cutoffMs = nowMs - STREAM_RETENTION_MS;
  return stream.shards.filter((shard) => shard.open || shard.closedAtMs! >= cutoffMs);
}

export function describeShard(shard: Shard): ShardDescription {
  return {
    ShardId: shard.shardId,
    SequenceNumberRange: {
      StartingSequenceNumber: sequenceText(shard.startSequence),
      ...(shard.endSequence === undefined ? {} : { EndingSequenceNumber: sequenceText(shard.endSequence) }),
    },
    ...(shard.parentShardId === undefined ? {} : { ParentShardId: shard.parentShardId }),
  };
}

// ---------------------------------------------------------------------------------------------
// Iterators
// ---------------------------------------------------------------------------------------------

interface IteratorState {
  readonly streamId: number;
  readonly shardNumber: number;
  readonly position: number;
  readonly issuedMs: number;
}

const U32 = 2 ** 32;

function encodeIterator(stream: Stream, state: IteratorState): string {
  const payload = Buffer.allocUnsafe(24);
  payload.writeUInt32BE(state.streamId, 0);
  payload.writeUInt32BE(state.shardNumber, 4);
  payload.writeUInt32BE(Math.floor(state.position / U32), 8);
  payload.writeUInt32BE(state.position >>> 0, 12);
  payload.writeDoubleBE(state.issuedMs, 16);
  return `${stream.arn}|${ITERATOR_VERSION}|${payload.toString('base64')}`;
}

function decodeIterator(text: string): { readonly arn: string; readonly state: IteratorState } {
  const last = text.lastIndexOf('|');
  const middle = text.lastIndexOf('|', last - 1);
  if (middle <= 0 || text.slice(middle + 1, last) !== ITERATOR_VERSION) throw invalidIterator();
  const payload = Buffer.from(text.slice(last + 1), 'base64');
  if (payload.length !== 24 || payload.toString('base64') !== text.slice(last + 1)) throw invalidIterator();
  const issuedMs = payload.readDoubleBE(16);
  if (!Number.isFinite(issuedMs)) throw invalidIterator();
  return {
    arn: text.slice(0, middle),
    state: {
      streamId: payload.readUInt32BE(0),
      shardNumber: payload.readUInt32BE(4),
      position: payload.readUInt32BE(8) * U32 + payload.readUInt32BE(12),
      issuedMs,
    },
  };
}

/** The first sequence of a shard not yet trimmed (at `cutoffMs`), reading the committed store. */
function horizonOf(view: ReadView, stream: Stream, shard: Shard, cutoffMs: number): number {
  // A shard's own StartingSequenceNumber is reserved: its records come after it.
  let horizon = Math.max(shard.startSequence + 1, (shard.trimmedThrough ?? -1) + 1);
  for (const entry of view.range({ start: recordKey(stream.id, shard.number, horizon), end: shardEndKey(stream.id, shard.number) })) {
    const sequence = sequenceOfKey(entry.key);
    if ((entry.value as StoredRecord).t >= cutoffMs) return sequence;
    horizon = sequence + 1;
  }
  return horizon;
}

/** Whether reading from `position` would skip a record that has been trimmed. */
function isTrimmed(view: ReadView, stream: Stream, shard: Shard, position: number, cutoffMs: number): boolean {
  if (shard.trimmedThrough !== undefined && position <= shard.trimmedThrough) return true;
  for (const entry of view.range({ start: recordKey(stream.id, shard.number, position), end: shardEndKey(stream.id, shard.number), limit: 1 })) {
    return (entry.value as StoredRecord).t < cutoffMs;
  }
  return false;
}

export interface IteratorRequest {
  readonly streamArn: string;
  readonly shardId: string;
  readonly type: ShardIteratorType;
  readonly sequenceNumber: string | undefined;
}

export function getShardIterator(store: StreamStore, request: IteratorRequest, nowMs: number): string {
  const stream = store.byArn(request.streamArn);
  if (stream === undefined) throw streamNotFound(request.streamArn);
  const shard = stream.shard(request.shardId);
  if (shard === undefined || !visibleShards(stream, nowMs).includes(shard)) {
    throw resourceNotFound(`Requested resource not found: Shard does not exist`);
  }
  const view = store.view;
  const cutoffMs = nowMs - STREAM_RETENTION_MS;
  let position: number;
  switch (request.type) {
    case 'TRIM_HORIZON':
      position = horizonOf(view, stream, shard, cutoffMs);
      break;
    case 'LATEST':
      position = Math.max((lastStoredSequence(view, stream.id, shard.number) ?? shard.startSequence) + 1, (shard.trimmedThrough ?? -1) + 1);
      break;
    case 'AT_SEQUENCE_NUMBER':
    case 'AFTER_SEQUENCE_NUMBER': {
      const text = request.sequenceNumber;
      const sequence = text === undefined ? undefined : parseSequence(text);
      const end = shard.endSequence ?? Infinity;
      if (sequence === undefined || sequence < shard.startSequence || sequence > end) {
        throw validationError(`Invalid SequenceNumber for ShardIteratorType ${request.type}: ${text ?? 'null'}`);
      }
      position = request.type === 'AT_SEQUENCE_NUMBER' ? sequence : sequence + 1;
      if (isTrimmed(view, stream, shard, sequence, cutoffMs)) throw trimmed();
      break;
    }
  }
  return encodeIterator(stream, { streamId: stream.id, shardNumber: shard.number, position, issuedMs: nowMs });
}

// ---------------------------------------------------------------------------------------------
// GetRecords
// ---------------------------------------------------------------------------------------------

export interface RecordsPage {
  readonly Records: WireRecord[];
  readonly NextShardIterator?: string;
}

export function getRecords(store: StreamStore, iterator: string, limit: number, nowMs: number, region: string): RecordsPage {
  const { arn, state } = decodeIterator(iterator);
  const stream = store.byId(state.streamId);
  if (stream === undefined || stream.arn !== arn) throw invalidIterator();
  if (nowMs - state.issuedMs > ITERATOR_LIFETIME_MS) throw expired(state.issuedMs, nowMs);
  if (store.byArn(arn) === undefined) throw streamNotFound(arn);
  const shard = stream.shards.find((candidate) => candidate.number === state.shardNumber);
  // A shard forgotten by trimming held nothing but trimmed records.
  if (shard === undefined) throw trimmed();
  const view = store.view;
  const cutoffMs = nowMs - STREAM_RETENTION_MS;
  if (isTrimmed(view, stream, shard, state.position, cutoffMs)) throw trimmed();
  const records: WireRecord[] = [];
  let bytes = 0;
  let next = state.position;
  for (const entry of view.range({ start: recordKey(stream.id, shard.number, state.position), end: shardEndKey(stream.id, shard.number), limit })) {
    const sequence = sequenceOfKey(entry.key);
    const record = wireRecord(entry.value as StoredRecord, stream.id, sequence, stream.viewType, stream.keyNames, region);
    // The 1 MB bound: the record that crosses it waits for the next call, unless it is the first.
    if (records.length > 0 && bytes + record.dynamodb.SizeBytes > GET_RECORDS_BYTES_MAX) break;
    bytes += record.dynamodb.SizeBytes;
    records.push(record);
    next = sequence + 1;
  }
  // A closed shard is drained once the position passed its last record: no further iterator.
  const end = shard.endSequence;
  if (end !== undefined && next > end) return { Records: records };
  return { Records: records, NextShardIterator: encodeIterator(stream, { ...state, position: next, issuedMs: nowMs }) };
}
