/** DescribeScalingActivities: what auto scaling did, newest first, filtered by resource and dimension, 50 a page. */
import { defineOperation } from '../../operations/operation.js';
import { shapes } from '../../operations/shape.js';
import { activityAt, type ActivityRecord } from '../model.js';
import {
  describePageMembers,
  describePageRequestOf,
  epochSeconds,
  matchesFilters,
  optionalResourceIdMember,
  optionalScalableDimensionMember,
  describedPage,
  type AutoScalingOperationFactory,
  type DescribePageRequest,
} from './common.js';

export const describeScalingActivities: AutoScalingOperationFactory = (service) =>
  defineOperation<DescribePageRequest>({
    name: 'DescribeScalingActivities',
    members: {
      ...describePageMembers,
      ResourceId: optionalResourceIdMember,
      ScalableDimension: optionalScalableDimensionMember,
      IncludeNotScaledActivities: shapes.boolean(),
    },

    validate(input) {
      return describePageRequestOf(input);
    },

    execute(_engine, request) {
      if (request.namespace !== 'dynamodb') return { ScalingActivities: [] };
      const activities = [...service.store.activities.values()]
        .flat()
        .filter((activity) => matchesFilters(request, activity))
        .sort((a, b) => b.startMs - a.startMs);
      const nowMs = service.engine.clock.nowMs();
      return describedPage('ScalingActivities', activities, request, (activity) => describeActivity(activity, nowMs));
    },
  });

export function describeActivity(stored: ActivityRecord, nowMs: number): object {
  const activity = activityAt(stored, nowMs);
  return {
    ActivityId: activity.id,
    ServiceNamespace: 'dynamodb',
    ResourceId: activity.resourceId,
    ScalableDimension: activity.dimension,
    Description: activity.description,
    Cause: activity.cause,
    StartTime: epochSeconds(activity.startMs),
    ...(activity.ended ? { EndTime: epochSeconds(activity.endMs) } : {}),
    StatusCode: activity.statusCode,
    StatusMessage: activity.statusMessage,
  };
}
