/**
 * CloudWatch's read side over dynatwin's metrics (namespace AWS/DynamoDB) and auto scaling's
 * alarms: GetMetricStatistics, GetMetricData, ListMetrics, DescribeAlarms. Each operation takes
 * the request as the protocols decode it (protocol.ts: JSON 1.0, Smithy RPC v2 CBOR, Query) and
 * answers an object whose timestamps are Dates (each protocol writes them its way).
 *
 * The datapoints are the registry's (src/metrics/registry.ts), so a query answers what
 * GET /dynatwin/metrics answers for the same table, metric and period. Periods: 1 s and multiples
 * of 60 s (minute buckets summed), or a divisor of 60 (second buckets summed).
 */
import type { AutoScaling } from '../autoscaling/service.js';
import { highThresholdSum, lowThresholdSum, HIGH_DATAPOINTS, LOW_DATAPOINTS } from '../autoscaling/alarms.js';
import { scalableResourceOf } from '../autoscaling/model.js';
import type { Engine } from '../engine/engine.js';
import { metricDefinition, isOperationName, type MetricName, type OperationName } from '../metrics/catalog.js';
import { MetricsQueryError, type MetricsRegistry } from '../metrics/registry.js';
import type { Datapoint } from '../metrics/series.js';
import { invalidNextToken, invalidParameterCombination, invalidParameterValue, missingParameter } from './errors.js';

export const NAMESPACE = 'AWS/DynamoDB';
const STATISTICS = ['SampleCount', 'Average', 'Sum', 'Minimum', 'Maximum'] as const;
type Statistic = (typeof STATISTICS)[number];
const LIST_METRICS_PAGE = 500;
const DESCRIBE_ALARMS_PAGE = 50;
const QUERIES_MAX = 500;

export type Input = Record<string, unknown>;

export interface CloudWatchContext {
  readonly engine: Engine;
  readonly autoScaling: AutoScaling;
}

export const CLOUDWATCH_OPERATIONS: Readonly<Record<string, (context: CloudWatchContext, input: Input) => object>> = {
  GetMetricStatistics: getMetricStatistics,
  GetMetricData: getMetricData,
  ListMetrics: listMetrics,
  DescribeAlarms: describeAlarms,
};

// ---------------------------------------------------------------------------------------------
// Input readers: the protocols give numbers as numbers (JSON, CBOR) or text (Query)
// ---------------------------------------------------------------------------------------------

function required<T>(value: T | undefined, name: string): T {
  if (value === undefined || value === null) throw missingParameter(name);
  return value;
}

function stringOf(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidParameterValue(`The parameter ${name} must be a string.`);
  return value;
}

function integerOf(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const number = typeof value === 'string' && /^-?[0-9]{1,15}$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number)) throw invalidParameterValue(`The parameter ${name} must be an integer.`);
  return number;
}

function booleanOf(value: unknown, name: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw invalidParameterValue(`The parameter ${name} must be a boolean.`);
}

/** A Date (CBOR tag 1), epoch seconds (JSON) or ISO 8601 text (Query). */
function timestampOf(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  let ms = NaN;
  if (value instanceof Date) ms = value.getTime();
  else if (typeof value === 'number') ms = value * 1000;
  else if (typeof value === 'string') ms = /^[0-9]+(\.[0-9]+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value);
  if (!Number.isFinite(ms)) throw invalidParameterValue(`The parameter ${name} must be a timestamp.`);
  return ms;
}

function listOf(value: unknown, name: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidParameterValue(`The parameter ${name} must be a list.`);
  return value;
}

function objectOf(value: unknown, name: string): Input | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value) || value instanceof Date || value instanceof Uint8Array) {
    throw invalidParameterValue(`The parameter ${name} must be a structure.`);
  }
  return value as Input;
}

interface DimensionInput {
  readonly name: string;
  readonly value: string | undefined;
}

