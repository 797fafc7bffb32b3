/**
 * A small deterministic PRNG (mulberry32): seeded, so whatever draws from it (fault injection's
 * rules, generated and fuzz tests) repeats itself run after run. Returns floats in [0, 1). Each
 * caller owns its generator: there is no shared state.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
