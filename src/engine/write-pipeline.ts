/**
 * The write pipeline: the one sequence every change to an item goes through — PutItem, UpdateItem,
 * DeleteItem (items.ts), BatchWriteItem (batch.ts), TransactWriteItems (transactions.ts), PartiQL
 * writes (which run as those operations), TTL deletions (ttl.ts) and a restore's load of its
 * items (backups.ts). All of them end in commitPlans; its rules (CommitRules) say how the plans are
 * admitted: together, each on its own, or not at all for the service's own writes (SystemRules:
 * never admitted or charged; whether the item-collection check runs; whether change records reach
 * the sink).
 *
 * Inside one storage write, per item:
 *
 *   requireCurrentTable → readOldImage → decide (the caller: conditions, update expressions)
 *     → planWrite (one WritePlan) → commitPlans: check (item collection limit) → admit (capacity)
 *     → apply
 *
 * A WritePlan is computed once and read by everything after it: the old and new image, every index
 * entry change (each entry projected and sized once, index-maintenance.ts), the LSI item-collection
 * delta, the table's write units (the index units are on the entry changes), the demands admission
 * builds from them (demands.ts), the response's ConsumedCapacity (charges.ts), the metrics and
 * Contributor Insights (through admission), ItemCollectionMetrics, and the change record handed to
 * the engine's ChangeSink. Nothing re-derives what the plan holds.
 *
 * Stages are checked: a plan is admitted only once it was checked, and applied only once admitted.
 * A request with several items settles every item (checked, then admitted or refused) before the
 * first one is applied (applyPlans asserts it), so a failure never leaves half a request behind.
 * Background index work (backfill.ts: a new GSI's backfill, a deleted GSI's removal) writes index
 * entries through the same entry-change primitive (index-maintenance.ts applyEntryChange) but
 * changes no item, so it makes no plan and no change record.
 */
