/**
 * Request shapes: what each operation's JSON input must look like, checked in DynamoDB's two
 * phases.
 *
 * 1. Deserialization (`deserialize`): JSON types must fit the member types, as DynamoDB's Java
 *    deserializer sees them. A mismatch is a SerializationException with the deserializer's own
 *    wording ("NUMBER_VALUE cannot be converted to String" ...). Null members count as absent.
 * 2. Constraints (`checkConstraints`): required members, enums, lengths, patterns and ranges,
 *    reported together as "N validation error(s) detected: ..." with the member's path, at most
 *    ten of them, as DynamoDB does.
 *
 * Operation-specific rules (key schema checks, item contents ...) come after both, in each
 * operation's own `validate`.
 */
import { serializationError, validationError } from '../errors.js';
import { checkAttributeValue, checkAttributeMap } from './attribute-shape.js';

export interface Constraints {
  /** Top-level member that must be present: "The parameter 'X' is required but was not present in the request". */
  readonly required?: boolean;
  readonly notNull?: boolean;
  readonly enumValues?: readonly string[];
  /** A regular expression (unanchored text as DynamoDB prints it). */
  readonly pattern?: string;
  readonly lengthMin?: number;
  readonly lengthMax?: number;
  /**
   * An empty string fails only this length minimum, before the other rules: the data plane's
   * TableName, which also takes an ARN (length 1 and up), refuses '' for its length alone and
   * applies the name's own pattern and lengths to anything else.
   */
  readonly emptyLengthMin?: number;
  readonly valueMin?: number;
  readonly valueMax?: number;
  /** Constraints every key of a map must satisfy ("Map keys must satisfy constraint: [...]"). */
  readonly mapKeys?: Constraints;
  /** Length bounds every value of a map must satisfy ("Map value must satisfy constraint: [...]"). */
  readonly mapValues?: Pick<Constraints, 'lengthMin' | 'lengthMax'>;
}

export type Shape =
  | { readonly kind: 'string' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'integer' | 'long' }
  | { readonly kind: 'double' }
  | { readonly kind: 'blob' }
  | { readonly kind: 'timestamp' }
  | { readonly kind: 'list'; readonly member: Member }
  | { readonly kind: 'map'; readonly javaValueType: string; readonly value: Member }
  | { readonly kind: 'structure'; readonly name: string; readonly members: Readonly<Record<string, Member>> }
  | { readonly kind: 'attributeValue' }
  | { readonly kind: 'attributeMap' };

export interface Member {
  readonly shape: Shape;
  readonly constraints?: CompiledConstraints;
}

/** Constraints with their pattern compiled once, when the shape is built, not per request. */
interface CompiledConstraints extends Constraints {
  readonly regex?: RegExp;
  readonly mapKeys?: CompiledConstraints;
}

function compile(constraints: Constraints | undefined): CompiledConstraints | undefined {
  if (constraints === undefined) return undefined;
  return {
    ...constraints,
    regex: constraints.pattern === undefined ? undefined : new RegExp('^(?:' + constraints.pattern + ')$', 's'),
    mapKeys: compile(constraints.mapKeys),
  };
}

/** Shape builders, so operation files read like DynamoDB's API reference. */
export const shapes = {
  string: (constraints?: Constraints): Member => ({ shape: { kind: 'string' }, constraints: compile(constraints) }),
  boolean: (constraints?: Constraints): Member => ({ shape: { kind: 'boolean' }, constraints: compile(constraints) }),
  integer: (constraints?: Constraints): Member => ({ shape: { kind: 'integer' }, constraints: compile(constraints) }),
  long: (constraints?: Constraints): Member => ({ shape: { kind: 'long' }, constraints: compile(constraints) }),
  double: (constraints?: Constraints): Member => ({ shape: { kind: 'double' }, constraints: compile(constraints) }),
  blob: (constraints?: Constraints): Member => ({ shape: { kind: 'blob' }, constraints: compile(constraints) }),
  timestamp: (constraints?: Constraints): Member => ({ shape: { kind: 'timestamp' }, constraints: compile(constraints) }),
  list: (member: Member, constraints?: Constraints): Member => ({ shape: { kind: 'list', member }, constraints: compile(constraints) }),
  map: (javaValueType: string, value: Member, constraints?: Constraints): Member => ({
    shape: { kind: 'map', javaValueType, value },
    constraints: compile(constraints),
  }),
  structure: (name: string, members: Record<string, Member>, constraints?: Constraints): Member => ({
    shape: { kind: 'structure', name, members },
    constraints: compile(constraints),
  }),
  attributeValue: (constraints?: Constraints): Member => ({ shape: { kind: 'attributeValue' }, constraints: compile(constraints) }),
  attributeMap: (constraints?: Constraints): Member => ({ shape: { kind: 'attributeMap' }, constraints: compile(constraints) }),
};

