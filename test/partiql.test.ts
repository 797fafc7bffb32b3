/**
 * PartiQL through the AWS SDK: ExecuteStatement (every statement form, parameters, literals,
 * Query vs Scan, NextToken paging, RETURNING), BatchExecuteStatement (per-statement answers),
 * ExecuteTransaction (all or nothing, DuplicateItem, idempotency), DynamoDB's error texts, and a
 * fuzz of the parser. Expected texts are DynamoDB's where they were captured against the service
 * (paritysuite/dynamodb-conformance) or are in DynamoDB's own PartiQL front end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  BatchExecuteStatementCommand,
  CreateTableCommand,
  ExecuteStatementCommand,
  ExecuteTransactionCommand,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  type AttributeValue,
  type ExecuteStatementCommandInput,
} from '@aws-sdk/client-dynamodb';
import {
  BatchExecuteStatementCommand as DocumentBatchExecuteStatementCommand,
  ExecuteStatementCommand as DocumentExecuteStatementCommand,
  ExecuteTransactionCommand as DocumentExecuteTransactionCommand,
} from '@aws-sdk/lib-dynamodb';
import { DynamoError } from '../src/errors.js';
import type { AttributeValue as WireValue } from '../src/model/attribute-value.js';
import { compileStatement } from '../src/partiql/lower.js';
import { seededRandom } from './support/random.js';
import { expectDynamoError, startTwinWithClients, uniqueTableName, type TwinClients } from './support/twin.js';

type Item = Record<string, AttributeValue>;

const NOT_WELL_FORMED = "Statement wasn't well formed, can't be processed: ";
const INCOMPLETE_KEY = 'Where clause does not contain a mandatory equality on all key attributes';
const CONDITION_FAILED = 'The conditional request failed';

describe('PartiQL', () => {
  let twin: TwinClients;
  const simple = uniqueTableName('pq-simple');
  const composite = uniqueTableName('pq-composite');

  before(async () => {
    twin = await startTwinWithClients();
    await twin.client.send(
      new CreateTableCommand({
        TableName: simple,
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await twin.client.send(
      new CreateTableCommand({
        TableName: composite,
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'N' },
          { AttributeName: 'g', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [{ IndexName: 'by-g', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    for (let sk = 1; sk <= 5; sk++) {
      await put(composite, { pk: { S: 'p' }, sk: { N: String(sk) }, g: { S: sk % 2 === 0 ? 'even' : 'odd' }, tag: { S: `t${sk}` } });
    }
    await put(composite, { pk: { S: 'q' }, sk: { N: '1' }, g: { S: 'odd' } });
  });
  after(async () => {
    await twin.close();
  });

  const put = (table: string, item: Item) => twin.client.send(new PutItemCommand({ TableName: table, Item: item }));
  const get = async (table: string, key: Item) =>
    (await twin.client.send(new GetItemCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
  const run = (Statement: string, Parameters?: AttributeValue[], extra: Omit<ExecuteStatementCommandInput, 'Statement'> = {}) =>
    twin.client.send(new ExecuteStatementCommand({ Statement, ...(Parameters === undefined ? {} : { Parameters }), ...extra }));
  const items = async (Statement: string, Parameters?: AttributeValue[]) => (await run(Statement, Parameters)).Items ?? [];
  const sortKeys = (list: readonly Item[]) => list.map((item) => Number(item.sk!.N)).sort((a, b) => a - b);
  const refused = (statement: string, message: string | RegExp, parameters?: AttributeValue[]) =>
    expectDynamoError(run(statement, parameters), 'ValidationException', message);

  describe('INSERT', () => {
    test('inserts every literal type and parameters', async () => {
      const result = await run(
        `INSERT INTO "${simple}" VALUE {'pk': 'lit', 's': 'it''s', 'n': -12.50e1, 't': true, 'f': false, 'z': NULL, ` +
          `'m': {'a': [1, 'two', <<'x', 'y'>>]}, 'ns': <<3, 1>>, 'b': ?, 'p': ?}`,
        [{ B: Buffer.from([1, 2]) }, { M: { k: { S: 'v' } } }],
      );
      assert.deepEqual(result.Items, []);
      assert.deepEqual(await get(simple, { pk: { S: 'lit' } }), {
        pk: { S: 'lit' },
        s: { S: "it's" },
        n: { N: '-125' },
        t: { BOOL: true },
        f: { BOOL: false },
        z: { NULL: true },
        m: { M: { a: { L: [{ N: '1' }, { S: 'two' }, { SS: ['x', 'y'] }] } } },
        ns: { NS: ['3', '1'] },
        b: { B: new Uint8Array([1, 2]) },
        p: { M: { k: { S: 'v' } } },
      });
    });

    test('an existing item is DuplicateItemException, and nothing changes', async () => {
      await run(`INSERT INTO "${simple}" VALUE {'pk': 'dup', 'v': 1}`);
      await expectDynamoError(
        run(`INSERT INTO "${simple}" VALUE {'pk': 'dup', 'v': 2}`),
        'DuplicateItemException',
        'Duplicate primary key exists in table',
      );
      assert.deepEqual(await get(simple, { pk: { S: 'dup' } }), { pk: { S: 'dup' }, v: { N: '1' } });
    });

    test('the item rules of PutItem apply', async () => {
      await refused(`INSERT INTO "${simple}" VALUE {'v': 1}`, 'One or more parameter values were invalid: Missing the key pk in the item');
      await refused(`INSERT INTO "${simple}" VALUE {'pk': 1}`, 'One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N');
      await refused(`INSERT INTO "${simple}" VALUE 'x'`, 'Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.');
      await refused(`INSERT INTO "${simple}" VALUE {'pk': 'r'} RETURNING ALL OLD *`, 'RETURNING is not supported in INSERT');
      await refused(`INSERT INTO "${simple}" VALUE {'pk': 'x', 'pk': 'y'}`, 'Duplicate keys in tuple. Key: pk under root');
      await refused(`INSERT INTO "${simple}" VALUE {'pk': 'x', 'ss': <<'a', 'a'>>}`, 'One or more parameter values were invalid: Input collection [a, a] contains duplicates.');
      await refused(`INSERT INTO "${simple}" VALUE {'pk': 'x', 'e': <<>>}`, 'Empty bags are not supported');
      await refused(`INSERT INTO "${simple}" VALUE {'pk': 'x', 'm': {'x': 1e126}}`, 'Number overflow. Attempting to store a number with magnitude larger than supported range under root.x');
      await refused(`INSERT INTO "${simple}" VALUE {'pk': 'x', 'l': [1, 1e-131]}`, 'Number underflow. Attempting to store a number with magnitude smaller than supported range under root[1]');
      await refused(`INSERT INTO "${simple}" VALUE {'pk': 'x', 'ss': set_add(<<'a'>>, <<'b'>>)}`, /^Unsupported data type: set_add under key root at 1:\d+:7$/);
      await refused(`INSERT INTO "${simple}" <<{'pk': 'a'}, {'pk': 'b'}>>`, /^Unsupported operation: Inserting multiple items in a single statement is not supported/);
    });
  });

  describe('SELECT', () => {
    test('the full primary key reads one item; a projection is unnested', async () => {
      await put(simple, { pk: { S: 'doc' }, a: { M: { b: { L: [{ S: 'zero' }, { S: 'one' }] }, c: { N: '7' } } }, top: { S: 't' } });
      assert.deepEqual(await items(`SELECT * FROM "${simple}" WHERE pk = 'doc'`), [
        { pk: { S: 'doc' }, a: { M: { b: { L: [{ S: 'zero' }, { S: 'one' }] }, c: { N: '7' } } }, top: { S: 't' } },
      ]);
      assert.deepEqual(await items(`SELECT a.b[1], a.c, top, nope FROM "${simple}" WHERE pk = ?`, [{ S: 'doc' }]), [
        { 'b[1]': { S: 'one' }, c: { N: '7' }, top: { S: 't' } },
      ]);
      assert.deepEqual(await items(`SELECT * FROM "${simple}" WHERE pk = 'absent'`), []);
      assert.deepEqual(await items(`SELECT "top" FROM "${simple}" WHERE "pk" = 'doc';`), [{ top: { S: 't' } }]);
    });

    test('a partition key equality is a Query: sort key conditions and a filter', async () => {
      assert.deepEqual(sortKeys(await items(`SELECT * FROM "${composite}" WHERE pk = 'p'`)), [1, 2, 3, 4, 5]);
      assert.deepEqual(sortKeys(await items(`SELECT * FROM "${composite}" WHERE pk = 'p' AND sk > 3`)), [4, 5]);
      assert.deepEqual(sortKeys(await items(`SELECT * FROM "${composite}" WHERE pk = 'p' AND sk BETWEEN 2 AND 4`)), [2, 3, 4]);
      assert.deepEqual(sortKeys(await items(`SELECT * FROM "${composite}" WHERE pk = 'p' AND sk <= 2 AND tag <> 't1'`)), [2]);
      assert.deepEqual(sortKeys(await items(`SELECT * FROM "${composite}" WHERE sk >= 4 AND pk = 'p'`)), [4, 5]);
      const descending = await items(`SELECT sk FROM "${composite}" WHERE pk = 'p' ORDER BY sk DESC`);
      assert.deepEqual(descending.map((item) => item.sk!.N), ['5', '4', '3', '2', '1']);
    });

    test('IN and OR on the partition key run one Query per value', async () => {
      const viaIn = await items(`SELECT * FROM "${composite}" WHERE pk IN ['q', 'p'] AND sk = 1`);
      assert.deepEqual(viaIn.map((item) => item.pk!.S), ['q', 'p']);
      const viaOr = await items(`SELECT * FROM "${composite}" WHERE pk = 'q' OR pk = 'p' AND sk > 4`);
      assert.deepEqual(viaOr.map((item) => `${item.pk!.S}${item.sk!.N}`), ['q1', 'p5']);
    });

    test('anything else is a Scan with the WHERE as its filter', async () => {
      assert.deepEqual(sortKeys(await items(`SELECT * FROM "${composite}" WHERE sk > 4`)), [5]);
      assert.deepEqual(sortKeys(await items(`SELECT * FROM "${composite}" WHERE pk = 'p' OR sk = 1`)), [1, 1, 2, 3, 4, 5]);
      assert.deepEqual(sortKeys(await items(`SELECT * FROM "${composite}" WHERE pk = 'p' AND NOT sk = 1`)), [2, 3, 4, 5]);
      assert.equal((await items(`SELECT * FROM "${composite}"`)).length, 6);
    });

    test('functions, IS MISSING / NULL / types, IN, contains, size, nested paths', async () => {
      await put(simple, { pk: { S: 'fn' }, ss: { SS: ['a', 'b'] }, s: { S: 'str' }, nul: { NULL: true }, flag: { BOOL: true }, m: { M: { sub: { L: [{ N: '1' }, { N: '2' }] } } } });
      const holds = async (condition: string) => (await items(`SELECT pk FROM "${simple}" WHERE pk = 'fn' AND ${condition}`)).length === 1;
      assert.equal(await holds('attribute_exists(ss)'), true);
      assert.equal(await holds('attribute_not_exists(ss)'), false);
      assert.equal(await holds('ATTRIBUTE_EXISTS(ss) = true'), true);
      assert.equal(await holds('begins_with(s, \'st\')'), true);
      assert.equal(await holds("contains(ss, 'b')"), true);
      assert.equal(await holds("attribute_type(ss, 'SS')"), true);
      assert.equal(await holds('size(s) = 3'), true);
      assert.equal(await holds('nope IS MISSING'), true);
      assert.equal(await holds('s IS NOT MISSING'), true);
      assert.equal(await holds('nul IS NULL'), true);
      assert.equal(await holds('s IS NOT NULL'), true);
      assert.equal(await holds('flag IS BOOLEAN AND s IS STRING AND m IS STRUCT AND m.sub IS LIST'), true);
      assert.equal(await holds("s IN ['x', 'str']"), true);
      assert.equal(await holds('s NOT IN (\'str\')'), false);
      assert.equal(await holds('m.sub[1] = 2 AND m."sub"[0] < m.sub[1]'), true);
      assert.equal(await holds("(s = 'x' OR NOT (flag = false)) AND s BETWEEN 'a' AND 'z'"), true);
    });

    test('an index qualifies FROM', async () => {
      assert.deepEqual(sortKeys(await items(`SELECT * FROM "${composite}"."by-g" WHERE g = 'even'`)), [2, 4]);
      assert.equal((await items(`SELECT pk FROM "${composite}"."by-g"`)).length, 6);
      await expectDynamoError(
        run(`SELECT * FROM "${composite}"."by-g" WHERE g = 'even'`, undefined, { ConsistentRead: true }),
        'ValidationException',
        'Strongly consistent read is not supported on Global Secondary Indexes',
      );
    });

    test('NextToken pages through a Scan and through decomposed Queries', async () => {
      for (const [statement, expected] of [
        [`SELECT * FROM "${composite}"`, 6],
        [`SELECT * FROM "${composite}" WHERE pk IN ['p', 'q']`, 6],
        [`SELECT * FROM "${composite}" WHERE pk = 'p' AND sk > 1`, 4],
      ] as const) {
        const seen: string[] = [];
        let NextToken: string | undefined;
        let pages = 0;
        do {
          const page = await run(statement, undefined, { Limit: 2, ...(NextToken === undefined ? {} : { NextToken }) });
          seen.push(...(page.Items ?? []).map((item) => `${item.pk!.S}${item.sk!.N}`));
          NextToken = page.NextToken;
          assert.ok(++pages < 20, 'paging terminates');
        } while (NextToken !== undefined);
        assert.equal(seen.length, expected, statement);
        assert.equal(new Set(seen).size, expected, 'no item twice');
      }
    });

    test('a NextToken belongs to its statement', async () => {
      const first = await run(`SELECT * FROM "${composite}"`, undefined, { Limit: 1 });
      assert.ok(first.NextToken !== undefined);
      assert.ok(first.LastEvaluatedKey !== undefined);
      await expectDynamoError(
        run(`SELECT * FROM "${composite}" WHERE sk > 0`, undefined, { NextToken: first.NextToken }),
        'ValidationException',
        'NextToken does not match request',
      );
      await expectDynamoError(run(`SELECT * FROM "${composite}"`, undefined, { NextToken: 'garbage!' }), 'ValidationException', 'Invalid NextToken');
    });

    test('SELECT refusals', async () => {
      await refused(`SELECT * FROM "${simple}" t WHERE pk = 'x'`, 'Aliasing is not supported');
      await refused(`SELECT pk AS k FROM "${simple}"`, 'Aliasing is not supported');
      await refused(`SELECT COUNT(*) FROM "${simple}"`, 'Unexpected path component at 1:8:5');
      await refused(`SELECT * FROM "${simple}" WHERE pk = 'x' AND EXISTS(a)`, /^Unrecognized function: exists at 1:\d+:6$/);
      await refused(`SELECT * FROM "${simple}" WHERE attribute_exists('a')`, 'Operator or function requires a document path; operator or function: attribute_exists');
      await refused(`SELECT * FROM "${simple}" WHERE pk = 'x' AND v < ?`, 'Incorrect operand type for operator or function; operator or function: <, operand type: BOOL', [{ BOOL: true }]);
      await refused(`SELECT * FROM "${simple}" WHERE v`, 'WHERE clause must contain an expression that resolves to a boolean');
      await refused(`SELECT * FROM "${simple}" WHERE v = MISSING`, 'MISSING must be compared using IS operator');
      await refused(`SELECT * FROM "${simple}" WHERE v IS INT`, /^Unsupported data type for IS operator: INTEGER\./);
      await refused(`SELECT * FROM "${simple}" WHERE v LIKE 'a%'`, 'Unsupported operator in Condition Expression. Operator: like');
      await refused(`SELECT * FROM "${simple}" WHERE v IN ?`, /^IN operator must have a left hand argument/, [{ L: [] }]);
      await refused(`SELECT * FROM "${simple}", "${composite}"`, 'Only select from a single table or index is supported.');
      await refused(`SELECT * FROM "${simple}" GROUP BY v`, 'Unsupported clause: GROUP BY');
      await refused(`SELECT VALUE v FROM "${simple}"`, "Select projection doesn't support value or pivot keywords");
      await refused(`SELECT a, b.a FROM "${simple}"`, 'Duplicate identifiers in select clause: a');
      await refused(`SELECT * FROM "${simple}" ORDER BY pk`, 'Must have WHERE clause in the statement when using ORDER BY clause.');
      await refused(`SELECT * FROM "${composite}" WHERE pk = 'p' ORDER BY tag`, 'Variable reference tag in ORDER BY clause must be part of the primary key');
      await refused(`SELECT * FROM "${composite}" WHERE pk = 1`, "Key attribute's data type should match its data type in table's schema: Key pk");
      await refused(`SELECT * FROM "a"`, "Table name should be within the length [3, 255] and only contain 'a-z', 'A-Z', '0-9', '-', '_', '.'.");
      await expectDynamoError(run(`SELECT * FROM "absent-table" WHERE pk = 'x'`), 'ResourceNotFoundException', 'Requested resource not found');
    });
  });

  describe('UPDATE', () => {
    test('SET, REMOVE, arithmetic, list_append, set_add, set_delete, RETURNING', async () => {
      await put(simple, { pk: { S: 'up' }, n: { N: '1' }, l: { L: [{ S: 'a' }] }, ss: { SS: ['a', 'b'] }, gone: { S: 'x' }, m: { M: {} } });
      const result = await run(
        `UPDATE "${simple}" SET n = n + 5, l = list_append(l, ['b']), m.k = 'v' SET ss = set_add(ss, <<'c'>>) REMOVE gone WHERE pk = 'up' RETURNING ALL NEW *`,
      );
      assert.equal(result.Items?.length, 1);
      const item = result.Items![0]!;
      assert.deepEqual(item.n, { N: '6' });
      assert.deepEqual(item.l, { L: [{ S: 'a' }, { S: 'b' }] });
      assert.deepEqual(item.m, { M: { k: { S: 'v' } } });
      assert.deepEqual(new Set(item.ss!.SS), new Set(['a', 'b', 'c']));
      assert.equal(item.gone, undefined);
      await run(`UPDATE "${simple}" SET ss = SET_DELETE(ss, <<'a', 'b', 'c'>>) WHERE pk = 'up'`);
      assert.equal((await get(simple, { pk: { S: 'up' } }))?.ss, undefined);
      assert.deepEqual((await run(`UPDATE "${simple}" SET n = 7 WHERE pk = 'up' RETURNING MODIFIED OLD *`)).Items, [{ n: { N: '6' } }]);
      assert.deepEqual((await run(`UPDATE "${simple}" SET n = 8 WHERE pk = 'up' RETURNING MODIFIED NEW *`)).Items, [{ n: { N: '8' } }]);
      assert.deepEqual((await run(`UPDATE "${simple}" SET n = 9 WHERE pk = 'up'`)).Items, []);
      await run(`FROM "${simple}" WHERE pk = ? SET n = ? REMOVE m`, [{ S: 'up' }, { N: '10' }]);
      const after = await get(simple, { pk: { S: 'up' } });
      assert.deepEqual(after?.n, { N: '10' });
      assert.equal(after?.m, undefined);
    });

    test('an UPDATE never creates an item; the rest of the WHERE is a condition', async () => {
      await expectDynamoError(run(`UPDATE "${simple}" SET n = 1 WHERE pk = 'never'`), 'ConditionalCheckFailedException', CONDITION_FAILED);
      assert.equal(await get(simple, { pk: { S: 'never' } }), undefined);
      await put(simple, { pk: { S: 'cond' }, v: { N: '1' } });
      await expectDynamoError(run(`UPDATE "${simple}" SET v = 2 WHERE pk = 'cond' AND v = 5`), 'ConditionalCheckFailedException', CONDITION_FAILED);
      await run(`UPDATE "${simple}" SET v = 2 WHERE pk = 'cond' AND v = 1`);
      assert.deepEqual((await get(simple, { pk: { S: 'cond' } }))?.v, { N: '2' });
    });

    test('ReturnValuesOnConditionCheckFailure returns the item with the failure', async () => {
      await put(simple, { pk: { S: 'rv' }, v: { N: '1' } });
      let caught: unknown;
      try {
        await run(`UPDATE "${simple}" SET v = 2 WHERE pk = 'rv' AND v = 9`, undefined, { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
      } catch (error) {
        caught = error;
      }
      assert.equal((caught as Error).name, 'ConditionalCheckFailedException');
      assert.deepEqual((caught as { Item?: Item }).Item, { pk: { S: 'rv' }, v: { N: '1' } });
    });

    test('UPDATE refusals', async () => {
      await refused(`UPDATE "${simple}" SET v = 1`, INCOMPLETE_KEY);
      await refused(`UPDATE "${composite}" SET v = 1 WHERE pk = 'p'`, INCOMPLETE_KEY);
      await refused(`UPDATE "${simple}" SET v = 1 WHERE pk = 'a' OR pk = 'b'`, INCOMPLETE_KEY);
      await refused(`FROM "${simple}" SET c = 1`, INCOMPLETE_KEY);
      await refused(`UPDATE "${simple}" SET v = 1 WHERE pk = 'a' AND pk = 'b'`, 'Multiple conditions on same key pk. Only single item Update/Insert/Delete are supported');
      await refused(`UPDATE "${simple}" SET v = 1 WHERE pk = true`, 'Key value must be of type S, N, or B. Key name: pk, Key type: BOOL');
      await refused(`UPDATE "${simple}" t SET a = 3 WHERE pk = 'x'`, 'Aliasing is not supported');
      await refused(`UPDATE "${simple}" SET t = set_add(ss, <<'x'>>) WHERE pk = 'x'`, /^The first argument to SET_ADD must equal the assignment value at 1:\d+:7$/);
      await refused(`UPDATE "${simple}" SET ss = set_add(ss, 'x') WHERE pk = 'x'`, /^The second argument to SET_ADD must be a value with type SET at 1:\d+:2$/);
      await refused(`UPDATE "${simple}" SET ss = set_add(ss) WHERE pk = 'x'`, /^SET_ADD must have exactly two arguments at 1:\d+:7$/);
      await refused(`UPDATE "${simple}" SET v = v IS NULL WHERE pk = 'x'`, 'IS operator is not supported in update expressions');
      await refused(`UPDATE "${simple}" SET pk = 'y' WHERE pk = 'x'`, 'One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key');
      await refused(`UPDATE "${simple}" SET v = 1 WHERE pk = 'x' RETURNING ALL NEW *, ALL OLD *`, 'Invalid syntax with multiple returning elements in RETURNING clause');
    });
  });

  describe('DELETE', () => {
    test('deletes; a missing item is success; the rest of the WHERE is a condition', async () => {
      await put(simple, { pk: { S: 'del' }, v: { N: '1' } });
      await expectDynamoError(run(`DELETE FROM "${simple}" WHERE pk = 'del' AND v = 2`), 'ConditionalCheckFailedException', CONDITION_FAILED);
      assert.ok((await get(simple, { pk: { S: 'del' } })) !== undefined);
      assert.deepEqual((await run(`DELETE FROM "${simple}" WHERE pk = 'del' AND v = 1 RETURNING ALL OLD *`)).Items, [{ pk: { S: 'del' }, v: { N: '1' } }]);
      assert.equal(await get(simple, { pk: { S: 'del' } }), undefined);
      assert.deepEqual((await run(`DELETE FROM "${simple}" WHERE pk = 'del' AND v = 1`)).Items, []);
      assert.deepEqual((await run(`DELETE FROM "${simple}" WHERE pk = 'del' RETURNING ALL OLD *`)).Items, []);
    });

    test('DELETE refusals', async () => {
      await refused(`DELETE FROM "${simple}" WHERE v = 1`, INCOMPLETE_KEY);
      await refused(`DELETE FROM "${simple}" t WHERE pk = 'x'`, 'Aliasing is not supported');
      for (const variant of ['MODIFIED OLD', 'ALL NEW', 'MODIFIED NEW']) {
        await refused(
          `DELETE FROM "${simple}" WHERE pk = 'x' RETURNING ${variant} *`,
          `Invalid returning clause: RETURNING ${variant} *. Only RETURNING ALL OLD * is allowed in DELETE statements.`,
        );
      }
      await refused(`DELETE FROM "${composite}"."by-g" WHERE pk = 'x'`, /^FROM clause may only contain a single table name in data manipulation statements at 1:13:/);
    });
  });

  describe('statement-level rules', () => {
    test("syntax errors carry the parser's detail", async () => {
      const cases: [string, string][] = [
        [`SELECT * FROM "${simple}" WHERE pk = 1 foo`, 'Unexpected token after expression'],
        [`SELECT * FROM "${simple}" WHERE pk = 1)`, 'Unexpected token after expression'],
        [`SELECT * FROM "${simple}" ORDER BY pk WHERE pk = 1`, 'Unexpected token after expression'],
        [`INSERT INTO "${simple}" t VALUE {'pk': 'x'}`, 'Unexpected token after expression'],
        [`SELECT * FROM "${simple}" WHERE`, 'Unexpected term'],
        [`SELECT * FROM "${simple}" WHERE (`, 'Unexpected term'],
        [`SELECT * FROM "${simple}" WHERE NOT`, 'Unexpected term'],
        ['SELECT * FROM', 'Unexpected term'],
        [`SELECT * FROM "${simple}" WHERE pk = 'p1' AND`, 'Missing right-hand side expression of infix operator'],
        [`SELECT * FROM "${simple}" WHERE ORDER BY pk`, 'Unexpected keyword'],
        [`SELECT * FROM "${simple}" WHERE key = 1`, 'Unexpected keyword'],
        [`SELECT * FROM "${simple}" WHERE IS NULL`, 'Unexpected operator'],
        [`SELECT * FROM "${simple}" WHERE pk = 'a' AND x IS FOO`, 'Expected type name'],
        ['DELETE FROM', 'Expected identifier for simple path'],
        ["DELETE FROM WHERE pk = 'a'", 'Expected identifier for simple path'],
        ['UPDATE Payment-abc SET a = 1 WHERE b = 2', 'Expected data manipulation'],
        [`SELECT * FROM "${simple}" WHERE attribute_exists(m.inner)`, 'Invalid path dot component'],
        [`SELECT * FROM "${simple}" WHERE pk = 1 # note`, ''],
        [`SELECT * FROM "${simple}" WHERE pk = 1 /* note`, ''],
        [`SELECT * FROM "${simple}" WHERE pk = 1e2147483648`, ''],
        [`SELECT * FROM "${simple}" WHERE pk = 'unterminated`, ''],
      ];
      for (const [statement, detail] of cases) await refused(statement, NOT_WELL_FORMED + detail);
    });

    test('parameters: count and DynamoDB number rules', async () => {
      await refused(`SELECT * FROM "${simple}" WHERE pk = ?`, "Number of parameters in request and statement don't match.");
      await refused(`SELECT * FROM "${simple}" WHERE pk = 'x'`, "Number of parameters in request and statement don't match.", [{ S: 'x' }]);
      await refused(`SELECT * FROM "${simple}" WHERE pk = 'x' AND n = ?`, 'The parameter cannot be converted to a numeric value: 1e99999999999', [{ N: '1e99999999999' }]);
      await refused(`SELECT * FROM "${simple}" WHERE pk = 'x' AND n = ?`, 'The parameter cannot be converted to a numeric value: abc', [{ M: { x: { N: 'abc' } } }]);
      let deep: AttributeValue = { S: 'leaf' };
      for (let depth = 0; depth < 40; depth++) deep = { M: { n: deep } };
      await refused(
        `SELECT * FROM "${simple}" WHERE pk = 'x' AND n = ?`,
        'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit',
        [deep],
      );
    });

    test('the statement is bounded at 8192 characters and its nesting at a fixed depth', async () => {
      await refused(`SELECT * FROM "${simple}" WHERE pk = '${'x'.repeat(8192)}'`, /Member must have length less than or equal to 8192$/);
      await refused(`SELECT * FROM "${simple}" WHERE ${'('.repeat(500)}a = 1${')'.repeat(500)}`, `${NOT_WELL_FORMED}Expression is nested too deeply`);
      await refused(`SELECT * FROM "${simple}" WHERE pk = ${'- '.repeat(3000)}1`, `${NOT_WELL_FORMED}Expression is nested too deeply`);
    });

    test('statements DynamoDB does not run', async () => {
      await refused('x IS INT4', 'Unsupported operation: IsType');
      await refused('1 + 1', 'Unsupported operation: Plus');
      await refused(`EXISTS(SELECT * FROM "${simple}" WHERE pk = 'x' AND v = 1)`, 'EXISTS can only be used in ExecuteTransaction write requests.');
    });

    test('ReturnConsumedCapacity reports the underlying operation', async () => {
      const read = await run(`SELECT * FROM "${composite}" WHERE pk IN ['p', 'q']`, undefined, { ReturnConsumedCapacity: 'TOTAL' });
      assert.equal(read.ConsumedCapacity?.TableName, composite);
      assert.ok((read.ConsumedCapacity?.CapacityUnits ?? 0) >= 1);
      const write = await run(`UPDATE "${composite}" SET x = 1 WHERE pk = 'q' AND sk = 1`, undefined, { ReturnConsumedCapacity: 'TOTAL' });
      // 1 for the item, 1 for rewriting its entry in the ALL-projected GSI by-g.
      assert.deepEqual(write.ConsumedCapacity, { TableName: composite, CapacityUnits: 2 });
    });

    test("the DocumentClient's ExecuteStatementCommand works unchanged", async () => {
      const document = twin.documentClient;
      await document.send(new DocumentExecuteStatementCommand({ Statement: `INSERT INTO "${simple}" VALUE {'pk': ?, 'tags': ?, 'n': ?}`, Parameters: ['doc-client', ['a', 'b'], 3] }));
      const result = await document.send(new DocumentExecuteStatementCommand({ Statement: `SELECT * FROM "${simple}" WHERE pk = ?`, Parameters: ['doc-client'] }));
      assert.deepEqual(result.Items, [{ pk: 'doc-client', tags: ['a', 'b'], n: 3 }]);
      await document.send(
        new DocumentExecuteTransactionCommand({
          TransactStatements: [{ Statement: `UPDATE "${simple}" SET n = n + ? WHERE pk = ?`, Parameters: [2, 'doc-client'] }],
        }),
      );
      const batch = await document.send(
        new DocumentBatchExecuteStatementCommand({ Statements: [{ Statement: `SELECT n FROM "${simple}" WHERE pk = ?`, Parameters: ['doc-client'] }] }),
      );
      assert.deepEqual(batch.Responses, [{ TableName: simple, Item: { n: 5 } }]);
    });
  });

  describe('BatchExecuteStatement', () => {
    test('each statement is answered on its own; failures do not stop the others', async () => {
      await put(simple, { pk: { S: 'b-existing' } });
      await put(simple, { pk: { S: 'b-other' } });
      const result = await twin.client.send(
        new BatchExecuteStatementCommand({
          Statements: [
            { Statement: `INSERT INTO "${simple}" VALUE {'pk': 'b-new'}` },
            { Statement: `INSERT INTO "${simple}" VALUE {'pk': 'b-existing'}` },
            { Statement: `SELECT * FROM "${simple}" WHERE` },
            { Statement: `UPDATE "${simple}" SET v = 1 WHERE pk = 'b-absent'` },
            { Statement: `UPDATE "no-such-table" SET v = 1 WHERE pk = 'x'` },
            { Statement: `UPDATE "${simple}" SET v = 1 WHERE pk = 'b-other' RETURNING ALL NEW *` },
            { Statement: `DELETE FROM "${simple}" WHERE pk = ?`, Parameters: [{ S: 'b-gone' }] },
          ],
        }),
      );
      assert.deepEqual(result.Responses, [
        { TableName: simple },
        { TableName: simple, Error: { Code: 'DuplicateItem', Message: 'Duplicate primary key exists in table' } },
        { Error: { Code: 'ValidationError', Message: `${NOT_WELL_FORMED}Unexpected term` } },
        { TableName: simple, Error: { Code: 'ConditionalCheckFailed', Message: CONDITION_FAILED } },
        { TableName: 'no-such-table', Error: { Code: 'ResourceNotFound', Message: 'Requested resource not found' } },
        { TableName: simple, Item: { pk: { S: 'b-other' }, v: { N: '1' } } },
        { TableName: simple },
      ]);
      assert.ok((await get(simple, { pk: { S: 'b-new' } })) !== undefined);
    });

    test('reads must name one item by its full key', async () => {
      const result = await twin.client.send(
        new BatchExecuteStatementCommand({
          Statements: [
            { Statement: `SELECT sk, tag FROM "${composite}" WHERE pk = 'p' AND sk = 2`, ConsistentRead: true },
            { Statement: `SELECT * FROM "${composite}" WHERE pk = 'p' AND sk = 99` },
            { Statement: `SELECT * FROM "${composite}" WHERE pk = 'p'` },
            { Statement: `SELECT * FROM "${composite}"."by-g" WHERE g = 'odd'` },
          ],
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      const keyRule = { Code: 'ValidationError', Message: 'Select statements within BatchExecuteStatement must specify the primary key in the where clause.' };
      assert.deepEqual(result.Responses, [
        { TableName: composite, Item: { sk: { N: '2' }, tag: { S: 't2' } } },
        { TableName: composite },
        { TableName: composite, Error: keyRule },
        { TableName: composite, Error: keyRule },
      ]);
      assert.deepEqual(result.ConsumedCapacity, [{ TableName: composite, CapacityUnits: 1.5 }]);
    });

    test('batch-level refusals', async () => {
      await expectDynamoError(
        twin.client.send(
          new BatchExecuteStatementCommand({
            Statements: [{ Statement: `SELECT * FROM "${simple}" WHERE pk = 'a'` }, { Statement: `DELETE FROM "${simple}" WHERE pk = 'a'` }],
          }),
        ),
        'ValidationException',
        'Read and write requests together in the same batch is not supported.',
      );
      await expectDynamoError(
        twin.client.send(
          new BatchExecuteStatementCommand({
            Statements: Array.from({ length: 26 }, (_, index) => ({ Statement: `DELETE FROM "${simple}" WHERE pk = 'k${index}'` })),
          }),
        ),
        'ValidationException',
        /Member must have length less than or equal to 25/,
      );
      await expectDynamoError(
        twin.client.send(
          new BatchExecuteStatementCommand({
            Statements: [{ Statement: `DELETE FROM "${simple}" WHERE pk = 'same'` }, { Statement: `UPDATE "${simple}" SET v = 1 WHERE pk = 'same'` }],
          }),
        ),
        'ValidationException',
        'Provided list of item keys contains duplicates',
      );
    });
  });

  describe('ExecuteTransaction', () => {
    const transact = (statements: { Statement: string; Parameters?: AttributeValue[] }[], ClientRequestToken?: string) =>
      twin.client.send(new ExecuteTransactionCommand({ TransactStatements: statements, ...(ClientRequestToken === undefined ? {} : { ClientRequestToken }) }));

    test('writes are all or nothing', async () => {
      await put(simple, { pk: { S: 'tx-a' }, n: { N: '1' } });
      const done = await transact([
        { Statement: `INSERT INTO "${simple}" VALUE {'pk': 'tx-new'}` },
        { Statement: `UPDATE "${simple}" SET n = n + 1 WHERE pk = 'tx-a'` },
        { Statement: `EXISTS(SELECT * FROM "${simple}" WHERE pk = 'dup' AND v = 1)` },
      ]);
      assert.deepEqual(done.Responses, []);
      assert.deepEqual((await get(simple, { pk: { S: 'tx-a' } }))?.n, { N: '2' });

      let caught: unknown;
      try {
        await transact([
          { Statement: `UPDATE "${simple}" SET n = n + 1 WHERE pk = 'tx-a'` },
          { Statement: `INSERT INTO "${simple}" VALUE {'pk': 'tx-new'}` },
          { Statement: `DELETE FROM "${simple}" WHERE pk = 'dup' AND v = 99` },
        ]);
      } catch (error) {
        caught = error;
      }
      assert.ok(caught instanceof TransactionCanceledException);
      assert.equal(
        caught.message,
        'Transaction cancelled, please refer cancellation reasons for specific reasons [None, DuplicateItem, ConditionalCheckFailed]',
      );
      assert.deepEqual(caught.CancellationReasons, [
        { Code: 'None' },
        { Code: 'DuplicateItem', Message: 'Duplicate primary key exists in table' },
        { Code: 'ConditionalCheckFailed', Message: CONDITION_FAILED },
      ]);
      assert.deepEqual((await get(simple, { pk: { S: 'tx-a' } }))?.n, { N: '2' }, 'nothing was applied');
    });

    test('reads answer one response per statement', async () => {
      const result = await transact([
        { Statement: `SELECT n FROM "${simple}" WHERE pk = 'tx-a'` },
        { Statement: `SELECT * FROM "${simple}" WHERE pk = ?`, Parameters: [{ S: 'tx-absent' }] },
      ]);
      assert.deepEqual(result.Responses, [{ Item: { n: { N: '2' } } }, {}]);
    });

    test('ClientRequestToken makes a write transaction idempotent', async () => {
      await put(simple, { pk: { S: 'tx-token' }, n: { N: '0' } });
      const statements = [{ Statement: `UPDATE "${simple}" SET n = n + 1 WHERE pk = 'tx-token'` }];
      await transact(statements, 'token-1');
      await transact(statements, 'token-1');
      assert.deepEqual((await get(simple, { pk: { S: 'tx-token' } }))?.n, { N: '1' });
      await expectDynamoError(
        transact([{ Statement: `UPDATE "${simple}" SET n = n + 2 WHERE pk = 'tx-token'` }], 'token-1'),
        'IdempotentParameterMismatchException',
      );
    });

    test('transaction refusals', async () => {
      const refusedTransaction = (statements: { Statement: string; Parameters?: AttributeValue[] }[], message: string) =>
        expectDynamoError(transact(statements), 'ValidationException', message);
      await refusedTransaction(
        [{ Statement: `SELECT * FROM "${simple}" WHERE pk = 'a'` }, { Statement: `DELETE FROM "${simple}" WHERE pk = 'a'` }],
        'ExecuteTransaction API does not support both read and write operations in the same request.',
      );
      await refusedTransaction([{ Statement: `SELECT * FROM "${simple}" WHERE` }], `Validation failed in TransactStatements[0]: ${NOT_WELL_FORMED}Unexpected term`);
      await refusedTransaction(
        [{ Statement: `DELETE FROM "${simple}" WHERE pk = 'a'` }, { Statement: `UPDATE "${simple}" SET v = 'x' WHERE pk = 'b' RETURNING ALL NEW *` }],
        'Validation failed in TransactStatements[1]: RETURNING clause is not supported in ExecuteTransaction.',
      );
      await refusedTransaction(
        [{ Statement: `SELECT * FROM "${simple}" WHERE pk = 'a' AND attribute_exists(v)` }],
        'Validation failed in TransactStatements[0]: Select statements within ExecuteTransaction must specify the primary key in the where clause.',
      );
      await refusedTransaction(
        [{ Statement: `SELECT * FROM "${composite}"."by-g" WHERE g = 'odd'` }],
        'Validation failed in TransactStatements[0]: Reads on indices are not supported within transactions.',
      );
      await refusedTransaction(
        [{ Statement: `EXISTS(SELECT * FROM "${simple}" WHERE pk = 'a')` }, { Statement: `DELETE FROM "${simple}" WHERE pk = 'b'` }],
        'Validation failed in TransactStatements[0]: EXISTS() must contain a single item read with additional condition',
      );
      await refusedTransaction(
        [{ Statement: `DELETE FROM "${simple}" WHERE pk = 'a'` }, { Statement: `UPDATE "${simple}" SET n = 1 WHERE pk = 'b' AND n < ?`, Parameters: [{ BOOL: true }] }],
        'Validation failed in TransactStatements[1]: Incorrect operand type for operator or function; operator or function: <, operand type: BOOL',
      );
      await refusedTransaction(
        [{ Statement: `UPDATE "${simple}" SET n = ? WHERE pk = 'a'`, Parameters: [{ N: '1e99999999999' }] }],
        'The parameter cannot be converted to a numeric value: 1e99999999999',
      );
      await expectDynamoError(transact([{ Statement: `DELETE FROM "no-such-table" WHERE pk = 'a'` }]), 'ResourceNotFoundException', 'Requested resource not found');
    });
  });

  describe('robustness', () => {
    test('the parser answers 5,000 mutated statements with a model or a ValidationException', () => {
      const random = seededRandom(0x9a27);
      let compiled = 0;
      for (let round = 0; round < 5000; round++) {
        const statement = mutateStatement(random, SEED_STATEMENTS[Math.floor(random() * SEED_STATEMENTS.length)]!);
        // Mostly as many parameters as the text has `?`, so mutants get past the count check.
        const marks = statement.split('?').length - 1;
        const count = random() < 0.8 ? marks : Math.floor(random() * 4);
        const parameters = Array.from({ length: count }, () => PARAMETER_VALUES[Math.floor(random() * PARAMETER_VALUES.length)]!);
        try {
          compileStatement(statement, structuredClone(parameters));
          compiled++;
        } catch (error) {
          assert.ok(error instanceof DynamoError, `statement ${JSON.stringify(statement)} threw ${String(error)}`);
          assert.equal(error.code, 'ValidationException', `statement ${JSON.stringify(statement)}: ${error.message}`);
        }
      }
      assert.ok(compiled > 100, `some mutants still compile (${compiled})`);
    });

    test('mutated statements against a live server never answer 500', async () => {
      const random = seededRandom(0x51ab);
      for (let round = 0; round < 400; round++) {
        const statement = mutateStatement(random, SEED_STATEMENTS[Math.floor(random() * SEED_STATEMENTS.length)]!)
          .replaceAll('"Tbl"', `"${composite}"`)
          .replaceAll('"Sbl"', `"${simple}"`);
        try {
          await run(statement);
        } catch (error) {
          const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
          assert.ok(status !== undefined && status >= 400 && status < 500, `${statement}: ${String(error)} (status ${status})`);
        }
      }
    });
  });
});

const SEED_STATEMENTS = [
  `SELECT * FROM "Tbl" WHERE pk = 'p' AND sk BETWEEN 1 AND 3`,
  `SELECT a.b[1], c FROM "Tbl"."by-g" WHERE g IN ['x', 'y'] OR x IS NOT MISSING`,
  `SELECT * FROM "Sbl" WHERE pk = ? AND begins_with(s, 'a') AND size(l) > 2 AND NOT (n <> 1)`,
  `INSERT INTO "Sbl" VALUE {'pk': 'x', 'n': -1.5e3, 'm': {'a': [1, <<'x', 'y'>>, true, NULL]}, 'p': ?}`,
  `UPDATE "Sbl" SET a = a + 1, b = list_append(b, [1]) SET s = set_add(s, <<'z'>>) REMOVE c WHERE pk = 'x' AND attribute_exists(a) RETURNING ALL NEW *`,
  `DELETE FROM "Sbl" WHERE pk = ? AND v = 'w' RETURNING ALL OLD *`,
  `FROM "Tbl" WHERE pk = 'p' AND sk = 1 SET c = 1 REMOVE d`,
  `EXISTS(SELECT * FROM "Sbl" WHERE pk = 'a' AND v = 1)`,
  `SELECT * FROM "Tbl" WHERE pk = 'p' ORDER BY sk DESC;`,
];

const FRAGMENTS = [' ', "'", '"', '(', ')', '[', ']', '{', '}', '<<', '>>', ',', '.', ':', ';', '?', '*', '=', '<>', '!=', '<', '>=', '+', '-', '||',
  'AND', 'OR', 'NOT', 'IN', 'IS', 'BETWEEN', 'LIKE', 'SELECT', 'FROM', 'WHERE', 'SET', 'REMOVE', 'INSERT INTO', 'VALUE', 'UPDATE', 'DELETE',
  'RETURNING', 'ALL OLD', 'MODIFIED NEW', 'MISSING', 'NULL', 'true', '1e999', '0.5', '-0', '1e2147483648', 'x', '"q"', 'size(', 'set_add(',
  'EXISTS(', 'COUNT(*)', '--', '/*', '*/', '#', '`ion`', '\n', '\u0000', '💥', 'ORDER BY', 'GROUP BY', 'AS t', '.*', '[*]', '[-1]', '[99999999999]'];

