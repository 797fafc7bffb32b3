/**
 * Warm throughput (reference §4.4; docs/CAPACITY-MODEL.md §12) as CreateTable and UpdateTable check
 * it, for tables and GSIs, with DynamoDB's texts.
 *
 * The texts were observed on DynamoDB (docs/CONFORMANCE.md, "Warm throughput"): the floors at
 * creation (the on-demand initial throughput, the provisioned units), the refusal of a decrease
 * (any value below what DescribeTable reports, equal is accepted), the per-table maximum, a GSI
 * update that names no member. Where only one variant was seen (the read member, the table), the
 * others follow the same pattern (marked ⚠ below).
 */
import type { WarmThroughputRecord } from '../engine/table.js';
import { limitExceeded, validationError } from '../errors.js';
import { INVALID } from './control-plane-common.js';

/** What a new on-demand table or GSI serves at once (AWS: "initial throughput for OnDemand"). */
export const ON_DEMAND_INITIAL_WARM = { read: 12_000, write: 4_000 } as const;

/** The account's per-table maximum (DescribeLimits' TableMaxRead/WriteCapacityUnits): warm throughput and on-demand maxima may not exceed it. */
export const WARM_UNITS_PER_SECOND_MAX = 40_000;

const ON_DEMAND_INITIAL_PAGE =
  'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html#on-demand-capacity-mode-initial';

/** Per direction, a floor or a current value to compare a requested warm throughput with. */
export interface UnitsPerDirection {
  readonly read: number;
  readonly write: number;
}

/** "table", or "index <name>": how the texts name what is being warmed. */
export type WarmSubject = 'table' | { readonly index: string };

const MEMBERS = [
  ['ReadUnitsPerSecond', 'read', 'ReadCapacityUnits', 'TableMaxReadCapacityUnits'],
  ['WriteUnitsPerSecond', 'write', 'WriteCapacityUnits', 'TableMaxWriteCapacityUnits'],
] as const;

function subjectText(subject: WarmSubject): string {
  return subject === 'table' ? 'table' : `index ${subject.index}`;
}

/**
 * The request's WarmThroughput, or undefined when absent or empty: DynamoDB treats `{}` as absent
 * at CreateTable and beside other UpdateTable changes (alone it answers HTTP 500, which dynatwin
 * does not copy: `{}` alone is "nothing to update").
 */
export function warmThroughputOf(value: WarmThroughputRecord | undefined): WarmThroughputRecord | undefined {
  if (value === undefined || (value.ReadUnitsPerSecond === undefined && value.WriteUnitsPerSecond === undefined)) return undefined;
  return value;
}

/**
 * A GSI's `Update.WarmThroughput` must name a member (checked before the table is looked up, as
 * DynamoDB does); undefined when absent.
 */
export function indexWarmUpdateOf(value: WarmThroughputRecord | undefined, indexName: string): WarmThroughputRecord | undefined {
  if (value === undefined) return undefined;
  if (warmThroughputOf(value) !== undefined) return value;
  throw validationError(INVALID + `WarmThroughput must have at least one of ReadUnitsPerSecond or WriteUnitsPerSecond specified for index: ${indexName}`);
}

/**
 * CreateTable: an on-demand table or GSI is warm to its initial throughput from the start, a
 * provisioned one to its provisioned units; a requested value below that is refused. ⚠ The
 * provisioned variant was seen for the table's read member only.
 */
export function checkWarmAtCreation(warm: WarmThroughputRecord | undefined, subject: WarmSubject, provisioned: UnitsPerDirection | undefined): void {
  if (warm === undefined) return;
  for (const [member, direction, capacityMember] of MEMBERS) {
    const units = warm[member];
    if (units === undefined) continue;
    const floor = provisioned === undefined ? ON_DEMAND_INITIAL_WARM[direction] : provisioned[direction];
    if (units >= floor) continue;
    const below = provisioned === undefined ? `initial throughput for OnDemand. See: ${ON_DEMAND_INITIAL_PAGE}` : `${capacityMember} of ProvisionedThroughput`;
    throw validationError(INVALID + `Requested ${member} for WarmThroughput for ${subjectText(subject)} is lower than ${below}`);
  }
}

/** UpdateTable: warm throughput never decreases; a value below the current one is refused, an equal one accepted. */
export function checkWarmNotLower(warm: WarmThroughputRecord | undefined, subject: WarmSubject, current: UnitsPerDirection): void {
  if (warm === undefined) return;
  for (const [member, direction] of MEMBERS) {
    const units = warm[member];
    if (units === undefined || units >= current[direction]) continue;
    throw validationError(
      INVALID + `Requested ${member} for WarmThroughput for ${subjectText(subject)} is lower than current WarmThroughput, decreasing WarmThroughput is not supported`,
    );
  }
}

/**
 * Warm throughput above the account's per-table maximum is a LimitExceededException. ⚠ Seen for
 * a GSI's read member; the table's and the write member's texts follow its pattern.
 */
export function checkWarmMaximum(warm: WarmThroughputRecord | undefined, subject: WarmSubject, region: string): void {
  if (warm === undefined) return;
  for (const [member, , , quotaName] of MEMBERS) {
    const units = warm[member];
    if (units === undefined || units <= WARM_UNITS_PER_SECOND_MAX) continue;
    throw limitExceeded(`Subscriber limit exceeded: Requested ${member} for WarmThroughput for ${subjectText(subject)} exceeds ${quotaName} of the account in region ${region}`);
  }
}

/** Warm throughput never falls: the larger of what was pre-warmed and what is asked, per direction. */
export function raisedWarmThroughput(current: WarmThroughputRecord | undefined, requested: WarmThroughputRecord | undefined): WarmThroughputRecord | undefined {
  if (requested === undefined) return current;
  const read = Math.max(current?.ReadUnitsPerSecond ?? 0, requested.ReadUnitsPerSecond ?? 0);
  const write = Math.max(current?.WriteUnitsPerSecond ?? 0, requested.WriteUnitsPerSecond ?? 0);
  return { ...(read > 0 ? { ReadUnitsPerSecond: read } : {}), ...(write > 0 ? { WriteUnitsPerSecond: write } : {}) };
}
