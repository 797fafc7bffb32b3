/**
 * The parse tree of a PartiQL statement: what the text says, before any DynamoDB rule is applied.
 * The parser (parser.ts) accepts the PartiQL grammar DynamoDB's front end accepts, so that a
 * statement DynamoDB parses and then refuses gets DynamoDB's refusal (statement.ts), not a
 * syntax error.
 */
import type { SourceSpan } from './errors.js';

export type LiteralSyntax =
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'number'; readonly text: string }
  | { readonly type: 'boolean'; readonly value: boolean }
  | { readonly type: 'null' }
  | { readonly type: 'missing' }
  | { readonly type: 'ion'; readonly text: string };

export type PathStepSyntax =
  | { readonly kind: 'dot'; readonly name: string; readonly span: SourceSpan }
  | { readonly kind: 'index'; readonly expression: ExpressionSyntax; readonly span: SourceSpan }
  /** `a.*` */
  | { readonly kind: 'unpivot'; readonly span: SourceSpan }
  /** `a[*]` */
  | { readonly kind: 'wildcard'; readonly span: SourceSpan };

/** Binary operators, by their PartiQL spelling (`not_in` is `NOT IN`). */
export type BinaryOperator =
  | 'or'
  | 'and'
  | '='
  | '<>'
  | 'in'
  | 'not_in'
  | '<'
  | '<='
  | '>'
  | '>='
  | 'like'
  | 'not_like'
  | '+'
  | '-'
  | '||'
  | '*'
  | '/'
  | '%';

export type ExpressionSyntax =
  | { readonly kind: 'literal'; readonly literal: LiteralSyntax; readonly span: SourceSpan }
  | { readonly kind: 'parameter'; readonly ordinal: number; readonly span: SourceSpan }
  | { readonly kind: 'name'; readonly name: string; readonly span: SourceSpan }
  | { readonly kind: 'path'; readonly root: ExpressionSyntax; readonly steps: readonly PathStepSyntax[]; readonly span: SourceSpan }
  /** A function call; `name` is lower-cased, `star` marks `COUNT(*)`. */
  | {
      readonly kind: 'call';
      readonly name: string;
      readonly args: readonly ExpressionSyntax[];
      readonly star: boolean;
      readonly span: SourceSpan;
    }
  | { readonly kind: 'unary'; readonly operator: 'not' | '-' | '+'; readonly operand: ExpressionSyntax; readonly span: SourceSpan }
  | {
      readonly kind: 'binary';
      readonly operator: BinaryOperator;
      readonly left: ExpressionSyntax;
      readonly right: ExpressionSyntax;
      readonly span: SourceSpan;
    }
  | {
      readonly kind: 'between';
      readonly negated: boolean;
      readonly subject: ExpressionSyntax;
      readonly low: ExpressionSyntax;
      readonly high: ExpressionSyntax;
      readonly span: SourceSpan;
    }
  /** `x IS [NOT] <type>`; `type` is the type keyword, lower-cased. */
  | {
      readonly kind: 'is';
      readonly negated: boolean;
      readonly subject: ExpressionSyntax;
      readonly type: string;
      readonly span: SourceSpan;
    }
  | { readonly kind: 'list'; readonly items: readonly ExpressionSyntax[]; readonly span: SourceSpan }
  | { readonly kind: 'bag'; readonly items: readonly ExpressionSyntax[]; readonly span: SourceSpan }
  | {
      readonly kind: 'struct';
      readonly fields: readonly { readonly key: ExpressionSyntax; readonly value: ExpressionSyntax }[];
      readonly span: SourceSpan;
    }
  | SelectSyntax
  | DmlSyntax;

/** A FROM source (or the target of UPDATE / DELETE / INSERT) with whatever aliases it was given. */
export interface SourceSyntax {
  readonly expression: ExpressionSyntax;
  /** The first alias written (`AS x`, `x`, `AT x`, `BY x`), which DynamoDB refuses. */
  readonly alias: SourceSpan | undefined;
  /** More than one source (a join or a comma list). */
  readonly joined: boolean;
}

export type SelectItemSyntax =
  | { readonly kind: 'star'; readonly span: SourceSpan }
  /** `a.*` */
  | { readonly kind: 'projectAll'; readonly expression: ExpressionSyntax; readonly span: SourceSpan }
  | { readonly kind: 'expression'; readonly expression: ExpressionSyntax; readonly alias: SourceSpan | undefined };

export interface OrderItemSyntax {
  readonly expression: ExpressionSyntax;
  readonly descending: boolean;
}

export interface SelectSyntax {
  readonly kind: 'select';
  /** undefined for `SELECT VALUE x`. */
  readonly items: readonly SelectItemSyntax[] | undefined;
  readonly distinct: boolean;
  readonly from: SourceSyntax;
  readonly where: ExpressionSyntax | undefined;
  /** GROUP BY, HAVING, LIMIT or OFFSET, which DynamoDB refuses ("Unsupported clause"). */
  readonly unsupportedClause: string | undefined;
  readonly orderBy: readonly OrderItemSyntax[] | undefined;
  readonly span: SourceSpan;
}

export type ReturningMapping = 'all_old' | 'all_new' | 'modified_old' | 'modified_new';

export interface ReturningSyntax {
  readonly mapping: ReturningMapping;
  readonly star: boolean;
  /** More than one element after RETURNING. */
  readonly multiple: boolean;
}

export type DmlOperationSyntax =
  | {
      readonly kind: 'set';
      readonly assignments: readonly { readonly target: ExpressionSyntax; readonly value: ExpressionSyntax }[];
      readonly span: SourceSpan;
    }
  | { readonly kind: 'remove'; readonly target: ExpressionSyntax; readonly span: SourceSpan }
  | {
      readonly kind: 'insertValue';
      readonly target: ExpressionSyntax;
      readonly value: ExpressionSyntax;
      readonly position: ExpressionSyntax | undefined;
      readonly span: SourceSpan;
    }
  /** `INSERT INTO t <expression>`: the multi-item form. */
  | { readonly kind: 'insert'; readonly target: ExpressionSyntax; readonly values: ExpressionSyntax; readonly span: SourceSpan }
  | { readonly kind: 'delete'; readonly span: SourceSpan };

/** UPDATE, DELETE, INSERT and the FROM-first form, normalised as PartiQL normalises them. */
export interface DmlSyntax {
  readonly kind: 'dml';
  /** The FROM source, when the statement names one apart from its operations. */
  readonly source: SourceSyntax | undefined;
  readonly operations: readonly DmlOperationSyntax[];
  readonly where: ExpressionSyntax | undefined;
  readonly returning: ReturningSyntax | undefined;
  readonly span: SourceSpan;
}
