/**
 * Test support for Application Auto Scaling: an SDK client on a dynatwin endpoint and a
 * provisioned table to scale.
 */
import { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { uniqueTableName } from './client.js';

export function autoScalingClient(endpoint: string): ApplicationAutoScalingClient {
  return new ApplicationAutoScalingClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    maxAttempts: 1,
  });
}

/** A provisioned table `id` S with the given capacity and optional GSI `byGroup` on `group` S (same capacity unless told). */
export async function provisionedTable(
  client: DynamoDBClient,
  stem: string,
  read: number,
  write: number,
  index?: { readonly read: number; readonly write: number },
): Promise<string> {
  const name = uniqueTableName(stem);
  await client.send(
    new CreateTableCommand({
      TableName: name,
      AttributeDefinitions: [
        { AttributeName: 'id', AttributeType: 'S' },
        ...(index === undefined ? [] : [{ AttributeName: 'group', AttributeType: 'S' as const }]),
      ],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PROVISIONED',
      ProvisionedThroughput: { ReadCapacityUnits: read, WriteCapacityUnits: write },
      ...(index === undefined
        ? {}
        : {
            GlobalSecondaryIndexes: [
              {
                IndexName: 'byGroup',
                KeySchema: [{ AttributeName: 'group', KeyType: 'HASH' }],
                Projection: { ProjectionType: 'ALL' },
                ProvisionedThroughput: { ReadCapacityUnits: index.read, WriteCapacityUnits: index.write },
              },
            ],
          }),
    }),
  );
  return name;
}
