/**
 * The admit step as the write and read paths call it: build the request's demands (demands.ts),
 * settle them (admit or refuse, then record), and turn a refusal into DynamoDB's throttle error.
 * Writes call it inside their storage write, after planning and before the first put, so a
 * throttled write changes nothing (Storage contract: all checks before the first put).
 *
 * The single-item paths (admitRead, admitTogether) take a pooled list and fill it themselves
 * rather than through a `build` callback: a closure and its context per request, for GetItem and
 * PutItem, is allocation a request does not need.
 */
import { RequestUnits, type ThrottleVerdict } from '../capacity/admission.js';
import { throttleError } from '../capacity/throttle-errors.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { Demands } from './demands.js';
import type { Engine } from './engine.js';
import type { ResourcePartitions } from './partition-tracker.js';
import type { KeyShape } from './table.js';
import type { WritePlan } from './write-pipeline.js';

/** Settles demands built by `build`; throws the throttle error when refused. */
export function admitOrThrow(engine: Engine, build: (demands: Demands) => void): void {
  const verdict = settle(engine, build);
  if (verdict !== undefined) throw throttleError(verdict);
}

/**
 * Settles demands built by `build`; the verdict when refused (batches report it per item, each
 * judged by the whole batch's `request`: a large request is paid from the burst banks).
 */
export function settle(engine: Engine, build: (demands: Demands) => void, request?: RequestUnits): ThrottleVerdict | undefined {
  const pool = engine.demandsPool;
  const demands = pool.take(engine.clock.nowMs());
  try {
    build(demands);
    return settleDemands(engine, demands, request);
  } finally {
    pool.give(demands);
  }
}

/** Admits (or refuses) `demands` and records the outcome, as the engine's settings say. */
function settleDemands(engine: Engine, demands: Demands, request?: RequestUnits): ThrottleVerdict | undefined {
  return demands.settle(engine.capacityEnforced, engine.metricsEnabled ? engine.capacityRecorder : undefined, request);
}

/**
 * What a whole batch asks each table and GSI, before its items are admitted one by one: a batch
 * asking more than a partition's second is a large request (capacity/admission.ts RequestUnits).
 */
export function requestUnitsOf(engine: Engine, build: (demands: Demands) => void): RequestUnits {
  const demands = new Demands(engine.clock.nowMs());
  build(demands);
  const request = new RequestUnits();
  demands.addTo(request);
  return request;
}

/**
 * Runs a batch whose items are admitted one by one (each settle call) so that the metrics still
 * get one Consumed* sample per request and resource, as CloudWatch counts them.
 */
export function asOneRequest<T>(engine: Engine, run: () => T): T {
  const recorder = engine.metricsEnabled ? engine.capacityRecorder : undefined;
  if (recorder === undefined) return run();
  recorder.deferSamples();
  try {
    return run();
  } finally {
    recorder.flushSamples(engine.clock.nowMs());
  }
}

/**
 * Admits the demands of every plan together (a single-item write, a transaction): the verdict and
 * the index of the plan whose demand was refused, or undefined when all are admitted.
 */
export function admitTogether(engine: Engine, plans: readonly WritePlan[]): { readonly verdict: ThrottleVerdict; readonly planIndex: number } | undefined {
  const pool = engine.demandsPool;
  const demands = pool.take(engine.clock.nowMs());
  let verdict: ThrottleVerdict | undefined;
  let demandOwners: number[] | undefined;
  try {
    if (plans.length === 1) {
      demands.write(plans[0]!);
    } else {
      demandOwners = [];
      for (let index = 0; index < plans.length; index++) {
        demands.write(plans[index]!);
        while (demandOwners.length < demands.count) demandOwners.push(index);
      }
    }
    verdict = settleDemands(engine, demands);
  } finally {
    pool.give(demands);
  }
  if (verdict === undefined) return undefined;
  return { verdict, planIndex: demandOwners === undefined ? 0 : demandOwners[verdict.demandIndex]! };
}

/**
 * Admits one plan on its own (an item of a batch, judged by the whole batch's `request`); the
 * verdict when refused. `scratch` (batchDemands) is reused from item to item of one request.
 */
export function admitAlone(engine: Engine, plan: WritePlan, request: RequestUnits | undefined, scratch: Demands): ThrottleVerdict | undefined {
  scratch.reset();
  scratch.write(plan);
  return settleDemands(engine, scratch, request);
}

/** The demands a batch's items are admitted with one by one (admitAlone): one list, one instant. */
export function batchDemands(engine: Engine): Demands {
  return new Demands(engine.clock.nowMs());
}

/**
 * A write whose condition failed still consumes write capacity (reference §1.4 model rule): the
 * stored item's size rounded up to 1 KB, at least 1 unit; no index is written. `check` is the
 * plan of that charge (write-pipeline.ts planCheck). Throttled, it answers the throttle instead of
 * the condition failure.
 */
export function admitFailedCondition(engine: Engine, check: WritePlan): void {
  admitOrThrow(engine, (demands) => demands.write(check));
}

/**
 * A read of `units` on the partition owning `storageKey` (GetItem, a Query page, a Scan page),
 * counted by Contributor Insights under `item`'s key of shape `shape` when given. Throws the
 * throttle error when refused.
 */
export function admitRead(engine: Engine, partitions: ResourcePartitions, storageKey: Uint8Array, units: number, item?: AttributeMap, shape?: KeyShape): void {
  const pool = engine.demandsPool;
  const demands = pool.take(engine.clock.nowMs());
  let verdict: ThrottleVerdict | undefined;
  try {
    demands.read(partitions, storageKey, units, item, shape);
    verdict = settleDemands(engine, demands);
  } finally {
    pool.give(demands);
  }
  if (verdict !== undefined) throw throttleError(verdict);
}
