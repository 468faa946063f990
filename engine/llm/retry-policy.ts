import { ProviderError } from '../runtime/backend';
import type { Clock } from './clock';
import { maxRetryAfterMs } from '../runtime/retry-policy';

export interface RetryPolicy {
  /** Further attempts after the first. */
  readonly maxRetries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A Retry-After longer than this is not waited out: the error goes to the engine's retry ladder. */
  readonly maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 3, baseDelayMs: 1000, maxDelayMs: 30_000, maxRetryAfterMs };

/** Backoff before retry `attempt` (0-based): the server's Retry-After when given, else exponential with jitter. */
export function backoffMs(policy: RetryPolicy, attempt: number, error: ProviderError, random: () => number): number {
  if (error.retryAfterMs !== undefined) return error.retryAfterMs;
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(exponential * (0.8 + 0.4 * random()));
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
  options: { policy: RetryPolicy; clock: Clock; signal: AbortSignal; random?: () => number; onRetry?: RetryObserver },
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
