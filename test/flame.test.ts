/**
 * The flame graphs of `npm run profile` (bench/flame.ts, bench/profile.ts): a V8 CPU profile's
 * stacks merged by function + file + line, weighed by sampled time, per request, idle left out;
 * the SVG is well-formed XML that escapes what function names may hold; a real `node --cpu-prof`
 * profile converts; and the profile command runs end to end on a short load. No timing is
 * asserted: only what the conversion must give for a given profile.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  asCpuProfile,
  buildFlameProfile,
  formatSummary,
  functionCosts,
  layerCosts,
  layerOf,
  readCpuProfile,
  renderFlameSvg,
  shortUrl,
  type CpuProfile,
  type FlameFrame,
} from '../bench/flame.js';
import { outputStem, parseProfileArgs, profileWorkload } from '../bench/profile.js';
import { scratchDirectories } from './support/scratch.js';
import { checkWellFormedXml } from './support/xml.js';

const scratch = scratchDirectories('dynatwin-flame-');
after(() => scratch.removeAll());

const HTTP = 'file:///repo/dist/src/server/http.js';
const GET_ITEM = 'file:///repo/dist/src/operations/getItem.js';
const MEMORY = 'file:///repo/dist/src/storage/memory.js';
const AWKWARD = 'a<b>&"c"';

function node(id: number, functionName: string, url: string, lineNumber: number, children: number[] = [], columnNumber = 0) {
  return { id, callFrame: { functionName, scriptId: '1', url, lineNumber, columnNumber }, hitCount: 0, children };
}

/**
 * (root) → (program), (idle), (garbage collector), handle (twice: two V8 nodes, one function);
 * handle → a<b>&"c" (twice, different columns) → get → handle again (recursion); handle → a
 * function never sampled.
 * Sample weights (µs): handle 10 + 80, a 20 + 30, get 40 (+ a negative delta that weighs 0),
 * idle 50, program 60, gc 70, the recursive handle 15.
 */
const PROFILE: CpuProfile = {
  nodes: [
    node(1, '(root)', '', -1, [2, 3, 4, 5, 9]),
    node(2, '(program)', '', -1),
    node(3, '(idle)', '', -1),
    node(4, '(garbage collector)', '', -1),
    node(5, 'handle', HTTP, 9, [6, 7, 10], 2),
    node(6, AWKWARD, GET_ITEM, 4, [], 0),
    node(7, AWKWARD, GET_ITEM, 4, [8], 10),
    node(8, 'get', MEMORY, 20, [11]),
    node(9, 'handle', HTTP, 9, [], 2),
    node(10, 'neverSampled', HTTP, 99),
    node(11, 'handle', HTTP, 9),
  ],
  startTime: 1000,
  endTime: 2000,
  samples: [5, 6, 7, 8, 3, 2, 4, 9, 8, 11],
  timeDeltas: [10, 20, 30, 40, 50, 60, 70, 80, -5, 15],
};

function child(frame: FlameFrame, name: string): FlameFrame {
  const found = frame.children.filter((c) => c.functionName === name);
  assert.equal(found.length, 1, `one merged ${name} under ${frame.functionName}`);
  return found[0]!;
}

test('stacks merge by function, file and line; widths are sampled time; idle is left out', () => {
  const flame = buildFlameProfile(PROFILE);
  assert.equal(flame.busyUs, 10 + 80 + 20 + 30 + 40 + 60 + 70 + 15);
  assert.equal(flame.idleUs, 50);
  assert.equal(flame.idleSamples, 1);
  assert.equal(flame.busySamples, 9);
  assert.equal(flame.root.totalUs, flame.busyUs);
  // Sorted by name: '(' sorts before letters; (idle) and the never-sampled node are gone.
  assert.deepEqual(
    flame.root.children.map((c) => c.functionName),
    ['(garbage collector)', '(program)', 'handle'],
  );
  const handle = child(flame.root, 'handle');
  assert.deepEqual([handle.selfUs, handle.totalUs, handle.line, handle.layer], [90, 195, 10, 'server']);
  const awkward = child(handle, AWKWARD);
  assert.deepEqual([awkward.selfUs, awkward.totalUs, awkward.layer], [50, 105, 'operations']);
  const get = child(awkward, 'get');
  assert.deepEqual([get.selfUs, get.totalUs, get.layer], [40, 55, 'storage']);
  const again = child(get, 'handle');
  assert.deepEqual([again.selfUs, again.totalUs], [15, 15]);
  assert.equal(child(flame.root, '(garbage collector)').layer, 'gc');
  assert.equal(child(flame.root, '(program)').layer, 'native');
});

