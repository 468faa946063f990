import type { Usage } from './backend';

/** A count nobody reported stays unknown through every sum: it is never booked as 0 or $0. */
type Amount = number | 'unknown';

export const noUsage: Usage = { inputTokens: 0, outputTokens: 0, costUsd: 0, requests: 0 };

function addAmounts(a: Amount, b: Amount): Amount {
  return a === 'unknown' || b === 'unknown' ? 'unknown' : a + b;
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: addAmounts(a.inputTokens, b.inputTokens),
    outputTokens: addAmounts(a.outputTokens, b.outputTokens),
    costUsd: addAmounts(a.costUsd, b.costUsd),
    requests: a.requests + b.requests,
  };
}

/** The usage fields of a trace.jsonl record (present on visits that called a model). */
export interface UsageFields {
  readonly input_tokens: Amount;
  readonly output_tokens: Amount;
  readonly cost_usd: Amount;
  /** Provider requests, retried ones included. */
  readonly llm_requests: number;
}

export function usageFields(usage: Usage): UsageFields {
  return { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, cost_usd: usage.costUsd, llm_requests: usage.requests };
}

/** The run's total over its visit records: what the manifest, `attractor trace` and both views show. */
export interface RunUsageTotal extends UsageFields {
  /** Node attempts over all visits (the retry ladder's, not the provider client's). */
  readonly attempts: number;
}

export function runUsageTotal(records: readonly (Partial<UsageFields> & { readonly attempt?: number })[]): RunUsageTotal {
  let total: Usage = noUsage;
  let attempts = 0;
  for (const record of records) {
    attempts += record.attempt ?? 1;
    if (record.llm_requests === undefined) continue;
    total = addUsage(total, { inputTokens: record.input_tokens ?? 'unknown', outputTokens: record.output_tokens ?? 'unknown', costUsd: record.cost_usd ?? 'unknown', requests: record.llm_requests });
  }
  return { ...usageFields(total), attempts };
}

function amountText(amount: Amount, format: (n: number) => string): string {
  return amount === 'unknown' ? 'unknown' : format(amount);
}

/** One line: "1,234 in / 567 out tokens, $0.0123, 3 requests, 4 attempts". */
export function formatRunUsage(total: RunUsageTotal): string {
  const tokens = (n: number): string => n.toLocaleString('en-US');
  return `${amountText(total.input_tokens, tokens)} in / ${amountText(total.output_tokens, tokens)} out tokens, cost ${amountText(total.cost_usd, (n) => `$${n.toFixed(4)}`)}, ${total.llm_requests} model request(s), ${total.attempts} attempt(s)`;
}
