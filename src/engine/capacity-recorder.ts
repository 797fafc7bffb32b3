/**
 * The record step for capacity: what a request's demands consumed, or which one was throttled,
 * goes to the CloudWatch-style metrics, the partition heat-map history and Contributor Insights
 * (src/metrics). One recorder per engine; per-resource metric handles are resolved once and kept
 * with the resource's admission state (a WeakMap, so they go with it).
 *
 * Counted as CloudWatch counts (reference §6.1): Consumed*CapacityUnits get one sample per request
 * and resource (Sum = units, SampleCount = requests), except a GSI's writes, counted when its
 * partitions serve them from their backlog (spread over the span each lazy drain covers); a
 * throttle verdict is one *ThrottleEvents on the throttled resource (for GSI back-pressure, the
 * GSI) plus the per-reason metric.
 */
import assert from 'node:assert/strict';
import { isBacklogWrite, type Demand, type Direction, type ResourceCapacity, type ThrottleVerdict } from '../capacity/admission.js';
import { metricDefinition, type MetricName } from '../metrics/catalog.js';
import type { MetricSeries, SeriesKey } from '../metrics/series.js';
import type { PartitionHistory } from '../metrics/partition-history.js';
import type { Telemetry } from '../metrics/telemetry.js';
import { keyText } from '../metrics/insights.js';
import { ownMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import type { KeyAttribute, KeyShape } from './table.js';

/** What a demand was made for: the item (or entry) whose key Contributor Insights counts. */
export interface DemandKey {
  readonly item: AttributeMap;
  readonly key: KeyShape;
}

/** A demand with the key Contributor Insights counts it under (undefined: none). */
export interface CountedDemand extends Demand {
  readonly key: DemandKey | undefined;
}

/** A resource's metric handles and history. */
interface ResourceSinks {
  readonly table: string;
  readonly index: string | undefined;
  readonly consumed: Readonly<Record<Direction, MetricSeries>>;
  readonly throttleEvents: Readonly<Record<Direction, MetricSeries>>;
  readonly byReason: Map<MetricName, MetricSeries>;
  readonly history: PartitionHistory;
  /** Units of the request being recorded, summed per direction (admitted's scratch; 0 between calls). */
  pendingRead: number;
  pendingWrite: number;
}

const INDEX_MARKER = '/index/';
const TABLE_MARKER = ':table/';

export class CapacityRecorder {
  readonly #telemetry: Telemetry;
  readonly #sinks = new WeakMap<ResourceCapacity, ResourceSinks>();
  /** admitted's scratch: the sinks with pending units, in first-seen order (the first `#touchedCount`). */
  readonly #touched: ResourceSinks[] = [];
  #touchedCount = 0;
  /** Between deferSamples and flushSamples: a batch's items add to one sample per resource. */
  #deferred = false;

  constructor(telemetry: Telemetry) {
    this.#telemetry = telemetry;
  }

  /**
   * An admitted request: per resource one Consumed* sample of its units; per demand its units on
   * the partition's history and, when Contributor Insights records the table, its key.
   */
  admitted(demands: readonly CountedDemand[], count: number, nowMs: number): void {
    // One sample per request, resource and direction: each resource's units are summed on its
    // sinks (a request touches few resources), then recorded in the order the resources came.
    // Nothing is allocated: `#touched` is reused, its entries past `#touchedCount` are stale.
    const touched = this.#touched;
    // A call that threw midway (a bug) must not leave its units to the next request's samples;
    // while a batch defers its samples, the units pending are its earlier items'.
    if (!this.#deferred && this.#touchedCount !== 0) this.#clearPending();
    assert(count >= 0 && count <= demands.length, 'a demand count is within its list');
    for (let at = 0; at < count; at++) {
      const demand = demands[at]!;
      const sinks = this.#sinksOf(demand.resource);
      const key = demand.key;
      if (key !== undefined) this.#recordAccess(sinks, key, demand, nowMs);
      // A GSI write waits in its partition's backlog: its history and its Consumed* count it when
      // the partition serves it (onDrain), as CloudWatch does, not when it joins the backlog.
      if (isBacklogWrite(demand)) continue;
      sinks.history.record(demand.partition.id, demand.direction, demand.units, nowMs);
      if (sinks.pendingRead === 0 && sinks.pendingWrite === 0) {
        const count = this.#touchedCount++;
        if (count < touched.length) touched[count] = sinks;
        else touched.push(sinks);
      }
      if (demand.direction === 'read') sinks.pendingRead += demand.units;
      else sinks.pendingWrite += demand.units;
    }
    if (!this.#deferred) this.#recordPending(nowMs);
  }

  /**
   * A batch (BatchWriteItem, BatchGetItem) admits each item on its own, but CloudWatch counts one
   * Consumed* sample per request and resource: until flushSamples, admitted items only add up.
   */
  deferSamples(): void {
    assert(!this.#deferred, 'deferSamples is not nested');
    if (this.#touchedCount !== 0) this.#clearPending();
    this.#deferred = true;
  }

  /** Records what the items since deferSamples consumed: one sample per resource and direction. */
  flushSamples(nowMs: number): void {
    this.#deferred = false;
    this.#recordPending(nowMs);
  }

  #recordPending(nowMs: number): void {
    const touched = this.#touched;
    const count = this.#touchedCount;
    this.#touchedCount = 0;
    for (let at = 0; at < count; at++) {
      const sinks = touched[at]!;
      const read = sinks.pendingRead;
      const write = sinks.pendingWrite;
      sinks.pendingRead = 0;
      sinks.pendingWrite = 0;
      if (read > 0) sinks.consumed.read.record(read, nowMs);
      if (write > 0) sinks.consumed.write.record(write, nowMs);
    }
  }

  #clearPending(): void {
    for (let at = 0; at < this.#touchedCount; at++) {
      const sinks = this.#touched[at]!;
      sinks.pendingRead = 0;
      sinks.pendingWrite = 0;
    }
    this.#touchedCount = 0;
  }

  /** A throttled request: one throttle event on the resource that refused it. */
  throttled(verdict: ThrottleVerdict, demands: readonly CountedDemand[], nowMs: number): void {
    const refused = demands[verdict.demandIndex]!;
    // Back-pressure names the GSI; its refusal is counted there (reference §3.5).
    const resource = verdict.backPressure ? refused.resource.indexes.find((index) => index.arn === verdict.resourceArn) ?? refused.resource : refused.resource;
    const sinks = this.#sinksOf(resource);
    sinks.throttleEvents[verdict.direction].record(1, nowMs);
    this.#reasonSeries(sinks, verdict).record(1, nowMs);
    sinks.history.recordThrottle(verdict.partitionId, verdict.direction, nowMs);
    const key = refused.key;
    // AWS does not count back-pressure refusals as throttled keys (§6.2).
    if (key !== undefined && !verdict.backPressure && this.#keysWanted(sinks, key, nowMs)) {
      const partitionKey = partitionKeyOf(key);
      if (partitionKey !== undefined) this.#telemetry.insights.recordThrottle(sinks.table, sinks.index, partitionKey, sortKeyOf(key), nowMs);
    }
  }

  #recordAccess(sinks: ResourceSinks, key: DemandKey, demand: Demand, nowMs: number): void {
    if (!this.#keysWanted(sinks, key, nowMs)) return;
    const partitionKey = partitionKeyOf(key);
    if (partitionKey === undefined) return;
    const sortKey = sortKeyOf(key);
    const read = demand.direction === 'read' ? demand.units : 0;
    this.#telemetry.insights.recordAccess(sinks.table, sinks.index, partitionKey, sortKey, read, demand.units - read, nowMs);
  }

  /** A multi-attribute key's tuple is built only while Contributor Insights records its index. */
  #keysWanted(sinks: ResourceSinks, key: DemandKey, nowMs: number): boolean {
    return key.key.multi === undefined || this.#telemetry.insights.isRecording(sinks.table, sinks.index, nowMs);
  }

  #reasonSeries(sinks: ResourceSinks, verdict: ThrottleVerdict): MetricSeries {
    const metric = reasonMetric(verdict);
    let series = sinks.byReason.get(metric);
    if (series === undefined) {
      series = this.#telemetry.metrics.series(seriesKey(metric, sinks));
      sinks.byReason.set(metric, series);
    }
    return series;
  }

  #sinksOf(resource: ResourceCapacity): ResourceSinks {
    let sinks = this.#sinks.get(resource);
    if (sinks === undefined) {
      const { table, index } = namesOf(resource.arn);
      const metrics = this.#telemetry.metrics;
      const base = { table, index };
      sinks = {
        table,
        index,
        consumed: {
          read: metrics.series(seriesKey('ConsumedReadCapacityUnits', base)),
          write: metrics.series(seriesKey('ConsumedWriteCapacityUnits', base)),
        },
        throttleEvents: {
          read: metrics.series(seriesKey('ReadThrottleEvents', base)),
          write: metrics.series(seriesKey('WriteThrottleEvents', base)),
        },
        byReason: new Map(),
        history: this.#telemetry.partitionHistory.resource(table, index),
        pendingRead: 0,
        pendingWrite: 0,
      };
      this.#sinks.set(resource, sinks);
      const history = sinks.history;
      const consumedWrite = sinks.consumed.write;
      if (resource.kind === 'Index') {
        resource.onDrain = (partitionId, units, fromMs, toMs) => {
          history.recordSpan(partitionId, 'write', units, fromMs, toMs);
          consumedWrite.recordSpan(units, fromMs, toMs);
        };
      }
    }
    return sinks;
  }
}

