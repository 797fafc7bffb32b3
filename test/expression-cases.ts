/**
 * Expression parse cases: what DynamoDB answers for an expression, as documented or observed.
 * Each group names its source. The main ones:
 * - [dynalite] dynalite's test suite (test/scan.js, test/updateItem.js at github.com/architect/dynalite),
 *   whose validation tests were written against live DynamoDB; its rules in node_modules/dynalite
 *   (validations/index.js, db/*Parser.js, actions/query.js). Where dynalite only matched a
 *   prefix (`/^Invalid ...: Syntax error; /`), the exact token and near follow the rule below.
 * - [observed] messages real DynamoDB returned, quoted in public issues, logs and test suites,
 *   which fix the syntax error rule: token = first token at which the text stops being the start
 *   of a valid expression; near = text from the start of the token before it to the end of the
 *   token after it (e.g. `... AND __typename = :t` → `token: "_", near: "AND __"`).
 * - [docs] Amazon DynamoDB Developer Guide examples ("Condition and filter expressions",
 *   "Comparison operator and function reference", "Update expressions", "Projection
 *   expressions", "Key condition expressions"): all valid.
 * - [local] DynamoDB Local 3.3.1 behaviour as recorded by the KeyValueStore.com expression tester
 *   (newer messages: `typeSet: ALLOWED_FOR_ADD_OPERAND`, "not allowed in an update expression",
 *   IN operand limit, list index range, BETWEEN bound texts).
 */
import type { AttributeValue } from '../src/model/attribute-value.js';

export type CaseKind =
  | 'ConditionExpression'
  | 'FilterExpression'
  | 'KeyConditionExpression'
  | 'UpdateExpression'
  | 'ProjectionExpression';

export interface ExpressionCase {
  readonly kind: CaseKind;
  readonly expression: string;
  readonly names?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, AttributeValue>>;
  /** KeyConditionExpression only; defaults to {hash: 'id', range: 'sk'}. */
  readonly keySchema?: { readonly hash: string; readonly range?: string };
  /** Also run checkUnusedPlaceholders after parsing (its error is then the expected one). */
  readonly checkUnused?: boolean;
  readonly expect: 'ok' | { readonly error: string };
  /** The parsed form expected (Condition, UpdateActions, KeyCondition, or the projection's paths). */
  readonly ast?: unknown;
}

const S = (text: string): AttributeValue => ({ S: text });
const N = (text: string): AttributeValue => ({ N: text });

function error(kind: CaseKind, message: string): { error: string } {
  return { error: `Invalid ${kind}: ${message}` };
}

function syntax(kind: CaseKind, expression: string, token: string, near: string, extra: Partial<ExpressionCase> = {}): ExpressionCase {
  return { kind, expression, ...extra, expect: error(kind, `Syntax error; token: "${token}", near: "${near}"`) };
}

function failing(kind: CaseKind, expression: string, message: string, extra: Partial<ExpressionCase> = {}): ExpressionCase {
  return { kind, expression, ...extra, expect: error(kind, message) };
}

function ok(kind: CaseKind, expression: string, extra: Partial<ExpressionCase> = {}): ExpressionCase {
  return { kind, expression, ...extra, expect: 'ok' };
}

const F: CaseKind = 'FilterExpression';
const C: CaseKind = 'ConditionExpression';
const U: CaseKind = 'UpdateExpression';
const P: CaseKind = 'ProjectionExpression';
const K: CaseKind = 'KeyConditionExpression';

const path = (...elements: (string | number)[]) => ({ kind: 'path', path: elements });
const value = (attribute: AttributeValue) => ({ kind: 'value', value: attribute });

// --- [dynalite] scan.js "should return ValidationException for syntax errors" -------------------
const filterSyntax: ExpressionCase[] = [
  syntax(F, 'things are not gonna be ok', 'are', 'things are not'),
  syntax(F, 'a > 4', '4', '> 4'),
  syntax(F, 'attribute_exists(Pictures-RearView)', '-', 'Pictures-RearView'),
  syntax(F, 'attribute_exists("Pictures.RearView")', '"', '("Pictures'),
  syntax(F, 'attribute_exists(Pictures..RearView)', '.', '..RearView'),
  syntax(F, 'attribute_exists(Pi#ctures.RearView)', '#ctures', 'Pi#ctures.'),
  syntax(F, 'attribute_exists(asdf[a])', 'a', '[a]'),
  syntax(F, 'a.:a < b.:b', ':a', '.:a <'),
  syntax(F, 'a in b, c', 'b', 'in b,'),
  syntax(F, 'a > between', 'between', '> between'),
  syntax(F, 'a in b', 'b', 'in b'),
  syntax(F, 'a in (b,c,)', ')', ',)'),
  syntax(F, '(a)between(b.(c.d))and(c)', '(', '.(c'),
  syntax(F, '(a)between(b.c.d)and((c)', '<EOF>', ')'),
  syntax(F, '#$.b > a', '#', '#$'),
  syntax(F, 'a > :things.stuff', '.', ':things.stuff'),
  syntax(F, 'b[:a] > a', ':a', '[:a]'),
  syntax(F, 'b[#_] > a', '#_', '[#_]'),
  syntax(F, 'ü > a', 'ü', 'ü >'),
  syntax(F, '(a)between(b.c[4.5].#d)and(:a)', '.', '4.5'),
  syntax(F, 'size(a).b > a', '.', ').b'),
  syntax(F, '(size(a)).b > a', '.', ').b'),
  syntax(F, 'size(a)[0] > a', '[', ')[0'),
  syntax(F, '(size(a))[0] > a', '[', ')[0'),
];

