/**
 * Evaluation of parsed ConditionExpression / FilterExpression forms (ast.ts) against a stored item.
 *
 * DynamoDB's rules (Developer Guide "Comparison operator and function reference", and behaviour
 * observed against DynamoDB as recorded in ScyllaDB Alternator's test suite):
 * - an attribute that does not exist makes every comparison, BETWEEN, IN and function false —
 *   except `<>`, which is true whenever either side is missing (even two missing attributes);
 * - values of different types are never equal and never ordered: the comparison is false, not an
 *   error (type errors on *literal* operands are the parser's job, at validation time);
 * - `=`, `<>` and IN work on every type (sets compare as sets, lists and maps deeply);
 *   `<`, `<=`, `>`, `>=`, BETWEEN only order two S, two N or two B values.
 *
 * Nothing here throws for a well-formed Condition: an item can never make a condition an error.
 */
import type { AttributeMap, AttributeValue } from '../model/attribute-value.js';
import { ownMember, typeOf } from '../model/attribute-value.js';
import { compareScalars } from '../model/compare.js';
import { compareNumbers } from '../model/numbers.js';
import type { Comparator, Condition, DocumentPath, Operand } from './ast.js';

export { ownMember };

/**
 * The value at a document path, or undefined when any step is missing: a name on something that
 * is not a map, an index on something that is not a list, or an index past the end of the list.
 */
export function resolvePath(item: AttributeMap | undefined, path: DocumentPath): AttributeValue | undefined {
  if (item === undefined || path.length === 0 || typeof path[0] !== 'string') return undefined;
  let value = ownMember(item, path[0]);
  for (let depth = 1; depth < path.length && value !== undefined; depth++) {
    value = childOf(value, path[depth]!);
  }
  return value;
}

function childOf(value: AttributeValue, step: string | number): AttributeValue | undefined {
  if (typeof step === 'number') return 'L' in value ? value.L[step] : undefined;
  return 'M' in value ? ownMember(value.M, step) : undefined;
}

/**
 * DynamoDB's size(): S → length in UTF-16 code units (DynamoDB is a Java service: `size("é𝄞")` is 3
 * on DynamoDB, not 6 UTF-8 bytes nor 2 code points — ExtendDB verified this against the service,
 * extenddb PR #67; the AWS doc only says "the length of the string"), B → bytes, sets/L → elements,
 * M → members. N, BOOL and NULL have no size: a comparison with it is false, not an error
 * (Alternator's test_update_condition_size, run against DynamoDB).
 */
export function sizeOf(value: AttributeValue): number | undefined {
  if ('S' in value) return value.S.length;
  if ('B' in value) return Buffer.from(value.B, 'base64').length;
  if ('SS' in value) return value.SS.length;
  if ('NS' in value) return value.NS.length;
  if ('BS' in value) return value.BS.length;
  if ('L' in value) return value.L.length;
  if ('M' in value) return Object.keys(value.M).length;
  return undefined;
}

/** The value an operand denotes for this item; undefined for a missing attribute or size-less value. */
export function resolveOperand(operand: Operand, item: AttributeMap | undefined): AttributeValue | undefined {
  switch (operand.kind) {
    case 'value':
      return operand.value;
    case 'path':
      return resolvePath(item, operand.path);
    case 'size': {
      const target = resolvePath(item, operand.path);
      const size = target === undefined ? undefined : sizeOf(target);
      return size === undefined ? undefined : { N: String(size) };
    }
  }
}

/** Raw bytes of base64 wire text. */
export function decodeBinary(base64: string): Buffer {
  return Buffer.from(base64, 'base64');
}

/** One canonical base64 spelling per byte string, so set members can be compared as text. */
export function binaryKey(base64: string): string {
  return decodeBinary(base64).toString('base64');
}

function binaryEqual(left: string, right: string): boolean {
  return left === right || decodeBinary(left).equals(decodeBinary(right));
}

/**
 * Set equality ignoring order. Sets never hold duplicates (validated on the way in), so equal size
 * plus inclusion is equality.
 */
function sameMembers(left: readonly string[], right: readonly string[], key: (member: string) => string): boolean {
  if (left.length !== right.length) return false;
  const members = new Set(right.map(key));
  return left.every((member) => members.has(key(member)));
}

function identity(member: string): string {
  return member;
}

function sameList(left: readonly AttributeValue[], right: readonly AttributeValue[]): boolean {
  return left.length === right.length && left.every((element, index) => valuesEqual(element, right[index]!));
}

/** Two items (or maps) with the same attributes, each equal by DynamoDB's equality. */
export function itemsEqual(left: AttributeMap, right: AttributeMap): boolean {
  return sameMap(left, right);
}

function sameMap(left: AttributeMap, right: AttributeMap): boolean {
  const names = Object.keys(left);
  if (names.length !== Object.keys(right).length) return false;
  return names.every((name) => {
    const other = ownMember(right, name);
    return other !== undefined && valuesEqual(left[name]!, other);
  });
}

/**
 * DynamoDB equality: same type and same value; sets as sets, lists element-wise, maps member-wise.
 * Numbers are canonical text (validation rewrites them), so NS members compare as strings.
 */
