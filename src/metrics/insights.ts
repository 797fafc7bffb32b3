/**
 * CloudWatch Contributor Insights for DynamoDB, per engine: the settings the three operations
 * (Update/Describe/ListContributorInsights) change and read, and the top contributors each rule
 * measures while enabled (reference: shared/docs/dynamodb-capacity-model.md §6.2).
 *
 * Rules, per table or GSI, named `DynamoDBContributorInsights-<kind>-<resource>-<creation ms>`
 * (resource = the table's name, or `<table>-<index>` for a GSI, as DynamoDB names them):
 * - PKC most accessed partition keys, SKC most accessed items (partition + sort key), measured in
 *   ConsumedThroughputUnits = read units + 3 × write units; ACCESSED_AND_THROTTLED_KEYS mode only;
 * - PKT most throttled partition keys, SKT most throttled items, measured in ThrottleCount.
 * SKC and SKT exist only for a table or GSI with a sort key.
 *
 * Each rule keeps, per minute of the injected clock, a Space-Saving sketch of fixed capacity
 * (space-saving.ts), never a map of every key; when a minute ends its top contributors are kept as
 * that minute's report, for `retentionMinutes`. Memory is bounded by the rule quota (DynamoDB
 * shares CloudWatch's 100 Contributor Insights rules per account): at most `ruleQuota` rules ×
 * (`sketchCapacity` live counters + `retentionMinutes` × `topContributors` reported ones).
 *
 * Status: UpdateContributorInsights answers ENABLING / DISABLING; the change settles (ENABLED,
 * DISABLED, or FAILED when the rule quota is exhausted) `transitionDelayMs` later on the injected
 * clock (default 0: the next Describe already sees it). Recording starts when ENABLED.
 *
 * State lives in memory only: a restart forgets it (every table reads DISABLED again), like the
 * metrics. The engine's owner calls `dropTable` / `dropIndex` when a table or GSI goes away, which
 * also releases its rules from the quota; a recreated table of the same name is recognised by its
 * internal id and starts DISABLED.
 */
import type { AttributeValue } from '../model/attribute-value.js';
import { SpaceSaving, SKETCH_CAPACITY_MAX, type Contributor } from './space-saving.js';
import { MINUTE_MS } from './series.js';

export const INSIGHTS_MODES = ['ACCESSED_AND_THROTTLED_KEYS', 'THROTTLED_KEYS'] as const;
export type InsightsMode = (typeof INSIGHTS_MODES)[number];
export type InsightsStatus = 'ENABLING' | 'ENABLED' | 'DISABLING' | 'DISABLED' | 'FAILED';
export type InsightsAction = 'ENABLE' | 'DISABLE';