// --- [dynalite] scan.js: redundant parentheses, function names, misuse, reserved words -----------
const filterTextRules: ExpressionCase[] = [
  ...[
    'a=a and a > ((views))',
    '(a)between(((b.c)).d)and(c)',
    'a > whatever((:things), ((a)))',
    'a=a AND ((a=a AND a=a)) AND a=a',
    'a=a OR ((a=a OR a=a)) OR a=a',
    'a=a AND ((a=a AND (a=a AND a=a)))',
    'a=a OR ((a=a OR (a=a OR a=a)))',
  ].map((expression) => failing(F, expression, 'The expression has redundant parentheses;')),
  failing(F, 'a=a and whatever((:things)) > a', 'Invalid function name; function: whatever'),
  failing(F, 'attRIbute_exIsts((views), #a)', 'Invalid function name; function: attRIbute_exIsts'),
  ...[
    ['a=a and attribute_exists((views), (#a)) > b', 'attribute_exists'],
    ['attribute_not_exists(things) > b', 'attribute_not_exists'],
    ['attribute_type(things, :a) > b', 'attribute_type'],
    ['begins_with(things, a) > b', 'begins_with'],
    ['contains(:things, c) > b', 'contains'],
    ['size(contains(a, b)) > a', 'contains'],
    ['size(things)', 'size'],
    ['a between b and attribute_exists(things)', 'attribute_exists'],
    ['a in (b, attribute_exists(things))', 'attribute_exists'],
  ].map(([expression, name]) =>
    failing(F, expression!, `The function is not allowed to be used this way in an expression; function: ${name}`),
  ),
  failing(F, 'attribute_exists(views, #a)', 'Attribute name is a reserved keyword; reserved keyword: views'),
  failing(F, ':a < abOrT', 'Attribute name is a reserved keyword; reserved keyword: abOrT'),
];

// --- [dynalite] scan.js: placeholders, operand counts, operand types, distinct operands ----------
const filterLeafRules: ExpressionCase[] = [
  ...[
    ['attribute_exists(#Pictures.RearView, :a) and a=a', '#Pictures'],
    ['begins_with(Pictures.#RearView)', '#RearView'],
    ['(#P between :lo and :hi) and (#PC in (:cat1, :cat2))', '#P'],
    ['#4g > a', '#4g'],
    ['#_ > a', '#_'],
    ['(a)between(b.c[45].#d)and(:a)', '#d'],
  ].map(([expression, name]) =>
    failing(F, expression!, `An expression attribute name used in the document path is not defined; attribute name: ${name}`),
  ),
  ...[
    ['begins_with(:hello, #a, #b)', ':hello'],
    [':a < :b', ':a'],
    [':_ > a', ':_'],
  ].map(([expression, name]) =>
    failing(F, expression!, `An expression attribute value used in expression is not defined; attribute value: ${name}`),
  ),
  ...(
    [
      ['attribute_exists(things, a) and a=a', 'attribute_exists', 2],
      ['attribute_not_exists(things, b)', 'attribute_not_exists', 2],
      ['attribute_type(things)', 'attribute_type', 1],
      ['begins_with(things)', 'begins_with', 1],
      ['begins_with(things, size(a), b)', 'begins_with', 3],
      ['contains(things)', 'contains', 1],
      ['size(things, a) > b', 'size', 2],
    ] as const
  ).map(([expression, name, count]) =>
    failing(
      F,
      expression,
      `Incorrect number of operands for operator or function; operator or function: ${name}, number of operands: ${count}`,
    ),
  ),
  ...(
    [
      ['attribute_type(a, size(a)) and a=a and a=:a', 'attribute_type', N('1')],
      ['attribute_type(a, :a)', 'attribute_type', N('1')],
      ['attribute_type(a, :a)', 'attribute_type', { B: 'YQ==' }],
      ['attribute_type(a, :a)', 'attribute_type', { BOOL: true }],
      ['attribute_type(a, :a)', 'attribute_type', { NULL: true }],
      ['attribute_type(a, :a)', 'attribute_type', { L: [] }],
      ['attribute_type(a, :a)', 'attribute_type', { M: {} }],
      ['attribute_type(a, :a)', 'attribute_type', { SS: ['1'] }],
      ['attribute_type(a, :a)', 'attribute_type', { NS: ['1'] }],
      ['attribute_type(a, :a)', 'attribute_type', { BS: ['YQ=='] }],
      ['begins_with(a, size(a)) and a=:a', 'begins_with', N('1')],
      ['begins_with(a, :a)', 'begins_with', N('1')],
      ['begins_with(a, :a)', 'begins_with', { BOOL: true }],
      ['begins_with(a, :a)', 'begins_with', { NULL: true }],
      ['begins_with(a, :a)', 'begins_with', { L: [] }],
      ['begins_with(a, :a)', 'begins_with', { M: {} }],
      ['begins_with(a, :a)', 'begins_with', { SS: ['1'] }],
      ['begins_with(a, :a)', 'begins_with', { NS: ['1'] }],
      ['begins_with(a, :a)', 'begins_with', { BS: ['YQ=='] }],
      ['begins_with(:a, a)', 'begins_with', N('1')],
      ['begins_with(:a, a)', 'begins_with', { BOOL: true }],
      ['begins_with(:a, a)', 'begins_with', { NULL: true }],
      ['begins_with(:a, a)', 'begins_with', { L: [] }],
      ['begins_with(:a, a)', 'begins_with', { M: {} }],
      ['begins_with(:a, a)', 'begins_with', { SS: ['1'] }],
      ['begins_with(:a, a)', 'begins_with', { NS: ['1'] }],
      ['begins_with(:a, a)', 'begins_with', { BS: ['YQ=='] }],
      ['size(size(a)) > :a', 'size', N('1')],
      ['attribute_not_exists(size(:a))', 'size', N('1')],
      ['size(:a) > a', 'size', { BOOL: true }],
      ['size(:a) > a', 'size', { NULL: true }],
    ] as const
  ).map(([expression, name, attribute]) =>
    failing(
      F,
      expression,
      `Incorrect operand type for operator or function; operator or function: ${name}, operand type: ${Object.keys(attribute)[0]}`,
      { values: { ':a': attribute } },
    ),
  ),
  failing(F, 'attribute_type(a, :a)', 'Invalid attribute type name found; type: 1, valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}', {
    values: { ':a': S('1') },
  }),
  ...['attribute_exists(:a) and a=a', 'attribute_not_exists(size(:a))'].map((expression) =>
    failing(F, expression, `Operator or function requires a document path; operator or function: ${expression.slice(0, expression.indexOf('('))}`, {
      values: { ':a': S('1') },
    }),
  ),
  ...[
    ['a = a AND #a = b AND :views > a', '=', '[a]'],
    ['#a <> a', '<>', '[a]'],
    ['a > #a', '>', '[a]'],
    ['((a=a) OR (a=a))', '=', '[a]'],
    ['((a=a) AND (a=a))', '=', '[a]'],
    ['contains(ab.bc[1].a, ab.bc[1].#a)', 'contains', '[ab, bc, [1], a]'],
    ['attribute_type(ab.bc[1].#a, ab.bc[1].a)', 'attribute_type', '[ab, bc, [1], a]'],
    ['begins_with(ab.bc[1].a, ab.bc[1].#a)', 'begins_with', '[ab, bc, [1], a]'],
  ].map(([expression, operator, first]) =>
    failing(
      F,
      expression!,
      'The first operand must be distinct from the remaining operands for this operator or function; ' +
        `operator: ${operator}, first operand: ${first}`,
      { names: { '#a': 'a' } },
    ),
  ),
  // dynalite: ":a > :a ... is ok" (two values may be the same placeholder).
  ok(F, ':a > :a', { values: { ':a': N('1') } }),
];

