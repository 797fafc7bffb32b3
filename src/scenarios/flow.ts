/**
 * Flow fidelity (`--fidelity flow`, `"fidelity": "flow"`): per tick, each operation's demand is not
 * issued as requests but applied as flows over the hash space, through the same capacity model
 * (capacity/admission.ts `admitFlow`) and the same partition maps (engine/partition-tracker.ts) the
 * engine uses. Tables are still created and updated through CreateTable / UpdateTable, so the
 * partitions, billing, pre-warming, splits for the on-demand peak and adaptive capacity are the
 * engine's own; only the data plane is replaced. Nothing is stored: item counts and bytes are
 * kept per key hash (FlowSizes) and given to the partition maps, so size splits happen when the
 * accepted writes make a partition pass the limit.
 *
 * Where an operation's requests land (its key distribution, `keyDistribution`): a generator with
 * few values (a constant, a choice, a shard, a small uniform range, the head of a zipf, the
 * clock's current value, the values of a sequence drawn this tick) lands on the partitions of
 * those values' hashes, by weight; one with many values (a UUID, a payload, a wide range, a zipf's
 * tail, a sequence drawing more than KEYS_MAX values in a tick) spreads over every partition by
 * its share of the hash space. Item sizes come from a few items drawn each tick with the
 * operation's own generators (so `payload` sizes, `copy` and a variant's overrides apply), which
 * are also what the key tallies for the findings count.
 *
 * What a flow cannot model is refused before the run with one line naming the operation
 * (`refuseUnflowable`): a condition expression (its outcome depends on the data), a
 * TransactWriteItems (conflicts and conditions), a GSI keyed on several attributes.
 *
 * Approximations (measured in docs/SCENARIOS.md): the spread of a random key is its expectation
 * (items mode draws it, so per-partition demand there has sampling noise); resource-wide limits
 * shared by a tick's flows are taken in FLOW_ROUNDS rounds (one by one they interleave at random);
 * an UpdateItem costs the table's mean item size and changes no GSI entry; a ShardedQuery or a
 * Scan throttled part-way is retried whole.
 */
import { admitFlow, type Demand } from '../capacity/admission.js';
import { HASH_SPACE, type MeasureRange, type Partition } from '../capacity/partitions.js';
import { readUnits, writeUnits } from '../capacity/units.js';
import type { ManualClock } from '../clock.js';
import type { Engine } from '../engine/engine.js';
import type { SecondaryIndex } from '../engine/indexes.js';
import type { ResourcePartitions, SizeSource } from '../engine/partition-tracker.js';
import type { Table } from '../engine/table.js';
import type { AttributeMap, AttributeValue } from '../model/attribute-value.js';
import { itemSize, ITEM_SIZE_MAX_BYTES } from '../model/item-size.js';
import { decodeItemKeyHash, partitionKeyPrefix } from '../model/key-codec.js';
import type { RetryPolicy } from './client.js';
import { timestampOf, type Generator, type GeneratorSpec } from './generators.js';
import { fail, type OperationSpec, type Scenario } from './schema.js';

/** Distinct key values a flow places one by one; more are spread over the hash space. */
export const KEYS_MAX = 1024;
/** Items drawn per operation and tick for sizes and key tallies. */
const SAMPLES_PER_TICK = 4;
/** Rounds in which a tick's flows share resource-wide limits (twice the peak, adaptive lending). */
const FLOW_ROUNDS = 4;
/** Buckets of the hash space over which spread bytes are kept (for measuring split halves). */
const SPREAD_BUCKETS = 4096;
const PAGE_BYTES_MAX = 1024 * 1024;

/** A key distribution: values with their probabilities, the rest spread or absent. */
export interface KeyDistribution {
  readonly keys: readonly (readonly [AttributeValue, number])[];
  /** Probability of a value drawn from so many that it spreads over the hash space. */
  readonly spread: number;
  /** Probability the attribute is missing (the item is not in an index keyed by it). */
  readonly absent: number;
}

/** Distributions that cost O(n) to build (zipf), kept per spec by their run. */
export type DistributionCache = Map<GeneratorSpec, KeyDistribution>;

/** State a flow keeps per generator across ticks: where each sequence is (and the zipf tables it built). */
export type SequenceState = Map<GeneratorSpec, number> & { zipf?: DistributionCache };

const SPREAD: KeyDistribution = { keys: [], spread: 1, absent: 0 };
const ABSENT: KeyDistribution = { keys: [], spread: 0, absent: 1 };

/**
 * Where `count` draws of attribute `name` (from `specs`, an item's or key's generators) land at
 * `nowMs`. Sequences are read from `sequences` (their next value), not advanced.
 */
export function keyDistribution(specs: ReadonlyMap<string, GeneratorSpec>, name: string, nowMs: number, count: number, sequences: SequenceState): KeyDistribution {
  const spec = specs.get(name);
  if (spec === undefined) return ABSENT;
  return distributionOf(spec, specs, nowMs, count, sequences, 0);
}

function distributionOf(spec: GeneratorSpec, specs: ReadonlyMap<string, GeneratorSpec>, nowMs: number, count: number, sequences: SequenceState, depth: number): KeyDistribution {
  switch (spec.kind) {
    case 'constant':
      return { keys: [[attributeOf(spec.value), 1]], spread: 0, absent: 0 };
    case 'choice': {
      const total = spec.cumulativeWeights[spec.cumulativeWeights.length - 1]!;
      return { keys: spec.values.map((value, at) => [attributeOf(value), (spec.cumulativeWeights[at]! - (at === 0 ? 0 : spec.cumulativeWeights[at - 1]!)) / total] as const), spread: 0, absent: 0 };
    }
    case 'shard':
      if (spec.k > KEYS_MAX) return SPREAD;
      return { keys: Array.from({ length: spec.k }, (_, at) => [{ S: spec.prefix + String(at + 1) }, 1 / spec.k] as const), spread: 0, absent: 0 };
    case 'uniform': {
      const span = spec.max - spec.min + 1;
      if (span > KEYS_MAX) return SPREAD;
      return { keys: Array.from({ length: span }, (_, at) => [numbered(spec.prefix, spec.min + at), 1 / span] as const), spread: 0, absent: 0 };
    }
    case 'zipf':
      return zipfDistribution(spec.n, spec.s, spec.prefix, sequences.zipf, spec);
    case 'timestamp':
      // Every item of a tick is drawn at the tick's clock: one value.
      return { keys: [[timestampOf(spec.format, nowMs), 1]], spread: 0, absent: 0 };
    case 'sequence': {
      if (count > KEYS_MAX || count < 1) return count < 1 ? { keys: [], spread: 0, absent: 0 } : SPREAD;
      const next = sequences.get(spec) ?? spec.start;
      return { keys: Array.from({ length: count }, (_, at) => [numbered(spec.prefix, next + at), 1 / count] as const), spread: 0, absent: 0 };
    }
    case 'uuid':
    case 'payload':
      return SPREAD;
    case 'copy': {
      const source = specs.get(spec.from);
      if (source === undefined || depth > 8) return ABSENT;
      return distributionOf(source, specs, nowMs, count, sequences, depth + 1);
    }
    case 'concat': {
      let combined: KeyDistribution = { keys: [[{ S: '' }, 1]], spread: 0, absent: 0 };
      for (const part of spec.parts) {
        const next = distributionOf(part, specs, nowMs, count, sequences, depth + 1);
        if (combined.keys.length * next.keys.length > KEYS_MAX) return SPREAD;
        const keys: [AttributeValue, number][] = [];
        for (const [left, leftWeight] of combined.keys) {
          for (const [right, rightWeight] of next.keys) keys.push([{ S: scalarOf(left) + scalarOf(right) }, leftWeight * rightWeight]);
        }
        const keyed = keys.reduce((total, [, weight]) => total + weight, 0);
        combined = { keys, spread: 1 - keyed, absent: 0 };
      }
      return combined;
    }
  }
}

