/**
 * The catalog: every table's definition, persisted in the store beside the items and cached in
 * memory, so resolving a table on the request path is one Map lookup.
 *
 * Storage layout (byte prefixes keep the two kinds apart and in a fixed order):
 *   0x00 't' <table name UTF-8>    → TableRecord
 *   0x00 'n'                       → { nextTableId }
 *   0x01 <table id, u32 BE> <item key from src/model/key-codec.ts> → item
 */
import { assert, resourceNotFound } from '../errors.js';
import type { AttributeMap } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { prefixUpperBound } from '../model/key-codec.js';
import type { Storage, WriteTransaction } from '../storage/storage.js';
import { Table, type TableRecord } from './table.js';

const CATALOG_BYTE = 0x00;
const ITEMS_BYTE = 0x01;
const TABLE_RECORD_TAG = 0x74; // 't'
const COUNTER_TAG = 0x6e; // 'n'

const COUNTER_KEY = Buffer.from([CATALOG_BYTE, COUNTER_TAG]);
const TABLE_RECORDS_START = Buffer.from([CATALOG_BYTE, TABLE_RECORD_TAG]);
const TABLE_RECORDS_END = Buffer.from([CATALOG_BYTE, TABLE_RECORD_TAG + 1]);

interface CounterRecord {
  readonly nextTableId: number;
}

function tableRecordKey(name: string): Buffer {
  return Buffer.concat([TABLE_RECORDS_START, Buffer.from(name, 'utf8')]);
}

export function itemPrefixOf(tableId: number): Buffer {
  const prefix = Buffer.allocUnsafe(5);
  prefix[0] = ITEMS_BYTE;
  prefix.writeUInt32BE(tableId, 1);
  return prefix;
}

export class Catalog {
  private readonly storage: Storage;
  private readonly tables = new Map<string, Table>();

  private constructor(storage: Storage) {
    this.storage = storage;
  }

  /** Loads every table definition and recounts each table's items and bytes. */
  static open(storage: Storage): Catalog {
    const catalog = new Catalog(storage);
    for (const entry of storage.range({ start: TABLE_RECORDS_START, end: TABLE_RECORDS_END })) {
      const record = entry.value as TableRecord;
      const prefix = itemPrefixOf(record.id);
      catalog.tables.set(record.name, new Table(record, prefix, countItems(storage, prefix)));
    }
    return catalog;
  }

  get(name: string): Table | undefined {
    return this.tables.get(name);
  }

  /** Table names in DynamoDB's ListTables order (ascending by UTF-16 code unit, as Java sorts). */
  names(): string[] {
    return [...this.tables.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  get size(): number {
    return this.tables.size;
  }

  /**
   * Creates a table from a record whose `id` is assigned here. `check` runs inside the write
   * transaction, so two concurrent CreateTable calls for one name cannot both succeed.
   */
  create(makeRecord: (id: number) => TableRecord, check: () => void): Promise<Table> {
    return this.storage.write((txn) => {
      check();
      const counter = txn.get(COUNTER_KEY) as CounterRecord | undefined;
      const id = counter?.nextTableId ?? 1;
      const record = makeRecord(id);
      assert(record.id === id, 'a new table keeps the id it was given');
      txn.put(COUNTER_KEY, { nextTableId: id + 1 } satisfies CounterRecord);
      txn.put(tableRecordKey(record.name), record);
      const table = new Table(record, itemPrefixOf(id), { itemCount: 0, sizeBytes: 0 });
      this.tables.set(record.name, table);
      return table;
    });
  }

  /** Replaces a table's record; `makeRecord` sees the current table inside the transaction. */
  update(name: string, makeRecord: (current: Table) => TableRecord): Promise<Table> {
    return this.storage.write((txn) => {
      const current = this.requireInTransaction(name);
      const record = makeRecord(current);
      assert(record.id === current.record.id && record.name === name, 'an update keeps the table identity');
      txn.put(tableRecordKey(name), record);
      const table = current.withRecord(record);
      this.tables.set(name, table);
      return table;
    });
  }

  /** Removes a table and all of its items; `check` runs first, inside the transaction. */
  delete(name: string, check: (current: Table) => void): Promise<Table> {
    return this.storage.write((txn) => {
      const current = this.requireInTransaction(name);
      check(current);
      removeRange(txn, current.itemPrefix);
      txn.remove(tableRecordKey(name));
      this.tables.delete(name);
      return current;
    });
  }

  private requireInTransaction(name: string): Table {
    const table = this.tables.get(name);
    // Callers check existence before writing; a table can still vanish in between when a
    // DeleteTable commits first, and then this request finds no table, as DynamoDB would.
    if (table === undefined) throw resourceNotFound();
    return table;
  }
}

function countItems(storage: Storage, prefix: Buffer): { itemCount: number; sizeBytes: number } {
  let itemCount = 0;
  let sizeBytes = 0;
  for (const entry of storage.range({ start: prefix, end: prefixUpperBound(prefix) })) {
    itemCount++;
    sizeBytes += itemSize(entry.value as AttributeMap);
  }
  return { itemCount, sizeBytes };
}

function removeRange(txn: WriteTransaction, prefix: Buffer): void {
  // Collect first: removing while iterating a live range is not safe in every store.
  const keys: Uint8Array[] = [];
  for (const entry of txn.range({ start: prefix, end: prefixUpperBound(prefix) })) keys.push(entry.key);
  for (const key of keys) txn.remove(key);
}
