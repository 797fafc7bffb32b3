/**
 * How many random shards K a hot key (or a low-cardinality GSI key) needs over N partitions.
 *
 * A shard key (`value#1` .. `value#K`) lands where its hash falls: for keys with random suffixes,
 * anywhere in the hash space, so on one of N equal partitions at random. With few shards per
 * partition the luck of the draw puts more shards on one partition than on another: the hottest
 * partition then carries more than its fair share (1/N of the traffic). This module estimates, by
 * simulating that placement many times (not by a formula), the probability that the hottest
 * partition carries more than `threshold` × its fair share, and finds the smallest K that keeps
 * the probability under `target`. Values of different traffic (a hot `succeeded` status, a cold
 * `failed`) get shard counts in proportion to their weights, so every shard carries about as much.
 *
 * Pure: a seeded random source, the same answer for the same input.
 */
import { Random } from './generators.js';

export const PARTITIONS_MAX = 10_000;
export const SHARDS_SEARCH_MAX = 100_000;
export const TRIALS_MAX = 1_000_000;

export interface ShardQuestion {
  /** Partitions of the GSI (or table) the keys spread over. */
  readonly partitions: number;
  /** Traffic weight per value (e.g. `{ succeeded: 35, failed: 10 }`); one value of weight 1 if absent. */
  readonly weights?: Readonly<Record<string, number>>;
  /** "Overloaded": the hottest partition carries more than this × its fair share (default 1.5). */
  readonly threshold?: number;
  /** The probability of overload to stay under (default 0.05). */
  readonly target?: number;
  /** Placements simulated per K (default 4,000). */
  readonly trials?: number;
  readonly seed?: number;
}

export interface ShardAnswer {
  readonly partitions: number;
  readonly threshold: number;
  readonly target: number;
  readonly trials: number;
  /** The smallest total K found with the probability under the target. */
  readonly recommendedShards: number;
  readonly probability: number;
  /** Shards per value at that K (in proportion to the weights, at least 1 each). */
  readonly shardsPerValue: Readonly<Record<string, number>>;
  /** The probabilities computed on the way, by K (for a table around the answer). */
  readonly probabilities: readonly { readonly shards: number; readonly probability: number }[];
}

/** Shards per value for a total of about `total`: in proportion to the weights, at least 1 each. */
export function shardsPerValue(weights: Readonly<Record<string, number>>, total: number): Record<string, number> {
  const entries = Object.entries(weights);
  const sum = entries.reduce((acc, [, weight]) => acc + weight, 0);
  return Object.fromEntries(entries.map(([value, weight]) => [value, Math.max(1, Math.round((total * weight) / sum))]));
}

/**
 * The probability, over `trials` random placements, that the hottest of `partitions` partitions
 * carries more than `threshold` × its fair share, when shard i carries `loads[i]`.
 */
export function overloadProbability(partitions: number, loads: readonly number[], threshold: number, trials: number, random: Random): number {
  if (partitions === 1) return 0;
  const total = loads.reduce((acc, load) => acc + load, 0);
  const limit = (threshold * total) / partitions;
  const perPartition = new Float64Array(partitions);
  let overloaded = 0;
  for (let trial = 0; trial < trials; trial++) {
    perPartition.fill(0);
    let hottest = 0;
    for (const load of loads) {
      const partition = Math.floor(random.next() * partitions);
      const sum = (perPartition[partition]! += load);
      if (sum > hottest) hottest = sum;
    }
    if (hottest > limit) overloaded++;
  }
  return overloaded / trials;
}

/** Per-shard loads for the values' shard counts: each shard of a value carries weight ÷ its shards. */
function loadsOf(weights: Readonly<Record<string, number>>, counts: Readonly<Record<string, number>>): number[] {
  const loads: number[] = [];
  for (const [value, weight] of Object.entries(weights)) {
    const count = counts[value]!;
    for (let index = 0; index < count; index++) loads.push(weight / count);
  }
  return loads;
}

/**
 * The smallest K with the overload probability under the target: doubles K until it is, then
 * bisects between the last K over and the first under (the probability falls with K, give or take
 * the simulation's noise, which the fixed seed makes repeatable).
 */
export function recommendShards(question: ShardQuestion): ShardAnswer {
  const partitions = question.partitions;
  const threshold = question.threshold ?? 1.5;
  const target = question.target ?? 0.05;
  const trials = question.trials ?? 4000;
  const weights = question.weights ?? { value: 1 };
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > PARTITIONS_MAX) throw new RangeError(`partitions must be a whole number from 1 to ${PARTITIONS_MAX}`);
  if (!(threshold > 1)) throw new RangeError('threshold must be above 1');
  if (!(target > 0 && target < 1)) throw new RangeError('target must be between 0 and 1');
  if (!Number.isInteger(trials) || trials < 1 || trials > TRIALS_MAX) throw new RangeError(`trials must be a whole number from 1 to ${TRIALS_MAX}`);
  const probabilities = new Map<number, number>();
  const probe = (total: number): number => {
    const known = probabilities.get(total);
    if (known !== undefined) return known;
    // The same seed for every K: the estimates differ by K, not by luck of the draw.
    const probability = overloadProbability(partitions, loadsOf(weights, shardsPerValue(weights, total)), threshold, trials, new Random(question.seed ?? 1));
    probabilities.set(total, probability);
    return probability;
  };
  const valueCount = Object.keys(weights).length;
  let low = Math.max(1, valueCount) - 1;
  let high = Math.max(1, valueCount);
  while (probe(high) >= target) {
    low = high;
    high *= 2;
    if (high > SHARDS_SEARCH_MAX) throw new RangeError(`no K up to ${SHARDS_SEARCH_MAX} keeps the probability under ${target}`);
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (probe(middle) < target) high = middle;
    else low = middle;
  }
  return {
    partitions,
    threshold,
    target,
    trials,
    recommendedShards: Object.values(shardsPerValue(weights, high)).reduce((acc, count) => acc + count, 0),
    probability: probe(high),
    shardsPerValue: shardsPerValue(weights, high),
    probabilities: [...probabilities].sort(([a], [b]) => a - b).map(([shards, probability]) => ({ shards, probability })),
  };
}
