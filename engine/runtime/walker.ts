import type { Adjacency, Graph, GraphEdge, GraphNode } from '../model/graph';
import { buildAdjacency } from '../model/graph';
import { runsChildPipeline } from '../model/child-context';
import { isExitNode, isStartNode, resolveHandlerType } from '../model/handler-types';
import type { BranchResult, ChildPipelineHandle, ChildPipelineOptions, HandlerRegistry, HandlerServices } from '../handlers/handler';
import type { CodergenBackend, TranscriptMessage, Usage } from './backend';
import { ProviderError } from './backend';
import type { Clock } from './clock';
import type { RunContext } from './context';
import type { RunController } from './controller';
import { selectEdge } from './edge-selection';
import type { EdgeIdentity, RunEvent, TraceRecord, WalkScope } from './events';
import { collectFeedback, critiqueSource } from './feedback';
import { resolveFidelity } from './fidelity';
import { describeGate, failureRetryTarget, firstUnsatisfiedGate, gateRetryTarget } from './goal-gates';
import type { Interviewer } from './interviewer';
import { checkMustWrite, freshnessFloor } from './must-write';
import { boolAttr, graphDurationMs, intAttr, listAttr, maxRetries, stringAttr, timeoutMs } from './node-config';
import type { FailureKind, Outcome } from './outcome';
import { isSuccessful } from './outcome';
import { backoffPresets, delayForAttempt, maxRetryAfterMs } from './retry-policy';
import { addUsage, usageFields } from './usage';
import { formatDuration } from '../model/duration';
import type { RunDirectory } from './run-directory';
import { graphContextEntries, retryCountKey } from './graph-context';
import type { OutcomeRecord } from './state';
import type { CommandSandbox } from './sandbox';
import type { VisitFiles } from './workspace-snapshot';

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

/** The mutable state of one walk; the main walk's is checkpointed after every node. */
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

export type WalkResult =
  | { readonly kind: 'finished'; readonly status: 'success' | 'fail'; readonly failureReason?: string; readonly failureKind?: FailureKind; readonly lastOutcome?: Outcome }
  | { readonly kind: 'stopped'; readonly stoppedAt: string; readonly lastOutcome?: Outcome };

/** A node that missed its must_write artifact contract. */
function mustWriteFailure(message: string): Outcome {
  return { status: 'fail', isExplicit: false, failureReason: message, failureKind: 'must_write_violated' };
}

export class CancelledError extends Error {
  override readonly name = 'CancelledError';
}

export interface WalkOptions {
  readonly scope: WalkScope;
  readonly graph: Graph;
  readonly runDirectory: RunDirectory;
  readonly state: WalkState;
  /** The main walk and sub-pipelines check goal gates at the exit; branches do not. */
  readonly exitSemantics: boolean;
  /** Branches stop before these nodes (the fan-in). */
  readonly stopAt?: ReadonlySet<string>;
  /** The main walk stops at a node boundary before a node this answers true for (a durable worker's one step). */
  readonly pauseBefore?: (nodeId: string) => boolean;
  /** Called after every node boundary with the state to persist (the main walk checkpoints). */
  readonly onBoundary?: (state: WalkState) => void;
  readonly elapsedMs?: () => number;
  /** Snapshots the workspace after a node ran: the visit's before/after (the main walk only). */
  readonly snapshotVisit?: () => Promise<VisitFiles | undefined>;
}

/** Walks one graph: run node, record, route, repeat (canonical §3.2 as the ledger amends it). */
/** Why a node's attempt was stopped by a controller (as opposed to the whole run being cancelled). */
class NodeCancelled extends Error {
  override readonly name = 'NodeCancelled';
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** max_pipeline_duration ran out while a node was running: the node is stopped and the run fails. */
class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}

export class Walker {
  private readonly adjacency: Adjacency;
  /** Aborts the node running now; a walker runs one node at a time. */
  private nodeAbort = new AbortController();
  /** The record of the node just run, held back until its route is known (a forced route is recorded on it). */
  private pendingTrace: TraceRecord | undefined;
  /** The current node visit's number within its iteration (RunDirectory.beginVisit). */
  private iterationVisit = 1;

