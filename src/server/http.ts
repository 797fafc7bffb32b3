/**
 * The HTTP front door: DynamoDB's JSON protocol over POST /, checked in the order DynamoDB checks
 * a request (content type, JSON, target, authentication, body shape), then handed to the
 * operation. Every failure becomes a DynamoDB-shaped error body; a 500 means a bug in dynatwin.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { crc32 } from 'node:zlib';
import { coralServiceError, DynamoError, internalError, serializationError } from '../errors.js';
import type { Engine } from '../engine/engine.js';
import type { AnyOperation } from '../operations/operation.js';
import { checkConstraints, deserialize } from '../operations/shape.js';
import { checkAuthorization } from './auth.js';
import { RequestIds } from './request-id.js';

/** DynamoDB accepts request bodies up to 16 MB (the BatchWriteItem limit). */
export const REQUEST_BODY_BYTES_MAX = 16 * 1024 * 1024;

const TARGET_PREFIX = 'DynamoDB_20120810.';
const HEALTH_BODY = 'healthy: dynamodb.us-east-1.amazonaws.com ';
const UNKNOWN_OPERATION_XML = '<UnknownOperationException/>\n';

export interface HandlerOptions {
  readonly engine: Engine;
  readonly operations: ReadonlyMap<string, AnyOperation>;
  /** Extra routes (GET /dynatwin/...) tried before the DynamoDB protocol; true when handled. */
  readonly extraRoutes?: (request: IncomingMessage, response: ServerResponse) => boolean;
  /** Called with bugs (never with DynamoDB errors), for the server log. */
  readonly onInternalError: (error: unknown) => void;
}

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

export function createRequestHandler(options: HandlerOptions): RequestHandler {
  const requestIds = new RequestIds();
  return (request, response) => {
    response.setHeader('x-amzn-RequestId', requestIds.next());
    if (request.headers.origin !== undefined) {
      setCorsHeaders(request, response);
      if (request.method === 'OPTIONS') {
        response.setHeader('Content-Length', 0);
        response.end();
        request.resume();
        return;
      }
    }
    if (options.extraRoutes?.(request, response)) return;
    if (request.method === 'GET' && (request.url === '/' || request.url === '')) {
      sendText(response, 200, HEALTH_BODY);
      request.resume();
      return;
    }
    readBody(request, response, (body) => handleBody(options, request, response, body));
  };
}

function setCorsHeaders(request: IncomingMessage, response: ServerResponse): void {
  response.setHeader('Access-Control-Allow-Origin', '*');
  response.setHeader('Access-Control-Expose-Headers', 'x-amzn-RequestId,x-amz-crc32,x-amz-id-2');
  const requestedHeaders = request.headers['access-control-request-headers'];
  if (requestedHeaders !== undefined) response.setHeader('Access-Control-Allow-Headers', requestedHeaders);
  const requestedMethod = request.headers['access-control-request-method'];
  if (requestedMethod !== undefined) response.setHeader('Access-Control-Allow-Methods', requestedMethod);
  if (request.method === 'OPTIONS') response.setHeader('Access-Control-Max-Age', 172800);
}

/** Collects the body up to the limit; past it, answers 413 and stops reading. */
function readBody(request: IncomingMessage, response: ServerResponse, onBody: (body: Buffer) => void): void {
  const declaredLength = Number(request.headers['content-length'] ?? 0);
  if (declaredLength > REQUEST_BODY_BYTES_MAX) {
    rejectTooLarge(request, response);
    return;
  }
  const chunks: Buffer[] = [];
  let length = 0;
  let rejected = false;
  request.on('data', (chunk: Buffer) => {
    if (rejected) return;
    length += chunk.length;
    if (length > REQUEST_BODY_BYTES_MAX) {
      rejected = true;
      rejectTooLarge(request, response);
      return;
    }
    chunks.push(chunk);
  });
  request.on('end', () => {
    if (!rejected) onBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length));
  });
  request.on('error', () => {
    // The client went away mid-body: there is nobody left to answer.
    rejected = true;
  });
}

