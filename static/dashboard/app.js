// The dashboard page: tables and GSIs on the left; for the selected one its partition heat map,
// consumed vs provisioned charts, throttle events and top keys. Polls the server once a second and
// follows the server's clock (GET /dynatwin/clock), never the browser's: on a manual clock the
// picture moves only when time is advanced.
//
// The selection and view live in the URL hash (#table=t&index=i&view=10m&mode=max), so a view can
// be linked and reloaded.
import { ApiError, getJson, tablePath } from './api.js';
import { drawChart } from './charts.js';
import { counted, element, formatBytes, formatDateTime, formatHashRange, formatPercent, formatUnits } from './format.js';
import { colorOfShare, HEAT_STOPS, HeatMap } from './heatmap.js';
import { renderInsights } from './insights.js';
import { renderScaling } from './scaling.js';

const POLL_MS = 1000;
/** Polls between refreshes of the table list, the charts (long views) and top keys. */
const TABLES_EVERY = 5;
const INSIGHTS_EVERY = 3;
const VIEWS = {
  '10m': { period: 1, minutes: 10, metricsPeriod: 1, chartsEvery: 1 },
  '1h': { period: 1, minutes: 60, metricsPeriod: 60, chartsEvery: 5 },
  '3h': { period: 60, minutes: 180, metricsPeriod: 60, chartsEvery: 5 },
};
const PARTITION_ROWS_SHOWN = 12;

const $ = (id) => document.getElementById(id);

const state = {
  tables: undefined,
  tablesSignature: '',
  selection: undefined, // { table, index }
  view: '10m',
  mode: 'max',
  live: true,
  clock: undefined,
  polls: 0,
  heatKey: undefined,
  nextSince: undefined,
  metricsKey: undefined,
  metrics: new Map(), // metric name → Map(startMs → datapoint)
  insightsReport: undefined,
  // GSI back-pressure refusals of the selected table's writes: index → Map(bucket ms → refusals),
  // and the latest heat map document's summaries (holding back now, backlog).
  backPressure: new Map(),
  backPressureNow: [],
  timer: undefined,
  running: false,
};

const heatmap = new HeatMap($('heatmap'));
// For tests and the console: the heat map's state and pixels.
window.dynatwinDashboard = { heatmap, state };

function readHash() {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const table = params.get('table');
  if (table) state.selection = { table, index: params.get('index') || undefined };
  if (VIEWS[params.get('view')]) state.view = params.get('view');
  if (['max', 'read', 'write'].includes(params.get('mode'))) state.mode = params.get('mode');
}

function writeHash() {
  const params = new URLSearchParams();
  if (state.selection) {
    params.set('table', state.selection.table);
    if (state.selection.index) params.set('index', state.selection.index);
  }
  params.set('view', state.view);
  params.set('mode', state.mode);
  history.replaceState(null, '', '#' + params.toString());
}

function selectionKey() {
  return state.selection ? `${state.selection.table}\u0000${state.selection.index ?? ''}` : '';
}

function resourceLabel() {
  if (!state.selection) return '';
  return state.selection.index ? `${state.selection.table} / ${state.selection.index}` : state.selection.table;
}

function selectedTable() {
  return state.tables?.find((table) => table.name === state.selection?.table);
}

function selectedResource() {
  const table = selectedTable();
  if (!table) return undefined;
  if (!state.selection.index) return { table, resource: table };
  const index = table.indexes.find((candidate) => candidate.name === state.selection.index);
  return index ? { table, resource: index } : undefined;
}

function select(table, index) {
  state.selection = { table, index };
  resetSelectionData();
  writeHash();
  renderTables();
  renderResourceHeader();
  poll();
}

function resetSelectionData() {
  state.heatKey = undefined;
  state.nextSince = undefined;
  state.metricsKey = undefined;
  state.metrics = new Map();
  state.insightsReport = undefined;
  state.backPressure = new Map();
  state.backPressureNow = [];
  renderBanner(undefined);
  $('heatmap').dataset.state = 'loading';
  $('heatmap').dataset.resource = resourceLabel();
}

// ---- Tables ----------------------------------------------------------------------------------