  constructor(
    private readonly shared: RunShared,
    private readonly options: WalkOptions,
  ) {
    this.adjacency = buildAdjacency(options.graph);
  }

  private get graph(): Graph {
    return this.options.graph;
  }

  private get state(): WalkState {
    return this.options.state;
  }

  async walk(): Promise<WalkResult> {
    const { graph, state } = this;
    const maxSteps = intAttr(graph.attributes, 'max_steps', 1000);
    let lastOutcome: Outcome | undefined;
    for (;;) {
      this.throwIfCancelled();
      const remaining = this.remainingBudgetMs();
      if (remaining !== undefined && remaining < 0) return this.finish('fail', this.deadlineMessage(), lastOutcome);
      if (state.step >= maxSteps) return this.finish('fail', `max_steps_exceeded: ${maxSteps} node executions`, lastOutcome);
      const node = graph.nodes.get(state.nextNodeId);
      if (!node) return this.finish('fail', `node ${state.nextNodeId} does not exist`, lastOutcome);
      if (this.options.stopAt?.has(node.id) || this.options.pauseBefore?.(node.id)) return { kind: 'stopped', stoppedAt: node.id, ...(lastOutcome ? { lastOutcome } : {}) };

      if (isExitNode(node) && this.options.exitSemantics) {
        const gate = firstUnsatisfiedGate(graph, state.nodeOutcomes);
        if (gate) {
          const target = gateRetryTarget(gate.node, graph);
          const reason = describeGate(gate.node, gate.record);
          if (!target) return this.finish('fail', `${reason}, and no retry_target is set`, lastOutcome, 'goal_gate_unsatisfied');
          this.jump(node.id, target, `${reason}: jumping to retry_target ${target}`, 'goal_gate_unsatisfied');
          continue;
        }
        this.recordStructuralVisit(node);
        if (state.pendingFailure) return this.finish('fail', state.pendingFailure, lastOutcome);
        return this.finish('success', undefined, lastOutcome);
      }

      let outcome: Outcome;
      try {
        outcome = await this.runNode(node);
      } catch (error) {
        if (!(error instanceof DeadlineExceeded)) throw error;
        this.flushTrace();
        return this.finish('fail', error.message, lastOutcome);
      }
      lastOutcome = outcome;
      let route;
      try {
        route = await this.route(node, outcome);
      } finally {
        this.flushTrace();
      }
      if (route.kind === 'finished') return route;
    }
  }

  private finish(status: 'success' | 'fail', failureReason: string | undefined, lastOutcome: Outcome | undefined, failureKind?: FailureKind): WalkResult {
    return { kind: 'finished', status, ...(failureReason ? { failureReason } : {}), ...(failureKind ? { failureKind } : {}), ...(lastOutcome ? { lastOutcome } : {}) };
  }

  /** What is left of max_pipeline_duration, when the graph sets one and this walk keeps the run's clock. */
  private remainingBudgetMs(): number | undefined {
    const maxDuration = graphDurationMs(this.graph, 'max_pipeline_duration', 'ms');
    if (maxDuration === undefined || !this.options.elapsedMs) return undefined;
    return maxDuration - this.options.elapsedMs();
  }

  private deadlineMessage(stoppedNode?: string): string {
    const maxDuration = graphDurationMs(this.graph, 'max_pipeline_duration', 'ms');
    return `max_pipeline_duration_exceeded: the run took longer than ${maxDuration} ms${stoppedNode ? `; node ${stoppedNode} was stopped` : ''}`;
  }

  private throwIfCancelled(): void {
    if (this.shared.signal.aborted) throw new CancelledError('the run was cancelled');
  }

  private boundary(node: GraphNode) {
    return {
      scope: this.options.scope,
      graph: this.graph,
      nodeId: node.id,
      iteration: this.state.iteration,
      step: this.state.step,
      visit: this.state.visits[node.id] ?? 0,
      context: this.state.context,
      cancelNode: (reason: string) => this.nodeAbort.abort(new NodeCancelled(reason)),
    };
  }