function dimensionsOf(value: unknown, name: string, valueRequired: boolean): DimensionInput[] {
  const list = listOf(value, name);
  if (list.length > 30) throw invalidParameterValue(`The collection ${name} must not have a size greater than 30.`);
  return list.map((entry, index) => {
    const dimension = objectOf(entry, `${name}.member.${index + 1}`) ?? {};
    const dimensionName = required(stringOf(dimension.Name, `${name}.member.${index + 1}.Name`), `${name}.member.${index + 1}.Name`);
    const dimensionValue = stringOf(dimension.Value, `${name}.member.${index + 1}.Value`);
    if (valueRequired && dimensionValue === undefined) throw missingParameter(`${name}.member.${index + 1}.Value`);
    return { name: dimensionName, value: dimensionValue };
  });
}

// ---------------------------------------------------------------------------------------------
// Metric lookup
// ---------------------------------------------------------------------------------------------

/** A metric of AWS/DynamoDB with exactly the dimensions it is published with, or undefined (no such metric: no data). */
interface MetricKey {
  readonly metric: MetricName;
  readonly table: string | undefined;
  readonly index: string | undefined;
  readonly operation: OperationName | undefined;
}

function metricKeyOf(namespace: string, metricName: string, dimensions: readonly DimensionInput[]): MetricKey | undefined {
  const definition = metricDefinition(metricName);
  if (namespace !== NAMESPACE || definition === undefined) return undefined;
  const values = new Map(dimensions.map((dimension) => [dimension.name, dimension.value]));
  if (values.size !== dimensions.length) return undefined;
  for (const name of values.keys()) if (name !== 'TableName' && name !== 'GlobalSecondaryIndexName' && name !== 'Operation') return undefined;
  const operation = values.get('Operation');
  if (operation !== undefined && !isOperationName(operation)) return undefined;
  return { metric: definition.name, table: values.get('TableName'), index: values.get('GlobalSecondaryIndexName'), operation };
}

/** The datapoints of `period` seconds between two times, aggregated from the registry's 1-s or 1-min buckets. */
function datapointsOf(registry: MetricsRegistry, key: MetricKey, periodSeconds: number, startMs: number, endMs: number, nowMs: number): Datapoint[] {
  const base: 1 | 60 = periodSeconds % 60 === 0 ? 60 : 1;
  let result;
  try {
    result = registry.query({ metric: key.metric, table: key.table, index: key.index, operation: key.operation, periodSeconds: base, startMs, endMs: endMs - 1 }, nowMs);
  } catch (error) {
    if (error instanceof MetricsQueryError) return [];
    throw error;
  }
  // The query answers every operation's series when none is named; CloudWatch's dimensions are exact.
  const series = result.metrics.find((metric) => metric.dimensions.Operation === key.operation);
  if (series === undefined) return [];
  if (periodSeconds === base) return [...series.datapoints];
  // Periods longer than a bucket are counted from the start time (rounded down to a whole bucket), as CloudWatch aligns them.
  const periodMs = periodSeconds * 1000;
  const originMs = Math.floor(startMs / (base * 1000)) * base * 1000;
  const groups = new Map<number, { sum: number; min: number; max: number; count: number }>();
  for (const point of series.datapoints) {
    const groupMs = originMs + Math.floor((Date.parse(point.Timestamp) - originMs) / periodMs) * periodMs;
    const group = groups.get(groupMs);
    if (group === undefined) groups.set(groupMs, { sum: point.Sum, min: point.Minimum, max: point.Maximum, count: point.SampleCount });
    else {
      group.sum += point.Sum;
      group.min = Math.min(group.min, point.Minimum);
      group.max = Math.max(group.max, point.Maximum);
      group.count += point.SampleCount;
    }
  }
  return [...groups].map(([groupMs, group]) => ({
    Timestamp: new Date(groupMs).toISOString(),
    Sum: group.sum,
    Average: group.sum / group.count,
    Minimum: group.min,
    Maximum: group.max,
    SampleCount: group.count,
  }));
}

function periodOf(value: unknown, name: string): number {
  const period = required(integerOf(value, name), name);
  if (period < 1) throw invalidParameterValue(`The parameter ${name} must be greater than or equal to 1.`);
  // ⚠ Wording ours: dynatwin keeps 1-second and 1-minute buckets.
  if (period % 60 !== 0 && 60 % period !== 0) throw invalidParameterValue(`The parameter ${name} must be a multiple of 60, or 1, 5, 10, 15, 20 or 30.`);
  return period;
}

