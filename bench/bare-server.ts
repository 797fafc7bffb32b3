/**
 * The ceiling: a bare node:http server that reads each request body in full and answers `{}`.
 * No Node server doing real work can beat it on this machine, so every target is shown as a
 * share of its throughput. Child-process entry point: node dist/bench/bare-server.js --port N
 */
import http from 'node:http';
import { exitWithParent, portFromArgs } from './child-support.js';

const RESPONSE_BODY = '{}';

const server = http.createServer((req, res) => {
  // Read the whole body, as any real server must before it can parse the JSON.
  req.on('data', () => undefined);
  req.on('end', () => {
    res.writeHead(200, {
      'Content-Type': 'application/x-amz-json-1.0',
      'Content-Length': RESPONSE_BODY.length,
    });
    res.end(RESPONSE_BODY);
  });
});
// Idle keep-alive sockets must survive the gap between setup, warm-up and measurement.
server.keepAliveTimeout = 60_000;

exitWithParent();
server.listen(portFromArgs(), '127.0.0.1');
