import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Graph } from '../model/graph';
import { isStartNode } from '../model/handler-types';
import type { HandlerRegistry } from '../handlers/handler';
import { createHandlerRegistry } from '../handlers';
import { preparePipeline } from '../prepare';
import type { CodergenBackend } from './backend';
import type { Clock } from './clock';
import { systemClock } from './clock';
import { RunContext } from './context';
import type { RunController } from './controller';
import { EventBus } from './events';
import type { Interviewer } from './interviewer';
import type { FailureKind } from './outcome';
import { DEFAULT_MAX_PARALLEL, isMaxParallel } from './join-policy';
import { RunDirectory } from './run-directory';
import type { RunState } from './state';
import { CHECKPOINT_FORMAT } from './state';
import { engineCommit, engineVersion } from './version';
import { WorkspaceSnapshotter } from './workspace-snapshotter';
import type { SnapshotBudget } from './workspace-snapshot';
import type { WalkState } from './walker';
import { CancelledError, Walker, freshWalkState } from './walker';
import { READ_LIMITS, readFileChecked } from '../io/read-file-checked';

export interface RunOptions {
  /** The prepared (transformed and validated) graph. */
  readonly graph: Graph;
  /** The DOT source the graph came from: hashed into the checkpoint and kept in the run directory. */
  readonly source: string;
  readonly cwd: string;
  readonly logsRoot: string;
  readonly params?: Readonly<Record<string, string>>;
  readonly backend: CodergenBackend;
  readonly interviewer: Interviewer;
  readonly controller?: RunController;
  readonly handlers?: HandlerRegistry;
  readonly clock?: Clock;
  readonly signal?: AbortSignal;
  readonly events?: EventBus;
  /** Continue from this checkpoint instead of starting fresh (opt-in resume). */
  readonly resume?: RunState;
  /** max_parallel of fan-outs that do not set their own (default 4, canonical §4.8); an integer ≥ 1. */
  readonly defaultMaxParallel?: number;
  /** Budget of the per-visit workspace snapshots, or false to take none. */
  readonly workspaceSnapshots?: SnapshotBudget | false;
}

export interface RunResult {
  readonly status: 'success' | 'fail' | 'cancelled';
  readonly failureReason?: string;
  readonly failureKind?: FailureKind;
  readonly logsRoot: string;
  readonly runId: string;
  readonly state: RunState;
}

export function hashSource(source: string): string {
  return crypto.createHash('sha256').update(source).digest('hex');
}

/**
 * INITIALIZE → EXECUTE → FINALIZE for a prepared graph. Writes the run directory, checkpoints
 * after every node, and always balances run:start with run:end (also on cancel and errors).
 */
