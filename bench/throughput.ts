/**
 * Bench tables are provisioned at DynamoDB's default per-table quota, 40,000 RCU / 40,000 WCU
 * (40 partitions in the modern model): a load of tens of thousands of requests per second with
 * random keys then stays within every partition's share, so dynatwin with capacity enforced does
 * the same work as without, and the variants measure what enforcement itself costs. (Its own
 * module: workloads.ts and the workload files import each other.)
 */
export const BENCH_THROUGHPUT = { ReadCapacityUnits: 40_000, WriteCapacityUnits: 40_000 } as const;
