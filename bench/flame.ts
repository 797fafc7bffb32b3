/**
 * Flame graphs of a V8 CPU profile (the `.cpuprofile` that `node --cpu-prof` writes), as one
 * self-contained SVG file (no script, no external font or style), plus a text summary of the
 * functions that cost the most. `npm run profile` (bench/profile.ts) makes the profile of a
 * dynatwin server under load and calls this; it also runs alone on any profile:
 *
 *   node dist/bench/flame.js PROFILE.cpuprofile --out flame.svg [--requests N] [--title TEXT] [--top 25]
 *
 * Stacks are merged by function name + script URL + line, so the many profile nodes V8 keeps for
 * one call path (one per column, per recompilation) become one frame. A frame's width is the
 * sampled time spent in it and below it; with --requests (how many requests the server answered
 * during the profile) every figure is also given in µs per request. Samples where the process was
 * idle (waiting in epoll) are left out: the widths add up to busy time only, which is what a
 * request costs. Colours tell the layers apart: dynatwin's own code by its directory under src/
 * (server, operations, engine, storage...), dependencies (node_modules), Node's own JavaScript
 * (node:internal/...), native code V8 cannot attribute to a JavaScript function ("(program)",
 * native bindings) and the garbage collector.
 *
 * Line numbers are those of the compiled JavaScript under dist/ (the profile knows no better).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The parts of V8's Profiler.Profile this file reads (Chrome DevTools protocol). */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  /** Microseconds on the monotonic clock (CLOCK_MONOTONIC, the one process.hrtime reads). */
  readonly startTime: number;
  readonly endTime: number;
  /** The node id on top of the stack at each sample. */
  readonly samples: readonly number[];
  /** Microseconds since the previous sample (the first: since startTime). */
  readonly timeDeltas: readonly number[];
}

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  /** 0-based; -1 for V8's pseudo-frames ("(root)", "(program)", "(idle)", "(garbage collector)"). */
  readonly lineNumber: number;
}

/** A function (or one frame of it) and its sampled time. */
export interface FunctionCost {
  readonly functionName: string;
  readonly url: string;
  /** 1-based; 0 when V8 gives no line. */
  readonly line: number;
  readonly layer: Layer;
  /** Sampled time with it on top of the stack. */
  readonly selfUs: number;
  /**
   * Sampled time with it anywhere on the stack (itself and everything it called); for a function
   * over every stack (functionCosts), counted once however deep it recurses.
   */
  readonly totalUs: number;
}

/** One merged frame: every sample whose stack has this path of (function, url, line) below it. */
export interface FlameFrame extends FunctionCost {
  /** Sorted by function name, then file and line, so the same input always draws the same picture. */
  readonly children: readonly FlameFrame[];
}

export interface FlameProfile {
  /** "(root)": its total is the busy time. */
  readonly root: FlameFrame;
  readonly busyUs: number;
  /** Left out of the graph: the process had nothing to do. */
  readonly idleUs: number;
  readonly busySamples: number;
  readonly idleSamples: number;
}

/**
 * dynatwin's own directories under src/ (files directly in src/ are 'src'), 'bench',
 * 'deps' (node_modules), 'node' (Node's own JavaScript), 'native' and 'gc'.
 */
export type Layer = string;

/** A window of the profile, in the profile's own microseconds (see CpuProfile.startTime). */
export interface ProfileWindow {
  readonly fromUs: number;
  readonly toUs: number;
}

const IDLE = '(idle)';
const GARBAGE_COLLECTOR = '(garbage collector)';
const ANONYMOUS = '(anonymous)';

/** Checks the shape of a parsed .cpuprofile; throws naming what is wrong. */
export function asCpuProfile(value: unknown): CpuProfile {
  const profile = value as Partial<CpuProfile> | null;
  if (typeof profile !== 'object' || profile === null) throw new Error('not a V8 CPU profile: not a JSON object');
  const { nodes, samples, timeDeltas, startTime, endTime } = profile;
  if (!Array.isArray(nodes) || nodes.length === 0) throw new Error('not a V8 CPU profile: no "nodes"');
  if (!Array.isArray(samples) || !Array.isArray(timeDeltas)) throw new Error('not a V8 CPU profile: no "samples" or "timeDeltas"');
  if (samples.length !== timeDeltas.length) {
    throw new Error(`not a V8 CPU profile: ${samples.length} samples but ${timeDeltas.length} time deltas`);
  }
  if (typeof startTime !== 'number' || typeof endTime !== 'number') throw new Error('not a V8 CPU profile: no startTime/endTime');
  for (const node of nodes) {
    const frame = (node as Partial<ProfileNode> | null)?.callFrame;
    if (typeof node?.id !== 'number' || typeof frame?.functionName !== 'string' || typeof frame.url !== 'string' || typeof frame.lineNumber !== 'number') {
      throw new Error(`not a V8 CPU profile: node ${JSON.stringify(node).slice(0, 120)} lacks id or callFrame`);
    }
  }
  return profile as CpuProfile;
}

