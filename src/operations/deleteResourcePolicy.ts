/** DeleteResourcePolicy: removes the policy of a table or stream (at the expected revision, when one is given). */
import type { ResourceReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';
import {
  checkExpectedRevision,
  expectedRevisionIdMember,
  policyNotFound,
  policyOf,
  policyReferenceOf,
  policyResourceArnMember,
  requirePolicyTarget,
  withPolicy,
} from './resource-policy-common.js';

interface DeleteResourcePolicyRequest {
  readonly reference: ResourceReference;
  readonly expectedRevisionId: string | undefined;
}

export const deleteResourcePolicyOperation = defineOperation<DeleteResourcePolicyRequest>({
  name: 'DeleteResourcePolicy',
  members: { ResourceArn: policyResourceArnMember, ExpectedRevisionId: expectedRevisionIdMember },

  validate(input) {
    return { reference: policyReferenceOf(input.ResourceArn as string), expectedRevisionId: input.ExpectedRevisionId as string | undefined };
  },

  async execute(engine, request) {
    const { table: found, key } = requirePolicyTarget(engine, request.reference, 'DeleteResourcePolicy');
    let revisionId = '';
    await engine.catalog.update(found.name, (current) => {
      const existing = policyOf(current.record, key);
      if (existing === undefined) throw policyNotFound(request.reference.arn);
      checkExpectedRevision(current, existing, request.expectedRevisionId, request.reference.arn);
      revisionId = existing.revisionId;
      return withPolicy(current.record, key, undefined);
    });
    return { RevisionId: revisionId };
  },
});