async function refreshTables() {
  const doc = await getJson('/dynatwin/tables');
  state.tables = doc.tables;
  const signature = JSON.stringify(doc.tables.map((table) => [table.name, table.billingMode, table.provisioned, table.contributorInsights, table.indexes.map((index) => [index.name, index.status, index.contributorInsights])]));
  if (!state.selection && doc.tables.length > 0) {
    state.selection = { table: doc.tables[0].name, index: undefined };
    resetSelectionData();
    writeHash();
  }
  if (signature !== state.tablesSignature) {
    state.tablesSignature = signature;
    renderTables();
  }
  renderResourceHeader();
}

function tableButton(label, detail, table, index) {
  const button = element('button');
  button.type = 'button';
  button.dataset.table = table;
  if (index) button.dataset.index = index;
  button.append(document.createTextNode(label), element('small', undefined, detail));
  const current = state.selection && state.selection.table === table && (state.selection.index ?? '') === (index ?? '');
  button.setAttribute('aria-current', current ? 'true' : 'false');
  button.addEventListener('click', () => select(table, index));
  return button;
}

function throughputText(resource, billingMode) {
  if (billingMode === 'PAY_PER_REQUEST') return 'on-demand';
  const provisioned = resource.provisioned;
  return provisioned ? `${formatUnits(provisioned.readCapacityUnits)} RCU · ${formatUnits(provisioned.writeCapacityUnits)} WCU` : 'provisioned';
}

function renderTables() {
  const list = $('tables');
  const tables = state.tables ?? [];
  if (tables.length === 0) {
    list.replaceChildren(element('li', 'muted', 'No tables'));
    return;
  }
  const items = tables.map((table) => {
    const item = element('li');
    item.append(tableButton(table.name, `${throughputText(table, table.billingMode)} · ${counted(table.partitionCount, 'partition')}`, table.name, undefined));
    if (table.indexes.length > 0) {
      const sub = element('ul');
      for (const index of table.indexes) {
        const child = element('li');
        child.append(tableButton(index.name, `GSI · ${throughputText(index, table.billingMode)} · ${counted(index.partitionCount, 'partition')}`, table.name, index.name));
        sub.append(child);
      }
      item.append(sub);
    }
    return item;
  });
  list.replaceChildren(...items);
}

function renderResourceHeader() {
  const tables = state.tables ?? [];
  $('empty').hidden = tables.length > 0;
  const found = selectedResource();
  const visible = found !== undefined;
  for (const id of ['resource', 'heat-panel', 'charts-panel', 'scaling-panel', 'insights-panel']) $(id).hidden = !visible;
  if (!visible) {
    if (state.selection && tables.length > 0) {
      $('empty').hidden = false;
      $('empty').textContent = `${resourceLabel()} does not exist (any more). Pick a table on the left.`;
    }
    return;
  }
  const { table, resource } = found;
  $('resource-title').textContent = state.selection.index ? `${table.name} › ${resource.name} (GSI)` : table.name;
  const facts = [
    table.billingMode === 'PAY_PER_REQUEST' ? 'on-demand' : `provisioned ${throughputText(resource, table.billingMode)}`,
    counted(resource.partitionCount, 'partition'),
    counted(resource.itemCount, 'item'),
    formatBytes(resource.sizeBytes),
    `status ${resource.status}`,
  ];
  if (!state.selection.index && table.localIndexes.length > 0) facts.push(`LSIs (on the table's partitions): ${table.localIndexes.join(', ')}`);
  if (!state.selection.index && table.stream) {
    const { viewType, openShards, closedShards, recordsPerSecond } = table.stream;
    facts.push(`stream ${viewType}: ${counted(openShards, 'open shard')}${closedShards > 0 ? ` (${closedShards} closed)` : ''}, ${recordsPerSecond.toFixed(1)} records/s`);
  }
  $('resource-facts').textContent = facts.join(' · ');
}

// ---- Heat map ----------------------------------------------------------------------------------

