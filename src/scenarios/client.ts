/**
 * The simulated client's retry behaviour, as the AWS SDK for JavaScript v3's standard retry mode
 * does it: a throttled request is retried after a full-jitter backoff,
 * `random × min(maxDelay, base × 2^(attempt-1))`, up to `maxAttempts` attempts, while a retry
 * quota lasts (500 tokens; a retry costs 5, a success gives 1 back, or 5 for a retried success).
 * BatchWriteItem's UnprocessedItems are re-sent the same way, as the SDK's batch helpers do.
 */
import type { ClientBehaviour } from './schema.js';
import type { Random } from './generators.js';

const RETRY_QUOTA_TOKENS = 500;
const RETRY_COST_TOKENS = 5;
const NO_RETRY_INCREMENT_TOKENS = 1;

export class RetryPolicy {
  readonly #behaviour: ClientBehaviour;
  readonly #random: Random;
  #tokens = RETRY_QUOTA_TOKENS;

  constructor(behaviour: ClientBehaviour, random: Random) {
    this.#behaviour = behaviour;
    this.#random = random;
  }

  /**
   * After attempt `attempt` (1-based) was throttled: the delay before the next attempt in ms, or
   * undefined when the client gives up (no retries, attempts spent, or the retry quota empty).
   */
  retryDelayMs(attempt: number): number | undefined {
    const behaviour = this.#behaviour;
    if (behaviour.retries === 'none' || attempt >= behaviour.maxAttempts) return undefined;
    if (this.#tokens < RETRY_COST_TOKENS) return undefined;
    this.#tokens -= RETRY_COST_TOKENS;
    const ceilingMs = Math.min(behaviour.maxDelayMs, behaviour.baseDelayMs * 2 ** (attempt - 1));
    return this.#random.next() * ceilingMs;
  }

  /** `count` requests succeeded on attempt `attempt` (a flow, scenarios/flow.ts): as many `succeeded` calls. */
  succeededMany(attempt: number, count: number): void {
    const refund = attempt > 1 ? RETRY_COST_TOKENS : NO_RETRY_INCREMENT_TOKENS;
    this.#tokens = Math.min(RETRY_QUOTA_TOKENS, this.#tokens + refund * Math.max(0, count));
  }

  /** A request succeeded on attempt `attempt`: the quota refills. */
  succeeded(attempt: number): void {
    const refund = attempt > 1 ? RETRY_COST_TOKENS : NO_RETRY_INCREMENT_TOKENS;
    this.#tokens = Math.min(RETRY_QUOTA_TOKENS, this.#tokens + refund);
  }
}
