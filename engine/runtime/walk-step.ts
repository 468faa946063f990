import type { Adjacency, Graph, GraphEdge, GraphNode } from '../model/graph';
import { runsChildPipeline } from '../model/child-context';
import { isExitNode, resolveHandlerType } from '../model/handler-types';
import type { TranscriptMessage } from './backend';
import type { ContextChanges, ContextValues } from './context';
import { selectEdge } from './edge-selection';
import type { EdgeIdentity, WalkScope } from './events';
import { collectFeedback, critiqueSource } from './feedback';
import { retryCountKey } from './graph-context';
import { describeGate, failureRetryTarget, firstUnsatisfiedGate, gateRetryTarget } from './goal-gates';
import type { MustWriteCheck } from './must-write';
import { boolAttr, graphDurationMs, intAttr, listAttr } from '../model/attribute-readers';
import type { FailureKind, Outcome } from './outcome';
import { isSuccessful } from '../model/stage-status';
import type { AttemptResult, LadderDecision, LadderRung, PendingCheck } from './retry-ladder';
import { afterAttempt, afterBackstop, afterCheck, applyOverrides } from './retry-ladder';
import type { WalkChange, WalkView } from './walk-state';

/**
 * The walk as a machine (canonical §3.2 as the ledger amends it): `step` is a pure function from
 * where the walk stands and what just happened to what changes and what the runner does next
 * (xstate's transition). Every decision is here — edge selection, the retry ladder, goal gates,
 * the must_write checks that route, loop restarts, the exits that fail closed. The runner
 * (walker.ts) performs the effects and answers the phase's wait with the next input; the journal
 * records the inputs, so a run replays through `step` alone.
 */

/** What a walk is, beside its state: the graph and how this walk treats it. */
export interface WalkLogic {
  readonly graph: Graph;
  readonly adjacency: Adjacency;
  readonly scope: WalkScope;
  /** The main walk and sub-pipelines check goal gates at the exit; branches do not. */
  readonly exitSemantics: boolean;
  /** Branches stop before these nodes (the fan-in). */
  readonly stopAt?: ReadonlySet<string>;
  /** The main walk stops at a node boundary before a node this answers true for (a durable worker's one step). */
  readonly pauseBefore?: (nodeId: string) => boolean;
}

export type WalkResult =
  | { readonly kind: 'finished'; readonly status: 'success' | 'fail'; readonly failureReason?: string; readonly failureKind?: FailureKind; readonly lastOutcome?: Outcome }
  | { readonly kind: 'stopped'; readonly stoppedAt: string; readonly lastOutcome?: Outcome };

/** A node visit under way; `lastOutcome` is the previous node's, which the result carries if this visit never ends. */
interface Visit {
  readonly nodeId: string;
  readonly lastOutcome?: Outcome;
}

/**
 * Where the walk is inside its loop, beyond the state a checkpoint holds (a resume starts between
 * nodes). Each phase but `done` waits for one input, named beside it.
 */
export type WalkPhase =
  /** → `proceed`: the next node is looked at. */
  | { readonly at: 'between-nodes'; readonly lastOutcome?: Outcome }
  /** → `entered`: the controller let the node start. */
  | ({ readonly at: 'entering' } & Visit)
  /** → `attempted`: one attempt of the node's handler ran. */
  | ({ readonly at: 'attempting'; readonly rung: LadderRung; readonly retryReason?: string } & Visit)
  /** → `must-write-checked`: the node's must_write artifact was checked. */
  | ({ readonly at: 'checking'; readonly pending: PendingCheck } & Visit)
  /** → `backed-off`: the backoff before the next attempt passed. */
  | ({ readonly at: 'backing-off'; readonly rung: LadderRung; readonly reason: string } & Visit)
  /** → `reviewed`: the controller saw the node's outcome. */
  | { readonly at: 'reviewing'; readonly nodeId: string; readonly outcome: Outcome }
  /** → `edge-chosen`: the controller let the selected edge be taken, or forced another. */
  | { readonly at: 'choosing-edge'; readonly nodeId: string; readonly outcome: Outcome; readonly selected: number }
  | { readonly at: 'done'; readonly result: WalkResult };

