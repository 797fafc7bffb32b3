/** DescribeScalableTargets: the namespace's targets, filtered by resource ids and dimension, 50 a page. */
import { defineOperation } from '../../operations/operation.js';
import type { ScalableTargetRecord } from '../model.js';
import {
  describePageMembers,
  describePageRequestOf,
  epochSeconds,
  optionalScalableDimensionMember,
  describedPage,
  listedOrAll,
  resourceIdsMember,
  type AutoScalingOperationFactory,
  type DescribePageRequest,
} from './common.js';

interface DescribeTargetsRequest extends DescribePageRequest {
  readonly resourceIds: readonly string[] | undefined;
}

export const describeScalableTargets: AutoScalingOperationFactory = (service) =>
  defineOperation<DescribeTargetsRequest>({
    name: 'DescribeScalableTargets',
    members: { ...describePageMembers, ResourceIds: resourceIdsMember, ScalableDimension: optionalScalableDimensionMember },

    validate(input) {
      return { ...describePageRequestOf(input), resourceIds: input.ResourceIds as string[] | undefined };
    },

    execute(_engine, request) {
      // Other namespaces hold nothing here: an empty answer, as for a namespace with no targets.
      if (request.namespace !== 'dynamodb') return { ScalableTargets: [] };
      const targets = [...service.store.targets.values()].filter(
        (target) => listedOrAll(request.resourceIds, target.resourceId) && (request.dimension === undefined || target.dimension === request.dimension),
      );
      return describedPage('ScalableTargets', targets, request, describeTarget);
    },
  });

export function describeTarget(target: ScalableTargetRecord): object {
  return {
    ServiceNamespace: 'dynamodb',
    ResourceId: target.resourceId,
    ScalableDimension: target.dimension,
    MinCapacity: target.minCapacity,
    MaxCapacity: target.maxCapacity,
    RoleARN: target.roleArn,
    CreationTime: epochSeconds(target.createdMs),
    SuspendedState: {
      DynamicScalingInSuspended: target.suspendedIn,
      DynamicScalingOutSuspended: target.suspendedOut,
      ScheduledScalingSuspended: target.suspendedScheduled,
    },
    ScalableTargetARN: target.arn,
  };
}
