/**
 * The HTTP front door: DynamoDB's JSON protocol over POST /, checked in the order DynamoDB checks
 * a request (content type, JSON, target, authentication, body shape), then handed to the
 * operation. Every failure becomes a DynamoDB-shaped error body; a 500 means a bug in dynatwin.
 */
import { createHash, type Hash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { crc32, deflate, gzip } from 'node:zlib';
import { coralServiceError, DynamoError, internalError, serializationError, validationError } from '../errors.js';
import type { Engine } from '../engine/engine.js';
import { JsonText, responseBody, type AnyOperation, type ValidationContext } from '../operations/operation.js';
import { checkRequest, tablesOf } from '../operations/invoke.js';
import { STREAMS_TARGET_PREFIX } from '../operations/streams/index.js';
import { AUTO_SCALING_TARGET_PREFIX } from '../autoscaling/operations/index.js';
import { CloudWatchError } from '../cloudwatch/errors.js';
import { answerCloudWatch, cloudWatchErrorAnswer, cloudWatchProtocolOf, type CloudWatchAnswer, type CloudWatchProtocol } from '../cloudwatch/protocol.js';
import type { CloudWatchContext } from '../cloudwatch/service.js';
import { checkAuthorization } from './auth.js';
import { BrowserAccess } from './browser-access.js';
import { serviceUnavailable, type FaultDecision, type FaultRegistry } from './faults.js';
import { ownsPath, type InspectionRouter } from './inspection.js';
import { createRequestDecoder, requestDecodingOf, responseEncodingOf, RESPONSE_COMPRESSION_BYTES_MIN, type ResponseEncoding } from './compression.js';
import { JsonDepthScanner, REQUEST_JSON_DEPTH_MAX } from './json-depth.js';
import { RequestIds } from './request-id.js';
import type { SignatureVerifier } from './sigv4.js';
import { REQUEST_HEAD_BYTES_MAX, type FastHandler, type FastRequest, type Reply } from './fast-lane.js';
import { Outbox, type Flushable } from './outbox.js';
import { GATE_OUT, GATE_REFUSED, RequestGate, type GateEntry } from './request-gate.js';
import type { EncodedText } from '../model/encoded-text.js';
import { NESTING_TOO_DEEP } from '../model/validate-item.js';

/** DynamoDB accepts request bodies up to 16 MB (the BatchWriteItem limit). */
export const REQUEST_BODY_BYTES_MAX = 16 * 1024 * 1024;

const TARGET_PREFIX = 'DynamoDB_20120810.';
const AMZ_JSON = 'application/x-amz-json-1.0';
/** Application Auto Scaling speaks AWS JSON 1.1 (its only difference here: the content type). */
const AMZ_JSON_1_1 = 'application/x-amz-json-1.1';
/** DynamoDB's health text names the endpoint (`healthy: dynamodb.<region>.amazonaws.com `); here, the Host the client used. */
const HEALTH_HOST_DEFAULT = 'dynamodb.us-east-1.amazonaws.com';
const UNKNOWN_OPERATION_XML = '<UnknownOperationException/>\n';

/**
 * DynamoDB serves its operations at `/` only: a POST to another path (`/x`, an endpoint with a
 * path the client kept) finds no operation and gets the same 404 `<UnknownOperationException/>`
 * as a request of another content type, on either door (the fast lane takes `/` only). A query
 * string does not change the path.
 */
function isServicePath(url: string | undefined): boolean {
  return url === '/' || url === undefined || url.startsWith('/?');
}

export interface HandlerOptions {
  readonly engine: Engine;
  readonly operations: ReadonlyMap<string, AnyOperation>;
  /** DynamoDB Streams' operations (target prefix DynamoDBStreams_20120810.), on the same endpoint. */
  readonly streamOperations?: ReadonlyMap<string, AnyOperation>;
  /** Application Auto Scaling's operations (target prefix AnyScaleFrontendService.), on the same endpoint. */
  readonly autoScalingOperations?: ReadonlyMap<string, AnyOperation>;
  /** CloudWatch's read side and alarms (cloudwatch/protocol.ts: CBOR, JSON 1.0 and Query), on the same endpoint. */
  readonly cloudWatch?: CloudWatchContext;
  /** dynatwin's own API (`/dynatwin/...`, `/metrics`); DynamoDB requests never reach it. */
  readonly inspection?: InspectionRouter;
  /** Fault rules (server/faults.ts), asked about each request that validated. */
  readonly faults?: FaultRegistry;
  /** Called with bugs (never with DynamoDB errors), for the server log. */
  readonly onInternalError: (error: unknown) => void;
  /** Which Host names and page origins are served (default: loopback only). */
  readonly browserAccess?: BrowserAccess;
  /** Told the name of a DynamoDB operation dynatwin lacks, at each request for it. */
  readonly onUnimplementedOperation?: (name: string) => void;
  /** `--auth verify`: checks each request's SigV4 signature (sigv4.ts); absent, any credentials do. */
  readonly signatureVerifier?: SignatureVerifier;
  /**
   * The server's requests still owed an answer, and whether it is closing (request-gate.ts); one
   * per server, kept across a reset. Absent: a gate of the handler's own that never closes.
   */
  readonly gate?: RequestGate;
}

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** The two doors of one handler: node:http's, for every request, and the fast lane's (fast-lane.ts). */
export interface RequestHandlers {
  readonly node: RequestHandler;
  /** Undefined under `--auth verify`: a signature covers every header as sent, which the lane does not keep. */
  readonly fast: FastHandler | undefined;
}

/** What the protocol path reads of a request: node's IncomingMessage, or the fast lane's FastRequest. */
interface RequestLike {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
  /** node:http's requests only: what a signature check needs (the lane is off under `--auth verify`). */
  readonly rawHeaders?: readonly string[];
}

/** A node:http response as a Reply: one writeHead, then end() now or at the end of the turn (Outbox). */
class NodeReply implements Reply, Flushable {
  /** The body held for the end of the turn. */
  #held: string | Buffer = '';

  constructor(
    readonly response: ServerResponse,
    readonly outbox: Outbox | undefined,
    readonly gate?: RequestGate,
  ) {}

  acceptEncoding(): string | undefined {
    const value = this.response.req?.headers['accept-encoding'];
    return typeof value === 'string' ? value : undefined;
  }

  send(status: number, headers: (string | number)[], body: string | Buffer, deferred: boolean): void {
    // A closing server says so (as the fast lane does): the client sends nothing more on this
    // connection, which node:http ends after the answer.
    if (this.gate?.closing === true) this.response.shouldKeepAlive = false;
    this.response.writeHead(status, headers);
    if (deferred && this.outbox !== undefined) {
      this.#held = body;
      this.outbox.add(this);
    } else {
      this.response.end(body);
    }
  }

  flush(): void {
    const body = this.#held;
    this.#held = '';
    this.response.end(body);
  }
}

/** What every request of one handler shares, built once. */
interface HandlerState {
  readonly options: HandlerOptions;
  /** Handed to every operation's validate; one object for all requests. */
  readonly validation: ValidationContext;
  readonly outbox: Outbox;
  readonly browserAccess: BrowserAccess;
  readonly targets: TargetCache;
  readonly requestIds: RequestIds;
  readonly gate: RequestGate;
}

/**
 * The operation of the last X-Amz-Target seen: clients send the same few targets over and over,
 * and each header value is a fresh string, so one comparison spares the prefix slice and the map
 * lookup (which hashes the fresh string) per request.
 */
class TargetCache {
  #target: string | undefined = undefined;
  #operation: AnyOperation | undefined = undefined;

  operationOf(options: HandlerOptions, target: string): AnyOperation | undefined {
    if (target === this.#target) return this.#operation;
    const operation = operationOfTarget(options, target);
    this.#target = target;
    this.#operation = operation;
    return operation;
  }
}

export function createRequestHandler(options: HandlerOptions): RequestHandlers {
  const state: HandlerState = {
    options,
    validation: { expressions: options.engine.expressions },
    outbox: new Outbox(options.onInternalError),
    browserAccess: options.browserAccess ?? new BrowserAccess('127.0.0.1'),
    targets: new TargetCache(),
    requestIds: new RequestIds(),
    gate: options.gate ?? new RequestGate(),
  };
  return { node: nodeHandler(state), fast: options.signatureVerifier === undefined ? fastHandler(state) : undefined };
}

/**
 * The fast lane's requests (fast-lane.ts): POST / with its whole body, no Origin, no compressed
 * body. The lane takes those whose Host is allowed and whose target names an operation; the rest
 * (CloudWatch's targets, unknown ones, foreign Hosts) go to node:http and the handler below.
 */
function fastHandler(state: HandlerState): FastHandler {
  return {
    accepts(request: FastRequest): boolean {
      const target = request.headers['x-amz-target'];
      return (
        typeof target === 'string' &&
        state.targets.operationOf(state.options, target) !== undefined &&
        state.browserAccess.hostAllowed(request.headers.host)
      );
    },
    serve(request: FastRequest, body: Buffer, reply: Reply): void {
      // The whole body is here (at most FAST_BODY_BYTES_MAX): its depth is checked in one pass.
      const checked = body.length > REQUEST_JSON_DEPTH_MAX && new JsonDepthScanner(REQUEST_JSON_DEPTH_MAX).feed(body) ? TOO_DEEP : body;
      handleBody(state, request, reply, checked, undefined, state.requestIds.next());
    },
  };
}

function nodeHandler(state: HandlerState): RequestHandler {
  const options = state.options;
  return (request, response) => {
    // The id travels with the request and is written with the other response headers in one
    // writeHead (see sendPayload); it is set on the response up front only when other headers
    // have to be set before the answer is known (CORS, extra routes), to keep the header order.
    let requestId: string | undefined = state.requestIds.next();
    const reply = new NodeReply(response, state.outbox, state.gate);
    // Foreign Hosts (DNS rebinding) and foreign pages are turned away before anything runs.
    const refusal = state.browserAccess.refusal(request);
    if (refusal !== undefined) {
      response.setHeader('Connection', 'close');
      sendError(reply, coralServiceError('AccessDeniedException', refusal.message, refusal.status), requestId);
      request.resume();
      return;
    }
    if (state.gate.closing) {
      // Closing: nothing more is run (inspection, CloudWatch, a health check included).
      sendError(reply, serviceUnavailable(), requestId);
      drainAfterAnswer(request);
      return;
    }
    const origin = request.headers.origin;
    if (origin !== undefined) {
      response.setHeader('x-amzn-RequestId', requestId);
      requestId = undefined;
      state.browserAccess.setCorsHeaders(request, response, origin);
      if (request.method === 'OPTIONS') {
        response.setHeader('Content-Length', 0);
        response.end();
        request.resume();
        return;
      }
    }
    // DynamoDB requests are POSTs to '/': one comparison keeps them off the inspection router.
    const inspection = options.inspection;
    if (inspection !== undefined && request.url !== '/' && ownsPath(request.url)) {
      inspection.handle(request, response);
      return;
    }
    if (request.method === 'GET' && (request.url === '/' || request.url === '')) {
      // The Host was checked by browserAccess above: only allowed names are echoed.
      sendText(reply, 200, `healthy: ${request.headers.host ?? HEALTH_HOST_DEFAULT} `, requestId);
      request.resume();
      return;
    }
    if (options.cloudWatch !== undefined) {
      const protocol = cloudWatchProtocolOf(request.url, request.headers);
      if (protocol !== undefined) {
        handleCloudWatch(state, options.cloudWatch, protocol, request, response, requestId);
        return;
      }
    }
    const hashBody = options.signatureVerifier !== undefined;
    readBody(request, response, requestId, (body, payloadHash) => handleBody(state, request, reply, body, payloadHash, requestId), true, hashBody);
  };
}

/** The credential scope's service of each API on this endpoint (what its SDK signs with). */
const DYNAMODB_SIGNING_NAME = 'dynamodb';
const AUTO_SCALING_SIGNING_NAME = 'application-autoscaling';
const CLOUDWATCH_SIGNING_NAME = 'monitoring';

/**
 * Authentication before anything reads the body's content: the SigV4 shape (auth.ts), then, under
 * `--auth verify`, the signature over the bytes as received (`payloadHash`; undefined for a body
 * refused before its end, whose signature cannot be checked: everything else is).
 */
function authenticate(options: HandlerOptions, request: RequestLike, service: string, payloadHash: string | undefined): DynamoError | undefined {
  const shapeError = checkAuthorization(request);
  if (shapeError !== undefined || options.signatureVerifier === undefined) return shapeError;
  const rawHeaders = request.rawHeaders;
  // Unreachable: with a verifier the fast lane is off, and node:http's requests have raw headers.
  if (rawHeaders === undefined) return internalError();
  return options.signatureVerifier.verify({ method: request.method, url: request.url, headers: request.headers, rawHeaders }, service, payloadHash);
}

/** A CloudWatch request: its body (no JSON depth scan: CBOR and forms are not JSON), authentication, then the operation. */
function handleCloudWatch(
  state: HandlerState,
  context: CloudWatchContext,
  protocol: CloudWatchProtocol,
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string | undefined,
): void {
  if (request.method !== 'POST') {
    sendText(new NodeReply(response, undefined), 404, UNKNOWN_OPERATION_XML, requestId);
    request.resume();
    return;
  }
  readBody(
    request,
    response,
    requestId,
    (body, payloadHash) => {
      const id = requestId ?? String(response.getHeader('x-amzn-RequestId'));
      const authError = authenticate(state.options, request, CLOUDWATCH_SIGNING_NAME, payloadHash);
      const answer =
        authError !== undefined
          ? cloudWatchErrorAnswer(protocol, new CloudWatchError(authError.code, authError.code, authError.message, authError.statusCode), id)
          : answerCloudWatch(context, protocol, request.url ?? '/', request.headers, body === TOO_DEEP ? Buffer.alloc(0) : body, id, state.options.onInternalError);
      sendCloudWatchAnswer(response, answer, requestId !== undefined);
    },
    false,
    state.options.signatureVerifier !== undefined,
  );
}

function sendCloudWatchAnswer(response: ServerResponse, answer: CloudWatchAnswer, withRequestId: boolean): void {
  const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : answer.body;
  const headers: (string | number)[] = [];
  for (const [name, value] of answer.headers) if (withRequestId || name !== 'x-amzn-RequestId') headers.push(name, value);
  headers.push('Content-Length', body.length);
  response.writeHead(answer.status, headers);
  response.end(body);
}

/**
 * What readBody hands on: the body, or TOO_DEEP when its JSON nests deeper than any request can
 * (see json-depth.ts); such a body is not kept, only drained.
 */
const TOO_DEEP = Symbol('too deep');
type Body = Buffer | typeof TOO_DEEP;

/** Collects the body up to the limit; past it, answers 413 and stops reading. */
function readBody(
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string | undefined,
  onBody: (body: Body, payloadHash: string | undefined) => void,
  scanJsonDepth = true,
  hashBody = false,
): void {
  const declaredLength = Number(request.headers['content-length'] ?? 0);
  if (declaredLength > REQUEST_BODY_BYTES_MAX) {
    rejectTooLarge(request, response, requestId);
    return;
  }
  const contentEncoding = request.headers['content-encoding'];
  if (contentEncoding !== undefined && requestDecodingOf(contentEncoding) !== 'identity') {
    readEncodedBody(request, response, requestId, onBody, scanJsonDepth, contentEncoding, hashBody ? createHash('sha256') : undefined);
    return;
  }
  // `--auth verify`: the SHA-256 of the bytes as received, which the signature covers.
  const hash = hashBody ? createHash('sha256') : undefined;
  // Most bodies arrive in one chunk: no list is made for them.
  let first: Buffer | undefined;
  let more: Buffer[] | undefined;
  // The depth is checked as the bytes arrive: a hostile body is answered as soon as its depth
  // shows, never parsed nor held, and little more of it is read (lingerAfterRefusal). Nesting past
  // the limit takes more opening brackets than the limit, so bytes up to it are kept unscanned
  // (a GetItem's body, ~80 bytes, is never scanned) and scanned as soon as the body outgrows it.
  let depth: JsonDepthScanner | undefined;
  let length = 0;
  let rejected = false;
  request.on('data', (chunk: Buffer) => {
    if (rejected) return;
    length += chunk.length;
    if (length > REQUEST_BODY_BYTES_MAX) {
      rejected = true;
      rejectTooLarge(request, response, requestId);
      return;
    }
    if (scanJsonDepth && length > REQUEST_JSON_DEPTH_MAX) {
      if (depth === undefined) {
        depth = new JsonDepthScanner(REQUEST_JSON_DEPTH_MAX);
        if (first !== undefined) depth.feed(first);
        if (more !== undefined) for (const kept of more) depth.feed(kept);
      }
      // feed's answer is sticky: true once any prefix fed so far nested past the limit.
      if (depth.feed(chunk)) {
        // Answered now, from the chunk that showed it; the rest is not kept, and read only a little.
        rejected = true;
        first = undefined;
        more = undefined;
        lingerAfterRefusal(request, response);
        onBody(TOO_DEEP, undefined);
        return;
      }
    }
    hash?.update(chunk);
    if (first === undefined) first = chunk;
    else (more ??= []).push(chunk);
  });
  request.on('end', () => {
    if (rejected) return;
    const body = first === undefined ? Buffer.alloc(0) : more === undefined ? first : Buffer.concat([first, ...more], length);
    onBody(body, hash?.digest('hex'));
  });
  request.on('error', () => {
    // The client went away mid-body: there is nobody left to answer.
    rejected = true;
  });
}

/**
 * A compressed body (`Content-Encoding: gzip` or `deflate`), decompressed as it arrives. The 16 MB
 * limit and the depth scan apply to the decompressed bytes, so a small bomb is refused (413) as
 * soon as its output passes the limit, never held past it; the compressed bytes are bounded too.
 * An unknown coding or a corrupt stream is a 400 SerializationException (DynamoDB answers both
 * with a 500 InternalServerError; see docs/CONFORMANCE.md), and the operation never runs.
 */
function readEncodedBody(
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string | undefined,
  onBody: (body: Body, payloadHash: string | undefined) => void,
  scanJsonDepth: boolean,
  contentEncoding: string,
  hash: Hash | undefined,
): void {
  const decoding = requestDecodingOf(contentEncoding);
  if (decoding !== 'gzip' && decoding !== 'deflate') {
    rejectUndecodable(request, response, requestId, `Unsupported Content-Encoding: ${contentEncoding.slice(0, 64)}`);
    return;
  }
  const decoder = createRequestDecoder(decoding);
  const chunks: Buffer[] = [];
  const depth = new JsonDepthScanner(REQUEST_JSON_DEPTH_MAX);
  let encodedLength = 0;
  let length = 0;
  let finished = false;
  const stop = (): void => {
    finished = true;
    chunks.length = 0;
    decoder.removeAllListeners('data');
    decoder.on('error', () => {});
    decoder.destroy();
  };
  request.on('data', (chunk: Buffer) => {
    if (finished) return;
    encodedLength += chunk.length;
    if (encodedLength > REQUEST_BODY_BYTES_MAX) {
      stop();
      rejectTooLarge(request, response, requestId);
      return;
    }
    // The signature covers the bytes as sent, compressed.
    hash?.update(chunk);
    // Back-pressure: a body that inflates slowly is not buffered ahead of its decompression.
    if (!decoder.write(chunk)) request.pause();
  });
  decoder.on('drain', () => {
    if (!finished) request.resume();
  });
  request.on('end', () => {
    if (!finished) decoder.end();
  });
  request.on('error', () => {
    if (!finished) stop();
  });
  decoder.on('data', (chunk: Buffer) => {
    if (finished) return;
    length += chunk.length;
    if (length > REQUEST_BODY_BYTES_MAX) {
      stop();
      rejectTooLarge(request, response, requestId);
      return;
    }
    if (scanJsonDepth && depth.feed(chunk)) {
      stop();
      lingerAfterRefusal(request, response);
      onBody(TOO_DEEP, undefined);
      return;
    }
    chunks.push(chunk);
  });
  decoder.on('error', () => {
    if (finished) return;
    stop();
    rejectUndecodable(request, response, requestId, `The request body is not valid ${decoding} data`);
  });
  decoder.on('end', () => {
    if (finished) return;
    finished = true;
    onBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length), hash?.digest('hex'));
  });
}