  private async runNode(node: GraphNode): Promise<Outcome> {
    const { state, shared } = this;
    this.nodeAbort = new AbortController();
    await shared.controller.beforeNode?.({ ...this.boundary(node), visit: (state.visits[node.id] ?? 0) + 1 });
    this.throwIfCancelled();
    state.visits[node.id] = (state.visits[node.id] ?? 0) + 1;
    this.iterationVisit = this.options.runDirectory.beginVisit(state.iteration, node.id);
    state.step++;
    state.context.set('current_node', node.id);
    shared.emit({ type: 'node:start', scope: this.options.scope, nodeId: node.id, iteration: state.iteration, visit: state.visits[node.id] ?? 1 });
    const started = shared.clock.monotonic();

    let outcome: Outcome;
    try {
      outcome = this.withCycleIndex(node, this.applyOverrides(node, await this.outcomeOf(node)));
    } catch (error) {
      // node:start and node:end stay balanced when a cancel interrupts the node (a run's cancel, or a
      // branch cancelled by its join), so views do not show it running forever. Nothing is recorded.
      if (this.shared.signal.aborted) {
        const cancelled: Outcome = { status: 'skipped', isExplicit: false, notes: 'cancelled while running' };
        shared.emit({ type: 'node:end', scope: this.options.scope, nodeId: node.id, iteration: state.iteration, outcome: cancelled, durationMs: shared.clock.monotonic() - started });
      } else if (error instanceof DeadlineExceeded) {
        await this.record(node, { status: 'fail', isExplicit: false, failureReason: error.message }, shared.clock.monotonic() - started);
      }
      throw error;
    }

    const durationMs = shared.clock.monotonic() - started;
    const files = await this.record(node, outcome, durationMs);
    await shared.controller.afterNode?.({ ...this.boundary(node), outcome, ...(files ? { files } : {}) });
    return outcome;
  }

  /** Ledger §30: a folder or manager node's outcome says which run of its child it reports (0-based; a manager counts its own cycles). */
  private withCycleIndex(node: GraphNode, outcome: Outcome): Outcome {
    if (!runsChildPipeline(resolveHandlerType(node))) return outcome;
    return { ...outcome, cycleIndex: outcome.cycleIndex ?? (this.state.visits[node.id] ?? 1) - 1 };
  }

  /** requires= skips; otherwise the retry ladder. */
  private async outcomeOf(node: GraphNode): Promise<Outcome> {
    const missing = listAttr(node, 'requires').filter((key) => !this.state.context.has(key));
    if (missing.length > 0) return { status: 'skipped', isExplicit: false, notes: `skipped: required context ${missing.join(', ')} missing` };
    return this.executeWithRetry(node);
  }

