// The extension's settings, read through a getter so this module never imports `vscode`.
import { DEFAULT_MAX_PARALLEL, isMaxParallel } from '../engine/runtime/join-policy';
import { isProviderName, type ProviderName } from '../engine/llm/types';
import { layoutEngines, type LayoutEngine } from '../host/protocol/webview';
import { sandboxSettings, type SandboxSetting } from '../engine/model/sandbox-setting';

const backendKinds = ['demo', 'llm'] as const;
type BackendKind = (typeof backendKinds)[number];
const llmSources = ['auto', 'vscode', 'api-keys'] as const;
type LlmSource = (typeof llmSources)[number];
const languageDetectionModes = ['auto', 'off'] as const;
type LanguageDetection = (typeof languageDetectionModes)[number];

export interface ExtensionSettings {
  /** `demo`: the scripted backend with `<name>.scripted.json` beside the pipeline; `llm`: real providers. */
  readonly backend: BackendKind;
  /** Where run directories go, relative to the workspace folder unless absolute. */
  readonly runDirectory: string;
  readonly layoutEngine: LayoutEngine;
  readonly languageDetection: LanguageDetection;
  /** Model of LLM nodes that name none; empty: none (such nodes stop the launch). */
  readonly defaultModel: string;
  /** Provider of `defaultModel`; absent: inferred from its name. */
  readonly defaultProvider?: ProviderName;
  /** max_parallel of fan-outs that set none. */
  readonly maxParallel: number;
  /** How a run's commands are confined; `auto` unless the person chose. */
  readonly sandbox: SandboxSetting;
  /** Where LLM nodes run: VS Code's chat models, the stored API keys, or a key when the node's provider has one, else VS Code's model. */
  readonly llmSource: LlmSource;
  /** The VS Code chat model (id, family or name) of nodes whose model is no Claude, GPT or Gemini model; empty: none. */
  readonly vscodeModel: string;
}

export const defaultSettings: ExtensionSettings = {
  backend: 'demo',
  runDirectory: '.attractor-runs',
  layoutEngine: 'dot',
  languageDetection: 'auto',
  defaultModel: '',
  maxParallel: DEFAULT_MAX_PARALLEL,
  sandbox: 'auto',
  llmSource: 'auto',
  vscodeModel: '',
};

/** `get(key)` returns the raw configured value (or undefined); anything malformed falls back to the default. */
export function readSettings(get: (key: string) => unknown): ExtensionSettings {
  const oneOf = <T extends string>(key: string, allowed: readonly T[], fallback: T): T => {
    const value = get(key);
    return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
  };
  const str = (key: string, fallback: string): string => {
    const value = get(key);
    return typeof value === 'string' ? value.trim() : fallback;
  };
  const maxParallel = get('maxParallel');
  const provider = get('defaultProvider');
  return {
    backend: oneOf('backend', backendKinds, defaultSettings.backend),
    runDirectory: str('runDirectory', defaultSettings.runDirectory) || defaultSettings.runDirectory,
    layoutEngine: oneOf('graph.layoutEngine', layoutEngines, defaultSettings.layoutEngine),
    languageDetection: oneOf('languageDetection', languageDetectionModes, defaultSettings.languageDetection),
    defaultModel: str('defaultModel', defaultSettings.defaultModel),
    ...(typeof provider === 'string' && isProviderName(provider) ? { defaultProvider: provider } : {}),
    maxParallel: isMaxParallel(maxParallel) ? maxParallel : defaultSettings.maxParallel,
    sandbox: oneOf('sandbox', sandboxSettings, defaultSettings.sandbox),
    llmSource: oneOf('llm.source', llmSources, defaultSettings.llmSource),
    vscodeModel: str('llm.vscodeModel', defaultSettings.vscodeModel),
  };
}
