/**
 * The dashboard under `--auth verify` (issue 31, item 4), in headless Chromium: opened with the
 * link the server prints (`/dynatwin/#token=<token>`) it loads its data, takes the token out of
 * the address bar and keeps it across a reload of the tab; opened without it, the page loads but
 * shows no table, and says what to open. No cookie is set (a cookie would ride along on requests
 * from any page of the same host).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Browser, Page } from 'playwright-core';
import { startDynatwin, type Dynatwin } from '../src/index.js';
import { browserAvailability, launchChromium, MISSING_BROWSER_MESSAGE } from './support/browser.js';
import { testTwinOptions } from './support/test-store.js';

const KEY = { accessKeyId: 'AKIDDASHBOARD0000001', secretAccessKey: 'dashboard-secret-0000000000000000001' };
const TABLE = 'guarded-table';
const availability = browserAvailability();

/** The page's DOM as these checks read it (the tests compile without the DOM library). */
declare const document: { getElementById(id: string): { textContent: string | null } | null };

test('Chromium for the dashboard tests', () => {
  if (availability === 'fail') assert.fail(MISSING_BROWSER_MESSAGE);
});

describe('the dashboard under --auth verify', { skip: availability === 'fail' ? 'Chromium is missing (see the failure above)' : availability }, () => {
  let browser: Browser;
  let twin: Dynatwin;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  before(async () => {
    process.env.AWS_ACCESS_KEY_ID = KEY.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = KEY.secretAccessKey;
    twin = await startDynatwin(testTwinOptions({ auth: 'verify' }));
    const client = new DynamoDBClient({ endpoint: twin.endpoint, region: 'us-east-1', credentials: KEY });
    await client.send(
      new CreateTableCommand({ TableName: TABLE, AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }),
    );
    client.destroy();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await twin?.close();
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    else process.env.AWS_ACCESS_KEY_ID = saved.id;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
  });

  /** Bounds on a hang, not speed tests: the machine is shared. */
  const watched = (page: Page, errors: string[]): Page => {
    page.setDefaultTimeout(60_000);
    page.on('pageerror', (error) => errors.push(error.message));
    return page;
  };
  const tablesText = (page: Page): Promise<string> => page.evaluate(() => document.getElementById('tables')!.textContent ?? '');

  test('opened with the printed link it shows the tables, drops the token from the address bar and keeps it for a reload; no cookie', async () => {
    const errors: string[] = [];
    const context = await browser.newContext();
    try {
      const page = watched(await context.newPage(), errors);
      await page.goto(`${twin.endpoint}/dynatwin/#token=${encodeURIComponent(twin.inspectionToken!)}`);
      await page.waitForFunction((table) => (document.getElementById('tables')!.textContent ?? '').includes(table), TABLE);
      assert.doesNotMatch(page.url(), /token=/);
      await page.reload();
      await page.waitForFunction((table) => (document.getElementById('tables')!.textContent ?? '').includes(table), TABLE);
      assert.deepEqual(await context.cookies(), []);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('opened without the token the page loads, shows no table and says which link to open', async () => {
    const errors: string[] = [];
    const context = await browser.newContext();
    try {
      const page = watched(await context.newPage(), errors);
      await page.goto(`${twin.endpoint}/dynatwin/`);
      await page.waitForFunction(() => (document.getElementById('status')!.textContent ?? '').includes('--auth verify'));
      assert.match(await page.evaluate(() => document.getElementById('status')!.textContent ?? ''), /open the dashboard link it printed at start-up/);
      assert.ok(!(await tablesText(page)).includes(TABLE));
      // A wrong token is no better.
      await page.goto(`${twin.endpoint}/dynatwin/#token=not-the-token-of-this-twin`);
      await page.reload();
      await page.waitForFunction(() => (document.getElementById('status')!.textContent ?? '').includes('--auth verify'));
      assert.ok(!(await tablesText(page)).includes(TABLE));
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