function sampleGauges(context: CloudWatchContext, nowMs: number): void {
  // A GSI's ConsumedWriteCapacityUnits is counted as its backlog drains, lazily: bring it to now.
  context.engine.drainIndexBacklogs(nowMs);
  context.engine.telemetry.sampleGauges(context.engine.catalog, nowMs);
}

// ---------------------------------------------------------------------------------------------
// The operations
// ---------------------------------------------------------------------------------------------

function getMetricStatistics(context: CloudWatchContext, input: Input): object {
  const namespace = required(stringOf(input.Namespace, 'Namespace'), 'Namespace');
  const metricName = required(stringOf(input.MetricName, 'MetricName'), 'MetricName');
  const startMs = required(timestampOf(input.StartTime, 'StartTime'), 'StartTime');
  const endMs = required(timestampOf(input.EndTime, 'EndTime'), 'EndTime');
  const period = periodOf(input.Period, 'Period');
  const dimensions = dimensionsOf(input.Dimensions, 'Dimensions', true);
  const statistics = listOf(input.Statistics, 'Statistics').map((statistic, index) => statisticOf(statistic, `Statistics.member.${index + 1}`));
  if (listOf(input.ExtendedStatistics, 'ExtendedStatistics').length > 0) {
    throw invalidParameterValue('dynatwin does not compute percentiles (ExtendedStatistics); use Statistics.');
  }
  if (statistics.length === 0) throw invalidParameterCombination('Must specify either Statistics or ExtendedStatistics, but not both.');
  if (statistics.length > 5) throw invalidParameterValue('The collection Statistics must not have a size greater than 5.');
  if (endMs <= startMs) throw invalidParameterValue('The parameter StartTime must be less than the parameter EndTime.');
  const unit = stringOf(input.Unit, 'Unit');
  const nowMs = context.engine.clock.nowMs();
  sampleGauges(context, nowMs);
  const key = metricKeyOf(namespace, metricName, dimensions);
  const definition = metricDefinition(metricName);
  const points = key === undefined || (unit !== undefined && unit !== definition?.unit) ? [] : datapointsOf(context.engine.telemetry.metrics, key, period, startMs, endMs, nowMs);
  return {
    Label: metricName,
    Datapoints: points.map((point) => {
      const datapoint: Record<string, unknown> = { Timestamp: new Date(point.Timestamp) };
      for (const statistic of STATISTICS) if (statistics.includes(statistic)) datapoint[statistic] = point[statistic];
      datapoint.Unit = definition!.unit;
      return datapoint;
    }),
  };
}

function statisticOf(value: unknown, name: string): Statistic {
  const statistic = stringOf(value, name);
  if (!STATISTICS.includes(statistic as Statistic)) {
    throw invalidParameterValue(`The parameter ${name} must be one of ${STATISTICS.join(', ')}.`);
  }
  return statistic as Statistic;
}

