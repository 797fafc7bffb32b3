// Red-team attack on --auth verify (run by hand: node bench/redteam/auth-attack.mjs, after npm run build).
// Starts the CLI with --auth verify and a manual clock, then sends unsigned, forged and mangled
// requests to every dynatwin route and /metrics through raw sockets, and reports any answer that
// is not a refusal, plus whether the clock moved or a fault rule got installed.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { createHash, createHmac } from 'node:crypto';

const KEY = 'AKIDREDTEAM', SECRET = 'redteamsecret';
const child = spawn(process.execPath, ['bin/dynatwin.js', '--in-memory', '--port', '0', '--auth', 'verify', '--clock', 'manual'], { env: { ...process.env, AWS_ACCESS_KEY_ID: KEY, AWS_SECRET_ACCESS_KEY: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
let out = '';
const port = await new Promise((resolve, reject) => {
  const on = (c) => { out += c; const m = /:(\d+)\b/.exec(out.split('\n').find((l) => /listening|http:\/\//.test(l)) ?? ''); if (m) resolve(Number(m[1])); };
  child.stdout.on('data', on); child.stderr.on('data', on); child.on('exit', () => reject(new Error(out)));
});
await new Promise((r) => setTimeout(r, 300));
const token = /token[^A-Za-z0-9]*([A-Za-z0-9_-]{32})/.exec(out)?.[1];
function raw(text) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1'); let data = '';
    s.setTimeout(5000, () => { s.destroy(); resolve('TIMEOUT'); });
    s.on('data', (d) => { data += d; }); s.on('end', () => resolve(data)); s.on('error', (e) => resolve('ERR ' + e.code));
    s.end(text);
  });
}
function req(method, path, headers = {}, body = '') {
  const h = { Host: `127.0.0.1:${port}`, Connection: 'close', 'Content-Length': String(Buffer.byteLength(body)), ...headers };
  return raw(`${method} ${path} HTTP/1.1\r\n${Object.entries(h).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`);
}
const status = (r) => Number(/^HTTP\/1\.1 (\d+)/.exec(r)?.[1] ?? 0);
async function clockNow() { const r = await req('GET', '/dynatwin/clock', { Authorization: `Bearer ${token}` }); return r.slice(r.indexOf('\r\n\r\n') + 4); }
const before = await clockNow();
const paths = ['/dynatwin/clock', '/dynatwin/clock/', '/dynatwin/faults', '/dynatwin/faults/x', '/dynatwin/tables', '/dynatwin/tables/t/partitions', '/dynatwin/tables/t/heatmap', '/dynatwin/tables/t/contributor-insights', '/dynatwin/tables/t/indexes/i/contributor-insights', '/dynatwin/tables/t/scaling', '/dynatwin/metrics', '/dynatwin/store', '/metrics', '/metrics?x=1',
  '/dynatwin/../metrics', '//dynatwin/clock', '/DYNATWIN/clock', '/dynatwin/clock?x', '/dynatwin/%63lock', '/dynatwin/clock%2f', '/dynatwin//clock', '/dynatwin/./clock', '/dynatwin/assets/../clock', '/dynatwin/assets/..%2fclock', '/dynatwin/assets/%2e%2e/clock', '/x/../dynatwin/clock', '/dynatwin/clock#frag', 'http://127.0.0.1/dynatwin/clock', '/dynatwin/clock?token=' + token, '/dynatwin/clock?X-Amz-Algorithm=AWS4-HMAC-SHA256', '/metrics/', '/METRICS', '/%6detrics', '/dynatwin/clock;x', '/dynatwin\\clock', '/dynatwin/tables/%2e%2e/clock'];
const methods = ['GET', 'POST', 'DELETE', 'HEAD', 'OPTIONS', 'PUT', 'PATCH'];
const auths = [{}, { Authorization: `bearer ${token}x` }, { Authorization: `Basic ${token}` }, { Authorization: token }, { 'X-Amz-Security-Token': token }, { Authorization: `Bearer  ${token.toUpperCase()}` }, { Authorization: 'AWS4-HMAC-SHA256 Credential=AKIDREDTEAM/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=' + '0'.repeat(64) }, { Cookie: `token=${token}` }];
const bodyClock = JSON.stringify({ advanceMs: 31 * 86400000 });
const bodyFault = JSON.stringify({ operation: 'GetItem', error: 'InternalServerError', probability: 1 });
let trials = 0; const findings = [];
for (const path of paths) for (const method of methods) for (const auth of auths) {
  const body = method === 'POST' ? (path.includes('fault') ? bodyFault : bodyClock) : '';
  const r = await req(method, path, { 'Content-Type': 'application/json', ...auth }, body); trials++;
  const s = status(r);
  if (s === 200 || s === 201 || s === 204 || s >= 500 || s === 0) findings.push(`${method} ${path} ${JSON.stringify(auth).slice(0, 40)} -> ${s} ${r.slice(r.indexOf('\r\n\r\n') + 4, r.indexOf('\r\n\r\n') + 124).replace(/\s+/g, ' ')}`);
}
const after = await clockNow();
const faults = await req('GET', '/dynatwin/faults', { Authorization: `Bearer ${token}` });
console.log(`trials ${trials}; clock before ${before} after ${after}; faults ${faults.slice(faults.indexOf('\r\n\r\n') + 4)}`);
console.log(`non-refusals: ${findings.length}`); for (const f of findings.slice(0, 80)) console.log('  ' + f);
child.kill('SIGKILL');
