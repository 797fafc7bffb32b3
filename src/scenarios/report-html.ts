/**
 * `--report <file>.html`: the simulation as one self-contained page for a design review — inline
 * CSS and SVG, no script, no font, no image and no link to fetch, so it opens from a mail or a
 * ticket without a network. The variants stand side by side, on shared scales: offered vs
 * accepted over time, throttle events per table and GSI, each resource's partition heat map over
 * time, the top partition-key values, and the findings with their fixes.
 *
 * Pure: a SimulationReport in, the page's text out. Elements carry `data-*` attributes (chart
 * kind, points, partitions, finding code) so a test can check the page in a browser.
 */
import type { Finding } from './findings.js';
import type { KeySummary } from './key-tally.js';
import type { SimulationReport, VariantReport } from './report.js';
import type { HeatSample, ResourceSeries } from './runner.js';

/** Points a line chart draws at most: longer series are averaged into this many buckets. */
const CHART_POINTS_MAX = 600;
/** Columns a heat map draws at most: longer runs show the hottest second of each column. */
const HEAT_COLUMNS_MAX = 300;
/** A key value below this share of the values drawn is not listed among the top keys. */
const TOP_KEY_SHARE_MIN = 0.01;
/**
 * A chart's width in CSS px: it is drawn at this size and never stretched to the page (a single
 * variant filled 1,200 px with 26 px axis labels), only shrunk when its column is narrower.
 */
const CHART_WIDTH = 560;
/** A variant's column at most: its chart plus the card's padding and border (see STYLE's .variant). */
const VARIANT_COLUMN_WIDTH = CHART_WIDTH + 2 * 16 + 2;
/** A variant's column at least: three variants still stand side by side on a 1600 px page (charts shrink a little). */
const VARIANT_COLUMN_WIDTH_MIN = 460;
const CHART_HEIGHT = 190;
const HEAT_HEIGHT = 150;
const MARGIN = { left: 58, right: 12, top: 12, bottom: 26 } as const;

/** Cool to hot: the share of a partition's allocated units it consumed. */
const HEAT_COLOURS: readonly (readonly [number, readonly [number, number, number]])[] = [
  [0, [227, 235, 245]],
  [0.05, [198, 219, 239]],
  [0.25, [107, 174, 214]],
  [0.5, [253, 216, 53]],
  [0.75, [251, 140, 0]],
  [1, [215, 25, 28]],
];
const THROTTLE_COLOUR = '#7e22ce';
const LINE_COLOURS = ['#1f77b4', '#2ca02c', '#d62728', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];

interface Line {
  readonly label: string;
  readonly colour: string;
  readonly values: readonly number[];
  readonly dashed?: boolean;
}

/** Where the page's reader finds what it refers to, as the CLI resolves it (package-files.ts's shippedPath). */
export interface ReportPaths {
  /** docs/SCENARIOS.md, as a user can follow it (e.g. node_modules/dynatwin/docs/SCENARIOS.md in an installed project). */
  readonly scenariosDoc: string;
}

