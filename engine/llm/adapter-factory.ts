import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { AnthropicMessagesAdapter } from './adapters/anthropic-messages';
import { OpenAiChatAdapter } from './adapters/openai-chat';
import { OpenAiResponsesAdapter } from './adapters/openai-responses';
import type { LlmSettings } from './provider-settings';
import { credentialVariables } from './provider-settings';
import type { ProviderAdapter, ProviderName } from './types';

/** Per-request HTTP timeout; a hung connection becomes a transient error the retry policy sees. */
const requestTimeoutMs = 10 * 60 * 1000;

/** Builds the adapter for a provider. SDK retries are off: the retry policy (with its clock) owns them. */
export function createAdapter(provider: ProviderName, settings: LlmSettings): ProviderAdapter {
  const access = settings[provider];
  if (!access.apiKey) throw new Error(`${credentialVariables[provider]} is not set`);
  if (provider === 'anthropic') {
    return new AnthropicMessagesAdapter(new Anthropic({ apiKey: access.apiKey, baseURL: access.baseUrl ?? null, maxRetries: 0, timeout: requestTimeoutMs }));
  }
  const client = new OpenAI({ apiKey: access.apiKey, baseURL: access.baseUrl ?? null, maxRetries: 0, timeout: requestTimeoutMs });
  return settings.openai.api === 'responses' ? new OpenAiResponsesAdapter(client) : new OpenAiChatAdapter(client);
}
