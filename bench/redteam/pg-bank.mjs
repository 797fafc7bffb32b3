// Red-team bank on PostgreSQL (issue #32, "What it must show"; by hand, after npm run build):
//   node bench/redteam/pg-bank.mjs [clients=30] [seconds=30] [accounts=20] [seed=32]
// Checks that two dynatwin processes sharing one PostgreSQL database keep TransactWriteItems atomic
// and isolated across processes: a private cluster (test/support/postgres.ts, fsync on) and two
// dynatwin CLI children with the same --store URL; 20 accounts of 1000 created through the first
// before the second starts (a process loads the catalog at start); the clients, half on each
// process, move random amounts between random accounts (debit conditioned on balance >= amount)
// for the given time, retrying TransactionConflict cancellations themselves (test/support/bank.ts).
// At the end it reads every balance through both processes (ConsistentRead) and prints the
// transfers done, declined, the TransactionConflict answers and the total; it exits 1 when the
// total is not exactly accounts x 1000, an account is negative, or the two processes disagree.
import { balances, openBank, runBank, ACCOUNT_BALANCE_START } from '../../dist/test/support/bank.js';
import { startPrivatePostgres } from '../../dist/test/support/postgres.js';
import { ServerProcesses } from '../../dist/test/support/process.js';

const clients = Number(process.argv[2] ?? 30);
const seconds = Number(process.argv[3] ?? 30);
const accounts = Number(process.argv[4] ?? 20);
const seed = Number(process.argv[5] ?? 32);
const table = 'bank';

const cluster = await startPrivatePostgres({ fsync: true });
const servers = new ServerProcesses();
let failed = false;
try {
  const store = cluster.url('bank');
  const first = await servers.start(['--store', store]);
  await openBank(first.endpoint, table, accounts);
  const second = await servers.start(['--store', store]);
  const startMs = performance.now();
  const counts = await runBank({ endpoints: [first.endpoint, second.endpoint], table, accounts, clients, durationMs: seconds * 1000, seed });
  const elapsedSeconds = (performance.now() - startMs) / 1000;
  const one = await balances(first.endpoint, table);
  const two = await balances(second.endpoint, table);
  const total = [...one.values()].reduce((sum, balance) => sum + balance, 0);
  const negative = [...one.values()].filter((balance) => balance < 0).length;
  const disagree = [...one].filter(([id, balance]) => two.get(id) !== balance).length + Math.abs(one.size - two.size);
  const expected = accounts * ACCOUNT_BALANCE_START;
  process.stdout.write(
    `pg-bank: ${clients} clients on 2 processes for ${elapsedSeconds.toFixed(1)} s: ${counts.transfers} transfers done (${(counts.transfers / elapsedSeconds).toFixed(0)}/s), ` +
      `${counts.declined} declined (insufficient balance), ${counts.conflicts} TransactionConflict answers retried; ` +
      `total ${total} (expected ${expected}), ${negative} accounts negative, ${disagree} balances the two processes disagree on\n`,
  );
  failed = total !== expected || negative > 0 || disagree > 0 || one.size !== accounts;
} catch (error) {
  process.stderr.write(`pg-bank: ${error instanceof Error ? error.stack : String(error)}\n`);
  failed = true;
} finally {
  await servers.killAll();
  await cluster.stop();
}
process.stdout.write(`pg-bank: ${failed ? 'FAILED' : 'ok'}\n`);
process.exitCode = failed ? 1 : 0;
