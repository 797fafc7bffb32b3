/**
 * The engine: the catalog of tables and the item store behind it, plus the settings every
 * operation needs (clock, region, account). One Engine serves one server; nothing is global.
 */
import type { Clock } from '../clock.js';
import { resourceNotFound } from '../errors.js';
import { ExpressionCache } from '../expressions/cache.js';
import type { Storage } from '../storage/storage.js';
import { Catalog } from './catalog.js';
import { IdempotencyTokens } from './idempotency.js';
import type { Table } from './table.js';

export interface EngineSettings {
  readonly clock: Clock;
  readonly region: string;
  readonly accountId: string;
  /** How long a new table stays CREATING (on the injected clock); 0 makes it usable at once. */
  readonly tableCreateDelayMs: number;
}

export class Engine {
  readonly storage: Storage;
  readonly catalog: Catalog;
  readonly settings: EngineSettings;
  /** Parsed expressions by text, so a repeated expression is not parsed again. */
  readonly expressions = new ExpressionCache();
  /** TransactWriteItems' ClientRequestTokens, bounded and expiring (idempotency.ts). */
  readonly transactionTokens = new IdempotencyTokens();

  private constructor(storage: Storage, catalog: Catalog, settings: EngineSettings) {
    this.storage = storage;
    this.catalog = catalog;
    this.settings = settings;
  }

  static open(storage: Storage, settings: EngineSettings): Engine {
    return new Engine(storage, Catalog.open(storage), settings);
  }

  get clock(): Clock {
    return this.settings.clock;
  }

  /** The table named in a request, or DynamoDB's ResourceNotFoundException. */
  requireTable(name: string): Table {
    const table = this.catalog.get(name);
    if (table === undefined) throw resourceNotFound();
    return table;
  }

  tableArn(name: string): string {
    return `arn:aws:dynamodb:${this.settings.region}:${this.settings.accountId}:table/${name}`;
  }

  close(): Promise<void> {
    return this.storage.close();
  }
}
