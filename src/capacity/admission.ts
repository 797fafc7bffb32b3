/**
 * The admission model: may a request consume its capacity units now, or is it throttled, and why.
 * Pure bookkeeping on the injected clock's `nowMs`; O(1) per demand; nothing is allocated on the
 * admitted path. The rules, their sources in dynamodb-capacity-model.md and the choices made where
 * the reference is uncertain are in docs/CAPACITY-MODEL.md.
 *
 * Per partition and direction (reads and writes apart, or one shared ceiling in "combined" mode):
 *  - allocation + burst: a bucket refilled at the partition's allocation, holding up to
 *    `burstBankSecondsMax` (300 s) of it; a new partition starts full;
 *  - ceiling: a bucket of rate = the hard ceiling (3,000 read / 1,000 write units/s) and 1 s of
 *    capacity; every admission draws on it, so neither burst nor adaptive capacity lifts it.
 * Per resource (a table or a GSI) and direction:
 *  - provisioned: the adaptive bucket, rate = provisioned units/s, capacity 1 s, drawn (clamped at
 *    0) by every admission on any partition; a partition whose own bucket is short may borrow
 *    only while it holds the whole request, i.e. while the resource consumes under its rate;
 *  - on-demand: buckets for the user's maximum (MaxOnDemandThroughputExceeded), the per-table
 *    quota (AccountLimitExceeded) and twice the previous peak (KeyRangeThroughputExceeded: the
 *    partitions have not split for the traffic yet), and the peak tracker (on-demand.ts).
 * GSI writes never meet admission directly: they join their GSI partition's backlog, drained at
 * what that partition can admit; while a backlog is over `gsiBacklogWriteUnitsMax`, every write
 * to the base table is refused with the GSI's reason (back-pressure, reference §3.5).
 */
import { assert } from '../errors.js';
import { OnDemandPeak } from './on-demand.js';
import { PARTITION_READ_UNITS_MAX, PARTITION_WRITE_UNITS_MAX } from './partitions.js';
import { secondOf, SecondRing } from './second-ring.js';
import { TokenBucket, UNITS_EPSILON } from './token-bucket.js';

const MINUTE_MS = 60_000;

export type Direction = 'read' | 'write';
export type ResourceKind = 'Table' | 'Index';
export type BillingMode = 'provisioned' | 'on-demand';
/** The four throttle causes of reference §3.1. */
export type LimitType = 'KeyRangeThroughputExceeded' | 'ProvisionedThroughputExceeded' | 'AccountLimitExceeded' | 'MaxOnDemandThroughputExceeded';
/** `<Table|Index><Read|Write><LimitType>`: the 16 reason strings of ThrottlingReasons. */
export type ThrottleReason = `${ResourceKind}${'Read' | 'Write'}${LimitType}`;
export type PartitionCeilingMode = 'independent' | 'combined';

/** How a table or GSI is billed. On-demand maxima: absent or -1 = no maximum (reference §4.6). */
export type ResourceBilling =
  | { readonly mode: 'provisioned'; readonly readUnitsPerSecond: number; readonly writeUnitsPerSecond: number }
  | { readonly mode: 'on-demand'; readonly maxReadRequestUnits?: number; readonly maxWriteRequestUnits?: number };

export interface CapacitySettings {
  /** Hard per-partition ceilings (reference §2.1). */
  readonly partitionReadUnitsPerSecondMax: number;
  readonly partitionWriteUnitsPerSecondMax: number;
  /**
   * independent: a partition's read and write ceilings are separate (current docs); combined:
   * one budget, reads / readMax + writes / writeMax per second (older docs, §2.1).
   */
  readonly partitionCeilingMode: PartitionCeilingMode;
  /** Unused allocation a partition banks for burst, in seconds of its allocation (§4.1). */
  readonly burstBankSecondsMax: number;
  /** On-demand per-table quota, applied to the table and to each GSI alone (§4.5). */
  readonly onDemandTableReadUnitsPerSecondMax: number;
  readonly onDemandTableWriteUnitsPerSecondMax: number;
  /** A new on-demand resource's previous peak: twice it is 12,000 RRU / 4,000 WRU (§4.3). */
  readonly onDemandInitialPeakReadUnitsPerSecond: number;
  readonly onDemandInitialPeakWriteUnitsPerSecond: number;
  /** Seconds a level must be held to count as sustained (1–60; see on-demand.ts). */
  readonly onDemandPeakSustainSeconds: number;
  /** How long after a sustained stretch began its level becomes the previous peak (30 min, §4.3). */
  readonly onDemandPeakPromotionDelayMs: number;
  /** A GSI partition backlog above this refuses every base-table write (§3.5; calibrated on seed article 000). */
  readonly gsiBacklogWriteUnitsMax: number;
  /**
   * A partition's burst bank holds at least this many seconds of its ceiling, however small its
   * allocation: a 1-WCU table still takes its largest item, and updates it (CAPACITY-MODEL.md §11).
   */
  readonly burstBankCeilingSecondsMin: number;
  /**
   * A rested partition may go above its ceiling by up to this many seconds of it in a short burst
   * of requests: the ceiling reserve, filled only by ceiling capacity left unused while the
   * ceiling's one-second bucket was full (CAPACITY-MODEL.md §11); 0 = a strict one-second ceiling.
   */
  readonly ceilingReserveSeconds: number;
  /**
   * A request asking a table or GSI for more than this many seconds of one partition's ceiling
   * in all (a transaction, a whole batch, a big page) is a large request: it is paid from the burst
   * banks instead of the one-second buckets (CAPACITY-MODEL.md §11).
   */
  readonly largeRequestCeilingSeconds: number;
  /**
   * Adaptive capacity (§2): a provisioned partition short of its allocation borrows the table's
   * unused throughput. auto: on, except under the classic partition model, which is the
   * pre-adaptive era (reference §2.3: throughput diluted by splits, nothing lent).
   */
  readonly adaptiveCapacity: AdaptiveCapacityMode;
}

export type AdaptiveCapacityMode = 'auto' | 'on' | 'off';

export const DEFAULT_CAPACITY_SETTINGS: CapacitySettings = {
  partitionReadUnitsPerSecondMax: PARTITION_READ_UNITS_MAX,
  partitionWriteUnitsPerSecondMax: PARTITION_WRITE_UNITS_MAX,
  partitionCeilingMode: 'independent',
  burstBankSecondsMax: 300,
  onDemandTableReadUnitsPerSecondMax: 40_000,
  onDemandTableWriteUnitsPerSecondMax: 40_000,
  onDemandInitialPeakReadUnitsPerSecond: 6_000,
  onDemandInitialPeakWriteUnitsPerSecond: 2_000,
  onDemandPeakSustainSeconds: 60,
  onDemandPeakPromotionDelayMs: 30 * 60_000,
  gsiBacklogWriteUnitsMax: 80_000,
  burstBankCeilingSecondsMin: 1,
  ceilingReserveSeconds: 1,
  largeRequestCeilingSeconds: 1,
  adaptiveCapacity: 'auto',
};

/**
 * What a whole request asks each table or GSI, per direction, when it is admitted in several
 * calls (a batch, whose items are admitted one by one): decides whether it is a large request.
 * Without one, a call's own demands are the request.
 */
export class RequestUnits {
  readonly #units = new Map<ResourceCapacity, { read: number; write: number }>();

  /** Adds the first `count` of `demands` (a reused list holds stale ones past it). */
  add(demands: readonly Demand[], count: number = demands.length): void {
    assertCount(demands, count);
    for (let at = 0; at < count; at++) {
      const { resource, direction, units } = demands[at]!;
      let sums = this.#units.get(resource);
      if (sums === undefined) {
        sums = { read: 0, write: 0 };
        this.#units.set(resource, sums);
      }
      sums[direction] += units;
    }
  }

  of(resource: ResourceCapacity, direction: Direction): number {
    return this.#units.get(resource)?.[direction] ?? 0;
  }
}

/**
 * Units one request asks of one partition of one resource. A write demand on an Index resource is
 * a GSI update caused by a base-table write: it joins the partition's backlog instead of being
 * admitted (and is never refused itself).
 */
