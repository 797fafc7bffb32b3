/**
 * BatchExecuteStatement: up to 25 PartiQL statements, all reads or all writes, each run on its
 * own (no atomicity) and answered on its own: `{TableName, Item}` or `{TableName, Error: {Code,
 * Message}}`. A statement that does not compile gets its own ValidationError; the others still
 * run. Reads must name one item by its full primary key (a GetItem); writes are the same
 * single-item writes ExecuteStatement runs.
 */
import { Consumption, type ConsumedCapacity, type ReturnConsumedCapacity } from '../capacity/consumption.js';
import type { Engine } from '../engine/engine.js';
import type { Table } from '../engine/table.js';
import { DynamoError, validationError } from '../errors.js';
import type { AttributeMap, AttributeValue } from '../model/attribute-value.js';
import { MESSAGES } from '../partiql/errors.js';
import { compileStatement } from '../partiql/lower.js';
import { asDuplicateItem, invoke, unnest } from './partiql-run.js';
import { isRead, tableOf, type Statement } from '../partiql/statement.js';
import {
  singleItemSelect,
  translateDelete,
  translateInsert,
  translateUpdate,
  type ItemRequest,
  type TranslationOptions,
} from '../partiql/translator.js';
import { consumedCapacityMode, returnConsumedCapacityMember } from './common.js';
import { parametersMember, returnValuesOnConditionCheckFailureMember, statementMember } from './executeStatement.js';
import { defineOperation, distinctTables } from './operation.js';
import { shapes } from './shape.js';

export const BATCH_STATEMENTS_MAX = 25;

/** A statement that compiled, or the error it answers with. */
type Entry =
  | { readonly kind: 'statement'; readonly statement: Statement; readonly options: TranslationOptions }
  | { readonly kind: 'error'; readonly error: DynamoError };

interface BatchExecuteStatementRequest {
  readonly entries: readonly Entry[];
  readonly reads: boolean;
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
}

interface StatementInput {
  readonly Statement: string;
  readonly Parameters?: AttributeValue[];
  readonly ConsistentRead?: boolean;
  readonly ReturnValuesOnConditionCheckFailure?: string;
}

export const batchExecuteStatementOperation = defineOperation<BatchExecuteStatementRequest>({
  name: 'BatchExecuteStatement',
  members: {
    Statements: shapes.list(
      shapes.structure('BatchStatementRequest', {
        Statement: statementMember,
        Parameters: parametersMember,
        ConsistentRead: shapes.boolean(),
        ReturnValuesOnConditionCheckFailure: returnValuesOnConditionCheckFailureMember,
      }),
      { notNull: true, lengthMin: 1, lengthMax: BATCH_STATEMENTS_MAX },
    ),
    ReturnConsumedCapacity: returnConsumedCapacityMember,
  },

  validate(input) {
    const mode = consumedCapacityMode(input);
    const entries = (input.Statements as StatementInput[]).map((statement) => compileEntry(statement, mode));
    return { entries, reads: batchKind(entries), returnConsumedCapacity: mode };
  },

  tables(request) {
    return distinctTables(request.entries.flatMap((entry) => (entry.kind === 'statement' ? [tableOf(entry.statement)] : [])));
  },

  async execute(engine, request) {
    const consumption = new Consumption();
    const planned = request.entries.map((entry) => planEntry(engine, entry, request.reads));
    if (!request.reads) requireDistinctItems(planned);
    const responses: Record<string, unknown>[] = [];
    // One after another, as DynamoDB runs them: a later statement sees an earlier one's write.
    for (const plan of planned) responses.push(await runPlan(engine, plan, consumption));
    return { Responses: responses, ConsumedCapacity: consumption.toConsumedCapacities(request.returnConsumedCapacity) };
  },
});

function compileEntry(input: StatementInput, mode: ReturnConsumedCapacity | undefined): Entry {
  try {
    const statement = compileStatement(input.Statement, input.Parameters ?? []);
    if (statement.kind === 'exists') throw validationError(MESSAGES.existsOutsideTransaction);
    const options: TranslationOptions = {
      consistentRead: input.ConsistentRead === true,
      returnConsumedCapacity: mode,
      returnValuesOnConditionCheckFailure: input.ReturnValuesOnConditionCheckFailure,
    };
    return { kind: 'statement', statement, options };
  } catch (error) {
    if (error instanceof DynamoError) return { kind: 'error', error };
    throw error;
  }
}

