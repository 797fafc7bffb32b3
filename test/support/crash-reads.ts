/**
 * The crash tests' table (crash-wal.test.ts, crash-pg.test.ts): made before the load, and read
 * after a restart: the whole table by strongly consistent Scan pages, one group of its GSI keyed
 * on `group` by Query pages.
 */
import { CreateTableCommand, QueryCommand, ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

export type Item = Record<string, AttributeValue>;

/** Every item of `table`, by its string attribute `id`. */
export async function scanTable(client: DynamoDBClient, table: string): Promise<Map<string, Item>> {
  const items = new Map<string, Item>();
  let start: Item | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }));
    for (const item of page.Items ?? []) items.set(item['id']!.S!, item);
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}

/** The entries of `index` (partition key `group`) for one group. */
export async function queryGroup(client: DynamoDBClient, table: string, index: string, group: string): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await client.send(
      new QueryCommand({ TableName: table, IndexName: index, KeyConditionExpression: '#g = :g', ExpressionAttributeNames: { '#g': 'group' }, ExpressionAttributeValues: { ':g': { S: group } }, ExclusiveStartKey: start }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}

/** The table: key `id`, a GSI `index` on `group` (then `id`) projecting everything, a NEW_AND_OLD_IMAGES stream, on demand. */
export async function createCrashTable(client: DynamoDBClient, table: string, index: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: table,
      AttributeDefinitions: [
        { AttributeName: 'id', AttributeType: 'S' },
        { AttributeName: 'group', AttributeType: 'S' },
      ],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: index,
          KeySchema: [
            { AttributeName: 'group', KeyType: 'HASH' },
            { AttributeName: 'id', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
}
