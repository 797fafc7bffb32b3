/**
 * Item collections of tables with local secondary indexes: the items of one partition key plus
 * their LSI entries. DynamoDB limits each collection (10 GB by default here, configurable for
 * tests) and reports its size estimate as ItemCollectionMetrics.
 *
 * Sizes are not kept for every partition key, nor recounted at start-up: a write that grows a
 * collection reads that collection's size from the store the first time it needs it (the read
 * phase's second part, inside the write's transaction, before its first put: write-pipeline.ts
 * readCollectionSizes, which the check stage then reads from the plan), and
 * a bounded cache keeps the sizes of recently written collections. A cached size is exact: every
 * applied write moves it. A collection not in the cache has no in-memory state to go stale; the
 * store holds its truth.
 *
 * A size is only read into the cache inside a write transaction, which sees every earlier write,
 * committed or not, and so agrees with the cache's own moves; outside one (ItemCollectionMetrics,
 * after the write) a missing size is measured from the committed store and not cached, since
 * writes not yet committed may have moved it already.
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

/** How many collection sizes a table keeps in memory (the least recently used are dropped). */
export const ITEM_COLLECTIONS_CACHED_MAX = 4096;

export class ItemCollections {
  /** Sizes by collection key, least recently used first (a Map keeps insertion order). */
  readonly #sizes = new Map<string, number>();
  readonly #cachedMax: number;

  constructor(cachedMax = ITEM_COLLECTIONS_CACHED_MAX) {
    if (!(Number.isInteger(cachedMax) && cachedMax > 0)) throw new Error('assertion failed: the collection cache holds at least one size');
    this.#cachedMax = cachedMax;
  }

  /** The collection an item's storage key belongs to: its partition hash, length and bytes. */
  static keyOfStorageKey(storageKey: Uint8Array, itemPrefixLength: number): string {
    const lengthAt = itemPrefixLength + HASH_BYTES;
    const length = (storageKey[lengthAt]! << 8) | storageKey[lengthAt + 1]!;
    return Buffer.from(storageKey.buffer, storageKey.byteOffset + itemPrefixLength, HASH_BYTES + LENGTH_BYTES + length).toString('latin1');
  }

  static keyOfPartition(itemPrefix: Buffer, partitionKey: AttributeValue): string {
    return partitionKeyPrefix(itemPrefix, partitionKey).subarray(itemPrefix.length).toString('latin1');
  }

  /** How many sizes are cached now (tests). */
  get cachedCount(): number {
    return this.#sizes.size;
  }

  /**
   * The collection's size, from the cache or, on a miss, from `measure` (which reads the store
   * inside the caller's write transaction) and then cached. Makes it the most recently used.
   */
  sizeIn(key: string, measure: () => number): number {
    const cached = this.#sizes.get(key);
    const size = cached ?? measure();
    if (cached !== undefined) this.#sizes.delete(key);
    else if (this.#sizes.size >= this.#cachedMax) this.#sizes.delete(this.#sizes.keys().next().value!);
    this.#sizes.set(key, size);
    return size;
  }

  /** The cached size, if the collection is cached (no read, no change of recency). */
  cachedSizeOf(key: string): number | undefined {
    return this.#sizes.get(key);
  }

  /** An applied write moved the collection: a cached size follows it; an uncached one is in the store. */
  add(key: string, deltaBytes: number): void {
    const size = this.#sizes.get(key);
    if (size === undefined || deltaBytes === 0) return;
    this.#sizes.set(key, size + deltaBytes);
  }
}

/**
 * Writes in one request that grow one collection are summed before the limit is applied. A
 * collection is a table's partition key: a batch or transaction writing the same key value to two
 * tables grows two collections, so the sums are kept per table.
 */
export class CollectionGrowth {
  readonly #pending = new Map<number, Map<string, number>>();

  /** What this request's earlier admitted writes added to the table's collection `key`. */
  pendingOf(tableId: number, key: string): number {
    return this.#pending.get(tableId)?.get(key) ?? 0;
  }

  add(tableId: number, key: string, deltaBytes: number): void {
    let table = this.#pending.get(tableId);
    if (table === undefined) this.#pending.set(tableId, (table = new Map()));
    table.set(key, (table.get(key) ?? 0) + deltaBytes);
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
