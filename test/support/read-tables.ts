/**
 * Tables and items for the Query and Scan suites: a key schema in one line, many items put at
 * once, and the order DynamoDB keeps sort keys in, computed independently of dynatwin's codec.
 */
import { CreateTableCommand, PutItemCommand, type AttributeValue, type DynamoDBClient, type KeySchemaElement } from '@aws-sdk/client-dynamodb';
import { createRequire } from 'node:module';

// decimal.js's ESM build has only a default export while its typings are CommonJS (see src/expressions/update.ts).
const { Decimal } = createRequire(import.meta.url)('decimal.js') as typeof import('decimal.js');

export type Item = Record<string, AttributeValue>;

export interface KeySpec {
  readonly hash: readonly [string, 'S' | 'N' | 'B'];
  readonly range?: readonly [string, 'S' | 'N' | 'B'];
  readonly extraAttributes?: readonly (readonly [string, 'S' | 'N' | 'B'])[];
}

export async function createTable(
  client: DynamoDBClient,
  name: string,
  spec: KeySpec,
  indexes: { gsi?: string; lsi?: string } = {},
): Promise<void> {
  const attributes = [spec.hash, ...(spec.range === undefined ? [] : [spec.range]), ...(spec.extraAttributes ?? [])];
  const keySchema: KeySchemaElement[] = [{ AttributeName: spec.hash[0], KeyType: 'HASH' }];
  if (spec.range !== undefined) keySchema.push({ AttributeName: spec.range[0], KeyType: 'RANGE' });
  const extra = spec.extraAttributes?.[0]?.[0];
  await client.send(
    new CreateTableCommand({
      TableName: name,
      AttributeDefinitions: attributes.map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
      KeySchema: keySchema,
      BillingMode: 'PAY_PER_REQUEST',
      GlobalSecondaryIndexes:
        indexes.gsi === undefined || extra === undefined
          ? undefined
          : [{ IndexName: indexes.gsi, KeySchema: [{ AttributeName: extra, KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
      LocalSecondaryIndexes:
        indexes.lsi === undefined || extra === undefined
          ? undefined
          : [
              {
                IndexName: indexes.lsi,
                KeySchema: [
                  { AttributeName: spec.hash[0], KeyType: 'HASH' },
                  { AttributeName: extra, KeyType: 'RANGE' },
                ],
                Projection: { ProjectionType: 'KEYS_ONLY' },
              },
            ],
    }),
  );
}

/** Puts every item, a bounded number at a time. */
export async function putAll(client: DynamoDBClient, tableName: string, items: readonly Item[], concurrency = 32): Promise<void> {
  for (let index = 0; index < items.length; index += concurrency) {
    const batch = items.slice(index, index + concurrency);
    await Promise.all(batch.map((item) => client.send(new PutItemCommand({ TableName: tableName, Item: item }))));
  }
}

/** DynamoDB's order of two S, N or B values: UTF-8 bytes, numeric value, unsigned bytes. */
export function compareKeyValues(left: AttributeValue, right: AttributeValue): number {
  if (left.N !== undefined && right.N !== undefined) return new Decimal(left.N).comparedTo(new Decimal(right.N));
  if (left.S !== undefined && right.S !== undefined) return Buffer.compare(Buffer.from(left.S, 'utf8'), Buffer.from(right.S, 'utf8'));
  if (left.B !== undefined && right.B !== undefined) return Buffer.compare(Buffer.from(left.B), Buffer.from(right.B));
  throw new Error('compareKeyValues needs two values of one scalar type');
}

/** The text of a key value, to compare result lists readably. */
export function keyText(value: AttributeValue | undefined): string {
  if (value === undefined) return '<missing>';
  if (value.S !== undefined) return value.S;
  // Canonical text, so `1E10` written and `10000000000` read back compare equal.
  if (value.N !== undefined) return new Decimal(value.N).toFixed();
  if (value.B !== undefined) return 'b:' + Buffer.from(value.B).toString('hex');
  return JSON.stringify(value);
}
