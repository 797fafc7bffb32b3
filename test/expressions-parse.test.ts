/**
 * The expression parser at unit level: the documented / observed cases of expression-cases.ts,
 * operator precedence, reserved words, the cache, placeholder bookkeeping, deep nesting, and a
 * seeded fuzz run in which every input must end in a parse or a ValidationException.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DynamoError } from '../src/errors.js';
import { ExpressionCache } from '../src/expressions/cache.js';
import {
  checkExpressionAttributeNames,
  checkExpressionAttributeValues,
  checkUnusedPlaceholders,
  javaHashSetOrder,
  keyConditionOf,
  parseCondition,
  parseKeyCondition,
  parseKeyConditionExpression,
  parseProjectionPaths,
  parseUpdate,
  type ExpressionContext,
} from '../src/expressions/parser.js';
import { applyProjection, parseProjection } from '../src/expressions/projection.js';
import { KEYWORDS, RESERVED_WORDS, isReservedWord } from '../src/expressions/reserved-words.js';
import { tokenize } from '../src/expressions/tokenizer.js';
import type { AttributeValue } from '../src/model/attribute-value.js';
import { EXPRESSION_CASES, type CaseKind, type ExpressionCase } from './expression-cases.js';
import { seededRandom as mulberry32 } from './support/random.js';

function contextOf(
  names?: Readonly<Record<string, string>>,
  values?: Readonly<Record<string, AttributeValue>>,
): ExpressionContext {
  return { names, values, usedNames: new Set(), usedValues: new Set() };
}

function parseAs(
  kind: CaseKind,
  text: string,
  context: ExpressionContext,
  cache?: ExpressionCache,
  keySchema: { hash: string; range?: string } = { hash: 'id', range: 'sk' },
): unknown {
  switch (kind) {
    case 'ConditionExpression':
    case 'FilterExpression':
      return parseCondition(text, context, kind, cache);
    case 'KeyConditionExpression':
      return parseKeyCondition(text, context, keySchema, cache);
    case 'UpdateExpression':
      return parseUpdate(text, context, cache);
    case 'ProjectionExpression':
      return parseProjectionPaths(text, context, cache);
  }
}

function runCase(testCase: ExpressionCase): unknown {
  const context = contextOf(testCase.names, testCase.values);
  const result = parseAs(testCase.kind, testCase.expression, context, undefined, testCase.keySchema);
  if (testCase.checkUnused === true) checkUnusedPlaceholders(context);
  return result;
}

function assertValidation(run: () => unknown, message: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof DynamoError, `expected a DynamoError, got ${String(error)}`);
    assert.equal(error.code, 'ValidationException');
    assert.equal(error.message, message);
    return true;
  });
}

// --- documented and observed cases ---------------------------------------------------------------

test('the case file holds at least 200 cases', () => {
  assert.ok(EXPRESSION_CASES.length >= 200, `only ${EXPRESSION_CASES.length} cases`);
});

for (const testCase of EXPRESSION_CASES) {
  const label = testCase.expression.length > 70 ? `${testCase.expression.slice(0, 70)}…` : testCase.expression;
  test(`${testCase.kind}: ${JSON.stringify(label)}`, () => {
    const expected = testCase.expect;
    if (expected === 'ok') {
      const result = runCase(testCase);
      if (testCase.ast !== undefined) assert.deepEqual(result, testCase.ast);
    } else {
      assertValidation(() => runCase(testCase), expected.error);
    }
  });
}

// --- precedence: NOT > AND > OR, comparisons tighter still, AND / OR left-associative -----------

const v = { ':v': { S: 'v' } } as const;
const leaf = (name: string) => ({
  kind: 'compare',
  comparator: '=',
  left: { kind: 'path', path: [name] },
  right: { kind: 'value', value: { S: 'v' } },
});
const condition = (text: string): unknown => parseCondition(text, contextOf(undefined, v), 'ConditionExpression');

test('AND binds tighter than OR', () => {
  assert.deepEqual(condition('a = :v OR b = :v AND c = :v'), {
    kind: 'or',
    left: leaf('a'),
    right: { kind: 'and', left: leaf('b'), right: leaf('c') },
  });
  assert.deepEqual(condition('a = :v AND b = :v OR c = :v'), {
    kind: 'or',
    left: { kind: 'and', left: leaf('a'), right: leaf('b') },
    right: leaf('c'),
  });
});

test('NOT binds tighter than AND, and applies to one comparison', () => {
  assert.deepEqual(condition('NOT a = :v AND b = :v'), {
    kind: 'and',
    left: { kind: 'not', operand: leaf('a') },
    right: leaf('b'),
  });
  assert.deepEqual(condition('a = :v OR NOT b = :v AND c = :v'), {
    kind: 'or',
    left: leaf('a'),
    right: { kind: 'and', left: { kind: 'not', operand: leaf('b') }, right: leaf('c') },
  });
});

test('AND and OR chains group from the left', () => {
  assert.deepEqual(condition('a = :v AND b = :v AND c = :v'), {
    kind: 'and',
    left: { kind: 'and', left: leaf('a'), right: leaf('b') },
    right: leaf('c'),
  });
  assert.deepEqual(condition('a = :v OR b = :v OR c = :v'), {
    kind: 'or',
    left: { kind: 'or', left: leaf('a'), right: leaf('b') },
    right: leaf('c'),
  });
});

test('parentheses override precedence', () => {
  assert.deepEqual(condition('(a = :v OR b = :v) AND c = :v'), {
    kind: 'and',
    left: { kind: 'or', left: leaf('a'), right: leaf('b') },
    right: leaf('c'),
  });
  assert.deepEqual(condition('NOT (a = :v AND b = :v)'), {
    kind: 'not',
    operand: { kind: 'and', left: leaf('a'), right: leaf('b') },
  });
});

test('BETWEEN takes the first AND; the next one is logical', () => {
  assert.deepEqual(condition('a BETWEEN :v AND :v AND b = :v'), {
    kind: 'and',
    left: {
      kind: 'between',
      subject: { kind: 'path', path: ['a'] },
      low: { kind: 'value', value: { S: 'v' } },
      high: { kind: 'value', value: { S: 'v' } },
    },
    right: leaf('b'),
  });
});

test('keywords are case-insensitive, function names are not', () => {
  assert.deepEqual(condition('a = :v aNd b = :v oR NoT c = :v'), condition('a = :v AND b = :v OR NOT c = :v'));
  assertValidation(() => condition('Attribute_Exists(a)'), 'Invalid ConditionExpression: Invalid function name; function: Attribute_Exists');
});

// --- reserved words -------------------------------------------------------------------------------

test('the reserved word list is the published one: 573 words', () => {
  assert.equal(RESERVED_WORDS.size, 573);
  for (const word of ['ABORT', 'STATUS', 'NAME', 'DATA', 'ZONE', 'COMMENT', 'SIZE', 'CONVERT']) assert.ok(RESERVED_WORDS.has(word), word);
  assert.ok(isReservedWord('status') && isReservedWord('Status') && isReservedWord('STATUS'));
  assert.ok(!isReservedWord('statuses'));
  assert.ok(!isReservedWord('size') && !isReservedWord('Convert'));
});

test('every reserved word, in any case, is refused as a name; keywords are syntax errors', () => {
  for (const word of RESERVED_WORDS) {
    for (const spelling of [word, word.toLowerCase()]) {
      const text = `x.${spelling} = :v`;
      const run = (): unknown => condition(text);
      if (KEYWORDS.has(word)) {
        assertValidation(run, `Invalid ConditionExpression: Syntax error; token: "${spelling}", near: ".${spelling} ="`);
      } else if (isReservedWord(word)) {
        assertValidation(run, `Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: ${spelling}`);
      } else {
        assert.doesNotThrow(run, text);
      }
    }
  }
});

test('a reserved word behind a #name placeholder is fine', () => {
  const context = contextOf({ '#s': 'status' }, v);
  assert.deepEqual(parseCondition('#s = :v', context, 'FilterExpression'), {
    kind: 'compare',
    comparator: '=',
    left: { kind: 'path', path: ['status'] },
    right: { kind: 'value', value: { S: 'v' } },
  });
});

// --- tokenizer ------------------------------------------------------------------------------------

test('the tokenizer splits every kind of token and ends with <EOF>', () => {
  const tokens = tokenize('a.b[10] <> #n AND :v >= x_1 (0) , + - <= < > = ü');
  assert.deepEqual(
    tokens.map((token) => token.kind),
    ['name', '.', 'name', '[', 'int', ']', '<>', 'nameRef', 'AND', 'valueRef', '>=', 'name', '(', 'int', ')', ',', '+', '-', '<=', '<', '>', '=', 'invalid', 'eof'],
  );
  assert.equal(tokens[tokens.length - 1]!.text, '<EOF>');
  assert.deepEqual(tokenize('😀').map((token) => token.text), ['😀', '<EOF>']);
  assert.deepEqual(tokenize('# :').map((token) => token.kind), ['invalid', 'invalid', 'eof']);
});

// --- placeholders ---------------------------------------------------------------------------------

test('used placeholders are recorded across all of a request’s expressions', () => {
  const context = contextOf({ '#a': 'a', '#b': 'b', '#c': 'c' }, { ':x': { N: '1' }, ':y': { N: '2' } });
  parseUpdate('SET #a = :x', context);
  parseCondition('#b > :y', context, 'ConditionExpression');
  assert.deepEqual([...context.usedNames].sort(), ['#a', '#b']);
  assert.deepEqual([...context.usedValues].sort(), [':x', ':y']);
  assertValidation(() => checkUnusedPlaceholders(context), 'Value provided in ExpressionAttributeNames unused in expressions: keys: {#c}');
  parseProjection('#c', context.names, context.usedNames);
  assert.doesNotThrow(() => checkUnusedPlaceholders(context));
});

test('unused placeholders are listed in Java HashSet order', () => {
  assert.deepEqual(javaHashSetOrder(['#b', '#a'], 2), ['#a', '#b']);
  assert.deepEqual(javaHashSetOrder([':c', ':a'], 3), [':a', ':c']);
  // "#a1" and "#a" land in different buckets of a 16-slot table: 1,182 % 16 = 14, 36,739 % 16 = 3.
  assert.deepEqual(javaHashSetOrder(['#a', '#a1'], 2), ['#a1', '#a']);
  const context = contextOf(undefined, { ':b': { S: 'x' }, ':a': { S: 'x' } });
  assertValidation(() => checkUnusedPlaceholders(context), 'Value provided in ExpressionAttributeValues unused in expressions: keys: {:a, :b}');
});

test('the placeholder maps themselves are checked', () => {
  assertValidation(() => checkExpressionAttributeNames({}), 'ExpressionAttributeNames must not be empty');
  assertValidation(() => checkExpressionAttributeNames({ a: 'a' }), 'ExpressionAttributeNames contains invalid key: Syntax error; key: "a"');
  assertValidation(() => checkExpressionAttributeNames({ '#': 'a' }), 'ExpressionAttributeNames contains invalid key: Syntax error; key: "#"');
  assertValidation(
    () => checkExpressionAttributeNames({ '#a': '' }),
    'ExpressionAttributeNames contains invalid value: Empty attribute name for key #a',
  );
  assertValidation(() => checkExpressionAttributeValues({}), 'ExpressionAttributeValues must not be empty');
  assertValidation(
    () => checkExpressionAttributeValues({ ':b': { S: 'a' }, b: { S: 'a' } }),
    'ExpressionAttributeValues contains invalid key: Syntax error; key: "b"',
  );
  assert.doesNotThrow(() => checkExpressionAttributeNames({ '#4g': 'x', '#_': 'y' }));
  assert.doesNotThrow(() => checkExpressionAttributeValues({ ':_': { S: 'x' } }));
  assert.doesNotThrow(() => checkExpressionAttributeNames(undefined));
});

test('placeholder lookups ignore inherited properties', () => {
  assertValidation(
    () => condition('#constructor = :v'),
    'Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #constructor',
  );
  assertValidation(
    () => parseCondition('a = :toString', contextOf(undefined, v), 'ConditionExpression'),
    'Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :toString',
  );
});

// --- key conditions: the two-step form ------------------------------------------------------------

test('a key condition can be checked against the schema after the unused-placeholder check', () => {
  const context = contextOf({ '#x': 'x' }, { ':a': { S: 'a' } });
  const parsed = parseKeyConditionExpression('sk = :a', context);
  // DynamoDB reports the unused name before the missing partition key.
  assertValidation(() => checkUnusedPlaceholders(context), 'Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}');
  assertValidation(() => keyConditionOf(parsed, { hash: 'id', range: 'sk' }), 'Query condition missed key schema element: id');
});

test('key condition values of the wrong type are refused when the schema types are given', () => {
  const context = contextOf(undefined, { ':a': { N: '1' } });
  assertValidation(
    () => parseKeyCondition('id = :a', context, { hash: 'id', hashType: 'S' }),
    'One or more parameter values were invalid: Condition parameter type does not match schema type',
  );
  assert.deepEqual(parseKeyCondition('id = :a', contextOf(undefined, { ':a': { N: '1' } }), { hash: 'id', hashType: 'N' }), {
    partitionKey: { name: 'id', value: { N: '1' } },
  });
});

// --- projections still apply ------------------------------------------------------------------------

test('parseProjection and applyProjection keep their contract', () => {
  const used = new Set<string>();
  const projection = parseProjection('#n, b[1], c.d', { '#n': 'name' }, used);
  assert.deepEqual(projection, { paths: [['name'], ['b', 1], ['c', 'd']] });
  assert.deepEqual([...used], ['#n']);
  const item = { name: { S: 'x' }, b: { L: [{ N: '1' }, { N: '2' }] }, c: { M: { d: { S: 'y' }, e: { S: 'z' } } }, f: { S: 'w' } };
  assert.deepEqual(applyProjection(item, projection), { name: { S: 'x' }, b: { L: [{ N: '2' }] }, c: { M: { d: { S: 'y' } } } });
});

// --- cache -------------------------------------------------------------------------------------------

test('a repeated expression is answered from the cache, placeholders resolved per request', () => {
  const cache = new ExpressionCache(10);
  const first = contextOf({ '#a': 'a' }, { ':v': { N: '1' } });
  const second = contextOf({ '#a': 'b' }, { ':v': { S: 'two' } });
  const one = parseCondition('#a = :v', first, 'ConditionExpression', cache);
  const two = parseCondition('#a = :v', second, 'ConditionExpression', cache);
  assert.equal(cache.misses, 1);
  assert.equal(cache.hits, 1);
  assert.deepEqual(one, { kind: 'compare', comparator: '=', left: { kind: 'path', path: ['a'] }, right: { kind: 'value', value: { N: '1' } } });
  assert.deepEqual(two, { kind: 'compare', comparator: '=', left: { kind: 'path', path: ['b'] }, right: { kind: 'value', value: { S: 'two' } } });
  assert.deepEqual([...second.usedNames], ['#a']);
  assert.deepEqual([...second.usedValues], [':v']);
  // Filter and key condition texts share the condition grammar's entry.
  parseCondition('#a = :v', contextOf({ '#a': 'a' }, { ':v': { N: '1' } }), 'FilterExpression', cache);
  assert.equal(cache.hits, 2);
});

test('a cached text error is replayed with the right expression name', () => {
  const cache = new ExpressionCache();
  assertValidation(() => parseCondition('a >', contextOf(), 'ConditionExpression', cache), 'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ">"');
  assertValidation(() => parseCondition('a >', contextOf(), 'FilterExpression', cache), 'Invalid FilterExpression: Syntax error; token: "<EOF>", near: ">"');
  assert.equal(cache.hits, 1);
  // Placeholder errors are per request: the same text parses once the value is given.
  assertValidation(
    () => parseCondition('a > :v', contextOf(), 'ConditionExpression', cache),
    'Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :v',
  );
  assert.doesNotThrow(() => parseCondition('a > :v', contextOf(undefined, { ':v': { N: '1' } }), 'ConditionExpression', cache));
  assert.equal(cache.hits, 2);
});

test('grammars do not share entries, and the least recently used entry is evicted', () => {
  const cache = new ExpressionCache(2);
  parseProjectionPaths('a', contextOf(), cache);
  parseUpdate('REMOVE a', contextOf(), cache);
  assert.equal(cache.size, 2);
  parseProjectionPaths('a', contextOf(), cache); // hit: 'a' becomes the most recent
  parseProjectionPaths('b', contextOf(), cache); // evicts 'REMOVE a'
  assert.equal(cache.size, 2);
  const hits = cache.hits;
  parseProjectionPaths('a', contextOf(), cache);
  assert.equal(cache.hits, hits + 1);
  parseUpdate('REMOVE a', contextOf(), cache);
  assert.equal(cache.hits, hits + 1, 'the evicted entry is parsed again');
  assert.throws(() => new ExpressionCache(0));
});

test('the cache also bounds the total length of the texts it keeps', () => {
  const cache = new ExpressionCache(100, 250);
  for (const name of ['a', 'b', 'c']) parseProjectionPaths(name.repeat(100), contextOf(), cache);
  assert.equal(cache.size, 2, 'three 100-character texts do not fit 250');
  parseProjectionPaths('c'.repeat(100), contextOf(), cache);
  assert.equal(cache.hits, 1);
  parseProjectionPaths('a'.repeat(100), contextOf(), cache);
  assert.equal(cache.hits, 1, 'the oldest text was evicted');
});

// --- deep nesting: no stack overflow -----------------------------------------------------------------

test('deeply nested expressions end in DynamoDB errors, not stack overflows', () => {
  const ctx = (): ExpressionContext => contextOf(undefined, v);
  assertValidation(
    () => parseCondition('('.repeat(4090) + 'a', ctx(), 'ConditionExpression'),
    'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "a"',
  );
  assertValidation(
    () => parseCondition('('.repeat(2000) + 'a = :v' + ')'.repeat(2000), ctx(), 'ConditionExpression'),
    'Invalid ConditionExpression: The expression has redundant parentheses;',
  );
  assertValidation(
    () => parseCondition('a = ' + '('.repeat(4000) + ':v', ctx(), 'ConditionExpression'),
    'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ":v"',
  );
  assertValidation(
    () => parseUpdate('SET a = ' + '('.repeat(4000) + ':v', ctx()),
    'Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ":v"',
  );
  const calls = 'size('.repeat(650) + 'a' + ')'.repeat(650);
  assertValidation(
    () => parseCondition(`${calls} > :v`, ctx(), 'ConditionExpression'),
    'Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N',
  );
  assertValidation(
    () => parseCondition(`${'f('.repeat(1360)}a${')'.repeat(1360)} = :v`, ctx(), 'ConditionExpression'),
    'Invalid ConditionExpression: Invalid function name; function: f',
  );
  // Past 300 operators DynamoDB stops counting (Alternator's test_limits.py, recorded from DynamoDB).
  const tooMany = 'Invalid ConditionExpression: The expression contains too many operators; operator count: 301';
  assertValidation(() => parseCondition('NOT '.repeat(1000) + 'a = :v', ctx(), 'ConditionExpression'), tooMany);
  assertValidation(() => parseCondition(Array.from({ length: 350 }, () => 'a = :v').join(' AND '), ctx(), 'ConditionExpression'), tooMany);
  const nested = (depth: number) => Array.from({ length: depth }, () => '(a = :v AND ').join('') + 'a = :v' + ')'.repeat(depth);
  assertValidation(() => parseCondition(nested(300), ctx(), 'ConditionExpression'), tooMany);
  // 149 levels of `a = :v OR (` hold 299 comparisons and ORs: accepted; function calls do not count.
  assert.doesNotThrow(() => parseCondition('a = :v ' + 'OR (a = :v '.repeat(149) + ')'.repeat(149), ctx(), 'ConditionExpression'));
  assert.doesNotThrow(() => parseCondition('NOT '.repeat(299) + 'a = :v', ctx(), 'ConditionExpression'));
  assert.doesNotThrow(() => parseCondition(Array.from({ length: 150 }, () => 'size(a) = :v').join(' OR '), ctx(), 'ConditionExpression'));
});

// --- fuzz --------------------------------------------------------------------------------------------


class Generator {
  constructor(private readonly random: () => number) {}

  pick<T>(choices: readonly T[]): T {
    return choices[Math.floor(this.random() * choices.length)]!;
  }

  chance(probability: number): boolean {
    return this.random() < probability;
  }

  name(): string {
    return this.pick(['a', 'b', 'c', 'id', 'sk', 'Price', 'x_1', 'status', '#a', '#b', '#n', '#missing']);
  }

  path(): string {
    let text = this.name();
    while (this.chance(0.3)) text += this.chance(0.5) ? `.${this.name()}` : `[${this.pick(['0', '1', '12', '2147483648'])}]`;
    return text;
  }

  operand(depth: number): string {
    const roll = this.random();
    if (roll < 0.4) return this.path();
    if (roll < 0.7) return this.pick([':s', ':n', ':b', ':l', ':ss', ':bool', ':t', ':missing']);
    if (roll < 0.8 && depth < 3) return `(${this.operand(depth + 1)})`;
    if (depth < 3) {
      const name = this.pick(['size', 'attribute_exists', 'begins_with', 'contains', 'list_append', 'if_not_exists', 'foo']);
      const count = 1 + Math.floor(this.random() * 3);
      return `${name}(${Array.from({ length: count }, () => this.operand(depth + 1)).join(', ')})`;
    }
    return this.path();
  }

  condition(depth: number): string {
    const roll = this.random();
    if (depth < 4 && roll < 0.2) return `${this.condition(depth + 1)} ${this.pick(['AND', 'OR', 'and'])} ${this.condition(depth + 1)}`;
    if (depth < 4 && roll < 0.3) return `NOT ${this.condition(depth + 1)}`;
    if (depth < 4 && roll < 0.4) return `(${this.condition(depth + 1)})`;
    if (roll < 0.6) return `${this.operand(depth)} ${this.pick(['=', '<>', '<', '<=', '>', '>='])} ${this.operand(depth)}`;
    if (roll < 0.7) return `${this.operand(depth)} BETWEEN ${this.operand(depth)} AND ${this.operand(depth)}`;
    if (roll < 0.8) return `${this.operand(depth)} IN (${Array.from({ length: 1 + Math.floor(this.random() * 4) }, () => this.operand(depth)).join(', ')})`;
    return this.operand(depth);
  }

  update(): string {
    const clauses: string[] = [];
    const count = 1 + Math.floor(this.random() * 3);
    for (let index = 0; index < count; index++) {
      const keyword = this.pick(['SET', 'REMOVE', 'ADD', 'DELETE', 'set']);
      const actions = Array.from({ length: 1 + Math.floor(this.random() * 3) }, () => {
        if (keyword === 'REMOVE') return this.path();
        if (keyword === 'ADD' || keyword === 'DELETE') return `${this.path()} ${this.operand(2)}`;
        const value = this.chance(0.3) ? `${this.operand(1)} ${this.pick(['+', '-'])} ${this.operand(1)}` : this.operand(0);
        return `${this.path()} = ${value}`;
      });
      clauses.push(`${keyword} ${actions.join(', ')}`);
    }
    return clauses.join(' ');
  }

  projection(): string {
    return Array.from({ length: 1 + Math.floor(this.random() * 4) }, () => this.path()).join(', ');
  }

  /** Character- or token-level damage: what a typo, truncation or splice does to an expression. */
  mutate(text: string): string {
    const pieces = ['(', ')', ',', '.', '[', ']', '=', '<', '>', ' ', 'AND', 'OR', 'NOT', 'BETWEEN', 'IN', 'SET', ':s', '#a', 'size(', '0', 'ü', '😀', '"', '_', '!', '#', ':', '\n', '((', '))'];
    let result = text;
    const edits = 1 + Math.floor(this.random() * 3);
    for (let edit = 0; edit < edits; edit++) {
      const at = Math.floor(this.random() * (result.length + 1));
      const roll = this.random();
      if (roll < 0.35) result = result.slice(0, at) + this.pick(pieces) + result.slice(at);
      else if (roll < 0.6) result = result.slice(0, at) + result.slice(at + 1 + Math.floor(this.random() * 3));
      else if (roll < 0.75) result = result.slice(0, at);
      else if (roll < 0.9) result = result.slice(0, at) + this.pick(pieces) + result.slice(at + 1);
      else result = result.slice(at) + result.slice(0, at);
    }
    return result;
  }
}