export interface Demand {
  readonly resource: ResourceCapacity;
  readonly partition: PartitionCapacity;
  readonly direction: Direction;
  readonly units: number;
}

export interface ThrottleVerdict {
  readonly reason: ThrottleReason;
  readonly kind: ResourceKind;
  readonly direction: Direction;
  readonly limit: LimitType;
  /** Billing of the throttling resource: chooses the exception (throttle-errors.ts). */
  readonly billing: BillingMode;
  /** ARN of the throttling table or index (`…:table/<t>` or `…:table/<t>/index/<i>`). */
  readonly resourceArn: string;
  /** The partition that refused: the demand's, or for back-pressure the GSI partition whose backlog is full. */
  readonly partitionId: number;
  /** Position, in the demands given to `admit`, of the demand refused. */
  readonly demandIndex: number;
  /** A base-table write refused because a GSI's backlog is over its bound (§3.5). */
  readonly backPressure: boolean;
}

export interface DirectionCapacityStats {
  readonly allocatedUnitsPerSecond: number;
  readonly consumedUnitsLastSecond: number;
  readonly consumedUnitsLastMinute: number;
  /** Banked allocation (the allocation bucket's balance; negative while paying back an oversized demand). */
  readonly burstBalanceUnits: number;
  /** Units admitted on borrowed table throughput (adaptive capacity), since the partition was created. */
  readonly adaptiveUnitsTotal: number;
  readonly throttleEvents: number;
}

export interface PartitionCapacityStats {
  readonly id: number;
  readonly read: DirectionCapacityStats;
  readonly write: DirectionCapacityStats;
  /** GSI partitions: index write units waiting to be applied. */
  readonly backlogWriteUnits: number;
}

export interface ResourceDirectionStats {
  readonly consumedUnitsLastSecond: number;
  readonly consumedUnitsLastMinute: number;
  readonly throttleEvents: number;
  /** On-demand only: the previous peak, and the units per second the resource admits now. */
  readonly previousPeakUnitsPerSecond?: number;
  readonly admitUnitsPerSecondMax?: number;
}

export interface ResourceCapacityStats {
  readonly arn: string;
  readonly kind: ResourceKind;
  readonly billing: BillingMode;
  readonly read: ResourceDirectionStats;
  readonly write: ResourceDirectionStats;
  /** GSIs: whether base-table writes are being refused now. */
  readonly backPressure: boolean;
}

/** One direction of one partition. */
class PartitionDirection {
  /** Allocation plus burst bank: rate = allocation, capacity = burst seconds × allocation. */
  readonly allocation: TokenBucket;
  readonly consumed: SecondRing;
  /** Units of the admission in progress (see `admit`). */
  pending = 0;
  adaptiveUnitsTotal = 0;
  throttleEvents = 0;

  constructor(unitsPerSecond: number, bankUnits: number, nowMs: number) {
    // A new partition starts with a full bank (reference §4.1 model rule).
    this.allocation = new TokenBucket(unitsPerSecond, bankUnits, bankUnits, nowMs);
    this.consumed = new SecondRing(nowMs);
  }
}

export class PartitionCapacity {
  readonly id: number;
  /** The table or GSI this partition belongs to. */
  readonly resource: ResourceCapacity;
  /** @internal */ readonly read: PartitionDirection;
  /** @internal */ readonly write: PartitionDirection;
  /** @internal The same bucket in combined mode. */ readonly readCeiling: TokenBucket;
  /** @internal */ readonly writeCeiling: TokenBucket;
  /** @internal Above the ceiling for a short burst: what overflowed the full ceiling bucket (the same bucket in combined mode). */
  readonly readReserve: TokenBucket;
  /** @internal */ readonly writeReserve: TokenBucket;
  /** @internal Ceiling units one read unit costs: 1, or writeMax / readMax on a combined ceiling. */
  readonly readCeilingCost: number;
  /** @internal GSI partitions: index write units not yet applied. */
  backlogUnits = 0;
  /** When the backlog was last drained up to (the start of the span the next drain covers). */
  drainedToMs: number;
  /** @internal What limited the last backlog drain: the reason back-pressure reports. */
  backlogLimit: LimitType = 'KeyRangeThroughputExceeded';
  /** @internal Listed in the resource's over-bound partitions. */
  overBound = false;

  /** Use ResourceCapacity.partitionCapacity. */
  constructor(resource: ResourceCapacity, id: number, readUnitsPerSecond: number, writeUnitsPerSecond: number, nowMs: number) {
    const settings = resource.settings;
    this.id = id;
    this.resource = resource;
    this.drainedToMs = nowMs;
    const readAllocation = resource.allocationFor('read', readUnitsPerSecond);
    const writeAllocation = resource.allocationFor('write', writeUnitsPerSecond);
    this.read = new PartitionDirection(readAllocation, resource.bankUnits('read', readAllocation), nowMs);
    this.write = new PartitionDirection(writeAllocation, resource.bankUnits('write', writeAllocation), nowMs);
    const writeMax = settings.partitionWriteUnitsPerSecondMax;
    this.writeCeiling = new TokenBucket(writeMax, writeMax, writeMax, nowMs);
    this.writeReserve = reserveBucket(writeMax, settings, nowMs);
    if (settings.partitionCeilingMode === 'combined') {
      // One budget in write units: a read unit is worth writeMax / readMax of it.
      this.readCeiling = this.writeCeiling;
      this.readReserve = this.writeReserve;
      this.readCeilingCost = writeMax / settings.partitionReadUnitsPerSecondMax;
    } else {
      const readMax = settings.partitionReadUnitsPerSecondMax;
      this.readCeiling = new TokenBucket(readMax, readMax, readMax, nowMs);
      this.readReserve = reserveBucket(readMax, settings, nowMs);
      this.readCeilingCost = 1;
    }
  }

  /** Allocated units per second (after the ceiling cap). */
  allocation(direction: Direction): number {
    return this.side(direction).allocation.ratePerSecond;
  }

  /**
   * A new allocation (throughput or share changed), capped at the ceiling; on an on-demand
   * resource always the ceiling. The bank keeps what it holds, up to its new size.
   */
  setAllocation(direction: Direction, unitsPerSecond: number, nowMs: number): void {
    const allocated = this.resource.allocationFor(direction, unitsPerSecond);
    this.side(direction).allocation.reconfigure(allocated, this.resource.bankUnits(direction, allocated), nowMs);
  }

  /** Counters for the inspection API (drains a GSI backlog to `nowMs` first). */
  stats(nowMs: number): PartitionCapacityStats {
    if (this.backlogUnits > 0) this.resource.drainBacklog(this, nowMs);
    return {
      id: this.id,
      read: directionStats(this.read, nowMs),
      write: directionStats(this.write, nowMs),
      backlogWriteUnits: this.backlogUnits,
    };
  }

  /** @internal */
  side(direction: Direction): PartitionDirection {
    return direction === 'read' ? this.read : this.write;
  }

  /** @internal */
  ceiling(direction: Direction): TokenBucket {
    return direction === 'read' ? this.readCeiling : this.writeCeiling;
  }

  /** @internal */
  reserve(direction: Direction): TokenBucket {
    return direction === 'read' ? this.readReserve : this.writeReserve;
  }

  /** @internal Ceiling units the admission in progress asks of this direction's ceiling bucket. */
  pendingCeilingUnits(direction: Direction): number {
    if (this.readCeiling !== this.writeCeiling) return direction === 'read' ? this.read.pending : this.write.pending;
    return this.read.pending * this.readCeilingCost + this.write.pending;
  }

  /** @internal */
  refill(direction: Direction, nowMs: number): void {
    const side = this.side(direction);
    side.allocation.refill(nowMs);
    side.consumed.advance(nowMs);
    const ceiling = this.ceiling(direction);
    // What the ceiling bucket earned beyond its capacity was ceiling left unused by a rested partition: the reserve keeps it.
    const overflow = ceiling.accrued(nowMs) - ceiling.capacityUnits;
    ceiling.refill(nowMs);
    const reserve = this.reserve(direction);
    if (overflow > 0) reserve.settle(reserve.tokens + overflow, Math.max(nowMs, reserve.lastMs));
  }
}

