// Red-team attack on SigV4 under --auth verify (by hand: node bench/redteam/sigv4-attack.mjs [--node-http]).
// A signed GetItem is captured, then replayed mutated: as DeleteItem through a duplicated or
// unsigned x-amz-target, with another body (UNSIGNED-PAYLOAD, a wrong x-amz-content-sha256, a
// duplicated Content-Length/Transfer-Encoding, Content-Encoding added), and the same for the
// Streams, Application Auto Scaling and CloudWatch endpoints. Reports every mutation that is
// answered 200 (or 5xx) and whether the item survived.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { createHash } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { createHmac } from 'node:crypto';
class Sha256 {
  constructor(secret) { this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', secret); }
  update(data) { this.h.update(data); }
  async digest() { return new Uint8Array(this.h.digest()); }
}

const KEY = 'AKIDREDTEAM', SECRET = 'redteamsecret';
const extra = process.argv.includes('--node-http') ? ['--node-http'] : [];
const child = spawn(process.execPath, ['bin/dynatwin.js', '--in-memory', '--port', '0', '--auth', 'verify', ...extra], { env: { ...process.env, AWS_ACCESS_KEY_ID: KEY, AWS_SECRET_ACCESS_KEY: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
let out = '';
const port = await new Promise((resolve, reject) => {
  const on = (c) => { out += c; const m = /http:\/\/[^:\s]+:(\d+)/.exec(out); if (m) resolve(Number(m[1])); };
  child.stdout.on('data', on); child.stderr.on('data', on); child.on('exit', () => reject(new Error(out)));
});
const signer = (service) => new SignatureV4({ service, region: 'us-east-1', credentials: { accessKeyId: KEY, secretAccessKey: SECRET }, sha256: Sha256 });
async function signed(target, body, service = 'dynamodb', extraHeaders = {}, unsignable = new Set()) {
  const req = { method: 'POST', protocol: 'http:', hostname: '127.0.0.1', port, path: '/', headers: { host: `127.0.0.1:${port}`, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target, ...extraHeaders }, body };
  const s = await signer(service).sign(req, { unsignableHeaders: unsignable });
  return s.headers;
}
function raw(text) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1'); let data = '';
    s.setTimeout(5000, () => { s.destroy(); resolve('TIMEOUT ' + data); });
    s.on('data', (d) => { data += d; }); s.on('end', () => resolve(data)); s.on('error', (e) => resolve('ERR ' + e.code));
    s.end(text);
  });
}
function send(headerList, body) {
  return raw(`POST / HTTP/1.1\r\n${headerList.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\nConnection: close\r\n\r\n${body}`);
}
const list = (h, body) => [...Object.entries(h).filter(([k]) => k.toLowerCase() !== 'content-length'), ['Content-Length', String(Buffer.byteLength(body))]];
const status = (r) => Number(/^HTTP\/1\.1 (\d+)/.exec(r)?.[1] ?? 0);
const bodyOf = (r) => r.slice(r.indexOf('\r\n\r\n') + 4).slice(0, 160).replace(/\s+/g, ' ');
async function call(target, body, service) { const h = await signed(target, body, service); return send(list(h, body), body); }
const T = 'DynamoDB_20120810.';
console.log('create', status(await call(T + 'CreateTable', JSON.stringify({ TableName: 'victims', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST', StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } }))));
const put = async () => status(await call(T + 'PutItem', JSON.stringify({ TableName: 'victims', Item: { pk: { S: 'victim' }, v: { S: 'x' } } })));
const present = async () => bodyOf(await call(T + 'GetItem', JSON.stringify({ TableName: 'victims', Key: { pk: { S: 'victim' } } }))).includes('victim');
console.log('put', await put(), 'present', await present());
const getBody = JSON.stringify({ TableName: 'victims', Key: { pk: { S: 'victim' } } });
const delBody = getBody;
const findings = []; let trials = 0;
async function attempt(name, headerList, body) {
  trials++;
  const r = await send(headerList, body);
  const s = status(r);
  const gone = !(await present());
  if (s === 200 && name.startsWith('ok:')) return;
  if (s === 200 || s >= 500 || s === 0 || gone) findings.push(`${name}: ${s} ${bodyOf(r)}${gone ? ' ITEM DELETED' : ''}`);
  if (gone) await put();
}
const g = await signed(T + 'GetItem', getBody);
const base = list(g, getBody);
await attempt('ok: the captured GetItem itself', base, getBody);
const withTarget = (v) => base.map(([k, val]) => (k.toLowerCase() === 'x-amz-target' ? [k, v] : [k, val]));
await attempt('x-amz-target swapped', withTarget(T + 'DeleteItem'), delBody);
await attempt('second x-amz-target after', [...base, ['X-Amz-Target', T + 'DeleteItem']], delBody);
await attempt('second x-amz-target before', [['X-Amz-Target', T + 'DeleteItem'], ...base], delBody);
await attempt('x-amz-target folded with a comma', withTarget(`${T}GetItem,${T}DeleteItem`), delBody);
await attempt('x-amz-target with trailing tab', withTarget(T + 'DeleteItem\t'), delBody);
// Signed without x-amz-target.
const noTarget = await signed(T + 'DeleteItem', delBody, 'dynamodb', {}, new Set(['x-amz-target']));
await attempt('x-amz-target unsigned', list(noTarget, delBody), delBody);
// Body altered.
const altered = JSON.stringify({ TableName: 'victims', Key: { pk: { S: 'victim' } }, ReturnValues: 'ALL_OLD' });
await attempt('body altered', list(g, altered), altered);
await attempt('UNSIGNED-PAYLOAD header added', [...list(g, altered), ['X-Amz-Content-Sha256', 'UNSIGNED-PAYLOAD']], altered);
const u = await signed(T + 'DeleteItem', delBody, 'dynamodb', { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' });
await attempt('signed UNSIGNED-PAYLOAD (DeleteItem)', list(u, delBody), delBody);
const wrongHash = await signed(T + 'DeleteItem', delBody, 'dynamodb', { 'x-amz-content-sha256': createHash('sha256').update('{}').digest('hex') });
await attempt('signed wrong x-amz-content-sha256', list(wrongHash, delBody), delBody);
// The same body bytes, but duplicated Content-Length / chunked smuggling of a second request.
const smuggled = `POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Amz-Target: ${T}DeleteItem\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: ${Buffer.byteLength(delBody)}\r\n\r\n${delBody}`;
await attempt('Transfer-Encoding chunked + Content-Length (smuggling)', [...Object.entries(g).filter(([k]) => k.toLowerCase() !== 'content-length'), ['Transfer-Encoding', 'chunked'], ['Content-Length', String(Buffer.byteLength(getBody))]], `${Buffer.byteLength(getBody).toString(16)}\r\n${getBody}\r\n0\r\n\r\n${smuggled}`);
await attempt('Content-Encoding: gzip added', [...base, ['Content-Encoding', 'gzip']], getBody);
await attempt('host header duplicated', [...base, ['Host', 'evil.example']], getBody);
await attempt('content-type changed', base.map(([k, v]) => (k.toLowerCase() === 'content-type' ? [k, 'application/json'] : [k, v])), getBody);
await attempt('signature header lowercase name dup', [...base, ['authorization', g.authorization]], getBody);
await attempt('x-amz-date duplicated with later date', [...base, ['X-Amz-Date', '20991231T000000Z']], getBody);
await attempt('security token added unsigned', [...base, ['X-Amz-Security-Token', 'abc']], getBody);
await attempt('x-amz-foo added unsigned', [...base, ['X-Amz-Foo', 'bar']], getBody);
// Other services, unsigned and forged.
const streamsBody = JSON.stringify({});
for (const [target, svc] of [['DynamoDBStreams_20120810.ListStreams', 'dynamodb'], ['AnyScaleFrontendService.DescribeScalableTargets', 'application-autoscaling'], ['GraniteServiceVersion20100801.ListMetrics', 'monitoring']]) {
  const h = { Host: `127.0.0.1:${port}`, 'X-Amz-Target': target, 'Content-Type': 'application/x-amz-json-1.0' };
  await attempt(`${target} unsigned`, list(h, streamsBody), streamsBody);
  const forged = { ...h, Authorization: `AWS4-HMAC-SHA256 Credential=${KEY}/20260101/us-east-1/${svc}/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=${'a'.repeat(64)}`, 'X-Amz-Date': new Date().toISOString().replace(/[-:]|\.\d+/g, '') };
  await attempt(`${target} forged`, list(forged, streamsBody), streamsBody);
  const ok = await signed(target, streamsBody, svc);
  await attempt(`ok: ${target} signed`, list(ok, streamsBody), streamsBody);
  const wrongService = await signed(target, streamsBody, svc === 'dynamodb' ? 'monitoring' : 'dynamodb');
  await attempt(`${target} signed for another service`, list(wrongService, streamsBody), streamsBody);
}
const cwForm = 'Action=ListMetrics&Version=2010-08-01';
const cwh = { Host: `127.0.0.1:${port}`, 'Content-Type': 'application/x-www-form-urlencoded' };
await attempt('CloudWatch query form unsigned', list(cwh, cwForm), cwForm);
trials++; const getq = await raw(`GET /?Action=ListMetrics&Version=2010-08-01 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
if (status(getq) === 200) findings.push('CloudWatch GET query unsigned: 200');
console.log(`trials ${trials}; findings ${findings.length}`); for (const f of findings) console.log('  ' + f);
console.log('victim present at end', await present());
child.kill('SIGKILL');
