/**
 * dynatwin's own HTTP API beside the DynamoDB protocol: everything under `/dynatwin/` (partitions,
 * clock, metrics, the dashboard) and the Prometheus `/metrics` page. DynamoDB requests never
 * reach it: they are POSTs to `/`, and the request handler only asks this router about paths it
 * owns (see `ownsPath`), so the protocol's hot path pays one string comparison.
 *
 * Routes answer JSON (or text) with a status; a route throws InspectionError for a 4xx. Request
 * bodies are small JSON documents, bounded by INSPECTION_BODY_BYTES_MAX.
 *
 * Every POST route changes state, so every POST passes `stateChangeRefusal` (browser-access.ts)
 * before its body is read: `application/json` only, no foreign Origin. A route registered with
 * `post()` gets this guard without asking for it. Under `--auth verify` every route but those
 * registered `open` (the dashboard's page and files) also needs the inspection token or a
 * signature (inspection-auth.ts), checked before anything else.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DynamoError } from '../errors.js';
import { stateChangeRefusal, type BrowserAccess } from './browser-access.js';
import type { InspectionAuth } from './inspection-auth.js';
import { nestsDeeperThan } from './json-depth.js';

/** No inspection request needs more than a few bytes of JSON. */
export const INSPECTION_BODY_BYTES_MAX = 64 * 1024;

/** Inspection bodies are flat objects; the limit only keeps hostile ones from being parsed. */
const INSPECTION_JSON_DEPTH_MAX = 16;

export interface InspectionRequest {
  readonly method: string;
  readonly url: URL;
  /** The path's captured groups, decoded. */
  readonly params: readonly string[];
  /** The parsed JSON body (POST), or undefined. */
  readonly body: unknown;
}

export interface InspectionResponse {
  readonly status: number;
  /** An object is sent as JSON; a string as is, with `contentType`. */
  readonly body: unknown;
  readonly contentType?: string;
}

export type InspectionHandler = (request: InspectionRequest) => InspectionResponse | Promise<InspectionResponse>;

interface Route {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly pattern: RegExp;
  readonly handler: InspectionHandler;
  /** Served without authentication under `--auth verify` (holds no data). */
  readonly open: boolean;
}

export interface RouteOptions {
  readonly open?: boolean;
}

interface FoundRoute {
  readonly route: Route;
  /** The path's captured groups, decoded. */
  readonly params: readonly string[];
}

/** A 4xx answer of the inspection API: `{"error": message}`. */
export class InspectionError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export function ownsPath(url: string | undefined): boolean {
  return url !== undefined && (url.startsWith('/dynatwin') || url === '/metrics' || url.startsWith('/metrics?'));
}

export class InspectionRouter {
  readonly #routes: Route[] = [];
  readonly #onInternalError: (error: unknown) => void;
  readonly #access: BrowserAccess | undefined;
  readonly #closingAnswer: () => InspectionResponse | undefined;
  readonly #auth: InspectionAuth | undefined;

  /**
   * `access` judges the Origin of state-changing requests (without it, only the content type is
   * checked). `closingAnswer` is the server's answer while it closes (request-gate.ts), undefined
   * otherwise: a request is turned away at arrival then (http.ts), and a POST also when its body
   * completes after close began, since its change (a clock step, a fault, a scaling run) would
   * land on an engine stopping. `auth` (`--auth verify`, inspection-auth.ts): every route but the
   * open ones needs the inspection token or a signature; without it every route is open.
   */
  constructor(
    onInternalError: (error: unknown) => void,
    access?: BrowserAccess,
    closingAnswer: () => InspectionResponse | undefined = () => undefined,
    auth?: InspectionAuth,
  ) {
    this.#onInternalError = onInternalError;
    this.#access = access;
    this.#closingAnswer = closingAnswer;
    this.#auth = auth;
  }

  /**
   * `pattern` must match the whole path (anchor it); its groups become `params`. `open`: served
   * without authentication under `--auth verify`; only for what holds no data (the dashboard's
   * page and static files).
   */
  get(pattern: RegExp, handler: InspectionHandler, options: RouteOptions = {}): this {
    this.#routes.push({ method: 'GET', pattern, handler, open: options.open === true });
    return this;
  }

  post(pattern: RegExp, handler: InspectionHandler): this {
    this.#routes.push({ method: 'POST', pattern, handler, open: false });
    return this;
  }

  delete(pattern: RegExp, handler: InspectionHandler): this {
    this.#routes.push({ method: 'DELETE', pattern, handler, open: false });
    return this;
  }

