/**
 * Application Auto Scaling's operations, served on the DynamoDB endpoint under the target prefix
 * AnyScaleFrontendService. (AWS JSON 1.1): operation name → operation, bound to one engine's
 * AutoScaling.
 */
import type { AnyOperation } from '../../operations/operation.js';
import type { AutoScaling } from '../service.js';
import { deleteScalingPolicy } from './deleteScalingPolicy.js';
import { deregisterScalableTarget } from './deregisterScalableTarget.js';
import { describeScalableTargets } from './describeScalableTargets.js';
import { describeScalingActivities } from './describeScalingActivities.js';
import { describeScalingPolicies } from './describeScalingPolicies.js';
import { putScalingPolicy } from './putScalingPolicy.js';
import { registerScalableTarget } from './registerScalableTarget.js';

export const AUTO_SCALING_TARGET_PREFIX = 'AnyScaleFrontendService.';

export function createAutoScalingOperationRegistry(service: AutoScaling): ReadonlyMap<string, AnyOperation> {
  const operations = [
    registerScalableTarget,
    deregisterScalableTarget,
    describeScalableTargets,
    putScalingPolicy,
    describeScalingPolicies,
    deleteScalingPolicy,
    describeScalingActivities,
  ].map((factory) => factory(service));
  return new Map(operations.map((operation) => [operation.name, operation]));
}
