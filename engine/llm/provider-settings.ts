import type { ModelSelection } from '../runtime/backend';
import { defaultRetryPolicy } from '../runtime/retry-policy';
import { inferProvider } from './model-catalog';
import type { ProviderName, ReasoningEffort } from './types';
import { isProviderName, providerNames } from './types';

type OpenAiApi = 'chat' | 'responses';

interface ProviderAccess {
  /** Never printed or logged. */
  readonly apiKey?: string;
  /** OpenAI: including `/v1`; Anthropic and Gemini: without a version (SDK conventions). */
  readonly baseUrl?: string;
}

/** The model of an LLM node that names none, neither itself nor through the stylesheet or graph. */
export interface DefaultModel {
  readonly model: string;
  /** Inferred from the model's name when absent. */
  readonly provider?: ProviderName;
}

/** Everything the LLM backend needs from the environment; injectable (VS Code passes SecretStorage keys). */
export interface LlmSettings {
  readonly openai: ProviderAccess & { readonly api: OpenAiApi };
  readonly anthropic: ProviderAccess;
  readonly gemini: ProviderAccess;
  readonly defaultModel?: DefaultModel;
  /** The wait before a model call's first retry (`ATTRACTOR_LLM_RETRY_DELAY_MS`), doubled for each further one; the default policy's when absent. */
  readonly retryDelayMs?: number;
}

/** How messages name each provider's key. */
export const credentialVariables: Readonly<Record<ProviderName, string>> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', gemini: 'GEMINI_API_KEY (or GOOGLE_API_KEY)' };

/** Every variable a key is read from: tools and hooks run without them. */
export const keyVariables: readonly string[] = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY'];

/**
 * Reads OPENAI_API_KEY, OPENAI_BASE_URL, ATTRACTOR_OPENAI_API (chat | responses; default chat,
 * the API OpenAI-compatible local servers speak), ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
 * GOOGLE_API_KEY or GEMINI_API_KEY (GOOGLE_API_KEY wins when both are set, as in Google's SDK),
 * GEMINI_BASE_URL (else the SDK's own GOOGLE_GEMINI_BASE_URL, read here so that doctor shows it),
 * the default model ATTRACTOR_DEFAULT_MODEL with ATTRACTOR_DEFAULT_PROVIDER, and
 * ATTRACTOR_LLM_RETRY_DELAY_MS (the first backoff of a model call's retries).
 */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): LlmSettings {
  const api = (env.ATTRACTOR_OPENAI_API ?? 'chat').trim().toLowerCase();
  if (api !== 'chat' && api !== 'responses') throw new Error(`ATTRACTOR_OPENAI_API must be "chat" or "responses" (got "${env.ATTRACTOR_OPENAI_API}")`);
  const defaultModel = defaultModelFromEnv(env);
  const retryDelayMs = retryDelayFromEnv(env);
  return {
    openai: { apiKey: nonEmpty(env.OPENAI_API_KEY), baseUrl: nonEmpty(env.OPENAI_BASE_URL), api },
    anthropic: { apiKey: nonEmpty(env.ANTHROPIC_API_KEY), baseUrl: nonEmpty(env.ANTHROPIC_BASE_URL) },
    gemini: { apiKey: nonEmpty(env.GOOGLE_API_KEY) ?? nonEmpty(env.GEMINI_API_KEY), baseUrl: nonEmpty(env.GEMINI_BASE_URL) ?? nonEmpty(env.GOOGLE_GEMINI_BASE_URL) },
    ...(defaultModel ? { defaultModel } : {}),
    ...(retryDelayMs === undefined ? {} : { retryDelayMs }),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() !== '' ? value.trim() : undefined;
}

/** No ATTRACTOR_DEFAULT_MODEL means no default, whatever ATTRACTOR_DEFAULT_PROVIDER says. */
function defaultModelFromEnv(env: NodeJS.ProcessEnv): DefaultModel | undefined {
  const model = nonEmpty(env.ATTRACTOR_DEFAULT_MODEL);
  if (!model) return undefined;
  const provider = nonEmpty(env.ATTRACTOR_DEFAULT_PROVIDER)?.toLowerCase();
  if (provider === undefined) return { model };
  if (!isProviderName(provider)) throw new Error(`ATTRACTOR_DEFAULT_PROVIDER must be ${providerNames.join(' or ')} (got "${env.ATTRACTOR_DEFAULT_PROVIDER}")`);
  return { model, provider };
}

const maxRetryDelayMs = defaultRetryPolicy.backoff.maxDelayMs;

/** A local server that restarts in a moment wants shorter waits than the default 1 s, 2 s, 4 s; a busy provider longer (capped by the policy's 30 s). */
function retryDelayFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const given = nonEmpty(env.ATTRACTOR_LLM_RETRY_DELAY_MS);
  if (given === undefined) return undefined;
  if (!/^\d+$/.test(given) || Number(given) > maxRetryDelayMs) throw new Error(`ATTRACTOR_LLM_RETRY_DELAY_MS must be a whole number of milliseconds from 0 to ${maxRetryDelayMs}, got "${env.ATTRACTOR_LLM_RETRY_DELAY_MS}"`);
  return Number(given);
}

interface ResolvedModel {
  readonly provider: ProviderName;
  readonly model: string;
  readonly reasoningEffort?: ReasoningEffort;
}

export type ModelResolution = { readonly ok: true; readonly value: ResolvedModel } | { readonly ok: false; readonly provider: string; readonly message: string };

const efforts: readonly string[] = ['low', 'medium', 'high'];

/**
 * The provider and model a node runs on, or why the run cannot serve it. A node without a model
 * takes the run's default model, unless it asks for another provider; nothing else is substituted.
 */
export function resolveModel(nodeId: string, selection: ModelSelection, settings: LlmSettings): ModelResolution {
  const own = selection.model?.trim();
  const declared = selection.provider?.trim().toLowerCase();
  const fallback = own ? undefined : settings.defaultModel;
  const model = own || fallback?.model;
  if (!model) {
    return {
      ok: false,
      provider: declared || 'none',
      message: `node '${nodeId}' has no model: set llm_model on the node (or the graph), assign one in model_stylesheet (e.g. * { llm_model: claude-sonnet-4-5; }), or give the run a default model`,
    };
  }
  const fallbackProvider = fallback ? (fallback.provider ?? inferProvider(fallback.model)) : undefined;
  if (fallback && declared && fallbackProvider !== declared) {
    return {
      ok: false,
      provider: declared,
      message: `node '${nodeId}' asks for provider '${declared}' but has no model, and the default model '${fallback.model}' is ${fallbackProvider ? `for '${fallbackProvider}'` : 'of no known provider'}: set llm_model on the node`,
    };
  }
  const provider = declared || fallbackProvider || inferProvider(model);
  if (!provider) {
    return { ok: false, provider: 'unknown', message: `node '${nodeId}': cannot tell the provider of model '${model}'; set ${fallback ? 'the default provider' : 'llm_provider'} (${providerNames.join(' or ')})` };
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
