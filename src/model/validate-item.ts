/**
 * Content rules for AttributeValues, after deserialization has checked their JSON types: exactly
 * one type set, NULL must be true, sets non-empty and without duplicates, numbers valid (and
 * rewritten to canonical form in place, so what is stored is what DynamoDB would return), nesting
 * at most 32 levels deep. Throws DynamoDB's ValidationException texts.
 */
import { validationError } from '../errors.js';
import type { AttributeMap, AttributeValue } from './attribute-value.js';
import { canonicalizeNumber } from './numbers.js';

/** DynamoDB supports documents nested up to 32 levels. */
export const NESTING_DEPTH_MAX = 32;

/** DynamoDB's text for a document nested deeper than NESTING_DEPTH_MAX (captured from the service). */
export const NESTING_TOO_DEEP =
  'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit';

const INVALID = 'One or more parameter values were invalid: ';

/** Attribute names may be up to 65,535 bytes (UTF-8), whatever the documentation's "64 KB" suggests. */
export const ATTRIBUTE_NAME_MAX_BYTES = 65_535;

/**
 * DynamoDB's text for a longer name, top-level or a map key at any depth (measured on the service:
 * ExtendDB/extenddb#365; scylladb/scylladb#9169 found 65,535 the last accepted length).
 */
export function checkAttributeName(name: string): void {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short names need no counting.
  if (name.length * 3 <= ATTRIBUTE_NAME_MAX_BYTES || Buffer.byteLength(name, 'utf8') <= ATTRIBUTE_NAME_MAX_BYTES) return;
  throw validationError(ATTRIBUTE_NAME_TOO_LARGE);
}

/** Reported as it is wherever the name appears, an expression value's map key included. */
export const ATTRIBUTE_NAME_TOO_LARGE = `1 validation error detected: Attribute name is too large, must be less than ${ATTRIBUTE_NAME_MAX_BYTES + 1} bytes`;

/**
 * Throws DynamoDB's nesting ValidationException when a value of the item lies inside more than
 * NESTING_DEPTH_MAX documents: the check of an item built by an update (a SET of a document at a
 * path, list_append), whose parts each passed validateAttributeValue on their own.
 */
export function checkNestingDepth(item: AttributeMap): void {
  for (const name in item) checkValueDepth(item[name]!, 0);
}

function checkValueDepth(value: AttributeValue, depth: number): void {
  if (depth > NESTING_DEPTH_MAX) throw validationError(NESTING_TOO_DEEP);
  if ('M' in value) {
    for (const name in value.M) checkValueDepth(value.M[name]!, depth + 1);
  } else if ('L' in value) {
    for (const element of value.L) checkValueDepth(element, depth + 1);
  }
}

/**
 * An item's (or key's) attribute names are at least one character long; DynamoDB refuses '' (the
 * wording is ours, docs/CONFORMANCE.md). A map value's keys are not checked: no recorded answer.
 */
export const EMPTY_ATTRIBUTE_NAME = INVALID + 'An attribute name may not be empty';

/** Validates every attribute of an item or key map in place. */
export function validateAttributeMap(map: AttributeMap): void {
  for (const name in map) {
    if (name === '') throw validationError(EMPTY_ATTRIBUTE_NAME);
    checkAttributeName(name);
    validateAttributeValue(map[name]!, 0);
  }
}

/** Validates one value in place (numbers become canonical). `depth` counts enclosing documents. */
export function validateAttributeValue(value: AttributeValue, depth: number): void {
  if (depth > NESTING_DEPTH_MAX) throw validationError(NESTING_TOO_DEEP);
  const record = value as Record<string, unknown>;
  let typeCount = 0;
  for (const type in record) {
    typeCount++;
    validateMember(type, record, depth);
  }
  if (typeCount === 0) {
    throw validationError('Supplied AttributeValue is empty, must contain exactly one of the supported datatypes');
  }
  if (typeCount > 1) {
    throw validationError(
      'Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes',
    );
  }
}

function validateMember(type: string, record: Record<string, unknown>, depth: number): void {
  switch (type) {
    case 'N':
      record.N = canonicalizeNumber(record.N as string);
      return;
    case 'NULL':
      if (record.NULL !== true) throw validationError(INVALID + 'Null attribute value types must have the value of true');
      return;
    case 'SS':
      validateStringSet(record.SS as (string | null)[]);
      return;
    case 'NS':
      validateNumberSet(record.NS as (string | null)[]);
      return;
    case 'BS':
      validateBinarySet(record.BS as (string | null)[]);
      return;
    case 'L':
      validateList(record.L as (AttributeValue | null)[], depth);
      return;
    case 'M':
      validateMap(record.M as Record<string, AttributeValue>, depth);
      return;
    default: // S, B, BOOL: deserialization already checked them fully
      return;
  }
}

function rejectNullElements(elements: readonly unknown[]): void {
  // A null in a set or list is an AttributeValue with no type at all.
  if (elements.includes(null)) {
    throw validationError('Supplied AttributeValue is empty, must contain exactly one of the supported datatypes');
  }
}

function validateStringSet(elements: (string | null)[]): void {
  if (elements.length === 0) throw validationError(INVALID + 'An string set  may not be empty');
  rejectNullElements(elements);
  if (hasDuplicate(elements as string[])) {
    throw validationError(INVALID + `Input collection [${elements.join(', ')}] contains duplicates.`);
  }
}

function validateNumberSet(elements: (string | null)[]): void {
  if (elements.length === 0) throw validationError(INVALID + 'An number set  may not be empty');
  rejectNullElements(elements);
  // Duplicates are judged on numeric value, so canonicalise first ("1" and "1.0" are the same).
  for (let index = 0; index < elements.length; index++) elements[index] = canonicalizeNumber(elements[index]!);
  if (hasDuplicate(elements as string[])) throw validationError('Input collection contains duplicates');
}

function validateBinarySet(elements: (string | null)[]): void {
  if (elements.length === 0) throw validationError(INVALID + 'Binary sets should not be empty');
  rejectNullElements(elements);
  if (hasDuplicate(elements as string[])) {
    throw validationError(INVALID + `Input collection [${elements.join(', ')}]of type BS contains duplicates.`);
  }
}

function validateList(elements: (AttributeValue | null)[], depth: number): void {
  rejectNullElements(elements);
  for (const element of elements) validateAttributeValue(element!, depth + 1);
}

function validateMap(map: Record<string, AttributeValue>, depth: number): void {
  for (const name in map) {
    checkAttributeName(name);
    validateAttributeValue(map[name]!, depth + 1);
  }
}

function hasDuplicate(elements: readonly string[]): boolean {
  if (elements.length < 2) return false;
  if (elements.length === 2) return elements[0] === elements[1];
  return new Set(elements).size !== elements.length;
}