  /**
   * Answers a request whose path `ownsPath`; unknown paths get a JSON 404. Under `--auth verify`
   * the request is authenticated first (unknown paths too: nothing is learnt without the token).
   */
  handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://dynatwin');
    const method = request.method ?? 'GET';
    const found = this.#find(url.pathname, method);
    const auth = this.#auth;
    if (auth !== undefined && !(typeof found === 'object' && found.route.open)) {
      const admission = auth.admit(request);
      if (admission instanceof DynamoError) {
        request.resume();
        this.#send(response, refusalResponse(admission));
        return;
      }
      if (admission === 'signed') {
        // The signature covers the body: it is read (bounded) and hashed before anything runs.
        readBodyBytes(request, true, (bytes, payloadHash) => {
          if (bytes instanceof InspectionError) {
            this.#send(response, errorResponse(bytes));
            return;
          }
          const error = auth.verifySigned(request, payloadHash!);
          if (error !== undefined) this.#send(response, refusalResponse(error));
          else this.#serve(found, request, response, method, url, bytes);
        });
        return;
      }
    }
    this.#serve(found, request, response, method, url, undefined);
  }

  /** The route for this path and method; 'method' when only another method's route matches the path. */
  #find(path: string, method: string): FoundRoute | 'method' | undefined {
    let pathMatched = false;
    for (const route of this.#routes) {
      const match = route.pattern.exec(path);
      if (match === null) continue;
      pathMatched = true;
      if (route.method !== method) continue;
      return { route, params: match.slice(1).map((group) => safeDecode(group ?? '')) };
    }
    return pathMatched ? 'method' : undefined;
  }

  /** Runs an admitted request; `body`: its bytes when authentication read them already. */
  #serve(found: FoundRoute | 'method' | undefined, request: IncomingMessage, response: ServerResponse, method: string, url: URL, body: Buffer | undefined): void {
    if (typeof found !== 'object') {
      if (body === undefined) request.resume();
      this.#send(response, found === 'method' ? { status: 405, body: { error: `${method} is not allowed here` } } : { status: 404, body: { error: 'no such dynatwin resource' } });
      return;
    }
    const { route, params } = found;
    if (method !== 'POST') {
      if (body === undefined) request.resume();
      this.#run(route.handler, { method, url, params, body: undefined }, response);
      return;
    }
    const refusal = stateChangeRefusal(request, this.#access);
    if (refusal !== undefined) {
      if (body === undefined) request.resume();
      this.#send(response, { status: refusal.status, body: { error: refusal.message } });
      return;
    }
    const runWith = (bytes: Buffer | InspectionError): void => {
      const parsed = bytes instanceof InspectionError ? bytes : parseJsonBody(bytes);
      const closing = this.#closingAnswer();
      if (closing !== undefined) {
        response.setHeader('Connection', 'close');
        this.#send(response, closing);
      } else if (parsed instanceof InspectionError) this.#send(response, errorResponse(parsed));
      else this.#run(route.handler, { method, url, params, body: parsed }, response);
    };
    if (body !== undefined) runWith(body);
    else readBodyBytes(request, false, (bytes) => runWith(bytes));
  }

  #run(handler: InspectionHandler, request: InspectionRequest, response: ServerResponse): void {
    const fail = (error: unknown): void => {
      if (error instanceof InspectionError) {
        this.#send(response, errorResponse(error));
        return;
      }
      this.#onInternalError(error);
      this.#send(response, { status: 500, body: { error: 'internal error' } });
    };
    try {
      const result = handler(request);
      if (result instanceof Promise) result.then((answer) => this.#send(response, answer), fail);
      else this.#send(response, result);
    } catch (error) {
      fail(error);
    }
  }

  #send(response: ServerResponse, answer: InspectionResponse): void {
    const isText = typeof answer.body === 'string';
    const payload = isText ? (answer.body as string) : JSON.stringify(answer.body);
    response.writeHead(answer.status, {
      'Content-Type': answer.contentType ?? (isText ? 'text/plain; charset=utf-8' : 'application/json'),
      'Content-Length': Buffer.byteLength(payload),
      'Cache-Control': 'no-store',
    });
    response.end(payload);
  }
}

function errorResponse(error: InspectionError): InspectionResponse {
  return { status: error.status, body: { error: error.message } };
}

/** An authentication refusal: DynamoDB's body (`__type`, `message`), 403. */
function refusalResponse(error: DynamoError): InspectionResponse {
  return { status: error.statusCode, body: error.toBody() };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Reads a body up to INSPECTION_BODY_BYTES_MAX; with `hash`, also its SHA-256 (hex), which a
 * signature covers. `done` is called once, with the bytes or the InspectionError to answer.
 */
function readBodyBytes(request: IncomingMessage, hash: boolean, done: (body: Buffer | InspectionError, payloadHash: string | undefined) => void): void {
  const chunks: Buffer[] = [];
  const digest = hash ? createHash('sha256') : undefined;
  let length = 0;
  let finished = false;
  const finish = (body: Buffer | InspectionError): void => {
    if (finished) return;
    finished = true;
    done(body, body instanceof InspectionError ? undefined : digest?.digest('hex'));
  };
  request.on('data', (chunk: Buffer) => {
    length += chunk.length;
    if (length > INSPECTION_BODY_BYTES_MAX) {
      request.resume();
      finish(new InspectionError(413, `request body over ${INSPECTION_BODY_BYTES_MAX} bytes`));
      return;
    }
    if (finished) return;
    chunks.push(chunk);
    digest?.update(chunk);
  });
  request.on('error', () => finish(new InspectionError(400, 'request body could not be read')));
  request.on('end', () => finish(Buffer.concat(chunks)));
}

/** A POST's JSON body: undefined when empty. */
function parseJsonBody(bytes: Buffer): unknown {
  if (nestsDeeperThan(bytes, INSPECTION_JSON_DEPTH_MAX)) return new InspectionError(400, `request body nests deeper than ${INSPECTION_JSON_DEPTH_MAX} levels`);
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return new InspectionError(400, 'request body is not valid JSON');
  }
}