// --- [dynalite] updateItem.js "should return ValidationException for syntax errors" -------------
const updateSyntax: ExpressionCase[] = [
  syntax(U, 'whatever', 'whatever', 'whatever'),
  syntax(U, 'set a', '<EOF>', 'a'),
  syntax(U, 'add a', '<EOF>', 'a'),
  syntax(U, 'delete a', '<EOF>', 'a'),
  syntax(U, 'set a=set', 'set', '=set'),
  syntax(U, 'remove a = b', '=', 'a = b'),
  syntax(U, 'add a = b', '=', 'a = b'),
  syntax(U, 'delete a = b', '=', 'a = b'),
  syntax(U, 'delete a b', 'b', 'a b'),
  syntax(U, 'delete a if_not_exist(b)', 'if_not_exist', 'a if_not_exist('),
  syntax(U, 'add abort b', 'b', 'abort b'),
  syntax(U, 'add a if_not_exist(b)', 'if_not_exist', 'a if_not_exist('),
  syntax(U, 'remove a b', 'b', 'a b'),
  syntax(U, 'set a b', 'b', 'a b'),
  syntax(U, 'set :a = b', ':a', 'set :a ='),
  syntax(U, 'add :a b', ':a', 'add :a b'),
  syntax(U, 'delete :a b', ':a', 'delete :a b'),
  syntax(U, 'remove :a', ':a', 'remove :a'),
  syntax(U, 'set a = b / c', '/', 'b / c'),
  syntax(U, 'set a = b * c', '*', 'b * c'),
  syntax(U, 'set a[1] = "eight"', '"', '= "eight'),
  syntax(U, 'set a[1] = 1', '1', '= 1'),
  syntax(U, 'SET a = if_not_exist(a, 100)', '100', ', 100)'),
  syntax(U, 'SET if_not_exist(a, b) = a', '(', 'if_not_exist(a'),
  syntax(U, 'set (a = (b + c))', '(', 'set (a'),
  syntax(U, 'set a = (b.c).d + e', '.', ').d'),
  syntax(U, 'set a = (b.c)[0] + e', '[', ')[0'),
  syntax(U, 'set a = b + c + d', '+', 'c + d'),
  // dynalite commented these out of its syntax-error list: DynamoDB accepts them.
  ok(U, 'set a[1] = b'),
  ok(U, 'set a.b = b'),
  ok(U, 'SET a = if_not_exists(a, b) + b'),
  ok(U, 'set a = (b + c)', {
    ast: { set: [{ path: ['a'], value: { kind: 'plus', left: path('b'), right: path('c') } }], remove: [], add: [], delete: [] },
  }),
  ok(U, 'set a = ((b.c.d)+(e))'),
];

// --- [dynalite] updateItem.js: text rules, placeholders, paths, operands ------------------------
const updateNamesAndValues = { values: { ':a': S('a'), ':b': S('a') }, names: { '#a': 'a', '#b': 'b' } };
const updateRules: ExpressionCase[] = [
  failing(U, ' set #c = :c set abOrt = true ', 'Attribute name is a reserved keyword; reserved keyword: abOrt', updateNamesAndValues),
  failing(U, ' remove Absolute ', 'Attribute name is a reserved keyword; reserved keyword: Absolute', updateNamesAndValues),
  failing(U, 'set #c = if_not_exist(:c) set c = d', 'Invalid function name; function: if_not_exist', updateNamesAndValues),
  ...[
    ['set a = #c set c = :d', 'SET'],
    ['remove #d set a = b remove e', 'REMOVE'],
    ['add #d :e set a = b add e :f', 'ADD'],
    ['delete #d :e set a = b delete #e :f', 'DELETE'],
  ].map(([expression, section]) =>
    failing(U, expression!, `The "${section}" section can only be used once in an update expression;`, updateNamesAndValues),
  ),
  failing(
    U,
    'SET #c = if_not_exists(:c)',
    'An expression attribute name used in the document path is not defined; attribute name: #c',
    updateNamesAndValues,
  ),
  failing(
    U,
    'SET #a = if_not_exists(:c)',
    'An expression attribute value used in expression is not defined; attribute value: :c',
    updateNamesAndValues,
  ),
  ...[
    ['set d[1] = a, d.b = a, c[1].a = a, #c = if_not_exists(a)', '[c, [1], a]', '[c]'],
    ['set c.b.#c = a, c = a, #d = a', '[c, b, c]', '[c]'],
    ['set a = b remove a, #c, #d', '[a]', '[a]'],
    ['set #c[3].#d = a, #c[3] = a', '[c, [3], [3]]', '[c, [3]]'],
    ['remove c, #c.a, #d', '[c]', '[c, a]'],
    ['remove a, #c, a, #d', '[a]', '[a]'],
  ].map(([expression, one, two]) =>
    failing(
      U,
      expression!,
      `Two document paths overlap with each other; must remove or rewrite one of these paths; path one: ${one}, path two: ${two}`,
      { names: { '#c': 'c', '#d': '[3]' } },
    ),
  ),
  ...[
    ['set #c[3].#d = a, #c.#d[3] = if_not_exists(a)', '[c, [3], [3]]', '[c, [3], [3]]'],
    ['remove a.#c set a[1] = #d', '[a, c]', '[a, [1]]'],
  ].map(([expression, one, two]) =>
    failing(
      U,
      expression!,
      `Two document paths conflict with each other; must remove or rewrite one of these paths; path one: ${one}, path two: ${two}`,
      { names: { '#b': 'b', '#c': 'c', '#d': '[3]' } },
    ),
  ),
  // Texts carry the `typeSet` suffix current DynamoDB adds (dynalite's 2015 texts lack it; the
  // suffix is quoted in many public reports, e.g. aws-sdk and PynamoDB users' errors).
  ...(
    [
      ['set b = list_append(:a, a), c = if_not_exists(a) add a.b :a', S('a'), 'ADD', 'STRING'],
      ['delete a.b :a', S('a'), 'DELETE', 'STRING'],
      ['add a.b :a', { NULL: true }, 'ADD', 'NULL'],
      ['delete a.b :a', { NULL: true }, 'DELETE', 'NULL'],
      ['add a.b :a', { BOOL: false }, 'ADD', 'BOOLEAN'],
      ['delete a.b :a', { BOOL: false }, 'DELETE', 'BOOLEAN'],
      ['add a.b :a', { B: 'YQ==' }, 'ADD', 'BINARY'],
      ['delete a.b :a', { B: 'YQ==' }, 'DELETE', 'BINARY'],
      ['add a.b :a', { M: { a: { L: [N('1')] } } }, 'ADD', 'MAP'],
      ['delete a.b :a', { M: { a: { L: [N('1')] } } }, 'DELETE', 'MAP'],
      ['add a.b :a', { L: [N('1')] }, 'ADD', 'LIST'],
      ['delete a.b :a', { L: [N('1')] }, 'DELETE', 'LIST'],
      ['delete a.b :a', N('1'), 'DELETE', 'NUMBER'],
    ] as const
  ).map(([expression, attribute, operator, type]) =>
    failing(
      U,
      expression,
      `Incorrect operand type for operator or function; operator: ${operator}, operand type: ${type}, typeSet: ALLOWED_FOR_${operator}_OPERAND`,
      { values: { ':a': attribute } },
    ),
  ),
  failing(
    U,
    'set a = if_not_exists(c)',
    'Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1',
    updateNamesAndValues,
  ),
  failing(
    U,
    'set a = list_append(c)',
    'Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1',
    updateNamesAndValues,
  ),
  ...['set a = if_not_exists(:a, c)', 'set a = if_not_exists(if_not_exists(a, b), c)'].map((expression) =>
    failing(U, expression, 'Operator or function requires a document path; operator or function: if_not_exists', updateNamesAndValues),
  ),
];

