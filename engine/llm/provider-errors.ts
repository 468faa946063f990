import { ProviderError } from '../runtime/backend';

/** Raised when the run's signal aborts a provider call or a tool; never retried. */
export class CancelledError extends Error {
  constructor(message = 'cancelled') {
    super(message);
    this.name = 'CancelledError';
  }
}

function reasonText(reason: unknown): string {
  if (reason instanceof Error) return `cancelled: ${reason.message}`;
  return typeof reason === 'string' ? `cancelled: ${reason}` : 'cancelled';
}

export function cancelledFrom(signal: AbortSignal): CancelledError {
  return new CancelledError(reasonText(signal.reason));
}

/** 429, 408, 409 (lock contention) and every 5xx are worth another attempt; other 4xx never are. */
function isTransientStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** `Retry-After` (seconds or an HTTP date) or OpenAI's `retry-after-ms`, in milliseconds. */
export function retryAfterMs(headers: Headers | undefined, now: number): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** What an SDK's HTTP error says, reduced to what the retry policy and the user need. */
export interface HttpFailure {
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
  /** The provider's own words, not the SDK's "401 {json}" rendering. */
  readonly message: string;
  /** Connection resets, timeouts, overloaded stream errors: transient without a status. */
  readonly transportFailure: boolean;
}

export function providerErrorFrom(provider: string, failure: HttpFailure, now: number): ProviderError {
  const transient = failure.transportFailure || (failure.status !== undefined && isTransientStatus(failure.status));
  const prefix = failure.status === undefined ? provider : `${provider} ${failure.status}`;
  return new ProviderError(`${prefix}: ${failure.message}`, provider, failure.status, transient, transient ? retryAfterMs(failure.headers, now) : undefined);
}

/**
 * A stream that ended without its terminal event (`message_stop`, a `finish_reason`,
 * `response.completed`): the connection dropped mid-answer. Transient, so it is retried; a partial
 * answer is never taken for the whole one.
 */
export function incompleteStreamError(provider: string, missing: string): ProviderError {
  return providerErrorFrom(provider, { status: undefined, headers: undefined, message: `the stream ended without ${missing} (incomplete response)`, transportFailure: true }, Date.now());
}
