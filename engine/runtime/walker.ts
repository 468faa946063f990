import type { Graph, GraphEdge, GraphNode } from '../model/graph';
import { buildAdjacency } from '../model/graph';
import { isStartNode } from '../model/handler-types';
import type { BranchResult, ChildPipelineHandle, ChildPipelineOptions, HandlerRegistry, HandlerServices } from '../handlers/handler';
import type { CodergenBackend, TranscriptMessage } from './backend';
import type { Clock } from './clock';
import type { ContextChanges, RunContext } from './context';
import type { RunController } from './controller';
import type { EdgeIdentity, RunEvent, TraceRecord, WalkScope } from './events';
import { resolveFidelity } from './fidelity';
import type { Interviewer } from './interviewer';
import { checkMustWrite, freshnessFloor } from './must-write';
import { graphDurationMs, retryPreset, stringAttr, timeoutMs } from '../model/attribute-readers';
import type { Outcome } from './outcome';
import { isSuccessful } from '../model/stage-status';
import { runAttempt } from './attempt';
import type { AttemptResult } from './retry-ladder';
import { delayForAttempt } from './retry-policy';
import { retryPresets } from '../model/retry-presets';
import { usageFields } from './usage';
import type { RunDirectory } from './run-directory';
import type { CommandSandbox } from './sandbox';
import type { VisitFiles } from './workspace-snapshot';
import type { WalkEffect, WalkInput, WalkLogic, WalkPhase, WalkResult } from './walk-step';
import { deadlineMessage, step } from './walk-step';
import type { WalkState } from './walk-state';
import { applyChange, freshWalkState } from './walk-state';
import { graphContextEntries } from './graph-context';

/** Services shared by every walk of one run (main walk, branches, sub-pipelines). */
export interface RunShared {
  readonly runId: string;
  readonly cwd: string;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly emit: (event: RunEvent) => void;
  readonly backend: CodergenBackend;
  readonly interviewer: Interviewer;
  readonly handlers: HandlerRegistry;
  readonly controller: RunController;
  readonly defaultMaxParallel: number;
  readonly sandbox: CommandSandbox;
  readonly params: Readonly<Record<string, string>>;
  readonly loadChildPipeline: (dotFile: string, parent: Graph) => { graph: Graph } | { error: string };
}

export class CancelledError extends Error {
  override readonly name = 'CancelledError';
}

export interface WalkOptions extends Omit<WalkLogic, 'adjacency'> {
  readonly runDirectory: RunDirectory;
  readonly state: WalkState;
  /** Called after every node boundary with the state to persist (the main walk checkpoints). */
  readonly onBoundary?: (state: WalkState) => void;
  /** Sees every input the walk takes, as the step takes it (the main walk journals them). */
  readonly onInput?: (input: WalkInput) => void;
  readonly elapsedMs?: () => number;
  /** Snapshots the workspace after a node ran: the visit's before/after (the main walk only). */
  readonly snapshotVisit?: () => Promise<VisitFiles | undefined>;
}

/** Why a node's attempt was stopped by a controller (as opposed to the whole run being cancelled). */
class NodeCancelled extends Error {
  override readonly name = 'NodeCancelled';
}

/** max_pipeline_duration ran out while a node was running: the node is stopped and the run fails. */
class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}

/**
 * The runner of one walk: it answers each phase's wait (the controller's hooks, the handler's
 * attempts, must_write checks, backoff sleeps), feeds the answer to the pure step (walk-step.ts),
 * applies the state changes and performs the effects: events, the run directory, checkpoints.
 */
export class Walker {
  private readonly logic: WalkLogic;
  /** Aborts the node running now; a walker runs one node at a time. */
  private nodeAbort = new AbortController();
  /** The record of the node just run, held back until its route is known (a forced route is recorded on it). */
  private pendingTrace: TraceRecord | undefined;
  /** The current node visit's number within its iteration (RunDirectory.beginVisit). */
  private iterationVisit = 1;
  private visitStarted = 0;
  /** The workspace snapshots around the node just recorded, for the controller's afterNode. */
  private visitFiles: VisitFiles | undefined;
  /** The must_write freshness floor of the attempt running now (wall ms of the filesystem's clock). */
  private attemptFloor = 0;
  private backoffMs = 0;
  /** Transcript messages the running attempt recorded; they reach the state through its input. */
  private attemptTranscripts: Record<string, TranscriptMessage[]> = {};

