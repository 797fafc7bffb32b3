/**
 * `--init FILE` (and `init:` in a config file, `init` of startDynatwin): tables a server makes at
 * start-up, before it answers a request. The file (YAML, or JSON) is `{ tables: [...] }`, each entry
 * a CreateTable input as the AWS CLI's `--cli-input-json` takes it, with optional `Items` (items in
 * AttributeValue JSON, written with PutItem) and `TimeToLiveSpecification` (UpdateTimeToLive).
 *
 * Every input goes through the operations a client's request goes through (invokeOperation), so a
 * bad definition is refused with DynamoDB's own text. A table that exists already is left as it is,
 * items and all: a restart on the same data directory keeps what the tests wrote and writes nothing
 * again (as jest-dynamodb's table config and LocalStack's init hooks behave).
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Engine } from '../engine/engine.js';
import { DynamoError } from '../errors.js';
import { createOperationRegistry } from '../operations/index.js';
import { invokeOperation } from '../operations/invoke.js';
import type { AnyOperation } from '../operations/operation.js';

/** Bounds that keep a typo (or a generated file gone wrong) from holding start-up for ever. */
export const INIT_TABLES_MAX = 256;
export const INIT_ITEMS_MAX = 100_000;

/** The refusals of an item the table's capacity could not take at start-up. */
const THROTTLES = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException']);
/**
 * Items are written with PutItem, which the table's capacity pays for as any client's write: a
 * provisioned table takes what its burst bank and allocation allow at start-up.
 */
const CAPACITY_HINT = " (the items are written with PutItem, paid from the table's capacity: give the table PAY_PER_REQUEST or more WriteCapacityUnits in the file)";

/** A bad init file or a definition DynamoDB would refuse; one line naming the file and field. */
export class InitError extends Error {
  override readonly name = 'InitError';
}

export interface InitTable {
  /** The CreateTable input, without Items and TimeToLiveSpecification. */
  readonly createTable: Record<string, unknown>;
  readonly items: readonly Record<string, unknown>[];
  readonly timeToLive: Record<string, unknown> | undefined;
  /** `tables[2]`: where it stands in the file, for messages. */
  readonly path: string;
}

export interface InitDocument {
  readonly file: string;
  readonly tables: readonly InitTable[];
}

