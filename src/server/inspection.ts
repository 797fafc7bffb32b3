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
 * `post()` gets this guard without asking for it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { stateChangeRefusal, type BrowserAccess } from './browser-access.js';
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

  /**
   * `access` judges the Origin of state-changing requests (without it, only the content type is
   * checked). `closingAnswer` is the server's answer while it closes (request-gate.ts), undefined
   * otherwise: a request is turned away at arrival then (http.ts), and a POST also when its body
   * completes after close began, since its change (a clock step, a fault, a scaling run) would
   * land on an engine stopping.
   */
  constructor(onInternalError: (error: unknown) => void, access?: BrowserAccess, closingAnswer: () => InspectionResponse | undefined = () => undefined) {
    this.#onInternalError = onInternalError;
    this.#access = access;
    this.#closingAnswer = closingAnswer;
  }

  /** `pattern` must match the whole path (anchor it); its groups become `params`. */
  get(pattern: RegExp, handler: InspectionHandler): this {
    this.#routes.push({ method: 'GET', pattern, handler });
    return this;
  }

  post(pattern: RegExp, handler: InspectionHandler): this {
    this.#routes.push({ method: 'POST', pattern, handler });
    return this;
  }

  delete(pattern: RegExp, handler: InspectionHandler): this {
    this.#routes.push({ method: 'DELETE', pattern, handler });
    return this;
  }

  /** Answers a request whose path `ownsPath`; unknown paths get a JSON 404. */
  handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://dynatwin');
    const method = request.method ?? 'GET';
    let pathMatched = false;
    for (const route of this.#routes) {
      const match = route.pattern.exec(url.pathname);
      if (match === null) continue;
      pathMatched = true;
      if (route.method !== method) continue;
      const params = match.slice(1).map((group) => safeDecode(group ?? ''));
      if (method === 'POST') {
        const refusal = stateChangeRefusal(request, this.#access);
        if (refusal !== undefined) {
          request.resume();
          this.#send(response, { status: refusal.status, body: { error: refusal.message } });
          return;
        }
        readJsonBody(request, (body) => {
          const closing = this.#closingAnswer();
          if (closing !== undefined) {
            response.setHeader('Connection', 'close');
            this.#send(response, closing);
          } else if (body instanceof InspectionError) this.#send(response, errorResponse(body));
          else this.#run(route.handler, { method, url, params, body }, response);
        });
      } else {
        request.resume();
        this.#run(route.handler, { method, url, params, body: undefined }, response);
      }
      return;
    }
    request.resume();
    this.#send(response, pathMatched ? { status: 405, body: { error: `${method} is not allowed here` } } : { status: 404, body: { error: 'no such dynatwin resource' } });
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

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function readJsonBody(request: IncomingMessage, done: (body: unknown) => void): void {
  const chunks: Buffer[] = [];
  let length = 0;
  let finished = false;
  const finish = (body: unknown): void => {
    if (finished) return;
    finished = true;
    done(body);
  };
  request.on('data', (chunk: Buffer) => {
    length += chunk.length;
    if (length > INSPECTION_BODY_BYTES_MAX) {
      request.resume();
      finish(new InspectionError(413, `request body over ${INSPECTION_BODY_BYTES_MAX} bytes`));
      return;
    }
    if (!finished) chunks.push(chunk);
  });
  request.on('error', () => finish(new InspectionError(400, 'request body could not be read')));
  request.on('end', () => {
    if (finished) return;
    const bytes = Buffer.concat(chunks);
    if (nestsDeeperThan(bytes, INSPECTION_JSON_DEPTH_MAX)) {
      finish(new InspectionError(400, `request body nests deeper than ${INSPECTION_JSON_DEPTH_MAX} levels`));
      return;
    }
    const text = bytes.toString('utf8');
    if (text.trim() === '') {
      finish(undefined);
      return;
    }
    try {
      finish(JSON.parse(text) as unknown);
    } catch {
      finish(new InspectionError(400, 'request body is not valid JSON'));
    }
  });
}
