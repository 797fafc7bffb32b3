/**
 * Application of a parsed UpdateExpression (ast.ts UpdateActions) to an item, with DynamoDB's
 * semantics and error texts (Developer Guide "Update expressions"; details of the service's
 * behaviour from ScyllaDB Alternator's test suite, which records what DynamoDB does):
 *
 * - Every right-hand side is evaluated against the item as it was *before* the update ("DynamoDB
 *   evaluates every action against the item's attribute values as they were before the update"),
 *   so `SET a = :v, b = a` copies the old `a`, and `REMOVE a SET b = a` works.
 * - List indexes in all clauses name positions in the *original* list: `REMOVE a[1] SET a[3] = :v`
 *   on [2,3,4,5,6,7] gives [2,4,:v,6,7]. SET past the end appends, several such appends in index
 *   order; REMOVE past the end does nothing.
 * - A path whose parent does not exist, or is not a container of the right kind, is
 *   "The document path provided in the update expression is invalid for update" (SET, REMOVE, ADD
 *   and DELETE alike), while a missing *last* step is fine (REMOVE a.y with no y is a no-op).
 *
 * Stored items are immutable: the result is a new item that shares every value the update does
 * not touch; only the maps and lists on the updated paths are rebuilt.
 */
import { createRequire } from 'node:module';
import { validationError } from '../errors.js';
import type { AttributeMap, AttributeType, AttributeValue } from '../model/attribute-value.js';
import { typeOf } from '../model/attribute-value.js';
import { MAX_EXPONENT, MAX_SIGNIFICANT_DIGITS, MIN_EXPONENT, canonicalizeNumber } from '../model/numbers.js';
import type { DocumentPath, PathElement, SetValue, UpdateActions } from './ast.js';
import { binaryKey, ownMember, resolvePath } from './evaluate.js';
import { applyProjection } from './projection.js';

// decimal.js's ESM build has only a default export while its typings are CommonJS, so a default
// import type-checks as the namespace; loading the CommonJS build gives matching types and runtime.
const { Decimal } = createRequire(import.meta.url)('decimal.js') as typeof import('decimal.js');

/**
 * Exact arithmetic for `+`, `-` and ADD. Operands are valid DynamoDB numbers (first digit at most
 * 10^125, last digit at least 10^-167), so an exact sum needs under 300 digits; with this precision
 * nothing is ever rounded and the range/precision checks below see the true result.
 */
const ExactDecimal = Decimal.clone({ precision: 400, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -1000, toExpPos: 1000 });
type ExactNumber = InstanceType<typeof ExactDecimal>;

const MISSING_ATTRIBUTE = 'The provided expression refers to an attribute that does not exist in the item';
/** An ADD, DELETE or list_append meeting a stored value of another type. */
export const INCORRECT_TYPE = 'An operand in the update expression has an incorrect data type';
const INVALID_PATH = 'The document path provided in the update expression is invalid for update';
const OVERFLOW = 'Number overflow. Attempting to store a number with magnitude larger than supported range';
const UNDERFLOW = 'Number underflow. Attempting to store a number with magnitude smaller than supported range';

/** How DynamoDB names a non-set operand type in ADD/DELETE operand errors. */
const OPERAND_TYPE_NAMES: Readonly<Partial<Record<AttributeType, string>>> = {
  S: 'STRING',
  N: 'NUMBER',
  B: 'BINARY',
  NULL: 'NULL',
  BOOL: 'BOOLEAN',
  L: 'LIST',
  M: 'MAP',
};

type SetType = 'SS' | 'NS' | 'BS';

/** What an update does at the end of one path, with its right-hand side already evaluated. */
type Leaf =
  | { readonly kind: 'set'; readonly value: AttributeValue }
  | { readonly kind: 'remove' }
  | { readonly kind: 'add'; readonly value: AttributeValue }
  | { readonly kind: 'delete'; readonly value: AttributeValue };

/**
 * The update as a tree of path steps, so each map or list on an updated path is rebuilt once, with
 * every action on it seeing the original positions.
 */
interface ActionNode {
  /** A path through this node, for overlap/conflict messages. */
  readonly path: DocumentPath;
  leaf: Leaf | undefined;
  readonly children: Map<PathElement, ActionNode>;
}