/** One direction of one table or GSI. */
class ResourceDirection {
  /** Provisioned: the resource's unused throughput over the last second (adaptive capacity). */
  adaptive: TokenBucket | undefined;
  /** On-demand: the user's maximum, the per-table quota, twice the previous peak. */
  maxOnDemand: TokenBucket | undefined;
  quota: TokenBucket | undefined;
  scaling: TokenBucket | undefined;
  /** On-demand: 300 s of twice the previous peak, drawn by every admission; large requests are paid from it. */
  scalingBank: TokenBucket | undefined;
  /** Kept across billing switches: switching back to on-demand keeps the earlier peak (§4.3). */
  peak: OnDemandPeak | undefined;
  /** The highest provisioned rate ever set: a switch to on-demand starts from at least it (§4.3). */
  highestProvisionedUnitsPerSecond = 0;
  /** Pre-warmed warm throughput (§4.4): what the resource serves at once, whatever its billing. */
  prewarmedUnitsPerSecond = 0;
  readonly consumed: SecondRing;
  pending = 0;
  /** The admission in progress is a large request on this resource and direction (see `admit`). */
  large = false;
  throttleEvents = 0;
  /** On-demand: a level is promoted at its stretch's start minute plus this delay (on-demand.ts). */
  readonly #promotionDelayMs: number;
  /** Seconds of the scaling rate the on-demand bank holds (the burst bank's 300 s). */
  readonly #bankSeconds: number;
  /** Promotions due up to this time have been applied, each at the time it fell due. */
  #promotedToMs: number;

  constructor(nowMs: number, promotionDelayMs: number, bankSeconds: number) {
    this.consumed = new SecondRing(nowMs);
    this.#promotionDelayMs = promotionDelayMs;
    this.#bankSeconds = bankSeconds;
    this.#promotedToMs = nowMs;
  }

  /**
   * Moves the consumption ring to `nowMs`, feeding the second that just completed to the peak
   * tracker and promoting levels that are old enough. Buckets are not refilled here (a backlog
   * drain needs them unrefilled).
   */
  advanceClock(nowMs: number): void {
    const ring = this.consumed;
    const { peak, scaling } = this;
    if (peak !== undefined && scaling !== undefined) {
      if (secondOf(nowMs) > ring.second) {
        // Only the ring's current second can complete with traffic; any later ones were empty,
        // and an empty second holds no level.
        const level = ring.floorOver(ring.second, peak.sustainSeconds);
        // What fell due before that second ended is promoted first (so the pending ring never wraps).
        this.#promoteThrough(peak, scaling, Math.min(nowMs, (ring.second + 1) * 1000));
        peak.recordSustained(ring.second, level);
      }
      this.#promoteThrough(peak, scaling, nowMs);
    }
    if (nowMs > this.#promotedToMs) this.#promotedToMs = nowMs;
    ring.advance(nowMs);
  }

  /**
   * Promotes the levels due by `toMs`, each at the time it fell due rather than at the next look:
   * the scaling bucket has refilled at twice the new peak since then, so a table that reached a
   * level, went idle and comes back after the promotion takes twice that level at once (§4.3).
   * Due times are whole minutes plus the promotion delay, and a level waiting at `#promotedToMs`
   * falls due within one delay (and a minute) of it, which bounds the steps; O(1) unless a due
   * time was crossed.
   */
  #promoteThrough(peak: OnDemandPeak, scaling: TokenBucket, toMs: number): void {
    const fromMs = this.#promotedToMs;
    if (toMs > fromMs) {
      const delayMs = this.#promotionDelayMs;
      const lastDueMs = Math.min(toMs, fromMs + delayMs + MINUTE_MS);
      for (let dueMs = (Math.floor((fromMs - delayMs) / MINUTE_MS) + 1) * MINUTE_MS + delayMs; dueMs <= lastDueMs; dueMs += MINUTE_MS) {
        if (peak.promote(dueMs)) this.#rescale(peak, Math.max(dueMs, scaling.lastMs));
      }
      this.#promotedToMs = toMs;
    }
    // Anything else due by now (a level just recorded with a short delay) is promoted now.
    if (peak.promote(toMs)) this.#rescale(peak, Math.max(toMs, scaling.lastMs));
  }

  /** The peak was raised from outside (pre-warming): twice it per second from `nowMs` on. */
  rescaleTo(nowMs: number): void {
    if (this.peak !== undefined && this.scaling !== undefined) this.#rescale(this.peak, Math.max(nowMs, this.scaling.lastMs));
  }

  /** The peak rose: twice it per second from now on (and the bank holds 300 s of that). */
  #rescale(peak: OnDemandPeak, nowMs: number): void {
    const twice = 2 * peak.previousPeakUnitsPerSecond;
    this.scaling?.reconfigure(twice, twice, nowMs);
    const bank = this.scalingBank;
    if (bank !== undefined) bank.reconfigure(twice, twice * this.#bankSeconds, Math.max(nowMs, bank.lastMs));
  }

  refill(nowMs: number): void {
    this.advanceClock(nowMs);
    this.adaptive?.refill(nowMs);
    this.maxOnDemand?.refill(nowMs);
    this.quota?.refill(nowMs);
    this.scaling?.refill(nowMs);
    this.scalingBank?.refill(nowMs);
  }

  /** Units per second the on-demand limits admit now (undefined when provisioned). */
  admitUnitsPerSecondMax(): number | undefined {
    if (this.scaling === undefined) return undefined;
    let limit = this.scaling.ratePerSecond;
    if (this.quota !== undefined) limit = Math.min(limit, this.quota.ratePerSecond);
    if (this.maxOnDemand !== undefined) limit = Math.min(limit, this.maxOnDemand.ratePerSecond);
    return limit;
  }
}

export interface ResourceCapacityInit {
  /** `arn:aws:dynamodb:<region>:<account>:table/<t>` or `…/index/<i>`: the `resource` of ThrottlingReasons. */
  readonly arn: string;
  readonly kind: ResourceKind;
  readonly billing: ResourceBilling;
  readonly settings?: Partial<CapacitySettings>;
  readonly nowMs: number;
}

/** One table or one GSI: its billing state, table-level buckets, partitions and (GSI) backlogs. */
export class ResourceCapacity {
  readonly arn: string;
  readonly kind: ResourceKind;
  readonly settings: CapacitySettings;
  #billingMode: BillingMode = 'provisioned';
  #billing!: ResourceBilling;
  readonly #read: ResourceDirection;
  readonly #write: ResourceDirection;
  readonly #partitions = new Map<number, PartitionCapacity>();
  /** Tables: their GSIs, whose back-pressure refuses the table's writes. */
  readonly #indexes: ResourceCapacity[] = [];
  /** GSIs: partitions whose backlog was over the bound when last looked at. Usually empty. */
  readonly #overBound: PartitionCapacity[] = [];

  constructor(init: ResourceCapacityInit) {
    this.arn = init.arn;
    this.kind = init.kind;
    this.settings = { ...DEFAULT_CAPACITY_SETTINGS, ...init.settings };
    assertSettings(this.settings);
    this.#read = new ResourceDirection(init.nowMs, this.settings.onDemandPeakPromotionDelayMs, this.settings.burstBankSecondsMax);
    this.#write = new ResourceDirection(init.nowMs, this.settings.onDemandPeakPromotionDelayMs, this.settings.burstBankSecondsMax);
    this.setBilling(init.billing, init.nowMs);
  }

  get billingMode(): BillingMode {
    return this.#billingMode;
  }

  /** The billing last set (CreateTable, UpdateTable). */
  get billing(): ResourceBilling {
    return this.#billing;
  }

  get indexes(): readonly ResourceCapacity[] {
    return this.#indexes;
  }

