/**
 * ListTagsOfResource: a table's tags (by ARN), in the order they were first set. A table holds
 * at most 50 tags, so one page always holds them all and no NextToken is ever returned; a
 * NextToken in the request is accepted and, having never been issued, starts from the top.
 */
import { requireResourceTable, resourceArnMember, resourceReferenceOf, type ResourceReference } from './control-plane-common.js';
import { defineOperation } from './operation.js';
import { shapes } from './shape.js';

export const listTagsOfResourceOperation = defineOperation<ResourceReference>({
  name: 'ListTagsOfResource',
  members: {
    ResourceArn: resourceArnMember,
    NextToken: shapes.string(),
  },

  validate(input) {
    return resourceReferenceOf(input.ResourceArn as string | undefined);
  },

  execute(engine, resource) {
    const table = requireResourceTable(engine, resource, `Requested resource not found: ResourcArn: ${resource.arn} not found`, 'ListTagsOfResource');
    return { Tags: table.record.tags };
  },
});
