/**
 * PutScalingPolicy: creates or replaces a target-tracking policy on a registered DynamoDB target,
 * with its two CloudWatch alarms (AlarmHigh, and AlarmLow unless DisableScaleIn). Only
 * TargetTrackingScaling with DynamoDB's predefined metrics is served.
 */
import { randomUUID } from 'node:crypto';
import { defineOperation } from '../../operations/operation.js';
import { shapes } from '../../operations/shape.js';
import {
  alarmNames,
  autoScalingValidation,
  METRIC_TYPES,
  metricTypeOf,
  POLICY_TYPES,
  TARGET_VALUE_MAX,
  TARGET_VALUE_MIN,
  targetNotFound,
  type PolicyRecord,
  type ScalableResource,
} from '../model.js';
import { POLICIES_PER_TARGET_MAX, targetKey } from '../store.js';
import { dynamoResourceOf, resourceIdMember, scalableDimensionMember, serviceNamespaceMember, type AutoScalingOperationFactory } from './common.js';

interface TargetTrackingInput {
  readonly TargetValue: number;
  readonly PredefinedMetricSpecification?: { readonly PredefinedMetricType: string; readonly ResourceLabel?: string };
  readonly CustomizedMetricSpecification?: object;
  readonly ScaleOutCooldown?: number;
  readonly ScaleInCooldown?: number;
  readonly DisableScaleIn?: boolean;
}

interface PutPolicyRequest {
  readonly name: string;
  readonly resource: ScalableResource;
  readonly targetValue: number;
  readonly scaleOutCooldownSeconds: number;
  readonly scaleInCooldownSeconds: number;
  readonly disableScaleIn: boolean;
}

const configurationMember = shapes.structure('TargetTrackingScalingPolicyConfiguration', {
  TargetValue: shapes.double({ notNull: true }),
  PredefinedMetricSpecification: shapes.structure('PredefinedMetricSpecification', {
    PredefinedMetricType: shapes.string({ notNull: true, enumValues: METRIC_TYPES }),
    ResourceLabel: shapes.string({ lengthMin: 1, lengthMax: 1023 }),
  }),
  CustomizedMetricSpecification: shapes.structure('CustomizedMetricSpecification', {}),
  ScaleOutCooldown: shapes.integer(),
  ScaleInCooldown: shapes.integer(),
  DisableScaleIn: shapes.boolean(),
});

/** Cooldowns are whole seconds; a day is more than any DynamoDB user needs and keeps the arithmetic bounded. */
const COOLDOWN_SECONDS_MAX = 86_400;

export const putScalingPolicy: AutoScalingOperationFactory = (service) =>
  defineOperation<PutPolicyRequest>({
    name: 'PutScalingPolicy',
    members: {
      PolicyName: shapes.string({ required: true, lengthMin: 1, lengthMax: 256 }),
      ServiceNamespace: serviceNamespaceMember,
      ResourceId: resourceIdMember,
      ScalableDimension: scalableDimensionMember,
      PolicyType: shapes.string({ enumValues: POLICY_TYPES }),
      StepScalingPolicyConfiguration: shapes.structure('StepScalingPolicyConfiguration', {}),
      TargetTrackingScalingPolicyConfiguration: configurationMember,
      PredictiveScalingPolicyConfiguration: shapes.structure('PredictiveScalingPolicyConfiguration', {}),
    },

    validate(input) {
      const resource = dynamoResourceOf(input.ServiceNamespace as string, input.ResourceId as string, input.ScalableDimension as string);
      return { name: input.PolicyName as string, resource, ...targetTrackingOf(input, resource) };
    },

    async execute(_engine, request) {
      const { resource } = request;
      const id = targetKey(resource.resourceId, resource.dimension);
      if (!service.store.targets.has(id)) throw targetNotFound('dynamodb', resource.resourceId, resource.dimension);
      const record = service.engine.catalog.get(resource.table)?.record;
      if (record !== undefined && record.billingMode !== 'PROVISIONED') {
        // ⚠ Wording ours, as RegisterScalableTarget's: an on-demand table has nothing to scale.
        throw autoScalingValidation(`DynamoDB table is not in provisioned capacity mode (BillingMode PAY_PER_REQUEST): table/${resource.table}`);
      }
      const existing = service.store.policies.get(id)?.get(request.name);
      if (existing === undefined && (service.store.policies.get(id)?.size ?? 0) >= POLICIES_PER_TARGET_MAX) {
        throw autoScalingValidation(`A scalable target can have at most ${POLICIES_PER_TARGET_MAX} scaling policies`);
      }
      const { region, accountId } = service.engine.settings;
      const policy: PolicyRecord = {
        name: request.name,
        resourceId: resource.resourceId,
        dimension: resource.dimension,
        arn:
          existing?.arn ??
          `arn:aws:autoscaling:${region}:${accountId}:scalingPolicy:${randomUUID()}:resource/dynamodb/${resource.resourceId}:policyName/${request.name}`,
        createdMs: existing?.createdMs ?? service.engine.clock.nowMs(),
        metricType: metricTypeOf(resource.direction),
        targetValue: request.targetValue,
        scaleOutCooldownSeconds: request.scaleOutCooldownSeconds,
        scaleInCooldownSeconds: request.scaleInCooldownSeconds,
        disableScaleIn: request.disableScaleIn,
        alarmId: existing?.alarmId ?? randomUUID(),
      };
      await service.store.putPolicy(policy);
      // A replaced policy's alarms are made again, with the new thresholds and no history.
      if (existing !== undefined) service.forgetPolicy(existing);
      return { PolicyARN: policy.arn, Alarms: alarmsOf(service.engine.settings, policy) };
    },
  });