/** What the walk learns from outside, one per wait: exactly what the journal records. */
export type WalkInput = (
  | { readonly type: 'proceed'; readonly elapsedMs?: number }
  | { readonly type: 'entered' }
  | { readonly type: 'attempted'; readonly result: AttemptResult; readonly transcripts?: Readonly<Record<string, readonly TranscriptMessage[]>> }
  | { readonly type: 'must-write-checked'; readonly check: MustWriteCheck }
  | { readonly type: 'backed-off' }
  | { readonly type: 'reviewed' }
  | { readonly type: 'edge-chosen'; readonly forceEdgeIndex?: number }
) & {
  /** What a controller wrote into the context while the walk waited on it. */
  readonly edits?: ContextChanges;
};

/** What the runner does for a step, in order; none of it feeds the walk's decisions. */
export type WalkEffect =
  | { readonly type: 'visit-started'; readonly nodeId: string }
  | { readonly type: 'attempt-started'; readonly nodeId: string; readonly attempt: number }
  /** The delay is the server's Retry-After when given (capped), else the standard backoff for `attempt`. */
  | { readonly type: 'retry-scheduled'; readonly nodeId: string; readonly attempt: number; readonly reason: string; readonly retryAfterMs?: number }
  /** The node's records: status file, its trace record (held until the route out is known), node:end. */
  | { readonly type: 'visit-recorded'; readonly nodeId: string; readonly outcome: Outcome; readonly missingOutputs: readonly string[] }
  /** A structural exit's records, written at once. */
  | { readonly type: 'exit-reached'; readonly nodeId: string; readonly outcome: Outcome }
  | { readonly type: 'trace-flushed' }
  | { readonly type: 'jumped'; readonly from: string; readonly to: string; readonly reason: string; readonly failureKind?: FailureKind }
  | { readonly type: 'edge-taken'; readonly edge: EdgeIdentity; readonly loopRestart: boolean; readonly forced: boolean }
  /** feedback/<node>.md files go out with the new iteration. */
  | { readonly type: 'iteration-started'; readonly iteration: number; readonly feedback: Readonly<Record<string, string>> }
  /** A node boundary: the main walk commits its state here. */
  | { readonly type: 'boundary' };

export interface Transition {
  readonly phase: WalkPhase;
  readonly changes: readonly WalkChange[];
  readonly effects: readonly WalkEffect[];
}

class WalkInputError extends Error {
  override readonly name = 'WalkInputError';
}

/** One step of the walk: pure, so the runner and a replay of the journal take the same path. */
export function step(logic: WalkLogic, state: WalkView, phase: WalkPhase, input: WalkInput): Transition {
  const edits = input.edits;
  if (!edits || (Object.keys(edits.set).length === 0 && edits.deleted.length === 0)) return decide(logic, state, phase, input);
  // The runner's context holds the edits already, a replayed one not yet: both decide on the edited context.
  const next = decide(logic, { ...state, context: edited(state.context, edits) }, phase, input);
  return { ...next, changes: [{ kind: 'context', ...edits }, ...next.changes] };
}

function edited(context: WalkView['context'], edits: ContextChanges): WalkView['context'] {
  const value = (key: string): unknown => (key in edits.set ? edits.set[key] : edits.deleted.includes(key) ? undefined : context.get(key));
  return {
    get: value,
    has: (key) => value(key) !== undefined && value(key) !== null,
    snapshot: () => {
      const values = { ...context.snapshot(), ...structuredClone(edits.set) };
      for (const key of edits.deleted) delete values[key];
      return values;
    },
  };
}

