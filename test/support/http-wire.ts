/**
 * Test support: HTTP/1.1 on a raw TCP socket, for what no HTTP client library sends on purpose:
 * pipelined requests, bytes one at a time, a half-closed connection, malformed heads. Answers are
 * read as they come (status line, headers in order, a Content-Length body).
 */
import { connect, type Socket } from 'node:net';

export interface WireResponse {
  readonly status: number;
  /** Every header line, name and value, in the order sent. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
}

const HEAD_END = Buffer.from('\r\n\r\n');

export class WireClient {
  readonly #socket: Socket;
  #buffered = Buffer.alloc(0);
  readonly #responses: WireResponse[] = [];
  #closed = false;
  #wake: (() => void) | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffered = Buffer.concat([this.#buffered, chunk]);
      this.#parse();
      this.#notify();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.#closed = true;
      this.#notify();
    });
  }

  static open(port: number): Promise<WireClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new WireClient(socket)));
      socket.once('error', reject);
    });
  }

  write(bytes: string | Buffer): Promise<void> {
    return new Promise((resolve) => this.#socket.write(bytes, () => resolve()));
  }

  /** Ends the client's side (a half-close): the server may still answer. */
  end(): void {
    this.#socket.end();
  }

  destroy(): void {
    this.#socket.destroy();
  }

  /** Drops the connection with a TCP reset (RST), as a client killed mid-request may: the server's socket closes at once. */
  reset(): void {
    this.#socket.resetAndDestroy();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The answers read so far. */
  get received(): readonly WireResponse[] {
    return [...this.#responses];
  }

  /** Resolves with the first `count` answers, or with fewer if the server closes first. */
  async responses(count: number): Promise<WireResponse[]> {
    while (this.#responses.length < count && !this.#closed) await new Promise<void>((resolve) => (this.#wake = resolve));
    return this.#responses.slice(0, count);
  }

  /** Resolves once the server has closed the connection, with every answer it sent. */
  async untilClosed(): Promise<WireResponse[]> {
    while (!this.#closed) await new Promise<void>((resolve) => (this.#wake = resolve));
    return [...this.#responses];
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #parse(): void {
    for (;;) {
      const headEnd = this.#buffered.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const lines = this.#buffered.toString('latin1', 0, headEnd).split('\r\n');
      const status = Number(lines[0]!.split(' ')[1]);
      const headers = lines.slice(1).map((line): [string, string] => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon), line.slice(colon + 1).trim()];
      });
      const framing = bodyFraming(headers, this.#buffered, headEnd + 4);
      if (framing === undefined) return;
      const [body, end] = framing;
      this.#responses.push({ status, headers, body });
      this.#buffered = this.#buffered.subarray(end);
    }
  }
}

/**
 * The body after a head, and where the answer ends: by Content-Length, or chunked (node:http's
 * own refusals); undefined until all of it has arrived.
 */
function bodyFraming(headers: readonly (readonly [string, string])[], bytes: Buffer, start: number): [string, number] | undefined {
  const chunked = headers.some(([name, value]) => name.toLowerCase() === 'transfer-encoding' && value.toLowerCase() === 'chunked');
  if (!chunked) {
    const lengthHeader = headers.find(([name]) => name.toLowerCase() === 'content-length');
    const end = start + (lengthHeader === undefined ? 0 : Number(lengthHeader[1]));
    return bytes.length < end ? undefined : [bytes.toString('utf8', start, end), end];
  }
  const parts: Buffer[] = [];
  for (let at = start; ; ) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(bytes.toString('latin1', at, lineEnd), 16);
    const dataEnd = lineEnd + 2 + size;
    if (bytes.length < dataEnd + 2) return undefined;
    if (size === 0) return [Buffer.concat(parts).toString('utf8'), dataEnd + 2];
    parts.push(bytes.subarray(lineEnd + 2, dataEnd));
    at = dataEnd + 2;
  }
}

/** The bytes of a signed-looking DynamoDB request, as the SDKs send it. */
export function dynamoRequest(port: number, operation: string, body: string, extraHeaders = ''): string {
  return (
    'POST / HTTP/1.1\r\n' +
    `host: 127.0.0.1:${port}\r\n` +
    'content-type: application/x-amz-json-1.0\r\n' +
    `x-amz-target: DynamoDB_20120810.${operation}\r\n` +
    'x-amz-date: 20260101T000000Z\r\n' +
    'authorization: AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=' +
    'a'.repeat(64) +
    '\r\n' +
    extraHeaders +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n` +
    body
  );
}