export async function runPipeline(options: RunOptions): Promise<RunResult> {
  if (options.defaultMaxParallel !== undefined && !isMaxParallel(options.defaultMaxParallel)) {
    throw new RangeError(`defaultMaxParallel must be an integer of at least 1 (got ${options.defaultMaxParallel})`);
  }
  const events = options.events ?? new EventBus();
  const clock = options.clock ?? systemClock;
  const signal = options.signal ?? new AbortController().signal;
  const directory = new RunDirectory(path.resolve(options.logsRoot));
  const { graph } = options;
  const resumed = options.resume;
  const runId = resumed?.runId ?? `${graph.name || 'pipeline'}-${new Date(clock.now()).toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(3).toString('hex')}`;
  const startedAt = resumed?.startedAt ?? new Date(clock.now()).toISOString();
  const monoStart = clock.monotonic();
  const elapsedBefore = resumed?.elapsedBeforeMs ?? 0;
  const params = { ...(resumed?.params ?? options.params ?? {}) };

  events.emit({ type: 'phase', phase: 'initialize', state: 'start' });
  directory.create();
  const state: WalkState = resumed ? walkStateFrom(resumed) : initialWalkState(graph, params, runId);
  if (!resumed) {
    fs.writeFileSync(path.join(directory.root, 'pipeline.dot'), options.source);
    directory.writeManifest({
      graph_name: graph.name,
      goal: graph.attributes.get('goal')?.value ?? '',
      start_time: startedAt,
      node_count: graph.nodes.size,
      edge_count: graph.edges.length,
      engine_version: engineVersion,
      engine_commit: engineCommit,
      run_id: runId,
      ...(graph.sourcePath ? { source_path: graph.sourcePath } : {}),
      cwd: options.cwd,
      backend: options.backend.name,
    });
  }
  const graphHash = hashSource(options.source);
  const snapshotter = new WorkspaceSnapshotter(directory.root, options.cwd, options.workspaceSnapshots, (message) => events.emit({ type: 'warning', message }));
  // The live state, viewed as a RunState without copying it: it is serialised at once (a checkpoint
  // grows with the run, and copying it at every node would make a long walk quadratic).
  const view = (status: RunState['status'], failureReason?: string): RunState => ({
    format: CHECKPOINT_FORMAT,
    runId,
    graphHash,
    graphName: graph.name,
    ...(graph.sourcePath ? { sourcePath: graph.sourcePath } : {}),
    cwd: options.cwd,
    params,
    status,
    ...(failureReason ? { failureReason } : {}),
    ...positionOf(state),
    context: state.context.snapshot(),
    threads: state.threads,
    ...snapshotter.checkpointField(),
    startedAt,
    elapsedBeforeMs: elapsedBefore + (clock.monotonic() - monoStart),
    updatedAt: new Date(clock.now()).toISOString(),
  });
  const checkpoint = () => {
    const json = directory.writeCheckpoint(view('running'));
    events.emit({
      type: 'checkpoint',
      nodeId: state.lastCompletedNodeId ?? state.nextNodeId,
      // A frozen copy, made only for the consumers that ask (the debugger's time travel).
      get state(): RunState {
        return JSON.parse(json) as RunState;
      },
    });
  };
  checkpoint();
  events.emit({ type: 'phase', phase: 'initialize', state: 'end' });

  events.emit({ type: 'run:start', runId, logsRoot: directory.root, graphName: graph.name, resumed: resumed !== undefined });
  let status: RunResult['status'] = 'fail';
  let failureReason: string | undefined;
  let failureKind: FailureKind | undefined;
  try {
    events.emit({ type: 'phase', phase: 'execute', state: 'start' });
    const walker = new Walker(
      {
        runId,
        cwd: options.cwd,
        clock,
        signal,
        emit: (event) => events.emit(event),
        backend: options.backend,
        interviewer: options.interviewer,
        handlers: options.handlers ?? createHandlerRegistry(),
        controller: options.controller ?? {},
        defaultMaxParallel: options.defaultMaxParallel ?? DEFAULT_MAX_PARALLEL,
        params,
        loadChildPipeline,
      },
      {
        scope: { id: 'main', kind: 'main', frames: [] },
        graph,
        runDirectory: directory,
        state,
        exitSemantics: true,
        onBoundary: checkpoint,
        snapshotVisit: () => snapshotter.visit(),
        elapsedMs: () => elapsedBefore + (clock.monotonic() - monoStart),
      },
    );
    const result = await walker.walk();
    if (result.kind === 'finished') {
      status = result.status;
      failureReason = result.failureReason;
      failureKind = result.failureKind;
    } else {
      failureReason = `the walk stopped unexpectedly at ${result.stoppedAt}`;
    }
    events.emit({ type: 'phase', phase: 'execute', state: 'end' });
  } catch (error) {
    if (error instanceof CancelledError || signal.aborted) {
      status = 'cancelled';
      failureReason = 'cancelled';
    } else {
      failureReason = `engine error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    }
  } finally {
    events.emit({ type: 'phase', phase: 'finalize', state: 'start' });
    // A cancelled run keeps its last node-boundary checkpoint "running", so `attractor resume` continues it.
    const final = status === 'cancelled' ? view('running') : view(status, failureReason);
    try {
      directory.writeCheckpoint(final);
      directory.recordUsageTotal();
    } catch {
      // The run's own result matters more than a last checkpoint the disk refused.
    }
    events.emit({ type: 'phase', phase: 'finalize', state: 'end' });
    events.emit({ type: 'run:end', status, ...(failureReason ? { failureReason } : {}), ...(failureKind ? { failureKind } : {}), durationMs: clock.monotonic() - monoStart });
  }
  const finalState = JSON.parse(JSON.stringify(view(status === 'cancelled' ? 'running' : status, failureReason))) as RunState;
  return { status, ...(failureReason ? { failureReason } : {}), ...(failureKind ? { failureKind } : {}), logsRoot: directory.root, runId, state: finalState };
}

function initialWalkState(graph: Graph, params: Readonly<Record<string, string>>, runId: string): WalkState {
  const start = [...graph.nodes.values()].find(isStartNode);
  if (!start) throw new Error('the graph has no start node (validation should have refused it)');
  const context = new RunContext({
    ...params,
    'graph.goal': graph.attributes.get('goal')?.value ?? '',
    run_id: runId,
    iteration: '0',
    loop_count: '0',
  });
  return freshWalkState(start.id, context, 0);
}

function walkStateFrom(state: RunState): WalkState {
  // A deep copy: the walk mutates its state, the checkpoint it came from stays as it was.
  const copy = structuredClone({ ...positionOf(state), threads: state.threads }) as Omit<WalkState, 'context'>;
  return { ...copy, context: new RunContext(state.context) };
}

/** Where a walk stands, as both the live WalkState and the checkpoint's RunState hold it. */
type WalkPosition = Pick<RunState, 'nextNodeId' | 'incomingEdge' | 'lastCompletedNodeId' | 'completedNodes' | 'nodeOutcomes' | 'retryCounts' | 'visits' | 'iteration' | 'step' | 'pendingFailure'>;

function positionOf(from: WalkPosition): WalkPosition {
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


/** Ledger dot_file resolution: absolute as is, else beside the .dot that references it, else the cwd. */
export function resolveDotFile(dotFile: string, parent: Graph): string {
  if (path.isAbsolute(dotFile)) return dotFile;
  return path.resolve(parent.sourcePath ? path.dirname(parent.sourcePath) : process.cwd(), dotFile);
}

function loadChildPipeline(dotFile: string, parent: Graph): { graph: Graph } | { error: string } {
  const file = resolveDotFile(dotFile, parent);
  let text: string;
  try {
    text = readFileChecked(file, READ_LIMITS.pipeline);
  } catch (error) {
    return { error: `cannot read sub-pipeline: ${(error as Error).message}` };
  }
  const prepared = preparePipeline(text, { sourcePath: file });
  const errors = prepared.diagnostics.filter((d) => d.severity === 'error');
  if (!prepared.graph || errors.length > 0) {
    return { error: `sub-pipeline ${file} is invalid: ${errors.map((d) => `${d.rule}: ${d.message}`).join('; ')}` };
  }
  return { graph: prepared.graph };
}