function decide(logic: WalkLogic, state: WalkView, phase: WalkPhase, input: WalkInput): Transition {
  if (phase.at === 'between-nodes' && input.type === 'proceed') return proceed(logic, state, phase.lastOutcome, input.elapsedMs);
  if (phase.at === 'entering' && input.type === 'entered') return enter(logic, state, phase);
  if (phase.at === 'attempting' && input.type === 'attempted') {
    const transcripts: WalkChange[] = input.transcripts && Object.keys(input.transcripts).length > 0 ? [{ kind: 'transcripts', appended: input.transcripts }] : [];
    const result = input.result;
    if (result.kind === 'deadline') {
      // Recorded as it stands (no overrides), and the run fails: the clock is not a node's to soften.
      const outcome: Outcome = { status: 'fail', isExplicit: false, failureReason: deadlineMessage(logic.graph, phase.nodeId) };
      const kept = record(state, node(logic, phase.nodeId), outcome);
      return { phase: finished('fail', outcome.failureReason, phase.lastOutcome), changes: [...transcripts, ...kept.changes], effects: [...kept.effects, { type: 'trace-flushed' }] };
    }
    const decided = ladder(logic, state, phase, afterAttempt(node(logic, phase.nodeId), logic.graph, phase.rung, result));
    return { ...decided, changes: [...transcripts, ...decided.changes] };
  }
  if (phase.at === 'checking' && input.type === 'must-write-checked') {
    const pending = phase.pending;
    if (pending.purpose === 'backstop') return recorded(logic, state, phase.nodeId, afterBackstop(pending.outcome, input.check));
    return ladder(logic, state, phase, afterCheck(node(logic, phase.nodeId), logic.graph, pending, input.check));
  }
  if (phase.at === 'backing-off' && input.type === 'backed-off') return attempt(phase, { attempt: phase.rung.attempt + 1, ...(phase.rung.usage ? { usage: phase.rung.usage } : {}) }, phase.reason);
  if (phase.at === 'reviewing' && input.type === 'reviewed') return route(logic, state, phase.nodeId, phase.outcome);
  if (phase.at === 'choosing-edge' && input.type === 'edge-chosen') return takeEdge(logic, state, phase, input.forceEdgeIndex);
  throw new WalkInputError(`the walk ${phase.at === 'done' ? 'is over' : `waits in phase ${phase.at}`}; it cannot take the input ${input.type}`);
}

function node(logic: WalkLogic, nodeId: string): GraphNode {
  const found = logic.graph.nodes.get(nodeId);
  if (!found) throw new WalkInputError(`node ${nodeId} is not in ${logic.graph.name}`);
  return found;
}

function finished(status: 'success' | 'fail', failureReason: string | undefined, lastOutcome: Outcome | undefined, failureKind?: FailureKind): WalkPhase {
  return { at: 'done', result: { kind: 'finished', status, ...(failureReason ? { failureReason } : {}), ...(failureKind ? { failureKind } : {}), ...(lastOutcome ? { lastOutcome } : {}) } };
}

function only(phase: WalkPhase, effects: readonly WalkEffect[] = []): Transition {
  return { phase, changes: [], effects };
}

export function deadlineMessage(graph: Graph, stoppedNode?: string): string {
  const maxDuration = graphDurationMs(graph, 'max_pipeline_duration', 'ms');
  return `max_pipeline_duration_exceeded: the run took longer than ${maxDuration} ms${stoppedNode ? `; node ${stoppedNode} was stopped` : ''}`;
}

