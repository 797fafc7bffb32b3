/**
 * Unit tests of the expression evaluator (evaluate.ts) and the update applier (update.ts), driven
 * by tables of parsed forms. Expected results follow DynamoDB as documented and as observed
 * against the service (see the comments in the modules under test).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Comparator, Condition, Operand, PathElement, SetValue, UpdateActions } from '../src/expressions/ast.js';
import { evaluateCondition, resolvePath, sizeOf, valuesEqual } from '../src/expressions/evaluate.js';
import { addNumbers, applyUpdate, projectUpdated, updatedAttributeNames } from '../src/expressions/update.js';
import { DynamoError } from '../src/errors.js';
import type { AttributeMap, AttributeValue } from '../src/model/attribute-value.js';
import { seededRandom as randomSource } from './support/random.js';

// ---------------------------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------------------------

const S = (text: string): AttributeValue => ({ S: text });
const N = (text: string): AttributeValue => ({ N: text });
const B = (...bytes: number[]): AttributeValue => ({ B: Buffer.from(bytes).toString('base64') });
const BOOL = (flag: boolean): AttributeValue => ({ BOOL: flag });
const NULL: AttributeValue = { NULL: true };
const SS = (...members: string[]): AttributeValue => ({ SS: members });
const NS = (...members: string[]): AttributeValue => ({ NS: members });
const BS = (...members: number[][]): AttributeValue => ({ BS: members.map((bytes) => Buffer.from(bytes).toString('base64')) });
const L = (...elements: AttributeValue[]): AttributeValue => ({ L: elements });
const M = (members: AttributeMap): AttributeValue => ({ M: members });

const path = (...steps: PathElement[]): Operand => ({ kind: 'path', path: steps });
const lit = (value: AttributeValue): Operand => ({ kind: 'value', value });
const size = (...steps: PathElement[]): Operand => ({ kind: 'size', path: steps });

const cmp = (left: Operand, comparator: Comparator, right: Operand): Condition => ({ kind: 'compare', comparator, left, right });
const between = (subject: Operand, low: Operand, high: Operand): Condition => ({ kind: 'between', subject, low, high });
const inList = (subject: Operand, ...candidates: Operand[]): Condition => ({ kind: 'in', subject, candidates });
const and = (left: Condition, right: Condition): Condition => ({ kind: 'and', left, right });
const or = (left: Condition, right: Condition): Condition => ({ kind: 'or', left, right });
const not = (operand: Condition): Condition => ({ kind: 'not', operand });
const exists = (...steps: PathElement[]): Condition => ({ kind: 'attribute_exists', path: steps });
const notExists = (...steps: PathElement[]): Condition => ({ kind: 'attribute_not_exists', path: steps });
const hasType = (type: string, ...steps: PathElement[]): Condition => ({ kind: 'attribute_type', subject: { kind: 'path', path: steps }, type: lit(S(type)) });
const beginsWith = (subject: Operand, prefix: Operand): Condition => ({ kind: 'begins_with', subject, prefix });
const contains = (subject: Operand, operand: Operand): Condition => ({ kind: 'contains', subject, operand });

type Clause =
  | { readonly clause: 'set'; readonly path: PathElement[]; readonly value: SetValue }
  | { readonly clause: 'remove'; readonly path: PathElement[] }
  | { readonly clause: 'add' | 'delete'; readonly path: PathElement[]; readonly value: AttributeValue };

const SET = (steps: PathElement[], value: SetValue): Clause => ({ clause: 'set', path: steps, value });
const REMOVE = (...steps: PathElement[]): Clause => ({ clause: 'remove', path: steps });
const ADD = (steps: PathElement[], value: AttributeValue): Clause => ({ clause: 'add', path: steps, value });
const DELETE = (steps: PathElement[], value: AttributeValue): Clause => ({ clause: 'delete', path: steps, value });
const plus = (left: SetValue, right: SetValue): SetValue => ({ kind: 'plus', left, right });
const minus = (left: SetValue, right: SetValue): SetValue => ({ kind: 'minus', left, right });
const ifNotExists = (steps: PathElement[], fallback: SetValue): SetValue => ({ kind: 'if_not_exists', path: steps, fallback });
const listAppend = (first: SetValue, second: SetValue): SetValue => ({ kind: 'list_append', first, second });

function actions(...clauses: Clause[]): UpdateActions {
  const result = {
    set: [] as { path: PathElement[]; value: SetValue }[],
    remove: [] as PathElement[][],
    add: [] as { path: PathElement[]; value: AttributeValue }[],
    delete: [] as { path: PathElement[]; value: AttributeValue }[],
  };
  for (const clause of clauses) {
    if (clause.clause === 'set') result.set.push({ path: clause.path, value: clause.value });
    else if (clause.clause === 'remove') result.remove.push(clause.path);
    else result[clause.clause].push({ path: clause.path, value: clause.value });
  }
  return result;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

const MISSING = 'The provided expression refers to an attribute that does not exist in the item';
const INCORRECT_TYPE = 'An operand in the update expression has an incorrect data type';
const INVALID_PATH = 'The document path provided in the update expression is invalid for update';
const OVERFLOW = 'Number overflow. Attempting to store a number with magnitude larger than supported range';
const UNDERFLOW = 'Number underflow. Attempting to store a number with magnitude smaller than supported range';

// ---------------------------------------------------------------------------------------------
// Condition evaluation
// ---------------------------------------------------------------------------------------------

/** One item holding every type, frozen so any mutation by the evaluator throws. */
const ITEM: AttributeMap = deepFreeze({
  s: S('hello'),
  empty: S(''),
  emoji: S('😀'),
  bmpMax: S('\uFFFF'),
  mixed: S('é𝄞'),
  n: N('42'),
  neg: N('-7.5'),
  zero: N('0'),
  b: B(1, 2, 3),
  bHigh: B(0xff),
  t: BOOL(true),
  f: BOOL(false),
  nul: NULL,
  ss: SS('a', 'b', 'c'),
  ns: NS('1', '2.5', '-3'),
  bs: BS([1], [2, 3]),
  l: L(S('x'), N('1'), L(N('2')), SS('p', 'q')),
  emptyList: L(),
  m: M({ a: N('1'), b: M({ c: S('deep') }), list: L(N('10'), N('20')) }),
  emptyMap: M({}),
  ssCopy: SS('c', 'a', 'b'),
  n42: N('42'),
  s42: S('42'),
});

interface ConditionCase {
  readonly name: string;
  readonly condition: Condition;
  readonly expected: boolean;
  /** 'none' evaluates against an item that does not exist. */
  readonly item?: AttributeMap | 'none';
}

const c = (name: string, condition: Condition, expected: boolean, item?: AttributeMap | 'none'): ConditionCase =>
  item === undefined ? { name, condition, expected } : { name, condition, expected, item };