export function renderHtmlReport(report: SimulationReport, paths: ReportPaths): string {
  const throughputMax = niceCeiling(
    Math.max(1, ...report.variants.flatMap((variant) => [max(variant.series.offered), max(variant.series.accepted), max(variant.series.throttled)])),
  );
  const throttleMax = niceCeiling(Math.max(1, ...report.variants.flatMap((variant) => variant.resources.map((resource) => max(resource.series.throttleEvents)))));
  const columns = report.variants.map((variant) => variantColumn(report, variant, throughputMax, throttleMax)).join('\n');
  const findingCount = report.variants.reduce((total, variant) => total + variant.findings.length, 0);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${text(`dynatwin simulate: ${report.scenario}`)}</title>
<style>${STYLE}</style>
</head>
<body data-variants="${report.variants.length}" data-findings="${findingCount}" data-simulated-seconds="${report.simulatedSeconds}">
<header>
<h1>${text(report.scenario)}</h1>
${report.description === '' ? '' : `<p class="description">${text(report.description)}</p>`}
<p class="meta">${report.simulatedSeconds.toLocaleString('en-US')} s simulated in ${report.tickMs} ms ticks · ${report.variants.length} design variant${report.variants.length === 1 ? '' : 's'} · made by <code>dynatwin simulate</code></p>
${comparisonTable(report)}
</header>
<main class="variants" style="grid-template-columns: repeat(${report.variants.length}, minmax(${VARIANT_COLUMN_WIDTH_MIN}px, ${VARIANT_COLUMN_WIDTH}px))">
${columns}
</main>
<footer>
<p>Heat maps: one band per partition in hash order (a split adds a band), one column per second (or the hottest second of a group, on long runs); the colour is the units a partition consumed over its allocated units per second; a purple mark is a throttled partition. Finding codes are explained in <code>${text(paths.scenariosDoc)}</code>.</p>
${legend()}
</footer>
</body>
</html>
`;
}

function comparisonTable(report: SimulationReport): string {
  const rows = report.variants
    .map((variant) => {
      const totals = variant.totals;
      const errors = variant.findings.filter((finding) => finding.severity === 'error').length;
      return (
        `<tr data-variant="${attr(variant.name)}"><th>${text(variant.name)}</th><td>${whole(totals.offered)}</td><td>${whole(totals.accepted)} (${percent(totals.offered === 0 ? 0 : totals.accepted / totals.offered)})</td>` +
        `<td>${whole(totals.throttled)}</td><td>${whole(totals.failed)}</td><td>${totals.firstThrottleSeconds === null ? 'none' : `${round(totals.firstThrottleSeconds)} s`}</td>` +
        `<td>${whole(totals.acceptedPerSecondLastMinute)}/s</td><td>${variant.findings.length === 0 ? 'none' : `${variant.findings.length}${errors > 0 ? ` (${errors} error${errors === 1 ? '' : 's'})` : ''}`}</td></tr>`
      );
    })
    .join('');
  return `<table class="comparison"><thead><tr><th>variant</th><th>offered</th><th>accepted</th><th>throttled</th><th>gave up</th><th>first throttle</th><th>accepted, last minute</th><th>findings</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function variantColumn(report: SimulationReport, variant: VariantReport, throughputMax: number, throttleMax: number): string {
  const seconds = report.simulatedSeconds;
  const throughput = lineChart('throughput', 'items (or requests) per second', seconds, throughputMax, [
    { label: 'offered', colour: '#6b7280', values: variant.series.offered, dashed: true },
    { label: 'accepted', colour: '#1f77b4', values: variant.series.accepted },
    { label: 'throttled', colour: '#d62728', values: variant.series.throttled },
  ]);
  const throttles = lineChart(
    'throttles',
    'throttle events per second',
    seconds,
    throttleMax,
    variant.resources.map((resource, index) => ({ label: resource.name, colour: LINE_COLOURS[index % LINE_COLOURS.length]!, values: resource.series.throttleEvents })),
  );
  const resources = variant.resources.map((resource) => resourceBlock(variant, resource, seconds)).join('\n');
  return `<section class="variant" data-variant="${attr(variant.name)}">
<h2>${text(variant.name)}</h2>
${variant.description === '' ? '' : `<p class="description">${text(variant.description)}</p>`}
${findingsBlock(variant.findings)}
${costBlock(variant)}
<h3>Offered vs accepted</h3>
${throughput}
<h3>Throttle events</h3>
${throttles}
${resources}
</section>`;
}

function findingsBlock(findings: readonly Finding[]): string {
  if (findings.length === 0) return '<div class="findings none" data-findings="0"><p>No findings: nothing in this run calls for a change.</p></div>';
  const items = findings
    .map(
      (finding) =>
        `<li class="finding ${finding.severity}" data-code="${attr(finding.code)}" data-resource="${attr(finding.resource)}">` +
        `<p><span class="severity">${finding.severity}</span> <code>${text(finding.code)}</code> on <code>${text(finding.resource)}</code></p>` +
        `<p class="summary">${text(finding.summary)}</p>` +
        `<ul class="fixes">${finding.fixes.map((fix) => `<li class="fix">${text(fix)}</li>`).join('')}</ul></li>`,
    )
    .join('');
  return `<div class="findings" data-findings="${findings.length}"><h3>Findings</h3><ul>${items}</ul></div>`;
}

function costBlock(variant: VariantReport): string {
  const parts: string[] = [];
  const p = variant.provisioned;
  if (p.readUnitsPerSecond + p.writeUnitsPerSecond > 0) {
    parts.push(`<p class="meta" data-provisioned-dollars="${p.dollarsPerMonth}">Provisioned at the end: ${whole(p.readUnitsPerSecond)} RCU + ${whole(p.writeUnitsPerSecond)} WCU ≈ $${p.dollarsPerMonth.toFixed(2)}/month (us-east-1 list price).</p>`);
  }
  if (variant.perUnit !== null) {
    const u = variant.perUnit;
    parts.push(`<p class="per-unit" data-per-unit="${attr(u.name)}" data-write-units="${u.writeUnits}" data-read-units="${u.readUnits}">Per ${text(u.name)}: <strong>${round(u.writeUnits)}</strong> write units, <strong>${round(u.readUnits)}</strong> read units, ${round(u.calls)} calls (${whole(u.count)} done).</p>`);
  }
  if (variant.operations.length > 0) {
    const rows = variant.operations
      .map(
        (o) =>
          `<tr data-operation="${attr(o.name)}"><td>${text(o.name)}</td><td>${whole(o.accepted)} / ${whole(o.offered)}</td><td>${whole(o.calls)}</td><td>${whole(o.writeUnits)}</td><td>${whole(o.readUnits)}</td><td>${whole(o.throttled)}</td><td>${whole(o.itemSizeFailures)}</td></tr>`,
      )
      .join('');
    parts.push(`<table class="operations"><thead><tr><th>operation</th><th>done / offered</th><th>calls</th><th>WCU</th><th>RCU</th><th>throttled</th><th>over 400 KB</th></tr></thead><tbody>${rows}</tbody></table>`);
  }
  return parts.join('\n');
}

function resourceBlock(variant: VariantReport, resource: VariantReport['resources'][number], seconds: number): string {
  const totals = resource.totals;
  const keys = variant.keys[resource.name];
  return `<div class="resource" data-resource="${attr(resource.name)}">
<h3>${resource.kind === 'index' ? 'GSI' : 'Table'} <code>${text(resource.name)}</code></h3>
<p class="meta">partition key <code>${text(resource.partitionKey)}</code> · ${whole(totals.consumedWriteUnits)} write units · ${whole(totals.consumedReadUnits)} read units · ${whole(totals.throttleEvents)} throttle events · ${totals.partitions} partition${totals.partitions === 1 ? '' : 's'} at the end · the hottest took ${percent(totals.hottestPartitionShare)} of the units</p>
${heatMap(resource.name, resource.series, seconds)}
${topKeys(keys)}
</div>`;
}

function topKeys(keys: KeySummary | undefined): string {
  if (keys === undefined || keys.total === 0) return '<p class="meta">No partition-key values were drawn for it.</p>';
  const distinct = keys.distinct === undefined ? 'more than a thousand values' : `${whole(keys.distinct)} value${keys.distinct === 1 ? '' : 's'}`;
  // A per-item key (a UUID) has no value worth a row: say it is spread instead.
  const shown = keys.top.slice(0, 5).filter((key) => key.share >= TOP_KEY_SHARE_MIN);
  if (shown.length === 0) {
    return `<p class="top-keys spread" data-values="${keys.distinct ?? 'many'}">Partition-key values: ${distinct} in ${whole(keys.total)} drawn; none above ${percent(TOP_KEY_SHARE_MIN)} of them (spread).</p>`;
  }
  const rows = shown
    .map((key) => `<tr><td><code>${text(key.value)}</code></td><td>${percent(key.share)}</td><td><span class="bar" style="width:${Math.max(1, Math.round(key.share * 100))}%"></span></td></tr>`)
    .join('');
  return `<table class="top-keys" data-values="${keys.distinct ?? 'many'}"><caption>Top partition-key values (${whole(keys.total)} drawn, ${distinct})</caption><tbody>${rows}</tbody></table>`;
}

// ---- charts ----

function lineChart(kind: string, yLabel: string, seconds: number, yMax: number, lines: readonly Line[]): string {
  const plotWidth = CHART_WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = CHART_HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (second: number): number => MARGIN.left + (seconds <= 0 ? 0 : (second / seconds) * plotWidth);
  const y = (value: number): number => MARGIN.top + plotHeight - (Math.min(value, yMax) / yMax) * plotHeight;
  let points = 0;
  const paths = lines
    .map((line) => {
      const buckets = bucketMeans(line.values, CHART_POINTS_MAX);
      points = Math.max(points, buckets.values.length);
      if (buckets.values.length === 0) return '';
      const d = buckets.values.map((value, index) => `${index === 0 ? 'M' : 'L'}${fixed(x((index + 0.5) * buckets.width))},${fixed(y(value))}`).join('');
      return `<path d="${d}" fill="none" stroke="${line.colour}" stroke-width="1.6"${line.dashed === true ? ' stroke-dasharray="5 3"' : ''}><title>${text(line.label)}</title></path>`;
    })
    .join('');
  const legend = lines
    .map((line) => `<span class="key"><span class="swatch" style="background:${line.colour}"></span>${text(line.label)}</span>`)
    .join(' ');
  return `<figure class="chart"><svg data-chart="${kind}" data-points="${points}" data-y-max="${yMax}" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" role="img" aria-label="${attr(yLabel)}">
${axes(seconds, yMax, plotWidth, plotHeight)}${paths}</svg><figcaption>${text(yLabel)} · ${legend}</figcaption></figure>`;
}

function axes(seconds: number, yMax: number, plotWidth: number, plotHeight: number): string {
  const parts: string[] = [];
  for (let step = 0; step <= 4; step++) {
    const value = (yMax * step) / 4;
    const y = MARGIN.top + plotHeight - (step / 4) * plotHeight;
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${fixed(y)}" y2="${fixed(y)}" class="grid"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${fixed(y + 4)}" text-anchor="end">${short(value)}</text>`);
  }
  parts.push(...timeTicks(seconds, plotWidth, MARGIN.top + plotHeight));
  return parts.join('');
}

function timeTicks(seconds: number, plotWidth: number, baseline: number): string[] {
  const step = tickStep(seconds);
  const parts: string[] = [];
  for (let second = 0; second <= seconds; second += step) {
    const x = MARGIN.left + (seconds === 0 ? 0 : (second / seconds) * plotWidth);
    const label = tickText(second, step);
    parts.push(`<line x1="${fixed(x)}" x2="${fixed(x)}" y1="${baseline}" y2="${baseline + 4}" class="axis"/>`);
    parts.push(`<text class="time" x="${fixed(x)}" y="${baseline + 16}" text-anchor="${tickAnchor(x, label)}">${label}</text>`);
  }
  return parts;
}

/**
 * Seconds between time ticks, about six of them, in one unit for the whole axis: seconds (steps of
 * 1-50 s), whole minutes, or whole hours past LONG_RUN_SECONDS. (Steps of 100 s gave 100 s, 3:20,
 * 5 min, 6:40 on a 600 s run.)
 */
function tickStep(seconds: number): number {
  if (seconds > LONG_RUN_SECONDS) return hourStep(seconds);
  const wanted = Math.max(1, seconds / 6);
  if (wanted <= 50) return niceCeiling(wanted);
  for (const minutes of [1, 2, 5, 10, 15, 20, 30]) if (minutes * 60 >= wanted) return minutes * 60;
  return 3600;
}

/** A tick's label in its step's unit, so every label of an axis reads alike (0 min, 2 min, ... 10 min). */
function tickText(second: number, step: number): string {
  if (step % 3600 === 0) return `${second / 3600} h`;
  if (step % 60 === 0) return `${second / 60} min`;
  return `${second} s`;
}

/**
 * A tick label is centred on its tick unless that would run past the chart's edge, where the SVG
 * cuts it ('10 mi' at the end of a 600 s run): then it ends (or starts) at the tick. The width is
 * an estimate, as the page has no script to measure text: 10.5 px digits and letters are at most
 * about 6.5 px wide.
 */
function tickAnchor(x: number, label: string): 'start' | 'middle' | 'end' {
  const half = (label.length * TICK_CHARACTER_WIDTH_MAX) / 2;
  if (x + half > CHART_WIDTH) return 'end';
  if (x - half < 0) return 'start';
  return 'middle';
}

/**
 * The heat map: time across, the hash space down (0 at the top); each column is a second or the
 * hottest of a group of seconds, each band a partition of that column's layout.
 */
function heatMap(name: string, series: ResourceSeries, seconds: number): string {
  const heat = series.heat;
  const plotWidth = CHART_WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEAT_HEIGHT - MARGIN.top - MARGIN.bottom;
  // A long run's columns are whole minutes (a day: 5 minutes a column), so its hours read off the axis.
  const perColumn = Math.max(1, Math.ceil(heat.length / HEAT_COLUMNS_MAX));
  const group = heat.length > LONG_RUN_SECONDS ? Math.ceil(perColumn / 60) * 60 : perColumn;
  const columns = Math.ceil(heat.length / group);
  const columnWidth = plotWidth / Math.max(1, columns);
  const cells: string[] = [];
  let hottestShare = 0;
  let throttledCells = 0;
  let partitionsMax = 0;
  for (let column = 0; column < columns; column++) {
    const samples = heat.slice(column * group, (column + 1) * group);
    const merged = mergeSamples(samples);
    if (merged === undefined) continue;
    partitionsMax = Math.max(partitionsMax, merged.starts.length);
    const x = MARGIN.left + column * columnWidth;
    for (let band = 0; band < merged.starts.length; band++) {
      const top = MARGIN.top + merged.starts[band]! * plotHeight;
      const bottom = MARGIN.top + (merged.starts[band + 1] ?? 1) * plotHeight;
      const share = merged.shares[band]!;
      hottestShare = Math.max(hottestShare, share);
      const from = column * group;
      const label = `${clockText(from)}${group > 1 ? `–${clockText(Math.min(seconds, from + group))}` : ''} · partition ${band + 1}: ${whole(merged.units[band]!)} units/s, ${percent(share)} of its allocation${merged.throttles[band]! > 0 ? `, ${whole(merged.throttles[band]!)} throttles` : ''}`;
      cells.push(`<rect x="${fixed(x)}" y="${fixed(top)}" width="${fixed(columnWidth + 0.4)}" height="${fixed(Math.max(0.5, bottom - top - 0.3))}" fill="${heatColour(share)}"><title>${text(label)}</title></rect>`);
      if (merged.throttles[band]! > 0) {
        throttledCells++;
        cells.push(`<rect x="${fixed(x)}" y="${fixed(top)}" width="${fixed(columnWidth + 0.4)}" height="${fixed(Math.min(3, Math.max(0.5, bottom - top)))}" fill="${THROTTLE_COLOUR}" class="throttled"/>`);
      }
    }
  }
  const axisParts = timeTicks(seconds, plotWidth, MARGIN.top + plotHeight);
  axisParts.push(`<text x="${MARGIN.left - 6}" y="${MARGIN.top + 8}" text-anchor="end">hash 0</text>`);
  axisParts.push(`<text x="${MARGIN.left - 6}" y="${MARGIN.top + plotHeight}" text-anchor="end">2³²</text>`);
  return `<figure class="chart heat"><svg data-chart="heatmap" data-resource="${attr(name)}" data-columns="${columns}" data-partitions="${partitionsMax}" data-hottest-share="${Math.round(hottestShare * 1000) / 1000}" data-throttled-cells="${throttledCells}" viewBox="0 0 ${CHART_WIDTH} ${HEAT_HEIGHT}" role="img" aria-label="partition heat map of ${attr(name)}">
${cells.join('')}${axisParts.join('')}</svg><figcaption>partitions over time (consumed ÷ allocated units)</figcaption></figure>`;
}

/** The hottest of several seconds, on the last second's partition layout. */
function mergeSamples(samples: readonly HeatSample[]): HeatSample | undefined {
  const last = samples.at(-1);
  if (last === undefined || last.starts.length === 0) return undefined;
  if (samples.length === 1) return last;
  const merged: HeatSample = { starts: last.starts, units: last.units.map(() => 0), shares: last.shares.map(() => 0), throttles: last.throttles.map(() => 0) };
  for (const sample of samples) {
    for (let index = 0; index < sample.starts.length; index++) {
      const band = bandOf(last.starts, sample.starts[index]!);
      merged.units[band] = Math.max(merged.units[band]!, sample.units[index]!);
      merged.shares[band] = Math.max(merged.shares[band]!, sample.shares[index]!);
      merged.throttles[band]! += sample.throttles[index]!;
    }
  }
  return merged;
}

/** The band of `starts` (ascending) that holds `position`. */
function bandOf(starts: readonly number[], position: number): number {
  let band = 0;
  while (band + 1 < starts.length && starts[band + 1]! <= position) band++;
  return band;
}

function heatColour(share: number): string {
  const value = Math.min(1, Math.max(0, share));
  let index = 0;
  while (index < HEAT_COLOURS.length - 2 && value > HEAT_COLOURS[index + 1]![0]) index++;
  const [from, low] = HEAT_COLOURS[index]!;
  const [to, high] = HEAT_COLOURS[index + 1]!;
  const t = Math.min(1, Math.max(0, (value - from) / (to - from)));
  const channel = (c: number): string => Math.round(low[c]! + (high[c]! - low[c]!) * t).toString(16).padStart(2, '0');
  return `#${channel(0)}${channel(1)}${channel(2)}`;
}

function legend(): string {
  const stops = [0, 0.25, 0.5, 0.75, 1].map((share) => `<span class="key"><span class="swatch" style="background:${heatColour(share)}"></span>${percent(share)}${share === 1 ? ' or more' : ''}</span>`);
  stops.push(`<span class="key"><span class="swatch" style="background:${THROTTLE_COLOUR}"></span>throttled</span>`);
  return `<p class="legend">${stops.join(' ')}</p>`;
}

/** Means of consecutive buckets, at most `count` of them; `width` is the seconds per bucket. */
function bucketMeans(values: readonly number[], count: number): { values: number[]; width: number } {
  const width = Math.max(1, Math.ceil(values.length / count));
  const means: number[] = [];
  for (let start = 0; start < values.length; start += width) {
    let total = 0;
    const end = Math.min(values.length, start + width);
    for (let index = start; index < end; index++) total += values[index]!;
    means.push(total / (end - start));
  }
  return { values: means, width };
}

// ---- formatting ----

function niceCeiling(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

function max(values: readonly number[]): number {
  let result = 0;
  for (const value of values) if (value > result) result = value;
  return result;
}

/** What a character of a 10.5 px axis label takes at most, in px (see tickAnchor). */
const TICK_CHARACTER_WIDTH_MAX = 6.5;

/** Past this, the axis is in hours and heat-map columns in whole minutes. */
const LONG_RUN_SECONDS = 7200;

/** Seconds between time ticks of a run of hours: 1, 2, 3, 4, 6 or 12 hours, about six ticks. */
function hourStep(seconds: number): number {
  const hours = seconds / 3600 / 6;
  for (const step of [1, 2, 3, 4, 6, 12]) if (step >= hours) return step * 3600;
  return 24 * 3600;
}

/** A moment of the run, for a heat cell's title (an axis labels its ticks with tickText). */
function clockText(second: number): string {
  if (second >= LONG_RUN_SECONDS) {
    const minutes = Math.floor(second / 60);
    return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')} h`;
  }
  if (second < 120) return `${second} s`;
  const minutes = Math.floor(second / 60);
  const rest = second % 60;
  return rest === 0 ? `${minutes} min` : `${minutes}:${String(rest).padStart(2, '0')}`;
}

function short(value: number): string {
  if (value >= 1_000_000) return `${round(value / 1_000_000)}M`;
  if (value >= 10_000) return `${round(value / 1000)}k`;
  return round(value);
}

function fixed(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}

function round(value: number): string {
  return value >= 100 ? Math.round(value).toLocaleString('en-US') : String(Math.round(value * 10) / 10);
}

function whole(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}

function text(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attr(value: string): string {
  return text(value).replace(/"/g, '&quot;');
}

const STYLE = `
:root { color-scheme: light; --ink: #1f2933; --muted: #5f6b7a; --line: #d9dee5; --card: #ffffff; --page: #f4f6f9; }
* { box-sizing: border-box; }
body { margin: 0; padding: 20px 24px 32px; background: var(--page); color: var(--ink); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 0 0 4px; }
h3 { font-size: 14px; margin: 16px 0 4px; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; }
.description { margin: 2px 0 6px; }
.meta { color: var(--muted); margin: 2px 0 6px; font-size: 12.5px; }
table { border-collapse: collapse; }
.comparison { background: var(--card); margin: 10px 0 16px; font-size: 13px; }
.comparison th, .comparison td { border: 1px solid var(--line); padding: 4px 9px; text-align: right; }
.comparison th:first-child, .comparison thead th { text-align: left; }
.variants { display: grid; gap: 16px; overflow-x: auto; align-items: start; }
.variant { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; min-width: 0; }
.chart { margin: 0; }
.chart svg { width: 100%; max-width: ${CHART_WIDTH}px; height: auto; display: block; }
.chart text { font-size: 10.5px; fill: var(--muted); }
.chart .grid { stroke: #eceff3; }
.chart .axis { stroke: var(--muted); }
figcaption { font-size: 12px; color: var(--muted); }
.key { white-space: nowrap; margin-right: 8px; }
.swatch { display: inline-block; width: 12px; height: 10px; margin-right: 4px; vertical-align: -1px; border-radius: 2px; }
.findings ul { list-style: none; padding: 0; margin: 0; }
.finding { border-left: 4px solid #f59e0b; background: #fffbeb; padding: 6px 10px; margin: 6px 0; }
.finding.error { border-left-color: #dc2626; background: #fef2f2; }
.finding p { margin: 2px 0; }
.severity { text-transform: uppercase; font-size: 11px; font-weight: 600; letter-spacing: 0.04em; }
.fixes { list-style: disc !important; padding-left: 20px !important; }
.fix { margin: 3px 0; }
.findings.none { border-left: 4px solid #16a34a; background: #f0fdf4; padding: 6px 10px; }
.resource { border-top: 1px solid var(--line); margin-top: 14px; }
.operations { font-size: 12px; margin: 6px 0; width: 100%; }
.operations th, .operations td { border-bottom: 1px solid var(--line); padding: 2px 5px; text-align: right; }
.operations th:first-child, .operations td:first-child { text-align: left; }
.top-keys { font-size: 12.5px; width: 100%; }
.top-keys caption { text-align: left; color: var(--muted); padding: 4px 0; }
.top-keys td { padding: 2px 6px 2px 0; }
.top-keys td:last-child { width: 50%; }
.bar { display: block; height: 9px; background: #6baed6; border-radius: 2px; }
footer { margin-top: 18px; color: var(--muted); font-size: 12.5px; }
`;