async function refreshHeatmap() {
  const selection = state.selection;
  const view = VIEWS[state.view];
  const key = `${selectionKey()}\u0000${state.view}`;
  const incremental = state.heatKey === key && state.nextSince !== undefined;
  const params = { period: view.period, minutes: view.minutes, index: selection.index };
  if (incremental) params.since = state.nextSince;
  const doc = await getJson(tablePath(selection.table) + '/heatmap', params);
  if (key !== `${selectionKey()}\u0000${state.view}`) return; // the selection changed meanwhile
  const windowBuckets = Math.round((view.minutes * 60) / view.period);
  if (!incremental || !heatmap.matches(doc)) {
    if (incremental) {
      // The partitions changed (a split): start over with the whole window.
      state.heatKey = undefined;
      state.nextSince = undefined;
      return refreshHeatmap();
    }
    heatmap.configure(doc.periodSeconds, windowBuckets, doc.partitions);
    heatmap.setMode(state.mode);
    state.heatKey = key;
  }
  heatmap.apply(doc);
  takeBackPressure(doc, windowBuckets);
  // The bucket in progress is asked for again next time.
  const periodMs = doc.periodSeconds * 1000;
  state.nextSince = Math.floor(doc.nowMs / periodMs) * periodMs;
  const figure = $('heatmap');
  figure.dataset.resource = resourceLabel();
  renderBanner(doc);
  renderHeatSummary(doc, await overAllocationFigures(selection, key));
  figure.dataset.state = 'ready';
}

/**
 * When the hottest partition runs over its allocation, what pays for it: its burst bank (and, on a
 * GSI, the backlog its writes wait in), from the partitions document. Undefined otherwise, or when
 * the selection changed meanwhile.
 */
async function overAllocationFigures(selection, key) {
  const hottest = heatmap.summary?.hottest;
  if (hottest === undefined || !(hottest.share > 1)) return undefined;
  const doc = await getJson(tablePath(selection.table) + '/partitions');
  if (key !== `${selectionKey()}\u0000${state.view}`) return undefined;
  const partitions = selection.index ? doc.indexes?.[selection.index]?.partitions : doc.partitions;
  const partition = partitions?.find((candidate) => candidate.id === hottest.id);
  if (partition === undefined) return undefined;
  const writes = hottest.writeAllocation > 0 && hottest.writePerSecond / hottest.writeAllocation >= (hottest.readAllocation > 0 ? hottest.readPerSecond / hottest.readAllocation : 0);
  const backPressure = selection.index ? state.backPressureNow.find((entry) => entry.index === selection.index) : undefined;
  return {
    writes,
    burstUnits: writes ? partition.burstWriteUnits : partition.burstReadUnits,
    allocation: writes ? hottest.writeAllocation : hottest.readAllocation,
    backlogWriteUnits: selection.index ? partition.backlogWriteUnits : 0,
    backlogWriteUnitsMax: backPressure?.backlogWriteUnitsMax,
  };
}

/** Keeps the window's back-pressure refusals per GSI, from each (possibly incremental) document. */
function takeBackPressure(doc, windowBuckets) {
  const periodMs = doc.periodSeconds * 1000;
  const windowStartMs = (Math.floor(doc.nowMs / periodMs) - windowBuckets + 1) * periodMs;
  // The buckets this document answered are replaced (the one in progress grows), for every GSI seen.
  for (const counts of state.backPressure.values()) {
    for (let k = 0; k < doc.bucketCount; k++) counts.delete(doc.startMs + k * periodMs);
  }
  for (const summary of doc.backPressure ?? []) {
    let counts = state.backPressure.get(summary.index);
    if (counts === undefined) state.backPressure.set(summary.index, (counts = new Map()));
    summary.writeThrottles.forEach((value, k) => {
      if (value > 0) counts.set(doc.startMs + k * periodMs, value);
    });
  }
  for (const counts of state.backPressure.values()) for (const ms of counts.keys()) if (ms < windowStartMs) counts.delete(ms);
  state.backPressureNow = doc.backPressure ?? [];
}

