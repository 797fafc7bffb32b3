/**
 * The ValidationException texts of DynamoDB's PartiQL front end. Two families exist:
 * - a statement the parser cannot read: `Statement wasn't well formed, can't be processed: <detail>`
 *   (the detail is the parser's own message; lexer failures leave it empty);
 * - a statement that parses but asks for something DynamoDB does not support: a bare message,
 *   sometimes followed by ` at <line>:<column>:<length>` naming the offending token.
 */
import { validationError, type DynamoError } from '../errors.js';

export const NOT_WELL_FORMED = "Statement wasn't well formed, can't be processed: ";

/** Where a token sits in the statement: 1-based line and column, length in characters. */
export interface SourceSpan {
  readonly line: number;
  readonly column: number;
  readonly length: number;
}

/** A parser (or lexer, with an empty detail) failure. */
export function syntaxError(detail: string): DynamoError {
  return validationError(NOT_WELL_FORMED + detail);
}

/** A refusal of a well-formed statement; `span` appends DynamoDB's ` at L:C:N` when it names a token. */
export function unsupported(message: string, span?: SourceSpan): DynamoError {
  return validationError(span === undefined ? message : `${message} at ${spanText(span)}`);
}

export function spanText(span: SourceSpan): string {
  return `${span.line}:${span.column}:${span.length}`;
}

export const MESSAGES = {
  parameterCount: "Number of parameters in request and statement don't match.",
  incompleteKey: 'Where clause does not contain a mandatory equality on all key attributes',
  aliasing: 'Aliasing is not supported',
  duplicateItem: 'Duplicate primary key exists in table',
  unexpectedPathComponent: 'Unexpected path component',
  booleanWhere: 'WHERE clause must contain an expression that resolves to a boolean',
  andOrOperands: 'The arguments to AND/OR must be Expressions',
  notOperand: 'The argument to NOT must be a Type or Expression',
  missingLiteral: 'MISSING must be compared using IS operator',
  isOperand: 'The left hand side argument to IS must be a Variable Reference, Literal, or Path',
  isInUpdate: 'IS operator is not supported in update expressions',
  inOperands:
    'IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member',
  emptyBag: 'Empty bags are not supported',
  bagType: 'Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags',
  emptyPathComponent: 'Path component cannot be an empty string',
  pathStartsWithIndex: 'A path cannot start with a list index',
  unpivotPath: 'Unpivot path component like a.*.b are not supported',
  wildcardPath: 'Wildcard path component like a[*].b are not supported',
  projectAll: "Changing item's hierarchy while reading isn't supported",
  selectValue: "Select projection doesn't support value or pivot keywords",
  starAndOthers: "Other attributes should not be present in the projection when '*' is used.",
  singleSource: 'Only select from a single table or index is supported.',
  fromPathComponents: 'A path may contain at most 2 components in the FROM clause',
  fromSource: 'Unexpected from source',
  dmlFrom: 'FROM clause may only contain a single table name in data manipulation statements',
  tableName: "Table name should be within the length [3, 255] and only contain 'a-z', 'A-Z', '0-9', '-', '_', '.'.",
  onlySetRemove: 'Only SET and REMOVE are supported in update expressions at this time',
  insertMultiple:
    'Unsupported operation: Inserting multiple items in a single statement is not supported, use "INSERT INTO tableName VALUE item" instead',
  insertFormat: 'Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.',
  insertAt: 'AT is not supported in insert statements.',
  insertFromWhere: 'Unsupported FROM ... WHERE ... clause in INSERT statement.',
  insertReturning: 'RETURNING is not supported in INSERT',
  returningMultiple: 'Invalid syntax with multiple returning elements in RETURNING clause',
  returningStar: "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause",
  existsOutsideTransaction: 'EXISTS can only be used in ExecuteTransaction write requests.',
  existsKey: 'EXISTS() must contain a single item read with additional condition',
  consistentReadOnGsi: 'Strongly consistent read is not supported on Global Secondary Indexes',
  tooManyReads: 'Too many decomposed read operations for a given query.',
  orderByWhere: 'Must have WHERE clause in the statement when using ORDER BY clause.',
  orderByHash: 'Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.',
  invalidNextToken: 'Invalid NextToken',
  nextTokenMismatch: 'NextToken does not match request',
  batchSelectKey: 'Select statements within BatchExecuteStatement must specify the primary key in the where clause.',
  transactionSelectKey: 'Select statements within ExecuteTransaction must specify the primary key in the where clause.',
  transactionIndex: 'Reads on indices are not supported within transactions.',
  transactionReturning: 'RETURNING clause is not supported in ExecuteTransaction.',
  transactionMixed: 'ExecuteTransaction API does not support both read and write operations in the same request.',
  batchMixed: 'Read and write requests together in the same batch is not supported.',
  parameterNumber: 'The parameter cannot be converted to a numeric value',
  nesting: 'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit',
} as const;
