/**
 * Fault injection: the rules installed on one server (POST /dynatwin/faults, `twin.faults`), and
 * the decision, per DynamoDB request, whether one of them faults it.
 *
 * The request handler asks `decide` after a request validated and before its operation runs, so a
 * faulted request reads, writes and consumes nothing; the error is recorded in the metrics as any
 * other (SystemErrors for the 5xx, ThrottledRequests for the throttles, UserErrors otherwise).
 * With no rule installed the handler pays one length check.
 *
 * Repeatable: each rule owns a seeded generator (src/model/random.ts) drawn only for requests the rule
 * selects, so the same rules, installed in the same order, fault the same requests of the same
 * request sequence. Windows are on the server's clock, so a manual clock opens and closes them.
 */
import type { Clock } from '../clock.js';
import { DynamoError, dynamoError, internalError, transactionConflict, TRANSACTION_CONFLICT_MESSAGE } from '../errors.js';
import { PROVISIONED_TABLE_MESSAGE } from '../capacity/throttle-errors.js';
import { transactionCanceled, NO_REASON, type CancellationReason } from '../engine/transactions.js';
import { canonicalizeNumber } from '../model/numbers.js';
import { seededRandom } from '../model/random.js';
import { describeFaultRule, FAULT_RULES_MAX, parseFaultRule, type FaultErrorName, type FaultKeyValue, type FaultRuleInput, type FaultRuleSpec } from './fault-rules.js';
import { InspectionError } from './inspection.js';
import { setOwn } from '../model/own-members.js';

const DYNAMODB_NAMESPACE = 'com.amazonaws.dynamodb.v20120810#';
const AVAILABILITY_NAMESPACE = 'com.amazon.coral.availability#';
export const REQUEST_LIMIT_EXCEEDED_MESSAGE =
  'Throughput exceeds the current throughput limit for your account. Please contact AWS Support at https://aws.amazon.com/support request a limit increase';
export const THROTTLING_MESSAGE = 'Rate of requests exceeds the allowed throughput.';
export const SERVICE_UNAVAILABLE_MESSAGE = 'The service is currently unavailable or busy.';
/** Operations whose conflicts DynamoDB reports as a cancelled transaction, not TransactionConflictException. */
const TRANSACTION_OPERATIONS: ReadonlySet<string> = new Set(['TransactWriteItems', 'TransactGetItems', 'ExecuteTransaction']);

/** A rule as listed: its members, its id and what it did so far. */
export interface FaultRuleView {
  readonly id: string;
  readonly rule: Record<string, unknown>;
  /** Requests it selected (operation, table, index, ConsistentRead, key, window all matched). */
  readonly matched: number;
  /** Requests it faulted. */
  readonly faulted: number;
}

/** What happens to a faulted request: held `latencyMs` of real time, then failed with `error` (or run). */
export interface FaultDecision {
  readonly ruleId: string;
  readonly latencyMs: number;
  readonly error: DynamoError | undefined;
}

class InstalledRule {
  matched = 0;
  faulted = 0;
  /** The rule's own generator, drawn only for requests it selects. */
  readonly nextRandom: () => number;

  constructor(
    readonly id: string,
    readonly spec: FaultRuleSpec,
  ) {
    this.nextRandom = seededRandom(spec.seed);
  }

  view(): FaultRuleView {
    return { id: this.id, rule: describeFaultRule(this.spec), matched: this.matched, faulted: this.faulted };
  }
}

/** The library's handle on a server's fault rules (`twin.faults`), the same as the HTTP routes. */
export interface Faults {
  /** Installs a rule; throws an Error naming the bad member. */
  add(rule: FaultRuleInput): FaultRuleView;
  list(): FaultRuleView[];
  /** Removes one rule; undefined when there is none with that id. */
  remove(id: string): FaultRuleView | undefined;
  /** Removes every rule; answers how many there were. */
  clear(): number;
}

export class FaultRegistry implements Faults {
  readonly #clock: Clock;
  readonly #operationNames: ReadonlySet<string>;
  readonly #rules: InstalledRule[] = [];
  #installed = 0;

  constructor(clock: Clock, operationNames: Iterable<string>) {
    this.#clock = clock;
    this.#operationNames = new Set(operationNames);
  }

  /** No rule installed: the request handler skips the decision. */
  get empty(): boolean {
    return this.#rules.length === 0;
  }

