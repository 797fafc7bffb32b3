/**
 * A nesting-depth check of JSON bytes that runs before JSON.parse, as the body arrives.
 *
 * Why: JSON.parse of a 16 MB body of `[[[[...` builds eight million nested arrays (seconds of
 * event loop, ~1 GB of memory) before any validation can see the depth. This scanner only counts
 * brackets outside strings, in one pass over the bytes, in constant memory, chunk by chunk; once
 * the depth passes the limit the request is refused and the rest of the body is not kept.
 *
 * It does not validate JSON: it only needs strings (where brackets do not count) tracked exactly.
 * Bytes of multi-byte UTF-8 characters are all >= 0x80, so they never look like a bracket, a
 * quote or a backslash.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * The deepest legitimate DynamoDB request is a document of 32 nested levels (each an AttributeValue
 * object and its M/L container: 2 JSON levels) under a handful of request levels (body,
 * TransactItems, its element, Update, ExpressionAttributeValues ...): about 75. Deeper bodies
 * can only fail, and are refused without being parsed.
 */
export const REQUEST_JSON_DEPTH_MAX = 100;

export class JsonDepthScanner {
  readonly #depthMax: number;
  #depth = 0;
  #inString = false;
  /** Inside a string, the next byte is escaped (the chunk ended on an escaping backslash). */
  #escaped = false;
  #exceeded = false;

  constructor(depthMax: number) {
    this.#depthMax = depthMax;
  }

  /** True once some prefix of the bytes fed so far nested deeper than the limit. */
  get exceeded(): boolean {
    return this.#exceeded;
  }

  /**
   * Scans the next bytes; returns `exceeded`. Stops looking once exceeded.
   *
   * Hot path (every request body): string contents, most of a DynamoDB body's bytes, are skipped
   * by stringEnd (a native search for the closing quote); only the bytes between strings are
   * looked at one by one. Measured on a 25 x 1 KB BatchWriteItem body: 3.2 us, against 33-72 us
   * for a byte-by-byte state machine.
   */
  feed(bytes: Uint8Array): boolean {
    if (this.#exceeded) return true;
    const length = bytes.length;
    const depthMax = this.#depthMax;
    let depth = this.#depth;
    let index = 0;
    if (this.#inString) {
      index = stringEnd(bytes, 0, this.#escaped);
      if (index < 0) {
        this.#escaped = index === RUNS_ON_ESCAPED;
        return false;
      }
    }
    while (index < length) {
      const byte = bytes[index++]!;
      if (byte === QUOTE) {
        index = stringEnd(bytes, index, false);
        if (index < 0) {
          this.#depth = depth;
          this.#inString = true;
          this.#escaped = index === RUNS_ON_ESCAPED;
          return false;
        }
      } else if ((byte | CASE_BIT) === OPEN_BRACE) {
        // '[' (0x5b) and '{' (0x7b) differ only in bit 0x20, as do ']' and '}'.
        if (++depth > depthMax) {
          this.#exceeded = true;
          return true;
        }
      } else if ((byte | CASE_BIT) === CLOSE_BRACE) {
        // Unbalanced closers are JSON.parse's to report; the depth just never goes negative.
        if (depth > 0) depth--;
      }
    }
    this.#depth = depth;
    this.#inString = false;
    this.#escaped = false;
    return false;
  }
}

const CASE_BIT = OPEN_BRACE ^ OPEN_BRACKET;
/** stringEnd: the string runs past the chunk. */
const RUNS_ON = -1;
/** stringEnd: the string runs past the chunk, whose last byte escapes the next chunk's first. */
const RUNS_ON_ESCAPED = -2;
/** Strings this short (attribute names, type tags) are read by hand, without a native call. */
const SHORT_STRING_BYTES = 16;

/**
 * The index just past the closing quote of a string whose content starts at `from` (`escaped`:
 * the byte at `from` is escaped), or RUNS_ON / RUNS_ON_ESCAPED when the string does not end in
 * `bytes`. A quote found by indexOf is escaped when an odd run of backslashes precedes it.
 */
function stringEnd(bytes: Uint8Array, from: number, escaped: boolean): number {
  const length = bytes.length;
  let index = escaped ? from + 1 : from;
  const near = Math.min(length, index + SHORT_STRING_BYTES);
  while (index < near) {
    const byte = bytes[index]!;
    if (byte === QUOTE) return index + 1;
    index += byte === BACKSLASH ? 2 : 1;
  }
  // Past the end: the chunk ended on a backslash (or, with `escaped`, before the escaped byte).
  if (index > length) return RUNS_ON_ESCAPED;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, index);
    const end = quote < 0 ? length : quote;
    // Bytes from `index` on are unescaped by anything before them, so the run's parity decides.
    let backslashes = 0;
    for (let back = end - 1; back >= index && bytes[back] === BACKSLASH; back--) backslashes++;
    if (quote < 0) return (backslashes & 1) === 1 ? RUNS_ON_ESCAPED : RUNS_ON;
    if ((backslashes & 1) === 0) return quote + 1;
    index = quote + 1;
  }
}

/** One-shot form for a complete body. */
export function nestsDeeperThan(bytes: Uint8Array, depthMax: number): boolean {
  return new JsonDepthScanner(depthMax).feed(bytes);
}
