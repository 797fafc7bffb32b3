// The partition heat map: one row per partition (hash order), one column per time bucket of the
// window, colour = consumed ÷ allocated units for the bucket (0 cool → ≥1 hot), a purple band on
// top of a cell where the partition was throttled.
//
// Drawing is incremental and DOM-free per cell: the buckets live in typed arrays indexed by
// (bucket mod window), the picture in an offscreen ImageData that is a ring of display columns
// (a display column is g consecutive buckets when the window has more buckets than the canvas has
// pixels: its colour is the hottest of them, and any throttle shows). A poll recolours only the
// display columns its new buckets fall in, then the visible canvas is one or two drawImage calls.
// 100 partitions × 3,600 buckets is 360,000 cells; a full recolour (a resize, a new allocation)
// touches each once.
import { formatHashRange, formatPercent, formatTime, formatMinute, formatUnits } from './format.js';

/** Offscreen rows per partition: row 0 is the throttle band, the rest the heat colour. */
const SUB_ROWS = 5;
const THROTTLE_RGB = [126, 34, 206];
const NO_DATA_RGB = [246, 247, 249];
const ROW_SEPARATOR = 'rgba(255, 255, 255, 0.85)';
/** Colour stops of the share (consumed ÷ allocated): cool to hot. */
export const HEAT_STOPS = [
  [0, '#e3ebf5'],
  [0.05, '#c6dbef'],
  [0.25, '#6baed6'],
  [0.5, '#fdd835'],
  [0.75, '#fb8c00'],
  [1, '#d7191c'],
];
const LUT_SIZE = 1024;
const LUT = buildLut();

function hexRgb(hex) {
  const value = parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

function buildLut() {
  const lut = new Uint8ClampedArray(LUT_SIZE * 3);
  const stops = HEAT_STOPS.map(([at, hex]) => [at, hexRgb(hex)]);
  for (let i = 0; i < LUT_SIZE; i++) {
    const share = i / (LUT_SIZE - 1);
    let k = 0;
    while (k < stops.length - 2 && share > stops[k + 1][0]) k++;
    const [a, from] = stops[k];
    const [b, to] = stops[k + 1];
    const t = Math.min(1, Math.max(0, (share - a) / (b - a)));
    for (let c = 0; c < 3; c++) lut[i * 3 + c] = Math.round(from[c] + (to[c] - from[c]) * t);
  }
  return lut;
}

/** The heat colour of a share, as [r, g, b]. */
export function colorOfShare(share) {
  const i = Math.round(Math.min(1, Math.max(0, share)) * (LUT_SIZE - 1)) * 3;
  return [LUT[i], LUT[i + 1], LUT[i + 2]];
}

function mod(value, modulus) {
  return ((value % modulus) + modulus) % modulus;
}

const TICK_STEPS_SECONDS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800];
/** Peaks are the busiest span of this many seconds (one bucket when buckets are longer). */
export const PEAK_SPAN_SECONDS = 10;

