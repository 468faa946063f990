import OpenAI from 'openai';
import { cancelledFrom, providerErrorFrom } from '../provider-errors';

export function translateOpenAiError(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return cancelledFrom(signal);
  if (error instanceof OpenAI.APIConnectionError) {
    return providerErrorFrom('openai', { status: undefined, headers: undefined, message: error.message, transportFailure: true }, Date.now());
  }
  if (error instanceof OpenAI.APIError) {
    const body = error.error as { message?: unknown } | undefined;
    const message = typeof body?.message === 'string' ? body.message : error.message;
    const serverSide = error.status === undefined && /server_error|overloaded|rate_limit/i.test(`${error.type ?? ''} ${error.code ?? ''}`);
    return providerErrorFrom('openai', { status: error.status, headers: error.headers, message, transportFailure: serverSide }, Date.now());
  }
  return error instanceof Error ? error : new Error(String(error));
}