export function readCpuProfile(file: string): CpuProfile {
  return asCpuProfile(JSON.parse(readFileSync(file, 'utf8')) as unknown);
}

/** The layer a frame belongs to, from its script URL (see Layer). */
export function layerOf(frame: CallFrame): Layer {
  const { url, functionName } = frame;
  if (url === '') return functionName === GARBAGE_COLLECTOR ? 'gc' : 'native';
  if (url.startsWith('node:')) return 'node';
  if (url.includes('/node_modules/')) return 'deps';
  const src = url.lastIndexOf('/dist/src/');
  if (src >= 0) {
    const rest = url.slice(src + '/dist/src/'.length);
    const slash = rest.indexOf('/');
    return slash < 0 ? 'src' : rest.slice(0, slash);
  }
  if (url.includes('/dist/bench/')) return 'bench';
  return 'other';
}

/** The script URL, short: src/server/http.js, node_modules/lmdb/..., node:internal/... */
export function shortUrl(url: string): string {
  const dist = url.lastIndexOf('/dist/');
  if (dist >= 0 && !url.includes('/node_modules/')) return url.slice(dist + '/dist/'.length);
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + 1);
  return url.startsWith('file://') ? url.slice('file://'.length) : url;
}

/** A merged frame while the tree is built. */
class Building {
  selfUs = 0;
  totalUs = 0;
  readonly children = new Map<string, Building>();

  constructor(readonly frame: CallFrame) {}

  child(frame: CallFrame): Building {
    const key = `${frame.functionName}\u0000${frame.url}\u0000${frame.lineNumber}`;
    let child = this.children.get(key);
    if (child === undefined) {
      child = new Building(frame);
      this.children.set(key, child);
    }
    return child;
  }
}

/**
 * Merges the profile's stacks into a tree of frames weighted by sampled time. Each sample
 * weighs the time since the previous one (its time delta; V8's rare negative deltas weigh 0).
 * With a window, only the samples taken inside it count.
 */
export function buildFlameProfile(profile: CpuProfile, window?: ProfileWindow): FlameProfile {
  const selfUsByNode = new Map<number, number>();
  let idleUs = 0;
  let idleSamples = 0;
  let busySamples = 0;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  let atUs = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    atUs += profile.timeDeltas[i]!;
    if (window !== undefined && (atUs < window.fromUs || atUs > window.toUs)) continue;
    const id = profile.samples[i]!;
    const weightUs = Math.max(0, profile.timeDeltas[i]!);
    if (byId.get(id)?.callFrame.functionName === IDLE) {
      idleUs += weightUs;
      idleSamples++;
      continue;
    }
    busySamples++;
    selfUsByNode.set(id, (selfUsByNode.get(id) ?? 0) + weightUs);
  }
  const root = mergeNodes(profile, byId, selfUsByNode);
  const frozen = freeze(root);
  return { root: frozen, busyUs: frozen.totalUs, idleUs, busySamples, idleSamples };
}

/** Walks V8's node tree from its root, folding nodes with the same (function, url, line) path. */
function mergeNodes(profile: CpuProfile, byId: ReadonlyMap<number, ProfileNode>, selfUsByNode: ReadonlyMap<number, number>): Building {
  const rootNode = rootOf(profile);
  const root = new Building(rootNode.callFrame);
  root.selfUs += selfUsByNode.get(rootNode.id) ?? 0;
  // Iterative: a deep recursion in the profiled program must not overflow this one's stack.
  const pending: { id: number; into: Building }[] = (rootNode.children ?? []).map((id) => ({ id, into: root }));
  while (pending.length > 0) {
    const { id, into } = pending.pop()!;
    const node = byId.get(id);
    if (node === undefined) throw new Error(`a V8 CPU profile's node lists a child ${id} that is not in "nodes"`);
    if (node.callFrame.functionName === IDLE) continue;
    const merged = into.child(node.callFrame);
    merged.selfUs += selfUsByNode.get(node.id) ?? 0;
    for (const child of node.children ?? []) pending.push({ id: child, into: merged });
  }
  return root;
}

