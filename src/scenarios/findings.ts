/**
 * Findings: what a reviewer would say about a variant after its run, each under a stable code
 * (docs/SCENARIOS.md lists them). Pure: reads a VariantResult, answers findings.
 *
 * - LOW_CARDINALITY_GSI_KEY: a GSI whose partition key took few values, so one value's writes
 *   all land on one GSI partition and its ceiling caps the table's write rate.
 * - HOT_KEY_AT_PARTITION_CEILING: a partition held at its ceiling, with throttles, by one key.
 * - PARTITION_AT_CEILING: the same without a single key that explains it.
 * - TIME_KEYED_GSI: a GSI keyed by a date, a timestamp or a sequence: all of the moment's writes
 *   go to the one value of the moment, so to one partition.
 * - CLASSIC_DILUTION_AFTER_SPLIT: under the classic model, a size split divided a partition's
 *   throughput and the resource throttled after it.
 * - ITEM_SIZE_NEAR_LIMIT: items refused at 400 KB, or written close to it.
 * - SCATTER_GATHER_READ_COST: a sharded read pays K queries per read.
 */
import type { OperationStats, ResourceSeries, VariantResult } from './runner.js';
import { PARTITIONS_MAX, recommendShards } from './shards.js';
import { ownValue } from '../model/own-members.js';

export type FindingCode =
  | 'LOW_CARDINALITY_GSI_KEY'
  | 'HOT_KEY_AT_PARTITION_CEILING'
  | 'PARTITION_AT_CEILING'
  | 'TIME_KEYED_GSI'
  | 'CLASSIC_DILUTION_AFTER_SPLIT'
  | 'ITEM_SIZE_NEAR_LIMIT'
  | 'SCATTER_GATHER_READ_COST'
  | 'CHEAPER_BILLING_MODE';

export interface Finding {
  readonly code: FindingCode;
  readonly severity: 'error' | 'warning';
  /** `table` or `table/index/name`. */
  readonly resource: string;
  /** One line: the problem. */
  readonly summary: string;
  /** What to do, one line each. */
  readonly fixes: readonly string[];
  /** The figures behind the finding, for the JSON output and tests. */
  readonly figures: Readonly<Record<string, number | string>>;
}

/** A GSI key with at most this many values is "few values". */
export const LOW_CARDINALITY_VALUES_MAX = 16;
/** Seconds a partition must spend at its ceiling, throttling, before it is a finding. */
export const CEILING_SECONDS_MIN = 3;
/** "At its ceiling": this share of the partition's units per second or more. */
const AT_CEILING_SHARE = 0.9;
/** Shards are sized to load each one at most this share of a partition's ceiling (hash placement is uneven). */
const SHARD_TARGET_SHARE = 0.5;
/** Fewest items drawn before a key's values say anything. */
const SAMPLE_MIN = 100;
/** A low-cardinality key that never throttled is worth a warning from this share of its ceiling rate. */
const LOW_CARDINALITY_WARNING_LOAD = 0.5;
/** Write units of one item from which it is "close to 400 KB" (300 KB). */
export const ITEM_NEAR_LIMIT_WRITE_UNITS = 300;
/** Eventually consistent Query: its least charge, even when it finds nothing. */
const QUERY_UNITS_MIN = 0.5;

/**
 * Figures measured rather than drawn (analyze.ts): a running twin's items are not drawn by a
 * generator, and Contributor Insights on a table and a GSI may cover different minutes, so the share
 * of the table's items a GSI holds comes from their item counts.
 */
export interface MeasuredFigures {
  /** By GSI (`table/index/name`): its items over the table's, 0 .. 1. */
  readonly indexedShares?: Readonly<Record<string, number>>;
}

