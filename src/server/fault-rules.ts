/**
 * Fault rules: what a user asks dynatwin to break on purpose (POST /dynatwin/faults, or
 * `twin.faults.add()`), parsed and checked. Pure: no clock, no registry, no request.
 *
 * A rule selects requests (operation, table, index, ConsistentRead, key, a server-clock window),
 * thins the selection (every Nth, a probability, at most N faults) and says what happens to the
 * selected ones: one of DynamoDB's retryable errors, or a real-time delay, or both (delay, then
 * the error). Every bad member is refused with a 400 naming it.
 */
import { canonicalizeNumber } from '../model/numbers.js';
import { InspectionError } from './inspection.js';
import { setOwn } from '../model/own-members.js';

/** The errors a rule can answer with, as DynamoDB sends them (see FAULT_ERRORS). */
export const FAULT_ERROR_NAMES = [
  'InternalServerError',
  'ServiceUnavailable',
  'ThrottlingException',
  'RequestLimitExceeded',
  'ProvisionedThroughputExceededException',
  'TransactionConflictException',
] as const;
export type FaultErrorName = (typeof FAULT_ERROR_NAMES)[number];

/** A delay is real time (it is what a client's timeout sees), so it is bounded: 10 s. */
export const FAULT_LATENCY_MS_MAX = 10_000;
/** Rules installed at once. */
export const FAULT_RULES_MAX = 100;
/** Key attributes a rule may name (a table and an index key have at most two each). */
const FAULT_KEY_ATTRIBUTES_MAX = 4;
const EVERY_NTH_MAX = 1_000_000_000;
const SEED_MAX = 0xffff_ffff;
const NAME_LENGTH_MAX = 255;

/** One key attribute value: a key is S, N or B. */
export type FaultKeyValue = { readonly S: string } | { readonly N: string } | { readonly B: string };

/** A rule as a library user writes it (`twin.faults.add(...)`); the JSON body of POST /dynatwin/faults. */
export interface FaultRuleInput {
  readonly preset?: 'consistent-read-500s';
  /** One operation name (X-Amz-Target's, e.g. "GetItem") or several; default all. */
  readonly operation?: string | readonly string[];
  readonly table?: string;
  readonly index?: string;
  readonly consistentRead?: boolean;
  /** e.g. `{ pk: { S: 'user#1' } }`: requests whose key or item has these values. */
  readonly key?: Readonly<Record<string, FaultKeyValue>>;
  /** Default 1 (every selected request). */
  readonly everyNth?: number;
  /** Default 1. */
  readonly probability?: number;
  readonly maxFaults?: number;
  /** Server clock, epoch ms: the rule applies while fromMs <= now < untilMs. */
  readonly fromMs?: number;
  readonly untilMs?: number;
  readonly error?: FaultErrorName;
  /** Real-time delay, 1 to 10,000 ms. */
  readonly latencyMs?: number;
  /** Seed of the rule's generator; default the rule's number. */
  readonly seed?: number;
}

/** A rule as installed (defaults applied), without its counters. */
export interface FaultRuleSpec {
  /** Operations it applies to (X-Amz-Target names); undefined: all. */
  readonly operations: readonly string[] | undefined;
  readonly table: string | undefined;
  readonly index: string | undefined;
  /** true: only strongly consistent reads; false: only requests that are not. */
  readonly consistentRead: boolean | undefined;
  /** Attributes every one of which a request's key (or item) must carry with these values. */
  readonly key: Readonly<Record<string, FaultKeyValue>> | undefined;
  /** Fault every Nth selected request (the Nth, 2Nth ...); 1 = every one. */
  readonly everyNth: number;
  /** Of those, fault each with this probability (the registry's seeded generator decides). */
  readonly probability: number;
  /** Stop after this many faults; undefined: never. */
  readonly maxFaults: number | undefined;
  /** The window on the server's clock: fromMs <= now < untilMs. */
  readonly fromMs: number | undefined;
  readonly untilMs: number | undefined;
  readonly error: FaultErrorName | undefined;
  /** Real milliseconds to hold the request before running (or failing) it. */
  readonly latencyMs: number | undefined;
  /** Seed of this rule's generator (the same rules and requests fault the same requests). */
  readonly seed: number;
  /** The preset it was made from, if any. */
  readonly preset: string | undefined;
}