/** The node no other node lists as a child (V8 puts "(root)" first, but the format does not promise it). */
function rootOf(profile: CpuProfile): ProfileNode {
  const childIds = new Set<number>();
  for (const node of profile.nodes) for (const id of node.children ?? []) childIds.add(id);
  const roots = profile.nodes.filter((node) => !childIds.has(node.id));
  if (roots.length !== 1) throw new Error(`a V8 CPU profile has one root node; this one has ${roots.length}`);
  return roots[0]!;
}

/** Totals, frames never sampled dropped, children in a stable order. */
function freeze(building: Building): FlameFrame {
  const children = [...building.children.values()]
    .map(freeze)
    .filter((child) => child.totalUs > 0)
    .sort(compareFrames);
  const { functionName, url, lineNumber } = building.frame;
  return {
    functionName: functionName === '' ? ANONYMOUS : functionName,
    url,
    line: lineNumber < 0 ? 0 : lineNumber + 1,
    layer: layerOf(building.frame),
    selfUs: building.selfUs,
    totalUs: building.selfUs + children.reduce((sum, child) => sum + child.totalUs, 0),
    children,
  };
}

function compareFrames(a: FlameFrame, b: FlameFrame): number {
  return compareText(a.functionName, b.functionName) || compareText(a.url, b.url) || a.line - b.line;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every function's self and total time, most self time first. */
export function functionCosts(profile: FlameProfile): FunctionCost[] {
  const costs = new Map<string, { frame: FlameFrame; selfUs: number; totalUs: number }>();
  const onPath = new Map<string, number>();
  const visit = (frame: FlameFrame): void => {
    const key = `${frame.functionName}\u0000${frame.url}\u0000${frame.line}`;
    let cost = costs.get(key);
    if (cost === undefined) {
      cost = { frame, selfUs: 0, totalUs: 0 };
      costs.set(key, cost);
    }
    cost.selfUs += frame.selfUs;
    const depth = onPath.get(key) ?? 0;
    if (depth === 0) cost.totalUs += frame.totalUs;
    onPath.set(key, depth + 1);
    for (const child of frame.children) visit(child);
    onPath.set(key, depth);
  };
  for (const child of profile.root.children) visit(child);
  return [...costs.values()]
    .map(({ frame, selfUs, totalUs }) => ({ functionName: frame.functionName, url: frame.url, line: frame.line, layer: frame.layer, selfUs, totalUs }))
    .sort((a, b) => b.selfUs - a.selfUs || compareText(a.functionName, b.functionName));
}

/** Self time by layer, the largest first. */
export function layerCosts(profile: FlameProfile): { readonly layer: Layer; readonly selfUs: number }[] {
  const byLayer = new Map<Layer, number>();
  const pending: FlameFrame[] = [...profile.root.children];
  while (pending.length > 0) {
    const frame = pending.pop()!;
    byLayer.set(frame.layer, (byLayer.get(frame.layer) ?? 0) + frame.selfUs);
    pending.push(...frame.children);
  }
  return [...byLayer].map(([layer, selfUs]) => ({ layer, selfUs })).sort((a, b) => b.selfUs - a.selfUs || compareText(a.layer, b.layer));
}

export interface FlameOptions {
  readonly title: string;
  /** Requests the server answered during the profile (or its window): figures per request. */
  readonly requests?: number;
  /** A line under the title (how the profile was made). */
  readonly subtitle?: string;
  readonly widthPx?: number;
  /** Frames narrower than this are left out, with everything above them (keeps the file small). */
  readonly minFrameWidthPx?: number;
}

const WIDTH_PX = 1200;
const MARGIN_PX = 10;
const FRAME_HEIGHT_PX = 16;
const FONT_SIZE_PX = 11;
/** Monospace glyphs are 0.6 em wide: how many characters fit a frame. */
const CHAR_WIDTH_PX = FONT_SIZE_PX * 0.6;
const HEADER_HEIGHT_PX = 84;
const FOOTER_HEIGHT_PX = 22;
const MIN_FRAME_WIDTH_PX = 0.3;
const MIN_LABEL_CHARS = 3;

/** Hue and saturation per layer; the lightness varies a little per function so neighbours differ. */
const LAYER_COLOURS: Readonly<Record<string, readonly [number, number]>> = {
  server: [28, 90],
  operations: [48, 90],
  engine: [8, 78],
  storage: [330, 55],
  expressions: [300, 45],
  capacity: [168, 55],
  metrics: [188, 60],
  model: [68, 70],
  streams: [250, 50],
  src: [18, 55],
  bench: [140, 30],
  deps: [110, 45],
  node: [212, 60],
  native: [0, 0],
  gc: [270, 55],
  other: [40, 20],
};

function hashOf(text: string): number {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return hash >>> 0;
}

function layerColour(layer: Layer, shade: number): string {
  // A dynatwin directory without an entry (a new one) still gets a colour of its own.
  const [hue, saturation] = LAYER_COLOURS[layer] ?? [hashOf(layer) % 360, 50];
  return `hsl(${hue},${saturation}%,${62 + shade}%)`;
}

/** Text for XML content and attribute values alike. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;'));
}

function formatPercent(us: number, busyUs: number): string {
  return busyUs > 0 ? `${((us * 100) / busyUs).toFixed(2)}%` : '0%';
}

/** µs per request when the request count is known, else milliseconds of sampled time. */
function formatCost(us: number, requests: number | undefined): string {
  return requests !== undefined && requests > 0 ? `${(us / requests).toFixed(2)} µs/request` : `${(us / 1000).toFixed(1)} ms`;
}

function location(frame: { readonly url: string; readonly line: number }): string {
  if (frame.url === '') return '(native)';
  return frame.line > 0 ? `${shortUrl(frame.url)}:${frame.line}` : shortUrl(frame.url);
}

function tooltip(frame: FlameFrame, busyUs: number, requests: number | undefined): string {
  const name = frame.functionName === '(root)' ? 'all (busy time)' : frame.functionName;
  return (
    `${name} — ${location(frame)} [${frame.layer}]\n` +
    `self ${formatCost(frame.selfUs, requests)} (${formatPercent(frame.selfUs, busyUs)} of busy time)\n` +
    `total ${formatCost(frame.totalUs, requests)} (${formatPercent(frame.totalUs, busyUs)} of busy time)`
  );
}

function label(text: string, widthPx: number): string {
  const chars = Math.floor((widthPx - 6) / CHAR_WIDTH_PX);
  if (chars < MIN_LABEL_CHARS) return '';
  return text.length <= chars ? text : text.slice(0, chars - 2) + '..';
}

interface Placed {
  readonly frame: FlameFrame;
  readonly depth: number;
  readonly xPx: number;
  readonly widthPx: number;
}

/** Frames with their position, root first; frames narrower than the minimum are left out with what they called. */
function place(root: FlameFrame, scalePxPerUs: number, minWidthPx: number): Placed[] {
  const placed: Placed[] = [];
  const pending: Placed[] = [{ frame: root, depth: 0, xPx: MARGIN_PX, widthPx: root.totalUs * scalePxPerUs }];
  while (pending.length > 0) {
    const item = pending.pop()!;
    placed.push(item);
    const children: Placed[] = [];
    let xPx = item.xPx;
    for (const child of item.frame.children) {
      const widthPx = child.totalUs * scalePxPerUs;
      if (widthPx >= minWidthPx) children.push({ frame: child, depth: item.depth + 1, xPx, widthPx });
      xPx += widthPx;
    }
    // Reversed onto the stack, so the document lists frames left to right, callers before callees.
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]!);
  }
  return placed;
}

