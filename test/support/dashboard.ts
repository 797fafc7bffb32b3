/**
 * Test support for the dashboard: an HTTP server answering every /dynatwin route the page uses
 * (clock, tables, heat map, metrics, Contributor Insights, partitions, the page and its assets)
 * for an engine, through its own InspectionRouter, as server.ts serves them. Tests that do not
 * depend on the request path's wiring use it with the engine of `startManualServer`.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ManualClock, type Clock } from '../../src/clock.js';
import type { Engine } from '../../src/engine/engine.js';
import { registerClockRoutes } from '../../src/server/clock-routes.js';
import { registerDashboardRoutes } from '../../src/server/dashboard-routes.js';
import { registerInsightsRoutes } from '../../src/server/insights-routes.js';
import { InspectionRouter } from '../../src/server/inspection.js';
import { registerMetricsRoutes } from '../../src/server/metrics-routes.js';
import { registerPartitionRoutes } from '../../src/server/partition-routes.js';
import { registerScalingRoutes } from '../../src/server/scaling-routes.js';
import { DEFAULT_SERVER_OPTIONS, startServer, type RunningServer } from '../../src/server/server.js';
import { sdkClient } from './client.js';
import { testServerOptions } from './test-store.js';

export interface ManualServer {
  readonly server: RunningServer;
  readonly clock: ManualClock;
  readonly client: DynamoDBClient;
}

/**
 * A server on the suite's store (in memory, or PostgreSQL on that pass) on a manual clock, so the history a test records sits at times it chose, with
 * an SDK client for it; quiet (no request log). The caller destroys the client and closes the server.
 */
export async function startManualServer(): Promise<ManualServer> {
  const server = await startServer(testServerOptions({ ...DEFAULT_SERVER_OPTIONS, port: 0, inMemory: true, clock: 'manual', log: () => {} }));
  const clock = server.clock;
  assert.ok(clock instanceof ManualClock);
  return { server, clock, client: sdkClient(server.endpoint) };
}

export interface ServedDashboard {
  readonly endpoint: string;
  /** Bugs of the routes (500s). */
  readonly internalErrors: unknown[];
  close(): Promise<void>;
}

export async function serveDashboard(engine: Engine, clock: Clock): Promise<ServedDashboard> {
  const internalErrors: unknown[] = [];
  const router = new InspectionRouter((error) => internalErrors.push(error));
  registerClockRoutes(router, clock);
  registerPartitionRoutes(router, engine);
  registerMetricsRoutes(router, engine.telemetry.metrics, clock, { beforeRead: (nowMs) => engine.telemetry.sampleGauges(engine.catalog, nowMs) });
  registerInsightsRoutes(router, engine);
  registerDashboardRoutes(router, engine);
  // The page asks for auto scaling too; these tests have none.
  registerScalingRoutes(router, () => undefined);
  const server = createServer((request, response) => router.handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    internalErrors,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