/** Common constraint sets. */
export const TABLE_NAME_CONSTRAINTS: Constraints = { pattern: '[a-zA-Z0-9_.-]+', lengthMin: 3, lengthMax: 255 };
/** Operations that also accept a table ARN in TableName allow up to 1024 characters. */
export const TABLE_NAME_OR_ARN_CONSTRAINTS: Constraints = { lengthMin: 1, lengthMax: 1024 };

const VALIDATION_ERRORS_MAX = 10;

// ---------------------------------------------------------------------------------------------
// Phase 1: deserialization
// ---------------------------------------------------------------------------------------------

/** Checks a parsed JSON body against an operation's members; removes null members in place. */
export function deserialize(body: unknown, members: Readonly<Record<string, Member>>): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw serializationError();
  return deserializeStructureMembers(body as Record<string, unknown>, members);
}

function deserializeStructureMembers(
  value: Record<string, unknown>,
  members: Readonly<Record<string, Member>>,
): Record<string, unknown> {
  for (const name in value) {
    // Own members only: `constructor`, `toString` or `__proto__` in a body are unknown members,
    // not the shape object's inherited properties.
    const member = Object.hasOwn(members, name) ? members[name] : undefined;
    const memberValue = value[name];
    // Unknown members are ignored by DynamoDB; drop them (and nulls) so later code never sees them.
    if (member === undefined || memberValue === null) {
      delete value[name];
      continue;
    }
    value[name] = deserializeValue(memberValue, member.shape, 'field');
  }
  return value;
}

/** `position` tells whether the value sits in a structure field or in a list/map (wording differs). */
function deserializeValue(value: unknown, shape: Shape, position: 'field' | 'element'): unknown {
  switch (shape.kind) {
    case 'string':
      return expectString(value, 'String');
    case 'boolean':
      return expectBoolean(value);
    case 'integer':
      return expectInteger(value, 'Integer');
    case 'long':
      return expectInteger(value, 'Long');
    case 'double':
      return expectDouble(value, 'Double');
    case 'timestamp':
      return expectDouble(value, 'Date');
    case 'blob':
      return expectBlob(value);
    case 'list':
      return deserializeList(value, shape.member.shape);
    case 'map':
      return deserializeMap(value, shape.javaValueType, shape.value.shape);
    case 'structure':
      return deserializeStructure(value, shape.name, shape.members, position);
    case 'attributeValue':
      return checkAttributeValue(value, position);
    case 'attributeMap':
      return checkAttributeMap(value);
  }
}

export function jsonTypeWord(value: number | boolean): string {
  if (typeof value === 'boolean') return value ? 'TRUE_VALUE' : 'FALSE_VALUE';
  return Number.isInteger(value) ? 'NUMBER_VALUE' : 'DECIMAL_VALUE';
}

export function expectString(value: unknown, javaType: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') {
    throw serializationError(jsonTypeWord(value) + ' cannot be converted to ' + javaType);
  }
  throw structureOrCollectionError(value, 'class java.lang.' + javaType);
}

function structureOrCollectionError(value: unknown, collectionClass: string): Error {
  if (Array.isArray(value)) return serializationError('Unrecognized collection type ' + collectionClass);
  return serializationError('Start of structure or map found where not expected');
}

