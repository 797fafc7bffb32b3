// Top keys from Contributor Insights (GET /dynatwin/tables/<t>[/indexes/<i>]/contributor-insights).
import { counted, element, formatMinute, formatUnits } from './format.js';

const RULE_TITLES = {
  PKC: 'Most accessed partition keys',
  SKC: 'Most accessed items',
  PKT: 'Most throttled partition keys',
  SKT: 'Most throttled items',
};
const MEASURES = { ConsumedThroughputUnits: 'units (reads + 3 × writes)', ThrottleCount: 'throttles' };
const SHOWN = 10;

/**
 * Renders a report into `container`; `status` is the resource's Contributor Insights status.
 * `context.backPressureRefusals`: writes a GSI's back-pressure refused in the window (never
 * attributed to keys, as on AWS), so an empty throttled-keys rule can say why.
 */
export function renderInsights(container, report, resourceLabel, context = {}) {
  const nodes = [];
  if (report === undefined || report.status !== 'ENABLED') {
    const status = report?.status ?? 'DISABLED';
    const note = element('p', 'muted');
    note.textContent =
      status === 'ENABLING'
        ? `Contributor Insights is being enabled for ${resourceLabel}.`
        : `Contributor Insights is ${status} for ${resourceLabel}. Enable it (UpdateContributorInsights, ContributorInsightsAction ENABLE) to see its top keys here.`;
    nodes.push(note);
    container.replaceChildren(...nodes);
    container.dataset.status = status;
    return;
  }
  container.dataset.status = report.status;
  const grid = element('div', 'insights-grid');
  for (const rule of report.rules) {
    const minutes = rule.minutes;
    // The last complete minute, or the one in progress when none has completed yet.
    const complete = minutes.filter((minute) => minute.complete);
    const minute = complete.length > 0 ? complete[complete.length - 1] : minutes[minutes.length - 1];
    const section = element('section', 'insights-rule');
    section.dataset.rule = rule.kind;
    section.append(element('h4', undefined, RULE_TITLES[rule.kind] ?? rule.kind));
    if (minute === undefined || minute.contributors.length === 0) {
      section.append(element('p', 'muted', emptyRuleText(rule, context)));
      grid.append(section);
      continue;
    }
    section.append(
      element('p', 'muted', `${formatMinute(minute.startMs)} UTC${minute.complete ? '' : ' (in progress)'} · ${MEASURES[rule.measure] ?? rule.measure} · total ${formatUnits(minute.total)}`),
    );
    const standouts = keysThatStandOut(minute.contributors);
    if (standouts.length === 0) {
      section.append(element('p', 'muted spread', 'No key stands out: this minute is spread over more keys than the top-key sketch tracks.'));
      grid.append(section);
      continue;
    }
    const table = element('table', 'insights-table');
    const body = element('tbody');
    for (const contributor of standouts.slice(0, SHOWN)) body.append(contributorRow(contributor, minute.total));
    table.append(body);
    section.append(table);
    grid.append(section);
  }
  container.replaceChildren(grid);
}

function emptyRuleText(rule, context) {
  if (rule.measure !== 'ThrottleCount') return 'No contributors yet.';
  const refused = context.backPressureRefusals ?? 0;
  if (refused > 0) {
    return `No throttled keys. The ${counted(refused, 'write')} refused in the window by a GSI's back-pressure are not counted against any key (as on AWS): the GSI's partition, not a key of this table, was the bottleneck.`;
  }
  return 'No throttled keys yet.';
}

/**
 * The server's counts come from a Space-Saving sketch: `value` is an upper bound and
 * `value - maxOverestimate` a guaranteed lower bound. While a minute touches no more keys than the
 * sketch holds, every count is exact and every key is shown. Past that, every tracked key may be
 * overcounted by up to the largest `maxOverestimate` (the sketch's noise floor): a key stands out
 * only when what it is guaranteed exceeds that floor. Ranking by the upper bound instead would
 * show a load spread over many keys as dozens of equally "hot" keys.
 */
function keysThatStandOut(contributors) {
  const noiseFloor = contributors.reduce((floor, contributor) => Math.max(floor, contributor.maxOverestimate), 0);
  return contributors
    .map((contributor) => ({ ...contributor, atLeast: Math.max(0, contributor.value - contributor.maxOverestimate) }))
    .filter((contributor) => contributor.atLeast > noiseFloor)
    .sort((a, b) => b.atLeast - a.atLeast);
}

function contributorRow(contributor, total) {
  const row = element('tr');
  const share = total > 0 ? contributor.atLeast / total : 0;
  const keyText = contributor.keys.join(' · ');
  const keyCell = element('td', 'key', keyText);
  keyCell.title = keyText;
  const barCell = element('td', 'bar');
  const bar = element('span');
  bar.style.width = Math.max(1, Math.round(share * 100)) + '%';
  barCell.append(bar);
  const exact = contributor.maxOverestimate === 0;
  const numberCell = element('td', 'number', exact ? formatUnits(contributor.value) : `≥ ${formatUnits(contributor.atLeast)}`);
  if (!exact) numberCell.title = `between ${formatUnits(contributor.atLeast)} and ${formatUnits(contributor.value)} (approximate count)`;
  row.append(keyCell, barCell, numberCell);
  return row;
}
