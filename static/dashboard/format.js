// Number and time formatting. Times are the server's (its clock may be manual): always epoch ms
// received from the server, never the browser's Date.now().

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

export function formatUnits(value) {
  if (!Number.isFinite(value)) return '–';
  return Math.abs(value) >= 100 ? integer.format(value) : decimal.format(value);
}

/** "1 partition", "4 partitions", "1,200 items": a count with its noun in agreement. */
export function counted(count, singular, plural = singular + 's') {
  return `${formatUnits(count)} ${count === 1 ? singular : plural}`;
}

export function formatPercent(share) {
  if (!Number.isFinite(share)) return '–';
  return Math.round(share * 100) + '%';
}

export function formatBytes(bytes) {
  if (!Number.isFinite(bytes)) return '–';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return (unit === 0 ? integer.format(value) : decimal.format(value)) + ' ' + units[unit];
}

function pad(value) {
  return String(value).padStart(2, '0');
}

/** HH:MM:SS (UTC) of epoch ms. */
export function formatTime(ms) {
  const date = new Date(ms);
  return `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

/** HH:MM (UTC) of epoch ms. */
export function formatMinute(ms) {
  const date = new Date(ms);
  return `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
}

/** YYYY-MM-DD HH:MM:SS UTC of epoch ms. */
export function formatDateTime(ms) {
  const date = new Date(ms);
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${formatTime(ms)} UTC`;
}

/** A hash range ["0000abcd", "ffffffff"] as "0000abcd–ffffffff". */
export function formatHashRange(range) {
  return `${range[0]}–${range[1]}`;
}

/** Creates an element with a class and text. */
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
