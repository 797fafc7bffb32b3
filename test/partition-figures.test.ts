/**
 * GET /dynatwin/tables/<t>/partitions answers units to a tenth: a burst bank refilled over 333 ms
 * steps of a 7 WCU table holds thirds of units and float noise (109786.79999988757 was seen), which
 * the document rounds instead of passing on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CreateTableCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { ManualClock } from '../src/clock.js';
import { startTwinWithClients, type TwinClients } from './support/twin.js';

describe('partition figures', () => {
  let clients: TwinClients;
  before(async () => {
    clients = await startTwinWithClients({ clock: 'manual' });
    await clients.client.send(
      new CreateTableCommand({
        TableName: 'small',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        ProvisionedThroughput: { ReadCapacityUnits: 7, WriteCapacityUnits: 7 },
      }),
    );
  });
  after(() => clients?.close());

  test('every figure is a whole number of tenths', async () => {
    const clock = clients.twin.clock as ManualClock;
    // 20 writes of 2 units each per third of a second: far over the 7 WCU/s allocation, so the bank pays.
    for (let step = 0; step < 12; step++) {
      for (let write = 0; write < 20; write++) {
        await clients.client.send(new PutItemCommand({ TableName: 'small', Item: { id: { S: `item-${step}-${write}` }, payload: { S: 'x'.repeat(1500) } } }));
      }
      clock.advance(333);
    }
    const document = (await (await fetch(`${clients.twin.endpoint}/dynatwin/tables/small/partitions`)).json()) as { partitions: Record<string, unknown>[] };
    const [partition] = document.partitions;
    assert.ok(partition !== undefined);
    const burst = partition['burstWriteUnits'];
    assert.ok(typeof burst === 'number' && burst > 0 && burst < 7 * 300, `the bank was drawn on: ${String(burst)}`);
    for (const [name, value] of Object.entries(partition)) {
      if (typeof value !== 'number') continue;
      assert.ok(Math.abs(value * 10 - Math.round(value * 10)) < 1e-9, `${name}: ${value}`);
    }
  });
});
