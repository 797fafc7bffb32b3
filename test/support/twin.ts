/**
 * Test support: a dynatwin server in this process plus real AWS SDK clients pointed at it, on the
 * suite's store (test-store.ts: in memory, or a fresh PostgreSQL schema on the PostgreSQL pass).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startDynatwin, type Dynatwin, type DynatwinOptions } from '../../src/index.js';
import { sdkClient } from './client.js';
import { testTwinOptions } from './test-store.js';

export { expectDynamoError, sdkClient, uniqueTableName } from './client.js';

export interface TwinClients {
  readonly twin: Dynatwin;
  readonly client: DynamoDBClient;
  readonly documentClient: DynamoDBDocumentClient;
  close(): Promise<void>;
}

export async function startTwinWithClients(options: DynatwinOptions = {}): Promise<TwinClients> {
  const twin = await startDynatwin(testTwinOptions(options));
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
