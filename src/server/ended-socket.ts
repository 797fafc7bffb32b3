/**
 * What the fast lane hands node:http for a connection whose client ended its side (FIN) before the
 * lane reached a request it does not serve: a client pipelined a lane request, then a request for
 * node:http (a page, CORS, a chunked body, a malformed head), then half-closed while the first was
 * being answered.
 *
 * Why a stream of its own: the socket has emitted 'end' by then, so the bytes the lane read
 * cannot be put back (`unshift` after 'end' throws) and node's listener, attached later, would
 * never see the end. node:http takes any Duplex as a connection (its 'connection' event's
 * documented contract); this one reads as the bytes the lane held and then the end, so node's
 * parser answers them and ends the connection exactly as if it had owned the socket all along.
 *
 * What node:http uses of it, beside the Duplex itself (write, cork, end, destroy, pause, resume,
 * writableLength ...): `setTimeout` and the 'timeout' event (its keep-alive timeout between
 * answers). Writes, the end and destroy go to the socket, in order behind the lane's own answers,
 * which were written before the handover; the socket's close or error destroys this stream.
 */
import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

export class EndedSocket extends Duplex {
  readonly #socket: Socket;
  #held: Buffer | undefined;

  /** `held`: what the lane read of the socket and did not serve, from a request's first byte on. */
  constructor(socket: Socket, held: Buffer) {
    // Half-open: the read side ends at once, the answers still go out after it.
    super({ allowHalfOpen: true });
    this.#socket = socket;
    this.#held = held.length > 0 ? held : undefined;
    socket.on('timeout', () => this.emit('timeout'));
    socket.on('error', (error) => this.destroy(error));
    socket.on('close', () => this.destroy());
  }

  override _read(): void {
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) this.push(held);
    this.push(null);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#socket.write(chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#socket.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#socket.destroy();
    callback(error);
  }

  /** As net.Socket's: 'timeout' after `timeoutMs` without activity on the socket (0: never). */
  setTimeout(timeoutMs: number, callback?: () => void): this {
    this.#socket.setTimeout(timeoutMs);
    if (callback !== undefined) this.once('timeout', callback);
    return this;
  }
}
