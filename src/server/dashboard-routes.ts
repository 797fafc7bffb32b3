/**
 * The dashboard (issue #9), served by dynatwin itself through the inspection router:
 *
 *   GET /dynatwin/  (and /dynatwin)      → the page (static/dashboard/index.html)
 *   GET /dynatwin/assets/<file>          → its ES modules and CSS (static/dashboard/<file>)
 *   GET /dynatwin/store                  → the store: {kind, location, writes: "taken" | "refused",
 *                                          refusal?: {code, stage, path, sinceMs, neededBytes, detail,
 *                                          lostWrites}} (a disk fault, storage/logged.ts DISK FAULTS)
 *   GET /dynatwin/tables                 → the tables, their GSIs, billing, provisioned units
 *   GET /dynatwin/tables/<t>/heatmap[?index=<gsi>][&period=1|60][&minutes=<n>][&since=<epoch ms>]
 *       → the partition history (metrics/partition-history.ts) joined with each partition's hash
 *         range and allocation from the partition map, its hard ceilings and GSI backlog, and the
 *         write refusals the table's GSIs caused by back-pressure (see HeatmapDocument)
 *
 * The page is plain HTML, CSS and ES modules in `static/dashboard/` at the package root (no build
 * step; tsc does not copy them, so they are read from there, resolved from this file's URL:
 * dist/src/server/ → ../../../static/dashboard/). It polls the routes above, GET /dynatwin/clock,
 * GET /dynatwin/metrics and the Contributor Insights routes once a second.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CAPACITY_SETTINGS } from '../capacity/admission.js';
import type { PartitionView } from '../capacity/partitions.js';
import { tableStatusAt } from '../engine/describe.js';
import type { Engine } from '../engine/engine.js';
import type { SecondaryIndex } from '../engine/indexes.js';
import type { ResourcePartitions } from '../engine/partition-tracker.js';
import type { Table, ThroughputRecord } from '../engine/table.js';
import type { InsightsStatus } from '../metrics/insights.js';
import { findGlobalIndex, indexTarget, tableTarget } from '../engine/insights-targets.js';
import type { HistoryPeriodSeconds, PartitionHistorySeries } from '../metrics/partition-history.js';
import type { Storage, WriteRefusal } from '../storage/storage.js';
import { InspectionError, type InspectionResponse, type InspectionRouter } from './inspection.js';

/** Where the page's files are looked for, relative to this module (compiled or not). */
const ASSET_DIRECTORY_CANDIDATES = ['../../../static/dashboard/', '../../static/dashboard/'];
const ASSET_NAME = /^[a-z0-9][a-z0-9-]*\.(js|css|svg)$/;
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};
const HEATMAP_PARAMETERS = ['index', 'period', 'minutes', 'since'] as const;
const EPOCH_MS_MAX = 8.64e15;

export interface ProvisionedUnits {
  readonly readCapacityUnits: number;
  readonly writeCapacityUnits: number;
}

export interface IndexSummary {
  readonly name: string;
  readonly status: string;
  /** Undefined for an on-demand table's GSI. */
  readonly provisioned: ProvisionedUnits | null;
  readonly itemCount: number;
  readonly sizeBytes: number;
  /** 0 while the GSI has no map (being deleted). */
  readonly partitionCount: number;
  readonly contributorInsights: InsightsStatus;
}

export interface TableSummary {
  readonly name: string;
  readonly status: string;
  readonly billingMode: 'PROVISIONED' | 'PAY_PER_REQUEST';
  readonly provisioned: ProvisionedUnits | null;
  readonly itemCount: number;
  readonly sizeBytes: number;
  readonly partitionCount: number;
  readonly partitionModel: string;
  readonly contributorInsights: InsightsStatus;
  /** GSIs, by name; each has its own partitions. */
  readonly indexes: readonly IndexSummary[];
  /** LSI names: they live on the table's partitions. */
  readonly localIndexes: readonly string[];
  /** The table's enabled DynamoDB stream, or null. */
  readonly stream: StreamSummary | null;
}

