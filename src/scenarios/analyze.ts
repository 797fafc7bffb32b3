/**
 * `dynatwin analyze --endpoint <url> --table <t>`: the scenario findings for a table of a running
 * dynatwin, after someone's own test suite ran against it. Everything comes over HTTP, as a
 * reviewer's tool would see it:
 *
 *   - DescribeTable (the DynamoDB API): the key schemas of the table and its GSIs;
 *   - GET /dynatwin/tables: the partition model, provisioned throughput, partition counts;
 *   - GET /dynatwin/tables/<t>/heatmap?period=1 (and &index=<gsi>): every partition's units and
 *     throttles per second over the retained history — the same per-second series a simulation
 *     samples;
 *   - GET …/contributor-insights: the most accessed partition keys (when Contributor Insights is
 *     on), for the key findings.
 *
 * The figures become a VariantResult and go through the same findings code as `simulate`. A key
 * that "comes from the clock" is recognised by its values (dates, epoch seconds or milliseconds),
 * since no generator is known here.
 */
import { findingsOf, type Finding } from './findings.js';
import type { KeySummary } from './key-tally.js';
import type { HeatSample, ProvisionedResource, ResourceSeries, VariantResult } from './runner.js';
import { signRequest, type SigningCredentials } from './sign-request.js';
import { setOwn } from '../model/own-members.js';

/** Seconds of per-second history read at most (dynatwin keeps an hour). */
export const ANALYZE_MINUTES_MAX = 60;
/** Time allowed for each HTTP request to the twin. */
const REQUEST_TIMEOUT_MS = 30_000;

export class AnalyzeError extends Error {}

export interface AnalyzeOptions {
  readonly endpoint: string;
  readonly table: string;
  readonly minutes?: number;
  /** A twin under `--auth verify`: its inspection token, sent to the /dynatwin routes read. */
  readonly token?: string;
  /** Credentials to sign every request with (SigV4), for a twin under `--auth verify`. */
  readonly credentials?: SigningCredentials;
  /** The region of those signatures (the twin does not check it). */
  readonly region?: string;
}

/** How the twin's requests are authenticated (see AnalyzeOptions). */
interface Access {
  readonly base: URL;
  readonly token: string | undefined;
  readonly credentials: SigningCredentials | undefined;
  readonly region: string;
}

export interface AnalyzeReport {
  readonly table: string;
  readonly partitionModel: string;
  readonly seconds: number;
  readonly resources: readonly { readonly name: string; readonly partitions: number; readonly writeUnits: number; readonly readUnits: number; readonly throttleEvents: number; readonly contributorInsights: boolean }[];
  readonly findings: readonly Finding[];
}

interface HeatmapPartition {
  readonly hashRange: readonly [string, string];
  readonly readUnitsPerSecond: number;
  readonly writeUnitsPerSecond: number;
  readonly writeCeilingUnitsPerSecond: number;
  readonly readCeilingUnitsPerSecond: number;
  readonly backlogWriteUnits: number;
  readonly readUnits: readonly number[];
  readonly writeUnits: readonly number[];
  readonly readThrottles: readonly number[];
  readonly writeThrottles: readonly number[];
}

interface HeatmapDocument {
  readonly bucketCount: number;
  readonly partitions: readonly HeatmapPartition[];
  readonly backPressure: readonly { readonly index: string; readonly writeThrottles: readonly number[] }[];
}

interface TableSummary {
  readonly name: string;
  readonly partitionModel: string;
  readonly provisioned: { readonly readUnitsPerSecond: number; readonly writeUnitsPerSecond: number } | null;
  readonly itemCount: number;
  readonly sizeBytes: number;
  readonly contributorInsights: string;
  readonly indexes: readonly { readonly name: string; readonly provisioned: TableSummary['provisioned']; readonly contributorInsights: string }[];
}

interface InsightsDocument {
  readonly rules: readonly { readonly kind: string; readonly minutes: readonly { readonly total: number; readonly contributors: readonly { readonly keys: readonly string[]; readonly value: number }[] }[] }[];
}

