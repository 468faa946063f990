import type { ProviderName, TokenUsage } from './types';

/** USD per million tokens. Cache reads bill at `cachedInput`, cache writes at `cacheWrite` (both default to `input`). */
interface Price {
  readonly input: number;
  readonly output: number;
  readonly cachedInput?: number;
  readonly cacheWrite?: number;
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
};

/** `claude-sonnet-4-5-20250929` and `gpt-4o-2024-08-06` are priced as their family. */
function withoutSnapshotDate(model: string): string {
  return model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '');
}

/** 'unknown' when the model has no price or the server reported no usage: never a guessed $0. */
export function costUsd(model: string, usage: TokenUsage | undefined): number | 'unknown' {
  const price = prices[model] ?? prices[withoutSnapshotDate(model)];
  if (!price || !usage) return 'unknown';
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
  return undefined;
}

/**
 * Whether the model accepts a reasoning-effort parameter; others would reject it (400), so it is
 * omitted for them rather than sent on a hunch.
 */
export function acceptsReasoningEffort(provider: ProviderName, model: string): boolean {
  if (provider === 'openai') return /^(o\d|gpt-5)/.test(model);
  return /^claude-(opus-4-[5-9]|sonnet-4-6)/.test(model);
}