function getMetricData(context: CloudWatchContext, input: Input): object {
  const queries = listOf(required(input.MetricDataQueries, 'MetricDataQueries'), 'MetricDataQueries');
  const startMs = required(timestampOf(input.StartTime, 'StartTime'), 'StartTime');
  const endMs = required(timestampOf(input.EndTime, 'EndTime'), 'EndTime');
  if (input.NextToken !== undefined && input.NextToken !== null) throw invalidNextToken();
  const ascending = stringOf(input.ScanBy, 'ScanBy') === 'TimestampAscending';
  const maxDatapoints = integerOf(input.MaxDatapoints, 'MaxDatapoints') ?? 100_800;
  if (queries.length === 0 || queries.length > QUERIES_MAX) throw invalidParameterValue(`The collection MetricDataQueries must have between 1 and ${QUERIES_MAX} members.`);
  if (endMs <= startMs) throw invalidParameterValue('The parameter StartTime must be less than the parameter EndTime.');
  const nowMs = context.engine.clock.nowMs();
  sampleGauges(context, nowMs);
  const results: object[] = [];
  let budget = maxDatapoints;
  queries.forEach((entry, index) => {
    const path = `MetricDataQueries.member.${index + 1}`;
    const query = objectOf(entry, path) ?? {};
    const id = required(stringOf(query.Id, `${path}.Id`), `${path}.Id`);
    if (!/^[a-z][a-zA-Z0-9_]{0,254}$/.test(id)) throw invalidParameterValue(`The value ${id} for parameter ${path}.Id is not valid: it must start with a lowercase letter and contain only letters, numbers and underscores.`);
    if (query.Expression !== undefined) throw invalidParameterValue(`dynatwin does not evaluate metric math expressions (${path}.Expression).`);
    const stat = objectOf(required(query.MetricStat, `${path}.MetricStat`), `${path}.MetricStat`)!;
    const metric = objectOf(required(stat.Metric, `${path}.MetricStat.Metric`), `${path}.MetricStat.Metric`)!;
    const metricName = required(stringOf(metric.MetricName, `${path}.MetricStat.Metric.MetricName`), `${path}.MetricStat.Metric.MetricName`);
    const namespace = required(stringOf(metric.Namespace, `${path}.MetricStat.Metric.Namespace`), `${path}.MetricStat.Metric.Namespace`);
    const dimensions = dimensionsOf(metric.Dimensions, `${path}.MetricStat.Metric.Dimensions`, true);
    const period = periodOf(stat.Period, `${path}.MetricStat.Period`);
    const statistic = statisticOf(stat.Stat, `${path}.MetricStat.Stat`);
    if (booleanOf(query.ReturnData, `${path}.ReturnData`) === false) return;
    const key = metricKeyOf(namespace, metricName, dimensions);
    let points = key === undefined ? [] : datapointsOf(context.engine.telemetry.metrics, key, period, startMs, endMs, nowMs);
    if (!ascending) points = points.reverse();
    points = points.slice(0, Math.max(0, budget));
    budget -= points.length;
    results.push({
      Id: id,
      Label: stringOf(query.Label, `${path}.Label`) ?? metricName,
      Timestamps: points.map((point) => new Date(point.Timestamp)),
      Values: points.map((point) => point[statistic]),
      StatusCode: 'Complete',
    });
  });
  return { MetricDataResults: results, Messages: [] };
}

function listMetrics(context: CloudWatchContext, input: Input): object {
  const namespace = stringOf(input.Namespace, 'Namespace');
  const metricName = stringOf(input.MetricName, 'MetricName');
  const filters = dimensionsOf(input.Dimensions, 'Dimensions', false);
  const start = pageStartOf(input.NextToken);
  if (namespace !== undefined && namespace !== NAMESPACE) return { Metrics: [] };
  sampleGauges(context, context.engine.clock.nowMs());
  const metrics: object[] = [];
  for (const series of context.engine.telemetry.metrics.all()) {
    if (series.ring(60) === undefined || (metricName !== undefined && series.definition.name !== metricName)) continue;
    const dimensions = seriesDimensions(series.key);
    if (!filters.every((filter) => dimensions.some((dimension) => dimension.Name === filter.name && (filter.value === undefined || dimension.Value === filter.value)))) continue;
    metrics.push({ Namespace: NAMESPACE, MetricName: series.definition.name, Dimensions: dimensions });
  }
  const page = metrics.slice(start, start + LIST_METRICS_PAGE);
  return { Metrics: page, ...(start + LIST_METRICS_PAGE < metrics.length ? { NextToken: `o${start + LIST_METRICS_PAGE}` } : {}) };
}

function seriesDimensions(key: { readonly table?: string; readonly index?: string; readonly operation?: string }): { Name: string; Value: string }[] {
  const dimensions: { Name: string; Value: string }[] = [];
  if (key.table !== undefined) dimensions.push({ Name: 'TableName', Value: key.table });
  if (key.index !== undefined) dimensions.push({ Name: 'GlobalSecondaryIndexName', Value: key.index });
  if (key.operation !== undefined) dimensions.push({ Name: 'Operation', Value: key.operation });
  return dimensions;
}

function pageStartOf(token: unknown): number {
  if (token === undefined || token === null) return 0;
  const match = typeof token === 'string' ? /^o([0-9]{1,9})$/.exec(token) : null;
  if (match === null) throw invalidNextToken();
  return Number(match[1]);
}