/** Refusals per GSI over the window, largest first: [{ index, refused, summary }]. */
function backPressureInWindow() {
  const out = [];
  for (const [index, counts] of state.backPressure) {
    let refused = 0;
    for (const value of counts.values()) refused += value;
    const summary = state.backPressureNow.find((candidate) => candidate.index === index);
    if (refused > 0 || summary?.holdingBack) out.push({ index, refused, summary });
  }
  for (const summary of state.backPressureNow) {
    if (summary.holdingBack && !out.some((entry) => entry.index === summary.index)) out.push({ index: summary.index, refused: 0, summary });
  }
  return out.sort((a, b) => b.refused - a.refused);
}

/**
 * The banner over a table's view (and its GSI's) when a GSI's back-pressure refuses the table's
 * writes: those refusals are counted on the GSI, so the table's partitions and charts alone would
 * show a table that is never throttled.
 */
function renderBanner(doc) {
  const banner = $('backpressure-banner');
  const entries = doc === undefined ? [] : backPressureInWindow();
  banner.hidden = entries.length === 0;
  banner.dataset.indexes = entries.map((entry) => entry.index).join(',');
  banner.dataset.refused = String(entries.reduce((total, entry) => total + entry.refused, 0));
  if (entries.length === 0) {
    banner.replaceChildren();
    return;
  }
  const table = state.selection.table;
  banner.replaceChildren(
    ...entries.map((entry) => {
      const line = element('p');
      const name = element('strong', undefined, entry.index);
      const backlog = entry.summary ? ` (its fullest partition's backlog: ${formatUnits(entry.summary.backlogWriteUnits)} of ${formatUnits(entry.summary.backlogWriteUnitsMax)} write units)` : '';
      const now = entry.summary?.holdingBack;
      line.append(
        now ? `Writes to ${table} are being refused: its GSI ` : `Writes to ${table} were refused by its GSI `,
        name,
        now ? ' cannot keep up' : '',
        `${backlog}. ${formatUnits(entry.refused)} write${entry.refused === 1 ? '' : 's'} refused in the window by this GSI's back-pressure; `,
        'they are counted on the GSI, not on the table\'s partitions.',
      );
      return line;
    }),
  );
}

function renderHeatSummary(doc, overAllocation) {
  const summary = heatmap.summary;
  const out = $('heat-summary');
  const rowsBody = $('partition-rows');
  if (summary === undefined) {
    out.textContent = '';
    rowsBody.replaceChildren();
    return;
  }
  const recent = summary.recentSeconds >= 60 ? `${summary.recentSeconds / 60} min` : `${summary.recentSeconds} s`;
  const throttled = summary.rows.filter((row) => row.readThrottles + row.writeThrottles > 0);
  const hottest = summary.hottest;
  out.replaceChildren();
  if (hottest === undefined) {
    out.append(`No consumption in the last ${recent}.`);
  } else {
    const strong = element('strong', hottest.share >= 0.9 ? 'hot' : '', `#${hottest.id}`);
    strong.id = 'hottest-partition';
    out.append(
      'Hottest partition over the last ',
      recent,
      ': ',
      strong,
      ` (hash ${formatHashRange(hottest.hashRange)}) at ${formatPercent(hottest.share)} of its allocation — `,
      `${formatUnits(hottest.readPerSecond)} of ${formatUnits(hottest.readAllocation)} RCU/s, ${formatUnits(hottest.writePerSecond)} of ${formatUnits(hottest.writeAllocation)} WCU/s.`,
    );
    if (overAllocation !== undefined) out.append(' ', overAllocationText(overAllocation));
  }
  out.dataset.burstUnits = overAllocation === undefined ? '' : String(Math.round(overAllocation.burstUnits));
  out.dataset.backlogWriteUnits = overAllocation === undefined ? '' : String(Math.round(overAllocation.backlogWriteUnits));
  const refusals = state.selection?.index ? [] : backPressureInWindow().filter((entry) => entry.refused > 0);
  const refusalText = refusals.map((entry) => `${counted(entry.refused, 'write')} refused by GSI ${entry.index}'s back-pressure`).join(', ');
  out.append(
    ' ',
    throttled.length === 0
      ? refusals.length === 0
        ? 'No throttles in the window.'
        : `No throttles on these partitions, but ${refusalText} in the window (see above).`
      : `Throttled in the window: ${throttled.map((row) => `#${row.id} (${formatUnits(row.readThrottles + row.writeThrottles)})`).join(', ')}${refusals.length === 0 ? '' : `; and ${refusalText}`}.`,
  );
  const sorted = [...summary.rows].sort((a, b) => b.share - a.share || b.peak - a.peak || a.row - b.row);
  const shown = sorted.slice(0, PARTITION_ROWS_SHOWN);
  rowsBody.replaceChildren(
    ...shown.map((row) => {
      const tr = element('tr');
      tr.dataset.partition = String(row.id);
      const shareCell = element('td', 'share');
      const swatch = element('span');
      swatch.style.background = `rgb(${colorOfShare(row.share).join(',')})`;
      shareCell.append(swatch, formatPercent(row.share));
      tr.append(
        element('td', undefined, `#${row.id}`),
        element('td', 'hash', formatHashRange(row.hashRange)),
        element('td', undefined, `${formatUnits(row.readAllocation)} · ${formatUnits(row.writeAllocation)}`),
        element('td', undefined, `${formatUnits(row.readPerSecond)} · ${formatUnits(row.writePerSecond)}`),
        shareCell,
        peakCell(row),
        element('td', undefined, `${formatUnits(row.readThrottles)} · ${formatUnits(row.writeThrottles)}`),
        element('td', undefined, `${formatUnits(row.itemCount)} · ${formatBytes(row.sizeBytes)}`),
      );
      return tr;
    }),
  );
  $('partition-note').textContent =
    summary.rows.length > shown.length
      ? `The ${shown.length} hottest of ${counted(summary.rows.length, 'partition')}, by share (of the allocation) over the last ${recent}; rates are averages over it; peak is of the partition's hard ceiling (${ceilingText(summary.rows[0])}).`
      : `Rates and shares (of the allocation) are averages over the last ${recent}; peak (of the partition's hard ceiling, ${ceilingText(summary.rows[0])}) and throttles over the window (${doc.periodSeconds === 1 ? '1-second' : '1-minute'} buckets).`;
}

