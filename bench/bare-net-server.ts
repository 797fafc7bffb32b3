/**
 * A second ceiling: a bare `net` server that reads each HTTP/1.1 request (head, Content-Length
 * body) off the socket and answers `{}` with the headers node:http would write, and nothing else.
 *
 * Why: dynatwin's fast lane (src/server/fast-lane.ts) reads its common request off the socket
 * too, so it can pass the bare node:http server; this row is what no server reading requests
 * that way can pass on this machine. Not a server for any other use: it trusts every head (no
 * header checks, no limits beyond a Content-Length), which the bench's own client sends.
 * Child-process entry point: node dist/bench/bare-net-server.js --port N
 */
import { createServer, type Socket } from 'node:net';
import { HttpDate } from '../src/server/fast-lane.js';
import { exitWithParent, portFromArgs } from './child-support.js';

const HEAD_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;
const RESPONSE_BODY = '{}';

function serve(socket: Socket, date: HttpDate): void {
  socket.setNoDelay(true);
  let input: Buffer | undefined;
  socket.on('data', (chunk: Buffer) => {
    input = input === undefined ? chunk : Buffer.concat([input, chunk]);
    let answers = '';
    for (;;) {
      const headEnd = input.indexOf(HEAD_END);
      if (headEnd < 0) break;
      const match = CONTENT_LENGTH.exec(input.toString('latin1', 0, headEnd));
      const end = headEnd + 4 + (match === null ? 0 : Number(match[1]));
      if (input.length < end) break;
      answers +=
        'HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: 2\r\n' +
        `Date: ${date.now()}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=60\r\n\r\n${RESPONSE_BODY}`;
      input = input.subarray(end);
    }
    if (input.length === 0) input = undefined;
    if (answers !== '') socket.write(answers);
  });
  socket.on('error', () => socket.destroy());
}

const date = new HttpDate();
const server = createServer((socket) => serve(socket, date));
exitWithParent();
server.listen(portFromArgs(), '127.0.0.1');