const CONDITION_CASES: readonly ConditionCase[] = [
  // = on every type
  c('S = S equal', cmp(path('s'), '=', lit(S('hello'))), true),
  c('S = S different', cmp(path('s'), '=', lit(S('Hello'))), false),
  c('empty S = empty S', cmp(path('empty'), '=', lit(S(''))), true),
  c('N = N equal', cmp(path('n'), '=', lit(N('42'))), true),
  c('N = N different', cmp(path('n'), '=', lit(N('42.1'))), false),
  c('N = S of same digits is false (types differ)', cmp(path('n'), '=', path('s42')), false),
  c('B = B equal bytes', cmp(path('b'), '=', lit(B(1, 2, 3))), true),
  c('B = B equal bytes, unpadded base64 spelling', cmp(path('bHigh'), '=', lit({ B: '/w' })), true),
  c('B = B different bytes', cmp(path('b'), '=', lit(B(1, 2))), false),
  c('BOOL = BOOL true', cmp(path('t'), '=', lit(BOOL(true))), true),
  c('BOOL true = false', cmp(path('t'), '=', path('f')), false),
  c('NULL = NULL', cmp(path('nul'), '=', lit(NULL)), true),
  c('SS = SS same order', cmp(path('ss'), '=', lit(SS('a', 'b', 'c'))), true),
  c('SS = SS other order', cmp(path('ss'), '=', path('ssCopy')), true),
  c('SS = SS subset', cmp(path('ss'), '=', lit(SS('a', 'b'))), false),
  c('SS = SS superset', cmp(path('ss'), '=', lit(SS('a', 'b', 'c', 'd'))), false),
  c('NS = NS other order', cmp(path('ns'), '=', lit(NS('-3', '1', '2.5'))), true),
  c('NS = SS of same texts is false', cmp(lit(NS('1')), '=', lit(SS('1'))), false),
  c('BS = BS other order', cmp(path('bs'), '=', lit(BS([2, 3], [1]))), true),
  c('BS = BS different member', cmp(path('bs'), '=', lit(BS([2, 3], [4]))), false),
  c('L = L deep equal (nested set in other order)', cmp(path('l'), '=', lit(L(S('x'), N('1'), L(N('2')), SS('q', 'p')))), true),
  c('L = L other element order', cmp(path('l'), '=', lit(L(N('1'), S('x'), L(N('2')), SS('p', 'q')))), false),
  c('L = L shorter', cmp(path('l'), '=', lit(L(S('x')))), false),
  c('empty L = empty L', cmp(path('emptyList'), '=', lit(L())), true),
  c('M = M other key order', cmp(path('m'), '=', lit(M({ list: L(N('10'), N('20')), b: M({ c: S('deep') }), a: N('1') }))), true),
  c('M = M extra key', cmp(path('m', 'b'), '=', lit(M({ c: S('deep'), d: S('x') }))), false),
  c('M = M nested value differs', cmp(path('m', 'b'), '=', lit(M({ c: S('shallow') }))), false),
  c('M = M missing key replaced by another', cmp(path('m', 'b'), '=', lit(M({ d: S('deep') }))), false),
  c('empty M = empty M', cmp(path('emptyMap'), '=', lit(M({}))), true),
  c('missing = value', cmp(path('nope'), '=', lit(S('x'))), false),
  c('value = missing', cmp(lit(S('x')), '=', path('nope')), false),
  c('missing = missing is false', cmp(path('nope'), '=', path('other')), false),
  c('attribute = itself', cmp(path('m'), '=', path('m')), true),
  // <>
  c('<> equal values', cmp(path('n'), '<>', lit(N('42'))), false),
  c('<> different values', cmp(path('n'), '<>', lit(N('43'))), true),
  c('<> different types', cmp(path('n'), '<>', path('s42')), true),
  c('<> missing attribute is true', cmp(path('nope'), '<>', lit(N('1'))), true),
  c('<> two missing attributes is true', cmp(path('nope'), '<>', path('other')), true),
  c('<> sets in other order are equal', cmp(path('ss'), '<>', path('ssCopy')), false),
  c('<> on an item that does not exist', cmp(path('a'), '<>', lit(S('x'))), true, 'none'),
  // ordering: numbers by value
  c('N 2 < 10 by value (not text)', cmp(lit(N('2')), '<', lit(N('10'))), true),
  c('N -5 < -1', cmp(lit(N('-5')), '<', lit(N('-1'))), true),
  c('N -1 < -5 false', cmp(lit(N('-1')), '<', lit(N('-5'))), false),
  c('N 0.1 < 0.11', cmp(lit(N('0.1')), '<', lit(N('0.11'))), true),
  c('N 1E-130 > 0', cmp(lit(N('0.' + '0'.repeat(129) + '1')), '>', path('zero')), true),
  c('N -7.5 < 0', cmp(path('neg'), '<', path('zero')), true),
  c('N 38 digits differing in the last', cmp(lit(N('12345678901234567890123456789012345678')), '<', lit(N('12345678901234567890123456789012345679'))), true),
  c('N huge > slightly smaller', cmp(lit(N('1' + '0'.repeat(125))), '>', lit(N('99' + '0'.repeat(123)))), true),
  c('N <= equal', cmp(path('n'), '<=', lit(N('42'))), true),
  c('N >= equal', cmp(path('n'), '>=', lit(N('42'))), true),
  c('N > equal is false', cmp(path('n'), '>', lit(N('42'))), false),
  c('N < equal is false', cmp(path('n'), '<', lit(N('42'))), false),
  c('N >= smaller', cmp(path('n'), '>=', lit(N('41.999'))), true),
  c('N <= smaller is false', cmp(path('n'), '<=', lit(N('41.999'))), false),
  // ordering: strings by UTF-8 bytes
  c('S a < b', cmp(lit(S('a')), '<', lit(S('b'))), true),
  c('S A < a (0x41 < 0x61)', cmp(lit(S('A')), '<', lit(S('a'))), true),
  c('S prefix is smaller', cmp(lit(S('ab')), '<', lit(S('abc'))), true),
  c('S empty is smallest', cmp(path('empty'), '<', lit(S('\u0000'))), true),
  c('S z < ¿ (0x7A < 0xC2BF)', cmp(lit(S('z')), '<', lit(S('¿'))), true),
  c('S U+FFFF < 😀 in UTF-8 (UTF-16 says otherwise)', cmp(path('bmpMax'), '<', path('emoji')), true),
  c('S 😀 > U+FFFF', cmp(path('emoji'), '>', path('bmpMax')), true),
  c('S U+E000 < 😀', cmp(lit(S('\uE000')), '<', path('emoji')), true),
  c('S equal <=', cmp(path('s'), '<=', lit(S('hello'))), true),
  c('S hello >= help is false', cmp(path('s'), '>=', lit(S('help'))), false),
  // ordering: binary by unsigned bytes
  c('B 0x01 < 0xFF (unsigned)', cmp(lit(B(1)), '<', path('bHigh')), true),
  c('B 0x7F < 0x80', cmp(lit(B(0x7f)), '<', lit(B(0x80))), true),
  c('B prefix is smaller', cmp(lit(B(1, 2)), '<', lit(B(1, 2, 0))), true),
  c('B empty < 0x00', cmp(lit(B()), '<', lit(B(0))), true),
  c('B equal >=', cmp(path('b'), '>=', lit(B(1, 2, 3))), true),
  // ordering of types that have no order, or of two types
  c('BOOL < BOOL is false', cmp(path('f'), '<', path('t')), false),
  c('NULL <= NULL is false', cmp(path('nul'), '<=', lit(NULL)), false),
  c('SS < SS is false', cmp(path('ss'), '<', lit(SS('z'))), false),
  c('L <= L is false even when equal', cmp(path('l'), '<=', path('l')), false),
  c('M >= M is false', cmp(path('m'), '>=', path('m')), false),
  c('N < S is false', cmp(path('n'), '<', lit(S('zzz'))), false),
  c('S > N is false', cmp(lit(S('zzz')), '>', path('n')), false),
  c('missing < value', cmp(path('nope'), '<', lit(N('1'))), false),
  c('value > missing', cmp(lit(N('1')), '>', path('nope')), false),
  c('missing >= missing', cmp(path('nope'), '>=', path('other')), false),
  // nested operands
  c('nested m.a < m.list[1]', cmp(path('m', 'a'), '<', path('m', 'list', 1)), true),
  c('nested list element l[2][0] = 2', cmp(path('l', 2, 0), '=', lit(N('2'))), true),
  c('index past the end is missing', cmp(path('m', 'list', 100), '<', lit(N('1000'))), false),
  // BETWEEN
  c('BETWEEN inside', between(path('n'), lit(N('1')), lit(N('100'))), true),
  c('BETWEEN at low bound (inclusive)', between(path('n'), lit(N('42')), lit(N('100'))), true),
  c('BETWEEN at high bound (inclusive)', between(path('n'), lit(N('1')), lit(N('42'))), true),
  c('BETWEEN below', between(path('n'), lit(N('43')), lit(N('100'))), false),
  c('BETWEEN above', between(path('n'), lit(N('1')), lit(N('41'))), false),
  c('BETWEEN bounds reversed matches nothing', between(path('n'), lit(N('100')), lit(N('1'))), false),
  c('BETWEEN on strings', between(path('s'), lit(S('a')), lit(S('z'))), true),
  c('BETWEEN on strings by UTF-8 order', between(path('emoji'), path('bmpMax'), lit(S('\u{10FFFF}'))), true),
  c('BETWEEN on binary', between(path('b'), lit(B(1)), lit(B(1, 2, 4))), true),
  c('BETWEEN type mismatch', between(path('s42'), lit(N('1')), lit(N('100'))), false),
  c('BETWEEN missing subject', between(path('nope'), lit(N('1')), lit(N('100'))), false),
  c('BETWEEN missing bound', between(path('n'), path('nope'), lit(N('100'))), false),
  c('BETWEEN bounds from the item', between(path('zero'), path('neg'), path('n')), true),
  c('BETWEEN on lists is false', between(path('l'), path('l'), path('l')), false),
  // IN
  c('IN matching number', inList(path('n'), lit(N('1')), lit(N('42'))), true),
  c('IN no match', inList(path('n'), lit(N('1')), lit(N('2'))), false),
  c('IN type mismatch', inList(path('n'), lit(S('42'))), false),
  c('IN with candidates of several types', inList(path('n'), lit(S('dog')), lit(N('42'))), true),
  c('IN set in other order', inList(path('ss'), lit(SS('c', 'b', 'a'))), true),
  c('IN list deep', inList(path('m', 'list'), lit(L(N('10'), N('20')))), true),
  c('IN map deep', inList(path('m', 'b'), lit(M({ c: S('deep') }))), true),
  c('IN missing subject', inList(path('nope'), lit(N('1'))), false),
  c('IN skips missing candidates', inList(path('n'), path('nope'), lit(N('42'))), true),
  c('IN only missing candidates', inList(path('n'), path('nope')), false),
  // attribute_exists / attribute_not_exists
  c('attribute_exists top level', exists('s'), true),
  c('attribute_exists of a NULL value', exists('nul'), true),
  c('attribute_exists missing', exists('nope'), false),
  c('attribute_exists nested', exists('m', 'b', 'c'), true),
  c('attribute_exists nested missing', exists('m', 'zz'), false),
  c('attribute_exists list index', exists('l', 3), true),
  c('attribute_exists list index past the end', exists('l', 4), false),
  c('attribute_exists through a scalar', exists('s', 'x'), false),
  c('attribute_exists index on a map', exists('m', 0), false),
  c('attribute_exists name on a list', exists('l', 'x'), false),
  c('attribute_exists ignores Object.prototype (constructor)', exists('constructor'), false),
  c('attribute_exists ignores Object.prototype (toString)', exists('m', 'toString'), false),
  c('attribute_exists __proto__', exists('__proto__'), false),
  c('attribute_not_exists missing', notExists('nope'), true),
  c('attribute_not_exists present', notExists('s'), false),
  c('attribute_not_exists on an item that does not exist', notExists('pk'), true, 'none'),
  c('attribute_exists on an item that does not exist', exists('pk'), false, 'none'),
  // attribute_type
  c('attribute_type S', hasType('S', 's'), true),
  c('attribute_type N', hasType('N', 'n'), true),
  c('attribute_type B', hasType('B', 'b'), true),
  c('attribute_type BOOL', hasType('BOOL', 'f'), true),
  c('attribute_type NULL', hasType('NULL', 'nul'), true),
  c('attribute_type SS', hasType('SS', 'ss'), true),
  c('attribute_type NS', hasType('NS', 'ns'), true),
  c('attribute_type BS', hasType('BS', 'bs'), true),
  c('attribute_type L', hasType('L', 'l'), true),
  c('attribute_type M', hasType('M', 'm'), true),
  c('attribute_type nested', hasType('S', 'm', 'b', 'c'), true),
  c('attribute_type wrong type', hasType('S', 'n'), false),
  c('attribute_type SS is not S', hasType('S', 'ss'), false),
  c('attribute_type missing', hasType('S', 'nope'), false),
  c('attribute_type with a non-S type operand', { kind: 'attribute_type', subject: path('s'), type: lit(N('1')) }, false),
  // begins_with
  c('begins_with S', beginsWith(path('s'), lit(S('hel'))), true),
  c('begins_with S whole string', beginsWith(path('s'), lit(S('hello'))), true),
  c('begins_with S empty prefix', beginsWith(path('s'), lit(S(''))), true),
  c('begins_with S no', beginsWith(path('s'), lit(S('ello'))), false),
  c('begins_with S longer prefix', beginsWith(path('s'), lit(S('hello!'))), false),
  c('begins_with S is case sensitive', beginsWith(path('s'), lit(S('H'))), false),
  c('begins_with astral prefix', beginsWith(path('mixed'), lit(S('é'))), true),
  c('begins_with B', beginsWith(path('b'), lit(B(1, 2))), true),
  c('begins_with B no', beginsWith(path('b'), lit(B(2))), false),
  c('begins_with B longer prefix', beginsWith(path('b'), lit(B(1, 2, 3, 4))), false),
  c('begins_with S on B is false', beginsWith(path('b'), lit(S('\u0001'))), false),
  c('begins_with on a number is false', beginsWith(path('n'), lit(S('4'))), false),
  c('begins_with missing', beginsWith(path('nope'), lit(S('a'))), false),
  c('begins_with literal subject, path prefix', beginsWith(lit(S('hello world')), path('s')), true),
  // contains
  c('contains substring', contains(path('s'), lit(S('ell'))), true),
  c('contains empty substring', contains(path('s'), lit(S(''))), true),
  c('contains substring no', contains(path('s'), lit(S('xyz'))), false),
  c('contains binary substring', contains(path('b'), lit(B(2, 3))), true),
  c('contains binary substring no', contains(path('b'), lit(B(3, 2))), false),
  c('contains SS member', contains(path('ss'), lit(S('b'))), true),
  c('contains SS non-member', contains(path('ss'), lit(S('z'))), false),
  c('contains SS with a number operand', contains(path('ss'), lit(N('1'))), false),
  c('contains NS member', contains(path('ns'), lit(N('2.5'))), true),
  c('contains NS with the string of a member', contains(path('ns'), lit(S('2.5'))), false),
  c('contains BS member', contains(path('bs'), lit(B(2, 3))), true),
  c('contains BS non-member', contains(path('bs'), lit(B(2))), false),
  c('contains list element S', contains(path('l'), lit(S('x'))), true),
  c('contains list element N', contains(path('l'), lit(N('1'))), true),
  c('contains list element that is a list', contains(path('l'), lit(L(N('2')))), true),
  c('contains list element that is a set (any order)', contains(path('l'), lit(SS('q', 'p'))), true),
  c('contains list non-element', contains(path('l'), lit(S('y'))), false),
  c('contains list: element of an inner list is not an element', contains(path('l'), lit(N('2'))), false),
  c('contains on a map is false', contains(path('m'), lit(S('a'))), false),
  c('contains on a number is false', contains(path('n'), lit(N('42'))), false),
  c('contains missing', contains(path('nope'), lit(S('a'))), false),
  c('contains missing operand', contains(path('s'), path('nope')), false),
  // size()
  c('size of S', cmp(size('s'), '=', lit(N('5'))), true),
  c('size of empty S', cmp(size('empty'), '=', lit(N('0'))), true),
  c('size of an astral character is 2 (UTF-16 units)', cmp(size('emoji'), '=', lit(N('2'))), true),
  c('size of é𝄞 is 3 as on DynamoDB', cmp(size('mixed'), '=', lit(N('3'))), true),
  c('size of B counts bytes', cmp(size('b'), '=', lit(N('3'))), true),
  c('size of SS', cmp(size('ss'), '=', lit(N('3'))), true),
  c('size of NS', cmp(size('ns'), '=', lit(N('3'))), true),
  c('size of BS', cmp(size('bs'), '=', lit(N('2'))), true),
  c('size of L', cmp(size('l'), '=', lit(N('4'))), true),
  c('size of empty L', cmp(size('emptyList'), '=', lit(N('0'))), true),
  c('size of M', cmp(size('m'), '=', lit(N('3'))), true),
  c('size of nested list', cmp(size('m', 'list'), '=', lit(N('2'))), true),
  c('size > bound', cmp(size('s'), '>', lit(N('4'))), true),
  c('size <= bound false', cmp(size('s'), '<=', lit(N('4'))), false),
  c('size BETWEEN', between(size('l'), lit(N('1')), lit(N('4'))), true),
  c('size compared with an item attribute', cmp(size('ss'), '<', path('n')), true),
  c('size compared with a string is false', cmp(size('s'), '=', lit(S('5'))), false),
  c('size of N is false, not an error', cmp(size('n'), '=', lit(N('2'))), false),
  c('size of BOOL is false', cmp(size('t'), '>=', lit(N('0'))), false),
  c('size of NULL is false', cmp(size('nul'), '>=', lit(N('0'))), false),
  c('size of missing is false', cmp(size('nope'), '>=', lit(N('0'))), false),
  c('size of a size-less value <> n is true (as a missing value)', cmp(size('n'), '<>', lit(N('2'))), true),
  // AND / OR / NOT
  c('AND true true', and(exists('s'), exists('n')), true),
  c('AND true false', and(exists('s'), exists('nope')), false),
  c('AND false true', and(exists('nope'), exists('s')), false),
  c('OR false true', or(exists('nope'), exists('s')), true),
  c('OR false false', or(exists('nope'), exists('other')), false),
  c('NOT false', not(exists('nope')), true),
  c('NOT true', not(exists('s')), false),
  c('NOT NOT', not(not(exists('s'))), true),
  c('NOT of a comparison with a missing attribute is true', not(cmp(path('nope'), '=', lit(N('1')))), true),
  c('a OR b AND c (parsed as a OR (b AND c))', or(exists('s'), and(exists('nope'), exists('n'))), true),
  c('(a OR b) AND c', and(or(exists('s'), exists('nope')), exists('other')), false),
];