/** A table's stream on the dashboard: its shards (one open per partition) and records per second. */
export interface StreamSummary {
  readonly arn: string;
  readonly viewType: string;
  readonly openShards: number;
  readonly closedShards: number;
  /** Records appended per second over the last 10 s of the server's clock. */
  readonly recordsPerSecond: number;
}

export interface TablesDocument {
  readonly nowMs: number;
  readonly tables: readonly TableSummary[];
}

/**
 * One partition of the heat map: the partition map's view (id, hashRange, itemCount, sizeBytes,
 * readUnitsPerSecond / writeUnitsPerSecond allocated) and its buckets. Each array holds
 * `bucketCount` sums, element i for the bucket starting at `startMs + i × periodSeconds × 1000`;
 * an empty array means all zeros (an idle partition costs a few bytes).
 */
export interface HeatmapPartition extends PartitionView {
  /** The partition's hard ceilings (units/s): what it can never exceed, whatever its allocation. */
  readonly readCeilingUnitsPerSecond: number;
  readonly writeCeilingUnitsPerSecond: number;
  /** A GSI partition's index write units waiting to be applied (0 on a table). */
  readonly backlogWriteUnits: number;
  readonly readUnits: readonly number[];
  readonly writeUnits: readonly number[];
  readonly readThrottles: readonly number[];
  readonly writeThrottles: readonly number[];
}

export interface HeatmapDocument {
  readonly table: string;
  readonly index: string | null;
  readonly billingMode: 'PROVISIONED' | 'PAY_PER_REQUEST';
  readonly provisioned: ProvisionedUnits | null;
  readonly nowMs: number;
  readonly periodSeconds: HistoryPeriodSeconds;
  /** The first bucket of the window the page shows (minutes × 60 / period buckets ending with now's). */
  readonly windowStartMs: number;
  /** The first bucket in the arrays (`since`, or the window's start). */
  readonly startMs: number;
  readonly bucketCount: number;
  /** Partitions in hash order, as the partition map has them now. */
  readonly partitions: readonly HeatmapPartition[];
  /**
   * GSI back-pressure (docs/CAPACITY-MODEL.md §4): on a table's document, each of its GSIs that
   * refused the table's writes in the buckets answered or holds them back now; on a GSI's, the GSI itself
   * when it did. Those refusals are counted on the GSI (as CloudWatch does), so the table's own
   * partitions show none: this is where the table's view finds them.
   */
  readonly backPressure: readonly BackPressureSummary[];
}

export interface BackPressureSummary {
  readonly index: string;
  /** Base-table writes are refused right now (a partition's backlog is over the bound). */
  readonly holdingBack: boolean;
  /** The largest backlog of its partitions now, and the bound past which writes are refused. */
  readonly backlogWriteUnits: number;
  readonly backlogWriteUnitsMax: number;
  /** Refused writes per bucket (aligned with the partitions' arrays; [] when none). */
  readonly writeThrottles: readonly number[];
}

export function registerDashboardRoutes(router: InspectionRouter, engine: Engine): void {
  const assets = new DashboardAssets();
  // Open under --auth verify: the page and its files hold no data; every JSON route they fetch
  // needs the token (inspection-auth.ts), which the page sends once it has it.
  router.get(/^\/dynatwin\/?$/, () => assets.answer('index.html'), { open: true });
  router.get(
    /^\/dynatwin\/assets\/([^/]+)$/,
    (request) => {
      const name = request.params[0]!;
      if (!ASSET_NAME.test(name)) throw new InspectionError(404, `no such dashboard asset: ${name}`);
      return assets.answer(name);
    },
    { open: true },
  );
  const tablesJson = new TablesJsonCache();
  router.get(/^\/dynatwin\/tables\/?$/, (request) => {
    rejectParameters(request.url.searchParams, []);
    return { status: 200, body: tablesJson.document(engine), contentType: 'application/json' };
  });
  router.get(/^\/dynatwin\/store\/?$/, (request) => {
    rejectParameters(request.url.searchParams, []);
    return { status: 200, body: storeDocument(engine.storage) };
  });
  router.get(/^\/dynatwin\/tables\/([^/]+)\/heatmap\/?$/, (request) => ({
    status: 200,
    body: heatmapDocument(engine, request.params[0]!, request.url.searchParams),
  }));
}