const updateTypeValues: Record<string, AttributeValue> = {
  ':a': S('a'),
  ':b': N('1'),
  ':c': { B: 'YQ==' },
  ':d': { BOOL: false },
  ':e': { NULL: true },
  ':f': { SS: ['a'] },
  ':g': { NS: ['1'] },
  ':h': { BS: ['YQ=='] },
  ':i': { M: {} },
  ':j': { L: [] },
};

// --- [dynalite] updateItem.js "incorrect types to functions" ------------------------------------
const updateFunctionTypes: ExpressionCase[] = [
  ['set a = list_append(:a, a)', 'list_append', 'S'],
  ['set a = list_append(a, :b)', 'list_append', 'N'],
  ['set a = list_append(:c, a)', 'list_append', 'B'],
  ['set a = list_append(:d, a)', 'list_append', 'BOOL'],
  ['set a = list_append(:e, a)', 'list_append', 'NULL'],
  ['set a = list_append(:f, a)', 'list_append', 'SS'],
  ['set a = list_append(:g, a)', 'list_append', 'NS'],
  ['set a = list_append(:h, a)', 'list_append', 'BS'],
  ['set a = list_append(:i, a)', 'list_append', 'M'],
  ['set a = a + :a', '+', 'S'],
  ['set a = :a + :c', '+', 'S'],
  ['set a = :c + a', '+', 'B'],
  ['set a = a + :d', '+', 'BOOL'],
  ['set a = a + :e', '+', 'NULL'],
  ['set a = a + :f', '+', 'SS'],
  ['set a = a + :g', '+', 'NS'],
  ['set a = a + :h', '+', 'BS'],
  ['set a = a + :i', '+', 'M'],
  ['set a = a + :j', '+', 'L'],
  ['set a = a - :a', '-', 'S'],
  ['set a = :a - :c', '-', 'S'],
  ['set a = :c - a', '-', 'B'],
  ['set a = a - :d', '-', 'BOOL'],
  ['set a = a - :e', '-', 'NULL'],
  ['set a = a - :f', '-', 'SS'],
  ['set a = a - :g', '-', 'NS'],
  ['set a = a - :h', '-', 'BS'],
  ['set a = a - :i', '-', 'M'],
  ['set a = a - :j', '-', 'L'],
].map(([expression, operator, type]) =>
  failing(
    U,
    expression!,
    `Incorrect operand type for operator or function; operator or function: ${operator}, operand type: ${type}`,
    { values: updateTypeValues },
  ),
);

// --- [dynalite] unused placeholders (updateItem.js), Java HashSet order ---------------------------
const unused: ExpressionCase[] = [
  {
    kind: U,
    expression: 'remove a set b = list_append(b, if_not_exists(a, :a))',
    values: { ':a': S('a'), ':b': S('a') },
    names: { '#a': 'a', '#b': 'b' },
    checkUnused: true,
    expect: { error: 'Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}' },
  },
  {
    kind: U,
    expression: 'remove a',
    values: { ':a': S('a'), ':b': S('a'), ':c': S('a') },
    checkUnused: true,
    expect: { error: 'Value provided in ExpressionAttributeValues unused in expressions: keys: {:a, :b, :c}' },
  },
  { kind: F, expression: '#a = :a', names: { '#a': 'a' }, values: { ':a': S('a') }, checkUnused: true, expect: 'ok' },
];

