/**
 * Throttling through the AWS SDK on a manual clock (issue #8, "What it must show"): seed article
 * 000's two-valued GSI key under BatchWriteItem and its sparse fix; adaptive capacity carrying a hot
 * partition (400 WCU over 4 partitions); burst absorbing 200 RCU/s on a 150 RCU table for 900 s;
 * on-demand's 4,000 writes/s at once and the 2 × previous peak / 30-minute rule; a single hot key
 * held at 1,000 WCU/s; and the answers: exceptions, messages, ThrottlingReasons, UnprocessedKeys,
 * transaction cancellation, nothing consumed by a throttled request, `capacity: 'off'`.
 *
 * Rules: docs/CAPACITY-MODEL.md; reference /work/shared/docs/dynamodb-capacity-model.md §3–§4.
 * Loads carry their units in few requests (25-item batches, 100-key batch reads, UpdateItems of
 * items sized to the units wanted) so a simulated second costs a handful of requests (the article's
 * 80 batches a second aside); requests whose order does not matter go out together. The figures
 * each test measures are printed as test diagnostics.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  BatchGetItemCommand,
  CreateTableCommand,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isThrottlingError } from '@smithy/core/retry';
import {
  ON_DEMAND_INDEX_MESSAGE,
  ON_DEMAND_TABLE_MESSAGE,
  PROVISIONED_TABLE_MESSAGE,
} from '../src/capacity/throttle-errors.js';
import type { ManualClock } from '../src/index.js';
import { hashPartitionKey, keyBytesOf } from '../src/model/key-codec.js';
import { callOperation } from './support/raw.js';
import {
  indexArn,
  KB,
  keysByPartition,
  MINUTE_MS,
  paddingFor,
  partitionOfKey,
  partitionsOf,
  rejection,
  SECOND_MS,
  startManualTwin,
  tableArn,
  within,
  type ManualTwin,
  type PartitionDocument,
} from './support/throttling.js';
import { betterSeedArticleTable, seedArticleTable } from './support/seeds.js';
import { onDemandTable } from './support/tables.js';

/** The article's loop wrote 25-item batches; ~2,000 items/s from the same Region (§8 (a)). */
const ARTICLE_ITEMS_PER_SECOND = 2000;
const BATCH_ITEMS = 25;
/** 80 batches per simulated second, sent 8 at a time every 100 ms (order within a tick does not matter). */
const BATCHES_PER_TICK = 8;
const TICK_MS = (SECOND_MS * BATCH_ITEMS * BATCHES_PER_TICK) / ARTICLE_ITEMS_PER_SECOND;
/**
 * How long the article's load runs. Ten simulated minutes are 48,000 SDK calls of 25 items (~85 s
 * of real time and ~1.5 GB of memory for the items kept), so the default stops once the steady
 * state has held for a whole minute; DYNATWIN_ARTICLE_SECONDS=600 runs the article's ten minutes.
 */
const ARTICLE_SECONDS = Number(process.env['DYNATWIN_ARTICLE_SECONDS'] ?? 150);

/** What a BatchWriteItem load saw: items offered and accepted, and the two forms a throttle takes. */
class BatchLoad {
  offered = 0;
  accepted = 0;
  unprocessedItems = 0;
  /** Batches that came back with some of their items in UnprocessedItems. */
  partialBatches = 0;
  /** Batches of which nothing was written: a ThrottlingException for the whole call. */
  throttledBatches = 0;
  firstThrottle: { second: number; offeredItems: number; acceptedItems: number } | undefined;
  firstError: (Error & Record<string, unknown>) | undefined;
  readonly acceptedBySecond: number[] = [];
  readonly #startMs: number;

  constructor(
    private readonly documentClient: DynamoDBDocumentClient,
    private readonly clock: ManualClock,
    private readonly tableName: string,
    private readonly makeItem: () => Record<string, string>,
  ) {
    this.#startMs = clock.nowMs();
  }

  /** Seconds since the load began. */
  get elapsedSeconds(): number {
    return (this.clock.nowMs() - this.#startMs) / SECOND_MS;
  }

  /** Runs the article's rate for `seconds` more simulated seconds. */
  async run(seconds: number): Promise<void> {
    const ticks = Math.round((seconds * SECOND_MS) / TICK_MS);
    for (let tick = 0; tick < ticks; tick++) {
      const calls: Promise<void>[] = [];
      for (let at = 0; at < BATCHES_PER_TICK; at++) calls.push(this.#batch());
      await Promise.all(calls);
      this.clock.advance(TICK_MS);
    }
  }

  /**
   * Takes what the GSI backlog drained since the last tick, at the current instant and outside the
   * load's figures, so that a request sent next is refused. Returns the items written.
   */
  async exhaust(): Promise<number> {
    for (let written = 0; ; written += BATCH_ITEMS) {
      const items = Array.from({ length: BATCH_ITEMS }, () => ({ PutRequest: { Item: this.makeItem() } }));
      try {
        const response = await this.documentClient.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: items } }));
        const refused = response.UnprocessedItems?.[this.tableName]?.length ?? 0;
        if (refused > 0) return written + BATCH_ITEMS - refused;
      } catch (error) {
        assert.ok(error instanceof Error && error.name === 'ThrottlingException', String(error));
        return written;
      }
    }
  }

  /** Items accepted per second over [fromSecond, toSecond). */
  acceptedRate(fromSecond: number, toSecond: number): number {
    let sum = 0;
    for (let second = fromSecond; second < toSecond; second++) sum += this.acceptedBySecond[second] ?? 0;
    return sum / (toSecond - fromSecond);
  }

  async #batch(): Promise<void> {
    const second = Math.floor(this.elapsedSeconds);
    const items = Array.from({ length: BATCH_ITEMS }, () => ({ PutRequest: { Item: this.makeItem() } }));
    this.offered += items.length;
    const offeredItems = this.offered;
    let refused: number;
    try {
      const response = await this.documentClient.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: items } }));
      refused = response.UnprocessedItems?.[this.tableName]?.length ?? 0;
      if (refused > 0) this.partialBatches++;
    } catch (error) {
      assert.ok(error instanceof Error && error.name === 'ThrottlingException', `a whole batch fails only as a throttle: ${String(error)}`);
      this.firstError ??= error as Error & Record<string, unknown>;
      this.throttledBatches++;
      refused = items.length;
    }
    this.unprocessedItems += refused;
    this.accepted += items.length - refused;
    this.acceptedBySecond[second] = (this.acceptedBySecond[second] ?? 0) + items.length - refused;
    if (refused > 0) this.firstThrottle ??= { second: this.elapsedSeconds, offeredItems, acceptedItems: this.accepted };
  }
}

