/**
 * What a PartiQL statement asks DynamoDB to do, in DynamoDB's terms: the statement model that
 * lower.ts builds from the parse tree (with parameters bound) and translator.ts turns into
 * operation requests. Paths are document paths, values are AttributeValues; nothing refers to
 * the statement text any more.
 */
import type { Comparator, DocumentPath } from '../expressions/ast.js';
import type { AttributeMap, AttributeValue } from '../model/attribute-value.js';

export type Operand =
  | { readonly kind: 'path'; readonly path: DocumentPath }
  | { readonly kind: 'value'; readonly value: AttributeValue }
  /** A function used as a value: size(...) in conditions; list_append / if_not_exists in updates. */
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Operand[] }
  | { readonly kind: 'arithmetic'; readonly operator: '+' | '-'; readonly left: Operand; readonly right: Operand };

/** A WHERE clause, as a DynamoDB condition over operands. */
export type Predicate =
  | { readonly kind: 'compare'; readonly comparator: Comparator; readonly left: Operand; readonly right: Operand }
  | { readonly kind: 'between'; readonly subject: Operand; readonly low: Operand; readonly high: Operand }
  | { readonly kind: 'in'; readonly subject: Operand; readonly candidates: readonly Operand[] }
  | { readonly kind: 'and' | 'or'; readonly left: Predicate; readonly right: Predicate }
  | { readonly kind: 'not'; readonly operand: Predicate }
  /** attribute_exists, attribute_not_exists, attribute_type, begins_with, contains. */
  | { readonly kind: 'function'; readonly name: string; readonly args: readonly Operand[] };

export type UpdateAction =
  | { readonly kind: 'set'; readonly path: DocumentPath; readonly value: Operand }
  | { readonly kind: 'remove'; readonly path: DocumentPath }
  /** set_add / set_delete: DynamoDB's ADD and DELETE of set members. */
  | { readonly kind: 'add' | 'delete'; readonly path: DocumentPath; readonly value: AttributeValue };

export type ReturnValues = 'ALL_OLD' | 'ALL_NEW' | 'UPDATED_OLD' | 'UPDATED_NEW';

export interface SelectStatement {
  readonly kind: 'select';
  readonly table: string;
  readonly index: string | undefined;
  /** undefined for `SELECT *`. */
  readonly projection: readonly DocumentPath[] | undefined;
  readonly where: Predicate | undefined;
  /** ORDER BY: attribute names, descending or not. */
  readonly orderBy: readonly { readonly name: string; readonly descending: boolean }[] | undefined;
}

export interface InsertStatement {
  readonly kind: 'insert';
  readonly table: string;
  readonly item: AttributeMap;
}

export interface UpdateStatement {
  readonly kind: 'update';
  readonly table: string;
  readonly where: Predicate | undefined;
  readonly actions: readonly UpdateAction[];
  readonly returning: ReturnValues | undefined;
}

export interface DeleteStatement {
  readonly kind: 'delete';
  readonly table: string;
  readonly where: Predicate | undefined;
  readonly returning: ReturnValues | undefined;
}

/** `EXISTS(SELECT ...)`: a condition check, only inside ExecuteTransaction. */
export interface ExistsStatement {
  readonly kind: 'exists';
  readonly select: SelectStatement;
}

export type Statement = SelectStatement | InsertStatement | UpdateStatement | DeleteStatement | ExistsStatement;

export function isRead(statement: Statement): boolean {
  return statement.kind === 'select';
}

/** The table a statement reads or writes. */
export function tableOf(statement: Statement): string {
  return statement.kind === 'exists' ? statement.select.table : statement.table;
}
