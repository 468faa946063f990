import type { StageStatus } from '../model/stage-status';
import { isStageStatus } from '../model/stage-status';

/** One entry of `parallel.results`: plain JSON, so it checkpoints and reaches conditions as text. */
export interface ParallelResult {
  /** The branch's start node. */
  readonly id: string;
  readonly status: StageStatus;
  readonly notes: string;
  readonly failure_reason: string | null;
  readonly preferred_label: string;
  /** The branch's numeric `score` context value, when it set one (the fan-in ranks by it). */
  readonly score?: number;
  /** The context keys the branch added or changed, with their values. */
  readonly context: Readonly<Record<string, unknown>>;
  /** Set when the join was decided before this branch finished (or started): not a candidate. */
  readonly cancelled?: true;
}

export const PARALLEL_RESULTS_KEY = 'parallel.results';

/** Reads `parallel.results` back from the context, refusing anything that is not our shape. */
export function readParallelResults(value: unknown): { ok: true; results: ParallelResult[] } | { ok: false; error: string } {
  if (value === undefined || value === null) return { ok: false, error: 'no parallel results to evaluate: parallel.results is not set (does a fan-out lead here?)' };
  if (!Array.isArray(value)) return { ok: false, error: 'parallel.results is not a list' };
  const results: ParallelResult[] = [];
  for (const [index, entry] of value.entries()) {
    if (typeof entry !== 'object' || entry === null) return { ok: false, error: `parallel.results[${index}] is not an object` };
    const record = entry as Record<string, unknown>;
    if (typeof record.id !== 'string' || !isStageStatus(record.status)) return { ok: false, error: `parallel.results[${index}] lacks a string id or a stage status` };
    results.push({
      id: record.id,
      status: record.status,
      notes: typeof record.notes === 'string' ? record.notes : '',
      failure_reason: typeof record.failure_reason === 'string' ? record.failure_reason : null,
      preferred_label: typeof record.preferred_label === 'string' ? record.preferred_label : '',
      ...(typeof record.score === 'number' && Number.isFinite(record.score) ? { score: record.score } : {}),
      context: typeof record.context === 'object' && record.context !== null ? (record.context as Record<string, unknown>) : {},
      ...(record.cancelled === true ? { cancelled: true as const } : {}),
    });
  }
  return { ok: true, results };
}

// Keys every node rewrites: they describe the branch's last step, which the entry already carries.
const BOOKKEEPING_KEYS = new Set(['current_node', 'outcome', 'preferred_label']);
// The engine's own counters (`internal.retry_count.<node>`, canonical §5.1) are not the branch's work.
const ENGINE_PREFIX = 'internal.';

/** The keys a branch added or changed relative to the context it was cloned from. */
export function contextChanges(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(after)) {
    if (BOOKKEEPING_KEYS.has(key) || key.startsWith(ENGINE_PREFIX)) continue;
    if (!(key in before) || JSON.stringify(before[key]) !== JSON.stringify(value)) changes[key] = value;
  }
  return changes;
}

/** A branch's score: its `score` context change, when it is a finite number (or numeric text). */
export function scoreOf(changes: Readonly<Record<string, unknown>>): number | undefined {
  const value = changes.score;
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(number) ? number : undefined;
}