export function findingsOf(result: VariantResult, measured: MeasuredFigures = {}): Finding[] {
  const findings: Finding[] = [];
  const flagged = new Set<string>();
  for (const resource of result.resources) {
    const lowCardinality = lowCardinalityFinding(result, resource, measured);
    if (lowCardinality !== undefined) {
      findings.push(lowCardinality);
      flagged.add(resource.name);
    }
  }
  for (const resource of result.resources) {
    const timeKeyed = timeKeyedFinding(result, resource);
    if (timeKeyed === undefined) continue;
    findings.push(timeKeyed);
    flagged.add(resource.name);
  }
  for (const resource of result.resources) {
    const dilution = dilutionFinding(result, resource);
    if (dilution === undefined) continue;
    findings.push(dilution);
    flagged.add(resource.name);
  }
  for (const resource of result.resources) {
    if (flagged.has(resource.name)) continue;
    const hot = ceilingFinding(result, resource);
    if (hot !== undefined) findings.push(hot);
  }
  findings.push(...itemSizeFindings(result));
  for (const operation of result.operations) {
    const scatter = scatterGatherFinding(result, operation);
    if (scatter !== undefined) findings.push(scatter);
  }
  return findings;
}

function lowCardinalityFinding(result: VariantResult, resource: ResourceSeries, measured: MeasuredFigures): Finding | undefined {
  if (resource.kind !== 'index') return undefined;
  const keys = ownValue(result.keys, resource.name);
  if (keys === undefined || keys.distinct === undefined || keys.distinct > LOW_CARDINALITY_VALUES_MAX || keys.total < SAMPLE_MIN) return undefined;
  const top = keys.top[0]!;
  const tableName = resource.name.split('/')[0]!;
  const tableKeys = ownValue(result.keys, tableName);
  // Items the index holds, of all the table's items drawn (a sparse index holds fewer).
  const indexedShare = measured.indexedShares?.[resource.name] ?? (tableKeys === undefined || tableKeys.total === 0 ? 1 : Math.min(1, keys.total / tableKeys.total));
  const unitsPerItem = result.itemWriteUnitsMean;
  const ceilingUnits = result.partitionWriteUnitsMax;
  // The table write rate at which this value's GSI partition reaches its ceiling.
  const ceilingItemsPerSecond = ceilingUnits / (unitsPerItem * top.share * indexedShare);
  const valuePeakUnits = result.offeredPeakPerSecond * indexedShare * top.share * unitsPerItem;
  const partitions = resource.partitionCount.at(-1) ?? 1;
  // The same K as `dynatwin shards --partitions N` for the GSI's partitions: one number for one question.
  const shards = placementShards(partitions);
  const throttleEvents = sum(resource.throttleEvents);
  // Few values that carry little load are a design choice (a sharded key), not a problem yet.
  if (throttleEvents === 0 && result.offeredPeakPerSecond < LOW_CARDINALITY_WARNING_LOAD * ceilingItemsPerSecond) return undefined;
  const attribute = resource.partitionKey;
  const when = result.firstThrottleSeconds === undefined ? '' : `; the first throttle came at ${round(result.firstThrottleSeconds)} s`;
  return {
    code: 'LOW_CARDINALITY_GSI_KEY',
    severity: throttleEvents > 0 ? 'error' : 'warning',
    resource: resource.name,
    summary:
      `GSI partition key '${attribute}' took ${keys.distinct} value${keys.distinct === 1 ? '' : 's'}; '${top.value}' is ${percent(top.share)} of the index's writes, ` +
      `so one GSI partition (${ceilingUnits} WCU/s) caps the table at about ${whole(ceilingItemsPerSecond)} items/s` +
      ` (offered up to ${whole(result.offeredPeakPerSecond)}/s${when}).`,
    fixes: [
      `Sparse index keyed per item: key the GSI by an attribute unique to each item (e.g. a copy of the table key, as '${attribute === 'status' ? 'unUsedId' : attribute + 'Id'}'), ` +
        `set only while the item is in the state you query and removed on the transition; Query or Scan the index to list those items.`,
      shardingFix(attribute, top.value, shards, partitions, valuePeakUnits, ceilingUnits),
    ],
    figures: {
      attribute,
      distinctValues: keys.distinct,
      topValue: top.value,
      topValueShare: top.share,
      ceilingItemsPerSecond,
      valuePeakWriteUnitsPerSecond: valuePeakUnits,
      indexPartitions: partitions,
      recommendedShards: shards ?? 0,
      throttleEvents,
    },
  };
}

