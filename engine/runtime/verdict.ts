import type { CodergenResult, ReportedOutcome } from './backend';
import type { Outcome } from './outcome';
import type { StageStatus } from '../model/stage-status';
import { isRecord } from '../model/json';

/**
 * The verdict recovery ladder (bundle README "report_outcome contract", ledger §25):
 * report_outcome → structured output → fenced JSON → pure JSON → embedded JSON verdict → prose
 * (SUCCESS on ordinary nodes, RETRY on goal gates) → empty (FAIL). `isExplicit` is true only for
 * an asserted verdict.
 */
export function outcomeFromResult(result: CodergenResult, goalGate: boolean): Outcome {
  const text = result.responseText;
  const responseText = text ? { responseText: text } : {};
  const session = result.sessionId ? { sessionId: result.sessionId } : {};
  // An agent cut off by a limit never finished: whatever it said last is not its answer.
  if (result.limitReached) return { status: 'fail', isExplicit: false, failureReason: result.limitReached, ...responseText, ...session };

  if (result.reportedOutcome) {
    const reported = verdictFrom(result.reportedOutcome);
    if (reported) return { ...reported, ...responseText, ...session };
  }
  if (result.structuredOutput !== undefined) {
    const verdict = isRecord(result.structuredOutput) ? verdictFrom(result.structuredOutput) : undefined;
    if (verdict) return { ...verdict, ...responseText, ...session };
    // Format is not a verdict: ordinary schema nodes succeed, a goal gate cannot be satisfied by it.
    return { status: 'success', isExplicit: false, notes: 'structured output without a verdict', ...responseText, ...session };
  }

  const trimmed = text.trim();
  if (!trimmed) return { status: 'fail', isExplicit: false, failureReason: 'the agent returned an empty response', statusMissing: true, ...session };

  const recovered = recoverJsonVerdict(trimmed);
  if (recovered) return { ...recovered, ...responseText, ...session };

  if (goalGate) {
    return {
      status: 'retry',
      isExplicit: false,
      failureReason: 'goal gate answered in prose: it needs an explicit verdict (report_outcome or a JSON {"status": ...})',
      notes: snippet(trimmed),
      ...responseText,
      ...session,
    };
  }
  return { status: 'success', isExplicit: false, notes: snippet(trimmed), ...responseText, ...session };
}

function recoverJsonVerdict(text: string): Outcome | undefined {
  const fenced = [...text.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  for (const block of fenced.reverse()) {
    const verdict = parseVerdict(block);
    if (verdict) return verdict;
  }
  if (text.startsWith('{')) {
    const verdict = parseVerdict(text);
    if (verdict) return verdict;
  }
  for (const candidate of balancedObjects(text).reverse()) {
    const verdict = parseVerdict(candidate);
    if (verdict) return verdict;
  }
  return undefined;
}

function parseVerdict(json: string): Outcome | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return isRecord(value) ? verdictFrom(value) : undefined;
  } catch {
    return undefined;
  }
}

const statusAliases: Record<string, StageStatus> = {
  success: 'success',
  succeeded: 'success',
  pass: 'success',
  partial_success: 'partial_success',
  partial: 'partial_success',
  retry: 'retry',
  fail: 'fail',
  failure: 'fail',
  failed: 'fail',
  skipped: 'skipped',
};

function normalizeStatus(value: unknown): StageStatus | undefined {
  return typeof value === 'string' ? statusAliases[value.trim().toLowerCase()] : undefined;
}

function verdictFrom(data: Readonly<Record<string, unknown>> | ReportedOutcome): Outcome | undefined {
  const record = data as Readonly<Record<string, unknown>>;
  const status = normalizeStatus(record.status);
  if (!status) return undefined;
  const updates = isRecord(record.context_updates) ? record.context_updates : undefined;
  const suggested = Array.isArray(record.suggested_next_ids) ? (record.suggested_next_ids as unknown[]) : undefined;
  return {
    status,
    isExplicit: true,
    ...(typeof record.preferred_label === 'string' && record.preferred_label ? { preferredLabel: record.preferred_label } : {}),
    ...(suggested ? { suggestedNextIds: suggested as string[] } : {}),
    ...(updates ? { contextUpdates: updates } : {}),
    ...(typeof record.notes === 'string' ? { notes: record.notes } : {}),
    ...(typeof record.failure_reason === 'string' && record.failure_reason ? { failureReason: record.failure_reason } : {}),
  };
}

/** Every top-level balanced `{...}` in the text, in order (strings respected). */
function balancedObjects(text: string): string[] {
  const found: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' && depth > 0) {
      depth--;
      if (depth === 0) found.push(text.slice(start, i + 1));
    }
  }
  return found;
}

function snippet(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