/**
 * Presets: rules AWS's documentation warns about, by name. Their members can be overridden by the
 * body's own (e.g. `{"preset": "consistent-read-500s", "probability": 1}`).
 */
export const FAULT_PRESETS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  // A strongly consistent read needs the partition's leader; during an outage or network delay
  // DynamoDB may answer it with a 500 where an eventually consistent read would succeed.
  'consistent-read-500s': { consistentRead: true, error: 'InternalServerError', probability: 0.05 },
};

const MEMBERS = [
  'preset',
  'operation',
  'table',
  'index',
  'consistentRead',
  'key',
  'everyNth',
  'probability',
  'maxFaults',
  'fromMs',
  'untilMs',
  'error',
  'latencyMs',
  'seed',
] as const;

const EXAMPLE = '{"operation": "GetItem", "table": "orders", "error": "InternalServerError", "probability": 0.5}';

function bad(message: string): InspectionError {
  return new InspectionError(400, message);
}

/**
 * Parses a rule body. `operationNames` are the operations the server knows (a misspelt name must
 * not install a rule that never fires); `defaultSeed` is used when the body has no `seed`.
 */
export function parseFaultRule(body: unknown, operationNames: ReadonlySet<string>, defaultSeed: number): FaultRuleSpec {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad(`the body must be a JSON object (a fault rule), e.g. ${EXAMPLE}`);
  }
  const given = body as Record<string, unknown>;
  for (const name of Object.keys(given)) {
    if (!(MEMBERS as readonly string[]).includes(name)) throw bad(`unknown member ${JSON.stringify(name)}; a fault rule has: ${MEMBERS.join(', ')}`);
  }
  let preset: string | undefined;
  let members: Record<string, unknown> = given;
  if (given['preset'] !== undefined) {
    const name = given['preset'];
    if (typeof name !== 'string' || !Object.hasOwn(FAULT_PRESETS, name)) {
      throw bad(`preset must be one of: ${Object.keys(FAULT_PRESETS).join(', ')}`);
    }
    preset = name;
    members = { ...FAULT_PRESETS[name], ...given };
  }
  const error = errorOf(members['error']);
  const latencyMs = optionalInteger(members['latencyMs'], 'latencyMs', 1, FAULT_LATENCY_MS_MAX, 'milliseconds of real time');
  if (error === undefined && latencyMs === undefined) {
    throw bad(`a fault rule needs error (${FAULT_ERROR_NAMES.join(', ')}) or latencyMs, or both`);
  }
  const fromMs = optionalInteger(members['fromMs'], 'fromMs', 0, Number.MAX_SAFE_INTEGER, 'epoch milliseconds on the server clock');
  const untilMs = optionalInteger(members['untilMs'], 'untilMs', 0, Number.MAX_SAFE_INTEGER, 'epoch milliseconds on the server clock');
  if (fromMs !== undefined && untilMs !== undefined && untilMs <= fromMs) throw bad('untilMs must be after fromMs (the window is fromMs <= now < untilMs)');
  const probability = members['probability'] ?? 1;
  if (typeof probability !== 'number' || !Number.isFinite(probability) || probability <= 0 || probability > 1) {
    throw bad(`probability must be a number greater than 0 and at most 1 (got ${JSON.stringify(probability)})`);
  }
  return {
    operations: operationsOf(members['operation'], operationNames),
    table: optionalName(members['table'], 'table'),
    index: optionalName(members['index'], 'index'),
    consistentRead: optionalBoolean(members['consistentRead'], 'consistentRead'),
    key: keyOf(members['key']),
    everyNth: optionalInteger(members['everyNth'], 'everyNth', 1, EVERY_NTH_MAX, 'a count of requests') ?? 1,
    probability,
    maxFaults: optionalInteger(members['maxFaults'], 'maxFaults', 1, Number.MAX_SAFE_INTEGER, 'a count of faults'),
    fromMs,
    untilMs,
    error,
    latencyMs,
    seed: optionalInteger(members['seed'], 'seed', 0, SEED_MAX, 'an unsigned 32-bit integer') ?? defaultSeed,
    preset,
  };
}