  constructor(
    private readonly shared: RunShared,
    private readonly options: WalkOptions,
  ) {
    const { graph, scope, exitSemantics, stopAt, pauseBefore } = options;
    this.logic = { graph, adjacency: buildAdjacency(graph), scope, exitSemantics, ...(stopAt ? { stopAt } : {}), ...(pauseBefore ? { pauseBefore } : {}) };
  }

  private get graph(): Graph {
    return this.options.graph;
  }

  private get state(): WalkState {
    return this.options.state;
  }

  async walk(): Promise<WalkResult> {
    let phase: WalkPhase = { at: 'between-nodes' };
    for (;;) {
      if (phase.at === 'done') return phase.result;
      const input = await this.answer(phase);
      this.options.onInput?.(input);
      const transition = step(this.logic, this.state, phase, input);
      for (const change of transition.changes) applyChange(this.state, change);
      for (const effect of transition.effects) await this.perform(effect);
      phase = transition.phase;
    }
  }

  /** Waits for what the phase waits for; what was under way when the wait throws is closed first. */
  private async answer(phase: Exclude<WalkPhase, { at: 'done' }>): Promise<WalkInput> {
    try {
      return await this.wait(phase);
    } catch (error) {
      if (phase.at === 'choosing-edge') {
        // The node's record is out even when the route out of it never comes.
        this.flushTrace();
      } else if ((phase.at === 'attempting' || phase.at === 'checking' || phase.at === 'backing-off') && this.shared.signal.aborted) {
        // node:start and node:end stay balanced when a cancel interrupts a running node (a run's
        // cancel, or a branch cancelled by its join), so views do not show it running forever. Nothing is recorded.
        const cancelled: Outcome = { status: 'skipped', isExplicit: false, notes: 'cancelled while running' };
        this.shared.emit({ type: 'node:end', scope: this.options.scope, nodeId: phase.nodeId, iteration: this.state.iteration, outcome: cancelled, durationMs: this.shared.clock.monotonic() - this.visitStarted });
      }
      throw error;
    }
  }

  private async wait(phase: Exclude<WalkPhase, { at: 'done' }>): Promise<WalkInput> {
    const { shared, state } = this;
    switch (phase.at) {
      case 'between-nodes': {
        this.throwIfCancelled();
        const elapsedMs = this.options.elapsedMs?.();
        return { type: 'proceed', ...(elapsedMs !== undefined ? { elapsedMs } : {}) };
      }
      case 'entering': {
        this.nodeAbort = new AbortController();
        const [, edits] = await this.watching(() => shared.controller.beforeNode?.({ ...this.boundary(phase.nodeId), visit: (state.visits[phase.nodeId] ?? 0) + 1 }));
        this.throwIfCancelled();
        return { type: 'entered', ...edits };
      }
      case 'attempting': {
        const node = this.node(phase.nodeId);
        const mustWrite = stringAttr(node, 'must_write');
        this.attemptFloor = mustWrite ? freshnessFloor(this.options.runDirectory.stageDir(node.id)) : 0;
        this.attemptTranscripts = {};
        const [result, edits] = await this.watching(() => this.attemptOnce(node, phase.rung.attempt, phase.retryReason));
        const transcripts = this.attemptTranscripts;
        return { type: 'attempted', result, ...(Object.keys(transcripts).length > 0 ? { transcripts } : {}), ...edits };
      }
      case 'checking': {
        const declared = stringAttr(this.node(phase.nodeId), 'must_write') ?? '';
        return { type: 'must-write-checked', check: checkMustWrite(declared, shared.cwd, phase.pending.purpose === 'backstop' ? 0 : this.attemptFloor) };
      }
      case 'backing-off': {
        // A backoff never sleeps past max_pipeline_duration; the next attempt then fails the run.
        const remaining = this.remainingBudgetMs();
        await shared.clock.sleep(remaining === undefined ? this.backoffMs : Math.min(this.backoffMs, Math.max(0, remaining)), shared.signal).catch(() => undefined);
        this.throwIfCancelled();
        return { type: 'backed-off' };
      }
      case 'reviewing': {
        const files = this.visitFiles;
        const [, edits] = await this.watching(() => shared.controller.afterNode?.({ ...this.boundary(phase.nodeId), outcome: phase.outcome, ...(files ? { files } : {}) }));
        return { type: 'reviewed', ...edits };
      }
      case 'choosing-edge': {
        const { graph } = this;
        const selected = graph.edges[phase.selected] as GraphEdge;
        const [directive, edits] = await this.watching(() =>
          shared.controller.beforeEdge?.({
            scope: this.options.scope,
            graph,
            from: phase.nodeId,
            outcome: phase.outcome,
            selected,
            candidates: this.logic.adjacency.outgoing.get(phase.nodeId) ?? [],
            iteration: state.iteration,
            context: state.context,
          }),
        );
        const forceEdgeIndex = directive ? directive.forceEdgeIndex : undefined;
        return { type: 'edge-chosen', ...(forceEdgeIndex !== undefined ? { forceEdgeIndex } : {}), ...edits };
      }
    }
  }