/**
 * A request Node's HTTP parser refused before any handler saw it — a head over 16 KB, a malformed
 * request line or header — is answered 400 with a DynamoDB-shaped body, instead of Node's bodiless
 * 431/400 and a socket destroyed with bytes still unread (a reset the client may see before the
 * answer). The connection half-closes after the answer; what the client still sends is read and
 * dropped (bounded) until it closes, or the linger timer cuts it.
 */
export function answerClientError(error: Error & { readonly code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const message = error.code === 'HPE_HEADER_OVERFLOW' ? `The request headers are larger than ${REQUEST_HEAD_BYTES_MAX} bytes` : 'The request is not valid HTTP/1.1';
  const body = Buffer.from(JSON.stringify(serializationError(message).toBody()), 'utf8');
  const head =
    'HTTP/1.1 400 Bad Request\r\n' +
    `Content-Type: ${AMZ_JSON}\r\nContent-Length: ${body.length}\r\nx-amz-crc32: ${crc32(body)}\r\nConnection: close\r\n\r\n`;
  cutAfterLinger(socket);
  let drained = 0;
  socket.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > REFUSED_BODY_DRAIN_BYTES_MAX) socket.destroy();
  });
  socket.on('error', () => socket.destroy());
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
}

/** Cuts a refused connection after the linger, unless it closed first. */
function cutAfterLinger(socket: Duplex): void {
  // Not unref'd: a server closing waits for the in-flight connection, at most this long.
  const timer = setTimeout(() => socket.destroy(), REFUSED_CONNECTION_LINGER_MS);
  socket.once('close', () => clearTimeout(timer));
}