/**
 * What lets a partition serve more than its allocation: its burst bank (unused allocation it saved,
 * up to 300 s of it) and, on a GSI, the backlog its index writes wait in.
 */
function overAllocationText(figures) {
  const unit = figures.writes ? 'WCU' : 'RCU';
  const seconds = figures.allocation > 0 ? figures.burstUnits / figures.allocation : 0;
  const bank = 'its burst bank (allocation it left unused, kept up to 300 s of it)';
  let text =
    figures.burstUnits < 1
      ? `Over its allocation, the extra was paid from ${bank}, now spent: from here on it serves its allocation.`
      : `Over its allocation, the extra is paid from ${bank}: ${formatUnits(figures.burstUnits)} ${unit} left, ${counted(Math.round(seconds), 'second')} of its allocation.`;
  if (figures.backlogWriteUnits > 0) {
    const bound = figures.backlogWriteUnitsMax === undefined ? '' : ` of the ${formatUnits(figures.backlogWriteUnitsMax)} past which the table's writes are refused`;
    text += ` Index writes it has not applied yet wait in its backlog: ${counted(figures.backlogWriteUnits, 'write unit')}${bound}.`;
  }
  return text;
}

/** The peak against the ceiling, with what the partition's stored capacity added labelled as burst. */
function peakCell(row) {
  const cell = element('td', 'peak', formatPercent(row.peak));
  if (row.peakBurst >= 0.005) {
    const burst = element('span', 'burst', ` + ${formatPercent(row.peakBurst)} burst`);
    burst.title = 'Served from the partition\'s stored capacity (a rested partition holds a second of its ceiling, and a reserve), above what its ceiling sustains over the span.';
    cell.append(burst);
  }
  return cell;
}

function ceilingText(row) {
  if (row === undefined) return '';
  return `${formatUnits(row.readCeiling)} RCU/s · ${formatUnits(row.writeCeiling)} WCU/s, over its busiest ${row.peakSpanSeconds >= 60 ? `${row.peakSpanSeconds / 60} min` : `${row.peakSpanSeconds} s`}`;
}

// ---- Charts ------------------------------------------------------------------------------------

