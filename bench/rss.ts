/**
 * Memory per stored item (issue 21): a server in memory mode, its RSS after full collections
 * before and after storing N items of 1 KB (the bench's PutItem items, fresh keys), per item, for
 * dynatwin and for dynalite in the same run. The servers run rss-server.js with --expose-gc.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LoadClient } from './load.js';
import { launch, type RunningTarget, type TargetSpec } from './targets.js';
import { createBenchTable, KeySource, putItem } from './workloads.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Issue 21's goal for dynatwin in memory. */
export const RSS_PER_ITEM_GOAL_BYTES = 1.5 * 1024;
/** How long a server may take to answer a `gc` request (collections of a large heap). */
const GC_ANSWER_TIMEOUT_MS = 60_000;
/**
 * How long a server is left idle before a reading "at rest". V8 grows its young generation under
 * a heavy allocation rate (dynatwin's to 2 x 16 MB semi-spaces while items pour in) and gives it
 * back only once its allocation rate, averaged over its last 5 s, is low: a full collection right
 * after the load leaves that peak committed. It is a fixed cost of the load, not of the items
 * (16 MB is 0.16 KB per item at 100,000 items, 0.016 KB at a million); any server idle this long
 * has given it back. Measured here (issue 21): 1.51 KB per item right after the load, 1.31 KB at rest.
 */
const REST_MS = 6_000;

export type RssServer = 'dynatwin' | 'dynalite';

export interface RssPerItem {
  readonly server: RssServer;
  readonly label: string;
  readonly items: number;
  /** At rest (REST_MS idle), after full collections: before and after storing the items. */
  readonly rssBeforeBytes: number;
  readonly rssAfterBytes: number;
  /** (rssAfterBytes - rssBeforeBytes) / items: the figure the goal is held against. */
  readonly bytesPerItem: number;
  /** The same, read right after the load (full collections, no rest): V8's young generation still at its peak. */
  readonly bytesPerItemRightAfterLoad: number;
}

function rssTarget(server: RssServer): TargetSpec {
  return {
    id: server === 'dynatwin' ? 'dynatwin-memory' : 'dynalite',
    label: server === 'dynatwin' ? 'dynatwin (memory)' : 'dynalite (memory)',
    speaksDynamo: true,
    reportsIndexCapacity: server === 'dynatwin',
    needsScratchDir: false,
    watchesStdin: true,
    args: (port) => ['--expose-gc', path.join(here, 'rss-server.js'), '--port', String(port), '--server', server],
  };
}

/** Asks the server for its RSS after full collections. */
function collectedRss(server: RunningTarget): Promise<number> {
  const { child } = server;
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => finish(new Error(`no answer to gc within ${GC_ANSWER_TIMEOUT_MS / 1000} s`)), GC_ANSWER_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const match = /rss (\d+)\n/.exec(text);
      if (match !== null) finish(undefined, Number(match[1]));
    };
    const finish = (error: Error | undefined, rss?: number): void => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      if (error !== undefined) reject(error);
      else resolve(rss!);
    };
    child.stdout?.on('data', onData);
    child.stdin?.write('gc\n');
  });
}

/** One server: RSS collected, `items` 1 KB items stored, RSS collected again. */
export async function measureRssPerItem(server: RssServer, items: number, connections: number): Promise<RssPerItem> {
  const spec = rssTarget(server);
  const running = await launch(spec);
  const client = new LoadClient(running.port, connections);
  try {
    await createBenchTable(client, spec);
    await rest();
    const rssBeforeBytes = await collectedRss(running);
    const keys = new KeySource();
    await client.callMany(items, () => putItem(keys.next()));
    const rssRightAfterLoadBytes = await collectedRss(running);
    await rest();
    const rssAfterBytes = await collectedRss(running);
    return {
      server,
      label: spec.label,
      items,
      rssBeforeBytes,
      rssAfterBytes,
      bytesPerItem: (rssAfterBytes - rssBeforeBytes) / items,
      bytesPerItemRightAfterLoad: (rssRightAfterLoadBytes - rssBeforeBytes) / items,
    };
  } finally {
    client.close();
    await running.stop();
  }
}

function rest(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, REST_MS));
}

export function formatRss(results: readonly RssPerItem[]): string[] {
  const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MB`;
  return results.map((r) => {
    const goal = r.server === 'dynatwin' ? ` (goal <= ${(RSS_PER_ITEM_GOAL_BYTES / 1024).toFixed(1)} KB: ${r.bytesPerItem <= RSS_PER_ITEM_GOAL_BYTES ? 'met' : 'MISSED'})` : '';
    return (
      `${r.label}: ${(r.bytesPerItem / 1024).toFixed(2)} KB RSS per stored 1 KB item${goal}; ` +
      `${mb(r.rssBeforeBytes)} before, ${mb(r.rssAfterBytes)} after ${r.items.toLocaleString('en-US')} items, each after full GC at rest ` +
      `(${REST_MS / 1000} s idle; right after the load: ${(r.bytesPerItemRightAfterLoad / 1024).toFixed(2)} KB per item)`
    );
  });
}
