/**
 * Findings: what a reviewer would say about a variant after its run, each under a stable code
 * (docs/SCENARIOS.md lists them). Pure: reads a VariantResult, answers findings.
 *
 * - LOW_CARDINALITY_GSI_KEY: a GSI whose partition key took few values, so one value's writes
 *   all land on one GSI partition and its ceiling caps the table's write rate.
 * - HOT_KEY_AT_PARTITION_CEILING: a partition held at its ceiling, with throttles, by one key.
 * - PARTITION_AT_CEILING: the same without a single key that explains it.
 */
import type { ResourceSeries, VariantResult } from './runner.js';

export type FindingCode = 'LOW_CARDINALITY_GSI_KEY' | 'HOT_KEY_AT_PARTITION_CEILING' | 'PARTITION_AT_CEILING';

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

export function findingsOf(result: VariantResult): Finding[] {
  const findings: Finding[] = [];
  const flagged = new Set<string>();
  for (const resource of result.resources) {
    const lowCardinality = lowCardinalityFinding(result, resource);
    if (lowCardinality !== undefined) {
      findings.push(lowCardinality);
      flagged.add(resource.name);
    }
  }
  for (const resource of result.resources) {
    if (flagged.has(resource.name)) continue;
    const hot = ceilingFinding(result, resource);
    if (hot !== undefined) findings.push(hot);
  }
  return findings;
}

function lowCardinalityFinding(result: VariantResult, resource: ResourceSeries): Finding | undefined {
  if (resource.kind !== 'index') return undefined;
  const keys = result.keys[resource.name];
  if (keys === undefined || keys.distinct === undefined || keys.distinct > LOW_CARDINALITY_VALUES_MAX || keys.total < SAMPLE_MIN) return undefined;
  const top = keys.top[0]!;
  const tableName = resource.name.split('/')[0]!;
  const tableKeys = result.keys[tableName];
  // Items the index holds, of all the table's items drawn (a sparse index holds fewer).
  const indexedShare = tableKeys === undefined || tableKeys.total === 0 ? 1 : Math.min(1, keys.total / tableKeys.total);
  const unitsPerItem = result.itemWriteUnitsMean;
  const ceilingUnits = result.partitionWriteUnitsMax;
  // The table write rate at which this value's GSI partition reaches its ceiling.
  const ceilingItemsPerSecond = ceilingUnits / (unitsPerItem * top.share * indexedShare);
  const valuePeakUnits = result.offeredPeakPerSecond * indexedShare * top.share * unitsPerItem;
  const shards = shardCount(valuePeakUnits, ceilingUnits);
  const throttleEvents = sum(resource.throttleEvents);
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
      `Write sharding: write '${attribute}' as '${top.value}#1' .. '${top.value}#${shards}' (a random suffix): K = ${shards} keeps each shard under ` +
        `${percent(SHARD_TARGET_SHARE)} of a partition's ${ceilingUnits} WCU/s at the peak of ${whole(valuePeakUnits)} WCU/s; reads then Query all ${shards} shards and merge.`,
    ],
    figures: {
      attribute,
      distinctValues: keys.distinct,
      topValue: top.value,
      topValueShare: top.share,
      ceilingItemsPerSecond,
      valuePeakWriteUnitsPerSecond: valuePeakUnits,
      recommendedShards: shards,
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
  const top = result.keys[resource.name]?.top[0];
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
