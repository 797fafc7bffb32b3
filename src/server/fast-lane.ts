/**
 * The fast lane: DynamoDB's protocol requests read and answered straight off the TCP socket,
 * without node:http's per-request machinery; everything else goes to node:http as before.
 *
 * Why. Almost every request a client sends is the same shape: `POST / HTTP/1.1`, a dozen headers,
 * a Content-Length body of a few hundred bytes, keep-alive. node:http turns each into an
 * IncomingMessage stream and a ServerResponse writer, with events, a header object and an
 * outgoing header block checked name by name. Measured on the bench machine (2 cores, 64
 * connections, the bench's raw client): a bare node:http server answering `{}` does ~38,000
 * requests/s; the same answer written by a plain `net` server, ~74,000. That difference was about
 * half of dynatwin's whole per-request cost for GetItem.
 *
 * What takes the lane. A request whose head is exactly the common shape (request line
 * `POST / HTTP/1.1`; header names that are tokens and values of visible characters; one Host, one
 * Content-Length of at most FAST_BODY_BYTES_MAX; no Transfer-Encoding, Content-Encoding, Expect,
 * Upgrade, Origin or `Connection` other than keep-alive) and that the handler accepts (an allowed
 * Host, an X-Amz-Target of an operation dynatwin serves: http.ts `FastHandler`). Anything else —
 * a page, the dashboard, CORS, CloudWatch, a chunked or compressed or large body, a malformed head
 * — hands the connection to node:http at that request's first byte, with the bytes already read,
 * for the rest of its life: node's parser then answers it exactly as before this lane existed
 * (including its refusals of bad HTTP, answered by http.ts answerClientError). If the client has
 * already ended its side (a half-close behind pipelined requests), node reads those bytes and the
 * end from a stream in the socket's place (ended-socket.ts). The lane never refuses anything itself.
 *
 * Answers. One request per connection is in flight (later pipelined requests wait, parsed once the
 * answer is queued), so answers leave in request order. The head is the one node:http writes for
 * the same answer: the handler's headers, then Date, Connection and Keep-Alive. Answers queued
 * with `deferred` leave at the end of the event-loop turn, together (see outbox.ts).
 *
 * Limits: a head of at most REQUEST_HEAD_BYTES_MAX (node's limit), HEADER_LINES_MAX header lines,
 * a body of at most FAST_BODY_BYTES_MAX held per connection, output paused on back-pressure, the
 * keep-alive timeout (and node's second more) for idle connections, which are closed, and for
 * requests that stop arriving, answered as node answers one past its time limit; so are a head
 * still arriving past node's headersTimeout (60 s) and a request past its requestTimeout (300 s),
 * however steadily their bytes trickle in.
 */
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import { Outbox, type Flushable } from './outbox.js';
import { EndedSocket } from './ended-socket.js';

/**
 * What Node's HTTP parser accepts of a request's head (request line and headers): its default
 * `maxHeaderSize`, 16 KB, which the server keeps (server.ts); the lane holds no more either.
 */
export const REQUEST_HEAD_BYTES_MAX = 16 * 1024;

/**
 * The largest body the lane holds. Larger ones (a BatchWriteItem of big items) go to node:http,
 * whose reader refuses an over-deep body as its bytes arrive instead of after 16 MB are held.
 */
export const FAST_BODY_BYTES_MAX = 1024 * 1024;
/**
 * Pipelined bytes held behind a request being answered before the lane stops reading the
 * connection: a client may send ahead, but not make the server buffer without limit (node:http
 * pauses a connection with answers pending likewise).
 */
const HELD_INPUT_BYTES_MAX = 1024 * 1024;
/** node:http's HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER: an idle connection outlives its announced keep-alive by this. */
const KEEP_ALIVE_TIMEOUT_BUFFER_MS = 1000;
/** More header lines than any SDK sends (~12); more go to node:http, which applies its own limit. */
const HEADER_LINES_MAX = 64;