/** zipf: the first KEYS_MAX ranks one by one, the tail spread. Kept per spec (`cache`): O(n) once. */
function zipfDistribution(n: number, s: number, prefix: string | undefined, cache: DistributionCache | undefined, spec: GeneratorSpec): KeyDistribution {
  const cached = cache?.get(spec);
  if (cached !== undefined) return cached;
  let total = 0;
  for (let rank = 1; rank <= n; rank++) total += 1 / Math.pow(rank, s);
  const head = Math.min(n, KEYS_MAX);
  const keys: [AttributeValue, number][] = [];
  let keyed = 0;
  for (let rank = 1; rank <= head; rank++) {
    const weight = 1 / Math.pow(rank, s) / total;
    keyed += weight;
    keys.push([numbered(prefix, rank), weight]);
  }
  const distribution = { keys, spread: Math.max(0, 1 - keyed), absent: 0 };
  cache?.set(spec, distribution);
  return distribution;
}

function numbered(prefix: string | undefined, value: number): AttributeValue {
  return prefix === undefined ? { N: String(value) } : { S: prefix + String(value) };
}

function attributeOf(value: string | number | boolean): AttributeValue {
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number') return { N: String(value) };
  return { BOOL: value };
}

function scalarOf(value: AttributeValue): string {
  if ('S' in value) return value.S;
  if ('N' in value) return value.N;
  if ('BOOL' in value) return String(value.BOOL);
  return '';
}

/** Every sequence generator among `specs` (their counters advance by the items drawn). */
function sequencesIn(specs: Iterable<GeneratorSpec>): GeneratorSpec[] {
  const found: GeneratorSpec[] = [];
  const walk = (spec: GeneratorSpec): void => {
    if (spec.kind === 'sequence') found.push(spec);
    if (spec.kind === 'concat') spec.parts.forEach(walk);
  };
  for (const spec of specs) walk(spec);
  return found;
}

/**
 * Refuses, with one line naming the operation, what a flow cannot model: its outcome depends on
 * the data (a condition expression), or on other requests (TransactWriteItems conflicts).
 */
export function refuseUnflowable(scenario: Scenario): void {
  for (const [variantIndex, variant] of scenario.variants.entries()) {
    for (const phase of variant.phases) {
      for (const operation of phase.operations) {
        const where = operation.path.startsWith('variants[') ? `${operation.path} (${operation.name})` : `variants[${variantIndex}] ${operation.path} (${operation.name})`;
        if (operation.kind === 'TransactWriteItems') {
          fail(where, 'fidelity flow cannot model TransactWriteItems (its conditions and conflicts depend on the data); run it with fidelity items');
        }
        if (operation.conditionExpression !== undefined) {
          fail(where, `fidelity flow cannot model a condition expression (its outcome depends on the data): ${operation.kind} with '${operation.conditionExpression}'; run it with fidelity items`);
        }
      }
    }
    for (const [index, definition] of variant.tables.entries()) {
      const indexes = Array.isArray(definition.GlobalSecondaryIndexes) ? (definition.GlobalSecondaryIndexes as { IndexName?: unknown; KeySchema?: unknown }[]) : [];
      for (const gsi of indexes) {
        const hashes = Array.isArray(gsi.KeySchema) ? (gsi.KeySchema as { KeyType?: unknown }[]).filter((element) => element.KeyType === 'HASH').length : 0;
        if (hashes > 1) fail(`variants[${variantIndex}].tables[${index}]`, `fidelity flow cannot place GSI ${String(gsi.IndexName)} keyed on several attributes; run it with fidelity items`);
      }
    }
  }
}

/**
 * Item counts and bytes of one table or GSI without the items: per key hash for keys placed one
 * by one, per bucket of the hash space for spread ones. Measures a hash range and finds where its
 * bytes divide evenly, for the partition map's splits. Bounded: KEYED_HASHES_MAX hashes, past which
 * new ones are kept in their bucket.
 */
export class FlowSizes implements SizeSource {
  readonly #keyedBytes = new Map<number, number>();
  readonly #keyedItems = new Map<number, number>();
  readonly #spreadBytes = new Float64Array(SPREAD_BUCKETS);
  readonly #spreadItems = new Float64Array(SPREAD_BUCKETS);

  /** `items` items of `bytes` bytes in all under key hash `hash`. */
  addKeyed(hash: number, items: number, bytes: number): void {
    if (!this.#keyedBytes.has(hash) && this.#keyedBytes.size >= KEYED_HASHES_MAX) {
      const bucket = bucketOf(hash);
      this.#spreadBytes[bucket]! += bytes;
      this.#spreadItems[bucket]! += items;
      return;
    }
    this.#keyedBytes.set(hash, Math.max(0, (this.#keyedBytes.get(hash) ?? 0) + bytes));
    this.#keyedItems.set(hash, Math.max(0, (this.#keyedItems.get(hash) ?? 0) + items));
  }

  /** Items spread evenly over [start, end). */
  addSpread(start: number, end: number, items: number, bytes: number): void {
    const width = end - start;
    if (width <= 0) return;
    const first = bucketOf(start);
    const last = bucketOf(end - 1);
    for (let bucket = first; bucket <= last; bucket++) {
      const overlap = Math.min(end, (bucket + 1) * BUCKET_WIDTH) - Math.max(start, bucket * BUCKET_WIDTH);
      const share = overlap / width;
      this.#spreadBytes[bucket] = Math.max(0, this.#spreadBytes[bucket]! + bytes * share);
      this.#spreadItems[bucket] = Math.max(0, this.#spreadItems[bucket]! + items * share);
    }
  }