// --- [observed] exact syntax errors quoted from DynamoDB ------------------------------------------
const observedSyntax: ExpressionCase[] = [
  // Production log (public repo): `__typename` used unaliased in a key condition.
  syntax(K, 'pk = :pk AND __typename = :t', '_', 'AND __', { values: { ':pk': S('p'), ':t': S('t') } }),
  // Rust DynamoDB emulator suites quoting DynamoDB: empty argument list.
  syntax(C, 'attribute_type()', ')', '()'),
  // moto's test suite, from DynamoDB: trailing comma.
  syntax(U, 'SET a = :v1, b = :v2,', '<EOF>', ',', { values: { ':v1': N('3'), ':v2': N('4') } }),
  // TypeScript SDK test expecting DynamoDB's message for a bad projection.
  syntax(P, '!!', '!', '!!'),
  // Java emulator test: non-numeric list index in a projection.
  syntax(P, 'l[a]', 'a', '[a]'),
  // Update texts with the same rule (emulator suites quoting DynamoDB).
  syntax(U, 'ADD numx', '<EOF>', 'numx'),
  syntax(U, 'SET note = :v +', '<EOF>', '+', { values: { ':v': N('1') } }),
  syntax(U, 'SET numx = numx * :v', '*', 'numx * :v', { values: { ':v': N('2') } }),
  syntax(U, 'ADD numx 1', '1', 'numx 1'),
  syntax(U, 'DELETE setx a', 'a', 'setx a'),
  syntax(U, 'SET', '<EOF>', 'SET'),
  // The zero in `[01]` is a token of its own, so `1` is unexpected.
  syntax(P, 'a[01]', '1', '01]'),
  // Keywords are tokens in every expression kind: never names.
  syntax(U, 'SET in = :a', 'in', 'SET in =', { values: { ':a': S('a') } }),
  syntax(C, 'set = :a', 'set', 'set =', { values: { ':a': S('a') } }),
  syntax(P, 'a, and', 'and', ', and'),
];

// --- [docs] valid examples from the Developer Guide ----------------------------------------------
const docsValues: Record<string, AttributeValue> = {
  ':lo': N('500'),
  ':hi': N('600'),
  ':cat1': S('Sporting Goods'),
  ':cat2': S('Gardening Supplies'),
  ':v_sub': S('Red'),
  ':limit': N('500'),
};
const docs: ExpressionCase[] = [
  ok(C, 'attribute_not_exists(Id)', { ast: { kind: 'attribute_not_exists', path: ['Id'] } }),
  ok(C, '#P between :lo and :hi', {
    names: { '#P': 'Price' },
    values: docsValues,
    ast: { kind: 'between', subject: path('Price'), low: value(N('500')), high: value(N('600')) },
  }),
  ok(F, 'ProductCategory IN (:cat1, :cat2) and #P between :lo and :hi', { names: { '#P': 'Price' }, values: docsValues }),
  ok(C, 'attribute_exists(Pictures.SideView)', { ast: { kind: 'attribute_exists', path: ['Pictures', 'SideView'] } }),
  ok(C, 'attribute_type(ProductReviews.FiveStar, :v_sub)', {
    values: { ':v_sub': S('L') },
    ast: { kind: 'attribute_type', subject: { kind: 'path', path: ['ProductReviews', 'FiveStar'] }, type: value(S('L')) },
  }),
  ok(C, 'begins_with(Pictures.FrontView, :v_sub)', {
    values: { ':v_sub': S('http://') },
    ast: { kind: 'begins_with', subject: path('Pictures', 'FrontView'), prefix: value(S('http://')) },
  }),
  ok(C, 'contains(Color, :v_sub)', { values: docsValues, ast: { kind: 'contains', subject: path('Color'), operand: value(S('Red')) } }),
  ok(C, 'size(Brand) <= :v_sub', {
    values: { ':v_sub': N('20') },
    ast: { kind: 'compare', comparator: '<=', left: { kind: 'size', path: ['Brand'] }, right: value(N('20')) },
  }),
  ok(C, 'size(ProductReviews.OneStar) > :v_sub', { values: { ':v_sub': N('3') } }),
  ok(F, 'Price > :limit', { values: docsValues }),
  ok(C, 'attribute_not_exists(Price) OR Price <= :limit', { values: docsValues }),
  ok(U, 'SET ProductCategory = :c, Price = :p', {
    values: { ':c': S('Hardware'), ':p': N('60') },
    ast: {
      set: [
        { path: ['ProductCategory'], value: value(S('Hardware')) },
        { path: ['Price'], value: value(N('60')) },
      ],
      remove: [],
      add: [],
      delete: [],
    },
  }),
  ok(U, 'SET #pr.#5star[1] = :r5, #pr.#3star = :r3', {
    names: { '#pr': 'ProductReviews', '#5star': 'FiveStar', '#3star': 'ThreeStar' },
    values: { ':r5': S('Very happy'), ':r3': { L: [S('Just OK')] } },
    ast: {
      set: [
        { path: ['ProductReviews', 'FiveStar', 1], value: value(S('Very happy')) },
        { path: ['ProductReviews', 'ThreeStar'], value: value({ L: [S('Just OK')] }) },
      ],
      remove: [],
      add: [],
      delete: [],
    },
  }),
  ok(U, 'SET Price = Price - :p', {
    values: { ':p': N('15') },
    ast: { set: [{ path: ['Price'], value: { kind: 'minus', left: path('Price'), right: value(N('15')) } }], remove: [], add: [], delete: [] },
  }),
  ok(U, 'SET #ri = list_append(#ri, :vals)', {
    names: { '#ri': 'RelatedItems' },
    values: { ':vals': { L: [S('Screwdriver')] } },
    ast: {
      set: [
        {
          path: ['RelatedItems'],
          value: { kind: 'list_append', first: path('RelatedItems'), second: value({ L: [S('Screwdriver')] }) },
        },
      ],
      remove: [],
      add: [],
      delete: [],
    },
  }),
  ok(U, 'SET Price = if_not_exists(Price, :p)', {
    values: { ':p': N('100') },
    ast: {
      set: [{ path: ['Price'], value: { kind: 'if_not_exists', path: ['Price'], fallback: value(N('100')) } }],
      remove: [],
      add: [],
      delete: [],
    },
  }),
  ok(U, 'REMOVE Brand, InStock, QuantityOnHand', {
    ast: { set: [], remove: [['Brand'], ['InStock'], ['QuantityOnHand']], add: [], delete: [] },
  }),
  ok(U, 'REMOVE RelatedItems[1], RelatedItems[2]', {
    ast: { set: [], remove: [['RelatedItems', 1], ['RelatedItems', 2]], add: [], delete: [] },
  }),
  ok(U, 'ADD QuantityOnHand :q', { values: { ':q': N('5') }, ast: { set: [], remove: [], add: [{ path: ['QuantityOnHand'], value: N('5') }], delete: [] } }),
  ok(U, 'ADD Color :c', { values: { ':c': { SS: ['Orange', 'Purple'] } } }),
  ok(U, 'DELETE Color :p', { values: { ':p': { SS: ['Yellow', 'Purple'] } }, ast: { set: [], remove: [], add: [], delete: [{ path: ['Color'], value: { SS: ['Yellow', 'Purple'] } }] } }),
  ok(U, 'SET Price = Price - :p REMOVE InStock', { values: { ':p': N('15') } }),
  ok(U, 'ADD numx :inc SET fieldx = :s', { values: { ':inc': N('1'), ':s': S('new') } }),
  ok(U, 'SET #c = if_not_exists(#c, :zero) + :one', { names: { '#c': 'count' }, values: { ':zero': N('0'), ':one': N('1') } }),
  ok(U, 'SET l = list_append(if_not_exists(l, :empty), :tail)', { values: { ':empty': { L: [] }, ':tail': { L: [S('b')] } } }),
  ok(P, 'Description, RelatedItems[0], ProductReviews.FiveStar', {
    ast: [['Description'], ['RelatedItems', 0], ['ProductReviews', 'FiveStar']],
  }),
  ok(P, '#pr.FiveStar, #pr.ThreeStar, #pr.OneStar', { names: { '#pr': 'ProductReviews' } }),
  ok(K, 'ForumName = :name', {
    keySchema: { hash: 'ForumName', range: 'Subject' },
    values: { ':name': S('Amazon DynamoDB') },
    ast: { partitionKey: { name: 'ForumName', value: S('Amazon DynamoDB') } },
  }),
  ok(K, 'ForumName = :name and Subject = :sub', {
    keySchema: { hash: 'ForumName', range: 'Subject' },
    values: { ':name': S('Amazon DynamoDB'), ':sub': S('DynamoDB Thread 1') },
  }),
  ok(K, 'Id = :id and begins_with(ReplyDateTime, :dt)', {
    keySchema: { hash: 'Id', range: 'ReplyDateTime' },
    values: { ':id': S('Amazon DynamoDB#DynamoDB Thread 1'), ':dt': S('2015-09') },
    ast: {
      partitionKey: { name: 'Id', value: S('Amazon DynamoDB#DynamoDB Thread 1') },
      sortKey: { name: 'ReplyDateTime', condition: { kind: 'begins_with', prefix: S('2015-09') } },
    },
  }),
];