test('a window keeps only the samples taken inside it', () => {
  // Sample times: 1010, 1030, 1060, 1100, 1150 (idle), ...: [1030, 1100] holds a, a, get.
  const flame = buildFlameProfile(PROFILE, { fromUs: 1030, toUs: 1100 });
  assert.equal(flame.busyUs, 20 + 30 + 40);
  assert.equal(flame.idleUs, 0);
  const handle = child(flame.root, 'handle');
  assert.deepEqual([handle.selfUs, handle.totalUs], [0, 90]);
  assert.deepEqual(flame.root.children.map((c) => c.functionName), ['handle']);
});

test('function costs add every stack, counting a recursive function’s total once; layers add self time', () => {
  const flame = buildFlameProfile(PROFILE);
  const costs = functionCosts(flame);
  assert.deepEqual(
    costs.map((c) => [c.functionName, c.selfUs, c.totalUs]),
    [
      ['handle', 105, 195],
      ['(garbage collector)', 70, 70],
      ['(program)', 60, 60],
      [AWKWARD, 50, 105],
      ['get', 40, 55],
    ],
  );
  assert.deepEqual(layerCosts(flame), [
    { layer: 'server', selfUs: 105 },
    { layer: 'gc', selfUs: 70 },
    { layer: 'native', selfUs: 60 },
    { layer: 'operations', selfUs: 50 },
    { layer: 'storage', selfUs: 40 },
  ]);
});

test('the summary gives µs per request when the request count is known', () => {
  const summary = formatSummary(buildFlameProfile(PROFILE), { requests: 5, top: 2 });
  assert.match(summary, /^busy 65\.00 µs\/req over 5 requests; 9 busy samples, 1 idle samples left out/);
  // handle: 105 µs self over 5 requests, 105/325 of busy time, 195 µs total.
  assert.match(summary, /\n\s+21\.00\s+32\.31%\s+39\.00\s+handle\s+src\/server\/http\.js:10 \[server\]\n/);
  assert.match(summary, /\(garbage collector\)\s+\(native\) \[gc\]$/);
  assert.doesNotMatch(summary, /\(program\)\s+\(native\) \[native\]$/m, 'top 2 only');
});

test('the SVG is well-formed, escapes function names, and sizes frames by time', () => {
  const flame = buildFlameProfile(PROFILE);
  const svg = renderFlameSvg(flame, { title: 'GetItem & <friends>', requests: 5, widthPx: 1020 });
  const outline = checkWellFormedXml(svg);
  assert.equal(outline.root, 'svg');
  assert.ok(!svg.includes(AWKWARD), 'the raw name never reaches the markup');
  assert.ok(svg.includes('a&lt;b&gt;&amp;&quot;c&quot;'));
  assert.ok(outline.texts.includes('GetItem & <friends>'), 'the title, decoded, is the one given');
  assert.ok(outline.texts.some((t) => t.includes('idle samples left out')), 'the header says idle is left out');
  // One tooltip per drawn frame: root, gc, program, handle, a, get, the recursive handle.
  const tooltips = outline.texts.filter((t) => /\nself .*\ntotal /.test(t));
  assert.equal(tooltips.length, 7);
  const tip = tooltips.find((t) => t.startsWith(AWKWARD))!;
  assert.equal(
    tip,
    `${AWKWARD} — src/operations/getItem.js:5 [operations]\n` +
      'self 10.00 µs/request (15.38% of busy time)\n' +
      'total 21.00 µs/request (32.31% of busy time)',
  );
  // 1000 px of frames (1020 less two 10 px margins) for 325 µs: handle is 195/325 of them.
  assert.match(svg, /<title>all \(busy time\)[^<]*<\/title><rect x="10\.00" y="\d+" width="1000\.00"/);
  assert.match(svg, /<title>handle — [^<]*<\/title><rect x="[\d.]+" y="\d+" width="600\.00"/);
});

test('frames narrower than the minimum are left out with what they called', () => {
  const flame = buildFlameProfile(PROFILE);
  // handle's recursion (15 µs) is 46 px wide at 1000 px for 325 µs, get (55 µs) 169 px.
  const svg = renderFlameSvg(flame, { title: 't', widthPx: 1020, minFrameWidthPx: 100 });
  const tooltips = checkWellFormedXml(svg).texts.filter((t) => /\nself .*\ntotal /.test(t));
  assert.deepEqual(
    tooltips.map((t) => t.split(' — ')[0]),
    ['all (busy time)', '(garbage collector)', '(program)', 'handle', AWKWARD, 'get'],
  );
});

