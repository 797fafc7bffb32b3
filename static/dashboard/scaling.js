// Auto scaling of the selected table and its GSIs (GET /dynatwin/tables/<t>/scaling): the scalable
// targets with their policies' alarms, and the scaling activities, newest first.
import { element, formatDateTime } from './format.js';

const DIMENSIONS = {
  'dynamodb:table:ReadCapacityUnits': 'table reads',
  'dynamodb:table:WriteCapacityUnits': 'table writes',
  'dynamodb:index:ReadCapacityUnits': 'reads',
  'dynamodb:index:WriteCapacityUnits': 'writes',
};

function resourceText(resourceId, dimension) {
  const index = resourceId.split('/index/')[1];
  const what = DIMENSIONS[dimension] ?? dimension;
  return index === undefined ? what : `GSI ${index} ${what}`;
}

export function renderScaling(container, doc) {
  const nodes = [];
  if (doc.targets.length === 0 && doc.activities.length === 0) {
    nodes.push(element('p', 'muted', 'No auto scaling: register a scalable target and a target-tracking policy (Application Auto Scaling, on this endpoint) to see its steps here.'));
    container.replaceChildren(...nodes);
    container.dataset.activities = '0';
    return;
  }
  if (doc.targets.length > 0) {
    const table = element('table', 'scaling-targets');
    const head = element('thead');
    const headRow = element('tr');
    for (const title of ['Scales', 'Capacity', 'Min · max', 'Policy', 'Alarms']) headRow.append(element('th', undefined, title));
    head.append(headRow);
    const body = element('tbody');
    for (const target of doc.targets) {
      const row = element('tr');
      row.append(element('td', undefined, resourceText(target.resourceId, target.scalableDimension)));
      row.append(element('td', undefined, target.capacity === null ? '–' : String(target.capacity)));
      row.append(element('td', undefined, `${target.minCapacity} · ${target.maxCapacity}`));
      row.append(element('td', undefined, target.policies.map((policy) => `${policy.name} (${policy.targetValue}%)`).join(', ') || 'none'));
      const alarms = element('td');
      for (const policy of target.policies) {
        for (const alarm of policy.alarms) {
          const badge = element('span', 'alarm-state', `${alarm.name.includes('-AlarmHigh-') ? 'high' : 'low'}: ${alarm.state}`);
          badge.dataset.state = alarm.state;
          badge.title = alarm.name;
          alarms.append(badge);
        }
      }
      row.append(alarms);
      body.append(row);
    }
    table.append(head, body);
    nodes.push(table);
  }
  const list = element('ol', 'scaling-activities');
  for (const activity of doc.activities) {
    const item = element('li');
    item.dataset.status = activity.statusCode;
    item.append(element('span', 'when', `${formatDateTime(activity.startMs)} UTC`));
    item.append(element('span', 'what', `${resourceText(activity.resourceId, activity.scalableDimension)}: ${activity.description}`));
    item.append(element('span', 'activity-status', activity.statusCode));
    item.append(element('span', 'cause muted', activity.statusCode === 'Failed' ? activity.statusMessage : activity.cause));
    list.append(item);
  }
  if (doc.activities.length === 0) nodes.push(element('p', 'muted', 'No scaling activity yet.'));
  else nodes.push(list);
  container.replaceChildren(...nodes);
  container.dataset.activities = String(doc.activities.length);
}