const FUZZ_NAMES = { '#a': 'a', '#b': 'status', '#n': 'name' };
const FUZZ_VALUES: Record<string, AttributeValue> = {
  ':s': { S: 'text' },
  ':n': { N: '5' },
  ':b': { B: 'YQ==' },
  ':l': { L: [{ N: '1' }] },
  ':ss': { SS: ['a', 'b'] },
  ':bool': { BOOL: true },
  ':t': { S: 'N' },
};

/**
 * A guard against pathological (super-linear) parsing, not a speed test: one input parses in
 * microseconds, so seconds mean a blow-up. Speed itself is measured by `npm run bench`; a tight
 * bound here failed on a loaded 2-core machine, and a GC pause or a descheduled process under two
 * suites at once can take a second by itself, hence ten.
 */
const PARSE_HANG_MS = 10_000;

test('fuzz: 10,000 generated and mutated expressions parse or fail with a ValidationException, without blowing up', () => {
  const random = mulberry32(0x5eed4);
  const generator = new Generator(random);
  const cache = new ExpressionCache(200);
  const kinds: CaseKind[] = ['ConditionExpression', 'FilterExpression', 'KeyConditionExpression', 'UpdateExpression', 'ProjectionExpression'];
  const outcomes = { parsed: 0, refused: 0 };
  let slowest = 0;
  for (let index = 0; index < 10_000; index++) {
    const kind = generator.pick(kinds);
    const base =
      kind === 'UpdateExpression' ? generator.update() : kind === 'ProjectionExpression' ? generator.projection() : generator.condition(0);
    const text = generator.chance(0.6) ? generator.mutate(base) : base;
    const context = contextOf(generator.chance(0.9) ? FUZZ_NAMES : undefined, generator.chance(0.9) ? FUZZ_VALUES : undefined);
    const started = performance.now();
    try {
      parseAs(kind, text, context, generator.chance(0.5) ? cache : undefined);
      outcomes.parsed++;
      checkUnusedPlaceholders(context);
    } catch (error) {
      if (!(error instanceof DynamoError) || error.code !== 'ValidationException') {
        assert.fail(`input #${index} (${kind}) ${JSON.stringify(text)} threw ${String(error)}`);
      }
      assert.ok(error.message.length > 0);
      outcomes.refused++;
    }
    const elapsed = performance.now() - started;
    slowest = Math.max(slowest, elapsed);
    assert.ok(elapsed < PARSE_HANG_MS, `input #${index} ${JSON.stringify(text)} took ${elapsed.toFixed(1)} ms`);
  }
  // Both outcomes must be well represented, or the generator is not exercising the parser.
  assert.ok(outcomes.parsed > 200, `only ${outcomes.parsed} parsed`);
  assert.ok(outcomes.refused > 2000, `only ${outcomes.refused} refused`);
});

test('fuzz: the longest expressions DynamoDB accepts parse without blowing up', () => {
  const ctx = contextOf(undefined, v);
  const longest = [
    `REMOVE ${Array.from({ length: 2048 }, (_, index) => String.fromCharCode(97 + (index % 26)) + index.toString(36)).join(',')}`.slice(0, 4096).replace(/,[^,]*$/, ''),
    Array.from({ length: 450 }, () => 'a = :v').join(' OR ').slice(0, 4096).replace(/ OR [^O]*$/, ''),
    `a IN (${Array.from({ length: 100 }, () => ':v').join(',')})`,
  ];
  for (const text of longest) {
    const kind: CaseKind = text.startsWith('REMOVE') ? 'UpdateExpression' : 'ConditionExpression';
    const started = performance.now();
    try {
      parseAs(kind, text, ctx);
    } catch (error) {
      assert.ok(error instanceof DynamoError && error.code === 'ValidationException', String(error));
    }
    assert.ok(performance.now() - started < PARSE_HANG_MS, `${text.slice(0, 30)}… took too long`);
  }
});