function newUnusedItem(): Record<string, string> {
  return { id: randomUUID(), status: 'UN_USED' };
}

function newSparseItem(): Record<string, string> {
  const id = randomUUID();
  return { id, unUsedId: id };
}

describe('seed article 000: a two-valued GSI key under BatchWriteItem at 2,000 items/s', () => {
  test('table-def.json: all index writes on one GSI partition; after the backlog fills, 1,000 items/s are accepted and the rest refused naming the GSI', async (t) => {
    const twin = await startManualTwin();
    try {
      await twin.client.send(new CreateTableCommand(seedArticleTable()));
      const load = new BatchLoad(twin.documentClient, twin.clock, 'test', newUnusedItem);

      // Until the first throttle: the GSI partition of "UN_USED" drains 1,000 units/s while
      // 2,000 arrive, so its backlog passes the 80,000-unit bound after ~80 s (~160k items).
      await load.run(90);
      const first = load.firstThrottle;
      assert.ok(first !== undefined, 'the load is throttled within 90 s');
      t.diagnostic(`first throttle at simulated second ${first.second.toFixed(1)}, batch ending at item ${first.offeredItems} (${first.acceptedItems} accepted by then)`);
      assert.ok(first.second >= 75 && first.second <= 85, `first throttle at ${first.second} s`);
      assert.ok(first.offeredItems >= 150_000 && first.offeredItems <= 170_000, `first throttle after ${first.offeredItems} items (article: ~160k)`);

      // A whole-batch throttle names the GSI: ThrottlingException, the on-demand GSI message,
      // throttlingReasons [{IndexWriteKeyRangeThroughputExceeded, …/index/gsi-status}].
      const error = load.firstError;
      assert.ok(error !== undefined, 'some batches were refused whole');
      assert.equal(error.name, 'ThrottlingException');
      assert.equal(error.message, ON_DEMAND_INDEX_MESSAGE);
      assert.deepEqual(error['throttlingReasons'], [{ reason: 'IndexWriteKeyRangeThroughputExceeded', resource: indexArn('test', 'gsi-status') }]);
      assert.ok(isThrottlingError(error as never), 'the SDK classifies it as a throttle');

      // The same answer as the bytes on the wire (a base-table PutItem refused by back-pressure).
      await load.exhaust();
      const raw = await callOperation(twin.twin.endpoint, 'PutItem', JSON.stringify({ TableName: 'test', Item: { id: { S: 'raw' }, status: { S: 'UN_USED' } } }));
      assert.equal(raw.status, 400);
      assert.deepEqual(JSON.parse(raw.text), {
        __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
        message: ON_DEMAND_INDEX_MESSAGE,
        throttlingReasons: [{ reason: 'IndexWriteKeyRangeThroughputExceeded', resource: indexArn('test', 'gsi-status') }],
      });
      // A write the GSI does not even index is refused too (back-pressure holds every write).
      const unindexed = await callOperation(twin.twin.endpoint, 'PutItem', JSON.stringify({ TableName: 'test', Item: { id: { S: 'no-status' } } }));
      assert.equal(unindexed.status, 400);
      assert.match(unindexed.text, /IndexWriteKeyRangeThroughputExceeded/);

      // A transaction on the held-back table is cancelled with ThrottlingError at its position.
      const cancelled = await rejection(
        twin.client.send(
          new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: 'test', Item: { id: { S: 'tx-1' }, status: { S: 'USED' } } } }] }),
        ),
      );
      assert.equal(cancelled.name, 'TransactionCanceledException');
      assert.deepEqual(cancelled['CancellationReasons'], [{ Code: 'ThrottlingError', Message: ON_DEMAND_INDEX_MESSAGE }]);

      // The SDK with its default retries classifies the answer as a throttle and retries it
      // (after a real-time backoff); a retry that comes once the backlog has drained a second's
      // worth succeeds. The server counted the refused first attempt on the GSI partition.
      const retrying = twin.defaultRetryClient();
      let attempts = 0;
      retrying.middlewareStack.add(
        (next) => async (args) => {
          if (attempts++ > 0) twin.clock.advance(SECOND_MS);
          return next(args);
        },
        { step: 'deserialize', name: 'advanceClockBeforeRetry' },
      );
      const gsiBefore = gsiPartitionOfStatus(await partitionsOf(twin.twin.endpoint, 'test'), 'UN_USED');
      const succeeded = await retrying.send(new PutItemCommand({ TableName: 'test', Item: { id: { S: 'retried' }, status: { S: 'UN_USED' } } }));
      t.diagnostic(`default retries: succeeded after ${succeeded.$metadata.attempts} attempts, ${succeeded.$metadata.totalRetryDelay} ms of backoff`);
      assert.equal(succeeded.$metadata.attempts, 2);
      assert.ok(succeeded.$metadata.totalRetryDelay! > 0, 'the SDK backed off before retrying');
      const gsiAfter = gsiPartitionOfStatus(await partitionsOf(twin.twin.endpoint, 'test'), 'UN_USED');
      assert.equal(gsiAfter.writeThrottleEvents - gsiBefore.writeThrottleEvents, 1, 'the first attempt reached the server and was refused');

      // The steady state: 1,000 items/s accepted (the GSI partition's ceiling), measured over
      // the later seconds (from 92 s: the checks above took what drained in seconds 90-91), and
      // the rest refused.
      await load.run(ARTICLE_SECONDS - load.elapsedSeconds);
      const fromSecond = 92;
      const toSecond = Math.floor(load.elapsedSeconds);
      const rate = load.acceptedRate(fromSecond, toSecond);
      t.diagnostic(
        `offered ${load.offered} items in ${toSecond} s; accepted ${load.accepted}; unprocessed ${load.unprocessedItems} ` +
          `(${load.partialBatches} partial batches, ${load.throttledBatches} whole-batch ThrottlingExceptions); ` +
          `accepted ${rate.toFixed(1)} items/s over seconds ${fromSecond}-${toSecond}`,
      );
      assert.ok(within(rate, 1000, 0.02), `accepted ${rate} items/s, expected 1,000 within 2%`);
      // Eight batches land together every 100 ms and the backlog drains 100 units in between: four
      // batches fit, the other four are refused whole. (The article's one-at-a-time loop would see
      // ~12 of every 25 items come back in UnprocessedItems instead.)
      assert.ok(load.throttledBatches > 0);
      assert.equal(load.offered, load.accepted + load.unprocessedItems);

      const document = await partitionsOf(twin.twin.endpoint, 'test');
      const gsi = gsiPartitionOfStatus(document, 'UN_USED');
      t.diagnostic(`GSI partition ${gsi.id}: ${gsi.consumedWriteUnitsLastMinute} units in the last minute, backlog ${gsi.backlogWriteUnits.toFixed(0)}, ${gsi.writeThrottleEvents} throttle events`);
      assert.ok(within(gsi.consumedWriteUnitsLastMinute, 60_000, 0.02), 'the GSI partition serves its ceiling');
      assert.ok(within(gsi.backlogWriteUnits, 80_000, 0.01), 'its backlog sits at the bound');
      assert.ok(gsi.writeThrottleEvents > 0);
      const tableMinute = document.partitions.reduce((sum, partition) => sum + partition.consumedWriteUnitsLastMinute, 0);
      assert.ok(within(tableMinute, 60_000, 0.02), `the table consumed ${tableMinute} units in the last minute`);
      for (const partition of document.partitions) assert.equal(partition.writeThrottleEvents, 0, 'the table partitions never refused on their own');
    } finally {
      await twin.close();
    }
  });

  test('better-table-def.json (sparse, one GSI key per item): the same load is never throttled', async (t) => {
    const twin = await startManualTwin();
    try {
      await twin.client.send(new CreateTableCommand(betterSeedArticleTable()));
      const load = new BatchLoad(twin.documentClient, twin.clock, 'better-table', newSparseItem);
      // Past the point where the two-valued design throttled (~81 s, ~162k items).
      await load.run(90);
      t.diagnostic(`offered ${load.offered} items in 90 s; accepted ${load.accepted}; unprocessed ${load.unprocessedItems}`);
      assert.equal(load.unprocessedItems, 0);
      assert.equal(load.firstThrottle, undefined);
      assert.equal(load.accepted, 180_000);
      const document = await partitionsOf(twin.twin.endpoint, 'better-table');
      const gsi = document.indexes['gsi-un-used-id']!.partitions;
      t.diagnostic(`GSI partitions, units in the last minute: ${gsi.map((partition) => partition.consumedWriteUnitsLastMinute).join(', ')}`);
      assert.equal(gsi.reduce((sum, partition) => sum + partition.consumedWriteUnitsLastMinute, 0), 120_000, 'every index write applied as it came');
      for (const partition of gsi) {
        assert.equal(partition.writeThrottleEvents, 0);
        assert.ok(partition.consumedWriteUnitsLastMinute < 60_000 * 0.6, `GSI partition ${partition.id} far under its ceiling`);
        assert.ok(partition.backlogWriteUnits < 1000, `GSI partition ${partition.id} keeps up (backlog ${partition.backlogWriteUnits})`);
      }
    } finally {
      await twin.close();
    }
  });
});