function legend(profile: FlameProfile, y: number): string {
  let x = MARGIN_PX;
  const parts: string[] = [];
  for (const { layer, selfUs } of layerCosts(profile)) {
    const text = `${layer} ${formatPercent(selfUs, profile.busyUs)}`;
    parts.push(
      `<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${layerColour(layer, 0)}"/>` +
        `<text x="${x + 16}" y="${y}">${escapeXml(text)}</text>`,
    );
    x += 24 + text.length * CHAR_WIDTH_PX;
  }
  return parts.join('\n');
}

/** The flame graph as an SVG document (root at the bottom, callees above their callers). */
export function renderFlameSvg(profile: FlameProfile, options: FlameOptions): string {
  const widthPx = options.widthPx ?? WIDTH_PX;
  const scalePxPerUs = profile.busyUs > 0 ? (widthPx - 2 * MARGIN_PX) / profile.busyUs : 0;
  const placed = place(profile.root, scalePxPerUs, options.minFrameWidthPx ?? MIN_FRAME_WIDTH_PX);
  const maxDepth = placed.reduce((max, item) => Math.max(max, item.depth), 0);
  const heightPx = HEADER_HEIGHT_PX + (maxDepth + 1) * FRAME_HEIGHT_PX + FOOTER_HEIGHT_PX;
  const bottomPx = HEADER_HEIGHT_PX + maxDepth * FRAME_HEIGHT_PX;
  const frames = placed.map(({ frame, depth, xPx, widthPx: w }) => {
    const y = bottomPx - depth * FRAME_HEIGHT_PX;
    const name = frame.functionName === '(root)' ? 'all' : frame.functionName;
    const text = label(name, w);
    return (
      `<g><title>${escapeXml(tooltip(frame, profile.busyUs, options.requests))}</title>` +
      `<rect x="${xPx.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${FRAME_HEIGHT_PX - 1}" rx="2" fill="${layerColour(frame.layer, hashOf(frame.functionName) % 14)}"/>` +
      (text === '' ? '' : `<text x="${(xPx + 3).toFixed(2)}" y="${y + FRAME_HEIGHT_PX - 4}">${escapeXml(text)}</text>`) +
      '</g>'
    );
  });
  const idleShare = profile.busyUs + profile.idleUs > 0 ? (profile.idleUs * 100) / (profile.busyUs + profile.idleUs) : 0;
  const summary =
    (options.requests !== undefined ? `${options.requests} requests, ${formatCost(profile.busyUs, options.requests)} busy; ` : '') +
    `${profile.busySamples} busy samples (${(profile.busyUs / 1000).toFixed(0)} ms); idle samples left out (${idleShare.toFixed(1)}% of the time).`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${widthPx}" height="${heightPx}" viewBox="0 0 ${widthPx} ${heightPx}" font-family="monospace" font-size="${FONT_SIZE_PX}">`,
    '<style>g:hover rect { stroke: #000; stroke-width: 0.5; } text { pointer-events: none; }</style>',
    `<rect width="${widthPx}" height="${heightPx}" fill="#fdfdf8"/>`,
    `<text x="${widthPx / 2}" y="20" text-anchor="middle" font-size="16">${escapeXml(options.title)}</text>`,
    `<text x="${widthPx / 2}" y="38" text-anchor="middle">${escapeXml(options.subtitle ?? '')}</text>`,
    `<text x="${widthPx / 2}" y="54" text-anchor="middle">${escapeXml(summary)}</text>`,
    legend(profile, 74),
    ...frames,
    `<text x="${MARGIN_PX}" y="${heightPx - 7}" fill="#666">${escapeXml(
      'Width: sampled busy time. Colour: layer (self time share in the legend). Hover a frame for its file:line, self and total cost. Lines are those of dist/ (compiled JS).',
    )}</text>`,
    '</svg>',
    '',
  ].join('\n');
}