/** Between nodes: the limits that fail the walk closed, the stops, the exit's goal gates, else the next node starts. */
function proceed(logic: WalkLogic, state: WalkView, lastOutcome: Outcome | undefined, elapsedMs: number | undefined): Transition {
  const { graph } = logic;
  const maxDuration = graphDurationMs(graph, 'max_pipeline_duration', 'ms');
  if (maxDuration !== undefined && elapsedMs !== undefined && maxDuration - elapsedMs < 0) return only(finished('fail', deadlineMessage(graph), lastOutcome));
  const maxSteps = intAttr(graph.attributes, 'max_steps', 1000);
  if (state.step >= maxSteps) return only(finished('fail', `max_steps_exceeded: ${maxSteps} node executions`, lastOutcome));
  const next = graph.nodes.get(state.nextNodeId);
  if (!next) return only(finished('fail', `node ${state.nextNodeId} does not exist`, lastOutcome));
  if (logic.stopAt?.has(next.id) || logic.pauseBefore?.(next.id)) return only({ at: 'done', result: { kind: 'stopped', stoppedAt: next.id, ...(lastOutcome ? { lastOutcome } : {}) } });
  if (!isExitNode(next) || !logic.exitSemantics) return only({ at: 'entering', nodeId: next.id, ...(lastOutcome ? { lastOutcome } : {}) });

  const gate = firstUnsatisfiedGate(graph, state.nodeOutcomes);
  if (gate) {
    const target = gateRetryTarget(gate.node, graph);
    const reason = describeGate(gate.node, gate.record);
    if (!target) return only(finished('fail', `${reason}, and no retry_target is set`, lastOutcome, 'goal_gate_unsatisfied'));
    return jump(next.id, target, `${reason}: jumping to retry_target ${target}`, lastOutcome, 'goal_gate_unsatisfied');
  }
  const exit: Outcome = { status: 'success', isExplicit: true, notes: `exit: ${next.id}` };
  return {
    phase: state.pendingFailure ? finished('fail', state.pendingFailure, lastOutcome) : finished('success', undefined, lastOutcome),
    changes: [{ kind: 'visit', nodeId: next.id, countsAsStep: false }, { kind: 'completed', nodeId: next.id }],
    effects: [{ type: 'exit-reached', nodeId: next.id, outcome: exit }],
  };
}

function jump(from: string, to: string, reason: string, lastOutcome: Outcome | undefined, failureKind?: FailureKind): Transition {
  return {
    phase: { at: 'between-nodes', ...(lastOutcome ? { lastOutcome } : {}) },
    changes: [{ kind: 'moved', to }],
    effects: [{ type: 'jumped', from, to, reason, ...(failureKind ? { failureKind } : {}) }, { type: 'boundary' }],
  };
}

/** The node starts: requires= skips it, else its first attempt (a resumed node continues its count). */
function enter(logic: WalkLogic, state: WalkView, phase: Extract<WalkPhase, { at: 'entering' }>): Transition {
  const { nodeId } = phase;
  const starting: WalkChange[] = [{ kind: 'visit', nodeId, countsAsStep: true }, { kind: 'context', set: { current_node: nodeId }, deleted: [] }];
  const started: WalkEffect[] = [{ type: 'visit-started', nodeId }];
  const context = contextAfter(state, { current_node: nodeId });
  const missing = listAttr(node(logic, nodeId), 'requires').filter((key) => !context.has(key));
  if (missing.length > 0) {
    const skipped = settled(logic, state, nodeId, { status: 'skipped', isExplicit: false, notes: `skipped: required context ${missing.join(', ')} missing` });
    return { phase: skipped.phase, changes: [...starting, ...skipped.changes], effects: [...started, ...skipped.effects] };
  }
  const first = attempt(phase, { attempt: (state.retryCounts[nodeId] ?? 0) + 1 });
  return { phase: first.phase, changes: [...starting, ...first.changes], effects: [...started, ...first.effects] };
}

function attempt(visit: Visit, rung: LadderRung, retryReason?: string): Transition {
  return {
    phase: { at: 'attempting', nodeId: visit.nodeId, rung, ...(retryReason !== undefined ? { retryReason } : {}), ...(visit.lastOutcome ? { lastOutcome: visit.lastOutcome } : {}) },
    changes: [{ kind: 'attempts', nodeId: visit.nodeId, spent: rung.attempt - 1 }],
    effects: [{ type: 'attempt-started', nodeId: visit.nodeId, attempt: rung.attempt }],
  };
}

