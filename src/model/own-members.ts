/**
 * Objects keyed by names users choose (tables, indexes, attributes, tags). DynamoDB allows any
 * table or index name of [a-zA-Z0-9_.-]{3,255}, so `__proto__`, `constructor` and `toString` are
 * ordinary names, and an answer keyed by one must carry it as a member. A plain `{}` gets both
 * wrong: `record[name] ??= []` finds Object.prototype's `constructor` and pushes onto a function,
 * and `record['__proto__'] = value` changes the prototype instead of adding a member, which
 * JSON.stringify then leaves out. Accumulate in a Map, then build the answer with `recordOf`.
 */

/** Sets `key` as an own, enumerable data property, even when it is `__proto__`. */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}

/** A plain object (as JSON.stringify writes it) with one own member per entry, in order. */
export function recordOf<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const record: Record<string, T> = {};
  for (const [key, value] of entries) setOwn(record, key, value);
  return record;
}

/** The value of an own member only: `constructor` or `toString` never resolve to Object.prototype's. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