export class HeatMap {
  /** `root` holds canvas.heat-cells, canvas.heat-labels, canvas.heat-axis and div.heat-tooltip. */
  constructor(root) {
    this.root = root;
    this.cells = root.querySelector('canvas.heat-cells');
    this.labels = root.querySelector('canvas.heat-labels');
    this.axis = root.querySelector('canvas.heat-axis');
    this.tooltip = root.querySelector('.heat-tooltip');
    this.offscreen = document.createElement('canvas');
    this.mode = 'max';
    this.partitions = [];
    this.periodMs = 1000;
    this.windowBuckets = 0;
    this.endBucket = -1;
    this.nowMs = undefined;
    this.summary = undefined;
    this.cells.addEventListener('mousemove', (event) => this.#hover(event));
    this.cells.addEventListener('mouseleave', () => {
      this.tooltip.hidden = true;
    });
  }

  /** A new resource, window or partition set: everything starts empty. */
  configure(periodSeconds, windowBuckets, partitions) {
    this.periodMs = periodSeconds * 1000;
    this.windowBuckets = windowBuckets;
    this.partitions = partitions.map((partition) => ({
      id: partition.id,
      hashRange: partition.hashRange,
      readAllocation: partition.readUnitsPerSecond,
      writeAllocation: partition.writeUnitsPerSecond,
      // The hard ceilings: a partition never serves more, whatever its allocation (burst and
      // adaptive capacity let it pass its allocation, up to these).
      readCeiling: partition.readCeilingUnitsPerSecond ?? partition.readUnitsPerSecond,
      writeCeiling: partition.writeCeilingUnitsPerSecond ?? partition.writeUnitsPerSecond,
      backlogWriteUnits: partition.backlogWriteUnits ?? 0,
      itemCount: partition.itemCount,
      sizeBytes: partition.sizeBytes,
    }));
    const cells = this.partitions.length * windowBuckets;
    this.stamps = new Float64Array(windowBuckets).fill(-1);
    this.readUnits = new Float32Array(cells);
    this.writeUnits = new Float32Array(cells);
    this.readThrottles = new Float32Array(cells);
    this.writeThrottles = new Float32Array(cells);
    this.endBucket = -1;
    this.nowMs = undefined;
    this.summary = undefined;
    this.layout();
  }

  /** Whether a heat map document has the configured partitions, in the same order. */
  matches(doc) {
    if (doc.partitions.length !== this.partitions.length) return false;
    for (let row = 0; row < this.partitions.length; row++) {
      if (doc.partitions[row].id !== this.partitions[row].id) return false;
    }
    return doc.periodSeconds * 1000 === this.periodMs;
  }

  /** Which share colours the cells: 'max' (of read and write), 'read' or 'write'. */
  setMode(mode) {
    if (mode === this.mode) return;
    this.mode = mode;
    this.#recolorWindow();
    this.summary = this.#summarize();
    this.render();
  }

  /** Takes a document's buckets (GET …/heatmap) into the window and redraws what changed. */
  apply(doc) {
    const startedMs = performance.now();
    const periodMs = this.periodMs;
    const window = this.windowBuckets;
    let allocationChanged = false;
    for (let row = 0; row < this.partitions.length; row++) {
      const partition = this.partitions[row];
      const source = doc.partitions[row];
      if (partition.readAllocation !== source.readUnitsPerSecond || partition.writeAllocation !== source.writeUnitsPerSecond) {
        partition.readAllocation = source.readUnitsPerSecond;
        partition.writeAllocation = source.writeUnitsPerSecond;
        allocationChanged = true;
      }
      partition.itemCount = source.itemCount;
      partition.sizeBytes = source.sizeBytes;
      partition.backlogWriteUnits = source.backlogWriteUnits ?? 0;
    }
    const first = Math.round(doc.startMs / periodMs);
    for (let k = 0; k < doc.bucketCount; k++) {
      const bucket = first + k;
      const column = mod(bucket, window);
      this.stamps[column] = bucket;
      for (let row = 0; row < this.partitions.length; row++) {
        const source = doc.partitions[row];
        const index = row * window + column;
        this.readUnits[index] = source.readUnits.length === 0 ? 0 : source.readUnits[k];
        this.writeUnits[index] = source.writeUnits.length === 0 ? 0 : source.writeUnits[k];
        this.readThrottles[index] = source.readThrottles.length === 0 ? 0 : source.readThrottles[k];
        this.writeThrottles[index] = source.writeThrottles.length === 0 ? 0 : source.writeThrottles[k];
      }
    }
    this.nowMs = doc.nowMs;
    const endBucket = Math.floor(doc.nowMs / periodMs);
    const moved = endBucket !== this.endBucket;
    this.endBucket = Math.max(this.endBucket, endBucket);
    if (allocationChanged) {
      this.#recolorWindow();
    } else if (doc.bucketCount > 0) {
      this.#recolorBuckets(first, first + doc.bucketCount - 1);
    }
    this.summary = this.#summarize();
    if (moved) this.#drawAxis();
    this.render();
    // How long taking this document in and redrawing took (a data attribute: tests read it).
    this.lastApplyMs = performance.now() - startedMs;
    this.root.dataset.applyMs = this.lastApplyMs.toFixed(1);
  }

  /** Sizes the canvases to the page (call on resize); recolours the whole window. */
  layout() {
    const ratio = window.devicePixelRatio || 1;
    const rows = Math.max(1, this.partitions.length);
    this.rowCss = Math.max(3, Math.min(22, Math.floor(440 / rows)));
    const cssWidth = Math.max(120, this.cells.parentElement.clientWidth);
    const cssHeight = rows * this.rowCss;
    this.cells.style.height = cssHeight + 'px';
    this.cells.width = Math.round(cssWidth * ratio);
    this.cells.height = Math.round(cssHeight * ratio);
    this.labels.style.height = cssHeight + 'px';
    this.labels.width = Math.round(this.labels.clientWidth * ratio) || Math.round(120 * ratio);
    this.labels.height = this.cells.height;
    this.axis.width = this.cells.width;
    this.axis.height = Math.round(22 * ratio);
    this.ratio = ratio;
    // Buckets per display column: at least one canvas pixel per display column.
    this.group = Math.max(1, Math.ceil(Math.max(1, this.windowBuckets) / this.cells.width));
    this.ringColumns = Math.ceil(Math.max(1, this.windowBuckets) / this.group) + 1;
    this.offscreen.width = this.ringColumns;
    this.offscreen.height = rows * SUB_ROWS;
    this.image = this.offscreen.getContext('2d').createImageData(this.offscreen.width, this.offscreen.height);
    // Per row and display column (same ring as the image): the hottest share and the throttles, so
    // the summary's window-wide figures cost a display column, not a bucket, each.
    this.groupPeak = new Float32Array(rows * this.ringColumns).fill(-1);
    this.groupReadThrottles = new Float32Array(rows * this.ringColumns);
    this.groupWriteThrottles = new Float32Array(rows * this.ringColumns);
    this.#recolorWindow();
    this.render();
    this.#drawAxis();
  }

  /** The share of one cell under the current mode. */
  #share(row, index) {
    const partition = this.partitions[row];
    const seconds = this.periodMs / 1000;
    const read = partition.readAllocation > 0 ? this.readUnits[index] / (partition.readAllocation * seconds) : 0;
    const write = partition.writeAllocation > 0 ? this.writeUnits[index] / (partition.writeAllocation * seconds) : 0;
    if (this.mode === 'read') return read;
    if (this.mode === 'write') return write;
    return read > write ? read : write;
  }

