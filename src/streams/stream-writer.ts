/**
 * The seam between the engine's write path and DynamoDB Streams: a stream as the engine writes to
 * it (a StreamWriter; `ChangeSink` is the engine's own hook, engine/write-pipeline.ts, which calls
 * this one).
 *
 * Every change to an item, whatever the write path (PutItem, UpdateItem, DeleteItem,
 * BatchWriteItem, TransactWriteItems, PartiQL, TTL deletions), reaches the engine's one apply step
 * (`applyPlan` in engine/write-pipeline.ts) inside the request's storage write, which hands its
 * change record to the engine's ChangeSink (engine/table-stream.ts). When the item's table has an
 * enabled stream, that calls the stream's writer once per changed item, after the item is put, with
 * the old and new image. A write that left the item unchanged has no change record: no call. The writer appends the stream record through the same WriteTransaction, so the
 * record commits (or is lost) together with the change it describes: after a crash no
 * acknowledged write lacks its record and no record lacks its write.
 *
 * The writer decides everything else: INSERT / MODIFY / REMOVE from the two images, which shard the
 * key's partition feeds, and what the stream's view type keeps. The engine only needs to hand over what it already has.
 */
import type { AttributeMap } from '../model/attribute-value.js';
import type { WriteTransaction } from '../storage/storage.js';

export interface StreamWriter {
  /**
   * One item changed inside `txn`. `keyHash` is the 32-bit hash of its partition key (the one that
   * leads its storage key and picks its partition); `oldItem` / `newItem` are undefined for an
   * insert / a delete. `systemDelete` marks a deletion made by the service itself (TTL), which the
   * record reports with a service userIdentity. Must not throw for a valid change: it runs after
   * the item was put. O(1) apart from the record's own put.
   */
  onChange(txn: WriteTransaction, keyHash: number, oldItem: AttributeMap | undefined, newItem: AttributeMap | undefined, systemDelete: boolean): void;
}