  /** Installs a rule from its JSON form (throws InspectionError 400 naming a bad member). */
  add(body: FaultRuleInput | unknown): FaultRuleView {
    if (this.#rules.length >= FAULT_RULES_MAX) throw new InspectionError(400, `at most ${FAULT_RULES_MAX} fault rules can be installed at once; DELETE some first`);
    const number = ++this.#installed;
    // Without a seed, the rule's number: a run installing the same rules repeats itself.
    const spec = parseFaultRule(body, this.#operationNames, number);
    const rule = new InstalledRule(`fault-${number}`, spec);
    this.#rules.push(rule);
    return rule.view();
  }

  list(): FaultRuleView[] {
    return this.#rules.map((rule) => rule.view());
  }

  get(id: string): FaultRuleView | undefined {
    return this.#rules.find((rule) => rule.id === id)?.view();
  }

  remove(id: string): FaultRuleView | undefined {
    const at = this.#rules.findIndex((rule) => rule.id === id);
    if (at < 0) return undefined;
    const [removed] = this.#rules.splice(at, 1);
    return removed!.view();
  }

  /** Removes every rule; answers how many there were. */
  clear(): number {
    const count = this.#rules.length;
    this.#rules.length = 0;
    return count;
  }

  /**
   * Whether a rule faults this request. `input` is the request's JSON body, `tables` the tables its
   * operation declares it touches (Operation.tables, PartiQL included). Rules are asked in the order they
   * were installed; the first that faults the request decides, later ones do not see it.
   */
  decide(operation: string, input: unknown, tables: string | readonly string[] | undefined): FaultDecision | undefined {
    if (this.#rules.length === 0) return undefined;
    const nowMs = this.#clock.nowMs();
    let facts: RequestFacts | undefined;
    for (const rule of this.#rules) {
      const spec = rule.spec;
      if (spec.maxFaults !== undefined && rule.faulted >= spec.maxFaults) continue;
      if (spec.fromMs !== undefined && nowMs < spec.fromMs) continue;
      if (spec.untilMs !== undefined && nowMs >= spec.untilMs) continue;
      if (spec.operations !== undefined && !spec.operations.includes(operation)) continue;
      facts ??= requestFacts(input, tables);
      if (!selects(spec, facts)) continue;
      rule.matched++;
      if (rule.matched % spec.everyNth !== 0) continue;
      if (spec.probability < 1 && rule.nextRandom() >= spec.probability) continue;
      rule.faulted++;
      return {
        ruleId: rule.id,
        latencyMs: spec.latencyMs ?? 0,
        error: spec.error === undefined ? undefined : faultError(spec.error, operation, input),
      };
    }
    return undefined;
  }
}

/** What rules look at in a request, read from its JSON body once. */
interface RequestFacts {
  readonly tables: readonly string[];
  readonly index: string | undefined;
  readonly consistentRead: boolean;
  /** Keys and items the request names (GetItem's Key, PutItem's Item, batch and transaction entries). */
  readonly keyed: readonly Record<string, unknown>[];
  /** Values a Query's key condition or a statement's parameters compare with (no attribute names). */
  readonly values: readonly unknown[];
}

function selects(spec: FaultRuleSpec, facts: RequestFacts): boolean {
  if (spec.table !== undefined && !facts.tables.includes(spec.table)) return false;
  if (spec.index !== undefined && facts.index !== spec.index) return false;
  if (spec.consistentRead !== undefined && facts.consistentRead !== spec.consistentRead) return false;
  if (spec.key !== undefined && !keySelected(spec.key, facts)) return false;
  return true;
}

function keySelected(key: Readonly<Record<string, FaultKeyValue>>, facts: RequestFacts): boolean {
  const entries = Object.entries(key);
  for (const candidate of facts.keyed) {
    if (entries.every(([name, value]) => valueEquals(Object.hasOwn(candidate, name) ? candidate[name] : undefined, value))) return true;
  }
  return facts.values.length > 0 && entries.every(([, value]) => facts.values.some((candidate) => valueEquals(candidate, value)));
}

function valueEquals(candidate: unknown, wanted: FaultKeyValue): boolean {
  if (typeof candidate !== 'object' || candidate === null) return false;
  const given = candidate as Record<string, unknown>;
  if ('S' in wanted) return given['S'] === wanted.S;
  if ('B' in wanted) return given['B'] === wanted.B;
  const number = given['N'];
  if (typeof number !== 'string') return false;
  try {
    return canonicalizeNumber(number) === wanted.N;
  } catch {
    return false;
  }
}

function requestFacts(input: unknown, tables: string | readonly string[] | undefined): RequestFacts {
  const body = isObject(input) ? input : {};
  const keyed: Record<string, unknown>[] = [];
  const values: unknown[] = [];
  let consistentRead = body['ConsistentRead'] === true;
  pushObject(keyed, body['Key']);
  pushObject(keyed, body['Item']);
  const requestItems = body['RequestItems'];
  if (isObject(requestItems)) {
    for (const entry of Object.values(requestItems)) {
      if (Array.isArray(entry)) {
        // BatchWriteItem: [{PutRequest: {Item}}, {DeleteRequest: {Key}}]
        for (const request of entry) {
          if (!isObject(request)) continue;
          if (isObject(request['PutRequest'])) pushObject(keyed, request['PutRequest']['Item']);
          if (isObject(request['DeleteRequest'])) pushObject(keyed, request['DeleteRequest']['Key']);
        }
      } else if (isObject(entry)) {
        // BatchGetItem: {Keys: [...], ConsistentRead}
        if (entry['ConsistentRead'] === true) consistentRead = true;
        if (Array.isArray(entry['Keys'])) for (const key of entry['Keys']) pushObject(keyed, key);
      }
    }
  }
  const transactItems = body['TransactItems'];
  if (Array.isArray(transactItems)) {
    for (const item of transactItems) {
      if (!isObject(item)) continue;
      for (const action of Object.values(item)) {
        if (!isObject(action)) continue;
        pushObject(keyed, action['Key']);
        pushObject(keyed, action['Item']);
      }
    }
  }
  // Query: the key condition's values (by name with the legacy KeyConditions, by value otherwise).
  const keyConditions = body['KeyConditions'];
  if (isObject(keyConditions)) {
    const named: Record<string, unknown> = {};
    for (const [name, condition] of Object.entries(keyConditions)) {
      if (isObject(condition) && condition['ComparisonOperator'] === 'EQ' && Array.isArray(condition['AttributeValueList'])) setOwn(named, name, condition['AttributeValueList'][0]);
    }
    keyed.push(named);
  }
  if (typeof body['KeyConditionExpression'] === 'string' && isObject(body['ExpressionAttributeValues'])) values.push(...Object.values(body['ExpressionAttributeValues']));
  if (Array.isArray(body['Parameters'])) values.push(...body['Parameters']);
  return {
    tables: tables === undefined ? [] : typeof tables === 'string' ? [tables] : [...tables],
    index: typeof body['IndexName'] === 'string' ? body['IndexName'] : undefined,
    consistentRead,
    keyed,
    values,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pushObject(list: Record<string, unknown>[], value: unknown): void {
  if (isObject(value)) list.push(value);
}

/** DynamoDB's 503 (a fault's, and a closing server's answer to what it no longer runs: request-gate.ts). */
export function serviceUnavailable(): DynamoError {
  return new DynamoError(DYNAMODB_NAMESPACE + 'ServiceUnavailable', SERVICE_UNAVAILABLE_MESSAGE, { statusCode: 503 });
}

/** DynamoDB's answer for each fault error (status, __type, message). */
export function faultError(name: FaultErrorName, operation: string, input: unknown): DynamoError {
  switch (name) {
    case 'InternalServerError':
      return internalError();
    case 'ServiceUnavailable':
      return serviceUnavailable();
    case 'ThrottlingException':
      return new DynamoError(AVAILABILITY_NAMESPACE + 'ThrottlingException', THROTTLING_MESSAGE);
    case 'RequestLimitExceeded':
      return dynamoError('RequestLimitExceeded', REQUEST_LIMIT_EXCEEDED_MESSAGE);
    case 'ProvisionedThroughputExceededException':
      return dynamoError('ProvisionedThroughputExceededException', PROVISIONED_TABLE_MESSAGE);
    case 'TransactionConflictException':
      return TRANSACTION_OPERATIONS.has(operation) ? conflictCancellation(operation, input) : transactionConflict();
  }
}

/** A transaction that meets another on its first item is cancelled with that item's reason. */
function conflictCancellation(operation: string, input: unknown): DynamoError {
  const body = isObject(input) ? input : {};
  const list = operation === 'ExecuteTransaction' ? body['TransactStatements'] : body['TransactItems'];
  const count = Array.isArray(list) && list.length > 0 ? list.length : 1;
  const reasons: CancellationReason[] = [{ Code: 'TransactionConflict', Message: TRANSACTION_CONFLICT_MESSAGE }];
  for (let at = 1; at < count; at++) reasons.push(NO_REASON);
  return transactionCanceled(reasons);
}