  /** Items and bytes under one key hash (keyed values only). */
  underHash(hash: number): { readonly itemCount: number; readonly sizeBytes: number } {
    return { itemCount: this.#keyedItems.get(hash) ?? 0, sizeBytes: this.#keyedBytes.get(hash) ?? 0 };
  }

  readonly measure: MeasureRange = (start, end) => {
    let itemCount = 0;
    let sizeBytes = 0;
    for (const [hash, bytes] of this.#keyedBytes) {
      if (hash < start || hash >= end) continue;
      sizeBytes += bytes;
      itemCount += this.#keyedItems.get(hash) ?? 0;
    }
    const first = bucketOf(start);
    const last = bucketOf(Math.max(start, end - 1));
    for (let bucket = first; bucket <= last; bucket++) {
      const overlap = Math.min(end, (bucket + 1) * BUCKET_WIDTH) - Math.max(start, bucket * BUCKET_WIDTH);
      const share = overlap / BUCKET_WIDTH;
      sizeBytes += this.#spreadBytes[bucket]! * share;
      itemCount += this.#spreadItems[bucket]! * share;
    }
    return { itemCount: Math.round(itemCount), sizeBytes: Math.round(sizeBytes) };
  };

  /**
   * Where [start, end)'s bytes divide evenly: candidates are the keyed hashes in it (a cut at one
   * puts it on the high side, as partition-tracker.ts planSplit cuts) and the bucket edges; the one leaving the halves closest wins, with something on
   * each side. All bytes under one keyed hash and nothing spread: `whole`.
   */
  splitPoint(start: number, end: number): { readonly at: number } | { readonly whole: number } {
    const total = this.measure(start, end).sizeBytes;
    const candidates = new Set<number>();
    // As the store's split plans it: the cut is the first hash of the high side.
    for (const hash of this.#keyedBytes.keys()) if (hash > start && hash < end) candidates.add(hash);
    for (let bucket = bucketOf(start) + 1; bucket <= bucketOf(end - 1); bucket++) candidates.add(bucket * BUCKET_WIDTH);
    let best: number | undefined;
    let bestGap = Infinity;
    for (const at of candidates) {
      if (at <= start || at >= end) continue;
      const low = this.measure(start, at).sizeBytes;
      if (low <= 0 || low >= total) continue;
      const gap = Math.abs(total - 2 * low);
      if (gap < bestGap) {
        bestGap = gap;
        best = at;
      }
    }
    if (best !== undefined) return { at: best };
    // Nothing divides it by a key or bucket edge: spread data halves at the middle, a single key stays whole.
    const heaviest = [...this.#keyedBytes].filter(([hash]) => hash >= start && hash < end).sort((a, b) => b[1] - a[1])[0];
    if (heaviest !== undefined && heaviest[1] >= total * 0.999) return { whole: heaviest[0] };
    return { at: start + Math.floor((end - start) / 2) };
  }
}

const KEYED_HASHES_MAX = 65_536;
const BUCKET_WIDTH = HASH_SPACE / SPREAD_BUCKETS;

function bucketOf(hash: number): number {
  return Math.min(SPREAD_BUCKETS - 1, Math.floor(hash / BUCKET_WIDTH));
}

/** What flows report to the run (its series and counters), as requests would. */
export interface FlowSink {
  offer(count: number): void;
  accepted(count: number): void;
  throttled(count: number): void;
  failed(count: number): void;
  requests(count: number): void;
  error(code: string, count: number): void;
  /** Draws an item (or key) with the operation's generators and tallies its keys, as items mode does. */
  draw(table: string, generators: readonly (readonly [string, Generator])[], nowMs: number, isItem: boolean): AttributeMap;
}

/** The runner's view of one workload operation. */
export interface FlowDriver {
  readonly spec: OperationSpec;
  readonly item: readonly (readonly [string, Generator])[] | undefined;
  readonly key: readonly (readonly [string, Generator])[] | undefined;
  readonly stats: {
    offered: number;
    accepted: number;
    throttled: number;
    failed: number;
    calls: number;
    readUnits: number;
    writeUnits: number;
    itemsReturned: number;
    itemSizeFailures: number;
    largestItemWriteUnits: number;
  };
  owed: number;
}

/** Per operation: its generators' specs, where its sequences are, what it wrote. */
interface FlowOperation {
  readonly driver: FlowDriver;
  /** The item's (or key's) generator specs, with the variant's overrides. */
  readonly specs: ReadonlyMap<string, GeneratorSpec>;
  readonly sequences: SequenceState;
  readonly sequenceSpecs: readonly GeneratorSpec[];
  /** Per resource name: carried fractions of requests per partition id. */
  readonly carry: Map<string, Map<number, number>>;
  /** Distinct primary keys the operation can write (undefined: unbounded), and items it created. */
  readonly distinctKeys: number | undefined;
  created: number;
  /** Sizes from the last tick's drawn items. */
  sizes: ItemSizes;
}

interface ItemSizes {
  readonly itemBytes: number;
  readonly tableWriteUnits: number;
  /** Per GSI name: the share of items it indexes, their entries' bytes and write units. */
  readonly indexes: ReadonlyMap<string, { readonly share: number; readonly entryBytes: number; readonly writeUnits: number }>;
  /** LSI entry write units, charged to the table partition. */
  readonly localWriteUnits: number;
  readonly localBytes: number;
  /** Share of items over 400 KB (refused). */
  readonly oversizedShare: number;
}

const NO_SIZES: ItemSizes = { itemBytes: 0, tableWriteUnits: 1, indexes: new Map(), localWriteUnits: 0, localBytes: 0, oversizedShare: 0 };

/** Requests of one operation waiting for a retry, pinned to where they were refused. */
interface FlowRetry {
  readonly operation: FlowOperation;
  readonly count: number;
  readonly attempt: number;
  /** The table (or resource read) hash they land on; undefined: the operation's distribution. */
  readonly hash: number | undefined;
}

/** Where one item's entries go in a GSI: its share of items indexed, entry size, key hashes by weight, the spread rest. */
interface IndexEntries {
  readonly tracker: ResourcePartitions;
  readonly share: number;
  readonly entryBytes: number;
  readonly keyed: readonly (readonly [number, number])[];
  readonly spread: number;
}

/** One call a read makes: its demands, units and items per call, the key hash it reads, its share of the reads. */
interface ReadCall {
  readonly demands: Demand[];
  readonly units: number;
  readonly items: number;
  readonly hash: number | undefined;
  readonly weight: number;
}

/** A share of an operation's requests on one partition. */
interface Placement {
  readonly partition: Partition;
  /** Requests (whole) placed there this tick. */
  count: number;
  /** Keyed hashes in this partition with their share of its requests; the rest is spread. */
  readonly keyed: [number, number][];
  spreadShare: number;
}

type Specs = Readonly<Record<string, GeneratorSpec>>;

export class FlowRun {
  readonly #engine: Engine;
  readonly #clock: ManualClock;
  readonly #retry: RetryPolicy;
  readonly #sink: FlowSink;
  readonly #tickMs: number;
  readonly #overrides: Readonly<Record<string, GeneratorSpec | null>>;
  readonly #operations = new Map<FlowDriver, FlowOperation>();
  readonly #retries = new Map<number, FlowRetry[]>();
  readonly #sizes = new Map<ResourcePartitions, FlowSizes>();
  /** zipf distributions built (O(n) each), shared by the run's operations. */
  readonly #zipf: DistributionCache = new Map();
  /** Size changes of the tick, recorded on the partition maps at its end: [tracker, hash, items, bytes]. */
  #records: [ResourcePartitions, number, number, number][] = [];

  constructor(engine: Engine, clock: ManualClock, retry: RetryPolicy, sink: FlowSink, tickMs: number, overrides: Readonly<Record<string, GeneratorSpec | null>>) {
    this.#engine = engine;
    this.#clock = clock;
    this.#retry = retry;
    this.#sink = sink;
    this.#tickMs = tickMs;
    this.#overrides = overrides;
  }

  /** Requests still waiting for a retry (items, for writes). */
  pendingAtEnd(): number {
    let pending = 0;
    for (const list of this.#retries.values()) for (const retry of list) pending += retry.count;
    return pending;
  }

  /** One tick: the new requests each driver owes, then the retries due. */
  async tick(drivers: readonly FlowDriver[], progress: number, tick: number): Promise<void> {
    for (const driver of drivers) {
      const rate = driver.spec.rate;
      const perSecond = rate.fromPerSecond + (rate.toPerSecond - rate.fromPerSecond) * progress;
      driver.owed += (perSecond * this.#tickMs) / 1000;
      const unit = rate.unit === 'items' && driver.spec.kind === 'BatchWriteItem' ? driver.spec.batchSize : 1;
      const requests = Math.floor(driver.owed / unit + 1e-9);
      driver.owed -= requests * unit;
      if (requests === 0) continue;
      const operation = this.#operationOf(driver);
      const items = driver.spec.kind === 'BatchWriteItem' ? requests * driver.spec.batchSize : requests;
      driver.stats.offered += items;
      this.#sink.offer(items);
      this.#drawSamples(operation, items);
      this.#apply(operation, items, 1, undefined, tick);
      for (const spec of operation.sequenceSpecs) operation.sequences.set(spec, (operation.sequences.get(spec) ?? (spec as { start: number }).start) + items);
    }
    const due = this.#retries.get(tick);
    if (due !== undefined) {
      this.#retries.delete(tick);
      for (const retry of due) this.#apply(retry.operation, retry.count, retry.attempt, retry.hash, tick);
    }
    await this.#flushRecords();
  }

  #operationOf(driver: FlowDriver): FlowOperation {
    let operation = this.#operations.get(driver);
    if (operation !== undefined) return operation;
    const base: Specs = driver.spec.item ?? driver.spec.key ?? {};
    const specs = new Map<string, GeneratorSpec>(Object.entries(base));
    for (const [name, override] of Object.entries(this.#overrides)) {
      if (override === null) specs.delete(name);
      else if (driver.spec.item !== undefined || specs.has(name)) specs.set(name, override);
    }
    operation = {
      driver,
      specs,
      sequences: Object.assign(new Map<GeneratorSpec, number>(), { zipf: this.#zipf }),
      sequenceSpecs: sequencesIn(specs.values()),
      carry: new Map(),
      distinctKeys: undefined,
      created: 0,
      sizes: NO_SIZES,
    };
    operation = { ...operation, distinctKeys: this.#distinctKeys(operation) };
    this.#operations.set(driver, operation);
    return operation;
  }

  /** How many distinct primary keys an operation's writes can take (undefined: unbounded). */
  #distinctKeys(operation: FlowOperation): number | undefined {
    const table = this.#engine.catalog.get(operation.driver.spec.table);
    if (table === undefined) return undefined;
    let product = 1;
    for (const part of table.keyParts) {
      const spec = operation.specs.get(part.attribute.name);
      if (spec === undefined || !finite(spec, operation.specs)) return undefined;
      const distribution = distributionOf(spec, operation.specs, 0, 1, new Map(), 0);
      product *= distribution.keys.length;
    }
    return product;
  }

  /** Draws a few items (or keys): their sizes stand for the tick's, and they are tallied. */
  #drawSamples(operation: FlowOperation, items: number): void {
    const driver = operation.driver;
    const generators = driver.item ?? driver.key;
    if (generators === undefined) return;
    const table = this.#engine.catalog.get(driver.spec.table);
    const nowMs = this.#clock.nowMs();
    const samples = Math.min(items, SAMPLES_PER_TICK);
    let bytes = 0;
    let units = 0;
    let oversized = 0;
    let localUnits = 0;
    let localBytes = 0;
    const indexes = new Map<string, { share: number; entryBytes: number; writeUnits: number }>();
    for (let sample = 0; sample < samples; sample++) {
      const item = this.#sink.draw(driver.spec.table, generators, nowMs, driver.item !== undefined);
      if (driver.item === undefined) continue;
      const size = itemSize(item);
      if (size > ITEM_SIZE_MAX_BYTES) {
        oversized++;
        continue;
      }
      bytes += size;
      units += writeUnits(size);
      driver.stats.largestItemWriteUnits = Math.max(driver.stats.largestItemWriteUnits, driver.spec.kind === 'PutItem' ? writeUnits(size) : 0);
      for (const index of table?.indexes.live ?? []) {
        if (!indexed(index, item)) continue;
        const entryBytes = index.entrySize(index.entryOf(item), size);
        if (index.kind === 'local') {
          localUnits += writeUnits(entryBytes);
          localBytes += entryBytes;
          continue;
        }
        const sums = indexes.get(index.name) ?? { share: 0, entryBytes: 0, writeUnits: 0 };
        sums.share += 1;
        sums.entryBytes += entryBytes;
        sums.writeUnits += writeUnits(entryBytes);
        indexes.set(index.name, sums);
      }
    }
    if (driver.item === undefined) return;
    const kept = samples - oversized;
    const perItem = (value: number): number => (kept === 0 ? 0 : value / kept);
    operation.sizes = {
      itemBytes: perItem(bytes),
      tableWriteUnits: kept === 0 ? 1 : units / kept,
      indexes: new Map([...indexes].map(([name, sums]) => [name, { share: perItem(sums.share), entryBytes: sums.entryBytes / sums.share, writeUnits: sums.writeUnits / sums.share }])),
      localWriteUnits: perItem(localUnits),
      localBytes: perItem(localBytes),
      oversizedShare: samples === 0 ? 0 : oversized / samples,
    };
  }

  /** `items` requests (items, for writes) of an operation, attempt `attempt`, at the clock. */
  #apply(operation: FlowOperation, items: number, attempt: number, hash: number | undefined, tick: number): void {
    const kind = operation.driver.spec.kind;
    const table = this.#engine.catalog.get(operation.driver.spec.table);
    if (table === undefined) return;
    switch (kind) {
      case 'PutItem':
      case 'BatchWriteItem':
      case 'UpdateItem':
      case 'DeleteItem':
        this.#write(operation, table, items, attempt, hash, tick);
        return;
      case 'GetItem':
      case 'Query':
      case 'ShardedQuery':
      case 'Scan':
        this.#read(operation, table, items, attempt, hash, tick);
        return;
      case 'TransactWriteItems':
        throw new Error('assertion failed: TransactWriteItems is refused before a flow runs');
    }
  }

  #write(operation: FlowOperation, table: Table, items: number, attempt: number, pinnedHash: number | undefined, tick: number): void {
    const driver = operation.driver;
    const spec = driver.spec;
    const nowMs = this.#clock.nowMs();
    const sizes = operation.sizes;
    let count = items;
    if (attempt === 1 && sizes.oversizedShare > 0 && spec.kind !== 'UpdateItem' && spec.kind !== 'DeleteItem') {
      const refused = Math.round(items * sizes.oversizedShare);
      if (refused > 0) {
        driver.stats.failed += refused;
        driver.stats.itemSizeFailures += refused;
        // The requests were made; DynamoDB refused them (ValidationException).
        const batch = spec.kind === 'BatchWriteItem' ? spec.batchSize : 1;
        driver.stats.calls += Math.ceil(refused / batch);
        this.#sink.requests(Math.ceil(refused / batch));
        this.#sink.error('ValidationException', refused);
        count -= refused;
      }
    }
    if (count <= 0) return;
    const tracker = table.partitions;
    const batch = spec.kind === 'BatchWriteItem' ? spec.batchSize : 1;
    const requestsMade = Math.ceil(count / batch);
    driver.stats.calls += requestsMade;
    this.#sink.requests(requestsMade);
    // What one item costs, by kind: a put its size; an update or a delete the table's mean item.
    const totals = tracker.totals();
    const meanBytes = totals.itemCount > 0 ? totals.sizeBytes / totals.itemCount : 0;
    const tableUnits = spec.kind === 'PutItem' || spec.kind === 'BatchWriteItem' ? sizes.tableWriteUnits + sizes.localWriteUnits : writeUnits(meanBytes);
    const entries: IndexEntries[] = [];
    const indexDemands = spec.kind === 'UpdateItem' ? [] : this.#indexWrites(operation, table, spec.kind === 'DeleteItem', count, nowMs, entries);
    const placements = pinnedHash === undefined ? this.#place(operation, tracker, spec.table, table.itemPrefix, count, nowMs) : [this.#pinned(tracker, pinnedHash, count)];
    let acceptedTotal = 0;
    let throttledTotal = 0;
    const accepted = new Map<Placement, number>();
    const refusedAt = new Map<Placement, number>();
    for (let round = 0; round < FLOW_ROUNDS; round++) {
      // Each round starts at another partition: one by one, the requests of a tick interleave.
      for (let turn = 0; turn < placements.length; turn++) {
        const placement = placements[(turn + round + tick) % placements.length]!;
        const share = roundShare(placement.count, round);
        if (share === 0) continue;
        const partition = tracker.capacityAt(placement.partition.start, nowMs);
        const demands: Demand[] = [{ resource: partition.resource, partition, direction: 'write', units: tableUnits }];
        for (const demand of indexDemands) demands.push(demand);
        const outcome = admitFlow(demands, share, nowMs, batch);
        this.#retry.succeededMany(attempt, Math.ceil(outcome.admitted / batch));
        accepted.set(placement, (accepted.get(placement) ?? 0) + outcome.admitted);
        acceptedTotal += outcome.admitted;
        const refused = share - outcome.admitted;
        if (refused > 0) {
          throttledTotal += refused;
          refusedAt.set(placement, (refusedAt.get(placement) ?? 0) + refused);
        }
      }
    }
    const unitsPerItem = tableUnits + indexDemands.reduce((total, demand) => total + demand.units, 0);
    driver.stats.writeUnits += acceptedTotal * unitsPerItem;
    driver.stats.accepted += acceptedTotal;
    this.#sink.accepted(acceptedTotal);
    this.#recordWrites(operation, table, placements, accepted, entries, meanBytes);
    if (throttledTotal > 0) this.#throttled(operation, refusedAt, attempt, batch, tick);
  }

  /**
   * One item's GSI writes, as demands: each GSI the item enters, its entry's units spread over
   * the GSI partitions its key lands on. A delete removes the entries the table's items have.
   */
  #indexWrites(operation: FlowOperation, table: Table, deleting: boolean, count: number, nowMs: number, entries: IndexEntries[]): Demand[] {
    const demands: Demand[] = [];
    for (const index of table.indexes.live) {
      const tracker = index.state.partitions;
      if (index.kind !== 'global' || tracker === undefined || !tracker.hasCapacity) continue;
      let share: number;
      let units: number;
      let entryBytes: number;
      if (deleting) {
        const totals = tracker.totals();
        const tableItems = table.partitions.totals().itemCount;
        if (totals.itemCount <= 0 || tableItems <= 0) continue;
        share = Math.min(1, totals.itemCount / tableItems);
        entryBytes = totals.sizeBytes / totals.itemCount;
        units = writeUnits(entryBytes);
      } else {
        const sizes = operation.sizes.indexes.get(index.name);
        if (sizes === undefined || sizes.share <= 0) continue;
        share = sizes.share;
        units = sizes.writeUnits;
        entryBytes = sizes.entryBytes;
      }
      const attribute = indexHashAttribute(index);
      const distribution = deleting ? SPREAD : keyDistribution(operation.specs, attribute, nowMs, count, operation.sequences);
      const present = 1 - distribution.absent;
      if (present <= 0) continue;
      const keyed: [number, number][] = distribution.keys.map(([value, weight]) => [hashOf(index.prefix, value), weight / present]);
      entries.push({ tracker, share, entryBytes, keyed, spread: distribution.spread / present });
      for (const [partition, weight] of this.#weights(tracker, index.prefix, distribution)) {
        const capacity = tracker.capacityAt(partition.start, nowMs);
        demands.push({ resource: capacity.resource, partition: capacity, direction: 'write', units: units * share * weight });
      }
    }
    return demands;
  }

  /** Keeps what the accepted writes change in the tables' and GSIs' sizes, for their partition maps. */
  #recordWrites(operation: FlowOperation, table: Table, placements: readonly Placement[], accepted: ReadonlyMap<Placement, number>, entries: readonly IndexEntries[], meanBytes: number): void {
    const kind = operation.driver.spec.kind;
    let acceptedTotal = 0;
    for (const count of accepted.values()) acceptedTotal += count;
    if (acceptedTotal === 0) return;
    let itemDelta: number;
    let bytesPerItem: number;
    if (kind === 'DeleteItem') {
      itemDelta = -Math.min(acceptedTotal, table.partitions.totals().itemCount);
      bytesPerItem = meanBytes;
    } else if (kind === 'UpdateItem') {
      // An update of a missing key creates a small item; of an existing one, it changes little.
      const room = operation.distinctKeys === undefined ? acceptedTotal : Math.max(0, operation.distinctKeys - operation.created);
      itemDelta = Math.min(acceptedTotal, room, Math.max(0, (operation.distinctKeys ?? Infinity) - table.partitions.totals().itemCount));
      bytesPerItem = 64;
    } else {
      const room = operation.distinctKeys === undefined ? acceptedTotal : Math.max(0, operation.distinctKeys - operation.created);
      itemDelta = Math.min(acceptedTotal, room);
      bytesPerItem = operation.sizes.itemBytes + operation.sizes.localBytes;
    }
    if (itemDelta === 0) return;
    if (itemDelta > 0) operation.created += itemDelta;
    const fraction = itemDelta / acceptedTotal;
    const tableSizes = this.#sizesOf(table.partitions);
    for (const placement of placements) {
      const count = (accepted.get(placement) ?? 0) * fraction;
      if (count === 0) continue;
      this.#addPlaced(table.partitions, tableSizes, placement, count, count * bytesPerItem);
    }
    // GSI entries follow the items, under their own keys' hashes.
    for (const entry of entries) {
      const count = itemDelta * entry.share;
      const bytes = count * entry.entryBytes;
      const sizes = this.#sizesOf(entry.tracker);
      for (const [hash, weight] of entry.keyed) {
        sizes.addKeyed(hash, count * weight, bytes * weight);
        this.#records.push([entry.tracker, hash, count * weight, bytes * weight]);
      }
      if (entry.spread <= 0) continue;
      for (const partition of entry.tracker.map.list()) {
        const width = (partition.end - partition.start) / HASH_SPACE;
        sizes.addSpread(partition.start, partition.end, count * entry.spread * width, bytes * entry.spread * width);
        this.#records.push([entry.tracker, partition.start, count * entry.spread * width, bytes * entry.spread * width]);
      }
    }
  }

  /** Adds a placement's items: to its keyed hashes by their shares, the rest spread over the partition. */
  #addPlaced(tracker: ResourcePartitions, sizes: FlowSizes, placement: Placement, items: number, bytes: number): void {
    for (const [hash, share] of placement.keyed) {
      sizes.addKeyed(hash, items * share, bytes * share);
      this.#records.push([tracker, hash, items * share, bytes * share]);
    }
    if (placement.spreadShare > 0) {
      const { start, end } = placement.partition;
      sizes.addSpread(start, end, items * placement.spreadShare, bytes * placement.spreadShare);
      this.#records.push([tracker, start, items * placement.spreadShare, bytes * placement.spreadShare]);
    }
  }

  #sizesOf(tracker: ResourcePartitions): FlowSizes {
    let sizes = this.#sizes.get(tracker);
    if (sizes === undefined) {
      sizes = new FlowSizes();
      this.#sizes.set(tracker, sizes);
      tracker.useSizeSource(sizes);
    }
    return sizes;
  }