/** A body that cannot be decoded: 400, the rest of it drained (bounded) so the client reads the answer. */
function rejectUndecodable(request: IncomingMessage, response: ServerResponse, requestId: string | undefined, message: string): void {
  if (requestId !== undefined) response.setHeader('x-amzn-RequestId', requestId);
  response.setHeader('Connection', 'close');
  sendError(new NodeReply(response, undefined), serializationError(message), undefined);
  drainAfterAnswer(request);
}

/**
 * What is still read of a refused too-deep body: a small one is read to its end, and its
 * connection closed at once; past this, reading stops. Reading and dropping a 16 MB body costs the
 * event loop ~30 ms, which sixteen hostile bodies at once would take from every other client.
 */
const REFUSED_BODY_DRAIN_BYTES_MAX = 256 * 1024;

/**
 * After a refused body's answer, how long its connection is held open but unread before it is cut:
 * time for the client to read the answer (before a reset could drop it from its receive buffer)
 * while its upload stalls. Network I/O only: no DynamoDB behaviour depends on this timer.
 */
const REFUSED_CONNECTION_LINGER_MS = 2_000;

/**
 * Set up before the early answer to a refused body, so that a hostile upload costs neither memory
 * nor the event loop's time: the answer says `Connection: close` (the client must not send another
 * request behind a body nobody reads); at most a little more of the body is read (a small body to
 * its end); then reading stops, and the connection is cut after a short linger.
 *
 * Node ends a `Connection: close` response by destroying the socket at once, which with unread
 * bytes pending resets the connection and can drop the answer from the client's receive buffer
 * while its upload still runs. So this one socket only half-closes (FIN after the answer) when
 * Node ends it, and is destroyed by the linger timer.
 */
