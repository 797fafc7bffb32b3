/**
 * ExecuteStatement: one PartiQL statement (SELECT, INSERT, UPDATE, DELETE), compiled by
 * src/partiql and run through the ordinary item operations (partiql/runner.ts).
 *
 * validate parses the statement, binds and checks its parameters and applies every rule that
 * needs no table; execute resolves the table, works out the key and the read plan, and runs it.
 */
import type { ReturnConsumedCapacity } from '../capacity/units.js';
import type { AttributeValue } from '../model/attribute-value.js';
import { compileStatement } from '../partiql/lower.js';
import { decodeNextToken, statementFingerprint, type PageState } from '../partiql/next-token.js';
import { runStatement } from './partiql-run.js';
import { tableOf, type Statement } from '../partiql/statement.js';
import { consumedCapacityMode, returnConsumedCapacityMember } from './common.js';
import { defineOperation } from './operation.js';
import { shapes, type Member } from './shape.js';

/** DynamoDB's bound on a statement: 8 KB (checked as characters by the shape, as DynamoDB's model says). */
export const STATEMENT_LENGTH_MAX = 8192;
export const NEXT_TOKEN_LENGTH_MAX = 32768;

export const statementMember: Member = shapes.string({ notNull: true, lengthMin: 1, lengthMax: STATEMENT_LENGTH_MAX });
export const parametersMember: Member = shapes.list(shapes.attributeValue(), { lengthMin: 1 });
export const returnValuesOnConditionCheckFailureMember: Member = shapes.string({ enumValues: ['ALL_OLD', 'NONE'] });

interface ExecuteStatementRequest {
  readonly statement: Statement;
  readonly page: PageState | undefined;
  readonly fingerprint: string;
  readonly consistentRead: boolean;
  readonly limit: number | undefined;
  readonly returnConsumedCapacity: ReturnConsumedCapacity | undefined;
  readonly returnValuesOnConditionCheckFailure: string | undefined;
}

export const executeStatementOperation = defineOperation<ExecuteStatementRequest>({
  name: 'ExecuteStatement',
  members: {
    Statement: statementMember,
    Parameters: parametersMember,
    ConsistentRead: shapes.boolean(),
    NextToken: shapes.string({ lengthMin: 1, lengthMax: NEXT_TOKEN_LENGTH_MAX }),
    ReturnConsumedCapacity: returnConsumedCapacityMember,
    Limit: shapes.integer({ valueMin: 1 }),
    ReturnValuesOnConditionCheckFailure: returnValuesOnConditionCheckFailureMember,
  },

  validate(input) {
    const text = input.Statement as string;
    const parameters = (input.Parameters as AttributeValue[] | undefined) ?? [];
    const statement = compileStatement(text, parameters);
    const fingerprint = statementFingerprint(text, parameters);
    const token = input.NextToken as string | undefined;
    return {
      statement,
      page: token === undefined ? undefined : decodeNextToken(token, fingerprint),
      fingerprint,
      consistentRead: input.ConsistentRead === true,
      limit: input.Limit as number | undefined,
      returnConsumedCapacity: consumedCapacityMode(input),
      returnValuesOnConditionCheckFailure: input.ReturnValuesOnConditionCheckFailure as string | undefined,
    };
  },

  tables(request) {
    return tableOf(request.statement);
  },

  execute(engine, request) {
    return runStatement(engine, {
      statement: request.statement,
      options: {
        consistentRead: request.consistentRead,
        returnConsumedCapacity: request.returnConsumedCapacity,
        returnValuesOnConditionCheckFailure: request.returnValuesOnConditionCheckFailure,
      },
      limit: request.limit,
      page: request.page,
      fingerprint: request.fingerprint,
    });
  },
});
