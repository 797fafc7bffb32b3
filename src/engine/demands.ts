/**
 * The admit step of a request: what it asks of which partition of which table or GSI, handed to
 * the admission model (capacity/admission.ts) all at once, so a request is admitted whole or not at
 * all and a throttled request consumes nothing.
 *
 * Where units land (reference §1.5, §2.2, §3.5):
 * - a write's table units, and its LSI entry writes, on the table partition owning the item's hash
 *   (an item collection of a table with LSIs never leaves its partition);
 * - each GSI entry write on the GSI partition owning the entry's hash: the delete of a moved entry
 *   where the old entry lived, the put where the new one goes. These join the GSI partition's
 *   backlog (back-pressure) rather than being admitted directly;
 * - a read on the partition owning the key it reads (a Scan page: the first item's partition).
 *
 * With `--capacity off` nothing is admitted or refused; units are still counted for the responses,
 * the metrics and the partitions' consumption (admission.ts recordUnenforced).
 */
import { admit, recordUnenforced, type Direction, type PartitionCapacity, type RequestUnits, type ResourceCapacity, type ThrottleVerdict } from '../capacity/admission.js';
import type { AttributeMap } from '../model/attribute-value.js';
import type { CapacityRecorder, CountedDemand, DemandKey } from './capacity-recorder.js';
import { writeUnits } from '../capacity/units.js';
import { decodeItemKeyHash } from '../model/key-codec.js';
import type { WritePlan } from './write-pipeline.js';
import { INDEX_PREFIX_BYTES, RESOURCE_PREFIX_BYTES } from './index-keys.js';
import type { SecondaryIndex } from './indexes.js';
import type { ResourcePartitions } from './partition-tracker.js';
import type { KeyShape, Table } from './table.js';

/** Lists kept for reuse: more than the deepest nesting of admissions. */
const POOLED_DEMANDS_MAX = 4;
/**
 * Slots a pooled list keeps between requests: a GetItem or PutItem needs one, a write with GSIs
 * one plus two per GSI; a 100-item transaction's thousands are let go rather than kept for good.
 */
const SLOTS_KEPT_MAX = 64;

/**
 * One demand of a list, rewritten in place by the next request that uses the list: a request
 * allocates no demand, no key record and no array (issue 21: emptying the arrays with
 * `length = 0` dropped their backing stores, ~300 bytes per GetItem, and each demand and key
 * record was an object of its own).
 */
class DemandSlot implements CountedDemand {
  resource: ResourceCapacity;
  partition: PartitionCapacity;
  direction: Direction;
  units: number;
  /** `#counted` while the demand has an item Contributor Insights counts, else undefined. */
  key: DemandKey | undefined = undefined;
  /** This slot's own key record, made on its first counted demand and rewritten after. */
  #counted: { item: AttributeMap; key: KeyShape } | undefined = undefined;

  constructor(partition: PartitionCapacity, direction: Direction, units: number) {
    this.resource = partition.resource;
    this.partition = partition;
    this.direction = direction;
    this.units = units;
  }

  set(partition: PartitionCapacity, direction: Direction, units: number, item: AttributeMap | undefined, shape: KeyShape | undefined): void {
    this.resource = partition.resource;
    this.partition = partition;
    this.direction = direction;
    this.units = units;
    if (item === undefined) {
      this.key = undefined;
      return;
    }
    if (shape === undefined) throw new Error('assertion failed: a counted demand names its key shape');
    const counted = this.#counted;
    if (counted === undefined) {
      this.#counted = this.key = { item, key: shape };
      return;
    }
    counted.item = item;
    counted.key = shape;
    this.key = counted;
  }

  /** Lets go of the item the slot counted, so a kept slot does not keep it alive. */
  forget(): void {
    this.key = undefined;
    if (this.#counted !== undefined) this.#counted.item = NO_ITEM;
  }
}

/** What a forgotten slot's key record holds instead of an item (never read: `key` is undefined then). */
const NO_ITEM: AttributeMap = Object.freeze({});

export class Demands {
  /** The first `#count` slots are this request's demands; the ones after are kept for reuse. */
  readonly #slots: DemandSlot[] = [];
  #count = 0;
  #nowMs: number;

  constructor(nowMs: number) {
    this.#nowMs = nowMs;
  }

  get nowMs(): number {
    return this.#nowMs;
  }

  /** How many demands the list holds. */
  get count(): number {
    return this.#count;
  }