function ceilingFinding(result: VariantResult, resource: ResourceSeries): Finding | undefined {
  const writes = sum(resource.consumedWriteUnits) > 0;
  const ceilingUnits = writes ? result.partitionWriteUnitsMax : result.partitionReadUnitsMax;
  let secondsAtCeiling = 0;
  let unitsAtCeiling = 0;
  let resourceUnitsAtCeiling = 0;
  let partitionUnitsPeak = 0;
  resource.hottestPartitionUnits.forEach((units, second) => {
    if (units >= AT_CEILING_SHARE * ceilingUnits && (resource.throttleEvents[second] ?? 0) > 0) {
      secondsAtCeiling++;
      unitsAtCeiling += units;
      resourceUnitsAtCeiling += writes ? resource.consumedWriteUnits[second]! : resource.consumedReadUnits[second]!;
      partitionUnitsPeak = Math.max(partitionUnitsPeak, units);
    }
  });
  if (secondsAtCeiling < CEILING_SECONDS_MIN) return undefined;
  const direction = writes ? 'WCU' : 'RCU';
  const throttleEvents = sum(resource.throttleEvents);
  const top = ownValue(result.keys, resource.name)?.top[0];
  // Does the top key alone carry at least half of what the hot partition served?
  const keyUnits = top === undefined ? 0 : top.share * resourceUnitsAtCeiling;
  const figures = { secondsAtCeiling, partitionUnitsPeak, ceilingUnits, throttleEvents };
  if (top !== undefined && keyUnits >= 0.5 * unitsAtCeiling) {
    const keyPeakUnits = (keyUnits / secondsAtCeiling) * (partitionUnitsPeak / (unitsAtCeiling / secondsAtCeiling));
    const shards = shardCount(keyPeakUnits, ceilingUnits);
    return {
      code: 'HOT_KEY_AT_PARTITION_CEILING',
      severity: 'error',
      resource: resource.name,
      summary:
        `Key '${resource.partitionKey}' = '${top.value}' (${percent(top.share)} of requests) held one partition at its ${ceilingUnits} ${direction}/s ceiling ` +
        `for ${secondsAtCeiling} s, with ${whole(throttleEvents)} throttle events.`,
      fixes: writes
        ? [
            `Write sharding: spread '${top.value}' over K = ${shards} keys ('${top.value}#1' .. '#${shards}', a random or computed suffix), reading all K and merging.`,
            'If it is a counter or a latest-value item, aggregate in the application and write less often.',
          ]
        : [
            `Cache the hot item (DAX or in the application), or copy it to K = ${shards} keys and read a random copy.`,
            'Eventually consistent reads cost half the units of strongly consistent ones.',
          ],
      figures: { ...figures, key: top.value, keyShare: top.share, recommendedShards: shards },
    };
  }
  return {
    code: 'PARTITION_AT_CEILING',
    severity: 'warning',
    resource: resource.name,
    summary: `One partition stayed at its ${ceilingUnits} ${direction}/s ceiling for ${secondsAtCeiling} s (${whole(throttleEvents)} throttle events) without one key that explains it.`,
    fixes: ['Look at the keys that share the partition (Contributor Insights); a key with a time or sequence prefix concentrates writes: prefix it with a hash or a shard.'],
    figures,
  };
}

/** A generator kind (`timestamp`, `constant+timestamp` ...) that makes one value at a time. */
function timeLike(kind: string): boolean {
  const parts = kind.split('+');
  return parts.some((part) => part === 'timestamp' || part === 'sequence') && parts.every((part) => part === 'timestamp' || part === 'sequence' || part === 'constant');
}