function gsiPartitionOfStatus(document: { readonly indexes: Readonly<Record<string, { readonly partitions: readonly PartitionDocument[] }>> }, status: string): PartitionDocument {
  return partitionOfKey(document.indexes['gsi-status']!.partitions, status);
}

// ---------------------------------------------------------------------------------------------
// Loads that carry their units in a few UpdateItems per simulated second.
// ---------------------------------------------------------------------------------------------

/** Puts an item of `units` write units (about units KB) with a counter `n` UpdateItem can add to. */
async function putSized(client: DynamoDBClient, table: string, id: string, units: number): Promise<void> {
  const response = await client.send(
    new PutItemCommand({
      TableName: table,
      Item: { id: { S: id }, pad: { S: paddingFor(units, 'id', id) }, n: { N: '0' } },
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  assert.equal(response.ConsumedCapacity?.CapacityUnits, units, `item ${id} costs ${units} write units`);
}

/** What a load of UpdateItems saw, in units per second of the load. */
class UnitLoad {
  readonly admittedBySecond: number[] = [];
  readonly refusedBySecond: number[] = [];
  refusedRequests = 0;
  firstError: (Error & Record<string, unknown>) | undefined;
  #second = 0;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly clock: ManualClock,
    private readonly table: string,
    private readonly unitsPerRequest: number,
  ) {}

  /** For `seconds` simulated seconds, one UpdateItem per entry of `keys` (all at once), then one second on. */
  async run(keys: readonly string[], seconds: number): Promise<void> {
    for (let step = 0; step < seconds; step++) {
      const second = this.#second++;
      this.admittedBySecond[second] = 0;
      this.refusedBySecond[second] = 0;
      await Promise.all(keys.map((key) => this.#update(key, second)));
      this.clock.advance(SECOND_MS);
    }
  }

  /** Admitted units per second over [fromSecond, toSecond) of this load's seconds. */
  admittedRate(fromSecond: number, toSecond: number): number {
    let sum = 0;
    for (let second = fromSecond; second < toSecond; second++) sum += this.admittedBySecond[second]!;
    return sum / (toSecond - fromSecond);
  }

  async #update(key: string, second: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.table,
          Key: { id: { S: key } },
          UpdateExpression: 'ADD n :one',
          ExpressionAttributeValues: { ':one': { N: '1' } },
        }),
      );
      this.admittedBySecond[second]! += this.unitsPerRequest;
    } catch (error) {
      assert.ok(
        error instanceof Error && (error.name === 'ProvisionedThroughputExceededException' || error.name === 'ThrottlingException'),
        `only throttles are expected: ${String(error)}`,
      );
      this.firstError ??= error as Error & Record<string, unknown>;
      this.refusedRequests++;
      this.refusedBySecond[second]! += this.unitsPerRequest;
    }
  }
}

function provisionedTable(name: string, readUnits: number, writeUnits: number): CreateTableCommandInput {
  return {
    TableName: name,
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    BillingMode: 'PROVISIONED',
    ProvisionedThroughput: { ReadCapacityUnits: readUnits, WriteCapacityUnits: writeUnits },
  };
}

/** `count` copies of each key, flattened: one request per copy. */
function repeatEach(keys: readonly string[], count: number): string[] {
  return keys.flatMap((key) => Array.from({ length: count }, () => key));
}

// ---------------------------------------------------------------------------------------------
// Adaptive capacity (§4.2): AWS's example.
// ---------------------------------------------------------------------------------------------

