// Where LLM nodes run inside VS Code: the editor's chat models, the stored API keys, or (auto)
// a key when the node's provider has one and the editor's model otherwise.
import * as vscode from 'vscode';
import type { ModelRouter, RoutedModel } from '../../engine/llm/llm-backend';
import { ProviderError } from '../../engine/runtime/backend';
import type { DefaultModel } from '../../engine/llm/provider-settings';
import type { ExtensionSettings } from '../settings';
import type { ModelConsent } from './model-consent';
import { matchChatModel, vscodeLmSource } from './model-mapping';
import { VscodeLmAdapter } from './vscode-lm-adapter';

/** The editor's models, listed once per run so that the preflight and the nodes see the same list. */
export async function editorModelRouter(settings: Pick<ExtensionSettings, 'llmSource' | 'vscodeModel'>, defaultModel: DefaultModel | undefined, consent: ModelConsent): Promise<ModelRouter | undefined> {
  if (settings.llmSource === 'api-keys') return undefined;
  const models = await vscode.lm.selectChatModels();
  const onEditor = (nodeId: string, selection: Parameters<ModelRouter>[1]): ReturnType<ModelRouter> => {
    const match = matchChatModel(nodeId, selection, models, settings.vscodeModel, defaultModel);
    if (!match.ok) return match;
    const adapter = async (): Promise<VscodeLmAdapter> => {
      if (!(await consent(match.model))) throw new ProviderError(`${vscodeLmSource} (${match.model.name}): not allowed: Attractor may not use models from ${match.model.vendor} (asked before the first request)`, vscodeLmSource, undefined, false);
      return new VscodeLmAdapter(match.model);
    };
    const routed: RoutedModel = { adapter, model: match.model.id, source: vscodeLmSource };
    return { ok: true, value: routed };
  };
  if (settings.llmSource === 'vscode') return (nodeId, selection) => onEditor(nodeId, selection);
  return (nodeId, selection, sdk) => {
    const keyed = sdk(nodeId, selection);
    return keyed.ok ? keyed : onEditor(nodeId, selection);
  };
}