/** The target-tracking alarms auto scaling made, with their state now (autoscaling/alarms.ts). */
function describeAlarms(context: CloudWatchContext, input: Input): object {
  const names = listOf(input.AlarmNames, 'AlarmNames').map((name, index) => stringOf(name, `AlarmNames.member.${index + 1}`));
  const prefix = stringOf(input.AlarmNamePrefix, 'AlarmNamePrefix');
  const actionPrefix = stringOf(input.ActionPrefix, 'ActionPrefix');
  const state = stringOf(input.StateValue, 'StateValue');
  const types = listOf(input.AlarmTypes, 'AlarmTypes');
  const maxRecords = integerOf(input.MaxRecords, 'MaxRecords') ?? DESCRIBE_ALARMS_PAGE;
  if (maxRecords < 1 || maxRecords > 100) throw invalidParameterValue('The parameter MaxRecords must be between 1 and 100.');
  if (names.length > 0 && prefix !== undefined) throw invalidParameterCombination('AlarmNames and AlarmNamePrefix cannot be specified together.');
  const start = pageStartOf(input.NextToken);
  if (types.length > 0 && !types.includes('MetricAlarm')) return { MetricAlarms: [], CompositeAlarms: [] };
  const alarms: object[] = [];
  for (const alarm of context.autoScaling.alarms()) {
    if (names.length > 0 && !names.includes(alarm.name)) continue;
    if (prefix !== undefined && !alarm.name.startsWith(prefix)) continue;
    if (state !== undefined && alarm.state !== state) continue;
    if (actionPrefix !== undefined && !alarm.policy.arn.startsWith(actionPrefix)) continue;
    alarms.push(metricAlarm(context, alarm));
  }
  const page = alarms.slice(start, start + maxRecords);
  return { MetricAlarms: page, CompositeAlarms: [], ...(start + maxRecords < alarms.length ? { NextToken: `o${start + maxRecords}` } : {}) };
}

function metricAlarm(context: CloudWatchContext, alarm: ReturnType<AutoScaling['alarms']> extends IterableIterator<infer View> ? View : never): object {
  const { policy } = alarm;
  const resource = scalableResourceOf(policy.resourceId, policy.dimension)!;
  const capacity = context.autoScaling.currentCapacity(resource) ?? 0;
  const high = alarm.kind === 'high';
  const threshold = high ? highThresholdSum(policy.targetValue, capacity) : lowThresholdSum(policy.targetValue, capacity);
  const periods = high ? HIGH_DATAPOINTS : LOW_DATAPOINTS;
  return {
    AlarmName: alarm.name,
    AlarmArn: alarm.arn,
    AlarmDescription: `DO NOT EDIT OR DELETE. For TargetTrackingScaling policy ${policy.arn}.`,
    AlarmConfigurationUpdatedTimestamp: new Date(policy.createdMs),
    ActionsEnabled: true,
    OKActions: [],
    AlarmActions: [policy.arn],
    InsufficientDataActions: [],
    StateValue: alarm.state,
    StateReason:
      alarm.state === 'ALARM'
        ? `Threshold Crossed: ${periods} datapoints were ${high ? 'greater' : 'less'} than the threshold (${threshold}).`
        : alarm.state === 'OK'
          ? `Threshold Crossed: the latest ${periods} datapoints were not all ${high ? 'greater' : 'less'} than the threshold (${threshold}).`
          : 'Unchecked: Initial alarm creation',
    StateUpdatedTimestamp: new Date(alarm.stateUpdatedMs),
    MetricName: resource.direction === 'read' ? 'ConsumedReadCapacityUnits' : 'ConsumedWriteCapacityUnits',
    Namespace: NAMESPACE,
    Statistic: 'Sum',
    Dimensions: seriesDimensions({ table: resource.table, index: resource.index }),
    Period: 60,
    EvaluationPeriods: periods,
    DatapointsToAlarm: periods,
    Threshold: threshold,
    ComparisonOperator: high ? 'GreaterThanThreshold' : 'LessThanThreshold',
  };
}
