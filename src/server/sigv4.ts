/**
 * Signature Version 4 verification (`--auth verify`): the request must be signed with a secret
 * dynatwin knows (credentials.ts), within 5 minutes of the server's clock, by the service the
 * endpoint answers for. Both forms AWS accepts: the Authorization header, and the query string
 * (a presigned URL: X-Amz-Algorithm, X-Amz-Credential, X-Amz-Date, X-Amz-SignedHeaders,
 * X-Amz-Signature, optionally X-Amz-Expires and X-Amz-Security-Token).
 *
 * The canonical request is rebuilt from the request as received: the method; the path as sent,
 * normalised and URI-encoded again as AWS's SDKs do for every service but S3; the query string
 * decoded, re-encoded (RFC 3986) and sorted, without X-Amz-Signature; each signed header's values
 * trimmed, inner whitespace collapsed and joined with ','; the signed header list; and the SHA-256
 * of the body bytes as they arrived (compressed, when the body was: the signature covers what was
 * sent), never `UNSIGNED-PAYLOAD` (S3's option only). The signature must cover `host` and every
 * `x-amz-*` header the request carries but x-amz-content-sha256.
 *
 * Order of the checks, each with DynamoDB's error (texts and their sources: docs/CONFORMANCE.md):
 * the form's shape (auth.ts, as in `--auth any`), the time when the date reads (expired / not yet
 * current: InvalidSignatureException, whatever the key), the credential's shape, the key (unknown:
 * UnrecognizedClientException), the session token, the scope's service, terminator and date, the
 * headers signed, and last the signature. The region is not checked: a local endpoint answers for
 * whatever region its clients name.
 *
 * node:crypto only; no state but the credentials and the clock; O(size of the headers) plus the
 * body hash, which the caller computes as the bytes arrive.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../clock.js';
import { coralServiceError, type DynamoError } from '../errors.js';

export const SIGNING_ALGORITHM = 'AWS4-HMAC-SHA256';
/** How far a request's date may be from the server's clock, either way (DynamoDB: 5 minutes). */
export const SIGNATURE_SKEW_MS = 5 * 60 * 1000;
/** The longest X-Amz-Expires AWS accepts: 7 days. */
const PRESIGNED_EXPIRES_SECONDS_MAX = 604_800;
const SCOPE_TERMINATOR = 'aws4_request';

/** A secret the server knows, with the session token it was issued with, if any. */
export interface KnownCredential {
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** Access key id → its secret. */
export type CredentialStore = ReadonlyMap<string, KnownCredential>;

const SIGNATURE_MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
const INVALID_TOKEN = 'The security token included in the request is invalid.';

function invalidSignature(message = SIGNATURE_MISMATCH): DynamoError {
  return coralServiceError('InvalidSignatureException', message);
}

function incompleteSignature(message: string): DynamoError {
  return coralServiceError('IncompleteSignatureException', message);
}

function unrecognizedClient(): DynamoError {
  return coralServiceError('UnrecognizedClientException', INVALID_TOKEN);
}

/** What either form carries. */
interface SignedParts {
  readonly credential: string;
  readonly signedHeaders: string;
  readonly signature: string;
  /** ISO 8601 basic (20240101T000000Z) and where it came from, for messages. */
  readonly date: string;
  readonly dateSource: string;
  readonly sessionToken: string | undefined;
  /** Presigned only: seconds the signature is valid for. */
  readonly expires: string | undefined;
  readonly presigned: boolean;
}

/** What a signature check reads of a request (node:http's IncomingMessage is one). */
export interface SignedRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
  /** Every header as sent, name and value in turn: the signature covers the values as sent. */
  readonly rawHeaders: readonly string[];
}

export class SignatureVerifier {
  readonly #credentials: CredentialStore;
  readonly #clock: Clock;
  readonly #signingKeys = new SigningKeys();

  constructor(credentials: CredentialStore, clock: Clock) {
    this.#credentials = credentials;
    this.#clock = clock;
  }

