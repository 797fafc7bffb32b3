/**
 * TransactWriteItems' ClientRequestToken: a token stays bound to the request that first completed
 * with it for 10 minutes (on the injected clock). Within that window the same request is answered
 * again without being applied again, and a different request is refused with
 * IdempotentParameterMismatchException.
 *
 * Requests are remembered by a fingerprint (a hash of their canonical form), never by their body,
 * and the table is bounded: expired tokens are dropped as new ones arrive, and past `maxEntries`
 * the oldest token is forgotten early (its window was going to end first anyway).
 *
 * Tokens are kept in the store too, put in the same write as the transaction they answer (and
 * removed in the write that drops them), and read back when an engine opens. The SDK retries a
 * transaction whose answer it never got with the token it generated: after kill -9 and a restart,
 * or after the engine was reopened on its store because a disk fault lost later writes
 * (storage/logged.ts DISK FAULTS), a token kept in memory only was forgotten and the retry applied
 * an ADD twice. The store holds exactly the acknowledged writes, so a reopened engine knows
 * exactly the tokens of acknowledged transactions, and none of a refused one.
 *
 * Callers consult and record tokens inside the storage write that applies the transaction, so two
 * identical requests arriving together are serialised: the second sees the first's token.
 */
import { createHash } from 'node:crypto';
import { dynamoError } from '../errors.js';
import type { ReadView, WriteTransaction } from '../storage/storage.js';

/** DynamoDB's idempotency window. */
export const IDEMPOTENCY_WINDOW_MS = 10 * 60 * 1000;
/** Enough for ~16 tokens a second over a whole window; each entry is two short strings. */
export const IDEMPOTENCY_TOKENS_MAX = 10_000;

interface TokenEntry {
  readonly fingerprint: string;
  readonly expiresAtMs: number;
}

/** Tokens' records in the store: the catalog byte, 'i', then the token's UTF-8 (at most 36 characters). */
const CATALOG_BYTE = 0x00;
const TOKEN_TAG = 0x69; // 'i'
const TOKEN_RECORDS_START = Buffer.from([CATALOG_BYTE, TOKEN_TAG]);
const TOKEN_RECORDS_END = Buffer.from([CATALOG_BYTE, TOKEN_TAG + 1]);

function tokenKey(token: string): Buffer {
  return Buffer.concat([TOKEN_RECORDS_START, Buffer.from(token, 'utf8')]);
}

function isTokenEntry(value: object): value is TokenEntry {
  const record = value as Partial<TokenEntry>;
  return typeof record.fingerprint === 'string' && typeof record.expiresAtMs === 'number';
}

export type TokenState = 'new' | 'replay';

export class IdempotencyTokens {
  readonly #entries = new Map<string, TokenEntry>();
  readonly #windowMs: number;
  readonly #maxEntries: number;

  constructor(options: { windowMs?: number; maxEntries?: number } = {}) {
    this.#windowMs = options.windowMs ?? IDEMPOTENCY_WINDOW_MS;
    this.#maxEntries = options.maxEntries ?? IDEMPOTENCY_TOKENS_MAX;
  }

  /**
   * The tokens the store keeps whose window is still open at `nowMs`, in expiry order (the map's
   * order, which #dropExpired and eviction rely on). The store never holds more than maxEntries:
   * every write that adds one past it removes the oldest.
   */
  static load(store: ReadView, nowMs: number, options: { windowMs?: number; maxEntries?: number } = {}): IdempotencyTokens {
    const tokens = new IdempotencyTokens(options);
    const loaded: [string, TokenEntry][] = [];
    for (const { key, value } of store.range({ start: TOKEN_RECORDS_START, end: TOKEN_RECORDS_END })) {
      if (!isTokenEntry(value) || value.expiresAtMs <= nowMs) continue;
      loaded.push([Buffer.from(key.subarray(TOKEN_RECORDS_START.length)).toString('utf8'), { fingerprint: value.fingerprint, expiresAtMs: value.expiresAtMs }]);
    }
    loaded.sort((a, b) => a[1].expiresAtMs - b[1].expiresAtMs);
    for (const [token, entry] of loaded) tokens.#entries.set(token, entry);
    return tokens;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** 'replay' when `token` already completed this request; throws when it completed another one. */
  check(token: string, fingerprint: string, nowMs: number): TokenState {
    const entry = this.#entries.get(token);
    if (entry === undefined || entry.expiresAtMs <= nowMs) return 'new';
    if (entry.fingerprint !== fingerprint) {
      throw dynamoError('IdempotentParameterMismatchException', 'Specified idempotency token has been used with different request parameters');
    }
    return 'replay';
  }

  /**
   * Binds `token` to the request that has just completed with it, in the write `txn` that applied
   * it: the binding is durable exactly when the transaction is, and tokens dropped here (expired,
   * or the oldest past maxEntries) leave the store in the same write.
   */
  record(txn: WriteTransaction, token: string, fingerprint: string, nowMs: number): void {
    this.#dropExpired(txn, nowMs);
    const entry = { fingerprint, expiresAtMs: nowMs + this.#windowMs };
    // Re-inserting moves the token to the end, keeping the map ordered by expiry.
    this.#entries.delete(token);
    this.#entries.set(token, entry);
    txn.put(tokenKey(token), entry);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#forget(txn, oldest);
    }
  }

  /** Entries are in expiry order (one window for all, a clock that never goes back). */
  #dropExpired(txn: WriteTransaction, nowMs: number): void {
    for (const [token, entry] of this.#entries) {
      if (entry.expiresAtMs > nowMs) return;
      this.#forget(txn, token);
    }
  }

  #forget(txn: WriteTransaction, token: string): void {
    this.#entries.delete(token);
    txn.remove(tokenKey(token));
  }
}

/** A fingerprint of a request: SHA-256 of its JSON with object keys sorted, so key order is irrelevant. */
export function requestFingerprint(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map(canonicalJson).join(',') + ']';
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return '{' + keys.map((key) => JSON.stringify(key) + ':' + canonicalJson(record[key])).join(',') + '}';
  }
  return JSON.stringify(value);
}
