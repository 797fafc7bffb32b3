/**
 * The seeded PRNG for generated and fuzz tests (mulberry32, src/model/random.ts): a failure can be
 * replayed from its seed.
 */
export { seededRandom } from '../../src/model/random.js';
