/**
 * Ties a table to its DynamoDB stream (src/streams/): what the stream store needs to know about the
 * table, and the writer its writes call, kept in the table's change slot. The catalog calls these in
 * every write that creates, changes or deletes a table, and once per table at start-up.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import { decodeItemKeyHash } from '../model/key-codec.js';
import type { Storage, WriteTransaction } from '../storage/storage.js';
import type { StreamedTable, StreamStore } from '../streams/stream-store.js';
import type { Table } from './table.js';
import type { ChangeSink } from './write-pipeline.js';

/**
 * The engine's ChangeSink (write-pipeline.ts) by default: hands each applied change to the stream
 * of its table, when the table has one (streams/stream-writer.ts), and to its history (history.ts),
 * when it keeps one, inside the change's storage write.
 */
export const tableStreamsSink: ChangeSink = {
  serves(table) {
    return table.changes.history !== undefined || table.changes.stream !== undefined;
  },
  onChange(txn, table, change) {
    // The table's history (point-in-time recovery, backups being copied), when it keeps one.
    table.changes.history?.record(txn, change);
    const stream = table.changes.stream;
    if (stream === undefined) return;
    stream.onChange(txn, decodeItemKeyHash(change.storageKey, table.itemPrefix.length), change.oldImage, change.newImage, change.system);
  },
};

function streamedTable(table: Table): StreamedTable {
  const record = table.record;
  const specification = record.streamSpecification;
  const enabled = specification?.StreamEnabled === true && specification.StreamViewType !== undefined && record.latestStreamLabel !== undefined;
  return {
    tableId: record.id,
    name: record.name,
    arn: record.arn,
    keySchema: record.keySchema,
    activeAtMs: record.activeAtMs,
    stream: enabled ? { label: record.latestStreamLabel!, viewType: specification.StreamViewType! } : undefined,
    partitions: table.partitions.map,
  };
}

/** Inside the write that created or changed `table`: its stream starts, ends or follows its partitions. */
export function syncTableStream(txn: WriteTransaction, streams: StreamStore, table: Table): void {
  table.changes.stream = streams.sync(txn, streamedTable(table));
}

/** At start-up: the table's writes feed its enabled stream again. */
export function attachTableStream(streams: StreamStore, table: Table): void {
  table.changes.stream = streams.attach(streamedTable(table));
}

/** Inside DeleteTable's write: the stream is disabled and stays readable for its retention. */
export function detachTableStream(txn: WriteTransaction, streams: StreamStore, table: Table): void {
  streams.tableDeleted(txn, table.record.id);
  table.changes.stream = undefined;
}

/**
 * Deletes the stream records past their 24 hours that no append will trim (an idle table, a
 * disabled stream, a deleted table's): run on the TTL sweeps' cadence of the injected clock
 * (ttl.ts), one bounded step (streams/stream-store.ts TRIM_STEP_RECORDS) per storage write, with
 * a turn of the event loop between, until nothing is due. Costs no store read when nothing is.
 */
export async function trimIdleStreams(storage: Storage, streams: StreamStore, clock: Clock, stopped: () => boolean): Promise<void> {
  while (!stopped() && streams.trimDue(clock.nowMs())) {
    await storage.write((txn) => streams.trimStep(txn, clock.nowMs()));
    await nextTurn();
  }
}