/** One value of each type, for the cross-type comparison matrix. */
const SAMPLES: readonly AttributeValue[] = [
  S('1'),
  N('1'),
  B(0x31),
  BOOL(true),
  NULL,
  SS('1'),
  NS('1'),
  BS([0x31]),
  L(N('1')),
  M({ v: N('1') }),
];
const COMPARATORS: readonly Comparator[] = ['=', '<>', '<', '<=', '>', '>='];

describe('evaluateCondition', () => {
  for (const testCase of CONDITION_CASES) {
    test(testCase.name, () => {
      const item = testCase.item === 'none' ? undefined : (testCase.item ?? ITEM);
      assert.equal(evaluateCondition(testCase.condition, item), testCase.expected);
    });
  }

  test('values of different types: only <> holds', () => {
    for (const left of SAMPLES) {
      for (const right of SAMPLES) {
        if (left === right) continue;
        for (const comparator of COMPARATORS) {
          const holds = evaluateCondition(cmp(lit(left), comparator, lit(right)), undefined);
          assert.equal(holds, comparator === '<>', `${JSON.stringify(left)} ${comparator} ${JSON.stringify(right)}`);
        }
      }
    }
  });

  test('each value is = itself; only S, N, B are <= themselves', () => {
    for (const value of SAMPLES) {
      assert.equal(evaluateCondition(cmp(lit(value), '=', lit(value)), undefined), true);
      assert.equal(evaluateCondition(cmp(lit(value), '<>', lit(value)), undefined), false);
      const orderable = 'S' in value || 'N' in value || 'B' in value;
      assert.equal(evaluateCondition(cmp(lit(value), '<=', lit(value)), undefined), orderable);
      assert.equal(evaluateCondition(cmp(lit(value), '<', lit(value)), undefined), false);
    }
  });

  test('property: string order is UTF-8 byte order', () => {
    const random = randomSource(7);
    const alphabet = ['a', 'Z', '\u00e9', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffff', '😀', '\u{10ffff}', '\u{10000}'];
    for (let round = 0; round < 500; round++) {
      const left = randomString(random, alphabet);
      const right = randomString(random, alphabet);
      const expected = Math.sign(Buffer.compare(Buffer.from(left), Buffer.from(right)));
      assert.equal(evaluateCondition(cmp(lit(S(left)), '<', lit(S(right))), undefined), expected < 0, `${left} < ${right}`);
      assert.equal(evaluateCondition(cmp(lit(S(left)), '=', lit(S(right))), undefined), expected === 0);
    }
  });

  test('property: sets are equal whatever their order', () => {
    const random = randomSource(11);
    for (let round = 0; round < 200; round++) {
      const members = [...new Set(Array.from({ length: 1 + Math.floor(random() * 8) }, () => String(Math.floor(random() * 50))))];
      const shuffled = [...members].sort(() => random() - 0.5);
      assert.ok(valuesEqual(SS(...members), SS(...shuffled)));
      assert.ok(valuesEqual(NS(...members), NS(...shuffled)));
      assert.ok(valuesEqual(M({ set: NS(...members) }), M({ set: NS(...shuffled) })));
      if (members.length > 1) assert.ok(!valuesEqual(SS(...members), SS(...shuffled.slice(1))));
    }
  });
});

describe('resolvePath and sizeOf', () => {
  test('resolves nested maps and lists, undefined otherwise', () => {
    assert.deepEqual(resolvePath(ITEM, ['m', 'b', 'c']), S('deep'));
    assert.deepEqual(resolvePath(ITEM, ['l', 2, 0]), N('2'));
    assert.equal(resolvePath(ITEM, ['l', 9]), undefined);
    assert.equal(resolvePath(ITEM, ['s', 0]), undefined);
    assert.equal(resolvePath(ITEM, ['m', 'a', 'x']), undefined);
    assert.equal(resolvePath(undefined, ['s']), undefined);
    assert.equal(resolvePath(ITEM, ['hasOwnProperty']), undefined);
  });

  test('size of every type', () => {
    assert.equal(sizeOf(S('abc')), 3);
    assert.equal(sizeOf(B(1, 2, 3, 4)), 4);
    assert.equal(sizeOf(N('12345')), undefined);
    assert.equal(sizeOf(BOOL(false)), undefined);
    assert.equal(sizeOf(NULL), undefined);
    assert.equal(sizeOf(M({ a: NULL, b: NULL })), 2);
  });
});

// ---------------------------------------------------------------------------------------------
// Updates
// ---------------------------------------------------------------------------------------------

const BASE: AttributeMap = deepFreeze({
  pk: S('key'),
  s: S('hello'),
  n: N('10'),
  l: L(N('0'), N('1'), N('2'), N('3'), N('4'), N('5')),
  m: M({ a: N('1'), b: M({ c: S('deep') }), list: L(N('10'), N('20')), tags: SS('x', 'y') }),
  ss: SS('a', 'b', 'c'),
  ns: NS('1', '2', '3'),
  bs: BS([1], [2]),
  one: M({ only: S('x') }),
  single: L(S('x')),
  big: N('9' + '0'.repeat(125)),
});

/** BASE with some top-level attributes replaced (undefined removes them). */
function withBase(changes: Record<string, AttributeValue | undefined>): AttributeMap {
  const result: Record<string, AttributeValue> = { ...BASE };
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete result[name];
    else result[name] = value;
  }
  return result;
}