test('adaptive capacity: 400 WCU on 4 partitions, three at 50 WCU/s and one at 150 WCU/s for 21 minutes: the hot one spends its burst, then borrows, never throttled', async (t) => {
  // classic: ceil(9,000 / 3,000 + 400 / 1,000) = ceil(3.4) = 4 partitions of 100 WCU each. The
  // classic model is the pre-adaptive era (adaptive capacity off by default): turned on here.
  const twin = await startManualTwin({ partitionModel: 'classic', capacitySettings: { adaptiveCapacity: 'on' } });
  try {
    await twin.client.send(new CreateTableCommand(provisionedTable('adaptive', 9000, 400)));
    const before = await partitionsOf(twin.twin.endpoint, 'adaptive');
    assert.equal(before.partitions.length, 4);
    for (const partition of before.partitions) assert.equal(partition.writeUnitsPerSecond, 100);
    const [hotKey, ...coldKeys] = keysByPartition(before.partitions, 1, 'item-').map((keys) => keys[0]!);
    const UNITS = 50;
    for (const key of [hotKey!, ...coldKeys]) await putSized(twin.client, 'adaptive', key, UNITS);
    twin.clock.advance(SECOND_MS);
    const hotId = partitionOfKey(before.partitions, hotKey!).id;

    const load = new UnitLoad(twin.client, twin.clock, 'adaptive', UNITS);
    // Each second: 50 WCU on each cold partition, 150 WCU on the hot one.
    const perSecond = [...coldKeys, ...repeatEach([hotKey!], 3)];
    const snapshots: PartitionDocument[] = [];
    for (let minute = 0; minute < 21; minute++) {
      await load.run(perSecond, 60);
      snapshots.push((await partitionsOf(twin.twin.endpoint, 'adaptive')).partitions.find((partition) => partition.id === hotId)!);
    }
    t.diagnostic(
      'hot partition, end of each minute: burst ' + snapshots.map((snapshot) => snapshot.burstWriteUnits.toFixed(0)).join(', ') +
        `; consumed in the last minute ${snapshots.at(-1)!.consumedWriteUnitsLastMinute}; throttle events ${snapshots.at(-1)!.writeThrottleEvents}`,
    );
    assert.equal(load.refusedRequests, 0, 'never throttled');
    // Burst: 30,000 banked units, spent at 50/s: half gone after 5 minutes, all after 10.
    assert.ok(within(snapshots[4]!.burstWriteUnits, 30_000 - 300 * 50, 0.02), `burst after 5 min: ${snapshots[4]!.burstWriteUnits}`);
    // (Read a second after the last request: one second of allocation, 100, is back in the bank.)
    assert.ok(snapshots[9]!.burstWriteUnits <= 100, `burst spent after 10 min: ${snapshots[9]!.burstWriteUnits}`);
    // Adaptive: from then on the partition consumes 150/s on a 100/s allocation with an empty
    // bank — 3,000 units a minute come from the table's unused throughput.
    for (const snapshot of snapshots.slice(10)) {
      assert.ok(snapshot.burstWriteUnits <= 100);
      assert.equal(snapshot.consumedWriteUnitsLastMinute, 150 * 60);
      assert.equal(snapshot.writeThrottleEvents, 0);
    }
    assert.equal(load.admittedRate(10 * 60, 21 * 60), 300, 'the table serves all 300 WCU/s');
    const after = await partitionsOf(twin.twin.endpoint, 'adaptive');
    for (const partition of after.partitions) {
      assert.equal(partition.writeThrottleEvents, 0);
      if (partition.id !== hotId) {
        assert.equal(partition.consumedWriteUnitsLastMinute, 50 * 60);
        assert.equal(partition.burstWriteUnits, 30_000, 'a cold partition keeps a full bank');
      }
    }
  } finally {
    await twin.close();
  }
});

// ---------------------------------------------------------------------------------------------
// Burst capacity (§4.1): the Knowledge Center example.
// ---------------------------------------------------------------------------------------------

test('burst: a 150 RCU table (1 partition) idle for 5 minutes absorbs 200 RCU/s for 900 s, then serves 150 RCU/s', async (t) => {
  const twin = await startManualTwin();
  try {
    await twin.client.send(new CreateTableCommand(provisionedTable('burst', 150, 150)));
    const keys = Array.from({ length: 200 }, (_, n) => `r${n}`);
    for (let at = 0; at < keys.length; at += BATCH_ITEMS) {
      const items = keys.slice(at, at + BATCH_ITEMS).map((id) => ({ PutRequest: { Item: { id, payload: 'a small item: one read unit per strongly consistent read' } } }));
      const response = await twin.documentClient.send(new BatchWriteCommand({ RequestItems: { burst: items } }));
      assert.deepEqual(response.UnprocessedItems, {});
    }
    twin.clock.advance(5 * MINUTE_MS);
    const idle = await partitionsOf(twin.twin.endpoint, 'burst');
    assert.equal(idle.partitions.length, 1);
    assert.equal(idle.partitions[0]!.readUnitsPerSecond, 150);
    assert.equal(idle.partitions[0]!.burstReadUnits, 45_000, '150 RCU × 300 s banked');

    // 200 strongly consistent reads of ≤ 4 KB items per second: two 100-key BatchGetItems, each
    // key admitted as the GetItem it stands for (1 RCU).
    const halves = [keys.slice(0, 100), keys.slice(100)];
    const readBySecond: number[] = [];
    let firstThrottleSecond: number | undefined;
    const SECONDS = 960;
    for (let second = 0; second < SECONDS; second++) {
      if (second > 0) twin.clock.advance(SECOND_MS);
      const results = await Promise.all(
        halves.map(async (half) => {
          const response = await twin.client.send(
            new BatchGetItemCommand({
              RequestItems: { burst: { Keys: half.map((id) => ({ id: { S: id } })), ConsistentRead: true } },
              ReturnConsumedCapacity: second === 0 ? 'TOTAL' : 'NONE',
            }),
          );
          if (second === 0) assert.equal(response.ConsumedCapacity?.[0]?.CapacityUnits, 100, '1 RCU per key');
          const unprocessed = response.UnprocessedKeys?.['burst']?.Keys?.length ?? 0;
          assert.equal(response.Responses!['burst']!.length + unprocessed, 100);
          return response.Responses!['burst']!.length;
        }),
      );
      readBySecond[second] = results[0]! + results[1]!;
      if (readBySecond[second]! < 200) firstThrottleSecond ??= second;
    }
    const absorbed = readBySecond.slice(0, firstThrottleSecond).reduce((sum, reads) => sum + reads, 0);
    const afterRate = readBySecond.slice(firstThrottleSecond! + 2).reduce((sum, reads) => sum + reads, 0) / (SECONDS - firstThrottleSecond! - 2);
    t.diagnostic(`200 RCU/s absorbed for ${firstThrottleSecond} s (${absorbed} reads); then ${afterRate.toFixed(1)} reads/s`);
    assert.ok(firstThrottleSecond !== undefined && within(firstThrottleSecond, 900, 0.02), `absorbed for ${firstThrottleSecond} s, expected 900 within 2%`);
    assert.ok(within(afterRate, 150, 0.02), `then ${afterRate} reads/s`);

    // A GetItem in the same second is throttled: the table is over its provisioned rate.
    const error = await rejection(twin.client.send(new GetItemCommand({ TableName: 'burst', Key: { id: { S: 'r0' } }, ConsistentRead: true })));
    assert.equal(error.name, 'ProvisionedThroughputExceededException');
    assert.equal(error.message, PROVISIONED_TABLE_MESSAGE);
    assert.deepEqual(error['ThrottlingReasons'], [{ reason: 'TableReadProvisionedThroughputExceeded', resource: tableArn('burst') }]);
    twin.clock.advance(SECOND_MS);
    const spent = (await partitionsOf(twin.twin.endpoint, 'burst')).partitions[0]!;
    assert.ok(spent.burstReadUnits <= 150, `bank spent: ${spent.burstReadUnits}`);
    assert.equal(spent.consumedReadUnitsLastMinute, 150 * 60);
    assert.ok(spent.readThrottleEvents > 0);
  } finally {
    await twin.close();
  }
});

