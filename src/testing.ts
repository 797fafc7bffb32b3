/**
 * `dynatwin/testing`: one dynatwin per test run for Vitest and Jest, started by their global setup,
 * handed to the test files through the environment, and emptied between tests.
 *
 *   // vitest.config.ts: test: { globalSetup: ['./dynatwin.setup.ts'] }
 *   // dynatwin.setup.ts:
 *   export { setup, teardown } from 'dynatwin/testing';
 *
 *   // jest.config.js: globalSetup: './dynatwin.setup.mjs', globalTeardown: './dynatwin.teardown.mjs'
 *   // dynatwin.setup.mjs:    export { setup as default } from 'dynatwin/testing';
 *   // dynatwin.teardown.mjs: export { teardown as default } from 'dynatwin/testing';
 *
 * setup() starts an in-memory twin on a free port (the settings of `dynatwin.yaml` or DYNATWIN_*
 * variables are not read: a test run's twin is the library's, see `globalSetup(options)` for
 * others) and sets DYNATWIN_ENDPOINT and AWS_ENDPOINT_URL_DYNAMODB, which the AWS SDKs read, so a
 * client made with no endpoint in a test file reaches it. `resetTables()` (in beforeEach) deletes
 * every table and makes the `init` tables again; `advanceClock(ms)` moves a manual clock.
 */
import { readInitFile } from './server/init-tables.js';
import { startDynatwin, type Dynatwin, type DynatwinOptions } from './index.js';

/** The variable that hands the endpoint to the test files (workers inherit the environment). */
export const ENDPOINT_VARIABLE = 'DYNATWIN_ENDPOINT';
/** The init file the twin was seeded from, for resetTables() in the workers. */
export const INIT_VARIABLE = 'DYNATWIN_TEST_INIT';
/** A run's tables are a handful; the bound keeps a reset from paging for ever. */
const TABLES_PER_RESET_MAX = 10_000;

/**
 * The twins a global setup started, for the teardown. On globalThis, not in this module: Jest
 * loads its globalSetup and globalTeardown modules each in a registry of its own, so a variable of
 * this module would be a different one in each; globalThis is the one place both see (Jest's
 * documented way between the two).
 */
const TWINS = Symbol.for('dynatwin.testing.twins');

function runningTwins(): Dynatwin[] {
  const holder = globalThis as { [TWINS]?: Dynatwin[] };
  return (holder[TWINS] ??= []);
}

/**
 * A global setup function starting a twin with `options` (startDynatwin's; e.g. `{ init:
 * './tables.yaml', clock: 'manual' }`); it answers its teardown, as Vitest's default export may.
 * Arguments the framework passes (Vitest's project, Jest's configs) are not read.
 */
export function globalSetup(options: DynatwinOptions = {}): () => Promise<() => Promise<void>> {
  return async () => {
    const twin = await startDynatwin(options);
    runningTwins().push(twin);
    process.env[ENDPOINT_VARIABLE] = twin.endpoint;
    process.env['AWS_ENDPOINT_URL_DYNAMODB'] = twin.endpoint;
    // The SDKs need a region and credentials; any will do with the default --auth any. A user's own are kept.
    process.env['AWS_REGION'] ??= 'us-east-1';
    process.env['AWS_ACCESS_KEY_ID'] ??= 'dynatwin';
    process.env['AWS_SECRET_ACCESS_KEY'] ??= 'dynatwin';
    if (options.init !== undefined) process.env[INIT_VARIABLE] = options.init;
    return teardown;
  };
}

/** Vitest's `setup` / Jest's `globalSetup`: an in-memory twin on a free port. */
export async function setup(): Promise<void> {
  await globalSetup()();
}

/** Vitest's `teardown` / Jest's `globalTeardown`: closes the twins the setup started. */
export async function teardown(): Promise<void> {
  const twins = runningTwins().splice(0);
  await Promise.all(twins.map((twin) => twin.close()));
  delete process.env[ENDPOINT_VARIABLE];
}

/** The endpoint of the run's twin, in a test file; throws when no global setup started one. */
export function dynatwinEndpoint(): string {
  const endpoint = process.env[ENDPOINT_VARIABLE];
  if (endpoint === undefined || endpoint === '') throw new Error(`${ENDPOINT_VARIABLE} is not set: add dynatwin/testing's setup to the test framework's global setup`);
  return endpoint;
}

/**
 * Empties the run's twin from a test file (beforeEach): deletes every table, then makes the init
 * file's tables again with their items. Over DynamoDB's API, so it works from any worker; call it
 * when no request of the test is in flight.
 */
export async function resetTables(endpoint: string = dynatwinEndpoint()): Promise<void> {
  const names: string[] = [];
  let start: string | undefined;
  do {
    const page = (await call(endpoint, 'ListTables', start === undefined ? {} : { ExclusiveStartTableName: start })) as { TableNames?: string[]; LastEvaluatedTableName?: string };
    names.push(...(page.TableNames ?? []));
    start = page.LastEvaluatedTableName;
  } while (start !== undefined && names.length < TABLES_PER_RESET_MAX);
  for (const name of names) await call(endpoint, 'DeleteTable', { TableName: name });
  const init = process.env[INIT_VARIABLE];
  if (init === undefined) return;
  for (const table of readInitFile(init).tables) {
    await call(endpoint, 'CreateTable', table.createTable);
    if (table.timeToLive !== undefined) await call(endpoint, 'UpdateTimeToLive', { TableName: table.createTable['TableName'], TimeToLiveSpecification: table.timeToLive });
    for (const item of table.items) await call(endpoint, 'PutItem', { TableName: table.createTable['TableName'], Item: item });
  }
}

/**
 * Moves the run's manual clock (`globalSetup({ clock: 'manual' })`) forward by `advanceMs` and
 * answers the server's time after the step, in epoch milliseconds; resolves once the TTL sweeps and
 * scaling the step made due have run (POST /dynatwin/clock waits for them). A test file cannot hold
 * the twin itself (it lives in the global setup's process), so this goes over the inspection API.
 * `advanceClock(0)` reads the time. Throws on a twin with the real clock (409).
 */
export async function advanceClock(advanceMs: number, endpoint: string = dynatwinEndpoint()): Promise<number> {
  const response = await fetch(new URL('/dynatwin/clock', endpoint), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ advanceMs }),
  });
  const answer = (await response.json()) as { nowMs?: number; error?: string };
  if (!response.ok || answer.nowMs === undefined) throw new Error(`dynatwin/testing: advancing the clock failed: ${answer.error ?? response.status}`);
  return answer.nowMs;
}

/** One DynamoDB call, signed in shape only (the twin's default --auth any takes any signature). */
async function call(endpoint: string, operation: string, body: object): Promise<unknown> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': `DynamoDB_20120810.${operation}`,
      'X-Amz-Date': '20260101T000000Z',
      Authorization: `AWS4-HMAC-SHA256 Credential=dynatwin/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=${'0'.repeat(64)}`,
    },
    body: JSON.stringify(body),
  });
  const answer: unknown = await response.json();
  if (!response.ok) throw new Error(`dynatwin/testing: ${operation} failed: ${JSON.stringify(answer)}`);
  return answer;
}
