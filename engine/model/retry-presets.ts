/**
 * Canonical §3.6's preset retry policies, named from DOT by `retry_policy` (EXTENSIONS
 * retry_policy): how many attempts, and the backoff between them. `attempt` of a backoff is
 * 1-indexed: the delay before the second execution is attempt 1. `jitter` spreads a delay by up to
 * that fraction either way (0: none); §3.6's `jitter: true` is ±50 %.
 */
export interface Backoff {
  readonly initialDelayMs: number;
  readonly factor: number;
  readonly maxDelayMs: number;
  readonly jitter: number;
}

interface RetryPreset {
  readonly maxAttempts: number;
  readonly backoff: Backoff;
  readonly doc: string;
}

const jittered = (initialDelayMs: number, factor: number): Backoff => ({ initialDelayMs, factor, maxDelayMs: 60_000, jitter: 0.5 });

export const retryPresets = {
  none: { maxAttempts: 1, backoff: jittered(200, 2), doc: 'No retries: fail at once.' },
  standard: { maxAttempts: 5, backoff: jittered(200, 2), doc: 'Five attempts; waits of 200, 400, 800, 1600 ms (±50 %).' },
  aggressive: { maxAttempts: 5, backoff: jittered(500, 2), doc: 'Five attempts; waits of 500, 1000, 2000, 4000 ms (±50 %).' },
  linear: { maxAttempts: 3, backoff: jittered(500, 1), doc: 'Three attempts; 500 ms (±50 %) between them.' },
  patient: { maxAttempts: 3, backoff: jittered(2000, 3), doc: 'Three attempts; waits of 2000, 6000 ms (±50 %).' },
} as const satisfies Record<string, RetryPreset>;

export type RetryPresetName = keyof typeof retryPresets;

export function isRetryPreset(name: string | undefined): name is RetryPresetName {
  return name !== undefined && Object.hasOwn(retryPresets, name);
}