/** The write units per second one partition of a resource may take: its ceiling, or under the classic model its share of the provisioned rate. */
function partitionWriteBudget(result: VariantResult, resource: ResourceSeries): number {
  const provisioned = result.provisioned.find((entry) => entry.name === resource.name);
  const partitions = resource.partitionCount.at(-1) ?? 1;
  if (provisioned === undefined) return result.partitionWriteUnitsMax;
  if (result.partitionModel === 'classic') return Math.min(result.partitionWriteUnitsMax, provisioned.writeUnitsPerSecond / Math.max(1, partitions));
  return Math.min(result.partitionWriteUnitsMax, provisioned.writeUnitsPerSecond);
}

function timeKeyedFinding(result: VariantResult, resource: ResourceSeries): Finding | undefined {
  if (resource.kind !== 'index') return undefined;
  const kinds = ownValue(result.keyGenerators, resource.name) ?? [];
  const timeKinds = kinds.filter(timeLike);
  if (timeKinds.length === 0) return undefined;
  const throttleEvents = sum(resource.throttleEvents);
  const attribute = resource.partitionKey;
  const budget = partitionWriteBudget(result, resource);
  const tableName = resource.name.split('/')[0]!;
  const tableKeys = ownValue(result.keys, tableName);
  const indexKeys = ownValue(result.keys, resource.name);
  const indexedShare = tableKeys === undefined || indexKeys === undefined || tableKeys.total === 0 ? 1 : Math.min(1, indexKeys.total / tableKeys.total);
  // At any moment the value of the moment takes every write the index gets.
  const peakUnits = result.offeredPeakPerSecond * indexedShare * result.itemWriteUnitsMean;
  const shards = shardCount(peakUnits, budget);
  return {
    code: 'TIME_KEYED_GSI',
    severity: throttleEvents > 0 ? 'error' : 'warning',
    resource: resource.name,
    summary:
      `GSI partition key '${attribute}' comes from the clock or a sequence (${timeKinds.join(', ')}): all of the moment's writes, up to ${whole(peakUnits)} WCU/s, go to one value and so to one partition, ` +
      `which may take ${whole(budget)} WCU/s` +
      (throttleEvents > 0 ? `; it throttled ${whole(throttleEvents)} times.` : '; it held in this run, with no margin for growth or a split.'),
    fixes: [
      `Add a suffix: write '${attribute}' as '<value>#1' .. '<value>#${shards}' (random, or computed from the item's id as the article does) and Query the ${shards} keys of a period, merging by sort key.`,
      `Or key the GSI by a high-cardinality attribute and put '${attribute}' in its sort key.`,
      'Or a table per period (a monthly table), so that each table stays small: fewer size splits, and old periods can be lowered to 1 WCU / 1 RCU.',
    ],
    figures: { attribute, generators: timeKinds.join(', '), peakWriteUnitsPerSecond: peakUnits, partitionWriteUnitsPerSecond: budget, recommendedShards: shards, throttleEvents },
  };
}