interface UpdateCase {
  readonly name: string;
  readonly update: UpdateActions;
  readonly expected: AttributeMap | { readonly error: string };
  readonly item?: AttributeMap;
}

const u = (name: string, update: UpdateActions, expected: AttributeMap | { readonly error: string }, item?: AttributeMap): UpdateCase =>
  item === undefined ? { name, update, expected } : { name, update, expected, item };
const fails = (error: string): { readonly error: string } => ({ error });
const v = (value: AttributeValue): SetValue => lit(value);
const at = (...steps: PathElement[]): SetValue => path(...steps);
const num = (digits: string): SetValue => lit(N(digits));

const UPDATE_CASES: readonly UpdateCase[] = [
  // SET
  u('SET new attribute', actions(SET(['x'], v(S('new')))), withBase({ x: S('new') })),
  u('SET overwrites with another type', actions(SET(['s'], v(N('1')))), withBase({ s: N('1') })),
  u('SET copies an attribute', actions(SET(['copy'], at('m', 'b'))), withBase({ copy: M({ c: S('deep') }) })),
  u('SET reads the original item (SET s = :v, t = s)', actions(SET(['s'], v(S('new'))), SET(['t'], at('s'))), withBase({ s: S('new'), t: S('hello') })),
  u('SET reads before REMOVE (REMOVE s SET t = s)', actions(REMOVE('s'), SET(['t'], at('s'))), withBase({ s: undefined, t: S('hello') })),
  u('SET swaps two attributes', actions(SET(['s'], at('n')), SET(['n'], at('s'))), withBase({ s: N('10'), n: S('hello') })),
  u('SET from a missing attribute', actions(SET(['x'], at('nope'))), fails(MISSING)),
  u('SET from a missing nested attribute', actions(SET(['x'], at('m', 'zz'))), fails(MISSING)),
  u('SET nested member', actions(SET(['m', 'a'], v(N('2')))), withBase({ m: M({ a: N('2'), b: M({ c: S('deep') }), list: L(N('10'), N('20')), tags: SS('x', 'y') }) })),
  u('SET new nested member', actions(SET(['m', 'b', 'd'], v(BOOL(true)))), withBase({ m: M({ a: N('1'), b: M({ c: S('deep'), d: BOOL(true) }), list: L(N('10'), N('20')), tags: SS('x', 'y') }) })),
  u('SET nested with a missing parent', actions(SET(['zz', 'a'], v(N('1')))), fails(INVALID_PATH)),
  u('SET nested with a missing grandparent', actions(SET(['m', 'zz', 'a'], v(N('1')))), fails(INVALID_PATH)),
  u('SET through a string', actions(SET(['s', 'x'], v(N('1')))), fails(INVALID_PATH)),
  u('SET a name on a list', actions(SET(['l', 'x'], v(N('1')))), fails(INVALID_PATH)),
  u('SET an index on a map', actions(SET(['m', 0], v(N('1')))), fails(INVALID_PATH)),
  u('SET an index on a set', actions(SET(['ss', 0], v(S('z')))), fails(INVALID_PATH)),
  u('SET an index on a missing attribute', actions(SET(['zz', 0], v(N('1')))), fails(INVALID_PATH)),
  u('SET replaces a list element', actions(SET(['l', 1], v(S('one')))), withBase({ l: L(N('0'), S('one'), N('2'), N('3'), N('4'), N('5')) })),
  u('SET past the end appends', actions(SET(['single', 7], v(S('y')))), withBase({ single: L(S('x'), S('y')) })),
  u(
    'SET several past the end appends in index order',
    actions(SET(['single', 84], v(S('a1'))), SET(['single', 37], v(S('a2'))), SET(['single', 17], v(S('a3'))), SET(['single', 50], v(S('a4')))),
    withBase({ single: L(S('x'), S('a3'), S('a2'), S('a4'), S('a1')) }),
  ),
  u('SET nested list element', actions(SET(['m', 'list', 0], v(N('11')))), withBase({ m: M({ a: N('1'), b: M({ c: S('deep') }), list: L(N('11'), N('20')), tags: SS('x', 'y') }) })),
  u('SET a member of a missing list element', actions(SET(['single', 5, 'x'], v(N('1')))), fails(INVALID_PATH)),
  u('SET a member of a list element that is a map', actions(SET(['lm', 0, 'k'], v(N('2')))), withBase({ lm: L(M({ k: N('2') })) }), withBase({ lm: L(M({ k: N('1') })) })),
  u('SET on an item of just its key', actions(SET(['a'], v(S('x')))), { pk: S('key'), a: S('x') }, { pk: S('key') }),
  u('SET an empty list and map', actions(SET(['el'], v(L())), SET(['em'], v(M({})))), withBase({ el: L(), em: M({}) })),
  // arithmetic
  u('SET n = n + 5', actions(SET(['n'], plus(at('n'), num('5')))), withBase({ n: N('15') })),
  u('SET n = 5 - n', actions(SET(['n'], minus(num('5'), at('n')))), withBase({ n: N('-5') })),
  u('0.1 + 0.2 is exactly 0.3', actions(SET(['x'], plus(num('0.1'), num('0.2')))), withBase({ x: N('0.3') })),
  u('10 - 0.01', actions(SET(['x'], minus(at('n'), num('0.01')))), withBase({ x: N('9.99') })),
  u('n - n is canonical 0', actions(SET(['x'], minus(at('n'), at('n')))), withBase({ x: N('0') })),
  u('-0.5 + 0.5 is canonical 0', actions(SET(['x'], plus(num('-0.5'), num('0.5')))), withBase({ x: N('0') })),
  u('2.50 + 2.50 drops trailing zeros', actions(SET(['x'], plus(num('2.5'), num('2.5')))), withBase({ x: N('5') })),
  u('1E125 + 9E125 overflows', actions(SET(['x'], plus(num('1' + '0'.repeat(125)), at('big')))), fails(OVERFLOW)),
  u('-9E125 - 9E125 overflows', actions(SET(['x'], minus(num('-9' + '0'.repeat(125)), at('big')))), fails(OVERFLOW)),
  u('1E125 + 1E125 = 2E125 fits', actions(SET(['x'], plus(num('1' + '0'.repeat(125)), num('1' + '0'.repeat(125))))), withBase({ x: N('2' + '0'.repeat(125)) })),
  u('1E50 + 1 needs 51 digits: DynamoDB says overflow', actions(SET(['x'], plus(num('1' + '0'.repeat(50)), num('1')))), fails(OVERFLOW)),
  u('0.1 + 1E-40 needs 40 digits', actions(SET(['x'], plus(num('0.1'), num('0.' + '0'.repeat(39) + '1')))), fails(OVERFLOW)),
  u(
    '38-digit result is fine',
    actions(SET(['x'], minus(num('99999999999999999999999999999999999999'), num('1')))),
    withBase({ x: N('99999999999999999999999999999999999998') }),
  ),
  u(
    '38 nines + 1 rounds up to one digit',
    actions(SET(['x'], plus(num('99999999999999999999999999999999999999'), num('1')))),
    withBase({ x: N('1' + '0'.repeat(38)) }),
  ),
  u(
    '38-digit fraction + 38-digit fraction',
    actions(SET(['x'], plus(num('0.12345678901234567890123456789012345678'), num('0.00000000000000000000000000000000000001')))),
    withBase({ x: N('0.12345678901234567890123456789012345679') }),
  ),
  u(
    'difference below 1E-130 underflows',
    actions(SET(['x'], minus(num('0.' + '0'.repeat(129) + '11'), num('0.' + '0'.repeat(129) + '1')))),
    fails(UNDERFLOW),
  ),
  u('1E-130 + 1E-130', actions(SET(['x'], plus(num('0.' + '0'.repeat(129) + '1'), num('0.' + '0'.repeat(129) + '1')))), withBase({ x: N('0.' + '0'.repeat(129) + '2') })),
  u('+ with a string operand', actions(SET(['x'], plus(at('s'), num('1')))), fails(INCORRECT_TYPE)),
  u('+ with a set operand', actions(SET(['x'], plus(num('1'), at('ns')))), fails(INCORRECT_TYPE)),
  u('- with a list operand', actions(SET(['x'], minus(at('l'), num('1')))), fails(INCORRECT_TYPE)),
  u('+ with a missing operand', actions(SET(['x'], plus(at('nope'), num('1')))), fails(MISSING)),
  u('+ checks the left operand first', actions(SET(['x'], plus(at('s'), at('nope')))), fails(INCORRECT_TYPE)),
  u('+ reads the right operand after the left', actions(SET(['x'], plus(at('n'), at('nope')))), fails(MISSING)),
  // if_not_exists
  u('if_not_exists of a missing attribute', actions(SET(['x'], ifNotExists(['x'], v(N('7'))))), withBase({ x: N('7') })),
  u('if_not_exists of a present attribute', actions(SET(['n'], ifNotExists(['n'], v(N('7'))))), BASE),
  u('if_not_exists copies another present attribute', actions(SET(['x'], ifNotExists(['s'], v(N('7'))))), withBase({ x: S('hello') })),
  u('if_not_exists does not evaluate an unneeded fallback', actions(SET(['x'], ifNotExists(['s'], at('nope')))), withBase({ x: S('hello') })),
  u('if_not_exists + 1 (counter idiom)', actions(SET(['cnt'], plus(ifNotExists(['cnt'], num('0')), num('1')))), withBase({ cnt: N('1') })),
  u('if_not_exists of a nested path', actions(SET(['x'], ifNotExists(['m', 'a'], num('0')))), withBase({ x: N('1') })),
  // list_append
  u('list_append(l, :v)', actions(SET(['single'], listAppend(at('single'), v(L(S('y'), S('z')))))), withBase({ single: L(S('x'), S('y'), S('z')) })),
  u('list_append(:v, l) prepends', actions(SET(['single'], listAppend(v(L(S('w'))), at('single')))), withBase({ single: L(S('w'), S('x')) })),
  u('list_append of two empty lists', actions(SET(['x'], listAppend(v(L()), v(L())))), withBase({ x: L() })),
  u('list_append into a nested list', actions(SET(['m', 'list'], listAppend(at('m', 'list'), v(L(N('30')))))), withBase({ m: M({ a: N('1'), b: M({ c: S('deep') }), list: L(N('10'), N('20'), N('30')), tags: SS('x', 'y') }) })),
  u('list_append with a string', actions(SET(['x'], listAppend(at('single'), at('s')))), fails(INCORRECT_TYPE)),
  u('list_append with a set', actions(SET(['x'], listAppend(at('ss'), at('single')))), fails(INCORRECT_TYPE)),
  u('list_append with a missing list', actions(SET(['x'], listAppend(at('nope'), at('single')))), fails(MISSING)),
  u('list_append(if_not_exists(x, []), :v)', actions(SET(['x'], listAppend(ifNotExists(['x'], v(L())), v(L(N('1')))))), withBase({ x: L(N('1')) })),
  // REMOVE
  u('REMOVE an attribute', actions(REMOVE('s')), withBase({ s: undefined })),
  u('REMOVE several attributes', actions(REMOVE('s'), REMOVE('n'), REMOVE('nope')), withBase({ s: undefined, n: undefined })),
  u('REMOVE a missing attribute is a no-op', actions(REMOVE('nope')), BASE),
  u('REMOVE a nested member', actions(REMOVE('m', 'b')), withBase({ m: M({ a: N('1'), list: L(N('10'), N('20')), tags: SS('x', 'y') }) })),
  u('REMOVE a missing nested member is a no-op', actions(REMOVE('m', 'zz')), BASE),
  u('REMOVE below a missing attribute', actions(REMOVE('zz', 'a')), fails(INVALID_PATH)),
  u('REMOVE through a string', actions(REMOVE('s', 'x')), fails(INVALID_PATH)),
  u('REMOVE an index of a string', actions(REMOVE('s', 0)), fails(INVALID_PATH)),
  u('REMOVE an index of a map', actions(REMOVE('m', 0)), fails(INVALID_PATH)),
  u('REMOVE a list element shifts the rest', actions(REMOVE('l', 1)), withBase({ l: L(N('0'), N('2'), N('3'), N('4'), N('5')) })),
  u('REMOVE several elements by original index', actions(REMOVE('l', 1), REMOVE('l', 2), REMOVE('l', 4)), withBase({ l: L(N('0'), N('3'), N('5')) })),
  u('REMOVE in any order means the same indexes', actions(REMOVE('l', 4), REMOVE('l', 1), REMOVE('l', 2)), withBase({ l: L(N('0'), N('3'), N('5')) })),
  u('REMOVE past the end is a no-op', actions(REMOVE('l', 17)), BASE),
  u('REMOVE l[1] SET l[3]: original positions', actions(REMOVE('l', 1), SET(['l', 3], v(N('17')))), withBase({ l: L(N('0'), N('2'), N('17'), N('4'), N('5')) })),
  u('SET l[3] REMOVE l[1]: the same', actions(SET(['l', 3], v(N('17'))), REMOVE('l', 1)), withBase({ l: L(N('0'), N('2'), N('17'), N('4'), N('5')) })),
  u('REMOVE the only member leaves an empty map', actions(REMOVE('one', 'only')), withBase({ one: M({}) })),
  u('REMOVE the only element leaves an empty list', actions(REMOVE('single', 0)), withBase({ single: L() })),
  u('REMOVE a nested list element', actions(REMOVE('m', 'list', 0)), withBase({ m: M({ a: N('1'), b: M({ c: S('deep') }), list: L(N('20')), tags: SS('x', 'y') }) })),
  u('REMOVE a member of a missing list element', actions(REMOVE('single', 3, 'x')), fails(INVALID_PATH)),
  // ADD
  u('ADD to a number', actions(ADD(['n'], N('5'))), withBase({ n: N('15') })),
  u('ADD a negative number', actions(ADD(['n'], N('-10.5'))), withBase({ n: N('-0.5') })),
  u('ADD to a missing number starts from 0', actions(ADD(['x'], N('3'))), withBase({ x: N('3') })),
  u('ADD 0.1 to 0.2', actions(ADD(['x'], N('0.2'))), withBase({ x: N('0.3') }), withBase({ x: N('0.1') })),
  u('ADD overflows', actions(ADD(['big'], N('9' + '0'.repeat(125)))), fails(OVERFLOW)),
  u('ADD a number to a string', actions(ADD(['s'], N('1'))), fails(INCORRECT_TYPE)),
  u('ADD a number to a set', actions(ADD(['ns'], N('1'))), fails(INCORRECT_TYPE)),
  u('ADD a set to a number', actions(ADD(['n'], NS('1'))), fails(INCORRECT_TYPE)),
  u('ADD SS union', actions(ADD(['ss'], SS('d', 'e'))), withBase({ ss: SS('a', 'b', 'c', 'd', 'e') })),
  u('ADD SS union skips present members', actions(ADD(['ss'], SS('c', 'a', 'z'))), withBase({ ss: SS('a', 'b', 'c', 'z') })),
  u('ADD SS of present members only', actions(ADD(['ss'], SS('b'))), BASE),
  u('ADD SS to a missing attribute', actions(ADD(['x'], SS('q'))), withBase({ x: SS('q') })),
  u('ADD NS to SS', actions(ADD(['ss'], NS('1'))), fails(INCORRECT_TYPE)),
  u('ADD NS union', actions(ADD(['ns'], NS('3', '4.5'))), withBase({ ns: NS('1', '2', '3', '4.5') })),
  u('ADD BS union by bytes (unpadded spelling of a member)', actions(ADD(['bs'], { BS: ['AQ', 'Aw=='] })), withBase({ bs: { BS: ['AQ==', 'Ag==', 'Aw=='] } })),
  u('ADD a nested number', actions(ADD(['m', 'a'], N('1'))), withBase({ m: M({ a: N('2'), b: M({ c: S('deep') }), list: L(N('10'), N('20')), tags: SS('x', 'y') }) })),
  u('ADD a new nested number', actions(ADD(['m', 'b', 'count'], N('1'))), withBase({ m: M({ a: N('1'), b: M({ c: S('deep'), count: N('1') }), list: L(N('10'), N('20')), tags: SS('x', 'y') }) })),
  u('ADD below a missing attribute', actions(ADD(['zz', 'count'], N('1'))), fails(INVALID_PATH)),
  u('ADD to a list element', actions(ADD(['l', 1], N('10'))), withBase({ l: L(N('0'), N('11'), N('2'), N('3'), N('4'), N('5')) })),
  u('ADD past the end of a list appends', actions(ADD(['single', 9], N('1'))), withBase({ single: L(S('x'), N('1')) })),
  u('ADD a string operand', actions(ADD(['s'], S('x'))), fails('Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING')),
  u('ADD a list operand', actions(ADD(['l'], L(N('1')))), fails('Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: LIST')),
  // DELETE
  u('DELETE members of a SS', actions(DELETE(['ss'], SS('a', 'c'))), withBase({ ss: SS('b') })),
  u('DELETE every member removes the attribute', actions(DELETE(['ss'], SS('c', 'b', 'a'))), withBase({ ss: undefined })),
  u('DELETE a non-member is a no-op', actions(DELETE(['ss'], SS('z'))), BASE),
  u('DELETE from a missing attribute is a no-op', actions(DELETE(['nope'], SS('z'))), BASE),
  u('DELETE NS members', actions(DELETE(['ns'], NS('2', '9'))), withBase({ ns: NS('1', '3') })),
  u('DELETE BS members by bytes', actions(DELETE(['bs'], { BS: ['AQ'] })), withBase({ bs: BS([2]) })),
  u('DELETE NS from a SS', actions(DELETE(['ss'], NS('1'))), fails(INCORRECT_TYPE)),
  u('DELETE from a string', actions(DELETE(['s'], SS('h'))), fails(INCORRECT_TYPE)),
  u('DELETE from a list', actions(DELETE(['l'], NS('1'))), fails(INCORRECT_TYPE)),
  u('DELETE a number operand', actions(DELETE(['n'], N('1'))), fails('Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER')),
  u('DELETE from a nested set', actions(DELETE(['m', 'tags'], SS('x'))), withBase({ m: M({ a: N('1'), b: M({ c: S('deep') }), list: L(N('10'), N('20')), tags: SS('y') }) })),
  u('DELETE the last member of a nested set removes it', actions(DELETE(['m', 'tags'], SS('x', 'y'))), withBase({ m: M({ a: N('1'), b: M({ c: S('deep') }), list: L(N('10'), N('20')) }) })),
  // all clauses together; defensive path checks
  u(
    'SET, REMOVE, ADD and DELETE together',
    actions(SET(['s'], v(S('bye'))), SET(['m', 'a'], plus(at('m', 'a'), at('n'))), REMOVE('one'), ADD(['n'], N('1')), DELETE(['ss'], SS('a'))),
    withBase({ s: S('bye'), m: M({ a: N('11'), b: M({ c: S('deep') }), list: L(N('10'), N('20')), tags: SS('x', 'y') }), one: undefined, n: N('11'), ss: SS('b', 'c') }),
  ),
  u('overlapping paths are rejected', actions(SET(['m'], v(N('1'))), REMOVE('m', 'a')), fails('Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m], path two: [m, a]')),
  u('the same path twice is rejected', actions(SET(['s'], v(N('1'))), REMOVE('s')), fails('Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [s], path two: [s]')),
  u('conflicting paths are rejected', actions(SET(['m', 'a'], v(N('1'))), SET(['m', 1], v(N('1')))), fails('Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [m, a], path two: [m, [1]]')),
  // attribute names that are Object.prototype members
  u('SET constructor (not an own attribute until set)', actions(SET(['constructor'], v(S('c')))), withBase({ constructor: S('c') })),
  u('ADD to toString starts from 0', actions(ADD(['toString'], N('2'))), withBase({ toString: N('2') })),
  u('SET from hasOwnProperty is a missing attribute', actions(SET(['x'], at('hasOwnProperty'))), fails(MISSING)),
];

