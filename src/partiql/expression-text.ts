/**
 * Writes the statement model back out as DynamoDB expressions (ConditionExpression,
 * UpdateExpression, KeyConditionExpression, FilterExpression, ProjectionExpression), so that a
 * PartiQL statement runs through the same operations — and the same expression checks — as the
 * equivalent GetItem/PutItem/UpdateItem/DeleteItem/Query/Scan request.
 *
 * Every attribute name becomes a `#n` placeholder and every value a `:v` placeholder: PartiQL
 * names may be reserved words or contain any character, and values need no text form. The texts
 * are kept short — base-36 placeholder ids, one placeholder per distinct name and value, no
 * optional spaces — because the operations bound expressions at 4 KB and a statement may be 8 KB.
 * Parentheses are written only where precedence needs them: DynamoDB refuses redundant ones.
 */
import type { DocumentPath } from '../expressions/ast.js';
import type { AttributeValue } from '../model/attribute-value.js';
import type { Operand, Predicate, UpdateAction } from './statement.js';

/** Condition precedence: OR binds weakest, then AND, then NOT; everything else is atomic. */
const PRECEDENCE: Readonly<Record<Predicate['kind'], number>> = {
  or: 1,
  and: 2,
  not: 3,
  compare: 4,
  between: 4,
  in: 4,
  function: 4,
};

export class ExpressionWriter {
  private readonly names = new Map<string, string>();
  private readonly values: Record<string, AttributeValue> = {};
  /** Placeholder by the value's JSON, so a repeated value is written once. */
  private readonly valueKeys = new Map<string, string>();

  name(attribute: string): string {
    let placeholder = this.names.get(attribute);
    if (placeholder === undefined) {
      placeholder = '#' + this.names.size.toString(36);
      this.names.set(attribute, placeholder);
    }
    return placeholder;
  }

  value(value: AttributeValue): string {
    const key = JSON.stringify(value);
    let placeholder = this.valueKeys.get(key);
    if (placeholder === undefined) {
      placeholder = ':' + this.valueKeys.size.toString(36);
      this.valueKeys.set(key, placeholder);
      this.values[placeholder] = value;
    }
    return placeholder;
  }

  path(path: DocumentPath): string {
    let text = '';
    for (const element of path) {
      if (typeof element === 'number') text += `[${element}]`;
      else text += (text === '' ? '' : '.') + this.name(element);
    }
    return text;
  }

  operand(operand: Operand): string {
    switch (operand.kind) {
      case 'path':
        return this.path(operand.path);
      case 'value':
        return this.value(operand.value);
      case 'call':
        return `${operand.name}(${operand.args.map((argument) => this.operand(argument)).join(',')})`;
      case 'arithmetic':
        return `${this.operand(operand.left)}${operand.operator}${this.operand(operand.right)}`;
    }
  }

  /** A condition; `context` is the precedence of the operator it sits under (0 at the top). */
  condition(predicate: Predicate, context = 0): string {
    const text = this.conditionText(predicate);
    return PRECEDENCE[predicate.kind] < context ? `(${text})` : text;
  }

  private conditionText(predicate: Predicate): string {
    switch (predicate.kind) {
      case 'compare':
        return `${this.operand(predicate.left)}${predicate.comparator}${this.operand(predicate.right)}`;
      case 'between':
        return `${this.operand(predicate.subject)} BETWEEN ${this.operand(predicate.low)} AND ${this.operand(predicate.high)}`;
      case 'in':
        return `${this.operand(predicate.subject)} IN (${predicate.candidates.map((candidate) => this.operand(candidate)).join(',')})`;
      case 'function':
        return `${predicate.name}(${predicate.args.map((argument) => this.operand(argument)).join(',')})`;
      case 'not':
        return `NOT ${this.condition(predicate.operand, PRECEDENCE.not)}`;
      case 'and':
      case 'or': {
        const precedence = PRECEDENCE[predicate.kind];
        const keyword = predicate.kind === 'and' ? 'AND' : 'OR';
        return `${this.condition(predicate.left, precedence)} ${keyword} ${this.condition(predicate.right, precedence)}`;
      }
    }
  }

  /** An UpdateExpression: each clause once, in SET, REMOVE, ADD, DELETE order. */
  update(actions: readonly UpdateAction[]): string {
    const clauses: Record<UpdateAction['kind'], string[]> = { set: [], remove: [], add: [], delete: [] };
    for (const action of actions) {
      const path = this.path(action.path);
      if (action.kind === 'set') clauses.set.push(`${path}=${this.operand(action.value)}`);
      else if (action.kind === 'remove') clauses.remove.push(path);
      else clauses[action.kind].push(`${path} ${this.value(action.value)}`);
    }
    return (['set', 'remove', 'add', 'delete'] as const)
      .filter((clause) => clauses[clause].length > 0)
      .map((clause) => `${clause.toUpperCase()} ${clauses[clause].join(',')}`)
      .join(' ');
  }

  projection(paths: readonly DocumentPath[]): string {
    return paths.map((path) => this.path(path)).join(',');
  }

  /** The ExpressionAttributeNames / ExpressionAttributeValues members, omitted when empty. */
  parameters(): { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, AttributeValue> } {
    const result: { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, AttributeValue> } = {};
    if (this.names.size > 0) {
      const names: Record<string, string> = {};
      for (const [attribute, placeholder] of this.names) names[placeholder] = attribute;
      result.ExpressionAttributeNames = names;
    }
    if (this.valueKeys.size > 0) result.ExpressionAttributeValues = this.values;
    return result;
  }
}
