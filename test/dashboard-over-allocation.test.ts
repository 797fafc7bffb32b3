/**
 * The dashboard where a partition runs over its allocation (issue 34): a provisioned GSI of 5 WCU
 * under 24 writes a second serves them from its burst bank, and the heat summary says so with the
 * bank's figure from the partitions document; the charts' legends fit at 1280 and 800 px (they
 * wrap instead of being cut); counts agree with their nouns ("1 partition"). Screenshots in
 * test-results/dashboard/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CreateTableCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import { browserAvailability, launchChromium, MISSING_BROWSER_MESSAGE, screenshotPath } from './support/browser.js';
import { startTwinWithClients, type TwinClients } from './support/twin.js';

/** The browser globals the page functions below use (the project compiles without the DOM library). */
declare const document: { getElementById(id: string): { readonly dataset: Record<string, string | undefined> } | null };

const availability = browserAvailability();
const TABLE = 'orders';
const INDEX = 'by-status';

describe('dashboard: a partition over its allocation', { skip: availability === 'fail' || availability === false ? false : availability }, () => {
  let clients: TwinClients;
  before(async () => {
    if (availability === 'fail') throw new Error(MISSING_BROWSER_MESSAGE);
    clients = await startTwinWithClients({ clock: 'manual' });
    const clock = clients.twin.clock as ManualClock;
    await clients.client.send(
      new CreateTableCommand({
        TableName: TABLE,
        AttributeDefinitions: [
          { AttributeName: 'id', AttributeType: 'S' },
          { AttributeName: 'status', AttributeType: 'S' },
        ],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        GlobalSecondaryIndexes: [{ IndexName: INDEX, KeySchema: [{ AttributeName: 'status', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' }, ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } }],
        ProvisionedThroughput: { ReadCapacityUnits: 50, WriteCapacityUnits: 50 },
      }),
    );
    let next = 0;
    for (let second = 0; second < 40; second++) {
      await Promise.all(Array.from({ length: 24 }, () => clients.client.send(new PutItemCommand({ TableName: TABLE, Item: { id: { S: `order-${next++}` }, status: { S: 'NEW' } } }))));
      clock.advance(1000);
    }
  });
  after(() => clients?.close());

  test('the heat summary names the burst bank that pays for it; legends fit at 1280 and 800 px; "1 partition"', async () => {
    const partitions = (await (await fetch(`${clients.twin.endpoint}/dynatwin/tables/${TABLE}/partitions`)).json()) as { indexes: Record<string, { partitions: { burstWriteUnits: number }[] }> };
    const bank = partitions.indexes[INDEX]!.partitions[0]!.burstWriteUnits;
    assert.ok(bank > 0 && bank < 5 * 300, `the bank paid: ${bank} of 1,500 left`);
    const browser = await launchChromium();
    try {
      for (const width of [1280, 800]) {
        const page = await browser.newPage({ viewport: { width, height: 1000 } });
        try {
          await page.goto(`${clients.twin.endpoint}/dynatwin/#table=${TABLE}&index=${INDEX}&view=10m`);
          await page.waitForFunction(() => document.getElementById('heatmap')!.dataset['state'] === 'ready', undefined, { timeout: 60_000 });
          await page.waitForFunction(() => (document.getElementById('chart-write')!.dataset['series'] ?? '') !== '', undefined, { timeout: 60_000 });
          await page.screenshot({ path: screenshotPath(`over-allocation-gsi-${width}px.png`), fullPage: true });
          const summary = (await page.textContent('#heat-summary')) ?? '';
          assert.match(summary, /at \d{3}% of its allocation/);
          assert.match(summary, new RegExp(`Over its allocation, the extra is paid from its burst bank .*: ${Math.round(bank).toLocaleString('en-US')} WCU left, \\d+ seconds of its allocation\\.`));
          assert.equal(await page.evaluate(() => document.getElementById('heat-summary')!.dataset['burstUnits']), String(Math.round(bank)));
          for (const chart of ['chart-read', 'chart-write', 'chart-throttles']) {
            assert.equal(await page.evaluate((id) => document.getElementById(id)!.dataset['legendFits'], chart), 'true', `${chart}'s legend at ${width} px`);
          }
          const resource = (await page.textContent('#resource')) ?? '';
          assert.match(resource, /· 1 partition ·/);
          assert.doesNotMatch(resource, /1 partitions/);
        } finally {
          await page.close();
        }
      }
    } finally {
      await browser.close();
    }
  });
});