  /**
   * Verifies a request that passed auth.ts's shape checks, for `service` (the credential scope's
   * service: `dynamodb`, `monitoring`, `application-autoscaling`). `payloadHash`: the hex SHA-256
   * of the body as received; undefined when the body was not read to its end (refused for its
   * nesting), in which case everything but the signature itself is checked.
   */
  verify(request: SignedRequest, service: string, payloadHash: string | undefined): DynamoError | undefined {
    const url = request.url ?? '/';
    const questionMark = url.indexOf('?');
    const path = questionMark < 0 ? url : url.slice(0, questionMark);
    const query = questionMark < 0 ? [] : parseQuery(url.slice(questionMark + 1));
    const parts = signedPartsOf(request, query);
    if (!('credential' in parts)) return parts;
    // The date first, whatever the key: DynamoDB answers an expired signature of an unknown key
    // (and of a credential it cannot even read) "Signature expired" (docs/CONFORMANCE.md).
    const signedAtMs = parseBasicDate(parts.date);
    if (signedAtMs !== undefined) {
      const timeError = this.#timeError(parts, signedAtMs);
      if (timeError !== undefined) return timeError;
    }
    const scope = parts.credential.split('/');
    if (scope.length !== 5) {
      return incompleteSignature(`Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '${parts.credential}'`);
    }
    const [accessKeyId, scopeDate, region, scopeService, terminator] = scope as [string, string, string, string, string];
    const known = this.#credentials.get(accessKeyId);
    if (known === undefined) return unrecognizedClient();
    if ((known.sessionToken ?? '') !== (parts.sessionToken ?? '')) return unrecognizedClient();
    if (scopeService !== service) return invalidSignature(`Credential should be scoped to correct service: '${service}'. `);
    if (terminator !== SCOPE_TERMINATOR) return invalidSignature(`Credential should be scoped with a valid terminator: '${SCOPE_TERMINATOR}', not '${terminator}'. `);
    if (signedAtMs === undefined) return invalidSignature();
    if (scopeDate !== parts.date.slice(0, 8)) {
      return invalidSignature(
        `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${scopeDate}' != '${parts.date.slice(0, 8)}', from '${parts.dateSource}'.`,
      );
    }
    const unsignedHeader = unsignedHeaderRefusal(request.rawHeaders, parts.signedHeaders);
    if (unsignedHeader !== undefined) return invalidSignature(unsignedHeader);
    if (payloadHash === undefined) return undefined;
    const canonical = canonicalRequest(request, path, query, parts, payloadHash);
    if (canonical === undefined) return invalidSignature();
    const credentialScope = `${scopeDate}/${region}/${scopeService}/${SCOPE_TERMINATOR}`;
    const stringToSign = `${SIGNING_ALGORITHM}\n${parts.date}\n${credentialScope}\n${sha256Hex(canonical)}`;
    const signingKey = this.#signingKeys.keyFor(known.secretAccessKey, scopeDate, region, scopeService);
    const expected = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
    return sameHex(expected, parts.signature) ? undefined : invalidSignature();
  }

  /** The request's date against the server's clock (and a presigned URL's lifetime). */
  #timeError(parts: SignedParts, signedAtMs: number): DynamoError | undefined {
    const nowMs = this.#clock.nowMs();
    if (signedAtMs > nowMs + SIGNATURE_SKEW_MS) {
      return invalidSignature(`Signature not yet current: ${parts.date} is still later than ${basicDate(nowMs + SIGNATURE_SKEW_MS)} (${basicDate(nowMs)} + 5 min.)`);
    }
    if (parts.expires !== undefined) {
      if (!/^\d{1,7}$/.test(parts.expires)) return incompleteSignature('X-Amz-Expires should be a number');
      const seconds = Number(parts.expires);
      if (seconds > PRESIGNED_EXPIRES_SECONDS_MAX) {
        return incompleteSignature(`X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires must be less than ${PRESIGNED_EXPIRES_SECONDS_MAX} seconds`);
      }
      if (nowMs > signedAtMs + seconds * 1000) {
        return invalidSignature(`Signature expired: ${parts.date} is now earlier than ${basicDate(nowMs - seconds * 1000)} (${basicDate(nowMs)} - ${seconds} sec.)`);
      }
      return undefined;
    }
    if (signedAtMs < nowMs - SIGNATURE_SKEW_MS) {
      return invalidSignature(`Signature expired: ${parts.date} is now earlier than ${basicDate(nowMs - SIGNATURE_SKEW_MS)} (${basicDate(nowMs)} - 5 min.)`);
    }
    return undefined;
  }
}

/** One decoded query parameter (a repeated name is several). */
type QueryParameter = readonly [string, string];