  /** The tick's size changes, given to the partition maps in one storage write (splits happen there). */
  async #flushRecords(): Promise<void> {
    const records = this.#records;
    if (records.length === 0) return;
    this.#records = [];
    await this.#engine.storage.write((txn) => {
      for (const [tracker, hash, items, bytes] of records) {
        if (items === 0 && bytes === 0) continue;
        tracker.record(txn, hash >>> 0, items, bytes);
      }
    });
  }

  /**
   * Reads: a GetItem costs the mean item of its table; a Query the entries under its key, up to
   * its limit and a page; a ShardedQuery K such queries; a Scan the whole table (allPages) or a
   * page, on the partitions holding the bytes.
   */
  #read(operation: FlowOperation, table: Table, count: number, attempt: number, pinnedHash: number | undefined, tick: number): void {
    const driver = operation.driver;
    const spec = driver.spec;
    const nowMs = this.#clock.nowMs();
    const index = spec.index === undefined ? undefined : table.indexes.find(spec.index);
    const tracker = index === undefined ? table.partitions : index.kind === 'global' ? index.state.partitions : table.partitions;
    if (tracker === undefined || !tracker.hasCapacity) return;
    tracker.splitWhenDue(nowMs);
    const consistency = spec.consistentRead && index?.kind !== 'global' ? 'strong' : 'eventual';
    const sizes = this.#sizesOf(tracker);
    const totals = tracker.totals();
    const meanBytes = totals.itemCount > 0 ? totals.sizeBytes / totals.itemCount : 0;
    // Per read: its calls, each a list of [hash or undefined (spread), units, items returned].
    let calls: ReadCall[];
    if (spec.kind === 'Scan') {
      const pages = spec.allPages ? Math.max(1, Math.ceil(totals.sizeBytes / PAGE_BYTES_MAX)) : 1;
      const bytes = spec.allPages ? totals.sizeBytes : Math.min(totals.sizeBytes, PAGE_BYTES_MAX, (spec.limit ?? Infinity) * meanBytes);
      // A page costs its bytes, and at least one read per partition it spans (docs/CAPACITY-MODEL.md §9).
      const spanned = spec.allPages ? tracker.map.count : 1;
      const units = Math.max(spanned, Math.ceil(bytes / 4096)) * readUnits(1, consistency);
      const demands: Demand[] = [];
      for (const partition of tracker.map.list()) {
        const share = totals.sizeBytes > 0 ? partition.sizeBytes / totals.sizeBytes : partition === tracker.map.list()[0] ? 1 : 0;
        if (share <= 0) continue;
        const capacity = tracker.capacityAt(partition.start, nowMs);
        demands.push({ resource: capacity.resource, partition: capacity, direction: 'read', units: units * share });
      }
      calls = [{ demands, units, items: spec.allPages ? totals.itemCount : Math.round(bytes / Math.max(1, meanBytes)), hash: undefined, weight: 1 }];
      driver.stats.calls += count * (pages - 1);
    } else {
      const keyValues = this.#readKeys(operation, table, index, nowMs, count);
      calls = [];
      for (const [hash, weight] of keyValues) {
        const under = hash === undefined ? undefined : sizes.underHash(hash);
        let items: number;
        let bytes: number;
        if (spec.kind === 'GetItem') {
          items = totals.itemCount > 0 ? 1 : 0;
          bytes = meanBytes;
        } else {
          const available = under === undefined || under.itemCount === 0 ? (totals.itemCount > 0 ? 1 : 0) : under.itemCount;
          const per = under === undefined || under.itemCount === 0 ? meanBytes : under.sizeBytes / under.itemCount;
          items = Math.min(spec.limit ?? Infinity, available, Math.max(1, Math.floor(PAGE_BYTES_MAX / Math.max(1, per))));
          bytes = items * per;
        }
        const units = readUnits(bytes, consistency);
        const partition = tracker.capacityAt(hash ?? 0, nowMs);
        calls.push({ demands: [{ resource: partition.resource, partition, direction: 'read', units }], units, items, hash, weight });
      }
    }
    this.#admitReads(operation, calls, count, attempt, pinnedHash, tick, nowMs);
  }

  /**
   * The keys a read asks for, each with its share of the reads (weights sum to 1), as hashes on the
   * read resource; a ShardedQuery asks every shard key (weights 1 each: a read makes K calls).
   */
  #readKeys(operation: FlowOperation, table: Table, index: SecondaryIndex | undefined, nowMs: number, count: number): [number | undefined, number][] {
    const spec = operation.driver.spec;
    const prefix = index?.kind === 'global' ? index.prefix : table.itemPrefix;
    const tracker = index?.kind === 'global' ? index.state.partitions! : table.partitions;
    if (spec.kind === 'ShardedQuery') {
      const shards = spec.shards!;
      return Array.from({ length: shards.k }, (_, at) => [hashOf(prefix, { S: shards.prefix + String(at + 1) }), 1] as [number, number]);
    }
    let distribution: KeyDistribution;
    if (spec.kind === 'GetItem') {
      const attribute = table.keyParts[0]!.attribute.name;
      distribution = keyDistribution(operation.specs, attribute, nowMs, count, operation.sequences);
    } else {
      const attribute = index === undefined ? table.keyParts[0]!.attribute.name : indexHashAttribute(index);
      const placeholder = keyPlaceholder(spec.keyConditionExpression ?? '', attribute, spec.names);
      const valueSpec = placeholder === undefined ? undefined : spec.values?.[placeholder];
      distribution = valueSpec === undefined ? SPREAD : distributionOf(valueSpec, new Map(Object.entries(spec.values ?? {})), nowMs, count, operation.sequences, 0);
    }
    const keys: [number | undefined, number][] = distribution.keys.map(([value, weight]) => [hashOf(prefix, value), weight]);
    if (distribution.spread > 0) {
      for (const partition of tracker.map.list()) keys.push([partition.start, (distribution.spread * (partition.end - partition.start)) / HASH_SPACE]);
    }
    return keys;
  }

  /** Admits `count` reads, each making `calls`; a read is accepted when all its calls are. */
  #admitReads(
    operation: FlowOperation,
    calls: readonly ReadCall[],
    count: number,
    attempt: number,
    pinnedHash: number | undefined,
    tick: number,
    nowMs: number,
  ): void {
    const driver = operation.driver;
    const spec = driver.spec;
    const sharded = spec.kind === 'ShardedQuery' || spec.kind === 'Scan';
    if (sharded) {
      // Every read makes every call: admitted reads are those all calls let through.
      let admitted = count;
      let units = 0;
      for (const call of calls) {
        const outcome = admitFlow(call.demands, count, nowMs);
        this.#retry.succeededMany(attempt, outcome.admitted);
        admitted = Math.min(admitted, outcome.admitted);
        units += outcome.admitted * call.units * call.weight;
      }
      driver.stats.calls += count * calls.length;
      this.#sink.requests(count * calls.length);
      driver.stats.readUnits += units;
      driver.stats.accepted += admitted;
      driver.stats.itemsReturned += admitted * calls.reduce((total, call) => total + call.items * call.weight, 0);
      this.#sink.accepted(admitted);
      if (admitted < count) this.#throttled(operation, new Map([[undefined, count - admitted]]), attempt, 1, tick);
      return;
    }
    // One call per read, placed by its key's weight (or pinned where a retry was refused).
    const placed: number[] = pinnedHash === undefined ? spreadCounts(calls.map((call) => call.weight), count, operation.carry) : calls.map((call) => (call.hash === pinnedHash ? count : 0));
    if (pinnedHash !== undefined && !placed.some((value) => value > 0)) placed[0] = count;
    driver.stats.calls += count;
    this.#sink.requests(count);
    let acceptedTotal = 0;
    const refusedAt = new Map<number | undefined, number>();
    calls.forEach((call, at) => {
      const reads = placed[at]!;
      if (reads === 0) return;
      const outcome = admitFlow(call.demands, reads, nowMs);
      this.#retry.succeededMany(attempt, outcome.admitted);
      acceptedTotal += outcome.admitted;
      driver.stats.readUnits += outcome.admitted * call.units;
      driver.stats.itemsReturned += outcome.admitted * call.items;
      if (outcome.admitted < reads) refusedAt.set(call.hash, (refusedAt.get(call.hash) ?? 0) + reads - outcome.admitted);
    });
    driver.stats.accepted += acceptedTotal;
    this.#sink.accepted(acceptedTotal);
    if (refusedAt.size > 0) this.#throttled(operation, refusedAt, attempt, 1, tick);
  }

  /** Refused requests: retried as the client settings say (pinned where they were refused), or given up. */
  #throttled(operation: FlowOperation, refusedAt: ReadonlyMap<Placement | number | undefined, number>, attempt: number, batch: number, tick: number): void {
    const driver = operation.driver;
    for (const [where, refused] of refusedAt) {
      driver.stats.throttled += refused;
      this.#sink.throttled(refused);
      const hash = where === undefined ? undefined : typeof where === 'number' ? where : where.partition.start;
      // One retry decision per request refused (a batch's unprocessed items go back as one request).
      let left = refused;
      while (left > 0) {
        const group = Math.min(left, batch);
        left -= group;
        const delayMs = this.#retry.retryDelayMs(attempt);
        if (delayMs === undefined) {
          driver.stats.failed += group + left;
          this.#sink.failed(group + left);
          break;
        }
        const dueTick = Math.max(tick + 1, Math.ceil(tick + delayMs / this.#tickMs));
        const queue = this.#retries.get(dueTick);
        const last = queue?.[queue.length - 1];
        const retry: FlowRetry = { operation, count: group, attempt: attempt + 1, hash };
        if (last !== undefined && last.operation === operation && last.hash === hash && last.attempt === attempt + 1) queue![queue!.length - 1] = { ...last, count: last.count + group };
        else if (queue === undefined) this.#retries.set(dueTick, [retry]);
        else queue.push(retry);
      }
    }
  }

  /** Where an operation's `count` writes land on the table's partitions this tick. */
  #place(operation: FlowOperation, tracker: ResourcePartitions, resource: string, prefix: Buffer, count: number, nowMs: number): Placement[] {
    const table = this.#engine.catalog.get(operation.driver.spec.table)!;
    const attribute = table.keyParts[0]!.attribute.name;
    const distribution = keyDistribution(operation.specs, attribute, nowMs, count, operation.sequences);
    const byPartition = new Map<Partition, Placement>();
    const placementOf = (partition: Partition): Placement => {
      let placement = byPartition.get(partition);
      if (placement === undefined) {
        placement = { partition, count: 0, keyed: [], spreadShare: 0 };
        byPartition.set(partition, placement);
      }
      return placement;
    };
    const weights = new Map<Placement, number>();
    for (const [value, weight] of distribution.keys) {
      const hash = hashOf(prefix, value);
      const placement = placementOf(tracker.map.partitionOf(hash));
      placement.keyed.push([hash, weight]);
      weights.set(placement, (weights.get(placement) ?? 0) + weight);
    }
    if (distribution.spread > 0) {
      for (const partition of tracker.map.list()) {
        const placement = placementOf(partition);
        const weight = (distribution.spread * (partition.end - partition.start)) / HASH_SPACE;
        placement.spreadShare = weight;
        weights.set(placement, (weights.get(placement) ?? 0) + weight);
      }
    }
    const placements = [...byPartition.values()];
    // Keyed shares and the spread share become fractions of the placement's requests.
    for (const placement of placements) {
      const total = weights.get(placement) ?? 0;
      if (total <= 0) continue;
      for (const entry of placement.keyed) entry[1] /= total;
      placement.spreadShare /= total;
    }
    const counts = spreadCounts(placements.map((placement) => weights.get(placement) ?? 0), count, operation.carry, placements.map((placement) => placement.partition.id), resource);
    placements.forEach((placement, at) => (placement.count = counts[at]!));
    return placements.filter((placement) => placement.count > 0);
  }

  #pinned(tracker: ResourcePartitions, hash: number, count: number): Placement {
    const partition = tracker.map.partitionOf(hash);
    return { partition, count, keyed: [], spreadShare: 1 };
  }

  /** The partitions a distribution lands on, by weight (absent values: not at all). */
  #weights(tracker: ResourcePartitions, prefix: Buffer, distribution: KeyDistribution): [Partition, number][] {
    const weights = new Map<Partition, number>();
    for (const [value, weight] of distribution.keys) {
      const partition = tracker.map.partitionOf(hashOf(prefix, value));
      weights.set(partition, (weights.get(partition) ?? 0) + weight);
    }
    if (distribution.spread > 0) {
      for (const partition of tracker.map.list()) {
        weights.set(partition, (weights.get(partition) ?? 0) + (distribution.spread * (partition.end - partition.start)) / HASH_SPACE);
      }
    }
    const present = 1 - distribution.absent;
    return [...weights].filter(([, weight]) => weight > 0).map(([partition, weight]) => [partition, present > 0 ? weight / present : 0]);
  }
}

