/**
 * Application Auto Scaling for DynamoDB: what a scalable target, a target-tracking policy and a
 * scaling activity are, the resource ids and dimensions DynamoDB has, and the service's errors.
 * Texts are the service's where a source shows them (docs/CAPACITY-MODEL.md §13 lists each with
 * its source; ⚠ marks the ones no source shows).
 */
import { DynamoError } from '../errors.js';

export const SERVICE_NAMESPACES = [
  'ecs', 'elasticmapreduce', 'ec2', 'appstream', 'dynamodb', 'rds', 'sagemaker', 'custom-resource',
  'comprehend', 'lambda', 'cassandra', 'kafka', 'elasticache', 'neptune', 'workspaces',
] as const;

/** Every dimension of the API model (botocore application-autoscaling 2016-02-06); DynamoDB's four are served. */
export const SCALABLE_DIMENSIONS = [
  'ecs:service:DesiredCount', 'ec2:spot-fleet-request:TargetCapacity', 'elasticmapreduce:instancegroup:InstanceCount',
  'appstream:fleet:DesiredCapacity', 'dynamodb:table:ReadCapacityUnits', 'dynamodb:table:WriteCapacityUnits',
  'dynamodb:index:ReadCapacityUnits', 'dynamodb:index:WriteCapacityUnits', 'rds:cluster:ReadReplicaCount',
  'sagemaker:variant:DesiredInstanceCount', 'custom-resource:ResourceType:Property',
  'comprehend:document-classifier-endpoint:DesiredInferenceUnits', 'comprehend:entity-recognizer-endpoint:DesiredInferenceUnits',
  'lambda:function:ProvisionedConcurrency', 'cassandra:table:ReadCapacityUnits', 'cassandra:table:WriteCapacityUnits',
  'kafka:broker-storage:VolumeSize', 'elasticache:cache-cluster:Nodes', 'elasticache:replication-group:NodeGroups',
  'elasticache:replication-group:Replicas', 'neptune:cluster:ReadReplicaCount', 'sagemaker:variant:DesiredProvisionedConcurrency',
  'sagemaker:inference-component:DesiredCopyCount', 'workspaces:workspacespool:DesiredUserSessions',
] as const;

export const METRIC_TYPES = [
  'DynamoDBReadCapacityUtilization', 'DynamoDBWriteCapacityUtilization', 'ALBRequestCountPerTarget',
  'RDSReaderAverageCPUUtilization', 'RDSReaderAverageDatabaseConnections', 'EC2SpotFleetRequestAverageCPUUtilization',
  'EC2SpotFleetRequestAverageNetworkIn', 'EC2SpotFleetRequestAverageNetworkOut', 'SageMakerVariantInvocationsPerInstance',
  'ECSServiceAverageCPUUtilization', 'ECSServiceAverageMemoryUtilization', 'AppStreamAverageCapacityUtilization',
  'ComprehendInferenceUtilization', 'LambdaProvisionedConcurrencyUtilization', 'CassandraReadCapacityUtilization',
  'CassandraWriteCapacityUtilization', 'KafkaBrokerStorageUtilization', 'ElastiCacheEngineCPUUtilization',
  'ElastiCacheDatabaseMemoryUsagePercentage', 'ElastiCachePrimaryEngineCPUUtilization', 'ElastiCacheReplicaEngineCPUUtilization',
  'ElastiCacheDatabaseMemoryUsageCountedForEvictPercentage', 'NeptuneReaderAverageCPUUtilization',
  'SageMakerVariantProvisionedConcurrencyUtilization', 'ElastiCacheDatabaseCapacityUsageCountedForEvictPercentage',
  'SageMakerInferenceComponentInvocationsPerCopy', 'WorkSpacesAverageUserSessionsCapacityUtilization',
  'SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution', 'SageMakerVariantConcurrentRequestsPerModelHighResolution',
] as const;

export const POLICY_TYPES = ['StepScaling', 'TargetTrackingScaling', 'PredictiveScaling'] as const;

export type Direction = 'read' | 'write';

/** A DynamoDB scalable resource: a table's or a GSI's read or write capacity. */
export interface ScalableResource {
  readonly resourceId: string;
  readonly dimension: string;
  readonly table: string;
  readonly index: string | undefined;
  readonly direction: Direction;
}

/** DynamoDB's target-tracking bounds on TargetValue, in percent ([S33] §5.1). */
export const TARGET_VALUE_MIN = 20;
export const TARGET_VALUE_MAX = 90;

export interface ScalableTargetRecord {
  readonly resourceId: string;
  readonly dimension: string;
  readonly minCapacity: number;
  readonly maxCapacity: number;
  readonly createdMs: number;
  readonly arn: string;
  readonly roleArn: string;
  readonly suspendedIn: boolean;
  readonly suspendedOut: boolean;
  readonly suspendedScheduled: boolean;
}