// --- [dynalite] key conditions: validations/index.js convertKeyCondition, actions/query.js -------
const keyValues: Record<string, AttributeValue> = { ':a': S('a'), ':b': S('b'), ':c': S('c'), ':n': N('1') };
const keyCases: ExpressionCase[] = [
  ...[
    ['id = :a OR sk = :b', 'OR'],
    ['NOT id = :a', 'NOT'],
    ['id IN (:a, :b)', 'IN'],
    ['id <> :a', '<>'],
    ['attribute_exists(id)', 'attribute_exists'],
    ['attribute_not_exists(id)', 'attribute_not_exists'],
    ['id = :a AND contains(sk, :b)', 'contains'],
    ['attribute_type(id, :a)', 'attribute_type'],
  ].map(([expression, operator]) => ({
    kind: K,
    expression: expression!,
    values: { ...keyValues, ':a': S('S') },
    expect: { error: `Invalid operator used in KeyConditionExpression: ${operator}` },
  })),
  { kind: K, expression: 'id = :a AND size(sk) > :n', values: keyValues, expect: { error: 'KeyConditionExpressions cannot contain nested operations' } },
  {
    kind: K,
    expression: 'id = :a AND :a BETWEEN sk AND :b',
    values: keyValues,
    expect: { error: 'Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand' },
  },
  {
    kind: K,
    expression: 'id = :a AND begins_with(:a, sk)',
    values: keyValues,
    expect: { error: 'Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand' },
  },
  { kind: K, expression: 'id = sk', expect: { error: 'Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition' } },
  { kind: K, expression: 'id.x = :a', values: keyValues, expect: { error: 'KeyConditionExpressions cannot have conditions on nested attributes' } },
  { kind: K, expression: ':a = :b', values: keyValues, expect: { error: 'Invalid condition in KeyConditionExpression: No key attribute specified' } },
  { kind: K, expression: 'id = :a AND id = :b', values: keyValues, expect: { error: 'KeyConditionExpressions must only contain one condition per key' } },
  { kind: K, expression: 'sk = :a', values: keyValues, expect: { error: 'Query condition missed key schema element: id' } },
  { kind: K, expression: 'id > :a', values: keyValues, expect: { error: 'Query key condition not supported' } },
  { kind: K, expression: 'begins_with(id, :a)', values: keyValues, expect: { error: 'Query key condition not supported' } },
  { kind: K, expression: 'id = :a AND foo = :b', values: keyValues, expect: { error: 'Query condition missed key schema element: sk' } },
  {
    kind: K,
    expression: 'id = :a AND foo = :b',
    values: keyValues,
    keySchema: { hash: 'id' },
    expect: { error: 'Query key condition not supported' },
  },
  { kind: K, expression: 'id = :a AND sk = :b AND foo = :c', values: keyValues, expect: { error: 'Conditions can be of length 1 or 2 only' } },
  ok(K, 'id = :a', { values: { ':a': S('a') }, ast: { partitionKey: { name: 'id', value: S('a') } } }),
  ok(K, ':a = id AND :b > sk', {
    values: keyValues,
    ast: { partitionKey: { name: 'id', value: S('a') }, sortKey: { name: 'sk', condition: { kind: 'compare', comparator: '<', value: S('b') } } },
  }),
  ok(K, '(id = :a) AND (sk >= :b)', {
    values: keyValues,
    ast: { partitionKey: { name: 'id', value: S('a') }, sortKey: { name: 'sk', condition: { kind: 'compare', comparator: '>=', value: S('b') } } },
  }),
  ok(K, 'sk BETWEEN :a AND :b AND id = :c', {
    values: keyValues,
    ast: { partitionKey: { name: 'id', value: S('c') }, sortKey: { name: 'sk', condition: { kind: 'between', low: S('a'), high: S('b') } } },
  }),
  ok(K, '#s = :a', { names: { '#s': 'status' }, keySchema: { hash: 'status' }, values: { ':a': S('a') } }),
  // [observed] production logs: reserved word and undefined value in a key condition.
  failing(K, 'status = :a', 'Attribute name is a reserved keyword; reserved keyword: status', { keySchema: { hash: 'status' }, values: { ':a': S('a') } }),
  failing(K, 'pk = :pk', 'An expression attribute value used in expression is not defined; attribute value: :pk'),
];

