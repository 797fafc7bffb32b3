/**
 * Secondary-index workloads (issue 6's bench targets): PutItem on a table with two GSIs, and Query
 * on a GSI, one page of 10 items; and (issue 7) the same PutItem asking for ReturnConsumedCapacity
 * INDEXES. Same harness and conventions as the other workloads.
 */
import type { LoadClient, RequestSpec } from './load.js';
import { BENCH_THROUGHPUT } from './throughput.js';
import { createBenchTable, KeySource, PAD_VALUE, type TargetInfo, type Workload } from './workloads.js';

const INDEXED_TABLE = 'bench-indexed';
/** A low-cardinality group, as in the seed articles' `status` GSI: 1,000 groups of 10 items. */
const GROUPS = 1000;
const ITEMS_PER_GROUP = 10;
const BATCH_SIZE = 25;
/** The same ~1 KB items as PutItem's, less the index attributes' bytes (computed on use: import cycle). */
function padOf(): string {
  return PAD_VALUE.slice(40);
}

/** Two ALL-projected GSIs: by group (hash only) and by owner with a numeric sort key. */
const INDEXED_TABLE_DEFINITION = {
  TableName: INDEXED_TABLE,
  AttributeDefinitions: [
    { AttributeName: 'id', AttributeType: 'S' },
    { AttributeName: 'grp', AttributeType: 'S' },
    { AttributeName: 'owner', AttributeType: 'S' },
    { AttributeName: 'ts', AttributeType: 'N' },
  ],
  KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
  GlobalSecondaryIndexes: [
    { IndexName: 'by-group', KeySchema: [{ AttributeName: 'grp', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' }, ProvisionedThroughput: BENCH_THROUGHPUT },
    {
      IndexName: 'by-owner',
      KeySchema: [
        { AttributeName: 'owner', KeyType: 'HASH' },
        { AttributeName: 'ts', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
      ProvisionedThroughput: BENCH_THROUGHPUT,
    },
  ],
  BillingMode: 'PROVISIONED',
  ProvisionedThroughput: BENCH_THROUGHPUT,
};

function itemJson(key: string, sequence: number, pad: string): string {
  const group = sequence % GROUPS;
  return `{"id":{"S":"${key}"},"grp":{"S":"g${group}"},"owner":{"S":"o${key.slice(0, 2)}"},"ts":{"N":"${sequence}"},"pad":{"S":"${pad}"}}`;
}

export function putItemTwoGsisWorkload(): Workload {
  const keys = new KeySource();
  const pad = padOf();
  let sequence = 0;
  return {
    name: 'PutItem 2 GSIs',
    setup: (client, target) => createBenchTable(client, target, INDEXED_TABLE_DEFINITION),
    makeRequest: () => ({ target: 'PutItem', body: `{"TableName":"${INDEXED_TABLE}","Item":${itemJson(keys.next(), sequence++, pad)}}` }),
  };
}

/**
 * Issue 7: the same puts asking for ReturnConsumedCapacity INDEXES. Every item carries both GSIs'
 * keys, so each put writes an entry in both and is charged to the table and to each GSI. Compared
 * with dynatwin's capacity accounting switched off (variants, targets.ts) to show what it costs.
 */
export function putItemIndexesTwoGsisWorkload(): Workload {
  const keys = new KeySource();
  const pad = padOf();
  let sequence = 0;
  const put = (): RequestSpec => ({
    target: 'PutItem',
    body: `{"TableName":"${INDEXED_TABLE}","ReturnConsumedCapacity":"INDEXES","Item":${itemJson(keys.next(), sequence++, pad)}}`,
  });
  return {
    name: 'PutItem INDEXES 2 GSIs',
    compareWith: ['accounting-off'],
    async setup(client, target) {
      await createBenchTable(client, target, INDEXED_TABLE_DEFINITION);
      if (!target.speaksDynamo) return;
      // An answer without the per-index breakdown would make every measured put cheaper than claimed.
      checkIndexesCapacity(await client.call(put()), target);
    },
    makeRequest: put,
  };
}

/** `{ ConsumedCapacity: { Table: {...}, GlobalSecondaryIndexes: { 'by-group': {...}, 'by-owner': {...} } } }`. */
function checkIndexesCapacity(response: unknown, target: TargetInfo): void {
  const consumed = member(response, 'ConsumedCapacity');
  if (member(consumed, 'Table') === undefined) {
    throw new Error(`PutItem with ReturnConsumedCapacity INDEXES answered without ConsumedCapacity.Table: ${JSON.stringify(response)}`);
  }
  // dynalite answers INDEXES with the table's units only; dynatwin must list both GSIs.
  if (!target.reportsIndexCapacity) return;
  const indexes = member(consumed, 'GlobalSecondaryIndexes');
  for (const name of ['by-group', 'by-owner']) {
    if (member(indexes, name) === undefined) throw new Error(`ConsumedCapacity lacks GSI ${name}: ${JSON.stringify(response)}`);
  }
}

function member(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && name in value ? (value as Record<string, unknown>)[name] : undefined;
}

/** GROUPS × ITEMS_PER_GROUP items, written 25 to a batch. */
async function loadIndexedTable(client: LoadClient, target: TargetInfo): Promise<void> {
  await createBenchTable(client, target, INDEXED_TABLE_DEFINITION);
  const keys = new KeySource();
  const pad = padOf();
  await client.callMany((GROUPS * ITEMS_PER_GROUP) / BATCH_SIZE, (batch) => {
    const requests: string[] = [];
    for (let offset = 0; offset < BATCH_SIZE; offset++) requests.push(`{"PutRequest":{"Item":${itemJson(keys.next(), batch * BATCH_SIZE + offset, pad)}}}`);
    return { target: 'BatchWriteItem', body: `{"RequestItems":{"${INDEXED_TABLE}":[${requests.join(',')}]}}` };
  });
}

function countOf(response: unknown): number | undefined {
  if (typeof response !== 'object' || response === null || !('Count' in response)) return undefined;
  return typeof response.Count === 'number' ? response.Count : undefined;
}

export function queryGsiWorkload(): Workload {
  const queries: RequestSpec[] = Array.from({ length: GROUPS }, (_, group) => ({
    target: 'Query',
    body:
      `{"TableName":"${INDEXED_TABLE}","IndexName":"by-group","KeyConditionExpression":"grp = :g",` +
      `"ExpressionAttributeValues":{":g":{"S":"g${group}"}}}`,
  }));
  return {
    name: 'Query GSI',
    async setup(client, target) {
      await loadIndexedTable(client, target);
      if (!target.speaksDynamo) return;
      // A short page would make the measured Queries cheaper than the workload claims.
      for (const group of [0, GROUPS - 1]) {
        const count = countOf(await client.call(queries[group]!));
        if (count !== ITEMS_PER_GROUP) throw new Error(`a GSI Query returned ${count} items, expected ${ITEMS_PER_GROUP}`);
      }
    },
    makeRequest: () => queries[Math.floor(Math.random() * queries.length)]!,
  };
}