export interface PolicyRecord {
  readonly name: string;
  readonly resourceId: string;
  readonly dimension: string;
  readonly arn: string;
  readonly createdMs: number;
  readonly metricType: 'DynamoDBReadCapacityUtilization' | 'DynamoDBWriteCapacityUtilization';
  readonly targetValue: number;
  readonly scaleOutCooldownSeconds: number;
  readonly scaleInCooldownSeconds: number;
  readonly disableScaleIn: boolean;
  /** The suffix of the policy's alarm names (a UUID, as AWS names them). */
  readonly alarmId: string;
}

export type ActivityStatus = 'Successful' | 'Failed' | 'InProgress';

export interface ActivityRecord {
  readonly id: string;
  readonly resourceId: string;
  readonly dimension: string;
  readonly description: string;
  readonly cause: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly statusCode: ActivityStatus;
  readonly statusMessage: string;
}

/** `table/<t>` or `table/<t>/index/<i>` with a dimension of the same resource type, else undefined. */
export function scalableResourceOf(resourceId: string, dimension: string): ScalableResource | undefined {
  const match = /^table\/([a-zA-Z0-9_.-]{3,255})(?:\/index\/([a-zA-Z0-9_.-]{3,255}))?$/.exec(resourceId);
  const dimensionMatch = /^dynamodb:(table|index):(Read|Write)CapacityUnits$/.exec(dimension);
  if (match === null || dimensionMatch === null) return undefined;
  const index = match[2];
  if ((index === undefined) !== (dimensionMatch[1] === 'table')) return undefined;
  return { resourceId, dimension, table: match[1]!, index, direction: dimensionMatch[2] === 'Read' ? 'read' : 'write' };
}

export function metricTypeOf(direction: Direction): PolicyRecord['metricType'] {
  return direction === 'read' ? 'DynamoDBReadCapacityUtilization' : 'DynamoDBWriteCapacityUtilization';
}

/** The service's own errors: `Message`, as its API model spells the member. */
export function autoScalingError(name: string, message: string): DynamoError {
  return new DynamoError(name, message, { messageField: 'Message' });
}

export function autoScalingValidation(message: string): DynamoError {
  return autoScalingError('ValidationException', message);
}

/** Seen in client logs (pulumi/pulumi-policy-aws#11) for a resource id of the wrong shape. */
export const UNSUPPORTED_RESOURCE = 'Unsupported service namespace, resource type or scalable dimension';

/** The AWS CLI's answer for a policy on an unregistered target (§13 sources). */
export function targetNotFound(namespace: string, resourceId: string, dimension: string): DynamoError {
  return autoScalingError(
    'ObjectNotFoundException',
    `No scalable target registered for service namespace: ${namespace}, resource ID: ${resourceId}, scalable dimension: ${dimension}`,
  );
}

export function policyNotFound(namespace: string, resourceId: string, dimension: string, name: string): DynamoError {
  return autoScalingError(
    'ObjectNotFoundException',
    `No scaling policy found for service namespace: ${namespace}, resource ID: ${resourceId}, scalable dimension: ${dimension}, policy name: ${name}`,
  );
}

/** The role AWS fills in for DynamoDB targets (its service-linked role). */
export function dynamoDbRoleArn(accountId: string): string {
  return `arn:aws:iam::${accountId}:role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable`;
}

/** Target tracking's two alarms per policy, named as AWS names them. */
export function alarmNames(policy: Pick<PolicyRecord, 'resourceId' | 'alarmId' | 'disableScaleIn'>): { high: string; low: string | undefined } {
  const stem = `TargetTracking-${policy.resourceId}`;
  return { high: `${stem}-AlarmHigh-${policy.alarmId}`, low: policy.disableScaleIn ? undefined : `${stem}-AlarmLow-${policy.alarmId}` };
}

export function unitsWord(direction: Direction): string {
  return direction === 'read' ? 'read capacity units' : 'write capacity units';
}

/**
 * An activity as it reads at `nowMs`: a successful change whose table is still being updated is
 * InProgress, "Waiting for change to be fulfilled by dynamodb." (AWS CLI's describe-scaling-activities
 * examples), with no EndTime yet.
 */
export function activityAt(activity: ActivityRecord, nowMs: number): ActivityRecord & { readonly ended: boolean } {
  if (activity.statusCode !== 'Successful' || nowMs >= activity.endMs) return { ...activity, ended: true };
  return {
    ...activity,
    statusCode: 'InProgress',
    statusMessage: activity.statusMessage.replace('Change successfully fulfilled by dynamodb.', 'Waiting for change to be fulfilled by dynamodb.'),
    ended: false,
  };
}
