/**
 * ExecuteStatement's NextToken: where a multi-item SELECT stopped — which of its reads (a SELECT
 * may be several Queries) and that read's LastEvaluatedKey — bound to the request by a hash of
 * the statement and its parameters, so a token cannot continue a different statement.
 * Opaque to clients (base64 JSON), as DynamoDB's is.
 */
import { createHash } from 'node:crypto';
import { validationError } from '../errors.js';
import type { AttributeMap, AttributeValue } from '../model/attribute-value.js';
import { MESSAGES } from './errors.js';

export interface PageState {
  /** Index of the read to continue. */
  readonly part: number;
  /** Its ExclusiveStartKey; undefined to start that read from its beginning. */
  readonly startKey: AttributeMap | undefined;
}

interface TokenBody {
  readonly f: string;
  readonly p: number;
  readonly k?: AttributeMap;
}

/** The request a token belongs to. */
export function statementFingerprint(statement: string, parameters: readonly AttributeValue[]): string {
  return createHash('sha256').update(JSON.stringify([statement, parameters])).digest('base64url').slice(0, 22);
}

export function encodeNextToken(fingerprint: string, state: PageState): string {
  const body: TokenBody = { f: fingerprint, p: state.part, ...(state.startKey === undefined ? {} : { k: state.startKey }) };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64');
}

export function decodeNextToken(token: string, fingerprint: string): PageState {
  const body = parseBody(token);
  if (body === undefined) throw validationError(MESSAGES.invalidNextToken);
  if (body.f !== fingerprint) throw validationError(MESSAGES.nextTokenMismatch);
  return { part: body.p, startKey: body.k };
}

function parseBody(token: string): TokenBody | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const body = parsed as Record<string, unknown>;
  if (typeof body.f !== 'string' || !Number.isSafeInteger(body.p) || (body.p as number) < 0) return undefined;
  if (body.k !== undefined && (body.k === null || typeof body.k !== 'object' || Array.isArray(body.k))) return undefined;
  return body as unknown as TokenBody;
}
