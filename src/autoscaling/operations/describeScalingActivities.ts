/** DescribeScalingActivities: what auto scaling did, newest first, filtered by resource and dimension, 50 a page. */
import { defineOperation } from '../../operations/operation.js';
import { shapes } from '../../operations/shape.js';
import type { ActivityRecord } from '../model.js';
import {
  epochSeconds,
  maxResultsMember,
  nextTokenMember,
  optionalResourceIdMember,
  optionalScalableDimensionMember,
  pageOf,
  pageSizeOf,
  serviceNamespaceMember,
  type AutoScalingOperationFactory,
} from './common.js';

interface DescribeActivitiesRequest {
  readonly namespace: string;
  readonly resourceId: string | undefined;
  readonly dimension: string | undefined;
  readonly pageSize: number;
  readonly nextToken: string | undefined;
}

export const describeScalingActivities: AutoScalingOperationFactory = (service) =>
  defineOperation<DescribeActivitiesRequest>({
    name: 'DescribeScalingActivities',
    members: {
      ServiceNamespace: serviceNamespaceMember,
      ResourceId: optionalResourceIdMember,
      ScalableDimension: optionalScalableDimensionMember,
      MaxResults: maxResultsMember,
      NextToken: nextTokenMember,
      IncludeNotScaledActivities: shapes.boolean(),
    },

    validate(input) {
      return {
        namespace: input.ServiceNamespace as string,
        resourceId: input.ResourceId as string | undefined,
        dimension: input.ScalableDimension as string | undefined,
        pageSize: pageSizeOf(input.MaxResults as number | undefined),
        nextToken: input.NextToken as string | undefined,
      };
    },

    execute(_engine, request) {
      if (request.namespace !== 'dynamodb') return { ScalingActivities: [] };
      const activities = [...service.store.activities.values()]
        .flat()
        .filter((activity) => (request.resourceId === undefined || activity.resourceId === request.resourceId) && (request.dimension === undefined || activity.dimension === request.dimension))
        .sort((a, b) => b.startMs - a.startMs);
      const { page, nextToken } = pageOf(activities, request.pageSize, request.nextToken);
      return { ScalingActivities: page.map(describeActivity), ...(nextToken === undefined ? {} : { NextToken: nextToken }) };
    },
  });

export function describeActivity(activity: ActivityRecord): object {
  return {
    ActivityId: activity.id,
    ServiceNamespace: 'dynamodb',
    ResourceId: activity.resourceId,
    ScalableDimension: activity.dimension,
    Description: activity.description,
    Cause: activity.cause,
    StartTime: epochSeconds(activity.startMs),
    EndTime: epochSeconds(activity.endMs),
    StatusCode: activity.statusCode,
    StatusMessage: activity.statusMessage,
  };
}