const TRUE_WORDS = new Set(['TRUE', '1', 'YES']);
const FALSE_WORDS = new Set(['FALSE', '0', 'NO']);

export function expectBoolean(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') throw serializationError(jsonTypeWord(value) + ' cannot be converted to Boolean');
  if (typeof value === 'string') {
    // The Java deserializer coerces these words to booleans; anything else is a parse error.
    const word = value.toUpperCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
    throw serializationError('Unexpected token received from parser');
  }
  throw structureOrCollectionError(value, 'class java.lang.Boolean');
}

function expectInteger(value: unknown, javaType: 'Integer' | 'Long'): number {
  if (typeof value === 'number') return Math.trunc(value);
  if (typeof value === 'string') throw serializationError('STRING_VALUE cannot be converted to ' + javaType);
  if (typeof value === 'boolean') throw serializationError(jsonTypeWord(value) + ' cannot be converted to ' + javaType);
  throw structureOrCollectionError(value, 'class java.lang.' + javaType);
}

function expectDouble(value: unknown, javaType: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') throw serializationError('STRING_VALUE cannot be converted to ' + javaType);
  if (typeof value === 'boolean') throw serializationError(jsonTypeWord(value) + ' cannot be converted to ' + javaType);
  throw structureOrCollectionError(value, 'class java.lang.' + javaType);
}

const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;

/** Blob members arrive as base64 text; DynamoDB rejects text that is not canonical base64. */
export function expectBlob(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') {
    throw serializationError('only base-64-encoded strings are convertible to bytes');
  }
  if (typeof value !== 'string') throw structureOrCollectionError(value, 'class java.nio.ByteBuffer');
  if (value.length % 4 !== 0) {
    throw serializationError('Base64 encoded length is expected a multiple of 4 bytes but found: ' + value.length);
  }
  if (!BASE64_PATTERN.test(value) || !hasCanonicalBase64Tail(value)) {
    throw serializationError('Invalid last non-pad Base64 character dectected');
  }
  return value;
}

/** The last data character before padding must not carry bits that the padding discards. */
function hasCanonicalBase64Tail(value: string): boolean {
  if (value.endsWith('==')) return base64Index(value.charCodeAt(value.length - 3)) % 16 === 0;
  if (value.endsWith('=')) return base64Index(value.charCodeAt(value.length - 2)) % 4 === 0;
  return true;
}

function base64Index(code: number): number {
  if (code >= 65 && code <= 90) return code - 65;
  if (code >= 97 && code <= 122) return code - 71;
  if (code >= 48 && code <= 57) return code + 4;
  return code === 43 ? 62 : 63;
}

function deserializeList(value: unknown, member: Shape): unknown[] {
  if (!Array.isArray(value)) {
    if (value !== null && typeof value === 'object') {
      throw serializationError('Start of structure or map found where not expected');
    }
    throw serializationError('Unexpected field type');
  }
  for (let index = 0; index < value.length; index++) {
    const element: unknown = value[index];
    // A null inside a list stays null: DynamoDB then reports it as a constraint violation.
    if (element !== null) value[index] = deserializeValue(element, member, 'element');
  }
  return value;
}

function deserializeMap(value: unknown, javaValueType: string, member: Shape): Record<string, unknown> {
  if (value === null || typeof value !== 'object') throw serializationError('Unexpected field type');
  if (Array.isArray(value)) {
    const qualified = javaValueType.includes('.') ? javaValueType : 'com.amazonaws.dynamodb.v20120810.' + javaValueType;
    throw serializationError('Unrecognized collection type java.util.Map<java.lang.String, ' + qualified + '>');
  }
  const map = value as Record<string, unknown>;
  for (const key in map) {
    const element = map[key];
    if (element === null) delete map[key];
    else map[key] = deserializeValue(element, member, 'element');
  }
  return map;
}

