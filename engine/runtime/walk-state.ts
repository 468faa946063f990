import type { ArtifactStore } from './artifact-store';
import type { TranscriptMessage } from './backend';
import type { ContextChanges } from './context';
import { RunContext } from './context';
import type { EdgeIdentity } from './events';
import type { OutcomeRecord, RunState } from './state';

/**
 * The state of one walk between two inputs; the main walk's is checkpointed at every node boundary.
 * The step (walk-step.ts) only reads it and says how it changes; `applyChange` is the one writer.
 */
export interface WalkState {
  nextNodeId: string;
  incomingEdge?: EdgeIdentity;
  lastCompletedNodeId?: string;
  completedNodes: string[];
  nodeOutcomes: Record<string, OutcomeRecord>;
  retryCounts: Record<string, number>;
  visits: Record<string, number>;
  context: RunContext;
  iteration: number;
  step: number;
  pendingFailure?: string;
  threads: Record<string, TranscriptMessage[]>;
}

/** What the step may read of a walk's state: the same fields, none of them writable. */
export interface WalkView {
  readonly nextNodeId: string;
  readonly completedNodes: readonly string[];
  readonly nodeOutcomes: Readonly<Record<string, OutcomeRecord>>;
  readonly retryCounts: Readonly<Record<string, number>>;
  readonly visits: Readonly<Record<string, number>>;
  readonly context: Pick<RunContext, 'get' | 'has' | 'snapshot'>;
  readonly iteration: number;
  readonly step: number;
  readonly pendingFailure?: string;
}

/**
 * One change of a walk's state, as the step decides it. A step costs what it changes, not what the
 * walk already holds: records are appended or merged in place, never copied whole.
 */
export type WalkChange =
  /** A node visit starts: its visit count goes up; a node that runs (not a structural exit) is also a step. */
  | { readonly kind: 'visit'; readonly nodeId: string; readonly countsAsStep: boolean }
  /** The attempts a running node has consumed (resume continues the count); none once it has its outcome. */
  | { readonly kind: 'attempts'; readonly nodeId: string; readonly spent?: number }
  | ({ readonly kind: 'context' } & ContextChanges)
  /** The transcript messages a node's attempt recorded, by thread key. */
  | { readonly kind: 'transcripts'; readonly appended: Readonly<Record<string, readonly TranscriptMessage[]>> }
  /** A node visit ends; `record` is what goal gates and feedback remember of it (none for a skip or an exit). */
  | { readonly kind: 'completed'; readonly nodeId: string; readonly record?: OutcomeRecord }
  | { readonly kind: 'failure-pending'; readonly reason: string }
  /** The walk runs `to` next, reached over `edge` (none for a jump). */
  | { readonly kind: 'moved'; readonly to: string; readonly edge?: EdgeIdentity }
  /** A loop_restart: a new iteration whose records start empty. */
  | { readonly kind: 'iteration-restarted' };

export function applyChange(state: WalkState, change: WalkChange): void {
  switch (change.kind) {
    case 'visit':
      state.visits[change.nodeId] = (state.visits[change.nodeId] ?? 0) + 1;
      if (change.countsAsStep) state.step++;
      return;
    case 'attempts':
      if (change.spent === undefined) delete state.retryCounts[change.nodeId];
      else state.retryCounts[change.nodeId] = change.spent;
      return;
    case 'context':
      state.context.apply(change.set);
      for (const key of change.deleted) state.context.delete(key);
      return;
    case 'transcripts':
      for (const [key, messages] of Object.entries(change.appended)) state.threads[key] = [...(state.threads[key] ?? []), ...messages];
      return;
    case 'completed':
      if (change.record) state.nodeOutcomes[change.nodeId] = change.record;
      state.completedNodes.push(change.nodeId);
      state.lastCompletedNodeId = change.nodeId;
      return;
    case 'failure-pending':
      state.pendingFailure = change.reason;
      return;
    case 'moved':
      state.nextNodeId = change.to;
      if (change.edge) state.incomingEdge = change.edge;
      else delete state.incomingEdge;
      return;
    case 'iteration-restarted':
      // New arrays, not emptied ones: StateDeltas tells a restart by them.
      state.iteration++;
      state.completedNodes = [];
      state.nodeOutcomes = {};
      state.retryCounts = {};
      return;
  }
}

export function freshWalkState(startNodeId: string, context: RunContext, iteration: number): WalkState {
  return {
    nextNodeId: startNodeId,
    completedNodes: [],
    nodeOutcomes: {},
    retryCounts: {},
    visits: {},
    context,
    iteration,
    step: 0,
    threads: {},
  };
}

/** The walk state a checkpoint holds, to continue from (its context's large values in the run's `artifacts`). */
export function walkStateFrom(state: RunState, artifacts?: ArtifactStore): WalkState {
  // A deep copy: the walk mutates its state, the checkpoint it came from stays as it was.
  const copy = structuredClone({ ...positionOf(state), threads: state.threads }) as Omit<WalkState, 'context'>;
  return { ...copy, context: new RunContext(state.context, artifacts) };
}

/** Where a walk stands, as both the live WalkState and the checkpoint's RunState hold it. */
type WalkPosition = Pick<RunState, 'nextNodeId' | 'incomingEdge' | 'lastCompletedNodeId' | 'completedNodes' | 'nodeOutcomes' | 'retryCounts' | 'visits' | 'iteration' | 'step' | 'pendingFailure'>;

export function positionOf(from: WalkPosition): WalkPosition {
  return {
    nextNodeId: from.nextNodeId,
    ...(from.incomingEdge ? { incomingEdge: from.incomingEdge } : {}),
    ...(from.lastCompletedNodeId ? { lastCompletedNodeId: from.lastCompletedNodeId } : {}),
    completedNodes: from.completedNodes,
    nodeOutcomes: from.nodeOutcomes,
    retryCounts: from.retryCounts,
    visits: from.visits,
    iteration: from.iteration,
    step: from.step,
    ...(from.pendingFailure ? { pendingFailure: from.pendingFailure } : {}),
  };
}
