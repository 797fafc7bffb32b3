/**
 * A Bloom filter of byte-string keys: `mayHave` is false only for a key never added (no false
 * negatives), and true for a key never added with a small probability (about 1% at
 * BITS_PER_KEY bits per key). The logged store (logged.ts) keeps one of the keys LMDB holds, so a
 * write of a new key (PutItem, BatchWriteItem) does not descend LMDB's B-tree to learn that the
 * key is not there: a missed LMDB lookup cost 4.5-9.7 us on the bench VM (100,000 1 KB items),
 * a filter probe is one cache line.
 *
 * Blocked: a key's bits all fall in one 512-bit block (one cache line), chosen by one hash; the
 * bits within it by a second (double hashing, Kirsch and Mitzenmacher).
 */

/** Bits per key the filter is sized for; past that load its false positives climb. */
export const BITS_PER_KEY = 10;
const PROBES = 7;
const BLOCK_WORDS = 16;
const BLOCK_BITS = BLOCK_WORDS * 32;
/** The smallest filter (128 KB of bits, about 100,000 keys). */
const BITS_MIN = 1 << 20;
/** The largest (128 MB of bits, about 100 million keys): past its capacity it only lets more lookups through to LMDB. */
const BITS_MAX = 2 ** 30;

export class KeyFilter {
  readonly #words: Uint32Array;
  /** Blocks - 1: the count of blocks is a power of two, so a hash picks one by a mask. */
  readonly #blockMask: number;
  /** Keys added (a key added twice counts twice). */
  #added = 0;

  /** A filter sized for `expectedKeys`, rounded up to a power of two of bits. */
  constructor(expectedKeys: number) {
    if (!(expectedKeys >= 0)) throw new Error(`a key filter's expected keys must be >= 0, got ${expectedKeys}`);
    let bits = BITS_MIN;
    while (bits < expectedKeys * BITS_PER_KEY && bits < BITS_MAX) bits *= 2;
    this.#words = new Uint32Array(bits / 32);
    this.#blockMask = bits / BLOCK_BITS - 1;
  }

  /** Keys it was sized for; past them the false-positive rate climbs (the store then builds a bigger one). */
  get capacity(): number {
    return (this.#words.length * 32) / BITS_PER_KEY;
  }

  get added(): number {
    return this.#added;
  }

  add(key: Uint8Array): void {
    this.#probe(key, true);
    this.#added++;
  }

  mayHave(key: Uint8Array): boolean {
    return this.#probe(key, false);
  }

  /** Whether every bit of key is set; with `set`, sets them first. */
  #probe(key: Uint8Array, set: boolean): boolean {
    const h1 = hash1(key);
    const base = (h1 & this.#blockMask) * BLOCK_WORDS;
    let h2 = hash2(key);
    const step = (h1 >>> 17) | 1;
    const words = this.#words;
    for (let i = 0; i < PROBES; i++) {
      const bit = h2 & (BLOCK_BITS - 1);
      const word = base + (bit >>> 5);
      const mask = 1 << (bit & 31);
      if (set) words[word]! |= mask;
      else if ((words[word]! & mask) === 0) return false;
      h2 = (h2 + step) | 0;
    }
    return true;
  }
}

/** FNV-1a, 32 bits. */
function hash1(key: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key[i]!, 0x01000193);
  return h;
}

/** A multiply-xorshift hash with another seed, independent enough of hash1 for the bits in a block. */
function hash2(key: Uint8Array): number {
  let h = 0x9747b28c ^ key.length;
  for (let i = 0; i < key.length; i++) {
    h = Math.imul(h ^ key[i]!, 0x5bd1e995);
    h ^= h >>> 15;
  }
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
