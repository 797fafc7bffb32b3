/**
 * Fuzzing what parses input: thousands of mutated requests, each must get a DynamoDB-shaped answer
 * (200, or a 4xx with a JSON `__type`), never a 500, an InternalServerError, a hang or a crash.
 * Then, systematically, every operation's request shape with prototype-named members
 * (`constructor`, `__proto__` ...) in every object and a null in every list.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, test } from 'node:test';
import { startDynatwin, type Dynatwin } from '../src/index.js';
import { createOperationRegistry } from '../src/operations/index.js';
import type { AnyOperation } from '../src/operations/operation.js';
import type { Member } from '../src/operations/shape.js';
import { callOperation } from './support/raw.js';
import { seededRandom as mulberry32 } from './support/random.js';
import { attributes, keySchema } from './support/tables.js';
import { testTwinOptions } from './support/test-store.js';

const REQUESTS_TOTAL = 4000;
const CONCURRENCY = 16;


/** A backup ARN of the right shape; the fuzz also makes real backups (CreateBackup) whose ARNs it cannot know. */
const FUZZ_BACKUP_ARN = 'arn:aws:dynamodb:us-east-1:000000000000:table/fuzz-items/backup/01700000000000-abcdef01';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const SEEDS: [string, Json][] = [
  ['CreateTable', {
    TableName: 'fuzz',
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'N' }],
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
    BillingMode: 'PAY_PER_REQUEST',
    GlobalSecondaryIndexes: [{ IndexName: 'g1', KeySchema: [{ AttributeName: 'sk', KeyType: 'HASH' }], Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['a'] } }],
  }],
  ['PutItem', {
    TableName: 'fuzz-items',
    Item: { id: { S: 'a' }, n: { N: '1.5e3' }, b: { B: 'AAEC' }, l: { L: [{ S: 'x' }, { M: { k: { NS: ['1', '2'] } } }] }, s: { SS: ['p', 'q'] }, z: { NULL: true }, t: { BOOL: false } },
    ReturnValues: 'ALL_OLD',
    ReturnConsumedCapacity: 'TOTAL',
  }],
  ['GetItem', { TableName: 'fuzz-items', Key: { id: { S: 'a' } }, ProjectionExpression: '#a.b[1], c', ExpressionAttributeNames: { '#a': 'l' }, ConsistentRead: true }],
  ['DeleteItem', { TableName: 'fuzz-items', Key: { id: { S: 'a' } }, ReturnValues: 'ALL_OLD' }],
  ['ListTables', { Limit: 2, ExclusiveStartTableName: 'fuzz' }],
  ['DescribeTable', { TableName: 'fuzz-items' }],
  ['UpdateTable', { TableName: 'fuzz-items', BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } }],
  ['TagResource', { ResourceArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/fuzz-items', Tags: [{ Key: 'k', Value: 'v' }] }],
  ['UpdateTimeToLive', { TableName: 'fuzz-items', TimeToLiveSpecification: { Enabled: true, AttributeName: 'ttl' } }],
  ['CreateBackup', { TableName: 'fuzz-items', BackupName: 'fuzz-backup' }],
  ['ListBackups', { TableName: 'fuzz-items', Limit: 3, TimeRangeLowerBound: 0, TimeRangeUpperBound: 2e9, BackupType: 'ALL', ExclusiveStartBackupArn: FUZZ_BACKUP_ARN }],
  ['DescribeBackup', { BackupArn: FUZZ_BACKUP_ARN }],
  ['DeleteBackup', { BackupArn: FUZZ_BACKUP_ARN }],
  ['RestoreTableFromBackup', {
    BackupArn: FUZZ_BACKUP_ARN,
    TargetTableName: 'fuzz-restored',
    BillingModeOverride: 'PROVISIONED',
    ProvisionedThroughputOverride: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
    GlobalSecondaryIndexOverride: [{ IndexName: 'g1', KeySchema: [{ AttributeName: 'sk', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' }, ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } }],
    LocalSecondaryIndexOverride: [],
    SSESpecificationOverride: { Enabled: true, SSEType: 'KMS' },
  }],
  ['DescribeContinuousBackups', { TableName: 'fuzz-items' }],
  ['UpdateContinuousBackups', { TableName: 'fuzz-items', PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 3 } }],
  ['RestoreTableToPointInTime', { SourceTableName: 'fuzz-items', TargetTableName: 'fuzz-pitr', UseLatestRestorableTime: true, RestoreDateTime: 1.7e9 }],
  ['PutResourcePolicy', { ResourceArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/fuzz-items', Policy: '{"Version":"2012-10-17","Statement":[]}', ExpectedRevisionId: 'NO_POLICY' }],
  ['DeleteResourcePolicy', { ResourceArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/fuzz-items', ExpectedRevisionId: '1' }],
  ['EnableKinesisStreamingDestination', { TableName: 'fuzz-items', StreamArn: 'arn:aws:kinesis:us-east-1:000000000000:stream/fuzz', EnableKinesisStreamingConfiguration: { ApproximateCreationDateTimePrecision: 'MILLISECOND' } }],
  ['UpdateGlobalTable', { GlobalTableName: 'fuzz-items', ReplicaUpdates: [{ Delete: { RegionName: 'us-west-2' } }] }],
  ['ExportTableToPointInTime', {
    TableArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/fuzz-items',
    S3Bucket: 'bucket',
    ExportTime: 1.7e9,
    ClientToken: 'fuzz',
    ExportType: 'INCREMENTAL_EXPORT',
    IncrementalExportSpecification: { ExportFromTime: 1.7e9, ExportToTime: 1.8e9, ExportViewType: 'NEW_IMAGE' },
  }],
  ['ImportTable', {
    S3BucketSource: { S3Bucket: 'bucket', S3KeyPrefix: 'p' },
    InputFormat: 'CSV',
    InputFormatOptions: { Csv: { Delimiter: ',', HeaderList: ['id'] } },
    TableCreationParameters: { TableName: 'fuzz-import', AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' },
  }],
  ['ListExports', { TableArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/fuzz-items', MaxResults: 2, NextToken: 'x' }],
];

const STRANGE_VALUES: Json[] = [
  null, true, false, 0, -1, 1.5, 1e300, '', 'x', '1e999', '-0', 'NaN', '\u0000', '💥', '#', ':', '[', 'a'.repeat(300),
  [], [null], {}, { S: 'x' }, { N: 'abc' }, { B: '===' }, { SS: [] }, { L: [null] }, { M: { '': { S: '' } } }, { NULL: false },
];

function pick<T>(random: () => number, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)]!;
}

/** Replaces, removes or adds one value somewhere in the document. */
function mutate(random: () => number, value: Json, depth: number): Json {
  if (depth > 0 && random() < 0.25) return pick(random, STRANGE_VALUES);
  if (Array.isArray(value)) {
    const copy = value.map((element) => (random() < 0.5 ? mutate(random, element, depth + 1) : element));
    if (random() < 0.2) copy.push(pick(random, STRANGE_VALUES));
    if (random() < 0.1) copy.length = 0;
    return copy;
  }
  if (value !== null && typeof value === 'object') {
    const copy = jsonObject();
    for (const [key, inner] of Object.entries(value)) {
      const roll = random();
      if (roll < 0.1) continue;
      copy[key] = roll < 0.55 ? mutate(random, inner, depth + 1) : inner;
    }
    if (random() < 0.15) copy[pick(random, ['S', 'N', 'Extra', 'TableName', 'Key', 'Item', 'M', ...PROTOTYPE_NAMES])] = pick(random, STRANGE_VALUES);
    return copy;
  }
  return random() < 0.5 ? pick(random, STRANGE_VALUES) : value;
}

/** Byte-level damage to the JSON text: truncation, a flipped character, an inserted brace. */
function damageText(random: () => number, text: string): string {
  const at = Math.floor(random() * text.length);
  const roll = random();
  if (roll < 0.33) return text.slice(0, at);
  if (roll < 0.66) return text.slice(0, at) + String.fromCharCode(Math.floor(random() * 128)) + text.slice(at + 1);
  return text.slice(0, at) + pick(random, ['{', '}', '[', ']', ',', '"', ':', '\\']) + text.slice(at);
}

function makeBody(random: () => number): [string, string] {
  const [operation, seed] = pick(random, [...SEEDS, ...DATA_PLANE_SEEDS]);
  const mutated = random() < 0.9 ? mutate(random, seed, 0) : seed;
  const text = JSON.stringify(mutated);
  return [operation, random() < 0.15 ? damageText(random, text) : text];
}

let twin: Dynatwin;
before(async () => {
  twin = await startDynatwin(testTwinOptions({}));
  await callOperation(twin.endpoint, 'CreateTable', JSON.stringify({
    TableName: 'fuzz-items',
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
  }));
  // Index keys reach the index key checks of every write path, and index reads their start keys.
  await callOperation(twin.endpoint, 'CreateTable', JSON.stringify({
    TableName: 'fuzz-indexed',
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }, { AttributeName: 'g', AttributeType: 'S' }, { AttributeName: 'r', AttributeType: 'B' }],
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
    GlobalSecondaryIndexes: [{ IndexName: 'g1', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }, { AttributeName: 'r', KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' } }],
  }));
  // A multi-attribute GSI key: its key conditions, start keys and entry keys.
  await callOperation(twin.endpoint, 'CreateTable', JSON.stringify(MULTI_KEY_TABLE));
});
after(async () => {
  await twin.close();
});

test(`${REQUESTS_TOTAL} mutated requests all get DynamoDB-shaped answers`, async () => {
  const random = mulberry32(0xd7a3);
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < REQUESTS_TOTAL) {
      next++;
      const [operation, body] = makeBody(random);
      const response = await callOperation(twin.endpoint, operation, body, agent);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      assert.ok(response.status === 200 || (response.status >= 400 && response.status < 500), `status ${response.status} for ${operation} ${body}`);
      if (response.status === 400) {
        const parsed = JSON.parse(response.text) as { __type?: string };
        assert.match(String(parsed.__type), /^com\.amazon(aws\.dynamodb\.v20120810|\.coral\.(service|validate))#\w+$/, body);
        assert.ok(!String(parsed.__type).endsWith('#InternalServerError'), `an internal error for ${operation} ${body}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  assert.ok((statuses.get(400) ?? 0) > REQUESTS_TOTAL / 4, 'most mutations are invalid requests');
  const alive = await callOperation(twin.endpoint, 'ListTables', '{}');
  assert.equal(alive.status, 200);
});

// ---------------------------------------------------------------------------------------------
// Issue 15: prototype-named members everywhere, null elements in every list, for every operation.
// Bodies are built from each operation's own request shape (src/operations/shape.ts), so a new
// operation or member is covered without editing this file.
// ---------------------------------------------------------------------------------------------

/** Names an object inherits: a member lookup that is not own-property-only finds these. */
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];
const PROTOTYPE_VALUES: Json[] = [1, 'x', true, {}, [], { S: 'x' }, [null]];

/** A JSON object that may hold an own `__proto__` member (a null prototype makes it a plain property). */
function jsonObject(): { [key: string]: Json } {
  return Object.create(null) as { [key: string]: Json };
}

/** Plausible values, so that bodies get past the first constraint and reach deeper code. */
function sampleString(name: string, member: Member): string {
  const constraints = member.constraints;
  if (constraints?.enumValues !== undefined) return constraints.enumValues[0]!;
  if (/TableName$|^ResourceArn$/.test(name)) return name === 'ResourceArn' ? 'arn:aws:dynamodb:us-east-1:000000000000:table/fuzz-items' : 'fuzz-items';
  if (name === 'Statement') return 'SELECT * FROM "fuzz-items" WHERE id = ?';
  if (/Expression$/.test(name)) return name === 'UpdateExpression' ? 'SET #a = :v' : '#a = :v';
  if (/IndexName$/.test(name)) return 'g1';
  if (name === 'KeyType') return 'HASH';
  return 'id';
}

/** `minimal`: only members that must be there (required or notNull), so that bodies are valid more often. */
function sample(member: Member, name: string, depth: number, minimal = false): Json {
  const shape = member.shape;
  switch (shape.kind) {
    case 'string':
      return sampleString(name, member);
    case 'boolean':
      return true;
    case 'integer':
    case 'long':
    case 'double':
      return Math.max(1, member.constraints?.valueMin ?? 1);
    case 'timestamp':
      return 1_700_000_000;
    case 'blob':
      return 'AAEC';
    case 'list':
      return depth > 4 ? [] : [sample(shape.member, name, depth + 1, minimal)];
    case 'map': {
      const map = jsonObject();
      if (depth <= 4) map[name === 'RequestItems' ? 'fuzz-items' : ':v'] = sample(shape.value, name, depth + 1, minimal);
      return map;
    }
    case 'structure': {
      const structure = jsonObject();
      if (depth > 4) return structure;
      for (const [memberName, inner] of Object.entries(shape.members)) {
        if (!minimal || inner.constraints?.notNull || inner.constraints?.required) structure[memberName] = sample(inner, memberName, depth + 1, minimal);
      }
      return structure;
    }
    case 'attributeValue':
      return { S: 'a' };
    case 'attributeMap':
      return name === 'ExpressionAttributeValues' ? { ':v': { S: 'a' } } : { id: { S: 'a' } };
  }
}

function sampleBody(operation: AnyOperation, minimal: boolean): { [key: string]: Json } {
  const body = jsonObject();
  for (const [name, member] of Object.entries(operation.members)) {
    if (!minimal || member.constraints?.notNull || member.constraints?.required) body[name] = sample(member, name, 0, minimal);
  }
  if ('ExpressionAttributeNames' in body) body['ExpressionAttributeNames'] = { '#a': 'id' };
  return body;
}

/** A GSI of two HASH and two RANGE attributes of three types. */
const MULTI_KEY_TABLE = {
  TableName: 'fuzz-multi',
  AttributeDefinitions: attributes({ id: 'S', a: 'S', b: 'N', c: 'S', d: 'B' }),
  KeySchema: keySchema('id'),
  BillingMode: 'PAY_PER_REQUEST',
  GlobalSecondaryIndexes: [
    {
      IndexName: 'm1',
      KeySchema: [{ AttributeName: 'a', KeyType: 'HASH' }, { AttributeName: 'b', KeyType: 'HASH' }, { AttributeName: 'c', KeyType: 'RANGE' }, { AttributeName: 'd', KeyType: 'RANGE' }],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['x'] },
    },
  ],
};
const MULTI_KEY_START = { id: { S: 'm' }, a: { S: 'x' }, b: { N: '1' }, c: { S: 'c' }, d: { B: 'AAAA' } };

/** Valid requests of the data plane, which the generated samples rarely are. */
const DATA_PLANE_SEEDS: [string, Json][] = [
  ['PutItem', { TableName: 'fuzz-items', Item: { id: { S: 'p' }, m: { M: { k: { L: [{ S: 'x' }] } } } }, ConditionExpression: 'attribute_not_exists(#a) OR #a = :v', ExpressionAttributeNames: { '#a': 'm' }, ExpressionAttributeValues: { ':v': { S: 'x' } } }],
  ['UpdateItem', { TableName: 'fuzz-items', Key: { id: { S: 'p' } }, UpdateExpression: 'SET #a = :v ADD #n :one', ExpressionAttributeNames: { '#a': 'x', '#n': 'n' }, ExpressionAttributeValues: { ':v': { SS: ['a'] }, ':one': { N: '1' } }, ReturnValues: 'ALL_NEW' }],
  ['Query', { TableName: 'fuzz-items', KeyConditionExpression: 'id = :v', FilterExpression: 'attribute_exists(#a)', ProjectionExpression: '#a, id', ExpressionAttributeNames: { '#a': 'm' }, ExpressionAttributeValues: { ':v': { S: 'p' } } }],
  ['Scan', { TableName: 'fuzz-items', ScanFilter: { id: { ComparisonOperator: 'IN', AttributeValueList: [{ S: 'p' }, { S: 'q' }] } }, AttributesToGet: ['id', 'm'] }],
  ['BatchGetItem', { RequestItems: { 'fuzz-items': { Keys: [{ id: { S: 'p' } }, { id: { S: 'q' } }], ProjectionExpression: 'id' } } }],
  ['BatchWriteItem', { RequestItems: { 'fuzz-items': [{ PutRequest: { Item: { id: { S: 'q' } } } }, { DeleteRequest: { Key: { id: { S: 'r' } } } }] } }],
  ['TransactWriteItems', { TransactItems: [{ Put: { TableName: 'fuzz-items', Item: { id: { S: 't' } } } }, { ConditionCheck: { TableName: 'fuzz-items', Key: { id: { S: 'p' } }, ConditionExpression: 'attribute_exists(id)' } }] }],
  ['TransactGetItems', { TransactItems: [{ Get: { TableName: 'fuzz-items', Key: { id: { S: 'p' } } } }] }],
  ['PutItem', { TableName: 'fuzz-indexed', Item: { id: { S: 'g' }, g: { S: 'x'.repeat(2048) }, r: { B: 'A'.repeat(1364) } } }],
  ['UpdateItem', { TableName: 'fuzz-indexed', Key: { id: { S: 'g' } }, UpdateExpression: 'SET g = :g, r = :r', ExpressionAttributeValues: { ':g': { S: 'é'.repeat(1024) }, ':r': { B: 'AAAA' } } }],
  ['PutItem', { TableName: 'fuzz-items', Item: { id: { S: 'e' } }, Expected: { a: { ComparisonOperator: 'NOT_CONTAINS', AttributeValueList: [{ S: 'x' }] }, b: { ComparisonOperator: 'IN', AttributeValueList: [{ N: '1' }, { N: '2' }] } }, ConditionalOperator: 'OR' }],
  ['UpdateItem', { TableName: 'fuzz-items', Key: { id: { S: 'e' } }, UpdateExpression: 'SET l = list_append(list_append(if_not_exists(l, :e), :v), :v)', ConditionExpression: 'NOT a < b OR (a = :v AND size(l) > b)', ExpressionAttributeValues: { ':e': { L: [] }, ':v': { L: [{ N: '1' }] } } }],
  ['Query', { TableName: 'fuzz-indexed', IndexName: 'g1', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'x' } }, ExclusiveStartKey: { id: { S: 'g' }, g: { S: 'x' }, r: { B: 'AAAA' } }, Limit: 1 }],
  ['Scan', { TableName: 'fuzz-indexed', IndexName: 'g1', ExclusiveStartKey: { id: { S: 'g' }, g: { S: 'x' }, r: { B: 'AAAA' } }, Select: 'ALL_PROJECTED_ATTRIBUTES' }],
  ['PutItem', { TableName: 'fuzz-multi', Item: { ...MULTI_KEY_START, x: { S: 'x'.repeat(2048) } } }],
  ['Query', { TableName: 'fuzz-multi', IndexName: 'm1', KeyConditionExpression: 'a = :a AND b = :b AND c = :c AND begins_with(d, :d)', ExpressionAttributeValues: { ':a': { S: 'x' }, ':b': { N: '1' }, ':c': { S: 'c' }, ':d': { B: 'AA==' } }, ExclusiveStartKey: MULTI_KEY_START, Limit: 1 }],
  ['Scan', { TableName: 'fuzz-multi', IndexName: 'm1', ExclusiveStartKey: MULTI_KEY_START, Limit: 1 }],
  ['UpdateTable', { TableName: 'fuzz-multi', AttributeDefinitions: [{ AttributeName: 'e', AttributeType: 'S' }, { AttributeName: 'b', AttributeType: 'N' }], GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'm2', KeySchema: [{ AttributeName: 'e', KeyType: 'HASH' }, { AttributeName: 'b', KeyType: 'HASH' }, { AttributeName: 'id', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } } }] }],
  ['ExecuteStatement', { Statement: 'UPDATE "fuzz-items" SET x = ? WHERE id = ?', Parameters: [{ L: [{ N: '1' }] }, { S: 'p' }] }],
  ['BatchExecuteStatement', { Statements: [{ Statement: 'SELECT * FROM "fuzz-items" WHERE id = ?', Parameters: [{ S: 'p' }] }] }],
  ['ExecuteTransaction', { TransactStatements: [{ Statement: 'INSERT INTO "fuzz-items" VALUE {\'id\': ?}', Parameters: [{ S: 'e' }] }] }],
];

/** Every path to a JSON object (structure, map, attribute value) and to an array in `value`. */
function containerPaths(value: Json, path: (string | number)[] = [], found: { objects: (string | number)[][]; arrays: (string | number)[][] } = { objects: [], arrays: [] }) {
  if (Array.isArray(value)) {
    found.arrays.push(path);
    value.forEach((element, index) => containerPaths(element, [...path, index], found));
  } else if (value !== null && typeof value === 'object') {
    found.objects.push(path);
    for (const key of Object.keys(value)) containerPaths(value[key]!, [...path, key], found);
  }
  return found;
}

/** A deep copy (null-prototype objects, so `__proto__` stays a member) with `change` applied at `path`. */
function changedAt(value: Json, path: readonly (string | number)[], change: (target: Json) => Json): Json {
  if (path.length === 0) return change(copyJson(value));
  const [step, ...rest] = path;
  if (Array.isArray(value)) return value.map((element, index) => (index === step ? changedAt(element, rest, change) : copyJson(element)));
  const copy = jsonObject();
  for (const key of Object.keys(value as object)) {
    const inner = (value as { [key: string]: Json })[key]!;
    copy[key] = key === step ? changedAt(inner, rest, change) : copyJson(inner);
  }
  return copy;
}

function copyJson(value: Json): Json {
  if (Array.isArray(value)) return value.map(copyJson);
  if (value === null || typeof value !== 'object') return value;
  const copy = jsonObject();
  for (const key of Object.keys(value)) copy[key] = copyJson(value[key]!);
  return copy;
}

/** For each operation: its sample body, then every object with each prototype name added, then every array with a null element. */
function prototypeAndNullBodies(): [string, string][] {
  const bodies: [string, string][] = [];
  const bases: [string, Json][] = [...SEEDS, ...DATA_PLANE_SEEDS];
  for (const operation of createOperationRegistry().values()) bases.push([operation.name, sampleBody(operation, false)], [operation.name, sampleBody(operation, true)]);
  for (const [name, body] of bases) {
    const operation = { name };
    bodies.push([operation.name, JSON.stringify(body)]);
    const { objects, arrays } = containerPaths(body);
    for (const path of objects) {
      PROTOTYPE_NAMES.forEach((name, index) => {
        const value = PROTOTYPE_VALUES[(index + path.length) % PROTOTYPE_VALUES.length]!;
        bodies.push([operation.name, JSON.stringify(changedAt(body, path, (target) => ({ ...(target as object), [name]: value }) as Json))]);
        // And as the only member: some code looks members up only when others are absent.
        bodies.push([operation.name, JSON.stringify(changedAt(body, path, () => Object.assign(jsonObject(), { [name]: value })))]);
      });
    }
    for (const path of arrays) {
      bodies.push([operation.name, JSON.stringify(changedAt(body, path, () => [null]))]);
      bodies.push([operation.name, JSON.stringify(changedAt(body, path, (target) => [...(target as Json[]), null]))]);
    }
  }
  return bodies;
}

test('prototype-named members and null list elements in every operation never cause an internal error', async () => {
  const bodies = prototypeAndNullBodies();
  assert.ok(bodies.length > 500, `${bodies.length} bodies`);
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const internalErrors: string[] = [];
  const succeeded = new Set<string>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const [operation, body] = bodies[next++]!;
      const response = await callOperation(twin.endpoint, operation, body, agent);
      if (response.status === 200) succeeded.add(operation);
      const type = response.status === 200 ? '' : String((JSON.parse(response.text) as { __type?: string }).__type);
      if (response.status >= 500 || type.endsWith('#InternalServerError')) internalErrors.push(`${response.status} ${operation} ${body.slice(0, 400)}`);
      else assert.ok(response.status === 200 || (response.status >= 400 && response.status < 500), `status ${response.status} for ${operation} ${body}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  // The bodies are plausible enough to get past validation into the engine for most operations.
  assert.ok(succeeded.size >= 10, `operations answered 200 at least once: ${[...succeeded].join(', ')}`);
  assert.equal(internalErrors.length, 0, `${internalErrors.length} internal errors, e.g.\n${internalErrors.slice(0, 8).join('\n')}`);
});