/** Reads and shape-checks an init file; throws InitError (one line) for anything wrong with it. */
export function readInitFile(file: string): InitDocument {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InitError(`${file}: cannot read it: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return parseInitText(file, text);
}

/** The document of an init file's text (YAML 1.2 or JSON, by the file's name). */
export function parseInitText(file: string, text: string): InitDocument {
  let document: unknown;
  const yaml = !/\.json$/i.test(file);
  try {
    // YAML's core schema keeps `no` a string; duplicate keys are refused; aliases are bounded so a
    // file of nested aliases cannot grow without end.
    document = yaml ? parseYaml(text, { uniqueKeys: true, maxAliasCount: 100 }) : JSON.parse(text);
  } catch (error) {
    throw new InitError(`${file}: not valid ${yaml ? 'YAML' : 'JSON'}: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/:$/, '')}`);
  }
  const fail = (field: string, problem: string): never => {
    throw new InitError(`${file}: ${field} ${problem}`);
  };
  if (!isRecord(document)) return fail('the document', 'must be an object with a "tables" list');
  for (const key of Object.keys(document)) if (key !== 'tables') fail(key, 'is not a field of an init file (only "tables")');
  const tables = document['tables'];
  if (!Array.isArray(tables)) return fail('tables', 'must be a list of CreateTable inputs');
  if (tables.length > INIT_TABLES_MAX) fail('tables', `has ${tables.length} entries; at most ${INIT_TABLES_MAX}`);
  let itemCount = 0;
  const parsed = tables.map((entry: unknown, index): InitTable => {
    const path = `tables[${index}]`;
    if (!isRecord(entry)) return fail(path, 'must be an object (a CreateTable input)');
    const { Items: items, TimeToLiveSpecification: timeToLive, ...createTable } = entry;
    if (items !== undefined && !Array.isArray(items)) fail(`${path}.Items`, 'must be a list of items in AttributeValue JSON');
    const itemList = (items ?? []) as unknown[];
    itemList.forEach((item, itemIndex) => {
      if (!isRecord(item)) fail(`${path}.Items[${itemIndex}]`, 'must be an item in AttributeValue JSON, e.g. {"id": {"S": "a"}}');
    });
    itemCount += itemList.length;
    if (itemCount > INIT_ITEMS_MAX) fail(`${path}.Items`, `brings the file past ${INIT_ITEMS_MAX} items`);
    if (timeToLive !== undefined && !isRecord(timeToLive)) fail(`${path}.TimeToLiveSpecification`, 'must be an object such as {"Enabled": true, "AttributeName": "expiresAt"}');
    if (typeof createTable['TableName'] !== 'string') fail(`${path}.TableName`, 'must be a string');
    return { createTable, items: itemList as Record<string, unknown>[], timeToLive: timeToLive as Record<string, unknown> | undefined, path };
  });
  return { file, tables: parsed };
}

export interface InitOutcome {
  readonly created: readonly string[];
  /** Tables that existed already, left as they were. */
  readonly kept: readonly string[];
}

/**
 * Makes the document's tables that do not exist yet, with their items and TTL; throws InitError
 * naming the field for a request DynamoDB would refuse. Runs before the server takes requests.
 */
export async function createInitTables(engine: Engine, document: InitDocument): Promise<InitOutcome> {
  const operations = createOperationRegistry();
  const created: string[] = [];
  const kept: string[] = [];
  try {
    for (const table of document.tables) {
      const tableName = table.createTable['TableName'] as string;
      if (await tableExists(engine, operations.get('DescribeTable')!, tableName)) {
        kept.push(tableName);
        continue;
      }
      created.push(tableName);
      await createTable(engine, operations, document.file, table);
    }
  } catch (error) {
    // A table this start-up made and did not finish (or made before the one that failed) would be
    // kept as it is by the next start ("it exists"), half seeded: it goes, so that the corrected
    // file starts from where this one did. Nothing else is touched, and nothing was served from it.
    await removeTables(engine, operations, created.reverse());
    throw error;
  }
  return { created, kept };
}

/** One entry: CreateTable, then its TTL and items once it is ACTIVE. */
async function createTable(engine: Engine, operations: ReadonlyMap<string, AnyOperation>, file: string, table: InitTable): Promise<void> {
  const tableName = table.createTable['TableName'] as string;
  const run = async (name: string, input: object, field: string): Promise<object> => {
    try {
      return await invokeOperation(engine, operations.get(name)!, input);
    } catch (error) {
      if (error instanceof DynamoError) throw new InitError(`${file}: ${field}: ${error.code}: ${error.message}${THROTTLES.has(error.code) ? CAPACITY_HINT : ''}`);
      throw error;
    }
  };
  await run('CreateTable', table.createTable, table.path);
  const status = ((await run('DescribeTable', { TableName: tableName }, table.path)) as { Table?: { TableStatus?: string } }).Table?.TableStatus;
  if (status !== 'ACTIVE' && (table.items.length > 0 || table.timeToLive !== undefined)) {
    throw new InitError(`${file}: ${table.path}: the table is ${status ?? 'not ACTIVE'} (--table-create-delay), so its Items and TimeToLiveSpecification cannot be written at start-up`);
  }
  if (table.timeToLive !== undefined) await run('UpdateTimeToLive', { TableName: tableName, TimeToLiveSpecification: table.timeToLive }, `${table.path}.TimeToLiveSpecification`);
  for (const [index, item] of table.items.entries()) await run('PutItem', { TableName: tableName, Item: item }, `${table.path}.Items[${index}]`);
}

/** Deletes the tables a failed seeding made; a table that cannot be deleted (never made) is passed over. */
async function removeTables(engine: Engine, operations: ReadonlyMap<string, AnyOperation>, tableNames: readonly string[]): Promise<void> {
  for (const tableName of tableNames) {
    try {
      // A table the file asked to protect from deletion is this start-up's own: lift it first.
      await invokeOperation(engine, operations.get('UpdateTable')!, { TableName: tableName, DeletionProtectionEnabled: false }).catch((error: unknown) => {
        if (!(error instanceof DynamoError)) throw error;
      });
      await invokeOperation(engine, operations.get('DeleteTable')!, { TableName: tableName });
    } catch (error) {
      if (!(error instanceof DynamoError)) throw error;
    }
  }
}

async function tableExists(engine: Engine, describeTable: AnyOperation, tableName: string): Promise<boolean> {
  try {
    await invokeOperation(engine, describeTable, { TableName: tableName });
    return true;
  } catch (error) {
    // An invalid name is CreateTable's to refuse, with its own text.
    if (error instanceof DynamoError) return false;
    throw error;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