export async function analyzeTable(options: AnalyzeOptions): Promise<AnalyzeReport> {
  const base: Access = { base: endpointOf(options.endpoint), token: options.token, credentials: options.credentials, region: options.region ?? 'us-east-1' };
  const minutes = options.minutes ?? ANALYZE_MINUTES_MAX;
  const table = encodeURIComponent(options.table);
  const tables = (await getJson(base, '/dynatwin/tables')) as { tables: readonly TableSummary[] };
  const summary = tables.tables.find((candidate) => candidate.name === options.table);
  if (summary === undefined) throw new AnalyzeError(`table '${options.table}' is not on ${base.base.origin} (tables: ${tables.tables.map((t) => t.name).join(', ') || 'none'})`);
  const description = await describeTable(base, options.table);
  const resources: ResourceSeries[] = [];
  const keys: Record<string, KeySummary> = {};
  const keyGenerators: Record<string, string[]> = {};
  const provisioned: ProvisionedResource[] = [];
  let ceilingWriteUnits = 1000;
  let ceilingReadUnits = 3000;
  const targets = [
    { name: options.table, kind: 'table' as const, schema: description.KeySchema, provisioned: summary.provisioned, insights: summary.contributorInsights, query: '' },
    ...summary.indexes.map((index) => ({
      name: `${options.table}/index/${index.name}`,
      kind: 'index' as const,
      schema: description.GlobalSecondaryIndexes?.find((gsi) => gsi.IndexName === index.name)?.KeySchema,
      provisioned: index.provisioned,
      insights: index.contributorInsights,
      query: `&index=${encodeURIComponent(index.name)}`,
    })),
  ];
  const report: AnalyzeReport['resources'][number][] = [];
  for (const target of targets) {
    const heatmap = (await getJson(base, `/dynatwin/tables/${table}/heatmap?period=1&minutes=${minutes}${target.query}`)) as HeatmapDocument;
    const series = resourceSeries(target.name, target.kind, hashKeyOf(target.schema), heatmap);
    resources.push(series);
    if (heatmap.partitions[0] !== undefined) {
      ceilingWriteUnits = heatmap.partitions[0].writeCeilingUnitsPerSecond;
      ceilingReadUnits = heatmap.partitions[0].readCeilingUnitsPerSecond;
    }
    if (target.provisioned !== null) provisioned.push({ name: target.name, ...target.provisioned });
    const insightsOn = target.insights === 'ENABLED';
    if (insightsOn) {
      const path = target.kind === 'table' ? `/dynatwin/tables/${table}/contributor-insights` : `/dynatwin/tables/${table}/indexes/${target.query.slice('&index='.length)}/contributor-insights`;
      const summaryOfKeys = keySummary((await getJson(base, path)) as InsightsDocument);
      if (summaryOfKeys !== undefined) {
        setOwn(keys, target.name, summaryOfKeys);
        if (summaryOfKeys.top.length > 0 && summaryOfKeys.top.slice(0, 3).every((key) => clockLike(key.value))) setOwn(keyGenerators, target.name, ['timestamp']);
      }
    }
    report.push({
      name: target.name,
      partitions: heatmap.partitions.length,
      writeUnits: sum(series.consumedWriteUnits),
      readUnits: sum(series.consumedReadUnits),
      throttleEvents: sum(series.throttleEvents),
      contributorInsights: insightsOn,
    });
  }
  // The series start at the first second anything was written, read or refused, as a simulation's
  // start at its first tick: "the first throttle came at 81 s" counts from the load's start.
  const activeFrom = firstIndex(resources, (resource, second) => resource.consumedWriteUnits[second]! + resource.consumedReadUnits[second]! + resource.throttleEvents[second]! > 0, resources[0]!.consumedWriteUnits.length) ?? 0;
  resources.splice(0, resources.length, ...resources.map((resource) => fromSecond(resource, activeFrom)));
  const tableSeries = resources[0]!;
  const seconds = tableSeries.consumedWriteUnits.length;
  const firstThrottle = firstIndex(resources, (resource, second) => (resource.throttleEvents[second] ?? 0) > 0, seconds);
  // Without the items, the mean item's write units come from the table's mean item size.
  const itemWriteUnitsMean = summary.itemCount === 0 ? 1 : Math.max(1, Math.ceil(summary.sizeBytes / summary.itemCount / 1024));
  const writesPerSecond = tableSeries.consumedWriteUnits.map((units, second) => units / itemWriteUnitsMean + sumAt(resources, second));
  const result: VariantResult = {
    name: options.table,
    description: '',
    simulatedSeconds: seconds,
    series: { offered: writesPerSecond, accepted: tableSeries.consumedWriteUnits.map((units) => units / itemWriteUnitsMean), throttled: [], failed: [], requests: [] },
    resources,
    errors: {},
    firstThrottleSeconds: firstThrottle,
    keys,
    itemWriteUnitsMean,
    offeredPeakPerSecond: Math.max(0, ...writesPerSecond),
    partitionWriteUnitsMax: ceilingWriteUnits,
    partitionReadUnitsMax: ceilingReadUnits,
    pendingAtEnd: 0,
    operations: [],
    partitionModel: summary.partitionModel === 'classic' ? 'classic' : 'modern',
    keyGenerators,
    provisioned,
  };
  const findings = findingsOf(result, { indexedShares: indexedSharesOf(options.table, description) }).map((finding) => withInsightsHint(finding, targets.find((target) => target.name === finding.resource), options.table));
  return { table: options.table, partitionModel: summary.partitionModel, seconds, resources: report.map((entry, index) => ({ ...entry, throttleEvents: sum(resources[index]!.throttleEvents) })), findings };
}

