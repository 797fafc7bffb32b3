/**
 * Members and checks shared by the Application Auto Scaling operations (AnyScaleFrontendService.*),
 * with the constraints of the API model (botocore application-autoscaling 2016-02-06).
 */
import type { AnyOperation } from '../../operations/operation.js';
import { shapes, type Member } from '../../operations/shape.js';
import { autoScalingError, autoScalingValidation, SCALABLE_DIMENSIONS, scalableResourceOf, SERVICE_NAMESPACES, UNSUPPORTED_RESOURCE, type ScalableResource } from '../model.js';
import type { AutoScaling } from '../service.js';

/** An operation built around one server's AutoScaling (the registry is made per engine). */
export type AutoScalingOperationFactory = (service: AutoScaling) => AnyOperation;

export const serviceNamespaceMember: Member = shapes.string({ required: true, enumValues: SERVICE_NAMESPACES });
export const resourceIdMember: Member = shapes.string({ required: true, lengthMin: 1, lengthMax: 1600 });
export const optionalResourceIdMember: Member = shapes.string({ lengthMin: 1, lengthMax: 1600 });
export const scalableDimensionMember: Member = shapes.string({ required: true, enumValues: SCALABLE_DIMENSIONS });
export const optionalScalableDimensionMember: Member = shapes.string({ enumValues: SCALABLE_DIMENSIONS });
export const maxResultsMember: Member = shapes.integer();
export const nextTokenMember: Member = shapes.string();
export const resourceIdsMember: Member = shapes.list(shapes.string({ lengthMin: 1, lengthMax: 1600 }), { lengthMax: 50 });

/** What Describe* answer a page of when MaxResults is absent, and the most they take. */
export const PAGE_SIZE_MAX = 50;

/**
 * dynatwin serves DynamoDB's scalable targets only; other namespaces name resources it has not got.
 * ⚠ Wording ours: no source shows what AWS says for a namespace whose service is absent.
 */
export function requireDynamoDbNamespace(namespace: string): void {
  if (namespace !== 'dynamodb') {
    throw autoScalingValidation(`dynatwin scales only DynamoDB tables and global secondary indexes (ServiceNamespace dynamodb), not ${namespace}`);
  }
}

/** A resource id and dimension that name a DynamoDB table's or GSI's capacity, or the service's refusal. */
export function dynamoResourceOf(namespace: string, resourceId: string, dimension: string): ScalableResource {
  requireDynamoDbNamespace(namespace);
  const resource = scalableResourceOf(resourceId, dimension);
  if (resource === undefined) throw autoScalingValidation(UNSUPPORTED_RESOURCE);
  return resource;
}

/** The MaxResults of a Describe* request: 1 to 50 (⚠ wording ours), 50 when absent. */
export function pageSizeOf(maxResults: number | undefined): number {
  if (maxResults === undefined) return PAGE_SIZE_MAX;
  if (maxResults < 1 || maxResults > PAGE_SIZE_MAX) throw autoScalingValidation(`MaxResults must be between 1 and ${PAGE_SIZE_MAX}`);
  return maxResults;
}

/** A page of `items` after the NextToken (an offset we issued); a token we did not issue is InvalidNextTokenException. */
/**
 * The Describe* answer: one page of `records`, each described, under `member`, with NextToken
 * when more follow. A token is the offset of the next page ('o' and up to 9 digits): anything
 * else is InvalidNextTokenException.
 */
export function describedPage<T>(member: string, records: readonly T[], request: DescribePageRequest, describe: (record: T) => object): Record<string, unknown> {
  let start = 0;
  if (request.nextToken !== undefined) {
    const match = /^o([0-9]{1,9})$/.exec(request.nextToken);
    if (match === null) throw autoScalingError('InvalidNextTokenException', 'Invalid token');
    start = Number(match[1]);
  }
  const end = start + request.pageSize;
  const page = records.slice(start, end).map(describe);
  return end < records.length ? { [member]: page, NextToken: `o${end}` } : { [member]: page };
}

/** A filter list matches everything when absent or empty, else the values it names. */
export function listedOrAll(list: readonly string[] | undefined, value: string): boolean {
  return list === undefined || list.length === 0 || list.includes(value);
}

/** Epoch seconds with milliseconds, as the JSON 1.1 protocol sends timestamps. */
export function epochSeconds(ms: number): number {
  return ms / 1000;
}

/** The members every Describe* shares: the namespace and a page. */
export const describePageMembers = {
  ServiceNamespace: serviceNamespaceMember,
  MaxResults: maxResultsMember,
  NextToken: nextTokenMember,
};

/** What every Describe* request holds besides its filters. */
export interface DescribePageRequest {
  readonly namespace: string;
  readonly resourceId: string | undefined;
  readonly dimension: string | undefined;
  readonly pageSize: number;
  readonly nextToken: string | undefined;
}

export function describePageRequestOf(input: Record<string, unknown>): DescribePageRequest {
  return {
    namespace: input.ServiceNamespace as string,
    resourceId: input.ResourceId as string | undefined,
    dimension: input.ScalableDimension as string | undefined,
    pageSize: pageSizeOf(input.MaxResults as number | undefined),
    nextToken: input.NextToken as string | undefined,
  };
}

/** Whether a record matches the request's ResourceId and ScalableDimension filters. */
export function matchesFilters(request: DescribePageRequest, record: { readonly resourceId: string; readonly dimension: string }): boolean {
  return (request.resourceId === undefined || record.resourceId === request.resourceId) && (request.dimension === undefined || record.dimension === request.dimension);
}
