import type { Usage } from './backend';
import type { FailedStep } from './failed-step';
import type { StageStatus } from '../model/stage-status';

/**
 * The contract a failure broke, typed so that tools react to kinds of failure (the debugger's
 * exception filters) without reading messages, which quote whatever a node or an agent said.
 */
export type FailureKind = 'must_write_violated' | 'goal_gate_unsatisfied' | 'no_matching_edge';

/** The result of running a node (canonical §5.2 plus the ledger's is_explicit, attempt_count, failed_step and cycle_index). */
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
  /** What failed inside the node (a tool's command, an LLM node's prompt), on a handler's own failure. */
  readonly failedStep?: FailedStep;
  /** Folder and manager nodes: which run of the node's child pipeline this is, 0-based (its visit in the run). */
  readonly cycleIndex?: number;
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
  /** The handler finished without writing any status (an LLM node that answered nothing): `auto_status` makes it a SUCCESS (canonical §2.6). */
  readonly statusMissing?: true;
}
