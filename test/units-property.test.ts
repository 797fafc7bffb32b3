/**
 * One counter: a property test over random mixes of every write path (PutItem, UpdateItem,
 * DeleteItem, BatchWriteItem, TransactWriteItems, ExecuteStatement, BatchExecuteStatement,
 * ExecuteTransaction, TTL deletions), on tables with GSIs and an LSI, with throttling on (tiny
 * provisioned throughput, no burst) and off, driven through the real SDK.
 *
 * Per table and per GSI: the units admission admitted (a spy on the engine's capacity recorder),
 * the units the responses' ConsumedCapacity reported, and the Consumed*CapacityUnits metrics read
 * back from GET /dynatwin/metrics are the same numbers. LSI units are admitted on the table (they
 * come out of its capacity) and reported under LocalSecondaryIndexes, so the table's admitted units
 * are its Table units plus its LSIs'. A request that failed admitted nothing, except a write whose
 * condition failed, which consumes units but reports none (DynamoDB's rule, reference §1.4).
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BatchExecuteStatementCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  ExecuteStatementCommand,
  ExecuteTransactionCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTimeToLiveCommand,
  type AttributeValue,
  type Capacity,
  type ConsumedCapacity,
  type DynamoDBClient,
  type TransactWriteItem,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import type { CountedDemand } from '../src/engine/capacity-recorder.js';
import type { ManualClock } from '../src/clock.js';
import { DEFAULT_SERVER_OPTIONS, startServer, type RunningServer } from '../src/server/server.js';
import { rawRequest } from './support/raw.js';
import { seededRandom } from './support/random.js';
import { sdkClient } from './support/client.js';
import { testServerOptions } from './support/test-store.js';

const PROVISIONED = 'units-provisioned';
const ON_DEMAND = 'units-on-demand';
const TABLES = [PROVISIONED, ON_DEMAND] as const;
const GSI = 'byG';
const LSI = 'byL';
const REQUESTS_PER_RUN = 160;

/** Units per resource: `table` or `table/index` (GSIs; an LSI's units are its table's). */
class Ledger {
  readonly units = new Map<string, number>();
  add(resource: string, units: number): void {
    if (units !== 0) this.units.set(resource, (this.units.get(resource) ?? 0) + units);
  }
  get(resource: string): number {
    return this.units.get(resource) ?? 0;
  }
  total(): number {
    let total = 0;
    for (const units of this.units.values()) total += units;
    return total;
  }
}

/** `arn:…:table/<t>` or `arn:…:table/<t>/index/<i>` → `t` or `t/i`. */
function resourceOf(arn: string): string {
  const path = arn.slice(arn.indexOf(':table/') + ':table/'.length);
  return path.replace('/index/', '/');
}

function addConsumed(ledger: Ledger, capacity: ConsumedCapacity | readonly ConsumedCapacity[] | undefined): void {
  if (capacity === undefined) return;
  for (const entry of Array.isArray(capacity) ? capacity : [capacity as ConsumedCapacity]) {
    const table = entry.TableName!;
    assert.ok(entry.Table !== undefined, 'INDEXES answers the Table member');
    const locals: Record<string, Capacity> = entry.LocalSecondaryIndexes ?? {};
    const globals: Record<string, Capacity> = entry.GlobalSecondaryIndexes ?? {};
    let tableUnits = entry.Table.CapacityUnits ?? 0;
    for (const units of Object.values(locals)) tableUnits += units.CapacityUnits ?? 0;
    ledger.add(table, tableUnits);
    for (const [index, units] of Object.entries(globals)) ledger.add(`${table}/${index}`, units.CapacityUnits ?? 0);
    // The parts add up to the entry's total.
    const parts = (entry.Table.CapacityUnits ?? 0) + [...Object.values(locals), ...Object.values(globals)].reduce((sum, units) => sum + (units.CapacityUnits ?? 0), 0);
    assert.equal(entry.CapacityUnits, parts, `${table}: CapacityUnits is the sum of its parts`);
  }
}

interface Run {
  readonly server: RunningServer;
  readonly client: DynamoDBClient;
  readonly clock: ManualClock;
  /** Every admitted demand's units, as the capacity recorder was handed them. */
  readonly admitted: Ledger;
  readonly startMs: number;
}

