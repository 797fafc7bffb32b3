/**
 * CloudWatch's three wire protocols on the DynamoDB endpoint, decoded into one input and encoded
 * from one output (service.ts):
 * - Smithy RPC v2 CBOR: `POST /service/GraniteServiceVersion20100801/operation/<Op>` with
 *   `smithy-protocol: rpc-v2-cbor` (the AWS CLI v1.4x / botocore's default);
 * - AWS JSON 1.0: `X-Amz-Target: GraniteServiceVersion20100801.<Op>` (@aws-sdk/client-cloudwatch's
 *   default in 3.11xx);
 * - AWS Query: a form-encoded POST to `/` with `Action=<Op>`, answered in XML (older SDKs and CLIs).
 * CloudWatch is "awsQueryCompatible": JSON and CBOR errors also carry `x-amzn-query-error:
 * <Code>;Sender`, from which clients take the Query error code.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { CborError, decodeCbor, encodeCbor, type CborValue } from './cbor.js';
import { CloudWatchError, serializationFailure, unknownOperation } from './errors.js';
import { decodeQueryBody, encodeQueryError, encodeQueryResponse } from './query.js';
import { CLOUDWATCH_OPERATIONS, type CloudWatchContext, type Input } from './service.js';

export type CloudWatchProtocol = 'cbor' | 'json' | 'query';

const SERVICE = 'GraniteServiceVersion20100801';
export const CBOR_PATH_PREFIX = `/service/${SERVICE}/operation/`;
export const JSON_TARGET_PREFIX = `${SERVICE}.`;
const ERROR_NAMESPACE = 'com.amazonaws.cloudwatch#';

/** Which protocol a request speaks, if it is CloudWatch's at all. O(1): called for every request. */
export function cloudWatchProtocolOf(url: string | undefined, headers: IncomingHttpHeaders): CloudWatchProtocol | undefined {
  if (url !== undefined && url.startsWith(CBOR_PATH_PREFIX)) return 'cbor';
  const target = headers['x-amz-target'];
  if (typeof target === 'string' && target.startsWith(JSON_TARGET_PREFIX)) return 'json';
  const contentType = headers['content-type'];
  if (url === '/' && typeof contentType === 'string' && contentType.startsWith('application/x-www-form-urlencoded')) return 'query';
  return undefined;
}

export interface CloudWatchAnswer {
  readonly status: number;
  readonly headers: readonly [string, string][];
  readonly body: string | Buffer;
}

/** Runs one CloudWatch request; every failure is an answer (4xx for the caller's faults), never a throw. */
export function answerCloudWatch(
  context: CloudWatchContext,
  protocol: CloudWatchProtocol,
  url: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
  requestId: string,
  onInternalError: (error: unknown) => void,
): CloudWatchAnswer {
  try {
    const request = decodeRequest(protocol, url, headers, body);
    const operation = Object.hasOwn(CLOUDWATCH_OPERATIONS, request.operation) ? CLOUDWATCH_OPERATIONS[request.operation] : undefined;
    if (operation === undefined) throw unknownOperation(request.operation);
    return encodeOutput(protocol, request.operation, operation(context, request.input), requestId);
  } catch (error) {
    if (error instanceof CloudWatchError) return encodeError(protocol, error, requestId);
    onInternalError(error);
    return encodeError(protocol, new CloudWatchError('InternalServiceFault', 'InternalServiceError', 'Internal service error', 500), requestId);
  }
}

/** An error decided before the request is read (authentication), in the request's protocol. */
export function cloudWatchErrorAnswer(protocol: CloudWatchProtocol, error: CloudWatchError, requestId: string): CloudWatchAnswer {
  return encodeError(protocol, error, requestId);
}

function decodeRequest(protocol: CloudWatchProtocol, url: string, headers: IncomingHttpHeaders, body: Buffer): { operation: string; input: Input } {
  switch (protocol) {
    case 'cbor': {
      const operation = url.slice(CBOR_PATH_PREFIX.length).split('?')[0]!;
      if (body.length === 0) return { operation, input: {} };
      let value: CborValue;
      try {
        value = decodeCbor(body);
      } catch (error) {
        if (error instanceof CborError) throw serializationFailure(`Malformed CBOR body: ${error.message}`);
        throw error;
      }
      return { operation, input: inputObject(value) };
    }
    case 'json': {
      const operation = (headers['x-amz-target'] as string).slice(JSON_TARGET_PREFIX.length);
      if (body.length === 0) return { operation, input: {} };
      let value: unknown;
      try {
        value = JSON.parse(body.toString('utf8'));
      } catch {
        throw serializationFailure('Malformed JSON body.');
      }
      return { operation, input: inputObject(value) };
    }
    case 'query': {
      const { action, input } = decodeQueryBody(body.toString('utf8'));
      return { operation: action, input };
    }
  }
}

function inputObject(value: unknown): Input {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date || value instanceof Uint8Array) {
    throw serializationFailure('The request body must be a structure.');
  }
  return value as Input;
}

function encodeOutput(protocol: CloudWatchProtocol, operation: string, output: object, requestId: string): CloudWatchAnswer {
  switch (protocol) {
    case 'cbor':
      return {
        status: 200,
        headers: [['x-amzn-RequestId', requestId], ['smithy-protocol', 'rpc-v2-cbor'], ['Content-Type', 'application/cbor']],
        body: encodeCbor(output as CborValue),
      };
    case 'json':
      return { status: 200, headers: [['x-amzn-RequestId', requestId], ['Content-Type', 'application/x-amz-json-1.0']], body: jsonOf(output) };
    case 'query':
      return { status: 200, headers: [['x-amzn-RequestId', requestId], ['Content-Type', 'text/xml']], body: encodeQueryResponse(operation, output, requestId) };
  }
}

function encodeError(protocol: CloudWatchProtocol, error: CloudWatchError, requestId: string): CloudWatchAnswer {
  const sender = error.statusCode < 500;
  const queryError: [string, string] = ['x-amzn-query-error', `${error.queryCode};${sender ? 'Sender' : 'Receiver'}`];
  const body = { __type: ERROR_NAMESPACE + error.shapeName, message: error.message };
  switch (protocol) {
    case 'cbor':
      return {
        status: error.statusCode,
        headers: [['x-amzn-RequestId', requestId], ['smithy-protocol', 'rpc-v2-cbor'], ['Content-Type', 'application/cbor'], queryError],
        body: encodeCbor(body),
      };
    case 'json':
      return { status: error.statusCode, headers: [['x-amzn-RequestId', requestId], ['Content-Type', 'application/x-amz-json-1.0'], queryError], body: JSON.stringify(body) };
    case 'query':
      return {
        status: error.statusCode,
        headers: [['x-amzn-RequestId', requestId], ['Content-Type', 'text/xml']],
        body: encodeQueryError(error.queryCode, error.message, requestId, sender),
      };
  }
}

/** JSON with timestamps as epoch seconds, as AWS JSON 1.0 sends them. */
function jsonOf(output: object): string {
  return JSON.stringify(output, function (this: Record<string, unknown>, key, value: unknown) {
    const original = this[key];
    return original instanceof Date ? original.getTime() / 1000 : value;
  });
}
