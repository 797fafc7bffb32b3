/**
 * Attribute generators: where a scenario's keys and attribute values come from. A spec (parsed
 * from the file) becomes a Generator per variant run, drawing from the run's seeded random source
 * so that a scenario replays exactly. Each generator answers a DynamoDB AttributeValue.
 *
 *   { "sequence": { "start": 1, "prefix": "order#" } }   1, 2, 3 ... (N, or S with a prefix)
 *   { "uuid": {} }                                        a random UUID (S)
 *   { "choice": { "values": ["a", "b"], "weights": [9, 1] } }
 *   { "zipf": { "n": 1000, "s": 1.1, "prefix": "user#" } }  rank 1 is the most frequent
 *   { "uniform": { "min": 1, "max": 100 } }               an integer (N, or S with a prefix)
 *   { "timestamp": { "format": "epochSeconds" } }         the simulated clock (epochSeconds,
 *                                                         epochMillis, iso, date)
 *   { "shard": { "k": 10, "prefix": "UN_USED#" } }         prefix + a random 1..k (S)
 *   { "payload": { "bytes": 1000 } }                      a string of that many bytes (S); a list of
 *                                                         sizes draws one (weights optional)
 *   { "concat": [ {"timestamp": ...}, {"constant": "#"}, {"shard": {"k": 10}} ] }
 *                                                         the parts' values joined (S)
 *   { "constant": "UN_USED" }                             the same value (S, N or BOOL)
 *   { "copy": "id" }                                      the value of another attribute of the item
 */
import type { AttributeValue } from '../model/attribute-value.js';
import { ITEM_SIZE_MAX_BYTES } from '../model/item-size.js';

export type GeneratorSpec =
  | { readonly kind: 'sequence'; readonly start: number; readonly prefix: string | undefined }
  | { readonly kind: 'uuid' }
  | { readonly kind: 'choice'; readonly values: readonly (string | number)[]; readonly cumulativeWeights: readonly number[] }
  | { readonly kind: 'zipf'; readonly n: number; readonly s: number; readonly prefix: string | undefined }
  | { readonly kind: 'uniform'; readonly min: number; readonly max: number; readonly prefix: string | undefined }
  | { readonly kind: 'timestamp'; readonly format: 'epochSeconds' | 'epochMillis' | 'iso' | 'date' }
  | { readonly kind: 'shard'; readonly k: number; readonly prefix: string }
  | { readonly kind: 'payload'; readonly sizes: readonly number[]; readonly cumulativeWeights: readonly number[] }
  | { readonly kind: 'concat'; readonly parts: readonly GeneratorSpec[] }
  | { readonly kind: 'constant'; readonly value: string | number | boolean }
  | { readonly kind: 'copy'; readonly from: string };

export const GENERATOR_KINDS = ['sequence', 'uuid', 'choice', 'zipf', 'uniform', 'timestamp', 'shard', 'payload', 'concat', 'constant', 'copy'] as const;
/** Parts of a concat, at most. */
export const CONCAT_PARTS_MAX = 8;
/** zipf precomputes a table of n weights; a million values is the bound. */
export const ZIPF_VALUES_MAX = 1_000_000;
export const CHOICE_VALUES_MAX = 10_000;
export const SHARDS_MAX = 100_000;

type Fail = (path: string, problem: string) => never;