async function startRun(capacity: 'enforce' | 'off'): Promise<Run> {
  const server = await startServer(testServerOptions({
    ...DEFAULT_SERVER_OPTIONS,
    port: 0,
    inMemory: true,
    clock: 'manual',
    capacity,
    // A short burst bank and no floor under it, so the provisioned table (1 WCU) throttles within a run.
    capacitySettings: { burstBankSecondsMax: 30, burstBankCeilingSecondsMin: 0 },
    log: () => {},
  }));
  const admitted = new Ledger();
  const recorder = server.engine.capacityRecorder;
  const record = recorder.admitted.bind(recorder);
  // A spy on the one place admitted demands are recorded: what admission let through.
  // The recorder is handed a reused list: only its first `count` demands are this request's.
  recorder.admitted = (demands: readonly CountedDemand[], count, nowMs) => {
    for (const demand of demands.slice(0, count)) admitted.add(resourceOf(demand.resource.arn), demand.units);
    record(demands, count, nowMs);
  };
  const client = sdkClient(server.endpoint);
  const clock = server.clock as ManualClock;
  for (const table of TABLES) {
    await client.send(
      new CreateTableCommand({
        TableName: table,
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'N' },
          { AttributeName: 'g', AttributeType: 'S' },
          { AttributeName: 'l', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: GSI,
            KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }],
            Projection: table === PROVISIONED ? { ProjectionType: 'ALL' } : { ProjectionType: 'KEYS_ONLY' },
            ...(table === PROVISIONED ? { ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 2 } } : {}),
          },
        ],
        LocalSecondaryIndexes: [
          {
            IndexName: LSI,
            KeySchema: [
              { AttributeName: 'pk', KeyType: 'HASH' },
              { AttributeName: 'l', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['payload'] },
          },
        ],
        ...(table === PROVISIONED ? { ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } } : { BillingMode: 'PAY_PER_REQUEST' }),
      }),
    );
  }
  await client.send(new UpdateTimeToLiveCommand({ TableName: ON_DEMAND, TimeToLiveSpecification: { Enabled: true, AttributeName: 'exp' } }));
  return { server, client, clock, admitted, startMs: clock.nowMs() };
}

/** Random requests over a few keys per table, so writes overwrite, move index entries and delete. */
class Generator {
  readonly #random: () => number;
  readonly #nowSeconds: () => number;

  constructor(seed: number, nowSeconds: () => number) {
    this.#random = seededRandom(seed);
    this.#nowSeconds = nowSeconds;
  }

