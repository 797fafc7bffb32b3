/**
 * A process that writes to the logged store and then dies by SIGKILL, leaving its log as a crash
 * leaves it (no close, no final checkpoint). Child-process entry point for test/storage-wal.test.ts:
 *   node dist/test/support/wal-child.js <directory> '<JSON: groups of keys>' [checkpoint log bytes]
 * Each group's writes are issued in one event-loop turn (so they share one log frame) and awaited
 * before the next group; a key starting with '-' is removed instead of put; one starting with '+'
 * is put, and beside it, in the same write, `<key>~r` spliced around it (a stream record's shape:
 * `{"n":<the item>}`, logged by reference). It prints one line per acknowledged group.
 */
import { LoggedStorage } from '../../src/storage/logged.js';

const [directory, plan, checkpointBytes] = process.argv.slice(2);
if (directory === undefined || plan === undefined) throw new Error('usage: wal-child.js <directory> <groups JSON> [checkpoint log bytes]');
const groups = JSON.parse(plan) as string[][];
// By default no checkpoint by size: what is written stays in the log for the parent to replay.
const store = await LoggedStorage.open({ path: directory, checkpointLogBytes: checkpointBytes === undefined ? 1 << 30 : Number(checkpointBytes) });
for (const group of groups) {
  await Promise.all(
    group.map((name) =>
      store.write((txn) => {
        if (name.startsWith('-')) {
          txn.remove(Buffer.from(name.slice(1), 'latin1'));
        } else if (name.startsWith('+')) {
          const item = { name: name.slice(1) };
          txn.put(Buffer.from(name.slice(1), 'latin1'), item);
          txn.putSpliced!(Buffer.from(`${name.slice(1)}~r`, 'latin1'), { n: item }, '{"n":', item, '}');
        } else {
          txn.put(Buffer.from(name, 'latin1'), { name });
        }
      }),
    ),
  );
  process.stdout.write(`acknowledged ${group.join(',')}\n`);
}
process.kill(process.pid, 'SIGKILL');