function deserializeStructure(
  value: unknown,
  name: string,
  members: Readonly<Record<string, Member>>,
  position: 'field' | 'element',
): Record<string, unknown> {
  if (value === null || typeof value !== 'object') {
    throw serializationError(position === 'field' ? 'Unexpected field type' : 'Unexpected value type in payload');
  }
  if (Array.isArray(value)) {
    throw serializationError('Unrecognized collection type class com.amazonaws.dynamodb.v20120810.' + name);
  }
  return deserializeStructureMembers(value as Record<string, unknown>, members);
}

// ---------------------------------------------------------------------------------------------
// Phase 2: constraints
// ---------------------------------------------------------------------------------------------

/** Runs every member's constraints; throws one ValidationException listing up to ten failures. */
export function checkConstraints(input: Record<string, unknown>, members: Readonly<Record<string, Member>>): void {
  for (const name in members) {
    if (members[name]!.constraints?.required && input[name] === undefined) {
      throw validationError(`The parameter '${name}' is required but was not present in the request`);
    }
  }
  const site = new FailureSite();
  checkStructureConstraints(input, members, site);
  const failures = site.failures;
  if (failures.length > 0) {
    const count = failures.length;
    throw validationError(`${count} validation error${count > 1 ? 's' : ''} detected: ${failures.join('; ')}`);
  }
}

function checkStructureConstraints(value: Record<string, unknown>, members: Readonly<Record<string, Member>>, site: FailureSite): void {
  for (const name in members) {
    checkMember(value[name], members[name]!, name, false, site);
  }
}

function joinPath(parentPath: string, name: string): string {
  return parentPath === '' ? name : parentPath + '.' + name;
}

export function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/**
 * A member's path in messages, from its parent's path and its step: a structure field name
 * (`parent.fieldName`), or a list index / map key (`parent.step.member`).
 *
 * Paths are built only when a failure is reported: every request passes every member of its
 * operation through here, and building each path up front (plus a closure per member) was
 * measurable on the request path for no benefit when nothing fails.
 */
function memberPath(parentPath: string, step: string | number, element: boolean): string {
  return element ? `${parentPath}.${step}.member` : joinPath(parentPath, lowerFirst(step as string));
}

/**
 * Checks one member's value, and what it holds. The steps down to it are the site's (enter and
 * leave around a container's members), turned into a path only for a failure: a path string per
 * container walked into was ~250 bytes per item of a BatchWriteItem (sampled heap profile).
 */
function checkMember(value: unknown, member: Member, step: string | number, element: boolean, site: FailureSite): void {
  const constraints = member.constraints;
  if (constraints !== undefined) {
    site.moveTo(value, step, element, member.shape);
    checkValueConstraints(value, constraints, site);
  }
  if (value === undefined || value === null) return;
  const shape = member.shape;
  if (shape.kind === 'structure') {
    site.enter(step, element);
    checkStructureConstraints(value as Record<string, unknown>, shape.members, site);
    site.leave();
  } else if (shape.kind === 'list') {
    const list = value as unknown[];
    if (list.length === 0) return;
    site.enter(step, element);
    for (let index = 0; index < list.length; index++) {
      const listElement = list[index];
      // A null element (kept by deserialization) is a constraint failure whatever the element's
      // own constraints say: no operation can use it.
      if (listElement === null) {
        site.moveTo(null, index + 1, true);
        site.fail('Member must not be null');
        continue;
      }
      checkMember(listElement, shape.member, index + 1, true, site);
    }
    site.leave();
  } else if (shape.kind === 'map') {
    // Values without constraints or members of their own (ExpressionAttributeNames' strings and
    // ExpressionAttributeValues' attribute values) can fail nothing here: they are not walked.
    if (!canFail(shape.value)) return;
    const map = value as Record<string, unknown>;
    site.enter(step, element);
    for (const key in map) checkMember(map[key], shape.value, key, true, site);
    site.leave();
  }
}

/** Whether checkMember could report a failure for a value of `member`: it has constraints, or members to check. */
function canFail(member: Member): boolean {
  const kind = member.shape.kind;
  return member.constraints !== undefined || kind === 'structure' || kind === 'list' || kind === 'map';
}

const NO_FAILURES: readonly string[] = Object.freeze([]);

