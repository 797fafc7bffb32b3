/** DeleteScalingPolicy: removes a policy and its alarms. */
import { defineOperation } from '../../operations/operation.js';
import { shapes } from '../../operations/shape.js';
import { policyNotFound, type ScalableResource } from '../model.js';
import { targetKey } from '../store.js';
import { dynamoResourceOf, resourceIdMember, scalableDimensionMember, serviceNamespaceMember, type AutoScalingOperationFactory } from './common.js';

interface DeletePolicyRequest {
  readonly name: string;
  readonly resource: ScalableResource;
}

export const deleteScalingPolicy: AutoScalingOperationFactory = (service) =>
  defineOperation<DeletePolicyRequest>({
    name: 'DeleteScalingPolicy',
    members: {
      PolicyName: shapes.string({ required: true, lengthMin: 1, lengthMax: 1600 }),
      ServiceNamespace: serviceNamespaceMember,
      ResourceId: resourceIdMember,
      ScalableDimension: scalableDimensionMember,
    },

    validate(input) {
      return {
        name: input.PolicyName as string,
        resource: dynamoResourceOf(input.ServiceNamespace as string, input.ResourceId as string, input.ScalableDimension as string),
      };
    },

    async execute(_engine, { name, resource }) {
      const policy = service.store.policies.get(targetKey(resource.resourceId, resource.dimension))?.get(name);
      if (policy === undefined) throw policyNotFound('dynamodb', resource.resourceId, resource.dimension, name);
      await service.store.removePolicy(policy);
      service.forgetPolicy(policy);
      return {};
    },
  });