  int(max: number): number {
    return Math.floor(this.#random() * max);
  }

  chance(p: number): boolean {
    return this.#random() < p;
  }

  table(): string {
    return TABLES[this.int(TABLES.length)]!;
  }

  key(): { pk: AttributeValue; sk: AttributeValue } {
    return { pk: { S: `p${this.int(4)}` }, sk: { N: String(this.int(6)) } };
  }

  /** Distinct keys (batches and transactions may not name one item twice). */
  keys(count: number): { pk: AttributeValue; sk: AttributeValue }[] {
    const seen = new Map<string, { pk: AttributeValue; sk: AttributeValue }>();
    while (seen.size < count) {
      const key = this.key();
      seen.set(`${key.pk.S}/${key.sk.N}`, key);
    }
    return [...seen.values()];
  }

  item(key: { pk: AttributeValue; sk: AttributeValue }): Record<string, AttributeValue> {
    const item: Record<string, AttributeValue> = { ...key, payload: { S: 'x'.repeat(this.int(3000)) } };
    if (this.chance(0.7)) item.g = { S: `g${this.int(3)}` };
    if (this.chance(0.7)) item.l = { S: `l${this.int(3)}` };
    if (this.chance(0.3)) item.extra = { S: 'y'.repeat(this.int(1500)) };
    // Some items are already expired: a TTL sweep deletes them (a system delete, never charged).
    if (this.chance(0.15)) item.exp = { N: String(this.#nowSeconds() - 10) };
    return item;
  }

  update(): { expression: string; values: Record<string, AttributeValue> | undefined } {
    switch (this.int(4)) {
      case 0:
        return { expression: 'SET payload = :p', values: { ':p': { S: 'z'.repeat(this.int(2500)) } } };
      case 1:
        return { expression: 'SET g = :g', values: { ':g': { S: `g${this.int(3)}` } } };
      case 2:
        return { expression: 'SET l = :l, extra = :o', values: { ':l': { S: `l${this.int(3)}` }, ':o': { S: 'o'.repeat(this.int(900)) } } };
      default:
        return { expression: 'REMOVE g', values: undefined };
    }
  }
}

/** A PartiQL literal for a string. */
const literal = (value: string): string => `'${value}'`;

/** Sends one random request; returns its ConsumedCapacity, or throws its error. */
async function randomRequest(client: DynamoDBClient, gen: Generator, onUnprocessed: () => void): Promise<ConsumedCapacity | ConsumedCapacity[] | undefined> {
  const RCC = 'INDEXES' as const;
  const table = gen.table();
  switch (gen.int(9)) {
    case 0:
    case 1: {
      const output = await client.send(new PutItemCommand({ TableName: table, Item: gen.item(gen.key()), ReturnConsumedCapacity: RCC }));
      return output.ConsumedCapacity;
    }
    case 2: {
      const update = gen.update();
      const output = await client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: gen.key(),
          UpdateExpression: update.expression,
          ...(update.values === undefined ? {} : { ExpressionAttributeValues: update.values }),
          // Sometimes a condition that may fail: it consumes units and reports none.
          ...(gen.chance(0.2) ? { ConditionExpression: 'attribute_exists(pk)' } : {}),
          ReturnConsumedCapacity: RCC,
        }),
      );
      return output.ConsumedCapacity;
    }
    case 3: {
      const output = await client.send(new DeleteItemCommand({ TableName: table, Key: gen.key(), ReturnConsumedCapacity: RCC }));
      return output.ConsumedCapacity;
    }
    case 4: {
      const requests: Record<string, WriteRequest[]> = {};
      for (const key of gen.keys(1 + gen.int(6))) {
        const target = gen.table();
        (requests[target] ??= []).push(gen.chance(0.7) ? { PutRequest: { Item: gen.item(key) } } : { DeleteRequest: { Key: key } });
      }
      // Keys are distinct per table (they are distinct overall).
      const output = await client.send(new BatchWriteItemCommand({ RequestItems: requests, ReturnConsumedCapacity: RCC }));
      if (Object.keys(output.UnprocessedItems ?? {}).length > 0) onUnprocessed();
      return output.ConsumedCapacity;
    }
    case 5: {
      const items: TransactWriteItem[] = gen.keys(1 + gen.int(4)).map((key): TransactWriteItem => {
        switch (gen.int(4)) {
          case 0:
            return { Put: { TableName: table, Item: gen.item(key) } };
          case 1: {
            const update = gen.update();
            return { Update: { TableName: table, Key: key, UpdateExpression: update.expression, ...(update.values === undefined ? {} : { ExpressionAttributeValues: update.values }) } };
          }
          case 2:
            return { Delete: { TableName: table, Key: key } };
          default:
            // Always true: a check is charged as a write of the item it checked.
            return { ConditionCheck: { TableName: table, Key: key, ConditionExpression: 'attribute_not_exists(never)' } };
        }
      });
      const output = await client.send(new TransactWriteItemsCommand({ TransactItems: items, ReturnConsumedCapacity: RCC }));
      return output.ConsumedCapacity;
    }
    case 6: {
      const key = gen.key();
      const where = `pk = ${literal(key.pk.S!)} AND sk = ${key.sk.N}`;
      const statement = gen.chance(0.5)
        ? `UPDATE "${table}" SET payload = ${literal('q'.repeat(gen.int(2000)))} WHERE ${where}`
        : gen.chance(0.5)
          ? `DELETE FROM "${table}" WHERE ${where}`
          : `INSERT INTO "${table}" VALUE {'pk': ${literal(key.pk.S!)}, 'sk': ${key.sk.N}, 'g': 'g1', 'payload': ${literal('i'.repeat(gen.int(1200)))}}`;
      const output = await client.send(new ExecuteStatementCommand({ Statement: statement, ReturnConsumedCapacity: RCC }));
      return output.ConsumedCapacity;
    }
    case 7: {
      const statements = gen.keys(1 + gen.int(3)).map((key) => ({
        Statement: `DELETE FROM "${gen.table()}" WHERE pk = ${literal(key.pk.S!)} AND sk = ${key.sk.N}`,
      }));
      const output = await client.send(new BatchExecuteStatementCommand({ Statements: statements, ReturnConsumedCapacity: RCC }));
      // A statement that fails (a throttle) is reported in its response entry; the rest applied.
      return output.ConsumedCapacity;
    }
    default: {
      const statements = gen.keys(1 + gen.int(3)).map((key) => ({
        Statement: `UPDATE "${table}" SET l = 'l2' WHERE pk = ${literal(key.pk.S!)} AND sk = ${key.sk.N}`,
      }));
      const output = await client.send(new ExecuteTransactionCommand({ TransactStatements: statements, ReturnConsumedCapacity: RCC }));
      return output.ConsumedCapacity;
    }
  }
}

