/**
 * Runs PartiQL statements, compiled by src/partiql into operation requests (an operation name and
 * its input), through the ordinary operations (GetItem, PutItem, UpdateItem, DeleteItem, Query,
 * Scan, TransactWriteItems, TransactGetItems) with the server's own `invoke` (invoke.ts): the same
 * shape checks, `validate` and `execute` a client's request gets, so PartiQL and the JSON API share
 * one engine and one set of rules. What differs is how failures read: DynamoDB's PartiQL reports expression
 * faults without the `Invalid <X>Expression: ` prefix, and an INSERT over an existing item as
 * DuplicateItemException.
 */
import { Consumption, type ConsumedCapacity } from '../capacity/consumption.js';
import type { Engine } from '../engine/engine.js';
import { DynamoError, dynamoError, validationError } from '../errors.js';
import { resolvePath } from '../expressions/evaluate.js';
import type { DocumentPath } from '../expressions/ast.js';
import type { AttributeMap, AttributeValue } from '../model/attribute-value.js';
import { setMember } from '../model/attribute-value.js';
import { deleteItemOperation } from './deleteItem.js';
import { getItemOperation } from './getItem.js';
import { checkRequest, invokeOperation } from './invoke.js';
import type { AnyOperation } from './operation.js';
import { putItemOperation } from './putItem.js';
import { queryOperation } from './query.js';
import { scanOperation } from './scan.js';
import { transactGetItemsOperation } from './transactGetItems.js';
import { transactWriteItemsOperation } from './transactWriteItems.js';
import { updateItemOperation } from './updateItem.js';
import { MESSAGES } from '../partiql/errors.js';
import { resultName } from '../partiql/lower.js';
import { encodeNextToken, type PageState } from '../partiql/next-token.js';
import type { Statement } from '../partiql/statement.js';
import {
  isGlobalIndex,
  multiItemSelect,
  singleItemSelect,
  translateDelete,
  translateInsert,
  translateUpdate,
  type ItemRequest,
  type ReadRequest,
  type TranslationOptions,
} from '../partiql/translator.js';

const OPERATIONS = {
  GetItem: getItemOperation,
  PutItem: putItemOperation,
  UpdateItem: updateItemOperation,
  DeleteItem: deleteItemOperation,
  Query: queryOperation,
  Scan: scanOperation,
  TransactWriteItems: transactWriteItemsOperation,
  TransactGetItems: transactGetItemsOperation,
} as const satisfies Record<string, AnyOperation>;

export type OperationName = keyof typeof OPERATIONS;

const EXPRESSION_PREFIX = /^Invalid (?:Condition|Filter|KeyCondition|Update|Projection)Expression: /;

/**
 * Runs one operation on a request the compiler built, as the server runs a client's (invoke.ts).
 * The input is the compiler's, shared with the statement: validation canonicalises numbers in
 * place, so it gets its own copy.
 */
export async function invoke(engine: Engine, name: OperationName, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  try {
    return (await invokeOperation(engine, OPERATIONS[name] as AnyOperation, structuredClone(input))) as Record<string, unknown>;
  } catch (error) {
    throw asPartiqlError(error);
  }
}

/**
 * Runs only the checks of `name` on `input` (shape and `validate`), so that a fault in one
 * statement of a transaction can be reported as that statement's.
 */
export function validateOnly(engine: Engine, name: OperationName, input: Record<string, unknown>): void {
  try {
    checkRequest(OPERATIONS[name] as AnyOperation, structuredClone(input), { expressions: engine.expressions });
  } catch (error) {
    throw asPartiqlError(error);
  }
}

/** DynamoDB's PartiQL words expression faults without naming the expression parameter. */
export function asPartiqlError(error: unknown): unknown {
  if (error instanceof DynamoError && error.code === 'ValidationException' && EXPRESSION_PREFIX.test(error.message)) {
    return validationError(error.message.replace(EXPRESSION_PREFIX, ''));
  }
  return error;
}

/** What ExecuteStatement answers. */
export interface StatementResult {
  readonly Items: AttributeMap[];
  readonly NextToken?: string;
  readonly LastEvaluatedKey?: AttributeMap;
  readonly ConsumedCapacity?: unknown;
}

export interface StatementRun {
  readonly statement: Statement;
  readonly options: TranslationOptions;
  readonly limit: number | undefined;
  /** Where a previous page stopped (from NextToken). */
  readonly page: PageState | undefined;
  /** Binds the NextToken this run may hand out to its request. */
  readonly fingerprint: string;
}

export async function runStatement(engine: Engine, run: StatementRun): Promise<StatementResult> {
  const statement = run.statement;
  switch (statement.kind) {
    case 'select':
      return runSelect(engine, run);
    case 'insert':
      return runWrite(engine, translateInsert(statement, engine.requireTable(statement.table), run.options));
    case 'update':
      return runWrite(engine, translateUpdate(statement, engine.requireTable(statement.table), run.options));
    case 'delete':
      return runWrite(engine, translateDelete(statement, engine.requireTable(statement.table), run.options));
    case 'exists':
      throw validationError(MESSAGES.existsOutsideTransaction);
  }
}