function seriesKey(metric: MetricName, names: { readonly table: string; readonly index: string | undefined }): SeriesKey {
  return names.index === undefined ? { metric, table: names.table } : { metric, table: names.table, index: names.index };
}

/** The partition key Contributor Insights counts a demand under (a multi-attribute key's as a tuple). */
function partitionKeyOf(key: DemandKey): AttributeValue | undefined {
  const multi = key.key.multi;
  return multi === undefined ? ownMember(key.item, key.key.hash.name) : tupleOf(key.item, multi.hashes);
}

function sortKeyOf(key: DemandKey): AttributeValue | undefined {
  const multi = key.key.multi;
  if (multi !== undefined) return multi.ranges.length === 0 ? undefined : tupleOf(key.item, multi.ranges);
  return key.key.range === undefined ? undefined : ownMember(key.item, key.key.range.name);
}

/**
 * A multi-attribute key's values as one key for Contributor Insights and the dashboard: the JSON
 * array of their texts (`["T1","NA-EAST"]`), which is how a reader tells the attributes apart.
 */
function tupleOf(item: AttributeMap, attributes: readonly KeyAttribute[]): AttributeValue | undefined {
  const texts: string[] = [];
  for (const attribute of attributes) {
    const value = ownMember(item, attribute.name);
    if (value === undefined || !(attribute.type in value)) return undefined;
    texts.push(keyText(value));
  }
  return { S: JSON.stringify(texts) };
}

/** `Write` + `KeyRangeThroughput` + `ThrottleEvents`, from the verdict's limit (reference §6.1). */
function reasonMetric(verdict: ThrottleVerdict): MetricName {
  const side = verdict.direction === 'read' ? 'Read' : 'Write';
  const name = `${side}${verdict.limit.replace(/Exceeded$/, '')}ThrottleEvents`;
  const definition = metricDefinition(name);
  if (definition === undefined) throw new Error(`assertion failed: no metric ${name} for throttle limit ${verdict.limit}`);
  return definition.name;
}

/** The table and GSI names an ARN names (`…:table/<t>` or `…:table/<t>/index/<i>`). */
function namesOf(arn: string): { table: string; index: string | undefined } {
  const path = arn.slice(arn.indexOf(TABLE_MARKER) + TABLE_MARKER.length);
  const at = path.indexOf(INDEX_MARKER);
  return at < 0 ? { table: path, index: undefined } : { table: path.slice(0, at), index: path.slice(at + INDEX_MARKER.length) };
}
