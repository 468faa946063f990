import type { FailureKind, Outcome } from '../engine/runtime/outcome';
import type { ExceptionFilterId } from '../host/protocol/debug';

export interface ExceptionHit {
  readonly filter: ExceptionFilterId;
  readonly description: string;
}

/**
 * The filters a jump or a run's end trips, by the contract its failure broke. A node's own failure
 * (must_write included) is reported when the node finishes, not again where the walk goes next.
 */
const walkFilters: Partial<Readonly<Record<FailureKind, ExceptionFilterId>>> = {
  goal_gate_unsatisfied: 'goal_gate_unsatisfied',
  no_matching_edge: 'no_matching_edge',
};

/** Which filter a finished node's outcome trips, most specific first. */
export function classifyOutcome(nodeId: string, outcome: Outcome, enabled: ReadonlySet<ExceptionFilterId>): ExceptionHit | undefined {
  const reason = outcome.failureReason ?? '';
  if (enabled.has('must_write_violated') && outcome.failureKind === 'must_write_violated') return { filter: 'must_write_violated', description: `${nodeId}: ${reason}` };
  const exhausted = (outcome.attemptCount ?? 1) > 1 && outcome.status !== 'success';
  if (enabled.has('retries_exhausted') && exhausted) return { filter: 'retries_exhausted', description: `${nodeId} used ${outcome.attemptCount} attempts and ended ${outcome.status}${reason ? `: ${reason}` : ''}` };
  if (enabled.has('node_failed') && outcome.status === 'fail') return { filter: 'node_failed', description: `${nodeId} failed${reason ? `: ${reason}` : ''}` };
  return undefined;
}

/** A walk's jump (goal gates jump to their retry_target) or a failed run's end. */
export function classifyFailure(failure: { readonly failureKind?: FailureKind; readonly reason: string }, enabled: ReadonlySet<ExceptionFilterId>): ExceptionHit | undefined {
  const filter = failure.failureKind && walkFilters[failure.failureKind];
  return filter && enabled.has(filter) ? { filter, description: failure.reason } : undefined;
}
