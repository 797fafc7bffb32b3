/**
 * GET /dynatwin/tables/<table>/scaling: auto scaling of a table and its GSIs for the dashboard —
 * the scalable targets (bounds, capacity now, policies with their alarms' states) and the latest
 * scaling activities, newest first.
 */
import type { AutoScaling } from '../autoscaling/service.js';
import { activityAt, scalableResourceOf } from '../autoscaling/model.js';
import type { InspectionRouter } from './inspection.js';

/** Activities listed (the store keeps 100 per target). */
const ACTIVITIES_SHOWN = 50;

export interface ScalingDocument {
  readonly table: string;
  readonly targets: readonly {
    readonly resourceId: string;
    readonly scalableDimension: string;
    readonly minCapacity: number;
    readonly maxCapacity: number;
    readonly capacity: number | null;
    readonly policies: readonly { readonly name: string; readonly targetValue: number; readonly alarms: readonly { readonly name: string; readonly state: string }[] }[];
  }[];
  readonly activities: readonly {
    readonly resourceId: string;
    readonly scalableDimension: string;
    readonly description: string;
    readonly cause: string;
    readonly startMs: number;
    readonly statusCode: string;
    readonly statusMessage: string;
  }[];
}

export function scalingDocument(autoScaling: AutoScaling, table: string): ScalingDocument {
  const own = (resourceId: string): boolean => resourceId === `table/${table}` || resourceId.startsWith(`table/${table}/index/`);
  const alarms = [...autoScaling.alarms()];
  const targets = [...autoScaling.store.targets.values()]
    .filter((target) => own(target.resourceId))
    .map((target) => ({
      resourceId: target.resourceId,
      scalableDimension: target.dimension,
      minCapacity: target.minCapacity,
      maxCapacity: target.maxCapacity,
      capacity: autoScaling.currentCapacity(scalableResourceOf(target.resourceId, target.dimension)!) ?? null,
      policies: alarms
        .filter((alarm) => alarm.policy.resourceId === target.resourceId && alarm.policy.dimension === target.dimension)
        .reduce<{ name: string; targetValue: number; alarms: { name: string; state: string }[] }[]>((policies, alarm) => {
          let policy = policies.find((entry) => entry.name === alarm.policy.name);
          if (policy === undefined) policies.push((policy = { name: alarm.policy.name, targetValue: alarm.policy.targetValue, alarms: [] }));
          policy.alarms.push({ name: alarm.name, state: alarm.state });
          return policies;
        }, []),
    }));
  const activities = [...autoScaling.store.activities.values()]
    .flat()
    .filter((activity) => own(activity.resourceId))
    .sort((a, b) => b.startMs - a.startMs)
    .slice(0, ACTIVITIES_SHOWN)
    .map((stored) => activityAt(stored, autoScaling.engine.clock.nowMs()))
    .map((activity) => ({
      resourceId: activity.resourceId,
      scalableDimension: activity.dimension,
      description: activity.description,
      cause: activity.cause,
      startMs: activity.startMs,
      statusCode: activity.statusCode,
      statusMessage: activity.statusMessage,
    }));
  return { table, targets, activities };
}

/** `autoScaling` is read per request (a reset makes a new one); without one, nothing scales. */
export function registerScalingRoutes(router: InspectionRouter, autoScaling: () => AutoScaling | undefined): void {
  router.get(/^\/dynatwin\/tables\/([^/]+)\/scaling\/?$/, (request) => {
    const service = autoScaling();
    const table = request.params[0]!;
    return { status: 200, body: service === undefined ? { table, targets: [], activities: [] } : scalingDocument(service, table) };
  });
}
