/**
 * Test support for the admission model: resources with ARNs, and a load generator that steps a
 * simulated clock (no real time passes) and counts what was admitted and refused.
 */
import {
  admit,
  ResourceCapacity,
  type CapacitySettings,
  type Demand,
  type Direction,
  type PartitionCapacity,
  type ResourceBilling,
  type ThrottleVerdict,
} from '../../src/capacity/admission.js';

/** Simulations start at a round epoch time, far from 0, like a ManualClock at start-up. */
export const START_MS = 1_767_225_600_000;
export const SECOND_MS = 1000;
export const MINUTE_MS = 60_000;

export function tableArn(table: string): string {
  return `arn:aws:dynamodb:us-east-1:000000000000:table/${table}`;
}

export function indexArn(table: string, index: string): string {
  return `${tableArn(table)}/index/${index}`;
}

export function provisioned(readUnitsPerSecond: number, writeUnitsPerSecond: number): ResourceBilling {
  return { mode: 'provisioned', readUnitsPerSecond, writeUnitsPerSecond };
}

export const ON_DEMAND: ResourceBilling = { mode: 'on-demand' };

export function tableCapacity(name: string, billing: ResourceBilling, nowMs = START_MS, settings: Partial<CapacitySettings> = {}): ResourceCapacity {
  return new ResourceCapacity({ arn: tableArn(name), kind: 'Table', billing, settings, nowMs });
}

export function indexCapacity(table: string, index: string, billing: ResourceBilling, nowMs = START_MS, settings: Partial<CapacitySettings> = {}): ResourceCapacity {
  return new ResourceCapacity({ arn: indexArn(table, index), kind: 'Index', billing, settings, nowMs });
}

/**
 * `count` partitions with the allocation a partition map gives them: provisioned throughput split
 * evenly (the ceiling caps it inside ResourceCapacity), or the ceiling when on-demand.
 */
export function evenPartitions(resource: ResourceCapacity, count: number, readUnitsPerSecond: number, writeUnitsPerSecond: number, nowMs = START_MS): PartitionCapacity[] {
  const partitions: PartitionCapacity[] = [];
  for (let id = 0; id < count; id++) partitions.push(resource.partitionCapacity(id, readUnitsPerSecond / count, writeUnitsPerSecond / count, nowMs));
  return partitions;
}

export function demand(partition: PartitionCapacity, direction: Direction, units: number): Demand {
  return { resource: partition.resource, partition, direction, units };
}

export interface Tally {
  admitted: number;
  refused: number;
  firstRefusalMs: number | undefined;
  lastVerdict: ThrottleVerdict | undefined;
}

export function newTally(): Tally {
  return { admitted: 0, refused: 0, firstRefusalMs: undefined, lastVerdict: undefined };
}

/** Offers the same request `times` times at `nowMs`; counts into `tally` (admitted counts requests). */
export function offer(request: readonly Demand[], times: number, nowMs: number, tally: Tally): void {
  for (let count = 0; count < times; count++) {
    const verdict = admit(request, nowMs);
    if (verdict === undefined) {
      tally.admitted++;
    } else {
      tally.refused++;
      tally.lastVerdict = verdict;
      tally.firstRefusalMs ??= nowMs;
    }
  }
}

/** Calls `step(nowMs)` every `stepMs` from `fromMs` (inclusive) to `toMs` (exclusive). */
export function simulate(fromMs: number, toMs: number, stepMs: number, step: (nowMs: number) => void): void {
  for (let nowMs = fromMs; nowMs < toMs; nowMs += stepMs) step(nowMs);
}

/** |actual − expected| ≤ tolerance × expected. */
export function within(actual: number, expected: number, tolerance: number): boolean {
  return Math.abs(actual - expected) <= tolerance * Math.abs(expected);
}
