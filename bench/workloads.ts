/**
 * The benchmark workloads. Adding one (UpdateItem, Query, Scan, BatchWriteItem, ...) means adding
 * one entry to WORKLOADS: a name, a setup run once per target before warm-up, and makeRequest,
 * which must be cheap (it runs on the load generator's hot path) and should reuse prebuilt bodies
 * wherever the workload allows.
 */
import { BENCH_THROUGHPUT } from './throughput.js';
import { randomFillSync } from 'node:crypto';
import type { LoadClient, RequestSpec } from './load.js';
import { batchWriteItemWorkload, queryWorkload, scanWorkload } from './workloads-data-plane.js';
import type { TargetId, VariantId } from './targets.js';
import { putItemIndexesTwoGsisWorkload, putItemTwoGsisWorkload, queryGsiWorkload } from './workloads-indexes.js';

/** What a workload may know about the server it is set up against. */
export interface TargetInfo {
  readonly label: string;
  /** False for the bare ceiling server, which answers `{}` to everything: skip response checks. */
  readonly speaksDynamo: boolean;
  /** ReturnConsumedCapacity INDEXES lists every index's units (dynatwin; dynalite gives the table's only). */
  readonly reportsIndexCapacity: boolean;
}

export interface Workload {
  readonly name: string;
  /**
   * dynatwin variants (targets.ts VARIANTS) to compare dynatwin (memory) with on this workload,
   * e.g. ['accounting-off']: the report then gives what the switched-off feature costs against its
   * goal. Only workloads that name a variant run it, which keeps `npm run bench` short.
   */
  readonly compareWith?: readonly VariantId[];
  /**
   * After the closed-loop measurement, also offer a fixed rate (BENCH_RATE) and report the
   * latency callers arriving at that rate see (issue #3: the p99 goal on PutItem and GetItem).
   */
  readonly fixedRatePhase?: boolean;
  /**
   * Also measure this workload against `baseline` on the same targets, in interleaved rounds on
   * fresh servers, and report the median of the rounds' own ratios (this ÷ baseline ops/s) against
   * `goalRatio`: what a table-level feature (a stream) costs the same requests.
   */
  readonly pairedWith?: { readonly baseline: () => Workload; readonly goalRatio: number; readonly targets: readonly TargetId[] };
  setup(client: LoadClient, target: TargetInfo): Promise<void>;
  makeRequest(i: number): RequestSpec;
}

export const TABLE_NAME = 'bench';
const KEY_ATTRIBUTE = 'id';
const PAD_ATTRIBUTE = 'pad';
const KEY_BYTES = 16;
const KEY_HEX_LENGTH = KEY_BYTES * 2;
const ITEM_SIZE = 1024;
/** How many items GetItem draws its keys from. */
const PRELOADED_ITEMS = 10_000;

/**
 * DynamoDB sizes an item as the sum over attributes of the name's UTF-8 length plus the value's
 * (for S: its UTF-8 length), so this pad makes every item exactly ITEM_SIZE bytes.
 */
const PAD_LENGTH = ITEM_SIZE - (KEY_ATTRIBUTE.length + KEY_HEX_LENGTH + PAD_ATTRIBUTE.length);
export const PAD_VALUE = 'x'.repeat(PAD_LENGTH);

/** Random 16-byte hex keys drawn from a refilled pool, so each key costs no syscall of its own. */
export class KeySource {
  private readonly pool = Buffer.alloc(KEY_BYTES * 4096);
  private offset = this.pool.length;

  next(): string {
    if (this.offset === this.pool.length) {
      randomFillSync(this.pool);
      this.offset = 0;
    }
    const key = this.pool.toString('hex', this.offset, this.offset + KEY_BYTES);
    this.offset += KEY_BYTES;
    return key;
  }
}

// Bodies are concatenated from fixed fragments rather than JSON.stringify'd objects: the key is
// hex, so no escaping is needed, and the generator stays far cheaper than the server it loads.
const PUT_PREFIX = `{"TableName":"${TABLE_NAME}","Item":{"${KEY_ATTRIBUTE}":{"S":"`;
const PUT_SUFFIX = `"},"${PAD_ATTRIBUTE}":{"S":"${PAD_VALUE}"}}}`;
const GET_PREFIX = `{"TableName":"${TABLE_NAME}","Key":{"${KEY_ATTRIBUTE}":{"S":"`;
const GET_SUFFIX = '"}}}';

export function putItem(key: string): RequestSpec {
  return { target: 'PutItem', body: PUT_PREFIX + key + PUT_SUFFIX };
}

function getItem(key: string): RequestSpec {
  return { target: 'GetItem', body: GET_PREFIX + key + GET_SUFFIX };
}

const CREATE_TABLE_BODY = JSON.stringify({
  TableName: TABLE_NAME,
  AttributeDefinitions: [{ AttributeName: KEY_ATTRIBUTE, AttributeType: 'S' }],
  KeySchema: [{ AttributeName: KEY_ATTRIBUTE, KeyType: 'HASH' }],
  BillingMode: 'PROVISIONED',
  ProvisionedThroughput: BENCH_THROUGHPUT,
});

/**
 * CreateTable (the `bench` table unless another definition is given), then wait for ACTIVE:
 * emulators may report CREATING for a moment first.
 */