import { writeUnits } from '../capacity/units.js';
import { resourceNotFound } from '../errors.js';
import { itemsEqual } from '../expressions/evaluate.js';
import { ownMember, setMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { decodeItemKeyHash } from '../model/key-codec.js';
import type { LockMode, WriteTransaction } from '../storage/storage.js';
import type { ThrottleVerdict } from '../capacity/admission.js';
import type { Engine } from './engine.js';
import { admitAlone, admitTogether, asOneRequest, batchDemands, requestUnitsOf } from './admit.js';
import { throttleError } from '../capacity/throttle-errors.js';
import { applyIndexWrites, itemCollectionSizeIn, planIndexWrites, type IndexWrite } from './index-maintenance.js';
import { CollectionGrowth, ItemCollections, itemCollectionSizeLimitExceeded } from './item-collections.js';
import type { TableIndexRuntime } from './indexes.js';
import type { ResourcePartitions } from './partition-tracker.js';
import type { Table } from './table.js';
import { saveStatistics } from './table-statistics.js';

/** The image an item had before a write, with its size (0 when the item did not exist). */
export interface OldImage {
  readonly item: AttributeMap | undefined;
  readonly sizeBytes: number;
}

/** What a write puts in place of the old image: an item and its size, or nothing (delete). */
export interface NewImage {
  readonly item: AttributeMap | undefined;
  readonly sizeBytes: number;
}

export const DELETED: NewImage = { item: undefined, sizeBytes: 0 };

/** DynamoDB Streams' event names: what a change did to its item. */
export type ChangeEvent = 'INSERT' | 'MODIFY' | 'REMOVE';

/**
 * One applied change to one item, as a stream records it. Only changes that changed the item have
 * a record: a delete of an absent item, or a put or update that leaves the item equal to what it
 * was, has none.
 */
export interface ChangeRecord {
  readonly event: ChangeEvent;
  /** The item's storage key (table id, partition-key hash, key bytes). */
  readonly storageKey: Uint8Array;
  /** The item's primary key attributes. */
  readonly keys: AttributeMap;
  readonly oldImage: AttributeMap | undefined;
  readonly newImage: AttributeMap | undefined;
  readonly oldSizeBytes: number;
  readonly newSizeBytes: number;
  /** A delete the service made on its own (TTL expiry), not a client's request. */
  readonly system: boolean;
}

/**
 * The hook through which applied changes leave the pipeline (DynamoDB Streams plugs in here).
 *
 * `onChange` is called by applyPlan for every applied item change that has a change record, in
 * apply order, inside the same storage write transaction as the change itself: what it puts with
 * `txn` commits (or, on a crash, is lost) together with the item. It runs after the request's
 * checks and admission, so it must not throw (the write has begun); it may ignore tables it does
 * not serve (it is the engine's one sink, called for every table). The record is valid only during
 * the call unless the sink copies what it keeps (images are immutable and may be kept as they are).
 */
export interface ChangeSink {
  /**
   * False when the sink would ignore every change of `table` (no stream, no history): the plan's
   * change event, an item comparison on each overwrite, is then not computed. Absent: true.
   */
  serves?(table: Table): boolean;
  onChange(txn: WriteTransaction, table: Table, change: ChangeRecord): void;
}

/** How a write is charged: at standard rates, at transactional rates, or not at all (TTL, restores). */
export type WriteKind = 'standard' | 'transactional' | 'system';

/** Where a plan is in the pipeline; each stage may only follow the one before it. */
export type PlanStage = 'planned' | 'checked' | 'admitted' | 'refused' | 'applied';

/**
 * One item's write, planned before anything is put. A ConditionCheck (a transaction's, or a
 * failed condition's charge) is a plan that writes nothing: `writes` false, `next` the old image.
 */
export class WritePlan implements ChangeRecord {
  readonly table: Table;
  readonly storageKey: Uint8Array;
  readonly old: OldImage;
  readonly next: NewImage;
  /** False for a plan that only checks its item (it is charged, never applied). */
  readonly writes: boolean;
  readonly system: boolean;
  /** What the write changes in each live index: the entry change and its write units. */
  readonly indexWrites: readonly IndexWrite[];
  /** How much the item's LSI item collection grows (0 on tables without LSIs). */
  readonly collectionDeltaBytes: number;
  /**
   * The table's own write units: the larger image rounded up to 1 KB, doubled in a transaction.
   * LSI and GSI units are each entry change's `writeUnits`.
   */
  readonly tableWriteUnits: number;
  stage: PlanStage = 'planned';
  /**
   * The size the plan's LSI item collection had before the request, read by readCollectionSizes
   * (the read phase) for a plan that grows one; undefined for every other plan.
   */
  collectionSizeBytes: number | undefined = undefined;
  /** Why admission refused the plan (batches return it in UnprocessedItems). */
  refusal: ThrottleVerdict | undefined = undefined;
  /** The change event, computed on first use: null when the write changed nothing. */
  #event: ChangeEvent | null | undefined = undefined;
  #keys: AttributeMap | undefined = undefined;

  constructor(table: Table, storageKey: Uint8Array, old: OldImage, next: NewImage, writes: boolean, kind: WriteKind) {
    this.table = table;
    this.storageKey = storageKey;
    this.old = old;
    this.next = next;
    this.writes = writes;
    this.system = kind === 'system';
    this.indexWrites = writes ? planIndexWrites(table, storageKey, old, next) : NO_INDEX_WRITES;
    this.collectionDeltaBytes = writes ? collectionDeltaOf(table, old, next, this.indexWrites) : 0;
    this.tableWriteUnits = writes ? writeUnits(Math.max(old.sizeBytes, next.sizeBytes), kind === 'transactional') : writeUnits(old.sizeBytes, kind === 'transactional');
  }

  /** The change record's event, or undefined when the write leaves the item as it was. */
  get changeEvent(): ChangeEvent | undefined {
    if (this.#event === undefined) this.#event = this.writes ? eventOf(this.old.item, this.next.item) : null;
    return this.#event ?? undefined;
  }

  /** The ChangeRecord view; only read when changeEvent is defined. */
  get event(): ChangeEvent {
    const event = this.changeEvent;
    if (event === undefined) throw new Error('assertion failed: a plan without a change has no change record');
    return event;
  }

  get keys(): AttributeMap {
    this.#keys ??= keysOf(this.table, this.next.item ?? this.old.item);
    return this.#keys;
  }

  get oldImage(): AttributeMap | undefined {
    return this.old.item;
  }

  get newImage(): AttributeMap | undefined {
    return this.writes ? this.next.item : this.old.item;
  }

  get oldSizeBytes(): number {
    return this.old.sizeBytes;
  }

  get newSizeBytes(): number {
    return this.next.sizeBytes;
  }
}

const NO_INDEX_WRITES: readonly IndexWrite[] = [];

function eventOf(oldItem: AttributeMap | undefined, newItem: AttributeMap | undefined): ChangeEvent | null {
  if (oldItem === undefined) return newItem === undefined ? null : 'INSERT';
  if (newItem === undefined) return 'REMOVE';
  return oldItem === newItem || itemsEqual(oldItem, newItem) ? null : 'MODIFY';
}

function keysOf(table: Table, item: AttributeMap | undefined): AttributeMap {
  const keys: Record<string, AttributeValue> = {};
  if (item === undefined) return keys;
  for (const attribute of [table.key.hash, table.key.range]) {
    if (attribute === undefined) continue;
    const value = ownMember(item, attribute.name);
    if (value !== undefined) setMember(keys, attribute.name, value);
  }
  return keys;
}

/** An item collection grows by the item's size change plus its LSI entries' (each sized once, in its entry change). */
function collectionDeltaOf(table: Table, old: OldImage, next: NewImage, indexWrites: readonly IndexWrite[]): number {
  if (table.indexRuntime.collections === undefined) return 0;
  let delta = next.sizeBytes - old.sizeBytes;
  for (const { index, change } of indexWrites) if (index.kind === 'local') delta += change.bytesDelta;
  return delta;
}

/**
 * A DeleteTable (or a delete and re-create) may have committed between planning and this write;
 * the request must then fail as DynamoDB's would instead of writing into a table that is gone.
 */
export function requireCurrentTable(engine: Engine, table: Table): void {
  if (engine.catalog.sameTable(table.name, table.record.id) === undefined) throw resourceNotFound();
}

/**
 * The read phase, for one key: the item's image before the request (what `decide` is given and
 * the plan replaces). Single-item writes call it directly (no array on their hot path); requests
 * with several keys call readOldImages.
 */
export function readOldImage(txn: WriteTransaction, storageKey: Uint8Array, lock: LockMode = 'wait'): OldImage {
  const item = (txn.getLocked === undefined ? txn.get(storageKey) : txn.getLocked([storageKey], lock)[0]) as AttributeMap | undefined;
  return oldImageOf(item);
}

function oldImageOf(item: AttributeMap | undefined): OldImage {
  return { item, sizeBytes: item === undefined ? 0 : itemSize(item) };
}

/**
 * The read phase: the old image of every key a request writes, in order, read before anything is
 * decided or put. Everything after it — decide, plan, check, admit — works from these images and
 * in-memory state; only the item-collection sizes of growing plans are read later
 * (readCollectionSizes), since whether a write grows its collection is known only once it is
 * planned. On a store other processes write (postgres.ts) the keys are locked as they are read
 * (WriteTransaction.getLocked), all in one round trip: 'wait' queues behind another write of a
 * key, 'fail' (transactions) throws KeyConflictError instead.
 */
export function readOldImages(txn: WriteTransaction, storageKeys: readonly Uint8Array[], lock: LockMode = 'wait'): OldImage[] {
  if (txn.getLocked === undefined) return storageKeys.map((storageKey) => oldImageOf(txn.get(storageKey) as AttributeMap | undefined));
  return txn.getLocked(storageKeys, lock).map((value) => oldImageOf(value as AttributeMap | undefined));
}

/**
 * The read phase's second part: for each plan that grows an LSI item collection (and has not been
 * checked yet), the size the collection had before the request, put on the plan
 * (collectionSizeBytes) for the check stage. Read inside the request's transaction before its first
 * put (item-collections.ts caches it); plans of tables without LSIs, and writes that do not grow
 * a collection, read nothing.
 */
export function readCollectionSizes(txn: WriteTransaction, plans: readonly WritePlan[]): void {
  for (const plan of plans) {
    const collections = plan.table.indexRuntime.collections;
    if (collections === undefined || plan.collectionDeltaBytes <= 0 || plan.stage !== 'planned') continue;
    const key = ItemCollections.keyOfStorageKey(plan.storageKey, plan.table.itemPrefix.length);
    plan.collectionSizeBytes = itemCollectionSizeIn(txn, plan.table, collections, key);
  }
}

/** Plans replacing `old` with `next`. */
export function planWrite(table: Table, storageKey: Uint8Array, old: OldImage, next: NewImage, kind: WriteKind): WritePlan {
  return new WritePlan(table, storageKey, old, next, true, kind);
}

/**
 * Plans a check of the item that writes nothing but is charged as a write of the item it found
 * (a transaction's ConditionCheck; a write whose condition failed, reference §1.4).
 */
export function planCheck(table: Table, storageKey: Uint8Array, old: OldImage, kind: WriteKind): WritePlan {
  return new WritePlan(table, storageKey, old, old, false, kind);
}

/**
 * The check stage: whether the plan keeps its LSI item collection within the limit, counting the
 * growth of the request's earlier admitted items (`growth`, for batches and transactions). Marks
 * the plan checked when it does. Reads nothing: the collection's size before the request was read
 * by readCollectionSizes.
 */
export function checkPlan(plan: WritePlan, growth?: CollectionGrowth): boolean {
  assertStage(plan, 'planned');
  const table = plan.table;
  const collections = table.indexRuntime.collections;
  if (collections !== undefined && plan.collectionDeltaBytes > 0) {
    const sizeBytes = plan.collectionSizeBytes;
    if (sizeBytes === undefined) throw new Error('assertion failed: a growing plan is checked before its collection size was read');
    const pending = growth === undefined ? 0 : growth.pendingOf(table.record.id, ItemCollections.keyOfStorageKey(plan.storageKey, table.itemPrefix.length));
    if (sizeBytes + pending + plan.collectionDeltaBytes > table.indexRuntime.env.itemCollectionSizeLimitBytes) return false;
  }
  plan.stage = 'checked';
  return true;
}

/** Adds an admitted plan's growth to the request's running sums (only admitted items count). */
export function growCollections(plan: WritePlan, growth: CollectionGrowth): void {
  const collections = plan.table.indexRuntime.collections;
  if (collections === undefined || plan.collectionDeltaBytes === 0) return;
  growth.add(plan.table.record.id, ItemCollections.keyOfStorageKey(plan.storageKey, plan.table.itemPrefix.length), plan.collectionDeltaBytes);
}

/** The admit stage's outcome for one plan (admit.ts calls it once admission decided). */
export function settlePlan(plan: WritePlan, refusal: ThrottleVerdict | undefined): void {
  assertStage(plan, 'checked');
  plan.stage = refusal === undefined ? 'admitted' : 'refused';
  plan.refusal = refusal;
}

/** A system write is never admitted or charged: checked, it goes straight to apply. */
function admitSystem(plan: WritePlan): void {
  if (!plan.system) throw new Error('assertion failed: only system writes skip admission');
  settlePlan(plan, undefined);
}

/** How a request's plans are committed: admitted together or each on its own, or a system write. */
export type CommitRules = RequestRules | SystemRules;

/** A client's write: admitted (capacity), charged, its changes recorded. */
export interface RequestRules {
  /**
   * 'together': all plans or none (single-item writes, transactions); 'each': every plan on its
   * own, refused ones skipped (batches, reference §3.4).
   */
  readonly admission: 'together' | 'each';
  /** What a refused 'together' admission throws; DynamoDB's throttle error when absent. */
  readonly refused?: (verdict: ThrottleVerdict, planIndex: number) => Error;
}

/**
 * A write the service makes on its own (TTL deletions, a restore loading its items): planned as
 * 'system', never admitted or charged (no capacity consumed, no Consumed* metrics, never
 * throttled), then applied as any write (statistics, partitions, indexes, item collections).
 */
export interface SystemRules {
  readonly admission: 'system';
  /**
   * The item-collection check: 'cannot-grow' runs it and a failure is a defect (a delete only
   * shrinks its collection); 'trusted' passes every plan unchecked (a restore loads items its
   * source kept within the limit, so the load must not be refused half way).
   */
  readonly collectionLimit: 'cannot-grow' | 'trusted';
  /**
   * Whether the change records reach the engine's ChangeSink: a TTL deletion's do (a stream
   * record with the service's identity, the table's history); a restore's load does not (the
   * restored table's stream and history begin once it is restored, not with the items it copies).
   */
  readonly recordsChanges: boolean;
}

/** TTL deletions (ttl.ts). */
export const SYSTEM_DELETE: SystemRules = { admission: 'system', collectionLimit: 'cannot-grow', recordsChanges: true };
/** A restore loading a backup's items into its new table (backups.ts). */
export const RESTORE_LOAD: SystemRules = { admission: 'system', collectionLimit: 'trusted', recordsChanges: false };

export const SINGLE_WRITE: RequestRules = { admission: 'together' };
export const BATCH_WRITE: RequestRules = { admission: 'each' };

/**
 * The stages after planning, in the one order every write follows, requests and system writes
 * alike: check each plan (its LSI item collection within the limit, or
 * ItemCollectionSizeLimitExceededException; a plan already checked by its caller, as a
 * transaction does to list every reason, is not checked again), admit (or, for a system write,
 * settle without admission), then apply every admitted plan. Nothing is put before every plan is
 * settled.
 */
export function commitPlans(engine: Engine, txn: WriteTransaction, plans: readonly WritePlan[], rules: CommitRules): void {
  if (!(rules.admission === 'system' && rules.collectionLimit === 'trusted')) readCollectionSizes(txn, plans);
  if (rules.admission === 'system') {
    for (const plan of plans) {
      settleSystemCheck(plan, rules);
      admitSystem(plan);
    }
    applyPlans(rules.recordsChanges ? engine.changeSink : undefined, txn, plans);
    return;
  }
  const growth = plans.length > 1 ? new CollectionGrowth() : undefined;
  if (rules.admission === 'each') {
    // Only admitted items grow their collections: a throttled item comes back unprocessed.
    asOneRequest(engine, () => {
      // Each item is judged by the whole batch's size (a large request is paid from the burst
      // banks); unenforced, nothing is judged and the batch's size is not needed.
      const request = engine.capacityEnforced
        ? requestUnitsOf(engine, (demands) => {
            for (const plan of plans) demands.write(plan);
          })
        : undefined;
      const demands = batchDemands(engine);
      for (const plan of plans) {
        checkOrThrow(plan, growth);
        const verdict = admitAlone(engine, plan, request, demands);
        settlePlan(plan, verdict);
        if (verdict === undefined && growth !== undefined) growCollections(plan, growth);
      }
    });
  } else {
    for (const plan of plans) {
      checkOrThrow(plan, growth);
      if (growth !== undefined) growCollections(plan, growth);
    }
    const refusal = admitTogether(engine, plans);
    if (refusal !== undefined) throw rules.refused === undefined ? throttleError(refusal.verdict) : rules.refused(refusal.verdict, refusal.planIndex);
    for (const plan of plans) settlePlan(plan, undefined);
  }
  applyPlans(engine.changeSink, txn, plans);
}

/** The check stage of a system write, as its rules say. */
function settleSystemCheck(plan: WritePlan, rules: SystemRules): void {
  if (rules.collectionLimit === 'trusted') {
    assertStage(plan, 'planned');
    plan.stage = 'checked';
  } else if (!checkPlan(plan)) {
    throw new Error('assertion failed: a system write that cannot grow an item collection grew one');
  }
}

function checkOrThrow(plan: WritePlan, growth: CollectionGrowth | undefined): void {
  // A system plan admitted as a client's would be charged and could be throttled.
  if (plan.system) throw new Error('assertion failed: a system write under request rules');
  if (plan.stage === 'checked') return;
  if (!checkPlan(plan, growth)) throw itemCollectionSizeLimitExceeded();
}

/**
 * The apply stage of a request: every plan must be admitted or refused before the first put (the
 * Storage contract, and what makes a batch or transaction whole); admitted ones are applied in
 * order, refused ones skipped.
 */
function applyPlans(sink: ChangeSink | undefined, txn: WriteTransaction, plans: readonly WritePlan[]): void {
  for (const plan of plans) {
    if (plan.stage !== 'admitted' && plan.stage !== 'refused') throw new Error(`assertion failed: a plan is ${plan.stage} when its request starts applying`);
  }
  if (plans.length === 1) {
    if (plans[0]!.stage === 'admitted') applyPlan(txn, plans[0]!, sink);
  } else {
    const trackers = partitionTrackersOf(plans);
    for (const tracker of trackers) tracker.deferCounts();
    try {
      for (const plan of plans) if (plan.stage === 'admitted') applyPlan(txn, plan, sink);
    } finally {
      // On a throw the write rolls back, these puts with it; the deferral must end either way.
      for (const tracker of trackers) tracker.saveDeferredCounts(txn);
    }
  }
  saveStatisticsOf(txn, plans);
}

/**
 * The partition maps a request's items change directly: their tables' and their GSIs'. Their
 * counts are saved once per partition after all items are applied (partition-tracker.ts
 * deferCounts); any other map (a lagging GSI's logged changes falling due) saves as it goes.
 */
function partitionTrackersOf(plans: readonly WritePlan[]): Set<ResourcePartitions> {
  const trackers = new Set<ResourcePartitions>();
  for (const plan of plans) {
    if (plan.stage !== 'admitted' || !plan.writes) continue;
    trackers.add(plan.table.partitions);
    for (const { index } of plan.indexWrites) {
      const partitions = index.state.partitions;
      if (partitions !== undefined) trackers.add(partitions);
    }
  }
  return trackers;
}

/**
 * Tables with LSIs persist their statistics (table-statistics.ts) in the write that moved them:
 * once per table after its plans are applied (consecutive plans of one table share one put).
 */
function saveStatisticsOf(txn: WriteTransaction, plans: readonly WritePlan[]): void {
  let last: TableIndexRuntime | undefined;
  for (const plan of plans) {
    const runtime = plan.table.indexRuntime;
    if (plan.stage !== 'applied' || !plan.writes || runtime.collections === undefined || runtime === last) continue;
    saveStatistics(txn, plan.table);
    last = runtime;
  }
}

/**
 * THE place where an item change is applied: puts (or removes) the new image, moves the table
 * statistics and partitions, maintains every index and item collection, and hands the change
 * record to the ChangeSink — all inside the request's storage write.
 */
function applyPlan(txn: WriteTransaction, plan: WritePlan, sink: ChangeSink | undefined): void {
  assertStage(plan, 'admitted');
  plan.stage = 'applied';
  if (!plan.writes) return;
  const { table, storageKey, old, next } = plan;
  if (next.item !== undefined) txn.put(storageKey, next.item);
  else if (old.item !== undefined) txn.remove(storageKey);
  const itemDelta = (next.item === undefined ? 0 : 1) - (old.item === undefined ? 0 : 1);
  const bytesDelta = next.sizeBytes - old.sizeBytes;
  const statistics = table.statistics;
  statistics.itemCount += itemDelta;
  statistics.sizeBytes += bytesDelta;
  applyIndexWrites(txn, table, storageKey, plan.indexWrites, plan.collectionDeltaBytes);
  // A table with LSIs: its partition holds the item's LSI entries too (the item collection's delta),
  // recorded once they are stored, so that a split this causes measures them.
  const partitionBytesDelta = table.indexRuntime.collections === undefined ? bytesDelta : plan.collectionDeltaBytes;
  table.partitions.record(txn, decodeItemKeyHash(storageKey, table.itemPrefix.length), itemDelta, partitionBytesDelta);
  if (sink !== undefined && sink.serves?.(table) !== false && plan.changeEvent !== undefined) sink.onChange(txn, table, plan);
}

function assertStage(plan: WritePlan, expected: PlanStage): void {
  if (plan.stage !== expected) throw new Error(`assertion failed: a plan is ${plan.stage}, expected ${expected}`);
}