/** Wire-form values (binary as base64), as compileStatement receives them from a request. */
const PARAMETER_VALUES: WireValue[] = [
  { S: 'x' },
  { N: '1' },
  { N: '1e99999999999' },
  { N: 'abc' },
  { B: 'AQ==' },
  { SS: ['a', 'a'] },
  { NS: ['1'] },
  { L: [{ M: { a: { NULL: true } } }] },
  { M: {} },
  { BOOL: true },
];

/** Deletes, inserts, duplicates or swaps a piece of the statement, a few times over. */
function mutateStatement(random: () => number, statement: string): string {
  let text = statement;
  const edits = 1 + Math.floor(random() * 4);
  for (let edit = 0; edit < edits; edit++) {
    const at = Math.floor(random() * (text.length + 1));
    const length = Math.floor(random() * 8);
    const choice = random();
    if (choice < 0.3) text = text.slice(0, at) + text.slice(at + length);
    else if (choice < 0.7) text = text.slice(0, at) + FRAGMENTS[Math.floor(random() * FRAGMENTS.length)]! + text.slice(at);
    else if (choice < 0.85) text = text.slice(0, at) + text.slice(at, at + length).repeat(2) + text.slice(at + length);
    else text = text.slice(at) + text.slice(0, at);
  }
  return text;
}
