import type { Usage } from './backend';
/** Canonical §5.2 stage statuses, lower case as they appear in status.json and conditions. */
export const stageStatuses = ['success', 'partial_success', 'retry', 'fail', 'skipped'] as const;
export type StageStatus = (typeof stageStatuses)[number];

export function isStageStatus(value: unknown): value is StageStatus {
  return typeof value === 'string' && (stageStatuses as readonly string[]).includes(value);
}

export function isSuccessful(status: StageStatus): boolean {
  return status === 'success' || status === 'partial_success';
}

/**
 * The contract a failure broke, typed so that tools react to kinds of failure (the debugger's
 * exception filters) without reading messages, which quote whatever a node or an agent said.
 */
export type FailureKind = 'must_write_violated' | 'goal_gate_unsatisfied' | 'no_matching_edge';

/** The result of running a node (canonical §5.2 plus the ledger's is_explicit and attempt_count). */
export interface Outcome {
  readonly status: StageStatus;
  readonly preferredLabel?: string;
  readonly suggestedNextIds?: readonly string[];
  readonly contextUpdates?: Readonly<Record<string, unknown>>;
  readonly notes?: string;
  readonly failureReason?: string;
  /** Set by the engine when the failure broke one of its contracts; a handler's own failure has none. */
  readonly failureKind?: FailureKind;
  /** True only when the status is an asserted verdict, never a defaulted one (ledger §25). */
  readonly isExplicit: boolean;
  /** 1-indexed attempts the retry ladder consumed; absent when the outcome never entered it. */
  readonly attemptCount?: number;
  /** The full final response of an LLM node, written to response.md (never to context). */
  readonly responseText?: string;
  readonly sessionId?: string;
  /** What the node's model calls consumed; the retry ladder sums it over the node's attempts. */
  readonly usage?: Usage;
  /**
   * Where the walk continues instead of routing over this node's own edges: a fan-out continues
   * at its fan-in once the branches have joined. Set on a FAIL it only says "my edges are not
   * routes": the walk takes the node's retry target or ends.
   */
  readonly continueAt?: string;
}
