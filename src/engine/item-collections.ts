/**
 * Item collections of tables with local secondary indexes: the items of one partition key plus
 * their LSI entries. DynamoDB limits each collection (10 GB by default here, configurable for
 * tests) and reports its size estimate as ItemCollectionMetrics.
 *
 * Sizes are kept in memory per partition key (one number per partition key that holds items, so
 * bounded by the data), moved by every write and recounted from the store at start-up.
 */
import { dynamoError } from '../errors.js';
import { setMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import { partitionKeyPrefix } from '../model/key-codec.js';

const HASH_BYTES = 4;
const LENGTH_BYTES = 2;
const BYTES_PER_GB = 1024 ** 3;

/** DynamoDB's default limit on an item collection. */
export const ITEM_COLLECTION_SIZE_LIMIT_BYTES = 10 * BYTES_PER_GB;

/** AWS documents this message for the exception and for the transaction cancellation reason. */
export const COLLECTION_SIZE_EXCEEDED = 'Collection size exceeded.';

export function itemCollectionSizeLimitExceeded(): ReturnType<typeof dynamoError> {
  return dynamoError('ItemCollectionSizeLimitExceededException', COLLECTION_SIZE_EXCEEDED);
}

export class ItemCollections {
  readonly #sizes = new Map<string, number>();

  /** The collection an item's storage key belongs to: its partition hash, length and bytes. */
  static keyOfStorageKey(storageKey: Uint8Array, itemPrefixLength: number): string {
    const lengthAt = itemPrefixLength + HASH_BYTES;
    const length = (storageKey[lengthAt]! << 8) | storageKey[lengthAt + 1]!;
    return Buffer.from(storageKey.buffer, storageKey.byteOffset + itemPrefixLength, HASH_BYTES + LENGTH_BYTES + length).toString('latin1');
  }

  static keyOfPartition(itemPrefix: Buffer, partitionKey: AttributeValue): string {
    return partitionKeyPrefix(itemPrefix, partitionKey).subarray(itemPrefix.length).toString('latin1');
  }

  sizeOf(key: string): number {
    return this.#sizes.get(key) ?? 0;
  }

  add(key: string, deltaBytes: number): void {
    if (deltaBytes === 0) return;
    const size = this.sizeOf(key) + deltaBytes;
    // An emptied collection leaves no entry behind, so the map stays bounded by the data.
    if (size <= 0) this.#sizes.delete(key);
    else this.#sizes.set(key, size);
  }
}

/** Writes in one request that grow one collection are summed before the limit is applied. */
export class CollectionGrowth {
  readonly #pending = new Map<string, number>();

  /** What this request's earlier admitted writes added to the collection. */
  pendingOf(key: string): number {
    return this.#pending.get(key) ?? 0;
  }

  add(key: string, deltaBytes: number): void {
    this.#pending.set(key, this.pendingOf(key) + deltaBytes);
  }
}

export interface ItemCollectionMetrics {
  readonly ItemCollectionKey: AttributeMap;
  readonly SizeEstimateRangeGB: readonly [number, number];
}

/**
 * DynamoDB's estimate is a range in GB; it documents no rule for it. dynatwin reports the whole
 * gigabytes below and above the exact size ([0, 1] for any collection under 1 GB).
 */
export function itemCollectionMetricsOf(partitionKeyName: string, partitionKey: AttributeValue, sizeBytes: number): ItemCollectionMetrics {
  const key: Record<string, AttributeValue> = {};
  setMember(key, partitionKeyName, partitionKey);
  const lower = Math.floor(sizeBytes / BYTES_PER_GB);
  return { ItemCollectionKey: key, SizeEstimateRangeGB: [lower, lower + 1] };
}