// ---------------------------------------------------------------------------------------------
// On-demand (§4.3): 4,000 writes/s at once; 2 × the previous peak; the 30-minute rule.
// ---------------------------------------------------------------------------------------------

describe('on-demand', () => {
  test('a new table takes 4,000 writes/s of 1 KB items at once (spread over its 4 partitions), and no more than 4,000 in a second', async (t) => {
    const twin = await startManualTwin();
    try {
      await twin.client.send(new CreateTableCommand(onDemandTable('od-new')));
      const document = await partitionsOf(twin.twin.endpoint, 'od-new');
      assert.equal(document.partitions.length, 4);
      for (const partition of document.partitions) assert.equal(partition.writeUnitsPerSecond, 1000);
      const SECONDS = 10;
      const TICKS_PER_SECOND = 10;
      // 100 new keys per partition per 100 ms tick, plus a second and a quarter more for the last check.
      const perPartitionPerTick = 1000 / TICKS_PER_SECOND;
      const keys = keysByPartition(document.partitions, perPartitionPerTick * SECONDS * TICKS_PER_SECOND + 1250, 'w-');
      const item = (id: string): Record<string, string> => ({ id, pad: 'x'.repeat(KB - 'id'.length - id.length - 'pad'.length) });
      let cursor = 0;
      /** One tick: `perPartition` new items on every partition, in 25-item batches sent at once. */
      const tick = async (perPartition: number): Promise<{ accepted: number; refused: number; error?: Error & Record<string, unknown> }> => {
        const ids: string[] = [];
        for (let at = 0; at < perPartition; at++) for (const partitionKeys of keys) ids.push(partitionKeys[cursor + at]!);
        cursor += perPartition;
        const batches: string[][] = [];
        for (let at = 0; at < ids.length; at += BATCH_ITEMS) batches.push(ids.slice(at, at + BATCH_ITEMS));
        const outcome: { accepted: number; refused: number; error?: Error & Record<string, unknown> } = { accepted: 0, refused: 0 };
        await Promise.all(
          batches.map(async (batch) => {
            try {
              const response = await twin.documentClient.send(new BatchWriteCommand({ RequestItems: { 'od-new': batch.map((id) => ({ PutRequest: { Item: item(id) } })) } }));
              const refused = response.UnprocessedItems?.['od-new']?.length ?? 0;
              outcome.accepted += batch.length - refused;
              outcome.refused += refused;
            } catch (error) {
              assert.ok(error instanceof Error && error.name === 'ThrottlingException', String(error));
              outcome.error ??= error as Error & Record<string, unknown>;
              outcome.refused += batch.length;
            }
          }),
        );
        twin.clock.advance(SECOND_MS / TICKS_PER_SECOND);
        return outcome;
      };
      let accepted = 0;
      for (let at = 0; at < SECONDS * TICKS_PER_SECOND; at++) {
        const outcome = await tick(perPartitionPerTick);
        assert.equal(outcome.refused, 0, `tick ${at}: nothing refused`);
        accepted += outcome.accepted;
      }
      assert.equal(accepted, 4000 * SECONDS);
      const loaded = await partitionsOf(twin.twin.endpoint, 'od-new');
      t.diagnostic(`4,000 writes/s for ${SECONDS} s: ${accepted} accepted; per partition last second ${loaded.partitions.map((p) => p.consumedWriteUnitsLastSecond).join(', ')}`);
      for (const partition of loaded.partitions) {
        assert.equal(partition.consumedWriteUnitsLastSecond, 1000);
        assert.equal(partition.writeThrottleEvents, 0);
      }
      // 5,000 items in one instant: the 1-second buckets (twice the peak, the partition ceilings)
      // let 4,000 through; the rest is refused (UnprocessedItems, or whole batches).
      const over = await tick(1250);
      t.diagnostic(`5,000 items at once: ${over.accepted} accepted, ${over.refused} refused`);
      assert.equal(over.accepted, 4000);
      assert.equal(over.refused, 1000);
      const error = over.error!;
      assert.equal(error.message, ON_DEMAND_TABLE_MESSAGE);
      assert.deepEqual(error['throttlingReasons'], [{ reason: 'TableWriteKeyRangeThroughputExceeded', resource: tableArn('od-new') }]);
    } finally {
      await twin.close();
    }
  });

  test('twice the previous peak at once; a jump past it within 30 minutes throttles; growth spaced 30 minutes apart does not', async (t) => {
    // A table switched from 60,000 RCU / 4,000 WCU keeps its 20 partitions (modern:
    // 60,000 / 3,000), so partition ceilings (20 × 1,000 WRU/s) stay out of the way; its write peak
    // starts at max(2,000, 4,000 / 2) = 2,000, like a new table's: 4,000 WRU/s at once.
    const twin = await startManualTwin();
    try {
      await twin.client.send(new CreateTableCommand(provisionedTable('od-grown', 60_000, 4000)));
      const provisioned = await partitionsOf(twin.twin.endpoint, 'od-grown');
      assert.equal(provisioned.partitions.length, 20);
      const keys = keysByPartition(provisioned.partitions, 1, 'big-').map((partitionKeys) => partitionKeys[0]!);
      const UNITS = 200;
      for (const key of keys) await putSized(twin.client, 'od-grown', key, UNITS);
      await twin.client.send(new UpdateTableCommand({ TableName: 'od-grown', BillingMode: 'PAY_PER_REQUEST' }));
      const onDemand = await partitionsOf(twin.twin.endpoint, 'od-grown');
      assert.equal(onDemand.partitions.length, 20);
      for (const partition of onDemand.partitions) assert.equal(partition.writeUnitsPerSecond, 1000);
      twin.clock.advance(SECOND_MS);

      /** `rate` WRU/s spread evenly over the 20 partitions (200-unit updates) for `seconds`. */
      const runAt = async (rate: number, seconds: number): Promise<UnitLoad> => {
        const load = new UnitLoad(twin.client, twin.clock, 'od-grown', UNITS);
        await load.run(repeatEach(keys, rate / UNITS / keys.length), seconds);
        return load;
      };
      const advanceTo = (ms: number): void => {
        twin.clock.advance(ms - twin.clock.nowMs());
      };
      const figures: string[] = [];

      // 4,000 WRU/s (twice the initial peak) at once, sustained for a minute: the new level.
      const level1At = twin.clock.nowMs();
      const level1 = await runAt(4000, 61);
      assert.equal(level1.refusedRequests, 0, '4,000 WRU/s at once');
      figures.push(`4,000/s at t=0: ${level1.admittedRate(0, 61)}/s admitted`);

      // Twice that (8,000) within 30 minutes: still held at 2 × the old peak, 4,000/s.
      for (const minutes of [10, 28]) {
        advanceTo(level1At + minutes * MINUTE_MS);
        const jump = await runAt(8000, 3);
        const admitted = jump.admittedRate(0, 3);
        figures.push(`8,000/s offered at +${minutes} min: ${admitted}/s admitted`);
        assert.equal(admitted, 4000);
        const error = jump.firstError!;
        assert.equal(error.name, 'ThrottlingException');
        assert.equal(error.message, ON_DEMAND_TABLE_MESSAGE);
        assert.deepEqual(error['throttlingReasons'], [{ reason: 'TableWriteKeyRangeThroughputExceeded', resource: tableArn('od-grown') }]);
      }

      // 31 minutes after the 4,000 level began it is the previous peak: 8,000 WRU/s at once.
      const level2At = level1At + 31 * MINUTE_MS;
      advanceTo(level2At);
      const level2 = await runAt(8000, 61);
      figures.push(`8,000/s at +31 min: ${level2.admittedRate(0, 61)}/s admitted, ${level2.refusedRequests} refused`);
      assert.equal(level2.refusedRequests, 0, 'a doubling 31 minutes later is not throttled');

      // And again: 16,000 is throttled 10 minutes later, admitted 31 minutes later.
      advanceTo(level2At + 10 * MINUTE_MS);
      const early = await runAt(16_000, 3);
      figures.push(`16,000/s offered at +41 min: ${early.admittedRate(0, 3)}/s admitted`);
      assert.equal(early.admittedRate(0, 3), 8000);
      advanceTo(level2At + 31 * MINUTE_MS);
      const level3 = await runAt(16_000, 5);
      figures.push(`16,000/s at +62 min: ${level3.admittedRate(0, 5)}/s admitted, ${level3.refusedRequests} refused`);
      assert.equal(level3.refusedRequests, 0, 'the second doubling 31 minutes later is not throttled');
      t.diagnostic(figures.join('; '));
    } finally {
      await twin.close();
    }
  });
});

