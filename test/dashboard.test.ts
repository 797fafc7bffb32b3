/**
 * The dashboard in headless Chromium (Debian's chromium driven by playwright-core; see
 * test/support/browser.ts). Screenshots go to test-results/dashboard/.
 *
 * 1. A hundred partitions with an hour of 1-second history (recorded straight into the engine's
 *    partition history, served by the dashboard's routes on their own router): the page loads it,
 *    takes each new second incrementally and fast, finds the hot partition, follows the manual
 *    clock, and the charts and top keys render.
 * 2. GSI back-pressure (seed article 000's design, a small backlog bound): the table's view has a
 *    banner naming the GSI and counts its refusals; the GSI's charts plot units per second served
 *    by its partitions (heat map and CloudWatch metric alike), in the 10-minute and 3-hour views;
 *    peaks are against the partition's hard ceiling; at 820 px the partition table fits its card.
 *    Screenshots: test-results/dashboard/backpressure-*.png.
 * 3. Seed article 000 through the real server (`startDynatwin`, manual clock): an on-demand table
 *    `test` whose GSI `gsi-status` keys on `status`, loaded with BatchWriteItem of new `UN_USED`
 *    items at 2,000 items per simulated second. Every GSI write goes to the one GSI partition
 *    holding `UN_USED`: the heat map must show that partition hot. This needs the request path's
 *    wiring (admission recording into `telemetry.partitionHistory`, the dashboard routes in
 *    server.ts) and fails, saying which, until both are there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BatchWriteItemCommand, CreateTableCommand, PutItemCommand, UpdateContributorInsightsCommand, UpdateItemCommand, type DynamoDBClient, type WriteRequest } from '@aws-sdk/client-dynamodb';
import type { Browser, Page } from 'playwright-core';
import type { ManualClock } from '../src/clock.js';
import { hashPartitionKey, keyBytesOf } from '../src/model/key-codec.js';
import type { RunningServer } from '../src/server/server.js';
import { browserAvailability, launchChromium, MISSING_BROWSER_MESSAGE, screenshotPath } from './support/browser.js';
import { serveDashboard, startManualServer, type ServedDashboard } from './support/dashboard.js';
import { rawRequest } from './support/raw.js';
import { seedArticleTable } from './support/seeds.js';
import { onDemandTable } from './support/tables.js';
import { startTwinWithClients, type TwinClients } from './support/twin.js';
import { PutScalingPolicyCommand, RegisterScalableTargetCommand } from '@aws-sdk/client-application-auto-scaling';
import { autoScalingClient, provisionedTable } from './support/autoscaling.js';

/** The browser globals the page functions below use (the project compiles without the DOM library). */
interface PageElement {
  readonly dataset: Record<string, string | undefined>;
}
interface PageCanvas {
  readonly width: number;
  readonly height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, width: number, height: number): { readonly data: Uint8ClampedArray } } | null;
}
declare const document: { getElementById(id: string): PageElement | null; querySelector(selector: string): unknown };
declare const window: { dynatwinDashboard: { heatmap: { pixelAt(id: number, fraction: number): number[] | undefined } } };

const availability = browserAvailability();

if (availability === 'fail') {
  test('Chromium for the dashboard tests', () => {
    throw new Error(MISSING_BROWSER_MESSAGE);
  });
}

interface HeatmapData {
  state?: string;
  resource?: string;
  nowMs?: string;
  hottestPartition?: string;
  hottestShare?: string;
  throttledPartitions?: string;
  partitionCount?: string;
  applyMs?: string;
}

async function heatmapData(page: Page): Promise<HeatmapData> {
  return page.evaluate(() => ({ ...document.getElementById('heatmap')!.dataset }));
}

/** Waits until the heat map shows `resource` at server time `nowMs`. */
async function waitForHeatmapAt(page: Page, resource: string, nowMs: number, timeout = 60_000): Promise<HeatmapData> {
  await page.waitForFunction(
    ([expectedResource, expectedNow]) => {
      const data = document.getElementById('heatmap')!.dataset;
      return data['state'] === 'ready' && data['resource'] === expectedResource && Number(data['nowMs']) === expectedNow;
    },
    [resource, nowMs] as const,
    { timeout },
  );
  return heatmapData(page);
}

/** The canvas colour of a partition's row near the right edge (the latest buckets). */
async function pixelOf(page: Page, partitionId: number, fraction = 0.985): Promise<number[]> {
  const pixel = await page.evaluate(
    ([id, at]) => window.dynatwinDashboard.heatmap.pixelAt(id, at),
    [partitionId, fraction] as const,
  );
  assert.ok(pixel !== undefined, `partition ${partitionId} has a row`);
  return pixel;
}

