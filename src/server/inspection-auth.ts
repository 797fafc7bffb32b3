/**
 * `--auth verify` covers dynatwin's own routes too (everything under /dynatwin/ and /metrics but
 * the dashboard's page and its static files, which hold no data): a request there needs either
 *
 * - the inspection token, as `Authorization: Bearer <token>` (Prometheus, curl, `dynatwin
 *   analyze --token`, the dashboard's own fetches). The token is printed once at start-up (and is
 *   `twin.inspectionToken` for library users); `--inspection-token` fixes it, for CI set-ups;
 * - or a SigV4 signature in the Authorization header that the DynamoDB signing name verifies
 *   (sigv4.ts: the same keys, clock and rules as a DynamoDB request), for tools that sign.
 *
 * Why a header and no cookie: a cookie is sent by the browser on its own, to every port of the
 * host, so any page the browser deems same-site (another local port) would ride on it; a header
 * is only sent by a page that holds the token, which the dashboard keeps in the tab's
 * sessionStorage (per origin: scheme, host and port). browser-access.ts still keeps foreign pages
 * out before this check runs.
 *
 * Refusals are DynamoDB-shaped, with status 403: no credentials at all,
 * MissingAuthenticationTokenException; a wrong token, UnrecognizedClientException; a signature
 * that does not verify, sigv4.ts's own error.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { coralServiceError, DynamoError } from '../errors.js';
import { checkAuthorization } from './auth.js';
import type { SignatureVerifier } from './sigv4.js';

/** Random bytes of a generated token (base64url: 32 characters). */
const GENERATED_TOKEN_BYTES = 24;
/** A token given by the user: long enough not to be guessed, in characters any header carries. */
export const INSPECTION_TOKEN_LENGTH_MIN = 16;
export const INSPECTION_TOKEN_LENGTH_MAX = 256;
const TOKEN_CHARACTERS = /^[A-Za-z0-9._~+/=-]+$/;
/** Inspection routes verify signatures for this signing name (what a tool signing as DynamoDB uses). */
const INSPECTION_SIGNING_NAME = 'dynamodb';
const REFUSAL_STATUS = 403;
const BEARER = /^bearer +/i;

/** A fresh token for one server run. */
export function newInspectionToken(): string {
  return randomBytes(GENERATED_TOKEN_BYTES).toString('base64url');
}

/** Why a user's token cannot be one, or undefined. */
export function inspectionTokenProblem(token: string): string | undefined {
  if (token.length < INSPECTION_TOKEN_LENGTH_MIN || token.length > INSPECTION_TOKEN_LENGTH_MAX) {
    return `must be ${INSPECTION_TOKEN_LENGTH_MIN} to ${INSPECTION_TOKEN_LENGTH_MAX} characters long`;
  }
  if (!TOKEN_CHARACTERS.test(token)) return 'may hold only letters, digits and - . _ ~ + / =';
  return undefined;
}

/** What the check decided before the body was read. */
export type InspectionAdmission = 'admitted' | 'signed' | DynamoError;

export class InspectionAuth {
  readonly token: string;
  readonly #tokenBytes: Buffer;
  readonly #verifier: SignatureVerifier;

  constructor(token: string, verifier: SignatureVerifier) {
    this.token = token;
    this.#tokenBytes = Buffer.from(token, 'utf8');
    this.#verifier = verifier;
  }

  /**
   * Admitted by its token; `signed` when a signature is to be verified once the body's hash is
   * known (verifySigned); or the refusal to send.
   */
  admit(request: IncomingMessage): InspectionAdmission {
    const header = request.headers.authorization;
    if (header !== undefined && BEARER.test(header)) {
      return this.#tokenMatches(header.replace(BEARER, '').trim()) ? 'admitted' : refusal('UnrecognizedClientException', 'The security token included in the request is invalid.');
    }
    const shapeError = checkAuthorization(request);
    if (shapeError === undefined) return 'signed';
    if (shapeError.code === 'MissingAuthenticationTokenException') {
      return refusal(
        'MissingAuthenticationTokenException',
        "Request is missing Authentication Token: under --auth verify, dynatwin's own routes take 'Authorization: Bearer <the inspection token printed at start-up>' or a SigV4 signature",
      );
    }
    return withRefusalStatus(shapeError);
  }

  /** The signature of a request `admit` called `signed`, over the body's SHA-256 (hex). */
  verifySigned(request: IncomingMessage, payloadHash: string): DynamoError | undefined {
    const error = this.#verifier.verify(request, INSPECTION_SIGNING_NAME, payloadHash);
    return error === undefined ? undefined : withRefusalStatus(error);
  }

  #tokenMatches(given: string): boolean {
    const bytes = Buffer.from(given, 'utf8');
    return bytes.length === this.#tokenBytes.length && timingSafeEqual(bytes, this.#tokenBytes);
  }
}

function refusal(type: string, message: string): DynamoError {
  return coralServiceError(type, message, REFUSAL_STATUS);
}

/** The same error, answered 403 (a DynamoDB request's 400 does not fit a refused page or scrape). */
function withRefusalStatus(error: DynamoError): DynamoError {
  return new DynamoError(error.wireType, error.message, { statusCode: REFUSAL_STATUS });
}
