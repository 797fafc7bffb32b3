/**
 * Two dynatwin processes on one PostgreSQL database (issue #32, "What it must show"): two CLI
 * children with the same --store URL (the same schema) of a private cluster, 20 accounts of 1000,
 * 10 clients (5 on each process) moving random amounts between random accounts with
 * TransactWriteItems (the debit conditioned on balance >= amount) and retrying themselves after a
 * TransactionConflict. Afterwards both processes read the same balances (ConsistentRead), every
 * account is >= 0 and the total is exactly 20,000: no transfer was lost, doubled or half applied
 * across processes. A fixed number of transfers, no timing asserted; the long run (30 clients for
 * 30 s, conflicts counted) is bench/redteam/pg-bank.mjs.
 *
 * The table is created through the first process before the second starts: a process loads the
 * catalog at start and does not see a table another process creates later (docs/POSTGRES.md).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ACCOUNT_BALANCE_START, balances, openBank, runBank } from './support/bank.js';
import { postgresAvailability, startPrivatePostgres, type PrivatePostgres } from './support/postgres.js';
import { ServerProcesses } from './support/process.js';

const ACCOUNTS = 20;
const CLIENTS = 10;
const TRANSFERS_PER_CLIENT = 15;
const TABLE = 'bank';

const servers = new ServerProcesses();
let cluster: PrivatePostgres | undefined;
after(async () => {
  await servers.killAll();
  await cluster?.stop();
});

test(`two dynatwin processes on one database: ${CLIENTS} clients x ${TRANSFERS_PER_CLIENT} transfers keep the total exact`, { skip: postgresAvailability(), timeout: 300_000 }, async (t) => {
  cluster = await startPrivatePostgres({ fsync: false });
  const store = cluster.url('bank');
  const first = await servers.start(['--store', store]);
  await openBank(first.endpoint, TABLE, ACCOUNTS);
  const second = await servers.start(['--store', store]);
  const counts = await runBank({ endpoints: [first.endpoint, second.endpoint], table: TABLE, accounts: ACCOUNTS, clients: CLIENTS, transfersPerClient: TRANSFERS_PER_CLIENT, seed: 32 });
  assert.equal(counts.transfers + counts.declined, CLIENTS * TRANSFERS_PER_CLIENT, 'every transfer ended applied or declined');
  const seenByFirst = await balances(first.endpoint, TABLE);
  const seenBySecond = await balances(second.endpoint, TABLE);
  assert.deepEqual(seenBySecond, seenByFirst, 'both processes read the same balances');
  assert.equal(seenByFirst.size, ACCOUNTS);
  const negative = [...seenByFirst].filter(([, balance]) => balance < 0);
  assert.deepEqual(negative, [], 'no account below zero');
  const total = [...seenByFirst.values()].reduce((sum, balance) => sum + balance, 0);
  assert.equal(total, ACCOUNTS * ACCOUNT_BALANCE_START);
  t.diagnostic(`${counts.transfers} transfers applied, ${counts.declined} declined, ${counts.conflicts} TransactionConflict answers retried; total ${total}`);
});
