/**
 * A minimal keep-alive HTTP/1.1 client on a raw TCP socket, for the measured phase of the load.
 *
 * Why: node:http's client spends more CPU per request than a fast server spends answering it, so
 * on a 2-core machine the generator, not the server, set the ceiling. This client writes one
 * pre-built Buffer per request and reads only the status line and Content-Length of the answer,
 * which cuts the generator's cost several times and lets the servers be compared.
 */
import { connect, type Socket } from 'node:net';

export interface RawReply {
  readonly status: number;
  /** Only filled for non-200 answers, for error reports. */
  readonly body: string;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);
/** Both spellings servers use, without the first letter, whose case varies too. */
const CONTENT_LENGTH_NAMES = [Buffer.from('\nContent-Length:'), Buffer.from('\ncontent-length:')];
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const SPACE = 0x20;

/** The status code of "HTTP/1.1 200 OK...", read from its three digits. */
export function statusOf(head: Buffer): number {
  return (head[9]! - DIGIT_0) * 100 + (head[10]! - DIGIT_0) * 10 + (head[11]! - DIGIT_0);
}

/**
 * The Content-Length of a response head that ends at `headerEnd`, or -1 when the head has none.
 * Matches the two spellings Node, dynalite and dynatwin use (not mixed case like "Content-length").
 */
export function contentLengthOf(head: Buffer, headerEnd: number): number {
  for (const name of CONTENT_LENGTH_NAMES) {
    const at = head.indexOf(name);
    if (at < 0 || at > headerEnd) continue;
    let i = at + name.length;
    while (head[i] === SPACE) i++;
    let value = 0;
    let digits = 0;
    for (; i < headerEnd && head[i]! >= DIGIT_0 && head[i]! <= DIGIT_9; i++, digits++) value = value * 10 + (head[i]! - DIGIT_0);
    return digits === 0 ? -1 : value;
  }
  return -1;
}

export class RawConnection {
  private readonly socket: Socket;
  private buffered: Buffer = EMPTY;
  private waiting: ((reply: RawReply | Error) => void) | undefined;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('connection closed')));
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Sends one complete request (headers and body) and calls back with its reply. One at a time. */
  send(request: Buffer, onReply: (reply: RawReply | Error) => void): void {
    if (this.waiting !== undefined) throw new Error('assertion failed: one request at a time per connection');
    this.waiting = onReply;
    this.socket.write(request);
  }

  close(): void {
    this.waiting = undefined;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    // Read on the bytes, without decoding the head to a string: this runs once per answer on the
    // generator's hot path, beside the server on the same two cores.
    const headerEnd = this.buffered.indexOf(HEADER_END);
    if (headerEnd < 0) return;
    const status = statusOf(this.buffered);
    const contentLength = contentLengthOf(this.buffered, headerEnd);
    if (contentLength < 0) {
      this.fail(new Error(`HTTP ${status} without Content-Length`));
      return;
    }
    const total = headerEnd + HEADER_END.length + contentLength;
    if (this.buffered.length < total) return;
    const body = status === 200 ? '' : this.buffered.toString('utf8', headerEnd + HEADER_END.length, total);
    this.buffered = this.buffered.length === total ? EMPTY : this.buffered.subarray(total);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ status, body });
  }

  private fail(error: Error): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(error);
  }
}

/** The bytes of one POST / with DynamoDB's headers and the given JSON body. */
export function buildRequest(port: number, headers: Readonly<Record<string, string>>, body: string): Buffer {
  const bodyBytes = Buffer.from(body, 'utf8');
  let head = `POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  head += `Content-Length: ${bodyBytes.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), bodyBytes]);
}