/** The Sum of every datapoint of the run, per table and GSI, of ConsumedWriteCapacityUnits. */
async function consumedMetrics(run: Run): Promise<Ledger> {
  const ledger = new Ledger();
  for (const table of TABLES) {
    for (const index of [undefined, GSI]) {
      const query = `table=${table}${index === undefined ? '' : `&index=${index}`}&metric=ConsumedWriteCapacityUnits&period=60&startMs=${run.startMs - 60_000}&endMs=${run.clock.nowMs() + 120_000}`;
      const response = await rawRequest(run.server.endpoint, { method: 'GET', path: `/dynatwin/metrics?${query}` });
      assert.equal(response.status, 200, response.text);
      const answer = JSON.parse(response.text) as { metrics: { datapoints: { Sum: number }[] }[] };
      for (const metric of answer.metrics) for (const point of metric.datapoints) ledger.add(index === undefined ? table : `${table}/${index}`, point.Sum);
    }
  }
  return ledger;
}

const THROTTLE_ERRORS = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);
const CONDITION_ERRORS = new Set(['ConditionalCheckFailedException', 'DuplicateItemException', 'TransactionCanceledException']);

for (const capacity of ['enforce', 'off'] as const) {
  describe(`admitted = ConsumedCapacity = Consumed* metrics (capacity ${capacity})`, () => {
    const runs: Run[] = [];
    after(async () => {
      for (const run of runs) {
        run.client.destroy();
        await run.server.close();
      }
    });

    for (const seed of [1, 2]) {
      test(`seed ${seed}`, async () => {
        const run = await startRun(capacity);
        runs.push(run);
        const gen = new Generator(seed * 7919 + (capacity === 'off' ? 1 : 0), () => Math.floor(run.clock.nowMs() / 1000));
        const reported = new Ledger();
        const failedAdmitted = new Ledger();
        const outcomes = new Map<string, number>();
        const validationMessages = new Set<string>();
        for (let request = 0; request < REQUESTS_PER_RUN; request++) {
          const before = new Map(run.admitted.units);
          let failure: string | undefined;
          try {
            addConsumed(reported, await randomRequest(run.client, gen, () => outcomes.set('unprocessed', (outcomes.get('unprocessed') ?? 0) + 1)));
          } catch (error) {
            failure = (error as Error).name;
            if (failure === 'ValidationException') validationMessages.add((error as Error).message);
          }
          outcomes.set(failure ?? 'ok', (outcomes.get(failure ?? 'ok') ?? 0) + 1);
          if (failure !== undefined) {
            let admittedByRequest = 0;
            for (const [resource, units] of run.admitted.units) {
              const delta = units - (before.get(resource) ?? 0);
              admittedByRequest += delta;
              failedAdmitted.add(resource, delta);
            }
            if (!CONDITION_ERRORS.has(failure)) assert.equal(admittedByRequest, 0, `a request that failed with ${failure} admitted nothing`);
            if (THROTTLE_ERRORS.has(failure)) assert.equal(capacity, 'enforce');
          }
          // Time passes: throughput refills, TTL sweeps fall due.
          run.clock.advance(gen.int(400));
          if (request % 40 === 39) {
            run.clock.advance(11_000);
            await run.server.engine.ttl.settled();
          }
        }
        await run.server.engine.ttl.settled();
        const metrics = await consumedMetrics(run);
        const resources = new Set([...run.admitted.units.keys(), ...reported.units.keys(), ...metrics.units.keys()]);
        assert.ok(resources.has(`${PROVISIONED}/${GSI}`) && resources.has(ON_DEMAND), `the mix reached tables and GSIs: ${[...resources].join(', ')} ${JSON.stringify([...outcomes])}`);
        for (const resource of resources) {
          assert.equal(run.admitted.get(resource) - failedAdmitted.get(resource), reported.get(resource), `${resource}: admitted (of requests that succeeded) = ConsumedCapacity`);
          assert.equal(metrics.get(resource), run.admitted.get(resource), `${resource}: Consumed* metric = admitted`);
        }
        assert.ok((outcomes.get('ok') ?? 0) > REQUESTS_PER_RUN / 4, `most requests succeed: ${JSON.stringify([...outcomes])}`);
        if (capacity === 'enforce') assert.ok([...outcomes.keys()].some((name) => THROTTLE_ERRORS.has(name) || name === 'unprocessed'), `some requests were throttled: ${JSON.stringify([...outcomes])}`);
        // The generator only builds valid requests but for PartiQL's rules on a missing item.
        assert.deepEqual([...validationMessages].filter((message) => !/item/i.test(message)), []);
      });
    }
  });
}
