/**
 * Deserialization of AttributeValue structures: the JSON types of each member as DynamoDB's
 * deserializer checks them. This is the hot path of every item write, so it walks each value once
 * and only rebuilds a value when it carries members DynamoDB ignores (unknown names or nulls).
 * The rules about contents (exactly one type, empty sets, numbers) are in src/model/validate-item.ts.
 */
import { serializationError, validationError } from '../errors.js';
import { NESTING_TOO_DEEP } from '../model/validate-item.js';
import { expectBlob, expectBoolean, expectString } from './shape.js';

const AV_TYPES = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'SS', 'NS', 'BS', 'L', 'M']);

/**
 * Documents may nest 32 levels; past that the request fails anyway. The walk stops there so a
 * hostile body of a million nested lists cannot exhaust the stack.
 */
const DEPTH_MAX = 32;

/** Checks one AttributeValue; `position` selects the wording for a non-object value. */
export function checkAttributeValue(value: unknown, position: 'field' | 'element', depth = 0): unknown {
  if (depth > DEPTH_MAX) throw validationError(NESTING_TOO_DEEP);
  if (value === null || typeof value !== 'object') {
    throw serializationError(position === 'field' ? 'Unexpected field type' : 'Unexpected value type in payload');
  }
  if (Array.isArray(value)) {
    throw serializationError('Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue');
  }
  const record = value as Record<string, unknown>;
  let needsRebuild = false;
  for (const type in record) {
    const member = record[type];
    if (!AV_TYPES.has(type) || member === null) {
      needsRebuild = true;
      continue;
    }
    record[type] = checkMember(type, member, depth);
  }
  return needsRebuild ? withoutIgnoredMembers(record) : record;
}

function withoutIgnoredMembers(record: Record<string, unknown>): Record<string, unknown> {
  const clean: Record<string, unknown> = {};
  for (const type in record) {
    if (AV_TYPES.has(type) && record[type] !== null) clean[type] = record[type];
  }
  return clean;
}

function checkMember(type: string, member: unknown, depth: number): unknown {
  switch (type) {
    case 'S':
    case 'N':
      return expectString(member, 'String');
    case 'B':
      return expectBlob(member);
    case 'BOOL':
    case 'NULL':
      return expectBoolean(member);
    case 'SS':
    case 'NS':
      return checkList(member, (element) => expectString(element, 'String'));
    case 'BS':
      return checkList(member, expectBlob);
    case 'L':
      return checkList(member, (element) => checkAttributeValue(element, 'element', depth + 1));
    default: // 'M'
      return checkAttributeMap(member, depth + 1);
  }
}

function checkList(member: unknown, checkElement: (element: unknown) => unknown): unknown[] {
  if (!Array.isArray(member)) {
    if (member !== null && typeof member === 'object') {
      throw serializationError('Start of structure or map found where not expected');
    }
    throw serializationError('Unexpected field type');
  }
  for (let index = 0; index < member.length; index++) {
    const element: unknown = member[index];
    // Nulls stay: the content validation reports them with DynamoDB's message.
    if (element !== null) member[index] = checkElement(element);
  }
  return member;
}

/** A map of attribute name to AttributeValue (Item, Key, M, ExpressionAttributeValues ...). */
export function checkAttributeMap(value: unknown, depth = 0): Record<string, unknown> {
  if (value === null || typeof value !== 'object') throw serializationError('Unexpected field type');
  if (Array.isArray(value)) {
    throw serializationError(
      'Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>',
    );
  }
  const map = value as Record<string, unknown>;
  for (const name in map) {
    const element = map[name];
    if (element === null) delete map[name];
    else map[name] = checkAttributeValue(element, 'element', depth);
  }
  return map;
}