  /**
   * The retry ladder (canonical §3.5 with the ledger): RETRY outcomes, transient provider errors
   * and must_write violations consume attempts; a plain FAIL returns at once; exhaustion of RETRY
   * yields PARTIAL_SUCCESS only with allow_partial, and never over a missing artifact.
   */
  private async executeWithRetry(node: GraphNode): Promise<Outcome> {
    const { state, shared } = this;
    const maxAttempts = maxRetries(node, this.graph) + 1;
    const mustWrite = stringAttr(node, 'must_write');
    const allowPartial = boolAttr(node, 'allow_partial');
    let attempt = state.retryCounts[node.id] ?? 0;
    let previousReason: string | undefined;
    let usage: Usage | undefined;
    for (;;) {
      attempt++;
      state.retryCounts[node.id] = attempt - 1;
      shared.emit({ type: 'node:attempt', scope: this.options.scope, nodeId: node.id, attempt });
      const startWall = mustWrite ? freshnessFloor(this.options.runDirectory.stageDir(node.id)) : 0;
      const result = await this.attemptOnce(node, attempt, previousReason);
      const spent = result.kind === 'outcome' ? result.outcome.usage : result.usage;
      if (spent) usage = usage ? addUsage(usage, spent) : spent;
      const finalAttempt = attempt >= maxAttempts;
      const stamp = (outcome: Outcome): Outcome => {
        delete state.retryCounts[node.id];
        // Canonical §3.5: a success resets the node's retry counter; any other end keeps the count.
        state.context.set(retryCountKey(node.id), isSuccessful(outcome.status) ? 0 : attempt - 1);
        return { ...outcome, attemptCount: attempt, ...(usage ? { usage } : {}) };
      };

      let retryReason: string | undefined;
      let retryDelay: number | undefined;
      if (result.kind === 'error') {
        if (!result.transient || finalAttempt) return stamp({ status: 'fail', isExplicit: false, failureReason: result.message });
        retryReason = result.message;
        if (result.retryAfterMs !== undefined) {
          retryDelay = Math.min(result.retryAfterMs, maxRetryAfterMs);
          // A server asking for more than the cap is not waited out in full, and the event says so.
          if (result.retryAfterMs > maxRetryAfterMs) retryReason += ` (Retry-After ${formatDuration(result.retryAfterMs)} capped at ${formatDuration(maxRetryAfterMs)})`;
        }
      } else {
        const outcome = result.outcome;
        if (outcome.status === 'fail' || outcome.status === 'skipped') return stamp(outcome);
        if (isSuccessful(outcome.status)) {
          const check = mustWrite ? checkMustWrite(mustWrite, shared.cwd, startWall) : { ok: true as const };
          if (check.ok) return stamp(outcome);
          if (finalAttempt) return stamp(mustWriteFailure(check.message));
          retryReason = check.message;
        } else {
          // RETRY
          if (finalAttempt) {
            if (allowPartial) {
              const check = mustWrite ? checkMustWrite(mustWrite, shared.cwd, startWall) : { ok: true as const };
              if (!check.ok) return stamp(mustWriteFailure(check.message));
              return stamp({ ...outcome, status: 'partial_success', isExplicit: false, notes: `retries exhausted after ${attempt} attempts; partial accepted (allow_partial)` });
            }
            return stamp({ ...outcome, status: 'fail', isExplicit: false, failureReason: `max retries exceeded after ${attempt} attempts${outcome.failureReason ? `: ${outcome.failureReason}` : ''}` });
          }
          retryReason = outcome.failureReason ?? 'the node asked to be retried';
        }
      }
      previousReason = retryReason;
      const delayMs = retryDelay ?? delayForAttempt(attempt, backoffPresets.standard, shared.clock);
      shared.emit({ type: 'node:retry', scope: this.options.scope, nodeId: node.id, attempt, delayMs, reason: retryReason });
      state.retryCounts[node.id] = attempt;
      state.context.set(retryCountKey(node.id), attempt);
      this.options.onBoundary?.(state);
      // A backoff never sleeps past max_pipeline_duration; the next attempt then fails the run.
      const remaining = this.remainingBudgetMs();
      await shared.clock.sleep(remaining === undefined ? delayMs : Math.min(delayMs, Math.max(0, remaining)), shared.signal).catch(() => undefined);
      this.throwIfCancelled();
    }
  }