  /** Runs a controller hook (or an attempt, whose agent turns call one) and reports what it wrote into the context, so the journal replays it. */
  private async watching<T>(wait: () => Promise<T> | T): Promise<[T, { edits?: ContextChanges }]> {
    const stopWatching = this.state.context.watch();
    let value: T;
    try {
      value = await wait();
    } catch (error) {
      stopWatching();
      throw error;
    }
    const edits = stopWatching();
    return [value, Object.keys(edits.set).length > 0 || edits.deleted.length > 0 ? { edits } : {}];
  }

  private async perform(effect: WalkEffect): Promise<void> {
    const { shared, state } = this;
    const scope = this.options.scope;
    switch (effect.type) {
      case 'visit-started':
        this.iterationVisit = this.options.runDirectory.beginVisit(state.iteration, effect.nodeId);
        shared.emit({ type: 'node:start', scope, nodeId: effect.nodeId, iteration: state.iteration, visit: state.visits[effect.nodeId] ?? 1 });
        this.visitStarted = shared.clock.monotonic();
        return;
      case 'attempt-started':
        shared.emit({ type: 'node:attempt', scope, nodeId: effect.nodeId, attempt: effect.attempt });
        return;
      case 'retry-scheduled':
        this.backoffMs = effect.retryAfterMs ?? delayForAttempt(effect.attempt, retryPresets[retryPreset(this.graph.nodes.get(effect.nodeId) as GraphNode)].backoff, () => shared.clock.random());
        shared.emit({ type: 'node:retry', scope, nodeId: effect.nodeId, attempt: effect.attempt, delayMs: this.backoffMs, reason: effect.reason });
        return;
      case 'visit-recorded': {
        const durationMs = shared.clock.monotonic() - this.visitStarted;
        const files = await this.options.snapshotVisit?.();
        if (effect.missingOutputs.length > 0) shared.emit({ type: 'node:contract', scope, nodeId: effect.nodeId, missingOutputs: effect.missingOutputs });
        this.options.runDirectory.writeStatus(state.iteration, effect.nodeId, effect.outcome);
        this.pendingTrace = { ...this.traceRecord(effect.nodeId, effect.outcome, durationMs), ...(files ? { files } : {}) };
        shared.emit({ type: 'node:end', scope, nodeId: effect.nodeId, iteration: state.iteration, outcome: effect.outcome, durationMs });
        this.visitFiles = files;
        return;
      }
      case 'exit-reached':
        this.iterationVisit = this.options.runDirectory.beginVisit(state.iteration, effect.nodeId);
        shared.emit({ type: 'node:start', scope, nodeId: effect.nodeId, iteration: state.iteration, visit: state.visits[effect.nodeId] ?? 1 });
        this.options.runDirectory.writeStatus(state.iteration, effect.nodeId, effect.outcome);
        this.writeTrace(this.traceRecord(effect.nodeId, effect.outcome, 0));
        shared.emit({ type: 'node:end', scope, nodeId: effect.nodeId, iteration: state.iteration, outcome: effect.outcome, durationMs: 0 });
        return;
      case 'trace-flushed':
        this.flushTrace();
        return;
      case 'jumped':
        this.flushTrace();
        shared.emit({ type: 'jump', scope, from: effect.from, to: effect.to, reason: effect.reason, ...(effect.failureKind ? { failureKind: effect.failureKind } : {}) });
        return;
      case 'edge-taken':
        this.flushTrace({ edge: effect.edge, forced: effect.forced });
        shared.emit({ type: 'edge', scope, edge: effect.edge, loopRestart: effect.loopRestart, forced: effect.forced });
        return;
      case 'iteration-started':
        for (const [nodeId, content] of Object.entries(effect.feedback)) this.options.runDirectory.writeFeedback(nodeId, content);
        shared.emit({ type: 'iteration', iteration: effect.iteration });
        return;
      case 'boundary':
        this.options.onBoundary?.(state);
        return;
    }
  }

