/**
 * A property test of the stream: random mixes of every write path (PutItem, UpdateItem, DeleteItem,
 * conditional writes that fail, BatchWriteItem, TransactWriteItems, PartiQL statements and
 * transactions) on a table with a GSI and an LSI, run one after the other against a model of the
 * table. The stream must hold exactly one record per item change the model saw — none for writes
 * that changed nothing or failed — in commit order, with the model's old and new images.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  ExecuteStatementCommand,
  ExecuteTransactionCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { seededRandom } from './support/random.js';
import { readStream, streamsClient } from './support/streams.js';
import { attributes, globalIndex, keySchema, localIndex } from './support/tables.js';
import { startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

type Item = Record<string, AttributeValue>;

interface Change {
  readonly event: 'INSERT' | 'MODIFY' | 'REMOVE';
  readonly key: string;
  readonly old: Item | undefined;
  readonly next: Item | undefined;
}

const SEEDS = [1, 2, 3];
const OPERATIONS_PER_SEED = 60;

describe('stream property: one record per item change, in commit order', () => {
  let twin: TwinClients;
  let streams: DynamoDBStreamsClient;
  before(async () => {
    twin = await startTwinWithClients();
    streams = streamsClient(twin.twin.endpoint);
  });
  after(async () => {
    streams.destroy();
    await twin.close();
  });

  for (const seed of SEEDS) {
    test(`seed ${seed}`, async () => {
      const random = seededRandom(seed);
      const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
      const name = uniqueTableName('stream-property');
      const created = await twin.client.send(
        new CreateTableCommand({
          TableName: name,
          AttributeDefinitions: attributes({ pk: 'S', sk: 'N', g: 'S', l: 'S' }),
          KeySchema: keySchema('pk', 'sk'),
          GlobalSecondaryIndexes: [globalIndex('byG', 'g')],
          LocalSecondaryIndexes: [localIndex('byL', 'pk', 'l')],
          BillingMode: 'PAY_PER_REQUEST',
          StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
        }),
      );
      const streamArn = created.TableDescription!.LatestStreamArn!;
      const model = new Map<string, Item>();
      const expected: Change[] = [];
      const keyOf = (pk: string, sk: number): string => `${pk}#${sk}`;
      const randomKey = (): { pk: string; sk: number } => ({ pk: pick(['a', 'b', 'c', 'd']), sk: Math.floor(random() * 4) });
      const randomItem = (pk: string, sk: number): Item => {
        const item: Item = { pk: { S: pk }, sk: { N: String(sk) }, v: { N: String(Math.floor(random() * 3)) } };
        if (random() < 0.5) item.g = { S: pick(['x', 'y']) };
        if (random() < 0.5) item.l = { S: pick(['p', 'q']) };
        return item;
      };
      /** Applies a change to the model, recording it unless the image is unchanged. */
      const apply = (pk: string, sk: number, next: Item | undefined): void => {
        const key = keyOf(pk, sk);
        const old = model.get(key);
        if (old === undefined && next === undefined) return;
        if (old !== undefined && next !== undefined && JSON.stringify(sortKeys(old)) === JSON.stringify(sortKeys(next))) return;
        expected.push({ event: old === undefined ? 'INSERT' : next === undefined ? 'REMOVE' : 'MODIFY', key, old, next });
        if (next === undefined) model.delete(key);
        else model.set(key, next);
      };
      const keyAttributes = (pk: string, sk: number): Item => ({ pk: { S: pk }, sk: { N: String(sk) } });

      for (let step = 0; step < OPERATIONS_PER_SEED; step++) {
        const kind = pick(['put', 'update', 'delete', 'failedCondition', 'batch', 'transaction', 'partiql', 'partiqlTransaction'] as const);
        if (kind === 'put') {
          const { pk, sk } = randomKey();
          const item = randomItem(pk, sk);
          await twin.client.send(new PutItemCommand({ TableName: name, Item: item }));
          apply(pk, sk, item);
        } else if (kind === 'update') {
          const { pk, sk } = randomKey();
          const value = String(Math.floor(random() * 3));
          await twin.client.send(new UpdateItemCommand({ TableName: name, Key: keyAttributes(pk, sk), UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { N: value } } }));
          apply(pk, sk, { ...(model.get(keyOf(pk, sk)) ?? keyAttributes(pk, sk)), v: { N: value } });
        } else if (kind === 'delete') {
          const { pk, sk } = randomKey();
          await twin.client.send(new DeleteItemCommand({ TableName: name, Key: keyAttributes(pk, sk) }));
          apply(pk, sk, undefined);
        } else if (kind === 'failedCondition') {
          const { pk, sk } = randomKey();
          await twin.client.send(new PutItemCommand({ TableName: name, Item: randomItem(pk, sk), ConditionExpression: 'v = :never', ExpressionAttributeValues: { ':never': { N: '99' } } })).catch(() => undefined);
        } else if (kind === 'batch') {
          // Distinct keys: a batch may not name one twice.
          const keys = distinctKeys(randomKey, 3);
          const requests = keys.map(({ pk, sk }) => (random() < 0.7 ? { PutRequest: { Item: randomItem(pk, sk) } } : { DeleteRequest: { Key: keyAttributes(pk, sk) } }));
          await twin.client.send(new BatchWriteItemCommand({ RequestItems: { [name]: requests } }));
          requests.forEach((request, index) => apply(keys[index]!.pk, keys[index]!.sk, 'PutRequest' in request ? request.PutRequest!.Item : undefined));
        } else if (kind === 'transaction') {
          const keys = distinctKeys(randomKey, 3);
          const items = keys.map(({ pk, sk }) => randomItem(pk, sk));
          const deleteLast = random() < 0.5;
          await twin.client.send(
            new TransactWriteItemsCommand({
              TransactItems: items.map((item, index) =>
                deleteLast && index === items.length - 1 ? { Delete: { TableName: name, Key: keyAttributes(keys[index]!.pk, keys[index]!.sk) } } : { Put: { TableName: name, Item: item } },
              ),
            }),
          );
          items.forEach((item, index) => apply(keys[index]!.pk, keys[index]!.sk, deleteLast && index === items.length - 1 ? undefined : item));
        } else if (kind === 'partiql') {
          const { pk, sk } = randomKey();
          const value = String(Math.floor(random() * 3));
          if (model.has(keyOf(pk, sk))) {
            await twin.client.send(new ExecuteStatementCommand({ Statement: `UPDATE "${name}" SET v = ${value} WHERE pk = '${pk}' AND sk = ${sk}` }));
            apply(pk, sk, { ...model.get(keyOf(pk, sk))!, v: { N: value } });
          } else {
            await twin.client.send(new ExecuteStatementCommand({ Statement: `INSERT INTO "${name}" VALUE {'pk': '${pk}', 'sk': ${sk}, 'v': ${value}}` }));
            apply(pk, sk, { pk: { S: pk }, sk: { N: String(sk) }, v: { N: value } });
          }
        } else {
          const keys = distinctKeys(randomKey, 2).filter(({ pk, sk }) => model.has(keyOf(pk, sk)));
          if (keys.length === 0) continue;
          await twin.client.send(new ExecuteTransactionCommand({ TransactStatements: keys.map(({ pk, sk }) => ({ Statement: `DELETE FROM "${name}" WHERE pk = '${pk}' AND sk = ${sk}` })) }));
          for (const { pk, sk } of keys) apply(pk, sk, undefined);
        }
      }

      const records = (await readStream(streams, streamArn)).sort((a, b) => (BigInt(a.dynamodb!.SequenceNumber!) < BigInt(b.dynamodb!.SequenceNumber!) ? -1 : 1));
      const actual = records.map((record) => ({
        event: record.eventName,
        key: keyOf(record.dynamodb!.Keys!.pk!.S!, Number(record.dynamodb!.Keys!.sk!.N)),
        old: normalise(record.dynamodb!.OldImage as Item | undefined),
        next: normalise(record.dynamodb!.NewImage as Item | undefined),
      }));
      const wanted = expected.map((change) => ({ event: change.event, key: change.key, old: normalise(change.old), next: normalise(change.next) }));
      // Per key, the same changes in the same order; overall, commit order within each key suffices
      // for a reader, but writes here are sequential, so the whole sequence matches too.
      assert.deepEqual(actual, wanted);
    });
  }
});

function distinctKeys(next: () => { pk: string; sk: number }, count: number): { pk: string; sk: number }[] {
  const seen = new Map<string, { pk: string; sk: number }>();
  for (let tries = 0; seen.size < count && tries < 50; tries++) {
    const key = next();
    seen.set(`${key.pk}#${key.sk}`, key);
  }
  return [...seen.values()];
}

function sortKeys(item: Item): Item {
  return Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function normalise(item: Item | undefined): Item | undefined {
  return item === undefined ? undefined : sortKeys(item);
}
