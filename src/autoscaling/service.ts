/**
 * Application Auto Scaling for one engine: the API's state (store.ts) and the target-tracking
 * evaluator that acts on it.
 *
 * The evaluator runs on the injected clock's ticks, the same trigger as TTL sweeps (a ManualClock's
 * advance(), or the real clock's once-a-second check): when a minute has ended it evaluates that
 * minute's datapoint for every policy — O(policies) per minute, nothing on the request path. Each
 * policy keeps its last 15 minute Sums (alarms.ts); a breach makes the scalable target's capacity
 * change through the UpdateTable operation itself (the path a user's call takes: DescribeTable,
 * the daily decrease quota, partition splits, the UPDATING time), recorded as a scaling activity
 * with AWS's texts. Minutes the clock jumped over are evaluated in order (at most the metrics'
 * retention of them: older minutes have no data and would all read 0), each acting at the time
 * the clock is at.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Engine } from '../engine/engine.js';
import { DueWork } from '../engine/due-work.js';
import { DynamoError } from '../errors.js';
import type { MetricName } from '../metrics/catalog.js';
import { MINUTE_MS } from '../metrics/series.js';
import { invokeOperation } from '../operations/invoke.js';
import { updateTableOperation } from '../operations/updateTable.js';
import { alarmStates, capacityForTarget, DatapointWindow, type AlarmStates } from './alarms.js';
import { unitsWord, type ActivityRecord, type PolicyRecord, type ScalableResource, type ScalableTargetRecord, scalableResourceOf, alarmNames } from './model.js';
import { AutoScalingStore, targetKey } from './store.js';

/** A policy's evaluation state: its datapoints and its alarms' states now (memory only, like the metrics). */
interface PolicyRuntime {
  readonly window: DatapointWindow;
  states: AlarmStates;
  /** When each alarm last changed state (DescribeAlarms' StateUpdatedTimestamp). */
  highChangedMs: number;
  lowChangedMs: number;
}

/** When a target last scaled each way, for the cooldowns. */
interface TargetRuntime {
  lastScaleOutMs: number;
  lastScaleInMs: number;
}

/** One scaling step to make: through UpdateTable, with the activity's cause. */
export interface CapacityChange {
  readonly target: ScalableTargetRecord;
  readonly resource: ScalableResource;
  readonly capacity: number;
  readonly cause: string;
}

export interface AlarmView {
  readonly name: string;
  readonly arn: string;
  readonly policy: PolicyRecord;
  readonly kind: 'high' | 'low';
  readonly state: AlarmStates['high'];
  readonly stateUpdatedMs: number;
}

export class AutoScaling {
  readonly store: AutoScalingStore;
  readonly #engine: Engine;
  readonly #policies = new Map<string, PolicyRuntime>();
  readonly #targets = new Map<string, TargetRuntime>();
  #lastEvaluatedMinute: number;
  /** Runs the evaluations as minutes end on the clock, one pass at a time (engine/due-work.ts). */
  readonly #work: DueWork;

  private constructor(engine: Engine, store: AutoScalingStore) {
    this.#engine = engine;
    this.store = store;
    this.#lastEvaluatedMinute = Math.floor(engine.clock.nowMs() / MINUTE_MS) - 1;
    this.#work = new DueWork(
      () => Math.floor(this.#engine.clock.nowMs() / MINUTE_MS) - 1 > this.#lastEvaluatedMinute,
      () => this.#evaluateDueMinutes(),
    );
  }

  /** Loads the persisted targets and policies and attaches the evaluator to the engine's clock. */
  static open(engine: Engine): AutoScaling {
    const service = new AutoScaling(engine, AutoScalingStore.open(engine.storage));
    service.#work.attach(engine.clock);
    return service;
  }

  get engine(): Engine {
    return this.#engine;
  }

  /** Starts the evaluation of the minutes that have ended, if any; O(1) when none has. */
  poke(): void {
    this.#work.poke();
  }

  /** Resolves once the evaluations due so far (and the capacity changes they made) are done. */
  settled(): Promise<void> {
    return this.#work.settled();
  }

  stop(): Promise<void> {
    return this.#work.stop();
  }