/** Drawn hot: the top of the colour ramp (≥ 100% of the allocation is #d7191c). */
function isHot([r, g, b]: number[]): boolean {
  return r! >= 180 && g! <= 90 && b! <= 90;
}

function isCool([r, g, b]: number[]): boolean {
  return b! >= r! && g! >= 150;
}

function watchPage(page: Page, errors: string[]): void {
  // Waits are bounds on a hang, not speed tests: generous for a machine running two suites at once.
  page.setDefaultTimeout(60_000);
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console error: ${message.text()}`);
  });
}

describe('dashboard in headless Chromium', { skip: availability === 'fail' ? 'Chromium is missing (see the failure above)' : availability }, () => {
  let browser: Browser;

  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  describe('100 partitions with an hour of 1-second history', () => {
    const PARTITIONS = 100;
    const HOT_ROW = 42;
    let server: RunningServer;
    let served: ServedDashboard;
    let client: DynamoDBClient;
    let clock: ManualClock;
    let ids: number[];
    let startMs: number;

    /** One second of synthetic history: a slow wave over every partition, one of them over its allocation (1,000 WCU/s) and throttled. */
    function recordSecond(second: number): void {
      const history = server.engine.telemetry.partitionHistory.resource('wide');
      const atMs = startMs + second * 1000;
      for (let row = 0; row < ids.length; row++) {
        const wave = 250 + 200 * Math.sin(second / 240 + row / 9);
        const hot = row === HOT_ROW && second >= 3000;
        history.record(ids[row]!, 'write', hot ? 1_150 : wave, atMs);
        history.record(ids[row]!, 'read', 10 + (row % 7), atMs);
        if (hot) history.recordThrottle(ids[row]!, 'write', atMs, 3);
      }
    }

    before(async () => {
      ({ server, clock, client } = await startManualServer());
      await client.send(
        new CreateTableCommand({
          TableName: 'wide',
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          BillingMode: 'PROVISIONED',
          // 100 partitions of 1,000 WCU/s each under the modern model.
          ProvisionedThroughput: { ReadCapacityUnits: 3000, WriteCapacityUnits: 100_000 },
        }),
      );
      ids = server.engine.catalog.get('wide')!.partitions.map.list().map((partition) => partition.id);
      assert.equal(ids.length, PARTITIONS);
      startMs = Math.ceil(clock.nowMs() / 1000) * 1000;
      for (let second = 0; second < 3600; second++) recordSecond(second);
      clock.advance(startMs + 3599 * 1000 - clock.nowMs());
      // Metrics and top keys for the charts and the Contributor Insights panel.
      const metrics = server.engine.telemetry.metrics;
      for (let second = 0; second < 3600; second += 10) {
        metrics.series({ metric: 'ConsumedWriteCapacityUnits', table: 'wide' }).record(40_000 + 10_000 * Math.sin(second / 400), startMs + second * 1000);
        metrics.series({ metric: 'ConsumedReadCapacityUnits', table: 'wide' }).record(1_200, startMs + second * 1000);
        if (second >= 3000) metrics.series({ metric: 'WriteThrottleEvents', table: 'wide' }).record(30, startMs + second * 1000);
      }
      await client.send(new UpdateContributorInsightsCommand({ TableName: 'wide', ContributorInsightsAction: 'ENABLE' }));
      served = await serveDashboard(server.engine, clock);
    });

    after(async () => {
      await served?.close();
      client?.destroy();
      await server?.close();
      assert.deepEqual(served?.internalErrors ?? [], [], 'no route answered 500');
    });

    test('loads the hour, finds the hot partition, updates incrementally and follows the manual clock', async (t) => {
      const page = await browser.newPage({ viewport: { width: 1440, height: 1100 } });
      const errors: string[] = [];
      watchPage(page, errors);
      try {
        const openedMs = performance.now();
        await page.goto(`${served.endpoint}/dynatwin/#table=wide&view=1h`);
        const first = await waitForHeatmapAt(page, 'wide', clock.nowMs(), 120_000);
        const loadMs = performance.now() - openedMs;
        assert.equal(first.partitionCount, String(PARTITIONS));
        assert.equal(first.hottestPartition, String(ids[HOT_ROW]));
        assert.ok(Number(first.hottestShare) >= 1.1, `hot share ${first.hottestShare}`);
        assert.equal(first.throttledPartitions, String(ids[HOT_ROW]));
        assert.ok(isHot(await pixelOf(page, ids[HOT_ROW]!)), 'the hot partition is drawn hot');
        assert.ok(!isHot(await pixelOf(page, ids[0]!, 0.2)), 'a partition at ~40% is not drawn hot');
        const fullApplyMs = Number(first.applyMs);
        await page.screenshot({ path: screenshotPath('wide-100-partitions-hour.png'), fullPage: true });

        // Each new second is one incremental poll: applied and drawn in a few milliseconds.
        const applyTimes: number[] = [];
        for (let step = 1; step <= 5; step++) {
          recordSecond(3599 + step);
          clock.advance(1000);
          applyTimes.push(Number((await waitForHeatmapAt(page, 'wide', clock.nowMs())).applyMs));
        }
        // The page follows the server's clock, whatever the browser's says.
        const clockText = await page.textContent('#clock');
        assert.equal(await page.getAttribute('#clock', 'data-now-ms'), String(clock.nowMs()));
        assert.equal(await page.getAttribute('#clock', 'data-mode'), 'manual');
        assert.ok(clockText !== null && clockText.includes(new Date(clock.nowMs()).toISOString().slice(11, 19)), `clock shows ${clockText}`);
        // Advanced through the API, as a person driving a simulation would.
        const advanced = await rawRequest(served.endpoint, { method: 'POST', path: '/dynatwin/clock', headers: { 'Content-Type': 'application/json' }, body: '{"advanceMs": 30000}' });
        assert.equal(advanced.status, 200);
        await waitForHeatmapAt(page, 'wide', clock.nowMs());

        // Hovering a cell explains it.
        const box = (await page.locator('canvas.heat-cells').boundingBox())!;
        await page.mouse.move(box.x + box.width * 0.9, box.y + ((HOT_ROW + 0.5) / PARTITIONS) * box.height);
        const tooltip = await page.textContent('.heat-tooltip');
        assert.match(tooltip ?? '', new RegExp(`Partition #${ids[HOT_ROW]} `));

        // Charts and top keys rendered (a blank canvas would be all transparent).
        for (const id of ['chart-read', 'chart-write', 'chart-throttles']) {
          const inked = await page.evaluate((canvasId) => {
            const canvas = document.getElementById(canvasId) as unknown as PageCanvas;
            const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
            let count = 0;
            for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) count++;
            return count;
          }, id);
          assert.ok(inked > 1000, `${id} is drawn (${inked} pixels)`);
        }
        assert.equal(await page.getAttribute('#insights', 'data-status'), 'ENABLED');

        await page.screenshot({ path: screenshotPath('wide-100-partitions-hour-later.png'), fullPage: true });
        await page.locator('#heatmap').screenshot({ path: screenshotPath('wide-heatmap.png') });

        // Three hours of 1-minute buckets, and the read share only.
        await page.selectOption('#view', '3h');
        await page.waitForFunction(() => document.getElementById('heatmap')!.dataset['periodSeconds'] === '60' && document.getElementById('heatmap')!.dataset['state'] === 'ready');
        const minutes = await waitForHeatmapAt(page, 'wide', clock.nowMs());
        assert.equal(minutes.hottestPartition, String(ids[HOT_ROW]), 'the hot partition over 5 minutes of 1-minute buckets');
        await page.selectOption('#mode', 'read');
        await page.waitForFunction((hot) => document.getElementById('heatmap')!.dataset['hottestPartition'] !== hot, String(ids[HOT_ROW]));
        assert.ok(!isHot(await pixelOf(page, ids[HOT_ROW]!)), 'its reads are a third of their allocation');
        assert.match(page.url(), /view=3h&mode=read/, 'the view is in the URL');
        // Timings are reported, not asserted: a busy machine makes them longer, and speed is
        // measured by the benchmark, never by a test (typical: full ≈ 100 ms, a second ≈ 2 ms).
        assert.ok(Number.isFinite(fullApplyMs) && applyTimes.every(Number.isFinite), 'the page reports its apply times');
        t.diagnostic(`the hour (360,000 cells) applied and drawn in ${fullApplyMs} ms; each new second in ${applyTimes.join(', ')} ms; page ready in ${Math.round(loadMs)} ms`);
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    });
  });

  describe('seed article 000: the hot GSI partition', () => {
    const TABLE = 'test';
    const INDEX = 'gsi-status';
    const ITEMS_PER_SECOND = 2_000;
    const SECONDS = 90;
    let clients: TwinClients;

    before(async () => {
      clients = await startTwinWithClients({ clock: 'manual' });
    });
    after(() => clients?.close());

    test('the heat map shows the GSI partition holding UN_USED hot during the load', async () => {
      const clock = clients.twin.clock as ManualClock;
      const page = await rawRequest(clients.twin.endpoint, { method: 'GET', path: '/dynatwin/' });
      assert.equal(page.status, 200, 'GET /dynatwin/ must serve the dashboard: server.ts must call registerDashboardRoutes(inspection, engine)');

      await clients.client.send(new CreateTableCommand(seedArticleTable(TABLE, { index: INDEX })));

      // The load: BatchWriteItem of 25 new UN_USED items, 80 of them per simulated second.
      let written = 0;
      let unprocessed = 0;
      let throttledRequests = 0;
      for (let second = 0; second < SECONDS; second++) {
        const batches: Promise<void>[] = [];
        for (let batch = 0; batch < ITEMS_PER_SECOND / 25; batch++) {
          const requests: WriteRequest[] = [];
          for (let item = 0; item < 25; item++) {
            requests.push({ PutRequest: { Item: { id: { S: `item-${second}-${batch}-${item}` }, status: { S: 'UN_USED' }, body: { S: 'x'.repeat(100) } } } });
          }
          batches.push(
            clients.client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: requests } })).then(
              (answer) => {
                const left = answer.UnprocessedItems?.[TABLE]?.length ?? 0;
                unprocessed += left;
                written += 25 - left;
              },
              (error: Error) => {
                if (error.name !== 'ThrottlingException' && error.name !== 'ProvisionedThroughputExceededException') throw error;
                throttledRequests++;
              },
            ),
          );
        }
        await Promise.all(batches);
        clock.advance(1000);
      }
      assert.ok(written > 0, 'items were written');

      // The GSI partition that holds UN_USED: by the key's hash, and by where the entries are.
      const partitionsAnswer = await rawRequest(clients.twin.endpoint, { method: 'GET', path: `/dynatwin/tables/${TABLE}/partitions` });
      assert.equal(partitionsAnswer.status, 200);
      const gsiPartitions = (JSON.parse(partitionsAnswer.text) as { indexes: Record<string, { partitions: { id: number; hashRange: [string, string]; itemCount: number }[] }> }).indexes[INDEX]!.partitions;
      const hash = hashPartitionKey(keyBytesOf({ S: 'UN_USED' }));
      const holder = gsiPartitions.find((partition) => parseInt(partition.hashRange[0], 16) <= hash && hash <= parseInt(partition.hashRange[1], 16));
      assert.ok(holder !== undefined, 'a GSI partition owns the hash of UN_USED');
      assert.equal(holder.itemCount, written, 'every written entry is on that partition');

      const browserPage = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const errors: string[] = [];
      watchPage(browserPage, errors);
      try {
        await browserPage.goto(`${clients.twin.endpoint}/dynatwin/`);
        // The table, then its GSI, picked in the sidebar as a person would.
        await browserPage.click(`button[data-table="${TABLE}"]:not([data-index])`);
        await waitForHeatmapAt(browserPage, TABLE, clock.nowMs());
        await browserPage.screenshot({ path: screenshotPath('seed-000-table.png'), fullPage: true });
        await browserPage.click(`button[data-table="${TABLE}"][data-index="${INDEX}"]`);
        const data = await waitForHeatmapAt(browserPage, `${TABLE} / ${INDEX}`, clock.nowMs());
        await browserPage.screenshot({ path: screenshotPath('seed-000-gsi.png'), fullPage: true });
        await browserPage.locator('#heatmap').screenshot({ path: screenshotPath('seed-000-gsi-heatmap.png') });

        assert.notEqual(
          data.hottestPartition,
          '',
          `the heat map shows no consumption on ${TABLE}/${INDEX} after ${written} items (${unprocessed} unprocessed, ${throttledRequests} throttled requests): ` +
            'admission must record into engine.telemetry.partitionHistory (record / recordThrottle)',
        );
        assert.equal(data.hottestPartition, String(holder.id), `the hottest GSI partition is the one holding UN_USED (#${holder.id})`);
        assert.ok(Number(data.hottestShare) >= 0.9, `it runs at ≥ 90% of its 1,000 WCU/s (share ${data.hottestShare})`);
        assert.ok(isHot(await pixelOf(browserPage, holder.id)), 'it is drawn hot');
        for (const other of gsiPartitions.filter((partition) => partition.id !== holder.id)) {
          assert.ok(isCool(await pixelOf(browserPage, other.id)), `GSI partition #${other.id} (no UN_USED) is drawn cool`);
        }
        const summary = await browserPage.textContent('#heat-summary');
        assert.match(summary ?? '', new RegExp(`Hottest partition .*#${holder.id}`));
        assert.deepEqual(errors, []);
      } finally {
        await browserPage.close();
      }
    });
  });

  describe('GSI back-pressure: the banner, consistent units, and an 820 px page', () => {
    const TABLE = 'orders';
    const INDEX = 'gsi-status';
    // A small backlog bound (5,000 write units instead of 80,000) brings the first refusal at ~5 s
    // of simulated load instead of ~80 s: the same mechanism, a shorter test.
    const BACKLOG_BOUND = 5_000;
    const ITEMS_PER_SECOND = 2_000;
    const SECONDS = 12;
    let clients: TwinClients;
    let refusedItems = 0;

    before(async () => {
      clients = await startTwinWithClients({ clock: 'manual', capacitySettings: { gsiBacklogWriteUnitsMax: BACKLOG_BOUND } });
      const clock = clients.twin.clock as ManualClock;
      await clients.client.send(new CreateTableCommand(seedArticleTable(TABLE, { index: INDEX })));
      await clients.client.send(new UpdateContributorInsightsCommand({ TableName: TABLE, ContributorInsightsAction: 'ENABLE' }));
      for (let second = 0; second < SECONDS; second++) {
        const batches: Promise<void>[] = [];
        for (let batch = 0; batch < ITEMS_PER_SECOND / 25; batch++) {
          const requests: WriteRequest[] = [];
          for (let item = 0; item < 25; item++) requests.push({ PutRequest: { Item: { id: { S: `o-${second}-${batch}-${item}` }, status: { S: 'UN_USED' } } } });
          batches.push(
            clients.client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: requests } })).then(
              (answer) => {
                refusedItems += answer.UnprocessedItems?.[TABLE]?.length ?? 0;
              },
              (error: Error) => {
                if (error.name !== 'ThrottlingException') throw error;
                refusedItems += 25;
              },
            ),
          );
        }
        await Promise.all(batches);
        clock.advance(1000);
      }
    });
    after(() => clients?.close());

    /** A page of `width` px, watched for errors (none allowed), closed whatever happens. */
    async function withPage(width: number, height: number, run: (page: Page) => Promise<void>): Promise<void> {
      const page = await browser.newPage({ viewport: { width, height } });
      const errors: string[] = [];
      watchPage(page, errors);
      try {
        await run(page);
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    }

    /** Each chart series' largest value and the median of its non-zero values, as the page drew it. */
    async function chartSeries(page: Page, id: string): Promise<Record<string, { max: number; median: number }>> {
      const text = await page.evaluate((canvasId) => document.getElementById(canvasId)!.dataset['series'] ?? '[]', id);
      return Object.fromEntries((JSON.parse(text) as [string, number, number][]).map(([label, max, median]) => [label, { max, median }]));
    }

    test('the table view shows the GSI’s refusals in a banner, its summary, its throttle chart and its top keys', async () => {
      assert.ok(refusedItems > 0, 'the load was refused by back-pressure');
      const clock = clients.twin.clock as ManualClock;
      await withPage(1400, 1100, async (page) => {
        await page.goto(`${clients.twin.endpoint}/dynatwin/#table=${TABLE}&view=10m`);
        await waitForHeatmapAt(page, TABLE, clock.nowMs());
        await page.waitForFunction(() => document.getElementById('insights')!.dataset['status'] === 'ENABLED');
        await page.waitForFunction(() => (document.getElementById('chart-throttles')!.dataset['series'] ?? '').includes('back-pressure'));
        await page.screenshot({ path: screenshotPath('backpressure-table.png'), fullPage: true });
        const banner = await page.evaluate(() => ({ ...document.getElementById('backpressure-banner')!.dataset }));
        assert.equal(banner['indexes'], INDEX, 'the banner names the GSI');
        assert.equal(Number(banner['refused']), refusedItems, 'and counts every refused write');
        assert.equal(await page.isVisible('#backpressure-banner'), true);
        assert.match((await page.textContent('#backpressure-banner')) ?? '', new RegExp(`Writes to ${TABLE} .*GSI ${INDEX}`));
        const summary = (await page.textContent('#heat-summary')) ?? '';
        assert.doesNotMatch(summary, /No throttles in the window/);
        assert.match(summary, new RegExp(`writes refused by GSI ${INDEX}'s back-pressure`));
        const throttles = await chartSeries(page, 'chart-throttles');
        assert.ok(throttles['refused by GSI back-pressure']!.max > 0, `the throttle chart shows the refusals: ${JSON.stringify(throttles)}`);
        const throttledKeys = (await page.textContent('#insights [data-rule="PKT"]')) ?? '';
        assert.match(throttledKeys, /No throttled keys\. The .* writes refused in the window by a GSI's back-pressure are not counted against any key/);
      });
    });

    test('the GSI view plots what its partitions served, in the heat map and in CloudWatch\'s units alike, and its peak against the ceiling', async () => {
      const clock = clients.twin.clock as ManualClock;
      await withPage(1400, 1100, async (page) => {
        for (const view of ['10m', '3h'] as const) {
          await page.goto(`${clients.twin.endpoint}/dynatwin/#table=${TABLE}&index=${INDEX}&view=${view}`);
          await waitForHeatmapAt(page, `${TABLE} / ${INDEX}`, clock.nowMs());
          await page.waitForFunction(() => JSON.parse(document.getElementById('chart-write')!.dataset['series'] ?? '[]').some(([label, max]: [string, number]) => label === 'consumed (CloudWatch)' && max > 0));
          await page.screenshot({ path: screenshotPath(`backpressure-gsi-${view}.png`), fullPage: true });
          const writes = await chartSeries(page, 'chart-write');
          // Both lines count what the GSI's partitions served (CloudWatch counts a GSI's units when
          // served from the backlog), never what base-table writes put into it (~2,000 units/s).
          for (const label of ['served', 'consumed (CloudWatch)']) {
            const line = writes[label]!;
            // Units per second in both views (the 3-hour view's minute sums divided by 60).
            if (view === '10m') {
              // A rested partition serves up to one extra second of its ceiling at once, then its ceiling.
              assert.ok(line.median >= 950 && line.median <= 1_050, `${view} ${label}: the GSI partition serves its 1,000 WCU/s (${JSON.stringify(line)})`);
              assert.ok(line.max <= 2_000, `${view} ${label}: never more than the ceiling and its one-second reserve (${line.max})`);
            } else {
              assert.ok(line.max > 0 && line.max <= 1_050, `${view} ${label}: per second, not a minute's sum, and not what was accepted (${line.max})`);
            }
          }
          const data = await page.evaluate(() => ({ ...document.getElementById('heatmap')!.dataset }));
          // The peak never reads more than the ceiling; what the partition's stored second (and
          // reserve) added over the 10-second span is shown apart, as burst: at most 20%.
          assert.ok(Number(data['peakOfCeiling']) <= 1, `${view}: the hot partition's peak is within its 1,000 WCU/s ceiling (${data['peakOfCeiling']})`);
          const burst = Number(data['peakBurstOfCeiling']);
          assert.ok(burst >= 0 && burst <= 0.2, `${view}: burst from stored capacity only (${burst})`);
          const peakCells = await page.$$eval('#partition-rows td.peak', (cells) => cells.map((cell) => cell.textContent ?? ''));
          for (const text of peakCells) assert.match(text, /^\d+(\.\d+)?%( \+ \d+(\.\d+)?% burst)?$/, `${view}: a peak cell reads 'N%' or 'N% + M% burst' (${text})`);
          if (burst >= 0.005) assert.ok(peakCells.some((text) => text.includes('burst')), `${view}: the burst is labelled (${peakCells.join(' | ')})`);
          // (12 s of load fill a fifth of a 1-minute bucket: only the 1-second view sees it at its ceiling.)
          if (view === '10m') {
            assert.ok(Number(data['peakOfCeiling']) >= 0.9, `${view}: and it ran at its ceiling (${data['peakOfCeiling']})`);
            assert.ok(peakCells.some((text) => /^100%/.test(text)), `${view}: the hot partition reads 100% of its ceiling (${peakCells.join(' | ')})`);
          }
          assert.match((await page.textContent('#backpressure-banner')) ?? '', new RegExp(`GSI ${INDEX}`), `${view}: the GSI view has the banner too`);
        }
      });
    });

    test('at 820 px wide the partition table stays inside its card', async () => {
      const clock = clients.twin.clock as ManualClock;
      await withPage(820, 1000, async (page) => {
        await page.goto(`${clients.twin.endpoint}/dynatwin/#table=${TABLE}&view=10m`);
        await waitForHeatmapAt(page, TABLE, clock.nowMs());
        await page.screenshot({ path: screenshotPath('backpressure-table-820px.png'), fullPage: true });
        const layout = await page.evaluate(() => {
          const box = (selector: string): { left: number; right: number } => (document.querySelector(selector) as { getBoundingClientRect(): { left: number; right: number } }).getBoundingClientRect();
          const scroller = document.querySelector('#heat-panel .table-scroll') as { scrollWidth: number; clientWidth: number };
          const root = document.querySelector('html') as { scrollWidth: number };
          return { panel: box('#heat-panel'), table: box('#heat-panel table.partitions'), pageWidth: root.scrollWidth, tableOverflow: scroller.scrollWidth - scroller.clientWidth };
        });
        assert.ok(layout.table.right <= layout.panel.right, `the table ends inside its card (${layout.table.right} <= ${layout.panel.right})`);
        assert.ok(layout.pageWidth <= 820, `nothing widens the page (${layout.pageWidth} px)`);
        assert.ok(layout.tableOverflow <= 0, `the table fits without scrolling (${layout.tableOverflow} px over)`);
      });
    });
  });

  describe('top keys: a hot key stands out, a spread load does not', () => {
    const TABLE = 'keys';
    const SPREAD_KEYS = 600;
    const HOT_WRITES = 150;
    let clients: TwinClients;

    before(async () => {
      clients = await startTwinWithClients({ clock: 'manual' });
    });
    after(() => clients?.close());

    /** One write to each key, a few at a time. */
    async function writeKeys(keys: readonly string[]): Promise<void> {
      for (let start = 0; start < keys.length; start += 50) {
        await Promise.all(keys.slice(start, start + 50).map((id) => clients.client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: id } } }))));
      }
    }

    async function accessedKeyRows(page: Page): Promise<{ key: string; count: string }[]> {
      return page.$$eval('#insights section[data-rule="PKC"] tr', (rows) =>
        rows.map((row) => ({ key: row.querySelector('td.key')?.textContent ?? '', count: row.querySelector('td.number')?.textContent ?? '' })),
      );
    }

    test('ranked by what is guaranteed: the hot key first, then "No key stands out"', async () => {
      const clock = clients.twin.clock as ManualClock;
      await clients.client.send(new CreateTableCommand(onDemandTable(TABLE)));
      await clients.client.send(new UpdateContributorInsightsCommand({ TableName: TABLE, ContributorInsightsAction: 'ENABLE' }));
      const minuteMs = 60_000;
      clock.advance(minuteMs - (clock.nowMs() % minuteMs));

      // Minute 1: 600 keys written once each, far more than the sketch's 128, and one key 150 times.
      const spread = (minute: number) => Array.from({ length: SPREAD_KEYS }, (_, at) => `m${minute}-k${at}`);
      await writeKeys([...spread(1), ...Array.from({ length: HOT_WRITES }, () => 'hot')]);
      clock.advance(minuteMs);

      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const errors: string[] = [];
      watchPage(page, errors);
      try {
        await page.goto(`${clients.twin.endpoint}/dynatwin/`);
        await page.click(`button[data-table="${TABLE}"]:not([data-index])`);
        await page.waitForFunction(() => document.querySelector('#insights section[data-rule="PKC"] tr') !== null);
        const rows = await accessedKeyRows(page);
        assert.equal(rows[0]?.key, 'hot', `the hot key comes first (${JSON.stringify(rows)})`);
        // The measure is ConsumedThroughputUnits, reads + 3 × writes: 450 for the hot key's writes.
        const hotUnits = 3 * HOT_WRITES;
        const shown = Number(rows[0]!.count.replace(/[^0-9.]/g, ''));
        assert.ok(shown > hotUnits * 0.8 && shown <= hotUnits, `the hot key shows ${rows[0]!.count} of its ${hotUnits} units`);
        assert.ok(rows.length < 10, `keys written once do not pass for hot ones (${rows.length} rows)`);
        await page.locator('#insights').screenshot({ path: screenshotPath('top-keys-hot.png') });

        // Minute 2: 600 other keys once each and nothing hot.
        await writeKeys(spread(2));
        clock.advance(minuteMs);
        await page.waitForFunction(() => document.querySelector('#insights section[data-rule="PKC"] p.spread') !== null, undefined, { timeout: 60_000 });
        assert.deepEqual(await accessedKeyRows(page), []);
        assert.match((await page.textContent('#insights section[data-rule="PKC"] p.spread')) ?? '', /No key stands out/);
        await page.locator('#insights').screenshot({ path: screenshotPath('top-keys-spread.png') });
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    });
  });
  describe('auto scaling: the provisioned step and the activities under the table', () => {
    let clients: TwinClients;
    const MINUTE_MS = 60_000;

    before(async () => {
      clients = await startTwinWithClients({ clock: 'manual' });
    });
    after(() => clients?.close());

    test('a scale-out shows as a step of the provisioned line and as an activity with its cause', async () => {
      const clock = clients.twin.clock as ManualClock;
      const table = await provisionedTable(clients.client, 'scaled', 10, 200);
      await clients.client.send(new PutItemCommand({ TableName: table, Item: { id: { S: 'w150' }, n: { N: '0' }, payload: { S: 'x'.repeat(150 * 1024 - 100) } } }));
      clock.advance(MINUTE_MS - (clock.nowMs() % MINUTE_MS));
      const scaling = autoScalingClient(clients.twin.endpoint);
      await scaling.send(new RegisterScalableTargetCommand({ ServiceNamespace: 'dynamodb', ResourceId: `table/${table}`, ScalableDimension: 'dynamodb:table:WriteCapacityUnits', MinCapacity: 1, MaxCapacity: 1000 }));
      await scaling.send(
        new PutScalingPolicyCommand({
          PolicyName: 'writes-70',
          ServiceNamespace: 'dynamodb',
          ResourceId: `table/${table}`,
          ScalableDimension: 'dynamodb:table:WriteCapacityUnits',
          PolicyType: 'TargetTrackingScaling',
          TargetTrackingScalingPolicyConfiguration: { TargetValue: 70, PredefinedMetricSpecification: { PredefinedMetricType: 'DynamoDBWriteCapacityUtilization' } },
        }),
      );
      scaling.destroy();
      const page = await browser.newPage({ viewport: { width: 1400, height: 1300 } });
      const errors: string[] = [];
      watchPage(page, errors);
      try {
        await page.goto(`${clients.twin.endpoint}/dynatwin/#table=${table}&view=10m`);
        await page.waitForFunction(() => document.querySelector('#scaling .scaling-targets') !== null);
        // Three minutes at 150 WCU/s (75 % of 200): raised to 215 two minutes in. The page polls
        // (and so samples the provisioned gauge) while the clock moves.
        for (let second = 0; second < 180; second++) {
          await clients.client.send(new UpdateItemCommand({ TableName: table, Key: { id: { S: 'w150' } }, UpdateExpression: 'SET n = n + :one', ExpressionAttributeValues: { ':one': { N: '1' } } }));
          clock.advance(1000);
          await clients.twin.settled();
          if (second % 20 === 0) await page.waitForTimeout(50);
        }
        await page.waitForFunction(() => document.getElementById('scaling')!.dataset['activities'] === '1');
        const activity = (await page.textContent('#scaling .scaling-activities li')) ?? '';
        assert.match(activity, /table writes: Setting write capacity units to 215\./);
        assert.match(activity, /Successful/);
        assert.match(activity, /monitor alarm TargetTracking-table\/scaled-[0-9a-f]{8}-AlarmHigh-/);
        assert.match((await page.textContent('#scaling .scaling-targets tbody tr')) ?? '', /table writes215/);
        // The chart's provisioned line: the gauge's 1-second datapoints step from 200 to 215 where the policy acted.
        const metrics = (await (await fetch(`${clients.twin.endpoint}/dynatwin/metrics?table=${table}&metric=ProvisionedWriteCapacityUnits&period=1`)).json()) as {
          metrics: { datapoints: { Timestamp: string; Maximum: number }[] }[];
        };
        const levels = metrics.metrics[0]!.datapoints.map((point) => point.Maximum).filter((value, index, all) => index === 0 || value !== all[index - 1]);
        assert.deepEqual(levels, [200, 215], 'one step, 200 → 215');
        // For the picture: the page has caught up with the clock (the charts are drawn in the same poll as the heat map).
        await waitForHeatmapAt(page, table, clock.nowMs());
        await page.waitForTimeout(1500);
        await page.locator('#charts-panel').screenshot({ path: screenshotPath('autoscaling-provisioned-step.png') });
        await page.locator('#scaling-panel').screenshot({ path: screenshotPath('autoscaling-activities.png') });
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    });
  });
});
