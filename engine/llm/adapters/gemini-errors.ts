import { ApiError } from '@google/genai';
import { ProviderError } from '../../runtime/backend';
import { isRecord } from '../../model/json';
import { cancelledFrom, providerErrorFrom } from '../provider-errors';

/** What Google's SDK says when a stream breaks off inside a record, or the connection drops. */
const brokenTransport = /fetch failed|terminated|other side closed|Incomplete JSON segment|exception parsing stream chunk|Response body is empty/i;

/**
 * The SDK's ApiError carries the whole error body as JSON text (`{"error":{"code","message",
 * "status","details"}}`, after "got status: X. " when it came inside a stream); the provider's own
 * sentence and its RetryInfo are dug out of it. It keeps no headers, so the retry delay comes from
 * the body, which is where Gemini sends it.
 */
export function translateGeminiError(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return cancelledFrom(signal);
  if (error instanceof ProviderError) return error;
  if (error instanceof ApiError) {
    const body = errorBody(error.message);
    const message = typeof body?.message === 'string' ? body.message : error.message;
    const retryDelay = retryDelayMs(body?.details);
    const headers = retryDelay === undefined ? undefined : new Headers({ 'retry-after-ms': String(retryDelay) });
    return providerErrorFrom('gemini', { status: error.status, headers, message, transportFailure: false }, Date.now());
  }
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError' || brokenTransport.test(error.message))) {
    return providerErrorFrom('gemini', { status: undefined, headers: undefined, message: transportMessage(error), transportFailure: true }, Date.now());
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** A failure inside a 200 stream the SDK did not raise itself; transient unless said otherwise. */
export function geminiStreamFailure(message: string, transient = true): ProviderError {
  return providerErrorFrom('gemini', { status: undefined, headers: undefined, message, transportFailure: transient }, Date.now());
}

function transportMessage(error: Error): string {
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return /Incomplete JSON segment|exception parsing stream chunk/.test(error.message) ? `the stream broke off inside a record (${error.message.slice(0, 200)})` : `${error.message}${cause}`;
}

function errorBody(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(text.slice(start));
    return isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
  } catch {
    return undefined;
  }
}

/** `google.rpc.RetryInfo.retryDelay` is a protobuf Duration in JSON: "12s", "1.5s". */
function retryDelayMs(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (!isRecord(detail) || !String(detail['@type']).endsWith('google.rpc.RetryInfo')) continue;
    const seconds = /^(\d+(?:\.\d+)?)s$/.exec(String(detail.retryDelay))?.[1];
    if (seconds !== undefined) return Math.round(Number(seconds) * 1000);
  }
  return undefined;
}
