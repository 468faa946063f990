// Which of VS Code's chat models serves a node. Pure (no `vscode` import) so that the launch
// preflight and the tests share it.
import { inferProvider } from '../../engine/llm/model-catalog';
import type { DefaultModel, ModelResolution } from '../../engine/llm/provider-settings';
import type { ModelSelection } from '../../engine/runtime/backend';
import type { ProviderName } from '../../engine/llm/types';

/** What `vscode.LanguageModelChat` tells about a model. */
export interface ChatModelInfo {
  readonly id: string;
  readonly vendor: string;
  readonly family: string;
  readonly name: string;
}

export type ChatModelMatch<T extends ChatModelInfo> = { readonly ok: true; readonly model: T } | Extract<ModelResolution, { ok: false }>;

const families: Readonly<Record<ProviderName, { readonly label: string; readonly pattern: RegExp }>> = {
  anthropic: { label: 'Claude', pattern: /claude/i },
  openai: { label: 'GPT', pattern: /gpt|^o\d/i },
  gemini: { label: 'Gemini', pattern: /gemini/i },
};

/** The source name problems and records carry. */
export const vscodeLmSource = 'vscode-lm';

const describe = (model: ChatModelInfo): string => `${model.name} (${model.vendor}/${model.family})`;
const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i]?.toLowerCase() === b[i]?.toLowerCase()) i++;
  return i;
}

/** The model of `family` sharing the longest prefix with the requested name (claude-sonnet-4-5 → claude-sonnet-4.5 over claude-haiku). */
function closest<T extends ChatModelInfo>(requested: string, candidates: readonly T[]): T | undefined {
  const score = (model: T): number => Math.max(commonPrefix(requested, model.id), commonPrefix(requested, model.family));
  return candidates.reduce<T | undefined>((best, model) => (best === undefined || score(model) > score(best) ? model : best), undefined);
}

/**
 * The chat model a node runs on: the model named exactly (id or family); else, for a claude-*,
 * gpt-* / o*, gemini-* model (or a declared llm_provider), the closest model of that family;
 * else the user's choice (`attractor.llm.vscodeModel`: an id, family or name); a node naming no
 * model at all takes the first model VS Code offers. A family with no model is no match: the
 * node is named before anything runs rather than silently served by another vendor's model.
 */
export function matchChatModel<T extends ChatModelInfo>(nodeId: string, selection: ModelSelection, models: readonly T[], choice: string, defaultModel?: DefaultModel): ChatModelMatch<T> {
  const own = selection.model?.trim();
  const requested = own || defaultModel?.model;
  const declared = selection.provider?.trim().toLowerCase() || (own ? undefined : defaultModel?.provider);
  if (models.length === 0) {
    return { ok: false, provider: vscodeLmSource, message: `node '${nodeId}': VS Code offers no chat model (install GitHub Copilot or another language model provider), or store an API key with "Attractor: Set API key"` };
  }
  if (requested) {
    const exact = models.find((model) => same(model.id, requested) || same(model.family, requested));
    if (exact) return { ok: true, model: exact };
    const provider = declared ?? inferProvider(requested);
    const family = provider && provider in families ? families[provider as ProviderName] : undefined;
    if (family) {
      const match = closest(requested, models.filter((model) => family.pattern.test(model.family) || family.pattern.test(model.id)));
      if (match) return { ok: true, model: match };
      return {
        ok: false,
        provider: vscodeLmSource,
        message: `node '${nodeId}' asks for ${requested}, and VS Code offers no ${family.label} model (it offers ${models.map(describe).join(', ')}): set llm_model to one of them, or store an API key with "Attractor: Set API key"`,
      };
    }
  }
  if (choice) {
    const chosen = models.find((model) => same(model.id, choice) || same(model.family, choice) || same(model.name, choice));
    if (chosen) return { ok: true, model: chosen };
    return { ok: false, provider: vscodeLmSource, message: `node '${nodeId}': attractor.llm.vscodeModel is '${choice}', and VS Code offers no such model (it offers ${models.map(describe).join(', ')})` };
  }
  if (!requested) return { ok: true, model: models[0] as T };
  return {
    ok: false,
    provider: vscodeLmSource,
    message: `node '${nodeId}' asks for ${requested}, which is no Claude, GPT or Gemini model VS Code offers: choose one with the setting attractor.llm.vscodeModel (VS Code offers ${models.map(describe).join(', ')})`,
  };
}