const CHART_METRICS = ['ConsumedReadCapacityUnits', 'ConsumedWriteCapacityUnits', 'ProvisionedReadCapacityUnits', 'ProvisionedWriteCapacityUnits', 'ReadThrottleEvents', 'WriteThrottleEvents'];

async function refreshCharts() {
  const selection = state.selection;
  const view = VIEWS[state.view];
  const key = `${selectionKey()}\u0000${state.view}`;
  if (state.metricsKey !== key) {
    state.metricsKey = key;
    state.metrics = new Map();
  }
  const nowMs = state.clock.nowMs;
  const periodMs = view.metricsPeriod * 1000;
  const windowStartMs = Math.floor(nowMs / periodMs) * periodMs - view.minutes * 60_000 + periodMs;
  let failure;
  await Promise.all(
    CHART_METRICS.map(async (metric) => {
      let points = state.metrics.get(metric);
      if (points === undefined) state.metrics.set(metric, (points = new Map()));
      let startMs = windowStartMs;
      for (const ms of points.keys()) if (ms > startMs) startMs = ms;
      try {
        const doc = await getJson('/dynatwin/metrics', { table: selection.table, index: selection.index, metric, period: view.metricsPeriod, startMs });
        for (const result of doc.metrics) {
          for (const point of result.datapoints) points.set(Date.parse(point.Timestamp), point);
        }
      } catch (error) {
        failure = error;
      }
      for (const ms of points.keys()) if (ms < windowStartMs) points.delete(ms);
    }),
  );
  if (key !== state.metricsKey) return;
  renderCharts(windowStartMs, nowMs, view.metricsPeriod, failure);
}

function seriesOf(metric, valueOf) {
  const points = state.metrics.get(metric);
  if (points === undefined) return [];
  return [...points.entries()].sort((a, b) => a[0] - b[0]).map(([ms, point]) => [ms, valueOf(point)]);
}

/** Buckets with no datapoint are 0 (CloudWatch leaves empty periods out). */
function filledSeries(metric, startMs, endMs, periodSeconds, valueOf) {
  const points = state.metrics.get(metric) ?? new Map();
  const periodMs = periodSeconds * 1000;
  const out = [];
  for (let ms = startMs; ms <= endMs; ms += periodMs) {
    const point = points.get(ms);
    out.push([ms, point === undefined ? 0 : valueOf(point)]);
  }
  return out;
}

