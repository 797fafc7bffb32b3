/**
 * ExecuteTransaction: up to 100 PartiQL statements run all or nothing — writes (INSERT, UPDATE,
 * DELETE, and EXISTS(SELECT ...) condition checks) as one TransactWriteItems, or reads (full-key
 * SELECTs) as one TransactGetItems; a transaction may not mix the two. ClientRequestToken is
 * TransactWriteItems' idempotency token.
 *
 * A statement's own faults are reported as `Validation failed in TransactStatements[i]: ...`;
 * an INSERT whose item exists cancels the transaction with a DuplicateItem reason.
 */
import type { ReturnConsumedCapacity } from '../capacity/units.js';
import type { Engine } from '../engine/engine.js';
import type { Table } from '../engine/table.js';
import { DynamoError, validationError } from '../errors.js';
import type { AttributeMap, AttributeValue } from '../model/attribute-value.js';
import { MESSAGES } from '../partiql/errors.js';
import { compileStatement } from '../partiql/lower.js';
import { asPartiqlError, invoke, unnest, validateOnly } from './partiql-run.js';
import { tableOf, type Statement } from '../partiql/statement.js';
import {
  singleItemSelect,
  translateConditionCheck,
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
import { TRANSACT_ITEMS_MAX } from './transactWriteItems.js';

interface CompiledStatement {
  readonly statement: Statement;
  readonly returnValuesOnConditionCheckFailure: string | undefined;
}

interface ExecuteTransactionRequest {
  readonly statements: readonly CompiledStatement[];
  readonly reads: boolean;
  readonly clientRequestToken: string | undefined;
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
}

interface StatementInput {
  readonly Statement: string;
  readonly Parameters?: AttributeValue[];
  readonly ReturnValuesOnConditionCheckFailure?: string;
}

export const executeTransactionOperation = defineOperation<ExecuteTransactionRequest>({
  name: 'ExecuteTransaction',
  members: {
    TransactStatements: shapes.list(
      shapes.structure('ParameterizedStatement', {
        Statement: statementMember,
        Parameters: parametersMember,
        ReturnValuesOnConditionCheckFailure: returnValuesOnConditionCheckFailureMember,
      }),
      { notNull: true, lengthMin: 1, lengthMax: TRANSACT_ITEMS_MAX },
    ),
    ClientRequestToken: shapes.string({ lengthMin: 1, lengthMax: 36 }),
    ReturnConsumedCapacity: returnConsumedCapacityMember,
  },

  validate(input) {
    const statements = (input.TransactStatements as StatementInput[]).map((statement, index) => compileMember(statement, index));
    const reads = statements.map(({ statement }) => statement.kind === 'select');
    if (reads.some((read) => read !== reads[0])) throw validationError(MESSAGES.transactionMixed);
    return {
      statements,
      reads: reads[0]!,
      clientRequestToken: input.ClientRequestToken as string | undefined,
      returnConsumedCapacity: consumedCapacityMode(input),
    };
  },

  tables(request) {
    return distinctTables(request.statements.map((member) => tableOf(member.statement)));
  },

  execute(engine, request) {
    return request.reads ? readTransaction(engine, request) : writeTransaction(engine, request);
  },
});

/** `Validation failed in TransactStatements[i]: <fault>` for the statement's own faults. */
function memberError(index: number): (error: unknown) => unknown {
  return (error) => {
    if (!(error instanceof DynamoError) || error.code !== 'ValidationException') return error;
    return validationError(`Validation failed in TransactStatements[${index}]: ${error.message}`);
  };
}

function compileMember(input: StatementInput, index: number): CompiledStatement {
  const wrap = memberError(index);
  const statement = compileStatement(input.Statement, input.Parameters ?? [], wrap);
  if ((statement.kind === 'update' || statement.kind === 'delete') && statement.returning !== undefined) {
    throw wrap(validationError(MESSAGES.transactionReturning));
  }
  if (statement.kind === 'select' && statement.index !== undefined) throw wrap(validationError(MESSAGES.transactionIndex));
  return { statement, returnValuesOnConditionCheckFailure: input.ReturnValuesOnConditionCheckFailure };
}

function options(member: CompiledStatement): TranslationOptions {
  return {
    consistentRead: false,
    returnConsumedCapacity: undefined,
    returnValuesOnConditionCheckFailure: member.returnValuesOnConditionCheckFailure,
  };
}

/**
 * Resolves each statement's table (a missing one is ResourceNotFoundException, unwrapped) and
 * translates it, reporting a statement's own fault under its index.
 */
function translateMembers<T>(
  engine: Engine,
  request: ExecuteTransactionRequest,
  translate: (member: CompiledStatement, table: Table) => T,
): T[] {
  return request.statements.map((member, index) => {
    const table = engine.requireTable(tableOf(member.statement));
    try {
      return translate(member, table);
    } catch (error) {
      throw memberError(index)(error);
    }
  });
}

async function readTransaction(engine: Engine, request: ExecuteTransactionRequest): Promise<object> {
  const gets = translateMembers(engine, request, (member, table) => {
    const statement = member.statement as Extract<Statement, { kind: 'select' }>;
    const get = singleItemSelect(statement, table, options(member));
    if (get === undefined) throw validationError(MESSAGES.transactionSelectKey);
    return get;
  });
  const output = await invokeTransaction(engine, 'TransactGetItems', {
    TransactItems: gets.map((get) => ({ Get: withoutReadOptions(get.input) })),
    ...capacityMember(request),
  });
  const responses = (output.Responses as { Item?: AttributeMap }[]).map((response, index) =>
    response.Item === undefined ? {} : { Item: unnest(response.Item, gets[index]!.projection) },
  );
  return { Responses: responses, ...(output.ConsumedCapacity === undefined ? {} : { ConsumedCapacity: output.ConsumedCapacity }) };
}

async function writeTransaction(engine: Engine, request: ExecuteTransactionRequest): Promise<object> {
  const items = translateMembers(engine, request, (member, table) => writeItem(engine, member, table));
  const output = await invokeTransaction(
    engine,
    'TransactWriteItems',
    {
      TransactItems: items,
      ...(request.clientRequestToken === undefined ? {} : { ClientRequestToken: request.clientRequestToken }),
      ...capacityMember(request),
    },
    request.statements.map((member) => member.statement.kind === 'insert'),
  );
  // DynamoDB answers a write transaction with an empty Responses list (captured).
  return { Responses: [], ...(output.ConsumedCapacity === undefined ? {} : { ConsumedCapacity: output.ConsumedCapacity }) };
}

/**
 * One TransactItems entry: the statement's single-item request in TransactWriteItems' terms,
 * checked first as that single-item request, so its faults are reported as this statement's.
 */
function writeItem(engine: Engine, member: CompiledStatement, table: Table): Record<string, unknown> {
  const statement = member.statement;
  if (statement.kind === 'exists') {
    const check = translateConditionCheck(statement.select, table);
    validateOnly(engine, 'DeleteItem', check.input);
    const failure = member.returnValuesOnConditionCheckFailure;
    return { ConditionCheck: { ...check.input, ...(failure === undefined ? {} : { ReturnValuesOnConditionCheckFailure: failure }) } };
  }
  const request = writeRequest(statement, table, options(member));
  validateOnly(engine, request.operation, request.input);
  const kind = request.operation === 'PutItem' ? 'Put' : request.operation === 'UpdateItem' ? 'Update' : 'Delete';
  return { [kind]: withoutReadOptions(request.input) };
}

function writeRequest(statement: Statement, table: Table, translation: TranslationOptions): ItemRequest {
  switch (statement.kind) {
    case 'insert':
      return translateInsert(statement, table, translation);
    case 'update':
      return translateUpdate(statement, table, translation);
    case 'delete':
      return translateDelete(statement, table, translation);
    default:
      throw validationError(MESSAGES.transactionMixed);
  }
}

/** Members a single-item request has that a transaction item does not. */
function withoutReadOptions(input: ItemRequest['input']): Record<string, unknown> {
  const { ReturnValues: _returnValues, ReturnConsumedCapacity: _capacity, ConsistentRead: _consistent, ...rest } = input;
  return rest;
}

function capacityMember(request: ExecuteTransactionRequest): { ReturnConsumedCapacity?: string } {
  return request.returnConsumedCapacity === undefined ? {} : { ReturnConsumedCapacity: request.returnConsumedCapacity };
}

/**
 * Runs the transaction operation; in a cancellation, an INSERT's failed `attribute_not_exists`
 * is reported as what it means in PartiQL: DuplicateItem.
 */
async function invokeTransaction(
  engine: Engine,
  name: 'TransactGetItems' | 'TransactWriteItems',
  input: Record<string, unknown>,
  inserts: readonly boolean[] = [],
): Promise<Record<string, unknown>> {
  try {
    return await invoke(engine, name, input);
  } catch (error) {
    throw asDuplicateItemReasons(asPartiqlError(error), inserts);
  }
}

interface Reason {
  readonly Code: string;
  readonly Message?: string;
  readonly Item?: AttributeMap;
}

function asDuplicateItemReasons(error: unknown, inserts: readonly boolean[]): unknown {
  if (!(error instanceof DynamoError) || error.code !== 'TransactionCanceledException') return error;
  const reasons = error.extra?.CancellationReasons as readonly Reason[] | undefined;
  if (reasons === undefined || !reasons.some((reason, index) => inserts[index] === true && reason.Code === 'ConditionalCheckFailed')) {
    return error;
  }
  const duplicate: Reason = { Code: 'DuplicateItem', Message: MESSAGES.duplicateItem };
  const mapped = reasons.map((reason, index) => (inserts[index] === true && reason.Code === 'ConditionalCheckFailed' ? duplicate : reason));
  const codes = mapped.map((reason) => reason.Code).join(', ');
  return new DynamoError(error.wireType, `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`, {
    messageField: error.messageField,
    extra: { ...error.extra, CancellationReasons: mapped },
  });
}