function lingerAfterRefusal(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket;
  response.setHeader('Connection', 'close');
  socket.destroySoon = () => {
    socket.end();
  };
  cutAfterLinger(socket);
  let drained = 0;
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    // Paused, the request stops the socket's reads once its small buffer fills (Node's parser
    // stops reading when a push is refused); the client's upload then waits on the kernel.
    if (drained > REFUSED_BODY_DRAIN_BYTES_MAX) request.pause();
  });
  // A small body read to its end leaves nothing unread: the connection closes cleanly once the
  // answer is out (Node ends a `Connection: close` response's socket with destroySoon).
  request.on('end', () => {
    if (response.writableFinished) socket.destroy();
    else response.once('finish', () => socket.destroy());
  });
  request.resume();
}

/** Past this many bytes of an oversized body the connection is cut instead of drained. */
const OVERSIZED_BODY_DRAIN_BYTES_MAX = 4 * REQUEST_BODY_BYTES_MAX;

function rejectTooLarge(request: IncomingMessage, response: ServerResponse, requestId: string | undefined): void {
  // Close after answering, but drain what the client is still sending (up to a bound) so that it
  // reads our 413 instead of a connection reset in the middle of its upload.
  if (requestId !== undefined) response.setHeader('x-amzn-RequestId', requestId);
  response.setHeader('Connection', 'close');
  sendError(new NodeReply(response, undefined), coralServiceError('RequestEntityTooLargeException', 'Request entity too large', 413), undefined);
  drainAfterAnswer(request);
}