/** `a=1&b=%20` → decoded pairs; '+' stays '+' (SigV4 encodes a space as %20). Malformed escapes stay as sent. */
function parseQuery(text: string): QueryParameter[] {
  const parameters: QueryParameter[] = [];
  for (const part of text.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const name = equals < 0 ? part : part.slice(0, equals);
    const value = equals < 0 ? '' : part.slice(equals + 1);
    parameters.push([decode(name), decode(value)]);
  }
  return parameters;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function queryValue(query: readonly QueryParameter[], name: string): string | undefined {
  for (const [key, value] of query) if (key === name) return value;
  return undefined;
}

/** The parts of the header form or of the query form; auth.ts already refused a request with neither or both. */
function signedPartsOf(request: SignedRequest, query: readonly QueryParameter[]): SignedParts | DynamoError {
  const header = request.headers.authorization;
  const token = request.headers['x-amz-security-token'];
  if (header === undefined) {
    const algorithm = queryValue(query, 'X-Amz-Algorithm');
    if (algorithm !== SIGNING_ALGORITHM) return invalidSignature();
    return {
      credential: queryValue(query, 'X-Amz-Credential') ?? '',
      signedHeaders: queryValue(query, 'X-Amz-SignedHeaders') ?? '',
      signature: queryValue(query, 'X-Amz-Signature') ?? '',
      date: queryValue(query, 'X-Amz-Date') ?? '',
      dateSource: 'X-Amz-Date',
      sessionToken: queryValue(query, 'X-Amz-Security-Token') ?? (typeof token === 'string' ? token : undefined),
      expires: queryValue(query, 'X-Amz-Expires'),
      presigned: true,
    };
  }
  const trimmed = header.trim();
  const space = trimmed.indexOf(' ');
  if (space < 0 || trimmed.slice(0, space) !== SIGNING_ALGORITHM) return invalidSignature();
  const fields = new Map<string, string>();
  for (const part of trimmed.slice(space + 1).split(',')) {
    const equals = part.indexOf('=');
    if (equals > 0) fields.set(part.slice(0, equals).trim(), part.slice(equals + 1).trim());
  }
  const amzDate = request.headers['x-amz-date'];
  const httpDate = request.headers.date;
  const date = typeof amzDate === 'string' ? amzDate : httpDate === undefined ? '' : basicDateOfHttpDate(httpDate);
  return {
    credential: fields.get('Credential') ?? '',
    signedHeaders: fields.get('SignedHeaders') ?? '',
    signature: fields.get('Signature') ?? '',
    date,
    dateSource: typeof amzDate === 'string' ? 'x-amz-date' : 'date',
    sessionToken: typeof token === 'string' ? token : undefined,
    expires: undefined,
    presigned: false,
  };
}

/**
 * The canonical request, or undefined when it cannot be built (a signed header list that is not
 * lowercase names in order, or a signed header the request lacks: the signature cannot match).
 */
function canonicalRequest(request: SignedRequest, path: string, query: readonly QueryParameter[], parts: SignedParts, payloadHash: string): string | undefined {
  const names = parts.signedHeaders.split(';');
  const values = headerValues(request.rawHeaders);
  let headers = '';
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!;
    if (name === '' || name !== name.toLowerCase() || (index > 0 && names[index - 1]! >= name)) return undefined;
    const value = values.get(name);
    if (value === undefined) return undefined;
    headers += `${name}:${value}\n`;
  }
  // Always the body as received: `x-amz-content-sha256: UNSIGNED-PAYLOAD` is S3's option, and a
  // signature over that literal fails here as on DynamoDB (a body swapped in transit must fail).
  return `${request.method ?? ''}\n${canonicalPath(path)}\n${canonicalQuery(query)}\n${headers}\n${parts.signedHeaders}\n${payloadHash}`;
}

/**
 * The refusal of a signature that leaves out a header it must cover, or undefined: `host` always
 * (DynamoDB's text), and every `x-amz-*` header the request carries (x-amz-target above all:
 * unsigned, a captured GetItem could be replayed as a DeleteItem), but x-amz-content-sha256, which
 * the canonical request replaces by the hash of the body itself (DynamoDB accepted it unsigned:
 * docs/CONFORMANCE.md). The x-amz-* text is ours, in the host text's form.
 */