  async #evaluateDueMinutes(): Promise<void> {
    await nextTurn();
    const lastMinute = Math.floor(this.#engine.clock.nowMs() / MINUTE_MS) - 1;
    const retainedMinutes = this.#engine.telemetry.metrics.options.retentionMs / MINUTE_MS;
    let minute = Math.max(this.#lastEvaluatedMinute + 1, lastMinute - retainedMinutes + 1);
    for (; minute <= lastMinute && !this.#work.stopped; minute++) {
      try {
        await this.#evaluateMinute(minute);
      } catch (error) {
        (this.#engine.settings.log ?? console.error)('dynatwin auto scaling: ' + (error instanceof Error ? error.stack : String(error)));
      }
      this.#lastEvaluatedMinute = minute;
    }
  }

  /** One minute's datapoint for every policy, then each target's step, if any. */
  async #evaluateMinute(minute: number): Promise<void> {
    const nowMs = this.#engine.clock.nowMs();
    // A GSI's consumption is counted when its backlog drains, which admission does lazily.
    if (this.store.policies.size > 0) this.#engine.drainIndexBacklogs(nowMs);
    const changes: CapacityChange[] = [];
    for (const [id, policies] of this.store.policies) {
      const target = this.store.targets.get(id);
      if (target === undefined) continue;
      const resource = scalableResourceOf(target.resourceId, target.dimension)!;
      const capacity = this.currentCapacity(resource);
      const watched: { policy: PolicyRecord; runtime: PolicyRuntime }[] = [];
      for (const policy of policies.values()) {
        if (minute < Math.ceil(policy.createdMs / MINUTE_MS)) continue;
        const runtime = this.#runtimeOf(policy);
        runtime.window.push(this.#minuteSum(resource, minute));
        if (capacity !== undefined) this.#setStates(runtime, alarmStates(runtime.window, policy.targetValue, capacity, policy.disableScaleIn), nowMs);
        watched.push({ policy, runtime });
      }
      if (capacity === undefined || watched.length === 0) continue;
      const change = this.#step(target, resource, capacity, watched, nowMs);
      if (change !== undefined) changes.push(change);
    }
    for (const change of changes) await this.apply(change);
  }

  /**
   * Target tracking's decision for one target: scale out to the largest capacity any policy in
   * ALARM high asks for; scale in only when every policy that may scale in is in ALARM low and no
   * policy is high, to the largest capacity any policy asks for (so every target stays met) —
   * within the target's bounds, outside the cooldowns and suspensions.
   */
  #step(target: ScalableTargetRecord, resource: ScalableResource, capacity: number, watched: readonly { policy: PolicyRecord; runtime: PolicyRuntime }[], nowMs: number): CapacityChange | undefined {
    const runtime = this.#targetRuntimeOf(target);
    const clamp = (units: number): number => Math.min(target.maxCapacity, Math.max(target.minCapacity, units));
    const wanted = (entry: { policy: PolicyRecord; runtime: PolicyRuntime }): number => capacityForTarget(entry.runtime.window.latest(), entry.policy.targetValue);
    const high = watched.filter((entry) => entry.runtime.states.high === 'ALARM');
    if (high.length > 0) {
      if (target.suspendedOut) return undefined;
      const trigger = high.reduce((best, entry) => (wanted(entry) > wanted(best) ? entry : best));
      const units = clamp(wanted(trigger));
      const cooldownMs = Math.max(...high.map((entry) => entry.policy.scaleOutCooldownSeconds)) * 1000;
      if (units <= capacity || nowMs < runtime.lastScaleOutMs + cooldownMs) return undefined;
      return { target, resource, capacity: units, cause: alarmCause(trigger.policy, 'high') };
    }
    const scalingIn = watched.filter((entry) => !entry.policy.disableScaleIn);
    if (target.suspendedIn || scalingIn.length === 0 || !scalingIn.every((entry) => entry.runtime.states.low === 'ALARM')) return undefined;
    const units = clamp(Math.max(...watched.map(wanted)));
    const cooldownMs = Math.max(...scalingIn.map((entry) => entry.policy.scaleInCooldownSeconds)) * 1000;
    if (units >= capacity || nowMs < runtime.lastScaleInMs + cooldownMs) return undefined;
    return { target, resource, capacity: units, cause: alarmCause(scalingIn[0]!.policy, 'low') };
  }

  /**
   * Sets a target's capacity with UpdateTable and records the activity. A table still busy with
   * another update (ResourceInUseException) is tried again at the next evaluation, unrecorded; a
   * refusal (the daily decrease quota) is a Failed activity, recorded once while it repeats.
   */
  async apply(change: CapacityChange): Promise<void> {
    const { resource, capacity } = change;
    const input = this.#updateTableInput(resource, capacity);
    if (input === undefined) return;
    const startMs = this.#engine.clock.nowMs();
    const previous = this.currentCapacity(resource);
    const base = {
      resourceId: resource.resourceId,
      dimension: resource.dimension,
      description: `Setting ${unitsWord(resource.direction)} to ${capacity}.`,
      cause: change.cause,
      startMs,
    };
    try {
      await invokeOperation(this.#engine, updateTableOperation, input);
    } catch (error) {
      if (!(error instanceof DynamoError) || error.code === 'ResourceInUseException' || error.code === 'ResourceNotFoundException') {
        if (!(error instanceof DynamoError)) throw error;
        return;
      }
      const statusMessage = `Failed to set ${unitsWord(resource.direction)} to ${capacity}. Reason: ${error.message}`;
      const last = this.store.activities.get(targetKey(resource.resourceId, resource.dimension))?.[0];
      if (last?.statusCode === 'Failed' && last.description === base.description && last.statusMessage === statusMessage) return;
      await this.store.addActivity({ id: randomUUID(), ...base, endMs: this.#engine.clock.nowMs(), statusCode: 'Failed', statusMessage });
      return;
    }
    const runtime = this.#targetRuntimeOf(change.target);
    if (previous !== undefined) {
      if (capacity >= previous) runtime.lastScaleOutMs = startMs;
      else runtime.lastScaleInMs = startMs;
    }
    const activity: ActivityRecord = {
      id: randomUUID(),
      ...base,
      endMs: this.#fulfilledAtMs(resource),
      statusCode: 'Successful',
      statusMessage: `Successfully set ${unitsWord(resource.direction)} to ${capacity}. Change successfully fulfilled by dynamodb.`,
    };
    await this.store.addActivity(activity);
    this.#recordProvisioned(resource, previous, capacity, startMs);
  }

  /**
   * When the table finishes the update: at once, or once an update delay (`--table-update-delay`,
   * the table UPDATING until `updatingUntilMs`) has passed. Until then the activity reads
   * InProgress (activityView), as AWS's does while DynamoDB fulfils the change.
   */
  #fulfilledAtMs(resource: ScalableResource): number {
    const nowMs = this.#engine.clock.nowMs();
    const record = this.#engine.catalog.get(resource.table)?.record as { readonly updatingUntilMs?: number } | undefined;
    return Math.max(nowMs, record?.updatingUntilMs ?? nowMs);
  }

  /**
   * The Provisioned*CapacityUnits gauge gets the step at the moment it was made (the old value,
   * then the new one), not only when a reader next samples the gauges: the dashboard's line and
   * CloudWatch's Minimum / Maximum show each scaling step where it happened.
   */
  #recordProvisioned(resource: ScalableResource, previous: number | undefined, capacity: number, nowMs: number): void {
    if (!this.#engine.metricsEnabled) return;
    const metric: MetricName = resource.direction === 'read' ? 'ProvisionedReadCapacityUnits' : 'ProvisionedWriteCapacityUnits';
    const series = this.#engine.telemetry.metrics.series({ metric, table: resource.table, index: resource.index });
    if (previous !== undefined) series.record(previous, nowMs);
    series.record(capacity, nowMs);
  }

  /** The UpdateTable request that sets one dimension and keeps the other, or undefined when the resource is not provisioned. */
  #updateTableInput(resource: ScalableResource, capacity: number): Record<string, unknown> | undefined {
    const record = this.#engine.catalog.get(resource.table)?.record;
    if (record === undefined || record.billingMode !== 'PROVISIONED') return undefined;
    const throughput = resource.index === undefined ? record.throughput : record.globalSecondaryIndexes.find((index) => index.name === resource.index)?.throughput;
    if (throughput === undefined) return undefined;
    const provisioned = {
      ReadCapacityUnits: resource.direction === 'read' ? capacity : throughput.readCapacityUnits,
      WriteCapacityUnits: resource.direction === 'write' ? capacity : throughput.writeCapacityUnits,
    };
    if (resource.index === undefined) return { TableName: resource.table, ProvisionedThroughput: provisioned };
    return { TableName: resource.table, GlobalSecondaryIndexUpdates: [{ Update: { IndexName: resource.index, ProvisionedThroughput: provisioned } }] };
  }

  /** The provisioned units of a resource now, or undefined (no such table or GSI, or on-demand). */
  currentCapacity(resource: ScalableResource): number | undefined {
    const record = this.#engine.catalog.get(resource.table)?.record;
    if (record === undefined || record.billingMode !== 'PROVISIONED') return undefined;
    const throughput = resource.index === undefined ? record.throughput : record.globalSecondaryIndexes.find((index) => index.name === resource.index)?.throughput;
    if (throughput === undefined) return undefined;
    return resource.direction === 'read' ? throughput.readCapacityUnits : throughput.writeCapacityUnits;
  }

  #minuteSum(resource: ScalableResource, minute: number): number {
    const metric: MetricName = resource.direction === 'read' ? 'ConsumedReadCapacityUnits' : 'ConsumedWriteCapacityUnits';
    return this.#engine.telemetry.metrics.find({ metric, table: resource.table, index: resource.index })?.ring(60)?.read(minute)?.sum ?? 0;
  }

  #runtimeOf(policy: PolicyRecord): PolicyRuntime {
    let runtime = this.#policies.get(policy.arn);
    if (runtime === undefined) {
      runtime = {
        window: new DatapointWindow(),
        states: { high: 'INSUFFICIENT_DATA', low: policy.disableScaleIn ? undefined : 'INSUFFICIENT_DATA' },
        highChangedMs: policy.createdMs,
        lowChangedMs: policy.createdMs,
      };
      this.#policies.set(policy.arn, runtime);
    }
    return runtime;
  }