/**
 * Containers a path may pass through: shapes nest a few levels (a BatchWriteItem item is four
 * down), and the walk follows shapes, not the input's own nesting (an attribute value is not
 * walked here), so this is never reached by any request.
 */
const PATH_DEPTH_MAX = 32;

/**
 * The failures found so far and where the value being checked sits: the containers walked into
 * (a stack of steps) and the member being checked. One per checkConstraints call, moved from
 * member to member, so checking allocates nothing unless a rule is broken.
 */
class FailureSite {
  /** Made at the first failure: most requests have none, and need no list. */
  #failures: string[] | undefined = undefined;
  /** The first `#depth` entries are the steps into the current container (made at the first one). */
  #steps: (string | number)[] | undefined = undefined;
  #elements: boolean[] | undefined = undefined;
  #depth = 0;
  #value: unknown = undefined;
  #step: string | number = '';
  #element = false;
  #shape: Shape | undefined = undefined;

  /** Into the container at `step` (a structure field, or a list or map element). */
  enter(step: string | number, element: boolean): void {
    const depth = this.#depth++;
    if (depth >= PATH_DEPTH_MAX) throw new Error(`assertion failed: member paths nest at most ${PATH_DEPTH_MAX} containers`);
    const steps = (this.#steps ??= []);
    const elements = (this.#elements ??= []);
    if (depth < steps.length) {
      steps[depth] = step;
      elements[depth] = element;
    } else {
      steps.push(step);
      elements.push(element);
    }
  }

  leave(): void {
    if (this.#depth === 0) throw new Error('assertion failed: left a container never entered');
    this.#depth--;
  }

  moveTo(value: unknown, step: string | number, element: boolean, shape?: Shape): void {
    this.#value = value;
    this.#step = step;
    this.#element = element;
    this.#shape = shape;
  }

  get failures(): readonly string[] {
    return this.#failures ?? NO_FAILURES;
  }

  fail(rule: string): void {
    const failures = (this.#failures ??= []);
    if (failures.length < VALIDATION_ERRORS_MAX) {
      failures.push(describeFailure(this.#value, this.#shape, memberPath(this.#containerPath(), this.#step, this.#element), rule));
    }
  }

  #containerPath(): string {
    let path = '';
    for (let at = 0; at < this.#depth; at++) path = memberPath(path, this.#steps![at]!, this.#elements![at]!);
    return path;
  }
}

function checkValueConstraints(value: unknown, constraints: CompiledConstraints, site: FailureSite): void {
  if (value === undefined || value === null) {
    if (constraints.notNull) site.fail('Member must not be null');
    return;
  }
  if (value === '' && constraints.emptyLengthMin !== undefined) {
    site.fail('Member must have length greater than or equal to ' + constraints.emptyLengthMin);
    return;
  }
  if (constraints.enumValues !== undefined && !constraints.enumValues.includes(value as string)) {
    site.fail(`Member must satisfy enum value set: [${constraints.enumValues.join(', ')}]`);
  }
  if (constraints.regex !== undefined && !constraints.regex.test(value as string)) {
    site.fail('Member must satisfy regular expression pattern: ' + constraints.pattern);
  }
  if (constraints.lengthMin !== undefined || constraints.lengthMax !== undefined) {
    const length = lengthOf(value);
    if (constraints.lengthMin !== undefined && length < constraints.lengthMin) {
      site.fail('Member must have length greater than or equal to ' + constraints.lengthMin);
    }
    if (constraints.lengthMax !== undefined && length > constraints.lengthMax) {
      site.fail('Member must have length less than or equal to ' + constraints.lengthMax);
    }
  }
  if (constraints.valueMin !== undefined && (value as number) < constraints.valueMin) {
    site.fail('Member must have value greater than or equal to ' + constraints.valueMin);
  }
  if (constraints.valueMax !== undefined && (value as number) > constraints.valueMax) {
    site.fail('Member must have value less than or equal to ' + constraints.valueMax);
  }
  if (constraints.mapKeys !== undefined) checkMapKeys(value as Record<string, unknown>, constraints.mapKeys, site);
  if (constraints.mapValues !== undefined) checkMapValues(value as Record<string, unknown>, constraints.mapValues, site);
}

function checkMapKeys(map: Record<string, unknown>, keyConstraints: CompiledConstraints, site: FailureSite): void {
  for (const key in map) {
    const tooShort = keyConstraints.lengthMin !== undefined && key.length < keyConstraints.lengthMin;
    const tooLong = keyConstraints.lengthMax !== undefined && key.length > keyConstraints.lengthMax;
    const badPattern = keyConstraints.regex !== undefined && !keyConstraints.regex.test(key);
    if (!tooShort && !tooLong && !badPattern) continue;
    // DynamoDB lists the maximum before the minimum (BatchGetItem / BatchWriteItem captures).
    const rules = lengthRules(keyConstraints);
    if (keyConstraints.pattern !== undefined) rules.push('Member must satisfy regular expression pattern: ' + keyConstraints.pattern);
    site.fail(`Map keys must satisfy constraint: [${rules.join(', ')}]`);
    return;
  }
}

/** One failure for the whole map when any value's length is out of bounds, as DynamoDB reports it. */
function checkMapValues(map: Record<string, unknown>, valueConstraints: Pick<Constraints, 'lengthMin' | 'lengthMax'>, site: FailureSite): void {
  for (const key in map) {
    const length = lengthOf(map[key]);
    const tooShort = valueConstraints.lengthMin !== undefined && length < valueConstraints.lengthMin;
    const tooLong = valueConstraints.lengthMax !== undefined && length > valueConstraints.lengthMax;
    if (!tooShort && !tooLong) continue;
    site.fail(`Map value must satisfy constraint: [${lengthRules(valueConstraints).join(', ')}]`);
    return;
  }
}

function lengthRules(constraints: Pick<Constraints, 'lengthMin' | 'lengthMax'>): string[] {
  const rules: string[] = [];
  if (constraints.lengthMax !== undefined) rules.push('Member must have length less than or equal to ' + constraints.lengthMax);
  if (constraints.lengthMin !== undefined) rules.push('Member must have length greater than or equal to ' + constraints.lengthMin);
  return rules;
}

/** Length in DynamoDB's sense: characters of a string, elements of a list, entries of a map. */
function lengthOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.length;
  if (value !== null && typeof value === 'object') return Object.keys(value).length;
  return 0;
}

function describeFailure(value: unknown, shape: Shape | undefined, path: string, rule: string): string {
  const shown = value === undefined || value === null ? 'null' : `'${formatValue(value, shape)}'`;
  return `Value ${shown} at '${path}' failed to satisfy constraint: ${rule}`;
}

/**
 * DynamoDB prints lists as [a, b], maps as {k=v}, and request structures as its Java classes print
 * themselves: `KeySchemaElement(attributeName=pk, keyType=HASH)`, every member in order, absent
 * ones as null (captured on AWS: paritysuite/dynamodb-conformance's KeySchema case, quoted in
 * nubo-db/dynoxide#11; BatchWriteItem's `WriteRequest(putRequest=PutRequest(item={...}), ...)`).
 * Attribute values keep the {S=x} form.
 */
function formatValue(value: unknown, shape?: Shape): string {
  if (value === null || value === undefined) return 'null';
  if (shape?.kind === 'structure' && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const fields = Object.keys(shape.members).map((name) => `${lowerFirst(name)}=${formatValue(record[name], shape.members[name]!.shape)}`);
    return `${shape.name}(${fields.join(', ')})`;
  }
  if (shape?.kind === 'map' && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>).map(([key, inner]) => `${key}=${formatValue(inner, shape.value.shape)}`);
    return '{' + entries.join(', ') + '}';
  }
  if (Array.isArray(value)) {
    const member = shape?.kind === 'list' ? shape.member.shape : undefined;
    return '[' + value.map((element) => formatValue(element, member)).join(', ') + ']';
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(([key, inner]) => `${key}=${formatValue(inner)}`);
    return '{' + entries.join(', ') + '}';
  }
  return String(value);
}