/** Each GSI's items over the table's (DescribeTable's ItemCount; an index's counts its backlog too). */
function indexedSharesOf(table: string, description: TableDescription): Record<string, number> {
  const shares: Record<string, number> = {};
  const tableItems = description.ItemCount ?? 0;
  if (tableItems === 0) return shares;
  for (const index of description.GlobalSecondaryIndexes ?? []) {
    if (index.ItemCount !== undefined) shares[`${table}/index/${index.IndexName}`] = Math.min(1, index.ItemCount / tableItems);
  }
  return shares;
}

/**
 * A partition at its ceiling without a key to blame, on a resource whose Contributor Insights is
 * off: the key is unknown, not absent, so the first fix is to turn them on and look again.
 */
function withInsightsHint(finding: Finding, target: { readonly kind: 'table' | 'index'; readonly insights: string; readonly query: string } | undefined, table: string): Finding {
  if (finding.code !== 'PARTITION_AT_CEILING' || target === undefined || target.insights === 'ENABLED') return finding;
  const index = target.kind === 'index' ? ` --index-name ${decodeURIComponent(target.query.slice('&index='.length))}` : '';
  return {
    ...finding,
    fixes: [
      `Contributor Insights is off on ${finding.resource}, so the key that holds the partition is not known: enable it (aws dynamodb update-contributor-insights --table-name ${table}${index} --contributor-insights-action ENABLE), run the load again and analyze; a key that explains it is then named, with its fix.`,
      ...finding.fixes,
    ],
  };
}

/** The series from `start` on. */
function fromSecond(series: ResourceSeries, start: number): ResourceSeries {
  if (start === 0) return series;
  return {
    ...series,
    consumedReadUnits: series.consumedReadUnits.slice(start),
    consumedWriteUnits: series.consumedWriteUnits.slice(start),
    throttleEvents: series.throttleEvents.slice(start),
    hottestPartitionShare: series.hottestPartitionShare.slice(start),
    hottestPartitionUnits: series.hottestPartitionUnits.slice(start),
    partitionCount: series.partitionCount.slice(start),
    backlogWriteUnits: series.backlogWriteUnits.slice(start),
    heat: series.heat.slice(start),
  };
}