function ladder(logic: WalkLogic, state: WalkView, visit: Visit, decision: LadderDecision): Transition {
  const { nodeId } = visit;
  const lastOutcome = visit.lastOutcome ? { lastOutcome: visit.lastOutcome } : {};
  switch (decision.kind) {
    case 'check':
      return only({ at: 'checking', nodeId, pending: decision.pending, ...lastOutcome });
    case 'retry':
      return {
        phase: { at: 'backing-off', nodeId, rung: decision.rung, reason: decision.reason, ...lastOutcome },
        changes: [
          { kind: 'attempts', nodeId, spent: decision.rung.attempt },
          { kind: 'context', set: { [retryCountKey(nodeId)]: decision.rung.attempt }, deleted: [] },
        ],
        effects: [
          { type: 'retry-scheduled', nodeId, attempt: decision.rung.attempt, reason: decision.reason, ...(decision.retryAfterMs !== undefined ? { retryAfterMs: decision.retryAfterMs } : {}) },
          { type: 'boundary' },
        ],
      };
    case 'done': {
      const { outcome } = decision;
      // Canonical §3.5: a success resets the node's retry counter; any other end keeps the count.
      const retries: WalkChange = { kind: 'context', set: { [retryCountKey(nodeId)]: isSuccessful(outcome.status) ? 0 : (outcome.attemptCount ?? 1) - 1 }, deleted: [] };
      const after = settled(logic, state, nodeId, outcome);
      return { phase: after.phase, changes: [{ kind: 'attempts', nodeId }, retries, ...after.changes], effects: after.effects };
    }
  }
}

/** The node's outcome is known but for its overrides: apply them, then record it. */
function settled(logic: WalkLogic, state: WalkView, nodeId: string, outcome: Outcome): Transition {
  const overridden = applyOverrides(node(logic, nodeId), outcome);
  if ('pending' in overridden) return only({ at: 'checking', nodeId, pending: overridden.pending });
  return recorded(logic, state, nodeId, overridden.outcome);
}

function recorded(logic: WalkLogic, state: WalkView, nodeId: string, outcome: Outcome): Transition {
  const current = node(logic, nodeId);
  // Ledger §30: a folder or manager node's outcome says which run of its child it reports (0-based; a manager counts its own cycles).
  const final = runsChildPipeline(resolveHandlerType(current)) ? { ...outcome, cycleIndex: outcome.cycleIndex ?? (state.visits[nodeId] ?? 1) - 1 } : outcome;
  const { changes, effects } = record(state, current, final);
  return { phase: { at: 'reviewing', nodeId, outcome: final }, changes, effects };
}

/** What the walk keeps of a finished node: its context updates and verdict, and, unless skipped, its outcome record. */
function record(state: WalkView, current: GraphNode, outcome: Outcome): { changes: WalkChange[]; effects: WalkEffect[] } {
  const updates = outcome.contextUpdates ?? {};
  const set: ContextValues = { ...updates, outcome: outcome.status, ...(outcome.preferredLabel ? { preferred_label: outcome.preferredLabel } : {}) };
  const context = contextAfter(state, set);
  const missingOutputs = outcome.status === 'skipped' ? [] : listAttr(current, 'outputs').filter((key) => !context.has(key));
  const outcomeRecord =
    outcome.status === 'skipped'
      ? undefined
      : {
          status: outcome.status,
          isExplicit: outcome.isExplicit,
          ...(outcome.preferredLabel ? { preferredLabel: outcome.preferredLabel } : {}),
          ...(outcome.notes ? { notes: outcome.notes } : {}),
          ...(outcome.failureReason ? { failureReason: outcome.failureReason } : {}),
          ...(typeof updates['tool.output'] === 'string' ? { toolOutput: critiqueSource(updates['tool.output']) } : {}),
          ...(typeof updates['tool.last_line'] === 'string' ? { toolLastLine: critiqueSource(updates['tool.last_line']) } : {}),
        };
  return {
    changes: [
      { kind: 'context', set, deleted: [] },
      { kind: 'completed', nodeId: current.id, ...(outcomeRecord ? { record: outcomeRecord } : {}) },
    ],
    effects: [{ type: 'visit-recorded', nodeId: current.id, outcome, missingOutputs }],
  };
}

/** The context as it will be once `set` is written. */
function contextAfter(state: WalkView, set: ContextValues): { has(key: string): boolean } {
  return { has: (key) => (key in set ? set[key] !== undefined && set[key] !== null : state.context.has(key)) };
}

