/**
 * CreateTable inputs in a line or two, for suites whose tables are the setting of a test rather
 * than its subject: attribute definitions and key schemas from names, GSIs and LSIs from their keys,
 * on-demand tables, and creating tables (several in turn, or one under a unique name).
 */
import assert from 'node:assert/strict';
import {
  CreateTableCommand,
  DescribeTableCommand,
  type AttributeDefinition,
  type CreateTableCommandInput,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
  type KeySchemaElement,
  type LocalSecondaryIndex,
  type ScalarAttributeType,
} from '@aws-sdk/client-dynamodb';
import { uniqueTableName } from './client.js';

/**
 * AttributeDefinitions in the order written: `attributes({ pk: 'S', sk: 'N' })`. (An object keeps
 * its keys' order, except names that read as array indexes, which no table here uses.)
 */
export function attributes(types: Readonly<Record<string, ScalarAttributeType>>): AttributeDefinition[] {
  return Object.entries(types).map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType }));
}

/** A key schema, of a table or an index: `hash`, then `range` when there is one. */
export function keySchema(hash: string, range?: string): KeySchemaElement[] {
  const schema: KeySchemaElement[] = [{ AttributeName: hash, KeyType: 'HASH' }];
  if (range !== undefined) schema.push({ AttributeName: range, KeyType: 'RANGE' });
  return schema;
}

/** A GSI keyed by `hash`, projecting ALL; `extra` replaces any member (a range key, the projection, throughput). */
export function globalIndex(name: string, hash: string, extra: Partial<GlobalSecondaryIndex> = {}): GlobalSecondaryIndex {
  return { IndexName: name, KeySchema: keySchema(hash), Projection: { ProjectionType: 'ALL' }, ...extra };
}

/** An LSI: the table's hash key with `range` as its sort key, projecting ALL unless `extra` says otherwise. */
export function localIndex(name: string, hash: string, range: string, extra: Partial<LocalSecondaryIndex> = {}): LocalSecondaryIndex {
  return { IndexName: name, KeySchema: keySchema(hash, range), Projection: { ProjectionType: 'ALL' }, ...extra };
}

/**
 * An on-demand table keyed by `keys`, hash key first, then the range key if any: `id` S unless
 * told otherwise, e.g. `onDemandTable(name, { pk: 'S', sk: 'N' })`.
 */
export function onDemandTable(name: string, keys: Readonly<Record<string, ScalarAttributeType>> = { id: 'S' }): CreateTableCommandInput {
  const [hash, range, ...more] = Object.keys(keys);
  if (hash === undefined || more.length > 0) throw new Error(`a table has a hash key and at most a range key, not ${Object.keys(keys).join(', ')}`);
  return { TableName: name, AttributeDefinitions: attributes(keys), KeySchema: keySchema(hash, range), BillingMode: 'PAY_PER_REQUEST' };
}

/** Creates the tables one after the other, in the order given. */
export async function createTables(client: DynamoDBClient, ...inputs: readonly CreateTableCommandInput[]): Promise<void> {
  for (const input of inputs) await client.send(new CreateTableCommand(input));
}

/**
 * Creates a table under a name no other test uses (`stem` plus a random suffix), on-demand unless
 * `input` says otherwise, and answers the name: suites sharing one server never collide.
 */
export async function createUniqueTable(client: DynamoDBClient, stem: string, input: Omit<CreateTableCommandInput, 'TableName'>): Promise<string> {
  const name = uniqueTableName(stem);
  await client.send(new CreateTableCommand({ BillingMode: 'PAY_PER_REQUEST', ...input, TableName: name }));
  return name;
}

/** Waits (polling DescribeTable, bounded at a minute) until a GSI added by UpdateTable is ACTIVE. */
export async function waitForIndexActive(client: DynamoDBClient, table: string, index: string): Promise<void> {
  const deadline = Date.now() + 60_000; // a bound on a hang, not a speed test
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    const gsi = Table!.GlobalSecondaryIndexes?.find((candidate) => candidate.IndexName === index);
    if (gsi?.IndexStatus === 'ACTIVE') return;
    assert.ok(Date.now() < deadline, `index ${index} still ${gsi?.IndexStatus}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
