/**
 * How many random shards K a hot key (or a low-cardinality GSI key) needs over N partitions.
 *
 * A shard key (`value#1` .. `value#K`) lands where its hash falls: for keys with random suffixes,
 * anywhere in the hash space, so on one of N equal partitions at random, each shard independently.
 * With few shards per partition the luck of the draw puts more shards on one partition than on
 * another: the hottest partition then carries more than its fair share (1/N of the traffic).
 *
 * With K equal shards, a partition holding m of them carries m/K of the traffic, so it is
 * overloaded (more than `threshold` × its fair share) when m > threshold·K/N. The probability that
 * no partition is, P(max occupancy ≤ c) for K balls in N bins, is computed exactly, not sampled:
 * the bins are filled one after another, bin i taking j of the r shards left with the binomial
 * probability C(r, j) (1/n)^j (1 − 1/n)^(r−j) (n bins left), which sums the multinomial over every
 * placement whose bins all stay at or under c.
 *
 * The probability is not monotonic in K (c = ⌊threshold·K/N⌋ moves in steps), so "the smallest K
 * under the target" would depend on where one looks. The recommendation is the smallest K from
 * which every larger K stays under the target: above K_bound = ln(N/target) / D(threshold/N ‖ 1/N)
 * Chernoff's bound (with the union bound over the N bins) keeps every K under it, and every K
 * below that is checked, going down, until one is not (the union bound N·P(one bin > c), exact and
 * cheap, settles most; the exact sum settles the rest).
 *
 * Values of different traffic (a hot `succeeded` status, a cold `failed`) share the K shards in
 * proportion to their weights, so that every shard carries about the same load: the question is
 * then the one of K equal shards.
 *
 * Pure and deterministic: the same answer for the same question.
 */

/** Beyond it an exact answer takes more than seconds (N = 256: about 10 s on one core). */
export const PARTITIONS_MAX = 256;
export const SHARDS_SEARCH_MAX = 100_000;
/** Terms (bin × state × shards taken) one exact probability may sum; bounds a question's cost. */
export const EXACT_STEPS_MAX = 200_000_000;
/** K on either side of the recommendation whose exact probabilities the answer lists. */
const NEIGHBOURS = 4;

export interface ShardQuestion {
  /** Partitions of the GSI (or table) the keys spread over. */
  readonly partitions: number;
  /** Traffic weight per value (e.g. `{ succeeded: 35, failed: 10 }`); one value of weight 1 if absent. */
  readonly weights?: Readonly<Record<string, number>>;
  /** "Overloaded": the hottest partition carries more than this × its fair share (default 1.5). */
  readonly threshold?: number;
  /** The probability of overload to stay under (default 0.05). */
  readonly target?: number;
}

export interface ShardAnswer {
  readonly partitions: number;
  readonly threshold: number;
  readonly target: number;
  /** The smallest total K from which every larger K has the probability under the target. */
  readonly recommendedShards: number;
  /** The exact probability of overload at that K. */
  readonly probability: number;
  /** Shards per value at that K (in proportion to the weights, at least 1 each). */
  readonly shardsPerValue: Readonly<Record<string, number>>;
  /** Exact probabilities of K around the answer, by K (for a table around the answer). */
  readonly probabilities: readonly { readonly shards: number; readonly probability: number }[];
}

/** Shards per value for a total of about `total`: in proportion to the weights, at least 1 each. */
export function shardsPerValue(weights: Readonly<Record<string, number>>, total: number): Record<string, number> {
  const entries = Object.entries(weights);
  const sum = entries.reduce((acc, [, weight]) => acc + weight, 0);
  return Object.fromEntries(entries.map(([value, weight]) => [value, Math.max(1, Math.round((total * weight) / sum))]));
}

/** The most shards of K a partition may hold without carrying more than `threshold` × its fair share. */
export function shardsPerPartitionMax(partitions: number, shards: number, threshold: number): number {
  // m is overloaded when m·N > threshold·K; the epsilon keeps an exact product (1.5 · 8 / 4 = 3)
  // from falling under its integer by rounding.
  return Math.floor((threshold * shards) / partitions + 1e-9);
}

/**
 * The exact probability that some partition of `partitions` holds more than `threshold` × its fair
 * share when `shards` equal shards are placed on them uniformly at random.
 */
