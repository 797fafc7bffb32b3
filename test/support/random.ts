/**
 * The seeded PRNG for generated and fuzz tests (mulberry32, src/random.ts): a failure can be
 * replayed from its seed.
 */
export { seededRandom } from '../../src/random.js';