/** Per-second series of one table or GSI from its heat map document. */
function resourceSeries(name: string, kind: 'table' | 'index', partitionKey: string, heatmap: HeatmapDocument): ResourceSeries {
  const seconds = heatmap.bucketCount;
  const series: ResourceSeries = {
    name,
    kind,
    partitionKey,
    consumedReadUnits: new Array<number>(seconds).fill(0),
    consumedWriteUnits: new Array<number>(seconds).fill(0),
    throttleEvents: new Array<number>(seconds).fill(0),
    hottestPartitionShare: new Array<number>(seconds).fill(0),
    hottestPartitionUnits: new Array<number>(seconds).fill(0),
    partitionCount: new Array<number>(seconds).fill(heatmap.partitions.length),
    backlogWriteUnits: new Array<number>(seconds).fill(0),
    heat: [],
  };
  const writes = heatmap.partitions.some((partition) => partition.writeUnits.some((units) => units > 0));
  for (let second = 0; second < seconds; second++) {
    const heat: HeatSample = { starts: [], units: [], shares: [], throttles: [] };
    let hottest = 0;
    for (const partition of heatmap.partitions) {
      const read = partition.readUnits[second] ?? 0;
      const write = partition.writeUnits[second] ?? 0;
      const throttles = (partition.readThrottles[second] ?? 0) + (partition.writeThrottles[second] ?? 0);
      series.consumedReadUnits[second]! += read;
      series.consumedWriteUnits[second]! += write;
      series.throttleEvents[second]! += throttles;
      const units = writes ? write : read;
      const allocated = writes ? partition.writeUnitsPerSecond : partition.readUnitsPerSecond;
      hottest = Math.max(hottest, units);
      heat.starts.push(parseInt(partition.hashRange[0], 16) / 2 ** 32);
      heat.units.push(units);
      heat.shares.push(allocated > 0 ? units / allocated : 0);
      heat.throttles.push(throttles);
    }
    // Back-pressure refusals are already in the GSI partition's own write throttles (as CloudWatch
    // counts them, on the GSI); the document's backPressure list repeats them, per GSI, for the
    // table's view, so it is not added here.
    const total = writes ? series.consumedWriteUnits[second]! : series.consumedReadUnits[second]!;
    series.hottestPartitionUnits[second] = hottest;
    series.hottestPartitionShare[second] = total > 0 ? hottest / total : 0;
    series.heat.push(heat);
  }
  series.backlogWriteUnits[seconds - 1] = sum(heatmap.partitions.map((partition) => partition.backlogWriteUnits));
  return series;
}

/**
 * The most accessed partition keys (rule PKC) summed over the minutes kept: a KeySummary as the
 * simulation's tally gives, weighted by consumed units instead of items. The count of values is
 * exact only when the contributors listed account for the whole total.
 */
function keySummary(document: InsightsDocument): KeySummary | undefined {
  const rule = document.rules.find((candidate) => candidate.kind === 'PKC');
  if (rule === undefined) return undefined;
  const byKey = new Map<string, number>();
  let total = 0;
  let listed = 0;
  for (const minute of rule.minutes) {
    total += minute.total;
    for (const contributor of minute.contributors) {
      const key = contributor.keys[0] ?? '';
      byKey.set(key, (byKey.get(key) ?? 0) + contributor.value);
      listed += contributor.value;
    }
  }
  if (total === 0) return undefined;
  const top = [...byKey].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([value, count]) => ({ value, count, share: count / total }));
  return { total, distinct: listed >= total * 0.999 ? byKey.size : undefined, top };
}

/** A date (2026-01-01, 20260101), or epoch seconds or milliseconds of this century. */
function clockLike(value: string): boolean {
  if (/^\d{4}-\d{2}-\d{2}(?:[T ]|$)/.test(value) || /^20\d{6}$/.test(value)) return true;
  if (!/^\d{10}(?:\d{3})?$/.test(value)) return false;
  const ms = value.length === 10 ? Number(value) * 1000 : Number(value);
  return ms >= Date.UTC(2000, 0, 1) && ms < Date.UTC(2100, 0, 1);
}

interface KeySchemaElement {
  readonly AttributeName: string;
  readonly KeyType: string;
}

function hashKeyOf(schema: readonly KeySchemaElement[] | undefined): string {
  return schema?.find((element) => element.KeyType === 'HASH')?.AttributeName ?? '';
}