export function valuesEqual(left: AttributeValue, right: AttributeValue): boolean {
  if ('S' in left) return 'S' in right && left.S === right.S;
  if ('N' in left) return 'N' in right && compareNumbers(left.N, right.N) === 0;
  if ('B' in left) return 'B' in right && binaryEqual(left.B, right.B);
  if ('BOOL' in left) return 'BOOL' in right && left.BOOL === right.BOOL;
  if ('NULL' in left) return 'NULL' in right;
  if ('SS' in left) return 'SS' in right && sameMembers(left.SS, right.SS, identity);
  if ('NS' in left) return 'NS' in right && sameMembers(left.NS, right.NS, identity);
  if ('BS' in left) return 'BS' in right && sameMembers(left.BS, right.BS, binaryKey);
  if ('L' in left) return 'L' in right && sameList(left.L, right.L);
  return 'M' in right && sameMap(left.M, right.M);
}

/**
 * Order of two values when DynamoDB can order them (two S by UTF-8 bytes, two N by value, two B by
 * unsigned bytes); undefined for any other pair, which makes the comparison false.
 */
export function orderOf(left: AttributeValue, right: AttributeValue): number | undefined {
  const sameScalar = ('S' in left && 'S' in right) || ('N' in left && 'N' in right) || ('B' in left && 'B' in right);
  return sameScalar ? compareScalars(left, right) : undefined;
}

function compare(comparator: Comparator, left: AttributeValue | undefined, right: AttributeValue | undefined): boolean {
  // `a <> b` is true when either side is missing, even when both are (Alternator test_update_condition_ne_two_unset).
  if (comparator === '<>') return left === undefined || right === undefined || !valuesEqual(left, right);
  if (left === undefined || right === undefined) return false;
  if (comparator === '=') return valuesEqual(left, right);
  const order = orderOf(left, right);
  if (order === undefined) return false;
  switch (comparator) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
  }
}

function between(subject: AttributeValue | undefined, low: AttributeValue | undefined, high: AttributeValue | undefined): boolean {
  if (subject === undefined || low === undefined || high === undefined) return false;
  const fromLow = orderOf(subject, low);
  const toHigh = orderOf(subject, high);
  // BETWEEN is inclusive at both ends; bounds out of order simply match nothing.
  return fromLow !== undefined && toHigh !== undefined && fromLow >= 0 && toHigh <= 0;
}

/**
 * begins_with: S by string prefix, B by byte prefix; any other pair is false. (For well-formed
 * strings a UTF-16 prefix is exactly a UTF-8 byte prefix.)
 */
function beginsWith(subject: AttributeValue | undefined, prefix: AttributeValue | undefined): boolean {
  if (subject === undefined || prefix === undefined) return false;
  if ('S' in subject && 'S' in prefix) return subject.S.startsWith(prefix.S);
  if ('B' in subject && 'B' in prefix) {
    const bytes = decodeBinary(subject.B);
    const start = decodeBinary(prefix.B);
    return start.length <= bytes.length && bytes.subarray(0, start.length).equals(start);
  }
  return false;
}

/**
 * contains: substring of an S, byte substring of a B, member of a set of the matching element type,
 * or an element (deep-equal, any type) of a list. The operand may be of any type — DynamoDB's doc
 * says "must be a String" but the service accepts e.g. contains(numberSet, :n) (Alternator
 * test_update_condition_contains).
 */
function contains(subject: AttributeValue | undefined, operand: AttributeValue | undefined): boolean {
  if (subject === undefined || operand === undefined) return false;
  if ('S' in subject) return 'S' in operand && subject.S.includes(operand.S);
  if ('B' in subject) return 'B' in operand && decodeBinary(subject.B).includes(decodeBinary(operand.B));
  if ('SS' in subject) return 'S' in operand && subject.SS.includes(operand.S);
  if ('NS' in subject) return 'N' in operand && subject.NS.some((member) => compareNumbers(member, operand.N) === 0);
  if ('BS' in subject) return 'B' in operand && subject.BS.some((member) => binaryEqual(member, operand.B));
  if ('L' in subject) return subject.L.some((element) => valuesEqual(element, operand));
  return false;
}

/** attribute_type(subject, :t): true when the subject (attribute or value) exists and its type tag is the S value :t. */
function hasType(value: AttributeValue | undefined, type: AttributeValue | undefined): boolean {
  return value !== undefined && type !== undefined && 'S' in type && typeOf(value) === type.S;
}

/**
 * Evaluates a condition against an item; `undefined` is an item that does not exist, for which
 * every attribute is missing (so `attribute_not_exists(pk)` holds, as DynamoDB's idiom relies on).
 */
export function evaluateCondition(condition: Condition, item: AttributeMap | undefined): boolean {
  const value = (operand: Operand): AttributeValue | undefined => resolveOperand(operand, item);
  switch (condition.kind) {
    case 'compare':
      return compare(condition.comparator, value(condition.left), value(condition.right));
    case 'between':
      return between(value(condition.subject), value(condition.low), value(condition.high));
    case 'in': {
      const subject = value(condition.subject);
      if (subject === undefined) return false;
      return condition.candidates.some((candidate) => {
        const other = value(candidate);
        return other !== undefined && valuesEqual(subject, other);
      });
    }
    case 'and':
      return evaluateCondition(condition.left, item) && evaluateCondition(condition.right, item);
    case 'or':
      return evaluateCondition(condition.left, item) || evaluateCondition(condition.right, item);
    case 'not':
      return !evaluateCondition(condition.operand, item);
    case 'attribute_exists':
      return resolvePath(item, condition.path) !== undefined;
    case 'attribute_not_exists':
      return resolvePath(item, condition.path) === undefined;
    case 'attribute_type':
      return hasType(value(condition.subject), value(condition.type));
    case 'begins_with':
      return beginsWith(value(condition.subject), value(condition.prefix));
    case 'contains':
      return contains(value(condition.subject), value(condition.operand));
  }
}