/** The first statement that compiled decides; the batch may not mix reads and writes. */
function batchKind(entries: readonly Entry[]): boolean {
  const kinds = entries.flatMap((entry) => (entry.kind === 'statement' ? [isRead(entry.statement)] : []));
  if (kinds.some((kind) => kind !== kinds[0])) throw validationError(MESSAGES.batchMixed);
  return kinds[0] ?? false;
}

type Plan =
  | { readonly kind: 'request'; readonly request: ItemRequest }
  | { readonly kind: 'error'; readonly error: DynamoError; readonly table?: string };

/** Resolves the table and key of one statement; a fault there is that statement's answer. */
function planEntry(engine: Engine, entry: Entry, reads: boolean): Plan {
  if (entry.kind === 'error') return entry;
  const statement = entry.statement;
  try {
    const table = engine.requireTable(tableOf(statement));
    return { kind: 'request', request: translateEntry(statement, table, entry.options, reads) };
  } catch (error) {
    if (error instanceof DynamoError) return { kind: 'error', error, table: tableOf(statement) };
    throw error;
  }
}

function translateEntry(statement: Statement, table: Table, options: TranslationOptions, reads: boolean): ItemRequest {
  switch (statement.kind) {
    case 'select': {
      const request = reads ? singleItemSelect(statement, table, options) : undefined;
      if (request === undefined) throw validationError(MESSAGES.batchSelectKey);
      return request;
    }
    case 'insert':
      return translateInsert(statement, table, options);
    case 'update':
      return translateUpdate(statement, table, options);
    case 'delete':
      return translateDelete(statement, table, options);
    case 'exists':
      throw validationError(MESSAGES.existsOutsideTransaction);
  }
}

/** Two writes to one item in one batch are refused, as BatchWriteItem refuses them. */
function requireDistinctItems(plans: readonly Plan[]): void {
  const seen = new Set<string>();
  for (const plan of plans) {
    if (plan.kind !== 'request') continue;
    const identity = JSON.stringify([plan.request.table, plan.request.key]);
    if (seen.has(identity)) throw validationError('Provided list of item keys contains duplicates');
    seen.add(identity);
  }
}

async function runPlan(engine: Engine, plan: Plan, consumption: Consumption): Promise<Record<string, unknown>> {
  if (plan.kind === 'error') return errorResponse(plan.error, plan.table);
  const request = plan.request;
  try {
    const output = await invoke(engine, request.operation, request.input);
    const capacity = output.ConsumedCapacity as ConsumedCapacity | undefined;
    if (capacity !== undefined) consumption.merge(capacity, request.operation === 'GetItem' ? 'read' : 'write');
    return { TableName: request.table, ...itemOf(request, output) };
  } catch (error) {
    const mapped = request.operation === 'PutItem' ? asDuplicateItem(error) : error;
    if (mapped instanceof DynamoError) return errorResponse(mapped, request.table);
    throw mapped;
  }
}

function itemOf(request: ItemRequest, output: Record<string, unknown>): Record<string, unknown> {
  if (request.operation === 'GetItem') {
    const item = output.Item as AttributeMap | undefined;
    return item === undefined ? {} : { Item: unnest(item, request.projection) };
  }
  const attributes = output.Attributes as Record<string, unknown> | undefined;
  return request.returnsItem === true && attributes !== undefined && Object.keys(attributes).length > 0 ? { Item: attributes } : {};
}

/** DynamoDB's BatchStatementError codes for the exceptions a statement can raise. */
const ERROR_CODES: Readonly<Record<string, string>> = {
  ValidationException: 'ValidationError',
  ConditionalCheckFailedException: 'ConditionalCheckFailed',
  DuplicateItemException: 'DuplicateItem',
  ResourceNotFoundException: 'ResourceNotFound',
  TransactionConflictException: 'TransactionConflict',
  ProvisionedThroughputExceededException: 'ProvisionedThroughputExceeded',
  ThrottlingException: 'ThrottlingError',
  RequestLimitExceeded: 'RequestLimitExceeded',
  ItemCollectionSizeLimitExceededException: 'ItemCollectionSizeLimitExceeded',
  AccessDeniedException: 'AccessDenied',
};

function errorResponse(error: DynamoError, table: string | undefined): Record<string, unknown> {
  const code = ERROR_CODES[error.code];
  const item = error.extra?.Item;
  const body =
    code === undefined
      ? { Code: 'InternalServerError', Message: 'Internal server error' }
      : { Code: code, Message: error.message, ...(item === undefined ? {} : { Item: item }) };
  return { ...(table === undefined ? {} : { TableName: table }), Error: body };
}
