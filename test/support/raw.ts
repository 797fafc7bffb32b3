/**
 * Raw HTTP requests to a dynatwin endpoint, for protocol tests that no SDK would send.
 */
import { request, Agent } from 'node:http';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

export const SIGNED_HEADERS = {
  Authorization:
    'AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=' +
    'a'.repeat(64),
  'X-Amz-Date': '20260101T000000Z',
};

export function rawRequest(
  endpoint: string,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer; agent?: Agent | false },
): Promise<RawResponse> {
  const url = new URL(options.path ?? '/', endpoint);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: options.method ?? 'POST', headers: options.headers ?? {}, agent: options.agent },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** A POST of a DynamoDB operation with valid-looking authentication. */
export function callOperation(endpoint: string, operation: string, body: string | Buffer, agent?: Agent): Promise<RawResponse> {
  return rawRequest(endpoint, {
    headers: {
      ...SIGNED_HEADERS,
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': 'DynamoDB_20120810.' + operation,
    },
    body,
    agent,
  });
}
