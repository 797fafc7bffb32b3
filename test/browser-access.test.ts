/**
 * Browser access (issue 15): no web page and no foreign Host reaches the server unless the user
 * says so. Raw HTTP requests that carry what a browser would send: a foreign Origin, a DNS-rebound
 * Host, a cross-origin `text/plain` POST (a CORS "simple request" that needs no preflight).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { parseCommandLine, UsageError } from '../src/cli.js';
import { BrowserAccess, hostNameOf, isLoopbackName } from '../src/server/browser-access.js';
import { rawRequest, SIGNED_HEADERS, type RawResponse } from './support/raw.js';
import { startTwinWithClients, uniqueTableName, withTwin, type TwinClients } from './support/twin.js';

const EVIL_ORIGIN = 'http://evil.example';

function createTableBody(name: string): string {
  return JSON.stringify({
    TableName: name,
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
  });
}

function operationHeaders(operation: string, extra: Record<string, string>): Record<string, string> {
  return { ...SIGNED_HEADERS, 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.' + operation, ...extra };
}

function assertAccessDenied(response: RawResponse, mentions: string): void {
  assert.equal(response.status, 403, response.text);
  const body = JSON.parse(response.text) as { __type: string; message: string };
  assert.equal(body.__type, 'com.amazon.coral.service#AccessDeniedException');
  assert.ok(body.message.includes(mentions), body.message);
  assert.equal(response.headers['access-control-allow-origin'], undefined, 'a refused page gets no CORS grant');
}

async function tableNames(twin: TwinClients): Promise<string[]> {
  return (await twin.client.send(new ListTablesCommand({}))).TableNames ?? [];
}

async function clockNowMs(endpoint: string): Promise<number> {
  const response = await rawRequest(endpoint, { method: 'GET', path: '/dynatwin/clock' });
  return (JSON.parse(response.text) as { nowMs: number }).nowMs;
}

describe('browser access, by default', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual' });
  });
  after(async () => {
    await twin.close();
  });

  test('a request from a foreign Origin is refused with a 403 and changes nothing', async () => {
    const name = uniqueTableName('evil');
    const response = await rawRequest(twin.twin.endpoint, { headers: operationHeaders('CreateTable', { Origin: EVIL_ORIGIN }), body: createTableBody(name) });
    assertAccessDenied(response, "Origin 'http://evil.example' is not allowed");
    assert.ok(!(await tableNames(twin)).includes(name));
    const read = await rawRequest(twin.twin.endpoint, { method: 'GET', path: '/dynatwin/tables', headers: { Origin: EVIL_ORIGIN } });
    assertAccessDenied(read, '--cors-origin http://evil.example');
  });

  test('a preflight from a foreign Origin is refused, one from a loopback page is granted for that page only', async () => {
    const preflight = (origin: string): Promise<RawResponse> =>
      rawRequest(twin.twin.endpoint, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-amz-target,authorization' },
      });
    assertAccessDenied(await preflight(EVIL_ORIGIN), 'evil.example');
    assertAccessDenied(await preflight('null'), "Origin 'null'");
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:5173', 'http://[::1]:8080', 'https://app.localhost']) {
      const granted = await preflight(origin);
      assert.equal(granted.status, 200, origin);
      assert.equal(granted.headers['access-control-allow-origin'], origin);
      assert.equal(granted.headers['vary'], 'Origin');
    }
  });

  test('a foreign Host (DNS rebinding) is refused with a 403; loopback names and addresses are served', async () => {
    const name = uniqueTableName('rebind');
    const response = await rawRequest(twin.twin.endpoint, {
      headers: operationHeaders('CreateTable', { Host: 'rebind.attacker.example' }),
      body: createTableBody(name),
    });
    assertAccessDenied(response, "Host 'rebind.attacker.example' is not allowed");
    assert.ok(response.text.includes('--allow-host rebind.attacker.example'), 'the refusal says how to allow the name');
    assert.ok(!(await tableNames(twin)).includes(name));
    const page = await rawRequest(twin.twin.endpoint, { method: 'GET', path: '/dynatwin/tables', headers: { Host: 'rebind.attacker.example:8000' } });
    assertAccessDenied(page, 'rebind.attacker.example');
    for (const host of ['localhost', 'LOCALHOST.:8000', `127.0.0.1:${twin.twin.port}`, '127.1.2.3', '[::1]:8000', 'dynatwin.localhost']) {
      const withHost = await rawRequest(twin.twin.endpoint, { headers: operationHeaders('ListTables', { Host: host }), body: '{}' });
      assert.equal(withHost.status, 200, `Host ${host}: ${withHost.text}`);
    }
  });

  test('a cross-origin text/plain POST to /dynatwin/clock changes nothing', async () => {
    const beforeMs = await clockNowMs(twin.twin.endpoint);
    const year = JSON.stringify({ advanceMs: 31_536_000_000 });
    // What a hostile page's fetch(..., {method: 'POST', mode: 'no-cors', body}) sends.
    const simple = await rawRequest(twin.twin.endpoint, { path: '/dynatwin/clock', headers: { Origin: EVIL_ORIGIN, 'Content-Type': 'text/plain;charset=UTF-8' }, body: year });
    assert.equal(simple.status, 403);
    // The same body from a loopback page, or with no Origin at all (an old browser), still is not JSON-typed.
    for (const headers of [{ Origin: 'http://localhost:3000', 'Content-Type': 'text/plain' }, { 'Content-Type': 'text/plain' }, {}] as Record<string, string>[]) {
      const refused = await rawRequest(twin.twin.endpoint, { path: '/dynatwin/clock', headers, body: year });
      assert.equal(refused.status, 415, refused.text);
      assert.match(refused.text, /application\/json/);
    }
    // A JSON POST with a foreign Origin never gets there either.
    const json = await rawRequest(twin.twin.endpoint, { path: '/dynatwin/clock', headers: { Origin: EVIL_ORIGIN, 'Content-Type': 'application/json' }, body: year });
    assert.equal(json.status, 403);
    assert.equal(await clockNowMs(twin.twin.endpoint), beforeMs, 'the clock did not move');
    // A JSON POST from a loopback page (the dashboard, a test script) still moves it.
    const moved = await rawRequest(twin.twin.endpoint, { path: '/dynatwin/clock', headers: { Origin: 'http://localhost:3000', 'Content-Type': 'application/json' }, body: '{"advanceMs": 1000}' });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(await clockNowMs(twin.twin.endpoint), beforeMs + 1000);
  });

  test('the SDK from Node (no Origin, a loopback Host) is served as before', async () => {
    assert.ok(Array.isArray(await tableNames(twin)));
  });
});

describe('browser access widened by the user', () => {
  test('allowHosts serves that Host; corsOrigins grants that page CORS', async () => {
    await withTwin({ allowHosts: ['dynatwin.internal'], corsOrigins: ['http://app.example.test:3000'] }, async (twin) => {
      const host = await rawRequest(twin.twin.endpoint, { headers: operationHeaders('ListTables', { Host: 'dynatwin.internal:8000' }), body: '{}' });
      assert.equal(host.status, 200, host.text);
      assertAccessDenied(await rawRequest(twin.twin.endpoint, { headers: operationHeaders('ListTables', { Host: 'other.internal' }), body: '{}' }), 'other.internal');
      const page = await rawRequest(twin.twin.endpoint, { headers: operationHeaders('ListTables', { Origin: 'http://app.example.test:3000' }), body: '{}' });
      assert.equal(page.status, 200, page.text);
      assert.equal(page.headers['access-control-allow-origin'], 'http://app.example.test:3000');
      assertAccessDenied(await rawRequest(twin.twin.endpoint, { headers: operationHeaders('ListTables', { Origin: 'http://app.example.test:3001' }), body: '{}' }), 'app.example.test:3001');
    });
  });

  test("'*' is the user's explicit choice to let any Host and any page in", async () => {
    await withTwin({ allowHosts: ['*'], corsOrigins: ['*'] }, async (twin) => {
      const response = await rawRequest(twin.twin.endpoint, { headers: operationHeaders('ListTables', { Host: 'anything.example', Origin: EVIL_ORIGIN }), body: '{}' });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.headers['access-control-allow-origin'], EVIL_ORIGIN);
      // Even then, dynatwin's own state-changing routes take only JSON.
      const clock = await rawRequest(twin.twin.endpoint, { path: '/dynatwin/clock', headers: { Origin: EVIL_ORIGIN, 'Content-Type': 'text/plain' }, body: '{"advanceMs": 1}' });
      assert.equal(clock.status, 415);
    });
  });

  test('a page served by the server itself through an allowed name is same-origin', () => {
    const access = new BrowserAccess('127.0.0.1', { allowHosts: ['laptop.lan'], corsOrigins: [] });
    assert.equal(access.originAllowed('http://laptop.lan:8000', 'laptop.lan:8000'), true);
    assert.equal(access.originAllowed('http://laptop.lan:8001', 'laptop.lan:8000'), false);
    assert.equal(access.originAllowed('http://laptop.lan:8000', 'localhost:8000'), false);
  });

  test('the banner names what the user widened', () => {
    assert.equal(new BrowserAccess('127.0.0.1').describeWidening(), '');
    assert.match(new BrowserAccess('127.0.0.1', { allowHosts: [], corsOrigins: ['*'] }).describeWidening(), /CORS open to every web page \(--cors-origin \*\)/);
    assert.match(new BrowserAccess('127.0.0.1', { allowHosts: ['box'], corsOrigins: [] }).describeWidening(), /hosts allowed: loopback, box/);
  });
});

describe('--allow-host and --cors-origin', () => {
  test('are repeatable and checked', () => {
    const options = parseCommandLine(['--allow-host', 'a.test', '--allow-host', 'b.test', '--cors-origin', 'http://app.test:3000/', '--cors-origin', '*']);
    assert.ok(typeof options === 'object');
    assert.deepEqual(options.browserAccess, { allowHosts: ['a.test', 'b.test'], corsOrigins: ['http://app.test:3000', '*'] });
    assert.throws(() => parseCommandLine(['--cors-origin', 'http://app.test/path']), UsageError);
    assert.throws(() => parseCommandLine(['--cors-origin', 'app.test']), UsageError);
    const defaults = parseCommandLine([]);
    assert.ok(typeof defaults === 'object');
    assert.deepEqual(defaults.browserAccess, { allowHosts: [], corsOrigins: [] });
  });
});

describe('host names', () => {
  test('Host header values parse to their name', () => {
    assert.equal(hostNameOf('Example.COM.:80'), 'example.com');
    assert.equal(hostNameOf('[::1]:8000'), '::1');
    assert.equal(hostNameOf('127.0.0.1'), '127.0.0.1');
    assert.equal(hostNameOf('a:b:c'), undefined);
    assert.equal(hostNameOf('[::1]x'), undefined);
  });
  test('loopback names and addresses', () => {
    for (const name of ['localhost', 'x.localhost', '127.0.0.1', '127.255.0.9', '::1', '::ffff:127.0.0.1']) assert.equal(isLoopbackName(name), true, name);
    for (const name of ['localhost.example', '128.0.0.1', '10.0.0.1', '::2', 'evil.example', '']) assert.equal(isLoopbackName(name), false, name);
  });
});
