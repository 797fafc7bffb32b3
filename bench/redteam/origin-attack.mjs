// Red-team probe of the dashboard routes from foreign Origins under --auth verify (by hand, after npm run build):
// node bench/redteam/origin-attack.mjs prints every answer that is a 2xx or carries Access-Control-Allow-Origin.
import { spawn } from 'node:child_process';
import net from 'node:net';
const child = spawn(process.execPath, ['bin/dynatwin.js', '--in-memory', '--port', '0', '--auth', 'verify', '--clock', 'manual'], { env: { ...process.env, AWS_ACCESS_KEY_ID: 'AKIDX', AWS_SECRET_ACCESS_KEY: 'secretx' }, stdio: ['ignore', 'pipe', 'pipe'] });
let out = '';
const port = await new Promise((resolve) => { const on = (c) => { out += c; const m = /http:\/\/[^:\s]+:(\d+)/.exec(out); if (m) resolve(Number(m[1])); }; child.stdout.on('data', on); child.stderr.on('data', on); });
await new Promise((r) => setTimeout(r, 300));
const token = /token[^A-Za-z0-9]*([A-Za-z0-9_-]{32})/.exec(out)?.[1];
const raw = (text) => new Promise((resolve) => { const s = net.connect(port, '127.0.0.1'); let d = ''; s.on('data', (x) => (d += x)); s.on('end', () => resolve(d)); s.on('error', (e) => resolve('ERR ' + e.code)); s.end(text); });
const req = (m, p, h, b = '') => raw(`${m} ${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(b)}\r\n${Object.entries(h).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${b}`);
let trials = 0;
for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${port + 1}`, `http://localhost.evil.example:${port}`, `http://127.0.0.1:${port}.evil`]) {
  for (const [m, p, b] of [['GET', '/dynatwin/tables', ''], ['POST', '/dynatwin/clock', '{"advanceMs":1000}'], ['OPTIONS', '/dynatwin/clock', ''], ['GET', '/metrics', ''], ['GET', '/dynatwin/', ''], ['POST', '/', '{}']]) {
    for (const auth of [{}, { Authorization: `Bearer ${token}` }]) {
      trials++;
      const r = await req(m, p, { Origin: origin, 'Content-Type': 'application/json', ...auth }, b);
      const status = r.slice(9, 12); const acao = /access-control-allow-origin: ([^\r]+)/i.exec(r)?.[1];
      if (status.startsWith('2') || acao) console.log(origin, m, p, Object.keys(auth).length ? 'token' : '-', status, 'ACAO', acao);
    }
  }
}
const clock = await req('GET', '/dynatwin/clock', { Authorization: `Bearer ${token}` });
console.log('trials', trials, 'clock', clock.slice(clock.indexOf('\r\n\r\n') + 4));
child.kill('SIGKILL');