  private node(nodeId: string): GraphNode {
    return this.graph.nodes.get(nodeId) as GraphNode;
  }

  /** What is left of max_pipeline_duration, when the graph sets one and this walk keeps the run's clock. */
  private remainingBudgetMs(): number | undefined {
    const maxDuration = graphDurationMs(this.graph, 'max_pipeline_duration', 'ms');
    if (maxDuration === undefined || !this.options.elapsedMs) return undefined;
    return maxDuration - this.options.elapsedMs();
  }

  private throwIfCancelled(): void {
    if (this.shared.signal.aborted) throw new CancelledError('the run was cancelled');
  }

  private boundary(nodeId: string) {
    return {
      scope: this.options.scope,
      graph: this.graph,
      nodeId,
      iteration: this.state.iteration,
      step: this.state.step,
      visit: this.state.visits[nodeId] ?? 0,
      context: this.state.context,
      cancelNode: (reason: string) => this.nodeAbort.abort(new NodeCancelled(reason)),
    };
  }

  /** Runs one attempt of the node's handler under its timeout and the run's deadline. */
  private attemptOnce(node: GraphNode, attempt: number, retryReason: string | undefined): Promise<AttemptResult> {
    const remaining = this.remainingBudgetMs();
    const incoming = this.state.incomingEdge ? this.graph.edges[this.state.incomingEdge.index] : undefined;
    const timeout = timeoutMs(node);
    return runAttempt({
      handler: this.shared.handlers.resolve(node),
      input: {
        node,
        context: this.state.context,
        services: this.services(incoming),
        attempt,
        ...(retryReason !== undefined ? { retryReason } : {}),
        fidelity: resolveFidelity(node, this.graph, incoming?.attributes.get('fidelity')?.value),
      },
      runSignal: this.shared.signal,
      nodeSignal: this.nodeAbort.signal,
      throwIfCancelled: () => this.throwIfCancelled(),
      ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
      ...(remaining !== undefined ? { budget: { remainingMs: remaining, exceeded: () => new DeadlineExceeded(deadlineMessage(this.graph, node.id)) } } : {}),
    });
  }

  private traceRecord(nodeId: string, outcome: Outcome, durationMs: number): TraceRecord {
    return {
      iteration: this.state.iteration,
      node_id: nodeId,
      status: outcome.status,
      preferred_label: outcome.preferredLabel ?? '',
      duration_ms: Math.round(durationMs * 1000) / 1000,
      ts: new Date(this.shared.clock.now()).toISOString(),
      is_explicit: outcome.isExplicit,
      attempt: outcome.attemptCount ?? 1,
      ...(this.iterationVisit > 1 ? { visit: this.iterationVisit } : {}),
      ...(this.options.scope.kind !== 'main' ? { scope: this.options.scope.id } : {}),
      ...(outcome.failureReason ? { failure_reason: outcome.failureReason } : {}),
      ...(outcome.failedStep ? { failed_step: outcome.failedStep } : {}),
      ...(outcome.cycleIndex !== undefined ? { cycle_index: outcome.cycleIndex } : {}),
      ...(outcome.usage ? usageFields(outcome.usage) : {}),
    };
  }

