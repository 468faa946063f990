import type { CodergenResult } from './backend';
import type { StageStatus } from '../model/stage-status';
import type { ParallelResult } from './parallel-results';

const STATUS_RANK: Readonly<Record<StageStatus, number>> = { success: 0, partial_success: 1, retry: 2, fail: 3, skipped: 4 };

/** Canonical §4.9 heuristic: by status rank, then by score (highest first, none counts as 0), then by id. */
export function rankHeuristically(candidates: readonly ParallelResult[]): ParallelResult[] {
  return [...candidates].sort((a, b) => STATUS_RANK[a.status] - STATUS_RANK[b.status] || (b.score ?? 0) - (a.score ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const CONTEXT_CHARS = 2000;

/** The question put to the model: the node's prompt, then every candidate, then the answer contract. */
export function rankingPrompt(instruction: string, candidates: readonly ParallelResult[]): string {
  const blocks = candidates.map((c) => {
    const lines = [`### ${c.id}`, `status: ${c.status}`];
    if (c.score !== undefined) lines.push(`score: ${c.score}`);
    if (c.preferred_label) lines.push(`preferred_label: ${c.preferred_label}`);
    if (c.notes) lines.push(`notes: ${c.notes}`);
    if (c.failure_reason) lines.push(`failure_reason: ${c.failure_reason}`);
    const context = JSON.stringify(c.context);
    if (context !== '{}') lines.push(`context: ${context.length > CONTEXT_CHARS ? `${context.slice(0, CONTEXT_CHARS)}… [truncated]` : context}`);
    return lines.join('\n');
  });
  return [
    instruction,
    '',
    '## Candidates',
    '',
    blocks.join('\n\n'),
    '',
    '## Answer',
    `Reply with the id of the best candidate (one of: ${candidates.map((c) => c.id).join(', ')}) alone on the first line, or as {"best_id": "<id>"}.`,
  ].join('\n');
}

/**
 * The candidate the model named, by the contract in rankingPrompt: a report_outcome
 * preferred_label, `{"best_id": …}`, the first line, or the only candidate id the text mentions.
 * Undefined when the answer names none (or several, ambiguously).
 */
export function candidateNamed(result: CodergenResult, ids: readonly string[]): string | undefined {
  const exact = (text: unknown) => (typeof text === 'string' ? ids.find((id) => id === text.trim().replace(/^[`'"*\s]+|[`'"*.\s]+$/g, '')) : undefined);
  const fromReport = exact(result.reportedOutcome?.preferred_label);
  if (fromReport) return fromReport;
  const text = result.responseText.trim();
  const fromJson = exact(bestIdField(text) ?? bestIdField(result.structuredOutput));
  if (fromJson) return fromJson;
  const fromFirstLine = exact(text.split('\n').find((line) => line.trim() !== ''));
  if (fromFirstLine) return fromFirstLine;
  const mentioned = ids.filter((id) => new RegExp(`(^|[^A-Za-z0-9_.-])${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9_-])`).test(text));
  return mentioned.length === 1 ? mentioned[0] : undefined;
}

function bestIdField(value: unknown): unknown {
  let data = value;
  if (typeof value === 'string') {
    const body = value.replace(/^```(?:json)?\s*|\s*```$/g, '');
    if (!body.startsWith('{')) return undefined;
    try {
      data = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  return typeof data === 'object' && data !== null ? (data as { best_id?: unknown }).best_id : undefined;
}
