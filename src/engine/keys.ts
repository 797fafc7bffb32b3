/**
 * Key rules that depend on the table: a Key map must be exactly the table's key, an item must
 * carry its key attributes with the schema's types, key values must be non-empty and within the
 * size limits, and attributes that key a secondary index must have the index's type.
 */
import { validationError, type DynamoError } from '../errors.js';
import { ownMember, type AttributeMap, type AttributeValue } from '../model/attribute-value.js';
import { PARTITION_KEY_MAX_BYTES, SORT_KEY_MAX_BYTES } from '../model/item-size.js';
import { encodeItemKey, keyByteLengthOf } from '../model/key-codec.js';
import type { IndexKeyAttribute, KeyAttribute, Table } from './table.js';

const INVALID = 'One or more parameter values were invalid: ';
const NOT_VALID = 'One or more parameter values are not valid. ';
const KEY_MISMATCH = 'The provided key element does not match the schema';

/** Checks a Key parameter (GetItem, DeleteItem ...) and returns its storage key. */
export function storageKeyOfKey(table: Table, key: AttributeMap): Buffer {
  const { hash, range } = table.key;
  let attributeCount = 0;
  for (const _name in key) attributeCount++;
  if (attributeCount !== (range === undefined ? 1 : 2)) throw validationError(KEY_MISMATCH);
  const hashValue = keyValueOf(key, hash);
  const rangeValue = range === undefined ? undefined : keyValueOf(key, range);
  checkKeyValue(hashValue, hash, true);
  if (rangeValue !== undefined) checkKeyValue(rangeValue, range!, false);
  return encodeItemKey(table.itemPrefix, hashValue, rangeValue);
}

function keyValueOf(key: AttributeMap, attribute: KeyAttribute): AttributeValue {
  const value = ownMember(key, attribute.name);
  if (value === undefined || !(attribute.type in value)) throw validationError(KEY_MISMATCH);
  return value;
}

/** Checks an item's key and index-key attributes and returns its storage key. */
export function storageKeyOfItem(table: Table, item: AttributeMap): Buffer {
  const { hash, range } = table.key;
  const hashValue = itemKeyValueOf(item, hash, true);
  const rangeValue = range === undefined ? undefined : itemKeyValueOf(item, range, false);
  checkIndexKeyTypes(table, item);
  return encodeItemKey(table.itemPrefix, hashValue, rangeValue);
}

function itemKeyValueOf(item: AttributeMap, attribute: KeyAttribute, isHash: boolean): AttributeValue {
  const value = ownMember(item, attribute.name);
  if (value === undefined) throw validationError(INVALID + `Missing the key ${attribute.name} in the item`);
  if (!(attribute.type in value)) {
    const actual = Object.keys(value)[0];
    throw validationError(INVALID + `Type mismatch for key ${attribute.name} expected: ${attribute.type} actual: ${actual}`);
  }
  checkKeyValue(value, attribute, isHash);
  return value;
}

/**
 * Empty S/B values cannot key an item; keys have size limits (2048 B hash, 1024 B range). The
 * empty-value text says "are not valid" for items and lookup keys alike (captured from DynamoDB).
 */
export function checkKeyValue(value: AttributeValue, attribute: KeyAttribute, isHash: boolean): void {
  if (attribute.type === 'N' || !(attribute.type in value)) return;
  const text = attribute.type === 'S' ? (value as { S: string }).S : (value as { B: string }).B;
  if (text.length === 0) throw emptyKeyValueError(attribute);
  // Measured, not encoded: a Buffer per key checked was ~90 bytes and ~0.5 us of every GetItem.
  const byteLength = keyByteLengthOf(value);
  if (isHash && byteLength > PARTITION_KEY_MAX_BYTES) {
    throw validationError(INVALID + 'Size of hashkey has exceeded the maximum size limit of2048 bytes');
  }
  if (!isHash && byteLength > SORT_KEY_MAX_BYTES) {
    throw validationError(INVALID + 'Aggregated size of all range keys has exceeded the size limit of 1024 bytes');
  }
}

/** DynamoDB's text for an empty S or B value of a table key attribute. */
export function emptyKeyValueError(attribute: KeyAttribute): DynamoError {
  const kind = attribute.type === 'S' ? 'string' : 'binary';
  return validationError(NOT_VALID + `The AttributeValue for a key attribute cannot contain an empty ${kind} value. Key: ${attribute.name}`);
}

/** DynamoDB's text for an empty S or B value of an attribute that keys a secondary index. */
export function emptyIndexKeyValueError(index: IndexKeyAttribute): DynamoError {
  return validationError(
    NOT_VALID +
      'A value specified for a secondary index key is not supported. ' +
      `The AttributeValue for a key attribute cannot contain an empty string value. IndexName: ${index.indexName}, IndexKey: ${index.attribute.name}`,
  );
}

/** An attribute that keys a GSI or LSI must have the index's declared type when present. */
export function checkIndexKeyTypes(table: Table, item: AttributeMap): void {
  for (const index of table.indexKeys) {
    const value = ownMember(item, index.attribute.name);
    if (value === undefined) continue;
    if (!(index.attribute.type in value)) {
      const actual = Object.keys(value)[0];
      throw validationError(
        INVALID +
          `Type mismatch for Index Key ${index.attribute.name} Expected: ${index.attribute.type} Actual: ${actual} IndexName: ${index.indexName}`,
      );
    }
    if (index.attribute.type === 'N') continue;
    if (isEmptyScalar(value)) throw emptyIndexKeyValueError(index);
    checkIndexKeySize(index, value);
  }
}

/**
 * DynamoDB's text for an index key value over its limit (scylladb's and other users' reports of
 * the service: `Size limit exceeded for Index Key componentId Actual Size: 2175 bytes Max Size:
 * 2048 bytes IndexName: work-sets-index`); the sort key's 1,024 follows the same form.
 */
function checkIndexKeySize(index: IndexKeyAttribute, value: AttributeValue): void {
  const maxBytes = index.isHash ? PARTITION_KEY_MAX_BYTES : SORT_KEY_MAX_BYTES;
  const byteLength = keyByteLengthOf(value);
  if (byteLength <= maxBytes) return;
  throw validationError(
    INVALID + `Size limit exceeded for Index Key ${index.attribute.name} Actual Size: ${byteLength} bytes Max Size: ${maxBytes} bytes IndexName: ${index.indexName}`,
  );
}

function isEmptyScalar(value: AttributeValue): boolean {
  if ('S' in value) return value.S.length === 0;
  if ('B' in value) return value.B.length === 0;
  return false;
}

/**
 * An update may not touch the table's key, nor reach inside a key or index-key attribute with a
 * nested path (key attributes are scalars).
 */
export function checkUpdatedPaths(table: Table, paths: readonly (readonly (string | number)[])[]): void {
  const { hash, range } = table.key;
  for (const path of paths) {
    const name = path[0] as string;
    const isTableKey = name === hash.name || name === range?.name;
    if (isTableKey && path.length === 1) {
      throw validationError(INVALID + `Cannot update attribute ${name}. This attribute is part of the key`);
    }
    if (path.length === 1) continue;
    if (isTableKey) {
      throw validationError(`Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: ${name}`);
    }
    if (table.indexKeys.some((index) => index.attribute.name === name)) {
      throw validationError(
        `Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: IndexKey: ${name}`,
      );
    }
  }
}