  private writeTrace(record: TraceRecord): void {
    this.options.runDirectory.appendTrace(record);
    this.shared.emit({ type: 'trace', record });
  }

  /** Writes the held record of the node just left, with the edge taken out of it when the walk took one. */
  private flushTrace(taken?: { readonly edge: EdgeIdentity; readonly forced: boolean }): void {
    const record = this.pendingTrace;
    if (!record) return;
    this.pendingTrace = undefined;
    if (!taken) return this.writeTrace(record);
    const { edge, forced } = taken;
    this.writeTrace({ ...record, edge, ...(forced ? { forced_edge: { from: edge.from, to: edge.to } } : {}) });
  }

  private services(incoming: GraphEdge | undefined): HandlerServices {
    const { shared, state, options } = this;
    return {
      graph: this.graph,
      cwd: shared.cwd,
      runDirectory: options.runDirectory,
      runId: shared.runId,
      iteration: state.iteration,
      scope: options.scope,
      signal: shared.signal,
      clock: shared.clock,
      emit: shared.emit,
      backend: shared.backend,
      interviewer: shared.interviewer,
      defaultMaxParallel: shared.defaultMaxParallel,
      sandbox: shared.sandbox,
      params: shared.params,
      completedNodes: state.completedNodes,
      nodeOutcomes: state.nodeOutcomes,
      ...(incoming ? { incomingEdge: { from: incoming.from, attributes: incoming.attributes } } : {}),
      transcript: (key) => {
        const recorded = state.threads[key] ?? [];
        const pending = this.attemptTranscripts[key];
        return pending ? [...recorded, ...pending] : recorded;
      },
      recordExchange: (key, exchange) => {
        this.attemptTranscripts[key] = [...(this.attemptTranscripts[key] ?? []), ...exchange];
      },
      beforeAgentTurn: async (nodeId, turn) => {
        if (this.graph.nodes.has(nodeId)) await shared.controller.beforeAgentTurn?.({ ...this.boundary(nodeId), turn });
        this.throwIfCancelled();
      },
      runBranch: (start, context, stopAt, label, signal, onEvent) => this.runBranch(start, context, stopAt, label, signal, onEvent),
      runChildPipeline: (file, context, label, options) => this.runChildPipeline(file, context, label, options),
      startChildPipeline: (file, context, label, childOptions) => this.startChildPipeline(file, context, label, childOptions),
    };
  }

  private async runBranch(startNodeId: string, context: RunContext, stopAt: ReadonlySet<string>, label: string, signal: AbortSignal, onEvent?: (event: RunEvent) => void): Promise<BranchResult> {
    const scope: WalkScope = { id: `${this.options.scope.id}>branch:${label}`, kind: 'branch', frames: this.options.scope.frames };
    const branchState = freshWalkState(startNodeId, context, this.state.iteration);
    // §3.8 isolation: a branch's transcripts start empty (ledger: branch-local full fidelity).
    const shared: RunShared = { ...this.tapped(onEvent), signal: AbortSignal.any([this.shared.signal, signal]) };
    const walker = new Walker(shared, { scope, graph: this.graph, runDirectory: this.options.runDirectory, state: branchState, exitSemantics: false, stopAt });
    const result = await walker.walk();
    const outcome: Outcome =
      result.lastOutcome ??
      (result.kind === 'finished' && result.status === 'fail' ? { status: 'fail', isExplicit: false, failureReason: result.failureReason ?? 'branch failed' } : { status: 'success', isExplicit: true });
    const failed = result.kind === 'finished' && result.status === 'fail' && isSuccessful(outcome.status);
    return {
      startNodeId,
      scopeId: scope.id,
      outcome: failed ? { status: 'fail', isExplicit: false, failureReason: result.failureReason ?? 'branch failed' } : outcome,
      ...(result.kind === 'stopped' ? { stoppedAt: result.stoppedAt } : {}),
      context: branchState.context,
    };
  }