export function overloadProbability(partitions: number, shards: number, threshold: number): number {
  const most = shardsPerPartitionMax(partitions, shards, threshold);
  if (partitions === 1 || most >= shards) return 0;
  const logFactorial = logFactorials(shards);
  // mass[r]: the probability that the bins filled so far stayed at or under `most` and left r shards.
  let mass = new Float64Array(shards + 1);
  mass[shards] = 1;
  let steps = 0;
  for (let bin = 0; bin < partitions - 1; bin++) {
    const left = partitions - bin;
    const logShare = Math.log(1 / left);
    const logRest = Math.log(1 - 1 / left);
    const next = new Float64Array(shards + 1);
    for (let remaining = 0; remaining <= shards; remaining++) {
      const weight = mass[remaining]!;
      // A state this unlikely cannot move the answer in a double's precision (all such states
      // together stay under K · N · 1e-30).
      if (weight < NEGLIGIBLE) continue;
      const top = Math.min(most, remaining);
      const term = (taken: number): number => Math.exp(logFactorial[remaining]! - logFactorial[taken]! - logFactorial[remaining - taken]! + taken * logShare + (remaining - taken) * logRest);
      // The binomial's terms rise to its mode and fall after it: walk out from the mode (or from
      // `top`, when the mode lies past it) until they are negligible beside the largest.
      const start = Math.min(top, Math.floor((remaining + 1) / left));
      const peak = term(start);
      for (let taken = start; taken >= 0; taken--) {
        const value = taken === start ? peak : term(taken);
        next[remaining - taken]! += weight * value;
        steps++;
        if (value < peak * NEGLIGIBLE) break;
      }
      for (let taken = start + 1; taken <= top; taken++) {
        const value = term(taken);
        next[remaining - taken]! += weight * value;
        steps++;
        if (value < peak * NEGLIGIBLE) break;
      }
    }
    if (steps > EXACT_STEPS_MAX) throw new RangeError(`K = ${shards} over ${partitions} partitions takes more than ${EXACT_STEPS_MAX} steps to compute exactly`);
    mass = next;
  }
  // The last bin takes every shard left.
  let fits = 0;
  for (let remaining = 0; remaining <= Math.min(most, shards); remaining++) fits += mass[remaining]!;
  return Math.min(1, Math.max(0, 1 - fits));
}

/** Below this a probability (or a term beside the largest) is left out: far under a double's 1e-16. */
const NEGLIGIBLE = 1e-30;

/** ln(k!) for k = 0 .. n. */
function logFactorials(n: number): Float64Array {
  const table = new Float64Array(n + 1);
  for (let k = 2; k <= n; k++) table[k] = table[k - 1]! + Math.log(k);
  return table;
}

/** N · P(one partition holds more than its most): an exact upper bound of overloadProbability. */
export function unionBound(partitions: number, shards: number, threshold: number): number {
  const most = shardsPerPartitionMax(partitions, shards, threshold);
  if (partitions === 1 || most >= shards) return 0;
  const logShare = Math.log(1 / partitions);
  const logRest = Math.log(1 - 1 / partitions);
  let logChoose = 0;
  let atMost = 0;
  for (let taken = 0; taken <= most; taken++) {
    if (taken > 0) logChoose += Math.log((shards - taken + 1) / taken);
    atMost += Math.exp(logChoose + taken * logShare + (shards - taken) * logRest);
  }
  return Math.min(1, partitions * Math.max(0, 1 - atMost));
}

/**
 * The K from which Chernoff's bound keeps every larger K under the target: for K ≥ it,
 * N · exp(−K · D(a ‖ p)) < target, with p = 1/N and a = threshold/N, and the bound falls with K.
 */
export function chernoffShards(partitions: number, threshold: number, target: number): number {
  const p = 1 / partitions;
  const a = threshold / partitions;
  const divergence = a * Math.log(a / p) + (1 - a) * Math.log((1 - a) / (1 - p));
  return Math.floor(Math.log(partitions / target) / divergence) + 1;
}

/**
 * The smallest K from which every larger K keeps the exact probability of overload under the
 * target (see the module's comment for how every larger K is covered).
 */
export function recommendShards(question: ShardQuestion): ShardAnswer {
  const partitions = question.partitions;
  const threshold = question.threshold ?? 1.5;
  const target = question.target ?? 0.05;
  const weights = question.weights ?? { value: 1 };
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > PARTITIONS_MAX) throw new RangeError(`partitions must be a whole number from 1 to ${PARTITIONS_MAX}`);
  if (!(threshold > 1)) throw new RangeError('threshold must be above 1');
  if (!(target > 0 && target < 1)) throw new RangeError('target must be between 0 and 1');
  const valueCount = Object.keys(weights).length;
  // A partition cannot hold more than all of it: from threshold ≥ N on, no placement overloads one.
  const bound = threshold >= partitions ? 1 : chernoffShards(partitions, threshold, target);
  if (bound > SHARDS_SEARCH_MAX) throw new RangeError(`over ${partitions} partitions the answer may lie past K = ${SHARDS_SEARCH_MAX}, beyond what is computed exactly here`);
  const exact = new Map<number, number>();
  const probabilityOf = (shards: number): number => {
    let probability = exact.get(shards);
    if (probability === undefined) {
      probability = overloadProbability(partitions, shards, threshold);
      exact.set(shards, probability);
    }
    return probability;
  };
  // Going down from the bound: the first K over the target ends the run of Ks under it.
  let shards = bound;
  while (shards > 1) {
    const below = shards - 1;
    const under = unionBound(partitions, below, threshold) < target || probabilityOf(below) < target;
    if (!under) break;
    shards = below;
  }
  // At least one shard per value, the answer is never fewer shards than values.
  const total = Math.max(shards, valueCount);
  const perValue = shardsPerValue(weights, total);
  const listed = new Map<number, number>();
  for (let k = Math.max(1, total - NEIGHBOURS); k <= total + NEIGHBOURS; k++) listed.set(k, probabilityOf(k));
  return {
    partitions,
    threshold,
    target,
    recommendedShards: Object.values(perValue).reduce((acc, count) => acc + count, 0),
    probability: probabilityOf(total),
    shardsPerValue: perValue,
    probabilities: [...listed].map(([k, probability]) => ({ shards: k, probability })),
  };
}