const REQUEST_LINE = 'POST / HTTP/1.1\r\n';
const REQUEST_LINE_BYTES = Buffer.from(REQUEST_LINE, 'latin1');
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
/**
 * Every header line of a head node:http would accept as it is: a token name, a colon, a value of
 * tabs, visible ASCII and obs-text (RFC 9110 field-value), CRLF. Anything else — obs-fold, a space
 * before the colon, a control character, a bare CR or LF — is left to node's parser.
 */
const HEADER_LINES = /^(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[\t\x20-\x7e\x80-\xff]*\r\n)*$/;
/**
 * The start of a header line that may still become one HEADER_LINES takes: part of a name, a name
 * and part of its value (perhaps with its CR), or the CR of the blank line that ends the head.
 */
const HEADER_LINE_START = /^(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]*|[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[\t\x20-\x7e\x80-\xff]*\r?|\r)$/;
const CONTENT_LENGTH = /^[0-9]{1,10}$/;

/** The request the lane hands on: what http.ts reads of a request, and no more. */
export interface FastRequest {
  readonly method: 'POST';
  readonly url: '/';
  readonly headers: IncomingHttpHeaders;
}

/** Where an answer goes: a node:http response (http.ts) or a lane connection. */
export interface Reply {
  /** The Accept-Encoding of the request being answered (a compressed answer needs it). */
  acceptEncoding(): string | undefined;
  /**
   * Writes the status line, `headers` (name, value, name, value, ...) and `body`. With `deferred`,
   * the bytes may wait for the end of this event-loop turn (answers leave together).
   */
  send(status: number, headers: (string | number)[], body: string | Buffer, deferred: boolean): void;
}

/** What serves the lane's requests (http.ts). */
export interface FastHandler {
  /** Whether the lane may answer this request; if not, the connection goes to node:http. */
  accepts(request: FastRequest): boolean;
  /** Answers the request through `reply`, exactly once, now or later. */
  serve(request: FastRequest, body: Buffer, reply: Reply): void;
}

export interface FastLaneOptions {
  /**
   * node:http's own connection listener: takes a socket the lane hands over (or, once the client
   * ended its side, a stream in its place: ended-socket.ts).
   */
  readonly handOver: (socket: Duplex) => void;
  /**
   * node:http's answer to a request it gives up on (the server's 'clientError'): the lane hands
   * it a request cut short by the client's end, as node's parser would, and one that stopped
   * arriving, as node's request timeout would.
   */
  readonly clientError: (error: Error & { readonly code: string }, socket: Socket) => void;
  /** The handler of the moment (a reset replaces it); undefined sends every connection to node:http. */
  readonly handler: () => FastHandler | undefined;
  /** node:http's keep-alive timeout, which the lane keeps too (and announces, as node does). */
  readonly keepAliveTimeoutMs: number;
  /**
   * node:http's headersTimeout and requestTimeout, which the lane keeps too: the longest a head,
   * and a whole request, may take to arrive from its first byte. The idle timeout alone would let
   * a client that sends a byte now and then hold a connection and its buffer for ever.
   */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly onError: (error: unknown) => void;
}

/** The lane of one server: its connections and the answers waiting for the end of the turn (outbox.ts). */
export class FastLane {
  readonly #options: FastLaneOptions;
  readonly #connections = new Set<FastConnection>();
  readonly #outbox: Outbox;
  readonly #keepAliveHeader: string;
  readonly #date = new HttpDate();
  #closing = false;

  constructor(options: FastLaneOptions) {
    this.#options = options;
    this.#outbox = new Outbox(options.onError);
    this.#keepAliveHeader = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(options.keepAliveTimeoutMs / 1000)}\r\n\r\n`;
  }

  /** The server's 'connection' listener. */
  readonly accept = (socket: Socket): void => {
    if (this.#options.handler() === undefined) {
      this.#options.handOver(socket);
      return;
    }
    this.#connections.add(new FastConnection(this, socket));
  };

  /** Connections the lane holds now (tests, diagnostics). */
  get connectionCount(): number {
    return this.#connections.size;
  }

  /**
   * The server is closing: every answer from now on says `Connection: close` and ends its
   * connection (a request arriving on an idle connection is answered, by the handler's refusal,
   * not dropped). Idle connections stay open until endIdleConnections.
   */
  beginClosing(): void {
    this.#closing = true;
  }

