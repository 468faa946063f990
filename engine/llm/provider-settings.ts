import type { ModelSelection } from '../runtime/backend';
import { inferProvider } from './model-catalog';
import type { ProviderName, ReasoningEffort } from './types';
import { isProviderName, providerNames } from './types';

export type OpenAiApi = 'chat' | 'responses';

export interface ProviderAccess {
  /** Never printed or logged. */
  readonly apiKey?: string;
  /** OpenAI: including `/v1`; Anthropic: without it (SDK conventions). */
  readonly baseUrl?: string;
}

/** Everything the LLM backend needs from the environment; injectable (VS Code passes SecretStorage keys). */
export interface LlmSettings {
  readonly openai: ProviderAccess & { readonly api: OpenAiApi };
  readonly anthropic: ProviderAccess;
}

export const credentialVariables: Readonly<Record<ProviderName, string>> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' };

/**
 * Reads OPENAI_API_KEY, OPENAI_BASE_URL, ATTRACTOR_OPENAI_API (chat | responses; default chat,
 * the API OpenAI-compatible local servers speak), ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL.
 */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): LlmSettings {
  const api = (env.ATTRACTOR_OPENAI_API ?? 'chat').trim().toLowerCase();
  if (api !== 'chat' && api !== 'responses') throw new Error(`ATTRACTOR_OPENAI_API must be "chat" or "responses" (got "${env.ATTRACTOR_OPENAI_API}")`);
  const nonEmpty = (value: string | undefined): string | undefined => (value && value.trim() !== '' ? value.trim() : undefined);
  return {
    openai: { apiKey: nonEmpty(env.OPENAI_API_KEY), baseUrl: nonEmpty(env.OPENAI_BASE_URL), api },
    anthropic: { apiKey: nonEmpty(env.ANTHROPIC_API_KEY), baseUrl: nonEmpty(env.ANTHROPIC_BASE_URL) },
  };
}

export interface ResolvedModel {
  readonly provider: ProviderName;
  readonly model: string;
  readonly reasoningEffort?: ReasoningEffort;
}

export type ModelResolution = { readonly ok: true; readonly value: ResolvedModel } | { readonly ok: false; readonly provider: string; readonly message: string };

const efforts: readonly string[] = ['low', 'medium', 'high'];

/** The provider and model a node runs on, or why the run cannot serve it. Nothing is substituted. */
export function resolveModel(nodeId: string, selection: ModelSelection, settings: LlmSettings): ModelResolution {
  const model = selection.model?.trim();
  const declared = selection.provider?.trim().toLowerCase();
  if (!model) {
    return {
      ok: false,
      provider: declared || 'none',
      message: `node '${nodeId}' has no model: set llm_model on the node (or the graph), or assign one in model_stylesheet, e.g. * { llm_model: claude-sonnet-4-5; }`,
    };
  }
  const provider = declared || inferProvider(model);
  if (!provider) {
    return { ok: false, provider: 'unknown', message: `node '${nodeId}': cannot tell the provider of model '${model}'; set llm_provider (${providerNames.join(' or ')})` };
  }
  if (!isProviderName(provider)) {
    return { ok: false, provider, message: `node '${nodeId}': unknown llm_provider '${provider}'; this build serves ${providerNames.join(' and ')}` };
  }
  if (!settings[provider].apiKey) {
    return { ok: false, provider, message: `node '${nodeId}' needs provider '${provider}' but ${credentialVariables[provider]} is not set` };
  }
  const effort = selection.reasoningEffort?.trim().toLowerCase();
  if (effort && !efforts.includes(effort)) {
    return { ok: false, provider, message: `node '${nodeId}': reasoning_effort must be low, medium or high (got '${selection.reasoningEffort}')` };
  }
  return { ok: true, value: { provider, model, ...(effort ? { reasoningEffort: effort as ReasoningEffort } : {}) } };
}
