/**
 * PutResourcePolicy: attaches a resource-based policy (an IAM policy document, JSON, at most 20 KB)
 * to a table or its stream. Stored and returned; dynatwin does not evaluate policies (requests are
 * not authorised against them). The same document again keeps its revision.
 */
import type { ResourceReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';
import {
  checkExpectedRevision,
  checkPolicyDocument,
  expectedRevisionIdMember,
  nextRevisionId,
  policyOf,
  policyReferenceOf,
  policyResourceArnMember,
  requirePolicyTarget,
  withPolicy,
} from './resource-policy-common.js';
import { shapes } from './shape.js';

interface PutResourcePolicyRequest {
  readonly reference: ResourceReference;
  readonly policy: string;
  readonly expectedRevisionId: string | undefined;
}

export const putResourcePolicyOperation = defineOperation<PutResourcePolicyRequest>({
  name: 'PutResourcePolicy',
  members: {
    ResourceArn: policyResourceArnMember,
    Policy: shapes.string({ required: true }),
    ExpectedRevisionId: expectedRevisionIdMember,
    ConfirmRemoveSelfResourceAccess: shapes.boolean(),
  },

  validate(input) {
    const reference = policyReferenceOf(input.ResourceArn as string);
    const policy = input.Policy as string;
    checkPolicyDocument(policy);
    return { reference, policy, expectedRevisionId: input.ExpectedRevisionId as string | undefined };
  },

  async execute(engine, request) {
    const { table: found, key } = requirePolicyTarget(engine, request.reference, 'PutResourcePolicy');
    let revisionId = '';
    await engine.catalog.update(found.name, (current) => {
      const existing = policyOf(current.record, key);
      checkExpectedRevision(current, existing, request.expectedRevisionId, request.reference.arn);
      if (existing !== undefined && existing.policy === request.policy) {
        revisionId = existing.revisionId;
        return current.record;
      }
      revisionId = nextRevisionId(current.record, engine.clock.nowMs());
      return withPolicy(current.record, key, { policy: request.policy, revisionId });
    });
    return { RevisionId: revisionId };
  },
});