// ---------------------------------------------------------------------------------------------
// Right-hand sides
// ---------------------------------------------------------------------------------------------

/** A DynamoDB number text for an exact result, or DynamoDB's range error. */
function toDynamoNumber(result: ExactNumber): string {
  if (result.isZero()) return '0';
  if (result.e > MAX_EXPONENT) throw validationError(OVERFLOW);
  if (result.e < MIN_EXPONENT) throw validationError(UNDERFLOW);
  // DynamoDB reports a result needing more than 38 digits (1e50 + 1) with the *overflow* text, not
  // the "more than 38 significant digits" one it uses for input values (Alternator
  // test_update_expression_plus_imprecise notes this against the service).
  if (result.sd() > MAX_SIGNIFICANT_DIGITS) throw validationError(OVERFLOW);
  return canonicalizeNumber(result.toFixed());
}

/**
 * Digits a short integer may have: two of them add up to less than 2^53 (9.007e15), so a double
 * holds their sum exactly, far inside DynamoDB's range and 38 significant digits.
 */
const SHORT_INTEGER_DIGITS_MAX = 15;

/** `-?[0-9]{1,15}`: an integer whose value a double holds exactly. */
function isShortInteger(text: string): boolean {
  const start = text.charCodeAt(0) === 0x2d ? 1 : 0;
  const digits = text.length - start;
  if (digits < 1 || digits > SHORT_INTEGER_DIGITS_MAX) return false;
  for (let at = start; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}

/** `left + right` or `left - right` of two DynamoDB numbers, exactly, then range-checked. */
export function addNumbers(left: string, right: string, subtract = false): string {
  // Counters (ADD hits :one) add small integers: a double holds their sum exactly, and its text is
  // the canonical one, without two decimals parsed and one formatted (~0.7 KB and ~1 us per ADD).
  if (isShortInteger(left) && isShortInteger(right)) {
    const sum = subtract ? Number(left) - Number(right) : Number(left) + Number(right);
    return sum === 0 ? '0' : String(sum);
  }
  const a = new ExactDecimal(left);
  const b = new ExactDecimal(right);
  return toDynamoNumber(subtract ? a.minus(b) : a.plus(b));
}

function numberOperand(value: SetValue, item: AttributeMap): string {
  const operand = evaluateSetValue(value, item);
  if (!('N' in operand)) throw validationError(INCORRECT_TYPE);
  return operand.N;
}

function listOperand(value: SetValue, item: AttributeMap): readonly AttributeValue[] {
  const operand = evaluateSetValue(value, item);
  if (!('L' in operand)) throw validationError(INCORRECT_TYPE);
  return operand.L;
}

/**
 * The value of a SET right-hand side against the original item. Operands are evaluated left to
 * right and each is type-checked before the next is read, as dynalite does, so the first bad
 * operand names the error.
 */
export function evaluateSetValue(value: SetValue, item: AttributeMap): AttributeValue {
  switch (value.kind) {
    case 'value':
      return value.value;
    case 'path': {
      const found = resolvePath(item, value.path);
      if (found === undefined) throw validationError(MISSING_ATTRIBUTE);
      return found;
    }
    case 'size':
      // size() belongs to conditions; UpdateExpression's grammar has no such function.
      throw validationError('Invalid UpdateExpression: Invalid function name; function: size');
    case 'plus':
    case 'minus': {
      const left = numberOperand(value.left, item);
      const right = numberOperand(value.right, item);
      return { N: addNumbers(left, right, value.kind === 'minus') };
    }
    case 'if_not_exists':
      // The fallback is only evaluated when needed, so a fallback naming a missing attribute is fine
      // while the path exists.
      return resolvePath(item, value.path) ?? evaluateSetValue(value.fallback, item);
    case 'list_append': {
      const first = listOperand(value.first, item);
      const second = listOperand(value.second, item);
      return { L: [...first, ...second] };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// ADD and DELETE on one value
// ---------------------------------------------------------------------------------------------

function setTypeOf(value: AttributeValue): SetType | undefined {
  if ('SS' in value) return 'SS';
  if ('NS' in value) return 'NS';
  if ('BS' in value) return 'BS';
  return undefined;
}

function setMembers(value: AttributeValue): readonly string[] {
  if ('SS' in value) return value.SS;
  if ('NS' in value) return value.NS;
  if ('BS' in value) return value.BS;
  return [];
}

function makeSet(type: SetType, members: readonly string[]): AttributeValue {
  if (type === 'SS') return { SS: members };
  if (type === 'NS') return { NS: members };
  return { BS: members };
}

/** Comparable text of a set member: numbers are canonical already; binary has several spellings. */
function memberKey(type: SetType): (member: string) => string {
  return type === 'BS' ? binaryKey : (member) => member;
}

/**
 * ADD's operand must be a number or a set. The parser rejects other literals at validation time
 * with this text; it is repeated here so a misuse can never reach storage.
 */
function operandTypeError(operator: 'ADD' | 'DELETE', value: AttributeValue): Error {
  const type = typeOf(value);
  return validationError(
    `Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ${operator}, operand type: ${OPERAND_TYPE_NAMES[type] ?? type}`,
  );
}

/**
 * ADD: a number is added to the existing number (a missing attribute counts as 0); a set is
 * unioned into the existing set of the same type (a missing attribute counts as empty). Anything
 * else already there is "an incorrect data type".
 */
function addValue(existing: AttributeValue | undefined, value: AttributeValue): AttributeValue {
  if ('N' in value) {
    if (existing === undefined) return value;
    if (!('N' in existing)) throw validationError(INCORRECT_TYPE);
    return { N: addNumbers(existing.N, value.N) };
  }
  const type = setTypeOf(value);
  if (type === undefined) throw operandTypeError('ADD', value);
  if (existing === undefined) return value;
  if (setTypeOf(existing) !== type) throw validationError(INCORRECT_TYPE);
  const key = memberKey(type);
  const current = setMembers(existing);
  const present = new Set(current.map(key));
  const added = setMembers(value).filter((member) => !present.has(key(member)));
  return added.length === 0 ? existing : makeSet(type, [...current, ...added]);
}

/**
 * DELETE: removes the operand's members from the existing set of the same type. A missing
 * attribute stays missing; a set left empty is removed, since DynamoDB has no empty sets.
 */
function deleteValue(existing: AttributeValue | undefined, value: AttributeValue): AttributeValue | undefined {
  const type = setTypeOf(value);
  if (type === undefined) throw operandTypeError('DELETE', value);
  if (existing === undefined) return undefined;
  if (setTypeOf(existing) !== type) throw validationError(INCORRECT_TYPE);
  const key = memberKey(type);
  const removed = new Set(setMembers(value).map(key));
  const current = setMembers(existing);
  const remaining = current.filter((member) => !removed.has(key(member)));
  if (remaining.length === current.length) return existing;
  return remaining.length === 0 ? undefined : makeSet(type, remaining);
}

/** The new value at a path's end; undefined means the attribute/element is (or stays) absent. */
function applyLeaf(existing: AttributeValue | undefined, leaf: Leaf): AttributeValue | undefined {
  switch (leaf.kind) {
    case 'set':
      return leaf.value;
    case 'remove':
      return undefined;
    case 'add':
      return addValue(existing, leaf.value);
    case 'delete':
      return deleteValue(existing, leaf.value);
  }
}

// ---------------------------------------------------------------------------------------------
// The action tree
// ---------------------------------------------------------------------------------------------

/** DynamoDB's rendering of a path in overlap/conflict messages: `[a, b, [2]]`. */
function pathText(path: DocumentPath): string {
  return '[' + path.map((step) => (typeof step === 'number' ? `[${step}]` : step)).join(', ') + ']';
}

function pathsError(relation: 'overlap' | 'conflict', first: DocumentPath, second: DocumentPath): Error {
  return validationError(
    `Invalid UpdateExpression: Two document paths ${relation} with each other; must remove or rewrite one of these paths; path one: ${pathText(first)}, path two: ${pathText(second)}`,
  );
}

function newNode(path: DocumentPath): ActionNode {
  return { path, leaf: undefined, children: new Map() };
}

/**
 * Adds one action to the tree. The parser already rejects overlapping paths (one a prefix of the
 * other) and conflicting ones (a.b with a[1]) with these texts; checking again here keeps the tree
 * well-formed — every node is either a leaf or has children all of one step kind.
 */
function insertAction(root: ActionNode, path: DocumentPath, leaf: Leaf): void {
  let node = root;
  for (const step of path) {
    if (node.leaf !== undefined) throw pathsError('overlap', node.path, path);
    const [siblingStep] = node.children.keys();
    if (siblingStep !== undefined && typeof siblingStep !== typeof step) {
      throw pathsError('conflict', node.children.get(siblingStep)!.path, path);
    }
    let child = node.children.get(step);
    if (child === undefined) {
      child = newNode(path);
      node.children.set(step, child);
    }
    node = child;
  }
  if (node.leaf !== undefined || node.children.size > 0) throw pathsError('overlap', node.path, path);
  node.leaf = leaf;
}

function buildTree(actions: UpdateActions, setValues: readonly AttributeValue[]): ActionNode {
  const root = newNode([]);
  actions.set.forEach((action, index) => insertAction(root, action.path, { kind: 'set', value: setValues[index]! }));
  for (const path of actions.remove) insertAction(root, path, { kind: 'remove' });
  for (const action of actions.add) insertAction(root, action.path, { kind: 'add', value: action.value });
  for (const action of actions.delete) insertAction(root, action.path, { kind: 'delete', value: action.value });
  return root;
}

/** Assigns an own member even for the name `__proto__`, which plain assignment would treat as the prototype. */
function putMember(map: Record<string, AttributeValue>, name: string, value: AttributeValue): void {
  if (name === '__proto__') {
    Object.defineProperty(map, name, { value, writable: true, enumerable: true, configurable: true });
  } else {
    map[name] = value;
  }
}

function applyNode(existing: AttributeValue | undefined, node: ActionNode): AttributeValue | undefined {
  return node.leaf !== undefined ? applyLeaf(existing, node.leaf) : applyToContainer(existing, node.children);
}

/** Descends into an existing map or list; anything else on the way is an invalid path. */
function applyToContainer(existing: AttributeValue | undefined, children: Map<PathElement, ActionNode>): AttributeValue {
  if (existing === undefined) throw validationError(INVALID_PATH);
  const [firstStep] = children.keys();
  if (typeof firstStep === 'number') {
    if (!('L' in existing)) throw validationError(INVALID_PATH);
    return { L: applyToList(existing.L, children) };
  }
  if (!('M' in existing)) throw validationError(INVALID_PATH);
  return { M: applyToMap(existing.M, children) };
}

function applyToMap(map: AttributeMap, children: Map<PathElement, ActionNode>): AttributeMap {
  const result: Record<string, AttributeValue> = { ...map };
  for (const [step, node] of children) {
    if (typeof step !== 'string') throw validationError(INVALID_PATH);
    const next = applyNode(ownMember(map, step), node);
    if (next === undefined) delete result[step];
    else putMember(result, step, next);
  }
  return result;
}

/**
 * Rebuilds a list with every index meaning its original position: elements are replaced or
 * dropped in place, then SET/ADD targets past the end are appended in index order (DynamoDB:
 * "If you add multiple elements in a single SET operation, the elements are sorted in order by
 * element number"). A deeper path through a missing element is an invalid path.
 */
function applyToList(list: readonly AttributeValue[], children: Map<PathElement, ActionNode>): AttributeValue[] {
  const result: AttributeValue[] = [];
  list.forEach((element, index) => {
    const node = children.get(index);
    const next = node === undefined ? element : applyNode(element, node);
    if (next !== undefined) result.push(next);
  });
  const beyondEnd = [...children].filter(([step]) => (step as number) >= list.length);
  beyondEnd.sort(([a], [b]) => (a as number) - (b as number));
  for (const [, node] of beyondEnd) {
    const next = applyNode(undefined, node);
    if (next !== undefined) result.push(next);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/**
 * Applies an UpdateExpression to `item` (for an item that does not exist yet, pass its key
 * attributes) and returns the new item; `item` is never modified. Throws DynamoDB's
 * ValidationException texts. Item-level limits (400 KB, nesting depth, key attributes, index key
 * types) are the caller's to check on the result.
 */
export function applyUpdate(item: AttributeMap, actions: UpdateActions): AttributeMap {
  const setValues = actions.set.map((action) => evaluateSetValue(action.value, item));
  if (touchesDistinctTopLevelNames(actions)) return applyTopLevel(item, actions, setValues);
  const tree = buildTree(actions, setValues);
  return applyToMap(item, tree.children);
}

/** Beyond this many actions the action tree is built: checking distinct names pairwise is quadratic. */
const TOP_LEVEL_ACTIONS_MAX = 8;

/** Every action's path in clause order: SET, REMOVE, ADD, DELETE (the tree's insertion order). */
function pathAt(actions: UpdateActions, at: number): DocumentPath {
  const { set, remove, add } = actions;
  if (at < set.length) return set[at]!.path;
  if (at < set.length + remove.length) return remove[at - set.length]!;
  if (at < set.length + remove.length + add.length) return add[at - set.length - remove.length]!.path;
  return actions.delete[at - set.length - remove.length - add.length]!.path;
}

/** True when every action names one top-level attribute and no two name the same one. */
function touchesDistinctTopLevelNames(actions: UpdateActions): boolean {
  const count = actions.set.length + actions.remove.length + actions.add.length + actions.delete.length;
  if (count > TOP_LEVEL_ACTIONS_MAX) return false;
  for (let at = 0; at < count; at++) {
    const path = pathAt(actions, at);
    if (path.length !== 1 || typeof path[0] !== 'string') return false;
    for (let earlier = 0; earlier < at; earlier++) if (pathAt(actions, earlier)[0] === path[0]) return false;
  }
  return true;
}

/**
 * The common update (SET a = :v ADD hits :one): top-level attributes only, each named once. Applied
 * onto a copy of the item in the tree's order (SET, REMOVE, ADD, DELETE), reading each attribute
 * from the original item, exactly as applyToMap does with the tree, without building it (a Map
 * and two objects per action, ~0.6 KB per UpdateItem).
 */
function applyTopLevel(item: AttributeMap, actions: UpdateActions, setValues: readonly AttributeValue[]): AttributeMap {
  const result: Record<string, AttributeValue> = { ...item };
  actions.set.forEach((action, index) => assignMember(result, action.path[0] as string, setValues[index]!));
  for (const path of actions.remove) assignMember(result, path[0] as string, undefined);
  for (const action of actions.add) {
    const name = action.path[0] as string;
    assignMember(result, name, addValue(ownMember(item, name), action.value));
  }
  for (const action of actions.delete) {
    const name = action.path[0] as string;
    assignMember(result, name, deleteValue(ownMember(item, name), action.value));
  }
  return result;
}

/** Sets (or, for undefined, removes) an own member, as applyToMap does with an action's outcome. */
function assignMember(map: Record<string, AttributeValue>, name: string, value: AttributeValue | undefined): void {
  if (value === undefined) delete map[name];
  else putMember(map, name, value);
}

/** Every path the update writes, in clause order (SET, REMOVE, ADD, DELETE). */
export function updatedPaths(actions: UpdateActions): DocumentPath[] {
  return [
    ...actions.set.map((action) => action.path),
    ...actions.remove,
    ...actions.add.map((action) => action.path),
    ...actions.delete.map((action) => action.path),
  ];
}

/** The distinct top-level attributes the update writes, in first-mention order. */
export function updatedAttributeNames(actions: UpdateActions): string[] {
  return [...new Set(updatedPaths(actions).map((path) => String(path[0])))];
}

/**
 * ReturnValues UPDATED_OLD (pass the old item) or UPDATED_NEW (pass the new one): the updated
 * *paths* projected like a ProjectionExpression, so `SET a.b = :v` returns `{a: {M: {b: …}}}`,
 * not all of `a` (Alternator test_update_item_returnvalues_nested). Projection quirks are
 * DynamoDB's too: a SET past a list's end or a REMOVE of a missing element returns nothing for
 * that path. Undefined when nothing is left, as DynamoDB then omits `Attributes`.
 */
export function projectUpdated(item: AttributeMap | undefined, actions: UpdateActions): AttributeMap | undefined {
  if (item === undefined) return undefined;
  const projected = applyProjection(item, { paths: updatedPaths(actions) });
  return Object.keys(projected).length === 0 ? undefined : projected;
}