/**
 * After an early answer, reads and drops what the client is still sending, up to a bound, so that
 * it reads the answer instead of a connection reset mid-upload.
 */
function drainAfterAnswer(request: IncomingMessage): void {
  let drained = 0;
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > OVERSIZED_BODY_DRAIN_BYTES_MAX) request.socket.destroy();
  });
  request.resume();
}

function handleBody(
  state: HandlerState,
  request: RequestLike,
  reply: Reply,
  body: Body,
  payloadHash: string | undefined,
  requestId: string | undefined,
): void {
  if (state.gate.closing) {
    // A request whose body completed after close began is not run (see request-gate.ts).
    sendError(reply, serviceUnavailable(), requestId);
    return;
  }
  const rawContentType = request.headers['content-type'];
  // The SDKs send exactly one of the two types; only other values need parsing.
  const contentType =
    rawContentType === AMZ_JSON || rawContentType === 'application/json' ? rawContentType : (rawContentType ?? '').split(';')[0]!.trim();
  const isJsonContent = contentType === AMZ_JSON || contentType === 'application/json' || contentType === AMZ_JSON_1_1;
  if (request.method !== 'POST' || !isServicePath(request.url) || ((body === TOO_DEEP || body.length > 0) && !isJsonContent)) {
    sendText(reply, 404, UNKNOWN_OPERATION_XML, requestId);
    return;
  }
  const responseType = contentType === 'application/json' || contentType === AMZ_JSON_1_1 ? contentType : AMZ_JSON;
  const operation = resolveOperation(state, request, body, payloadHash);
  if (operation instanceof DynamoError) {
    const engine = state.options.engine;
    if (engine.metricsEnabled) engine.telemetry.requests.failed('', undefined, operation, engine.clock.nowMs());
    sendError(reply, operation, requestId, responseType, true);
    return;
  }
  const name = operation.operation.name;
  const engine = state.options.engine;
  const recording = engine.metricsEnabled;
  let validated: unknown;
  // performance.now(): real elapsed time as a double, without the two BigInts of hrtime.bigint().
  const startedMs = recording ? performance.now() : 0;
  try {
    // Only DescribeEndpoints reads the Host (it names the address the client used).
    const context = name === 'DescribeEndpoints' ? { ...state.validation, host: request.headers.host } : state.validation;
    validated = checkRequest(operation.operation, operation.input, context);
  } catch (error) {
    if (recording) engine.telemetry.requests.failed(name, undefined, error, engine.clock.nowMs());
    sendFailure(state, reply, error, requestId, responseType);
    return;
  }
  const exchange = new Exchange(state, reply, requestId, responseType, operation.operation, validated, recording, startedMs);
  // Decided before the operation runs: a faulted request reads, writes and consumes nothing.
  const faults = state.options.faults;
  if (faults !== undefined && !faults.empty) {
    const fault = faults.decide(name, operation.input, tablesOf(operation.operation, validated));
    if (fault !== undefined) {
      applyFault(fault, engine, exchange);
      return;
    }
  }
  runOperation(engine, exchange);
}

