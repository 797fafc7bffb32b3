/** UntagResource: removes tags from a table (by ARN); keys it does not have are ignored. */
import { validationError } from '../errors.js';
import { requireResourceTable, resourceArnMember, resourceReferenceOf, type ResourceReference } from './control-plane-common.js';
import { defineOperation, JsonText } from './operation.js';
import { shapes } from './shape.js';

interface UntagResourceRequest {
  readonly resource: ResourceReference;
  readonly tagKeys: readonly string[];
}

/** DynamoDB answers UntagResource with an empty body (Content-Length: 0), not `{}`. */
const EMPTY_ANSWER = new JsonText('', {});

export const untagResourceOperation = defineOperation<UntagResourceRequest>({
  name: 'UntagResource',
  members: {
    ResourceArn: resourceArnMember,
    TagKeys: shapes.list(shapes.string({ notNull: true, lengthMin: 1, lengthMax: 128 })),
  },

  validate(input) {
    const resource = resourceReferenceOf(input.ResourceArn as string | undefined);
    const tagKeys = input.TagKeys as readonly string[] | undefined;
    if (tagKeys === undefined) {
      throw validationError("1 validation error detected: Value null at 'tagKeys' failed to satisfy constraint: Member must not be null");
    }
    if (tagKeys.length === 0) throw validationError('Atleast one Tag Key needs to be provided as Input.');
    return { resource, tagKeys };
  },

  async execute(engine, request) {
    // Unlike TagResource, DynamoDB's not-found text here does not name the ARN (dynalite's observation).
    const table = requireResourceTable(engine, request.resource, 'Requested resource not found', 'UntagResource');
    const removed = new Set(request.tagKeys);
    await engine.catalog.update(table.name, (current) => ({
      ...current.record,
      tags: current.record.tags.filter((tag) => !removed.has(tag.Key)),
    }));
    return EMPTY_ANSWER;
  },
});
