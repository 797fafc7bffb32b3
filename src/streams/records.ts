/**
 * How stream records are stored, and turned into DynamoDB Streams' wire form when read.
 *
 * Storage layout (beside the catalog's, see engine/catalog.ts):
 *   0x00 's' <stream id, u32 BE>                              → StreamMeta (stream-store.ts)
 *   0x04 <stream id u32> <shard number u32> <sequence u64>     → StoredRecord
 *
 * A shard's records are one contiguous key range, in sequence order, so GetRecords is one range
 * read from the iterator's position. The stored form is compact and references the images the
 * write already holds (the memory store keeps the very objects; LMDB encodes them in the commit;
 * the logged store logs a record's new image as a reference to the item's bytes its write logged,
 * stream-store.ts recordHead):
 * eventID, SizeBytes, the wire sequence number and the rest of the record are derived at read
 * time, never on the write path.
 */
import { ownMember, setMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';

export type StreamViewType = 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES' | 'KEYS_ONLY';

const CATALOG_BYTE = 0x00;
const STREAM_META_TAG = 0x73; // 's'
const RECORDS_BYTE = 0x04;

export const STREAM_METAS_START = Buffer.from([CATALOG_BYTE, STREAM_META_TAG]);
export const STREAM_METAS_END = Buffer.from([CATALOG_BYTE, STREAM_META_TAG + 1]);

const U32 = 2 ** 32;

export function streamMetaKey(streamId: number): Buffer {
  const key = Buffer.allocUnsafe(6);
  key[0] = CATALOG_BYTE;
  key[1] = STREAM_META_TAG;
  key.writeUInt32BE(streamId, 2);
  return key;
}

/** The key of a shard's record `sequence` (sequences below 2^53, as Numbers). */
export function recordKey(streamId: number, shardNumber: number, sequence: number): Buffer {
  const key = Buffer.allocUnsafe(17);
  key[0] = RECORDS_BYTE;
  key.writeUInt32BE(streamId, 1);
  key.writeUInt32BE(shardNumber, 5);
  key.writeUInt32BE(Math.floor(sequence / U32), 9);
  key.writeUInt32BE(sequence >>> 0, 13);
  return key;
}

/** The first key after every record of a shard. */
export function shardEndKey(streamId: number, shardNumber: number): Buffer {
  return recordKey(streamId, shardNumber, Number.MAX_SAFE_INTEGER);
}

export function sequenceOfKey(key: Uint8Array): number {
  const view = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  return view.readUInt32BE(9) * U32 + view.readUInt32BE(13);
}

/** INSERT, MODIFY, REMOVE, as stored. */
export type EventKind = 0 | 1 | 2;
export const EVENT_INSERT: EventKind = 0;
export const EVENT_MODIFY: EventKind = 1;
export const EVENT_REMOVE: EventKind = 2;

const EVENT_NAMES = ['INSERT', 'MODIFY', 'REMOVE'] as const;

/**
 * One stored record. `o` / `n` are the old and new images, present only when the stream's view
 * type keeps them; `k` is the item's key, stored only when the record carries neither image
 * (an image holds the key: readers take it from there, recordKeys); `u` marks a service (TTL)
 * deletion. Records written before `k` was left out have it beside their images; they read the same.
 */
export interface StoredRecord {
  readonly e: EventKind;
  /** Creation time, ms on the server's clock. */
  readonly t: number;
  readonly k?: AttributeMap | undefined;
  readonly o?: AttributeMap | undefined;
  readonly n?: AttributeMap | undefined;
  readonly u?: 1 | undefined;
}

/**
 * DynamoDB's sequence numbers are decimal strings of 21 digits or more that increase within a
 * shard. Ours: "1" then the sequence on 20 digits, so they also sort as strings.
 */
const SEQUENCE_BASE = 10n ** 20n;

export function sequenceText(sequence: number): string {
  return '1' + String(sequence).padStart(20, '0');
}

/** The sequence a client's SequenceNumber names, or undefined when it is not one of ours. */
export function parseSequence(text: string): number | undefined {
  if (!/^[0-9]{21,40}$/.test(text)) return undefined;
  const value = BigInt(text) - SEQUENCE_BASE;
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(value);
}

export interface WireRecord {
  readonly eventID: string;
  readonly eventName: (typeof EVENT_NAMES)[number];
  readonly eventVersion: '1.1';
  readonly eventSource: 'aws:dynamodb';
  readonly awsRegion: string;
  readonly dynamodb: {
    readonly ApproximateCreationDateTime: number;
    readonly Keys: AttributeMap;
    readonly NewImage?: AttributeMap;
    readonly OldImage?: AttributeMap;
    readonly SequenceNumber: string;
    readonly SizeBytes: number;
    readonly StreamViewType: StreamViewType;
  };
  readonly userIdentity?: { readonly Type: 'Service'; readonly PrincipalId: 'dynamodb.amazonaws.com' };
}

/** A record's key: stored, or the key attributes (`keyNames`, the table's key schema's) of its image. */
export function recordKeys(stored: StoredRecord, keyNames: readonly string[]): AttributeMap {
  if (stored.k !== undefined) return stored.k;
  const image = stored.n ?? stored.o;
  if (image === undefined) throw new Error('assertion failed: a stored record has neither its key nor an image');
  const keys: Record<string, AttributeValue> = {};
  // Own members: a key attribute may be named `__proto__` or `constructor`.
  for (const name of keyNames) setMember(keys, name, ownMember(image, name)!);
  return keys;
}

/** The Streams API's Identity shape (members PrincipalId and Type): who made a TTL deletion. */
const SERVICE_IDENTITY = { Type: 'Service', PrincipalId: 'dynamodb.amazonaws.com' } as const;

/**
 * The record as GetRecords answers it. eventID is unique per stream and record (32 hex digits,
 * like DynamoDB's), derived from the stream id and the sequence. SizeBytes counts the keys and
 * the images the record carries, as DynamoDB's does.
 */
export function wireRecord(stored: StoredRecord, streamId: number, sequence: number, viewType: StreamViewType, keyNames: readonly string[], region: string): WireRecord {
  const keys = recordKeys(stored, keyNames);
  const sizeBytes = itemSize(keys) + (stored.o === undefined ? 0 : itemSize(stored.o)) + (stored.n === undefined ? 0 : itemSize(stored.n));
  const dynamodb = {
    ApproximateCreationDateTime: Math.floor(stored.t / 1000),
    Keys: keys,
    ...(stored.n === undefined ? {} : { NewImage: stored.n }),
    ...(stored.o === undefined ? {} : { OldImage: stored.o }),
    SequenceNumber: sequenceText(sequence),
    SizeBytes: sizeBytes,
    StreamViewType: viewType,
  };
  const record: WireRecord = {
    eventID: streamId.toString(16).padStart(8, '0') + '0'.repeat(8) + sequence.toString(16).padStart(16, '0'),
    eventName: EVENT_NAMES[stored.e],
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    dynamodb,
  };
  return stored.u === 1 ? { ...record, userIdentity: SERVICE_IDENTITY } : record;
}
