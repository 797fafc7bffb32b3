/**
 * The clock API (`GET/POST /dynatwin/clock`) through real HTTP, on a manual and on a real clock,
 * and the `--clock` flag of the CLI.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { parseCommandLine, UsageError } from '../src/cli.js';
import { ManualClock, RealClock } from '../src/clock.js';
import { startServerProcess } from './support/process.js';
import { rawRequest } from './support/raw.js';
import { startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';
import { embeddedStoreOnly } from './support/test-store.js';

interface ClockAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

async function clockRequest(endpoint: string, method: 'GET' | 'POST' | 'DELETE', body?: string): Promise<ClockAnswer> {
  const headers: Record<string, string> = body === undefined ? {} : { 'Content-Type': 'application/json' };
  const response = await rawRequest(endpoint, { method, path: '/dynatwin/clock', headers, body });
  assert.match(String(response.headers['content-type']), /^application\/json/);
  return { status: response.status, body: JSON.parse(response.text) as Record<string, unknown> };
}

describe('clock API on a manual clock', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients({ clock: 'manual', tableCreateDelayMs: 5000 });
  });
  after(() => twin.close());

  test('GET answers the mode and the time, which starts at the real time of start-up', async () => {
    const answer = await clockRequest(twin.twin.endpoint, 'GET');
    assert.equal(answer.status, 200);
    assert.equal(answer.body['mode'], 'manual');
    assert.equal(answer.body['nowMs'], twin.twin.clock.nowMs());
    assert.ok(Math.abs((answer.body['nowMs'] as number) - Date.now()) < 60_000);
  });

  test('POST advances the clock and answers the new time', async () => {
    const beforeMs = twin.twin.clock.nowMs();
    const answer = await clockRequest(twin.twin.endpoint, 'POST', JSON.stringify({ advanceMs: 1500 }));
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { mode: 'manual', nowMs: beforeMs + 1500 });
    assert.equal(twin.twin.clock.nowMs(), beforeMs + 1500);
    const still = await clockRequest(twin.twin.endpoint, 'POST', '{"advanceMs": 0}');
    assert.deepEqual(still.body, { mode: 'manual', nowMs: beforeMs + 1500 });
  });

  test('advancing the clock drives the server: a table turns ACTIVE when its creation delay has passed', async () => {
    const name = uniqueTableName('clock');
    await twin.client.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    const status = async (): Promise<string | undefined> => (await twin.client.send(new DescribeTableCommand({ TableName: name }))).Table?.TableStatus;
    assert.equal(await status(), 'CREATING');
    await clockRequest(twin.twin.endpoint, 'POST', JSON.stringify({ advanceMs: 4999 }));
    assert.equal(await status(), 'CREATING');
    await clockRequest(twin.twin.endpoint, 'POST', JSON.stringify({ advanceMs: 1 }));
    assert.equal(await status(), 'ACTIVE');
  });

  test('bad bodies are refused with 400 and leave the clock alone', async () => {
    const beforeMs = twin.twin.clock.nowMs();
    const bad: [string, RegExp][] = [
      ['', /JSON object/],
      ['[]', /JSON object/],
      ['"advance"', /JSON object/],
      ['null', /JSON object/],
      ['12', /JSON object/],
      ['{}', /advanceMs is required/],
      ['{"advanceMs": -1}', />= 0/],
      ['{"advanceMs": "5"}', /must be a number/],
      ['{"advanceMs": null}', /must be a number/],
      ['{"advanceMs": 1e999}', /finite/],
      ['{"advanceMs": 31536000001}', /at most/],
      ['{"advanceMS": 5}', /unknown member "advanceMS"/],
      ['{"advanceMs": 5, "extra": 1}', /unknown member "extra"/],
      ['{"advanceMs": ', /not valid JSON/],
    ];
    for (const [body, message] of bad) {
      const answer = await clockRequest(twin.twin.endpoint, 'POST', body);
      assert.equal(answer.status, 400, body);
      assert.match(String(answer.body['error']), message, body);
    }
    const yearMs = 365 * 24 * 60 * 60 * 1000;
    assert.equal((await clockRequest(twin.twin.endpoint, 'POST', JSON.stringify({ advanceMs: yearMs }))).status, 200, 'one year is allowed');
    assert.equal(twin.twin.clock.nowMs(), beforeMs + yearMs);
  });

  test('other methods get 405', async () => {
    const answer = await clockRequest(twin.twin.endpoint, 'DELETE');
    assert.equal(answer.status, 405);
  });
});

describe('clock API on a real clock', () => {
  let twin: TwinClients;
  before(async () => {
    twin = await startTwinWithClients();
  });
  after(() => twin.close());

  test('GET answers mode real and the wall-clock time', async () => {
    const beforeMs = Date.now();
    const answer = await clockRequest(twin.twin.endpoint, 'GET');
    assert.equal(answer.body['mode'], 'real');
    const nowMs = answer.body['nowMs'] as number;
    assert.ok(nowMs >= beforeMs && nowMs <= Date.now());
  });

  test('POST answers 409: a real clock cannot be advanced', async () => {
    const answer = await clockRequest(twin.twin.endpoint, 'POST', JSON.stringify({ advanceMs: 1000 }));
    assert.equal(answer.status, 409);
    assert.match(String(answer.body['error']), /real clock/);
  });
});

describe('clocks', () => {
  test('RealClock never goes back', () => {
    const clock = new RealClock();
    let previous = clock.nowMs();
    for (let count = 0; count < 1000; count++) {
      const now = clock.nowMs();
      assert.ok(now >= previous);
      previous = now;
    }
  });

  test('ManualClock refuses to go back', () => {
    const clock = new ManualClock(1000);
    assert.throws(() => clock.advance(-1), RangeError);
    assert.equal(clock.advance(5), 1005);
  });

  test('ManualClock calls its advance listeners synchronously with the new time, until they unsubscribe', () => {
    const clock = new ManualClock(1000);
    const seen: number[] = [];
    const unsubscribe = clock.onAdvance((nowMs) => seen.push(nowMs));
    clock.advance(5);
    assert.deepEqual(seen, [1005]);
    clock.advance(0);
    assert.deepEqual(seen, [1005, 1005]);
    unsubscribe();
    clock.advance(1);
    assert.deepEqual(seen, [1005, 1005]);
    // A refused step moves nothing and calls nobody.
    clock.onAdvance((nowMs) => seen.push(nowMs));
    assert.throws(() => clock.advance(-1), RangeError);
    assert.deepEqual(seen, [1005, 1005]);
  });
});

describe('--clock flag', () => {
  test('parses real and manual, defaults to real, refuses anything else', () => {
    const manual = parseCommandLine(['--clock', 'manual']);
    assert.ok(typeof manual === 'object');
    assert.equal(manual.clock, 'manual');
    const real = parseCommandLine(['--clock', 'real']);
    assert.ok(typeof real === 'object');
    assert.equal(real.clock, 'real');
    const defaults = parseCommandLine([]);
    assert.ok(typeof defaults === 'object');
    assert.equal(defaults.clock, 'real');
    assert.throws(() => parseCommandLine(['--clock', 'fast']), (error: unknown) => error instanceof UsageError && /--clock must be 'real' or 'manual'/.test(error.message));
    assert.throws(() => parseCommandLine(['--clock']), UsageError);
  });

  test('the CLI with --clock manual serves a manual clock and says so in its banner', { skip: embeddedStoreOnly('a CLI server in a child process (the CLI runs in memory here)') }, async () => {
    const server = await startServerProcess(['--in-memory', '--clock', 'manual']);
    try {
      assert.match(server.banner, / — clock: manual$/);
      const first = await clockRequest(server.endpoint, 'GET');
      assert.equal(first.body['mode'], 'manual');
      const advanced = await clockRequest(server.endpoint, 'POST', JSON.stringify({ advanceMs: 60_000 }));
      assert.equal(advanced.body['nowMs'], (first.body['nowMs'] as number) + 60_000);
    } finally {
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    }
  });
});
