/**
 * The bank: accounts whose balances only move between each other through TransactWriteItems, so
 * whatever the interleaving the total stays what it was. Clients move random amounts between random
 * accounts (the debit conditioned on `balance >= amount`) and retry a transfer themselves when it is
 * cancelled for a TransactionConflict, as an application must. Used by test/pg-bank.test.ts (two
 * dynatwin processes on one PostgreSQL database, a fixed number of transfers) and by
 * bench/redteam/pg-bank.mjs (the same for a time).
 */
import {
  CreateTableCommand,
  PutItemCommand,
  ScanCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { seededRandom } from './random.js';
import { sdkClient } from './client.js';

export const ACCOUNT_BALANCE_START = 1000;
/** A transfer moves 1 to this much. */
const TRANSFER_AMOUNT_MAX = 100;
/** A bound on one transfer's retries after conflicts: past it the client gives up loudly (a livelock is a finding). */
const CONFLICT_RETRIES_MAX = 1_000;
/** After a conflict a client waits a random 0 to this many ms, so that two losers do not collide again in step. */
const CONFLICT_BACKOFF_MAX_MS = 5;

export interface BankCounts {
  /** Transfers applied (the debit's condition held). */
  transfers: number;
  /** Transfers refused because the source had less than the amount (ConditionalCheckFailed): nothing moved. */
  declined: number;
  /** TransactionCanceledException answers with a TransactionConflict reason (each one retried). */
  conflicts: number;
}

export interface BankRun {
  /** One endpoint per dynatwin process; client i talks to endpoints[i % endpoints.length]. */
  readonly endpoints: readonly string[];
  readonly table: string;
  readonly accounts: number;
  readonly clients: number;
  /** Each client stops after this many finished transfers (applied or declined)... */
  readonly transfersPerClient?: number;
  /** ...or once this time has passed (the script). */
  readonly durationMs?: number;
  readonly seed: number;
}

export function accountId(index: number): string {
  return `acct-${String(index).padStart(3, '0')}`;
}

/** Creates the accounts table through `endpoint` (on-demand) and its accounts at ACCOUNT_BALANCE_START each. */
export async function openBank(endpoint: string, table: string, accounts: number): Promise<void> {
  const client = sdkClient(endpoint);
  try {
    await client.send(
      new CreateTableCommand({
        TableName: table,
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    for (let index = 0; index < accounts; index++) {
      await client.send(new PutItemCommand({ TableName: table, Item: { id: { S: accountId(index) }, balance: { N: String(ACCOUNT_BALANCE_START) } } }));
    }
  } finally {
    client.destroy();
  }
}

/** Runs the clients to their end; answers the counts summed over all of them. */
export async function runBank(run: BankRun): Promise<BankCounts> {
  if (run.transfersPerClient === undefined && run.durationMs === undefined) throw new Error('runBank needs transfersPerClient or durationMs');
  const counts: BankCounts = { transfers: 0, declined: 0, conflicts: 0 };
  const random = seededRandom(run.seed);
  const seeds = Array.from({ length: run.clients }, () => Math.floor(random() * 2 ** 31));
  const deadlineMs = run.durationMs === undefined ? Infinity : performance.now() + run.durationMs;
  await Promise.all(seeds.map((seed, index) => bankClient(run, run.endpoints[index % run.endpoints.length]!, seededRandom(seed), deadlineMs, counts)));
  return counts;
}

async function bankClient(run: BankRun, endpoint: string, random: () => number, deadlineMs: number, counts: BankCounts): Promise<void> {
  const client = sdkClient(endpoint);
  try {
    for (let done = 0; done < (run.transfersPerClient ?? Infinity) && performance.now() < deadlineMs; done++) {
      const from = Math.floor(random() * run.accounts);
      const to = (from + 1 + Math.floor(random() * (run.accounts - 1))) % run.accounts;
      const amount = 1 + Math.floor(random() * TRANSFER_AMOUNT_MAX);
      await transfer(client, run.table, from, to, amount, random, counts);
    }
  } finally {
    client.destroy();
  }
}

async function transfer(client: DynamoDBClient, table: string, from: number, to: number, amount: number, random: () => number, counts: BankCounts): Promise<void> {
  const command = new TransactWriteItemsCommand({
    TransactItems: [
      {
        Update: {
          TableName: table,
          Key: { id: { S: accountId(from) } },
          UpdateExpression: 'SET balance = balance - :amount',
          ConditionExpression: 'balance >= :amount',
          ExpressionAttributeValues: { ':amount': { N: String(amount) } },
        },
      },
      { Update: { TableName: table, Key: { id: { S: accountId(to) } }, UpdateExpression: 'SET balance = balance + :amount', ExpressionAttributeValues: { ':amount': { N: String(amount) } } } },
    ],
  });
  for (let attempt = 0; attempt <= CONFLICT_RETRIES_MAX; attempt++) {
    try {
      await client.send(command);
      counts.transfers++;
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code);
      if (codes.includes('TransactionConflict')) {
        counts.conflicts++;
        await new Promise((resolve) => setTimeout(resolve, random() * CONFLICT_BACKOFF_MAX_MS));
        continue;
      }
      if (codes[0] === 'ConditionalCheckFailed') {
        counts.declined++;
        return;
      }
      throw error;
    }
  }
  throw new Error(`a transfer from ${accountId(from)} to ${accountId(to)} met ${CONFLICT_RETRIES_MAX} conflicts in a row`);
}

/** Every account's balance as `endpoint` reads it (a consistent Scan), by account id. */
export async function balances(endpoint: string, table: string): Promise<Map<string, number>> {
  const client = sdkClient(endpoint);
  const found = new Map<string, number>();
  try {
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }));
      for (const item of page.Items ?? []) found.set(item['id']!.S!, Number(item['balance']!.N));
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return found;
  } finally {
    client.destroy();
  }
}
