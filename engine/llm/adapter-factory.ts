import type { SdkClientOptions } from './adapters/sdk-client-options';
import type { LlmSettings } from './provider-settings';
import { credentialVariables } from './provider-settings';
import type { ProviderAdapter, ProviderName } from './types';

/** Per-request HTTP timeout; a hung connection becomes a transient error the retry policy sees. */
const requestTimeoutMs = 10 * 60 * 1000;

/**
 * Builds the adapter for a provider. SDK retries are off: the retry policy (with its clock) owns
 * them. Adapters, and the SDKs they import, load on first use, so commands that never call a model
 * do not evaluate them. Each adapter module constructs its own client so that the client and the
 * error classes it is checked against come from one module instance.
 */
export async function createAdapter(provider: ProviderName, settings: LlmSettings): Promise<ProviderAdapter> {
  const access = settings[provider];
  if (!access.apiKey) throw new Error(`${credentialVariables[provider]} is not set`);
  const options: SdkClientOptions = { apiKey: access.apiKey, baseURL: access.baseUrl ?? null, maxRetries: 0, timeout: requestTimeoutMs };
  if (provider === 'anthropic') return (await import('./adapters/anthropic-messages')).AnthropicMessagesAdapter.create(options);
  if (provider === 'gemini') return (await import('./adapters/gemini-generate-content')).GeminiGenerateContentAdapter.create(options);
  if (settings.openai.api === 'responses') return (await import('./adapters/openai-responses')).OpenAiResponsesAdapter.create(options);
  return (await import('./adapters/openai-chat')).OpenAiChatAdapter.create(options);
}