  /**
   * New billing (CreateTable, UpdateTable): provisioned units, a switch of mode, or new on-demand
   * maxima. A switch to on-demand gives every partition its ceilings; provisioned shares follow
   * through `partitionCapacity` (or `setAllocation`).
   */
  setBilling(billing: ResourceBilling, nowMs: number): void {
    this.#billingMode = billing.mode;
    this.#billing = billing;
    if (billing.mode === 'provisioned') {
      this.#setProvisioned(this.#read, billing.readUnitsPerSecond, nowMs);
      this.#setProvisioned(this.#write, billing.writeUnitsPerSecond, nowMs);
    } else {
      this.#setOnDemand(this.#read, billing.maxReadRequestUnits, this.settings.onDemandInitialPeakReadUnitsPerSecond, this.settings.onDemandTableReadUnitsPerSecondMax, nowMs);
      this.#setOnDemand(this.#write, billing.maxWriteRequestUnits, this.settings.onDemandInitialPeakWriteUnitsPerSecond, this.settings.onDemandTableWriteUnitsPerSecondMax, nowMs);
      // On-demand partitions are allocated their ceilings (§4.3); provisioned shares come back
      // through partitionCapacity, which the partition map's allocations feed.
      for (const partition of this.#partitions.values()) {
        partition.setAllocation('read', this.settings.partitionReadUnitsPerSecondMax, nowMs);
        partition.setAllocation('write', this.settings.partitionWriteUnitsPerSecondMax, nowMs);
      }
    }
  }

  /**
   * The capacity state of partition `id`, created on first use with a full burst bank. The
   * allocations come from the partition map (table throughput × share, or the ceiling when
   * on-demand); a changed allocation is applied here, so callers just pass the current one.
   */
  partitionCapacity(id: number, readUnitsPerSecond: number, writeUnitsPerSecond: number, nowMs: number): PartitionCapacity {
    const readUnits = this.allocationFor('read', readUnitsPerSecond);
    const writeUnits = this.allocationFor('write', writeUnitsPerSecond);
    let partition = this.#partitions.get(id);
    if (partition === undefined) {
      partition = new PartitionCapacity(this, id, readUnits, writeUnits, nowMs);
      this.#partitions.set(id, partition);
      return partition;
    }
    if (partition.allocation('read') !== readUnits) partition.setAllocation('read', readUnits, nowMs);
    if (partition.allocation('write') !== writeUnits) partition.setAllocation('write', writeUnits, nowMs);
    return partition;
  }

  findPartition(id: number): PartitionCapacity | undefined {
    return this.#partitions.get(id);
  }

  /** Every partition's state, in id order. */
  partitions(): PartitionCapacity[] {
    return [...this.#partitions.values()].sort((a, b) => a.id - b.id);
  }

  /**
   * Forgets a partition (it split). Returns the index write units still in its backlog, drained
   * to `nowMs`, for the caller to hand to the children (`enqueueIndexWrites`).
   */
  removePartition(id: number, nowMs: number): number {
    const partition = this.#partitions.get(id);
    if (partition === undefined) return 0;
    this.drainBacklog(partition, nowMs);
    const left = partition.backlogUnits;
    partition.backlogUnits = 0;
    this.#forgetOverBound(partition);
    this.#partitions.delete(id);
    return left;
  }

  /** A GSI of this table: its back-pressure refuses this table's writes. */
  attachIndex(index: ResourceCapacity): void {
    assert(this.kind === 'Table' && index.kind === 'Index', 'only a table takes global secondary indexes');
    if (!this.#indexes.includes(index)) this.#indexes.push(index);
  }

  /** The GSI was deleted: its backlog no longer holds the table back. */
  detachIndex(index: ResourceCapacity): void {
    const at = this.#indexes.indexOf(index);
    if (at >= 0) this.#indexes.splice(at, 1);
  }

  /**
   * GSIs: a partition whose backlog is over the bound at `nowMs` (after draining it), or
   * undefined when base-table writes may proceed. O(over-bound partitions), usually O(1).
   */
  backPressure(nowMs: number): PartitionCapacity | undefined {
    const overBound = this.#overBound;
    for (let at = overBound.length - 1; at >= 0; at--) {
      const partition = overBound[at]!;
      this.drainBacklog(partition, nowMs);
      if (partition.backlogUnits > this.settings.gsiBacklogWriteUnitsMax) return partition;
      overBound[at] = overBound[overBound.length - 1]!;
      overBound.pop();
      partition.overBound = false;
    }
    return undefined;
  }

  /** GSIs: index write units a base-table write adds to a partition's backlog. */
  enqueueIndexWrites(partition: PartitionCapacity, units: number, nowMs: number): void {
    assert(this.kind === 'Index', 'only a GSI has backlogs');
    assert(partition.resource === this, 'the partition belongs to another resource');
    assertUnits(units);
    // Drain first: what was waiting has been applied at the partition's rate until now.
    this.drainBacklog(partition, nowMs);
    partition.backlogUnits += units;
    if (partition.backlogUnits > this.settings.gsiBacklogWriteUnitsMax && !partition.overBound) {
      partition.overBound = true;
      this.#overBound.push(partition);
    }
  }

  /**
   * Applies a GSI partition's backlog at what the partition could admit since the buckets were
   * last brought up to date (allocation + burst or adaptive lending, ceiling, on-demand limits).
   * Lazy and O(1): the drain since the last look is computed in one step from the buckets'
   * uncapped accruals, which is exact while the backlog stays non-empty and one limit binds.
   */
  drainBacklog(partition: PartitionCapacity, nowMs: number): void {
    assert(partition.resource === this, 'the partition belongs to another resource');
    const resource = this.#write;
    resource.advanceClock(nowMs);
    partition.write.consumed.advance(nowMs);
    const fromMs = partition.drainedToMs;
    partition.drainedToMs = nowMs;
    if (partition.backlogUnits <= 0) return;
    const drained = this.#drainableUnits(partition, nowMs);
    this.#spendDrain(partition, drained, nowMs);
    partition.backlogUnits -= drained;
    // Postcondition: a drain never applies more than was waiting.
    assert(partition.backlogUnits >= 0, 'a backlog never goes below zero');
    partition.write.consumed.add(drained);
    resource.consumed.add(drained);
    if (drained > 0) this.onDrain?.(partition.id, drained, fromMs, servedUntilMs(partition, drained, fromMs, nowMs));
  }

  /**
   * GSIs: told what each lazy drain applied and over which span of the clock, so a heat map can
   * show what the partition served rather than what was queued on it.
   */
  onDrain: ((partitionId: number, units: number, fromMs: number, toMs: number) => void) | undefined;

  /**
   * How much of a partition's backlog its limits let through since their buckets were last
   * settled: the smallest of what each allows. Records the binding limit (on a tie, the first
   * named) as the reason back-pressure will report.
   */
  #drainableUnits(partition: PartitionCapacity, nowMs: number, wanted = partition.backlogUnits, recordLimit = true): number {
    const resource = this.#write;
    const side = partition.write;
    const lendable = resource.adaptive === undefined ? 0 : Math.max(0, resource.adaptive.accrued(nowMs));
    // Own allocation and bank first; when short, adaptive lending must hold the whole drain.
    const ownOrLent = Math.max(side.allocation.accrued(nowMs), lendable);
    let drained = wanted;
    let limit: LimitType | undefined;
    const maxAvailable = resource.maxOnDemand?.accrued(nowMs) ?? Infinity;
    if (maxAvailable < drained) {
      drained = maxAvailable;
      limit = 'MaxOnDemandThroughputExceeded';
    }
    const quotaAvailable = resource.quota?.accrued(nowMs) ?? Infinity;
    if (quotaAvailable < drained) {
      drained = quotaAvailable;
      limit = 'AccountLimitExceeded';
    }
    const scalingAvailable = resource.scaling?.accrued(nowMs) ?? Infinity;
    if (scalingAvailable < drained) {
      drained = scalingAvailable;
      limit = 'KeyRangeThroughputExceeded';
    }
    const ceilingAvailable = partition.writeCeiling.accrued(nowMs);
    if (ceilingAvailable < drained) {
      drained = ceilingAvailable;
      limit = 'KeyRangeThroughputExceeded';
    }
    if (ownOrLent < drained) {
      drained = ownOrLent;
      limit = this.shortAllocationLimit();
    }
    if (limit !== undefined && recordLimit) partition.backlogLimit = limit;
    return Math.max(0, drained);
  }

  /**
   * GSIs: index write units a partition could still apply at `nowMs`, beyond its backlog (drained
   * first): what its buckets hold now. A write's back-pressure check drains that much at once, so
   * a flow of writes (admitFlow) passes while it lasts. Reads nothing but the buckets.
   */
  drainHeadroom(partition: PartitionCapacity, nowMs: number): number {
    this.drainBacklog(partition, nowMs);
    return this.#drainableUnits(partition, nowMs, Infinity, false);
  }

  /** Takes a drain of `drained` units from every bucket it went through, settling them at `nowMs`. */
  #spendDrain(partition: PartitionCapacity, drained: number, nowMs: number): void {
    const resource = this.#write;
    const side = partition.write;
    const ownAvailable = side.allocation.accrued(nowMs);
    if (ownAvailable >= drained) {
      side.allocation.settle(ownAvailable - drained, nowMs);
    } else {
      // Own allocation and bank spent; the rest came from the GSI's unused throughput.
      side.allocation.settle(Math.min(ownAvailable, 0), nowMs);
      side.adaptiveUnitsTotal += drained - Math.max(ownAvailable, 0);
    }
    spendAccrued(partition.writeCeiling, drained, nowMs);
    // Every admission draws on the spare-throughput bucket, clamped at zero.
    if (resource.adaptive !== undefined) resource.adaptive.settle(Math.max(0, resource.adaptive.accrued(nowMs) - drained), nowMs);
    spendAccrued(resource.maxOnDemand, drained, nowMs);
    spendAccrued(resource.quota, drained, nowMs);
    spendAccrued(resource.scaling, drained, nowMs);
  }

