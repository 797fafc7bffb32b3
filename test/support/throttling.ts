/**
 * Test support for throttling through the AWS SDK on a manual clock: a twin with clients (one that
 * never retries, so every throttle reaches the test), the partitions endpoint, keys chosen by the
 * partition that owns them, items of an exact capacity-unit size, and a load loop that steps the
 * clock and counts what was admitted and refused.
 */
import type { PartitionDocument as PartitionDocumentType, PartitionsDocument as PartitionsDocumentType } from '../../src/server/partition-routes.js';
import assert from 'node:assert/strict';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ManualClock, startDynatwin, type Dynatwin, type DynatwinOptions } from '../../src/index.js';
import { hashPartitionKey, keyBytesOf } from '../../src/model/key-codec.js';
import { sdkClient } from './client.js';
import { testTwinOptions } from './test-store.js';

export const SECOND_MS = 1000;
export const MINUTE_MS = 60_000;
export const KB = 1024;

export const ACCOUNT_ARN = 'arn:aws:dynamodb:us-east-1:000000000000';

export function tableArn(table: string): string {
  return `${ACCOUNT_ARN}:table/${table}`;
}

export function indexArn(table: string, index: string): string {
  return `${tableArn(table)}/index/${index}`;
}

export interface ManualTwin {
  readonly twin: Dynatwin;
  readonly clock: ManualClock;
  /** maxAttempts 1: a throttle is an error the test sees, not something the SDK retried away. */
  readonly client: DynamoDBClient;
  readonly documentClient: DynamoDBDocumentClient;
  /** A client with the SDK's default retry settings (3 attempts, standard mode). */
  defaultRetryClient(): DynamoDBClient;
  close(): Promise<void>;
}

/** A twin on a manual clock that starts on a whole second (so per-second figures are exact). */
export async function startManualTwin(options: DynatwinOptions = {}): Promise<ManualTwin> {
  const twin = await startDynatwin(testTwinOptions({ ...options, clock: 'manual' }));
  const clock = twin.clock;
  assert.ok(clock instanceof ManualClock);
  alignToSecond(clock);
  const client = sdkClient(twin.endpoint);
  const documentClient = DynamoDBDocumentClient.from(client);
  const extra: DynamoDBClient[] = [];
  return {
    twin,
    clock,
    client,
    documentClient,
    defaultRetryClient() {
      const retrying = new DynamoDBClient({
        endpoint: twin.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
      });
      extra.push(retrying);
      return retrying;
    },
    async close() {
      for (const other of extra) other.destroy();
      client.destroy();
      await twin.close();
    },
  };
}

/** Moves a manual clock to the start of the next whole second (no-op when already on one). */
export function alignToSecond(clock: ManualClock): void {
  const into = clock.nowMs() % SECOND_MS;
  if (into !== 0) clock.advance(SECOND_MS - into);
}

// ---- GET /dynatwin/tables/<t>/partitions ----

// The endpoint's own types: a test reads exactly what the server declares it sends.
export type { PartitionDocument, PartitionsDocument } from '../../src/server/partition-routes.js';

export async function partitionsOf(endpoint: string, table: string): Promise<PartitionsDocumentType> {
  const response = await fetch(`${endpoint}/dynatwin/tables/${encodeURIComponent(table)}/partitions`);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text) as PartitionsDocumentType;
}

/** The partition (of a table or GSI listing) owning a string partition-key value. */
export function partitionOfKey(partitions: readonly PartitionDocumentType[], value: string): PartitionDocumentType {
  const hash = hashPartitionKey(keyBytesOf({ S: value }));
  const owner = partitions.find((partition) => hash >= parseInt(partition.hashRange[0], 16) && hash <= parseInt(partition.hashRange[1], 16));
  assert.ok(owner !== undefined, `no partition owns the hash of ${value}`);
  return owner;
}

/**
 * `perPartition` string keys for every partition, in partition order: `<prefix>0`, `<prefix>1`, ...
 * hashed with the store's partition hash and kept by the partition whose hash range owns them.
 */
export function keysByPartition(partitions: readonly PartitionDocumentType[], perPartition: number, prefix: string): string[][] {
  const starts = partitions.map((partition) => parseInt(partition.hashRange[0], 16));
  const keys: string[][] = partitions.map(() => []);
  let missing = partitions.length * perPartition;
  for (let n = 0; missing > 0; n++) {
    const value = `${prefix}${n}`;
    const hash = hashPartitionKey(keyBytesOf({ S: value }));
    let at = starts.length - 1;
    while (starts[at]! > hash) at--;
    const bucket = keys[at]!;
    if (bucket.length < perPartition) {
      bucket.push(value);
      missing--;
    }
  }
  return keys;
}

/**
 * A string of padding that makes an item of `id` (attribute `idName`) plus the padding attribute
 * `pad` (and a small counter `n` that UpdateItem grows) weigh about `units` KB minus half a KB:
 * written, it costs `units` write units whatever the counter's digits.
 */
export function paddingFor(units: number, idName: string, id: string): string {
  const fixed = idName.length + Buffer.byteLength(id) + 'pad'.length + 'n'.length + 8;
  return 'x'.repeat(units * KB - KB / 2 - fixed);
}

/** The error a rejected promise carries (fails when it resolves). */
export async function rejection(call: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof Error);
    return error as Error & Record<string, unknown>;
  }
  assert.fail('expected the call to be throttled, but it succeeded');
}

/** Whether `actual` is within `fraction` (e.g. 0.02 for 2%) of `expected`. */
export function within(actual: number, expected: number, fraction: number): boolean {
  return Math.abs(actual - expected) <= expected * fraction;
}