export function alarmsOf(settings: { readonly region: string; readonly accountId: string }, policy: PolicyRecord): { AlarmName: string; AlarmARN: string }[] {
  const names = alarmNames(policy);
  return [names.high, names.low]
    .filter((name): name is string => name !== undefined)
    .map((name) => ({ AlarmName: name, AlarmARN: `arn:aws:cloudwatch:${settings.region}:${settings.accountId}:alarm:${name}` }));
}

/**
 * The policy's settings, checked (pure). ⚠ The wordings are ours except where noted: the API
 * reference gives the 20–90 bounds for DynamoDB's target utilization but no message text.
 */
function targetTrackingOf(input: Record<string, unknown>, resource: ScalableResource): Omit<PutPolicyRequest, 'name' | 'resource'> {
  const policyType = (input.PolicyType as string | undefined) ?? 'StepScaling';
  if (policyType !== 'TargetTrackingScaling') {
    throw autoScalingValidation(`dynatwin serves only TargetTrackingScaling policies for DynamoDB, not ${policyType}`);
  }
  const configuration = input.TargetTrackingScalingPolicyConfiguration as TargetTrackingInput | undefined;
  if (configuration === undefined) throw autoScalingValidation('TargetTrackingScalingPolicyConfiguration is required for a TargetTrackingScaling policy');
  const metric = configuration.PredefinedMetricSpecification?.PredefinedMetricType;
  if (metric === undefined) {
    throw autoScalingValidation('dynatwin serves only the predefined metrics DynamoDBReadCapacityUtilization and DynamoDBWriteCapacityUtilization');
  }
  const expected = metricTypeOf(resource.direction);
  if (metric !== expected) throw autoScalingValidation(`The predefined metric type ${metric} does not apply to ${resource.dimension}; use ${expected}`);
  const targetValue = configuration.TargetValue;
  if (!(targetValue >= TARGET_VALUE_MIN && targetValue <= TARGET_VALUE_MAX)) {
    throw autoScalingValidation(`The target value for ${metric} must be between ${TARGET_VALUE_MIN} and ${TARGET_VALUE_MAX}`);
  }
  return {
    targetValue,
    scaleOutCooldownSeconds: cooldownOf(configuration.ScaleOutCooldown, 'ScaleOutCooldown'),
    scaleInCooldownSeconds: cooldownOf(configuration.ScaleInCooldown, 'ScaleInCooldown'),
    disableScaleIn: configuration.DisableScaleIn ?? false,
  };
}

/** DynamoDB's default cooldowns are 0 s ([S33b]). */
function cooldownOf(seconds: number | undefined, member: string): number {
  if (seconds === undefined) return 0;
  if (seconds < 0 || seconds > COOLDOWN_SECONDS_MAX) throw autoScalingValidation(`${member} must be between 0 and ${COOLDOWN_SECONDS_MAX} seconds`);
  return seconds;
}
