import type { Clock } from './clock';

/** Canonical §3.6 backoff. `attempt` is 1-indexed: the delay before the second execution is attempt 1. */
export interface Backoff {
  readonly initialDelayMs: number;
  readonly factor: number;
  readonly maxDelayMs: number;
  readonly jitter: boolean;
}

export const backoffPresets = {
  standard: { initialDelayMs: 200, factor: 2, maxDelayMs: 60_000, jitter: true },
  aggressive: { initialDelayMs: 500, factor: 2, maxDelayMs: 60_000, jitter: true },
  linear: { initialDelayMs: 500, factor: 1, maxDelayMs: 60_000, jitter: false },
  patient: { initialDelayMs: 2000, factor: 3, maxDelayMs: 60_000, jitter: true },
} as const satisfies Record<string, Backoff>;

/** A server's Retry-After longer than this is capped: a run does not sleep for an hour on one header. */
export const maxRetryAfterMs = 120_000;

export function delayForAttempt(attempt: number, backoff: Backoff, clock: Pick<Clock, 'random'>): number {
  const base = Math.min(backoff.initialDelayMs * backoff.factor ** (attempt - 1), backoff.maxDelayMs);
  return Math.round(backoff.jitter ? base * (0.5 + clock.random()) : base);
}
