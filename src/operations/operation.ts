/**
 * The contract every DynamoDB operation file fulfils: validate → plan → apply → respond.
 *
 * - `members` is the request shape (src/operations/shape.ts), checked before `validate` runs.
 * - `validate` is pure: from the checked input it builds the typed request or throws DynamoDB's
 *   ValidationException. It reads no table and no clock.
 * - `execute` resolves tables, plans the work (keys, sizes), applies it through the engine and
 *   returns the response body.
 */
import { crc32 } from 'node:zlib';
import type { Engine } from '../engine/engine.js';
import type { ExpressionCache } from '../expressions/cache.js';
import { JsonText, type EncodedText } from '../model/encoded-text.js';
import type { Member } from './shape.js';

/**
 * What `validate` may consult besides its input. The expression cache only saves re-parsing: a
 * cached parse gives the same result and the same errors, so `validate` stays a pure function.
 */
export interface ValidationContext {
  readonly expressions: ExpressionCache;
  /**
   * The Host header the client sent, given only to the operations that name the address the
   * client used (DescribeEndpoints); absent elsewhere, so other requests allocate no context.
   */
  readonly host?: string;
}

export { JsonText } from '../model/encoded-text.js';

/**
 * `text`'s UTF-8 bytes and their CRC32, for an answer kept and sent many times (GetItem's, per
 * stored item): sent as bytes, it is neither flattened, measured, checksummed nor UTF-8 encoded
 * again per request (~13% of a 1 KB GetItem's server CPU, perf). The bytes have their own memory,
 * not a slice of Buffer's shared pool, which a kept slice would pin.
 */
export function encodeText(text: string): EncodedText {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
  bytes.write(text, 0, 'utf8');
  // As text once: a number header value is converted per request, twice (validation, header block).
  return { bytes, lengthText: String(bytes.length), crc32Text: String(crc32(bytes)) };
}

/** What `execute` answered, as an object (a JsonText's object form). */
export function responseBody(result: object): object {
  return result instanceof JsonText ? result.body : result;
}

export interface Operation<Request> {
  readonly name: string;
  readonly members: Readonly<Record<string, Member>>;
  validate(input: Record<string, unknown>, context: ValidationContext): Request;
  execute(engine: Engine, request: Request): Promise<object> | object;
  /**
   * The tables a validated request touches, for the request metrics: the name itself for a
   * single-table operation (no allocation on the hot path), distinct names for the others.
   * Operations without per-table metrics (the control plane) leave it out.
   */
  tables?(request: Request): string | readonly string[];
}

/** Erases the request type so operations of different requests share one registry. */
export type AnyOperation = Operation<never> & {
  validate(input: Record<string, unknown>, context: ValidationContext): unknown;
  execute(engine: Engine, request: unknown): Promise<object> | object;
  tables?(request: unknown): string | readonly string[];
};

/** The distinct names of `names`, in first-seen order. */
export function distinctTables(names: Iterable<string>): string[] {
  return [...new Set(names)];
}

export function defineOperation<Request>(operation: Operation<Request>): AnyOperation {
  return operation as unknown as AnyOperation;
}
