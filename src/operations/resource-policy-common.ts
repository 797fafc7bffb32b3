/**
 * What PutResourcePolicy, GetResourcePolicy and DeleteResourcePolicy share: the resource an ARN
 * names (a table, or one of its streams), the policies kept on the table record, and DynamoDB's
 * texts (recorded answers; sources in docs/CONFORMANCE.md).
 */
import type { Engine } from '../engine/engine.js';
import type { ResourcePolicyRecord, Table, TableRecord } from '../engine/table.js';
import { dynamoError, resourceNotFound, validationError, type DynamoError } from '../errors.js';
import { requireResourceTable, resourceArnMember, resourceReferenceOf, type ResourceReference } from './control-plane-common.js';
import { shapes, type Member } from './shape.js';

export const policyResourceArnMember: Member = { ...resourceArnMember, constraints: { ...resourceArnMember.constraints, required: true } };
export const expectedRevisionIdMember: Member = shapes.string({ lengthMin: 1, lengthMax: 255 });

/** A policy's resource: the table's record holds it under `key` ('' for the table, the stream label for a stream). */
export interface PolicyTarget {
  readonly table: Table;
  readonly key: string;
  readonly arn: string;
}

export function policyReferenceOf(arn: string): ResourceReference {
  return resourceReferenceOf(arn);
}

export function requirePolicyTarget(engine: Engine, reference: ResourceReference, action: string): PolicyTarget {
  const notFound = `Requested resource not found: Table: ${reference.tableName} not found`;
  if (!reference.isStream) return { table: requireResourceTable(engine, reference, notFound, action), key: '', arn: reference.arn };
  const table = requireResourceTable(engine, { ...reference, isStream: false }, notFound, action);
  const label = reference.arn.slice(reference.arn.lastIndexOf('/stream/') + '/stream/'.length);
  if (label !== table.record.latestStreamLabel) throw resourceNotFound(`Requested resource not found: Stream: ${reference.arn} not found`);
  return { table, key: label, arn: reference.arn };
}

export function policyOf(record: TableRecord, key: string): ResourcePolicyRecord | undefined {
  const policies = record.resourcePolicies;
  return policies !== undefined && Object.hasOwn(policies, key) ? policies[key] : undefined;
}

export function withPolicy(record: TableRecord, key: string, policy: ResourcePolicyRecord | undefined): TableRecord {
  const policies: Record<string, ResourcePolicyRecord> = { ...record.resourcePolicies };
  if (policy === undefined) delete policies[key];
  else policies[key] = policy;
  const { resourcePolicies: _previous, ...rest } = record;
  return Object.keys(policies).length === 0 ? (rest as TableRecord) : { ...rest, resourcePolicies: policies };
}

export function policyNotFound(arn: string): DynamoError {
  return dynamoError('PolicyNotFoundException', `Resource-based policy not found for the provided ResourceArn: ${arn}`);
}

/** ExpectedRevisionId: the current revision, or NO_POLICY when none may exist yet (Put only). */
export function checkExpectedRevision(table: Table, current: ResourcePolicyRecord | undefined, expected: string | undefined, arn: string): void {
  if (expected === undefined) return;
  if (expected === 'NO_POLICY') {
    if (current !== undefined) {
      throw dynamoError(
        'PolicyNotFoundException',
        `Resource-based policy not found for the provided ResourceArn: Requested policy update expecting none to be present for table ${table.name}, but a policy exists with revision id ${current.revisionId}.`,
      );
    }
    return;
  }
  if (current === undefined) throw policyNotFound(arn);
  if (current.revisionId !== expected) {
    throw dynamoError(
      'PolicyNotFoundException',
      `Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id ${expected}, but the policy associated to target table ${table.name} has revision id ${current.revisionId}.`,
    );
  }
}

/** The next revision id: the clock's ms, above every revision the table had. */
export function nextRevisionId(record: TableRecord, nowMs: number): string {
  let latest = 0;
  for (const policy of Object.values(record.resourcePolicies ?? {})) latest = Math.max(latest, Number(policy.revisionId));
  return String(Math.max(Math.floor(nowMs), latest + 1));
}

/** DynamoDB's limit on a policy document. */
const POLICY_BYTES_MAX = 20 * 1024;

/** A policy document must be a JSON object of at most 20 KB (dynatwin checks no more of IAM's grammar). */
export function checkPolicyDocument(policy: string): void {
  if (Buffer.byteLength(policy, 'utf8') > POLICY_BYTES_MAX) throw validationError(`Resource-based policy document exceeds the maximum size of ${POLICY_BYTES_MAX} bytes`);
  let document: unknown;
  try {
    document = JSON.parse(policy);
  } catch {
    throw validationError('Resource-based policy document is not valid JSON');
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) throw validationError('Resource-based policy document is not valid JSON');
}
