import { ProviderError } from './backend';
import type { Clock } from './clock';
import type { Backoff } from '../model/retry-presets';

/** A server's Retry-After longer than this is capped: a run does not sleep for an hour on one header. */
export const maxRetryAfterMs = 120_000;

export function delayForAttempt(attempt: number, backoff: Backoff, random: () => number): number {
  const base = Math.min(backoff.initialDelayMs * backoff.factor ** (attempt - 1), backoff.maxDelayMs);
  return Math.round(backoff.jitter > 0 ? base * (1 - backoff.jitter + 2 * backoff.jitter * random()) : base);
}

/** How one provider call is retried inside a node's attempt, before the node's own ladder sees the error. */
export interface RetryPolicy {
  /** Further attempts after the first. */
  readonly maxRetries: number;
  readonly backoff: Backoff;
  /** A Retry-After longer than this is not waited out: the error goes to the engine's retry ladder. */
  readonly maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 3, backoff: { initialDelayMs: 1000, factor: 2, maxDelayMs: 30_000, jitter: 0.2 }, maxRetryAfterMs };

/** The default policy, waiting `initialDelayMs` before its first retry when given (ATTRACTOR_LLM_RETRY_DELAY_MS). */
export function retryPolicyWithFirstDelay(initialDelayMs: number | undefined): RetryPolicy {
  return initialDelayMs === undefined ? defaultRetryPolicy : { ...defaultRetryPolicy, backoff: { ...defaultRetryPolicy.backoff, initialDelayMs } };
}

/** Backoff before retry `attempt` (0-based): the server's Retry-After when given, else the policy's backoff. */
export function backoffMs(policy: RetryPolicy, attempt: number, error: ProviderError, random: () => number): number {
  return error.retryAfterMs ?? delayForAttempt(attempt + 1, policy.backoff, random);
}

export interface RetryObserver {
  (info: { readonly attempt: number; readonly delayMs: number; readonly error: ProviderError }): void;
}

/**
 * Runs `call` until it succeeds, fails non-transiently, or retries run out. On exhaustion the last
 * ProviderError is rethrown as is (still `transient: true`), so the engine's node retry ladder decides.
 */
export async function withRetries<T>(
  call: () => Promise<T>,
  options: { policy: RetryPolicy; clock: Pick<Clock, 'sleep'>; signal: AbortSignal; random?: () => number; onRetry?: RetryObserver },
): Promise<T> {
  const random = options.random ?? Math.random;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ProviderError) || !error.transient || attempt >= options.policy.maxRetries) throw error;
      const delayMs = backoffMs(options.policy, attempt, error, random);
      if (delayMs > options.policy.maxRetryAfterMs) throw error;
      options.onRetry?.({ attempt: attempt + 1, delayMs, error });
      await options.clock.sleep(delayMs, options.signal);
    }
  }
}
