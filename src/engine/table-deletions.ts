/**
 * Delayed table deletions (`--table-delete-delay`). A DeleteTable with a delay marks the table
 * DELETING (TableRecord.deletingUntilMs) in the catalog's write; from then on item operations find
 * no table (Engine.requireTable), and once the delay has passed on the injected clock the catalog
 * no longer returns the table (Catalog.get) and this scheduler removes it from the store, with its
 * items, index entries and metrics.
 *
 * The removal is triggered by the ManualClock's advances or, on a real clock, by a timer at the due
 * time; the marks are persisted, so a restart resumes (or finishes at once) what was pending.
 */
import { ManualClock, type Clock } from '../clock.js';
import type { Catalog } from './catalog.js';
import type { Table } from './table.js';

interface PendingDeletion {
  readonly name: string;
  readonly tableId: number;
  readonly dueMs: number;
  /** The real-clock timer, if any. */
  readonly timer: NodeJS.Timeout | undefined;
}

export interface TableDeletionsOptions {
  readonly catalog: Catalog;
  readonly clock: Clock;
  /** Called once a table is gone from the store (its telemetry goes with it). */
  readonly removed: (name: string) => void;
  readonly log: (message: string) => void;
}

export class TableDeletions {
  readonly #options: TableDeletionsOptions;
  /** By table id: a name may be reused once its old table is gone. */
  readonly #pending = new Map<number, PendingDeletion>();
  /** The removals started so far, one after another. Never rejects. */
  #running: Promise<void> = Promise.resolve();
  #stopped = false;
  #detach: () => void = () => undefined;

  constructor(options: TableDeletionsOptions) {
    this.#options = options;
  }

  /** Schedules the deletions a previous run left pending, and listens to a manual clock. */
  start(): void {
    const { clock, catalog } = this.#options;
    if (clock instanceof ManualClock) this.#detach = clock.onAdvance(() => this.poke());
    for (const table of catalog.all()) {
      if (table.record.deletingUntilMs !== undefined) this.schedule(table);
    }
    this.poke();
  }

  /** Schedules the removal of a table marked DELETING. */
  schedule(table: Table): void {
    const dueMs = table.record.deletingUntilMs;
    if (this.#stopped || dueMs === undefined || this.#pending.has(table.record.id)) return;
    const { clock } = this.#options;
    let timer: NodeJS.Timeout | undefined;
    if (clock.mode === 'real') {
      timer = setTimeout(() => this.poke(), Math.max(0, dueMs - clock.nowMs()));
      // A pending deletion never keeps the process alive; a restart resumes it.
      timer.unref();
    }
    this.#pending.set(table.record.id, { name: table.name, tableId: table.record.id, dueMs, timer });
  }

  /** Starts the removal of every table whose delay has passed; O(pending deletions). */
  poke(): void {
    if (this.#stopped || this.#pending.size === 0) return;
    const nowMs = this.#options.clock.nowMs();
    for (const pending of [...this.#pending.values()]) {
      if (nowMs < pending.dueMs) continue;
      this.#pending.delete(pending.tableId);
      this.#running = this.#running.then(() => this.#remove(pending));
    }
  }

  /** Resolves once every deletion due now is committed (CreateTable waits for it to reuse a name). */
  finishDue(): Promise<void> {
    this.poke();
    return this.#running;
  }

  /** Stops scheduling; removals already started finish. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#detach();
    for (const pending of this.#pending.values()) clearTimeout(pending.timer);
    this.#pending.clear();
    await this.#running;
  }

  async #remove(pending: PendingDeletion): Promise<void> {
    const { catalog, removed, log } = this.#options;
    try {
      const gone = await catalog.removeDeleted(pending.name, pending.tableId);
      if (gone) removed(pending.name);
    } catch (error) {
      log(`dynatwin: deletion of table ${pending.name}: ${error instanceof Error ? error.stack : String(error)}`);
    }
  }
}