  /**
   * Ends (FIN, not a reset) the connections with nothing in flight. Called once clients that were
   * between two requests have had time to send the next one and get its refusal: ending a
   * connection the moment close begins races the request the client is sending on it, which then
   * gets no answer at all.
   */
  endIdleConnections(): void {
    this.#closing = true;
    for (const connection of this.#connections) connection.endIfIdle();
  }

  get closing(): boolean {
    return this.#closing;
  }

  /** The server is closed: connections still open (a request still arriving, answers unread) are cut. */
  destroyConnections(): void {
    for (const connection of this.#connections) connection.destroy();
  }

  /**
   * How long a connection may be idle before the lane closes it: the keep-alive timeout its
   * answers announce, and a second more, as node:http does (its keep-alive timeout buffer), so
   * that a request sent just before the announced time finds the connection open.
   */
  get idleTimeoutMs(): number {
    return this.#options.keepAliveTimeoutMs + KEEP_ALIVE_TIMEOUT_BUFFER_MS;
  }

  get headersTimeoutMs(): number {
    return this.#options.headersTimeoutMs;
  }

  get requestTimeoutMs(): number {
    return this.#options.requestTimeoutMs;
  }

  handler(): FastHandler | undefined {
    return this.#options.handler();
  }

  /** The header lines node:http ends a keep-alive answer with: Date, Connection, Keep-Alive, blank line. */
  closingLines(keepAlive: boolean): string {
    return `Date: ${this.#date.now()}\r\n` + (keepAlive ? this.#keepAliveHeader : 'Connection: close\r\n\r\n');
  }

  handOver(connection: FastConnection, socket: Duplex): void {
    this.#connections.delete(connection);
    this.#options.handOver(socket);
  }

  /**
   * node:http's answer to a request it gives up on, for a lane request that did not arrive whole:
   * the client's end cut it short (node's parser calls that an invalid end of the stream), or it
   * stopped arriving (node's request timeout).
   */
  gaveUp(connection: FastConnection, socket: Socket, why: 'cut short' | 'stalled'): void {
    this.#connections.delete(connection);
    const error =
      why === 'cut short'
        ? Object.assign(new Error('Parse Error: Invalid EOF state'), { code: 'HPE_INVALID_EOF_STATE' })
        : Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    this.#options.clientError(error, socket);
  }

  forget(connection: FastConnection): void {
    this.#connections.delete(connection);
  }

  reportError(error: unknown): void {
    this.#options.onError(error);
  }

  /** Queues a connection's written answers for the end of the turn (once per turn: see #queued). */
  wait(connection: FastConnection): void {
    this.#outbox.add(connection);
  }
}

/** What a head is: a lane request (with where its body starts and how long it is), or not one. */
type HeadVerdict = { readonly request: FastRequest; readonly bodyStart: number; readonly bodyLength: number } | 'incomplete' | 'not-fast';

/**
 * Reads the head that starts at `start`. 'incomplete': more bytes are needed (and may still make a
 * lane request); 'not-fast': node:http must have this request.
 */
export function readHead(buffer: Buffer, start: number): HeadVerdict {
  const headEnd = buffer.indexOf(HEAD_END, start);
  if (headEnd < 0) return partialHeadVerdict(buffer, start);
  if (headEnd + 2 - start > REQUEST_HEAD_BYTES_MAX) return 'not-fast';
  // latin1: one character per byte, as node:http decodes header values.
  const head = buffer.toString('latin1', start, headEnd + 2);
  if (!head.startsWith(REQUEST_LINE)) return 'not-fast';
  const lines = head.slice(REQUEST_LINE.length);
  if (!HEADER_LINES.test(lines)) return 'not-fast';
  const read = readHeaderLines(lines);
  if (read === 'not-fast') return read;
  const { headers, contentLength } = read;
  if (contentLength === undefined || headers.host === undefined) return 'not-fast';
  const bodyLength = Number(contentLength);
  if (bodyLength > FAST_BODY_BYTES_MAX) return 'not-fast';
  return { request: { method: 'POST', url: '/', headers }, bodyStart: headEnd + 4, bodyLength };
}

/**
 * A head without its blank line yet: 'incomplete' only while what arrived can still become a lane
 * request. Anything else goes to node:http at once, because node answers it at once, and the lane
 * must not wait (until node's headersTimeout) for a CRLF CRLF that may never come: a request line
 * that is not `POST / HTTP/1.1` (a bad method, a page's GET), a head ending in bare LFs
 * (`...Content-Length: 2\n\n{}`, which node reads as whole), a line node refuses or the lane would
 * not take (a control character, a duplicate Host, a Transfer-Encoding).
 */
function partialHeadVerdict(buffer: Buffer, start: number): 'incomplete' | 'not-fast' {
  const length = buffer.length - start;
  const known = Math.min(length, REQUEST_LINE_BYTES.length);
  if (buffer.compare(REQUEST_LINE_BYTES, 0, known, start, start + known) !== 0) return 'not-fast';
  if (length > REQUEST_HEAD_BYTES_MAX) return 'not-fast';
  if (length <= REQUEST_LINE_BYTES.length) return 'incomplete';
  const text = buffer.toString('latin1', start + REQUEST_LINE_BYTES.length);
  const lastLineEnd = text.lastIndexOf('\r\n');
  const whole = lastLineEnd < 0 ? '' : text.slice(0, lastLineEnd + 2);
  if (!HEADER_LINE_START.test(lastLineEnd < 0 ? text : text.slice(lastLineEnd + 2))) return 'not-fast';
  if (whole !== '' && (!HEADER_LINES.test(whole) || readHeaderLines(whole) === 'not-fast')) return 'not-fast';
  return 'incomplete';
}

/**
 * The header lines of a head (each a HEADER_LINES line): the headers the lane's path reads and the
 * Content-Length, or 'not-fast' for a line that sends the request to node:http.
 */
function readHeaderLines(lines: string): { readonly headers: IncomingHttpHeaders; readonly contentLength: string | undefined } | 'not-fast' {
  const headers: IncomingHttpHeaders = {};
  let contentLength: string | undefined;
  let count = 0;
  for (let at = 0; at < lines.length; ) {
    if (++count > HEADER_LINES_MAX) return 'not-fast';
    const lineEnd = lines.indexOf('\r\n', at);
    const colon = lines.indexOf(':', at);
    const name = lines.slice(at, colon).toLowerCase();
    const valueStart = colon + 1;
    at = lineEnd + 2;
    switch (name) {
      case 'content-length': {
        const value = owsTrimmed(lines, valueStart, lineEnd);
        if (contentLength !== undefined || !CONTENT_LENGTH.test(value)) return 'not-fast';
        contentLength = value;
        break;
      }
      case 'host':
      case 'content-type':
      case 'x-amz-target':
      case 'authorization':
      case 'x-amz-date':
      case 'date':
      case 'accept-encoding':
        if (headers[name] !== undefined) return 'not-fast';
        headers[name] = owsTrimmed(lines, valueStart, lineEnd);
        break;
      case 'connection':
        if (owsTrimmed(lines, valueStart, lineEnd).toLowerCase() !== 'keep-alive') return 'not-fast';
        break;
      case 'transfer-encoding':
      case 'content-encoding':
      case 'expect':
      case 'upgrade':
      case 'origin':
        return 'not-fast';
      default:
        // Read by nothing on the lane's path (user agent, invocation id, content hash ...).
        break;
    }
  }
  return { headers, contentLength };
}

const SPACE = 0x20;
const TAB = 0x09;

/** `text` from `start` to `end` without the spaces and tabs around it (HTTP's OWS; not String.trim's wider set). */
function owsTrimmed(text: string, start: number, end: number): string {
  while (start < end && (text.charCodeAt(start) === SPACE || text.charCodeAt(start) === TAB)) start++;
  while (end > start && (text.charCodeAt(end - 1) === SPACE || text.charCodeAt(end - 1) === TAB)) end--;
  return text.slice(start, end);
}

/** One keep-alive connection on the lane; it is its requests' Reply (one in flight at a time). */
class FastConnection implements Reply, Flushable {
  readonly #lane: FastLane;
  readonly #socket: Socket;
  /** Bytes read and not yet consumed, from #offset on (a head, or a head and part of its body). */
  #input: Buffer | undefined;
  #offset = 0;
  /** The request whose body is still arriving, and that body's bytes so far. */
  #pending: { readonly request: FastRequest; readonly body: Buffer; filled: number } | undefined;
  /**
   * When (performance.now()) the lane first held part of the request arriving now, a head or a
   * body; undefined while none is held part-way. Read only on a request that spans reads.
   */
  #arrivingSinceMs: number | undefined;
  /** The request being answered, or the last one answered. */
  #request: FastRequest | undefined;
  /** A request was handed to the handler and has not been answered yet. */
  #busy = false;
  /** Inside #serveInput: an answer given synchronously lets that loop go on. */
  #serving = false;
  /** Answer bytes written but held for the end of the turn. */
  readonly #held: (string | Buffer)[] = [];
  /** In the lane's list of connections to flush at the end of the turn. */
  #queued = false;
  /** The client ended its side: no more requests come. */
  #ended = false;
  /** The socket closed, or node:http owns it now: the lane does nothing more with it. */
  #done = false;
  /** Reading is paused: the client does not read its answers (back-pressure)... */
  #backPressured = false;
  /** ...or it sent more than HELD_INPUT_BYTES_MAX ahead of the request being answered. */
  #inputPaused = false;

  readonly #onData = (chunk: Buffer): void => this.#read(chunk);
  readonly #onEnd = (): void => this.#readEnded();
  readonly #onError = (): void => {
    this.#socket.destroy();
  };
  readonly #onClose = (): void => this.#closed();
  readonly #onTimeout = (): void => this.#timedOut();
  readonly #onDrain = (): void => this.#drained();

  constructor(lane: FastLane, socket: Socket) {
    this.#lane = lane;
    this.#socket = socket;
    // As node:http does: answers are small and must not wait for Nagle.
    socket.setNoDelay(true);
    socket.setTimeout(lane.idleTimeoutMs);
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('error', this.#onError);
    socket.on('close', this.#onClose);
    socket.on('timeout', this.#onTimeout);
  }

  acceptEncoding(): string | undefined {
    const value = this.#request?.headers['accept-encoding'];
    return typeof value === 'string' ? value : undefined;
  }

  send(status: number, headers: (string | number)[], body: string | Buffer, deferred: boolean): void {
    if (!this.#busy) {
      // A second answer to one request: a bug, reported; the client already has its answer.
      this.#lane.reportError(new Error(`fast lane: a second answer (status ${status}) to one request`));
      return;
    }
    this.#busy = false;
    if (this.#done) return;
    // As node:http: the request asked for keep-alive, so the answer says so even when the client
    // has ended its side (the connection ends after it); a closing server says `close`.
    const keepAlive = !this.#lane.closing;
    let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'unknown'}\r\n`;
    for (let index = 0; index < headers.length; index += 2) head += `${headers[index]}: ${headers[index + 1]}\r\n`;
    head += this.#lane.closingLines(keepAlive);
    if (typeof body === 'string') {
      // One string, one write: the head is ASCII, so its UTF-8 bytes are its own.
      this.#held.push(head + body);
    } else {
      this.#held.push(head, body);
    }
    if (!keepAlive) {
      this.flush();
      this.#socket.end();
      this.#done = true;
      return;
    }
    if (!deferred) {
      this.flush();
    } else if (!this.#queued) {
      this.#queued = true;
      this.#lane.wait(this);
    }
    // An answer given later (a write, once durable) lets the next pipelined request in now.
    if (!this.#serving) this.#serveInput();
  }

  /** Writes the held answers, in order. */
  flush(): void {
    this.#queued = false;
    const held = this.#held;
    if (held.length === 0) return;
    if (this.#socket.destroyed) {
      held.length = 0;
      return;
    }
    const socket = this.#socket;
    let writable = true;
    if (held.length === 1) {
      const only = held[0]!;
      writable = typeof only === 'string' ? socket.write(only, 'utf8') : socket.write(only);
    } else {
      socket.cork();
      for (const chunk of held) writable = (typeof chunk === 'string' ? socket.write(chunk, 'utf8') : socket.write(chunk)) && writable;
      socket.uncork();
    }
    held.length = 0;
    if (!writable && !this.#backPressured && !this.#done) {
      // The client reads slower than it asks: stop reading its requests until it catches up.
      this.#backPressured = true;
      socket.pause();
      socket.once('drain', this.#onDrain);
    }
  }

  destroy(): void {
    this.#socket.destroy();
  }

  /** The server is closing: a connection with nothing in flight ends now. */
  endIfIdle(): void {
    if (this.#done || this.#busy || this.#pending !== undefined || this.#input !== undefined) return;
    this.flush();
    this.#socket.end();
    this.#done = true;
  }

  #read(chunk: Buffer): void {
    if (this.#arrivingSinceMs !== undefined && this.#arrivalTooSlow()) return;
    const pending = this.#pending;
    if (pending === undefined) {
      this.#append(chunk);
    } else {
      const taken = Math.min(pending.body.length - pending.filled, chunk.length);
      chunk.copy(pending.body, pending.filled, 0, taken);
      pending.filled += taken;
      if (pending.filled < pending.body.length) return;
      this.#pending = undefined;
      if (taken < chunk.length) this.#append(chunk.subarray(taken));
      this.#dispatch(pending.request, pending.body);
    }
    if (!this.#busy) this.#serveInput();
  }

  #append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const input = this.#input;
    this.#input = input === undefined ? chunk : Buffer.concat([input.subarray(this.#offset), chunk]);
    this.#offset = 0;
    if (this.#busy && !this.#inputPaused && this.#input.length > HELD_INPUT_BYTES_MAX) {
      this.#inputPaused = true;
      this.#socket.pause();
    }
  }

  /** Serves the whole requests read so far, one at a time, while each is answered at once. */
  #serveInput(): void {
    this.#serving = true;
    try {
      this.#serveWholeRequests();
    } finally {
      this.#serving = false;
    }
    if (this.#inputPaused && !this.#busy && !this.#done) {
      // Every whole request held is answered: read again (unless the client must read first).
      this.#inputPaused = false;
      if (!this.#backPressured) this.#socket.resume();
    }
    if (this.#ended && !this.#busy && !this.#done) this.#finishEnded();
  }

  #serveWholeRequests(): void {
    while (!this.#busy && !this.#done && this.#input !== undefined && this.#pending === undefined) {
      const input = this.#input;
      const start = this.#offset;
      const verdict = readHead(input, start);
      if (verdict === 'incomplete') {
        this.#arrivingSinceMs ??= performance.now();
        return;
      }
      const handler = this.#lane.handler();
      if (verdict === 'not-fast' || handler === undefined || !handler.accepts(verdict.request)) {
        this.#handOver(input.subarray(start));
        return;
      }
      const bodyEnd = verdict.bodyStart + verdict.bodyLength;
      if (bodyEnd > input.length) {
        // The body is still arriving: it is gathered in one buffer of its declared length.
        const body = Buffer.allocUnsafe(verdict.bodyLength);
        const filled = input.copy(body, 0, verdict.bodyStart);
        this.#input = undefined;
        this.#pending = { request: verdict.request, body, filled };
        this.#arrivingSinceMs ??= performance.now();
        return;
      }
      const body = input.subarray(verdict.bodyStart, bodyEnd);
      if (bodyEnd === input.length) this.#input = undefined;
      else this.#offset = bodyEnd;
      this.#dispatch(verdict.request, body, handler);
    }
  }

  #dispatch(request: FastRequest, body: Buffer, handler = this.#lane.handler()): void {
    this.#arrivingSinceMs = undefined;
    this.#busy = true;
    this.#request = request;
    const wasServing = this.#serving;
    this.#serving = true;
    try {
      if (handler === undefined) throw new Error('fast lane: no handler for an accepted request');
      handler.serve(request, body, this);
    } catch (error) {
      // The handler answers every failure itself; a throw here is a bug, and the connection
      // cannot be trusted to be in step any more.
      this.#lane.reportError(error);
      this.#done = true;
      this.#socket.destroy();
    } finally {
      this.#serving = wasServing;
    }
  }

  /** node:http takes the connection from this request's first byte on. */
  #handOver(rest: Buffer): void {
    const socket = this.#socket;
    this.flush();
    this.#detach();
    if (this.#ended) {
      // The client ended its side behind pipelined requests: the socket emitted 'end' already, so
      // node:http reads these bytes and that end from a stream of their own (ended-socket.ts),
      // answers them, and ends the connection, as when it owned the socket all along.
      this.#lane.handOver(this, new EndedSocket(socket, rest));
      return;
    }
    // Put back in front of what the socket reads next: node's listener reads it first.
    if (rest.length > 0) socket.unshift(rest);
    this.#lane.handOver(this, socket);
    if (this.#backPressured || this.#inputPaused) {
      // Paused for the lane's sake; node:http paces the connection by its own answers now.
      this.#backPressured = false;
      this.#inputPaused = false;
      socket.resume();
    }
  }

  /** Takes the lane's listeners off the socket, for node:http to own it. */
  #detach(): void {
    const socket = this.#socket;
    socket.off('data', this.#onData);
    socket.off('end', this.#onEnd);
    socket.off('error', this.#onError);
    socket.off('close', this.#onClose);
    socket.off('timeout', this.#onTimeout);
    socket.off('drain', this.#onDrain);
    socket.setTimeout(0);
    this.#input = undefined;
    this.#pending = undefined;
    this.#done = true;
  }

  #readEnded(): void {
    this.#ended = true;
    // In flight: its answer (and those of the requests behind it) end the connection.
    if (!this.#busy && !this.#done) this.#finishEnded();
  }

  /** The client ended its side and every whole request is answered: the connection ends. */
  #finishEnded(): void {
    this.flush();
    if (this.#input === undefined && this.#pending === undefined) {
      this.#socket.end();
      this.#done = true;
      return;
    }
    // A request cut short: node:http's answer to it (a 400), from node's own handler.
    this.#detach();
    this.#lane.gaveUp(this, this.#socket, 'cut short');
  }

  #timedOut(): void {
    // A request being answered (a write waiting for the disk) is not cut.
    if (this.#busy || this.#done) return;
    if (this.#input === undefined && this.#pending === undefined) {
      // Idle past the keep-alive timeout: closed, as node does.
      this.#socket.destroy();
      return;
    }
    this.#giveUpStalled();
  }

  /**
   * A request that stopped arriving, or arrives too slowly: answered as node:http answers one
   * past its time limit (a 400 that closes the connection, from node's own handler), not cut.
   */
  #giveUpStalled(): void {
    this.flush();
    this.#detach();
    this.#lane.gaveUp(this, this.#socket, 'stalled');
  }

  /**
   * A head not whole within node's headersTimeout of its first byte, or a request not whole
   * within its requestTimeout: given up on (#giveUpStalled). True when it was.
   */
  #arrivalTooSlow(): boolean {
    if (this.#busy || this.#done) return false;
    const limitMs = this.#pending === undefined ? this.#lane.headersTimeoutMs : this.#lane.requestTimeoutMs;
    // 0: no limit, as node reads it.
    if (limitMs === 0 || performance.now() - this.#arrivingSinceMs! <= limitMs) return false;
    this.#giveUpStalled();
    return true;
  }

  #drained(): void {
    this.#backPressured = false;
    if (!this.#done && !this.#inputPaused) this.#socket.resume();
  }

  #closed(): void {
    this.#done = true;
    this.#held.length = 0;
    this.#input = undefined;
    this.#pending = undefined;
    this.#lane.forget(this);
  }
}

/**
 * The Date header's text, made once per second of wall-clock time as node:http does: HTTP dates
 * are real time whatever dynatwin's clock, and formatting one per answer costs ~1 us.
 */
export class HttpDate {
  #second = -1;
  #text = '';

  now(): string {
    const nowMs = Date.now();
    const second = Math.floor(nowMs / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#text = new Date(second * 1000).toUTCString();
    }
    return this.#text;
  }
}