/**
 * A validated request on its way to its answer: what answering it needs, in one object per
 * request instead of a pair of closures (and their context) made for every request, though only
 * an operation that answers with a promise needs functions to hand it.
 */
class Exchange implements GateEntry {
  // Its place among the requests a closing server waits for (request-gate.ts), while it waits.
  gateState = GATE_OUT;
  gatePrevious: GateEntry | undefined = undefined;
  gateNext: GateEntry | undefined = undefined;

  constructor(
    readonly state: HandlerState,
    readonly reply: Reply,
    readonly requestId: string | undefined,
    readonly responseType: string,
    readonly operation: AnyOperation,
    readonly validated: unknown,
    /** Whether metrics were on when the request arrived (its latency is timed from then). */
    readonly recording: boolean,
    readonly startedMs: number,
  ) {}

  succeeded(value: object): void {
    // Answered already by a closing server whose wait ran out: this outcome is dropped.
    if (this.gateState !== GATE_OUT && !this.state.gate.release(this)) return;
    if (this.recording) {
      const engine = this.state.options.engine;
      engine.telemetry.requests.succeeded(this.operation.name, tablesOf(this.operation, this.validated), responseBody(value), elapsedMsSince(this.startedMs), engine.clock.nowMs());
    }
    sendResult(this.state, this.reply, value, this.requestId, this.responseType);
  }

  failed(error: unknown): void {
    if (this.gateState !== GATE_OUT && !this.state.gate.release(this)) return;
    if (this.recording) {
      const engine = this.state.options.engine;
      engine.telemetry.requests.failed(this.operation.name, tablesOf(this.operation, this.validated), error, engine.clock.nowMs());
    }
    sendFailure(this.state, this.reply, error, this.requestId, this.responseType);
  }