test('a new on-demand table splits for its sustained peak: 4,000 WRU/s on 4 partitions, then 8,000 WRU/s on 8 once the peak is 30 minutes old', async (t) => {
  const twin = await startManualTwin();
  try {
    await twin.client.send(new CreateTableCommand(onDemandTable('od-split')));
    assert.equal((await partitionsOf(twin.twin.endpoint, 'od-split')).partitions.length, 4);
    // Two keys in each eighth of the hash space: after one doubling every partition holds two.
    const keys: string[] = [];
    for (let eighth = 0; eighth < 8; eighth++) {
      let found = 0;
      for (let candidate = 0; found < 2; candidate++) {
        const id = `split-${eighth}-${candidate}`;
        if (Math.floor(hashPartitionKey(keyBytesOf({ S: id })) / 2 ** 29) === eighth) {
          keys.push(id);
          found++;
        }
      }
    }
    // 50-unit updates: 4,000 WRU/s is 5 a key a second, 8,000 is 10.
    const UNITS = 50;
    for (const key of keys) await putSized(twin.client, 'od-split', key, UNITS);
    twin.clock.advance(SECOND_MS);
    const runAt = async (rate: number, seconds: number): Promise<UnitLoad> => {
      const load = new UnitLoad(twin.client, twin.clock, 'od-split', UNITS);
      await load.run(repeatEach(keys, rate / UNITS / keys.length), seconds);
      return load;
    };
    const levelAt = twin.clock.nowMs();
    const level1 = await runAt(4000, 61);
    assert.equal(level1.refusedRequests, 0, '4,000 WRU/s at once on a new table');
    twin.clock.advance(levelAt + 31 * MINUTE_MS - twin.clock.nowMs());
    const level2 = await runAt(8000, 61);
    const after = await partitionsOf(twin.twin.endpoint, 'od-split');
    t.diagnostic(`4,000 WRU/s: ${level1.admittedRate(0, 61)}/s admitted; 8,000 WRU/s 31 min later: ${level2.admittedRate(0, 61)}/s admitted, ${level2.refusedRequests} refused, ${after.partitions.length} partitions`);
    assert.equal(after.partitions.length, 8, 'twice the 4,000 peak needs 8 partitions of 1,000');
    assert.equal(level2.refusedRequests, 0, 'the doubling 31 minutes later is not throttled');
    assert.equal(level2.admittedRate(0, 61), 8000);
  } finally {
    await twin.close();
  }
});

// ---------------------------------------------------------------------------------------------
// A single hot key (§2.1): the partition ceiling, whatever the table's throughput.
// ---------------------------------------------------------------------------------------------

test('a single hot key on a 10,000 WCU table is held at 1,000 WCU/s; the same table takes 8,000 WCU/s spread over its partitions', async (t) => {
  // 200-unit updates: a second's 1,000 units are five of them, so the per-second steps waste nothing.
  const twin = await startManualTwin();
  try {
    await twin.client.send(new CreateTableCommand(provisionedTable('hot-key', 100, 10_000)));
    const document = await partitionsOf(twin.twin.endpoint, 'hot-key');
    assert.equal(document.partitions.length, 10);
    for (const partition of document.partitions) assert.equal(partition.writeUnitsPerSecond, 1000);
    const keys = keysByPartition(document.partitions, 1, 'hot-').map((partitionKeys) => partitionKeys[0]!);
    const UNITS = 200;
    for (const key of keys) await putSized(twin.client, 'hot-key', key, UNITS);
    twin.clock.advance(SECOND_MS);

    // 2,000 WCU/s on one key: ten 200-unit updates a second.
    const hot = new UnitLoad(twin.client, twin.clock, 'hot-key', UNITS);
    await hot.run(repeatEach([keys[0]!], 10), 70);
    const rate = hot.admittedRate(10, 70);
    const hotPartition = (await partitionsOf(twin.twin.endpoint, 'hot-key')).partitions.find((partition) => partition.id === partitionOfKey(document.partitions, keys[0]!).id)!;
    t.diagnostic(`hot key: 2,000 WCU/s offered, ${rate.toFixed(1)} WCU/s admitted over seconds 10-70; partition last minute ${hotPartition.consumedWriteUnitsLastMinute}, ${hotPartition.writeThrottleEvents} throttle events`);
    assert.ok(within(rate, 1000, 0.02), `${rate} WCU/s, expected 1,000 within 2%`);
    assert.ok(within(hotPartition.consumedWriteUnitsLastMinute, 60_000, 0.02));
    assert.ok(hotPartition.burstWriteUnits > 250_000, 'the ceiling binds, not the allocation: the bank is barely touched');
    const error = hot.firstError!;
    assert.equal(error.name, 'ProvisionedThroughputExceededException');
    assert.equal(error.message, PROVISIONED_TABLE_MESSAGE);
    assert.deepEqual(error['ThrottlingReasons'], [{ reason: 'TableWriteKeyRangeThroughputExceeded', resource: tableArn('hot-key') }]);

    // Spread: four updates a second on every partition's key, 8,000 WCU/s.
    const spread = new UnitLoad(twin.client, twin.clock, 'hot-key', UNITS);
    await spread.run(repeatEach(keys, 4), 30);
    t.diagnostic(`spread: 8,000 WCU/s offered, ${spread.admittedRate(0, 30)} WCU/s admitted, ${spread.refusedRequests} refused`);
    assert.equal(spread.refusedRequests, 0);
    assert.equal(spread.admittedRate(0, 30), 8000);
  } finally {
    await twin.close();
  }
});