/** PKC/SKC: most accessed partition keys / items; PKT/SKT: most throttled ones. In DynamoDB's list order. */
export const RULE_KINDS = ['PKC', 'SKC', 'PKT', 'SKT'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

export interface InsightsOptions {
  /** How long ENABLING / DISABLING last on the injected clock (0 to 1 hour). */
  readonly transitionDelayMs: number;
  /** Rules the whole engine may hold (CloudWatch's per-account quota is 100). */
  readonly ruleQuota: number;
  /** Counters of each rule's per-minute sketch. */
  readonly sketchCapacity: number;
  /** Contributors kept per rule per finished minute (CloudWatch reports at most 25). */
  readonly topContributors: number;
  /** Finished minutes kept per rule (1 to 1440). */
  readonly retentionMinutes: number;
}

export const DEFAULT_INSIGHTS_OPTIONS: InsightsOptions = Object.freeze({
  transitionDelayMs: 0,
  ruleQuota: 100,
  sketchCapacity: 128,
  topContributors: 25,
  retentionMinutes: 60,
});

/** A table or GSI as the operations found it in the catalog. */
export interface InsightsTarget {
  readonly table: string;
  /** A GSI's name; undefined for the table itself. */
  readonly index?: string;
  /** The table's internal id (never reused): tells a recreated table from the one CI was enabled on. */
  readonly tableId: number;
  readonly indexId?: number;
  readonly hasSortKey: boolean;
}

export interface FailureException {
  readonly ExceptionName: string;
  readonly ExceptionDescription: string;
}

const RULE_LIMIT_FAILURE: FailureException = Object.freeze({
  ExceptionName: 'LimitExceededException',
  ExceptionDescription:
    'Amazon CloudWatch Contributor Insights rule limit reached. Please disable Contributor Insights for other tables/indexes OR disable other CloudWatch Contributor Insights rules before retrying.',
});

/** DescribeContributorInsights' answer, members in DynamoDB's order. */
export interface InsightsDescription {
  readonly TableName: string;
  readonly IndexName?: string;
  readonly ContributorInsightsRuleList?: readonly string[];
  readonly ContributorInsightsStatus: InsightsStatus;
  /** Epoch seconds of the last change (its settling once settled); absent before the first change. */
  readonly LastUpdateDateTime?: number;
  readonly FailureException?: FailureException;
  readonly ContributorInsightsMode?: InsightsMode;
}

export interface InsightsSummary {
  readonly TableName: string;
  readonly IndexName?: string;
  readonly ContributorInsightsStatus: InsightsStatus;
  readonly ContributorInsightsMode?: InsightsMode;
}

export interface InsightsUpdateResult {
  readonly status: InsightsStatus;
  readonly mode: InsightsMode | undefined;
}

export interface ReportedContributor {
  /** The partition key value, then the sort key value for SKC / SKT (S and N as text, B as base64). */
  readonly keys: readonly string[];
  /** ConsumedThroughputUnits or ThrottleCount in the minute (an upper bound, see maxOverestimate). */
  readonly value: number;
  /** How much `value` may exceed the true figure (Space-Saving's error bound; 0 when exact). */
  readonly maxOverestimate: number;
}

export interface MinuteReport {
  readonly startMs: number;
  readonly Timestamp: string;
  /** False for the minute still in progress. */
  readonly complete: boolean;
  /** The measure summed over every key in the minute. */
  readonly total: number;
  readonly contributors: readonly ReportedContributor[];
}

export interface RuleReport {
  readonly ruleName: string;
  readonly kind: RuleKind;
  readonly measure: 'ConsumedThroughputUnits' | 'ThrottleCount';
  readonly minutes: readonly MinuteReport[];
}

export interface InsightsReport {
  readonly table: string;
  readonly index?: string;
  readonly status: InsightsStatus;
  readonly mode?: InsightsMode;
  readonly rules: readonly RuleReport[];
}

// ---------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------

/** A key attribute's value as text: S and N as they are, B as its base64. */
export function keyText(value: AttributeValue): string {
  if ('S' in value) return value.S;
  if ('N' in value) return value.N;
  if ('B' in value) return value.B;
  throw new RangeError('a key attribute value is S, N or B');
}

/** Partition and sort key in one sketch key, length-prefixed so no pair of values can collide. */
function itemKey(partition: string, sort: string): string {
  return partition.length + ':' + partition + sort;
}

function splitItemKey(key: string): string[] {
  const colon = key.indexOf(':');
  const length = Number(key.slice(0, colon));
  return [key.slice(colon + 1, colon + 1 + length), key.slice(colon + 1 + length)];
}

// ---------------------------------------------------------------------------------------------
// Rules
// ---------------------------------------------------------------------------------------------

interface StoredMinute {
  readonly minute: number;
  readonly total: number;
  readonly contributors: readonly Contributor[];
}

/** One rule: the sketch of the current minute and the reports of the finished ones. */
class InsightsRule {
  readonly kind: RuleKind;
  readonly name: string;
  readonly #options: InsightsOptions;
  readonly #sketch: SpaceSaving;
  #minute = -1;
  /** Finished minutes, by minute number modulo retentionMinutes. */
  readonly #reports: (StoredMinute | undefined)[];

  constructor(kind: RuleKind, name: string, options: InsightsOptions) {
    this.kind = kind;
    this.name = name;
    this.#options = options;
    this.#sketch = new SpaceSaving(options.sketchCapacity);
    this.#reports = new Array<StoredMinute | undefined>(options.retentionMinutes).fill(undefined);
  }

  add(key: string, weight: number, nowMs: number): void {
    this.#advanceTo(Math.floor(nowMs / MINUTE_MS));
    this.#sketch.add(key, weight);
  }

  /**
   * Closes the current minute once the clock has left it. A sample from an earlier minute than
   * the current one (a request that started before a newer one recorded) counts in the current.
   */
  #advanceTo(minute: number): void {
    if (minute <= this.#minute) return;
    if (this.#sketch.size > 0) {
      const stored: StoredMinute = { minute: this.#minute, total: this.#sketch.total, contributors: this.#sketch.top(this.#options.topContributors) };
      this.#reports[this.#minute % this.#options.retentionMinutes] = stored;
      this.#sketch.clear();
    }
    this.#minute = minute;
  }

  report(nowMs: number): RuleReport {
    const nowMinute = Math.floor(nowMs / MINUTE_MS);
    this.#advanceTo(nowMinute);
    const oldest = nowMinute - this.#options.retentionMinutes;
    const minutes: MinuteReport[] = [];
    for (let minute = oldest; minute < nowMinute; minute++) {
      const stored = this.#reports[minute % this.#options.retentionMinutes];
      if (stored !== undefined && stored.minute === minute) minutes.push(this.#minuteReport(minute, true, stored.total, stored.contributors));
    }
    if (this.#sketch.size > 0) {
      minutes.push(this.#minuteReport(nowMinute, false, this.#sketch.total, this.#sketch.top(this.#options.topContributors)));
    }
    const measure = this.kind === 'PKC' || this.kind === 'SKC' ? 'ConsumedThroughputUnits' : 'ThrottleCount';
    return { ruleName: this.name, kind: this.kind, measure, minutes };
  }

  #minuteReport(minute: number, complete: boolean, total: number, contributors: readonly Contributor[]): MinuteReport {
    const startMs = minute * MINUTE_MS;
    const itemRule = this.kind === 'SKC' || this.kind === 'SKT';
    return {
      startMs,
      Timestamp: new Date(startMs).toISOString(),
      complete,
      total,
      contributors: contributors.map((contributor) => ({
        keys: itemRule ? splitItemKey(contributor.key) : [contributor.key],
        value: contributor.count,
        maxOverestimate: contributor.error,
      })),
    };
  }
}

function kindsOf(mode: InsightsMode, hasSortKey: boolean): RuleKind[] {
  return RULE_KINDS.filter((kind) => {
    if (!hasSortKey && (kind === 'SKC' || kind === 'SKT')) return false;
    return mode === 'ACCESSED_AND_THROTTLED_KEYS' || kind === 'PKT' || kind === 'SKT';
  });
}

export function ruleName(kind: RuleKind, target: Pick<InsightsTarget, 'table' | 'index'>, createdAtMs: number): string {
  const resource = target.index === undefined ? target.table : `${target.table}-${target.index}`;
  return `DynamoDBContributorInsights-${kind}-${resource}-${Math.floor(createdAtMs)}`;
}

// ---------------------------------------------------------------------------------------------
// One table or GSI
// ---------------------------------------------------------------------------------------------

/** The settings of one table or GSI that has been configured at least once. */
class InsightsResource {
  readonly target: InsightsTarget;
  mode: InsightsMode;
  /** Where the last change leads once it settles. */
  goal: 'ENABLED' | 'DISABLED' | 'FAILED' = 'DISABLED';
  changedAtMs = 0;
  settlesAtMs = 0;
  rules: InsightsRule[] = [];
  failure: FailureException | undefined;
  /** The rules by kind, so recording finds them without a search. */
  pkc: InsightsRule | undefined;
  skc: InsightsRule | undefined;
  pkt: InsightsRule | undefined;
  skt: InsightsRule | undefined;

  constructor(target: InsightsTarget, mode: InsightsMode) {
    this.target = target;
    this.mode = mode;
  }

  statusAt(nowMs: number): InsightsStatus {
    const settled = nowMs >= this.settlesAtMs;
    if (this.goal === 'DISABLED') return settled ? 'DISABLED' : 'DISABLING';
    if (!settled) return 'ENABLING';
    return this.goal;
  }

  /** Recording happens only once ENABLED. */
  recording(nowMs: number): boolean {
    return this.goal === 'ENABLED' && nowMs >= this.settlesAtMs;
  }

  change(goal: InsightsResource['goal'], rules: InsightsRule[], nowMs: number, delayMs: number): void {
    this.goal = goal;
    this.changedAtMs = nowMs;
    this.settlesAtMs = nowMs + delayMs;
    this.rules = rules;
    this.pkc = rules.find((rule) => rule.kind === 'PKC');
    this.skc = rules.find((rule) => rule.kind === 'SKC');
    this.pkt = rules.find((rule) => rule.kind === 'PKT');
    this.skt = rules.find((rule) => rule.kind === 'SKT');
  }

  recordAccess(partition: AttributeValue, sort: AttributeValue | undefined, units: number, nowMs: number): void {
    const partitionText = keyText(partition);
    this.pkc?.add(partitionText, units, nowMs);
    if (this.skc !== undefined && sort !== undefined) this.skc.add(itemKey(partitionText, keyText(sort)), units, nowMs);
  }

  recordThrottle(partition: AttributeValue, sort: AttributeValue | undefined, nowMs: number): void {
    const partitionText = keyText(partition);
    this.pkt?.add(partitionText, 1, nowMs);
    if (this.skt !== undefined && sort !== undefined) this.skt.add(itemKey(partitionText, keyText(sort)), 1, nowMs);
  }

  /** LastUpdateDateTime: the moment the last change settled, or was asked for while it is settling. */
  lastUpdateMs(nowMs: number): number {
    return nowMs >= this.settlesAtMs ? this.settlesAtMs : this.changedAtMs;
  }
}

/** A table's configured resources: the table itself and its GSIs. */
interface TableInsights {
  readonly tableId: number;
  table: InsightsResource | undefined;
  readonly indexes: Map<string, InsightsResource>;
}

// ---------------------------------------------------------------------------------------------
// The engine's Contributor Insights
// ---------------------------------------------------------------------------------------------

export class ContributorInsights {
  readonly options: InsightsOptions;
  /** Every configured table (ever enabled since start-up), by name. */
  readonly #tables = new Map<string, TableInsights>();
  /** Only the tables with a resource whose goal is ENABLED: what recording consults. */
  readonly #enabled = new Map<string, TableInsights>();

  constructor(options: Partial<InsightsOptions> = {}) {
    this.options = checkOptions({ ...DEFAULT_INSIGHTS_OPTIONS, ...options });
  }

  /**
   * Records a successful access (hot path). `readUnits` / `writeUnits` are what the request
   * consumed on this table or GSI; `partition` / `sort` its key values there (for a GSI, the
   * index's keys). When Contributor Insights is not enabled for the table this is one Map lookup.
   */
  recordAccess(
    table: string,
    index: string | undefined,
    partition: AttributeValue,
    sort: AttributeValue | undefined,
    readUnits: number,
    writeUnits: number,
    nowMs: number,
  ): void {
    const tableInsights = this.#enabled.get(table);
    if (tableInsights === undefined) return;
    const resource = index === undefined ? tableInsights.table : tableInsights.indexes.get(index);
    if (resource === undefined || !resource.recording(nowMs)) return;
    resource.recordAccess(partition, sort, readUnits + 3 * writeUnits, nowMs);
  }

  /**
   * Whether accesses to the table (or GSI) are recorded now: a caller whose key costs something to
   * build (a multi-attribute GSI key's tuple) asks first.
   */
  isRecording(table: string, index: string | undefined, nowMs: number): boolean {
    const tableInsights = this.#enabled.get(table);
    if (tableInsights === undefined) return false;
    const resource = index === undefined ? tableInsights.table : tableInsights.indexes.get(index);
    return resource !== undefined && resource.recording(nowMs);
  }

  /**
   * Records one throttled request on a key (ProvisionedThroughputExceededException,
   * ThrottlingException, RequestLimitExceeded). Per AWS, a write throttled because a GSI could not
   * keep up (GSI back-pressure) is not a throttled key of any table or GSI: do not call this for
   * those. Costs one Map lookup when Contributor Insights is not enabled for the table.
   */
  recordThrottle(table: string, index: string | undefined, partition: AttributeValue, sort: AttributeValue | undefined, nowMs: number): void {
    const tableInsights = this.#enabled.get(table);
    if (tableInsights === undefined) return;
    const resource = index === undefined ? tableInsights.table : tableInsights.indexes.get(index);
    if (resource === undefined || !resource.recording(nowMs)) return;
    resource.recordThrottle(partition, sort, nowMs);
  }

  /**
   * UpdateContributorInsights on a resource the operation found. ENABLE without a mode means
   * ACCESSED_AND_THROTTLED_KEYS (DynamoDB reverts to it); ENABLE of the current mode and DISABLE of
   * a disabled resource change nothing and answer the current status. A mode change keeps the
   * rules both modes have (with their history) and starts ENABLING again.
   */
  update(target: InsightsTarget, action: InsightsAction, requestedMode: InsightsMode | undefined, nowMs: number): InsightsUpdateResult {
    const current = this.#resource(target);
    if (action === 'DISABLE') return this.#disable(current, nowMs);
    const mode = requestedMode ?? 'ACCESSED_AND_THROTTLED_KEYS';
    if (current !== undefined && current.goal === 'ENABLED' && current.mode === mode) {
      return { status: current.statusAt(nowMs), mode };
    }
    const resource = current ?? this.#create(target, mode);
    const kinds = kindsOf(mode, target.hasSortKey);
    const othersInUse = this.rulesInUse - (resource.goal === 'ENABLED' ? resource.rules.length : 0);
    resource.mode = mode;
    if (othersInUse + kinds.length > this.options.ruleQuota) {
      resource.failure = RULE_LIMIT_FAILURE;
      resource.change('FAILED', [], nowMs, this.options.transitionDelayMs);
    } else {
      resource.failure = undefined;
      const kept = resource.goal === 'ENABLED' ? resource.rules : [];
      const rules = kinds.map((kind) => kept.find((rule) => rule.kind === kind) ?? new InsightsRule(kind, ruleName(kind, target, nowMs), this.options));
      resource.change('ENABLED', rules, nowMs, this.options.transitionDelayMs);
    }
    this.#syncEnabled(target.table);
    // A change is always answered ENABLING, even when it settles at once or ends FAILED.
    return { status: 'ENABLING', mode };
  }

  #disable(resource: InsightsResource | undefined, nowMs: number): InsightsUpdateResult {
    if (resource === undefined) return { status: 'DISABLED', mode: undefined };
    if (resource.goal === 'DISABLED') return { status: resource.statusAt(nowMs), mode: resource.mode };
    // A FAILED resource keeps its FailureException until DISABLED (describe hides it then).
    resource.change('DISABLED', [], nowMs, this.options.transitionDelayMs);
    this.#syncEnabled(resource.target.table);
    return { status: 'DISABLING', mode: resource.mode };
  }

  describe(target: InsightsTarget, nowMs: number): InsightsDescription {
    const resource = this.#resource(target);
    const base = target.index === undefined ? { TableName: target.table } : { TableName: target.table, IndexName: target.index };
    if (resource === undefined) return { ...base, ContributorInsightsStatus: 'DISABLED' };
    const status = resource.statusAt(nowMs);
    const showRules = resource.goal === 'ENABLED';
    const showFailure = resource.failure !== undefined && status !== 'DISABLED';
    return {
      ...base,
      ...(showRules ? { ContributorInsightsRuleList: resource.rules.map((rule) => rule.name) } : {}),
      ContributorInsightsStatus: status,
      LastUpdateDateTime: resource.lastUpdateMs(nowMs) / 1000,
      ...(showFailure ? { FailureException: resource.failure } : {}),
      ContributorInsightsMode: resource.mode,
    };
  }

  /** ListContributorInsights' entry for a resource; undefined when DISABLED (DynamoDB leaves those out). */
  summary(target: InsightsTarget, nowMs: number): InsightsSummary | undefined {
    const resource = this.#resource(target);
    if (resource === undefined) return undefined;
    const status = resource.statusAt(nowMs);
    if (status === 'DISABLED') return undefined;
    const base = target.index === undefined ? { TableName: target.table } : { TableName: target.table, IndexName: target.index };
    return { ...base, ContributorInsightsStatus: status, ContributorInsightsMode: resource.mode };
  }

  /** The top contributors per rule and minute (GET /dynatwin/tables/<t>[/indexes/<i>]/contributor-insights). */
  report(target: InsightsTarget, nowMs: number): InsightsReport {
    const resource = this.#resource(target);
    const base = target.index === undefined ? { table: target.table } : { table: target.table, index: target.index };
    if (resource === undefined) return { ...base, status: 'DISABLED', rules: [] };
    return { ...base, status: resource.statusAt(nowMs), mode: resource.mode, rules: resource.rules.map((rule) => rule.report(nowMs)) };
  }

  /** Rules held by resources that are ENABLING or ENABLED: what counts against `ruleQuota`. */
  get rulesInUse(): number {
    let total = 0;
    for (const tableInsights of this.#enabled.values()) {
      if (tableInsights.table?.goal === 'ENABLED') total += tableInsights.table.rules.length;
      for (const resource of tableInsights.indexes.values()) if (resource.goal === 'ENABLED') total += resource.rules.length;
    }
    return total;
  }

  /** Forgets a deleted table and its GSIs, and releases their rules. */
  dropTable(table: string): void {
    this.#tables.delete(table);
    this.#enabled.delete(table);
  }

  /** Forgets a deleted GSI and releases its rules. */
  dropIndex(table: string, index: string): void {
    const tableInsights = this.#tables.get(table);
    if (tableInsights === undefined) return;
    tableInsights.indexes.delete(index);
    this.#syncEnabled(table);
  }

  /** The resource's state, dropping what belonged to an earlier table or GSI of the same name. */
  #resource(target: InsightsTarget): InsightsResource | undefined {
    const tableInsights = this.#tables.get(target.table);
    if (tableInsights === undefined) return undefined;
    if (tableInsights.tableId !== target.tableId) {
      this.dropTable(target.table);
      return undefined;
    }
    if (target.index === undefined) return tableInsights.table;
    const resource = tableInsights.indexes.get(target.index);
    if (resource !== undefined && resource.target.indexId !== target.indexId) {
      this.dropIndex(target.table, target.index);
      return undefined;
    }
    return resource;
  }

  #create(target: InsightsTarget, mode: InsightsMode): InsightsResource {
    let tableInsights = this.#tables.get(target.table);
    if (tableInsights === undefined) {
      tableInsights = { tableId: target.tableId, table: undefined, indexes: new Map() };
      this.#tables.set(target.table, tableInsights);
    }
    const resource = new InsightsResource(target, mode);
    if (target.index === undefined) tableInsights.table = resource;
    else tableInsights.indexes.set(target.index, resource);
    return resource;
  }

  /** Keeps `#enabled` to the tables with something to record. */
  #syncEnabled(table: string): void {
    const tableInsights = this.#tables.get(table);
    const enabled =
      tableInsights !== undefined &&
      (tableInsights.table?.goal === 'ENABLED' || [...tableInsights.indexes.values()].some((resource) => resource.goal === 'ENABLED'));
    if (enabled) this.#enabled.set(table, tableInsights);
    else this.#enabled.delete(table);
  }
}

function checkOptions(options: InsightsOptions): InsightsOptions {
  const check = (name: keyof InsightsOptions, min: number, max: number): void => {
    const value = options[name];
    if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${name} must be an integer between ${min} and ${max}`);
  };
  check('transitionDelayMs', 0, 60 * MINUTE_MS);
  check('ruleQuota', 1, 10_000);
  check('sketchCapacity', 1, SKETCH_CAPACITY_MAX);
  check('topContributors', 1, 100);
  check('retentionMinutes', 1, 1440);
  return Object.freeze({ ...options });
}
