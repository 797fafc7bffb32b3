/**
 * Test support for backups and point-in-time recovery: a table with a GSI and an LSI, its items,
 * and its contents and index answers in a form tests compare.
 */
import assert from 'node:assert/strict';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DescribeTableCommand,
  QueryCommand,
  ScanCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';

export { seededRandom } from '../../src/model/random.js';

type Item = Record<string, AttributeValue>;

/** A table with a GSI and an LSI, the shapes a restore must rebuild. */
export async function createIndexedTable(client: DynamoDBClient, name: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: name,
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'N' },
        { AttributeName: 'g', AttributeType: 'S' },
        { AttributeName: 'l', AttributeType: 'N' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [{ IndexName: 'byG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } }],
      LocalSecondaryIndexes: [{ IndexName: 'byL', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'l', KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' } }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
}

export const itemOf = (pk: number, sk: number, version: number): Item => ({
  pk: { S: `p${pk}` },
  sk: { N: String(sk) },
  g: { S: `g${(pk + sk) % 3}` },
  l: { N: String(version * 100 + sk) },
  v: { N: String(version) },
});

/** Every item of a table (or of an index), sorted by key text, as comparable JSON. */
export async function contentsOf(client: DynamoDBClient, table: string, indexName?: string): Promise<string[]> {
  const items: string[] = [];
  let start: Item | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: table, IndexName: indexName, ExclusiveStartKey: start }));
    for (const item of page.Items ?? []) items.push(JSON.stringify(Object.keys(item).sort().map((name) => [name, item[name]])));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items.sort();
}

/** What the GSI and the LSI answer to queries, for comparing a restored table with its source. */
export async function indexAnswersOf(client: DynamoDBClient, table: string, partitions: number): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (let g = 0; g < 3; g++) {
    const page = await client.send(new QueryCommand({ TableName: table, IndexName: 'byG', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: `g${g}` } } }));
    answers.push(page.Items);
  }
  for (let p = 0; p < partitions; p++) {
    const page = await client.send(
      new QueryCommand({ TableName: table, IndexName: 'byL', KeyConditionExpression: 'pk = :p AND l > :l', ExpressionAttributeValues: { ':p': { S: `p${p}` }, ':l': { N: '1' } } }),
    );
    answers.push(page.Items);
  }
  return answers;
}

export async function putAll(client: DynamoDBClient, table: string, items: readonly Item[]): Promise<void> {
  for (let at = 0; at < items.length; at += 25) {
    const requests = items.slice(at, at + 25).map((Item) => ({ PutRequest: { Item } }));
    const answer = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
    assert.equal(Object.keys(answer.UnprocessedItems ?? {}).length, 0);
  }
}

export async function statusOf(client: DynamoDBClient, table: string): Promise<string | undefined> {
  return (await client.send(new DescribeTableCommand({ TableName: table }))).Table?.TableStatus;
}

/** Waits (on turns of the event loop, never on time) until a restored table is ACTIVE. */
export async function waitActive(client: DynamoDBClient, table: string): Promise<void> {
  for (let attempt = 0; attempt < 10_000; attempt++) {
    if ((await statusOf(client, table)) === 'ACTIVE') return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail(`${table} never became ACTIVE`);
}
