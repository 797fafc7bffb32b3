/**
 * A bounded cache of parsed expression texts, owned by whoever creates it (the server keeps one);
 * no module state, so tests and servers never share entries.
 *
 * What is cached is the text-only phase of parsing (parser.ts): the syntax tree, or the error the
 * text alone causes. The key is (grammar, text): a text's tokens, structure, function names and
 * reserved words do not depend on the request. Placeholders do — `#n` names and `:v` values
 * change from request to request, and each request must record which ones it used — so they are
 * resolved on every call, over the cached tree; a repeated expression is never tokenized again.
 *
 * Eviction approximates least-recently-used by second chance: a Map iterates in insertion order;
 * a hit only marks its entry, and eviction moves a marked entry behind the others (clearing the
 * mark) instead of dropping it, so the first unmarked entry goes. A hit re-inserting its key, as
 * exact LRU would, costs a Map delete and insert on every request that uses an expression (about
 * 1 us, measured: more than tokenizing saves on short texts). Two bounds apply: a number of entries, and a total
 * length of cached text — a tree takes ~40 bytes of heap per byte of text, so 1,000 maximal 4 KB
 * expressions would otherwise pin ~150 MB; the text budget keeps that near 40 MB while ordinary
 * short expressions still fill all the entries.
 */
import type { ConditionSyntax, Grammar, PathSyntax, UpdateSyntax } from './parser.js';

/** The outcome of the text-only phase for one text. */
export type ParsedText =
  | { readonly grammar: 'condition'; readonly tree: ConditionSyntax }
  | { readonly grammar: 'update'; readonly tree: UpdateSyntax }
  | { readonly grammar: 'projection'; readonly tree: readonly PathSyntax[] }
  | { readonly grammar: Grammar; readonly error: string };

export const EXPRESSION_CACHE_ENTRIES_DEFAULT = 1000;
/** Total UTF-16 length of the cached texts. */
export const EXPRESSION_CACHE_TEXT_DEFAULT = 1024 * 1024;

/** A cached text and whether a lookup found it since it was inserted or last passed over. */
interface Entry {
  readonly parsed: ParsedText;
  used: boolean;
}

export class ExpressionCache {
  private readonly entries = new Map<string, Entry>();
  private textLength = 0;
  private hitCount = 0;
  private missCount = 0;

  constructor(
    readonly capacity: number = EXPRESSION_CACHE_ENTRIES_DEFAULT,
    readonly textBudget: number = EXPRESSION_CACHE_TEXT_DEFAULT,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error('assertion failed: cache capacity must be a positive integer');
    if (!(textBudget > 0)) throw new Error('assertion failed: cache text budget must be positive');
  }

  get(grammar: Grammar, text: string): ParsedText | undefined {
    const key = keyOf(grammar, text);
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.missCount++;
      return undefined;
    }
    this.hitCount++;
    entry.used = true;
    return entry.parsed;
  }

  set(grammar: Grammar, text: string, parsed: ParsedText): void {
    const key = keyOf(grammar, text);
    if (this.entries.delete(key)) this.textLength -= key.length;
    this.entries.set(key, { parsed, used: false });
    this.textLength += key.length;
    while (this.entries.size > this.capacity || (this.textLength > this.textBudget && this.entries.size > 1)) {
      const [coldest, entry] = this.entries.entries().next().value as [string, Entry];
      this.entries.delete(coldest);
      // A used entry, and the one just inserted, get a second chance behind the others; each pass
      // clears marks, so the loop ends on the first entry left unmarked.
      if (entry.used || coldest === key) {
        entry.used = false;
        this.entries.set(coldest, entry);
        continue;
      }
      this.textLength -= coldest.length;
    }
  }

  clear(): void {
    this.entries.clear();
    this.textLength = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Lookups answered from the cache. */
  get hits(): number {
    return this.hitCount;
  }

  /** Lookups that had to parse. */
  get misses(): number {
    return this.missCount;
  }
}

/** Grammar names contain no NUL, so the first NUL separates the grammar from the text. */
function keyOf(grammar: Grammar, text: string): string {
  return `${grammar}\u0000${text}`;
}