  private async attemptOnce(
    node: GraphNode,
    attempt: number,
    retryReason: string | undefined,
  ): Promise<{ kind: 'outcome'; outcome: Outcome } | { kind: 'error'; message: string; transient: boolean; retryAfterMs?: number; usage?: Usage }> {
    const { shared } = this;
    const remaining = this.remainingBudgetMs();
    if (remaining !== undefined && remaining <= 0) throw new DeadlineExceeded(this.deadlineMessage(node.id));
    const timeout = timeoutMs(node);
    // A referenced timer, unlike AbortSignal.timeout's: a node waiting on nothing but its timeout
    // (a human gate with a default choice) must keep the process alive until it fires.
    const expiry = timeout !== undefined ? new AbortController() : undefined;
    const expiryTimer = expiry ? setTimeout(() => expiry.abort(new DOMException(`timed out after ${timeout} ms`, 'TimeoutError')), timeout) : undefined;
    const timer = expiry?.signal;
    const nodeSignal = this.nodeAbort.signal;
    const deadline = remaining !== undefined ? new AbortController() : undefined;
    // setTimeout fires at once past 2^31-1 ms; a budget that long simply never interrupts a node.
    const deadlineTimer = deadline && remaining !== undefined && remaining < MAX_TIMER_MS ? setTimeout(() => deadline.abort(new DeadlineExceeded(this.deadlineMessage(node.id))), remaining) : undefined;
    const signal = AbortSignal.any([shared.signal, nodeSignal, ...(timer ? [timer] : []), ...(deadline ? [deadline.signal] : [])]);
    const incoming = this.state.incomingEdge ? this.graph.edges[this.state.incomingEdge.index] : undefined;
    try {
      const outcome = await shared.handlers.resolve(node).execute({
        node,
        context: this.state.context,
        services: this.services(incoming),
        attempt,
        ...(retryReason !== undefined ? { retryReason } : {}),
        signal,
        fidelity: resolveFidelity(node, this.graph, incoming?.attributes.get('fidelity')?.value),
      });
      // A handler interrupted by a cancel returns whatever it had (an aborted tool's FAIL, a gate's
      // default choice); that is not the node's result, so it is never recorded or routed on.
      this.throwIfCancelled();
      if (deadline?.signal.aborted) throw deadline.signal.reason;
      if (nodeSignal.aborted) return { kind: 'outcome', outcome: this.nodeCancelled(nodeSignal) };
      // A handler that dealt with its own timeout (a human gate's default choice) keeps its result.
      if (timer?.aborted && !shared.signal.aborted && !isSuccessful(outcome.status)) {
        return { kind: 'outcome', outcome: { ...this.timedOut(node, timeout ?? 0), ...(outcome.continueAt !== undefined ? { continueAt: outcome.continueAt } : {}) } };
      }
      return { kind: 'outcome', outcome };
    } catch (error) {
      this.throwIfCancelled();
      if (deadline?.signal.aborted) throw deadline.signal.reason;
      if (nodeSignal.aborted) return { kind: 'outcome', outcome: this.nodeCancelled(nodeSignal) };
      if (timer?.aborted) return { kind: 'outcome', outcome: this.timedOut(node, timeout ?? 0) };
      if (error instanceof ProviderError) {
        return {
          kind: 'error',
          message: error.message,
          transient: error.transient,
          ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
          ...(error.usage ? { usage: error.usage } : {}),
        };
      }
      return { kind: 'error', message: `handler error: ${error instanceof Error ? error.message : String(error)}`, transient: false };
    } finally {
      clearTimeout(expiryTimer);
      clearTimeout(deadlineTimer);
    }
  }

  /** A controller stopped this attempt (the debugger cancelling a long LLM call): a plain FAIL, never retried. */
  private nodeCancelled(signal: AbortSignal): Outcome {
    const reason = signal.reason instanceof Error ? signal.reason.message : 'cancelled';
    return { status: 'fail', isExplicit: false, failureReason: `cancelled: ${reason}` };
  }

  /** Ledger: a timeout fails the node, or yields PARTIAL_SUCCESS with allow_partial. */
  private timedOut(node: GraphNode, ms: number): Outcome {
    if (boolAttr(node, 'allow_partial')) return { status: 'partial_success', isExplicit: false, notes: `timed out after ${ms} ms; partial accepted (allow_partial)` };
    return { status: 'fail', isExplicit: false, failureReason: `timed out after ${ms} ms` };
  }

  /** auto_status, then continue_on_fail, then the must_write backstop, in that order (ledger). */
  private applyOverrides(node: GraphNode, outcome: Outcome): Outcome {
    let result = outcome;
    if (result.status === 'skipped' && boolAttr(node, 'auto_status')) {
      result = { ...result, status: 'success', isExplicit: false, notes: 'auto-status: handler completed without writing status' };
    }
    if (result.status === 'fail' && boolAttr(node, 'continue_on_fail')) {
      result = { ...result, status: 'partial_success', isExplicit: false, notes: `continue_on_fail: ${result.failureReason ?? 'failed'}` };
    }
    const mustWrite = stringAttr(node, 'must_write');
    if (mustWrite && result.status !== 'fail' && result.status !== 'skipped' && result.attemptCount === undefined) {
      // Outcomes that never entered the ladder (auto_status promotions) meet the contract here.
      const check = checkMustWrite(mustWrite, this.shared.cwd, 0);
      if (!check.ok) result = mustWriteFailure(check.message);
    }
    if (mustWrite && outcome.status === 'fail' && result.status !== 'fail') {
      result = mustWriteFailure(`must_write node ${node.id} failed; continue_on_fail cannot override the artifact contract: ${outcome.failureReason ?? ''}`);
    }
    return result;
  }