function assertUpdateCase(testCase: UpdateCase): void {
  const item = testCase.item ?? BASE;
  if ('error' in testCase.expected) {
    const message = testCase.expected.error;
    assert.throws(
      () => applyUpdate(item, testCase.update),
      (error: unknown) => error instanceof DynamoError && error.code === 'ValidationException' && error.message === message,
    );
    return;
  }
  assert.deepStrictEqual(applyUpdate(item, testCase.update), testCase.expected);
}

describe('applyUpdate', () => {
  for (const testCase of UPDATE_CASES) test(testCase.name, () => assertUpdateCase(testCase));

  test('an attribute named __proto__ is an own member, not the prototype', () => {
    const result = applyUpdate(BASE, actions(SET(['__proto__'], v(S('p')))));
    assert.ok(Object.hasOwn(result, '__proto__'));
    assert.deepEqual(Object.getOwnPropertyDescriptor(result, '__proto__')?.value, S('p'));
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    const removed = applyUpdate(result, actions(REMOVE('__proto__')));
    assert.ok(!Object.hasOwn(removed, '__proto__'));
  });

  test('untouched values are shared with the input (structural sharing)', () => {
    const result = applyUpdate(BASE, actions(SET(['m', 'a'], v(N('5')))));
    assert.notEqual(result, BASE);
    assert.notEqual(result.m, BASE.m);
    assert.equal(result.l, BASE.l);
    assert.equal(result.ss, BASE.ss);
    const oldMap = (BASE.m as { M: AttributeMap }).M;
    const newMap = (result.m as { M: AttributeMap }).M;
    assert.equal(newMap.b, oldMap.b);
    assert.equal(newMap.list, oldMap.list);
  });
});