  /** Empties the list, to build the next demands of the same request (a batch's next item) in it. */
  reset(): void {
    const slots = this.#slots;
    for (let at = 0; at < this.#count; at++) slots[at]!.forget();
    this.#count = 0;
    // Shortening to a non-zero length keeps the backing store (unlike emptying it).
    if (slots.length > SLOTS_KEPT_MAX) slots.length = SLOTS_KEPT_MAX;
  }

  /** Empties the list for another request, at `nowMs` (DemandsPool). */
  restart(nowMs: number): void {
    this.reset();
    this.#nowMs = nowMs;
  }

  /** Adds the list's demands to a batch's whole-request sums (admit.ts requestUnitsOf). */
  addTo(request: RequestUnits): void {
    request.add(this.#slots, this.#count);
  }

  /**
   * Read units on the partition owning `storageKey` (a table item key or a GSI entry key). A read
   * first lets a split its on-demand peak made due happen (writes split in their own write).
   * Contributor Insights counts it under `item`'s key (of shape `shape`), when given.
   */
  read(partitions: ResourcePartitions, storageKey: Uint8Array, units: number, item?: AttributeMap, shape?: KeyShape): void {
    partitions.splitWhenDue(this.#nowMs);
    this.#add(partitions, decodeItemKeyHash(storageKey, RESOURCE_PREFIX_BYTES), 'read', units, item, shape);
  }

  /** Read units on the partition owning `hash` (a page that read nothing: where its range starts). */
  readAtHash(partitions: ResourcePartitions, hash: number, units: number, item?: AttributeMap, shape?: KeyShape): void {
    partitions.splitWhenDue(this.#nowMs);
    this.#add(partitions, hash, 'read', units, item, shape);
  }

  /** Write units on the table partition owning `storageKey` (a failed conditional write, a ConditionCheck). */
  tableWrite(table: Table, storageKey: Uint8Array, units: number, item?: AttributeMap): void {
    this.#add(table.partitions, decodeItemKeyHash(storageKey, RESOURCE_PREFIX_BYTES), 'write', units, item, table.key);
  }

  /**
   * A planned item write (write-pipeline.ts), with the units its plan holds: the table's (larger
   * image, doubled in a transaction) plus its LSI entry writes on the item's partition, and every
   * GSI entry write on its GSI partition. A plan that only checks its item is the table's units.
   */
  write(plan: WritePlan): void {
    let tableUnits = plan.tableWriteUnits;
    for (const { index, change } of plan.indexWrites) {
      if (change.writeUnits === 0) continue;
      if (index.kind === 'local') {
        tableUnits += change.writeUnits;
        continue;
      }
      const partitions = index.state.partitions;
      if (partitions === undefined) continue;
      this.#gsiWrite(index, partitions, plan, change.removeKey, change.putKey, change.oldBytes, change.writeUnits);
    }
    this.tableWrite(plan.table, plan.storageKey, tableUnits, plan.next.item ?? plan.old.item);
  }

  /**
   * Admits every demand or none (unless enforcement is off) and records the outcome: consumption
   * when admitted, the throttle when not. Returns the verdict of a throttled request.
   */
  settle(enforce: boolean, recorder: CapacityRecorder | undefined, request?: RequestUnits): ThrottleVerdict | undefined {
    const slots = this.#slots;
    const count = this.#count;
    if (count === 0) return undefined;
    const verdict = enforce ? admit(slots, this.#nowMs, request, count) : undefined;
    if (recorder !== undefined) {
      if (verdict === undefined) recorder.admitted(slots, count, this.#nowMs);
      else recorder.throttled(verdict, slots, this.#nowMs);
    }
    // Unenforced, the partitions still count what was consumed (after the recorder, which
    // attaches the GSI drain hook this reports GSI writes to).
    if (!enforce) recordUnenforced(slots, this.#nowMs, count);
    return verdict;
  }

  #gsiWrite(
    index: SecondaryIndex,
    partitions: ResourcePartitions,
    plan: WritePlan,
    removeKey: Buffer | undefined,
    putKey: Buffer | undefined,
    oldBytes: number,
    units: number,
  ): void {
    const oldItem = plan.old.item;
    const newItem = plan.next.item;
    if (removeKey !== undefined && putKey !== undefined) {
      // A moved entry: the delete where the old entry lived, the put where the new one goes.
      const deleteUnits = writeUnits(oldBytes);
      this.#add(partitions, decodeItemKeyHash(removeKey, INDEX_PREFIX_BYTES), 'write', deleteUnits, oldItem, index.key);
      this.#add(partitions, decodeItemKeyHash(putKey, INDEX_PREFIX_BYTES), 'write', units - deleteUnits, newItem, index.key);
      return;
    }
    if (putKey !== undefined) this.#add(partitions, decodeItemKeyHash(putKey, INDEX_PREFIX_BYTES), 'write', units, newItem, index.key);
    else if (removeKey !== undefined) this.#add(partitions, decodeItemKeyHash(removeKey, INDEX_PREFIX_BYTES), 'write', units, oldItem, index.key);
    else throw new Error(`assertion failed: an entry change of ${index.name} touches no entry`);
  }

  #add(partitions: ResourcePartitions, hash: number, direction: Direction, units: number, item: AttributeMap | undefined, shape: KeyShape | undefined): void {
    if (units <= 0) return;
    const partition = partitions.capacityAt(hash, this.#nowMs);
    const slots = this.#slots;
    const at = this.#count++;
    if (at < slots.length) slots[at]!.set(partition, direction, units, item, shape);
    else {
      const slot = new DemandSlot(partition, direction, units);
      slot.set(partition, direction, units, item, shape);
      slots.push(slot);
    }
  }
}

/**
 * Demands lists reused from request to request: an admission builds, settles and lets go of its
 * list synchronously, so one list usually serves every request (a nested admission takes another),
 * and a GetItem or PutItem allocates no list of its own.
 */
export class DemandsPool {
  readonly #free: Demands[] = [];

  take(nowMs: number): Demands {
    const demands = this.#free.pop();
    if (demands === undefined) return new Demands(nowMs);
    demands.restart(nowMs);
    return demands;
  }

  /** Gives back a list taken here; nothing may use it afterwards. */
  give(demands: Demands): void {
    demands.reset();
    if (this.#free.length < POOLED_DEMANDS_MAX) this.#free.push(demands);
  }
}
