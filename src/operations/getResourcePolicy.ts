/** GetResourcePolicy: the policy of a table or stream with its revision, or PolicyNotFoundException. */
import type { ResourceReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';
import { policyNotFound, policyOf, policyReferenceOf, policyResourceArnMember, requirePolicyTarget } from './resource-policy-common.js';

export const getResourcePolicyOperation = defineOperation<ResourceReference>({
  name: 'GetResourcePolicy',
  members: { ResourceArn: policyResourceArnMember },

  validate(input) {
    return policyReferenceOf(input.ResourceArn as string);
  },

  execute(engine, reference) {
    const { table, key } = requirePolicyTarget(engine, reference, 'GetResourcePolicy');
    const policy = policyOf(table.record, key);
    if (policy === undefined) throw policyNotFound(reference.arn);
    return { Policy: policy.policy, RevisionId: policy.revisionId };
  },
});