  /** The run's services with `onEvent` seeing every event of a nested walk before the run's bus does. */
  private tapped(onEvent: ((event: RunEvent) => void) | undefined): RunShared {
    if (!onEvent) return this.shared;
    return {
      ...this.shared,
      emit: (event: RunEvent) => {
        onEvent(event);
        this.shared.emit(event);
      },
    };
  }

  private async runChildPipeline(dotFile: string, context: RunContext, label: string, options?: ChildPipelineOptions): Promise<Outcome> {
    return this.startChildPipeline(dotFile, context, label, options).outcome;
  }

  private startChildPipeline(dotFile: string, context: RunContext, label: string, options: ChildPipelineOptions = {}): ChildPipelineHandle {
    const loaded = this.shared.loadChildPipeline(dotFile, this.graph);
    const sourcePath = 'graph' in loaded ? loaded.graph.sourcePath : undefined;
    const scope: WalkScope = {
      id: `${this.options.scope.id}>sub:${label}`,
      kind: 'subpipeline',
      frames: [...this.options.scope.frames, { nodeId: label, ...(sourcePath ? { sourcePath } : {}) }],
    };
    const runDirectory = this.options.runDirectory.child(label);
    const cancellation = new AbortController();
    const outcome = 'error' in loaded ? Promise.resolve<Outcome>({ status: 'fail', isExplicit: false, failureReason: loaded.error }) : this.walkChild(dotFile, loaded.graph, context, scope, runDirectory, cancellation.signal, options);
    return { loaded: 'graph' in loaded, scope, runDirectory, outcome, cancel: () => cancellation.abort(new CancelledError(`child pipeline ${dotFile} was cancelled`)) };
  }

  private async walkChild(dotFile: string, child: Graph, context: RunContext, scope: WalkScope, runDirectory: RunDirectory, cancel: AbortSignal, options: ChildPipelineOptions): Promise<Outcome> {
    // The caller holds its handle before the child emits anything.
    await Promise.resolve();
    const start = [...child.nodes.values()].find(isStartNode);
    if (!start) return { status: 'fail', isExplicit: false, failureReason: `${dotFile} has no start node` };
    const { onEvent, params } = options;
    // As the reference's child engine initializes its run: the child's graph attributes, keeping the
    // parent's goal when the child has none.
    const { 'graph.goal': goal, ...attributes } = graphContextEntries(child);
    context.apply(goal ? { ...attributes, 'graph.goal': goal } : attributes);
    if (params) context.apply(params);
    const shared: RunShared = {
      ...this.tapped(onEvent),
      ...(params ? { params: { ...this.shared.params, ...params } } : {}),
      signal: AbortSignal.any([this.shared.signal, cancel]),
      ...(options.cwd ? { cwd: options.cwd } : {}),
    };
    const walker = new Walker(shared, { scope, graph: child, runDirectory, state: freshWalkState(start.id, context, 0), exitSemantics: true });
    let result: WalkResult;
    try {
      result = await walker.walk();
    } catch (error) {
      if (shared.signal.aborted) return { status: 'fail', isExplicit: false, failureReason: `sub-pipeline ${dotFile} was cancelled` };
      return { status: 'fail', isExplicit: false, failureReason: `sub-pipeline ${dotFile} stopped on an engine error: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (result.kind === 'stopped') return { status: 'fail', isExplicit: false, failureReason: `sub-pipeline stopped at ${result.stoppedAt}` };
    const explicit = result.lastOutcome?.isExplicit ?? true;
    return result.status === 'success'
      ? { status: 'success', isExplicit: explicit, notes: `sub-pipeline ${dotFile} completed` }
      : { status: 'fail', isExplicit: explicit, failureReason: `sub-pipeline ${dotFile} failed: ${result.failureReason ?? 'unknown reason'}` };
  }
}