  #setStates(runtime: PolicyRuntime, states: AlarmStates, nowMs: number): void {
    if (states.high !== runtime.states.high) runtime.highChangedMs = nowMs;
    if (states.low !== runtime.states.low) runtime.lowChangedMs = nowMs;
    runtime.states = states;
  }

  #targetRuntimeOf(target: ScalableTargetRecord): TargetRuntime {
    const id = targetKey(target.resourceId, target.dimension);
    let runtime = this.#targets.get(id);
    if (runtime === undefined) this.#targets.set(id, (runtime = { lastScaleOutMs: -Infinity, lastScaleInMs: -Infinity }));
    return runtime;
  }

  /** A policy was replaced (PutScalingPolicy on its name) or deleted: its alarms start again. */
  forgetPolicy(policy: PolicyRecord): void {
    this.#policies.delete(policy.arn);
  }

  /** The target-tracking alarms of every policy with their states (CloudWatch's DescribeAlarms). */
  *alarms(): IterableIterator<AlarmView> {
    const { region, accountId } = this.#engine.settings;
    for (const policy of this.store.allPolicies()) {
      const runtime = this.#runtimeOf(policy);
      const names = alarmNames(policy);
      yield { name: names.high, arn: `arn:aws:cloudwatch:${region}:${accountId}:alarm:${names.high}`, policy, kind: 'high', state: runtime.states.high, stateUpdatedMs: runtime.highChangedMs };
      if (names.low !== undefined) {
        yield { name: names.low, arn: `arn:aws:cloudwatch:${region}:${accountId}:alarm:${names.low}`, policy, kind: 'low', state: runtime.states.low ?? 'INSUFFICIENT_DATA', stateUpdatedMs: runtime.lowChangedMs };
      }
    }
  }
}

/** "monitor alarm <name> in state ALARM triggered policy <policy>", the Cause AWS gives (§13). */
function alarmCause(policy: PolicyRecord, kind: 'high' | 'low'): string {
  const names = alarmNames(policy);
  return `monitor alarm ${kind === 'high' ? names.high : names.low} in state ALARM triggered policy ${policy.name}`;
}
