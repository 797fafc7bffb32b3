/**
 * PartiQL values → DynamoDB AttributeValues: literals (`'s'`, numbers, `true`, `NULL`, `{...}`,
 * `[...]`, `<<...>>`) and `?` parameters, with DynamoDB's texts for what it refuses.
 *
 * A literal's errors name where in the value they occurred, DynamoDB style: `root` for the value
 * itself, `root.x` for member `x` of a map, `root[1]` for the second list element.
 */
import { DynamoError, validationError } from '../errors.js';
import type { AttributeMap, AttributeValue } from '../model/attribute-value.js';
import { setMember } from '../model/attribute-value.js';
import { canonicalizeNumber } from '../model/numbers.js';
import { NESTING_DEPTH_MAX, validateAttributeValue } from '../model/validate-item.js';
import { MESSAGES, unsupported } from './errors.js';
import type { ExpressionSyntax } from './syntax.js';

/** Where a value's literals come from: the statement's `?` parameters, already validated. */
export interface ValueSource {
  readonly parameters: readonly AttributeValue[];
}

/** The AttributeValue a value expression denotes; throws DynamoDB's refusal otherwise. */
export function valueOf(syntax: ExpressionSyntax, source: ValueSource, location = 'root'): AttributeValue {
  switch (syntax.kind) {
    case 'parameter':
      return parameterValue(syntax.ordinal, source);
    case 'literal':
      return literalValue(syntax, location);
    case 'list':
      return { L: syntax.items.map((item, index) => valueOf(item, source, `${location}[${index}]`)) };
    case 'bag':
      return bagValue(syntax.items, source, location);
    case 'struct':
      return { M: structValue(syntax, source, location) };
    default:
      throw unsupported(`Unsupported data type: ${identifierOf(syntax)} under key ${location}`, syntax.span);
  }
}

/** Whether `valueOf` can turn the expression into a value (else it is a path, call, operator ...). */
export function isValueSyntax(syntax: ExpressionSyntax): boolean {
  switch (syntax.kind) {
    case 'parameter':
    case 'list':
    case 'bag':
    case 'struct':
      return true;
    case 'literal':
      return syntax.literal.type !== 'missing';
    default:
      return false;
  }
}

export function parameterValue(ordinal: number, source: ValueSource): AttributeValue {
  const value = source.parameters[ordinal - 1];
  if (value === undefined) throw validationError(MESSAGES.parameterCount);
  return value;
}

function literalValue(syntax: Extract<ExpressionSyntax, { kind: 'literal' }>, location: string): AttributeValue {
  const literal = syntax.literal;
  switch (literal.type) {
    case 'string':
      return { S: literal.value };
    case 'number':
      return { N: numberAt(literal.text, location) };
    case 'boolean':
      return { BOOL: literal.value };
    case 'null':
      return { NULL: true };
    case 'missing':
      throw validationError(MESSAGES.missingLiteral);
    case 'ion':
      throw validationError(`Ion Literals are not supported: ${literal.text} under key ${location}`);
  }
}

/** A number literal under DynamoDB's number rules; the message names where the literal sat. */
function numberAt(text: string, location: string): string {
  try {
    return canonicalizeNumber(text);
  } catch (error) {
    if (error instanceof DynamoError) throw validationError(`${error.message} under ${location}`);
    throw error;
  }
}

/** `<<...>>`: a string set or a number set; DynamoDB has no other bag. */
function bagValue(items: readonly ExpressionSyntax[], source: ValueSource, location: string): AttributeValue {
  if (items.length === 0) throw validationError(MESSAGES.emptyBag);
  const members = items.map((item, index) => valueOf(item, source, `${location}[${index}]`));
  if (members.every((member) => 'S' in member)) return { SS: members.map((member) => (member as { S: string }).S) };
  if (members.every((member) => 'N' in member)) return { NS: members.map((member) => (member as { N: string }).N) };
  throw validationError(MESSAGES.bagType);
}

function structValue(syntax: Extract<ExpressionSyntax, { kind: 'struct' }>, source: ValueSource, location: string): AttributeMap {
  const map: Record<string, AttributeValue> = {};
  for (const field of syntax.fields) {
    const key = field.key;
    if (key.kind !== 'literal' || key.literal.type !== 'string') {
      throw validationError(`Tuple keys must be of type String. Actual type: ${keyTypeOf(key)} under ${location}`);
    }
    const name = key.literal.value;
    if (Object.hasOwn(map, name)) throw validationError(`Duplicate keys in tuple. Key: ${name} under ${location}`);
    setMember(map, name, valueOf(field.value, source, `${location}.${name}`));
  }
  return map;
}

/** The Ion type DynamoDB names a non-string tuple key by. */
function keyTypeOf(key: ExpressionSyntax): string {
  if (key.kind !== 'literal') return identifierOf(key);
  switch (key.literal.type) {
    case 'number':
      return /^-?\d+$/.test(key.literal.text) ? 'INT' : 'DECIMAL';
    case 'boolean':
      return 'BOOL';
    case 'null':
      return 'NULL';
    default:
      return key.literal.type.toUpperCase();
  }
}

/** How DynamoDB names an expression it cannot use where a value belongs. */
export function identifierOf(syntax: ExpressionSyntax): string {
  switch (syntax.kind) {
    case 'name':
      return syntax.name;
    case 'call':
      return syntax.name;
    case 'path':
      return 'PATH';
    case 'literal':
      return syntax.literal.type === 'missing' ? 'MISSING' : syntax.literal.type.toUpperCase();
    case 'parameter':
      return 'PARAMETER';
    case 'binary':
      return syntax.operator.replace('_', ' ');
    case 'unary':
      return syntax.operator;
    case 'between':
      return 'between';
    case 'is':
      return 'is';
    case 'list':
      return 'LIST';
    case 'bag':
      return 'BAG';
    case 'struct':
      return 'STRUCT';
    case 'select':
      return 'SELECT';
    case 'dml':
      return 'UNKNOWN';
  }
}

// ---------------------------------------------------------------------------------------------
// Parameters

const JAVA_DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE]([+-]?\d+))?$/;
const INT32_MAX = 2147483647;

/**
 * Validates the request's Parameters in document order, reporting the first problem as DynamoDB
 * does: too deep, or a number Java's BigDecimal cannot read (`The parameter cannot be converted
 * ...`), then DynamoDB's usual number and value rules. Numbers are made canonical in place.
 */
export function validateParameters(parameters: readonly AttributeValue[]): void {
  for (const parameter of parameters) checkParameterValue(parameter, 0);
  for (const parameter of parameters) validateAttributeValue(parameter, 0);
}

function checkParameterValue(value: AttributeValue, depth: number): void {
  if (depth > NESTING_DEPTH_MAX) throw validationError(MESSAGES.nesting);
  // A null inside L or M is left to validateAttributeValue, which answers it as for an item.
  if (value === null || typeof value !== 'object') return;
  if ('N' in value) checkParameterNumber(value.N);
  else if ('NS' in value) for (const member of value.NS) checkParameterNumber(member);
  else if ('L' in value) for (const item of value.L) checkParameterValue(item, depth + 1);
  else if ('M' in value) for (const name in value.M) checkParameterValue(value.M[name]!, depth + 1);
}

function checkParameterNumber(text: string): void {
  if (typeof text !== 'string' || text === '') throw validationError(MESSAGES.parameterNumber);
  const match = JAVA_DECIMAL.exec(text);
  if (match === null || (match[1] !== undefined && Math.abs(Number(match[1])) > INT32_MAX)) {
    throw validationError(`${MESSAGES.parameterNumber}: ${text}`);
  }
}