describe('addNumbers', () => {
  const cases: [string, string, boolean, string][] = [
    ['1', '10000000000000000000000', false, '10000000000000000000001'],
    ['10000000000000000000000', '1', true, '9999999999999999999999'],
    ['-1', '1', false, '0'],
    ['0.1', '0.2', false, '0.3'],
    ['1.5', '-1.25', false, '0.25'],
    ['-3', '-4', true, '1'],
  ];
  for (const [left, right, subtract, expected] of cases) {
    test(`${left} ${subtract ? '-' : '+'} ${right} = ${expected}`, () => assert.equal(addNumbers(left, right, subtract), expected));
  }

  test('property: (a + b) - b = a for random 38-digit-safe integers', () => {
    const random = randomSource(3);
    for (let round = 0; round < 300; round++) {
      const a = randomInteger(random, 30);
      const b = randomInteger(random, 30);
      const sum = addNumbers(a, b);
      assert.equal(sum, String(BigInt(a) + BigInt(b)));
      assert.equal(addNumbers(sum, b, true), a);
    }
  });

  test('property: integers of up to 15 digits (added as doubles) and the same values as decimals agree', () => {
    const random = randomSource(21);
    for (let round = 0; round < 2000; round++) {
      const a = randomInteger(random, 1 + Math.floor(random() * 15));
      const b = randomInteger(random, 1 + Math.floor(random() * 15));
      for (const subtract of [false, true]) {
        const exact = String(subtract ? BigInt(a) - BigInt(b) : BigInt(a) + BigInt(b));
        assert.equal(addNumbers(a, b, subtract), exact);
        // `.0` keeps the text off the integer path: the decimal answer must be the same text.
        assert.equal(addNumbers(`${a}.0`, b, subtract), exact);
      }
    }
    for (const [left, right] of [['999999999999999', '999999999999999'], ['-999999999999999', '999999999999999'], ['-0', '0'], ['007', '-7']] as const) {
      assert.equal(addNumbers(left, right), addNumbers(`${left}.0`, right));
      assert.equal(addNumbers(left, right, true), addNumbers(`${left}.0`, right, true));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// ReturnValues UPDATED_OLD / UPDATED_NEW
// ---------------------------------------------------------------------------------------------

describe('projectUpdated', () => {
  const item: AttributeMap = deepFreeze({ p: S('k'), a: M({ b: S('dog'), c: L(N('1'), N('2'), N('3')) }), d: S('cat') });

  const projectionCases: [string, UpdateActions, 'old' | 'new', AttributeMap | undefined][] = [
    ['UPDATED_OLD of a top-level SET', actions(SET(['d'], v(S('x')))), 'old', { d: S('cat') }],
    ['UPDATED_NEW of a top-level SET', actions(SET(['d'], v(S('x')))), 'new', { d: S('x') }],
    ['UPDATED_OLD of a nested SET is only that member', actions(SET(['a', 'b'], v(S('hi')))), 'old', { a: M({ b: S('dog') }) }],
    ['UPDATED_NEW of a nested SET', actions(SET(['a', 'b'], v(S('hi')))), 'new', { a: M({ b: S('hi') }) }],
    ['UPDATED_OLD of a list element', actions(SET(['a', 'c', 1], v(N('7')))), 'old', { a: M({ c: L(N('2')) }) }],
    ['UPDATED_NEW of two nested paths', actions(SET(['a', 'c', 1], v(N('7'))), SET(['a', 'b'], v(S('x')))), 'new', { a: M({ c: L(N('7')), b: S('x') }) }],
    ['UPDATED_OLD of a new attribute is nothing', actions(SET(['x'], v(S('x')))), 'old', undefined],
    ['UPDATED_NEW of a REMOVE is nothing', actions(REMOVE('d')), 'new', undefined],
    ['UPDATED_OLD of a REMOVE', actions(REMOVE('d')), 'old', { d: S('cat') }],
    ['UPDATED_OLD of REMOVE a.c[1], a.c[3] (one missing)', actions(REMOVE('a', 'c', 1), REMOVE('a', 'c', 3)), 'old', { a: M({ c: L(N('2')) }) }],
    ['UPDATED_NEW of SET past a list end is nothing', actions(SET(['a', 'c', 100], v(N('70')))), 'new', undefined],
    ['UPDATED_NEW of REMOVE a.c[1] shows the shifted element', actions(REMOVE('a', 'c', 1)), 'new', { a: M({ c: L(N('3')) }) }],
    ['UPDATED_NEW of ADD', actions(ADD(['cnt'], N('1'))), 'new', { cnt: N('1') }],
    ['UPDATED_NEW of DELETE of a whole set is nothing', actions(DELETE(['tags'], SS('a'))), 'new', undefined],
  ];
  for (const [name, update, side, expected] of projectionCases) {
    test(name, () => {
      const target = side === 'old' ? item : applyUpdate(item, update);
      assert.deepStrictEqual(projectUpdated(target, update), expected);
    });
  }

  test('an item that did not exist has no UPDATED_OLD', () => {
    assert.equal(projectUpdated(undefined, actions(SET(['d'], v(S('x'))))), undefined);
  });

  test('updatedAttributeNames lists each top-level name once', () => {
    const update = actions(SET(['a', 'b'], v(S('x'))), SET(['a', 'c'], v(S('y'))), REMOVE('d'), ADD(['n'], N('1')), DELETE(['s'], SS('q')));
    assert.deepEqual(updatedAttributeNames(update), ['a', 'd', 'n', 's']);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: updates never mutate their input
// ---------------------------------------------------------------------------------------------


function pick<T>(random: () => number, choices: readonly T[]): T {
  return choices[Math.floor(random() * choices.length)]!;
}

function randomString(random: () => number, alphabet: readonly string[]): string {
  return Array.from({ length: Math.floor(random() * 4) }, () => pick(random, alphabet)).join('');
}

function randomInteger(random: () => number, maxDigits: number): string {
  const digits = Array.from({ length: 1 + Math.floor(random() * maxDigits) }, () => String(Math.floor(random() * 10))).join('');
  const magnitude = BigInt(digits);
  return String(random() < 0.3 ? -magnitude : magnitude);
}

const NAMES = ['a', 'b', 'c', 'd', 'e'];

function randomValue(random: () => number, depth: number): AttributeValue {
  const kind = Math.floor(random() * (depth > 2 ? 6 : 8));
  switch (kind) {
    case 0:
      return S(pick(random, ['x', 'y', '']));
    case 1:
      return N(randomInteger(random, 5));
    case 2:
      return SS(...new Set(['p', 'q', 'r'].filter(() => random() < 0.6)).add('s'));
    case 3:
      return NS(...new Set(['1', '2', '3'].filter(() => random() < 0.6)).add('4'));
    case 4:
      return BOOL(random() < 0.5);
    case 5:
      return B(Math.floor(random() * 256));
    case 6:
      return L(...Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1)));
    default: {
      const members: Record<string, AttributeValue> = {};
      for (const name of NAMES) if (random() < 0.5) members[name] = randomValue(random, depth + 1);
      return M(members);
    }
  }
}

/**
 * Mostly a path that exists in the item (so most random updates are valid), sometimes one step
 * further or off to the side (so invalid paths and appends are exercised too).
 */
function randomPath(random: () => number, item: AttributeMap, first: string = pick(random, NAMES)): PathElement[] {
  const steps: PathElement[] = [first];
  let value = Object.hasOwn(item, first) ? item[first] : undefined;
  while (value !== undefined && random() < 0.6 && steps.length < 5) {
    if ('L' in value && value.L.length > 0) {
      const index = random() < 0.85 ? Math.floor(random() * value.L.length) : value.L.length + Math.floor(random() * 3);
      steps.push(index);
      value = value.L[index];
    } else if ('M' in value && Object.keys(value.M).length > 0) {
      const name = random() < 0.85 ? pick(random, Object.keys(value.M)) : pick(random, NAMES);
      steps.push(name);
      value = Object.hasOwn(value.M, name) ? value.M[name] : undefined;
    } else {
      break;
    }
  }
  if (random() < 0.1) steps.push(random() < 0.5 ? pick(random, NAMES) : Math.floor(random() * 4));
  return steps;
}

function randomSetValue(random: () => number, item: AttributeMap): SetValue {
  switch (Math.floor(random() * 5)) {
    case 0:
      return at(...randomPath(random, item));
    case 1:
      return plus(random() < 0.5 ? at(...randomPath(random, item)) : num('1'), num('2'));
    case 2:
      return ifNotExists(randomPath(random, item), v(randomValue(random, 2)));
    case 3:
      return listAppend(ifNotExists(randomPath(random, item), v(L())), v(L(N('1'))));
    default:
      return v(randomValue(random, 1));
  }
}

/** A clause on its own top-level attribute, so random updates rarely overlap. */
function randomClause(random: () => number, item: AttributeMap, name: string): Clause {
  const steps = randomPath(random, item, name);
  switch (Math.floor(random() * 4)) {
    case 0:
      return SET(steps, randomSetValue(random, item));
    case 1:
      return REMOVE(...steps);
    case 2:
      return ADD(steps, random() < 0.5 ? N(randomInteger(random, 3)) : pick(random, [SS('p', 'z'), NS('1', '9')]));
    default:
      return DELETE(steps, pick(random, [SS('p', 'q'), NS('2'), SS('s')]));
  }
}

describe('property: top-level updates (applied without the action tree) agree with the same updates one map down', () => {
  test('random SET / REMOVE / ADD / DELETE of distinct top-level attributes', () => {
    const random = randomSource(2111);
    let applied = 0;
    for (let round = 0; round < 2000; round++) {
      const members: Record<string, AttributeValue> = {};
      for (const name of NAMES) if (random() < 0.7) members[name] = randomValue(random, 0);
      const item = deepFreeze(members);
      const names = [...NAMES].sort(() => random() - 0.5).slice(0, 1 + Math.floor(random() * 4));
      // The same clauses twice: on the item's own attributes, and on those of a map `w` holding it.
      const top: Clause[] = [];
      const nested: Clause[] = [];
      for (const name of names) {
        const roll = Math.floor(random() * 6);
        const value = randomValue(random, 1);
        const number = N(randomInteger(random, 3));
        const set = pick(random, [SS('p', 'z'), NS('1', '9'), SS('s')]);
        if (roll === 0) {
          top.push(SET([name], v(value)));
          nested.push(SET(['w', name], v(value)));
        } else if (roll === 1) {
          top.push(SET([name], plus(at(name), v(number))));
          nested.push(SET(['w', name], plus(at('w', name), v(number))));
        } else if (roll === 2) {
          top.push(SET([name], ifNotExists([name], v(value))));
          nested.push(SET(['w', name], ifNotExists(['w', name], v(value))));
        } else if (roll === 3) {
          top.push(REMOVE(name));
          nested.push(REMOVE('w', name));
        } else if (roll === 4) {
          const added = random() < 0.5 ? number : set;
          top.push(ADD([name], added));
          nested.push(ADD(['w', name], added));
        } else {
          top.push(DELETE([name], set));
          nested.push(DELETE(['w', name], set));
        }
      }
      const outcome = (run: () => AttributeMap): string => {
        try {
          return JSON.stringify(run());
        } catch (error) {
          if (!(error instanceof DynamoError)) throw error;
          return `error: ${error.message}`;
        }
      };
      const direct = outcome(() => applyUpdate(item, actions(...top)));
      const viaTree = outcome(() => {
        const wrapped = applyUpdate(deepFreeze({ w: M(item) }), actions(...nested));
        return (wrapped.w as { M: AttributeMap }).M;
      });
      // Same members in the same order, or the same error.
      assert.equal(direct, viaTree);
      if (!direct.startsWith('error')) applied++;
    }
    assert.ok(applied > 500, `only ${applied} random updates applied`);
  });
});

describe('property: updates never mutate their input', () => {
  test('random updates on deep-frozen items', () => {
    const random = randomSource(42);
    let applied = 0;
    for (let round = 0; round < 1000; round++) {
      const members: Record<string, AttributeValue> = {};
      for (const name of NAMES) if (random() < 0.7) members[name] = randomValue(random, 0);
      const snapshot = structuredClone(members);
      const item = deepFreeze(members);
      const names = [...NAMES].sort(() => random() - 0.5).slice(0, 1 + Math.floor(random() * 3));
      const update = actions(...names.map((name) => randomClause(random, item, name)));
      try {
        const result = applyUpdate(item, update);
        applied++;
        // Every top-level attribute the update does not name is shared, not copied.
        const touched = new Set(updatedAttributeNames(update));
        for (const name of Object.keys(item)) if (!touched.has(name)) assert.equal(result[name], item[name]);
        // And the result can itself be updated again.
        applyUpdate(deepFreeze(result), actions(SET(['z'], v(N('1')))));
      } catch (error) {
        // DynamoDB rejects many random updates; a TypeError (write to a frozen object) is a bug.
        if (!(error instanceof DynamoError)) throw error;
      }
      assert.deepStrictEqual(item, snapshot);
      evaluateCondition(and(exists(...randomPath(random, item)), contains(path(...randomPath(random, item)), lit(N('1')))), item);
      assert.deepStrictEqual(item, snapshot);
    }
    // The generator must exercise successful updates, not only rejected ones.
    assert.ok(applied > 300, `only ${applied} random updates applied`);
  });
});