/** The page's files, read once from static/dashboard/ and kept. */
class DashboardAssets {
  #directory: string | undefined;
  readonly #cache = new Map<string, string>();

  answer(name: string): InspectionResponse {
    let text = this.#cache.get(name);
    if (text === undefined) {
      const path = this.#resolveDirectory() + name;
      if (!existsSync(path)) throw new InspectionError(404, `no such dashboard asset: ${name}`);
      text = readFileSync(path, 'utf8');
      this.#cache.set(name, text);
    }
    const extension = name.slice(name.lastIndexOf('.') + 1);
    return { status: 200, body: text, contentType: CONTENT_TYPES[extension] ?? 'application/octet-stream' };
  }

  #resolveDirectory(): string {
    if (this.#directory !== undefined) return this.#directory;
    for (const candidate of ASSET_DIRECTORY_CANDIDATES) {
      const directory = fileURLToPath(new URL(candidate, import.meta.url));
      if (existsSync(directory + 'index.html')) return (this.#directory = directory);
    }
    // A broken install, not a client's mistake: the router turns this into a 500 and logs it.
    throw new Error(`dashboard files not found: looked for static/dashboard/index.html from ${import.meta.url}`);
  }
}

/**
 * GET /dynatwin/tables, which the dashboard polls every second, as JSON text: each table's summary
 * is serialized only when it changed since the last poll (compared value by value, O(its indexes)),
 * so with thousands of tables a poll costs the summaries' comparison and one join, not a
 * JSON.stringify of everything (2,600 tables: ~600 KB).
 */
export class TablesJsonCache {
  readonly #entries = new Map<string, { readonly summary: TableSummary; readonly json: string }>();

  document(engine: Engine): string {
    const document = tablesDocument(engine);
    const parts: string[] = [];
    for (const summary of document.tables) {
      const cached = this.#entries.get(summary.name);
      if (cached !== undefined && sameJson(cached.summary, summary)) {
        parts.push(cached.json);
        continue;
      }
      const json = JSON.stringify(summary);
      this.#entries.set(summary.name, { summary, json });
      parts.push(json);
    }
    // Deleted tables leave the cache: it never holds more than the tables there are.
    if (this.#entries.size > document.tables.length) {
      const names = new Set(document.tables.map((summary) => summary.name));
      for (const name of this.#entries.keys()) if (!names.has(name)) this.#entries.delete(name);
    }
    return `{"nowMs":${document.nowMs},"tables":[${parts.join(',')}]}`;
  }
}

/**
 * Whether two JSON-shaped values are equal (primitives, arrays, plain objects with the same keys):
 * generic, so a field added to the summaries is compared without anyone remembering to.
 */
export function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    return left.every((element, at) => sameJson(element, right[at]));
  }
  if (Array.isArray(right)) return false;
  const leftRecord = left as Record<string, unknown>;
  const rightRecord = right as Record<string, unknown>;
  const keys = Object.keys(leftRecord);
  if (keys.length !== Object.keys(rightRecord).length) return false;
  return keys.every((key) => Object.hasOwn(rightRecord, key) && sameJson(leftRecord[key], rightRecord[key]));
}

