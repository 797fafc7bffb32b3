/**
 * Key checks the batch and transaction operations make before keys.ts encodes a key, because
 * DynamoDB reports some key faults differently there than PutItem/GetItem do (captured against
 * DynamoDB by the paritysuite/dynamodb-conformance project, 2026):
 *
 * - an empty S/B key value is a top-level ValidationException worded "are not valid", even for a
 *   lookup Key and even inside a transaction (where other key faults become cancellation reasons);
 * - BatchWriteItem answers a put item whose key attribute is missing or of the wrong type with the
 *   Key-map text "The provided key element does not match the schema", not PutItem's texts.
 */
import { validationError } from '../errors.js';
import { ownMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import { emptyIndexKeyValueError, emptyKeyValueError } from './keys.js';
import type { KeyAttribute, Table } from './table.js';

const KEY_MISMATCH = 'The provided key element does not match the schema';

/** Throws when a table key attribute of `map` (a Key or an item) holds an empty S or B value. */
export function rejectEmptyKeyValues(table: Table, map: AttributeMap): void {
  for (const attribute of keyAttributes(table)) {
    const value = ownMember(map, attribute.name);
    if (value !== undefined && isEmptyOfType(value, attribute)) throw emptyKeyValueError(attribute);
  }
}

/** Throws when an attribute of `item` that keys a secondary index holds an empty S or B value. */
export function rejectEmptyIndexKeyValues(table: Table, item: AttributeMap): void {
  for (const index of table.indexKeys) {
    const value = ownMember(item, index.attribute.name);
    if (value !== undefined && isEmptyOfType(value, index.attribute)) throw emptyIndexKeyValueError(index);
  }
}

/** BatchWriteItem's put items: every table key attribute present with the schema's type. */
export function requireItemKeyAttributes(table: Table, item: AttributeMap): void {
  for (const attribute of keyAttributes(table)) {
    const value = ownMember(item, attribute.name);
    if (value === undefined || !(attribute.type in value)) throw validationError(KEY_MISMATCH);
  }
}

function keyAttributes(table: Table): KeyAttribute[] {
  return table.key.range === undefined ? [table.key.hash] : [table.key.hash, table.key.range];
}

/** True for an empty S or B value of the attribute's own type (a wrong type is another fault). */
function isEmptyOfType(value: AttributeValue, attribute: KeyAttribute): boolean {
  if (attribute.type === 'S' && 'S' in value) return value.S.length === 0;
  if (attribute.type === 'B' && 'B' in value) return value.B.length === 0;
  return false;
}
