// Top keys from Contributor Insights (GET /dynatwin/tables/<t>[/indexes/<i>]/contributor-insights).
import { element, formatMinute, formatUnits } from './format.js';

const RULE_TITLES = {
  PKC: 'Most accessed partition keys',
  SKC: 'Most accessed items',
  PKT: 'Most throttled partition keys',
  SKT: 'Most throttled items',
};
const MEASURES = { ConsumedThroughputUnits: 'units (reads + 3 × writes)', ThrottleCount: 'throttles' };
const SHOWN = 10;

/** Renders a report into `container`; `status` is the resource's Contributor Insights status. */
export function renderInsights(container, report, resourceLabel) {
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
      section.append(element('p', 'muted', 'No contributors yet.'));
      grid.append(section);
      continue;
    }
    section.append(
      element('p', 'muted', `${formatMinute(minute.startMs)} UTC${minute.complete ? '' : ' (in progress)'} · ${MEASURES[rule.measure] ?? rule.measure} · total ${formatUnits(minute.total)}`),
    );
    const table = element('table', 'insights-table');
    const body = element('tbody');
    for (const contributor of minute.contributors.slice(0, SHOWN)) {
      const row = element('tr');
      const share = minute.total > 0 ? contributor.value / minute.total : 0;
      const keyCell = element('td', 'key', contributor.keys.join(' · '));
      keyCell.title = contributor.keys.join(' · ');
      const barCell = element('td', 'bar');
      const bar = element('span');
      bar.style.width = Math.max(1, Math.round(share * 100)) + '%';
      barCell.append(bar);
      const approximate = contributor.maxOverestimate > 0 ? ` (≤ +${formatUnits(contributor.maxOverestimate)})` : '';
      row.append(keyCell, barCell, element('td', 'number', formatUnits(contributor.value) + approximate));
      body.append(row);
    }
    table.append(body);
    section.append(table);
    grid.append(section);
  }
  container.replaceChildren(grid);
}