function dilutionFinding(result: VariantResult, resource: ResourceSeries): Finding | undefined {
  if (result.partitionModel !== 'classic') return undefined;
  const provisioned = result.provisioned.find((entry) => entry.name === resource.name);
  if (provisioned === undefined) return undefined;
  const counts = resource.partitionCount;
  const splitAt = counts.findIndex((count, second) => second > 0 && count > counts[second - 1]! && counts[second - 1]! > 0);
  if (splitAt < 0) return undefined;
  const throttlesAfter = sum(resource.throttleEvents.slice(splitAt));
  if (throttlesAfter === 0) return undefined;
  const before = counts[splitAt - 1]!;
  const after = counts.at(-1)!;
  const firstThrottle = resource.throttleEvents.findIndex((events, second) => second >= splitAt && events > 0);
  const allocationBefore = provisioned.writeUnitsPerSecond / before;
  // A size split divides the parent's share between its two children (reference §2.3).
  const allocationAfter = allocationBefore / 2;
  const raiseTo = Math.ceil(provisioned.writeUnitsPerSecond * (after / before));
  return {
    code: 'CLASSIC_DILUTION_AFTER_SPLIT',
    severity: 'error',
    resource: resource.name,
    summary:
      `Under the classic (pre-adaptive) model a size split at ${splitAt} s took it from ${before} to ${after} partitions; a split partition keeps half its parent's share: ` +
      `${whole(allocationBefore)} → ${whole(allocationAfter)} WCU/s of the ${whole(provisioned.writeUnitsPerSecond)} provisioned. It throttled from ${firstThrottle} s on (${whole(throttlesAfter)} events), ` +
      'though the resource as a whole stayed under its provisioned rate (CloudWatch shows consumption under provisioned, with throttled events).',
    fixes: [
      'Spread the hot key (a suffix 1..K) so every partition takes a fair share whatever the split.',
      `Or raise the provisioned write rate with the partition count (about ${whole(raiseTo)} WCU for ${after} partitions), knowing it must grow again at the next split.`,
      'Or keep tables small (a table per month): fewer splits, and no dilution from old data.',
    ],
    figures: { splitAtSecond: splitAt, partitionsBefore: before, partitionsAfter: after, allocationBeforeUnits: allocationBefore, allocationAfterUnits: allocationAfter, firstThrottleSecond: firstThrottle, throttleEvents: throttlesAfter },
  };
}

function itemSizeFindings(result: VariantResult): Finding[] {
  const byTable = new Map<string, { failures: number; largestUnits: number; operations: string[] }>();
  for (const operation of result.operations) {
    if (operation.itemSizeFailures === 0 && operation.largestItemWriteUnits < ITEM_NEAR_LIMIT_WRITE_UNITS) continue;
    const entry = byTable.get(operation.table) ?? { failures: 0, largestUnits: 0, operations: [] };
    entry.failures += operation.itemSizeFailures;
    entry.largestUnits = Math.max(entry.largestUnits, operation.largestItemWriteUnits);
    entry.operations.push(operation.name);
    byTable.set(operation.table, entry);
  }
  return [...byTable].map(([table, entry]) => ({
    code: 'ITEM_SIZE_NEAR_LIMIT' as const,
    severity: entry.failures > 0 ? ('error' as const) : ('warning' as const),
    resource: table,
    summary:
      (entry.failures > 0 ? `${whole(entry.failures)} writes (${entry.operations.join(', ')}) were refused: the item would pass DynamoDB's 400 KB item limit` : `Items written by ${entry.operations.join(', ')} come close to the 400 KB item limit`) +
      (entry.largestUnits > 0 ? `; the largest accepted took ${whole(entry.largestUnits)} write units (about ${whole(entry.largestUnits)} KB), and every rewrite of it pays that again.` : '.'),
    fixes: [
      "Split the list into chunk items under the same partition key (sort key 1, 2, 3 …) with a 'nextSequence' pointer item, so no item grows with the data.",
      'Or keep one item per element (a target per user) and the list only as a read-only index; or keep large payloads in S3 with a pointer.',
    ],
    figures: { itemSizeFailures: entry.failures, largestItemWriteUnits: entry.largestUnits },
  }));
}

