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
import { admit, recordUnenforced, type Demand, type RequestUnits, type ThrottleVerdict } from '../capacity/admission.js';
import type { AttributeMap } from '../model/attribute-value.js';
import type { CapacityRecorder, DemandKey } from './capacity-recorder.js';
import { writeUnits } from '../capacity/units.js';
import { decodeItemKeyHash } from '../model/key-codec.js';
import type { WritePlan } from './write-pipeline.js';
import { INDEX_PREFIX_BYTES, RESOURCE_PREFIX_BYTES } from './index-keys.js';
import type { SecondaryIndex } from './indexes.js';
import type { ResourcePartitions } from './partition-tracker.js';
import type { Table } from './table.js';

/** Lists kept for reuse: more than the deepest nesting of admissions. */
const POOLED_DEMANDS_MAX = 4;

export class Demands {
  readonly list: Demand[] = [];
  /** Per demand, the item and key shape Contributor Insights counts it under. */
  readonly #keys: (DemandKey | undefined)[] = [];
  #nowMs: number;

  constructor(nowMs: number) {
    this.#nowMs = nowMs;
  }

  get nowMs(): number {
    return this.#nowMs;
  }

  /** Empties the list, to build the next demands of the same request (a batch's next item) in it. */
  reset(): void {
    this.list.length = 0;
    this.#keys.length = 0;
  }

  /** Empties the list for another request, at `nowMs` (DemandsPool). */
  restart(nowMs: number): void {
    this.reset();
    this.#nowMs = nowMs;
  }

  /**
   * Read units on the partition owning `storageKey` (a table item key or a GSI entry key). A read
   * first lets a split its on-demand peak made due happen (writes split in their own write).
   */
  read(partitions: ResourcePartitions, storageKey: Uint8Array, units: number, key?: DemandKey): void {
    partitions.splitWhenDue(this.#nowMs);
    this.#add(partitions, decodeItemKeyHash(storageKey, RESOURCE_PREFIX_BYTES), 'read', units, key);
  }

  /** Read units on the partition owning `hash` (a page that read nothing: where its range starts). */
  readAtHash(partitions: ResourcePartitions, hash: number, units: number, key?: DemandKey): void {
    partitions.splitWhenDue(this.#nowMs);
    this.#add(partitions, hash, 'read', units, key);
  }

  /** Write units on the table partition owning `storageKey` (a failed conditional write, a ConditionCheck). */
  tableWrite(table: Table, storageKey: Uint8Array, units: number, item?: AttributeMap): void {
    this.#add(table.partitions, decodeItemKeyHash(storageKey, RESOURCE_PREFIX_BYTES), 'write', units, item === undefined ? undefined : { item, key: table.key });
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
    const list = this.list;
    if (list.length === 0) return undefined;
    const verdict = enforce ? admit(list, this.#nowMs, request) : undefined;
    if (recorder !== undefined) {
      if (verdict === undefined) recorder.admitted(list, this.#keys, this.#nowMs);
      else recorder.throttled(verdict, list, this.#keys, this.#nowMs);
    }
    // Unenforced, the partitions still count what was consumed (after the recorder, which
    // attaches the GSI drain hook this reports GSI writes to).
    if (!enforce) recordUnenforced(list, this.#nowMs);
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
    const oldKey = plan.old.item === undefined ? undefined : { item: plan.old.item, key: index.key };
    const newKey = plan.next.item === undefined ? undefined : { item: plan.next.item, key: index.key };
    if (removeKey !== undefined && putKey !== undefined) {
      // A moved entry: the delete where the old entry lived, the put where the new one goes.
      const deleteUnits = writeUnits(oldBytes);
      this.#add(partitions, decodeItemKeyHash(removeKey, INDEX_PREFIX_BYTES), 'write', deleteUnits, oldKey);
      this.#add(partitions, decodeItemKeyHash(putKey, INDEX_PREFIX_BYTES), 'write', units - deleteUnits, newKey);
      return;
    }
    if (putKey !== undefined) this.#add(partitions, decodeItemKeyHash(putKey, INDEX_PREFIX_BYTES), 'write', units, newKey);
    else if (removeKey !== undefined) this.#add(partitions, decodeItemKeyHash(removeKey, INDEX_PREFIX_BYTES), 'write', units, oldKey);
    else throw new Error(`assertion failed: an entry change of ${index.name} touches no entry`);
  }

  #add(partitions: ResourcePartitions, hash: number, direction: 'read' | 'write', units: number, key: DemandKey | undefined): void {
    if (units <= 0) return;
    const partition = partitions.capacityAt(hash, this.#nowMs);
    this.list.push({ resource: partition.resource, partition, direction, units });
    this.#keys.push(key);
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