  /** Returns the workspace snapshots around the visit, when taken. */
  private async record(node: GraphNode, outcome: Outcome, durationMs: number): Promise<VisitFiles | undefined> {
    const { state, shared } = this;
    // First, so that the state is recorded in one synchronous step after the wait.
    const files = await this.options.snapshotVisit?.();
    state.context.apply(outcome.contextUpdates);
    state.context.set('outcome', outcome.status);
    if (outcome.preferredLabel) state.context.set('preferred_label', outcome.preferredLabel);
    const missingOutputs = listAttr(node, 'outputs').filter((key) => !state.context.has(key));
    if (missingOutputs.length > 0 && outcome.status !== 'skipped') {
      shared.emit({ type: 'node:contract', scope: this.options.scope, nodeId: node.id, missingOutputs });
    }
    if (outcome.status !== 'skipped') {
      const updates = outcome.contextUpdates ?? {};
      state.nodeOutcomes[node.id] = {
        status: outcome.status,
        isExplicit: outcome.isExplicit,
        ...(outcome.preferredLabel ? { preferredLabel: outcome.preferredLabel } : {}),
        ...(outcome.notes ? { notes: outcome.notes } : {}),
        ...(outcome.failureReason ? { failureReason: outcome.failureReason } : {}),
        ...(typeof updates['tool.output'] === 'string' ? { toolOutput: critiqueSource(updates['tool.output']) } : {}),
        ...(typeof updates['tool.last_line'] === 'string' ? { toolLastLine: critiqueSource(updates['tool.last_line']) } : {}),
      };
    }
    state.completedNodes.push(node.id);
    state.lastCompletedNodeId = node.id;
    this.options.runDirectory.writeStatus(state.iteration, node.id, outcome);
    this.pendingTrace = { ...this.traceRecord(node.id, outcome, durationMs), ...(files ? { files } : {}) };
    shared.emit({ type: 'node:end', scope: this.options.scope, nodeId: node.id, iteration: state.iteration, outcome, durationMs });
    return files;
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

  private recordStructuralVisit(node: GraphNode): void {
    this.state.visits[node.id] = (this.state.visits[node.id] ?? 0) + 1;
    this.iterationVisit = this.options.runDirectory.beginVisit(this.state.iteration, node.id);
    const outcome: Outcome = { status: 'success', isExplicit: true, notes: `exit: ${node.id}` };
    this.shared.emit({ type: 'node:start', scope: this.options.scope, nodeId: node.id, iteration: this.state.iteration, visit: this.state.visits[node.id] ?? 1 });
    this.state.completedNodes.push(node.id);
    this.state.lastCompletedNodeId = node.id;
    this.options.runDirectory.writeStatus(this.state.iteration, node.id, outcome);
    this.writeTrace(this.traceRecord(node.id, outcome, 0));
    this.shared.emit({ type: 'node:end', scope: this.options.scope, nodeId: node.id, iteration: this.state.iteration, outcome, durationMs: 0 });
  }

  private jump(from: string, to: string, reason: string, failureKind?: FailureKind): void {
    this.flushTrace();
    this.shared.emit({ type: 'jump', scope: this.options.scope, from, to, reason, ...(failureKind ? { failureKind } : {}) });
    this.state.nextNodeId = to;
    delete this.state.incomingEdge;
    this.options.onBoundary?.(this.state);
  }

  /** Failure routing (canonical §3.7 + ledger fail-fast) and edge selection for everything else. */
  private async route(node: GraphNode, outcome: Outcome): Promise<WalkResult | { kind: 'continue' }> {
    const { state, graph } = this;
    if (outcome.continueAt !== undefined) {
      // The node's own edges are not routes (a fan-out's are its branches): a failure can only
      // jump to the node's retry target or end the walk, wherever continueAt points.
      if (outcome.status === 'fail') {
        const target = failureRetryTarget(node, graph);
        if (!target) return this.finish('fail', outcome.failureReason ?? `${node.id} failed`, outcome, outcome.failureKind);
        this.jump(node.id, target, `${node.id} failed: jumping to retry_target ${target}`, outcome.failureKind);
        return { kind: 'continue' };
      }
      if (!graph.nodes.has(outcome.continueAt)) return this.finish('fail', `${node.id} continues at ${outcome.continueAt}, which is not a node of ${graph.name}`, outcome);
      this.jump(node.id, outcome.continueAt, `${node.id} continues at ${outcome.continueAt}`);
      return { kind: 'continue' };
    }
    const edges = this.adjacency.outgoing.get(node.id) ?? [];
    const selection = selectEdge({ edges, outcome, lookup: (key) => state.context.get(key), nodes: graph.nodes });

    if (outcome.status === 'fail' && !(selection.kind === 'edge' && selection.step === 'condition')) {
      const target = failureRetryTarget(node, graph);
      if (target) {
        this.jump(node.id, target, `${node.id} failed: jumping to retry_target ${target}`, outcome.failureKind);
        return { kind: 'continue' };
      }
      if (selection.kind === 'none') return this.finish('fail', outcome.failureReason ?? `${node.id} failed`, outcome, outcome.failureKind);
      state.pendingFailure ??= `${node.id} failed: ${outcome.failureReason ?? 'no reason given'} (the run continued into ${selection.edge.to}, which runs on failure)`;
    }
    if (selection.kind === 'none') {
      if (!this.options.exitSemantics) return this.finish(isSuccessful(outcome.status) ? 'success' : 'fail', outcome.failureReason, outcome, outcome.failureKind);
      return this.finish('fail', `no matching edge from node '${node.id}': ${selection.reason}`, outcome, 'no_matching_edge');
    }

    let edge: GraphEdge = selection.edge;
    const directive = await this.shared.controller.beforeEdge?.({
      scope: this.options.scope,
      graph,
      from: node.id,
      outcome,
      selected: edge,
      candidates: edges,
      iteration: state.iteration,
      context: state.context,
    });
    const forced = directive ? graph.edges[directive.forceEdgeIndex] : undefined;
    if (forced && forced.from === node.id) edge = forced;
    const wasForced = forced !== undefined && forced === edge;
    const taken: EdgeIdentity = { index: edge.index, from: edge.from, to: edge.to };
    this.flushTrace({ edge: taken, forced: wasForced });
    this.shared.emit({ type: 'edge', scope: this.options.scope, edge: taken, loopRestart: boolAttr(edge, 'loop_restart'), forced: wasForced });

    if (boolAttr(edge, 'loop_restart')) this.restartLoop();
    state.nextNodeId = edge.to;
    state.incomingEdge = taken;
    this.options.onBoundary?.(state);
    return { kind: 'continue' };
  }

  /** Ledger: a loop_restart feeds critics to listeners, starts a new iteration, keeps the context. */
  private restartLoop(): void {
    const { state } = this;
    const feedback = collectFeedback(this.graph, state.nodeOutcomes, state.context.snapshot(), state.iteration);
    state.context.apply(feedback.contextUpdates);
    for (const [nodeId, content] of feedback.files) this.options.runDirectory.writeFeedback(nodeId, content);
    state.iteration++;
    state.context.set('iteration', String(state.iteration));
    state.context.set('loop_count', String(state.iteration));
    state.completedNodes = [];
    state.nodeOutcomes = {};
    state.retryCounts = {};
    this.shared.emit({ type: 'iteration', iteration: state.iteration });
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
      transcript: (key) => state.threads[key] ?? [],
      recordExchange: (key, exchange) => {
        state.threads[key] = [...(state.threads[key] ?? []), ...exchange];
      },
      beforeAgentTurn: async (nodeId, turn) => {
        const node = this.graph.nodes.get(nodeId);
        if (node) await shared.controller.beforeAgentTurn?.({ ...this.boundary(node), turn });
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
    return { scope, runDirectory, outcome, cancel: () => cancellation.abort(new CancelledError(`child pipeline ${dotFile} was cancelled`)) };
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

