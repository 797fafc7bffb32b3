/**
 * Test support: a dynatwin server in this process plus real AWS SDK clients pointed at it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startDynatwin, type Dynatwin, type DynatwinOptions } from '../../src/index.js';

export interface TwinClients {
  readonly twin: Dynatwin;
  readonly client: DynamoDBClient;
  readonly documentClient: DynamoDBDocumentClient;
  close(): Promise<void>;
}

export function sdkClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    // Errors must reach the test as they are, not after the SDK's retries.
    maxAttempts: 1,
  });
}

export async function startTwinWithClients(options: DynatwinOptions = {}): Promise<TwinClients> {
  const twin = await startDynatwin(options);
  const client = sdkClient(twin.endpoint);
  const documentClient = DynamoDBDocumentClient.from(client);
  return {
    twin,
    client,
    documentClient,
    close: async () => {
      client.destroy();
      await twin.close();
    },
  };
}

/** Runs `run` against a twin started with `options`, closing it whatever happens (a restart is two calls). */
export async function withTwin<T>(options: DynatwinOptions, run: (twin: TwinClients) => Promise<T>): Promise<T> {
  const twin = await startTwinWithClients(options);
  try {
    return await run(twin);
  } finally {
    await twin.close();
  }
}

/** Awaits a rejected SDK call and checks DynamoDB's error name and exact message. */
export async function expectDynamoError(call: Promise<unknown>, name: string, message?: string | RegExp): Promise<void> {
  let caught: unknown;
  try {
    await call;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof Error, `expected ${name}, but the call succeeded`);
  assert.equal(caught.name, name, `error name (message: ${caught.message})`);
  if (message instanceof RegExp) assert.match(caught.message, message);
  else if (message !== undefined) assert.equal(caught.message, message);
  const status = (caught as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  assert.ok(status !== undefined && status >= 400 && status < 500, `a 4xx status, got ${status}`);
}

/** A table name no other test uses. */
export function uniqueTableName(stem: string): string {
  return `${stem}-${randomUUID().slice(0, 8)}`;
}