  /** Drains every partition's backlog to `nowMs` (inspection; admission drains lazily). */
  drainBacklogs(nowMs: number): void {
    for (const partition of this.#partitions.values()) if (partition.backlogUnits > 0) this.drainBacklog(partition, nowMs);
  }

  /** Resource-level counters for the inspection API. */
  stats(nowMs: number): ResourceCapacityStats {
    return {
      arn: this.arn,
      kind: this.kind,
      billing: this.#billingMode,
      read: this.#directionStats(this.#read, nowMs),
      write: this.#directionStats(this.#write, nowMs),
      backPressure: this.kind === 'Index' && this.backPressure(nowMs) !== undefined,
    };
  }

  /** Every partition's counters, in id order. */
  partitionStats(nowMs: number): PartitionCapacityStats[] {
    return this.partitions().map((partition) => partition.stats(nowMs));
  }

  /**
   * On-demand: how many partitions twice the previous peak needs at the partition ceilings (§2.4
   * split for consumption, §4.3), with the peaks promoted up to `nowMs` — a promotion falls due on
   * the clock, whether or not traffic came since. 0 when provisioned. O(1).
   */
  partitionsForPeak(nowMs: number): number {
    if (this.#billingMode !== 'on-demand') return 0;
    this.#read.advanceClock(nowMs);
    this.#write.advanceClock(nowMs);
    const readPeak = this.previousPeak('read') ?? 0;
    const writePeak = this.previousPeak('write') ?? 0;
    const settings = this.settings;
    return Math.ceil(Math.max((2 * writePeak) / settings.partitionWriteUnitsPerSecondMax, (2 * readPeak) / settings.partitionReadUnitsPerSecondMax) - 1e-9);
  }

  /** On-demand: the previous peak (units/s); undefined while provisioned. */
  previousPeak(direction: Direction): number | undefined {
    const side = this.side(direction);
    return side.scaling === undefined ? undefined : side.peak?.previousPeakUnitsPerSecond;
  }

  /** @internal */
  side(direction: Direction): ResourceDirection {
    return direction === 'read' ? this.#read : this.#write;
  }

  /**
   * Pre-warming (§4.4): the resource serves `unitsPerSecond` at once from now on. On-demand, the
   * previous peak rises to half of it (twice the peak is what is admitted); provisioned, it is
   * kept for a later switch to on-demand. Never lowers anything.
   */
  prewarm(direction: Direction, unitsPerSecond: number, nowMs: number): void {
    assert(Number.isFinite(unitsPerSecond) && unitsPerSecond >= 0, 'warm throughput must be finite and >= 0');
    const side = this.side(direction);
    if (unitsPerSecond <= side.prewarmedUnitsPerSecond) return;
    side.prewarmedUnitsPerSecond = unitsPerSecond;
    if (side.peak === undefined || side.scaling === undefined) return;
    side.advanceClock(nowMs);
    side.peak.raiseTo(unitsPerSecond / 2);
    side.rescaleTo(nowMs);
  }

  /**
   * Warm throughput as DescribeTable reports it (§4.4): what the resource serves at once — twice
   * its on-demand peak, its highest provisioned rate, or what it was pre-warmed to, the largest.
   */
  warmUnitsPerSecond(direction: Direction): number {
    // No clock here: a description may be built on a time older than the last admission's, and a
    // promotion due meanwhile shows on the next admission.
    const side = this.side(direction);
    const onDemand = side.peak === undefined ? 0 : 2 * side.peak.previousPeakUnitsPerSecond;
    const provisioned = this.#billing.mode === 'provisioned' ? (direction === 'read' ? this.#billing.readUnitsPerSecond : this.#billing.writeUnitsPerSecond) : 0;
    return Math.max(onDemand, provisioned, side.highestProvisionedUnitsPerSecond, side.prewarmedUnitsPerSecond);
  }

  /** @internal What a partition short of allocation, burst and lending hits. */
  shortAllocationLimit(): LimitType {
    // Provisioned: the table as a whole is over its rate (adaptive had nothing to lend).
    // On-demand: allocation is the ceiling, so this is the partition's key range.
    return this.#billingMode === 'provisioned' ? 'ProvisionedThroughputExceeded' : 'KeyRangeThroughputExceeded';
  }

  /** A partition's burst bank: 300 s of its allocation, and at least `burstBankCeilingSecondsMin` of its ceiling. */
  bankUnits(direction: Direction, allocatedUnitsPerSecond: number): number {
    const ceiling = direction === 'read' ? this.settings.partitionReadUnitsPerSecondMax : this.settings.partitionWriteUnitsPerSecondMax;
    return Math.max(allocatedUnitsPerSecond * this.settings.burstBankSecondsMax, ceiling * this.settings.burstBankCeilingSecondsMin);
  }

  /** Whether `units` asked of this resource in one request make it a large request (paid from the banks). */
  isLarge(direction: Direction, units: number): boolean {
    const ceiling = direction === 'read' ? this.settings.partitionReadUnitsPerSecondMax : this.settings.partitionWriteUnitsPerSecondMax;
    return units > ceiling * this.settings.largeRequestCeilingSeconds + UNITS_EPSILON;
  }

  /** A partition's allocation: provisioned, the share given capped at the ceiling; on-demand, the ceiling itself (§2.1, §4.3). */
  allocationFor(direction: Direction, unitsPerSecond: number): number {
    const ceiling = direction === 'read' ? this.settings.partitionReadUnitsPerSecondMax : this.settings.partitionWriteUnitsPerSecondMax;
    return this.#billingMode === 'on-demand' ? ceiling : capAllocation(unitsPerSecond, ceiling);
  }

  #setProvisioned(side: ResourceDirection, unitsPerSecond: number, nowMs: number): void {
    assert(Number.isFinite(unitsPerSecond) && unitsPerSecond >= 0, 'provisioned units must be finite and >= 0');
    side.advanceClock(nowMs);
    if (this.settings.adaptiveCapacity === 'off') side.adaptive = undefined;
    else if (side.adaptive === undefined) side.adaptive = new TokenBucket(unitsPerSecond, unitsPerSecond, unitsPerSecond, nowMs);
    else side.adaptive.reconfigure(unitsPerSecond, unitsPerSecond, nowMs);
    side.maxOnDemand = undefined;
    side.quota = undefined;
    side.scaling = undefined;
    side.scalingBank = undefined;
    if (unitsPerSecond > side.highestProvisionedUnitsPerSecond) side.highestProvisionedUnitsPerSecond = unitsPerSecond;
  }

  #setOnDemand(side: ResourceDirection, maxUnits: number | undefined, initialPeak: number, quotaUnits: number, nowMs: number): void {
    side.advanceClock(nowMs);
    side.adaptive = undefined;
    if (side.peak === undefined) {
      side.peak = new OnDemandPeak(initialPeak, {
        sustainSeconds: this.settings.onDemandPeakSustainSeconds,
        promotionDelayMs: this.settings.onDemandPeakPromotionDelayMs,
      });
    }
    // Switched from provisioned: at least the highest provisioned rate at once (§4.3: 8,000 WCU ⇒ 8,000 WRU/s);
    // pre-warmed: at least the warm throughput (§4.4).
    side.peak.raiseTo(Math.max(side.highestProvisionedUnitsPerSecond, side.prewarmedUnitsPerSecond) / 2);
    const twice = 2 * side.peak.previousPeakUnitsPerSecond;
    if (side.scaling === undefined) side.scaling = new TokenBucket(twice, twice, twice, nowMs);
    else side.scaling.reconfigure(twice, twice, nowMs);
    const bank = twice * this.settings.burstBankSecondsMax;
    if (side.scalingBank === undefined) side.scalingBank = new TokenBucket(twice, bank, bank, nowMs);
    else side.scalingBank.reconfigure(twice, bank, nowMs);
    if (side.quota === undefined) side.quota = new TokenBucket(quotaUnits, quotaUnits, quotaUnits, nowMs);
    if (maxUnits === undefined || maxUnits === -1) {
      side.maxOnDemand = undefined;
    } else {
      assert(Number.isFinite(maxUnits) && maxUnits >= 1, 'an on-demand maximum is >= 1, or -1 for none');
      if (side.maxOnDemand === undefined) side.maxOnDemand = new TokenBucket(maxUnits, maxUnits, maxUnits, nowMs);
      else side.maxOnDemand.reconfigure(maxUnits, maxUnits, nowMs);
    }
  }