// --- [local] newer DynamoDB texts (DynamoDB Local 3.3.1 as recorded by the KeyValueStore.com tester) --
const localRules: ExpressionCase[] = [
  failing(
    C,
    'a BETWEEN :hi AND :lo',
    'The BETWEEN operator requires upper bound to be greater than or equal to lower bound; ' +
      'lower bound operand: AttributeValue: {N:2}, upper bound operand: AttributeValue: {N:1}',
    { values: { ':hi': N('2'), ':lo': N('1') } },
  ),
  failing(
    C,
    'a BETWEEN :hi AND :lo',
    'The BETWEEN operator requires upper bound to be greater than or equal to lower bound; ' +
      'lower bound operand: AttributeValue: {S:z}, upper bound operand: AttributeValue: {S:a}',
    { values: { ':hi': S('z'), ':lo': S('a') } },
  ),
  failing(
    C,
    'a BETWEEN :lo AND :hi',
    'The BETWEEN operator requires same data type for lower and upper bounds; ' +
      'lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:a}',
    { values: { ':lo': N('1'), ':hi': S('a') } },
  ),
  ok(C, 'a BETWEEN :lo AND :lo', { values: { ':lo': N('5') } }),
  ok(C, 'a BETWEEN :lo AND :hi', { values: { ':lo': N('-10'), ':hi': N('9') } }),
  failing(C, 'a < :b', 'Incorrect operand type for operator or function; operator or function: <, operand type: BOOL', {
    values: { ':b': { BOOL: true } },
  }),
  failing(C, 'a BETWEEN :b AND :c', 'Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: SS', {
    values: { ':b': { SS: ['x'] }, ':c': { SS: ['y'] } },
  }),
  ok(C, 'a = :b', { values: { ':b': { BOOL: true } } }),
  failing(C, `a IN (${Array.from({ length: 101 }, () => ':v').join(', ')})`, 'The IN operator is provided with too many operands; number of operands: 101', {
    values: { ':v': S('v') },
  }),
  ok(C, `a IN (${Array.from({ length: 100 }, () => ':v').join(', ')})`, { values: { ':v': S('v') } }),
  failing(C, 'attribute_type(a, b)', `Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {SS,M,DECIMAL,DOUBLESET,HDS,N,B,DICT,INTSET,BOOL,HD,BS,INT,DECIMALSET,NULL,FLOAT,FS,S,L,NS,DOUBLE}`),
  // A value as attribute_type's subject is accepted (Alternator's suite, recorded from DynamoDB).
  ok(C, 'attribute_type(:t, :t)', { values: { ':t': S('S') } }),
  failing(U, 'SET #r = contains(s, :needle)', 'The function is not allowed in an update expression; function: contains', {
    names: { '#r': 'result' },
    values: { ':needle': S('e') },
  }),
  failing(U, 'SET #r = size(s)', 'The function is not allowed in an update expression; function: size', { names: { '#r': 'result' } }),
  failing(C, 'if_not_exists(s, :f) = :f', 'The function is not allowed in a condition expression; function: if_not_exists', {
    values: { ':f': S('f') },
  }),
  failing(P, 'a[2147483648]', 'List index is not within the allowable range; index: [2147483648]'),
  ok(P, 'a[2147483647]'),
  failing(U, 'SET fieldx = :s, fieldx = :o', 'Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [fieldx], path two: [fieldx]', {
    values: { ':s': S('new'), ':o': S('other') },
  }),
  failing(U, 'SET #attribute = :value, fieldx = :value', 'Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [fieldx], path two: [fieldx]', {
    names: { '#attribute': 'fieldx' },
    values: { ':value': S('new') },
  }),
  ok(U, 'SET mapx.#comment = :value', { names: { '#comment': 'COMMENT' }, values: { ':value': S('new') } }),
  failing(C, 'mapx.comment = :value', 'Attribute name is a reserved keyword; reserved keyword: comment', { values: { ':value': S('new') } }),
  // Published as reserved, yet accepted as names.
  ok(C, 'size = :v AND convert = :v', { values: { ':v': S('v') } }),
  ok(U, 'ADD mapx.num :inc', { values: { ':inc': N('1') } }),
  ok(U, 'DELETE mapx.colors :rm', { values: { ':rm': { SS: ['a'] } } }),
  ok(U, 'ADD l[0] :inc', { values: { ':inc': N('1') } }),
];

// --- [dynalite] projections: db/projectionParser.js rules, validations/index.js ------------------
const projections: ExpressionCase[] = [
  failing(P, 'a, b, a.c', 'Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, c]'),
  failing(P, 'a.b[1], a.b.c', 'Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b, [1]], path two: [a, b, c]'),
  failing(P, 'a, #a', 'Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]', { names: { '#a': 'a' } }),
  failing(P, 'Name, Size', 'Attribute name is a reserved keyword; reserved keyword: Name'),
  failing(P, 'a, #b', 'An expression attribute name used in the document path is not defined; attribute name: #b', { names: { '#a': 'a' } }),
  ok(P, 'a.b, a.c, a.d[0], a.d[1]', { ast: [['a', 'b'], ['a', 'c'], ['a', 'd', 0], ['a', 'd', 1]] }),
  ok(P, '#n', { names: { '#n': 'name' }, ast: [['name']] }),
  syntax(P, 'a,', '<EOF>', ','),
  syntax(P, ':a', ':a', ':a'),
  syntax(P, 'a.b.', '<EOF>', '.'),
  syntax(P, 'a b', 'b', 'a b'),
];

