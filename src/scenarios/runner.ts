/**
 * Runs one design variant of a scenario in virtual time: a fresh in-memory engine on a manual
 * clock, the variant's tables created through CreateTable, then the workload issued tick by tick
 * (every `tickMs` of simulated time, each operation's requests due in that tick) straight into the
 * operations, with no HTTP and no JSON text. Once per simulated second it samples every table and
 * GSI's capacity state (consumed units, throttle events, the hottest partition) into the series.
 */
import type { CapacitySettings } from '../capacity/admission.js';
import { PARTITION_READ_UNITS_MAX, PARTITION_WRITE_UNITS_MAX } from '../capacity/partitions.js';
import { writeUnits } from '../capacity/units.js';
import { createAutoScalingOperationRegistry } from '../autoscaling/operations/index.js';
import { scalableResourceOf, type ScalableResource } from '../autoscaling/model.js';
import { AutoScaling } from '../autoscaling/service.js';
import { targetKey } from '../autoscaling/store.js';
import { ManualClock } from '../clock.js';
import { Engine } from '../engine/engine.js';
import type { ResourcePartitions } from '../engine/partition-tracker.js';
import { DynamoError } from '../errors.js';
import { setMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { createOperationRegistry } from '../operations/index.js';
import { responseBody, type AnyOperation } from '../operations/operation.js';
import { checkConstraints, deserialize } from '../operations/shape.js';
import { MemoryStorage } from '../storage/memory.js';
import { RetryPolicy } from './client.js';
import { FlowRun } from './flow.js';
import { createGenerator, Random, type Generator, type GeneratorSpec } from './generators.js';
import { KeyTally, type KeySummary } from './key-tally.js';
import { fail, PAGES_MAX, variantSeconds, type AttributeGenerators, type OperationSpec, type PhaseSpec, type Scenario, type TransactActionSpec, type VariantSpec } from './schema.js';

/** Simulated time starts here, whatever the wall clock says, so a run replays exactly. */
export const SIMULATION_START_MS = Date.UTC(2026, 0, 1);

const THROTTLE_CODES = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded']);

/** Per simulated second, for one table or GSI. */
export interface ResourceSeries {
  readonly name: string;
  readonly kind: 'table' | 'index';
  /** The attribute its partition key is, from the CreateTable definition. */
  readonly partitionKey: string;
  readonly consumedReadUnits: number[];
  readonly consumedWriteUnits: number[];
  readonly throttleEvents: number[];
  /** The share of the resource's units (writes, or reads when it wrote nothing) its hottest partition took. */
  readonly hottestPartitionShare: number[];
  /** That partition's units in the second. */
  readonly hottestPartitionUnits: number[];
  readonly partitionCount: number[];
  /** GSIs: index write units waiting in back-pressure backlogs. */
  readonly backlogWriteUnits: number[];
  /**
   * Provisioned units per second in the second (0 while on-demand): the bill's capacity-hours.
   * Simulations fill them; `dynatwin analyze`'s series (read from a twin) have none.
   */
  readonly provisionedWriteUnits?: number[];
  readonly provisionedReadUnits?: number[];
  /** 1 when the resource was billed on-demand in the second, else 0. */
  readonly onDemand?: number[];
  /** Per second, the partitions in hash order: the heat map of the report. */
  readonly heat: HeatSample[];
}

/**
 * One second of one resource's partitions, in hash order (a split shows as a new start). Past
 * HEAT_PARTITIONS_MAX partitions, neighbours are merged into bands (the hottest of them shows).
 */
export interface HeatSample {
  /** Where each partition's hash range starts, as a fraction of the hash space (0 .. 1). */
  readonly starts: number[];
  /** Units consumed in the second (writes, or reads when the resource wrote nothing). */
  readonly units: number[];
  /** Units over the partition's allocated units per second (1: at its allocation). */
  readonly shares: number[];
  /** Throttle events of the partition in the second. */
  readonly throttles: number[];
}

/** Partitions a heat sample keeps apart; more are merged into this many bands. */
export const HEAT_PARTITIONS_MAX = 128;
const HASH_SPACE = 2 ** 32;

export interface VariantSeries {
  /** Items written or read (requests, for Query) the workload offered: new work, not retries. */
  readonly offered: number[];
  readonly accepted: number[];
  /** Items (or requests) refused by throttling, each attempt counted. */
  readonly throttled: number[];
  /** Items (or requests) the client gave up on. */
  readonly failed: number[];
  readonly requests: number[];
}

export interface VariantResult {
  readonly name: string;
  readonly description: string;
  readonly simulatedSeconds: number;
  readonly series: VariantSeries;
  readonly resources: readonly ResourceSeries[];
  /** Errors other than throttling, by code (ConditionalCheckFailedException ...). */
  readonly errors: Readonly<Record<string, number>>;
  /** Simulated ms of the first throttle, from the start; undefined if none. */
  readonly firstThrottleSeconds: number | undefined;
  /** The values each resource's partition key took in the items and keys drawn (for findings). */
  readonly keys: Readonly<Record<string, KeySummary>>;
  /** Mean write units of one written item (from sampled items). */
  readonly itemWriteUnitsMean: number;
  /** Peak offered items (or requests) per second. */
  readonly offeredPeakPerSecond: number;
  readonly partitionWriteUnitsMax: number;
  readonly partitionReadUnitsMax: number;
  /** Retries still waiting when the workload ended. */
  readonly pendingAtEnd: number;
  /** Per workload operation (by name): requests, outcomes, capacity consumed. */
  readonly operations: readonly OperationStats[];
  /** The variant's server settings (the findings read the partition model). */
  readonly partitionModel: 'modern' | 'classic';
  /** Per resource: the generator kinds of its partition key in the items written (timestamp, sequence, constant+shard ...). */
  readonly keyGenerators: Readonly<Record<string, readonly string[]>>;
  /** Per provisioned table and GSI at the end of the run: its provisioned units per second. */
  readonly provisioned: readonly ProvisionedResource[];
  /** Per table and GSI: the bytes it holds at the end (items and entries), for the storage bill. */
  readonly storage?: readonly { readonly name: string; readonly bytes: number }[];
  /** Capacity changes auto scaling made (variants[].autoScaling), in time order. */
  readonly scalingActivities?: readonly ScalingActivity[];
}

/** One capacity change made by auto scaling. */
export interface ScalingActivity {
  /** Simulated seconds from the start. */
  readonly timeSeconds: number;
  /** `table/<t>` or `table/<t>/index/<i>`, and the dimension: `table/orders dynamodb:table:WriteCapacityUnits`. */
  readonly resource: string;
  readonly from: number;
  readonly to: number;
  readonly direction: 'out' | 'in';
  /** The alarm that caused it, as Application Auto Scaling says it. */
  readonly cause: string;
}

export interface ProvisionedResource {
  readonly name: string;
  readonly readUnitsPerSecond: number;
  readonly writeUnitsPerSecond: number;
}

/** One workload operation's figures over the run. */
export interface OperationStats {
  readonly name: string;
  readonly kind: string;
  readonly table: string;
  readonly countsAs: string | undefined;
  /** Logical requests offered (a ShardedQuery or an all-pages Scan is one), not retries. */
  offered: number;
  /** Logical requests (or items, for BatchWriteItem) completed. */
  accepted: number;
  throttled: number;
  failed: number;
  /** Calls made to the operation (pages, shards, retries). */
  calls: number;
  readUnits: number;
  writeUnits: number;
  /** Items returned (reads). */
  itemsReturned: number;
  /** Requests refused because an item would pass 400 KB. */
  itemSizeFailures: number;
  /** The largest table write units one single-item write consumed (≈ the item's size in KB). */
  largestItemWriteUnits: number;
  /** ShardedQuery: the queries one read makes. */
  readonly shardsPerRead: number;
}

export type ProgressListener = (variant: string, simulatedSeconds: number, totalSeconds: number, throttledSoFar: number) => void;

/** A request waiting for its tick: new work or a retry. */
interface Pending {
  readonly driver: OperationDriver;
  /** PutItem, UpdateItem ...: the request input; BatchWriteItem: built from items at send time. */
  readonly input: Record<string, unknown> | undefined;
  readonly items: AttributeMap[] | undefined;
  /** Items (or requests) this request stands for. */
  readonly weight: number;
  readonly attempt: number;
  /** Scan and ShardedQuery: where the read goes on (the shard, 1-based, and the page's start key). */
  readonly cursor: Cursor | undefined;
}

interface Cursor {
  readonly shard: number;
  readonly startKey: AttributeMap | undefined;
}

/** One workload operation, bound to a variant's generators. */
interface OperationDriver {
  readonly spec: OperationSpec;
  readonly operation: AnyOperation;
  readonly item: BoundGenerators | undefined;
  readonly key: BoundGenerators | undefined;
  readonly values: BoundGenerators | undefined;
  /** TransactWriteItems: per action, its item or key generators. */
  readonly actions: readonly { readonly item: BoundGenerators | undefined; readonly key: BoundGenerators | undefined }[];
  readonly stats: OperationStats;
  /** Owed items or requests carried from tick to tick (fractions of a rate). */
  owed: number;
}

type BoundGenerators = readonly (readonly [string, Generator])[];

export async function runVariant(scenario: Scenario, variantIndex: number, onProgress?: ProgressListener): Promise<VariantResult> {
  const variant = scenario.variants[variantIndex]!;
  const clock = new ManualClock(SIMULATION_START_MS);
  const engine = openEngine(variant, clock);
  let scaling: AutoScaling | undefined;
  try {
    const registry = createOperationRegistry();
    await createTables(engine, registry, variant, variantIndex);
    if (variant.autoScaling.length > 0) scaling = await startAutoScaling(engine, variant);
    const random = new Random(scenario.seed * 7919 + variantIndex);
    return await new VariantRun(scenario, variant, engine, clock, registry, random, onProgress, scaling).run();
  } finally {
    await scaling?.stop();
    await engine.close();
  }
}

/**
 * The variant's auto scaling: the server's own service (src/autoscaling) on the variant's engine,
 * its targets and target-tracking policies registered through RegisterScalableTarget and
 * PutScalingPolicy, so a bad one is refused with AWS's message (a ScenarioError naming its path).
 */
async function startAutoScaling(engine: Engine, variant: VariantSpec): Promise<AutoScaling> {
  const service = AutoScaling.open(engine);
  const operations = createAutoScalingOperationRegistry(service);
  for (const [index, target] of variant.autoScaling.entries()) {
    const common = { ServiceNamespace: 'dynamodb', ResourceId: target.resourceId, ScalableDimension: target.scalableDimension };
    const metric = target.scalableDimension.endsWith('ReadCapacityUnits') ? 'DynamoDBReadCapacityUtilization' : 'DynamoDBWriteCapacityUtilization';
    const configuration: Record<string, unknown> = { TargetValue: target.targetValue, PredefinedMetricSpecification: { PredefinedMetricType: metric } };
    if (target.scaleInCooldownSeconds !== undefined) configuration.ScaleInCooldown = target.scaleInCooldownSeconds;
    if (target.scaleOutCooldownSeconds !== undefined) configuration.ScaleOutCooldown = target.scaleOutCooldownSeconds;
    const calls: [string, Record<string, unknown>][] = [
      ['RegisterScalableTarget', { ...common, MinCapacity: target.minCapacity, MaxCapacity: target.maxCapacity }],
      ['PutScalingPolicy', { ...common, PolicyName: `scenario-${index + 1}`, PolicyType: 'TargetTrackingScaling', TargetTrackingScalingPolicyConfiguration: configuration }],
    ];
    for (const [name, input] of calls) {
      try {
        await invoke(engine, operations.get(name)!, input);
      } catch (error) {
        if (error instanceof DynamoError) fail(target.path, `${name} refused it: ${error.code}: ${error.message}`);
        throw error;
      }
    }
  }
  return service;
}

/**
 * Creates every variant's tables in a scratch engine: a definition CreateTable refuses is a bad
 * scenario (ScenarioError naming it), found before any variant starts.
 */
export async function checkVariantTables(scenario: Scenario): Promise<void> {
  const registry = createOperationRegistry();
  for (const [variantIndex, variant] of scenario.variants.entries()) {
    const engine = openEngine(variant, new ManualClock(SIMULATION_START_MS));
    try {
      await createTables(engine, registry, variant, variantIndex);
    } finally {
      await engine.close();
    }
  }
}

function openEngine(variant: VariantSpec, clock: ManualClock): Engine {
  const settings: Partial<CapacitySettings> = variant.server.capacitySettings;
  return Engine.open(new MemoryStorage(), {
    clock,
    region: 'us-east-1',
    accountId: '000000000000',
    tableCreateDelayMs: 0,
    // The store ends with the run: partition counts stay in the maps, none is persisted per write.
    partitions: { policy: { model: variant.server.partitionModel, sizeLimitBytes: variant.server.partitionSizeLimitBytes }, accounting: true, persistCounts: false, capacity: settings },
    capacity: 'enforce',
    // The scenario reads capacity state itself; CloudWatch-style metrics would only cost time,
    // except for auto scaling, whose alarms read the consumed-capacity metrics as the server's do.
    metrics: variant.autoScaling.length > 0,
    log: (message) => process.stderr.write(message + '\n'),
  });
}

async function createTables(engine: Engine, registry: ReadonlyMap<string, AnyOperation>, variant: VariantSpec, variantIndex: number): Promise<void> {
  const createTable = registry.get('CreateTable')!;
  for (const [index, definition] of variant.tables.entries()) {
    try {
      await invoke(engine, createTable, definition);
    } catch (error) {
      if (error instanceof DynamoError) fail(`variants[${variantIndex}].tables[${index}]`, `CreateTable refused it: ${error.code}: ${error.message}`);
      throw error;
    }
  }
}

/** Deserialize, check, validate and execute, as the HTTP server does, without the JSON text. */
async function invoke(engine: Engine, operation: AnyOperation, input: unknown): Promise<object> {
  const checked = deserialize(input, operation.members);
  checkConstraints(checked, operation.members);
  const request = operation.validate(checked, { expressions: engine.expressions });
  return responseBody(await operation.execute(engine, request));
}

class VariantRun {
  readonly #scenario: Scenario;
  readonly #variant: VariantSpec;
  readonly #engine: Engine;
  readonly #clock: ManualClock;
  readonly #registry: ReadonlyMap<string, AnyOperation>;
  readonly #random: Random;
  readonly #retry: RetryPolicy;
  readonly #onProgress: ProgressListener | undefined;
  readonly #series: VariantSeries = { offered: [], accepted: [], throttled: [], failed: [], requests: [] };
  readonly #resources: ResourceSeries[] = [];
  /** Throttle events each resource had counted at the last sample. */
  readonly #throttleEventsBefore = new Map<string, number>();
  /** Per resource, throttle events each partition (by id) had counted at the last sample. */
  readonly #partitionThrottlesBefore = new Map<string, Map<number, number>>();
  readonly #errors: Record<string, number> = {};
  /** Retries by the tick they are due in. */
  readonly #retries = new Map<number, Pending[]>();
  /** Key tallies by resource name, for the attribute that is its partition key. */
  readonly #keys = new Map<string, KeyTally>();
  readonly #operationStats = new Map<string, OperationStats>();
  readonly #keyGenerators = new Map<string, Set<string>>();
  /** Per table: the partition-key attributes of it and its GSIs, with their tallies. */
  readonly #tallied = new Map<string, (readonly [string, KeyTally])[]>();
  #second = 0;
  #throttledTotal = 0;
  #firstThrottleMs: number | undefined;
  #sampledWriteUnits = 0;
  #sampledItems = 0;
  #itemCounter = 0;
  #offeredThisSecond = 0;
  #offeredPeak = 0;
  /** Flow fidelity: the flows that replace requests (flow.ts); undefined in items fidelity. */
  readonly #flow: FlowRun | undefined;
  /** The variant's auto scaling, its targets' capacity as last seen, and the changes it made. */
  readonly #scaling: AutoScaling | undefined;
  readonly #scaledCapacity = new Map<string, number>();
  readonly #scalingActivities: ScalingActivity[] = [];

  constructor(
    scenario: Scenario,
    variant: VariantSpec,
    engine: Engine,
    clock: ManualClock,
    registry: ReadonlyMap<string, AnyOperation>,
    random: Random,
    onProgress: ProgressListener | undefined,
    scaling?: AutoScaling,
  ) {
    this.#scenario = scenario;
    this.#variant = variant;
    this.#engine = engine;
    this.#clock = clock;
    this.#registry = registry;
    this.#random = random;
    this.#retry = new RetryPolicy(scenario.client, random);
    this.#onProgress = onProgress;
    this.#scaling = scaling;
    for (const definition of variant.tables) this.#trackResources(definition);
    this.#flow = scenario.fidelity === 'flow' ? this.#flowRun() : undefined;
  }

  /** Flow fidelity: flows report to this run's series and counters as requests do. */
  #flowRun(): FlowRun {
    const sink = {
      offer: (count: number): void => this.#offer(count),
      accepted: (count: number): void => this.#count(this.#series.accepted, count),
      throttled: (count: number): void => {
        this.#count(this.#series.throttled, count);
        this.#throttledTotal += count;
        this.#firstThrottleMs ??= this.#clock.nowMs();
      },
      failed: (count: number): void => this.#count(this.#series.failed, count),
      requests: (count: number): void => this.#count(this.#series.requests, count),
      error: (code: string, count: number): void => {
        this.#errors[code] = (this.#errors[code] ?? 0) + count;
      },
      draw: (table: string, generators: BoundGenerators, nowMs: number, isItem: boolean): AttributeMap =>
        isItem ? this.#drawItem(table, generators, nowMs) : this.#drawKey(table, generators, nowMs),
    };
    return new FlowRun(this.#engine, this.#clock, this.#retry, sink, this.#scenario.tickMs, this.#variant.attributes);
  }

  async run(): Promise<VariantResult> {
    const tickMs = this.#scenario.tickMs;
    const totalSeconds = variantSeconds(this.#variant);
    let tick = 0;
    for (const phase of this.#variant.phases) {
      const drivers = phase.operations.map((spec) => this.#driverOf(spec));
      const phaseTicks = (phase.durationSeconds * 1000) / tickMs;
      for (let phaseTick = 0; phaseTick < phaseTicks; phaseTick++, tick++) {
        const nowMs = SIMULATION_START_MS + tick * tickMs;
        if (nowMs > this.#clock.nowMs()) this.#clock.advance(nowMs - this.#clock.nowMs());
        if (tick > 0 && (tick * tickMs) % 1000 === 0) this.#sampleSecond(nowMs, totalSeconds);
        if (this.#scaling !== undefined) await this.#followScaling(this.#scaling, nowMs);
        if (phaseTick === 0) await this.#updateTables(phase);
        // Ramps are linear over the phase, evaluated at the tick's middle.
        const progress = (phaseTick + 0.5) / phaseTicks;
        if (this.#flow !== undefined) {
          await this.#flow.tick(drivers, progress, tick);
          continue;
        }
        for (const driver of drivers) await this.#issueNew(driver, progress, tickMs);
        const due = this.#retries.get(tick);
        if (due !== undefined) {
          this.#retries.delete(tick);
          for (const pending of due) await this.#send(pending, tick);
        }
      }
    }
    const endMs = SIMULATION_START_MS + tick * tickMs;
    this.#clock.advance(endMs - this.#clock.nowMs());
    this.#sampleSecond(endMs, totalSeconds);
    let pendingAtEnd = 0;
    for (const pending of this.#retries.values()) for (const request of pending) pendingAtEnd += request.weight;
    pendingAtEnd += this.#flow?.pendingAtEnd() ?? 0;
    return {
      name: this.#variant.name,
      description: this.#variant.description,
      simulatedSeconds: totalSeconds,
      series: this.#series,
      resources: this.#resources,
      errors: this.#errors,
      firstThrottleSeconds: this.#firstThrottleMs === undefined ? undefined : (this.#firstThrottleMs - SIMULATION_START_MS) / 1000,
      keys: Object.fromEntries([...this.#keys].map(([name, tally]) => [name, tally.summary()])),
      itemWriteUnitsMean: this.#sampledItems === 0 ? 1 : this.#sampledWriteUnits / this.#sampledItems,
      offeredPeakPerSecond: this.#offeredPeak,
      partitionWriteUnitsMax: this.#variant.server.capacitySettings.partitionWriteUnitsPerSecondMax ?? PARTITION_WRITE_UNITS_MAX,
      partitionReadUnitsMax: this.#variant.server.capacitySettings.partitionReadUnitsPerSecondMax ?? PARTITION_READ_UNITS_MAX,
      pendingAtEnd,
      operations: [...this.#operationStats.values()],
      partitionModel: this.#variant.server.partitionModel,
      keyGenerators: Object.fromEntries([...this.#keyGenerators].map(([name, kinds]) => [name, [...kinds]])),
      provisioned: this.#provisioned(),
      storage: this.#resources.map((resource) => ({ name: resource.name, bytes: this.#partitionsOf(resource)?.totals().sizeBytes ?? 0 })),
      scalingActivities: this.#scalingActivities,
    };
  }

  /**
   * Lets auto scaling evaluate the minutes that ended (the clock's advance started it), then notes
   * each target whose capacity changed: from, to, and the cause of its latest activity.
   */
  async #followScaling(scaling: AutoScaling, nowMs: number): Promise<void> {
    scaling.poke();
    await scaling.settled();
    for (const target of this.#variant.autoScaling) {
      const resource: ScalableResource | undefined = scalableResourceOf(target.resourceId, target.scalableDimension);
      if (resource === undefined) continue;
      const key = targetKey(target.resourceId, target.scalableDimension);
      const capacity = scaling.currentCapacity(resource);
      if (capacity === undefined) continue;
      const before = this.#scaledCapacity.get(key);
      this.#scaledCapacity.set(key, capacity);
      if (before === undefined || before === capacity) continue;
      this.#scalingActivities.push({
        timeSeconds: (nowMs - SIMULATION_START_MS) / 1000,
        resource: `${target.resourceId} ${target.scalableDimension}`,
        from: before,
        to: capacity,
        direction: capacity > before ? 'out' : 'in',
        cause: scaling.store.activities.get(key)?.[0]?.cause ?? '',
      });
    }
  }

  /** A phase's UpdateTable inputs, run as it starts; one DynamoDB refuses is a bad scenario. */
  async #updateTables(phase: PhaseSpec): Promise<void> {
    const updateTable = this.#registry.get('UpdateTable')!;
    for (const [index, input] of phase.updateTables.entries()) {
      try {
        await invoke(this.#engine, updateTable, input);
      } catch (error) {
        if (error instanceof DynamoError) fail(`${phase.name}.updateTables[${index}]`, `UpdateTable refused it: ${error.code}: ${error.message}`);
        throw error;
      }
    }
  }

  /** Provisioned tables and GSIs as they stand (after the phases' UpdateTables). */
  #provisioned(): ProvisionedResource[] {
    const resources: ProvisionedResource[] = [];
    for (const resource of this.#resources) {
      const billing = this.#partitionsOf(resource)?.capacity.billing;
      if (billing?.mode === 'provisioned') resources.push({ name: resource.name, readUnitsPerSecond: billing.readUnitsPerSecond, writeUnitsPerSecond: billing.writeUnitsPerSecond });
    }
    return resources;
  }

  #driverOf(spec: OperationSpec): OperationDriver {
    const overrides = this.#variant.attributes;
    let stats = this.#operationStats.get(spec.name);
    if (stats === undefined) {
      stats = {
        name: spec.name,
        kind: spec.kind,
        table: spec.table,
        countsAs: spec.countsAs,
        offered: 0,
        accepted: 0,
        throttled: 0,
        failed: 0,
        calls: 0,
        readUnits: 0,
        writeUnits: 0,
        itemsReturned: 0,
        itemSizeFailures: 0,
        largestItemWriteUnits: 0,
        shardsPerRead: spec.shards?.k ?? 1,
      };
      this.#operationStats.set(spec.name, stats);
    }
    if (spec.item !== undefined) this.#noteKeyGenerators(spec.table, spec.item, overrides);
    return {
      spec,
      operation: this.#registry.get(spec.kind === 'ShardedQuery' ? 'Query' : spec.kind)!,
      item: spec.item === undefined ? undefined : this.#bind(spec.item, overrides, true),
      key: spec.key === undefined ? undefined : this.#bind(spec.key, overrides, false),
      values: spec.values === undefined ? undefined : this.#bind(spec.values, {}, false),
      actions: (spec.actions ?? []).map((action) => {
        if (action.item !== undefined) this.#noteKeyGenerators(action.table, action.item, overrides);
        return {
          item: action.item === undefined ? undefined : this.#bind(action.item, overrides, true),
          key: action.key === undefined ? undefined : this.#bind(action.key, overrides, false),
        };
      }),
      stats,
      owed: 0,
    };
  }

  /** Which generator makes each resource's partition key in the items written (for findings). */
  #noteKeyGenerators(table: string, generators: AttributeGenerators, overrides: Readonly<Record<string, GeneratorSpec | null>>): void {
    for (const resource of this.#resources) {
      if (resource.name !== table && !resource.name.startsWith(`${table}/index/`)) continue;
      const spec = overrides[resource.partitionKey] ?? generators[resource.partitionKey];
      if (spec === undefined || spec === null) continue;
      const kinds = this.#keyGenerators.get(resource.name);
      if (kinds === undefined) this.#keyGenerators.set(resource.name, new Set([generatorKindOf(spec)]));
      else kinds.add(generatorKindOf(spec));
    }
  }

  /**
   * Generators for one map, with the variant's attribute overrides applied (an item also gains
   * the attributes a variant adds); `copy` generators run last, after what they copy.
   */
  #bind(generators: AttributeGenerators, overrides: Readonly<Record<string, GeneratorSpec | null>>, addNew: boolean): BoundGenerators {
    const specs = new Map<string, GeneratorSpec>(Object.entries(generators));
    for (const [name, override] of Object.entries(overrides)) {
      if (override === null) specs.delete(name);
      else if (addNew || specs.has(name)) specs.set(name, override);
    }
    const ordered = [...specs].sort(([, a], [, b]) => Number(a.kind === 'copy') - Number(b.kind === 'copy'));
    return ordered.map(([name, spec]) => [name, createGenerator(spec, this.#random)] as const);
  }

  async #issueNew(driver: OperationDriver, progress: number, tickMs: number): Promise<void> {
    const rate = driver.spec.rate;
    const perSecond = rate.fromPerSecond + (rate.toPerSecond - rate.fromPerSecond) * progress;
    driver.owed += (perSecond * tickMs) / 1000;
    const batchSize = driver.spec.batchSize;
    // Items per second of a BatchWriteItem become full batches; the rest waits for the next tick.
    const unit = rate.unit === 'items' ? batchSize : 1;
    const tick = (this.#clock.nowMs() - SIMULATION_START_MS) / tickMs;
    while (driver.owed >= unit) {
      driver.owed -= unit;
      await this.#send(this.#newRequest(driver), tick);
    }
  }

  #newRequest(driver: OperationDriver): Pending {
    const spec = driver.spec;
    const nowMs = this.#clock.nowMs();
    driver.stats.offered += spec.kind === 'BatchWriteItem' ? spec.batchSize : 1;
    if (spec.kind === 'BatchWriteItem') {
      const items: AttributeMap[] = [];
      for (let index = 0; index < spec.batchSize; index++) items.push(this.#drawItem(spec.table, driver.item!, nowMs));
      this.#offer(items.length);
      return { driver, input: undefined, items, weight: items.length, attempt: 1, cursor: undefined };
    }
    const input: Record<string, unknown> = { TableName: spec.table, ReturnConsumedCapacity: 'INDEXES' };
    const values = driver.values === undefined ? undefined : draw(driver.values, nowMs);
    if (spec.kind === 'TransactWriteItems') {
      input.TransactItems = spec.actions!.map((action, index) => this.#transactAction(action, driver.actions[index]!, values, spec.names, nowMs));
      delete input.TableName;
      this.#offer(1);
      return { driver, input, items: undefined, weight: 1, attempt: 1, cursor: undefined };
    }
    if (driver.item !== undefined) input.Item = this.#drawItem(spec.table, driver.item, nowMs);
    if (driver.key !== undefined) input.Key = this.#drawKey(spec.table, driver.key, nowMs);
    if (values !== undefined) input.ExpressionAttributeValues = values;
    if (spec.names !== undefined) input.ExpressionAttributeNames = spec.names;
    if (spec.updateExpression !== undefined) input.UpdateExpression = spec.updateExpression;
    if (spec.conditionExpression !== undefined) input.ConditionExpression = spec.conditionExpression;
    if (spec.keyConditionExpression !== undefined) input.KeyConditionExpression = spec.keyConditionExpression;
    if (spec.index !== undefined) input.IndexName = spec.index;
    if (spec.limit !== undefined) input.Limit = spec.limit;
    if (spec.consistentRead) input.ConsistentRead = true;
    this.#offer(1);
    const cursor = spec.kind === 'ShardedQuery' || spec.kind === 'Scan' ? { shard: 1, startKey: undefined } : undefined;
    return { driver, input, items: undefined, weight: 1, attempt: 1, cursor };
  }

  /** One TransactWriteItems action, with the expression values and names its expressions use. */
  #transactAction(
    action: TransactActionSpec,
    generators: OperationDriver['actions'][number],
    values: Record<string, AttributeValue> | undefined,
    names: Readonly<Record<string, string>> | undefined,
    nowMs: number,
  ): Record<string, unknown> {
    const body: Record<string, unknown> = { TableName: action.table };
    if (generators.item !== undefined) body.Item = this.#drawItem(action.table, generators.item, nowMs);
    if (generators.key !== undefined) body.Key = this.#drawKey(action.table, generators.key, nowMs);
    const expressions = [action.updateExpression, action.conditionExpression].filter((text): text is string => text !== undefined);
    if (action.updateExpression !== undefined) body.UpdateExpression = action.updateExpression;
    if (action.conditionExpression !== undefined) body.ConditionExpression = action.conditionExpression;
    const used = (placeholder: string): boolean => expressions.some((text) => new RegExp(`${placeholder}(?![A-Za-z0-9_])`).test(text));
    const usedValues = Object.entries(values ?? {}).filter(([placeholder]) => used(placeholder));
    if (usedValues.length > 0) body.ExpressionAttributeValues = Object.fromEntries(usedValues);
    const usedNames = Object.entries(names ?? {}).filter(([placeholder]) => used(placeholder));
    if (usedNames.length > 0) body.ExpressionAttributeNames = Object.fromEntries(usedNames);
    return { [action.kind]: body };
  }

  #offer(count: number): void {
    this.#offeredThisSecond += count;
  }

  #drawItem(table: string, generators: BoundGenerators, nowMs: number): AttributeMap {
    const item = draw(generators, nowMs);
    this.#tally(table, item);
    // The mean item's write units, from every 64th item (itemSize walks the whole item).
    if ((this.#itemCounter++ & 63) === 0) {
      this.#sampledWriteUnits += writeUnits(itemSize(item));
      this.#sampledItems++;
    }
    return item;
  }

  #drawKey(table: string, generators: BoundGenerators, nowMs: number): AttributeMap {
    const key = draw(generators, nowMs);
    this.#tally(table, key);
    return key;
  }

  #tally(table: string, item: AttributeMap): void {
    for (const [attribute, tally] of this.#tallied.get(table) ?? []) {
      const value = item[attribute];
      if (value !== undefined) tally.add(scalarText(value));
    }
  }

  async #send(pending: Pending, tick: number): Promise<void> {
    if (pending.cursor !== undefined) return this.#sendRead(pending, pending.cursor, tick);
    const driver = pending.driver;
    const spec = driver.spec;
    const stats = driver.stats;
    const input =
      pending.items === undefined ? pending.input! : { RequestItems: { [spec.table]: pending.items.map((Item) => ({ PutRequest: { Item } })) }, ReturnConsumedCapacity: 'INDEXES' };
    this.#series.requests[this.#second] = (this.#series.requests[this.#second] ?? 0) + 1;
    stats.calls++;
    let response: object;
    try {
      response = await invoke(this.#engine, driver.operation, input);
    } catch (error) {
      this.#refused(pending, error, tick);
      return;
    }
    this.#retry.succeeded(pending.attempt);
    this.#charge(stats, response, pending.items === undefined && (spec.kind === 'PutItem' || spec.kind === 'UpdateItem'));
    if (pending.items === undefined) {
      stats.accepted++;
      this.#count(this.#series.accepted, 1);
      if (spec.kind === 'GetItem') stats.itemsReturned += (response as { Item?: unknown }).Item === undefined ? 0 : 1;
      return;
    }
    const unprocessed = (response as { UnprocessedItems?: Record<string, { PutRequest: { Item: AttributeMap } }[]> }).UnprocessedItems?.[spec.table];
    if (unprocessed === undefined || unprocessed.length === 0) {
      stats.accepted += pending.items.length;
      this.#count(this.#series.accepted, pending.items.length);
      return;
    }
    stats.accepted += pending.items.length - unprocessed.length;
    this.#count(this.#series.accepted, pending.items.length - unprocessed.length);
    this.#throttled(pending, unprocessed.map((request) => request.PutRequest.Item), tick, undefined);
  }

  /**
   * A Scan or a ShardedQuery from its cursor on: page after page (with allPages) and shard after
   * shard, until the read is done or a call is throttled (the retry goes on from there).
   */
  async #sendRead(pending: Pending, cursor: Cursor, tick: number): Promise<void> {
    const driver = pending.driver;
    const spec = driver.spec;
    const stats = driver.stats;
    const shards = spec.shards;
    let shard = cursor.shard;
    let startKey = cursor.startKey;
    for (let calls = 0; calls < PAGES_MAX; calls++) {
      const input: Record<string, unknown> = { ...pending.input! };
      if (shards !== undefined) {
        input.ExpressionAttributeValues = { ...(input.ExpressionAttributeValues as Record<string, AttributeValue> | undefined), [shards.placeholder]: { S: shards.prefix + String(shard) } };
      }
      if (startKey !== undefined) input.ExclusiveStartKey = startKey;
      this.#series.requests[this.#second] = (this.#series.requests[this.#second] ?? 0) + 1;
      stats.calls++;
      let response: { Count?: number; LastEvaluatedKey?: AttributeMap };
      try {
        response = (await invoke(this.#engine, driver.operation, input)) as typeof response;
      } catch (error) {
        this.#refused(pending, error, tick, { shard, startKey });
        return;
      }
      this.#retry.succeeded(pending.attempt);
      this.#charge(stats, response, false);
      stats.itemsReturned += response.Count ?? 0;
      startKey = spec.allPages ? response.LastEvaluatedKey : undefined;
      if (startKey !== undefined) continue;
      if (shards !== undefined && shard < shards.k) {
        shard++;
        continue;
      }
      break;
    }
    stats.accepted++;
    this.#count(this.#series.accepted, 1);
  }

  /** A call failed: throttled (retried or given up), or another error counted by code. */
  #refused(pending: Pending, error: unknown, tick: number, cursor?: Cursor): void {
    if (!(error instanceof DynamoError)) throw error;
    const stats = pending.driver.stats;
    if (THROTTLE_CODES.has(error.code) || isThrottledTransaction(error)) {
      this.#throttled(pending, pending.items, tick, cursor);
      return;
    }
    if (ITEM_SIZE_MESSAGE.test(error.message)) stats.itemSizeFailures += pending.weight;
    stats.failed += pending.weight;
    this.#errors[error.code] = (this.#errors[error.code] ?? 0) + pending.weight;
  }

  /** Adds a response's ConsumedCapacity to the operation's figures. */
  #charge(stats: OperationStats, response: object, singleItemWrite: boolean): void {
    const consumed = (response as { ConsumedCapacity?: ConsumedEntry | ConsumedEntry[] }).ConsumedCapacity;
    if (consumed === undefined) return;
    const entries = Array.isArray(consumed) ? consumed : [consumed];
    const read = READ_KINDS.has(stats.kind);
    for (const entry of entries) {
      if (entry.ReadCapacityUnits !== undefined || entry.WriteCapacityUnits !== undefined) {
        stats.readUnits += entry.ReadCapacityUnits ?? 0;
        stats.writeUnits += entry.WriteCapacityUnits ?? 0;
      } else if (read) stats.readUnits += entry.CapacityUnits;
      else stats.writeUnits += entry.CapacityUnits;
      if (singleItemWrite) stats.largestItemWriteUnits = Math.max(stats.largestItemWriteUnits, entry.Table?.CapacityUnits ?? entry.CapacityUnits);
    }
  }

  /** `items` (or the request) were refused by throttling: retry them later (from `cursor`, for a read) or give them up. */
  #throttled(pending: Pending, items: AttributeMap[] | undefined, tick: number, cursor: Cursor | undefined): void {
    const weight = items === undefined ? 1 : items.length;
    pending.driver.stats.throttled += weight;
    this.#count(this.#series.throttled, weight);
    this.#throttledTotal += weight;
    this.#firstThrottleMs ??= this.#clock.nowMs();
    const delayMs = this.#retry.retryDelayMs(pending.attempt);
    if (delayMs === undefined) {
      pending.driver.stats.failed += weight;
      this.#count(this.#series.failed, weight);
      return;
    }
    // Due in the first tick at or after the delay; never in the tick that is running.
    const dueTick = Math.max(tick + 1, Math.ceil(tick + delayMs / this.#scenario.tickMs));
    const retry: Pending = { driver: pending.driver, input: pending.input, items, weight, attempt: pending.attempt + 1, cursor };
    const queue = this.#retries.get(dueTick);
    if (queue === undefined) this.#retries.set(dueTick, [retry]);
    else queue.push(retry);
  }

  #count(series: number[], count: number): void {
    series[this.#second] = (series[this.#second] ?? 0) + count;
  }

  /** Closes simulated second `#second` at `nowMs` (its end): capacity state into the series. */
  #sampleSecond(nowMs: number, totalSeconds: number): void {
    const second = this.#second;
    for (const series of Object.values(this.#series) as number[][]) series[second] ??= 0;
    this.#series.offered[second] = this.#offeredThisSecond;
    this.#offeredPeak = Math.max(this.#offeredPeak, this.#offeredThisSecond);
    this.#offeredThisSecond = 0;
    for (const resource of this.#resources) this.#sampleResource(resource, second, nowMs);
    this.#second++;
    this.#onProgress?.(this.#variant.name, this.#second, totalSeconds, this.#throttledTotal);
  }

  #sampleResource(resource: ResourceSeries, second: number, nowMs: number): void {
    const partitions = this.#partitionsOf(resource);
    if (partitions === undefined || !partitions.hasCapacity) {
      pushZeros(resource, second);
      return;
    }
    const stats = partitions.capacity.stats(nowMs);
    const writeUnits = stats.write.consumedUnitsLastSecond;
    const readUnits = stats.read.consumedUnitsLastSecond;
    if (this.#flow !== undefined && this.#scaling !== undefined) this.#recordConsumed(resource, writeUnits, readUnits, nowMs);
    const events = stats.read.throttleEvents + stats.write.throttleEvents;
    const before = this.#throttleEventsBefore.get(resource.name) ?? 0;
    this.#throttleEventsBefore.set(resource.name, events);
    let hottest = 0;
    let backlog = 0;
    const views = partitions.map.list();
    const heat: HeatSample = { starts: [], units: [], shares: [], throttles: [] };
    let throttlesBefore = this.#partitionThrottlesBefore.get(resource.name);
    if (throttlesBefore === undefined) this.#partitionThrottlesBefore.set(resource.name, (throttlesBefore = new Map()));
    const band = Math.ceil(views.length / HEAT_PARTITIONS_MAX);
    for (const [position, view] of views.entries()) {
      const start = view.start;
      const partition = partitions.capacityAt(start, nowMs).stats(nowMs);
      const side = writeUnits > 0 ? partition.write : partition.read;
      const units = side.consumedUnitsLastSecond;
      if (units > hottest) hottest = units;
      backlog += partition.backlogWriteUnits;
      const partitionEvents = partition.read.throttleEvents + partition.write.throttleEvents;
      const throttles = partitionEvents - (throttlesBefore.get(partition.id) ?? 0);
      throttlesBefore.set(partition.id, partitionEvents);
      const share = side.allocatedUnitsPerSecond > 0 ? units / side.allocatedUnitsPerSecond : 0;
      if (position % band === 0) {
        heat.starts.push(start / HASH_SPACE);
        heat.units.push(units);
        heat.shares.push(share);
        heat.throttles.push(throttles);
      } else {
        const last = heat.starts.length - 1;
        heat.units[last] = Math.max(heat.units[last]!, units);
        heat.shares[last] = Math.max(heat.shares[last]!, share);
        heat.throttles[last]! += throttles;
      }
    }
    resource.heat[second] = heat;
    const total = writeUnits > 0 ? writeUnits : readUnits;
    resource.consumedWriteUnits[second] = writeUnits;
    resource.consumedReadUnits[second] = readUnits;
    resource.throttleEvents[second] = events - before;
    resource.hottestPartitionShare[second] = total > 0 ? hottest / total : 0;
    resource.hottestPartitionUnits[second] = hottest;
    resource.partitionCount[second] = views.length;
    resource.backlogWriteUnits[second] = backlog;
    const billing = partitions.capacity.billing;
    resource.provisionedWriteUnits![second] = billing.mode === 'provisioned' ? billing.writeUnitsPerSecond : 0;
    resource.provisionedReadUnits![second] = billing.mode === 'provisioned' ? billing.readUnitsPerSecond : 0;
    resource.onDemand![second] = billing.mode === 'on-demand' ? 1 : 0;
  }

  /**
   * Flow fidelity with auto scaling: flows bypass the engine's recorder, so the second's consumed
   * units go to the metrics auto scaling's alarms read, inside the second that consumed them.
   */
  #recordConsumed(resource: ResourceSeries, writeUnits: number, readUnits: number, nowMs: number): void {
    const [table, , index] = resource.name.split('/');
    const metrics = this.#engine.telemetry.metrics;
    const key = index === undefined ? { table: table! } : { table: table!, index };
    if (writeUnits > 0) metrics.series({ metric: 'ConsumedWriteCapacityUnits', ...key }).record(writeUnits, nowMs - 1);
    if (readUnits > 0) metrics.series({ metric: 'ConsumedReadCapacityUnits', ...key }).record(readUnits, nowMs - 1);
  }

  #partitionsOf(resource: ResourceSeries): ResourcePartitions | undefined {
    const [tableName, , indexName] = resource.name.split('/');
    const table = this.#engine.catalog.get(tableName!);
    if (table === undefined) return undefined;
    if (indexName === undefined) return table.partitions;
    return table.indexes.live.find((index) => index.name === indexName)?.state.partitions;
  }

  /** The table and each GSI of one CreateTable definition, as series and key tallies. */
  #trackResources(definition: Record<string, unknown>): void {
    const tableName = definition.TableName as string;
    const add = (name: string, kind: 'table' | 'index', keySchema: unknown): void => {
      const partitionKey = hashKeyOf(keySchema);
      this.#resources.push({
        name,
        kind,
        partitionKey,
        consumedReadUnits: [],
        consumedWriteUnits: [],
        throttleEvents: [],
        hottestPartitionShare: [],
        hottestPartitionUnits: [],
        partitionCount: [],
        backlogWriteUnits: [],
        provisionedWriteUnits: [],
        provisionedReadUnits: [],
        onDemand: [],
        heat: [],
      });
      const tally = new KeyTally();
      this.#keys.set(name, tally);
      const tallies = this.#tallied.get(tableName);
      if (tallies === undefined) this.#tallied.set(tableName, [[partitionKey, tally]]);
      else tallies.push([partitionKey, tally]);
    };
    add(tableName, 'table', definition.KeySchema);
    const indexes = Array.isArray(definition.GlobalSecondaryIndexes) ? (definition.GlobalSecondaryIndexes as Record<string, unknown>[]) : [];
    for (const index of indexes) add(`${tableName}/index/${String(index.IndexName)}`, 'index', index.KeySchema);
  }
}

interface ConsumedEntry {
  readonly CapacityUnits: number;
  readonly ReadCapacityUnits?: number;
  readonly WriteCapacityUnits?: number;
  readonly Table?: { readonly CapacityUnits: number };
}

const READ_KINDS = new Set(['GetItem', 'Query', 'Scan', 'ShardedQuery']);
/** PutItem's and BatchWriteItem's "Item size has exceeded …", UpdateItem's "Item size to update has exceeded …". */
const ITEM_SIZE_MESSAGE = /^Item size (?:to update )?has exceeded the maximum allowed size/;

/** A transaction cancelled because one of its items was throttled. */
function isThrottledTransaction(error: DynamoError): boolean {
  if (error.code !== 'TransactionCanceledException') return false;
  const reasons = error.extra?.['CancellationReasons'];
  return Array.isArray(reasons) && reasons.some((reason: { Code?: string }) => reason.Code === 'ProvisionedThroughputExceeded' || reason.Code === 'ThrottlingError');
}

/** The kind of generator behind a key: `timestamp`, `sequence`, or, for concat, its parts' kinds joined by `+`. */
function generatorKindOf(spec: GeneratorSpec): string {
  return spec.kind === 'concat' ? spec.parts.map(generatorKindOf).join('+') : spec.kind;
}

function draw(generators: BoundGenerators, nowMs: number): Record<string, AttributeValue> {
  const item: Record<string, AttributeValue> = {};
  for (const [name, generator] of generators) setMember(item, name, generator(nowMs, item));
  return item;
}

function hashKeyOf(keySchema: unknown): string {
  if (!Array.isArray(keySchema)) return '';
  const hash = (keySchema as { AttributeName?: unknown; KeyType?: unknown }[]).find((element) => element.KeyType === 'HASH');
  return typeof hash?.AttributeName === 'string' ? hash.AttributeName : '';
}

function scalarText(value: AttributeValue): string {
  if ('S' in value) return value.S;
  if ('N' in value) return value.N;
  if ('B' in value) return value.B;
  return JSON.stringify(value);
}

function pushZeros(resource: ResourceSeries, second: number): void {
  for (const series of [
    resource.consumedReadUnits,
    resource.consumedWriteUnits,
    resource.throttleEvents,
    resource.hottestPartitionShare,
    resource.hottestPartitionUnits,
    resource.partitionCount,
    resource.backlogWriteUnits,
    resource.provisionedWriteUnits ?? [],
    resource.provisionedReadUnits ?? [],
    resource.onDemand ?? [],
  ]) {
    series[second] = 0;
  }
  resource.heat[second] = { starts: [], units: [], shares: [], throttles: [] };
}