export function tablesDocument(engine: Engine): TablesDocument {
  const nowMs = engine.clock.nowMs();
  const insights = engine.telemetry.insights;
  const tables: TableSummary[] = [];
  for (const name of engine.catalog.names()) {
    const table = engine.catalog.get(name);
    if (table === undefined) continue;
    const record = table.record;
    const status = tableStatusAt(record, nowMs);
    const provisionedTable = record.billingMode === 'PROVISIONED';
    const indexes: IndexSummary[] = [];
    for (const index of table.indexes.all) {
      if (index.kind !== 'global') continue;
      indexes.push({
        name: index.name,
        status: index.record.status,
        provisioned: provisionedTable ? provisionedOf(index.record.throughput) : null,
        itemCount: index.state.statistics.itemCount,
        sizeBytes: index.state.statistics.sizeBytes,
        partitionCount: index.state.partitions?.map.count ?? 0,
        contributorInsights: insights.describe(indexTarget(table, index), nowMs).ContributorInsightsStatus,
      });
    }
    indexes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    tables.push({
      name: table.name,
      status,
      billingMode: record.billingMode,
      provisioned: provisionedTable ? provisionedOf(record.throughput) : null,
      itemCount: table.statistics.itemCount,
      sizeBytes: table.statistics.sizeBytes,
      partitionCount: table.partitions.map.count,
      partitionModel: table.partitions.map.policy.model,
      contributorInsights: insights.describe(tableTarget(table), nowMs).ContributorInsightsStatus,
      indexes,
      localIndexes: table.indexes.locals.map((index) => index.name),
      stream: streamSummary(engine, table, nowMs),
    });
  }
  return { nowMs, tables };
}

function streamSummary(engine: Engine, table: Table, nowMs: number): StreamSummary | null {
  const stream = engine.streams.enabledFor(table.record.id);
  if (stream === undefined) return null;
  const open = stream.shards.filter((shard) => shard.open).length;
  return {
    arn: stream.arn,
    viewType: stream.viewType,
    openShards: open,
    closedShards: stream.shards.length - open,
    recordsPerSecond: stream.recordsPerSecond(nowMs),
  };
}

function provisionedOf(throughput: ThroughputRecord | undefined): ProvisionedUnits | null {
  if (throughput === undefined) return null;
  return { readCapacityUnits: throughput.readCapacityUnits, writeCapacityUnits: throughput.writeCapacityUnits };
}

export function heatmapDocument(engine: Engine, tableName: string, parameters: URLSearchParams): HeatmapDocument {
  rejectParameters(parameters, HEATMAP_PARAMETERS);
  const table = engine.catalog.get(tableName);
  if (table === undefined) throw new InspectionError(404, `table not found: ${tableName}`);
  const indexName = parameters.get('index') ?? undefined;
  const { index, partitions } = resourceOf(table, indexName);
  const history = engine.telemetry.partitionHistory;
  const periodSeconds = periodOf(parameters.get('period'));
  const retentionMinutes = (periodSeconds === 1 ? history.options.secondRetentionMs : history.options.minuteRetentionMs) / 60_000;
  const minutes = minutesOf(parameters.get('minutes'), periodSeconds === 1 ? Math.min(10, retentionMinutes) : retentionMinutes, retentionMinutes);
  const since = sinceOf(parameters.get('since'));

  const nowMs = engine.clock.nowMs();
  // A GSI's backlog drains lazily; bring it to now so the map shows what was served until now.
  if (partitions.hasCapacity) partitions.capacity.drainBacklogs(nowMs);
  const periodMs = periodSeconds * 1000;
  const lastBucket = Math.floor(nowMs / periodMs);
  const windowBuckets = Math.max(1, Math.floor((minutes * 60) / periodSeconds));
  const windowFirst = lastBucket - windowBuckets + 1;
  const first = since === undefined ? windowFirst : Math.min(lastBucket + 1, Math.max(windowFirst, Math.floor(since / periodMs)));
  const bucketCount = lastBucket - first + 1;

  const views = partitions.map.views();
  const window: HistoryWindow = { periodSeconds, firstBucket: first, lastBucket };
  const found = historyOf(engine, table.name, index?.name, views, window);
  const ceilings = ceilingsOf(partitions);
  const backlogs = backlogsOf(partitions, nowMs);
  const record = table.record;
  const provisionedTable = record.billingMode === 'PROVISIONED';
  return {
    table: table.name,
    index: index?.name ?? null,
    billingMode: record.billingMode,
    provisioned: provisionedTable ? provisionedOf(index === undefined ? record.throughput : index.record.throughput) : null,
    nowMs,
    periodSeconds,
    windowStartMs: windowFirst * periodMs,
    startMs: first * periodMs,
    bucketCount,
    partitions: views.map((view) => {
      const series = found.get(view.id);
      return {
        ...view,
        ...ceilings,
        backlogWriteUnits: Math.round(backlogs.get(view.id) ?? 0),
        readUnits: compact(series?.readUnits),
        writeUnits: compact(series?.writeUnits),
        readThrottles: compact(series?.readThrottles),
        writeThrottles: compact(series?.writeThrottles),
      };
    }),
    backPressure: backPressureOf(engine, table, index, window, nowMs),
  };
}

