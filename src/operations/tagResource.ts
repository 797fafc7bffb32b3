/** TagResource: adds tags to a table (by ARN), overwriting the values of keys it already has. */
import type { Tag } from '../engine/table.js';
import { validationError } from '../errors.js';
import {
  checkTags,
  mergeTags,
  requireResourceTable,
  resourceArnMember,
  resourceReferenceOf,
  tagsMember,
  type ResourceReference,
  type TagInput,
} from './control-plane-common.js';
import { defineOperation, JsonText } from './operation.js';

interface TagResourceRequest {
  readonly resource: ResourceReference;
  readonly tags: readonly Tag[];
}

/** DynamoDB answers TagResource with an empty body (Content-Length: 0), not `{}`. */
const EMPTY_ANSWER = new JsonText('', {});

export const tagResourceOperation = defineOperation<TagResourceRequest>({
  name: 'TagResource',
  members: {
    ResourceArn: resourceArnMember,
    // Not notNull in the shape: DynamoDB checks the ARN before it misses the tags.
    Tags: tagsMember,
  },

  validate(input) {
    const resource = resourceReferenceOf(input.ResourceArn as string | undefined);
    const tags = input.Tags as readonly TagInput[] | undefined;
    if (tags === undefined) {
      throw validationError("1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null");
    }
    if (tags.length === 0) throw validationError('Atleast one Tag needs to be provided as Input.');
    return { resource, tags: checkTags(tags) };
  },

  async execute(engine, request) {
    const { resource } = request;
    const table = requireResourceTable(engine, resource, `Requested resource not found: ResourcArn: ${resource.arn} not found`, 'TagResource');
    await engine.catalog.update(table.name, (current) => ({ ...current.record, tags: mergeTags(current.record.tags, request.tags) }));
    return EMPTY_ANSWER;
  },
});
