// Red-team probe of the checkpoint mark (by hand, after npm run build): node bench/redteam/mark-probe.mjs DIR write
// writes 1,500 items into a fresh DIR and kills nothing; then change DIR/wal-checkpoint by hand and run
// node bench/redteam/mark-probe.mjs DIR to see how many items a start-up serves (1,500 unless refused).
import { spawn } from 'node:child_process';
import { DynamoDBClient, CreateTableCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
const dir = process.argv[2];
const start = () => new Promise((resolve) => { const child = spawn(process.execPath, ['bin/dynatwin.js', '--data-dir', dir, '--port', '0', '--checkpoint-log-size', '256KB'], { stdio: ['ignore', 'pipe', 'pipe'] }); let out = ''; const on = (c) => { out += c; const m = /(http:\/\/[^\s]+:\d+)/.exec(out); if (m) resolve({ child, endpoint: m[1], out: () => out }); }; child.stdout.on('data', on); child.stderr.on('data', on); child.on('exit', (code, signal) => resolve({ code, signal, out })); });
const mode = process.argv[3];
const s = await start();
if (!s.endpoint) { console.log('exited', s.code, s.signal, s.out); process.exit(); }
const c = new DynamoDBClient({ endpoint: s.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, maxAttempts: 1 });
if (mode === 'write') { await c.send(new CreateTableCommand({ TableName: 'marks', BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] }));
  for (let i = 0; i < 1500; i++) await c.send(new PutItemCommand({ TableName: 'marks', Item: { pk: { S: 'k' + i }, pad: { S: 'x'.repeat(200) } } })); }
let n = 0, k; do { const p = await c.send(new ScanCommand({ TableName: 'marks', ExclusiveStartKey: k })); n += p.Count; k = p.LastEvaluatedKey; } while (k);
console.log('items', n); console.log(s.out().split('\n').filter(l=>!/node|AWS|a\.co|updates|^\s*$|upgrade|versions/.test(l)).join('\n'));
s.child.kill('SIGKILL');
