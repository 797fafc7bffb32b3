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
const CLOSE_BRACKET = 0x5d;
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
  #escaped = false;
  #exceeded = false;

  constructor(depthMax: number) {
    this.#depthMax = depthMax;
  }

  /** True once some prefix of the bytes fed so far nested deeper than the limit. */
  get exceeded(): boolean {
    return this.#exceeded;
  }

  /** Scans the next bytes; returns `exceeded`. Stops looking once exceeded. */
  feed(bytes: Uint8Array): boolean {
    if (this.#exceeded) return true;
    let depth = this.#depth;
    let inString = this.#inString;
    let escaped = this.#escaped;
    const depthMax = this.#depthMax;
    for (let index = 0; index < bytes.length; index++) {
      const byte = bytes[index]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) {
        inString = true;
      } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
        if (++depth > depthMax) {
          this.#exceeded = true;
          return true;
        }
      } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
        // Unbalanced closers are JSON.parse's to report; the depth just never goes negative.
        if (depth > 0) depth--;
      }
    }
    this.#depth = depth;
    this.#inString = inString;
    this.#escaped = escaped;
    return false;
  }
}

/** One-shot form for a complete body. */
export function nestsDeeperThan(bytes: Uint8Array, depthMax: number): boolean {
  return new JsonDepthScanner(depthMax).feed(bytes);
}