/** Checks one generator spec (`{ "<kind>": options }`); `fail` throws the path-naming error. */
export function parseGenerator(value: unknown, path: string, fail: Fail): GeneratorSpec {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length !== 1) {
    fail(path, `must be one generator such as {"uuid": {}}; generators: ${GENERATOR_KINDS.join(', ')}`);
  }
  const [kind, options] = Object.entries(value)[0]!;
  const at = `${path}.${kind}`;
  const opts = (): Record<string, unknown> => {
    if (typeof options !== 'object' || options === null || Array.isArray(options)) fail(at, 'must be an object of options');
    return options as Record<string, unknown>;
  };
  const int = (field: string, fallback: number | undefined, min: number, max: number): number => {
    const raw = opts()[field];
    if (raw === undefined && fallback !== undefined) return fallback;
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < min || raw > max) fail(`${at}.${field}`, `must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw) ?? 'nothing'}`);
    return raw;
  };
  const prefix = (required: boolean): string | undefined => {
    const raw = opts().prefix;
    if (raw === undefined && !required) return undefined;
    if (typeof raw !== 'string') fail(`${at}.prefix`, 'must be a string');
    return raw;
  };
  const only = (fields: readonly string[]): void => {
    for (const field of Object.keys(opts())) if (!fields.includes(field)) fail(`${at}.${field}`, `is not an option of ${kind}; options: ${fields.join(', ') || 'none'}`);
  };
  /** The `weights` option (one per choice, >= 0, not all 0; all 1 when absent), summed up. */
  const cumulativeWeights = (count: number, what: string): number[] => {
    const weights = opts().weights ?? new Array<number>(count).fill(1);
    if (!Array.isArray(weights) || weights.length !== count || !weights.every((w) => typeof w === 'number' && Number.isFinite(w) && w >= 0)) {
      fail(`${at}.weights`, `must be a list of ${count} numbers >= 0, one per ${what}`);
    }
    let total = 0;
    const cumulative = (weights as number[]).map((weight) => (total += weight));
    if (total <= 0) fail(`${at}.weights`, 'must not all be 0');
    return cumulative;
  };
  switch (kind) {
    case 'sequence':
      only(['start', 'prefix']);
      return { kind, start: int('start', 1, 0, Number.MAX_SAFE_INTEGER), prefix: prefix(false) };
    case 'uuid':
      only([]);
      return { kind };
    case 'choice': {
      only(['values', 'weights']);
      const values = opts().values;
      if (!Array.isArray(values) || values.length < 1 || values.length > CHOICE_VALUES_MAX || !values.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))) {
        fail(`${at}.values`, `must be a list of 1 to ${CHOICE_VALUES_MAX} strings or numbers`);
      }
      return { kind, values: values as (string | number)[], cumulativeWeights: cumulativeWeights(values.length, 'value') };
    }
    case 'zipf': {
      only(['n', 's', 'prefix']);
      const s = opts().s ?? 1;
      if (typeof s !== 'number' || !(s > 0) || s > 10) fail(`${at}.s`, 'must be a number above 0 and at most 10');
      return { kind, n: int('n', undefined, 1, ZIPF_VALUES_MAX), s, prefix: prefix(false) };
    }
    case 'uniform': {
      only(['min', 'max', 'prefix']);
      const min = int('min', 0, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
      return { kind, min, max: int('max', undefined, min, Number.MAX_SAFE_INTEGER), prefix: prefix(false) };
    }
    case 'timestamp': {
      only(['format']);
      const format = opts().format ?? 'epochSeconds';
      if (format !== 'epochSeconds' && format !== 'epochMillis' && format !== 'iso' && format !== 'date') {
        fail(`${at}.format`, `must be epochSeconds, epochMillis, iso or date, got ${JSON.stringify(format)}`);
      }
      return { kind, format };
    }
    case 'shard':
      only(['k', 'prefix']);
      return { kind, k: int('k', undefined, 1, SHARDS_MAX), prefix: prefix(false) ?? '' };
    case 'payload': {
      only(['bytes', 'weights']);
      const raw = opts().bytes;
      // Up to twice DynamoDB's item limit, so a scenario can show the items that fail at 400 KB.
      const sizes = Array.isArray(raw) ? raw : [raw];
      if (sizes.length < 1 || sizes.length > CHOICE_VALUES_MAX || !sizes.every((size) => typeof size === 'number' && Number.isInteger(size) && size >= 1 && size <= 2 * ITEM_SIZE_MAX_BYTES)) {
        fail(`${at}.bytes`, `must be a whole number from 1 to ${2 * ITEM_SIZE_MAX_BYTES}, or a list of them`);
      }
      return { kind, sizes: sizes as number[], cumulativeWeights: cumulativeWeights(sizes.length, 'size') };
    }
    case 'concat': {
      if (!Array.isArray(options) || options.length < 1 || options.length > CONCAT_PARTS_MAX) fail(at, `must be a list of 1 to ${CONCAT_PARTS_MAX} generators`);
      const parts = (options as unknown[]).map((part, index) => parseGenerator(part, `${at}[${index}]`, fail));
      if (parts.some((part) => part.kind === 'copy' || part.kind === 'payload')) fail(at, 'parts must not be copy or payload generators');
      return { kind, parts };
    }
    case 'constant':
      if (typeof options !== 'string' && typeof options !== 'boolean' && !(typeof options === 'number' && Number.isFinite(options))) {
        fail(at, 'must be a string, number or boolean');
      }
      if (options === '') fail(at, 'must not be an empty string (DynamoDB refuses empty key values)');
      return { kind, value: options };
    case 'copy':
      if (typeof options !== 'string' || options === '') fail(at, 'must name another attribute of the item');
      return { kind, from: options };
    default:
      return fail(path, `'${kind}' is not a generator; generators: ${GENERATOR_KINDS.join(', ')}`);
  }
}

/** The seeded random source of one run (mulberry32: small, fast, good enough for load shapes). */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** 32 random bits. */
  bits(): number {
    return Math.floor(this.next() * 4294967296);
  }
}

/** Draws one value; `item` holds the attributes drawn so far (for copy). */
export type Generator = (nowMs: number, item: Readonly<Record<string, AttributeValue>>) => AttributeValue;

