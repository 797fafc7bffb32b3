/** DescribeScalingPolicies: the namespace's policies, filtered by names, resource and dimension, 50 a page. */
import { defineOperation } from '../../operations/operation.js';
import type { PolicyRecord } from '../model.js';
import type { AutoScaling } from '../service.js';
import {
  describePageMembers,
  describePageRequestOf,
  epochSeconds,
  matchesFilters,
  optionalResourceIdMember,
  optionalScalableDimensionMember,
  describedPage,
  listedOrAll,
  resourceIdsMember,
  type AutoScalingOperationFactory,
  type DescribePageRequest,
} from './common.js';
import { alarmsOf } from './putScalingPolicy.js';

interface DescribePoliciesRequest extends DescribePageRequest {
  readonly names: readonly string[] | undefined;
}

export const describeScalingPolicies: AutoScalingOperationFactory = (service) =>
  defineOperation<DescribePoliciesRequest>({
    name: 'DescribeScalingPolicies',
    members: { ...describePageMembers, PolicyNames: resourceIdsMember, ResourceId: optionalResourceIdMember, ScalableDimension: optionalScalableDimensionMember },

    validate(input) {
      return { ...describePageRequestOf(input), names: input.PolicyNames as string[] | undefined };
    },

    execute(_engine, request) {
      if (request.namespace !== 'dynamodb') return { ScalingPolicies: [] };
      const policies = [...service.store.allPolicies()].filter((policy) => listedOrAll(request.names, policy.name) && matchesFilters(request, policy));
      return describedPage('ScalingPolicies', policies, request, (policy) => describePolicy(service, policy));
    },
  });

function describePolicy(service: AutoScaling, policy: PolicyRecord): object {
  return {
    PolicyARN: policy.arn,
    PolicyName: policy.name,
    ServiceNamespace: 'dynamodb',
    ResourceId: policy.resourceId,
    ScalableDimension: policy.dimension,
    PolicyType: 'TargetTrackingScaling',
    TargetTrackingScalingPolicyConfiguration: {
      TargetValue: policy.targetValue,
      PredefinedMetricSpecification: { PredefinedMetricType: policy.metricType },
      ScaleOutCooldown: policy.scaleOutCooldownSeconds,
      ScaleInCooldown: policy.scaleInCooldownSeconds,
      DisableScaleIn: policy.disableScaleIn,
    },
    Alarms: alarmsOf(service.engine.settings, policy),
    CreationTime: epochSeconds(policy.createdMs),
  };
}