function unsignedHeaderRefusal(rawHeaders: readonly string[], signedHeaders: string): string | undefined {
  const signed = new Set(signedHeaders.split(';'));
  if (!signed.has('host')) return HOST_NOT_SIGNED;
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!.toLowerCase();
    if (name.startsWith('x-amz-') && name !== 'x-amz-content-sha256' && !signed.has(name)) return `'${name}' must be a 'SignedHeader' in the AWS Authorization.`;
  }
  return undefined;
}

const HOST_NOT_SIGNED = "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.";

/** Lowercase name → its values as signed: each trimmed, inner whitespace collapsed, joined with ','. */
function headerValues(rawHeaders: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!.toLowerCase();
    const value = rawHeaders[index + 1]!.trim().replace(/\s+/g, ' ');
    const previous = values.get(name);
    values.set(name, previous === undefined ? value : `${previous},${value}`);
  }
  return values;
}

/** As the SDKs sign every service but S3: '.' and '..' resolved, then the path as sent encoded once more. */
function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const normalized = `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${segments.length > 0 && path.endsWith('/') ? '/' : ''}`;
  return escapeUri(normalized).replace(/%2F/g, '/');
}

function canonicalQuery(query: readonly QueryParameter[]): string {
  const encoded: string[] = [];
  for (const [name, value] of query) {
    if (name.toLowerCase() === 'x-amz-signature') continue;
    encoded.push(`${escapeUri(name)}=${escapeUri(value)}`);
  }
  // Sorted by name, then value: comparing the encoded 'name=value' strings orders both, as
  // '=' (0x3D) sorts below every character an encoded name may continue with but '-', '.', '0'-'9'.
  return encoded
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair] as const)
    .sort(([leftName, left], [rightName, right]) => (leftName < rightName ? -1 : leftName > rightName ? 1 : left < right ? -1 : left > right ? 1 : 0))
    .map(([, pair]) => pair)
    .join('&');
}

/** RFC 3986 percent-encoding: everything but A-Z a-z 0-9 - _ . ~. */
function escapeUri(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** SigV4's signing key: four HMACs down from the secret, through the scope's day, region and service. */
export function deriveSigningKey(secret: string, date: string, region: string, service: string): Buffer {
  const dateKey = createHmac('sha256', `AWS4${secret}`).update(date).digest();
  const regionKey = createHmac('sha256', dateKey).update(region).digest();
  const serviceKey = createHmac('sha256', regionKey).update(service).digest();
  return createHmac('sha256', serviceKey).update(SCOPE_TERMINATOR).digest();
}

/**
 * The most signing keys kept. A key serves one secret, day, region and service, so a server
 * verifying a handful of credentials needs a few at a time (two around midnight UTC).
 */
export const SIGNING_KEYS_MAX = 64;

/**
 * Signing keys by what they are derived from, as AWS's SDKs keep them: a key changes once a day,
 * and deriving it is four of a request's five HMACs (~2 us each). Derived only from the secret
 * the server knows, so a kept key never lets through a signature a fresh one would refuse. Past
 * SIGNING_KEYS_MAX the oldest goes.
 */
export class SigningKeys {
  readonly #keys = new Map<string, Buffer>();

  get size(): number {
    return this.#keys.size;
  }

  keyFor(secret: string, date: string, region: string, service: string): Buffer {
    // Unambiguous: the scope's parts come from splitting the credential on '/', so none holds one
    // (a secret may, and comes last).
    const id = `${date}/${region}/${service}/${secret}`;
    let key = this.#keys.get(id);
    if (key === undefined) {
      key = deriveSigningKey(secret, date, region, service);
      if (this.#keys.size >= SIGNING_KEYS_MAX) this.#keys.delete(this.#keys.keys().next().value as string);
      this.#keys.set(id, key);
    }
    return key;
  }
}

/** Constant-time comparison of two hex signatures (64 lowercase hex digits when well-formed). */
function sameHex(expected: string, given: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(given)) return false;
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(given, 'hex'));
}

/** 20240101T000000Z → epoch ms; undefined unless it is exactly that form and a real instant. */
function parseBasicDate(text: string): number | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number) as [number, number, number, number, number, number, number];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  return basicDate(ms) === text ? ms : undefined;
}

export function basicDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** An RFC 1123 Date header as the basic form; '' when it does not parse. */
function basicDateOfHttpDate(text: string): string {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? basicDate(ms) : '';
}