// --- [dynalite] + [docs] general: empty, size, nesting, precedence forms -------------------------
const general: ExpressionCase[] = [
  failing(C, '', 'The expression can not be empty;'),
  failing(U, '', 'The expression can not be empty;'),
  failing(F, '', 'The expression can not be empty;'),
  failing(P, '', 'The expression can not be empty;'),
  failing(K, '', 'The expression can not be empty;'),
  failing(P, `a${',a'.repeat(2048)}`, 'Expression size has exceeded the maximum allowed size; expression size: 4097'),
  // The limit counts UTF-8 bytes: 2,065 characters here, 4,115 bytes.
  failing(C, `a = :v AND b = ${'é'.repeat(2050)}`, 'Expression size has exceeded the maximum allowed size; expression size: 4115'),
  failing(P, Array.from({ length: 33 }, (_, index) => `p${index}`).join('.'), 'The document path has too many nesting levels; nesting levels: 33'),
  ok(P, Array.from({ length: 32 }, (_, index) => `p${index}`).join('.')),
  syntax(C, '   ', '<EOF>', '   '),
  syntax(C, 'a = :v AND', '<EOF>', 'AND', { values: { ':v': S('v') } }),
  syntax(C, 'a = :v OR OR b = :v', 'OR', 'OR OR b', { values: { ':v': S('v') } }),
  syntax(C, 'NOT', '<EOF>', 'NOT'),
  syntax(C, '(a = :v', '<EOF>', ':v', { values: { ':v': S('v') } }),
  syntax(C, 'a = :v)', ')', ':v)', { values: { ':v': S('v') } }),
  syntax(C, '(a) AND b = :v', 'AND', ') AND b', { values: { ':v': S('v') } }),
  syntax(C, 'a', '<EOF>', 'a'),
  syntax(C, 'a = :v b', 'b', ':v b', { values: { ':v': S('v') } }),
  syntax(C, 'a == :v', '=', '== :v', { values: { ':v': S('v') } }),
  syntax(C, 'a != :v', '!', 'a !=', { values: { ':v': S('v') } }),
  syntax(C, 'a BETWEEN :v OR :v', 'OR', ':v OR :v', { values: { ':v': S('v') } }),
  syntax(C, 'a = "x"', '"', '= "x', { values: { ':v': S('v') } }),
  syntax(C, 'a = :v AND #', '#', 'AND #', { values: { ':v': S('v') } }),
  syntax(C, '(NOT a) = :v', ')', 'a) =', { values: { ':v': S('v') } }),
  syntax(U, 'SET a = :v REMOVE', '<EOF>', 'REMOVE', { values: { ':v': S('v') } }),
  syntax(U, 'SET a = list_append(b, c + d)', '+', 'c + d'),
  syntax(U, 'REMOVE a[]', ']', '[]'),
  syntax(U, 'SET a = :v, REMOVE b', 'REMOVE', ', REMOVE b', { values: { ':v': S('v') } }),
  failing(C, '((a = :v))', 'The expression has redundant parentheses;', { values: { ':v': S('v') } }),
  failing(C, 'NOT ((a = :v))', 'The expression has redundant parentheses;', { values: { ':v': S('v') } }),
  failing(C, 'a IN (((:v)), :v)', 'The expression has redundant parentheses;', { values: { ':v': S('v') } }),
  ok(C, 'a IN ((:v), :v)', { values: { ':v': S('v') } }),
  failing(C, '((a)) = :v', 'The expression has redundant parentheses;', { values: { ':v': S('v') } }),
  // Redundancy is reported as soon as the outer parenthesis is read: before a later syntax error.
  failing(C, '((a = :v)) AND', 'The expression has redundant parentheses;', { values: { ':v': S('v') } }),
  failing(U, 'SET a = ((b))', 'The expression has redundant parentheses;'),
  ok(C, '(a = :v)', { values: { ':v': S('v') } }),
  ok(C, '((a = :v) AND (b = :v))', { values: { ':v': S('v') } }),
  ok(C, '(a) = :v', { values: { ':v': S('v') }, ast: { kind: 'compare', comparator: '=', left: path('a'), right: value(S('v')) } }),
  ok(C, '(size(a)) > :n', { values: { ':n': N('1') } }),
  ok(C, 'NOT NOT attribute_exists(a)', { ast: { kind: 'not', operand: { kind: 'not', operand: { kind: 'attribute_exists', path: ['a'] } } } }),
  ok(C, 'a <> :v', { values: { ':v': S('v') } }),
  ok(C, 'a.b[0].c >= :v', { values: { ':v': N('1') }, ast: { kind: 'compare', comparator: '>=', left: path('a', 'b', 0, 'c'), right: value(N('1')) } }),
  ok(C, 'size(:s) = :n', { values: { ':s': S('four'), ':n': N('4') }, ast: { kind: 'compare', comparator: '=', left: value(N('4')), right: value(N('4')) } }),
  ok(C, 'a IN (b, c.d, :v)', { values: { ':v': S('v') } }),
  ok(C, 'contains(a, b)'),
  ok(C, 'AttrName_1 = :v AND aTTR2 = :v', { values: { ':v': S('v') } }),
  ok(C, '#_1 = :_', { names: { '#_1': 'x' }, values: { ':_': S('v') } }),
  ok(C, 'a\t=\n:v\r', { values: { ':v': S('v') } }),
  ok(C, 'attribute_exists (a)'),
  failing(C, 'a = :v AND b = :w', 'An expression attribute value used in expression is not defined; attribute value: :w', { values: { ':v': S('v') } }),
  failing(C, 'a = #v', 'An expression attribute name used in the document path is not defined; attribute name: #v'),
  failing(U, 'SET a = :v, b = :w REMOVE #x', 'An expression attribute name used in the document path is not defined; attribute name: #x', {
    values: { ':v': S('v') },
  }),
];

export const EXPRESSION_CASES: readonly ExpressionCase[] = [
  ...filterSyntax,
  ...filterTextRules,
  ...filterLeafRules,
  ...updateSyntax,
  ...updateRules,
  ...updateFunctionTypes,
  ...unused,
  ...observedSyntax,
  ...docs,
  ...keyCases,
  ...localRules,
  ...projections,
  ...general,
];