/** Past this many bytes of an oversized body the connection is cut instead of drained. */
const OVERSIZED_BODY_DRAIN_BYTES_MAX = 4 * REQUEST_BODY_BYTES_MAX;

function rejectTooLarge(request: IncomingMessage, response: ServerResponse): void {
  // Close after answering, but drain what the client is still sending (up to a bound) so that it
  // reads our 413 instead of a connection reset in the middle of its upload.
  response.setHeader('Connection', 'close');
  sendError(response, coralServiceError('RequestEntityTooLargeException', 'Request entity too large', 413));
  let drained = 0;
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > OVERSIZED_BODY_DRAIN_BYTES_MAX) request.socket.destroy();
  });
  request.resume();
}

function handleBody(options: HandlerOptions, request: IncomingMessage, response: ServerResponse, body: Buffer): void {
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim();
  const isJsonContent = contentType === 'application/x-amz-json-1.0' || contentType === 'application/json';
  if (request.method !== 'POST' || (body.length > 0 && !isJsonContent)) {
    sendText(response, 404, UNKNOWN_OPERATION_XML);
    return;
  }
  const responseType = contentType === 'application/json' ? 'application/json' : 'application/x-amz-json-1.0';
  const operation = resolveOperation(options, request, body);
  if (operation instanceof DynamoError) {
    sendError(response, operation, responseType);
    return;
  }
  runOperation(options, operation.operation, operation.input)
    .then((result) => sendJson(response, 200, result, responseType))
    .catch((error: unknown) => {
      if (error instanceof DynamoError) {
        sendError(response, error, responseType);
      } else {
        options.onInternalError(error);
        sendError(response, internalError(), responseType);
      }
    });
}

interface ResolvedRequest {
  readonly operation: AnyOperation;
  readonly input: unknown;
}

/** JSON, target and authentication, in DynamoDB's order; returns the error to send instead. */
function resolveOperation(options: HandlerOptions, request: IncomingMessage, body: Buffer): ResolvedRequest | DynamoError {
  let input: unknown = undefined;
  if (body.length > 0) {
    try {
      input = JSON.parse(body.toString('utf8'));
    } catch {
      return serializationError();
    }
  }
  const target = request.headers['x-amz-target'];
  const operation =
    typeof target === 'string' && target.startsWith(TARGET_PREFIX)
      ? options.operations.get(target.slice(TARGET_PREFIX.length))
      : undefined;
  if (operation === undefined) return coralServiceError('UnknownOperationException', '');
  const authError = checkAuthorization(request);
  if (authError !== undefined) return authError;
  if (body.length === 0) return serializationError();
  return { operation, input };
}

async function runOperation(options: HandlerOptions, operation: AnyOperation, body: unknown): Promise<object> {
  const input = deserialize(body, operation.members);
  checkConstraints(input, operation.members);
  const request = operation.validate(input, { expressions: options.engine.expressions });
  return operation.execute(options.engine, request);
}

function sendJson(response: ServerResponse, status: number, body: object, contentType: string): void {
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  response.statusCode = status;
  response.setHeader('Content-Type', contentType);
  response.setHeader('Content-Length', payload.length);
  // The SDKs verify this checksum of the body bytes.
  response.setHeader('x-amz-crc32', crc32(payload));
  response.end(payload);
}

function sendError(response: ServerResponse, error: DynamoError, contentType = 'application/x-amz-json-1.0'): void {
  sendJson(response, error.statusCode, error.toBody(), contentType);
}

function sendText(response: ServerResponse, status: number, text: string): void {
  const payload = Buffer.from(text, 'utf8');
  response.statusCode = status;
  response.setHeader('Content-Length', payload.length);
  response.setHeader('x-amz-crc32', crc32(payload));
  response.end(payload);
}
