/**
 * Test support: AWS SDK clients for a dynatwin endpoint and the checks of their answers, apart from
 * twin.ts so that a file that only talks to a server (a CLI child, process.ts) does not reach the
 * code that starts twins on the suite's store (test-store.ts; scripts/run-tests.mjs puts the files
 * that do in the PostgreSQL pass).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export function sdkClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    // Errors must reach the test as they are, not after the SDK's retries.
    maxAttempts: 1,
  });
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