test('layers come from the script URL', () => {
  const frame = (url: string, functionName = 'f') => ({ functionName, url, lineNumber: 0 });
  assert.equal(layerOf(frame('file:///w/dist/src/engine/write-pipeline.js')), 'engine');
  assert.equal(layerOf(frame('file:///w/dist/src/cli.js')), 'src');
  assert.equal(layerOf(frame('file:///w/node_modules/lmdb/dist/index.cjs')), 'deps');
  assert.equal(layerOf(frame('file:///w/node_modules/x/dist/src/y/z.js')), 'deps');
  assert.equal(layerOf(frame('node:internal/http/server')), 'node');
  assert.equal(layerOf(frame('', 'writev')), 'native');
  assert.equal(layerOf(frame('', '(garbage collector)')), 'gc');
  assert.equal(shortUrl('file:///w/dist/src/engine/write-pipeline.js'), 'src/engine/write-pipeline.js');
  assert.equal(shortUrl('file:///w/node_modules/lmdb/dist/index.cjs'), 'node_modules/lmdb/dist/index.cjs');
});

test('what is not a CPU profile is refused with a reason', () => {
  assert.throws(() => asCpuProfile([]), /no "nodes"/);
  assert.throws(() => asCpuProfile({ ...PROFILE, timeDeltas: [1] }), /10 samples but 1 time deltas/);
  assert.throws(() => asCpuProfile({ ...PROFILE, nodes: [{ id: 1 }] }), /lacks id or callFrame/);
  const twoRoots = { ...PROFILE, nodes: [...PROFILE.nodes, node(12, 'orphan', HTTP, 1)] };
  assert.throws(() => buildFlameProfile(twoRoots), /one root node; this one has 2/);
});

test('a real node --cpu-prof profile converts to a well-formed SVG', () => {
  const dir = scratch.fresh();
  // A named function doing a fixed amount of work, sampled every 100 µs.
  const script = 'function spinForFlame(n) { let x = 0; for (let i = 0; i < n; i++) x += Math.sqrt(i); return x; } spinForFlame(3e7);';
  execFileSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=100', '-e', script]);
  const [file] = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'));
  assert.ok(file !== undefined, 'node wrote a profile');
  const flame = buildFlameProfile(readCpuProfile(path.join(dir, file)));
  assert.ok(flame.busySamples > 0);
  assert.ok(functionCosts(flame).some((cost) => cost.functionName === 'spinForFlame'), 'the named function is a frame');
  const outline = checkWellFormedXml(renderFlameSvg(flame, { title: 'spin' }));
  assert.equal(outline.root, 'svg');
  assert.ok(outline.elements > 10);
});

test('the profile command’s arguments: workloads by the bench’s names, defaults GetItem and PutItem', () => {
  const defaults = parseProfileArgs([]);
  assert.deepEqual(defaults.workloads, ['GetItem', 'PutItem']);
  assert.deepEqual([defaults.seconds, defaults.warmupSeconds, defaults.connections, defaults.intervalUs], [10, 2, 64, 1000]);
  assert.match(defaults.outDir, /bench[/\\]results$/);
  assert.deepEqual(parseProfileArgs(['PutItem', '--seconds', '3']).workloads, ['PutItem']);
  assert.throws(() => parseProfileArgs(['GetItems']), /unknown workload "GetItems"/);
  assert.throws(() => parseProfileArgs(['--seconds', 'x']), /--seconds must be a number/);
  assert.equal(outputStem('PutItem stream'), 'flame-PutItem-stream');
});

test('npm run profile end to end: a short PutItem load gives a flame graph and a summary', async () => {
  const outDir = scratch.fresh();
  const outcome = await profileWorkload('PutItem', {
    workloads: ['PutItem'],
    seconds: 0.5,
    warmupSeconds: 0,
    connections: 4,
    intervalUs: 100,
    outDir,
    keepProfile: true,
  });
  assert.equal(outcome.errors, 0);
  assert.ok(outcome.requests > 0, 'the server answered requests in the window');
  assert.ok(outcome.busySamples > 0);
  assert.equal(outcome.svgFile, path.join(outDir, 'flame-PutItem.svg'));
  const outline = checkWellFormedXml(readFileSync(outcome.svgFile, 'utf8'));
  assert.equal(outline.root, 'svg');
  assert.ok(outline.texts.some((t) => t.includes(`${outcome.requests} requests`)), 'the header gives the request count');
  assert.match(readFileSync(outcome.summaryFile, 'utf8'), new RegExp(`over ${outcome.requests} requests`));
  assert.ok(outcome.profileFile !== null && existsSync(outcome.profileFile), '--keep-profile keeps the .cpuprofile');
});
