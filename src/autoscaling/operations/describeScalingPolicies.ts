/** DescribeScalingPolicies: the namespace's policies, filtered by names, resource and dimension, 50 a page. */
import { defineOperation } from '../../operations/operation.js';
import type { PolicyRecord } from '../model.js';
import type { AutoScaling } from '../service.js';
import {
  epochSeconds,
  maxResultsMember,
  nextTokenMember,
  optionalResourceIdMember,
  optionalScalableDimensionMember,
  pageOf,
  pageSizeOf,
  resourceIdsMember,
  serviceNamespaceMember,
  type AutoScalingOperationFactory,
} from './common.js';
import { alarmsOf } from './putScalingPolicy.js';

interface DescribePoliciesRequest {
  readonly namespace: string;
  readonly names: readonly string[] | undefined;
  readonly resourceId: string | undefined;
  readonly dimension: string | undefined;
  readonly pageSize: number;
  readonly nextToken: string | undefined;
}

export const describeScalingPolicies: AutoScalingOperationFactory = (service) =>
  defineOperation<DescribePoliciesRequest>({
    name: 'DescribeScalingPolicies',
    members: {
      PolicyNames: resourceIdsMember,
      ServiceNamespace: serviceNamespaceMember,
      ResourceId: optionalResourceIdMember,
      ScalableDimension: optionalScalableDimensionMember,
      MaxResults: maxResultsMember,
      NextToken: nextTokenMember,
    },

    validate(input) {
      return {
        namespace: input.ServiceNamespace as string,
        names: input.PolicyNames as string[] | undefined,
        resourceId: input.ResourceId as string | undefined,
        dimension: input.ScalableDimension as string | undefined,
        pageSize: pageSizeOf(input.MaxResults as number | undefined),
        nextToken: input.NextToken as string | undefined,
      };
    },

    execute(_engine, request) {
      if (request.namespace !== 'dynamodb') return { ScalingPolicies: [] };
      const policies = [...service.store.allPolicies()].filter(
        (policy) =>
          (request.names === undefined || request.names.length === 0 || request.names.includes(policy.name)) &&
          (request.resourceId === undefined || policy.resourceId === request.resourceId) &&
          (request.dimension === undefined || policy.dimension === request.dimension),
      );
      const { page, nextToken } = pageOf(policies, request.pageSize, request.nextToken);
      return { ScalingPolicies: page.map((policy) => describePolicy(service, policy)), ...(nextToken === undefined ? {} : { NextToken: nextToken }) };
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
