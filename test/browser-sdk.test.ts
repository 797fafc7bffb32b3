/**
 * The AWS SDK for JavaScript inside headless Chromium (issue 15): a page served from loopback uses
 * dynatwin as before; a page on another origin is refused, and the server is what refuses it (the
 * same page works once the user names its origin with `corsOrigins`).
 *
 * The SDK is bundled for the browser with esbuild at test time. Loopback pages come from a real
 * HTTP server on 127.0.0.1; the foreign page is answered by playwright's request routing (so
 * `https://evil.example` needs no DNS), and the context grants it Chromium's local-network-access
 * permission, as a user clicking "Allow" would: what stops it then is dynatwin alone.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { browserAvailability, launchChromium, MISSING_BROWSER_MESSAGE } from './support/browser.js';
import { uniqueTableName, withTwin, type TwinClients } from './support/twin.js';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';

/** The browser globals used by the page function (the project compiles without the DOM library). */
declare const window: { dynatwinSdk: SdkGlobal };
interface SdkGlobal {
  run(endpoint: string, tableName: string): Promise<PageOutcome>;
}
interface PageOutcome {
  readonly created: boolean;
  readonly tableNames?: string[];
  readonly error?: string;
}

const availability = browserAvailability();
if (availability === 'fail') {
  test('Chromium for the browser SDK test', () => {
    throw new Error(MISSING_BROWSER_MESSAGE);
  });
}

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What the page does: create a table and list tables with the real SDK, as a web app would. */
const PAGE_SCRIPT = `
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
window.dynatwinSdk = {
  async run(endpoint, tableName) {
    const client = new DynamoDBClient({ endpoint, region: 'us-east-1', maxAttempts: 1, credentials: { accessKeyId: 'AKIDBROWSER', secretAccessKey: 'secret' } });
    try {
      await client.send(new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }));
      const listed = await client.send(new ListTablesCommand({}));
      return { created: true, tableNames: listed.TableNames };
    } catch (error) {
      return { created: false, error: String(error && error.name) + ': ' + String(error && error.message) };
    }
  },
};
`;

async function bundleSdk(): Promise<string> {
  const result = await build({
    stdin: { contents: PAGE_SCRIPT, resolveDir: PACKAGE_ROOT, loader: 'js' },
    bundle: true,
    platform: 'browser',
    format: 'iife',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

describe('the AWS SDK in a browser page', { skip: availability === 'fail' ? 'Chromium is missing (see the failure above)' : availability }, () => {
  let browser: Browser;
  let html: string;
  /** Serves the SDK page from loopback, like a developer's `npm run dev`. */
  let pageServer: Server;
  let pagePort: number;

  before(async () => {
    const [launched, bundle] = await Promise.all([launchChromium(), bundleSdk()]);
    browser = launched;
    html = `<!doctype html><html><head><meta charset="utf-8"><title>app</title></head><body><script>${bundle.replaceAll('</script', '<\\/script')}</script></body></html>`;
    pageServer = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
    });
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    pagePort = (pageServer.address() as AddressInfo).port;
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => pageServer?.close(resolve));
  });

  /** Opens `pageUrl` (answered with the SDK page) and runs the page's SDK calls against `endpoint`. */
  async function runFrom(pageUrl: string, endpoint: string, tableName: string): Promise<PageOutcome> {
    const context = await browser.newContext();
    try {
      const origin = new URL(pageUrl).origin;
      if (new URL(pageUrl).port !== String(pagePort)) {
        await context.route(`${origin}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
        await context.grantPermissions(['local-network-access'], { origin });
      }
      const page = await context.newPage();
      await page.goto(pageUrl);
      await page.waitForFunction(() => window.dynatwinSdk !== undefined);
      return await page.evaluate(([url, name]) => window.dynatwinSdk.run(url, name), [endpoint, tableName] as const);
    } finally {
      await context.close();
    }
  }

  async function tableNames(twin: TwinClients): Promise<string[]> {
    return (await twin.client.send(new ListTablesCommand({}))).TableNames ?? [];
  }

  test('from a loopback page it works; from a page on another origin it is refused', async () => {
    await withTwin({}, async (twin) => {
      for (const pageUrl of [`http://localhost:${pagePort}/`, `http://127.0.0.1:${pagePort}/app.html`]) {
        const name = uniqueTableName('browser');
        const outcome = await runFrom(pageUrl, twin.twin.endpoint, name);
        assert.equal(outcome.created, true, `${pageUrl}: ${outcome.error}`);
        assert.ok(outcome.tableNames?.includes(name), 'the page read the table list');
        assert.ok((await tableNames(twin)).includes(name));
      }
      const name = uniqueTableName('evil');
      const outcome = await runFrom('https://evil.example/', twin.twin.endpoint, name);
      assert.equal(outcome.created, false, 'the foreign page was refused');
      assert.ok(!(await tableNames(twin)).includes(name), 'no table was created');
    });
  });

  test('the same foreign page works once the user names its origin (so the refusal above is the server’s)', async () => {
    await withTwin({ corsOrigins: ['https://evil.example'] }, async (twin) => {
      const name = uniqueTableName('allowed');
      const outcome = await runFrom('https://evil.example/', twin.twin.endpoint, name);
      assert.equal(outcome.created, true, outcome.error);
      assert.ok((await tableNames(twin)).includes(name));
    });
  });
});
