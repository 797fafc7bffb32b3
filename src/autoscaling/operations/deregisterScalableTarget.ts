/** DeregisterScalableTarget: removes a target and its policies (their alarms go with them). */
import { defineOperation } from '../../operations/operation.js';
import { targetNotFound, type ScalableResource } from '../model.js';
import { targetKey } from '../store.js';
import { dynamoResourceOf, resourceIdMember, scalableDimensionMember, serviceNamespaceMember, type AutoScalingOperationFactory } from './common.js';

export const deregisterScalableTarget: AutoScalingOperationFactory = (service) =>
  defineOperation<ScalableResource>({
    name: 'DeregisterScalableTarget',
    members: { ServiceNamespace: serviceNamespaceMember, ResourceId: resourceIdMember, ScalableDimension: scalableDimensionMember },

    validate(input) {
      return dynamoResourceOf(input.ServiceNamespace as string, input.ResourceId as string, input.ScalableDimension as string);
    },

    async execute(_engine, resource) {
      const id = targetKey(resource.resourceId, resource.dimension);
      if (!service.store.targets.has(id)) throw targetNotFound('dynamodb', resource.resourceId, resource.dimension);
      for (const policy of service.store.policies.get(id)?.values() ?? []) service.forgetPolicy(policy);
      await service.store.removeTarget(resource.resourceId, resource.dimension);
      return {};
    },
  });