  /** The closing server's wait ran out before this request's answer (request-gate.ts). */
  refuse(): void {
    try {
      sendError(this.reply, serviceUnavailable(), this.requestId, this.responseType);
    } catch {
      // The client went away meanwhile: nobody is left to answer.
    }
  }
}

function runOperation(engine: Engine, exchange: Exchange): void {
  let result: Promise<object> | object;
  try {
    result = exchange.operation.execute(engine, exchange.validated);
  } catch (error) {
    exchange.failed(error);
    return;
  }
  // Operations that answer synchronously (GetItem, the control plane's reads) are answered in the
  // same turn: no promise, no microtask hop. Writes answer once their storage write is durable.
  if (!(result instanceof Promise)) {
    exchange.succeeded(result);
    return;
  }
  // Answered in a later turn: a closing server waits for it (request-gate.ts).
  exchange.state.gate.admit(exchange);
  result.then(
    (value) => exchange.succeeded(value),
    (error: unknown) => exchange.failed(error),
  );
}

/**
 * Holds the request for the fault's latency (real time: what a client's timeout sees), then fails
 * or runs it. A held request is admitted (request-gate.ts): a closing server runs it when its time
 * comes, and answers it ServiceUnavailable instead (never running it) if close's wait ends first.
 */
function applyFault(fault: FaultDecision, engine: Engine, exchange: Exchange): void {
  const act = (): void => {
    if (exchange.gateState === GATE_REFUSED) return;
    if (fault.error === undefined) runOperation(engine, exchange);
    else exchange.failed(fault.error);
  };
  if (fault.latencyMs <= 0) {
    act();
    return;
  }
  exchange.state.gate.admit(exchange);
  // Unref'd: a request the closing server answered already does not keep the process alive.
  setTimeout(act, fault.latencyMs).unref();
}

/** Server-side latency (SuccessfulRequestLatency): real elapsed time, whatever the clock's mode. */
function elapsedMsSince(startedMs: number): number {
  return performance.now() - startedMs;
}

function sendResult(state: HandlerState, reply: Reply, result: object, requestId: string | undefined, contentType: string): void {
  try {
    if (result instanceof JsonText) sendPayload(reply, 200, result.encoded ?? result.text, requestId, contentType, true);
    else sendJson(reply, 200, result, requestId, contentType, true);
  } catch (error) {
    sendFailure(state, reply, error, requestId, contentType);
  }
}

function sendFailure(state: HandlerState, reply: Reply, error: unknown, requestId: string | undefined, contentType: string): void {
  if (error instanceof DynamoError) {
    sendError(reply, error, requestId, contentType, true);
  } else {
    state.options.onInternalError(error);
    sendError(reply, internalError(), requestId, contentType, true);
  }
}

interface ResolvedRequest {
  readonly operation: AnyOperation;
  readonly input: unknown;
}

/**
 * JSON, target and authentication, in DynamoDB's order; returns the error to send instead. A body
 * nested too deep is DynamoDB's nesting ValidationException once target and authentication pass.
 * Under `--auth verify` the signature is checked first, before the body is parsed.
 */
function resolveOperation(state: HandlerState, request: RequestLike, body: Body, payloadHash: string | undefined): ResolvedRequest | DynamoError {
  const options = state.options;
  const target = request.headers['x-amz-target'];
  if (options.signatureVerifier !== undefined) {
    const service = typeof target === 'string' && target.startsWith(AUTO_SCALING_TARGET_PREFIX) ? AUTO_SCALING_SIGNING_NAME : DYNAMODB_SIGNING_NAME;
    const authError = authenticate(options, request, service, payloadHash);
    if (authError !== undefined) return authError;
  }
  let input: unknown = undefined;
  if (body !== TOO_DEEP && body.length > 0) {
    try {
      input = JSON.parse(body.toString('utf8'));
    } catch {
      return serializationError();
    }
  }
  const operation = typeof target === 'string' ? state.targets.operationOf(options, target) : undefined;
  if (operation === undefined) {
    // DynamoDB's answer to an unknown target, whether AWS has the operation or not; the server
    // log says which operation AWS has and dynatwin lacks.
    if (typeof target === 'string' && target.startsWith(TARGET_PREFIX)) options.onUnimplementedOperation?.(target.slice(TARGET_PREFIX.length));
    return coralServiceError('UnknownOperationException', '');
  }
  if (options.signatureVerifier === undefined) {
    const authError = checkAuthorization(request);
    if (authError !== undefined) return authError;
  }
  if (body === TOO_DEEP) return validationError(NESTING_TOO_DEEP);
  if (body.length === 0) return serializationError();
  return { operation, input };
}

/** The operation an X-Amz-Target names: DynamoDB's, DynamoDB Streams' or Application Auto Scaling's. */
function operationOfTarget(options: HandlerOptions, target: string): AnyOperation | undefined {
  if (target.startsWith(TARGET_PREFIX)) return options.operations.get(target.slice(TARGET_PREFIX.length));
  if (target.startsWith(STREAMS_TARGET_PREFIX)) return options.streamOperations?.get(target.slice(STREAMS_TARGET_PREFIX.length));
  if (target.startsWith(AUTO_SCALING_TARGET_PREFIX)) return options.autoScalingOperations?.get(target.slice(AUTO_SCALING_TARGET_PREFIX.length));
  return undefined;
}