/**
 * Whole requests per share: the expected counts (weights × count, with what earlier ticks carried
 * over per partition) rounded down, the rest given to the largest remainders, so a tick places
 * exactly `count` and a slow flow's fractions add up over ticks.
 */
function spreadCounts(weights: readonly number[], count: number, carries: Map<string, Map<number, number>>, ids?: readonly number[], resource = 'read'): number[] {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  if (total <= 0) return weights.map((_, at) => (at === 0 ? count : 0));
  let carry = carries.get(resource);
  if (carry === undefined) carries.set(resource, (carry = new Map()));
  const expected = weights.map((weight, at) => (weight / total) * count + (carry!.get(ids?.[at] ?? at) ?? 0));
  const counts = expected.map((value) => Math.max(0, Math.floor(value + 1e-9)));
  let left = count - counts.reduce((sum, value) => sum + value, 0);
  const order = expected.map((value, at) => [value - counts[at]!, at] as const).sort((a, b) => b[0] - a[0]);
  for (const [, at] of order) {
    if (left <= 0) break;
    counts[at]!++;
    left--;
  }
  if (left < 0) {
    for (const [, at] of [...order].reverse()) {
      if (left >= 0) break;
      if (counts[at]! > 0) {
        counts[at]!--;
        left++;
      }
    }
  }
  carry.clear();
  expected.forEach((value, at) => {
    const rest = value - counts[at]!;
    if (Math.abs(rest) > 1e-9) carry!.set(ids?.[at] ?? at, rest);
  });
  return counts;
}

