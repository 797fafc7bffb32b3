/**
 * TransactWriteItems' ClientRequestToken: a token stays bound to the request that first completed
 * with it for 10 minutes (on the injected clock). Within that window the same request is answered
 * again without being applied again, and a different request is refused with
 * IdempotentParameterMismatchException.
 *
 * Requests are remembered by a fingerprint (a hash of their canonical form), never by their body,
 * and the table is bounded: expired tokens are dropped as new ones arrive, and past `maxEntries`
 * the oldest token is forgotten early (its window was going to end first anyway). Tokens live in
 * memory only; a restart forgets them, as a restart of DynamoDB's front end never would — an
 * accepted deviation, documented in the report of issue 5.
 *
 * Callers consult and record tokens inside the storage write that applies the transaction, so two
 * identical requests arriving together are serialised: the second sees the first's token.
 */
import { createHash } from 'node:crypto';
import { dynamoError } from '../errors.js';

/** DynamoDB's idempotency window. */
export const IDEMPOTENCY_WINDOW_MS = 10 * 60 * 1000;
/** Enough for ~16 tokens a second over a whole window; each entry is two short strings. */
export const IDEMPOTENCY_TOKENS_MAX = 10_000;

interface TokenEntry {
  readonly fingerprint: string;
  readonly expiresAtMs: number;
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

  /** Binds `token` to the request that has just completed with it. */
  record(token: string, fingerprint: string, nowMs: number): void {
    this.#dropExpired(nowMs);
    // Re-inserting moves the token to the end, keeping the map ordered by expiry.
    this.#entries.delete(token);
    this.#entries.set(token, { fingerprint, expiresAtMs: nowMs + this.#windowMs });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(oldest);
    }
  }

  /** Entries are in expiry order (one window for all, a clock that never goes back). */
  #dropExpired(nowMs: number): void {
    for (const [token, entry] of this.#entries) {
      if (entry.expiresAtMs > nowMs) return;
      this.#entries.delete(token);
    }
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