function scatterGatherFinding(result: VariantResult, operation: OperationStats): Finding | undefined {
  if (operation.kind !== 'ShardedQuery' || operation.accepted === 0) return undefined;
  const k = operation.shardsPerRead;
  const readUnitsPerRead = operation.readUnits / operation.accepted;
  const itemsPerRead = operation.itemsReturned / operation.accepted;
  const callsPerRead = operation.calls / operation.accepted;
  const index = result.resources.find((resource) => resource.kind === 'index' && resource.name.startsWith(`${operation.table}/index/`) && ownValue(result.keyGenerators, resource.name)?.some((kind) => kind.includes('shard')));
  const partitions = index?.partitionCount.at(-1) ?? 1;
  const recommended = placementShards(partitions) ?? k;
  return {
    code: 'SCATTER_GATHER_READ_COST',
    severity: 'warning',
    resource: operation.table,
    summary:
      `Each '${operation.name}' read queries all ${k} shards and merges them: ${round(callsPerRead)} queries, ${round(readUnitsPerRead)} read units and ${round(itemsPerRead)} items per read ` +
      `(at least ${round(k * QUERY_UNITS_MIN)} units however few items the shards hold).`,
    fixes: [
      `Use the fewest shards that spread the writes: over ${partitions} partition${partitions === 1 ? '' : 's'}, K = ${recommended} keeps the hottest partition under 1.5× its fair share with 95% probability (dynatwin shards --partitions ${partitions}).`,
      'Weight the shards per value (hot values more shards, cold ones fewer), and Query the shards in parallel: the latency is one query, the units are K.',
    ],
    figures: { shards: k, queriesPerRead: callsPerRead, readUnitsPerRead, itemsPerRead, indexPartitions: partitions, recommendedShardsForPartitions: recommended },
  };
}

/**
 * The K random shards `dynatwin shards --partitions N` recommends (the hottest partition under
 * 1.5× its fair share with 95% probability, for that K and every larger one; computed exactly);
 * undefined past the partitions it computes for.
 */
export function placementShards(partitions: number): number | undefined {
  if (partitions > PARTITIONS_MAX) return undefined;
  return recommendShards({ partitions }).recommendedShards;
}

/** LOW_CARDINALITY_GSI_KEY's sharding fix: K over the GSI's partitions, and what its hottest then carries. */
function shardingFix(attribute: string, value: string, shards: number | undefined, partitions: number, peakUnits: number, ceilingUnits: number): string {
  const command = `dynatwin shards --partitions ${partitions}`;
  if (partitions === 1) return `Write sharding cannot spread '${value}' while the GSI has one partition: every shard lands on it; more partitions (a higher write capacity, or on-demand's splits under sustained load) come first (${command}).`;
  if (shards === undefined) return `Write sharding: write '${attribute}' as '${value}#1' .. '${value}#K' (a random suffix) with K many times the GSI's ${partitions} partitions, and Query all K shards and merge.`;
  // With K shards the hottest partition carries at most 1.5× its fair share (1/N of the value's writes), 95 times in 100.
  const hottestUnits = (1.5 * peakUnits) / partitions;
  const room =
    hottestUnits <= ceilingUnits
      ? `at the peak of ${whole(peakUnits)} WCU/s that is at most ${whole(hottestUnits)} of a partition's ${ceilingUnits} WCU/s`
      : `at the peak of ${whole(peakUnits)} WCU/s that is still ${whole(hottestUnits)} WCU/s, over a partition's ${ceilingUnits}: the GSI needs more partitions too`;
  return (
    `Write sharding: write '${attribute}' as '${value}#1' .. '${value}#${shards}' (a random suffix): over the GSI's ${partitions} partitions, K = ${shards} keeps the hottest under 1.5× its fair share ` +
    `with 95% probability (${command}); ${room}. Reads then Query all ${shards} shards and merge.`
  );
}

/** Shards that keep each under SHARD_TARGET_SHARE of a partition's ceiling, at least 2. */
export function shardCount(peakUnitsPerSecond: number, ceilingUnitsPerSecond: number): number {
  return Math.max(2, Math.ceil(peakUnitsPerSecond / (SHARD_TARGET_SHARE * ceilingUnitsPerSecond)));
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

function percent(share: number): string {
  return `${round(share * 100)}%`;
}

function round(value: number): string {
  return value >= 100 ? String(Math.round(value)) : String(Math.round(value * 10) / 10);
}

function whole(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}
