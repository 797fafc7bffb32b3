/**
 * DynamoDB's AttributeValue in its wire form. Binary values stay base64 text, numbers stay decimal
 * text (canonicalised on the way in), so a stored item is already its own response encoding.
 */
export type AttributeValue =
  | { readonly S: string }
  | { readonly N: string }
  | { readonly B: string }
  | { readonly BOOL: boolean }
  | { readonly NULL: true }
  | { readonly SS: readonly string[] }
  | { readonly NS: readonly string[] }
  | { readonly BS: readonly string[] }
  | { readonly L: readonly AttributeValue[] }
  | { readonly M: AttributeMap };

export type AttributeMap = { readonly [name: string]: AttributeValue };

/** The scalar types a key attribute may have. */
export type ScalarType = 'S' | 'N' | 'B';

export type AttributeType = 'S' | 'N' | 'B' | 'BOOL' | 'NULL' | 'SS' | 'NS' | 'BS' | 'L' | 'M';

/** The single type tag of a validated AttributeValue. */
export function typeOf(value: AttributeValue): AttributeType {
  for (const key in value) return key as AttributeType;
  throw new Error('assertion failed: empty AttributeValue reached typeOf');
}

/**
 * A member of an item or map by name, own properties only: attribute names are arbitrary text,
 * and `constructor` or `toString` must not resolve to Object.prototype's members.
 */
export function ownMember(map: AttributeMap, name: string): AttributeValue | undefined {
  return Object.hasOwn(map, name) ? map[name] : undefined;
}

/** Sets a member as a data property, so that even the name `__proto__` is stored as an attribute. */
export function setMember(map: Record<string, AttributeValue>, name: string, value: AttributeValue): void {
  if (name === '__proto__') Object.defineProperty(map, name, { value, enumerable: true, writable: true, configurable: true });
  else map[name] = value;
}