// ---------------------------------------------------------------------------------------------
// The answers (§3.2–§3.4, §3.6): exceptions, UnprocessedKeys, cancellations, nothing consumed.
// ---------------------------------------------------------------------------------------------

describe('the answers a throttle gets', () => {
  let twin: ManualTwin;
  const smallKeys = Array.from({ length: 30 }, (_, n) => `s${n}`);

  /** `prov`: 10 RCU / 5 WCU on one partition, 30 small items and a 400 KB one; `ondemand`: on-demand. */
  before(async () => {
    twin = await startManualTwin();
    await twin.client.send(new CreateTableCommand(provisionedTable('prov', 10, 5)));
    await twin.client.send(new CreateTableCommand(onDemandTable('ondemand')));
    const response = await twin.documentClient.send(
      new BatchWriteCommand({ RequestItems: { prov: smallKeys.slice(0, 25).map((id) => ({ PutRequest: { Item: { id, v: 'small' } } })) } }),
    );
    assert.deepEqual(response.UnprocessedItems, {});
    for (const id of smallKeys.slice(25)) await twin.client.send(new PutItemCommand({ TableName: 'prov', Item: { id: { S: id }, v: { S: 'small' } } }));
    // ~400 KB: 400 write units, 100 read units strongly consistent.
    await putSized(twin.client, 'prov', 'big', 400);
  });

  test('provisioned: ProvisionedThroughputExceededException with ThrottlingReasons, once the burst bank is spent', async () => {
    // 10 RCU × 300 s = 3,000 banked units: thirty 100-unit reads, then a throttle. Fifteen a
    // second, so that the partition's 3,000-unit read ceiling is not what refuses.
    let reads = 0;
    let error: Error & Record<string, unknown>;
    for (;;) {
      if (reads === 15) twin.clock.advance(SECOND_MS);
      try {
        await twin.client.send(new GetItemCommand({ TableName: 'prov', Key: { id: { S: 'big' } }, ConsistentRead: true }));
        reads++;
      } catch (caught) {
        error = caught as Error & Record<string, unknown>;
        break;
      }
      assert.ok(reads <= 30, 'the bank holds 3,000 units');
    }
    assert.equal(reads, 30);
    assert.equal(error.name, 'ProvisionedThroughputExceededException');
    assert.equal(error.message, PROVISIONED_TABLE_MESSAGE);
    assert.deepEqual(error['ThrottlingReasons'], [{ reason: 'TableReadProvisionedThroughputExceeded', resource: tableArn('prov') }]);
    assert.equal((error['$metadata'] as { httpStatusCode: number }).httpStatusCode, 400);
    assert.ok(isThrottlingError(error as never));
    // On the wire: the upper-case ThrottlingReasons member of this exception.
    const raw = await callOperation(twin.twin.endpoint, 'GetItem', JSON.stringify({ TableName: 'prov', Key: { id: { S: 'big' } }, ConsistentRead: true }));
    assert.equal(raw.status, 400);
    assert.deepEqual(JSON.parse(raw.text), {
      __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message: PROVISIONED_TABLE_MESSAGE,
      ThrottlingReasons: [{ reason: 'TableReadProvisionedThroughputExceeded', resource: tableArn('prov') }],
    });
  });

  test('BatchGetItem: throttled keys come back in UnprocessedKeys; only a batch of which nothing could be read fails', async () => {
    // The partition has 10 units left (the second's refill): 10 of the 30 one-unit keys are read.
    const request = { RequestItems: { prov: { Keys: smallKeys.map((id) => ({ id: { S: id } })), ConsistentRead: true } } };
    const partial = await twin.client.send(new BatchGetItemCommand(request));
    const read = partial.Responses!['prov']!;
    const unprocessed = partial.UnprocessedKeys!['prov']!;
    assert.equal(read.length, 10);
    assert.equal(unprocessed.Keys!.length, 20);
    assert.equal(unprocessed.ConsistentRead, true, 'UnprocessedKeys keeps the table entry as asked');
    const readIds = new Set(read.map((item) => item['id']!.S));
    for (const key of unprocessed.Keys!) assert.ok(!readIds.has(key['id']!.S), 'a key is either read or unprocessed');
    // Nothing left to read this second: the whole call fails with the throttle.
    const error = await rejection(twin.client.send(new BatchGetItemCommand(request)));
    assert.equal(error.name, 'ProvisionedThroughputExceededException');
    assert.deepEqual(error['ThrottlingReasons'], [{ reason: 'TableReadProvisionedThroughputExceeded', resource: tableArn('prov') }]);
  });

  test('a transaction with a throttled item is cancelled with the throttle at that item; throttled requests consume nothing and change nothing', async () => {
    // Spend the write bank: 5 WCU × 300 s = 1,500 units less the 430 the setup wrote, a second
    // apart so that the partition's 1,000-unit ceiling is not what refuses.
    await putSized(twin.client, 'prov', 'big-2', 400);
    twin.clock.advance(SECOND_MS);
    await putSized(twin.client, 'prov', 'big-3', 400);
    twin.clock.advance(SECOND_MS);
    const writeError = await rejection(putSized(twin.client, 'prov', 'big-4', 400));
    assert.equal(writeError.name, 'ProvisionedThroughputExceededException');
    assert.deepEqual(writeError['ThrottlingReasons'], [{ reason: 'TableWriteProvisionedThroughputExceeded', resource: tableArn('prov') }]);

    // A fresh whole second in which only throttled requests run.
    const before = await partitionsOf(twin.twin.endpoint, 'prov');
    const odBefore = await partitionsOf(twin.twin.endpoint, 'ondemand');
    twin.clock.advance(SECOND_MS);
    const transaction = new TransactWriteItemsCommand({
      TransactItems: [
        { Put: { TableName: 'ondemand', Item: { id: { S: 'tx-a' }, v: { S: 'written?' } } } },
        // 150 KB in a transaction: 300 write units, more than the 285 left.
        { Put: { TableName: 'prov', Item: { id: { S: 'tx-b' }, pad: { S: paddingFor(150, 'id', 'tx-b') } } } },
        { Update: { TableName: 'ondemand', Key: { id: { S: 'tx-c' } }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { S: 'written?' } } } },
      ],
    });
    const cancelled = await rejection(twin.client.send(transaction));
    assert.equal(cancelled.name, 'TransactionCanceledException');
    assert.equal(cancelled.message, 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ProvisionedThroughputExceeded, None]');
    assert.deepEqual(cancelled['CancellationReasons'], [
      { Code: 'None' },
      { Code: 'ProvisionedThroughputExceeded', Message: PROVISIONED_TABLE_MESSAGE },
      { Code: 'None' },
    ]);
    await rejection(putSized(twin.client, 'prov', 'big-4', 400));
    await rejection(twin.client.send(new GetItemCommand({ TableName: 'prov', Key: { id: { S: 'big' } }, ConsistentRead: true })));
    twin.clock.advance(SECOND_MS);

    const after = await partitionsOf(twin.twin.endpoint, 'prov');
    const partition = after.partitions[0]!;
    assert.equal(partition.consumedWriteUnitsLastSecond, 0, 'throttled writes consumed nothing');
    assert.equal(partition.consumedReadUnitsLastSecond, 0, 'a throttled read consumed nothing');
    assert.equal(partition.itemCount, before.partitions[0]!.itemCount, 'no item was added');
    assert.equal(partition.writeThrottleEvents, before.partitions[0]!.writeThrottleEvents + 2, 'the transaction and the put were counted as throttles');
    assert.equal(partition.readThrottleEvents, before.partitions[0]!.readThrottleEvents + 1);
    const odAfter = await partitionsOf(twin.twin.endpoint, 'ondemand');
    odAfter.partitions.forEach((odPartition, at) => {
      assert.equal(odPartition.consumedWriteUnitsLastSecond, 0, 'the admissible items of the cancelled transaction consumed nothing');
      assert.equal(odPartition.burstWriteUnits, odBefore.partitions[at]!.burstWriteUnits);
      assert.equal(odPartition.itemCount, 0);
    });
    for (const [table, id] of [['ondemand', 'tx-a'], ['ondemand', 'tx-c'], ['prov', 'tx-b'], ['prov', 'big-4']] as const) {
      const got = await twin.client.send(new GetItemCommand({ TableName: table, Key: { id: { S: id } } }));
      assert.equal(got.Item, undefined, `${table}/${id} was not written`);
    }
  });

  after(async () => {
    await twin.close();
  });
});

