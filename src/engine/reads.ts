/**
 * The engine's item reads: every read of a stored item by key is made, sized and admitted here
 * (GetItem, BatchGetItem, the LSI fetches of Query and Scan), so operations never reach into the
 * store. Query and Scan pages are read by read-range.ts and admitted with admitRead (admit.ts);
 * TransactGetItems reads and admits inside its snapshot write (transactions.ts transactRead).
 *
 * A read is sized on the whole stored item, before any projection (reference §1.2): a missing item
 * costs the minimum. It is admitted on the partition owning its key; refused, it throws DynamoDB's
 * throttle error (GetItem) or is reported back (BatchGetItem, whose refused keys are unprocessed).
 */
import type { ThrottleVerdict } from '../capacity/admission.js';
import { readUnits, type ReadConsistency } from '../capacity/units.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { admitRead, asOneRequest, requestUnitsOf, settle } from './admit.js';
import type { Engine } from './engine.js';
import type { Table } from './table.js';

/** BatchGetItem returns at most 16 MB of items per call. */
export const BATCH_GET_RESPONSE_BYTES_MAX = 16 * 1024 * 1024;

/** An admitted read: the committed item (or none), its JSON text as stored, and its units. */
export interface ItemRead {
  readonly item: AttributeMap | undefined;
  /** `JSON.stringify(item)` as the store has it, for answering with it as is. */
  readonly json: string | undefined;
  readonly units: number;
}

/**
 * GetItem's read: the committed item under `storageKey`, sized and admitted on its partition
 * (Contributor Insights counts it under `key`). Throws the throttle error when refused.
 */
export function readItem(engine: Engine, table: Table, storageKey: Uint8Array, key: AttributeMap, consistency: ReadConsistency): ItemRead {
  const read = engine.storage.getWithJson(storageKey);
  const item = read === undefined ? undefined : (read.value as AttributeMap);
  const units = readUnits(item === undefined ? 0 : itemSize(item), consistency);
  admitRead(engine, table.partitions, storageKey, units, { item: key, key: table.key });
  return { item, json: read?.json, units };
}

/** One key of a batch read. */
export interface BatchRead {
  readonly table: Table;
  readonly storageKey: Uint8Array;
  /** The key as the request gave it (Contributor Insights counts the read under it). */
  readonly key: AttributeMap;
  readonly consistency: ReadConsistency;
}

/** A batch key read (with its units), or the verdict that refused it. */
export type BatchReadOutcome =
  | { readonly refused: undefined; readonly item: AttributeMap | undefined; readonly units: number }
  | { readonly refused: ThrottleVerdict };

/**
 * Reads `reads` in order, each admitted on its own as the GetItem it stands for, until the next
 * item would take the items read past `limitBytes`; one outcome per key processed, the keys after
 * them are left for the caller to return as unprocessed. The limit counts whole items as stored,
 * before any projection, as capacity does, so a projection never changes which keys are
 * processed; a refused key counts nothing. A batch read is a series of committed reads, with no
 * snapshot across the keys (DynamoDB gives none either). The metrics get one Consumed* sample
 * per request and resource (asOneRequest).
 */
export function readBatch(engine: Engine, reads: readonly BatchRead[], limitBytes = BATCH_GET_RESPONSE_BYTES_MAX): BatchReadOutcome[] {
  const outcomes: BatchReadOutcome[] = [];
  let totalBytes = 0;
  // Each item is read once, when first needed. What the batch asks if every key up to the limit is
  // served decides whether it is a large request (each key is still admitted on its own).
  const items: (AttributeMap | undefined)[] = [];
  const sizes: number[] = [];
  const readUpTo = (at: number): void => {
    while (items.length <= at) {
      const item = engine.storage.get(reads[items.length]!.storageKey) as AttributeMap | undefined;
      items.push(item);
      sizes.push(item === undefined ? 0 : itemSize(item));
    }
  };
  asOneRequest(engine, () => {
    const request = requestUnitsOf(engine, (demands) => {
      let bytes = 0;
      for (const [at, read] of reads.entries()) {
        readUpTo(at);
        if (bytes + sizes[at]! > limitBytes) break;
        bytes += sizes[at]!;
        demands.read(read.table.partitions, read.storageKey, readUnits(sizes[at]!, read.consistency));
      }
    });
    for (const [at, read] of reads.entries()) {
      readUpTo(at);
      const item = items[at];
      const sizeBytes = sizes[at]!;
      if (totalBytes + sizeBytes > limitBytes) break;
      const units = readUnits(sizeBytes, read.consistency);
      const table = read.table;
      const refused = settle(engine, (demands) => demands.read(table.partitions, read.storageKey, units, { item: read.key, key: table.key }), request);
      if (refused !== undefined) {
        outcomes.push({ refused });
        continue;
      }
      totalBytes += sizeBytes;
      outcomes.push({ refused: undefined, item, units });
    }
  });
  return outcomes;
}

/** A table item fetched for an LSI entry (its units are charged with the page), with its size. */
export interface FetchedItem {
  readonly item: AttributeMap | undefined;
  readonly sizeBytes: number;
}

/** The committed item under `storageKey` and its size, for a read that charges it with its page. */
export function fetchItem(engine: Engine, storageKey: Uint8Array): FetchedItem {
  const item = engine.storage.get(storageKey) as AttributeMap | undefined;
  return { item, sizeBytes: item === undefined ? 0 : itemSize(item) };
}