function sendJson(reply: Reply, status: number, body: object, requestId: string | undefined, contentType: string, deferred: boolean): void {
  sendPayload(reply, status, JSON.stringify(body), requestId, contentType, deferred);
}

function sendError(reply: Reply, error: DynamoError, requestId: string | undefined, contentType = AMZ_JSON, deferred = false): void {
  sendJson(reply, error.statusCode, error.toBody(), requestId, contentType, deferred);
}

function sendText(reply: Reply, status: number, text: string, requestId: string | undefined): void {
  sendPayload(reply, status, text, requestId, undefined, false);
}

/**
 * Writes status, headers and body. `requestId` is undefined when it (and possibly other headers)
 * were already set on the response; otherwise it goes first, so the header order is the same
 * either way: x-amzn-RequestId, [CORS], Content-Type, Content-Length, x-amz-crc32.
 *
 * Hot path: one writeHead with a flat header list instead of a setHeader per header (each
 * validates the header and stores it in the response's header map), and the body as a string,
 * which Node joins to the header block into one chunk (no Buffer copy of the body, no separate
 * header chunk). The SDKs verify x-amz-crc32 against the body bytes; crc32() of a string hashes
 * its UTF-8 bytes, and JSON.stringify output is always well-formed UTF-16, so those are exactly
 * the bytes sent. When headers were preset (CORS, which may echo request bytes >= 0x80), the body
 * goes as a Buffer, as Node would otherwise send that header block UTF-8 encoded along with it.
 * An EncodedText payload (GetItem's answer, kept per stored item) goes as its bytes with their
 * kept checksum: for a large body that beats the one-chunk string, which Node flattens, measures
 * and encodes per request. With `deferred`, the bytes may wait for the end of the event-loop turn (outbox.ts).
 */
function sendPayload(
  reply: Reply,
  status: number,
  payload: string | EncodedText,
  requestId: string | undefined,
  contentType: string | undefined,
  deferred: boolean,
): void {
  // Compression is asked for by few clients (the JavaScript SDK never): one header lookup otherwise.
  const acceptEncoding = reply.acceptEncoding();
  if (acceptEncoding !== undefined) {
    const encoding = responseEncodingOf(acceptEncoding);
    if (encoding !== undefined) {
      const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload.bytes;
      if (bytes.length >= RESPONSE_COMPRESSION_BYTES_MIN) {
        sendCompressed(reply, status, bytes, requestId, contentType, encoding);
        return;
      }
    }
  }
  let body: string | Buffer;
  let length: number | string;
  let checksum: number | string;
  if (typeof payload !== 'string') {
    // Already encoded (GetItem's kept answer): sent as bytes, the header block as its own chunk.
    body = payload.bytes;
    length = payload.lengthText;
    checksum = payload.crc32Text;
  } else if (requestId === undefined) {
    body = Buffer.from(payload, 'utf8');
    length = body.length;
    checksum = crc32(body);
  } else {
    body = payload;
    length = Buffer.byteLength(payload, 'utf8');
    checksum = crc32(payload);
  }
  let headers: (string | number)[];
  if (requestId === undefined) {
    headers = [];
    if (contentType !== undefined) headers.push('Content-Type', contentType);
    headers.push('Content-Length', length, 'x-amz-crc32', checksum);
  } else {
    headers =
      contentType === undefined
        ? ['x-amzn-RequestId', requestId, 'Content-Length', length, 'x-amz-crc32', checksum]
        : ['x-amzn-RequestId', requestId, 'Content-Type', contentType, 'Content-Length', length, 'x-amz-crc32', checksum];
  }
  reply.send(status, headers, body, deferred);
}

/**
 * A compressed response, compressed off the event loop (zlib's thread pool). As on DynamoDB,
 * x-amz-crc32 is the checksum of the bytes sent, i.e. of the compressed body (aws-sdk-go-v2's
 * DynamoDB customizations check it before decompressing).
 */
function sendCompressed(
  reply: Reply,
  status: number,
  bytes: Buffer,
  requestId: string | undefined,
  contentType: string | undefined,
  encoding: ResponseEncoding,
): void {
  const compress = encoding === 'gzip' ? gzip : deflate;
  compress(bytes, (error, compressed) => {
    const sent = error === null ? compressed : bytes;
    const headers: (string | number)[] = requestId === undefined ? [] : ['x-amzn-RequestId', requestId];
    if (contentType !== undefined) headers.push('Content-Type', contentType);
    if (error === null) headers.push('Content-Encoding', encoding);
    headers.push('Content-Length', sent.length, 'x-amz-crc32', crc32(sent));
    try {
      reply.send(status, headers, sent, false);
    } catch {
      // The client went away while the body was compressed: nobody is left to answer.
    }
  });
}
