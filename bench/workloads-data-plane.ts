/**
 * Query, Scan and BatchWriteItem workloads (issue 5's bench targets), on the same harness as
 * PutItem/GetItem: one entry each, bodies prebuilt so the generator stays cheap.
 */
import type { LoadClient, RequestSpec } from './load.js';
import { BENCH_THROUGHPUT } from './throughput.js';
import { createBenchTable, KeySource, PAD_VALUE, TABLE_NAME, type TargetInfo, type Workload } from './workloads.js';

const QUERY_TABLE = 'bench-query';
const PARTITIONS = 1000;
/** Items per partition key: a Query returns one page of this many items. */
const ITEMS_PER_PARTITION = 10;
/** ~100-byte items keep the Query page small, as a typical list query's is. */
const SMALL_PAD = 'q'.repeat(64);
const SCAN_SEGMENTS = 1000;
const BATCH_SIZE = 25;

const QUERY_TABLE_DEFINITION = {
  TableName: QUERY_TABLE,
  AttributeDefinitions: [
    { AttributeName: 'pk', AttributeType: 'S' },
    { AttributeName: 'sk', AttributeType: 'N' },
  ],
  KeySchema: [
    { AttributeName: 'pk', KeyType: 'HASH' },
    { AttributeName: 'sk', KeyType: 'RANGE' },
  ],
  BillingMode: 'PROVISIONED',
  ProvisionedThroughput: BENCH_THROUGHPUT,
};

function partitionKey(index: number): string {
  return 'p' + String(index).padStart(6, '0');
}

/** 1,000 partitions × 10 items, written 25 to a batch. */
async function loadQueryTable(client: LoadClient, target: TargetInfo): Promise<void> {
  await createBenchTable(client, target, QUERY_TABLE_DEFINITION);
  const batches = (PARTITIONS * ITEMS_PER_PARTITION) / BATCH_SIZE;
  await client.callMany(batches, (batch) => {
    const requests: string[] = [];
    for (let offset = 0; offset < BATCH_SIZE; offset++) {
      const item = batch * BATCH_SIZE + offset;
      const pk = partitionKey(Math.floor(item / ITEMS_PER_PARTITION));
      requests.push(`{"PutRequest":{"Item":{"pk":{"S":"${pk}"},"sk":{"N":"${item % ITEMS_PER_PARTITION}"},"pad":{"S":"${SMALL_PAD}"}}}}`);
    }
    return { target: 'BatchWriteItem', body: `{"RequestItems":{"${QUERY_TABLE}":[${requests.join(',')}]}}` };
  });
}

function countOf(response: unknown): number | undefined {
  if (typeof response !== 'object' || response === null || !('Count' in response)) return undefined;
  return typeof response.Count === 'number' ? response.Count : undefined;
}

export function queryWorkload(): Workload {
  const queries: RequestSpec[] = Array.from({ length: PARTITIONS }, (_, index) => ({
    target: 'Query',
    body: `{"TableName":"${QUERY_TABLE}","KeyConditionExpression":"pk = :pk","ExpressionAttributeValues":{":pk":{"S":"${partitionKey(index)}"}}}`,
  }));
  return {
    name: 'Query',
    async setup(client, target) {
      await loadQueryTable(client, target);
      if (!target.speaksDynamo) return;
      const count = countOf(await client.call(queries[0]!));
      if (count !== ITEMS_PER_PARTITION) throw new Error(`a Query returned ${count} items, expected ${ITEMS_PER_PARTITION}`);
    },
    makeRequest: () => queries[Math.floor(Math.random() * queries.length)]!,
  };
}

export function scanWorkload(): Workload {
  // Parallel-scan segments spread the pages over the whole table, 10 items a page.
  const scans: RequestSpec[] = Array.from({ length: SCAN_SEGMENTS }, (_, segment) => ({
    target: 'Scan',
    body: `{"TableName":"${QUERY_TABLE}","Limit":10,"Segment":${segment},"TotalSegments":${SCAN_SEGMENTS}}`,
  }));
  return {
    name: 'Scan',
    async setup(client, target) {
      await loadQueryTable(client, target);
      if (!target.speaksDynamo) return;
      if (countOf(await client.call(scans[0]!)) === undefined) throw new Error('a Scan answered without Count');
    },
    makeRequest: () => scans[Math.floor(Math.random() * scans.length)]!,
  };
}

export function batchWriteItemWorkload(): Workload {
  const keys = new KeySource();
  return {
    name: 'BatchWriteItem',
    setup: (client, target) => createBenchTable(client, target),
    makeRequest: () => {
      const requests: string[] = [];
      for (let index = 0; index < BATCH_SIZE; index++) {
        requests.push(`{"PutRequest":{"Item":{"id":{"S":"${keys.next()}"},"pad":{"S":"${PAD_VALUE}"}}}}`);
      }
      return { target: 'BatchWriteItem', body: `{"RequestItems":{"${TABLE_NAME}":[${requests.join(',')}]}}` };
    },
  };
}