function renderCharts(startMs, endMs, periodSeconds, failure) {
  const found = selectedResource();
  const onDemand = found?.table.billingMode === 'PAY_PER_REQUEST';
  const note = [];
  if (failure instanceof ApiError && failure.status === 404) note.push('This server does not publish metrics (GET /dynatwin/metrics answered 404).');
  else if (failure) note.push(`Metrics: ${failure.message}`);
  if (onDemand) note.push('On-demand: nothing is provisioned; each partition serves up to 3,000 RCU/s and 1,000 WCU/s.');
  note.push(`${periodSeconds === 1 ? '1-second' : '1-minute'} periods: capacity in units per second (each period's sum ÷ ${periodSeconds}), throttle events per ${periodSeconds === 1 ? 'second' : 'minute'}.`);
  $('charts-note').textContent = note.join(' ');
  const perSecond = (point) => point.Sum / periodSeconds;
  const average = (point) => point.Average;
  const sum = (point) => point.Sum;
  const provisioned = (metric, current) => {
    const points = seriesOf(metric, average);
    // The gauge is sampled while the dashboard reads: before its first sample, the first value held.
    if (points.length > 0) return points[0][0] > startMs ? [[startMs, points[0][1]], ...points] : points;
    return current === undefined ? [] : [[startMs, current], [endMs, current]];
  };
  const resource = found?.resource;
  const isIndex = Boolean(state.selection?.index);
  const chartPeriodMs = periodSeconds * 1000;
  for (const [canvasId, direction, consumed, provisionedMetric, current, color] of [
    ['chart-read', 'read', 'ConsumedReadCapacityUnits', 'ProvisionedReadCapacityUnits', resource?.provisioned?.readCapacityUnits, '#2563eb'],
    ['chart-write', 'write', 'ConsumedWriteCapacityUnits', 'ProvisionedWriteCapacityUnits', resource?.provisioned?.writeCapacityUnits, '#ea580c'],
  ]) {
    const series = [];
    if (isIndex && direction === 'write') {
      // A GSI's writes wait in its partitions' backlog (the banner says how full it is): both lines
      // count what the partitions served from it — 'served' from the heat map's history,
      // 'consumed' CloudWatch's ConsumedWriteCapacityUnits, which counts units when served too.
      series.push({ label: 'served', color, kind: 'line', points: heatmap.totalSeries('write', periodSeconds).filter(([ms]) => ms >= startMs) });
      series.push({ label: 'consumed (CloudWatch)', color: '#a8a29e', kind: 'line', dash: true, points: filledSeries(consumed, startMs, endMs, periodSeconds, perSecond) });
    } else {
      series.push({ label: 'consumed', color, kind: 'line', points: filledSeries(consumed, startMs, endMs, periodSeconds, perSecond) });
    }
    if (!onDemand) series.push({ label: 'provisioned', color: '#111827', kind: 'step', dash: true, points: provisioned(provisionedMetric, current) });
    drawChart($(canvasId), { startMs, endMs: endMs + chartPeriodMs, series });
  }
  const unit = periodSeconds === 1 ? 'second' : 'minute';
  $('chart-throttles-title').textContent = `Throttle events (per ${unit})`;
  const throttleSeries = [
    { label: 'read', color: '#7e22ce', kind: 'bars', widthMs: chartPeriodMs, points: filledSeries('ReadThrottleEvents', startMs, endMs, periodSeconds, sum) },
    { label: 'write', color: '#db2777', kind: 'bars', widthMs: chartPeriodMs, points: filledSeries('WriteThrottleEvents', startMs, endMs, periodSeconds, sum) },
  ];
  if (!isIndex) {
    // Refused by a GSI's back-pressure: counted on the GSI by CloudWatch, but they are this table's writes.
    const refused = new Map();
    for (const counts of state.backPressure.values()) {
      for (const [ms, value] of counts) {
        const at = Math.floor(ms / chartPeriodMs) * chartPeriodMs;
        refused.set(at, (refused.get(at) ?? 0) + value);
      }
    }
    if (refused.size > 0) {
      throttleSeries.push({ label: 'refused by GSI back-pressure', color: '#f59e0b', kind: 'bars', widthMs: chartPeriodMs, points: [...refused.entries()].filter(([ms]) => ms >= startMs).sort((a, b) => a[0] - b[0]) });
    }
  }
  drawChart($('chart-throttles'), { startMs, endMs: endMs + chartPeriodMs, series: throttleSeries });
}

// ---- Auto scaling ------------------------------------------------------------------------------

async function refreshScaling() {
  const key = selectionKey();
  let doc;
  try {
    doc = await getJson(tablePath(state.selection.table) + '/scaling');
  } catch (error) {
    // A server without auto scaling (404) shows nothing rather than an error.
    if (!(error instanceof ApiError)) throw error;
    doc = { targets: [], activities: [] };
  }
  if (key !== selectionKey()) return;
  renderScaling($('scaling'), doc);
}

// ---- Top keys ----------------------------------------------------------------------------------

async function refreshInsights() {
  const selection = state.selection;
  const key = selectionKey();
  const found = selectedResource();
  const status = found?.resource.contributorInsights ?? 'DISABLED';
  let report = { status, rules: [] };
  if (status === 'ENABLED' || status === 'ENABLING') {
    const path = tablePath(selection.table) + (selection.index ? '/indexes/' + encodeURIComponent(selection.index) : '') + '/contributor-insights';
    try {
      report = await getJson(path);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      report = { status, rules: [] };
    }
  }
  if (key !== selectionKey()) return;
  state.insightsReport = report;
  renderInsights($('insights'), report, resourceLabel(), { backPressureRefusals: backPressureInWindow().reduce((total, entry) => total + entry.refused, 0) });
}

// ---- Clock and polling -------------------------------------------------------------------------

