/**
 * RegisterScalableTarget: registers a table's or GSI's read or write capacity for scaling, or
 * updates a registered target's bounds and suspensions. A capacity outside the new bounds is moved
 * inside them at once (through UpdateTable), with the cause AWS gives ("minimum capacity was set
 * to N").
 */
import { randomUUID } from 'node:crypto';
import { defineOperation } from '../../operations/operation.js';
import { shapes } from '../../operations/shape.js';
import { autoScalingValidation, dynamoDbRoleArn, type ScalableResource, type ScalableTargetRecord } from '../model.js';
import type { AutoScaling } from '../service.js';
import { targetKey, TARGETS_MAX } from '../store.js';
import { dynamoResourceOf, resourceIdMember, scalableDimensionMember, serviceNamespaceMember, type AutoScalingOperationFactory } from './common.js';

interface SuspendedStateInput {
  readonly DynamicScalingInSuspended?: boolean;
  readonly DynamicScalingOutSuspended?: boolean;
  readonly ScheduledScalingSuspended?: boolean;
}

interface RegisterRequest {
  readonly resource: ScalableResource;
  readonly minCapacity: number | undefined;
  readonly maxCapacity: number | undefined;
  readonly suspended: SuspendedStateInput | undefined;
}

export const registerScalableTarget: AutoScalingOperationFactory = (service) =>
  defineOperation<RegisterRequest>({
    name: 'RegisterScalableTarget',
    members: {
      ServiceNamespace: serviceNamespaceMember,
      ResourceId: resourceIdMember,
      ScalableDimension: scalableDimensionMember,
      MinCapacity: shapes.integer(),
      MaxCapacity: shapes.integer(),
      RoleARN: shapes.string({ lengthMin: 1, lengthMax: 1600 }),
      SuspendedState: shapes.structure('SuspendedState', {
        DynamicScalingInSuspended: shapes.boolean(),
        DynamicScalingOutSuspended: shapes.boolean(),
        ScheduledScalingSuspended: shapes.boolean(),
      }),
      Tags: shapes.map('String', shapes.string({ lengthMin: 0, lengthMax: 256 }), { mapKeys: { lengthMin: 1, lengthMax: 128 } }),
    },

    validate(input) {
      const resource = dynamoResourceOf(input.ServiceNamespace as string, input.ResourceId as string, input.ScalableDimension as string);
      const minCapacity = input.MinCapacity as number | undefined;
      const maxCapacity = input.MaxCapacity as number | undefined;
      // ⚠ Wordings ours (no source shows the service's): DynamoDB capacity is at least 1 unit.
      if (minCapacity !== undefined && minCapacity < 1) throw autoScalingValidation('MinCapacity must be at least 1 for a DynamoDB table or index');
      if (maxCapacity !== undefined && maxCapacity < 1) throw autoScalingValidation('MaxCapacity must be at least 1 for a DynamoDB table or index');
      if (minCapacity !== undefined && maxCapacity !== undefined && minCapacity > maxCapacity) {
        throw autoScalingValidation('Minimum capacity cannot be greater than maximum capacity');
      }
      return { resource, minCapacity, maxCapacity, suspended: input.SuspendedState as SuspendedStateInput | undefined };
    },

    async execute(_engine, request) {
      checkResourceExists(service, request.resource);
      const target = registeredTarget(service, request);
      await service.store.putTarget(target);
      await moveInsideBounds(service, target, request.resource);
      return { ScalableTargetARN: target.arn };
    },
  });

/** Sourced for tables ("DynamoDB table does not exist: table/MyTable"); the GSI's wording is by analogy ⚠. */
function checkResourceExists(service: AutoScaling, resource: ScalableResource): void {
  const record = service.engine.catalog.get(resource.table)?.record;
  if (record === undefined) throw autoScalingValidation(`DynamoDB table does not exist: table/${resource.table}`);
  if (resource.index !== undefined && !record.globalSecondaryIndexes.some((index) => index.name === resource.index)) {
    throw autoScalingValidation(`DynamoDB index does not exist: ${resource.resourceId}`);
  }
  // ⚠ Wording ours: an on-demand table has no provisioned capacity to scale.
  if (record.billingMode !== 'PROVISIONED') {
    throw autoScalingValidation(`DynamoDB table is not in provisioned capacity mode (BillingMode PAY_PER_REQUEST): table/${resource.table}`);
  }
}

function registeredTarget(service: AutoScaling, request: RegisterRequest): ScalableTargetRecord {
  const { resource } = request;
  const existing = service.store.targets.get(targetKey(resource.resourceId, resource.dimension));
  const minCapacity = request.minCapacity ?? existing?.minCapacity;
  const maxCapacity = request.maxCapacity ?? existing?.maxCapacity;
  if (minCapacity === undefined || maxCapacity === undefined) {
    // ⚠ Wording ours: AWS documents that a new target needs both bounds.
    throw autoScalingValidation('MinCapacity and MaxCapacity are required when registering a new scalable target');
  }
  if (minCapacity > maxCapacity) throw autoScalingValidation('Minimum capacity cannot be greater than maximum capacity');
  if (existing === undefined && service.store.targets.size >= TARGETS_MAX) {
    throw autoScalingValidation(`dynatwin holds at most ${TARGETS_MAX} scalable targets`);
  }
  const { region, accountId } = service.engine.settings;
  const suspended = request.suspended;
  return {
    resourceId: resource.resourceId,
    dimension: resource.dimension,
    minCapacity,
    maxCapacity,
    createdMs: existing?.createdMs ?? service.engine.clock.nowMs(),
    arn: existing?.arn ?? `arn:aws:application-autoscaling:${region}:${accountId}:scalable-target/${randomUUID().replaceAll('-', '')}`,
    roleArn: dynamoDbRoleArn(accountId),
    suspendedIn: suspended?.DynamicScalingInSuspended ?? existing?.suspendedIn ?? false,
    suspendedOut: suspended?.DynamicScalingOutSuspended ?? existing?.suspendedOut ?? false,
    suspendedScheduled: suspended?.ScheduledScalingSuspended ?? existing?.suspendedScheduled ?? false,
  };
}

/** AWS sets a capacity below the minimum to it, above the maximum to it, when the bounds are set. */
async function moveInsideBounds(service: AutoScaling, target: ScalableTargetRecord, resource: ScalableResource): Promise<void> {
  const capacity = service.currentCapacity(resource);
  if (capacity === undefined) return;
  if (capacity < target.minCapacity) {
    await service.apply({ target, resource, capacity: target.minCapacity, cause: `minimum capacity was set to ${target.minCapacity}` });
  } else if (capacity > target.maxCapacity) {
    await service.apply({ target, resource, capacity: target.maxCapacity, cause: `maximum capacity was set to ${target.maxCapacity}` });
  }
}