interface HistoryWindow {
  readonly periodSeconds: HistoryPeriodSeconds;
  /** Buckets (in periods since the epoch) the arrays cover. */
  readonly firstBucket: number;
  readonly lastBucket: number;
}

/** A resource's history of the window's buckets, by partition id. */
function historyOf(engine: Engine, table: string, index: string | undefined, views: readonly PartitionView[], window: HistoryWindow): Map<number, PartitionHistorySeries> {
  const found = new Map<number, PartitionHistorySeries>();
  const resourceHistory = engine.telemetry.partitionHistory.find(table, index);
  const bucketCount = window.lastBucket - window.firstBucket + 1;
  if (resourceHistory === undefined || bucketCount <= 0) return found;
  const periodMs = window.periodSeconds * 1000;
  const result = resourceHistory.query(window.periodSeconds, window.firstBucket * periodMs, window.lastBucket * periodMs, views.map((view) => view.id));
  // Postcondition: the history answers exactly the buckets asked for (the window is within its retention).
  if (result.startMs !== window.firstBucket * periodMs || result.bucketCount !== bucketCount) {
    throw new Error(`assertion failed: partition history answered ${result.bucketCount} buckets from ${result.startMs}, asked ${bucketCount} from ${window.firstBucket * periodMs}`);
  }
  for (const series of result.partitions) found.set(series.id, series);
  return found;
}

/** The hard per-partition ceilings of the admission model (the same for every partition of a resource). */
function ceilingsOf(partitions: ResourcePartitions): { readCeilingUnitsPerSecond: number; writeCeilingUnitsPerSecond: number } {
  const settings = partitions.hasCapacity ? partitions.capacity.settings : DEFAULT_CAPACITY_SETTINGS;
  return { readCeilingUnitsPerSecond: settings.partitionReadUnitsPerSecondMax, writeCeilingUnitsPerSecond: settings.partitionWriteUnitsPerSecondMax };
}

/** A GSI's backlog per partition id (empty for a table). */
function backlogsOf(partitions: ResourcePartitions, nowMs: number): Map<number, number> {
  const backlogs = new Map<number, number>();
  if (!partitions.hasCapacity || partitions.capacity.kind !== 'Index') return backlogs;
  for (const stats of partitions.capacity.partitionStats(nowMs)) if (stats.backlogWriteUnits > 0) backlogs.set(stats.id, stats.backlogWriteUnits);
  return backlogs;
}

/**
 * The GSIs whose back-pressure refused this table's writes in the window or refuses them now (for
 * a GSI's document, only that GSI). Every write throttle on a GSI partition is such a refusal: GSI
 * writes themselves are never refused (they wait in the backlog).
 */