function renderClock() {
  const clock = $('clock');
  clock.dataset.mode = state.clock.mode;
  clock.dataset.nowMs = String(state.clock.nowMs);
  clock.textContent = formatDateTime(state.clock.nowMs);
}

function setStatus(text, isError) {
  const status = $('status');
  status.textContent = text;
  status.classList.toggle('error', Boolean(isError));
}

/** The store's state (GET /dynatwin/store): a banner while it refuses writes for a disk fault. */
function renderStore(store) {
  const banner = $('store-banner');
  const refusal = store?.refusal;
  banner.hidden = refusal === undefined;
  if (refusal === undefined) return;
  banner.textContent = `Writes refused: ${refusal.code === 'ENOSPC' ? 'disk full' : `disk fault (${refusal.code})`} at ${refusal.path} since ${formatDateTime(refusal.sinceMs)}` +
    ` — ${refusal.stage}; needs ${formatBytes(refusal.neededBytes)} free. Reads go on; writes resume by themselves.`;
}

async function poll() {
  if (state.running) {
    state.pollAgain = true;
    return;
  }
  state.running = true;
  clearTimeout(state.timer);
  try {
    state.clock = await getJson('/dynatwin/clock');
    renderClock();
    renderStore(await getJson('/dynatwin/store'));
    if (state.tables === undefined || state.polls % TABLES_EVERY === 0) await refreshTables();
    if (selectedResource() !== undefined) {
      const view = VIEWS[state.view];
      const work = [refreshHeatmap()];
      if (state.metricsKey !== `${selectionKey()}\u0000${state.view}` || state.polls % view.chartsEvery === 0) work.push(refreshCharts());
      if (state.insightsReport === undefined || state.polls % INSIGHTS_EVERY === 0) work.push(refreshInsights(), refreshScaling());
      const results = await Promise.allSettled(work);
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    }
    setStatus(state.live ? 'live' : 'paused');
  } catch (error) {
    setStatus(`update failed: ${error.message}`, true);
    if (state.heatKey === undefined) $('heatmap').dataset.state = 'error';
  } finally {
    state.polls++;
    state.running = false;
    if (state.pollAgain) {
      state.pollAgain = false;
      setTimeout(poll, 0);
    } else if (state.live) {
      state.timer = setTimeout(poll, POLL_MS);
    }
  }
}

function init() {
  readHash();
  $('view').value = state.view;
  $('mode').value = state.mode;
  $('legend-ramp').style.background = `linear-gradient(to right, ${HEAT_STOPS.map(([at, color]) => `${color} ${at * 100}%`).join(', ')})`;
  $('view').addEventListener('change', () => {
    state.view = $('view').value;
    resetSelectionData();
    writeHash();
    poll();
  });
  $('mode').addEventListener('change', () => {
    state.mode = $('mode').value;
    heatmap.setMode(state.mode);
    writeHash();
    if (heatmap.summary !== undefined) renderHeatSummary({ periodSeconds: VIEWS[state.view].period });
  });
  $('live').addEventListener('click', () => {
    state.live = !state.live;
    $('live').textContent = state.live ? 'Pause' : 'Resume';
    $('live').setAttribute('aria-pressed', String(state.live));
    setStatus(state.live ? 'live' : 'paused');
    if (state.live) poll();
    else clearTimeout(state.timer);
  });
  let resizeTimer;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      if (state.heatKey !== undefined) heatmap.layout();
      if (state.clock && state.metricsKey !== undefined) {
        const view = VIEWS[state.view];
        const periodMs = view.metricsPeriod * 1000;
        renderCharts(Math.floor(state.clock.nowMs / periodMs) * periodMs - view.minutes * 60_000 + periodMs, state.clock.nowMs, view.metricsPeriod);
      }
    }, 150);
  });
  window.addEventListener('hashchange', () => {
    const before = `${selectionKey()}\u0000${state.view}`;
    readHash();
    $('view').value = state.view;
    $('mode').value = state.mode;
    if (`${selectionKey()}\u0000${state.view}` !== before) {
      resetSelectionData();
      renderTables();
      renderResourceHeader();
      poll();
    }
  });
  if (state.selection) resetSelectionData();
  poll();
}

init();
