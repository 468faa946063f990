import type { Outcome } from '../engine/runtime/outcome';
import type { ExceptionFilterId } from './protocol';

export interface ExceptionHit {
  readonly filter: ExceptionFilterId;
  readonly description: string;
}

// The engine's own failure messages name the contract that failed; the debugger only reads them.
const MUST_WRITE = 'must_write violated';
const NO_MATCHING_EDGE = 'no matching edge';
const GOAL_GATE = /goal gate \S+ is unsatisfied/;

/** Which filter a finished node's outcome trips, most specific first. */
export function classifyOutcome(nodeId: string, outcome: Outcome, enabled: ReadonlySet<ExceptionFilterId>): ExceptionHit | undefined {
  const reason = outcome.failureReason ?? '';
  if (enabled.has('must_write_violated') && reason.includes(MUST_WRITE)) return { filter: 'must_write_violated', description: `${nodeId}: ${reason}` };
  const exhausted = (outcome.attemptCount ?? 1) > 1 && outcome.status !== 'success';
  if (enabled.has('retries_exhausted') && exhausted) return { filter: 'retries_exhausted', description: `${nodeId} used ${outcome.attemptCount} attempts and ended ${outcome.status}${reason ? `: ${reason}` : ''}` };
  if (enabled.has('node_failed') && outcome.status === 'fail') return { filter: 'node_failed', description: `${nodeId} failed${reason ? `: ${reason}` : ''}` };
  return undefined;
}

/** A walk's jump (goal gates jump to their retry_target). */
export function classifyJump(reason: string, enabled: ReadonlySet<ExceptionFilterId>): ExceptionHit | undefined {
  if (enabled.has('goal_gate_unsatisfied') && GOAL_GATE.test(reason)) return { filter: 'goal_gate_unsatisfied', description: reason };
  return undefined;
}

/** How a failed run ended. */
export function classifyRunFailure(failureReason: string, enabled: ReadonlySet<ExceptionFilterId>): ExceptionHit | undefined {
  if (enabled.has('no_matching_edge') && failureReason.startsWith(NO_MATCHING_EDGE)) return { filter: 'no_matching_edge', description: failureReason };
  if (enabled.has('goal_gate_unsatisfied') && GOAL_GATE.test(failureReason)) return { filter: 'goal_gate_unsatisfied', description: failureReason };
  return undefined;
}
