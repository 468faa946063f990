// The LLM backend's settings inside VS Code. Pure (no `vscode` import): secrets.ts feeds it.
import { settingsFromEnv, type LlmSettings } from '../engine';
import { keyVariables } from '../engine/llm/provider-settings';
import type { ProviderName } from '../engine/llm/types';
import type { ExtensionSettings } from './settings';

export type StoredKeys = Partial<Record<ProviderName, string>>;

/**
 * Keys only from SecretStorage (the environment's *_API_KEY are ignored); base URLs and the OpenAI
 * API flavour and the retry delay from the environment; the default model from the settings, else the environment's.
 * Throws on a malformed ATTRACTOR_* variable, as `settingsFromEnv` does.
 */
export function extensionLlmSettings(env: NodeJS.ProcessEnv, keys: StoredKeys, settings: Pick<ExtensionSettings, 'defaultModel' | 'defaultProvider'>): LlmSettings {
  const fromEnv = settingsFromEnv({ ...env, ...Object.fromEntries(keyVariables.map((variable) => [variable, undefined])) });
  const defaultModel = settings.defaultModel ? { model: settings.defaultModel, ...(settings.defaultProvider ? { provider: settings.defaultProvider } : {}) } : fromEnv.defaultModel;
  return {
    openai: { ...fromEnv.openai, ...(keys.openai ? { apiKey: keys.openai } : {}) },
    anthropic: { ...fromEnv.anthropic, ...(keys.anthropic ? { apiKey: keys.anthropic } : {}) },
    gemini: { ...fromEnv.gemini, ...(keys.gemini ? { apiKey: keys.gemini } : {}) },
    ...(defaultModel ? { defaultModel } : {}),
    ...(fromEnv.retryDelayMs === undefined ? {} : { retryDelayMs: fromEnv.retryDelayMs }),
  };
}