/** A single-item write; its result is the RETURNING attributes, if any were asked for. */
export async function runWrite(engine: Engine, request: ItemRequest): Promise<StatementResult> {
  let output: Record<string, unknown>;
  try {
    output = await invoke(engine, request.operation, request.input);
  } catch (error) {
    throw request.operation === 'PutItem' ? asDuplicateItem(error) : error;
  }
  const attributes = output.Attributes as AttributeMap | undefined;
  const items = request.returnsItem === true && attributes !== undefined && Object.keys(attributes).length > 0 ? [attributes] : [];
  return withCapacity({ Items: items }, output.ConsumedCapacity);
}

/** An INSERT's `attribute_not_exists` failing means the item already exists. */
export function asDuplicateItem(error: unknown): unknown {
  if (error instanceof DynamoError && error.code === 'ConditionalCheckFailedException') {
    return dynamoError('DuplicateItemException', MESSAGES.duplicateItem);
  }
  return error;
}

async function runSelect(engine: Engine, run: StatementRun): Promise<StatementResult> {
  const statement = run.statement as Extract<Statement, { kind: 'select' }>;
  const table = engine.requireTable(statement.table);
  if (run.options.consistentRead && isGlobalIndex(table, statement.index)) throw validationError(MESSAGES.consistentReadOnGsi);
  const single = run.page === undefined ? singleItemSelect(statement, table, run.options) : undefined;
  if (single !== undefined) return runGet(engine, single);
  return readPages(engine, multiItemSelect(statement, table, run.options), run);
}

async function runGet(engine: Engine, request: ItemRequest): Promise<StatementResult> {
  const output = await invoke(engine, 'GetItem', request.input);
  const item = output.Item as AttributeMap | undefined;
  return withCapacity({ Items: item === undefined ? [] : [unnest(item, request.projection)] }, output.ConsumedCapacity);
}

/**
 * Reads the SELECT's Query/Scan inputs in order from where the last page stopped, until a read
 * stops early (1 MB, or Limit items evaluated) — that read's position becomes the NextToken.
 */
async function readPages(engine: Engine, request: ReadRequest, run: StatementRun): Promise<StatementResult> {
  const items: AttributeMap[] = [];
  const capacities: unknown[] = [];
  let part = run.page?.part ?? 0;
  let startKey = run.page?.startKey;
  let remaining = run.limit;
  while (part < request.inputs.length) {
    const input = {
      ...request.inputs[part]!,
      ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      ...(remaining === undefined ? {} : { Limit: remaining }),
    };
    const output = await invoke(engine, request.operation, input);
    for (const item of output.Items as AttributeMap[]) items.push(unnest(item, request.projection));
    if (output.ConsumedCapacity !== undefined) capacities.push(output.ConsumedCapacity);
    const lastKey = output.LastEvaluatedKey as AttributeMap | undefined;
    if (remaining !== undefined) remaining -= output.ScannedCount as number;
    if (lastKey !== undefined) return page(items, capacities, run, { part, startKey: lastKey }, lastKey);
    part++;
    startKey = undefined;
    if (remaining !== undefined && remaining <= 0 && part < request.inputs.length) {
      return page(items, capacities, run, { part, startKey: undefined }, undefined);
    }
  }
  return page(items, capacities, run, undefined, undefined);
}

function page(
  items: AttributeMap[],
  capacities: readonly unknown[],
  run: StatementRun,
  next: PageState | undefined,
  lastKey: AttributeMap | undefined,
): StatementResult {
  const result: StatementResult = {
    Items: items,
    ...(next === undefined ? {} : { NextToken: encodeNextToken(run.fingerprint, next) }),
    ...(lastKey === undefined ? {} : { LastEvaluatedKey: lastKey }),
  };
  return withCapacity(result, mergeCapacity(capacities));
}

function withCapacity(result: StatementResult, capacity: unknown): StatementResult {
  return capacity === undefined ? result : { ...result, ConsumedCapacity: capacity };
}

/** One table's ConsumedCapacity summed over the reads of a decomposed SELECT. */
function mergeCapacity(capacities: readonly unknown[]): unknown {
  if (capacities.length <= 1) return capacities[0];
  const first = capacities[0] as ConsumedCapacity;
  const consumption = new Consumption();
  for (const capacity of capacities) consumption.merge(capacity as ConsumedCapacity, 'read');
  return consumption.toConsumedCapacities(first.Table === undefined ? 'TOTAL' : 'INDEXES')![0];
}

/**
 * DynamoDB returns a projected SELECT "unnested": each projected value keyed by the last map
 * member of its path plus any list indexes after it (`SELECT a.b[1]` → `{"b[1]": ...}`).
 */
export function unnest(item: AttributeMap, projection: readonly DocumentPath[] | undefined): AttributeMap {
  if (projection === undefined) return item;
  const result: Record<string, AttributeValue> = {};
  for (const path of projection) {
    const value = resolvePath(item, path);
    if (value !== undefined) setMember(result, resultName(path), value);
  }
  return result;
}