export async function createBenchTable(
  client: LoadClient,
  target: TargetInfo,
  definition: { readonly TableName: string } = JSON.parse(CREATE_TABLE_BODY) as { TableName: string },
): Promise<void> {
  await client.call({ target: 'CreateTable', body: JSON.stringify(definition) });
  if (!target.speaksDynamo) return;
  const tableName = definition.TableName;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const described = await client.call({ target: 'DescribeTable', body: JSON.stringify({ TableName: tableName }) });
    if (tableStatus(described) === 'ACTIVE') return;
    if (Date.now() > deadline) throw new Error(`table ${tableName} did not become ACTIVE within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function tableStatus(described: unknown): unknown {
  if (typeof described !== 'object' || described === null || !('Table' in described)) return undefined;
  const table = described.Table;
  if (typeof table !== 'object' || table === null || !('TableStatus' in table)) return undefined;
  return table.TableStatus;
}

function hasItem(response: unknown): boolean {
  return typeof response === 'object' && response !== null && 'Item' in response;
}

function putItemWorkload(): Workload {
  const keys = new KeySource();
  return {
    name: 'PutItem',
    setup: createBenchTable,
    // Issue #8: throttling enforcement on vs off (<= 10%); issue #9: metrics recording (<= 5%).
    compareWith: ['capacity-off', 'metrics-off'],
    fixedRatePhase: true,
    makeRequest: () => putItem(keys.next()),
  };
}

const STREAM_TABLE_BODY = JSON.stringify({
  ...(JSON.parse(CREATE_TABLE_BODY) as object),
  StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
});

/**
 * Issue 16: PutItem on a table whose stream keeps new and old images, beside plain PutItem in the
 * same run (goal: at least 80% of its ops/s, in memory and on LMDB). Same items, same keys.
 */
function putItemStreamWorkload(): Workload {
  const keys = new KeySource();
  return {
    name: 'PutItem stream',
    setup: (client, target) => createBenchTable(client, target, JSON.parse(STREAM_TABLE_BODY) as { TableName: string }),
    pairedWith: { baseline: putItemWorkload, goalRatio: 0.8, targets: ['dynatwin-memory', 'dynatwin-lmdb'] },
    makeRequest: () => putItem(keys.next()),
  };
}

function getItemWorkload(): Workload {
  const source = new KeySource();
  const keys = Array.from({ length: PRELOADED_ITEMS }, () => source.next());
  // Prebuilt once, so the measured phase only picks an index.
  const gets = keys.map(getItem);
  return {
    name: 'GetItem',
    fixedRatePhase: true,
    async setup(client, target) {
      await createBenchTable(client, target);
      await client.callMany(keys.length, (i) => putItem(keys[i]));
      // A 200 without the item would make every measured GetItem a cheap miss: check a few.
      if (!target.speaksDynamo) return;
      for (const i of [0, keys.length >> 1, keys.length - 1]) {
        const response = await client.call(gets[i]);
        if (!hasItem(response)) throw new Error(`pre-loaded item ${i} is missing from GetItem's answer`);
      }
    },
    makeRequest: () => gets[Math.floor(Math.random() * gets.length)],
  };
}

// SET + ADD under a condition, the shape of the seed articles' "claim an item" writes.
const UPDATE_PREFIX = `{"TableName":"${TABLE_NAME}","Key":{"${KEY_ATTRIBUTE}":{"S":"`;
const UPDATE_SUFFIX =
  '"}},"UpdateExpression":"SET #s = :s ADD hits :one","ConditionExpression":"attribute_exists(id)",' +
  '"ExpressionAttributeNames":{"#s":"status"},"ExpressionAttributeValues":{":s":{"S":"USED"},":one":{"N":"1"}}}';

function updateItem(key: string): RequestSpec {
  return { target: 'UpdateItem', body: UPDATE_PREFIX + key + UPDATE_SUFFIX };
}

/** Pre-loads PRELOADED_ITEMS items with fresh keys and returns the keys. */
async function preload(client: LoadClient, target: TargetInfo): Promise<string[]> {
  const source = new KeySource();
  const keys = Array.from({ length: PRELOADED_ITEMS }, () => source.next());
  await createBenchTable(client, target);
  await client.callMany(keys.length, (i) => putItem(keys[i]!));
  return keys;
}

function updateItemWorkload(): Workload {
  let updates: RequestSpec[] = [];
  return {
    name: 'UpdateItem',
    async setup(client, target) {
      const keys = await preload(client, target);
      updates = keys.map(updateItem);
      if (!target.speaksDynamo) return;
      // The condition must hold (the item exists) or every measured request would be a cheap 400.
      await client.call(updates[0]!);
    },
    makeRequest: () => updates[Math.floor(Math.random() * updates.length)]!,
  };
}

/** Built fresh for each run so no state (keys, caches) leaks between runs. */
export const WORKLOADS: readonly (() => Workload)[] = [
  putItemWorkload,
  putItemStreamWorkload,
  getItemWorkload,
  updateItemWorkload,
  queryWorkload,
  scanWorkload,
  batchWriteItemWorkload,
  putItemTwoGsisWorkload,
  putItemIndexesTwoGsisWorkload,
  queryGsiWorkload,
];