  #forgetOverBound(partition: PartitionCapacity): void {
    const at = this.#overBound.indexOf(partition);
    if (at >= 0) this.#overBound.splice(at, 1);
    partition.overBound = false;
  }

  #directionStats(side: ResourceDirection, nowMs: number): ResourceDirectionStats {
    side.advanceClock(nowMs);
    const base = {
      consumedUnitsLastSecond: side.consumed.lastSecondUnits(),
      consumedUnitsLastMinute: side.consumed.lastMinuteUnits(),
      throttleEvents: side.throttleEvents,
    };
    const admitMax = side.admitUnitsPerSecondMax();
    if (admitMax === undefined || side.peak === undefined) return base;
    return { ...base, previousPeakUnitsPerSecond: side.peak.previousPeakUnitsPerSecond, admitUnitsPerSecondMax: admitMax };
  }
}

/**
 * Admits all of `demands` at `nowMs` or none: every demand is checked against the sums of all the
 * demands sharing its buckets before anything is taken, so a throttled request consumes nothing.
 * Returns undefined when admitted, else the first refused demand's verdict.
 */
export function admit(demands: readonly Demand[], nowMs: number, request?: RequestUnits, count: number = demands.length): ThrottleVerdict | undefined {
  assert(Number.isFinite(nowMs), 'nowMs must be finite');
  assertCount(demands, count);
  let verdict: ThrottleVerdict | undefined;
  try {
    for (let at = 0; at < count; at++) stage(demands[at]!, nowMs);
    // Sized once the sums are known: commit resets them as it goes.
    for (let at = 0; at < count; at++) markLarge(demands[at]!, request);
    for (let at = 0; at < count && verdict === undefined; at++) verdict = check(demands[at]!, at, nowMs);
    if (verdict === undefined) {
      for (let at = 0; at < count; at++) commit(demands[at]!, nowMs);
    } else if (!verdict.backPressure) {
      // A back-pressure refusal was counted on the GSI (check); the table's partition did not refuse.
      countThrottle(demands[verdict.demandIndex]!);
    }
  } finally {
    // Pending sums belong to this call only, whatever happened.
    for (let at = 0; at < count; at++) unstage(demands[at]!);
  }
  return verdict;
}

/** What `admitFlow` admitted of a flow of identical requests. */
export interface FlowAdmission {
  /** Requests admitted (0 .. the flow's count). */
  readonly admitted: number;
  /** Why the rest were refused; undefined when all were admitted. */
  readonly verdict: ThrottleVerdict | undefined;
}

/** Requests of one flow admitted at once, at most: a bound on the binary search's range. */
export const FLOW_REQUESTS_MAX = 2 ** 40;

/**
 * A flow (scenario `--fidelity flow`): `count` identical requests, each asking `demands`, arriving
 * at `nowMs`. Answers how many of them `admit` would have admitted had they come one after another
 * at `nowMs`, and takes what those consume, in O(log count) checks instead of `count` admissions.
 *
 * Why this equals admitting them one by one: nothing refills while the clock stands still, so each
 * request is admitted exactly when the buckets still hold one more request's units after the
 * requests admitted before it: every limit is a sum that grows with the number admitted (a
 * ceiling, a bank, adaptive lending, twice the peak, a quota), hence "k requests fit" is monotone
 * in k, and the largest k that fits (a binary search over the same checks, with the units × k
 * staged) is what one-by-one admission reaches; a refused request takes nothing, so the refused
 * ones change nothing after it. Whether a request is large (section 11) is judged per request
 * (`itemsPerRequest` items of the demands: a batch counts whole), never on the flow's sum.
 * GSI back-pressure: one by one, a write is refused once a GSI partition's backlog is over its
 * bound, and each admitted write adds its GSI units to the backlogs; so the flow admits writes
 * while every backlog it touches has not passed the bound before the write, exactly as one by one.
 * Refused requests count one throttle event each, where one-by-one admission counts them.
 */
export function admitFlow(demands: readonly Demand[], count: number, nowMs: number, itemsPerRequest = 1): FlowAdmission {
  assert(Number.isFinite(nowMs), 'nowMs must be finite');
  assert(Number.isInteger(count) && count >= 0 && count <= FLOW_REQUESTS_MAX, 'a flow counts whole requests');
  assert(Number.isInteger(itemsPerRequest) && itemsPerRequest >= 1, 'a request holds whole items');
  if (count === 0 || demands.length === 0) return { admitted: count, verdict: undefined };
  const table = demands.find((demand) => demand.resource.kind === 'Table' && demand.direction === 'write')?.resource;
  let room = count;
  if (table !== undefined) {
    const blocked = backPressureVerdict(table, 0, nowMs, count);
    if (blocked !== undefined) return { admitted: 0, verdict: blocked };
    room = Math.min(room, backlogRoom(demands, nowMs));
  }
  const large = largeSides(demands, itemsPerRequest);
  const fits = (requests: number): ThrottleVerdict | undefined => stagedVerdict(demands, requests, nowMs, large);
  let admitted = 0;
  let verdict: ThrottleVerdict | undefined;
  if (room > 0 && (verdict = fits(room)) === undefined) {
    admitted = room;
  } else {
    // The largest k in [0, room) that fits: fits(low) holds, fits(high) does not.
    let low = 0;
    let high = room;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      const refusal = fits(middle);
      if (refusal === undefined) low = middle;
      else {
        high = middle;
        verdict = refusal;
      }
    }
    admitted = low;
    if (admitted < room) verdict = fits(admitted + 1) ?? verdict;
  }
  if (admitted > 0) {
    try {
      for (const demand of demands) stage(demand, nowMs, admitted);
      markLargeSides(demands, large);
      for (const demand of demands) commit(demand, nowMs, admitted);
    } finally {
      for (const demand of demands) unstage(demand);
    }
  }
  const refused = count - admitted;
  if (refused === 0) return { admitted, verdict: undefined };
  if (admitted === room && room < count && table !== undefined) {
    // The backlogs reached their bound: the rest is back-pressure, counted on the GSI.
    return { admitted, verdict: backPressureVerdict(table, 0, nowMs, refused) ?? verdict };
  }
  if (verdict !== undefined && !verdict.backPressure) {
    const refusing = demands[verdict.demandIndex]!;
    refusing.partition.side(refusing.direction).throttleEvents += refused;
    refusing.resource.side(refusing.direction).throttleEvents += refused;
  }
  return { admitted, verdict };
}