function backPressureOf(engine: Engine, table: Table, only: SecondaryIndex | undefined, window: HistoryWindow, nowMs: number): BackPressureSummary[] {
  const summaries: BackPressureSummary[] = [];
  for (const index of table.indexes.all) {
    if (index.kind !== 'global' || !index.live || (only !== undefined && index !== only)) continue;
    const partitions = index.state.partitions;
    if (partitions === undefined || !partitions.hasCapacity) continue;
    const capacity = partitions.capacity;
    const holdingBack = capacity.backPressure(nowMs) !== undefined;
    const views = partitions.map.views();
    const history = historyOf(engine, table.name, index.name, views, window);
    const bucketCount = window.lastBucket - window.firstBucket + 1;
    const perBucket = new Array<number>(Math.max(0, bucketCount)).fill(0);
    for (const series of history.values()) {
      for (let at = 0; at < perBucket.length; at++) perBucket[at]! += series.writeThrottles[at] ?? 0;
    }
    if (!holdingBack && perBucket.every((value) => value === 0)) continue;
    let backlogWriteUnits = 0;
    for (const stats of capacity.partitionStats(nowMs)) backlogWriteUnits = Math.max(backlogWriteUnits, stats.backlogWriteUnits);
    summaries.push({
      index: index.name,
      holdingBack,
      backlogWriteUnits: Math.round(backlogWriteUnits),
      backlogWriteUnitsMax: capacity.settings.gsiBacklogWriteUnitsMax,
      writeThrottles: compact(perBucket),
    });
  }
  return summaries;
}

function resourceOf(table: Table, indexName: string | undefined): { index: SecondaryIndex | undefined; partitions: ResourcePartitions } {
  if (indexName === undefined) return { index: undefined, partitions: table.partitions };
  const index = findGlobalIndex(table, indexName);
  if (index === undefined) {
    const local = table.indexes.find(indexName) !== undefined;
    throw new InspectionError(
      404,
      local
        ? `${indexName} is a local secondary index: it lives on the table's partitions (omit index)`
        : `global secondary index not found: ${indexName} (table ${table.name})`,
    );
  }
  const partitions = index.state.partitions;
  if (partitions === undefined || !index.live) throw new InspectionError(404, `global secondary index ${indexName} is being deleted: it has no partitions`);
  return { index, partitions };
}

/** Rounded to 1/1000 (float32 sums print long otherwise); [] when every bucket is 0. */
function compact(values: readonly number[] | undefined): number[] {
  if (values === undefined) return [];
  let any = false;
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = Math.round(values[i]! * 1000) / 1000;
    out[i] = value;
    if (value !== 0) any = true;
  }
  return any ? out : [];
}

function rejectParameters(parameters: URLSearchParams, known: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of parameters.keys()) {
    if (!known.includes(name)) {
      throw new InspectionError(400, known.length === 0 ? `unknown parameter ${JSON.stringify(name)}: this resource takes none` : `unknown parameter ${JSON.stringify(name)}; known: ${known.join(', ')}`);
    }
    if (seen.has(name)) throw new InspectionError(400, `parameter ${name} is given more than once`);
    seen.add(name);
  }
}

function periodOf(value: string | null): HistoryPeriodSeconds {
  if (value === null || value === '1') return 1;
  if (value === '60') return 60;
  throw new InspectionError(400, 'period must be 1 or 60 (seconds)');
}

function minutesOf(value: string | null, fallback: number, max: number): number {
  if (value === null) return fallback;
  if (!/^\d{1,5}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new InspectionError(400, `minutes must be an integer from 1 to ${max} (the retention at this period)`);
  }
  return Number(value);
}

function sinceOf(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (!/^\d{1,16}$/.test(value) || Number(value) > EPOCH_MS_MAX) throw new InspectionError(400, 'since must be epoch milliseconds (a non-negative integer)');
  return Number(value);
}

/** GET /dynatwin/store: whether the store takes writes, and why not (the dashboard's banner). */
export function storeDocument(storage: Storage): { kind: string; location: string; writes: 'taken' | 'refused'; refusal?: WriteRefusal } {
  const refusal = storage.writeRefusal;
  const document = { kind: storage.kind, location: storage.location, writes: refusal === undefined ? ('taken' as const) : ('refused' as const) };
  return refusal === undefined ? document : { ...document, refusal };
}
