import type { TranscriptMessage } from './backend';
import type { StateDelta } from './journal';
import type { OutcomeRecord } from './state';
import type { WalkState } from './walk-state';

export type DeltaHeader = Pick<StateDelta, 'status' | 'failureReason' | 'elapsedBeforeMs' | 'updatedAt' | 'workspaceSnapshot'>;

/**
 * Remembers what of the main walk's state the journal already holds, so each boundary records only
 * what changed: the nodes completed since (and their outcomes and visits), the context keys written,
 * the transcript messages added. Its cost is independent of the length of the walk.
 */
export class StateDeltas {
  private completedRef: readonly string[];
  private completedLength: number;
  private readonly threadLengths = new Map<string, number>();

  constructor(state: WalkState) {
    this.completedRef = state.completedNodes;
    this.completedLength = state.completedNodes.length;
    for (const [key, messages] of Object.entries(state.threads)) this.threadLengths.set(key, messages.length);
    state.context.takeChanges();
  }

  take(state: WalkState, header: DeltaHeader): StateDelta {
    // restartLoop replaces the iteration's arrays; a new array means the iteration started over.
    const restarted = state.completedNodes !== this.completedRef;
    const completed = restarted ? [...state.completedNodes] : state.completedNodes.slice(this.completedLength);
    this.completedRef = state.completedNodes;
    this.completedLength = state.completedNodes.length;

    const outcomes: Record<string, OutcomeRecord> = restarted ? { ...state.nodeOutcomes } : {};
    const visits: Record<string, number> = restarted ? { ...state.visits } : {};
    for (const id of completed) {
      const outcome = state.nodeOutcomes[id];
      if (outcome) outcomes[id] = outcome;
    }
    // Visits count up when a node starts: the completed ones, and the running one at a retry boundary.
    for (const id of [...completed, state.lastCompletedNodeId, state.nextNodeId]) {
      const visit = id === undefined ? undefined : state.visits[id];
      if (id !== undefined && visit !== undefined) visits[id] = visit;
    }

    const threads: Record<string, TranscriptMessage[]> = {};
    for (const [key, messages] of Object.entries(state.threads)) {
      const known = this.threadLengths.get(key) ?? 0;
      if (messages.length > known) threads[key] = messages.slice(known);
      this.threadLengths.set(key, messages.length);
    }

    const context = state.context.takeChanges();
    return {
      ...header,
      nextNodeId: state.nextNodeId,
      ...(state.incomingEdge ? { incomingEdge: state.incomingEdge } : {}),
      ...(state.lastCompletedNodeId ? { lastCompletedNodeId: state.lastCompletedNodeId } : {}),
      iteration: state.iteration,
      step: state.step,
      ...(state.pendingFailure ? { pendingFailure: state.pendingFailure } : {}),
      ...(restarted ? { restarted: true } : {}),
      completed,
      outcomes,
      visits,
      context: context.set,
      ...(context.deleted.length > 0 ? { contextDeleted: context.deleted } : {}),
      retryCounts: { ...state.retryCounts },
      threads,
    };
  }
}