/**
 * How many writes of a flow pass GSI back-pressure: one by one, a write passes while the backlog
 * of every GSI partition it adds to is at most the bound before it, once that partition drained
 * what its buckets hold at the moment (each check drains; the clock stands still, so the drain
 * available at once is the partition's headroom, `drainHeadroom`).
 */
function backlogRoom(demands: readonly Demand[], nowMs: number): number {
  let room = FLOW_REQUESTS_MAX;
  for (const demand of demands) {
    if (!isBacklogWrite(demand) || demand.units <= 0) continue;
    const { resource, partition } = demand;
    // One by one, each write's check first drains what the partition's buckets hold at once.
    const drainable = resource.drainHeadroom(partition, nowMs);
    const headroom = resource.settings.gsiBacklogWriteUnitsMax + drainable - partition.backlogUnits;
    room = Math.min(room, headroom < 0 ? 0 : Math.floor(headroom / demand.units + 1e-9) + 1);
  }
  return room;
}

/**
 * Per demand: whether one request of the flow is large on its resource side (section 11): the
 * units its demands ask that side in all, times the items of a request. GSI writes join backlogs
 * and are never judged large. O(demands²) on a flow's handful of demands, no bucket touched.
 */
function largeSides(demands: readonly Demand[], itemsPerRequest: number): boolean[] {
  const large: boolean[] = new Array<boolean>(demands.length).fill(false);
  for (let at = 0; at < demands.length; at++) {
    const demand = demands[at]!;
    if (isBacklogWrite(demand)) continue;
    let units = 0;
    for (const other of demands) if (other.resource === demand.resource && other.direction === demand.direction) units += other.units;
    large[at] = demand.resource.isLarge(demand.direction, units * itemsPerRequest);
  }
  return large;
}

function markLargeSides(demands: readonly Demand[], large: readonly boolean[]): void {
  for (let at = 0; at < demands.length; at++) {
    const demand = demands[at]!;
    demand.resource.side(demand.direction).large = large[at]!;
  }
}

/** The first refusal of `requests` copies of the demands staged at once, or undefined; takes nothing. */
function stagedVerdict(demands: readonly Demand[], requests: number, nowMs: number, large: readonly boolean[]): ThrottleVerdict | undefined {
  try {
    // GSI writes are never refused themselves (back-pressure is the room computed before).
    for (const demand of demands) stage(demand, nowMs, requests);
    markLargeSides(demands, large);
    for (let at = 0; at < demands.length; at++) {
      const demand = demands[at]!;
      if (isBacklogWrite(demand)) continue;
      const verdict = checkLimits(demand, at);
      if (verdict !== undefined) return verdict;
    }
    return undefined;
  } finally {
    for (const demand of demands) unstage(demand);
  }
}

/**
 * `--capacity off`: counts demands as consumed without checking or taking anything. The partitions'
 * and resources' consumption counters (what the inspection API reports) move as if every demand
 * had been admitted; buckets, backlogs and throttle counters are left alone. A GSI write is applied
 * with its item, never held back, so it counts on its partition at once (and `onDrain` hears of it
 * as a drain of no duration, so the partition's history shows it as served).
 */
export function recordUnenforced(demands: readonly Demand[], nowMs: number, count: number = demands.length): void {
  assert(Number.isFinite(nowMs), 'nowMs must be finite');
  assertCount(demands, count);
  for (let at = 0; at < count; at++) {
    const demand = demands[at]!;
    const { resource, partition, direction, units } = demand;
    assert(partition.resource === resource, 'a demand names a partition of another resource');
    assertUnits(units);
    const side = partition.side(direction);
    side.consumed.advance(nowMs);
    side.consumed.add(units);
    const resourceSide = resource.side(direction);
    resourceSide.advanceClock(nowMs);
    resourceSide.consumed.add(units);
    if (isBacklogWrite(demand) && units > 0) resource.onDrain?.(partition.id, units, nowMs, nowMs);
  }
}

/**
 * Until when a lazy drain of (fromMs, nowMs] was serving. A drain the partition's rate limited
 * served all along; one that emptied the backlog served it from the start at the partition's rate
 * (its allocation, never above its ceiling) and then idled: a few units written just before a long
 * quiet spell were served at once, not across the spell.
 */
function servedUntilMs(partition: PartitionCapacity, drained: number, fromMs: number, nowMs: number): number {
  if (partition.backlogUnits > 0) return nowMs;
  const ratePerSecond = Math.min(partition.write.allocation.ratePerSecond, partition.writeCeiling.ratePerSecond);
  if (!(ratePerSecond > 0)) return nowMs;
  return Math.min(nowMs, fromMs + (drained / ratePerSecond) * 1000);
}

/** A GSI write caused by a base-table write: it joins the partition's backlog, never refused itself. */
export function isBacklogWrite(demand: Demand): boolean {
  return demand.direction === 'write' && demand.resource.kind === 'Index';
}

/** Brings the demand's buckets to `nowMs` and adds its units to their pending sums. */
function stage(demand: Demand, nowMs: number, times = 1): void {
  assert(demand.partition.resource === demand.resource, 'a demand names a partition of another resource');
  assertUnits(demand.units);
  if (isBacklogWrite(demand)) return;
  const { partition, direction } = demand;
  partition.refill(direction, nowMs);
  const resourceSide = demand.resource.side(direction);
  resourceSide.refill(nowMs);
  partition.side(direction).pending += demand.units * times;
  resourceSide.pending += demand.units * times;
}

/**
 * A large request asks its table or GSI, in one direction, for more than one second of a
 * partition's ceiling in all (the whole batch when `request` is given): it is paid from the burst
 * banks rather than the one-second buckets, so it is served, and the requests after it are too.
 */
function markLarge(demand: Demand, request: RequestUnits | undefined): void {
  const { resource, direction } = demand;
  const side = resource.side(direction);
  side.large = resource.isLarge(direction, request === undefined ? side.pending : request.of(resource, direction));
}

function check(demand: Demand, demandIndex: number, nowMs: number): ThrottleVerdict | undefined {
  if (isBacklogWrite(demand)) return undefined;
  const { resource, direction } = demand;
  if (resource.kind === 'Table' && direction === 'write') {
    // GSI back-pressure refuses every write to the table, whatever it touches (§3.5).
    const verdict = backPressureVerdict(resource, demandIndex, nowMs, 1);
    if (verdict !== undefined) return verdict;
  }
  return checkLimits(demand, demandIndex);
}

/**
 * The verdict of a GSI of `table` whose backlog is over its bound, counting `refused` write
 * throttle events on it (the workshop's WriteThrottleEvents on the GSI); undefined when none is.
 */
function backPressureVerdict(table: ResourceCapacity, demandIndex: number, nowMs: number, refused: number): ThrottleVerdict | undefined {
  for (const index of table.indexes) {
    const blocked = index.backPressure(nowMs);
    if (blocked === undefined) continue;
    blocked.write.throttleEvents += refused;
    index.side('write').throttleEvents += refused;
    return verdictFor(index, blocked.id, 'write', blocked.backlogLimit, demandIndex, true);
  }
  return undefined;
}