/** The text summary: busy time, self time by layer and the top functions by self time. */
export function formatSummary(profile: FlameProfile, options: { readonly requests?: number; readonly top?: number }): string {
  const { requests } = options;
  const perRequest = requests !== undefined && requests > 0;
  const unit = perRequest ? 'µs/req' : 'ms';
  const figure = (us: number): string => (perRequest ? (us / requests).toFixed(2) : (us / 1000).toFixed(1)).padStart(8);
  const lines = [
    `busy ${figure(profile.busyUs).trim()} ${unit}` +
      (perRequest ? ` over ${requests} requests` : '') +
      `; ${profile.busySamples} busy samples, ${profile.idleSamples} idle samples left out (${(profile.idleUs / 1000).toFixed(0)} ms idle)`,
    '',
    `self time by layer (${unit}, % of busy time):`,
  ];
  for (const { layer, selfUs } of layerCosts(profile)) lines.push(`${figure(selfUs)} ${formatPercent(selfUs, profile.busyUs).padStart(7)}  ${layer}`);
  lines.push('', `top functions by self time (${unit} self, % of busy, ${unit} total):`);
  for (const cost of functionCosts(profile).slice(0, options.top ?? 25)) {
    lines.push(
      `${figure(cost.selfUs)} ${formatPercent(cost.selfUs, profile.busyUs).padStart(7)} ${figure(cost.totalUs)}  ` +
        `${cost.functionName}  ${location(cost)} [${cost.layer}]`,
    );
  }
  return lines.join('\n');
}

const USAGE = 'usage: node dist/bench/flame.js PROFILE.cpuprofile --out FLAME.svg [--requests N] [--title TEXT] [--top N]';

function positiveInteger(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer, got "${text}"\n${USAGE}`);
  return value;
}

function main(argv: readonly string[]): void {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { out: { type: 'string' }, requests: { type: 'string' }, title: { type: 'string' }, top: { type: 'string' } },
  });
  const [file] = positionals;
  if (file === undefined || positionals.length !== 1 || values.out === undefined) throw new Error(USAGE);
  const requests = positiveInteger(values.requests, 'requests');
  const top = positiveInteger(values.top, 'top');
  const profile = buildFlameProfile(readCpuProfile(file));
  const title = values.title ?? `CPU profile ${file}`;
  writeFileSync(values.out, renderFlameSvg(profile, { title, requests }));
  process.stdout.write(`${formatSummary(profile, { requests, top })}\n`);
  process.stdout.write(`flame graph: ${values.out}\n`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  }
}
