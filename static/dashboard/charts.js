// Small time-series charts on a canvas: lines (consumed, provisioned) or bars (throttle events)
// over the server-time window [startMs, endMs]. Redrawn whole on each update: a few hundred points.
import { formatMinute, formatTime, formatUnits } from './format.js';

const TICK_STEPS_SECONDS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800];

function niceMax(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
    if (value <= step * power) return step * power;
  }
  return 10 * power;
}

/** Where each legend entry goes: rows of entries from the left, a new row when one would not fit. */
function legendLayout(context, seriesList, width, ratio) {
  const layout = [];
  const start = 8 * ratio;
  let x = start;
  let row = 0;
  for (const series of seriesList) {
    const entryWidth = 16 * ratio + context.measureText(series.label).width;
    if (x > start && x + entryWidth > width - 4 * ratio) {
      row++;
      x = start;
    }
    layout.push({ series, x, row });
    x += entryWidth + 16 * ratio;
  }
  return layout;
}

/** A y-axis label: as many decimals as the ticks need (0.25, not 0.3), none past 100. */
function formatTick(value, yMax) {
  if (yMax >= 8 || Number.isInteger(value)) return formatUnits(value);
  return String(Math.round(value * 100) / 100);
}

function medianOfPositive(points) {
  const values = points.map(([, value]) => value).filter((value) => value > 0).sort((a, b) => a - b);
  return values.length === 0 ? 0 : values[Math.floor(values.length / 2)];
}

/**
 * chart: { startMs, endMs, series: [{ label, color, points: [[ms, value], ...], kind: 'line'|'step'|'bars', dash?, widthMs? }],
 *          emptyText? }
 */
export function drawChart(canvas, chart) {
  const ratio = window.devicePixelRatio || 1;
  const cssWidth = Math.max(160, canvas.parentElement.clientWidth);
  const context = canvas.getContext('2d');
  const font = `${Math.round(11 * ratio)}px system-ui, sans-serif`;
  // The legend wraps onto as many rows as the width needs (a narrow chart would cut a label off);
  // the plot keeps its height below it.
  context.font = font;
  const legend = legendLayout(context, chart.series, cssWidth * ratio, ratio);
  const legendRows = legend.reduce((rows, entry) => Math.max(rows, entry.row + 1), 1);
  const cssHeight = 136 + 14 * legendRows;
  canvas.style.height = cssHeight + 'px';
  canvas.width = Math.round(cssWidth * ratio);
  canvas.height = Math.round(cssHeight * ratio);
  context.clearRect(0, 0, canvas.width, canvas.height);
  context.font = font;

  const left = 52 * ratio;
  const right = 8 * ratio;
  const top = (8 + 14 * legendRows) * ratio;
  const bottom = 20 * ratio;
  const plotWidth = canvas.width - left - right;
  const plotHeight = canvas.height - top - bottom;
  const span = Math.max(1, chart.endMs - chart.startMs);
  const xOf = (ms) => left + ((ms - chart.startMs) / span) * plotWidth;

  let maximum = 0;
  for (const series of chart.series) for (const [, value] of series.points) if (value > maximum) maximum = value;
  const yMax = niceMax(maximum * 1.05);
  const yOf = (value) => top + plotHeight - (Math.min(value, yMax) / yMax) * plotHeight;

  // Grid and y labels.
  context.strokeStyle = '#e5e7eb';
  context.fillStyle = '#6b7280';
  context.lineWidth = 1;
  context.textAlign = 'right';
  context.textBaseline = 'middle';
  for (let i = 0; i <= 4; i++) {
    const value = (yMax * i) / 4;
    const y = Math.round(yOf(value)) + 0.5;
    context.beginPath();
    context.moveTo(left, y);
    context.lineTo(left + plotWidth, y);
    context.stroke();
    context.fillText(formatTick(value, yMax), left - 6 * ratio, y);
  }
  // Time ticks.
  const step = (TICK_STEPS_SECONDS.find((seconds) => (seconds * 1000 * plotWidth) / span >= 90 * ratio) ?? 10800) * 1000;
  context.textAlign = 'center';
  context.textBaseline = 'top';
  for (let t = Math.ceil(chart.startMs / step) * step; t <= chart.endMs; t += step) {
    const x = xOf(t);
    const label = step >= 60_000 ? formatMinute(t) : formatTime(t);
    // A label that would run past the canvas's edge is left out rather than cut.
    const half = context.measureText(label).width / 2;
    if (x - half < 0 || x + half > canvas.width) continue;
    context.fillText(label, x, top + plotHeight + 5 * ratio);
  }

  // Series.
  context.save();
  context.beginPath();
  context.rect(left, top, plotWidth, plotHeight);
  context.clip();
  let drawn = false;
  for (const series of chart.series) {
    if (series.points.length === 0) continue;
    drawn = true;
    context.strokeStyle = series.color;
    context.fillStyle = series.color;
    context.lineWidth = 1.5 * ratio;
    context.setLineDash(series.dash ? [5 * ratio, 4 * ratio] : []);
    if (series.kind === 'bars') {
      const barWidth = Math.max(1, ((series.widthMs ?? 1000) / span) * plotWidth - 1);
      for (const [ms, value] of series.points) {
        if (value <= 0) continue;
        const y = yOf(value);
        context.fillRect(xOf(ms), y, barWidth, top + plotHeight - y);
      }
      continue;
    }
    context.beginPath();
    series.points.forEach(([ms, value], i) => {
      const x = xOf(ms);
      const y = yOf(value);
      if (i === 0) context.moveTo(x, y);
      else if (series.kind === 'step') {
        context.lineTo(x, yOf(series.points[i - 1][1]));
        context.lineTo(x, y);
      } else context.lineTo(x, y);
    });
    if (series.kind === 'step') context.lineTo(left + plotWidth, yOf(series.points[series.points.length - 1][1]));
    context.stroke();
  }
  context.restore();
  context.setLineDash([]);

  // Legend.
  context.textAlign = 'left';
  context.textBaseline = 'middle';
  for (const { series, x, row } of legend) {
    const y = (10 + 14 * row) * ratio;
    context.fillStyle = series.color;
    context.fillRect(x, y - 2 * ratio, 12 * ratio, 4 * ratio);
    context.fillStyle = '#374151';
    context.fillText(series.label, x + 16 * ratio, y);
  }
  // Whether every legend entry lies inside the canvas, for tests.
  canvas.dataset.legendFits = String(legend.every(({ series, x }) => x + 16 * ratio + context.measureText(series.label).width <= canvas.width));
  // What was drawn, for tests and the console: each series' label and largest value.
  canvas.dataset.series = JSON.stringify(chart.series.map((series) => [series.label, series.points.reduce((max, [, value]) => Math.max(max, value), 0), medianOfPositive(series.points)]));
  if (!drawn && chart.emptyText) {
    context.fillStyle = '#9ca3af';
    context.textAlign = 'center';
    context.fillText(chart.emptyText, left + plotWidth / 2, top + plotHeight / 2);
  }
}