/** Every check of a demand but back-pressure, on the staged sums; no side effect. */
function checkLimits(demand: Demand, demandIndex: number): ThrottleVerdict | undefined {
  const { resource, partition, direction } = demand;
  const resourceSide = resource.side(direction);
  const asked = resourceSide.pending;
  const large = resourceSide.large;
  if (resourceSide.maxOnDemand !== undefined && !resourceSide.maxOnDemand.covers(asked)) {
    return verdictFor(resource, partition.id, direction, 'MaxOnDemandThroughputExceeded', demandIndex, false);
  }
  if (resourceSide.quota !== undefined && !resourceSide.quota.covers(asked)) {
    return verdictFor(resource, partition.id, direction, 'AccountLimitExceeded', demandIndex, false);
  }
  // Twice the previous peak: a second of it for ordinary requests, the 300 s bank for a large one.
  const scaling = large ? resourceSide.scalingBank : resourceSide.scaling;
  if (scaling !== undefined && !scaling.covers(asked)) {
    return verdictFor(resource, partition.id, direction, 'KeyRangeThroughputExceeded', demandIndex, false);
  }
  // The ceiling: a second of it plus the reserve of a rested partition; a large request is held to
  // the partition's bank (its allocation bucket, checked next) instead.
  if (!large && !coversCeiling(partition, direction)) {
    return verdictFor(resource, partition.id, direction, 'KeyRangeThroughputExceeded', demandIndex, false);
  }
  const side = partition.side(direction);
  if (side.allocation.covers(side.pending)) return undefined;
  // Own allocation and burst are short: adaptive capacity lends the table's unused throughput,
  // which must hold everything the resource is asked now (borrowing never takes the table over
  // its rate, so no oversized allowance here: the partition's own bank provides that).
  if (resourceSide.adaptive !== undefined && resourceSide.adaptive.holds(asked)) return undefined;
  return verdictFor(resource, partition.id, direction, resource.shortAllocationLimit(), demandIndex, false);
}

/** Whether the partition's ceiling bucket, topped up by its reserve, holds what the admission asks of it. */
function coversCeiling(partition: PartitionCapacity, direction: Direction): boolean {
  const ceiling = partition.ceiling(direction);
  const asked = partition.pendingCeilingUnits(direction);
  if (ceiling.covers(asked)) return true;
  return partition.reserve(direction).holds(asked - Math.max(0, ceiling.tokens));
}

/** Takes what the checks allowed. Each bucket's pending sum is taken once, by the first of its demands. */
function commit(demand: Demand, nowMs: number, times = 1): void {
  const { resource, partition, direction } = demand;
  const large = resource.side(direction).large;
  if (isBacklogWrite(demand)) {
    resource.enqueueIndexWrites(partition, demand.units * times, nowMs);
    return;
  }
  const side = partition.side(direction);
  if (side.pending > 0) {
    const units = side.pending;
    const ceilingUnits = units * (direction === 'read' ? partition.readCeilingCost : 1);
    const ceiling = partition.ceiling(direction);
    if (!large) {
      // The second's tokens first; what they lack comes from the reserve (checked to hold it).
      if (ceiling.covers(ceilingUnits)) {
        ceiling.take(ceilingUnits);
      } else {
        const fromCeiling = Math.max(0, ceiling.tokens);
        ceiling.take(fromCeiling);
        partition.reserve(direction).drawClamped(ceilingUnits - fromCeiling);
      }
    }
    if (side.allocation.covers(units)) {
      side.allocation.take(units);
    } else {
      const own = Math.max(0, side.allocation.tokens);
      side.allocation.take(own);
      side.adaptiveUnitsTotal += units - own;
    }
    side.consumed.add(units);
    side.pending = 0;
  }
  const resourceSide = resource.side(direction);
  if (resourceSide.pending > 0) {
    const units = resourceSide.pending;
    resourceSide.adaptive?.drawClamped(units);
    resourceSide.maxOnDemand?.take(units);
    resourceSide.quota?.take(units);
    if (large) {
      resourceSide.scalingBank?.take(units);
    } else {
      resourceSide.scaling?.take(units);
      resourceSide.scalingBank?.drawClamped(units);
    }
    resourceSide.consumed.add(units);
    resourceSide.pending = 0;
  }
}

function unstage(demand: Demand): void {
  demand.partition.side(demand.direction).pending = 0;
  const resourceSide = demand.resource.side(demand.direction);
  resourceSide.pending = 0;
  resourceSide.large = false;
}

function countThrottle(demand: Demand): void {
  demand.partition.side(demand.direction).throttleEvents++;
  demand.resource.side(demand.direction).throttleEvents++;
}

function verdictFor(resource: ResourceCapacity, partitionId: number, direction: Direction, limit: LimitType, demandIndex: number, backPressure: boolean): ThrottleVerdict {
  return {
    reason: throttleReason(resource.kind, direction, limit),
    kind: resource.kind,
    direction,
    limit,
    billing: resource.billingMode,
    resourceArn: resource.arn,
    partitionId,
    demandIndex,
    backPressure,
  };
}

export function throttleReason(kind: ResourceKind, direction: Direction, limit: LimitType): ThrottleReason {
  return `${kind}${direction === 'read' ? 'Read' : 'Write'}${limit}`;
}

function directionStats(side: PartitionDirection, nowMs: number): DirectionCapacityStats {
  side.allocation.refill(nowMs);
  side.consumed.advance(nowMs);
  return {
    allocatedUnitsPerSecond: side.allocation.ratePerSecond,
    consumedUnitsLastSecond: side.consumed.lastSecondUnits(),
    consumedUnitsLastMinute: side.consumed.lastMinuteUnits(),
    burstBalanceUnits: side.allocation.tokens,
    adaptiveUnitsTotal: side.adaptiveUnitsTotal,
    throttleEvents: side.throttleEvents,
  };
}

/** Ends a continuous drain of `units` from a bucket (if there is one). */
function spendAccrued(bucket: TokenBucket | undefined, units: number, nowMs: number): void {
  if (bucket !== undefined) bucket.settle(bucket.accrued(nowMs) - units, nowMs);
}

/** The ceiling reserve: `ceilingReserveSeconds` of the ceiling, filled by the ceiling bucket's overflow only (rate 0); a new partition is rested, so it starts full. */
function reserveBucket(ceilingUnitsPerSecond: number, settings: CapacitySettings, nowMs: number): TokenBucket {
  const units = ceilingUnitsPerSecond * settings.ceilingReserveSeconds;
  return new TokenBucket(0, units, units, nowMs);
}

function capAllocation(unitsPerSecond: number, ceiling: number): number {
  assert(Number.isFinite(unitsPerSecond) && unitsPerSecond >= 0, 'an allocation must be finite and >= 0');
  return Math.min(unitsPerSecond, ceiling);
}

/** `count` leading demands of a list (a reused list, demands.ts, holds stale ones after them). */
function assertCount(demands: readonly Demand[], count: number): void {
  assert(Number.isInteger(count) && count >= 0 && count <= demands.length, 'a demand count must be within its list');
}

function assertUnits(units: number): void {
  assert(Number.isFinite(units) && units >= 0, 'demanded units must be finite and >= 0');
}

function assertSettings(settings: CapacitySettings): void {
  for (const [name, value] of Object.entries(settings)) {
    if (typeof value === 'number') assert(Number.isFinite(value) && value >= 0, `capacity setting ${name} must be finite and >= 0`);
  }
  assert(settings.partitionReadUnitsPerSecondMax > 0 && settings.partitionWriteUnitsPerSecondMax > 0, 'partition ceilings must be > 0');
  assert(settings.onDemandInitialPeakReadUnitsPerSecond > 0 && settings.onDemandInitialPeakWriteUnitsPerSecond > 0, 'initial on-demand peaks must be > 0');
  assert(
    Number.isInteger(settings.onDemandPeakSustainSeconds) && settings.onDemandPeakSustainSeconds >= 1 && settings.onDemandPeakSustainSeconds <= 60,
    'onDemandPeakSustainSeconds must be a whole number from 1 to 60',
  );
  assert(settings.partitionCeilingMode === 'independent' || settings.partitionCeilingMode === 'combined', 'partitionCeilingMode is independent or combined');
  assert(settings.adaptiveCapacity === 'auto' || settings.adaptiveCapacity === 'on' || settings.adaptiveCapacity === 'off', 'adaptiveCapacity is auto, on or off');
}
