/**
 * Many tables (issue 15): DynamoDB's 2,500-tables-per-Region quota, answered with its
 * LimitExceededException text; below it every table is created, and a deleted table frees its place.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, test } from 'node:test';
import { CreateTableCommand, DeleteTableCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { TABLES_PER_REGION_MAX } from '../src/operations/createTable.js';
import { callOperation } from './support/raw.js';
import { expectDynamoError, startTwinWithClients, type TwinClients } from './support/twin.js';

const createInput = (name: string) => ({
  TableName: name,
  AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' as const }],
  KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' as const }],
  BillingMode: 'PAY_PER_REQUEST' as const,
});

let twin: TwinClients;
before(async () => {
  twin = await startTwinWithClients({ metrics: true });
});
after(async () => {
  await twin.close();
});

test(`the ${TABLES_PER_REGION_MAX + 1}th table is refused with DynamoDB's LimitExceededException`, async () => {
  assert.equal(TABLES_PER_REGION_MAX, 2500);
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < TABLES_PER_REGION_MAX) {
      const name = `quota-${String(next++).padStart(4, '0')}`;
      const response = await callOperation(twin.twin.endpoint, 'CreateTable', JSON.stringify(createInput(name)), agent);
      assert.equal(response.status, 200, response.text);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  agent.destroy();
  const listed = await twin.client.send(new ListTablesCommand({ ExclusiveStartTableName: 'quota-2400' }));
  assert.equal(listed.TableNames?.length, 99);

  await expectDynamoError(twin.client.send(new CreateTableCommand(createInput('one-too-many'))), 'LimitExceededException', 'Subscriber limit exceeded: There is a limit of 2500 tables per subscriber');
  await twin.client.send(new DeleteTableCommand({ TableName: 'quota-0000' }));
  await twin.client.send(new CreateTableCommand(createInput('one-too-many')));
  await expectDynamoError(twin.client.send(new CreateTableCommand(createInput('and-another'))), 'LimitExceededException');

  // The dashboard's table list still answers, with every table.
  const tables = await fetch(`${twin.twin.endpoint}/dynatwin/tables`);
  assert.equal(tables.status, 200);
  assert.equal(((await tables.json()) as { tables: unknown[] }).tables.length, TABLES_PER_REGION_MAX);
});