/** Failure routing (canonical §3.7 + ledger fail-fast) and edge selection for everything else. */
function route(logic: WalkLogic, state: WalkView, nodeId: string, outcome: Outcome): Transition {
  const { graph } = logic;
  const current = node(logic, nodeId);
  const end = (status: 'success' | 'fail', reason: string | undefined, failureKind?: FailureKind) => only(finished(status, reason, outcome, failureKind), [{ type: 'trace-flushed' }]);
  const failedJump = (target: string) => jump(nodeId, target, `${nodeId} failed: jumping to retry_target ${target}`, outcome, outcome.failureKind);
  if (outcome.continueAt !== undefined) {
    // The node's own edges are not routes (a fan-out's are its branches): a failure can only
    // jump to the node's retry target or end the walk, wherever continueAt points.
    if (outcome.status === 'fail') {
      const target = failureRetryTarget(current, graph);
      return target ? failedJump(target) : end('fail', outcome.failureReason ?? `${nodeId} failed`, outcome.failureKind);
    }
    if (!graph.nodes.has(outcome.continueAt)) return end('fail', `${nodeId} continues at ${outcome.continueAt}, which is not a node of ${graph.name}`);
    return jump(nodeId, outcome.continueAt, `${nodeId} continues at ${outcome.continueAt}`, outcome);
  }
  const edges = logic.adjacency.outgoing.get(nodeId) ?? [];
  const selection = selectEdge({ edges, outcome, lookup: (key) => state.context.get(key), nodes: graph.nodes });
  const changes: WalkChange[] = [];
  if (outcome.status === 'fail' && !(selection.kind === 'edge' && selection.step === 'condition')) {
    const target = failureRetryTarget(current, graph);
    if (target) return failedJump(target);
    if (selection.kind === 'none') return end('fail', outcome.failureReason ?? `${nodeId} failed`, outcome.failureKind);
    if (!state.pendingFailure) changes.push({ kind: 'failure-pending', reason: `${nodeId} failed: ${outcome.failureReason ?? 'no reason given'} (the run continued into ${selection.edge.to}, which runs on failure)` });
  }
  if (selection.kind === 'none') {
    if (!logic.exitSemantics) return end(isSuccessful(outcome.status) ? 'success' : 'fail', outcome.failureReason, outcome.failureKind);
    return end('fail', `no matching edge from node '${nodeId}': ${selection.reason}`, 'no_matching_edge');
  }
  return { phase: { at: 'choosing-edge', nodeId, outcome, selected: selection.edge.index }, changes, effects: [] };
}

/** The edge is taken (a controller may force another of the node's edges); a loop_restart starts a new iteration. */
function takeEdge(logic: WalkLogic, state: WalkView, phase: Extract<WalkPhase, { at: 'choosing-edge' }>, forceEdgeIndex: number | undefined): Transition {
  const { graph } = logic;
  const selected = graph.edges[phase.selected];
  if (!selected) throw new WalkInputError(`edge ${phase.selected} is not in ${graph.name}`);
  const forced = forceEdgeIndex !== undefined ? graph.edges[forceEdgeIndex] : undefined;
  const edge: GraphEdge = forced && forced.from === phase.nodeId ? forced : selected;
  const identity: EdgeIdentity = { index: edge.index, from: edge.from, to: edge.to };
  const loopRestart = boolAttr(edge, 'loop_restart');
  const changes: WalkChange[] = [];
  const effects: WalkEffect[] = [{ type: 'edge-taken', edge: identity, loopRestart, forced: forced !== undefined && forced === edge }];
  if (loopRestart) {
    // Ledger: a loop_restart feeds critics to listeners, starts a new iteration, keeps the context.
    const feedback = collectFeedback(graph, state.nodeOutcomes, state.context.snapshot(), state.iteration);
    const iteration = state.iteration + 1;
    changes.push({ kind: 'context', set: { ...feedback.contextUpdates, iteration: String(iteration), loop_count: String(iteration) }, deleted: [] }, { kind: 'iteration-restarted' });
    effects.push({ type: 'iteration-started', iteration, feedback: Object.fromEntries(feedback.files) });
  }
  changes.push({ kind: 'moved', to: edge.to, edge: identity });
  effects.push({ type: 'boundary' });
  return { phase: { at: 'between-nodes', lastOutcome: phase.outcome }, changes, effects };
}
