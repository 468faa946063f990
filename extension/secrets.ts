// API keys live only in SecretStorage; the LLM backend gets them as settings, never the environment.
import * as vscode from 'vscode';
import type { BackendFactory } from '../host/backends';
import { LlmBackend, type LlmSettings } from '../engine';
import { SECRET_LLM_BACKEND } from './debug-configuration';
import type { ModelConsent } from './lm/model-consent';
import { editorModelRouter } from './lm/model-source';
import { extensionLlmSettings } from './llm-settings';
import type { ExtensionSettings } from './settings';

const providers = [
  { id: 'openai', label: 'OpenAI' },
  { id: 'anthropic', label: 'Anthropic' },
  { id: 'gemini', label: 'Google Gemini' },
] as const;
type Provider = (typeof providers)[number]['id'];

const secretKey = (provider: Provider): string => `attractor.apiKey.${provider}`;

export async function setApiKeyCommand(secrets: vscode.SecretStorage): Promise<void> {
  const picked = await vscode.window.showQuickPick(
    providers.map((provider) => ({ label: provider.label, id: provider.id })),
    { title: 'Attractor: Set API key', placeHolder: 'Which provider?' },
  );
  if (!picked) return;
  const key = await vscode.window.showInputBox({ title: `${picked.label} API key`, password: true, ignoreFocusOut: true, prompt: 'Stored in VS Code SecretStorage; leave empty to remove it.' });
  if (key === undefined) return;
  if (key.trim() === '') {
    await secrets.delete(secretKey(picked.id));
    void vscode.window.showInformationMessage(`Attractor: removed the ${picked.label} API key.`);
  } else {
    await secrets.store(secretKey(picked.id), key.trim());
    void vscode.window.showInformationMessage(`Attractor: stored the ${picked.label} API key.`);
  }
}

/** The LLM settings with the keys stored in SecretStorage (see extensionLlmSettings). */
async function llmSettingsFromSecrets(secrets: vscode.SecretStorage, settings: ExtensionSettings): Promise<LlmSettings> {
  const stored = await Promise.all(providers.map(async ({ id }) => [id, await secrets.get(secretKey(id))] as const));
  return extensionLlmSettings(process.env, Object.fromEntries(stored.filter(([, key]) => key)), settings);
}

/** What LLM nodes may use: the keys in SecretStorage, and VS Code's chat models once the person allows them. */
export interface LlmAccess {
  readonly secrets: vscode.SecretStorage;
  readonly consent: ModelConsent;
}

/** The backend of `llm` runs: SecretStorage keys and VS Code's chat models, per `attractor.llm.source`. */
export async function llmBackend(access: LlmAccess, settings: ExtensionSettings): Promise<LlmBackend> {
  const llm = await llmSettingsFromSecrets(access.secrets, settings);
  const router = await editorModelRouter(settings, llm.defaultModel, access.consent);
  return new LlmBackend({ settings: llm, ...(router ? { router } : {}) });
}

/** Serves the backend name the configuration resolver gives `llm` runs; any other name is unknown. */
export async function llmBackendFactory(access: LlmAccess, settings: ExtensionSettings): Promise<BackendFactory> {
  const backend = await llmBackend(access, settings);
  return (name) => {
    if (name !== SECRET_LLM_BACKEND) throw new Error(`unknown backend "${name}": use "llm" or "scripted"`);
    return backend;
  };
}