/** The part of a placement's requests admitted in round `round` of FLOW_ROUNDS. */
function roundShare(count: number, round: number): number {
  return Math.floor((count * (round + 1)) / FLOW_ROUNDS) - Math.floor((count * round) / FLOW_ROUNDS);
}

/** The key hash of a partition-key value under a table's or GSI's storage prefix. */
function hashOf(prefix: Buffer, value: AttributeValue): number {
  return decodeItemKeyHash(partitionKeyPrefix(prefix, value), prefix.length);
}

/** The attribute a GSI's (or LSI's) partition key is. */
function indexHashAttribute(index: SecondaryIndex): string {
  return (index.record.keySchema.find((element) => element.KeyType === 'HASH')?.AttributeName as string | undefined) ?? '';
}

/** Whether an item has an entry in the index (every key attribute of the index present). */
function indexed(index: SecondaryIndex, item: AttributeMap): boolean {
  return index.record.keySchema.every((element) => item[element.AttributeName as string] !== undefined);
}

/** Whether a generator takes few enough values to enumerate (not random, not moving). */
function finite(spec: GeneratorSpec, specs: ReadonlyMap<string, GeneratorSpec>): boolean {
  switch (spec.kind) {
    case 'constant':
    case 'choice':
      return true;
    case 'shard':
      return spec.k <= KEYS_MAX;
    case 'uniform':
      return spec.max - spec.min + 1 <= KEYS_MAX;
    case 'concat':
      return spec.parts.every((part) => finite(part, specs));
    case 'copy': {
      const source = specs.get(spec.from);
      return source !== undefined && source.kind !== 'copy' && finite(source, specs);
    }
    default:
      return false;
  }
}

/** The placeholder a key condition compares the partition key attribute to with `=`. */
export function keyPlaceholder(expression: string, attribute: string, names: Readonly<Record<string, string>> | undefined): string | undefined {
  for (const match of expression.matchAll(/([#A-Za-z0-9_.]+)\s*=\s*(:[A-Za-z0-9_]+)/g)) {
    const operand = match[1]!;
    const name = operand.startsWith('#') ? names?.[operand] : operand;
    if (name === attribute) return match[2];
  }
  return undefined;
}