/** A generator instance for one run: sequences count from their start, zipf tables are built once. */
export function createGenerator(spec: GeneratorSpec, random: Random): Generator {
  switch (spec.kind) {
    case 'sequence': {
      let next = spec.start;
      const prefix = spec.prefix;
      return prefix === undefined ? () => ({ N: String(next++) }) : () => ({ S: prefix + String(next++) });
    }
    case 'uuid':
      return () => ({ S: uuid(random) });
    case 'choice': {
      const values = spec.values.map(attributeOf);
      const cumulative = spec.cumulativeWeights;
      const total = cumulative[cumulative.length - 1]!;
      return () => values[search(cumulative, random.next() * total)]!;
    }
    case 'zipf': {
      const cumulative = zipfTable(spec.n, spec.s);
      const prefix = spec.prefix;
      return () => {
        const rank = search(cumulative, random.next() * cumulative[cumulative.length - 1]!) + 1;
        return prefix === undefined ? { N: String(rank) } : { S: prefix + String(rank) };
      };
    }
    case 'uniform': {
      const span = spec.max - spec.min + 1;
      const prefix = spec.prefix;
      return () => {
        const value = spec.min + Math.floor(random.next() * span);
        return prefix === undefined ? { N: String(value) } : { S: prefix + String(value) };
      };
    }
    case 'timestamp':
      return (nowMs) => timestampOf(spec.format, nowMs);
    case 'shard':
      return () => ({ S: spec.prefix + String(1 + Math.floor(random.next() * spec.k)) });
    case 'payload': {
      // Items of one size share one text: only the size matters to capacity.
      const values = spec.sizes.map((bytes) => ({ S: 'x'.repeat(bytes) }));
      if (values.length === 1) return () => values[0]!;
      const cumulative = spec.cumulativeWeights;
      const total = cumulative[cumulative.length - 1]!;
      return () => values[search(cumulative, random.next() * total)]!;
    }
    case 'concat': {
      const parts = spec.parts.map((part) => createGenerator(part, random));
      return (nowMs, item) => {
        let text = '';
        for (const part of parts) text += scalarOf(part(nowMs, item));
        return { S: text };
      };
    }
    case 'constant': {
      const value = attributeOf(spec.value);
      return () => value;
    }
    case 'copy': {
      const from = spec.from;
      return (_nowMs, item) => {
        const value = item[from];
        if (value === undefined) throw new Error(`copy: attribute '${from}' is not drawn before this one`);
        return value;
      };
    }
  }
}

function scalarOf(value: AttributeValue): string {
  if ('S' in value) return value.S;
  if ('N' in value) return value.N;
  if ('BOOL' in value) return String(value.BOOL);
  return '';
}

function attributeOf(value: string | number | boolean): AttributeValue {
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number') return { N: String(value) };
  return { BOOL: value };
}

export function timestampOf(format: 'epochSeconds' | 'epochMillis' | 'iso' | 'date', nowMs: number): AttributeValue {
  switch (format) {
    case 'epochSeconds':
      return { N: String(Math.floor(nowMs / 1000)) };
    case 'epochMillis':
      return { N: String(nowMs) };
    case 'iso':
      return { S: new Date(nowMs).toISOString() };
    case 'date':
      return { S: new Date(nowMs).toISOString().slice(0, 10) };
  }
}

/** Two hex digits per byte value, so a UUID is 16 table lookups. */
const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** A version-4 UUID from the run's random source (so runs replay). */
function uuid(random: Random): string {
  const a = random.bits();
  const b = random.bits();
  const c = random.bits();
  const d = random.bits();
  const h = HEX_BYTES;
  return (
    h[a >>> 24]! + h[(a >>> 16) & 255]! + h[(a >>> 8) & 255]! + h[a & 255]! + '-' +
    h[b >>> 24]! + h[(b >>> 16) & 255]! + '-' +
    h[0x40 | ((b >>> 8) & 15)]! + h[b & 255]! + '-' +
    h[0x80 | ((c >>> 24) & 63)]! + h[(c >>> 16) & 255]! + '-' +
    h[(c >>> 8) & 255]! + h[c & 255]! + h[d >>> 24]! + h[(d >>> 16) & 255]! + h[(d >>> 8) & 255]! + h[d & 255]!
  );
}

/** Cumulative weights 1/k^s for ranks 1..n. */
function zipfTable(n: number, s: number): Float64Array {
  const table = new Float64Array(n);
  let total = 0;
  for (let rank = 1; rank <= n; rank++) table[rank - 1] = total += 1 / Math.pow(rank, s);
  return table;
}

/** The first index whose cumulative weight exceeds `target`. */
function search(cumulative: ArrayLike<number>, target: number): number {
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (cumulative[middle]! > target) high = middle;
    else low = middle + 1;
  }
  return low;
}
