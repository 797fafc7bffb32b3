/**
 * The parsed forms of DynamoDB's expressions. The parser (parser.ts) produces them with every
 * `#name` placeholder resolved to its attribute name and every `:value` placeholder resolved to
 * its AttributeValue; the evaluator (evaluate.ts, update.ts) consumes them. Nothing here refers
 * to the request text any more, so a parsed expression can be cached and shared.
 */
import type { AttributeValue } from '../model/attribute-value.js';
import type { DocumentPath } from './projection.js';

export type { DocumentPath, PathElement } from './projection.js';

/** A value an expression reads: an attribute of the item, a literal, or size() of a path. */
export type Operand =
  | { readonly kind: 'path'; readonly path: DocumentPath }
  | { readonly kind: 'value'; readonly value: AttributeValue }
  | { readonly kind: 'size'; readonly path: DocumentPath };

export type Comparator = '=' | '<>' | '<' | '<=' | '>' | '>=';

/** ConditionExpression / FilterExpression / KeyConditionExpression. */
export type Condition =
  | { readonly kind: 'compare'; readonly comparator: Comparator; readonly left: Operand; readonly right: Operand }
  | { readonly kind: 'between'; readonly subject: Operand; readonly low: Operand; readonly high: Operand }
  | { readonly kind: 'in'; readonly subject: Operand; readonly candidates: readonly Operand[] }
  | { readonly kind: 'and'; readonly left: Condition; readonly right: Condition }
  | { readonly kind: 'or'; readonly left: Condition; readonly right: Condition }
  | { readonly kind: 'not'; readonly operand: Condition }
  | { readonly kind: 'attribute_exists'; readonly path: DocumentPath }
  | { readonly kind: 'attribute_not_exists'; readonly path: DocumentPath }
  // The subject may be a value (`attribute_type(:v, :t)`): DynamoDB accepts it and tests the value's type.
  | { readonly kind: 'attribute_type'; readonly subject: Operand; readonly type: Operand }
  | { readonly kind: 'begins_with'; readonly subject: Operand; readonly prefix: Operand }
  | { readonly kind: 'contains'; readonly subject: Operand; readonly operand: Operand };

/** The right-hand side of `SET path = ...`. */
export type SetValue =
  | Operand
  | { readonly kind: 'plus'; readonly left: SetValue; readonly right: SetValue }
  | { readonly kind: 'minus'; readonly left: SetValue; readonly right: SetValue }
  | { readonly kind: 'if_not_exists'; readonly path: DocumentPath; readonly fallback: SetValue }
  | { readonly kind: 'list_append'; readonly first: SetValue; readonly second: SetValue };

/** An UpdateExpression: its clauses in the order DynamoDB applies them. */
export interface UpdateActions {
  readonly set: readonly { readonly path: DocumentPath; readonly value: SetValue }[];
  readonly remove: readonly DocumentPath[];
  readonly add: readonly { readonly path: DocumentPath; readonly value: AttributeValue }[];
  readonly delete: readonly { readonly path: DocumentPath; readonly value: AttributeValue }[];
}

/** A KeyConditionExpression reduced to what a Query needs. */
export interface KeyCondition {
  readonly partitionKey: { readonly name: string; readonly value: AttributeValue };
  readonly sortKey?: {
    readonly name: string;
    readonly condition:
      | { readonly kind: 'compare'; readonly comparator: Exclude<Comparator, '<>'>; readonly value: AttributeValue }
      | { readonly kind: 'between'; readonly low: AttributeValue; readonly high: AttributeValue }
      | { readonly kind: 'begins_with'; readonly prefix: AttributeValue };
  };
  /**
   * On an index with a multi-attribute key: every partition key attribute's value (key schema
   * order; `partitionKey` is the first), and the sort key attributes before `sortKey` (the last one
   * the condition names), each compared by equality.
   */
  readonly multi?: {
    readonly partition: readonly KeyValue[];
    readonly sortPrefix: readonly KeyValue[];
  };
}

export interface KeyValue {
  readonly name: string;
  readonly value: AttributeValue;
}