// ---------------------------------------------------------------------------------------------
// capacity: 'off' — the same loads, nothing throttled, consumption still reported.
// ---------------------------------------------------------------------------------------------

test("capacity: 'off' throttles none of the loads above and still reports what they consumed", async (t) => {
  const twin = await startManualTwin({ capacity: 'off' });
  try {
    // The single hot key: 2,000 WCU/s on one partition of a 10,000 WCU table.
    await twin.client.send(new CreateTableCommand(provisionedTable('hot-key', 100, 10_000)));
    const document = await partitionsOf(twin.twin.endpoint, 'hot-key');
    assert.equal(document.capacity, 'off');
    const hotKey = keysByPartition(document.partitions, 1, 'hot-')[0]![0]!;
    await putSized(twin.client, 'hot-key', hotKey, 200);
    twin.clock.advance(SECOND_MS);
    const hot = new UnitLoad(twin.client, twin.clock, 'hot-key', 200);
    await hot.run(repeatEach([hotKey], 10), 10);
    assert.equal(hot.refusedRequests, 0);
    const hotPartition = partitionOfKey((await partitionsOf(twin.twin.endpoint, 'hot-key')).partitions, hotKey);
    assert.equal(hotPartition.consumedWriteUnitsLastSecond, 2000, 'twice the ceiling, reported');
    assert.equal(hotPartition.writeThrottleEvents, 0);

    // The spent burst bank: 40 reads of 100 units on a 10 RCU table.
    await twin.client.send(new CreateTableCommand(provisionedTable('prov', 10, 5)));
    await putSized(twin.client, 'prov', 'big', 400);
    let consumed = 0;
    for (let read = 0; read < 40; read++) {
      const response = await twin.client.send(new GetItemCommand({ TableName: 'prov', Key: { id: { S: 'big' } }, ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }));
      consumed += response.ConsumedCapacity!.CapacityUnits!;
    }
    assert.equal(consumed, 4000, 'each read still reports its 100 units');
    twin.clock.advance(SECOND_MS);
    const prov = (await partitionsOf(twin.twin.endpoint, 'prov')).partitions[0]!;
    assert.equal(prov.consumedReadUnitsLastSecond, 4000);
    assert.equal(prov.readThrottleEvents, 0);

    // Seed article 000's load: 2,000 items/s, all on one GSI partition.
    await twin.client.send(new CreateTableCommand(seedArticleTable()));
    const load = new BatchLoad(twin.documentClient, twin.clock, 'test', newUnusedItem);
    await load.run(5);
    assert.equal(load.unprocessedItems, 0);
    assert.equal(load.accepted, 10_000);
    const article = await partitionsOf(twin.twin.endpoint, 'test');
    const gsi = gsiPartitionOfStatus(article, 'UN_USED');
    t.diagnostic(`off: hot partition ${hotPartition.consumedWriteUnitsLastSecond} WCU in its last second; prov ${prov.consumedReadUnitsLastSecond} RCU; GSI partition ${gsi.consumedWriteUnitsLastSecond} WCU, backlog ${gsi.backlogWriteUnits}`);
    assert.equal(gsi.consumedWriteUnitsLastSecond, 2000, 'the GSI partition reports what was written to it');
    assert.equal(gsi.backlogWriteUnits, 0, 'nothing waits: GSI writes are not held back');
    assert.equal(article.partitions.reduce((sum, partition) => sum + partition.consumedWriteUnitsLastSecond, 0), 2000);
  } finally {
    await twin.close();
  }
});