function errorOf(value: unknown): FaultErrorName | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(FAULT_ERROR_NAMES as readonly string[]).includes(value)) {
    throw bad(`error must be one of: ${FAULT_ERROR_NAMES.join(', ')} (got ${JSON.stringify(value)})`);
  }
  return value as FaultErrorName;
}

function operationsOf(value: unknown, known: ReadonlySet<string>): readonly string[] | undefined {
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || list.length > known.size) {
    throw bad('operation must be an operation name (e.g. "GetItem") or a non-empty list of them');
  }
  for (const name of list) {
    if (typeof name !== 'string' || !known.has(name)) {
      throw bad(`operation ${JSON.stringify(name)} is not an operation dynatwin serves; known: ${[...known].sort().join(', ')}`);
    }
  }
  return [...new Set(list as string[])];
}

function optionalName(value: unknown, member: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > NAME_LENGTH_MAX) {
    throw bad(`${member} must be a non-empty string of at most ${NAME_LENGTH_MAX} characters`);
  }
  return value;
}

function optionalBoolean(value: unknown, member: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw bad(`${member} must be true or false`);
  return value;
}

function optionalInteger(value: unknown, member: string, min: number, max: number, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw bad(`${member} must be an integer from ${min} to ${max} (${what}); got ${JSON.stringify(value)}`);
  }
  return value;
}

function keyOf(value: unknown): Readonly<Record<string, FaultKeyValue>> | undefined {
  if (value === undefined) return undefined;
  const example = 'e.g. {"pk": {"S": "user#1"}}';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad(`key must be an object of key attributes, ${example}`);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0 || entries.length > FAULT_KEY_ATTRIBUTES_MAX) {
    throw bad(`key must name 1 to ${FAULT_KEY_ATTRIBUTES_MAX} attributes, ${example}`);
  }
  const key: Record<string, FaultKeyValue> = {};
  for (const [name, attribute] of entries) {
    const where = `key.${name}`;
    if (name.length === 0 || name.length > NAME_LENGTH_MAX) throw bad(`key attribute names must be 1 to ${NAME_LENGTH_MAX} characters`);
    if (typeof attribute !== 'object' || attribute === null || Array.isArray(attribute)) throw bad(`${where} must be an AttributeValue of type S, N or B, ${example}`);
    const types = Object.keys(attribute);
    const type = types[0];
    const raw = (attribute as Record<string, unknown>)[type ?? ''];
    if (types.length !== 1 || (type !== 'S' && type !== 'N' && type !== 'B') || typeof raw !== 'string') {
      throw bad(`${where} must be an AttributeValue of type S, N or B (a key attribute), ${example}`);
    }
    if (type === 'N') {
      let canonical: string;
      try {
        canonical = canonicalizeNumber(raw);
      } catch {
        throw bad(`${where}.N must be a number in a string`);
      }
      setOwn(key, name, { N: canonical });
    } else {
      setOwn(key, name, type === 'S' ? { S: raw } : { B: raw });
    }
  }
  return key;
}

/** A rule's members as GET /dynatwin/faults lists them (the body that would install it again). */
export function describeFaultRule(spec: FaultRuleSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (spec.preset !== undefined) out['preset'] = spec.preset;
  if (spec.operations !== undefined) out['operation'] = spec.operations.length === 1 ? spec.operations[0] : spec.operations;
  if (spec.table !== undefined) out['table'] = spec.table;
  if (spec.index !== undefined) out['index'] = spec.index;
  if (spec.consistentRead !== undefined) out['consistentRead'] = spec.consistentRead;
  if (spec.key !== undefined) out['key'] = spec.key;
  out['everyNth'] = spec.everyNth;
  out['probability'] = spec.probability;
  if (spec.maxFaults !== undefined) out['maxFaults'] = spec.maxFaults;
  if (spec.fromMs !== undefined) out['fromMs'] = spec.fromMs;
  if (spec.untilMs !== undefined) out['untilMs'] = spec.untilMs;
  if (spec.error !== undefined) out['error'] = spec.error;
  if (spec.latencyMs !== undefined) out['latencyMs'] = spec.latencyMs;
  out['seed'] = spec.seed;
  return out;
}