/** What analyze reads of DescribeTable. */
interface TableDescription {
  readonly KeySchema: KeySchemaElement[];
  readonly ItemCount?: number;
  readonly GlobalSecondaryIndexes?: { readonly IndexName: string; readonly KeySchema: KeySchemaElement[]; readonly ItemCount?: number }[];
}

/**
 * DescribeTable through the DynamoDB API: signed with the credentials when given, else with a
 * signature of the right shape only (enough for a twin under `--auth any`).
 */
async function describeTable(access: Access, table: string): Promise<TableDescription> {
  const body = JSON.stringify({ TableName: table });
  const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.DescribeTable' };
  const signed =
    access.credentials === undefined
      ? {
          ...headers,
          'x-amz-date': '20260101T000000Z',
          authorization: 'AWS4-HMAC-SHA256 Credential=analyze/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-target, Signature=0',
        }
      : signRequest({ method: 'POST', url: new URL('/', access.base), headers, body }, access.credentials, access.region, Date.now());
  const response = await request(access.base, '/', { method: 'POST', headers: signed, body });
  const answer = (await response.json()) as { Table?: TableDescription; message?: string; __type?: string };
  if (!response.ok || answer.Table === undefined) {
    const refused = AUTH_REFUSALS.some((type) => answer.__type?.endsWith(type) === true);
    throw new AnalyzeError(`DescribeTable ${table}: HTTP ${response.status}${answer.message === undefined ? '' : `: ${answer.message}`}${refused ? authHint(access) : ''}`);
  }
  return answer.Table;
}

/** GET of one of the twin's own routes: with the token when given, else signed when credentials are. */
async function getJson(access: Access, path: string): Promise<unknown> {
  const url = new URL(path, access.base);
  const headers =
    access.token !== undefined
      ? { authorization: `Bearer ${access.token}` }
      : access.credentials !== undefined
        ? signRequest({ method: 'GET', url, headers: {}, body: '' }, access.credentials, access.region, Date.now())
        : {};
  const response = await request(access.base, path, { method: 'GET', headers });
  if (!response.ok) throw new AnalyzeError(`GET ${path}: HTTP ${response.status}: ${(await response.text()).slice(0, 200)}${response.status === 403 ? authHint(access) : ''}`);
  return response.json();
}

/** DynamoDB's refusals of a request's credentials. */
const AUTH_REFUSALS = ['UnrecognizedClientException', 'InvalidSignatureException', 'IncompleteSignatureException', 'MissingAuthenticationTokenException'];

/** What to do about a refusal by a twin under `--auth verify`. */
function authHint(access: Access): string {
  return access.credentials === undefined
    ? ' (a twin under --auth verify: set AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY to a key it accepts, or pass --token <its inspection token> for its own routes)'
    : '';
}

async function request(base: URL, path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(new URL(path, base), { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    throw new AnalyzeError(`cannot reach ${base.origin}${path}: ${networkCode(error)}`);
  }
}

/** The system error code under fetch's "fetch failed" (ECONNREFUSED ...), or the message. */
function networkCode(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    const { code, errors, cause } = current as { code?: unknown; errors?: unknown[]; cause?: unknown };
    if (typeof code === 'string' && code !== '') return code;
    if (current instanceof Error) message = current.message;
    current = cause ?? errors?.[0];
  }
  return message;
}

function endpointOf(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AnalyzeError(`--endpoint must be a URL such as http://127.0.0.1:8000, got ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AnalyzeError(`--endpoint must be http or https, got ${url.protocol}`);
  return url;
}

function firstIndex(resources: readonly ResourceSeries[], test: (resource: ResourceSeries, second: number) => boolean, seconds: number): number | undefined {
  for (let second = 0; second < seconds; second++) if (resources.some((resource) => test(resource, second))) return second;
  return undefined;
}

/** Throttled writes in a second, over all resources (they are offered writes not accepted). */
function sumAt(resources: readonly ResourceSeries[], second: number): number {
  let total = 0;
  for (const resource of resources) total += resource.throttleEvents[second] ?? 0;
  return total;
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
