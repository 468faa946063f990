import type { ProviderName, TokenUsage } from './types';

/** USD per million tokens. Cache reads bill at `cachedInput`, cache writes at `cacheWrite` (both default to `input`). */
interface Rates {
  readonly input: number;
  readonly output: number;
  readonly cachedInput?: number;
  readonly cacheWrite?: number;
}

/** Gemini Pro bills a whole call at higher rates once its prompt exceeds a size. */
interface Price extends Rates {
  readonly longPrompt?: Rates & { readonly aboveInputTokens: number };
}

// Published list prices; a model missing here costs 'unknown', never an estimate.
const prices: Readonly<Record<string, Price>> = {
  'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gpt-5': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cachedInput: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cachedInput: 0.005 },
  o3: { input: 2, output: 8, cachedInput: 0.5 },
  'o3-mini': { input: 1.1, output: 4.4, cachedInput: 0.55 },
  'o4-mini': { input: 1.1, output: 4.4, cachedInput: 0.275 },
  'claude-opus-4-6': { input: 5, output: 25, cachedInput: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-5': { input: 5, output: 25, cachedInput: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-1': { input: 15, output: 75, cachedInput: 1.5, cacheWrite: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cachedInput: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4-6': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cachedInput: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cachedInput: 0.08, cacheWrite: 1 },
  'gemini-3-pro-preview': { input: 2, output: 12, cachedInput: 0.2, longPrompt: { aboveInputTokens: 200_000, input: 4, output: 18, cachedInput: 0.4 } },
  'gemini-3-flash-preview': { input: 0.5, output: 3, cachedInput: 0.05 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cachedInput: 0.125, longPrompt: { aboveInputTokens: 200_000, input: 2.5, output: 15, cachedInput: 0.25 } },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cachedInput: 0.03 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cachedInput: 0.01 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gemini-2.0-flash-lite': { input: 0.075, output: 0.3 },
};

/** `claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06` and `gemini-2.0-flash-001` are priced as their family. */
function withoutSnapshotDate(model: string): string {
  return model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|\d{3})$/, '');
}

/** 'unknown' when the model has no price or the server reported no usage: never a guessed $0. */
export function costUsd(model: string, usage: TokenUsage | undefined): number | 'unknown' {
  const listed = prices[model] ?? prices[withoutSnapshotDate(model)];
  if (!listed || !usage) return 'unknown';
  const price = listed.longPrompt && usage.inputTokens > listed.longPrompt.aboveInputTokens ? listed.longPrompt : listed;
  const read = usage.cacheReadTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - read - written);
  const total = uncached * price.input + read * (price.cachedInput ?? price.input) + written * (price.cacheWrite ?? price.input) + usage.outputTokens * price.output;
  return total / 1_000_000;
}

/** The provider a bare model name belongs to, when its family is unmistakable. */
export function inferProvider(model: string): ProviderName | undefined {
  if (/^claude-/.test(model)) return 'anthropic';
  if (/^(gpt-|o\d|chatgpt-|codex-)/.test(model)) return 'openai';
  if (/^gemini-/.test(model)) return 'gemini';
  return undefined;
}

/**
 * Whether the model accepts a reasoning-effort parameter; others would reject it (400), so it is
 * omitted for them rather than sent on a hunch.
 */
export function acceptsReasoningEffort(provider: ProviderName, model: string): boolean {
  if (provider === 'openai') return /^(o\d|gpt-5)/.test(model);
  if (provider === 'gemini') return /^gemini-(2\.5|3)/.test(model);
  return /^claude-(opus-4-[5-9]|sonnet-4-6)/.test(model);
}