  /**
   * The partition's busiest span of PEAK_SPAN_SECONDS in the window, as a share of its hard
   * ceiling (under the current mode). A span, not a single bucket: a rested partition may serve one
   * extra second of its ceiling at once (the ceiling bucket holds a second, docs/CAPACITY-MODEL.md
   * §1), so one second alone can pass the ceiling while what it sustains never does. Over a span of
   * t seconds that reserve adds at most 1/t. O(window) per partition.
   */
  #ceilingPeak(row) {
    const partition = this.partitions[row];
    const window = this.windowBuckets;
    const seconds = this.periodMs / 1000;
    const spanBuckets = Math.max(1, Math.round(PEAK_SPAN_SECONDS / seconds));
    const spanSeconds = spanBuckets * seconds;
    const readLimit = partition.readCeiling * spanSeconds;
    const writeLimit = partition.writeCeiling * spanSeconds;
    let read = 0;
    let write = 0;
    let peak = 0;
    const first = this.#windowFirst;
    for (let bucket = first; bucket <= this.endBucket; bucket++) {
      read += this.#unitsAt(this.readUnits, row, bucket);
      write += this.#unitsAt(this.writeUnits, row, bucket);
      const leaving = bucket - spanBuckets;
      if (leaving >= first) {
        read -= this.#unitsAt(this.readUnits, row, leaving);
        write -= this.#unitsAt(this.writeUnits, row, leaving);
      }
      const readShare = readLimit > 0 ? read / readLimit : 0;
      const writeShare = writeLimit > 0 ? write / writeLimit : 0;
      const share = this.mode === 'read' ? readShare : this.mode === 'write' ? writeShare : Math.max(readShare, writeShare);
      if (share > peak) peak = share;
    }
    return peak;
  }

  #unitsAt(units, row, bucket) {
    const column = mod(bucket, this.windowBuckets);
    return this.stamps[column] === bucket ? units[row * this.windowBuckets + column] : 0;
  }

  #throttled(index) {
    if (this.mode === 'read') return this.readThrottles[index] > 0;
    if (this.mode === 'write') return this.writeThrottles[index] > 0;
    return this.readThrottles[index] > 0 || this.writeThrottles[index] > 0;
  }

  get #windowFirst() {
    return this.endBucket - this.windowBuckets + 1;
  }

  #recolorWindow() {
    if (this.endBucket < 0) {
      this.image.data.fill(0);
      this.offscreen.getContext('2d').putImageData(this.image, 0, 0);
      return;
    }
    this.#recolorBuckets(this.#windowFirst, this.endBucket);
  }

  /** Recolours the display columns holding buckets first..last, and copies them offscreen. */
  #recolorBuckets(first, last) {
    const firstGroup = Math.floor(Math.max(first, this.#windowFirst) / this.group);
    const lastGroup = Math.floor(last / this.group);
    if (lastGroup < firstGroup) return;
    const count = Math.min(lastGroup - firstGroup + 1, this.ringColumns);
    for (let group = lastGroup - count + 1; group <= lastGroup; group++) this.#recolorGroup(group);
    const context = this.offscreen.getContext('2d');
    const start = mod(lastGroup - count + 1, this.ringColumns);
    if (start + count <= this.ringColumns) {
      context.putImageData(this.image, 0, 0, start, 0, count, this.offscreen.height);
    } else {
      context.putImageData(this.image, 0, 0);
    }
  }

  #recolorGroup(group) {
    const data = this.image.data;
    const width = this.ringColumns;
    const x = mod(group, width);
    const window = this.windowBuckets;
    const from = Math.max(group * this.group, this.#windowFirst);
    const to = Math.min(group * this.group + this.group - 1, this.endBucket);
    for (let row = 0; row < this.partitions.length; row++) {
      let hottest = -1;
      let throttled = false;
      let readThrottles = 0;
      let writeThrottles = 0;
      for (let bucket = from; bucket <= to; bucket++) {
        const column = mod(bucket, window);
        if (this.stamps[column] !== bucket) continue;
        const index = row * window + column;
        const share = this.#share(row, index);
        if (share > hottest) hottest = share;
        if (!throttled && this.#throttled(index)) throttled = true;
        readThrottles += this.readThrottles[index];
        writeThrottles += this.writeThrottles[index];
      }
      const cached = row * width + x;
      this.groupPeak[cached] = hottest;
      this.groupReadThrottles[cached] = readThrottles;
      this.groupWriteThrottles[cached] = writeThrottles;
      let r;
      let g;
      let b;
      if (hottest < 0) {
        [r, g, b] = NO_DATA_RGB;
      } else {
        const i = Math.round(Math.min(1, hottest) * (LUT_SIZE - 1)) * 3;
        r = LUT[i];
        g = LUT[i + 1];
        b = LUT[i + 2];
      }
      for (let sub = 0; sub < SUB_ROWS; sub++) {
        const offset = ((row * SUB_ROWS + sub) * width + x) * 4;
        if (sub === 0 && throttled) {
          data[offset] = THROTTLE_RGB[0];
          data[offset + 1] = THROTTLE_RGB[1];
          data[offset + 2] = THROTTLE_RGB[2];
        } else {
          data[offset] = r;
          data[offset + 1] = g;
          data[offset + 2] = b;
        }
        data[offset + 3] = 255;
      }
    }
  }

  /** The visible geometry: display columns shown and their width in canvas pixels. */
  #geometry() {
    const firstGroup = Math.floor(this.#windowFirst / this.group);
    const lastGroup = Math.floor(this.endBucket / this.group);
    const groups = lastGroup - firstGroup + 1;
    return { firstGroup, lastGroup, groups, columnWidth: this.cells.width / groups };
  }

  render() {
    const context = this.cells.getContext('2d');
    const width = this.cells.width;
    const height = this.cells.height;
    context.clearRect(0, 0, width, height);
    context.fillStyle = `rgb(${NO_DATA_RGB.join(',')})`;
    context.fillRect(0, 0, width, height);
    if (this.endBucket >= 0 && this.partitions.length > 0) {
      context.imageSmoothingEnabled = false;
      const { firstGroup, groups, columnWidth } = this.#geometry();
      const rows = this.offscreen.height;
      const start = mod(firstGroup, this.ringColumns);
      if (start + groups <= this.ringColumns) {
        context.drawImage(this.offscreen, start, 0, groups, rows, 0, 0, width, height);
      } else {
        const head = this.ringColumns - start;
        const split = Math.round(head * columnWidth);
        context.drawImage(this.offscreen, start, 0, head, rows, 0, 0, split, height);
        context.drawImage(this.offscreen, 0, 0, groups - head, rows, split, 0, width - split, height);
      }
      const rowPx = height / this.partitions.length;
      if (this.rowCss >= 6) {
        context.fillStyle = ROW_SEPARATOR;
        for (let row = 1; row < this.partitions.length; row++) context.fillRect(0, Math.round(row * rowPx) - Math.round(this.ratio / 2), width, Math.max(1, Math.round(this.ratio / 2)));
      }
      const hottest = this.summary?.hottest;
      if (hottest !== undefined && this.rowCss >= 8) {
        context.strokeStyle = '#111827';
        context.lineWidth = Math.max(1, this.ratio);
        context.strokeRect(context.lineWidth / 2, hottest.row * rowPx + context.lineWidth / 2, width - context.lineWidth, rowPx - context.lineWidth);
      }
    }
    this.#drawLabels();
    this.#publish();
  }

  #drawLabels() {
    const context = this.labels.getContext('2d');
    const ratio = this.ratio || 1;
    context.clearRect(0, 0, this.labels.width, this.labels.height);
    const count = this.partitions.length;
    if (count === 0) return;
    const rowPx = this.labels.height / count;
    const fontPx = Math.round(11 * ratio);
    const every = Math.max(1, Math.ceil((fontPx + 2 * ratio) / rowPx));
    const hottestRow = this.summary?.hottest?.row;
    context.textBaseline = 'middle';
    context.textAlign = 'right';
    for (let row = 0; row < count; row++) {
      const isHottest = row === hottestRow;
      // Every `every`-th row is labelled, and the hottest; a label that would overlap the hottest's is left out.
      if (!isHottest && (row % every !== 0 || (hottestRow !== undefined && Math.abs(row - hottestRow) < every))) continue;
      const partition = this.partitions[row];
      context.font = `${isHottest ? '600 ' : ''}${fontPx}px system-ui, sans-serif`;
      context.fillStyle = isHottest && this.summary.hottest.share >= 0.9 ? '#b91c1c' : '#374151';
      const text = rowPx >= 2 * fontPx ? `#${partition.id} ${partition.hashRange[0]}` : `#${partition.id}`;
      const y = Math.min(Math.max(row * rowPx + rowPx / 2, fontPx / 2 + ratio), this.labels.height - fontPx / 2 - ratio);
      context.fillText(isHottest ? `▶ ${text}` : text, this.labels.width - 6 * ratio, y);
    }
  }

  #drawAxis() {
    const context = this.axis.getContext('2d');
    const ratio = this.ratio || 1;
    context.clearRect(0, 0, this.axis.width, this.axis.height);
    if (this.endBucket < 0) return;
    const { firstGroup, groups } = this.#geometry();
    const firstMs = firstGroup * this.group * this.periodMs;
    const spanMs = groups * this.group * this.periodMs;
    const pxPerMs = this.axis.width / spanMs;
    const minSpacing = 90 * ratio;
    const step = (TICK_STEPS_SECONDS.find((seconds) => seconds * 1000 * pxPerMs >= minSpacing) ?? 10800) * 1000;
    context.font = `${Math.round(11 * ratio)}px system-ui, sans-serif`;
    context.fillStyle = '#4b5563';
    context.strokeStyle = '#9ca3af';
    context.textBaseline = 'top';
    context.textAlign = 'center';
    for (let t = Math.ceil(firstMs / step) * step; t <= firstMs + spanMs; t += step) {
      const x = Math.round((t - firstMs) * pxPerMs);
      context.beginPath();
      context.moveTo(x + 0.5, 0);
      context.lineTo(x + 0.5, 4 * ratio);
      context.stroke();
      const label = step >= 60_000 ? formatMinute(t) : formatTime(t);
      const half = context.measureText(label).width / 2;
      context.fillText(label, Math.min(Math.max(x, half), this.axis.width - half), 6 * ratio);
    }
  }

  /** Per partition over the last minute (5 minutes at 1-minute buckets), and throttles in the window. */
  #summarize() {
    if (this.endBucket < 0 || this.partitions.length === 0) return undefined;
    const window = this.windowBuckets;
    const recentBuckets = Math.min(window, this.periodMs === 1000 ? 60 : 5);
    const seconds = this.periodMs / 1000;
    const { firstGroup, lastGroup } = this.#geometry();
    const width = this.ringColumns;
    const rows = [];
    let hottest;
    for (let row = 0; row < this.partitions.length; row++) {
      let shareSum = 0;
      let readSum = 0;
      let writeSum = 0;
      let recentCount = 0;
      for (let bucket = this.endBucket - recentBuckets + 1; bucket <= this.endBucket; bucket++) {
        const column = mod(bucket, window);
        if (this.stamps[column] !== bucket) continue;
        const index = row * window + column;
        shareSum += this.#share(row, index);
        readSum += this.readUnits[index];
        writeSum += this.writeUnits[index];
        recentCount++;
      }
      // Over the window, from the display columns' figures.
      // What a span served beyond its ceiling came from the partition's stored capacity (a rested
      // partition's full ceiling second and its reserve, docs/CAPACITY-MODEL.md §11): shown apart as
      // burst, so the peak itself never reads more than 100% of a ceiling nothing can pass.
      const servedPeak = this.#ceilingPeak(row);
      const peak = Math.min(1, servedPeak);
      const peakBurst = Math.max(0, servedPeak - 1);
      let readThrottles = 0;
      let writeThrottles = 0;
      for (let group = firstGroup; group <= lastGroup; group++) {
        const cached = row * width + mod(group, width);
        readThrottles += this.groupReadThrottles[cached];
        writeThrottles += this.groupWriteThrottles[cached];
      }
      const partition = this.partitions[row];
      const entry = {
        row,
        id: partition.id,
        hashRange: partition.hashRange,
        readAllocation: partition.readAllocation,
        writeAllocation: partition.writeAllocation,
        readCeiling: partition.readCeiling,
        writeCeiling: partition.writeCeiling,
        backlogWriteUnits: partition.backlogWriteUnits,
        itemCount: partition.itemCount,
        sizeBytes: partition.sizeBytes,
        share: recentCount === 0 ? 0 : shareSum / recentCount,
        readPerSecond: recentCount === 0 ? 0 : readSum / (recentCount * seconds),
        writePerSecond: recentCount === 0 ? 0 : writeSum / (recentCount * seconds),
        // Against the hard ceiling, not the allocation (which burst and adaptive capacity may
        // exceed): a partition held to its ceiling peaks at 100%; what its stored second and
        // reserve added over the span (at most 2/span) is peakBurst.
        peak,
        peakBurst,
        peakSpanSeconds: Math.max(this.periodMs / 1000, PEAK_SPAN_SECONDS),
        readThrottles,
        writeThrottles,
      };
      rows.push(entry);
      if (entry.share > 0 && (hottest === undefined || entry.share > hottest.share)) hottest = entry;
    }
    return { rows, hottest, recentSeconds: recentBuckets * seconds };
  }

  /** What the page shows as text and what tests read: data attributes on the root. */
  #publish() {
    const dataset = this.root.dataset;
    const summary = this.summary;
    dataset.partitionCount = String(this.partitions.length);
    dataset.periodSeconds = String(this.periodMs / 1000);
    dataset.windowBuckets = String(this.windowBuckets);
    if (this.nowMs !== undefined) dataset.nowMs = String(this.nowMs);
    dataset.hottestPartition = summary?.hottest === undefined ? '' : String(summary.hottest.id);
    dataset.hottestShare = summary?.hottest === undefined ? '0' : summary.hottest.share.toFixed(3);
    dataset.peakOfCeiling = summary === undefined ? '0' : summary.rows.reduce((peak, entry) => Math.max(peak, entry.peak), 0).toFixed(3);
    dataset.peakBurstOfCeiling = summary === undefined ? '0' : summary.rows.reduce((burst, entry) => Math.max(burst, entry.peakBurst), 0).toFixed(3);
    dataset.throttledPartitions = summary === undefined ? '' : summary.rows.filter((entry) => entry.readThrottles + entry.writeThrottles > 0).map((entry) => entry.id).join(',');
  }

  /**
   * What all partitions consumed, per second, over the window: [[ms, units/s], ...] with one point
   * per `periodSeconds` (the charts' period; buckets are summed into it, then divided by it).
   */
  totalSeries(direction, periodSeconds) {
    if (this.endBucket < 0) return [];
    const window = this.windowBuckets;
    const chartPeriodMs = periodSeconds * 1000;
    const units = direction === 'read' ? this.readUnits : this.writeUnits;
    const sums = new Map();
    for (let bucket = this.#windowFirst; bucket <= this.endBucket; bucket++) {
      const column = mod(bucket, window);
      if (this.stamps[column] !== bucket) continue;
      let total = 0;
      for (let row = 0; row < this.partitions.length; row++) total += units[row * window + column];
      const at = Math.floor((bucket * this.periodMs) / chartPeriodMs) * chartPeriodMs;
      sums.set(at, (sums.get(at) ?? 0) + total);
    }
    return [...sums.entries()].sort((a, b) => a[0] - b[0]).map(([ms, total]) => [ms, total / periodSeconds]);
  }

  /** The canvas colour at a partition's row, `fraction` of the way across (for tests): [r, g, b, a]. */
  pixelAt(partitionId, fraction) {
    const row = this.partitions.findIndex((partition) => partition.id === partitionId);
    if (row < 0) return undefined;
    const rowPx = this.cells.height / this.partitions.length;
    // Below the throttle band, in the middle of the heat part of the row.
    const y = Math.floor(row * rowPx + rowPx * ((1 + SUB_ROWS) / 2 / SUB_ROWS));
    const x = Math.min(this.cells.width - 1, Math.max(0, Math.floor(fraction * this.cells.width)));
    return [...this.cells.getContext('2d').getImageData(x, y, 1, 1).data];
  }

  #hover(event) {
    if (this.endBucket < 0 || this.partitions.length === 0) return;
    const rect = this.cells.getBoundingClientRect();
    const { firstGroup, groups } = this.#geometry();
    const row = Math.floor(((event.clientY - rect.top) / rect.height) * this.partitions.length);
    const group = firstGroup + Math.floor(((event.clientX - rect.left) / rect.width) * groups);
    if (row < 0 || row >= this.partitions.length) return;
    const window = this.windowBuckets;
    const from = Math.max(group * this.group, this.#windowFirst);
    const to = Math.min(group * this.group + this.group - 1, this.endBucket);
    let read = 0;
    let write = 0;
    let readThrottles = 0;
    let writeThrottles = 0;
    let hottest = 0;
    let buckets = 0;
    for (let bucket = from; bucket <= to; bucket++) {
      const column = mod(bucket, window);
      if (this.stamps[column] !== bucket) continue;
      const index = row * window + column;
      read += this.readUnits[index];
      write += this.writeUnits[index];
      readThrottles += this.readThrottles[index];
      writeThrottles += this.writeThrottles[index];
      hottest = Math.max(hottest, this.#share(row, index));
      buckets++;
    }
    const partition = this.partitions[row];
    const seconds = Math.max(1, buckets) * (this.periodMs / 1000);
    const lines = [
      `Partition #${partition.id} · hash ${formatHashRange(partition.hashRange)}`,
      `${formatTime(from * this.periodMs)}${to > from ? '–' + formatTime((to + 1) * this.periodMs) : ''} UTC`,
      buckets === 0
        ? 'no data'
        : `read ${formatUnits(read / seconds)}/s of ${formatUnits(partition.readAllocation)} · write ${formatUnits(write / seconds)}/s of ${formatUnits(partition.writeAllocation)}`,
      `share ${formatPercent(hottest)} of allocation${readThrottles + writeThrottles > 0 ? ` · throttles: ${formatUnits(readThrottles)} read, ${formatUnits(writeThrottles)} write` : ''}`,
    ];
    this.tooltip.textContent = lines.join('\n');
    this.tooltip.hidden = false;
    const parent = this.root.getBoundingClientRect();
    const left = event.clientX - parent.left + 14;
    this.tooltip.style.left = Math.min(left, parent.width - 320) + 'px';
    this.tooltip.style.top = event.clientY - parent.top + 14 + 'px';
  }
}
